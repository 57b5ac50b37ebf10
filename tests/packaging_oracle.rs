//! Differential test against pypa/packaging 26.4.
//!
//! `tests/data/packaging-oracle/` holds what packaging did with ~10,000 inputs (the real
//! `Requires-Dist` corpus and a generated grammar set) under nine environments and several
//! extra contexts; `scripts/oracle/` regenerates it. Every input must parse, print and
//! evaluate as packaging does under the `packaging` profile, except for a few named and counted
//! divergences below; every printed form is compared, groups in parentheses included. Under the
//! default `spec-2026` profile the real-world corpus must give the same answers too, and print
//! the same forms once packaging's redundant parentheses are dropped.
//!
//! An exception packaging raised must be the same kind in markerspec (`UndefinedEnvironmentName`
//! is `E001`, `UndefinedComparison` is `E002`). Each test asserts how many evaluations it
//! compared, and how many of them raised, per configuration; what it does not compare is
//! counted by reason and printed.

use std::collections::BTreeMap;
use std::path::Path;

use markerspec::pep508::{
    EnvValue, Environment, Field, MarkerExpression, MarkerTree, MarkerValue, ParseOptions, Profile,
    Requirement,
};
use serde_json::Value;

fn data_dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/packaging-oracle"
    ))
}

fn load(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(data_dir().join(name)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["records"].as_array().unwrap().clone()
}

fn fixtures() -> BTreeMap<String, BTreeMap<String, String>> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/environments"));
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let map: BTreeMap<String, Value> = serde_json::from_str(&text).unwrap();
        let map = map
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
            .collect();
        out.insert(path.file_stem().unwrap().to_str().unwrap().to_string(), map);
    }
    out
}

/// Every configuration the oracle records, in the order of its `meta.configs`.
const CONFIGS: [&str; 6] = [
    "default",
    "extra=test",
    "extra=",
    "extra={cuda,test}",
    "lock_file",
    "requirement",
];

/// Builds the environment packaging evaluated with for one configuration. packaging's
/// `metadata` context defines `extra` (`""` unless overridden), its `lock_file` context defines
/// `extras` and `dependency_groups` but no `extra`, and its `requirement` context defines
/// neither; markerspec's `Environment` always has requested extras (none by default), so the
/// markers that read `extra` in the last two are left out by the caller, and counted.
///
/// # Panics
/// On a configuration or fixture this test does not know: the oracle data and this test must
/// be updated together.
fn environment(base: &BTreeMap<String, String>, config: &str) -> Environment {
    let mut env = Environment::new();
    for (k, v) in base {
        let field = Field::from_canonical_name(k)
            .unwrap_or_else(|| panic!("fixture field `{k}` is not a marker field"));
        env.set(field, EnvValue::String(v.as_str().into()))
            .unwrap_or_else(|e| panic!("fixture field `{k}`: {e}"));
    }
    match config {
        "default" | "extra=" | "requirement" => env,
        "extra=test" => env.with_extras(["test"]),
        "extra={cuda,test}" => env.with_extras(["cuda", "test"]),
        "lock_file" => {
            env.set(Field::Extras, EnvValue::Set(vec!["cuda".into()]))
                .unwrap();
            env.set(Field::DependencyGroups, EnvValue::Set(vec!["dev".into()]))
                .unwrap();
            env
        }
        other => panic!("the oracle has a configuration `{other}` this test does not know"),
    }
}

/// The markerspec code of a packaging evaluation exception, or `None` for an exception that has
/// no counterpart (none is expected: the recorded data holds only these two).
fn error_code(exception: &str) -> Option<&'static str> {
    match exception {
        "UndefinedEnvironmentName" => Some("E001"),
        "UndefinedComparison" => Some("E002"),
        _ => None,
    }
}

/// Deliberate divergences from packaging, each with the reason.
fn known_parse_divergence(input: &str, ours: &Result<String, String>) -> Option<&'static str> {
    let Err(code) = ours else {
        return Some("markerspec accepts what packaging rejects");
    };
    if code == "L001" || code == "L004" {
        return Some("input or string over markerspec's documented limits");
    }
    if input.contains("===") && (code == "R010" || code.starts_with('V')) {
        // packaging's `===` token swallows commas, then re-splits them.
        return Some("`===` with commas");
    }
    if code == "M007"
        && (input.contains("\\N{") || input.contains("\\ud") || input.contains("\\uD"))
    {
        return Some("`\\N{}` escapes and lone surrogates");
    }
    None
}

fn parse(
    kind: &str,
    input: &str,
    profile: Profile,
) -> Result<(String, Option<MarkerTree>), String> {
    let parse_in = |lock_file: bool| {
        let opts = ParseOptions::default()
            .profile(profile)
            .lock_file(lock_file);
        match kind {
            "requirement" => Requirement::parse_with(input, &opts, &mut |_| {})
                .map(|r| (r.to_string(), r.marker().cloned()))
                .map_err(|e| e.code().to_string()),
            _ => MarkerTree::parse_with(input, &opts, &mut |_| {})
                .map(|m| (m.to_string(), Some(m)))
                .map_err(|e| e.code().to_string()),
        }
    };
    match parse_in(true) {
        // spec-2026 rejects the legacy `extra` in lock-file context (`M014`, SPEC Appendix
        // E.5), where packaging raises `UndefinedEnvironmentName` when it evaluates (those
        // evaluations are counted, not compared, below); the other contexts read the marker
        // without lock-file context.
        Err(code) if code == "M014" => parse_in(false),
        r => r,
    }
}

/// Compares markerspec's printed form with packaging's `str()`, for every record that parsed.
///
/// Under `packaging` the two must be equal wherever packaging's form reads back to itself; where
/// it does not (a string with a line break or a backslash, which packaging prints raw) or
/// where `str()` raised (a string with both quotes), markerspec prints Python escapes instead
/// (spec/SPEC.md §3.1): counted, and its form must read back to the same marker. Under
/// `spec-2026`, which flattens groups (§3.1), the form must equal packaging's where that has no
/// parentheses, and otherwise read, under `spec-2026`, to the same marker as packaging's form.
fn check_printed(
    r: &Value,
    kind: &str,
    input: &str,
    canonical: &str,
    profile: Profile,
    t: &mut Tally,
) {
    let theirs = r["canonical"].as_str();
    let Some(theirs) = theirs.filter(|_| r["roundtrip"].as_bool() == Some(true)) else {
        *t.known
            .entry("printed form: packaging's does not read back, markerspec escapes")
            .or_default() += 1;
        match parse(kind, canonical, profile) {
            Ok((again, _)) if again == canonical => {}
            other => t.failures.push(format!(
                "{kind} {input:?}: markerspec prints {canonical:?}, which reads back as {other:?}"
            )),
        }
        return;
    };
    t.printed += 1;
    if profile == Profile::Packaging || !theirs.contains('(') {
        if canonical != theirs {
            t.failures.push(format!(
                "{kind} {input:?}: packaging prints {theirs:?}, markerspec {canonical:?}"
            ));
        }
        return;
    }
    let same = parse(kind, theirs, profile).is_ok_and(|(again, _)| again == canonical);
    if !same {
        t.failures.push(format!(
            "{kind} {input:?}: packaging prints {theirs:?}, which does not read under \
             {profile:?} as markerspec's {canonical:?}"
        ));
    }
}

/// Whether packaging looks `extra` up in the environment for this comparison: it reads the
/// variable on the left, else the name given by the right-hand side's text, quoted or not
/// (`"x" == "extra"`); a variable on the right of a variable is compared as its name.
fn reads_extra(e: &MarkerExpression) -> bool {
    match (e.lhs(), e.rhs()) {
        (MarkerValue::Field(f), _) | (MarkerValue::Literal(_), MarkerValue::Field(f)) => {
            *f == Field::Extra
        }
        (MarkerValue::Literal(_), MarkerValue::Literal(name)) => &**name == "extra",
    }
}

#[derive(Default)]
struct Tally {
    records: usize,
    /// Evaluations compared with packaging's answer, per configuration.
    compared: BTreeMap<String, usize>,
    /// Of those, the ones where packaging raised (and markerspec gave the same error code).
    errors: BTreeMap<String, usize>,
    /// Evaluations recorded but not compared, per configuration and reason.
    skipped: BTreeMap<(String, &'static str), usize>,
    known: BTreeMap<&'static str, usize>,
    /// Printed forms compared with packaging's.
    printed: usize,
    failures: Vec<String>,
}

fn check_records(
    records: &[Value],
    fixtures: &BTreeMap<String, BTreeMap<String, String>>,
    profile: Profile,
    t: &mut Tally,
) {
    for r in records {
        t.records += 1;
        let input = r["input"].as_str().unwrap();
        let kind = r["kind"].as_str().unwrap();
        let ok = r["ok"].as_bool().unwrap();
        let ours = parse(kind, input, profile);
        let our_ok = ours.is_ok();
        if ok != our_ok {
            let shown = ours.as_ref().map(|(c, _)| c.clone()).map_err(Clone::clone);
            match known_parse_divergence(input, &shown) {
                Some(why) if !our_ok => *t.known.entry(why).or_default() += 1,
                _ => t.failures.push(format!(
                    "{kind} {input:?}: packaging ok={ok} ({}), markerspec {shown:?}",
                    r["error"]["message"]
                )),
            }
            continue;
        }
        let Ok((canonical, marker)) = ours else {
            continue;
        };
        check_printed(r, kind, input, &canonical, profile, t);
        let (Some(marker), Some(evals)) = (marker, r["eval"].as_object()) else {
            continue;
        };
        let reads_extra = marker.expressions().iter().any(|e| reads_extra(e));
        for (env_name, configs) in evals {
            let base = &fixtures[env_name];
            for (config, expected) in configs.as_object().unwrap() {
                // packaging repairs a trailing `+` in python_full_version when it builds the
                // environment; the packaging profile does the same, spec-2026 evaluates the
                // value it is given.
                if env_name == "linux-x86_64-cpython-3.13-untagged" && profile != Profile::Packaging
                {
                    *t.skipped
                        .entry((config.clone(), "python_full_version `3.13.1+`"))
                        .or_default() += 1;
                    continue;
                }
                // packaging's lock-file and requirement contexts have no `extra` value at all,
                // so reading it raises `UndefinedEnvironmentName` (or an earlier comparison
                // raises first); markerspec always has one, so only the exception is checked.
                if (config == "lock_file" || config == "requirement") && reads_extra {
                    if expected["error"].as_str().and_then(error_code).is_none() {
                        t.failures.push(format!(
                            "{kind} {input:?} in {env_name}/{config}: reads `extra` where \
                             packaging has none, yet packaging answered {expected}"
                        ));
                    }
                    *t.skipped
                        .entry((
                            config.clone(),
                            "reads `extra`, undefined in this context: packaging raised",
                        ))
                        .or_default() += 1;
                    continue;
                }
                let env = environment(base, config);
                *t.compared.entry(config.clone()).or_default() += 1;
                let got: Result<bool, String> = match marker.evaluate_tristate(&env) {
                    Ok(e) => match e.truth {
                        markerspec::pep508::Truth::True => Ok(true),
                        markerspec::pep508::Truth::False => Ok(false),
                        // Every fixture value is known: an unknown result is a failure, never
                        // an error that could match one of packaging's.
                        markerspec::pep508::Truth::Unknown => {
                            t.failures.push(format!(
                                "{kind} {input:?} in {env_name}/{config}: unknown {:?}",
                                e.unknown
                            ));
                            continue;
                        }
                    },
                    Err(e) => Err(e.code().to_string()),
                };
                // An exception must be the same kind: `UndefinedEnvironmentName` is `E001`,
                // `UndefinedComparison` is `E002`.
                let agree = match (expected, &got) {
                    (Value::Bool(b), Ok(g)) => b == g,
                    (Value::Object(o), Err(code)) => {
                        let theirs = o["error"].as_str().and_then(error_code);
                        let same = theirs == Some(code.as_str());
                        if same {
                            *t.errors.entry(config.clone()).or_default() += 1;
                        }
                        same
                    }
                    _ => false,
                };
                if agree {
                    continue;
                }
                t.failures.push(format!(
                    "{kind} {input:?} in {env_name}/{config}: packaging {expected}, markerspec {got:?}"
                ));
            }
        }
    }
}

/// Runs the records of `files` under `profile`, and checks how many printed forms were compared
/// against `printed`, and how many evaluations were compared (and, of those, raised in
/// packaging) per configuration against `expected`, in the order of [`CONFIGS`]: a change in
/// the data or in what this test leaves out shows up here.
fn run(files: &[&str], profile: Profile, printed: usize, expected: [(usize, usize); 6]) {
    let fixtures = fixtures();
    let mut t = Tally::default();
    for f in files {
        check_records(&load(f), &fixtures, profile, &mut t);
    }
    eprintln!(
        "{} records, {} printed forms compared, evaluations compared per configuration {:?}, \
         of which errors {:?}, not compared {:?}, known divergences: {:?}",
        t.records, t.printed, t.compared, t.errors, t.skipped, t.known
    );
    let got: Vec<(usize, usize)> = CONFIGS
        .iter()
        .map(|c| {
            (
                t.compared.get(*c).copied().unwrap_or(0),
                t.errors.get(*c).copied().unwrap_or(0),
            )
        })
        .collect();
    assert!(
        t.compared.keys().all(|c| CONFIGS.contains(&c.as_str())),
        "unexpected configurations: {:?}",
        t.compared.keys()
    );
    if !t.failures.is_empty() {
        if let Ok(path) = std::env::var("MARKERSPEC_ORACLE_DUMP") {
            let _ = std::fs::write(path, t.failures.join("\n"));
        }
        let n = t.failures.len();
        t.failures.truncate(60);
        panic!(
            "{n} disagreements with packaging 26.4, first 60:\n{}",
            t.failures.join("\n")
        );
    }
    assert_eq!(t.printed, printed, "printed forms compared");
    assert_eq!(
        got, expected,
        "evaluations compared (and errors among them) per configuration {CONFIGS:?}"
    );
}

#[test]
fn corpus_matches_packaging() {
    // The real corpus raises nowhere in packaging's metadata context; in the lock-file and
    // requirement contexts nearly every marker reads `extra` (not compared, counted).
    run(
        &["corpus.json"],
        Profile::Packaging,
        948,
        [
            (7623, 0),
            (7623, 0),
            (7623, 0),
            (7623, 0),
            (198, 0),
            (198, 0),
        ],
    );
}

/// The default profile reads the specification's 2026 text, which differs from packaging only
/// on constructs no real requirement uses: on the corpus the answers are the same.
#[test]
fn corpus_under_spec_2026_matches_packaging() {
    // Without the untagged-build environment (847 evaluations per configuration).
    run(
        &["corpus.json"],
        Profile::Spec2026,
        948,
        [
            (6776, 0),
            (6776, 0),
            (6776, 0),
            (6776, 0),
            (176, 0),
            (176, 0),
        ],
    );
}

#[test]
fn grammar_matches_packaging() {
    run(
        &[
            "grammar.part-01.json",
            "grammar.part-02.json",
            "grammar.part-03.json",
        ],
        Profile::Packaging,
        7383,
        [
            (48996, 11820),
            (48996, 11820),
            (48996, 11820),
            (48996, 13008),
            (45558, 8220),
            (45558, 11622),
        ],
    );
}
