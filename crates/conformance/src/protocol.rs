//! The adapter protocol, `markerspec-adapter/1` (`spec/PROTOCOL.md`): JSON lines over an
//! external program's stdin and stdout.
//!
//! [`Adapter`] drives an external program as an [`Implementation`]: it starts the program,
//! exchanges the handshake, sends one request per line and reads one response per line, with
//! a time limit per request. An adapter that crashes, hangs, prints something that is not a
//! response, or answers with the wrong id is reported for the case at hand and restarted for
//! the next one; it never stops the run. [`serve`] is the other side: it answers requests with
//! any [`Implementation`].

use std::io::{BufRead, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use markerspec_process::{Line, SendError, Session};

use serde_json::{Map, Value, json};

use crate::case::{Case, Dialect, EnvDocument, Expected, Kind, Profile, parse_unknown};
use crate::runner::{Divergence, Evaluated, Implementation, Parsed, Request, TestResult};

/// The protocol's name and major version, sent in the handshake.
///
/// See the example on [`serve`], which checks it in a handshake.
pub const PROTOCOL: &str = "markerspec-adapter/1";

/// The longest response line accepted, in bytes.
///
/// ```
/// // A response of a mebibyte or more is a protocol error, not a result.
/// assert_eq!(markerspec_conformance::protocol::MAX_LINE, 1 << 20);
/// ```
pub const MAX_LINE: usize = 1 << 20;

/// How many times in a row an adapter may fail to start (or to answer the handshake) before
/// it is given up. Crashes while answering cost a restart each and are not limited: an adapter
/// that dies on every case is slow, not wrong.
///
/// ```
/// use markerspec_conformance::protocol::MAX_FAILED_STARTS;
/// assert!(MAX_FAILED_STARTS >= 1); // at least one start is always tried
/// ```
pub const MAX_FAILED_STARTS: usize = 3;

/// How many requests in a row may time out before the adapter is given up: its remaining cases
/// are reported as not run instead of costing a restart and a full time limit each (an adapter
/// that shakes hands and then never answers would otherwise take hours).
///
/// ```
/// use std::time::Duration;
/// use markerspec_conformance::protocol::MAX_CONSECUTIVE_TIMEOUTS;
/// // The most an adapter that never answers costs before it is given up, per time limit.
/// let limit = Duration::from_secs(10);
/// assert_eq!(limit * MAX_CONSECUTIVE_TIMEOUTS as u32, Duration::from_secs(30));
/// ```
pub const MAX_CONSECUTIVE_TIMEOUTS: usize = 3;

/// What an adapter says about itself in the handshake.
///
/// ```
/// use markerspec_conformance::protocol::Hello;
/// use markerspec_conformance::Profile;
///
/// let line = serde_json::json!({
///     "protocol": "markerspec-adapter/1", "name": "mine", "version": "1.0",
///     "profiles": ["standard"], "dialects": ["pep508"], "codes": false,
/// });
/// let hello = Hello::from_json(&line).unwrap();
/// assert_eq!(hello.profiles, [Profile::Standard]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// Its name, e.g. `packaging`.
    pub name: String,
    /// The version of the implementation it wraps, e.g. `26.4`.
    pub version: String,
    /// The profiles whose expectations it claims to meet.
    pub profiles: Vec<Profile>,
    /// The dialects it parses.
    pub dialects: Vec<Dialect>,
    /// Whether it reports markerspec's diagnostic codes.
    pub codes: bool,
    /// The divergences it declares, as `(selector, reason)`.
    pub divergences: Vec<(String, String)>,
}

impl Hello {
    /// Reads a handshake line.
    ///
    /// # Errors
    /// What is missing or malformed, e.g. another protocol version.
    ///
    /// See the example on [`serve`].
    pub fn from_json(v: &Value) -> Result<Hello, String> {
        let proto = v.get("protocol").and_then(Value::as_str).unwrap_or("");
        if proto != PROTOCOL {
            return Err(format!(
                "the handshake names protocol `{proto}`, the runner speaks `{PROTOCOL}`"
            ));
        }
        let name = v
            .get("name")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or("the handshake has no `name`")?
            .to_string();
        let version = v
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let strings = |key: &str| -> Result<Vec<String>, String> {
            match v.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("`{key}` must hold strings"))
                    })
                    .collect(),
                Some(_) => Err(format!("`{key}` must be a list of strings")),
            }
        };
        let profiles = strings("profiles")?
            .iter()
            .map(|p| p.parse::<Profile>())
            .collect::<Result<Vec<_>, _>>()?;
        let dialects = match strings("dialects")? {
            d if d.is_empty() => vec![Dialect::Pep508],
            d => d
                .iter()
                .map(|s| match s.as_str() {
                    "pep508" => Ok(Dialect::Pep508),
                    "extended" => Ok(Dialect::Extended),
                    other => Err(format!("unknown dialect `{other}`")),
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let codes = v.get("codes").and_then(Value::as_bool).unwrap_or(false);
        let mut divergences = Vec::new();
        if let Some(list) = v.get("divergences") {
            let Value::Array(items) = list else {
                return Err("`divergences` must be a list".into());
            };
            for item in items {
                let sel = item.get("cases").and_then(Value::as_str);
                let reason = item.get("reason").and_then(Value::as_str);
                match (sel, reason) {
                    (Some(s), Some(r)) => {
                        Divergence::new(s, r)?;
                        divergences.push((s.to_string(), r.to_string()));
                    }
                    _ => {
                        return Err(
                            "a divergence is {\"cases\": SELECTOR, \"reason\": TEXT}".into()
                        );
                    }
                }
            }
        }
        Ok(Hello {
            name,
            version,
            profiles,
            dialects,
            codes,
            divergences,
        })
    }

    fn to_json(&self) -> Value {
        json!({
            "protocol": PROTOCOL,
            "name": self.name,
            "version": self.version,
            "profiles": self.profiles.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            "dialects": self.dialects.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
            "codes": self.codes,
            "divergences": self.divergences.iter()
                .map(|(s, r)| json!({"cases": s, "reason": r}))
                .collect::<Vec<_>>(),
        })
    }
}

/// The request line for an operation on a case.
///
/// See the example on [`serve`].
pub fn request_json(id: u64, op: &str, request: &Request<'_>) -> Value {
    let case = request.case;
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("op".into(), json!(op));
    m.insert("kind".into(), json!(case.kind().as_str()));
    m.insert("input".into(), json!(case.input()));
    m.insert("dialect".into(), json!(case.dialect().as_str()));
    m.insert("profile".into(), json!(request.profile.as_str()));
    m.insert("lock_file".into(), json!(case.lock_file()));
    if op == "evaluate" {
        m.insert(
            "environment".into(),
            serde_json::to_value(case.environment()).unwrap_or(Value::Null),
        );
        m.insert("extras".into(), json!(case.extras()));
    }
    Value::Object(m)
}

/// Kills a session with its whole group and says how it ended.
fn finish(session: Session) -> String {
    let ended = session.kill();
    let status = match ended.status {
        Ok(s) => s.to_string(),
        Err(e) => format!("unknown status ({e})"),
    };
    let text = String::from_utf8_lossy(&ended.stderr_tail);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    if tail.is_empty() {
        status
    } else {
        format!("{status}; stderr: {tail}")
    }
}

/// Why a request got no usable response.
enum CallError {
    /// The process died, or could not be started.
    Crash(String),
    /// No response within the time limit.
    Timeout(String),
    /// A response that is not one: malformed JSON, the wrong id, the wrong shape.
    Protocol(String),
}

impl CallError {
    fn into_result<T>(self) -> TestResult<T> {
        match self {
            CallError::Crash(m) => TestResult::Crash(format!("crash: {m}")),
            CallError::Timeout(m) => TestResult::Crash(format!("timeout: {m}")),
            CallError::Protocol(m) => TestResult::Crash(format!("protocol: {m}")),
        }
    }
}

/// An external implementation reached through the adapter protocol.
///
/// An adapter that does not speak the protocol is reported, not trusted:
///
/// ```
/// # #[cfg(unix)] {
/// use std::time::Duration;
/// use markerspec_conformance::protocol::Adapter;
///
/// let adapter = Adapter::start("echo 'not a handshake'", Duration::from_secs(10));
/// assert!(adapter.hello().is_none());
/// assert!(adapter.problem().is_some());
/// assert!(adapter.divergences().is_empty());
/// assert_eq!(adapter.restarts(), 0); // never started, so never restarted
///
/// // One that shakes hands, then exits: it crashes on the first case, and each later case
/// // costs a restart.
/// use markerspec_conformance::{Cases, Profile, Runner, Status};
/// let hello = r#"{"id": 0, "protocol": "markerspec-adapter/1", "name": "quitter", "version": "1", "profiles": ["spec-2026"], "dialects": ["pep508"], "codes": false}"#;
/// let mut quitter = Adapter::start(&format!("read request; echo '{hello}'"), Duration::from_secs(10));
/// assert_eq!(quitter.hello().map(|h| h.name.as_str()), Some("quitter"));
/// let report = Runner::new()
///     .filter("versions/prereleases-117,versions/prereleases-118")
///     .profiles(&[Profile::Spec2026])
///     .run(&Cases::all(), &mut quitter);
/// assert_eq!(report.results[0].status, Status::Crash);
/// assert!(!quitter.events().is_empty());
/// assert!(quitter.restarts() >= 1);
/// # }
/// ```
///
/// Running a real one (here the packaging adapter of this repository):
///
/// ```no_run
/// use std::time::Duration;
/// use markerspec_conformance::protocol::Adapter;
/// use markerspec_conformance::{Cases, Runner};
///
/// let mut adapter = Adapter::start("python3 adapters/packaging/adapter.py", Duration::from_secs(10));
/// if let Some(problem) = adapter.problem() {
///     eprintln!("the adapter is unusable: {problem}");
/// }
/// let report = Runner::new().divergences(adapter.divergences()).run(&Cases::all(), &mut adapter);
/// println!("{:?}", report.counts());
/// ```
pub struct Adapter {
    command: String,
    timeout: Duration,
    running: Option<Session>,
    hello: Option<Hello>,
    broken: Option<String>,
    next_id: u64,
    restarts: usize,
    failed_starts: usize,
    timeouts_in_a_row: usize,
    gave_up: Option<String>,
    events: Vec<String>,
    label: String,
}

impl std::fmt::Debug for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapter")
            .field("command", &self.command)
            .field("hello", &self.hello)
            .field("broken", &self.broken)
            .finish()
    }
}

impl Adapter {
    /// Starts `command` (run by the shell: `sh -c`, or `cmd /C` on Windows) and exchanges the
    /// handshake. Never fails: an adapter that cannot start is reported by every case it is
    /// asked, and by [`Adapter::problem`].
    ///
    /// See the examples on [`Adapter`].
    pub fn start(command: &str, timeout: Duration) -> Adapter {
        let mut a = Adapter {
            command: command.to_string(),
            timeout,
            running: None,
            hello: None,
            broken: None,
            next_id: 1,
            restarts: 0,
            failed_starts: 0,
            timeouts_in_a_row: 0,
            gave_up: None,
            events: Vec::new(),
            label: command.to_string(),
        };
        if let Err(e) = a.ensure_running() {
            let msg = match e {
                CallError::Crash(m) | CallError::Timeout(m) | CallError::Protocol(m) => m,
            };
            a.broken = Some(msg);
        }
        a
    }

    /// The handshake, once it succeeded.
    ///
    /// See the examples on [`Adapter`].
    pub fn hello(&self) -> Option<&Hello> {
        self.hello.as_ref()
    }

    /// Why the adapter is unusable, if it is.
    ///
    /// See the examples on [`Adapter`].
    pub fn problem(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// Crashes, timeouts and protocol errors seen so far, one line each.
    ///
    /// See the examples on [`Adapter`].
    pub fn events(&self) -> &[String] {
        &self.events
    }

    /// How often the process was restarted.
    ///
    /// See the examples on [`Adapter`].
    pub fn restarts(&self) -> usize {
        self.restarts
    }

    /// The divergences the adapter declared in its handshake.
    ///
    /// See the examples on [`Adapter`].
    pub fn divergences(&self) -> Vec<Divergence> {
        self.hello
            .as_ref()
            .map(|h| {
                h.divergences
                    .iter()
                    .filter_map(|(s, r)| Divergence::new(s, r).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Starts the adapter through the system shell, named by its absolute path (`/bin/sh`;
    /// on Windows `%SystemRoot%\System32\cmd.exe`), never looked up on `PATH`. It runs in a
    /// process group of its own, killed whole when the adapter is.
    fn spawn(&self) -> Result<Session, CallError> {
        let mut cmd = if cfg!(windows) {
            let root = std::env::var_os("SystemRoot").unwrap_or_else(|| "C:\\Windows".into());
            let mut c = Command::new(std::path::Path::new(&root).join("System32\\cmd.exe"));
            c.arg("/C").arg(&self.command);
            c
        } else {
            let mut c = Command::new("/bin/sh");
            c.arg("-c").arg(&self.command);
            c
        };
        Session::spawn(&mut cmd, MAX_LINE)
            .map_err(|e| CallError::Crash(format!("cannot start `{}`: {e}", self.command)))
    }

    fn ensure_running(&mut self) -> Result<(), CallError> {
        if self.running.is_some() {
            return Ok(());
        }
        if let Some(b) = &self.broken {
            return Err(CallError::Crash(b.clone()));
        }
        if self.hello.is_some() {
            self.restarts += 1;
        }
        match self.start_once() {
            Ok(()) => {
                self.failed_starts = 0;
                Ok(())
            }
            Err(e) => {
                self.failed_starts += 1;
                if self.failed_starts >= MAX_FAILED_STARTS || self.hello.is_none() {
                    let why = match &e {
                        CallError::Crash(m) | CallError::Timeout(m) | CallError::Protocol(m) => {
                            m.clone()
                        }
                    };
                    self.broken = Some(if self.hello.is_none() {
                        why
                    } else {
                        format!("gave up after {MAX_FAILED_STARTS} failed restarts: {why}")
                    });
                }
                Err(e)
            }
        }
    }

    fn start_once(&mut self) -> Result<(), CallError> {
        self.running = Some(self.spawn()?);
        let handshake_timeout = self.timeout.max(Duration::from_secs(30));
        let reply = self.exchange(
            json!({"id": 0, "op": "hello", "protocol": PROTOCOL}),
            0,
            handshake_timeout,
        )?;
        let hello = Hello::from_json(&reply).map_err(|e| {
            self.kill();
            CallError::Protocol(format!("bad handshake: {e}"))
        })?;
        if let Some(old) = self.hello.as_ref().map(|h| h.name.clone()) {
            if old != hello.name {
                self.kill();
                return Err(CallError::Protocol(format!(
                    "the restarted adapter calls itself `{}`, not `{old}`",
                    hello.name
                )));
            }
        } else {
            self.label = hello.name.clone();
        }
        self.hello = Some(hello);
        Ok(())
    }

    fn kill(&mut self) -> String {
        match self.running.take() {
            Some(session) => finish(session),
            None => String::new(),
        }
    }

    /// Sends one line and reads the response with id `id`, all within `timeout`: writing the
    /// request counts too, so an adapter that stops reading cannot hang the runner.
    fn exchange(&mut self, request: Value, id: u64, timeout: Duration) -> Result<Value, CallError> {
        let deadline = Instant::now() + timeout;
        let Some(run) = self.running.as_mut() else {
            return Err(CallError::Crash("the adapter is not running".into()));
        };
        let mut line = request.to_string();
        line.push('\n');
        match run.send(line.into_bytes(), deadline) {
            Ok(()) => {}
            Err(SendError::TimedOut) => {
                self.kill();
                return Err(CallError::Timeout(format!(
                    "the adapter did not read the request within {:.1}s (killed)",
                    timeout.as_secs_f64()
                )));
            }
            Err(SendError::Closed(_)) => {
                let how = self.kill();
                return Err(CallError::Crash(format!("the adapter exited ({how})")));
            }
        }
        match run.read_line(deadline) {
            Line::Text(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let value: Value = match serde_json::from_str(&text) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => {
                        self.kill();
                        return Err(CallError::Protocol(format!(
                            "not a JSON object: {}",
                            truncate(&text, 200)
                        )));
                    }
                };
                if value.get("id").and_then(Value::as_u64) != Some(id) {
                    self.kill();
                    return Err(CallError::Protocol(format!(
                        "response id {} for request {id}",
                        value
                            .get("id")
                            .map(Value::to_string)
                            .unwrap_or("(none)".into())
                    )));
                }
                if value.get("fatal").and_then(Value::as_bool) == Some(true) {
                    // The adapter says it cannot go on; the next request gets a new process.
                    self.kill();
                }
                Ok(value)
            }
            Line::TooLong => {
                self.kill();
                Err(CallError::Protocol(format!(
                    "a response line longer than {MAX_LINE} bytes"
                )))
            }
            Line::Eof => {
                let how = self.kill();
                Err(CallError::Crash(format!("the adapter exited ({how})")))
            }
            Line::TimedOut => {
                self.kill();
                Err(CallError::Timeout(format!(
                    "no response within {:.1}s (killed)",
                    timeout.as_secs_f64()
                )))
            }
        }
    }

    fn call(&mut self, op: &str, request: &Request<'_>) -> Result<Value, CallError> {
        self.ensure_running()?;
        let id = self.next_id;
        self.next_id += 1;
        let line = request_json(id, op, request);
        let r = self.exchange(line, id, self.timeout);
        if matches!(r, Err(CallError::Timeout(_))) {
            self.timeouts_in_a_row += 1;
            if self.timeouts_in_a_row >= MAX_CONSECUTIVE_TIMEOUTS {
                self.gave_up = Some(format!(
                    "not run: the adapter was given up after {MAX_CONSECUTIVE_TIMEOUTS} \
                     timeouts in a row"
                ));
                self.broken = self.gave_up.clone();
            }
        } else {
            self.timeouts_in_a_row = 0;
        }
        if let Err(e) = &r {
            let what = match e {
                CallError::Crash(m) => format!("crash: {m}"),
                CallError::Timeout(m) => format!("timeout: {m}"),
                CallError::Protocol(m) => format!("protocol: {m}"),
            };
            self.events
                .push(format!("{} ({op}): {what}", request.case.full_name()));
        } else if let Ok(v) = &r {
            if let Some(c) = v.get("crash").and_then(Value::as_str) {
                self.events.push(format!(
                    "{} ({op}): reported crash: {c}",
                    request.case.full_name()
                ));
            }
        }
        r
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        if let Some(session) = self.running.take() {
            // Closing stdin asks the adapter to exit; its group is killed after half a second
            // either way, and it is reaped.
            let _ = session.close(Duration::from_millis(500));
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// The common answers: `skip`, `fail`, `crash`.
fn special<T>(v: &Value) -> Option<TestResult<T>> {
    if let Some(s) = v.get("skip") {
        return Some(TestResult::Skip(text_of(s)));
    }
    if let Some(s) = v.get("fail") {
        return Some(TestResult::Fail(text_of(s)));
    }
    if let Some(s) = v.get("crash") {
        return Some(TestResult::Crash(format!("crash: {}", text_of(s))));
    }
    None
}

fn text_of(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

fn opt_string(v: &Value, key: &str) -> Result<Option<String>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` must be a string, found {other}")),
    }
}

/// Reads a parse response.
///
/// See the example on [`serve`].
pub fn parse_response(v: &Value) -> Result<TestResult<Parsed>, String> {
    if let Some(s) = special(v) {
        return Ok(s);
    }
    match v.get("parses") {
        Some(Value::Bool(true)) => Ok(TestResult::Ok(Parsed::Valid {
            canonical: opt_string(v, "canonical")?,
        })),
        Some(Value::Bool(false)) => Ok(TestResult::Ok(Parsed::Invalid {
            code: opt_string(v, "error")?,
            message: opt_string(v, "message")?,
        })),
        _ => Err(format!(
            "a parse response needs `parses` (true or false): {}",
            truncate(&v.to_string(), 200)
        )),
    }
}

/// Reads an evaluate response.
///
/// See the example on [`serve`].
pub fn evaluate_response(v: &Value) -> Result<TestResult<Evaluated>, String> {
    if let Some(s) = special(v) {
        return Ok(s);
    }
    if v.get("parses") == Some(&Value::Bool(false)) {
        return Ok(TestResult::Ok(Evaluated::Invalid {
            code: opt_string(v, "error")?,
            message: opt_string(v, "message")?,
        }));
    }
    let Some(r) = v.get("result") else {
        return Err(format!(
            "an evaluate response needs `result` or `\"parses\": false`: {}",
            truncate(&v.to_string(), 200)
        ));
    };
    let (result, message) = match r {
        Value::Bool(true) => (Expected::True, None),
        Value::Bool(false) => (Expected::False, None),
        Value::String(s) => (Expected::Unknown(parse_unknown(s)?), None),
        Value::Object(_) => (
            Expected::Error(opt_string(r, "error")?),
            opt_string(r, "message")?,
        ),
        other => return Err(format!("`result` has the wrong shape: {other}")),
    };
    Ok(TestResult::Ok(Evaluated::Result { result, message }))
}

impl Implementation for Adapter {
    fn name(&self) -> &str {
        &self.label
    }

    fn supports(&self, profile: Profile, dialect: Dialect) -> bool {
        match &self.hello {
            Some(h) => h.profiles.contains(&profile) && h.dialects.contains(&dialect),
            // Broken before the handshake: every case reports why.
            None => true,
        }
    }

    fn reports_codes(&self) -> bool {
        self.hello.as_ref().is_some_and(|h| h.codes)
    }

    fn given_up(&self) -> Option<&str> {
        self.gave_up.as_deref()
    }

    fn parse(&mut self, request: &Request<'_>) -> TestResult<Parsed> {
        match self.call("parse", request) {
            Ok(v) => parse_response(&v).unwrap_or_else(|e| {
                self.events.push(format!(
                    "{} (parse): protocol: {e}",
                    request.case.full_name()
                ));
                TestResult::Crash(format!("protocol: {e}"))
            }),
            Err(e) => e.into_result(),
        }
    }

    fn evaluate(&mut self, request: &Request<'_>) -> TestResult<Evaluated> {
        match self.call("evaluate", request) {
            Ok(v) => evaluate_response(&v).unwrap_or_else(|e| {
                self.events.push(format!(
                    "{} (evaluate): protocol: {e}",
                    request.case.full_name()
                ));
                TestResult::Crash(format!("protocol: {e}"))
            }),
            Err(e) => e.into_result(),
        }
    }
}

/// Describes the implementation [`serve`] answers for.
#[derive(Debug, Clone)]
pub struct ServeInfo {
    /// The handshake to send.
    pub hello: Hello,
}

impl ServeInfo {
    /// A handshake for `name` `version`, claiming `profiles` and `dialects`.
    ///
    /// See the example on [`serve`].
    pub fn new(
        name: &str,
        version: &str,
        profiles: &[Profile],
        dialects: &[Dialect],
        codes: bool,
    ) -> ServeInfo {
        ServeInfo {
            hello: Hello {
                name: name.to_string(),
                version: version.to_string(),
                profiles: profiles.to_vec(),
                dialects: dialects.to_vec(),
                codes,
                divergences: Vec::new(),
            },
        }
    }

    /// Declares divergences in the handshake, as `(selector, reason)` pairs.
    ///
    /// See the example on [`serve`].
    #[must_use]
    pub fn divergences(mut self, entries: &[(&str, &str)]) -> ServeInfo {
        self.hello.divergences = entries
            .iter()
            .map(|(s, r)| (s.to_string(), r.to_string()))
            .collect();
        self
    }
}

/// Answers protocol requests from `input` on `output` with `implementation`, until `input`
/// ends. A malformed request gets `{"id": …, "fail": "…"}`.
///
/// # Errors
/// Reading or writing failed.
///
/// An implementation answering the protocol over stdin and stdout is an adapter; here the
/// requests come from memory:
///
/// ```
/// use markerspec_conformance::builtin::Markerspec;
/// use markerspec_conformance::protocol::{
///     Hello, PROTOCOL, ServeInfo, evaluate_response, parse_response, request_json, serve,
/// };
/// use markerspec_conformance::{Cases, Dialect, Evaluated, Expected, Parsed, Profile, Request, TestResult};
///
/// let info = ServeInfo::new("markerspec", "0.1.0", &[Profile::Spec2026], &[Dialect::Pep508], true)
///     .divergences(&[("spec-2026:@escapes", "an example declaration")]);
/// // A request line as the runner writes it, for a shipped case.
/// let cases = Cases::all();
/// let case = cases.get("versions/prereleases-117").unwrap();
/// let evaluate = request_json(2, "evaluate", &Request { case, profile: Profile::Spec2026 });
/// assert_eq!(evaluate["input"], case.input());
/// let requests = format!(
///     "{}\n{}\n{evaluate}\n",
///     r#"{"id": 0, "op": "hello"}"#,
///     r#"{"id": 1, "op": "parse", "kind": "marker", "input": "os_name == 'nt'"}"#,
/// );
/// let mut out = Vec::new();
/// serve(&mut Markerspec::new(), &info, requests.as_bytes(), &mut out).unwrap();
/// let lines: Vec<serde_json::Value> = String::from_utf8(out)
///     .unwrap()
///     .lines()
///     .map(|l| serde_json::from_str(l).unwrap())
///     .collect();
/// assert_eq!(lines[0]["name"], "markerspec");
/// assert_eq!(lines[0]["protocol"], PROTOCOL);
/// let hello = Hello::from_json(&lines[0]).unwrap();
/// assert_eq!(hello.divergences.len(), 1);
/// let parsed = parse_response(&lines[1]).unwrap();
/// assert_eq!(parsed, TestResult::Ok(Parsed::Valid { canonical: Some(r#"os_name == "nt""#.into()) }));
/// let evaluated = evaluate_response(&lines[2]).unwrap();
/// assert_eq!(evaluated, TestResult::Ok(Evaluated::result(Expected::False)));
/// ```
pub fn serve(
    implementation: &mut dyn Implementation,
    info: &ServeInfo,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = answer(implementation, info, &line);
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}

fn answer(implementation: &mut dyn Implementation, info: &ServeInfo, line: &str) -> Value {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({"id": null, "fail": format!("malformed request: {e}")}),
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let mut out = match build_request(&v) {
        Err(e) => json!({"fail": e}),
        Ok(None) => info.hello.to_json(),
        Ok(Some((op, case, profile))) => {
            let request = Request {
                case: &case,
                profile,
            };
            match op.as_str() {
                "parse" => parsed_json(implementation.parse(&request)),
                _ => evaluated_json(implementation.evaluate(&request)),
            }
        }
    };
    if let Value::Object(m) = &mut out {
        m.insert("id".into(), id);
    }
    out
}

type Built = Option<(String, Case, Profile)>;

fn build_request(v: &Value) -> Result<Built, String> {
    let op = v.get("op").and_then(Value::as_str).ok_or("no `op`")?;
    match op {
        "hello" => return Ok(None),
        "parse" | "evaluate" => {}
        other => return Err(format!("unknown op `{other}`")),
    }
    let kind = match v.get("kind").and_then(Value::as_str) {
        Some("requirement") => Kind::Requirement,
        Some("marker") => Kind::Marker,
        _ => return Err("`kind` must be `requirement` or `marker`".into()),
    };
    let input = v
        .get("input")
        .and_then(Value::as_str)
        .ok_or("no `input`")?
        .to_string();
    let dialect = match v.get("dialect").and_then(Value::as_str) {
        None | Some("pep508") => Dialect::Pep508,
        Some("extended") => Dialect::Extended,
        Some(other) => return Err(format!("unknown dialect `{other}`")),
    };
    let profile = match v.get("profile").and_then(Value::as_str) {
        None => Profile::Spec2026,
        Some(p) => p.parse()?,
    };
    let lock_file = v.get("lock_file").and_then(Value::as_bool).unwrap_or(false);
    let environment: EnvDocument = match v.get("environment") {
        None | Some(Value::Null) => EnvDocument::new(),
        Some(e) => {
            serde_json::from_value(e.clone()).map_err(|e| format!("bad environment: {e}"))?
        }
    };
    let extras: Vec<String> = match v.get("extras") {
        None | Some(Value::Null) => Vec::new(),
        Some(e) => serde_json::from_value(e.clone()).map_err(|e| format!("bad extras: {e}"))?,
    };
    let case = Case::adhoc(kind, input, dialect, lock_file, environment, extras);
    Ok(Some((op.to_string(), case, profile)))
}

fn parsed_json(r: TestResult<Parsed>) -> Value {
    match r {
        TestResult::Ok(Parsed::Valid { canonical }) => {
            json!({"parses": true, "canonical": canonical})
        }
        TestResult::Ok(Parsed::Invalid { code, message }) => {
            json!({"parses": false, "error": code, "message": message})
        }
        other => special_json(other),
    }
}

fn evaluated_json(r: TestResult<Evaluated>) -> Value {
    match r {
        TestResult::Ok(Evaluated::Result { result, message }) => {
            let mut v = result.to_json();
            if let (Value::Object(m), Some(msg)) = (&mut v, message) {
                m.insert("message".into(), json!(msg));
            }
            json!({ "result": v })
        }
        TestResult::Ok(Evaluated::Invalid { code, message }) => {
            json!({"parses": false, "error": code, "message": message})
        }
        other => special_json(other),
    }
}

fn special_json<T>(r: TestResult<T>) -> Value {
    match r {
        TestResult::Skip(w) => json!({ "skip": w }),
        TestResult::Fail(w) => json!({ "fail": w }),
        TestResult::Crash(w) => json!({ "crash": w }),
        TestResult::Ok(_) => json!({ "fail": "unreachable" }),
    }
}
