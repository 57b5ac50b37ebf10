#!/usr/bin/env python3
"""Differential-test oracle: record what pypa/packaging does with PEP 508 input.

For every input string, and for each kind (``requirement`` via
``packaging.requirements.Requirement``, ``marker`` via
``packaging.markers.Marker``), write one JSON record holding the parse result
(or the error packaging raised) and, when a marker is present, the result of
evaluating it against every environment fixture in ``spec/environments`` under
a fixed list of evaluation configurations (see ``CONFIGS``).

Input file format (one input per line, UTF-8):
  * a line is taken verbatim (only the terminating ``\\n`` is removed);
  * a line starting with ``#!json `` holds a JSON string literal after that
    prefix; the decoded string is the input. Used for inputs containing
    newlines, carriage returns, other control characters, trailing whitespace,
    or the empty string.

Output: one JSON document, ``{"meta": {...}, "records": [...]}``, one record per
line, keys sorted, so regenerating with the same packaging version is
byte-identical. With ``--max-bytes`` the records are split over
``<stem>.part-NN.json`` files, each a complete document of the same shape.

Usage:
  python scripts/oracle/pep508_oracle.py INPUT.txt OUTPUT.json
      [--environments spec/environments] [--max-bytes 8000000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

import packaging
from packaging.markers import Marker
from packaging.requirements import Requirement

EXPECTED_PACKAGING = "26.4"
JSON_PREFIX = "#!json "

# Evaluation configurations. Each is (name, context, overrides applied on top of
# the environment fixture). "default" is Marker.evaluate(fixture) with the
# default "metadata" context, in which packaging sets extra="" itself.
CONFIGS: list[tuple[str, str, dict]] = [
    ("default", "metadata", {}),
    ("extra=test", "metadata", {"extra": "test"}),
    ("extra=", "metadata", {"extra": ""}),
    ("extra={cuda,test}", "metadata", {"extra": frozenset({"cuda", "test"})}),
    (
        "lock_file",
        "lock_file",
        {"extras": frozenset({"cuda"}), "dependency_groups": frozenset({"dev"})},
    ),
    ("requirement", "requirement", {}),
]

KINDS = ("requirement", "marker")


def read_inputs(path: Path) -> list[str]:
    data = path.read_bytes().decode("utf-8")
    if data.endswith("\n"):
        data = data[:-1]
    if data == "":
        return []
    out = []
    for line in data.split("\n"):
        if line.startswith(JSON_PREFIX):
            value = json.loads(line[len(JSON_PREFIX) :])
            if not isinstance(value, str):
                raise SystemExit(f"{path}: {JSON_PREFIX!r} line is not a string: {line!r}")
            out.append(value)
        else:
            out.append(line)
    return out


def encode_input_line(s: str) -> str:
    """Inverse of read_inputs for one input (used by the generators)."""
    needs_json = (
        s == ""
        or s.startswith(JSON_PREFIX.rstrip())
        or s != s.rstrip(" \t")
        or any(ord(c) < 0x20 and c != "\t" for c in s)
        or any(0x7F <= ord(c) < 0xA0 for c in s)
        or "\u2028" in s
        or "\u2029" in s
        or "\ufeff" in s
    )
    if needs_json:
        return JSON_PREFIX + json.dumps(s, ensure_ascii=True)
    return s


def load_environments(directory: Path) -> dict[str, dict]:
    envs = {}
    for p in sorted(directory.glob("*.json")):
        raw = json.loads(p.read_text(encoding="utf-8"))
        env = {}
        for k, v in raw.items():
            env[k] = frozenset(v) if isinstance(v, list) else v
        envs[p.stem] = env
    if not envs:
        raise SystemExit(f"no environment fixtures in {directory}")
    return envs


def error_obj(e: BaseException, with_span: bool = True) -> dict:
    msg = str(e)
    # KeyError subclasses (UndefinedEnvironmentName) print repr(key); keep the
    # raw argument too so the record does not depend on KeyError.__str__.
    first = msg.split("\n", 1)[0]
    out = {"type": type(e).__name__, "message": first}
    if with_span:
        span = getattr(e, "span", None)
        out["span"] = list(span) if span is not None else None
    return out


def safe_str(obj) -> tuple[str | None, dict | None]:
    try:
        return str(obj), None
    except Exception as e:  # e.g. ValueError: value holding both quote kinds
        return None, error_obj(e, with_span=False)


def evaluate_all(marker: Marker, envs: dict[str, dict]) -> dict:
    result: dict[str, dict] = {}
    for env_name, env in envs.items():
        per = {}
        for cfg_name, context, overrides in CONFIGS:
            environment = dict(env)
            environment.update(overrides)
            try:
                per[cfg_name] = bool(marker.evaluate(environment, context=context))
            except Exception as e:
                per[cfg_name] = {"error": type(e).__name__, "message": error_message(e)}
        result[env_name] = per
    return result


def error_message(e: BaseException) -> str:
    if isinstance(e, KeyError) and len(e.args) == 1:
        # UndefinedEnvironmentName('foo'): str() would be "'foo'".
        return str(e.args[0])
    return str(e).split("\n", 1)[0]


def roundtrip(kind: str, canonical: str | None) -> bool | None:
    """Does str() of the parsed object parse again to the same str()?"""
    if canonical is None:
        return None
    try:
        again = Requirement(canonical) if kind == "requirement" else Marker(canonical)
        return str(again) == canonical
    except Exception:
        return False


def record(s: str, kind: str, envs: dict[str, dict]) -> dict:
    rec: dict = {
        "input": s,
        "kind": kind,
        "ok": False,
        "canonical": None,
        "canonical_error": None,
        "roundtrip": None,
        "name": None,
        "extras": None,
        "specifier": None,
        "url": None,
        "marker": None,
        "error": None,
        "eval": None,
    }
    try:
        obj = Requirement(s) if kind == "requirement" else Marker(s)
    except Exception as e:
        rec["error"] = error_obj(e)
        return rec

    rec["ok"] = True
    rec["canonical"], rec["canonical_error"] = safe_str(obj)
    rec["roundtrip"] = roundtrip(kind, rec["canonical"])
    marker: Marker | None
    if kind == "requirement":
        rec["name"] = obj.name
        # Requirement.extras is a set of the spellings as written (no
        # normalisation, exact duplicates collapse); sorted here for stability.
        rec["extras"] = sorted(obj.extras)
        rec["specifier"] = str(obj.specifier)
        rec["url"] = obj.url
        marker = obj.marker
        if marker is not None:
            rec["marker"], _ = safe_str(marker)
    else:
        marker = obj
        rec["marker"] = rec["canonical"]
    if marker is not None:
        rec["eval"] = evaluate_all(marker, envs)
    return rec


def dump_record(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def write_documents(out: Path, meta: dict, lines: list[str], max_bytes: int | None) -> list[Path]:
    def doc(chunk: list[str], part: dict | None) -> str:
        m = dict(meta)
        if part is not None:
            m["part"] = part
        head = '{"meta":' + json.dumps(m, sort_keys=True, ensure_ascii=False) + ',"records":['
        if not chunk:
            return head + "]}\n"
        return head + "\n" + ",\n".join(chunk) + "\n]}\n"

    for old in out.parent.glob(out.stem + ".part-*.json"):
        old.unlink()
    whole = doc(lines, None)
    if max_bytes is None or len(whole.encode("utf-8")) <= max_bytes:
        out.write_text(whole, encoding="utf-8")
        return [out]

    chunks: list[list[str]] = [[]]
    size = 0
    budget = max_bytes - 4096
    for line in lines:
        n = len(line.encode("utf-8")) + 2
        if chunks[-1] and size + n > budget:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += n
    if out.exists():
        out.unlink()
    paths = []
    for i, chunk in enumerate(chunks, 1):
        p = out.with_name(f"{out.stem}.part-{i:02d}.json")
        p.write_text(doc(chunk, {"index": i, "count": len(chunks)}), encoding="utf-8")
        paths.append(p)
    return paths


def ensure_fixed_hash_seed() -> None:
    """Error messages embed reprs of sets (e.g. ``frozenset({'cuda', 'test'})``)
    whose order depends on string hashing; pin it so output is reproducible."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        ensure_fixed_hash_seed()
    here = Path(__file__).resolve().parent
    repo = here.parent.parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--environments", type=Path, default=repo / "spec" / "environments")
    ap.add_argument("--max-bytes", type=int, default=8_000_000)
    ap.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="comma-separated subset of: requirement,marker (default: both)",
    )
    ap.add_argument("--allow-other-packaging", action="store_true")
    args = ap.parse_args(argv)

    if packaging.__version__ != EXPECTED_PACKAGING and not args.allow_other_packaging:
        print(
            f"packaging {packaging.__version__} found, oracle data is pinned to "
            f"{EXPECTED_PACKAGING} (pass --allow-other-packaging to override)",
            file=sys.stderr,
        )
        return 2

    kinds = tuple(k for k in args.kinds.split(",") if k)
    if not kinds or any(k not in KINDS for k in kinds):
        ap.error(f"--kinds must be a subset of {','.join(KINDS)}")
    envs = load_environments(args.environments)
    inputs = read_inputs(args.input)
    lines = []
    n_ok = {k: 0 for k in kinds}
    for s in inputs:
        for kind in kinds:
            rec = record(s, kind, envs)
            n_ok[kind] += rec["ok"]
            lines.append(dump_record(rec))

    try:
        input_name = args.input.resolve().relative_to(repo).as_posix()
    except ValueError:
        input_name = args.input.name
    meta = {
        "generator": "scripts/oracle/pep508_oracle.py",
        "packaging_version": packaging.__version__,
        "python_version": platform.python_version(),
        "input_file": input_name,
        "inputs": len(inputs),
        "kinds": list(kinds),
        "ok_counts": n_ok,
        "environments": list(envs),
        "configs": [
            {
                "name": name,
                "context": context,
                "overrides": {
                    k: sorted(v) if isinstance(v, frozenset) else v
                    for k, v in sorted(overrides.items())
                },
            }
            for name, context, overrides in CONFIGS
        ],
    }
    paths = write_documents(args.output, meta, lines, args.max_bytes)
    for p in paths:
        print(f"wrote {p} ({p.stat().st_size} bytes)", file=sys.stderr)
    summary = ", ".join(f"{k} ok {n_ok[k]}/{len(inputs)}" for k in kinds)
    print(f"{len(inputs)} inputs: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
