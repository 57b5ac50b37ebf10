//! The protocol loop shared by the peer adapters (`spec/PROTOCOL.md`, `markerspec-adapter/1`).
//!
//! Each adapter implements [`Peer`]; [`run`] reads one request per line from stdin and writes
//! one response per line to stdout. Every call into the wrapped library runs under
//! `catch_unwind`: a panic becomes `{"crash": …, "fatal": true}` and the adapter exits after
//! answering, because both libraries keep a global interner behind a `std::sync::Mutex` that a
//! panic can poison, after which every later call in the process panics too. The runner starts
//! a fresh process for the next request.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Value, json};

/// The protocol this loop speaks.
pub const PROTOCOL: &str = "markerspec-adapter/1";

/// One parse or evaluate request.
pub struct Request {
    /// `requirement` or `marker`.
    pub kind: String,
    /// The input text.
    pub input: String,
    /// Lock-file context.
    pub lock_file: bool,
    /// The environment document: field → string, list, or `None` for Unknown.
    pub environment: BTreeMap<String, Option<Value>>,
    /// The requested extras.
    pub extras: Vec<String>,
}

impl Request {
    /// A string field of the environment; `Err` says why it cannot be given to the library.
    pub fn string(&self, key: &str) -> Result<&str, String> {
        match self.environment.get(key) {
            None => Err(format!(
                "the environment has no `{key}`, which this library needs"
            )),
            Some(None) => Err(format!(
                "`{key}` is Unknown, which this library cannot express"
            )),
            Some(Some(Value::String(s))) => Ok(s),
            Some(Some(other)) => Err(format!("`{key}` is {other}, not a string")),
        }
    }

    /// A list field of the environment (missing or null: empty).
    pub fn list(&self, key: &str) -> Result<Vec<String>, String> {
        match self.environment.get(key) {
            None | Some(None) => Ok(Vec::new()),
            Some(Some(Value::Array(items))) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("`{key}` holds a non-string"))
                })
                .collect(),
            Some(Some(other)) => Err(format!("`{key}` is {other}, not a list")),
        }
    }
}

/// What a parse gave.
pub enum ParseAnswer {
    /// Accepted, printed as this.
    Valid(String),
    /// Rejected with this message.
    Invalid(String),
}

/// What an evaluation gave.
pub enum EvalAnswer {
    /// The marker's value.
    Result(bool),
    /// The input did not parse.
    Invalid(String),
    /// The case cannot be expressed (e.g. an Unknown value).
    Skip(String),
}

/// A wrapped library.
pub trait Peer {
    /// The handshake's name.
    const NAME: &'static str;
    /// The handshake's version.
    const VERSION: &'static str;
    /// The profiles the adapter claims.
    const PROFILES: &'static [&'static str];
    /// Parses the request's input.
    fn parse(request: &Request) -> ParseAnswer;
    /// Parses and evaluates.
    fn evaluate(request: &Request) -> EvalAnswer;
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_string())
}

fn build(v: &Value) -> Result<Request, String> {
    let environment = match v.get("environment") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), if v.is_null() { None } else { Some(v.clone()) }))
            .collect(),
        Some(_) => return Err("`environment` must be an object".into()),
    };
    let extras = match v.get("extras") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or("`extras` holds a non-string")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`extras` must be a list".into()),
    };
    Ok(Request {
        kind: v
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("marker")
            .to_string(),
        input: v
            .get("input")
            .and_then(Value::as_str)
            .ok_or("no `input`")?
            .to_string(),
        lock_file: v.get("lock_file").and_then(Value::as_bool).unwrap_or(false),
        environment,
        extras,
    })
}

/// Answers one request line; the flag says whether the process must exit afterwards.
fn answer<P: Peer>(line: &str) -> (Value, bool) {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return (
                json!({"id": null, "fail": format!("malformed request: {e}")}),
                false,
            );
        }
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let op = v.get("op").and_then(Value::as_str).unwrap_or("");
    let mut fatal = false;
    let mut out = match op {
        "hello" => json!({
            "protocol": PROTOCOL,
            "name": P::NAME,
            "version": P::VERSION,
            "profiles": P::PROFILES,
            "dialects": ["pep508"],
            "codes": false,
        }),
        "parse" | "evaluate" => match build(&v) {
            Err(e) => json!({"fail": e}),
            Ok(_) if v.get("dialect").and_then(Value::as_str).unwrap_or("pep508") != "pep508" => {
                json!({"skip": "only the pep508 dialect"})
            }
            Ok(req) => {
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if op == "parse" {
                        match P::parse(&req) {
                            ParseAnswer::Valid(c) => json!({"parses": true, "canonical": c}),
                            ParseAnswer::Invalid(m) => json!({"parses": false, "message": m}),
                        }
                    } else {
                        match P::evaluate(&req) {
                            EvalAnswer::Result(b) => json!({ "result": b }),
                            EvalAnswer::Invalid(m) => json!({"parses": false, "message": m}),
                            EvalAnswer::Skip(why) => json!({ "skip": why }),
                        }
                    }
                }));
                match r {
                    Ok(v) => v,
                    Err(payload) => {
                        fatal = true;
                        json!({
                            "crash": format!("{} panicked: {}", P::NAME, panic_message(payload)),
                            "fatal": true,
                        })
                    }
                }
            }
        },
        other => json!({"fail": format!("unknown op `{other}`")}),
    };
    if let Value::Object(m) = &mut out {
        m.insert("id".into(), id);
    }
    (out, fatal)
}

/// Serves requests on stdin until it ends (or until a panic made the process unusable).
pub fn run<P: Peer>() {
    // Keep panics to one line on stderr; the response carries the message.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("{}: panic: {info}", P::NAME);
    }));
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let (out, fatal) = answer::<P>(&line);
        if writeln!(stdout, "{out}")
            .and_then(|_| stdout.flush())
            .is_err()
        {
            break;
        }
        if fatal {
            std::process::exit(70);
        }
    }
}
