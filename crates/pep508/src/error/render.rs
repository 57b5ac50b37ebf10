//! The one renderer every markerspec diagnostic goes through: the header with the code, the
//! input line with its number, carets under the span, and an optional help line.

use crate::span::Span;

/// How serious a diagnostic is.
///
/// See [`render`] for an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// The input is accepted, but probably does not mean what its author wanted.
    Warning,
}

/// Renders one diagnostic in the layout every markerspec tool shares: the header with the
/// code, the input line with its number, carets under the span, and an optional help line.
///
/// Spans past the end of the input point one past its last character; an empty span gets one
/// caret. Columns count characters, so carets line up for ASCII and for most other text.
///
/// ```
/// use markerspec_pep508::{Severity, Span, render};
/// let text = render(Severity::Error, "M002", "unknown marker variable `os_nam`",
///     Some("did you mean `os_name`?"), "os_nam == 'nt'", Span::new(0, 6));
/// assert_eq!(text, "error[M002]: unknown marker variable `os_nam`\n  |\n1 | os_nam == 'nt'\n  | ^^^^^^\n  = help: did you mean `os_name`?\n");
/// ```
pub fn render(
    severity: Severity,
    code: &str,
    message: &str,
    help: Option<&str>,
    input: &str,
    span: Span,
) -> String {
    use std::fmt::Write;
    let word = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut out = format!("{word}[{code}]: {message}\n");
    if input.is_empty() && span == Span::default() {
        if let Some(help) = help {
            let _ = writeln!(out, "  = help: {help}");
        }
        return out;
    }
    let start = floor_boundary(input, span.start.min(input.len()));
    let end = floor_boundary(input, span.end.clamp(start, input.len()));
    // The line holding the start of the span.
    let line_start = input[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = input[start..].find('\n').map_or(input.len(), |i| start + i);
    let line_no = input[..start].matches('\n').count() + 1;
    let line = input[line_start..line_end].trim_end_matches('\r');
    let gutter = line_no.to_string().len();
    let pad = " ".repeat(gutter);
    let chars: Vec<char> = line
        .chars()
        .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
        .collect();
    let col = input[line_start..start].chars().count();
    let width = input[start..end.min(line_end)].chars().count().max(1);
    // Long lines are cut to a window around the span, marked with `…`.
    const CONTEXT: usize = 40;
    const MAX_CARETS: usize = 60;
    let width = width.min(MAX_CARETS);
    let from = col.saturating_sub(CONTEXT);
    let to = (col + width + CONTEXT).min(chars.len());
    let mut shown: String = chars[from.min(to)..to].iter().collect();
    let mut caret_col = col - from;
    if from > 0 {
        shown.insert(0, '…');
        caret_col += 1;
    }
    if to < chars.len() {
        shown.push('…');
    }
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{line_no} | {shown}");
    let _ = writeln!(
        out,
        "{pad} | {}{}",
        " ".repeat(caret_col),
        "^".repeat(width)
    );
    if let Some(help) = help {
        let _ = writeln!(out, "{pad} = help: {help}");
    }
    out
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
