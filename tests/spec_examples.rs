//! Every worked example of `spec/SPEC.md` (the ```` ```marker-example ```` blocks) is executed.
//!
//! An example's environment starts from `spec/environments/linux-x86_64-cpython-3.12.json` with
//! every extended field Absent, then applies the example's `env` line as an environment document
//! (`null` is Unknown, `""`/`[]` Absent). The dialect is `extended` unless the block says
//! otherwise; the profile is `spec-2026`.

use markerspec::pep508::{
    DIAGNOSTIC_CODES, Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Truth,
};

struct Example {
    line: usize,
    marker: String,
    dialect: Dialect,
    env: Option<String>,
    result: String,
}

fn examples() -> Vec<Example> {
    let text = include_str!("../spec/SPEC.md");
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if line.trim() != "```marker-example" {
            continue;
        }
        let mut ex = Example {
            line: n + 1,
            marker: String::new(),
            dialect: Dialect::Extended,
            env: None,
            result: String::new(),
        };
        for (_, l) in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            let (key, value) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            let value = value.trim().to_string();
            match key.trim() {
                "marker" => ex.marker = value,
                "dialect" => ex.dialect = value.parse().unwrap(),
                "env" => ex.env = Some(value),
                "result" => ex.result = value,
                other => panic!("SPEC.md line {}: unknown key {other}", ex.line),
            }
        }
        out.push(ex);
    }
    out
}

fn base_environment() -> Environment {
    let text = include_str!("../spec/environments/linux-x86_64-cpython-3.12.json");
    let mut env: Environment = serde_json::from_str(text).unwrap();
    for f in Field::ALL {
        if f.is_extended() {
            env.set(*f, EnvValue::Absent).unwrap();
        }
    }
    env
}

fn environment(example: &Example) -> Environment {
    let mut env = base_environment();
    if let Some(doc) = &example.env {
        let given: Environment = serde_json::from_str(doc)
            .unwrap_or_else(|e| panic!("SPEC.md line {}: bad env: {e}", example.line));
        for (field, value) in given.iter() {
            env.set(field, value.clone()).unwrap();
        }
        let extras: Vec<String> = given.extras().map(str::to_string).collect();
        if !extras.is_empty() {
            env = env.with_extras(extras);
        }
    }
    env
}

fn code_for(name: &str) -> Vec<&'static str> {
    DIAGNOSTIC_CODES
        .iter()
        .filter(|(_, n, _, _)| *n == name)
        .map(|(c, _, _, _)| *c)
        .collect()
}

fn outcome(example: &Example) -> String {
    let opts = ParseOptions::default().dialect(example.dialect);
    let marker = match MarkerTree::parse_with(&example.marker, &opts, &mut |_| {}) {
        Ok(m) => m,
        Err(e) => return format!("error: {}", e.kind().name()),
    };
    match marker.evaluate_tristate(&environment(example)) {
        Err(e) => format!("error: {}", e.kind().name()),
        Ok(r) => match r.truth {
            Truth::True => "true".into(),
            Truth::False => "false".into(),
            Truth::Unknown => {
                let mut names: Vec<&str> = r.unknown.iter().map(|f| f.name()).collect();
                names.sort_unstable();
                format!("unknown: {}", names.join(","))
            }
        },
    }
}

#[test]
fn every_worked_example_holds() {
    let examples = examples();
    assert!(examples.len() >= 30, "only {} examples", examples.len());
    let mut failures = Vec::new();
    for ex in &examples {
        if let Some(name) = ex.result.strip_prefix("error: ") {
            assert!(
                !code_for(name).is_empty(),
                "SPEC.md line {}: `{name}` is not a diagnostic name in DIAGNOSTIC_CODES",
                ex.line
            );
        }
        let got = outcome(ex);
        if got != ex.result {
            failures.push(format!(
                "SPEC.md line {}: `{}` gave `{got}`, the spec says `{}`",
                ex.line, ex.marker, ex.result
            ));
        }
    }
    eprintln!("{} worked examples checked", examples.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Diagnostics that belong to environment documents and providers rather than to the marker
/// library's code table.
const PROVIDER_DIAGNOSTICS: &[&str] = &[
    "override-ignored",
    "invalid-environment",
    "invalid-override",
    "unknown-environment-key",
    "newer-environment-version",
    "text-version-value",
];

#[test]
fn every_diagnostic_named_by_the_spec_has_a_code() {
    let text = include_str!("../spec/SPEC.md");
    let section = &text[text.find("## 12. Diagnostics").unwrap()..];
    // §12.3 lists the diagnostics specification 0.2 adds, which have no code yet
    // (`tests/diagnostics_consistency.rs` checks that they are still unimplemented).
    let section = &section[..section.find("\n### 12.3").unwrap()];
    let mut names = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cell = line.split('|').nth(1).unwrap();
        names.extend(
            cell.split(',')
                .map(|n| n.trim().trim_matches('`').to_string()),
        );
    }
    assert!(names.len() >= 25, "{names:?}");
    for name in &names {
        assert!(
            !code_for(name).is_empty() || PROVIDER_DIAGNOSTICS.contains(&name.as_str()),
            "SPEC.md §12 names `{name}`, which has no code"
        );
    }
}
