//! uv-pep508's reading of markers, for the tests that compare with it: its world knowledge as a
//! marker, and markers parsed under markerspec's `uv` profile.

use std::str::FromStr;

use markerspec_pep508::{MarkerTree, ParseOptions, Profile};

/// uv-pep508's world knowledge, as a marker the brute force can conjoin (uv-pep508 0.0.98
/// `marker/algebra.rs`): it builds `platform_system == 'Windows'` as the node
/// `sys_platform == 'win32'` ("Normalize `platform_system` markers to `sys_platform` nodes"),
/// so the two are one; and its `and` maps to false a conjunction that lies inside its table of
/// known-incompatible pairs (`exclusions`).
pub fn uv_theory() -> MarkerTree {
    const SAME: &[(&str, &str)] = &[
        ("Windows", "win32"),
        ("Darwin", "darwin"),
        ("Linux", "linux"),
        ("AIX", "aix"),
        ("Emscripten", "emscripten"),
        ("Android", "android"),
    ];
    let mut clauses: Vec<String> = SAME
        .iter()
        .map(|(ps, sp)| {
            format!(
                "(platform_system == '{ps}' and sys_platform == '{sp}' or \
                 platform_system != '{ps}' and sys_platform != '{sp}')"
            )
        })
        .collect();
    // Each excluded pair `a and b` as its negation `a' or b'` (marker syntax has no `not`).
    let mut excluded: Vec<(String, String)> = ["linux", "darwin", "ios"]
        .iter()
        .map(|sp| {
            (
                "os_name != 'nt'".to_string(),
                format!("sys_platform != '{sp}'"),
            )
        })
        .collect();
    excluded.push((
        "os_name != 'posix'".into(),
        "sys_platform != 'win32'".into(),
    ));
    for ps in ["FreeBSD", "NetBSD", "OpenBSD", "SunOS", "iOS", "iPadOS"] {
        for sp in [
            "aix",
            "android",
            "emscripten",
            "ios",
            "linux",
            "darwin",
            "win32",
            "cygwin",
            "wasi",
        ] {
            if sp == "ios" && (ps == "iOS" || ps == "iPadOS") {
                continue;
            }
            excluded.push((
                format!("platform_system != '{ps}'"),
                format!("sys_platform != '{sp}'"),
            ));
        }
    }
    clauses.extend(excluded.iter().map(|(a, b)| format!("({a} or {b})")));
    MarkerTree::from_str(&clauses.join(" and ")).expect("the theory parses")
}

/// `text` parsed under markerspec's `uv` profile (what uv-pep508 evaluates).
pub fn parse_uv(text: &str) -> MarkerTree {
    let opts = ParseOptions::default().profile(Profile::Uv);
    MarkerTree::parse_with(text, &opts, &mut Vec::new())
        .unwrap_or_else(|e| panic!("markerspec parses {text:?} under the uv profile: {e:?}"))
}
