//! uv-pep508 0.0.98 (default features: no non-PEP 508 extensions) as a markerspec
//! conformance adapter. Claims the `uv` profile for the `pep508` dialect.
//!
//! Requirements are parsed with `Requirement::<VerbatimUrl>::from_str` (no working directory),
//! markers with `MarkerTree::from_str`; the canonical form is uv's `Display` (a requirement) or
//! `MarkerTree::try_to_string` (a marker; `""` when it simplifies to true). Evaluation needs
//! every standard field as uv's `MarkerEnvironment` does (requests with a missing, Unknown or
//! unparseable version field are skipped); the requested extras go to `MarkerTree::evaluate`,
//! and in lock-file context the environment's `extras` and `dependency_groups` go to
//! `evaluate_pep751`.

use std::str::FromStr;

use markerspec_peer_adapters::{EvalAnswer, ParseAnswer, Peer, Request, run};
use uv_normalize::{ExtraName, GroupName};
use uv_pep508::{
    MarkerEnvironment, MarkerEnvironmentBuilder, MarkerTree, Requirement, VerbatimUrl,
};

struct Uv;

fn environment(r: &Request) -> Result<MarkerEnvironment, String> {
    let builder = MarkerEnvironmentBuilder {
        implementation_name: r.string("implementation_name")?,
        implementation_version: r.string("implementation_version")?,
        os_name: r.string("os_name")?,
        platform_machine: r.string("platform_machine")?,
        platform_python_implementation: r.string("platform_python_implementation")?,
        platform_release: r.string("platform_release")?,
        platform_system: r.string("platform_system")?,
        platform_version: r.string("platform_version")?,
        python_full_version: r.string("python_full_version")?,
        python_version: r.string("python_version")?,
        sys_platform: r.string("sys_platform")?,
    };
    MarkerEnvironment::try_from(builder)
        .map_err(|e| format!("uv cannot build this environment: {e}"))
}

fn marker(r: &Request) -> Result<MarkerTree, String> {
    if r.kind == "requirement" {
        Requirement::<VerbatimUrl>::from_str(&r.input)
            .map(|req| req.marker)
            .map_err(|e| e.to_string())
    } else {
        MarkerTree::from_str(&r.input).map_err(|e| e.to_string())
    }
}

fn names<T: FromStr>(items: &[String], what: &str) -> Result<Vec<T>, String> {
    items
        .iter()
        .map(|s| T::from_str(s).map_err(|_| format!("`{s}` is not a valid {what} name for uv")))
        .collect()
}

impl Peer for Uv {
    const NAME: &'static str = "uv-pep508";
    const VERSION: &'static str = "0.0.98";
    const PROFILES: &'static [&'static str] = &["uv"];

    fn parse(r: &Request) -> ParseAnswer {
        if r.kind == "requirement" {
            match Requirement::<VerbatimUrl>::from_str(&r.input) {
                Ok(req) => ParseAnswer::Valid(req.to_string()),
                Err(e) => ParseAnswer::Invalid(e.to_string()),
            }
        } else {
            match MarkerTree::from_str(&r.input) {
                Ok(m) => ParseAnswer::Valid(m.try_to_string().unwrap_or_default()),
                Err(e) => ParseAnswer::Invalid(e.to_string()),
            }
        }
    }

    fn evaluate(r: &Request) -> EvalAnswer {
        let m = match marker(r) {
            Ok(m) => m,
            Err(e) => return EvalAnswer::Invalid(e),
        };
        let env = match environment(r) {
            Ok(env) => env,
            Err(e) => return EvalAnswer::Skip(e),
        };
        let result = if r.lock_file {
            let extras: Vec<ExtraName> = match r.list("extras").and_then(|l| names(&l, "extra")) {
                Ok(x) => x,
                Err(e) => return EvalAnswer::Skip(e),
            };
            let groups: Vec<GroupName> =
                match r.list("dependency_groups").and_then(|l| names(&l, "group")) {
                    Ok(x) => x,
                    Err(e) => return EvalAnswer::Skip(e),
                };
            m.evaluate_pep751(&env, &extras, &groups)
        } else {
            let extras: Vec<ExtraName> = match names(&r.extras, "extra") {
                Ok(x) => x,
                Err(e) => return EvalAnswer::Skip(e),
            };
            m.evaluate(&env, &extras)
        };
        EvalAnswer::Result(result)
    }
}

fn main() {
    run::<Uv>();
}
