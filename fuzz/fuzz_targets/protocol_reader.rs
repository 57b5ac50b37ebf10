//! Bytes → one adapter-protocol line (spec/PROTOCOL.md, `markerspec-adapter/1`) → the runner's
//! readers of handshakes, parse responses and evaluate responses.
//!
//! Checks: no panic on any line an adapter could write, and a reader either accepts the line or
//! says why in a non-empty message, so that a lying adapter is reported, never fatal.

#![no_main]

use libfuzzer_sys::fuzz_target;
use markerspec_conformance::protocol::{Hello, evaluate_response, parse_response};

fuzz_target!(|data: &[u8]| {
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Err(why) = Hello::from_json(&value) {
        assert!(!why.is_empty());
    }
    if let Err(why) = parse_response(&value) {
        assert!(!why.is_empty());
    }
    if let Err(why) = evaluate_response(&value) {
        assert!(!why.is_empty());
    }
});
