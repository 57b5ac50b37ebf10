#!/usr/bin/env python3
"""Times `markerspec eval --env ENV -` and `markerspec parse -` (or, with `--commands`,
`markerspec simplify -` and `markerspec compare -`) whole-process against `uv-loop` (the same
loop over uv-pep508,
src/bin/uv-loop.rs), side by side, interleaved, and prints medians and ratios as a Markdown
table (BENCHMARKS.md, "Whole process").

Before timing, it runs each pair once and checks that they answer alike: the same `true` /
`false` on every line for `eval`, and the same lines accepted and rejected for `parse` and
`simplify` (the printed forms and error messages differ by design). It exits 1 when they do
not.

    python3 benches/compare/whole_process.py \\
        --markerspec target/release/markerspec --uv-loop target/compare/release/uv-loop \\
        [--env spec/environments/linux-x86_64-cpython-3.12.json] [--input FILE] \\
        [--commands eval,parse] [--repeat 100] [--runs 7] [--startup-runs 51] \\
        [-- EXTRA MARKERSPEC ARGS, e.g. --profile uv]

`--commands simplify` (and `compare`) reads the lock-file markers
(crates/algebra/tests/data/lock-markers.txt) unless `--input` says otherwise. `compare` is given
pairs `A<TAB>B` of the input's lines: every consecutive pair, then as many drawn with a fixed
seed; its answers (relation words) may differ where the two model markers differently (uv's
release-only versions, its own theory: spec/DIVERGENCES-ALGEBRA.md), so only the lines each
rejects must agree, and the number of differing words is printed.

`--uv-loop` defaults to the `uv-loop` under `$COMPARE_TARGET_DIR` when that is set (the
`--target-dir` the comparison workspace was built with), else under `target/compare`.

Besides the medians of each command, it prints the median of the pair-by-pair ratios (each run
of uv-loop divided by the markerspec run next to it), which holds when the machine's speed
drifts between runs, and the start-up cost: each command with an empty stdin.
"""

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(cmd, stdin_path):
    """Runs `cmd` with the file on stdin and its stdout read through a pipe; returns
    (wall seconds, CPU seconds of the child, stdout bytes)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(stdin_path, "rb") as f:
        p = subprocess.run(cmd, stdin=f, stdout=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}")
    return wall, cpu, p.stdout


def agree(mode, ours, peer):
    """Lines on which the two answers differ (for `parse`: in acceptance only)."""
    a = ours.decode("utf-8", "replace").splitlines()
    b = peer.decode("utf-8", "replace").splitlines()
    if len(a) != len(b):
        return [f"{len(a)} answers against {len(b)}"]
    bad = []
    for i, (x, y) in enumerate(zip(a, b), 1):
        ex, ey = x.startswith("error:"), y.startswith("error:")
        if mode == "eval" and not ex and not ey and x != y:
            bad.append(f"line {i}: markerspec {x!r}, uv-pep508 {y!r}")
        elif ex != ey:
            bad.append(f"line {i}: markerspec {x!r}, uv-pep508 {y!r}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markerspec", default=str(ROOT / "target/release/markerspec"))
    compare_target = Path(os.environ.get("COMPARE_TARGET_DIR") or ROOT / "target/compare")
    ap.add_argument("--uv-loop", default=str(compare_target / "release/uv-loop"))
    ap.add_argument("--env", default=str(ROOT / "spec/environments/linux-x86_64-cpython-3.12.json"))
    ap.add_argument("--input", default=None,
                    help="one line per requirement or marker (default: the Requires-Dist corpus, "
                         "or the lock-file markers for `--commands simplify`)")
    ap.add_argument("--commands", default="eval,parse",
                    help="comma-separated: eval, parse, simplify, compare")
    ap.add_argument("--repeat", type=int, default=100, help="copies of the input on stdin")
    ap.add_argument("--runs", type=int, default=7, help="timed runs of each command")
    ap.add_argument("--startup-runs", type=int, default=51,
                    help="runs of each command with an empty stdin (0: none)")
    ap.add_argument("extra", nargs="*", help="more arguments for markerspec (after --)")
    args = ap.parse_args()
    commands = [c for c in args.commands.split(",") if c]
    if args.input is None:
        if set(commands) <= {"simplify", "compare"}:
            args.input = str(ROOT / "crates/algebra/tests/data/lock-markers.txt")
        else:
            args.input = str(ROOT / "tests/data/requires-dist-gpu-stack.txt")

    text = Path(args.input).read_bytes()
    if not text.endswith(b"\n"):
        text += b"\n"
    markers = [l for l in text.splitlines() if l.strip()]
    rng = random.Random(2026)
    drawn = [(rng.randrange(len(markers)), rng.randrange(len(markers))) for _ in markers]
    pair_text = b"".join(markers[i] + b"\t" + markers[j] + b"\n"
                         for i, j in [(i - 1, i) for i in range(1, len(markers))] + drawn)
    inputs = {}
    for name, body in (("lines", text), ("pairs", pair_text)):
        with tempfile.NamedTemporaryFile(prefix=f"whole-process-{name}-", suffix=".txt",
                                         delete=False) as f:
            f.write(body * args.repeat)
            inputs[name] = f.name
    stdin_of = {mode: inputs["pairs" if mode == "compare" else "lines"] for mode in commands}
    lines = {mode: (pair_text if mode == "compare" else text).count(b"\n") * args.repeat
             for mode in commands}
    try:
        every = {
            "eval": ([args.markerspec, "eval", *args.extra, "--env", args.env, "-"],
                     [args.uv_loop, "eval", "--env", args.env, "-"]),
            "parse": ([args.markerspec, "parse", *args.extra, "-"], [args.uv_loop, "parse", "-"]),
            "simplify": ([args.markerspec, "simplify", *args.extra, "-"],
                         [args.uv_loop, "simplify", "-"]),
            "compare": ([args.markerspec, "compare", *args.extra, "-"],
                        [args.uv_loop, "compare", "-"]),
        }
        unknown = [c for c in commands if c not in every]
        if unknown:
            raise SystemExit(f"unknown command(s) {', '.join(unknown)}: expected eval, parse, simplify, compare")
        pairs = {c: every[c] for c in commands}
        failed = False
        differing = {}
        for mode, (ours, peer) in pairs.items():
            a, b = run(ours, stdin_of[mode])[2], run(peer, stdin_of[mode])[2]
            differing[mode] = sum(x != y for x, y in zip(a.splitlines(), b.splitlines()))
            bad = agree(mode, a, b)
            if bad:
                failed = True
                print(f"{mode}: {len(bad)} lines answered differently", file=sys.stderr)
                for b in bad[:10]:
                    print(f"  {b}", file=sys.stderr)
        if failed:
            sys.exit(1)
        times = {(mode, who): ([], []) for mode in pairs for who in (0, 1)}
        for _ in range(args.runs):
            for mode, cmds in pairs.items():
                for who, cmd in enumerate(cmds):
                    wall, cpu, _ = run(cmd, stdin_of[mode])
                    times[(mode, who)][0].append(wall)
                    times[(mode, who)][1].append(cpu)
        empty = inputs["lines"] + ".empty"
        Path(empty).write_bytes(b"")
        start = {(mode, who): ([], []) for mode in pairs for who in (0, 1)}
        try:
            for _ in range(args.startup_runs):
                for mode, cmds in pairs.items():
                    for who, cmd in enumerate(cmds):
                        wall, cpu, _ = run(cmd, empty)
                        start[(mode, who)][0].append(wall)
                        start[(mode, who)][1].append(cpu)
        finally:
            os.unlink(empty)
    finally:
        for path in inputs.values():
            os.unlink(path)

    med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}

    def pair_ratio(t, mode, i):
        """The median over runs of uv-loop's figure over markerspec's, run next to each other."""
        return statistics.median(b / a for a, b in zip(t[(mode, 0)][i], t[(mode, 1)][i]) if a > 0)

    for mode in pairs:
        what = "pairs of lines of" if mode == "compare" else "lines of"
        print(f"`{mode} -`: {lines[mode]} {what} {Path(args.input).name} (x{args.repeat}) on stdin", end="")
        print(f"; {differing[mode] * args.repeat} answered differently" if mode == "compare" else "")
    print(f"{args.runs} interleaved runs, medians")
    print()
    print("| command | markerspec | uv-loop (uv-pep508) | ratio of medians | median of pair ratios |")
    print("| --- | --- | --- | --- | --- |")
    for mode in pairs:
        (w0, c0), (w1, c1) = med[(mode, 0)], med[(mode, 1)]
        rw, rc = pair_ratio(times, mode, 0), pair_ratio(times, mode, 1)
        print(f"| `{mode} -` wall | {w0 * 1e3:.1f} ms | {w1 * 1e3:.1f} ms | {w1 / w0:.2f}x | {rw:.2f}x |")
        print(f"| `{mode} -` CPU | {c0 * 1e3:.1f} ms | {c1 * 1e3:.1f} ms | {c1 / c0:.2f}x | {rc:.2f}x |")
    if args.startup_runs:
        print()
        print(f"Start-up: empty stdin, {args.startup_runs} interleaved runs, medians")
        print()
        print("| command | markerspec wall | markerspec CPU | uv-loop wall | uv-loop CPU |")
        print("| --- | --- | --- | --- | --- |")
        for mode in pairs:
            m0 = [statistics.median(x) * 1e3 for x in start[(mode, 0)]]
            m1 = [statistics.median(x) * 1e3 for x in start[(mode, 1)]]
            print(f"| `{mode} -` | {m0[0]:.2f} ms | {m0[1]:.2f} ms | {m1[0]:.2f} ms | {m1[1]:.2f} ms |")


if __name__ == "__main__":
    main()
