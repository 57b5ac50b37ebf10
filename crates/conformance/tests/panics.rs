//! An implementation that panics: each panic is a crash of its case, with the message and the
//! location, and the panic hook the program had before stays silent for those panics but still
//! sees every other panic. One test in its own binary: the panic hook is global to the process.

use std::panic;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use markerspec_conformance::{
    Cases, Dialect, Evaluated, Implementation, Parsed, Profile, Request, Runner, Status, TestResult,
};

struct Panics;

impl Implementation for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn supports(&self, profile: Profile, dialect: Dialect) -> bool {
        profile == Profile::Packaging && dialect == Dialect::Pep508
    }
    fn parse(&mut self, r: &Request<'_>) -> TestResult<Parsed> {
        if r.input().contains(" and ") {
            panic!("no `and` here: {}", r.input());
        }
        TestResult::Ok(Parsed::Valid { canonical: None })
    }
    fn evaluate(&mut self, _: &Request<'_>) -> TestResult<Evaluated> {
        TestResult::Skip("parsing only".into())
    }
}

#[test]
fn panics_are_crashes_and_the_previous_hook_sees_only_the_others() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    panic::set_hook(Box::new(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));

    let report = Runner::new()
        .include("marker-syntax")
        .run(&Cases::all(), &mut Panics);
    let crashes: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.status == Status::Crash)
        .collect();
    assert!(crashes.len() > 10, "only {} crashes", crashes.len());
    let why = crashes[0].message().expect("a crash has a message");
    assert!(why.starts_with("panicked at "), "{why}");
    assert!(why.contains("tests/panics.rs:"), "{why}");
    assert!(why.contains("no `and` here: "), "{why}");
    assert!(crashes[0].cause().starts_with("crash: panicked at "));
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the hook saw a guarded panic"
    );

    // A panic outside the runner still reaches the program's hook.
    let outside = panic::catch_unwind(|| panic!("outside"));
    assert!(outside.is_err());
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    let _ = panic::take_hook();
}
