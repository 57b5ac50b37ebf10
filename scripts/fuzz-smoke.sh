#!/usr/bin/env bash
# Fuzz smoke for CI: builds every cargo-fuzz target, replays the committed regressions, then
# runs each target from the seed corpus for a short time. Exits non-zero when any target
# crashes, panics, overflows its stack, exceeds its time guard or libFuzzer's timeout, runs out
# of memory, or a regression fails.
#
# Needs only rustup with the stable and nightly toolchains (and a C/C++ compiler, for
# libFuzzer); installs cargo-fuzz when it is missing. On 2 cores, from nothing: about 1 minute
# to install cargo-fuzz, 2-3 to build, then FUZZ_SMOKE_SECONDS per target, two at a time.
#
# Environment:
#   FUZZ_SMOKE_SECONDS   seconds per target (default 20)
#   FUZZ_SMOKE_TARGETS   space-separated targets (default: all, from `cargo fuzz list`)
#   FUZZ_SMOKE_JOBS      targets fuzzed at once (default 2)
#   FUZZ_SMOKE_MAX_LEN   libFuzzer -max_len (default 4096)
#   FUZZ_SMOKE_SEED      0 to start from an empty corpus instead of fuzz/seed.sh's seeds
#   FUZZ_SMOKE_WORKDIR   where corpora, logs and crash artifacts go (default: a temporary
#                        directory, removed on success and kept on failure)
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${FUZZ_SMOKE_SECONDS:-20}"
jobs="${FUZZ_SMOKE_JOBS:-2}"
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
bin_dir="fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"

targets="${FUZZ_SMOKE_TARGETS:-$(cargo +nightly fuzz list)}"

if [ "${FUZZ_SMOKE_SEED:-1}" != 0 ]; then
    echo "== seeding"
    fuzz/seed.sh "$workdir/corpus" >"$workdir/seed.log"
fi

# One target: regressions, then fuzzing. Writes "ok <executions>" or "FAILED <why>" to
# $workdir/<target>.status; never exits non-zero itself.
run_target() {
    local target="$1" bin="$bin_dir/$1"
    local corpus="$workdir/corpus/$target" artifacts="$workdir/artifacts/$target"
    local log="$workdir/$target.log" status=0 f
    mkdir -p "$corpus" "$artifacts"

    # Reproducers of fixed bugs must pass; those under open/ are only reported.
    local regressions=()
    if [ -d "fuzz/regressions/$target" ]; then
        while IFS= read -r -d '' f; do regressions+=("$f"); done < <(
            find "fuzz/regressions/$target" -maxdepth 1 -type f ! -name '*.md' -print0 | sort -z)
    fi
    if [ "${#regressions[@]}" -gt 0 ] &&
        ! "$bin" -runs=1 -timeout=10 -artifact_prefix="$artifacts/" "${regressions[@]}" \
            >"$workdir/$target.regressions.log" 2>&1; then
        echo "FAILED a committed regression (see $workdir/$target.regressions.log)" \
            >"$workdir/$target.status"
        return 0
    fi
    if [ -d "fuzz/regressions/$target/open" ]; then
        for f in "fuzz/regressions/$target/open"/*; do
            [ -f "$f" ] || continue
            case "$f" in *.md) continue ;; esac
            if MARKERSPEC_FUZZ_STRICT=1 "$bin" -runs=1 -timeout=10 \
                -artifact_prefix="$workdir/open-" "$f" >/dev/null 2>&1; then
                echo "   note: open regression $f passes now; move it up to fuzz/regressions/$target/"
            else
                echo "   note: open regression $f still fails (a known bug)"
            fi
        done
    fi

    "$bin" "$corpus" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
        -rss_limit_mb=2048 -dict=fuzz/markers.dict -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
    local runs
    runs="$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n 1)"
    if [ "$status" -ne 0 ]; then
        echo "FAILED (exit $status) after ${runs:-?} executions" >"$workdir/$target.status"
    else
        echo "ok, ${runs:-?} executions in ${seconds}s" >"$workdir/$target.status"
    fi
}

echo "== fuzzing each target for ${seconds}s, $jobs at a time"
running=0
for target in $targets; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    echo "   $target"
    run_target "$target" &
    running=$((running + 1))
done
wait || true

failed=()
echo "== summary"
for target in $targets; do
    status="$(cat "$workdir/$target.status" 2>/dev/null || echo "FAILED (no status)")"
    echo "   $target: $status"
    case "$status" in
    ok*) ;;
    *)
        failed+=("$target")
        echo "!! the end of $target's log:"
        tail -n 60 "$workdir/$target.log" 2>/dev/null || true
        for a in "$workdir/artifacts/$target"/*; do
            [ -f "$a" ] || continue
            echo "!! reproducer $a ($(wc -c <"$a") bytes), as hex:"
            od -A x -t x1z -v "$a" | head -n 20
        done
        ;;
    esac
done

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
