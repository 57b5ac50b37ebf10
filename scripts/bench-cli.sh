#!/usr/bin/env bash
# Whole-process timings of the command line (BENCHMARKS.md, "The command line, whole process").
#
#   scripts/bench-cli.sh [BASELINE_BINARY]
#
# Builds the release binary, makes the corpus x100 (94,800 lines), and times each command RUNS
# times (default 7), interleaved with BASELINE_BINARY's when one is given, printing the median
# CPU (user + system) and wall seconds of each. Output goes to a file, not a terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
cargo build --release -p markerspec-cli >&2
new=target/release/markerspec
old=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in $(seq 100); do cat tests/data/requires-dist-gpu-stack.txt; done >"$work/corpus100.txt"
env=spec/environments/linux-x86_64-cpython-3.12.json

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# time_one LABEL CMD...: appends "cpu wall" to $work/LABEL
time_one() {
    local label=$1
    shift
    local t0 t1 cpu
    t0=$(date +%s.%N)
    cpu=$( { /usr/bin/env TIMEFORMAT='%U %S' bash -c 'time "$@" <"'"$work"'/corpus100.txt" >"'"$work"'/out" 2>/dev/null' _ "$@"; } 2>&1 | awk '{print $1 + $2}')
    t1=$(date +%s.%N)
    echo "$cpu $(echo "$t1 - $t0" | bc | awk '{printf "%.3f", $1}')" >>"$work/$label"
}

report() {
    local label=$1
    printf '%-28s cpu %6ss  wall %6ss\n' "$label" \
        "$(cut -d' ' -f1 "$work/$label" | median)" "$(cut -d' ' -f2 "$work/$label" | median)"
}

for _ in $(seq "$RUNS"); do
    time_one eval-jobs1 "$new" eval --jobs 1 --env "$env" -
    time_one eval-jobs2 "$new" eval --jobs 2 --env "$env" -
    time_one parse-jobs1 "$new" parse --jobs 1 -
    if [ -n "$old" ]; then
        time_one baseline-eval "$old" eval --env "$env" -
        time_one baseline-parse "$old" parse -
    fi
done
for label in eval-jobs1 eval-jobs2 parse-jobs1 baseline-eval baseline-parse; do
    [ -f "$work/$label" ] && report "$label"
done
