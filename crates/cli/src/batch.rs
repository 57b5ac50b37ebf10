//! Batch mode: `markerspec parse -`, `eval … -`, `simplify -` and `compare -` answer one line
//! of output per line of input.
//!
//! - Input is read in large blocks and lines are answered from the block's bytes (no `String`
//!   per line); output is gathered per block and written with one `write` per block. The output
//!   is flushed before every read of the input, so an interactive caller that writes a line and
//!   waits gets its answer.
//! - A block with many lines is split between `--jobs` threads, each answering its part with
//!   its own [`Answer`] (kept from block to block: the algebra commands keep their `Context`
//!   and its caches); the answers keep the input's order, and so do the warnings some lines
//!   give on stderr. What a line is answered with does not depend on the thread.
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

/// `parse -` and `eval -`: a block with fewer lines than twice this is answered on one thread.
const LINES_PER_JOB: usize = 512;

/// What answers the lines of a batch: one per thread, kept for the whole run.
pub(crate) trait Answer: Send {
    /// Answers one line (neither blank nor a comment, without its newline and a final `\r`),
    /// appending the answer and a newline to OUT, and any warning, as whole lines, to ERR.
    fn answer(&mut self, text: &str, out: &mut Vec<u8>, err: &mut Vec<u8>);
}

/// How a batch shares its lines between threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// The most threads answering a block; `None` for the number of cores (asked only when a
    /// block is large enough to share).
    pub(crate) jobs: Option<usize>,
    /// A block is given a thread for every this many lines (at least one thread, at most
    /// `jobs`): what one line costs against starting a thread.
    pub(crate) lines_per_job: usize,
}

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
    pub(crate) fn run(&self, input: impl Read, out: &mut impl Write) -> io::Result<()> {
        if let Mode::Eval {
            envs, json: false, ..
        } = self.mode
            && envs.len() > 1
        {
            out.write_all(table_header(envs).as_bytes())?;
        }
        let split = Split {
            jobs: self.jobs,
            lines_per_job: LINES_PER_JOB,
        };
        // (`parse` and `eval` give no warnings in batch mode.)
        run_lines(input, out, &mut io::sink(), split, || self).map(drop)
    }
}

/// The answers given so far in one run, by line text, shared by the run's threads.
///
/// For answerers whose answer depends only on the line (the algebra commands: the arguments are
/// the same for the whole run, and a marker's printed form does not depend on the context that
/// prints it), a line met before is answered from here ([`Memoized`]): a lock file names the same
/// few markers again and again. It holds at most `max_lines` lines and `max_bytes` bytes of
/// text, answers and warnings; later lines are answered as usual.
pub(crate) struct Memo {
    max_lines: usize,
    max_bytes: usize,
    state: std::sync::Mutex<MemoState>,
}

/// A line's answer and its warnings, as bytes.
type Known = std::sync::Arc<(Box<[u8]>, Box<[u8]>)>;

/// What a [`Memo`] holds: each line's answer and warnings, and the bytes held in all.
#[derive(Default)]
struct MemoState {
    /// By line text, hashed with foldhash (seeded per process: fast on long lines, and lines
    /// crafted to collide cannot be written ahead).
    answers: std::collections::HashMap<Box<str>, Known, foldhash::fast::RandomState>,
    bytes: usize,
}

impl Memo {
    /// An empty memo that holds at most MAX_LINES lines and MAX_BYTES bytes (line texts,
    /// answers and warnings).
    pub(crate) fn new(max_lines: usize, max_bytes: usize) -> Memo {
        Memo {
            max_lines,
            max_bytes,
            state: std::sync::Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, MemoState> {
        // A panic never happens while the lock is held (no answerer runs under it).
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// An [`Answer`] that answers a line met before in the run from a shared [`Memo`], and asks
/// its inner answerer otherwise.
pub(crate) struct Memoized<'m, A> {
    pub(crate) inner: A,
    pub(crate) memo: &'m Memo,
}

impl<A: Answer> Answer for Memoized<'_, A> {
    fn answer(&mut self, text: &str, out: &mut Vec<u8>, err: &mut Vec<u8>) {
        let known = self.memo.state().answers.get(text).cloned();
        if let Some(known) = known {
            out.extend_from_slice(&known.0);
            err.extend_from_slice(&known.1);
            return;
        }
        let (o, e) = (out.len(), err.len());
        self.inner.answer(text, out, err);
        let (answer, warnings) = (
            out.get(o..).unwrap_or_default(),
            err.get(e..).unwrap_or_default(),
        );
        let size = text.len() + answer.len() + warnings.len();
        let mut state = self.memo.state();
        if state.answers.len() < self.memo.max_lines && state.bytes + size <= self.memo.max_bytes {
            state.bytes += size;
            let entry = std::sync::Arc::new((Box::from(answer), Box::from(warnings)));
            state.answers.insert(text.into(), entry);
        }
    }
}

/// Answers every line of INPUT on OUT, and writes the warnings the answers give on ERR (after
/// the answers of the same block). The lines of a block are shared between up to
/// `split.jobs` threads, each with an [`Answer`] made by `make` when first needed and kept
/// for the run. Returns the answerers, for a caller that ends the process next to leave
/// them to it (an algebra context holds every node it made, and freeing them one by one is
/// some 5 % of a `simplify -` run).
pub(crate) fn run_lines<A: Answer>(
    mut input: impl Read,
    out: &mut impl Write,
    err: &mut impl Write,
    split: Split,
    make: impl Fn() -> A + Sync,
) -> io::Result<Vec<A>> {
    let mut workers: Vec<A> = Vec::new();
    let mut buf = vec![0u8; LINE_LIMIT + (64 << 10)];
    let mut filled = 0;
    // Bytes seen so far of a line longer than the limit, which is being skipped.
    let mut skipping: Option<usize> = None;
    let mut answers = Vec::with_capacity(1 << 16);
    let mut warnings = Vec::new();
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
                if workers.is_empty() {
                    workers.push(make());
                }
                if let Some(w) = workers.first_mut() {
                    answer(w, &buf[..filled], &mut answers, &mut warnings);
                }
            }
            out.write_all(&answers)?;
            out.flush()?;
            err.write_all(&warnings)?;
            err.flush()?;
            return Ok(workers);
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
            answer_block(
                &mut workers,
                &make,
                split,
                &buf[start..start + i],
                &mut answers,
                &mut warnings,
            );
            start += i + 1;
        }
        if !answers.is_empty() {
            out.write_all(&answers)?;
            answers.clear();
        }
        if !warnings.is_empty() {
            err.write_all(&warnings)?;
            warnings.clear();
        }
        buf.copy_within(start..end, 0);
        filled = end - start;
        if filled > LINE_LIMIT {
            skipping = Some(filled);
            filled = 0;
        }
    }
}

/// Answers the lines of BLOCK (complete lines, the last newline removed), in order. A block
/// of many lines is cut into parts of `split.lines_per_job` lines, which up to `split.jobs`
/// threads take in turn (thread K with `workers[K]`, made by `make` when missing): a part of
/// costly lines holds up one thread, not the others.
fn answer_block<A: Answer>(
    workers: &mut Vec<A>,
    make: &(impl Fn() -> A + Sync),
    split: Split,
    block: &[u8],
    out: &mut Vec<u8>,
    err: &mut Vec<u8>,
) {
    let per = split.lines_per_job.max(1);
    let jobs = if split.jobs == Some(1) {
        1
    } else {
        let lines = memchr::memchr_iter(b'\n', block).count() + 1;
        match lines / per {
            0 | 1 => 1,
            most => split.jobs.unwrap_or_else(cores).min(most),
        }
    };
    while workers.len() < jobs {
        workers.push(make());
    }
    if jobs == 1 {
        if let Some(w) = workers.first_mut() {
            answer_lines(w, block, out, err);
        }
        return;
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for (k, end) in memchr::memchr_iter(b'\n', block).enumerate() {
        if (k + 1) % per == 0 {
            parts.push(&block[start..end]);
            start = end + 1;
        }
    }
    parts.push(&block[start..]);
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Each thread's answers: (part, answers, warnings).
    let take = |w: &mut A| {
        let mut done: Vec<(usize, Vec<u8>, Vec<u8>)> = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(part) = parts.get(i) else {
                return done;
            };
            let (mut o, mut e) = (Vec::with_capacity(part.len() / 2), Vec::new());
            let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                answer_lines(w, part, &mut o, &mut e);
            }));
            if answered.is_err() {
                // A bug: the part is answered again, by a new answerer that takes this one's
                // place.
                *w = make();
                (o, e) = (Vec::new(), Vec::new());
                answer_lines(w, part, &mut o, &mut e);
            }
            done.push((i, o, e));
        }
    };
    let mut all: Vec<(usize, Vec<u8>, Vec<u8>)> = std::thread::scope(|s| {
        let (first, others) = workers.split_at_mut(1);
        let handles: Vec<_> = others
            .iter_mut()
            .take(jobs - 1)
            .map(|w| s.spawn(|| take(w)))
            .collect();
        let mut all = first.first_mut().map(&take).unwrap_or_default();
        for h in handles {
            // (`take` catches the answerers' panics; a thread lost otherwise has its parts
            // answered again below.)
            if let Ok(done) = h.join() {
                all.extend(done);
            }
        }
        all
    });
    all.sort_unstable_by_key(|(i, _, _)| *i);
    if all.len() < parts.len() {
        let mut w = make();
        for (i, part) in parts.iter().enumerate() {
            if all.get(i).is_none_or(|(j, _, _)| *j != i) {
                let (mut o, mut e) = (Vec::new(), Vec::new());
                answer_lines(&mut w, part, &mut o, &mut e);
                all.insert(i, (i, o, e));
            }
        }
    }
    for (_, o, e) in all {
        out.extend_from_slice(&o);
        err.extend_from_slice(&e);
    }
}

/// Answers the lines of BLOCK. The block is checked for UTF-8 once (a block that is valid is
/// valid line by line); only a block that is not is checked again line by line.
fn answer_lines<A: Answer>(w: &mut A, block: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) {
    if let Ok(text) = std::str::from_utf8(block) {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', block) {
            answer_line(w, &text[start..end], out, err);
            start = end + 1;
        }
        return answer_line(w, &text[start..], out, err);
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', block) {
        answer(w, &block[start..end], out, err);
        start = end + 1;
    }
    answer(w, &block[start..], out, err);
}

/// Answers one line (without its newline), appending the answer and a newline to OUT.
fn answer<A: Answer>(w: &mut A, line: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) {
    let bare = line.strip_suffix(b"\r").unwrap_or(line);
    if bare.len() > LINE_LIMIT {
        return too_long(bare.len(), out);
    }
    match std::str::from_utf8(line) {
        Ok(text) => answer_line(w, text, out, err),
        Err(e) => {
            let _ = writeln!(
                out,
                "error: I001 the line is not valid UTF-8 (byte {})",
                e.valid_up_to()
            );
        }
    }
}

/// Answers one line of text (without its newline): an empty line for a blank line or a
/// comment, else `w`'s answer.
fn answer_line<A: Answer>(w: &mut A, line: &str, out: &mut Vec<u8>, err: &mut Vec<u8>) {
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
    w.answer(text, out, err);
}

impl Answer for &Batch<'_> {
    fn answer(&mut self, text: &str, out: &mut Vec<u8>, _err: &mut Vec<u8>) {
        self.answer_text(text, out);
    }
}

impl Batch<'_> {
    /// Answers one line of text (neither blank nor a comment, without its newline and a final
    /// `\r`), appending the answer and a newline to OUT.
    fn answer_text(&self, text: &str, out: &mut Vec<u8>) {
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

#[cfg(test)]
mod tests {
    use super::{Answer, LINE_LIMIT, Memo, Memoized, Split, run_lines};
    use std::cell::RefCell;
    use std::io::{self, Read, Write};
    use std::rc::Rc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Answers a line with itself and the number of lines its answerer has answered before;
    /// warns on lines starting with `w`; panics once (across answerers) on `boom`.
    struct Echo<'a> {
        seen: usize,
        panicked: &'a AtomicBool,
    }

    impl Answer for Echo<'_> {
        fn answer(&mut self, text: &str, out: &mut Vec<u8>, err: &mut Vec<u8>) {
            if text == "boom" && !self.panicked.swap(true, Ordering::SeqCst) {
                panic!("an answerer's bug (this panic is part of the test)");
            }
            out.extend_from_slice(format!("{text} {}\n", self.seen).as_bytes());
            if text.starts_with('w') {
                err.extend_from_slice(format!("warning for {text}\n").as_bytes());
            }
            self.seen += 1;
        }
    }

    /// Runs INPUT through `Echo` answerers; the answers (the count removed), the warnings, and
    /// how many answerers were made.
    fn run(input: &str, jobs: usize, per: usize) -> (Vec<String>, String, usize) {
        let (answers, err, made) = run_counted(input.as_bytes(), jobs, per);
        let answers = answers
            .into_iter()
            .map(|l| l.rsplit_once(' ').map_or(l.as_str(), |(t, _)| t).to_owned())
            .collect();
        (answers, err, made)
    }

    /// As `run`, the answers with their answerer's count, from bytes read as READER gives them.
    fn run_counted(input: impl Read, jobs: usize, per: usize) -> (Vec<String>, String, usize) {
        let panicked = AtomicBool::new(false);
        let made = AtomicUsize::new(0);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let split = Split {
            jobs: Some(jobs),
            lines_per_job: per,
        };
        run_lines(input, &mut out, &mut err, split, || {
            made.fetch_add(1, Ordering::SeqCst);
            Echo {
                seen: 0,
                panicked: &panicked,
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
        (
            String::from_utf8_lossy(&out)
                .lines()
                .map(str::to_owned)
                .collect(),
            String::from_utf8_lossy(&err).into_owned(),
            made.load(Ordering::SeqCst),
        )
    }

    /// Gives its bytes at most `chunk` at a time, after one `Interrupted` error when
    /// `interrupt`; then, when `fail`, an error instead of the end.
    struct Chunks {
        data: Vec<u8>,
        at: usize,
        chunk: usize,
        interrupt: bool,
        fail: bool,
    }

    impl Chunks {
        fn new(data: impl Into<Vec<u8>>, chunk: usize) -> Chunks {
            Chunks {
                data: data.into(),
                at: 0,
                chunk,
                interrupt: false,
                fail: false,
            }
        }
    }

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.interrupt {
                self.interrupt = false;
                return Err(io::ErrorKind::Interrupted.into());
            }
            let rest = self.data.get(self.at..).unwrap_or_default();
            if rest.is_empty() && self.fail {
                self.fail = false;
                return Err(io::Error::other("the input broke"));
            }
            let n = rest.len().min(self.chunk).min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            Ok(n)
        }
    }

    /// A writer into a shared buffer (the test reads it while the run goes on).
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn threads_keep_the_order_of_lines_and_warnings() {
        let lines: Vec<String> = (0..1000)
            .map(|k| {
                if k % 7 == 0 {
                    format!("w{k}")
                } else {
                    format!("l{k}")
                }
            })
            .collect();
        let input = lines.join("\n") + "\n";
        let warnings: String = lines
            .iter()
            .filter(|l| l.starts_with('w'))
            .map(|l| format!("warning for {l}\n"))
            .collect();
        for (jobs, per, answerers) in [(1, 3, 1), (4, 3, 4), (4, 400, 2), (3, 1000, 1)] {
            let (answers, err, made) = run(&input, jobs, per);
            assert_eq!(answers, lines, "jobs {jobs}, {per} lines a part");
            assert_eq!(err, warnings, "jobs {jobs}, {per} lines a part");
            assert_eq!(made, answerers, "jobs {jobs}, {per} lines a part");
        }
    }

    #[test]
    fn an_answerer_that_panics_is_replaced_and_its_lines_answered() {
        let mut lines: Vec<String> = (0..200).map(|k| format!("l{k}")).collect();
        if let Some(l) = lines.get_mut(123) {
            *l = "boom".into();
        }
        let input = lines.join("\n");
        let (answers, _, made) = run(&input, 2, 5);
        assert_eq!(answers, lines);
        // The two threads' answerers and the one that replaced the answerer that panicked.
        assert_eq!(made, 3);
    }

    #[test]
    fn an_answerer_replaced_answers_its_whole_part_again() {
        // 2 threads, parts of 5 lines: `boom` is line 123, in the part of lines 120 to 124,
        // which the answerer made in place of the one that panicked answers from its start.
        let mut lines: Vec<String> = (0..200).map(|k| format!("l{k}")).collect();
        if let Some(l) = lines.get_mut(123) {
            *l = "boom".into();
        }
        let (answers, _, made) = run_counted((lines.join("\n") + "\n").as_bytes(), 2, 5);
        assert_eq!(made, 3);
        let counts: Vec<&str> = answers
            .get(120..125)
            .unwrap_or_default()
            .iter()
            .map(|a| a.rsplit_once(' ').map_or("", |(_, n)| n))
            .collect();
        assert_eq!(counts, ["0", "1", "2", "3", "4"]);
    }

    #[test]
    fn a_block_of_two_parts_takes_two_answerers() {
        // Six complete lines, parts of three: two parts, so two of the four threads.
        let (answers, _, made) = run("a\nb\nc\nd\ne\nf\n", 4, 3);
        assert_eq!(answers, ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(made, 2);
        // Five: one part and a bit, one answerer.
        let (_, _, made) = run("a\nb\nc\nd\ne\n", 4, 3);
        assert_eq!(made, 1);
    }

    #[test]
    fn lines_over_the_limit_are_skipped_across_reads_and_reported_with_their_length() {
        // Longer than the limit by more than a read: the reader skips it over several reads,
        // counting its bytes, until its newline.
        let long = "x".repeat(LINE_LIMIT + 300_000);
        for chunk in [1 << 16, LINE_LIMIT, usize::MAX] {
            let input = format!("a\n{long}\nb\n{long}");
            let (answers, _, _) = run_counted(Chunks::new(input, chunk), 2, 3);
            let l001 = format!(
                "error: L001 input is {} bytes long, more than the limit of {LINE_LIMIT} bytes",
                LINE_LIMIT + 300_000
            );
            assert_eq!(answers, ["a 0", &l001, "b 1", &l001], "chunks of {chunk}");
        }
    }

    #[test]
    fn a_line_at_the_limit_is_answered() {
        let line = "y".repeat(LINE_LIMIT);
        for chunk in [LINE_LIMIT, usize::MAX] {
            let (answers, _, _) = run_counted(Chunks::new(format!("{line}\nz\n"), chunk), 1, 3);
            assert_eq!(
                answers,
                [format!("{line} 0"), "z 1".into()],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_a_failed_one_reported() {
        let mut r = Chunks::new("a\nb\n", 2);
        r.interrupt = true;
        let (answers, _, _) = run_counted(r, 1, 3);
        assert_eq!(answers, ["a 0", "b 1"]);
        let mut r = Chunks::new("a\n", 2);
        r.fail = true;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let split = Split {
            jobs: Some(1),
            lines_per_job: 3,
        };
        let panicked = AtomicBool::new(false);
        let got = run_lines(r, &mut out, &mut err, split, || Echo {
            seen: 0,
            panicked: &panicked,
        });
        assert_eq!(
            got.map(drop).map_err(|e| e.to_string()),
            Err("the input broke".into())
        );
    }

    /// A reader that records, at each read, how many bytes the output and the warnings hold.
    struct Watch {
        input: Chunks,
        out: Rc<RefCell<Vec<u8>>>,
        err: Rc<RefCell<Vec<u8>>>,
        seen: Vec<(usize, usize)>,
    }

    impl Read for &mut Watch {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let lens = (self.out.borrow().len(), self.err.borrow().len());
            self.seen.push(lens);
            self.input.read(buf)
        }
    }

    #[test]
    fn answers_and_warnings_are_written_before_the_next_read() {
        let mut watch = Watch {
            input: Chunks::new("w1\nl2\n", 3),
            out: Rc::default(),
            err: Rc::default(),
            seen: Vec::new(),
        };
        let (out, err) = (watch.out.clone(), watch.err.clone());
        let panicked = AtomicBool::new(false);
        let split = Split {
            jobs: Some(1),
            lines_per_job: 3,
        };
        run_lines(
            &mut watch,
            &mut Shared(out.clone()),
            &mut Shared(err),
            split,
            || Echo {
                seen: 0,
                panicked: &panicked,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // Reads: "w1\n", "l2\n", the end. Before the second, `w1`'s answer and warning are
        // out.
        assert_eq!(
            watch.seen.get(1),
            Some(&("w1 0\n".len(), "warning for w1\n".len()))
        );
        assert_eq!(&*out.borrow(), b"w1 0\nl2 1\n");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error_and_the_others_are_answered() {
        let input: &[u8] = b"a\n\xff\xfeb\nc\nd";
        let (answers, _, _) = run_counted(input, 1, 3);
        assert_eq!(
            answers,
            [
                "a 0",
                "error: I001 the line is not valid UTF-8 (byte 0)",
                "c 1",
                "d 2"
            ]
        );
    }

    /// Answers a line with itself (a warning for lines starting with `w`), counting its calls.
    struct Counted<'a>(&'a AtomicUsize);

    impl Answer for Counted<'_> {
        fn answer(&mut self, text: &str, out: &mut Vec<u8>, err: &mut Vec<u8>) {
            self.0.fetch_add(1, Ordering::SeqCst);
            out.extend_from_slice(format!("{text}!\n").as_bytes());
            if text.starts_with('w') {
                err.extend_from_slice(format!("warning for {text}\n").as_bytes());
            }
        }
    }

    /// Runs INPUT through `Counted` answerers behind a memo of MAX_LINES lines: the output,
    /// the warnings, and how many lines the answerers were asked.
    fn run_memoized(
        input: &str,
        jobs: usize,
        max_lines: usize,
        max_bytes: usize,
    ) -> (String, String, usize) {
        let calls = AtomicUsize::new(0);
        let memo = Memo::new(max_lines, max_bytes);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let split = Split {
            jobs: Some(jobs),
            lines_per_job: 4,
        };
        run_lines(input.as_bytes(), &mut out, &mut err, split, || Memoized {
            inner: Counted(&calls),
            memo: &memo,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        (
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
            calls.load(Ordering::SeqCst),
        )
    }

    #[test]
    fn a_line_met_before_is_answered_from_the_memo_with_its_warnings() {
        let input = "a\nw1\na\n\n# c\nb\nw1\na\n";
        let (out, err, calls) = run_memoized(input, 1, 100, 1000);
        assert_eq!(out, "a!\nw1!\na!\n\n\nb!\nw1!\na!\n");
        assert_eq!(err, "warning for w1\nwarning for w1\n");
        // a, w1, b: once each.
        assert_eq!(calls, 3);
        // Threads share it: 400 lines of 10 distinct ones, asked at most once per thread.
        let lines: Vec<String> = (0..400).map(|k| format!("l{}", k % 10)).collect();
        let (out, _, calls) = run_memoized(&(lines.join("\n") + "\n"), 3, 100, 1000);
        let expected: String = lines.iter().map(|l| format!("{l}!\n")).collect();
        assert_eq!(out, expected);
        assert!((10..=30).contains(&calls), "{calls}");
    }

    #[test]
    fn a_full_memo_answers_new_lines_as_usual() {
        // Room for two lines: `c` is asked each time.
        let (out, _, calls) = run_memoized("a\nb\nc\na\nb\nc\nc\n", 1, 2, 1000);
        assert_eq!(out, "a!\nb!\nc!\na!\nb!\nc!\nc!\n");
        assert_eq!(calls, 5);
        // Room for 15 bytes: `w` (1 + 3 + 14 with its warning) does not fit, `abc` (3 + 5) and
        // `d` (1 + 3) do, `e` (1 + 3) no longer does.
        let (_, err, calls) = run_memoized("w\nabc\nd\ne\nw\nabc\nd\ne\n", 1, 100, 15);
        assert_eq!(err, "warning for w\nwarning for w\n");
        assert_eq!(calls, 6);
    }
}
