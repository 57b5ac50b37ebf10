//! `uv-loop`: the loop that `markerspec eval --env ENV -`, `markerspec parse -` and
//! `markerspec simplify -` run, written over uv-pep508, so that the command line can be timed
//! whole-process against its peer (BENCHMARKS.md, "Whole process").
//!
//! ```text
//! uv-loop eval --env ENV.json [--extra NAME]... -
//! uv-loop parse -
//! uv-loop simplify -
//! uv-loop compare -
//! ```
//!
//! Reads one requirement or marker per line on stdin and prints one answer per line: for
//! `eval`, `true` or `false` (a requirement without a marker is `true`); for `parse`, uv's
//! printed form of the line; for `simplify` (markers only), uv's simplified form of the marker
//! (its printed form: uv simplifies as it builds), with the constants as `true` and `false`; for
//! `compare`, a line `A<TAB>B` of two markers, the relation word `markerspec compare -` prints
//! (`equivalent`, `implies`, `implied-by`, `disjoint`, `overlapping`), decided with uv's
//! `and`, `negate`, `is_false` and `is_disjoint`, each marker text read once (as
//! `markerspec compare -` keeps the markers it has read). A line that does not parse gets `error: ` and the first line of
//! uv's message; a blank line or a `#` comment gets an empty line. A line is read as a marker
//! when it starts with a quote, `(` or the name of a marker variable, and as a requirement
//! otherwise (one parse per line, as a careful caller of uv-pep508 would write it).
//!
//! `ENV.json` is an environment document (`spec/environments/`) holding the 11 standard fields
//! as strings; uv-pep508 has no unknown values.

use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;
use std::str::FromStr;

use uv_normalize::ExtraName;
use uv_pep508::{
    MarkerEnvironment, MarkerEnvironmentBuilder, MarkerTree, Requirement, VerbatimUrl,
};

/// The marker variables uv-pep508 reads, with the legacy dotted spellings.
const MARKER_NAMES: &[&str] = &[
    "os_name",
    "sys_platform",
    "platform_machine",
    "platform_python_implementation",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_version",
    "python_full_version",
    "implementation_name",
    "implementation_version",
    "extra",
    "extras",
    "dependency_groups",
    "os.name",
    "sys.platform",
    "platform.version",
    "platform.machine",
    "platform.python_implementation",
    "python_implementation",
];

/// What to print for each line.
enum Mode {
    Parse,
    Simplify,
    /// The markers read so far, by text.
    Compare(std::collections::HashMap<String, MarkerTree>),
    Eval(MarkerEnvironment, Vec<ExtraName>),
}

fn usage() -> String {
    "usage: uv-loop eval --env ENV.json [--extra NAME]... -\n       uv-loop parse -\n       uv-loop simplify -\n       uv-loop compare -".into()
}

/// The environment document's 11 standard fields, as uv builds an environment from them.
fn environment(path: &str) -> Result<MarkerEnvironment, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: invalid JSON: {e}"))?;
    let field = |key: &str| -> Result<&str, String> {
        doc.get(key)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("{path}: `{key}` must be a string (uv-pep508 needs it)"))
    };
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: field("implementation_name")?,
        implementation_version: field("implementation_version")?,
        os_name: field("os_name")?,
        platform_machine: field("platform_machine")?,
        platform_python_implementation: field("platform_python_implementation")?,
        platform_release: field("platform_release")?,
        platform_system: field("platform_system")?,
        platform_version: field("platform_version")?,
        python_full_version: field("python_full_version")?,
        python_version: field("python_version")?,
        sys_platform: field("sys_platform")?,
    })
    .map_err(|e| format!("{path}: uv cannot build this environment: {e}"))
}

fn mode(args: &[String]) -> Result<Mode, String> {
    let (command, rest) = args.split_first().ok_or_else(usage)?;
    let mut env = None;
    let mut extras = Vec::new();
    let mut stdin = false;
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--env" if command == "eval" => env = Some(it.next().ok_or_else(usage)?),
            "--extra" if command == "eval" => {
                let name = it.next().ok_or_else(usage)?;
                extras.push(ExtraName::from_str(name).map_err(|e| format!("--extra {name}: {e}"))?);
            }
            "-" => stdin = true,
            _ => return Err(usage()),
        }
    }
    if !stdin {
        return Err(usage());
    }
    match command.as_str() {
        "parse" => Ok(Mode::Parse),
        "simplify" => Ok(Mode::Simplify),
        "compare" => Ok(Mode::Compare(std::collections::HashMap::new())),
        "eval" => Ok(Mode::Eval(environment(env.ok_or_else(usage)?)?, extras)),
        _ => Err(usage()),
    }
}

/// Whether uv should read the line as a marker rather than a requirement.
fn is_marker(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with(['"', '\'', '(']) {
        return true;
    }
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    MARKER_NAMES.contains(&&t[..end])
}

/// The first line of an error message, after `error: `.
fn error(out: &mut impl Write, message: &dyn std::fmt::Display) -> std::io::Result<()> {
    let message = message.to_string();
    writeln!(out, "error: {}", message.lines().next().unwrap_or(""))
}

fn answer(line: &str, mode: &mut Mode, out: &mut impl Write) -> std::io::Result<()> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return writeln!(out);
    }
    if let Mode::Compare(read) = mode {
        return compare(line, read, out);
    }
    let marker = if matches!(mode, Mode::Simplify) || is_marker(line) {
        MarkerTree::from_str(line).map_err(|e| e.to_string())
    } else {
        match Requirement::<VerbatimUrl>::from_str(line) {
            Ok(r) if matches!(mode, Mode::Parse) => return writeln!(out, "{r}"),
            Ok(r) => Ok(r.marker),
            Err(e) => Err(e.to_string()),
        }
    };
    match (marker, mode) {
        (Err(e), _) => error(out, &e),
        (Ok(m), Mode::Parse) => writeln!(out, "{}", m.try_to_string().unwrap_or_default()),
        (Ok(m), Mode::Simplify) if m.is_true() => writeln!(out, "true"),
        (Ok(m), Mode::Simplify) if m.is_false() => writeln!(out, "false"),
        (Ok(m), Mode::Simplify) => writeln!(out, "{}", m.try_to_string().unwrap_or_default()),
        (Ok(m), Mode::Eval(env, extras)) => writeln!(out, "{}", m.evaluate(env, extras)),
        (Ok(_), Mode::Compare(read)) => compare(line, read, out),
    }
}

/// `compare -`'s answer to `A<TAB>B`: the relation, as `markerspec compare -` words it.
fn compare(
    line: &str,
    read: &mut std::collections::HashMap<String, MarkerTree>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let Some((a, b)) = line.split_once('\t') else {
        return writeln!(out, "error: expected `A<TAB>B`");
    };
    let mut marker = |text: &str| match read.get(text) {
        Some(m) => Ok(*m),
        None => MarkerTree::from_str(text).inspect(|m| {
            read.insert(text.to_owned(), *m);
        }),
    };
    let (a, b) = match (marker(a), marker(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return error(out, &e),
    };
    let a_not_b = a.and(b.negate()).is_false();
    let b_not_a = b.and(a.negate()).is_false();
    let word = match (a_not_b, b_not_a) {
        (true, true) => "equivalent",
        (true, false) => "implies",
        (false, true) => "implied-by",
        (false, false) if a.is_disjoint(b) => "disjoint",
        (false, false) => "overlapping",
    };
    writeln!(out, "{word}")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut mode = match mode(&args) {
        Ok(mode) => mode,
        Err(e) => {
            eprintln!("uv-loop: {e}");
            return ExitCode::from(2);
        }
    };
    let mut input = std::io::stdin().lock();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("uv-loop: cannot read stdin: {e}");
                return ExitCode::from(2);
            }
        }
        let text = line.strip_suffix('\n').unwrap_or(&line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if answer(text, &mut mode, &mut out).is_err() {
            return ExitCode::from(2);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
