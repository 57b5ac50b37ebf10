//! The packaging 26.4 oracle: every recorded answer of packaging must be ours.
//!
//! The data comes from `tests/oracle/generate.py` (run it with packaging 26.4 to regenerate).
//! Each test collects every mismatch and reports them all at once.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use markerspec_pep440::{ErrorKind, PrereleaseKind, Version, VersionSpecifier, VersionSpecifiers};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/oracle/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {path}: {e}"))
}

fn array<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is not an array"))
}

fn string(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{value} is not a string"))
}

/// Collects mismatches and fails once with all of them.
#[derive(Default)]
struct Mismatches {
    checked: usize,
    failures: Vec<String>,
}

impl Mismatches {
    fn check(&mut self, ok: bool, describe: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.failures.push(describe());
        }
    }

    fn finish(self, what: &str) {
        assert!(self.checked > 0, "no {what} cases were checked");
        if !self.failures.is_empty() {
            let shown: Vec<&str> = self.failures.iter().take(200).map(String::as_str).collect();
            panic!(
                "{} of {} {what} checks differ from packaging:\n{}",
                self.failures.len(),
                self.checked,
                shown.join("\n")
            );
        }
        eprintln!("{what}: {} checks agree with packaging", self.checked);
    }
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

fn opt_u64(value: &Value) -> Option<u64> {
    value.as_u64()
}

fn pre_json(version: &Version) -> Value {
    match version.pre() {
        None => Value::Null,
        Some(pre) => {
            let kind = match pre.kind {
                PrereleaseKind::Alpha => "a",
                PrereleaseKind::Beta => "b",
                PrereleaseKind::Rc => "rc",
            };
            serde_json::json!([kind, pre.number])
        }
    }
}

fn local_json(version: &Version) -> Value {
    if version.local().is_empty() {
        return Value::Null;
    }
    let parts: Vec<String> = version.local().iter().map(ToString::to_string).collect();
    Value::String(parts.join("."))
}

#[test]
fn versions_match_packaging() {
    let doc = load("versions.json");
    let mut m = Mismatches::default();
    for case in array(&doc, "versions") {
        let input = string(&case["input"]);
        let parsed = input.parse::<Version>();
        if case.get("diverges").is_some() {
            m.check(
                parsed
                    .as_ref()
                    .is_err_and(|e| e.kind() == ErrorKind::NumberTooLarge),
                || {
                    format!(
                        "{input:?}: expected NumberTooLarge (documented divergence), got {parsed:?}"
                    )
                },
            );
            continue;
        }
        if case["valid"] == Value::Bool(false) {
            m.check(parsed.is_err(), || {
                format!("{input:?}: packaging rejects it, we parsed {parsed:?}")
            });
            continue;
        }
        let v = match parsed {
            Ok(v) => v,
            Err(e) => {
                m.check(false, || {
                    format!("{input:?}: packaging accepts it, we fail: {e}")
                });
                continue;
            }
        };
        let expected = string(&case["str"]);
        m.check(v.to_string() == expected, || {
            format!(
                "{input:?}: str {expected:?}, we display {:?}",
                v.to_string()
            )
        });
        m.check(Some(v.epoch()) == opt_u64(&case["epoch"]), || {
            format!("{input:?}: epoch {}, ours {}", case["epoch"], v.epoch())
        });
        let release: Vec<u64> = array(case, "release")
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        m.check(v.release() == release.as_slice(), || {
            format!("{input:?}: release {release:?}, ours {:?}", v.release())
        });
        m.check(pre_json(&v) == case["pre"], || {
            format!("{input:?}: pre {}, ours {}", case["pre"], pre_json(&v))
        });
        m.check(v.post() == opt_u64(&case["post"]), || {
            format!("{input:?}: post {}, ours {:?}", case["post"], v.post())
        });
        m.check(v.dev() == opt_u64(&case["dev"]), || {
            format!("{input:?}: dev {}, ours {:?}", case["dev"], v.dev())
        });
        m.check(local_json(&v) == case["local"], || {
            format!(
                "{input:?}: local {}, ours {}",
                case["local"],
                local_json(&v)
            )
        });
        m.check(
            v.without_local().to_string() == string(&case["public"]),
            || {
                format!(
                    "{input:?}: public {}, ours {}",
                    case["public"],
                    v.without_local()
                )
            },
        );
        for (key, ours) in [
            ("is_prerelease", v.is_prerelease()),
            ("is_postrelease", v.is_postrelease()),
            ("is_devrelease", v.is_devrelease()),
        ] {
            m.check(case[key] == Value::Bool(ours), || {
                format!("{input:?}: {key} {}, ours {ours}", case[key])
            });
        }
        // The canonical form parses back to an equal version with the same display.
        let again = expected.parse::<Version>();
        m.check(
            again
                .as_ref()
                .is_ok_and(|w| w == &v && w.to_string() == expected),
            || format!("{input:?}: {expected:?} does not round-trip: {again:?}"),
        );
    }
    m.finish("version");
}

#[test]
fn comparisons_match_packaging() {
    let doc = load("versions.json");
    let mut m = Mismatches::default();
    for case in array(&doc, "comparisons") {
        let (a, b) = (string(&case["a"]), string(&case["b"]));
        let (Ok(va), Ok(vb)) = (a.parse::<Version>(), b.parse::<Version>()) else {
            m.check(false, || format!("{a:?} or {b:?} does not parse"));
            continue;
        };
        let expected = case["cmp"].as_i64().unwrap_or(99);
        let ours = va.cmp(&vb) as i64;
        m.check(ours == expected, || {
            format!("cmp({a:?}, {b:?}): packaging {expected}, ours {ours}")
        });
        m.check((va == vb) == (expected == 0), || {
            format!("{a:?} == {b:?} disagrees with cmp")
        });
        if expected == 0 {
            m.check(hash_of(&va) == hash_of(&vb), || {
                format!("{a:?} and {b:?} are equal but hash differently")
            });
        }
    }
    m.finish("comparison");
}

#[test]
fn specifiers_match_packaging() {
    let doc = load("specifiers.json");
    let mut m = Mismatches::default();
    for case in array(&doc, "specifiers") {
        let input = string(&case["input"]);
        let parsed = input.parse::<VersionSpecifier>();
        if case.get("diverges").is_some() {
            m.check(
                parsed
                    .as_ref()
                    .is_err_and(|e| e.kind() == ErrorKind::NumberTooLarge),
                || {
                    format!(
                        "{input:?}: expected NumberTooLarge (documented divergence), got {parsed:?}"
                    )
                },
            );
            continue;
        }
        if case["valid"] == Value::Bool(false) {
            m.check(parsed.is_err(), || {
                format!("{input:?}: packaging rejects it, we parsed {parsed:?}")
            });
            continue;
        }
        let spec = match parsed {
            Ok(spec) => spec,
            Err(e) => {
                m.check(false, || {
                    format!("{input:?}: packaging accepts it, we fail: {e}")
                });
                continue;
            }
        };
        let expected = string(&case["str"]);
        m.check(spec.to_string() == expected, || {
            format!("{input:?}: str {expected:?}, ours {:?}", spec.to_string())
        });
        m.check(
            spec.operator().as_str() == string(&case["operator"]),
            || {
                format!(
                    "{input:?}: operator {}, ours {}",
                    case["operator"],
                    spec.operator()
                )
            },
        );
        m.check(spec.version_text() == string(&case["version"]), || {
            format!(
                "{input:?}: version {}, ours {}",
                case["version"],
                spec.version_text()
            )
        });
        let pre = match spec.prereleases() {
            None => Value::Null,
            Some(b) => Value::Bool(b),
        };
        // A `===` version too large for us is text, where packaging reads a version.
        let too_large = case.get("note").is_some();
        m.check(too_large || pre == case["prereleases"], || {
            format!("{input:?}: prereleases {}, ours {pre}", case["prereleases"])
        });
        // Display parses back to an equal specifier.
        let again = expected.parse::<VersionSpecifier>();
        m.check(
            again
                .as_ref()
                .is_ok_and(|s| s == &spec && s.to_string() == expected),
            || format!("{input:?}: {expected:?} does not round-trip: {again:?}"),
        );
        // `from_parts` is parsing the concatenation.
        let op = spec.operator().as_str();
        if let Some(rest) = input.trim_start().strip_prefix(op) {
            let from_parts = VersionSpecifier::from_parts(op, rest);
            m.check(
                from_parts.as_ref().is_ok_and(|s| s.to_string() == expected),
                || format!("from_parts({op:?}, {rest:?}) = {from_parts:?}, want {expected:?}"),
            );
        }
    }
    m.finish("specifier");
}

/// Compares one `contains` bit string from the oracle with ours.
fn check_bits(
    m: &mut Mismatches,
    what: &str,
    items: &[&str],
    expected: &str,
    ours: impl Fn(&str) -> Option<bool>,
) {
    for (item, bit) in items.iter().zip(expected.chars()) {
        let expected = match bit {
            '1' => Some(true),
            '0' => Some(false),
            _ => None,
        };
        let got = ours(item);
        m.check(got == expected, || {
            format!("{what}: contains({item:?}) = {expected:?} in packaging, ours {got:?}")
        });
    }
}

fn check_contains(
    m: &mut Mismatches,
    name: &str,
    case: &Value,
    items: &[&str],
    contains_str: impl Fn(&str, Option<bool>) -> bool,
    contains_with: impl Fn(&Version, Option<bool>) -> bool,
) {
    for (key, pre) in [("none", None), ("true", Some(true)), ("false", Some(false))] {
        let what = format!("{name} (prereleases={pre:?}, str)");
        check_bits(m, &what, items, string(&case[key]), |item| {
            Some(contains_str(item, pre))
        });
    }
    for (key, pre) in [("version_none", None), ("version_false", Some(false))] {
        let what = format!("{name} (prereleases={pre:?}, Version)");
        check_bits(m, &what, items, string(&case[key]), |item| {
            item.parse::<Version>().ok().map(|v| contains_with(&v, pre))
        });
    }
}

#[test]
fn specifier_contains_matches_packaging() {
    let doc = load("specifiers.json");
    let items: Vec<&str> = array(&doc, "items").iter().map(string).collect();
    let mut m = Mismatches::default();
    for case in array(&doc, "contains") {
        let text = string(&case["spec"]);
        let Ok(spec) = text.parse::<VersionSpecifier>() else {
            m.check(false, || format!("{text:?} does not parse"));
            continue;
        };
        check_contains(
            &mut m,
            text,
            case,
            &items,
            |item, pre| spec.contains_str(item, pre),
            |v, pre| {
                let with = spec.contains_with(v, pre);
                if pre.is_none() {
                    assert_eq!(with, spec.contains(v), "contains != contains_with(None)");
                }
                with
            },
        );
    }
    m.finish("specifier contains");
}

#[test]
fn specifier_sets_match_packaging() {
    let doc = load("specifiers.json");
    let items: Vec<&str> = array(&doc, "items").iter().map(string).collect();
    let mut m = Mismatches::default();
    for case in array(&doc, "sets") {
        let input = string(&case["input"]);
        let parsed = input.parse::<VersionSpecifiers>();
        if case["valid"] == Value::Bool(false) {
            m.check(parsed.is_err(), || {
                format!("{input:?}: packaging rejects it, we parsed {parsed:?}")
            });
            continue;
        }
        let set = match parsed {
            Ok(set) => set,
            Err(e) => {
                m.check(false, || {
                    format!("{input:?}: packaging accepts it, we fail: {e}")
                });
                continue;
            }
        };
        let expected = string(&case["str"]);
        m.check(set.to_string() == expected, || {
            format!("{input:?}: str {expected:?}, ours {:?}", set.to_string())
        });
        m.check(Some(set.len() as u64) == case["len"].as_u64(), || {
            format!("{input:?}: len {}, ours {}", case["len"], set.len())
        });
        let pre = match set.prereleases() {
            None => Value::Null,
            Some(b) => Value::Bool(b),
        };
        m.check(pre == case["prereleases"], || {
            format!("{input:?}: prereleases {}, ours {pre}", case["prereleases"])
        });
        let again = expected.parse::<VersionSpecifiers>();
        m.check(again.as_ref().is_ok_and(|s| s == &set), || {
            format!("{input:?}: {expected:?} does not round-trip: {again:?}")
        });
        check_contains(
            &mut m,
            input,
            case,
            &items,
            |item, pre| set.contains_str(item, pre),
            |v, pre| set.contains_with(v, pre),
        );
    }
    m.finish("specifier set");
}

#[test]
fn equality_matches_packaging() {
    let doc = load("specifiers.json");
    let mut m = Mismatches::default();
    for case in array(&doc, "specifier_equality") {
        let (a, b) = (string(&case["a"]), string(&case["b"]));
        let (Ok(sa), Ok(sb)) = (a.parse::<VersionSpecifier>(), b.parse::<VersionSpecifier>())
        else {
            m.check(false, || format!("{a:?} or {b:?} does not parse"));
            continue;
        };
        let expected = case["equal"] == Value::Bool(true);
        m.check((sa == sb) == expected, || {
            format!("Specifier({a:?}) == Specifier({b:?}) is {expected} in packaging")
        });
        if expected {
            m.check(hash_of(&sa) == hash_of(&sb), || {
                format!("{a:?} and {b:?} are equal but hash differently")
            });
        }
    }
    for case in array(&doc, "set_equality") {
        let (a, b) = (string(&case["a"]), string(&case["b"]));
        let (Ok(sa), Ok(sb)) = (
            a.parse::<VersionSpecifiers>(),
            b.parse::<VersionSpecifiers>(),
        ) else {
            m.check(false, || format!("{a:?} or {b:?} does not parse"));
            continue;
        };
        let expected = case["equal"] == Value::Bool(true);
        m.check((sa == sb) == expected, || {
            format!("SpecifierSet({a:?}) == SpecifierSet({b:?}) is {expected} in packaging")
        });
        if expected {
            m.check(hash_of(&sa) == hash_of(&sb), || {
                format!("{a:?} and {b:?} are equal but hash differently")
            });
        }
    }
    m.finish("equality");
}
