//! Quoted marker strings.
//!
//! The specification defines no escapes, but every deployed implementation reads a quoted
//! string with a backslash as a Python string literal. markerspec does the same (and warns,
//! `W007`), so that `"a\x41"` means `aA` everywhere.

use std::borrow::Cow;

/// Bytes the specification's `python_str_c` rule allows inside quotes (besides the other quote
/// character): space, tab, ASCII letters and digits, and `().{}-_*#:;,/?[]!~`@$%^&=+|<>`.
const PYTHON_STR_C: [bool; 128] = {
    let mut t = [false; 128];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b' ' || c == b'\t';
        i += 1;
    }
    let punct = b"().{}-_*#:;,/?[]!~`@$%^&=+|<>";
    let mut j = 0;
    while j < punct.len() {
        t[punct[j] as usize] = true;
        j += 1;
    }
    t
};

/// The decoded content of a quoted string, and whether it strays from the specification.
#[cfg(test)]
pub(crate) struct Decoded<'a> {
    pub value: Cow<'a, str>,
    pub non_standard: bool,
}

/// What a scan of a quoted string found.
pub(crate) struct Scan {
    /// The length in bytes of the content, up to (not including) the closing quote; `None`
    /// when there is no closing quote.
    pub len: Option<usize>,
    /// A backslash appears: the content must be decoded.
    pub escapes: bool,
    /// A character outside `python_str_c` (or an escape) appears.
    pub non_standard: bool,
    /// Why Python would reject the literal whatever its escapes, if it would.
    pub invalid: Option<&'static str>,
}

/// Finds the closing `quote` in `rest` (the text after the opening quote) and classifies the
/// content, in one pass over the bytes.
pub(crate) fn scan(rest: &str, quote: u8) -> Scan {
    let mut out = Scan {
        len: None,
        escapes: false,
        non_standard: false,
        invalid: None,
    };
    let mut prev_backslashes = 0usize;
    for (i, &b) in rest.as_bytes().iter().enumerate() {
        if b == quote {
            out.len = Some(i);
            break;
        }
        if b < 128 && PYTHON_STR_C[b as usize] {
            prev_backslashes = 0;
            continue;
        }
        match b {
            b'\\' => {
                out.escapes = true;
                prev_backslashes += 1;
                continue;
            }
            b'\n' | b'\r' if prev_backslashes.is_multiple_of(2) => {
                out.invalid
                    .get_or_insert("a quoted string cannot contain a line break");
            }
            0 => {
                out.invalid
                    .get_or_insert("a quoted string cannot contain a NUL character");
            }
            b'"' | b'\'' => {}
            _ => out.non_standard = true,
        }
        prev_backslashes = 0;
    }
    out.non_standard |= out.escapes;
    out
}

/// Decodes the content between the quotes (`raw` excludes them), given its [`scan`].
///
/// # Errors
/// A reason, when Python would reject the literal: a line break or NUL inside it, or a
/// malformed `\x`, `\u`, `\U` or `\N` escape.
pub(crate) fn decode_scanned<'a>(raw: &'a str, scan: &Scan) -> Result<Cow<'a, str>, String> {
    if let Some(reason) = scan.invalid {
        return Err(reason.into());
    }
    if !scan.escapes {
        return Ok(Cow::Borrowed(raw));
    }
    unescape(raw).map(Cow::Owned)
}

/// Decodes the content between the quotes (`raw` excludes them).
///
/// # Errors
/// As [`decode_scanned`].
#[cfg(test)]
pub(crate) fn decode(raw: &str, quote: char) -> Result<Decoded<'_>, String> {
    let s = scan(raw, quote as u8);
    let value = decode_scanned(raw, &s)?;
    Ok(Decoded {
        value,
        non_standard: s.non_standard,
    })
}

/// Applies Python's escapes.
pub(crate) fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            // A trailing backslash would have escaped the closing quote in Python.
            return Err("a backslash at the end escapes the closing quote".into());
        };
        match e {
            '\\' => out.push('\\'),
            // Line continuation: the backslash and the line break vanish.
            '\n' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).ok_or("octal escape out of range")?);
            }
            'x' => out.push(hex_escape(&mut chars, 2, "\\x")?),
            'u' => out.push(hex_escape(&mut chars, 4, "\\u")?),
            'U' => out.push(hex_escape(&mut chars, 8, "\\U")?),
            'N' => return Err("`\\N{...}` escapes are not supported".into()),
            other => {
                // Python keeps unknown escapes as written.
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

fn hex_escape(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    digits: usize,
    name: &str,
) -> Result<char, String> {
    let mut value: u32 = 0;
    for _ in 0..digits {
        let d = chars
            .next()
            .and_then(|c| c.to_digit(16))
            .ok_or_else(|| format!("truncated `{name}` escape"))?;
        value = value * 16 + d;
    }
    char::from_u32(value).ok_or_else(|| format!("`{name}` escape is not a valid character"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Result<String, String> {
        decode(s, '"').map(|d| d.value.into_owned())
    }

    #[test]
    fn plain_strings_borrow() {
        let out = decode("posix", '"').unwrap();
        assert!(matches!(out.value, Cow::Borrowed("posix")));
        assert!(!out.non_standard);
        assert!(!decode("it's", '"').unwrap().non_standard);
        assert!(decode("é", '"').unwrap().non_standard);
    }

    #[test]
    fn python_escapes() {
        assert_eq!(d(r"a\x41").unwrap(), "aA");
        assert_eq!(d(r"\u00e9\U0001F600").unwrap(), "é😀");
        assert_eq!(d(r"\101\0").unwrap(), "A\0");
        assert_eq!(d(r"a\qb").unwrap(), r"a\qb");
        assert_eq!(d(r"\\\t").unwrap(), "\\\t");
    }

    #[test]
    fn rejects_what_python_rejects() {
        assert!(d(r"\x4").is_err());
        assert!(d("a\nb").is_err());
        assert!(d("a\\").is_err());
        assert!(d(r"\N{DASH}").is_err());
        assert!(d(r"\UFFFFFFFF").is_err());
        assert!(d("a\0").is_err());
    }
}
