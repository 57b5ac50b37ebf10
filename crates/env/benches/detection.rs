//! Detection benchmarks (filled in below).

fn main() {}
