//! The memory a parsed requirement holds in markerspec, uv-pep508 and pep508_rs: live heap
//! bytes after parsing every line of a file, per requirement, plus the value's inline size.
//! Prints one line, `OURS UV RS` (bytes), which `markerspec-compare` reads into its table.
//!
//! ```text
//! cargo run --release --manifest-path benches/compare/Cargo.toml --bin compare-memory [-- FILE]
//! ```
//!
//! A binary of its own: the counting allocator ([`cap::Cap`]) adds an atomic update to every
//! allocation, which the timed runs of `markerspec-compare` (two threads among them) must not
//! share.

use std::alloc::System;

#[path = "../peers.rs"]
mod peers;

#[global_allocator]
static ALLOCATOR: cap::Cap<System> = cap::Cap::new(System, usize::MAX);

/// Live heap bytes held by what `f` returns, per element, plus its inline size.
fn held<T>(f: impl FnOnce() -> Vec<T>) -> f64 {
    let before = ALLOCATOR.allocated();
    let v = f();
    let heap = ALLOCATOR.allocated() as f64 - before as f64;
    let per = (heap - (v.capacity() * std::mem::size_of::<T>()) as f64) / v.len() as f64
        + std::mem::size_of::<T>() as f64;
    drop(v);
    per
}

fn main() {
    let file = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/requires-dist-gpu-stack.txt"
        )
        .to_string()
    });
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let ours = held(|| peers::ours(&lines));
    let uv = held(|| peers::uv(&lines));
    let rs = held(|| peers::rs(&lines));
    println!("{ours:.0} {uv:.0} {rs:.0}");
}
