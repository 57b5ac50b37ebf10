//! Near misses: valid text changed by one edit.

use arbitrary::{Result, Unstructured};

use super::pick;

/// The edit a near miss made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Mutation {
    /// A quote removed (`os_name == "posix`).
    DropQuote,
    /// An operator doubled or stretched (`====`, `<<`, `in in`, `~==`).
    DoubleOperator,
    /// `==` made `===`, or `===` made `==`.
    ArbitraryEquality,
    /// A space inserted inside an operator (`= =`, `not  in` with a tab, `< =`).
    SplitOperator,
    /// The whitespace around `and`, `or`, `in` or `not in` removed (`"3.8"and(`).
    SqueezeWhitespace,
    /// A version broken (`3..8`, `3.8.`, `3.8x`, `3.8+`, a leading `v`).
    BreakVersion,
    /// A trailing comma in an extras list or a specifier set (`[a,]`, `>=1,`).
    TrailingComma,
    /// A parenthesis added or removed (`(a == "b"`, `a == "b")`).
    Unbalance,
    /// The whole marker wrapped in many parentheses (50 to 300 levels).
    DeepNesting,
    /// A field renamed: a PEP 345 alias, a typo, another case (`os.name`, `python_versions`,
    /// `Python_Version`).
    RenameField,
    /// `in` or `not in` on a version field (`python_version in "3.10 3.11"`).
    InOnVersion,
    /// An escape sequence inside a quoted string (`\"`, `\\`, `\n`, `\N{…}`).
    Escape,
    /// Something after the end (`;`, ` and`, `#`, `)`, `,`).
    TrailingGarbage,
    /// `and`/`or`/`not in` in another case (`AND`, `Or`).
    KeywordCase,
    /// A URL broken (no space before `;`, no scheme, `@` without a URL).
    BreakUrl,
    /// The `;` before a requirement's marker removed or doubled.
    Semicolon,
    /// Whitespace replaced by non-ASCII whitespace (`U+00A0`, `U+3000`) or a form feed.
    OddWhitespace,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: &'static [Mutation] = &[
        Mutation::DropQuote,
        Mutation::DoubleOperator,
        Mutation::ArbitraryEquality,
        Mutation::SplitOperator,
        Mutation::SqueezeWhitespace,
        Mutation::BreakVersion,
        Mutation::TrailingComma,
        Mutation::Unbalance,
        Mutation::DeepNesting,
        Mutation::RenameField,
        Mutation::InOnVersion,
        Mutation::Escape,
        Mutation::TrailingGarbage,
        Mutation::KeywordCase,
        Mutation::BreakUrl,
        Mutation::Semicolon,
        Mutation::OddWhitespace,
    ];

    /// The mutation's name, in kebab case (`drop-quote`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mutation::DropQuote => "drop-quote",
            Mutation::DoubleOperator => "double-operator",
            Mutation::ArbitraryEquality => "arbitrary-equality",
            Mutation::SplitOperator => "split-operator",
            Mutation::SqueezeWhitespace => "squeeze-whitespace",
            Mutation::BreakVersion => "break-version",
            Mutation::TrailingComma => "trailing-comma",
            Mutation::Unbalance => "unbalance",
            Mutation::DeepNesting => "deep-nesting",
            Mutation::RenameField => "rename-field",
            Mutation::InOnVersion => "in-on-version",
            Mutation::Escape => "escape",
            Mutation::TrailingGarbage => "trailing-garbage",
            Mutation::KeywordCase => "keyword-case",
            Mutation::BreakUrl => "break-url",
            Mutation::Semicolon => "semicolon",
            Mutation::OddWhitespace => "odd-whitespace",
        }
    }
}

impl std::fmt::Display for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A near miss: the changed text and the edit that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    /// The edit.
    pub mutation: Mutation,
    /// The text after the edit.
    pub text: String,
}

/// Byte offsets of every occurrence of `needle` in `text` outside quoted strings (or inside
/// them, with `quoted`).
fn find(text: &str, needle: &str, quoted: bool) -> Vec<usize> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        if (quote.is_some() == quoted) && text[i..].starts_with(needle) {
            out.push(i);
        }
        match quote {
            Some(q) if c == q => quote = None,
            None if c == '"' || c == '\'' => quote = Some(c),
            _ => {}
        }
    }
    out
}

/// Byte ranges of the text between quotes.
fn literals(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for (i, c) in text.char_indices() {
        match open {
            Some((q, start)) if c == q => {
                out.push((start, i));
                open = None;
            }
            None if c == '"' || c == '\'' => open = Some((c, i + 1)),
            _ => {}
        }
    }
    out
}

fn splice(text: &str, at: usize, remove: usize, insert: &str) -> String {
    let mut s = String::with_capacity(text.len() + insert.len());
    s.push_str(&text[..at]);
    s.push_str(insert);
    s.push_str(&text[at + remove..]);
    s
}

/// Where the marker starts: after the `;` of a requirement (outside quotes and URLs, roughly),
/// or 0 for a marker.
fn marker_start(text: &str) -> Option<usize> {
    find(text, ";", false).first().map(|&i| i + 1)
}

const OPERATORS: &[&str] = &["===", "==", "!=", "<=", ">=", "~=", "<", ">"];
const VERSION_FIELDS: &[&str] = &[
    "python_version",
    "python_full_version",
    "implementation_version",
];
const FIELDS: &[&str] = &[
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
];

fn apply(u: &mut Unstructured<'_>, text: &str, m: Mutation) -> Result<Option<String>> {
    let at = |u: &mut Unstructured<'_>, v: Vec<usize>| -> Result<Option<usize>> {
        if v.is_empty() {
            Ok(None)
        } else {
            Ok(Some(*pick(u, &v)?))
        }
    };
    Ok(match m {
        Mutation::DropQuote => {
            let v: Vec<usize> = text
                .char_indices()
                .filter(|(_, c)| *c == '"' || *c == '\'')
                .map(|(i, _)| i)
                .collect();
            at(u, v)?.map(|i| splice(text, i, 1, ""))
        }
        Mutation::DoubleOperator => {
            let mut v = Vec::new();
            for op in OPERATORS.iter().chain(&[" in "]) {
                v.extend(find(text, op, false).into_iter().map(|i| (i, *op)));
            }
            if v.is_empty() {
                None
            } else {
                let (i, op) = *pick(u, &v)?;
                let extra = *pick(u, &[op.trim(), "=", "~", "<"])?;
                Some(splice(
                    text,
                    i + op.len() - usize::from(op.ends_with(' ')),
                    0,
                    extra,
                ))
            }
        }
        Mutation::ArbitraryEquality => {
            let triple = find(text, "===", false);
            if let Some(i) = at(u, triple)? {
                Some(splice(text, i, 3, "=="))
            } else {
                at(u, find(text, "==", false))?.map(|i| splice(text, i, 2, "==="))
            }
        }
        Mutation::SplitOperator => {
            let mut v = Vec::new();
            for op in ["==", "!=", "<=", ">=", "~=", "not in"] {
                v.extend(find(text, op, false).into_iter().map(|i| (i, op)));
            }
            if v.is_empty() {
                None
            } else {
                let (i, op) = *pick(u, &v)?;
                if op == "not in" {
                    let ws = *pick(u, &["not\tin", "not  in", "notin", "not\u{a0}in"])?;
                    Some(splice(text, i, op.len(), ws))
                } else {
                    Some(splice(text, i + 1, 0, pick(u, &[" ", "\t"])?))
                }
            }
        }
        Mutation::SqueezeWhitespace => {
            let mut v = Vec::new();
            for kw in [" and ", " or ", " in ", " not in "] {
                v.extend(find(text, kw, false).into_iter().map(|i| (i, kw)));
            }
            if v.is_empty() {
                None
            } else {
                let (i, kw) = *pick(u, &v)?;
                let squeezed = match u.int_in_range(0u8..=2)? {
                    0 => kw.trim_start().to_string(),
                    1 => kw.trim_end().to_string(),
                    _ => kw.trim().to_string(),
                };
                Some(splice(text, i, kw.len(), &squeezed))
            }
        }
        Mutation::BreakVersion => {
            // A digit inside a literal, or in a specifier.
            let mut v: Vec<usize> = literals(text)
                .into_iter()
                .flat_map(|(s, e)| (s..e).filter(|&i| text.as_bytes()[i].is_ascii_digit()))
                .collect();
            if let Some(end) = text.find([';', '@']) {
                v.extend((0..end).filter(|&i| text.as_bytes()[i].is_ascii_digit()));
            }
            at(u, v)?
                .map(|i| -> Result<String> {
                    let insert = *pick(u, &[".", "..", "x", "+", "-", "v", "!", ".*", " ", "_"])?;
                    Ok(splice(text, i + 1, 0, insert))
                })
                .transpose()?
        }
        Mutation::TrailingComma => {
            let mut v = find(text, "]", false);
            let spec_end = text.find([';', '@']).unwrap_or(text.len());
            if spec_end > 0
                && text[..spec_end]
                    .trim_end()
                    .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '*')
                && OPERATORS.iter().any(|op| text[..spec_end].contains(op))
            {
                v.push(text[..spec_end].trim_end().len());
            }
            at(u, v)?.map(|i| splice(text, i, 0, ","))
        }
        Mutation::Unbalance => {
            let start = marker_start(text).unwrap_or(0);
            match u.int_in_range(0u8..=2)? {
                0 => Some(splice(text, start, 0, "(")),
                1 => Some(format!("{text})")),
                _ => {
                    let mut v = find(text, "(", false);
                    v.extend(find(text, ")", false));
                    at(u, v)?.map(|i| splice(text, i, 1, ""))
                }
            }
        }
        Mutation::DeepNesting => {
            let start = marker_start(text).unwrap_or(0);
            if text[start..].trim().is_empty() {
                None
            } else {
                let n = u.int_in_range(50usize..=300)?;
                Some(format!(
                    "{}{}{}{}",
                    &text[..start],
                    "(".repeat(n),
                    &text[start..],
                    ")".repeat(n)
                ))
            }
        }
        Mutation::RenameField => {
            let mut v = Vec::new();
            for f in FIELDS {
                v.extend(find(text, f, false).into_iter().map(|i| (i, *f)));
            }
            if v.is_empty() {
                None
            } else {
                let (i, f) = *pick(u, &v)?;
                let renamed = match u.int_in_range(0u8..=3)? {
                    0 => f.replacen('_', ".", 1),
                    1 => format!("{f}s"),
                    2 => {
                        let mut c = f.chars();
                        c.next()
                            .map(|h| h.to_uppercase().chain(c).collect())
                            .unwrap_or_default()
                    }
                    _ => f.replace('_', "-"),
                };
                Some(splice(text, i, f.len(), &renamed))
            }
        }
        Mutation::InOnVersion => {
            let mut v = Vec::new();
            for f in VERSION_FIELDS {
                v.extend(find(text, f, false).into_iter().map(|i| i + f.len()));
            }
            match at(u, v)? {
                None => None,
                Some(i) => {
                    // Replace the operator after the field with `in` / `not in`.
                    let rest = &text[i..];
                    let trimmed = rest.trim_start();
                    let op_len = OPERATORS
                        .iter()
                        .find(|op| trimmed.starts_with(**op))
                        .map_or(0, |op| op.len());
                    if op_len == 0 {
                        None
                    } else {
                        let ws = rest.len() - trimmed.len();
                        let op = *pick(u, &["in", "not in"])?;
                        Some(splice(text, i + ws, op_len, op))
                    }
                }
            }
        }
        Mutation::Escape => {
            let v: Vec<usize> = literals(text).into_iter().map(|(s, _)| s).collect();
            at(u, v)?
                .map(|i| -> Result<String> {
                    let esc = *pick(
                        u,
                        &[
                            "\\\"",
                            "\\'",
                            "\\\\",
                            "\\n",
                            "\\x41",
                            "\\N{DIGIT ONE}",
                            "\\",
                        ],
                    )?;
                    Ok(splice(text, i, 0, esc))
                })
                .transpose()?
        }
        Mutation::TrailingGarbage => {
            let tail = *pick(
                u,
                &[";", " and", " or", "#", ")", ",", " ;", "\\", " extra"],
            )?;
            Some(format!("{text}{tail}"))
        }
        Mutation::KeywordCase => {
            let mut v = Vec::new();
            for kw in [" and ", " or ", " in ", " not "] {
                v.extend(find(text, kw, false).into_iter().map(|i| (i, kw)));
            }
            if v.is_empty() {
                None
            } else {
                let (i, kw) = *pick(u, &v)?;
                let changed = if u.arbitrary()? {
                    kw.to_uppercase()
                } else {
                    let t = kw.trim();
                    let mut c = t.chars();
                    let cap: String = c
                        .next()
                        .map(|h| h.to_uppercase().chain(c).collect())
                        .unwrap_or_default();
                    format!(" {cap} ")
                };
                Some(splice(text, i, kw.len(), &changed))
            }
        }
        Mutation::BreakUrl => match text.find('@') {
            None => None,
            Some(i) => Some(match u.int_in_range(0u8..=2)? {
                0 => {
                    // No whitespace before the marker's `;`.
                    match text[i..].find(" ;") {
                        Some(j) => splice(text, i + j, 1, ""),
                        None => format!("{text};python_version>='3'"),
                    }
                }
                1 => match text[i..].find("://") {
                    Some(j) => {
                        let scheme_start = text[i + 1..i + j]
                            .rfind(' ')
                            .map_or(i + 1, |k| i + 1 + k + 1);
                        splice(text, scheme_start, i + j + 3 - scheme_start, "")
                    }
                    None => splice(text, i + 1, 0, " "),
                },
                _ => {
                    let end = text[i..].find(" ;").map_or(text.len(), |j| i + j);
                    splice(text, i + 1, end - i - 1, " ")
                }
            }),
        },
        Mutation::Semicolon => {
            let v = find(text, ";", false);
            at(u, v)?
                .map(|i| -> Result<String> {
                    Ok(if u.arbitrary()? {
                        splice(text, i, 1, "")
                    } else {
                        splice(text, i, 1, ";;")
                    })
                })
                .transpose()?
        }
        Mutation::OddWhitespace => {
            let v = find(text, " ", false);
            at(u, v)?
                .map(|i| -> Result<String> {
                    Ok(splice(
                        text,
                        i,
                        1,
                        pick(u, &["\u{a0}", "\u{3000}", "\u{c}", "\u{b}", "\u{85}"])?,
                    ))
                })
                .transpose()?
        }
    })
}

/// Changes valid `text` (a marker or a requirement) by one edit: a mutation is drawn, and if
/// the text offers it no place (no quote to drop, no URL to break) another, until one applies;
/// [`Mutation::TrailingGarbage`] always does.
///
/// The result is usually invalid, but not always (a PEP 345 alias, `===` for `==` and
/// `in` on a version field are valid spellings): a near miss is one edit away from valid, not
/// necessarily wrong — which is where implementations disagree.
///
/// ```
/// use arbitrary::Unstructured;
/// use markerspec_pep508::generate::{near_miss, seeded_bytes};
///
/// let bytes = seeded_bytes(7, 64);
/// let miss = near_miss(&mut Unstructured::new(&bytes), "python_version >= \"3.8\"")?;
/// assert_ne!(miss.text, "python_version >= \"3.8\"");
/// println!("{}: {}", miss.mutation, miss.text);
/// # Ok::<(), arbitrary::Error>(())
/// ```
///
/// # Errors
/// Only what [`Unstructured`] reports.
pub fn near_miss(u: &mut Unstructured<'_>, text: &str) -> Result<NearMiss> {
    // Draw a few times, so that edits the text offers no place for do not hand their share
    // to their neighbours in the list; then try each in turn.
    for _ in 0..8 {
        let mutation = *pick(u, Mutation::ALL)?;
        if let Some(changed) = apply(u, text, mutation)? {
            if changed != text {
                return Ok(NearMiss {
                    mutation,
                    text: changed,
                });
            }
        }
    }
    let first = u.choose_index(Mutation::ALL.len())?;
    for k in 0..Mutation::ALL.len() {
        let mutation = Mutation::ALL[(first + k) % Mutation::ALL.len()];
        if let Some(changed) = apply(u, text, mutation)? {
            if changed != text {
                return Ok(NearMiss {
                    mutation,
                    text: changed,
                });
            }
        }
    }
    Ok(NearMiss {
        mutation: Mutation::TrailingGarbage,
        text: format!("{text};"),
    })
}
