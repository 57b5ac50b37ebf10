#!/usr/bin/env bash
# Fuzz smoke for CI: builds every cargo-fuzz target, replays the committed regressions, then
# runs each target from the seed corpus for a short time. Exits non-zero when any target
# crashes, panics, overflows its stack, times out or runs out of memory, or a regression fails.
#
# Needs only rustup with the stable and nightly toolchains (and a C/C++ compiler for libFuzzer);
# installs cargo-fuzz when it is missing. About 3 minutes of building plus
# FUZZ_SMOKE_SECONDS per target on 2 cores.
#
# Environment:
#   FUZZ_SMOKE_SECONDS   seconds per target (default 20)
#   FUZZ_SMOKE_TARGETS   space-separated targets (default: all, from `cargo fuzz list`)
#   FUZZ_SMOKE_MAX_LEN   libFuzzer -max_len (default 4096)
#   FUZZ_SMOKE_SEED      0 to start from an empty corpus instead of fuzz/seed.sh's seeds
#   FUZZ_SMOKE_WORKDIR   where corpora and crash artifacts go (default: a temporary directory,
#                        kept when something fails)
set -euo pipefail

cd "$(dirname "$0")/.."
repo="$(pwd)"
seconds="${FUZZ_SMOKE_SECONDS:-20}"
max_len="${FUZZ_SMOKE_MAX_LEN:-4096}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "== installing the nightly toolchain"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

workdir="${FUZZ_SMOKE_WORKDIR:-$(mktemp -d -t markerspec-fuzz-smoke.XXXXXX)}"
mkdir -p "$workdir"
echo "== work directory: $workdir"

echo "== cargo fuzz build"
cargo +nightly fuzz build

targets="${FUZZ_SMOKE_TARGETS:-$(cargo +nightly fuzz list)}"

if [ "${FUZZ_SMOKE_SEED:-1}" != 0 ]; then
    echo "== seeding"
    fuzz/seed.sh "$workdir/corpus"
fi

failed=()
summary=()
for target in $targets; do
    corpus="$workdir/corpus/$target"
    artifacts="$workdir/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"

    # Committed reproducers of fixed bugs must pass; those under open/ are reported only.
    regressions=()
    if [ -d "fuzz/regressions/$target" ]; then
        while IFS= read -r -d '' f; do regressions+=("$f"); done < <(
            find "fuzz/regressions/$target" -maxdepth 1 -type f ! -name '*.md' -print0 | sort -z)
    fi
    if [ "${#regressions[@]}" -gt 0 ]; then
        echo "== $target: ${#regressions[@]} regression input(s)"
        if ! cargo +nightly fuzz run "$target" "${regressions[@]}" -- \
            -runs=1 -timeout=10 -artifact_prefix="$artifacts/" >"$workdir/$target.regressions.log" 2>&1; then
            tail -n 40 "$workdir/$target.regressions.log"
            failed+=("$target (regression)")
        fi
    fi
    if [ -d "fuzz/regressions/$target/open" ]; then
        for f in "fuzz/regressions/$target/open"/*; do
            [ -f "$f" ] || continue
            case "$f" in *.md) continue ;; esac
            if cargo +nightly fuzz run "$target" "$f" -- -runs=1 -timeout=10 \
                -artifact_prefix="$workdir/open-" >/dev/null 2>&1; then
                echo "   note: open regression $f passes now; move it up to fuzz/regressions/$target/"
            else
                echo "   note: open regression $f still fails (known bug)"
            fi
        done
    fi

    echo "== $target: fuzzing for ${seconds}s"
    log="$workdir/$target.log"
    status=0
    cargo +nightly fuzz run "$target" "$corpus" -- \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -dict=fuzz/markers.dict -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
    runs="$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n 1)"
    if [ "$status" -ne 0 ]; then
        echo "!! $target failed (exit $status); the end of its log:"
        tail -n 60 "$log"
        for a in "$artifacts"/*; do
            [ -f "$a" ] || continue
            echo "!! reproducer $a ($(wc -c <"$a") bytes), as hex:"
            od -A x -t x1z -v "$a" | head -n 20
        done
        failed+=("$target")
        summary+=("$target: FAILED after ${runs:-?} executions")
    else
        summary+=("$target: ok, ${runs:-?} executions in ${seconds}s")
    fi
done

echo "== summary"
printf '   %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "!! failed: ${failed[*]}"
    echo "!! logs, corpora and artifacts are in $workdir"
    echo "!! replay one with: cargo +nightly fuzz run <target> <artifact>"
    exit 1
fi
if [ -z "${FUZZ_SMOKE_WORKDIR:-}" ]; then
    rm -rf "$workdir"
fi
echo "== fuzz smoke passed"
