"""Helpers for markerspec conformance adapters written in Python (standard library only).

An adapter wraps one implementation of PEP 508 and answers the JSON-lines protocol of
``spec/PROTOCOL.md``. This package does the protocol (handshake, request loop, environment
documents, exception classification) so that an adapter only says how to call its tool::

    import sys
    sys.path.insert(0, "adapters/python")          # or PYTHONPATH=adapters/python
    from markerspec_adapter import Tool, run
    from mytool import parse_marker, InvalidMarker

    class MyTool(Tool):
        name, version = "mytool", "1.0"
        profiles = ["standard"]            # spec/PROTOCOL.md §3
        kinds = ["marker"]                 # requirements are skipped
        parse_errors = (InvalidMarker,)    # these mean "the input is rejected"
        extras = "set"                     # `extra` is a set of names

        def parse(self, kind, text):
            return parse_marker(text)

        def evaluate(self, marker, environment, lock_file):
            return marker.evaluate(environment)

    sys.exit(run(MyTool()))

How answers are classified (``spec/PROTOCOL.md`` §4.1): an exception in ``parse_errors`` while
parsing is a rejection (``parses: false``); one in ``eval_errors`` while evaluating is an
evaluation error; :class:`Skip` skips the case; any other exception (``AssertionError``,
``TypeError``, ``RecursionError`` …) is a crash of the case, never a rejection. Messages are
``TypeName: first line``.

Environment documents hold only what the case says: a field that is not there is not filled in
from the machine the adapter runs on. ``null`` (Unknown) cannot be expressed by a two-valued
library and skips the case; lists become ``frozenset``. Lock-file requests (PEP 751
``extras`` / ``dependency_groups``) are skipped unless ``lock_file = True``.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Iterable, Optional, TextIO

__all__ = ["PROTOCOL", "Refuse", "Skip", "Tool", "environment", "message", "run"]

PROTOCOL = "markerspec-adapter/1"


class Skip(Exception):
    """Raise to answer ``{"skip": why}``: the tool cannot express this case."""


class Refuse(Exception):
    """Raise from :meth:`Tool.check` when the installed tool lacks what the adapter needs: the
    adapter then prints why and exits 3 before the handshake, and the runner reports it
    unusable in one line instead of running every case."""


def message(e: BaseException) -> str:
    """``TypeName: first line of str(e)``."""
    return f"{type(e).__name__}: {str(e).split(chr(10), 1)[0]}"


class Tool:
    """What an adapter says about its tool. Override :meth:`parse` and :meth:`evaluate`."""

    #: The implementation's name, as reports show it.
    name: str = "tool"
    #: Its version.
    version: str = ""
    #: The profiles it claims (spec/PROTOCOL.md §3): ``standard`` for a tool that follows the
    #: living specification on the standard fields with two-valued logic.
    profiles: Iterable[str] = ("standard",)
    #: The dialects it parses (``pep508``; ``extended`` for markerspec's extended fields).
    dialects: Iterable[str] = ("pep508",)
    #: Declared divergences: ``[{"cases": SELECTOR, "reason": TEXT}]``.
    divergences: Iterable[dict] = ()
    #: The kinds it parses: ``requirement`` and / or ``marker``; the others are skipped.
    kinds: Iterable[str] = ("requirement", "marker")
    #: Exceptions that mean "this input is invalid" when parsing.
    parse_errors: tuple = ()
    #: Exceptions that mean "this marker cannot be evaluated here" (an evaluation error).
    eval_errors: tuple = ()
    #: How the requested extras become the ``extra`` value (spec/PROTOCOL.md §4):
    #: ``"set"``: always a frozenset of names (empty for none);
    #: ``"string"``: ``""`` for none, the name for one, and a request with several is skipped;
    #: ``"string-or-set"``: no ``extra`` key for none, the name for one, a frozenset for
    #: several (pypa/packaging 26);
    #: ``None``: nothing is added (the tool reads ``request["extras"]`` itself).
    extras: Optional[str] = "string"
    #: Whether the tool serves lock-file requests; when false they are skipped.
    lock_file: bool = False

    def describe(self, e: BaseException) -> str:
        """The message reported for a rejection or an evaluation error (default
        :func:`message`)."""
        return message(e)

    def check(self) -> None:
        """Raise :class:`Refuse` when the installed tool lacks something the adapter needs."""

    def parse(self, kind: str, text: str) -> Any:
        """Parse ``text`` as a ``requirement`` or a ``marker``; raise a ``parse_errors``
        exception when the tool rejects it."""
        raise NotImplementedError

    def canonical(self, parsed: Any) -> Optional[str]:
        """The tool's printed form of a parsed input, or ``None`` (not compared)."""
        return str(parsed)

    def marker(self, kind: str, parsed: Any) -> Any:
        """The marker to evaluate: the parsed marker, or a requirement's marker (``None`` when
        it has none: the requirement evaluates to true)."""
        return parsed.marker if kind == "requirement" else parsed

    def evaluate(self, marker: Any, environment: dict, lock_file: bool) -> bool:
        """Evaluate ``marker`` in ``environment`` (see :func:`environment`)."""
        raise NotImplementedError

    def handshake(self) -> dict:
        """The handshake's answer."""
        return {
            "protocol": PROTOCOL,
            "name": self.name,
            "version": self.version,
            "profiles": list(self.profiles),
            "dialects": list(self.dialects),
            "codes": False,
            "divergences": list(self.divergences),
        }


def environment(request: dict, tool: Tool) -> dict:
    """The request's environment document as the tool's environment: lists become frozensets,
    ``extra`` is set as ``tool.extras`` says, nothing is filled in. Raises :class:`Skip` for an
    Unknown (``null``) value or extras the tool cannot express."""
    env: dict = {}
    for key, value in (request.get("environment") or {}).items():
        if value is None:
            raise Skip(f"`{key}` is Unknown, which {tool.name} cannot express")
        env[key] = frozenset(value) if isinstance(value, list) else value
    extras = list(request.get("extras") or [])
    mode = tool.extras
    if mode == "set":
        env["extra"] = frozenset(extras)
    elif mode == "string":
        if len(extras) > 1:
            raise Skip(f"several extras requested; {tool.name}'s `extra` is one string")
        env["extra"] = extras[0] if extras else ""
    elif mode == "string-or-set":
        if len(extras) == 1:
            env["extra"] = extras[0]
        elif extras:
            env["extra"] = frozenset(extras)
    return env


def _serve(tool: Tool, req: dict) -> dict:
    op = req.get("op")
    if op == "hello":
        return tool.handshake()
    if op not in ("parse", "evaluate"):
        return {"fail": f"unknown op {op!r}"}
    if req.get("dialect", "pep508") not in tool.dialects:
        return {"skip": f"{tool.name} knows only the {' and '.join(tool.dialects)} dialect"}
    kind = req.get("kind", "marker")
    if kind not in tool.kinds:
        return {"skip": f"{tool.name} does not parse a {kind}"}
    if req.get("lock_file") and not tool.lock_file:
        return {"skip": f"{tool.name} does not evaluate markers in a lock file"}
    try:
        parsed = tool.parse(kind, req["input"])
    except Skip as e:
        return {"skip": str(e)}
    except tool.parse_errors as e:
        return {"parses": False, "message": tool.describe(e)}
    if op == "parse":
        out: dict = {"parses": True}
        try:
            canonical = tool.canonical(parsed)
        except Skip as e:
            out["note"] = str(e)
        else:
            if canonical is not None:
                out["canonical"] = canonical
        return out
    marker = tool.marker(kind, parsed)
    if marker is None:
        return {"result": True}
    try:
        env = environment(req, tool)
        return {"result": bool(tool.evaluate(marker, env, bool(req.get("lock_file"))))}
    except Skip as e:
        return {"skip": str(e)}
    except tool.eval_errors as e:
        return {"result": {"error": None, "message": tool.describe(e)}}


def answer(tool: Tool, line: str) -> dict:
    """The response to one request line."""
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"id": None, "fail": f"malformed request: {e}"}
    if not isinstance(req, dict):
        return {"id": None, "fail": "a request is a JSON object"}
    try:
        out = _serve(tool, req)
    except Exception as e:  # the tool failed: a crash of this case, not of the adapter
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        out = {"crash": f"{tool.name} raised {tb}"}
    out["id"] = req.get("id")
    return out


def fix_hash_seed() -> None:
    """Re-executes the interpreter with ``PYTHONHASHSEED=0`` unless already set so: tools print
    sets in messages, and their order follows string hashing; a fixed seed makes every run
    report the same text (spec/DIVERGENCES.md is compared in CI)."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])


def run(tool: Tool, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Serve requests from ``stdin`` until it closes; the exit status."""
    try:
        tool.check()
    except Refuse as e:
        print(f"{tool.name} adapter: {e}", file=sys.stderr)
        return 3
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(json.dumps(answer(tool, line), ensure_ascii=True) + "\n")
        stdout.flush()
    return 0
