#!/usr/bin/env bash
# Writes the seed corpora into fuzz/corpus/<target>/ (git-ignored) from the repository's test
# data; see fuzz/examples/seed.rs for what goes where. Reproducible: the same data gives the
# same files. Usage: fuzz/seed.sh [CORPUS_DIR]   (default: fuzz/corpus)
set -euo pipefail
fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$fuzz_dir")"
corpus="${1:-$fuzz_dir/corpus}"
# The example needs no sanitizer and no optimisation (a debug build compiles fastest); it
# uses the toolchain cargo-fuzz uses.
cargo +nightly run --quiet --manifest-path "$fuzz_dir/Cargo.toml" \
    --target-dir "$fuzz_dir/target/seed" --example seed -- "$repo" "$corpus"
