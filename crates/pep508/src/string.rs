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

/// How many of the bytes of `w` (little-endian: the first byte lowest) come before the first
/// that is not printable ASCII or is `"`, `'` or `\`: bytes of `PYTHON_STR_C` (all of it but
/// the tab), which [`scan`] passes over without a look; 8 when there is no such byte.
#[inline(always)]
fn plain_prefix(w: u64) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const fn splat(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    // 0x80 in each byte of `x` that is zero. A byte of 0x80 or more carries into the bytes
    // after it, which may then be marked wrongly; only the first mark is read, and every
    // byte before it is below 0x80 (so its own marks are exact).
    let zero_bytes = |x: u64| !x.wrapping_add(!HIGH) & HIGH;
    // Adding 0x60 sets a byte's high bit when the byte is at least 0x20 (no control
    // character) and below 0xa0. (A byte of 0x80 to 0x9f is marked by the test for 0x7f: its
    // `^ 0x7f` is 0xe0 or more, which `zero_bytes` marks as it marks a zero.)
    let control = !w.wrapping_add(splat(0x80 - 0x20)) & HIGH;
    let odd = control
        | zero_bytes(w ^ splat(0x7f))
        | zero_bytes(w ^ splat(b'"'))
        | zero_bytes(w ^ splat(b'\''))
        | zero_bytes(w ^ splat(b'\\'));
    (odd.trailing_zeros() / 8) as usize
}

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
    // A backslash before `\r\n` continues the line over both characters.
    let mut escaped_cr = false;
    let bytes = rest.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        // The plain bytes of the next eight at once: each would take the `PYTHON_STR_C` branch
        // below, which leaves the state as this does.
        if let Some(word) = bytes
            .get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let plain = plain_prefix(u64::from_le_bytes(word));
            if plain > 0 {
                prev_backslashes = 0;
                escaped_cr = false;
                i += plain;
                continue;
            }
        }
        i += 1;
        let after_escaped_cr = std::mem::replace(&mut escaped_cr, false);
        if b == quote {
            out.len = Some(i - 1);
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
            b'\n' if after_escaped_cr => {}
            b'\n' | b'\r' if prev_backslashes.is_multiple_of(2) => {
                out.invalid
                    .get_or_insert("a quoted string cannot contain a line break");
            }
            b'\r' => escaped_cr = true,
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

    #[test]
    fn plain_prefix_counts_the_bytes_of_python_str_c_before_the_first_other() {
        let plain = |b: u8| b != b'\t' && b < 128 && PYTHON_STR_C[b as usize];
        let expected = |w: u64| w.to_le_bytes().iter().take_while(|&&b| plain(b)).count();
        // Each byte value at each place among plain bytes, and before a byte that carries,
        // then random words.
        for at in 0..8 {
            for b in 0..=255u8 {
                let mut w = *b"abcdefgh";
                w[at] = b;
                let w = u64::from_le_bytes(w);
                assert_eq!(plain_prefix(w), expected(w), "{b:#x} at {at}");
                let mut v = [0xffu8; 8];
                v[..at].copy_from_slice(&b"abcdefgh"[..at]);
                v[at] = b;
                let v = u64::from_le_bytes(v);
                assert_eq!(plain_prefix(v), expected(v), "{b:#x} at {at}, 0xff after");
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Mostly printable, so that plain words are common.
            let w = (state & 0x7f7f_7f7f_7f7f_7f7f) | 0x2020_2020_2020_2020 & state.rotate_left(7);
            assert_eq!(plain_prefix(w), expected(w), "{w:#x}");
            assert_eq!(plain_prefix(state), expected(state), "{state:#x}");
        }
    }

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

    /// Found by `markerspec fuzz` against packaging 26.4: a backslash continues the line over
    /// `\r\n` as over `\n` or `\r` alone; a second line break is still one.
    #[test]
    fn line_continuation_over_crlf() {
        assert_eq!(d("a\\\r\nb").unwrap(), "ab");
        assert_eq!(d("a\\\nb").unwrap(), "ab");
        assert_eq!(d("a\\\rb").unwrap(), "ab");
        assert!(d("a\\\r\rb").is_err());
        assert!(d("a\\\n\nb").is_err());
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
