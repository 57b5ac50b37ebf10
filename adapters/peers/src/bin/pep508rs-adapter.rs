//! pep508_rs 0.9.2 (the crates.io name of uv's parser before it moved into uv) as a markerspec
//! conformance adapter, for the divergence table. It claims the `uv` profile, its closest
//! relative, for the `pep508` dialect; it differs from uv-pep508 0.0.98 in places, which the
//! runner reports.
//!
//! pep508_rs panics on some inputs (`a.>=1`), and `'2.7.0' ~= os_name` panics while its global
//! interner lock is held, so every later marker parse in the process would panic too. Each
//! call runs under `catch_unwind`; after a panic the adapter answers `crash` with `fatal` and
//! exits, and the runner starts a fresh process.

use std::str::FromStr;

use markerspec_peer_adapters::{EvalAnswer, ParseAnswer, Peer, Request, run};
use pep508_rs::{
    ExtraName, MarkerEnvironment, MarkerEnvironmentBuilder, MarkerTree, Requirement, VerbatimUrl,
};

struct Pep508Rs;

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
        .map_err(|e| format!("pep508_rs cannot build this environment: {e}"))
}

impl Peer for Pep508Rs {
    const NAME: &'static str = "pep508_rs";
    const VERSION: &'static str = "0.9.2";
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
        let m = if r.kind == "requirement" {
            match Requirement::<VerbatimUrl>::from_str(&r.input) {
                Ok(req) => req.marker,
                Err(e) => return EvalAnswer::Invalid(e.to_string()),
            }
        } else {
            match MarkerTree::from_str(&r.input) {
                Ok(m) => m,
                Err(e) => return EvalAnswer::Invalid(e.to_string()),
            }
        };
        let env = match environment(r) {
            Ok(env) => env,
            Err(e) => return EvalAnswer::Skip(e),
        };
        let extras: Result<Vec<ExtraName>, _> =
            r.extras.iter().map(|s| ExtraName::from_str(s)).collect();
        let Ok(extras) = extras else {
            return EvalAnswer::Skip("an extra name pep508_rs rejects".into());
        };
        EvalAnswer::Result(m.evaluate(&env, &extras))
    }
}

fn main() {
    run::<Pep508Rs>();
}
