//! Batch mode: `markerspec eval … -` and `markerspec parse -` answer one line of output per
//! line of input.
//!
//! - Input is read in large blocks and lines are answered from the block's bytes (no `String`
//!   per line); output is gathered per block and written with one `write` per block. The output
//!   is flushed before every read of the input, so an interactive caller that writes a line and
//!   waits gets its answer.
//! - A block with many lines is split between `--jobs` threads; the answers keep the input's
//!   order.
//! - A blank line or a `#` comment line is answered with an empty line; a line longer than
//!   [`LINE_LIMIT`] with `error: L001 …` (without holding the line in memory); a line that is
//!   not UTF-8 with `error: I001 …`; in each case the stream goes on.

use std::fmt;
use std::io::{self, Read, Write};

use markerspec_pep508::{Error, Evaluation, ParseOptions, Requirement, Truth, Warning};

use crate::envs::NamedEnv;
use crate::text::{Parsed, eval_text, looks_like_marker, parse_text};

/// The longest line answered, in bytes (the library's default input limit, 1 MiB).
pub(crate) const LINE_LIMIT: usize = 1 << 20;

/// A block with fewer lines than this is answered on one thread.
const LINES_PER_JOB: usize = 512;

/// What to answer for each line.
pub(crate) enum Mode<'a> {
    /// `parse -`: the canonical form, or the syntax tree as one line of JSON.
    Parse {
        /// Print JSON.
        json: bool,
    },
    /// `eval -`: the answer in each environment.
    Eval {
        /// The environments, one column each.
        envs: &'a [NamedEnv],
        /// Print one JSON object per line.
        json: bool,
    },
}

/// One batch run's settings.
pub(crate) struct Batch<'a> {
    /// How lines are read; a marker evaluates under the profile it was parsed with.
    pub(crate) opts: ParseOptions,
    pub(crate) mode: Mode<'a>,
    /// Threads answering a large block; `None` for the number of cores (asked only when a
    /// block is large enough to share).
    pub(crate) jobs: Option<usize>,
}

/// The number of cores this process may use (asked once).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

impl Batch<'_> {
    /// Answers every line of INPUT on OUT.
    pub(crate) fn run(&self, mut input: impl Read, out: &mut impl Write) -> io::Result<()> {
        if let Mode::Eval {
            envs, json: false, ..
        } = self.mode
            && envs.len() > 1
        {
            out.write_all(table_header(envs).as_bytes())?;
        }
        let mut buf = vec![0u8; LINE_LIMIT + (64 << 10)];
        let mut filled = 0;
        // Bytes seen so far of a line longer than the limit, which is being skipped.
        let mut skipping: Option<usize> = None;
        let mut answers = Vec::with_capacity(1 << 16);
        loop {
            out.flush()?;
            let n = match input.read(&mut buf[filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                if let Some(len) = skipping {
                    too_long(len, &mut answers);
                } else if filled > 0 {
                    self.answer(&buf[..filled], &mut answers);
                }
                out.write_all(&answers)?;
                return out.flush();
            }
            let end = filled + n;
            let mut start = 0;
            if let Some(len) = skipping {
                match buf[filled..end].iter().position(|b| *b == b'\n') {
                    Some(i) => {
                        too_long(len + i, &mut answers);
                        skipping = None;
                        start = filled + i + 1;
                    }
                    None => {
                        skipping = Some(len + n);
                        filled = 0;
                        continue;
                    }
                }
            }
            if let Some(i) = buf[start..end].iter().rposition(|b| *b == b'\n') {
                self.answer_block(&buf[start..start + i], &mut answers);
                start += i + 1;
            }
            if !answers.is_empty() {
                out.write_all(&answers)?;
                answers.clear();
            }
            buf.copy_within(start..end, 0);
            filled = end - start;
            if filled > LINE_LIMIT {
                skipping = Some(filled);
                filled = 0;
            }
        }
    }

    /// Answers the lines of BLOCK (complete lines, the last newline removed), in order, on
    /// up to `jobs` threads.
    fn answer_block(&self, block: &[u8], out: &mut Vec<u8>) {
        let jobs = if self.jobs == Some(1) {
            1
        } else {
            let lines = memchr::memchr_iter(b'\n', block).count() + 1;
            match lines / LINES_PER_JOB {
                0 | 1 => 1,
                most => self.jobs.unwrap_or_else(cores).min(most),
            }
        };
        if jobs == 1 {
            return self.answer_lines(block, out);
        }
        // Cut the block into JOBS parts of about equal size, at line ends.
        let mut parts = Vec::with_capacity(jobs);
        let mut rest = block;
        for k in (1..jobs).rev() {
            let target = rest.len() / (k + 1);
            match rest[target..].iter().position(|b| *b == b'\n') {
                Some(i) => {
                    parts.push(&rest[..target + i]);
                    rest = &rest[target + i + 1..];
                }
                None => break,
            }
        }
        parts.push(rest);
        let outputs: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = parts[1..]
                .iter()
                .map(|part| {
                    s.spawn(move || {
                        let mut o = Vec::with_capacity(part.len() / 4);
                        self.answer_lines(part, &mut o);
                        o
                    })
                })
                .collect();
            let mut first = Vec::new();
            self.answer_lines(parts[0], &mut first);
            let mut all = vec![first];
            for (h, part) in handles.into_iter().zip(&parts[1..]) {
                // A panicking worker is a bug; answer its lines again here rather than lose them.
                all.push(h.join().unwrap_or_else(|_| {
                    let mut o = Vec::new();
                    self.answer_lines(part, &mut o);
                    o
                }));
            }
            all
        });
        for o in outputs {
            out.extend_from_slice(&o);
        }
    }

    /// Answers the lines of BLOCK. The block is checked for UTF-8 once (a block that is valid
    /// is valid line by line); only a block that is not is checked again line by line.
    fn answer_lines(&self, block: &[u8], out: &mut Vec<u8>) {
        if let Ok(text) = std::str::from_utf8(block) {
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', block) {
                self.answer_text(&text[start..end], out);
                start = end + 1;
            }
            return self.answer_text(&text[start..], out);
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', block) {
            self.answer(&block[start..end], out);
            start = end + 1;
        }
        self.answer(&block[start..], out);
    }

    /// Answers one line (without its newline), appending the answer and a newline to OUT.
    fn answer(&self, line: &[u8], out: &mut Vec<u8>) {
        let bare = line.strip_suffix(b"\r").unwrap_or(line);
        if bare.len() > LINE_LIMIT {
            return too_long(bare.len(), out);
        }
        match std::str::from_utf8(line) {
            Ok(text) => self.answer_text(text, out),
            Err(e) => {
                let _ = writeln!(
                    out,
                    "error: I001 the line is not valid UTF-8 (byte {})",
                    e.valid_up_to()
                );
            }
        }
    }

    /// Answers one line of text (without its newline), appending the answer and a newline to
    /// OUT.
    fn answer_text(&self, line: &str, out: &mut Vec<u8>) {
        let text = line.strip_suffix('\r').unwrap_or(line);
        if text.len() > LINE_LIMIT {
            return too_long(text.len(), out);
        }
        // A line starting with a letter is neither blank nor a comment: trim (Unicode
        // whitespace) only the others.
        if !text
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_alphanumeric)
        {
            let trimmed = text.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                out.push(b'\n');
                return;
            }
        }
        let mut warnings: Vec<Warning> = Vec::new();
        // The common case, one environment answered as text: evaluate without keeping the
        // parsed input, and print without formatting.
        if let Mode::Eval { envs, json: false } = &self.mode
            && let [env] = &envs[..]
        {
            match eval_text(text, &self.opts, &mut warnings, &env.env) {
                Ok(ev) => push_answer(&ev, out),
                Err(e) => push_error(&e, out),
            }
            return;
        }
        // The common case of `parse -`, a requirement printed as text: print it from where it
        // was parsed, without moving it into a `Parsed`.
        if let Mode::Parse { json: false } = self.mode
            && !looks_like_marker(text)
        {
            match &Requirement::parse_with(text, &self.opts, &mut warnings) {
                Ok(r) => {
                    let _ = r.write_to(&mut Appender(out));
                    out.push(b'\n');
                }
                Err(e) => push_error(e, out),
            }
            return;
        }
        let parsed = parse_text(text, &self.opts, &mut warnings);
        match &self.mode {
            Mode::Parse { json } => match parsed {
                Err(e) => {
                    let _ = writeln!(out, "error: {} {}", e.code(), e.message());
                }
                Ok(p) if *json => {
                    let _ = serde_json::to_writer(&mut *out, &crate::json::parsed(&p.as_json()));
                    out.push(b'\n');
                }
                Ok(p) => {
                    // Formatted straight into the buffer (`fmt::Write`, no I/O error plumbing).
                    let mut w = Appender(out);
                    // Through the generic writer: no dynamic call per piece.
                    let _ = match &p {
                        Parsed::Marker(m) => m.write_to(&mut w),
                        Parsed::Requirement(r) => r.write_to(&mut w),
                    };
                    out.push(b'\n');
                }
            },
            Mode::Eval { envs, json } => {
                let answers: Result<Vec<Result<Evaluation, Error>>, Error> = parsed.map(|p| {
                    envs.iter()
                        .map(|e| crate::eval_cmd::evaluate(&p, &e.env))
                        .collect()
                });
                if *json {
                    let doc = crate::json::answers(text, envs, answers.as_deref());
                    let _ = serde_json::to_writer(&mut *out, &doc);
                    out.push(b'\n');
                } else if envs.len() == 1 {
                    let _ = match &answers {
                        Err(e) => writeln!(out, "error: {} {}", e.code(), e.message()),
                        Ok(a) => match &a[0] {
                            Ok(ev) => writeln!(out, "{}", answer_text(ev)),
                            Err(e) => writeln!(out, "error: {} {}", e.code(), e.message()),
                        },
                    };
                } else {
                    out.extend_from_slice(table_row(text, envs, answers.as_deref()).as_bytes());
                }
            }
        }
    }
}

/// Formats into a byte buffer.
struct Appender<'a>(&'a mut Vec<u8>);

impl fmt::Write for Appender<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn write_char(&mut self, c: char) -> fmt::Result {
        match u8::try_from(c) {
            Ok(b) if b.is_ascii() => self.0.push(b),
            _ => self
                .0
                .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
        Ok(())
    }
}

fn too_long(len: usize, out: &mut Vec<u8>) {
    let _ = writeln!(
        out,
        "error: L001 input is {len} bytes long, more than the limit of {LINE_LIMIT} bytes"
    );
}

/// `true`, `false` or `unknown: FIELD,…` and a newline, appended to OUT.
fn push_answer(e: &Evaluation, out: &mut Vec<u8>) {
    match e.truth {
        Truth::True => out.extend_from_slice(b"true\n"),
        Truth::False => out.extend_from_slice(b"false\n"),
        Truth::Unknown => {
            out.extend_from_slice(b"unknown: ");
            for (k, f) in e.unknown.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(f.name().as_bytes());
            }
            out.push(b'\n');
        }
    }
}

/// `error: CODE message` and a newline, appended to OUT.
fn push_error(e: &Error, out: &mut Vec<u8>) {
    let _ = writeln!(out, "error: {} {}", e.code(), e.message());
}

/// `true`, `false` or `unknown: FIELD,…`.
pub(crate) fn answer_text(e: &Evaluation) -> String {
    match e.truth {
        Truth::True => "true".into(),
        Truth::False => "false".into(),
        Truth::Unknown => {
            let names: Vec<&str> = e.unknown.iter().map(|f| f.name()).collect();
            format!("unknown: {}", names.join(","))
        }
    }
}

/// The width of environment column K's header `[K]`, at least that of `unknown`.
pub(crate) fn column_width(k: usize) -> usize {
    format!("[{k}]").len().max("unknown".len())
}

/// The legend of a table: `[K] NAME` per environment, one a line.
pub(crate) fn table_legend(envs: &[NamedEnv]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for (k, e) in envs.iter().enumerate() {
        let _ = writeln!(s, "[{}] {}", k + 1, e.name);
    }
    s
}

/// The environment columns' headers, `[1]  [2] …`, each padded to its column.
pub(crate) fn column_headers(count: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for k in 1..=count {
        let _ = write!(s, "{:<w$}  ", format!("[{k}]"), w = column_width(k));
    }
    s
}

/// The legend (`[1] NAME` per environment) and the header row of the table.
pub(crate) fn table_header(envs: &[NamedEnv]) -> String {
    let mut s = table_legend(envs);
    s.push_str(&column_headers(envs.len()));
    s.push_str("input\n");
    s
}

/// One row: an answer per environment, then the input.
pub(crate) fn table_row(
    text: &str,
    envs: &[NamedEnv],
    answers: Result<&[Result<Evaluation, Error>], &Error>,
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    match answers {
        Err(e) => {
            let _ = writeln!(s, "error: {} {}", e.code(), e.message());
        }
        Ok(a) => {
            for (k, r) in a.iter().enumerate() {
                let cell = match r {
                    Ok(ev) => match ev.truth {
                        Truth::True => "true",
                        Truth::False => "false",
                        Truth::Unknown => "unknown",
                    },
                    Err(_) => "error",
                };
                let _ = write!(s, "{cell:<w$}  ", w = column_width(k + 1));
            }
            let _ = writeln!(s, "{}", text.trim());
        }
    }
    debug_assert!(envs.len() == answers.map_or(envs.len(), <[_]>::len));
    s
}
