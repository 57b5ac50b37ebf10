//! Reading one line of user text as a marker or a requirement, and rendering its diagnostics.

use markerspec_pep508::{
    Dialect, Environment, Error, Evaluation, Field, MarkerTree, ParseOptions, Requirement,
    Severity, Span, Warning, render,
};

/// What the user typed: a bare marker or a requirement line.
pub(crate) enum Parsed {
    Marker(MarkerTree),
    Requirement(Requirement),
}

impl Parsed {
    /// The marker to evaluate: the text itself, or the requirement's marker.
    pub(crate) fn marker(&self) -> Option<&MarkerTree> {
        match self {
            Parsed::Marker(m) => Some(m),
            Parsed::Requirement(r) => r.marker(),
        }
    }

    /// The canonical printed form.
    pub(crate) fn canonical(&self) -> String {
        match self {
            Parsed::Marker(m) => m.to_string(),
            Parsed::Requirement(r) => r.to_string(),
        }
    }

    /// The `--json` syntax tree.
    pub(crate) fn as_json(&self) -> crate::json::Input<'_> {
        match self {
            Parsed::Marker(m) => crate::json::Input::Marker(m),
            Parsed::Requirement(r) => crate::json::Input::Requirement(r),
        }
    }
}

/// Reads TEXT as a marker when it is one, else as a requirement.
///
/// Which grammar applies is decided up front from the first token, so that the common case (a
/// requirement line) is parsed once and never pays for a failed marker parse (whose error
/// computes a did-you-mean suggestion). A marker starts with a quote, a parenthesis or a
/// marker variable; a requirement starts with a package name, which is never a marker
/// variable in practice. Text that starts like a marker is read as a marker first; when that
/// fails and it reads as a requirement with a marker (`os_name ; python_version > "3"`: a
/// package named `os_name`), the requirement is the answer, else the marker error is (nobody
/// means the package `python_version` in `python_version>=3.8`).
pub(crate) fn parse_text(
    text: &str,
    opts: &ParseOptions,
    warnings: &mut Vec<Warning>,
) -> Result<Parsed, Error> {
    if !looks_like_marker(text) {
        return Requirement::parse_with(text, opts, warnings).map(Parsed::Requirement);
    }
    let marker_err = match MarkerTree::parse_with(text, opts, warnings) {
        Ok(m) => return Ok(Parsed::Marker(m)),
        Err(e) => e,
    };
    warnings.clear();
    match Requirement::parse_with(text, opts, warnings) {
        Ok(r) if r.marker().is_some() => Ok(Parsed::Requirement(r)),
        _ => Err(marker_err),
    }
}

/// Whether TEXT starts the way a marker does: a quote, a parenthesis, or a marker variable
/// (canonical or PEP 345 alias, in either dialect, so that the `pep508` dialect reports "this
/// is an extended field" rather than a requirement syntax error); or is one of the words
/// `true` and `false` alone, which `simplify` prints for the constants and which the
/// `spec-2026` and `uv` profiles read back as them (SPEC §3.1): read as a package name, `false`
/// would be a requirement without a marker, and evaluate to true. No allocation.
pub(crate) fn looks_like_marker(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'"' | b'\'' | b'(') => return true,
        // Most lines start with a letter: trim (Unicode whitespace) only when they do not.
        Some(b) if b.is_ascii_alphanumeric() => {}
        _ => return looks_like_marker_trimmed(text.trim_start()),
    }
    looks_like_marker_trimmed(text)
}

/// [`looks_like_marker`] of text that starts with no whitespace.
fn looks_like_marker_trimmed(t: &str) -> bool {
    let bytes = t.as_bytes();
    if matches!(bytes.first(), Some(b'"' | b'\'' | b'(')) {
        return true;
    }
    // Every marker variable is spelt with `[a-z_.]` (the registry checks it when it is built):
    // read those bytes only; an ASCII letter or digit, or a non-ASCII letter, where they stop
    // makes the word longer, so no variable.
    let end = bytes
        .iter()
        .position(|&b| NAME_BYTE[usize::from(b)] != PLAIN)
        .unwrap_or(bytes.len());
    match bytes.get(end).map(|&b| NAME_BYTE[usize::from(b)]) {
        Some(LONGER) => return false,
        Some(NON_ASCII) if t[end..].chars().next().is_some_and(char::is_alphanumeric) => {
            return false;
        }
        _ => {}
    }
    end > 0
        && (Field::from_name(&t[..end], Dialect::Extended).is_some()
            || (matches!(&t[..end], "true" | "false") && t[end..].trim().is_empty()))
}

/// [`NAME_BYTE`]: a byte of a marker variable's name (`[a-z_.]`).
const PLAIN: u8 = 0;
/// [`NAME_BYTE`]: an ASCII letter or digit that is not [`PLAIN`] (it makes a word longer).
const LONGER: u8 = 1;
/// [`NAME_BYTE`]: a byte of a non-ASCII character.
const NON_ASCII: u8 = 2;
/// [`NAME_BYTE`]: any other byte (it ends a word).
const OTHER: u8 = 3;

/// The class of each byte for [`looks_like_marker`], read in one load.
static NAME_BYTE: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c.is_ascii_lowercase() || c == b'_' || c == b'.' {
            PLAIN
        } else if c.is_ascii_alphanumeric() {
            LONGER
        } else if !c.is_ascii() {
            NON_ASCII
        } else {
            OTHER
        };
        b += 1;
    }
    table
};

/// Reads TEXT as [`parse_text`] does and evaluates it against ENV (a requirement without a
/// marker is true), without keeping what was parsed: the batch `eval -` path, where a line's
/// answer is all that is printed.
pub(crate) fn eval_text(
    text: &str,
    opts: &ParseOptions,
    warnings: &mut Vec<Warning>,
    env: &Environment,
) -> Result<Evaluation, Error> {
    if !looks_like_marker(text) {
        return Requirement::parse_and_evaluate(text, opts, warnings, env);
    }
    parse_text(text, opts, warnings).and_then(|p| crate::eval_cmd::evaluate(&p, env))
}

/// The longest input a diagnostic shows whole; longer inputs are shown as a window around the
/// span, so that no diagnostic echoes megabytes of input.
const SHOWN_INPUT: usize = 200;

/// Renders an error against INPUT (the text it was parsed from), with the command line's help
/// for the size limits.
pub(crate) fn render_error(e: &Error, input: &str) -> String {
    let help = help(e);
    let (shown, span) = window(input, e.span());
    render(
        Severity::Error,
        e.code(),
        &e.message(),
        help.as_deref(),
        &shown,
        span,
    )
}

/// The help line of an error: for the size limits, the command line's own word (it has no
/// option to raise them).
pub(crate) fn help(e: &Error) -> Option<String> {
    match e.code() {
        "L001" | "L002" | "L003" | "L004" => Some(
            "the command line has no option to raise this limit: split the input, or call the \
             library with a larger limit in `ParseOptions`"
                .to_owned(),
        ),
        _ => e.help(),
    }
}

/// Renders a warning against INPUT, windowed as errors are.
pub(crate) fn render_warning(w: &Warning, input: &str) -> String {
    if input.len() <= SHOWN_INPUT {
        return w.render(input);
    }
    let (shown, _) = window(input, Span::new(0, 0));
    w.render(&shown)
}

/// INPUT cut to at most about [`SHOWN_INPUT`] bytes around SPAN, on character boundaries, with
/// `…` where text was cut; SPAN shifted to match.
pub(crate) fn window(input: &str, span: Span) -> (String, Span) {
    if input.len() <= SHOWN_INPUT {
        return (input.to_owned(), span);
    }
    let floor = |mut i: usize| {
        i = i.min(input.len());
        while !input.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start.saturating_sub(SHOWN_INPUT / 2));
    let end = floor(start + SHOWN_INPUT).max(floor(span.start.min(input.len())));
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if end < input.len() { "…" } else { "" };
    let shown = format!("{prefix}{}{suffix}", &input[start..end]);
    let shift = |p: usize| p.clamp(start, end) - start + prefix.len();
    (shown, Span::new(shift(span.start), shift(span.end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_token_decides() {
        for m in [
            "python_version >= '3'",
            "  'x' in sys_platform",
            "(os_name == 'nt')",
            "os.name == 'nt'",
            "cuda_version >= '12'",
            "extras",
            "os_name\u{a0}== 'nt'",
            "\u{a0}os.name == 'nt'",
            "sys.platform",
            "python_version\u{2014}",
        ] {
            assert!(looks_like_marker(m), "{m}");
        }
        for r in [
            "numpy>=2",
            "pyton_version >= '3'",
            "",
            "é",
            "requests[x]",
            "os_nameé == 'x'",
            "os_name2",
            "os_Name == 'nt'",
            "_os_name",
            "-os_name",
            "os_nameé",
        ] {
            assert!(!looks_like_marker(r), "{r}");
        }
    }

    #[test]
    fn the_grammar_follows_the_text() {
        let opts = ParseOptions::default();
        let mut w = Vec::new();
        assert!(matches!(
            parse_text("numpy; os_name == 'nt'", &opts, &mut w),
            Ok(Parsed::Requirement(_))
        ));
        assert!(matches!(
            parse_text("os_name == 'nt'", &opts, &mut w),
            Ok(Parsed::Marker(_))
        ));
        assert!(matches!(
            parse_text("os_name ; python_version > '3'", &opts, &mut w),
            Ok(Parsed::Requirement(_))
        ));
        assert_eq!(
            parse_text("python_version>=3.8", &opts, &mut w)
                .err()
                .map(|e| e.code()),
            Some("M001")
        );
        assert_eq!(
            parse_text("pyton_version >= '3'", &opts, &mut w)
                .err()
                .map(|e| e.code()),
            Some("R007")
        );
    }

    #[test]
    fn long_inputs_are_windowed() {
        let input = format!("{}é{}", "a".repeat(5_000), "b".repeat(5_000));
        let (shown, span) = window(&input, Span::new(5_000, 5_002));
        assert!(shown.len() < 2 * SHOWN_INPUT, "{}", shown.len());
        assert_eq!(&shown[span.start..span.end], "é");
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        let short = "numpy";
        assert_eq!(window(short, Span::new(1, 2)).0, short);
    }
}
