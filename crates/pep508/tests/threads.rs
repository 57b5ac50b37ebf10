//! No global state: every value is `Send + Sync`, and parsing and evaluating on several threads
//! at once gives each thread the answers it gets alone.

use markerspec_pep508::{
    Environment, Error, Evaluation, Field, MarkerTree, ParseOptions, Requirement, Truth,
};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn values_are_send_and_sync() {
    assert_send_sync::<Requirement>();
    assert_send_sync::<MarkerTree>();
    assert_send_sync::<Environment>();
    assert_send_sync::<Error>();
    assert_send_sync::<ParseOptions>();
}

#[test]
fn threads_agree_with_one_thread() {
    let lines: Vec<&str> = include_str!("../../../tests/data/requires-dist-gpu-stack.txt")
        .lines()
        .collect();
    let env = Environment::new()
        .with_unchecked(Field::PythonVersion, "3.12")
        .with_unchecked(Field::PythonFullVersion, "3.12.7")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformMachine, "x86_64")
        .with_unchecked(Field::PlatformSystem, "Linux")
        .with_unchecked(Field::PlatformPythonImplementation, "CPython");
    // The whole answer: the printed requirement and the marker's three-valued result, or its
    // error code, so that a thread that fails where another succeeds cannot look the same.
    let answer = |l: &str| -> (String, Option<Result<Evaluation, &'static str>>) {
        let r: Requirement = l.parse().unwrap();
        let applies = r
            .marker()
            .map(|m| m.evaluate_tristate(&env).map_err(|e| e.code()));
        (r.to_string(), applies)
    };
    let alone: Vec<_> = lines.iter().map(|l| answer(l)).collect();
    // The corpus exercises every outcome, so agreement means something.
    let count = |t: Truth| {
        alone
            .iter()
            .filter(|(_, a)| matches!(a, Some(Ok(e)) if e.truth == t))
            .count()
    };
    assert!(count(Truth::True) > 0, "no marker holds");
    assert!(count(Truth::False) > 0, "every marker holds");
    assert!(
        alone.iter().all(|(_, a)| !matches!(a, Some(Err(_)))),
        "a spec-2026 marker that parses evaluates without error"
    );
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| lines.iter().map(|l| answer(l)).collect::<Vec<_>>()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), alone);
        }
    });
}
