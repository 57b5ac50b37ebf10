//! Bytes → UTF-8 → `Requirement::parse_with` in both dialects and every behaviour profile,
//! with and without lock-file context (`markerspec_fuzz::configs`).
//!
//! Checks: no panic; errors have a span inside the input on character boundaries, a known
//! code and a rendering; on success `parse(display(r)) == r` and display is idempotent; the
//! dialects agree on every requirement whose marker reads only standard fields, and lock-file
//! context only adds; linear CPU time.

#![no_main]

use libfuzzer_sys::fuzz_target;
use markerspec_fuzz::{
    Config, MAX_INPUT, check_configs, check_error, check_warnings, configs, known_marker_bug,
    options, reads_extended_field, within_budget,
};
use markerspec_pep508::Requirement;

fn parse(text: &str, config: Config) -> Option<Requirement> {
    let opts = options(config);
    let mut warnings = Vec::new();
    let result = Requirement::parse_with(text, &opts, &mut warnings);
    check_warnings(&warnings, text);
    match result {
        Ok(req) => {
            let shown = req.to_string();
            if req
                .marker()
                .is_some_and(|m| known_marker_bug(m, config).is_some())
            {
                return Some(req);
            }
            let again =
                Requirement::parse_with(&shown, &opts, &mut Vec::new()).unwrap_or_else(|e| {
                    panic!("{config}: {text:?} displays as {shown:?}, which fails: {e:?}")
                });
            assert_eq!(
                req, again,
                "{config}: {text:?} displays as {shown:?}, which parses to another requirement"
            );
            assert_eq!(
                again.to_string(),
                shown,
                "{config}: display is not idempotent for {text:?}"
            );
            Some(req)
        }
        Err(err) => {
            check_error(&err, text);
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let configs = configs();
    // Every configuration parses, prints and reparses the input: budget each pass.
    within_budget("parse_requirement", data.len() * configs.len(), || {
        let results: Vec<_> = configs.iter().map(|&config| parse(text, config)).collect();
        check_configs(text, &configs, &results, |r: &Requirement| {
            r.marker().is_some_and(reads_extended_field)
        });
    });
});
