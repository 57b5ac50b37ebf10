#!/usr/bin/env python3
"""pypa/packaging as a markerspec conformance adapter (spec/PROTOCOL.md, markerspec-adapter/1).

Reads one JSON request per line on stdin and writes one JSON response per line on stdout:

    markerspec conformance --adapter "python3 adapters/packaging/adapter.py"

It claims the ``packaging`` profile for the ``pep508`` dialect (packaging knows no extended
fields) and reports no markerspec diagnostic codes, only whether an input parses, its ``str()``
and the evaluation result. Needs ``packaging`` importable (CI installs packaging==26.4 into a
virtual environment); any other version still runs and says which version it is.

How a request maps onto packaging's API:

* ``parse``: ``Requirement(input)`` or ``Marker(input)``; the canonical form is ``str()`` of the
  result (omitted when ``str()`` raises, for a value holding both quote characters).
* ``evaluate``: the marker (a requirement's marker; a requirement without one is true) is
  evaluated with ``Marker.evaluate_prepared`` on ``prepare_environment(environment, context)``
  from which every key the request does not give is removed again, so the host running the
  adapter never leaks into a result and a missing field raises ``UndefinedEnvironmentName``.
  The context is ``lock_file`` when the request says so, else ``metadata``. Lists become
  frozensets. The requested extras become ``extra``: none is ``""`` (``metadata`` only), one is
  that string (as pip passes it), several a frozenset (packaging 26.4's set-valued ``extra``).
  ``null`` (Unknown) values cannot be expressed in packaging: such requests are skipped.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

# packaging's error messages print sets (``frozenset({'cuda', 'test'})``), whose order follows
# string hashing: fix the hash seed so that every run reports the same text (the runner writes
# these messages into spec/DIVERGENCES.md, which CI compares).
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

PROTOCOL = "markerspec-adapter/1"

try:
    import packaging
    from packaging.markers import (
        InvalidMarker,
        Marker,
        UndefinedComparison,
        UndefinedEnvironmentName,
        default_environment,
        prepare_environment,
    )
    from packaging.requirements import InvalidRequirement, Requirement

    IMPORT_ERROR = None
except ImportError as e:  # reported in the handshake's place, see main()
    IMPORT_ERROR = e

# packaging's exception names, reported as the message; the runner compares no codes.
EVAL_ERRORS = {
    "UndefinedComparison": "E002",
    "UndefinedEnvironmentName": "E001",
}


def hello() -> dict:
    return {
        "protocol": PROTOCOL,
        "name": "packaging",
        "version": packaging.__version__,
        "profiles": ["packaging"],
        "dialects": ["pep508"],
        "codes": False,
    }


def _parse(req: dict):
    text = req["input"]
    if req.get("kind") == "requirement":
        return Requirement(text)
    return Marker(text)


def _first_line(e: BaseException) -> str:
    return str(e).split("\n", 1)[0]


def parse(req: dict) -> dict:
    if req.get("dialect", "pep508") != "pep508":
        return {"skip": "packaging knows only the pep508 dialect"}
    try:
        obj = _parse(req)
    except (InvalidRequirement, InvalidMarker) as e:
        return {"parses": False, "message": f"{type(e).__name__}: {_first_line(e)}"}
    out = {"parses": True}
    try:
        out["canonical"] = str(obj)
    except ValueError as e:
        out["note"] = f"str() raised: {e}"
    return out


def environment(req: dict):
    """The prepared environment, or a skip reason."""
    doc = req.get("environment") or {}
    env = {}
    for key, value in doc.items():
        if value is None:
            return None, f"`{key}` is Unknown, which packaging cannot express"
        env[key] = frozenset(value) if isinstance(value, list) else value
    extras = req.get("extras") or []
    context = "lock_file" if req.get("lock_file") else "metadata"
    if len(extras) == 1:
        env["extra"] = extras[0]
    elif len(extras) > 1:
        env["extra"] = frozenset(extras)
    prepared = prepare_environment(env, context)
    for key in default_environment():
        if key not in env:
            del prepared[key]
    return prepared, None


def evaluate(req: dict) -> dict:
    if req.get("dialect", "pep508") != "pep508":
        return {"skip": "packaging knows only the pep508 dialect"}
    try:
        obj = _parse(req)
    except (InvalidRequirement, InvalidMarker) as e:
        return {"parses": False, "message": f"{type(e).__name__}: {_first_line(e)}"}
    marker = obj.marker if isinstance(obj, Requirement) else obj
    if marker is None:
        return {"result": True}
    env, why = environment(req)
    if why is not None:
        return {"skip": why}
    try:
        return {"result": bool(marker.evaluate_prepared(env))}
    except (UndefinedComparison, UndefinedEnvironmentName) as e:
        name = type(e).__name__
        message = str(e.args[0]) if name == "UndefinedEnvironmentName" and e.args else _first_line(e)
        return {"result": {"error": None, "message": f"{name}: {message}"}}


def answer(line: str) -> dict:
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"id": None, "fail": f"malformed request: {e}"}
    rid = req.get("id") if isinstance(req, dict) else None
    try:
        op = req.get("op")
        if op == "hello":
            out = hello()
        elif op == "parse":
            out = parse(req)
        elif op == "evaluate":
            out = evaluate(req)
        else:
            out = {"fail": f"unknown op {op!r}"}
    except Exception as e:  # packaging itself failed: a crash of this case, not of the adapter
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        out = {"crash": f"packaging raised {tb}"}
    out["id"] = rid
    return out


def main() -> int:
    if IMPORT_ERROR is not None:
        print(f"packaging adapter: cannot import packaging: {IMPORT_ERROR}", file=sys.stderr)
        return 3
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(json.dumps(answer(line), ensure_ascii=True) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
