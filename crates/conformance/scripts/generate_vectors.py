#!/usr/bin/env python3
"""Generate spec/vectors/*.json, the markerspec conformance suite.

Deterministic: the same inputs, oracle records, packaging release, markerspec build and uv
adapter give byte-identical files. Where each expectation comes from:

* ``packaging``: pypa/packaging 26.4. Inputs of the packaging oracle
  (``tests/data/packaging-oracle/``) take the recorded parse result and evaluations; every
  other ``pep508``-dialect input is run through ``adapters/packaging/adapter.py`` in this
  process (the same code CI runs as the adapter). Where both exist they must agree, which
  also checks the adapter. Error codes in ``packaging`` outcomes are markerspec's codes for
  the rejection packaging makes (``E001`` UndefinedEnvironmentName, ``E002``
  UndefinedComparison; parse errors take markerspec's packaging-profile code when it rejects
  too).
* ``spec-2026``: markerspec's built-in implementation (``markerspec conformance --serve``), which
  implements spec/SPEC.md; the worked examples of spec/SPEC.md §14 take their expected result
  from the specification's text instead, and the generator fails if markerspec disagrees.
* ``uv``: uv-pep508 0.0.98 through ``adapters/peers`` (``--uv CMD``). Without ``--uv`` the ``uv``
  outcomes of the existing files are kept, matched by case identity.

Case names are stable: a case keeps the name it had in the existing files (matched by kind,
input, dialect, lock-file context and environment); new cases get the next free number of
their category's slug.

Usage (from the repository root, with packaging 26.4 importable):
    .venv/bin/python crates/conformance/scripts/generate_vectors.py \
        --markerspec target/debug/markerspec [--uv adapters/peers/target/release/uv-adapter]
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts" / "oracle"))
sys.path.insert(0, str(ROOT / "adapters" / "packaging"))

import packaging  # noqa: E402
from packaging.version import InvalidVersion, Version  # noqa: E402

import adapter as pkg_module  # noqa: E402
from markerspec_adapter import _serve  # noqa: E402


class PackagingAdapter:
    """adapters/packaging/adapter.py called in this process, one request at a time."""

    EVAL_ERRORS = {"UndefinedComparison": "E002", "UndefinedEnvironmentName": "E001"}

    def __init__(self):
        self.tool = pkg_module.Packaging()
        self.tool.check()

    def parse(self, req):
        return _serve(self.tool, dict(req, op="parse"))

    def evaluate(self, req):
        return _serve(self.tool, dict(req, op="evaluate"))


pkg_adapter = PackagingAdapter()

PROTOCOL = "markerspec-adapter/1"
ORACLE = ROOT / "tests" / "data" / "packaging-oracle"
VECTORS = ROOT / "spec" / "vectors"
DEFAULT_FIXTURE = "linux-x86_64-cpython-3.12"
FIXTURES = [
    "linux-x86_64-cpython-3.12",
    "linux-aarch64-pypy-3.10",
    "linux-x86_64-cpython-3.12-wsl2",
    "linux-x86_64-cpython-3.13-untagged",
    "linux-x86_64-cpython-3.14.0rc1",
    "linux-x86_64-cpython-3.9",
    "macos-arm64-cpython-3.13",
    "windows-amd64-cpython-3.11",
    "windows-arm64-cpython-3.12",
]
# Oracle evaluation configs used, in preference order: name -> (extras, lock_file, overlay).
CONFIGS = OrderedDict(
    [
        ("default", (None, False, None)),
        ("extra=test", (["test"], False, None)),
        ("extra={cuda,test}", (["cuda", "test"], False, None)),
        ("lock_file", (None, True, {"extras": ["cuda"], "dependency_groups": ["dev"]})),
    ]
)
GROUP_DESCRIPTIONS = {
    "marker-syntax": "The marker grammar: quoting, escapes, whitespace, keywords, parentheses, "
    "boolean structure, field names, comparisons without exactly one field.",
    "operators": "Every operator on every standard field type, both operand orders.",
    "versions": "Version semantics of the version-typed fields: prereleases, local versions, "
    "arbitrary equality, wildcards, invalid versions, operators inside literals.",
    "extras": "The `extra` variable and the lock-file fields `extras` and `dependency_groups`, "
    "with name normalisation.",
    "requirements": "The requirement grammar: names, extras, version specifiers, URLs, markers "
    "after requirements, trailing input.",
    "limits": "Input limits: nesting depth and input length.",
    "findings": "The behaviours of packaging 26.4 recorded in scripts/oracle/FINDINGS.md.",
    "corpus": "Real Requires-Dist lines (tests/data/requires-dist-gpu-stack.txt) evaluated on "
    "Linux x86_64 CPython 3.12.",
    "extended": "The extended dialect (spec/SPEC.md §4-§8): every extended field and operator "
    "with Known, Absent and Unknown values, literal checks, three-valued logic.",
    "variants": "Wheel-variant fields (spec/SPEC.md §9, PEP 825): property validation and "
    "normalisation, variant labels.",
    "spec-examples": "The worked examples of spec/SPEC.md §14 and the examples of §8-§9, with "
    "the result the specification states.",
}
VERSION_FIELDS = ["python_version", "python_full_version", "implementation_version"]
STRING_FIELDS = [
    "os_name",
    "sys_platform",
    "platform_machine",
    "platform_system",
    "platform_version",
    "platform_python_implementation",
    "implementation_name",
]
ALIASES = {
    "os.name",
    "sys.platform",
    "platform.version",
    "platform.machine",
    "platform.python_implementation",
    "python_implementation",
}
EXTENDED_FIELDS = {
    "variant_label": "String",
    "variant_namespaces": "Set",
    "variant_features": "Set",
    "variant_properties": "Set",
    "sys_abi_features": "Set",
    "python_abi_tag": "String",
    "interpreter_arch": "String",
    "glibc_version": "Version",
    "musl_version": "Version",
    "gpu_backends": "Set",
    "cuda_version": "Version",
    "nvidia_driver_version": "Version",
    "cuda_compute_capability": "Version",
    "cuda_compute_capabilities": "Set",
    "cudnn_version": "Version",
    "nccl_version": "Version",
    "cutensor_version": "Version",
    "rocm_version": "Version",
    "rocm_gpu_archs": "Set",
    "host_arch": "String",
    "cuda_compute_capability_max": "Version",
    "cudnn_cuda_version": "Version",
}
OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]
# A quoted literal compared with a standard version field on its right (`"3.*" == python_version`).
LITERAL_LEFT_VERSION = re.compile(
    r"""\s*(["'])(.*?)\1\s*(===|==|!=)\s*(python_version|python_full_version|implementation_version|platform_release)\s*"""
)


# ---------------------------------------------------------------------------------------------
# Protocol clients


class Client:
    """A markerspec-adapter/1 client for a trusted adapter (no timeouts)."""

    def __init__(self, command: str):
        self.command = command
        self.proc = None
        self.next_id = 1
        self.hello = None
        self.crashes = 0
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            self.command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.hello = self.call({"op": "hello", "protocol": PROTOCOL})
        if self.hello.get("protocol") != PROTOCOL:
            raise SystemExit(f"{self.command}: bad handshake {self.hello}")

    def call(self, req: dict) -> dict:
        rid = self.next_id
        self.next_id += 1
        line = json.dumps(dict(req, id=rid), ensure_ascii=True)
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            out = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            out = ""
        if not out:
            self.crashes += 1
            self.proc.wait()
            self.start()
            return {"crash": f"the adapter exited (status {self.proc.returncode})"}
        resp = json.loads(out)
        if resp.get("id") != rid:
            raise SystemExit(f"{self.command}: response id {resp.get('id')} for {rid}")
        if resp.get("fatal"):
            self.proc.stdin.close()
            self.proc.wait()
            self.start()
        return resp

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def request(op, kind, text, dialect="pep508", profile="spec-2026", lock_file=False, env=None, extras=None):
    r = {"op": op, "kind": kind, "input": text, "dialect": dialect, "profile": profile, "lock_file": lock_file}
    if op == "evaluate":
        r["environment"] = env or {}
        r["extras"] = extras or []
    return r


# ---------------------------------------------------------------------------------------------
# Environments


def load_fixture(name):
    return json.loads((ROOT / "spec" / "environments" / f"{name}.json").read_text(encoding="utf-8"))


FIXTURE_DOCS = {n: load_fixture(n) for n in FIXTURES}


def resolve(case):
    """The environment document and extras a case evaluates with (as the Rust crate resolves)."""
    env = dict(FIXTURE_DOCS[case["fixture"]]) if case.get("fixture") else {}
    env.update(case.get("environment") or {})
    doc_extra = env.pop("extra", None)
    if isinstance(doc_extra, str):
        doc_extra = [doc_extra] if doc_extra else []
    extras = case.get("extras")
    if extras is None:
        extras = doc_extra or []
    return env, extras


def identity(case):
    return json.dumps(
        [
            case["kind"],
            case["input"],
            case.get("dialect", "pep508"),
            case.get("lock_file", False),
            case.get("fixture"),
            case.get("environment"),
            case.get("extras"),
        ],
        sort_keys=True,
    )


# ---------------------------------------------------------------------------------------------
# Outcomes


def outcome_from_parse(resp, codes=True):
    if "crash" in resp or "skip" in resp or "fail" in resp:
        return None
    if not resp["parses"]:
        o = {"parses": False}
        if codes and resp.get("error"):
            o["error"] = resp["error"]
        return o
    o = {}
    if resp.get("canonical") is not None:
        o["canonical"] = resp["canonical"]
    return o


def result_from_eval(resp, codes=True):
    """The vector form of an evaluate response, or None."""
    if "result" not in resp:
        return None
    r = resp["result"]
    if isinstance(r, dict):
        return {"error": r.get("error")} if codes else {"error": None}
    return r


def packaging_eval_result(value):
    """An oracle evaluation result in vector form."""
    if isinstance(value, dict):
        return {"error": pkg_adapter.EVAL_ERRORS[value["error"]]}
    return value


# ---------------------------------------------------------------------------------------------
# Sections of the oracle input list


def oracle_sections():
    """input -> (function, section number) of scripts/oracle/gen_grammar.py that produced it."""
    import gen_grammar

    src = inspect.getsource(gen_grammar).splitlines()
    marks = []  # (line, section)
    for i, line in enumerate(src, start=1):
        m = re.match(r"\s+# (\d+)\. ", line)
        if m:
            marks.append((i, int(m.group(1))))
    where = {}

    def add(*items):
        frame = inspect.stack()[1]
        line = frame.lineno
        sec = max((s for (l, s) in marks if l <= line), default=0)
        fn = frame.function
        for s in items:
            if s not in gen_grammar.SEEN:
                gen_grammar.SEEN.add(s)
                gen_grammar.OUT.append(s)
                where[s] = (fn, sec)

    gen_grammar.add = add
    gen_grammar.OUT.clear()
    gen_grammar.SEEN.clear()
    gen_grammar.odd_cases()
    gen_grammar.marker_sections()
    gen_grammar.requirement_sections()
    gen_grammar.version_semantics()
    gen_grammar.findings_examples()
    return list(gen_grammar.OUT), where


def load_oracle(name_glob):
    recs = {}
    inputs = []
    for p in sorted(ORACLE.glob(name_glob)):
        doc = json.loads(p.read_text(encoding="utf-8"))
        for r in doc["records"]:
            if r["input"] not in recs:
                inputs.append(r["input"])
            recs.setdefault(r["input"], {})[r["kind"]] = r
    return inputs, recs


def strip_py(s):
    return s.strip(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def is_version(s):
    try:
        Version(strip_py(s))
        return True
    except InvalidVersion:
        return False


COMPARISON = re.compile(r"""^\s*(?:([a-z_.]+)\s*(===|==|!=|<=|>=|~=|<|>|not\s+in|in)\s*(["'])(.*)\3|(["'])(.*)\5\s*(===|==|!=|<=|>=|~=|<|>|not\s+in|in)\s*([a-z_.]+))\s*$""", re.S)


def single_comparison(text):
    """(field, op, literal, field_left) for a marker that is one comparison, else None."""
    m = COMPARISON.match(text)
    if not m:
        return None
    if m.group(1):
        return m.group(1), re.sub(r"\s+", " ", m.group(2)), m.group(4), True
    return m.group(8), re.sub(r"\s+", " ", m.group(7)), m.group(6), False


def version_category(op, literal):
    lit = strip_py(literal)
    if op == "===":
        return "arbitrary-equality"
    if lit[:1] in ("=", "!", "<", ">", "~"):
        return "operator-in-literal"
    if "*" in lit:
        return "wildcards"
    if not is_version(literal):
        return "invalid-versions"
    if "+" in lit:
        return "local-versions"
    v = Version(lit)
    if v.is_prerelease:
        return "prereleases"
    if literal != lit:
        return "literal-whitespace"
    return "version-comparison"


def field_category(field):
    if field in VERSION_FIELDS:
        return "operators", "version-fields"
    if field == "platform_release":
        return "operators", "version-or-string-field"
    if field in STRING_FIELDS or field in ALIASES:
        return "operators", "string-fields"
    if field == "extra":
        return "extras", "extra"
    if field in ("extras", "dependency_groups"):
        return "extras", "lock-file-fields"
    return None


def generic_category(kind, text):
    if kind == "requirement":
        if "@" in text:
            return "requirements", "urls"
        if "[" in text:
            return "requirements", "extras-syntax"
        if ";" in text:
            return "requirements", "requirement-markers"
        if re.search(r"[<>=!~]", text):
            return "requirements", "specifiers"
        return "requirements", "names"
    c = single_comparison(text)
    if c:
        field, op, lit, _ = c
        if field in VERSION_FIELDS or field == "platform_release":
            return "versions", version_category(op, lit)
        fc = field_category(field)
        if fc:
            return fc
        return "marker-syntax", "field-names"
    if "extras" in text or "dependency_groups" in text:
        return "extras", "lock-file-fields"
    if "extra" in text:
        return "extras", "extra"
    if "(" in text:
        return "marker-syntax", "parentheses"
    return "marker-syntax", "boolean-logic"


def classify(fn, sec, kind, text):
    """(group, category) of an oracle input."""
    depth = 0
    m = re.match(r"^\(+", text)
    if m:
        depth = len(m.group(0))
    if depth >= 50:
        return "limits", "nesting"
    if fn == "marker_sections":
        if sec in (1, 2, 7):
            c = single_comparison(text)
            if c:
                field, op, lit, _ = c
                if field in VERSION_FIELDS or field == "platform_release":
                    return field_category(field)
                return field_category(field) or ("marker-syntax", "field-names")
            return generic_category(kind, text)
        return {
            3: ("marker-syntax", "field-names"),
            4: ("marker-syntax", "field-vs-field"),
            5: ("marker-syntax", "literal-vs-literal"),
            8: ("marker-syntax", "quoting"),
            9: ("marker-syntax", "escapes"),
            10: ("marker-syntax", "boolean-logic"),
            11: ("marker-syntax", "parentheses"),
            12: ("marker-syntax", "keywords"),
            13: ("marker-syntax", "whitespace"),
        }.get(sec) or (
            generic_category(kind, text) if sec != 6 else version_group(text)
        )
    if fn == "requirement_sections":
        return {
            14: ("requirements", "names"),
            15: ("requirements", "extras-syntax"),
            16: ("requirements", "specifiers"),
            17: ("requirements", "urls"),
            18: ("requirements", "requirement-markers"),
            19: ("requirements", "trailing-input"),
        }[sec]
    if fn == "version_semantics" and kind == "marker":
        return version_group(text)
    if fn in ("odd_cases", "findings_examples"):
        return "findings", generic_category(kind, text)[1]
    return generic_category(kind, text)


def version_group(text):
    c = single_comparison(text)
    if c and (c[0] in VERSION_FIELDS or c[0] == "platform_release"):
        return "versions", version_category(c[1], c[2])
    return generic_category("marker", text)


SEE = {
    ("marker_sections", 1): "PEP 508 markers; oracle §1",
    ("marker_sections", 2): "PEP 508 markers; oracle §2",
    ("marker_sections", 3): "PEP 345 names; oracle §3",
    ("marker_sections", 4): "SPEC §5 one field per comparison; oracle §4",
    ("marker_sections", 5): "SPEC §5 one field per comparison; oracle §5",
    ("marker_sections", 6): "PEP 440 specifiers; oracle §6",
    ("marker_sections", 7): "SPEC §5.2 string fields; oracle §7",
    ("marker_sections", 8): "PEP 508 python_str; oracle §8",
    ("marker_sections", 9): "FINDINGS §4 escapes; oracle §9",
    ("marker_sections", 10): "PEP 508 marker_and/or; oracle §10",
    ("marker_sections", 11): "PEP 508 grammar; oracle §11",
    ("marker_sections", 12): "PEP 508 grammar; oracle §12",
    ("marker_sections", 13): "PEP 508 wsp; oracle §13",
    ("marker_sections", 14): "PEP 685, PEP 751; oracle §14",
    ("requirement_sections", 14): "PEP 508 names, PEP 503; oracle §14",
    ("requirement_sections", 15): "PEP 508 extras; oracle §15",
    ("requirement_sections", 16): "PEP 440 specifiers; oracle §16",
    ("requirement_sections", 17): "PEP 508 URLs; oracle §17",
    ("requirement_sections", 18): "PEP 508 quoted_marker; oracle §18",
    ("requirement_sections", 19): "PEP 508 grammar; oracle §19",
    ("odd_cases", 20): "FINDINGS; oracle §20",
    ("version_semantics", 21): "PEP 440, FINDINGS §5; oracle §21",
    ("findings_examples", 22): "FINDINGS; oracle §22",
}
# "oracle §N" is section N of scripts/oracle/gen_grammar.py, whose inputs and packaging 26.4's
# answers are in tests/data/packaging-oracle/; "FINDINGS" is scripts/oracle/FINDINGS.md.


# ---------------------------------------------------------------------------------------------
# Building cases


class Builder:
    def __init__(self, markerspec, uv, old):
        self.ms = markerspec
        self.uv = uv
        self.old = old  # identity -> (group, name, case)
        self.cases = defaultdict(list)  # group -> [case]
        self.seen = set()
        self.mismatches = []
        self.uv_crashes = []

    # -- spec-2026 (markerspec) ------------------------------------------------------------

    def spec_parse(self, kind, text, dialect="pep508", lock_file=False):
        return self.ms.call(request("parse", kind, text, dialect, "spec-2026", lock_file))

    def spec_eval(self, kind, text, env, extras, dialect="pep508", lock_file=False, profile="spec-2026"):
        return self.ms.call(request("evaluate", kind, text, dialect, profile, lock_file, env, extras))

    def spec_outcome(self, case):
        env, extras = resolve(case)
        d, lf = case.get("dialect", "pep508"), case.get("lock_file", False)
        p = self.spec_parse(case["kind"], case["input"], d, lf)
        o = outcome_from_parse(p)
        if o is not None and p["parses"] and case.get("_evaluate"):
            e = self.spec_eval(case["kind"], case["input"], env, extras, d, lf)
            o["result"] = result_from_eval(e)
        return o

    # -- packaging ---------------------------------------------------------------------------

    def ms_packaging_code(self, kind, text):
        p = self.ms.call(request("parse", kind, text, "pep508", "packaging"))
        return None if p["parses"] else p.get("error")

    def packaging_outcome(self, case, record=None, oracle_result="missing"):
        """packaging's outcome: from the oracle record when given, else the adapter."""
        kind, text = case["kind"], case["input"]
        req = {"kind": kind, "input": text, "dialect": "pep508"}
        live = pkg_adapter.parse(req)
        if record is not None:
            if bool(record["ok"]) != bool(live["parses"]) or (
                record["ok"] and record["canonical"] != live.get("canonical")
            ):
                self.mismatches.append(f"parse {kind} {text!r}: oracle {record['ok']}/{record['canonical']!r}, adapter {live}")
        if not live["parses"]:
            o = {"parses": False}
            code = self.ms_packaging_code(kind, text)
            if code:
                o["error"] = code
            return o
        o = {}
        canonical = live.get("canonical")
        if canonical is not None:
            # packaging prints decoded string values without escaping them again, so some
            # printed forms do not parse back to the same thing; those are not canonical forms.
            again = pkg_adapter.parse({"kind": kind, "input": canonical, "dialect": "pep508"})
            if again.get("parses") and again.get("canonical") == canonical:
                o["canonical"] = canonical
        if case.get("_evaluate"):
            env, extras = resolve(case)
            ev = pkg_adapter.evaluate(dict(req, environment=env, extras=extras, lock_file=case.get("lock_file", False)))
            if "result" in ev:
                r = ev["result"]
                if isinstance(r, dict):
                    name = r["message"].split(":", 1)[0]
                    r = {"error": pkg_adapter.EVAL_ERRORS[name]}
                if oracle_result != "missing" and oracle_result != r:
                    self.mismatches.append(f"evaluate {text!r} {case.get('fixture')} {case.get('extras')} lf={case.get('lock_file')}: oracle {oracle_result}, adapter {r}")
                o["result"] = r
        return o

    # -- uv ----------------------------------------------------------------------------------

    def uv_outcome(self, case):
        if case.get("dialect", "pep508") != "pep508":
            return None
        if self.uv is None:
            old = self.old.get(identity(case))
            return old[2].get("expect", {}).get("uv") if old else None
        env, extras = resolve(case)
        lf = case.get("lock_file", False)
        p = self.uv.call(request("parse", case["kind"], case["input"], "pep508", "uv", lf))
        if "crash" in p:
            self.uv_crashes.append((case["input"], p["crash"]))
            return None
        if "skip" in p:
            return None
        o = outcome_from_parse(p, codes=False)
        if p["parses"] and case.get("_evaluate"):
            e = self.uv.call(request("evaluate", case["kind"], case["input"], "pep508", "uv", lf, env, extras))
            if "crash" in e:
                self.uv_crashes.append((case["input"], e["crash"]))
                return None
            r = result_from_eval(e, codes=False)
            if r is not None:
                o["result"] = r
        return o

    # -- assembling --------------------------------------------------------------------------

    def add(self, group, category, case, expect):
        """Adds a case; `expect` maps profile -> outcome (None entries dropped)."""
        case = dict(case)
        case.setdefault("dialect", "pep508")
        key = identity(case)
        if key in self.seen:
            return False
        self.seen.add(key)
        expect = {p: o for p, o in expect.items() if o is not None}
        if "uv" not in expect:
            uv = self.uv_outcome(case)
            if uv is not None:
                expect["uv"] = uv
        if not expect:
            return False
        case.pop("_evaluate", None)
        if case.pop("_no_canonical", False):
            for o in expect.values():
                o.pop("canonical", None)
        out = OrderedDict()
        out["name"] = None
        out["category"] = category
        out["kind"] = case["kind"]
        out["input"] = case["input"]
        out["dialect"] = case["dialect"]
        if case.get("lock_file"):
            out["lock_file"] = True
        for k in ("fixture", "environment", "extras"):
            if case.get(k) is not None:
                out[k] = case[k]
        out["see"] = case["see"]
        pkg = expect.get("packaging") or {}
        if (pkg.get("result") == {"error": "E001"} and (expect.get("spec-2026") or {}).get("error") == "M011"
                and "packaging quirk" not in out["see"]):
            # spec/SPEC.md Appendix E.6: a defect the profile reproduces, not a reading of the text.
            out["see"] += "; packaging quirk: the right-hand literal is read as a variable name"
        literal_left = LITERAL_LEFT_VERSION.fullmatch(case["input"])
        if (literal_left and (literal_left.group(3) == "===" or "*" in literal_left.group(2))
                and pkg and pkg != expect.get("spec-2026") and "packaging quirk" not in out["see"]):
            # Appendix E.6: packaging reads `"L" op f` as `Specifier(op + value).contains(L)`, so
            # a wildcard literal on the left is a version it cannot parse (pypa/packaging #934).
            out["see"] += "; packaging quirk: a literal-left wildcard or === (pypa/packaging #934)"
        if case.get("note"):
            out["note"] = case["note"]
        out["expect"] = OrderedDict((p, expect[p]) for p in ("spec-2026", "packaging", "uv") if p in expect)
        out["_key"] = key
        self.cases[group].append(out)
        return True

    def add_standard(self, group, category, case, record=None, oracle_result="missing", note=None):
        """A pep508-dialect case with spec-2026, packaging (and uv) expectations."""
        if note:
            case = dict(case, note=note)
        spec = self.spec_outcome(case)
        pkg = self.packaging_outcome(case, record, oracle_result)
        return self.add(group, category, case, {"spec-2026": spec, "packaging": pkg})


# ---------------------------------------------------------------------------------------------
# Oracle-derived cases


def reads_extra_error(value):
    return isinstance(value, dict) and value.get("error") == "UndefinedEnvironmentName" and value.get("message") == "extra"


def config_case(base, env_name, config):
    extras, lock_file, overlay = CONFIGS[config]
    c = dict(base, fixture=env_name)
    if extras is not None:
        c["extras"] = extras
    if lock_file:
        c["lock_file"] = True
    if overlay is not None:
        c["environment"] = overlay
    return c


def oracle_cases(b: Builder):
    inputs, where = oracle_sections()
    _, recs = load_oracle("grammar.part-*.json")
    missing = [i for i in inputs if i not in recs]
    if missing:
        raise SystemExit(f"{len(missing)} generator inputs are not in the oracle records; regenerate the oracle")
    for text in inputs:
        fn, sec = where[text]
        pair = recs[text]
        kinds = []
        if fn == "marker_sections":
            kinds = ["marker"]
        elif fn == "requirement_sections":
            kinds = ["requirement"]
        else:
            for kind in ("marker", "requirement"):
                spec_ok = b.spec_parse(kind, text)["parses"]
                if pair[kind]["ok"] or spec_ok:
                    kinds.append(kind)
            if not kinds:
                t = text.lstrip(" \t")
                kinds = ["marker" if t[:1] in ("'", '"', "(") or single_comparison(text) else "requirement"]
        for kind in kinds:
            record = pair[kind]
            group, category = classify(fn, sec, kind, text)
            see = SEE.get((fn, sec), "packaging oracle")
            oracle_variants(b, group, category, kind, text, record, see)


def oracle_variants(b, group, category, kind, text, record, see):
    base = {"kind": kind, "input": text, "see": see}
    spec_parses = b.spec_parse(kind, text)["parses"]
    has_marker = (record["ok"] and record["eval"] is not None) or (
        spec_parses and (kind == "marker" or ";" in text)
    )
    if not has_marker:
        b.add_standard(group, category, base, record)
        return
    # Candidate evaluations, first the default; keep one per distinct (packaging, spec) pair.
    chosen = set()
    for env_name in FIXTURES:
        for config in CONFIGS:
            pkg = None
            if record["ok"] and record["eval"] is not None:
                raw = record["eval"][env_name][config]
                if config == "lock_file" and reads_extra_error(raw):
                    continue
                pkg = json.dumps(packaging_eval_result(raw), sort_keys=True)
            c = config_case(base, env_name, config)
            c["_evaluate"] = True
            env, extras = resolve(c)
            lf = c.get("lock_file", False)
            sp = b.spec_parse(kind, text, "pep508", lf)
            spec = None
            if sp["parses"]:
                spec = json.dumps(result_from_eval(b.spec_eval(kind, text, env, extras, "pep508", lf)), sort_keys=True)
            key = (pkg, spec, sp["parses"])
            first = env_name == FIXTURES[0] and config == "default"
            if key in chosen and not first:
                continue
            chosen.add(key)
            oracle_result = "missing"
            if record["ok"] and record["eval"] is not None:
                oracle_result = packaging_eval_result(record["eval"][env_name][config])
            b.add_standard(group, category, c, record, oracle_result)


def corpus_cases(b: Builder):
    inputs, recs = load_oracle("corpus.json")
    for text in inputs:
        record = recs[text]["requirement"]
        base = {"kind": "requirement", "input": text, "see": "tests/data/requires-dist-gpu-stack.txt"}
        if record["ok"] and record["eval"] is not None:
            c = dict(base, fixture=DEFAULT_FIXTURE, _evaluate=True)
            b.add_standard("corpus", "real-world", c, record, packaging_eval_result(record["eval"][DEFAULT_FIXTURE]["default"]))
        else:
            b.add_standard("corpus", "real-world", base, record)


# ---------------------------------------------------------------------------------------------
# Hand-written tables: limits, extended fields, variants, spec examples


def limits_cases(b: Builder):
    see = "spec/SPEC.md §3 input limits"
    # A marker of exactly 65,536 bytes: one long quoted string.
    head = 'platform_version == "'
    pad = 65536 - len(head) - 1
    text = head + "x" * pad + '"'
    assert len(text.encode()) == 65536
    c = {"kind": "marker", "input": text, "see": see, "fixture": DEFAULT_FIXTURE, "_evaluate": True,
         "_no_canonical": True, "note": "implementations must accept markers of at least 65,536 bytes"}
    b.add_standard("limits", "input-length", c)
    # A long `or` chain just over 65,536 bytes.
    atom = 'os_name == "nt"'
    parts = []
    while len(" or ".join(parts)) < 66000:
        parts.append(atom)
    parts.append('os_name == "posix"')
    c = {"kind": "marker", "input": " or ".join(parts), "see": see, "fixture": DEFAULT_FIXTURE, "_evaluate": True,
         "_no_canonical": True, "note": "a long `or` chain; implementations must accept markers of at least 65,536 bytes"}
    b.add_standard("limits", "input-length", c)
    req = "pkg; " + " or ".join(parts)
    c = {"kind": "requirement", "input": req, "see": see, "fixture": DEFAULT_FIXTURE, "_evaluate": True, "_no_canonical": True}
    b.add_standard("limits", "input-length", c)
    # Nesting: 200 levels are accepted everywhere, 201 is over packaging's limit (and markerspec's
    # default); the specification only requires accepting 200, so spec-2026 does not pin 201.
    for depth in (200, 201):
        for kind, prefix in (("marker", ""), ("requirement", "pkg; ")):
            text = prefix + "(" * depth + 'os_name == "posix"' + ")" * depth
            c = {"kind": kind, "input": text, "see": see + "; packaging's nesting limit is 200",
                 "fixture": DEFAULT_FIXTURE, "_evaluate": True}
            if depth == 200:
                b.add_standard("limits", "nesting", c)
            else:
                pkg = b.packaging_outcome(c)
                b.add("limits", "nesting", dict(c, note="over packaging's nesting limit; the specification leaves the bound above 200 to the implementation"),
                      {"packaging": pkg})
    for depth in (200, 201):
        text = "(" * depth + 'cuda_version >= "12"' + ")" * depth
        c = {"kind": "marker", "input": text, "dialect": "extended", "see": see,
             "environment": {"cuda_version": "12.8"}, "_evaluate": True}
        if depth == 200:
            b.add("limits", "nesting", c, {"spec-2026": b.spec_outcome(c)})


APPENDIX_A = load_fixture(DEFAULT_FIXTURE)


def ext_env(**values):
    """Environment values for an extended case. The fields a marker reads and that are not
    given are filled in as Absent when the case is built (see `fill_absent`), which is what
    Appendix A says for every extended field; fields the marker does not read are left out."""
    return dict(values)


MISSING = object()
FIELD_NAME = re.compile(r"[A-Za-z0-9_.]+")


def fill_absent(marker, values):
    env = {}
    for name in FIELD_NAME.findall(marker):
        t = EXTENDED_FIELDS.get(name)
        if t is not None:
            env[name] = [] if t == "Set" else ""
    env.update(values)
    return dict(sorted(env.items()))


def add_extended(b: Builder, group, category, marker, envs, see, dialect="extended", note=None):
    """One parse case, plus one evaluation per environment when the marker parses. An
    environment given as MISSING has no extended field at all (so each is Unknown)."""
    base = {"kind": "marker", "input": marker, "dialect": dialect, "see": see}
    if note:
        base["note"] = note
    p = b.spec_parse("marker", marker, dialect)
    if not p["parses"] or not envs:
        b.add(group, category, base, {"spec-2026": outcome_from_parse(p)})
        return
    for values in envs:
        c = dict(base, fixture=DEFAULT_FIXTURE, _evaluate=True)
        if values is not MISSING:
            env = fill_absent(marker, values)
            if env:
                c["environment"] = env
        b.add(group, category, c, {"spec-2026": b.spec_outcome(c)})


def orientations(field, op, lit):
    q = json.dumps(lit)
    return [f"{field} {op} {q}", f"{q} {op} {field}"]


def extended_cases(b: Builder):
    # Versions: cuda_version in full, the others with the common operators.
    version_values = {
        "cuda_version": ("12.8", ["12", "12.8", "12.9", "12.*", "12.8rc1", "12.8+local", "11.8.0", "twelve", "", "12.8.*"]),
        "glibc_version": ("2.35", ["2.28", "2.35", "2.40", "2.*", ""]),
        "musl_version": ("1.2.5", ["1.2", "1.2.5", "1.3", ""]),
        "cuda_compute_capability": ("8.6", ["8.0", "8.6", "9.0", "8.*", ""]),
        "cuda_compute_capability_max": ("9.0", ["8.6", "9", "9.0", "10.0", "9.*", ""]),
        "nvidia_driver_version": ("550.144.03", ["550.54.15", "550.144.3", "550", "abc", "", "550.*", "550.144.03"]),
        "cudnn_version": ("9.1.0", ["8.9", "9.1", "9.1.0", ""]),
        "cudnn_cuda_version": ("12.8", ["11.8", "12", "12.8", "12.*", ""]),
        "nccl_version": ("2.21.5", ["2.18", "2.21.5", "3", ""]),
        "cutensor_version": ("2.0.1", ["2", "2.0.1", "2.1", ""]),
        "rocm_version": ("6.3.1", ["6.2", "6.3.1", "7", ""]),
    }
    for field, (value, lits) in version_values.items():
        cat = "extended-versions"
        see = "spec/SPEC.md §4.3 absent value, §5.1 Version fields; §8"
        ops = OPS if field == "cuda_version" else ["==", "!=", "<", ">=", "~=", "===", "in"]
        for op in ops:
            for lit in lits:
                for m in orientations(field, op, lit):
                    add_extended(b, "extended", cat, m, [
                        ext_env(**{field: value}),
                        ext_env(),
                        ext_env(**{field: None}),
                    ], see)
        # Values: release-only environment values (SPEC §4.3 R; a pre-release or local value is
        # invalid-environment), trailing zeros and multi-digit components included.
        for env_value in ("12.8.0", "12.10", "12.8.1", "13.0"):
            for m in (f'{field} >= "12.8"', f'{field} == "12.8"', f'{field} < "13"', f'{field} == "12.*"'):
                if field != "cuda_version":
                    break
                add_extended(b, "extended", cat, m, [ext_env(**{field: env_value})], see + "; §4.3 release-only values")
    # Strings: python_abi_tag, interpreter_arch, host_arch, variant_label.
    for op in OPS:
        for lit in ["cp313", "cp313t", "cp3", "", "CP313t"]:
            for m in orientations("python_abi_tag", op, lit):
                add_extended(b, "extended", "extended-strings", m, [
                    ext_env(python_abi_tag="cp313t"),
                    ext_env(),
                    ext_env(python_abi_tag=None),
                ], "spec/SPEC.md §5.2, §8.2")
        for lit in ["x86_64", "aarch64", "x86", "AMD64", "arm64", "i686", "vax", ""]:
            for m in orientations("interpreter_arch", op, lit):
                add_extended(b, "extended", "interpreter-arch", m, [
                    ext_env(interpreter_arch="x86_64"),
                    ext_env(interpreter_arch="x86"),
                    ext_env(interpreter_arch=None),
                ], "spec/SPEC.md §8.3")
        for lit in ["aarch64", "x86_64", "arm64", "AMD64", ""]:
            for m in orientations("host_arch", op, lit):
                add_extended(b, "extended", "host-arch", m, [
                    ext_env(host_arch="aarch64"),
                    ext_env(host_arch="x86_64"),
                    ext_env(),
                    ext_env(host_arch=None),
                ], "spec/SPEC.md §8.12, §8.3")
    for raw in ["AMD64", "arm64", "i686", "x86_64", "PowerPC64LE", "mips"]:
        add_extended(b, "extended", "interpreter-arch", 'interpreter_arch == "' + {"AMD64": "x86_64", "arm64": "aarch64", "i686": "x86", "x86_64": "x86_64", "PowerPC64LE": "ppc64le", "mips": "mips"}[raw] + '"',
                     [ext_env(interpreter_arch=raw)], "spec/SPEC.md §8.3 and §11: environment values are mapped to the canonical spelling")
    # Sets.
    set_values = {
        "sys_abi_features": (["gil-enabled", "64-bit"], ["gil-enabled", "free-threading", "debug", "64-bit", "32-bit", "future-feature", "Free-Threading", "64 bit", ""]),
        "gpu_backends": (["cuda"], ["cuda", "rocm", "metal", "xpu", "CUDA", "cuda ", "", "cu-da"]),
        "cuda_compute_capabilities": (["8.6", "9.0"], ["8.6", "9.0", "7.5", "sm_86", "86", "8.6.0", "9.00", "09.0", "10.0", ""]),
        "rocm_gpu_archs": (["gfx90a"], ["gfx90a", "gfx942", "GFX90A", "gfx90a:sramecc+", "90a", ""]),
    }
    for field, (value, lits) in set_values.items():
        see = "spec/SPEC.md §5.4 Set fields; §8"
        for lit in lits:
            for op in ("in", "not in"):
                add_extended(b, "extended", "extended-sets", f"{json.dumps(lit)} {op} {field}", [
                    ext_env(**{field: value}),
                    ext_env(),
                    ext_env(**{field: None}),
                ], see)
        for op in OPS:
            add_extended(b, "extended", "extended-sets", f"{field} {op} {json.dumps(lits[0])}", [ext_env(**{field: value})], see)
            if op not in ("in", "not in"):
                add_extended(b, "extended", "extended-sets", f"{json.dumps(lits[0])} {op} {field}", [ext_env(**{field: value})], see)
    # Every extended field: absent and unknown, and rejected in the pep508 dialect.
    probe = {
        "Version": ('{f} >= "1"', '{f} != "1"', '{f} == ""', '{f} != ""'),
        "String": ('{f} == "x"', '{f} != "x"', '{f} in "x"', '{f} == ""', '{f} != ""'),
        "Set": ('"x" in {f}', '"x" not in {f}'),
    }
    for field, typ in EXTENDED_FIELDS.items():
        lit = {"variant_namespaces": "nvidia", "variant_features": "nvidia :: sm_arch", "variant_properties": "nvidia :: sm_arch :: 90_real",
               "sys_abi_features": "debug", "gpu_backends": "cuda", "cuda_compute_capabilities": "9.0", "rocm_gpu_archs": "gfx942",
               "variant_label": "cu128", "interpreter_arch": "riscv64", "host_arch": "riscv64", "python_abi_tag": "cp312"}.get(field, "1")
        for tmpl in probe[typ]:
            m = tmpl.format(f=field).replace('"x"', json.dumps(lit)).replace('== "x"', f"== {json.dumps(lit)}")
            add_extended(b, "extended", "absent-and-unknown", m, [ext_env(), ext_env(**{field: None}), MISSING],
                         "spec/SPEC.md §4.3 absent-value rule; §11 a missing field is Unknown")
            # The pep508 dialect rejects the name (packaging rejects it too).
            c = {"kind": "marker", "input": m, "dialect": "pep508", "see": "spec/SPEC.md §2 dialects"}
            b.add_standard("extended", "pep508-dialect", c)
            c = {"kind": "requirement", "input": f"pkg>=1; {m}", "dialect": "pep508", "see": "spec/SPEC.md §2 dialects"}
            b.add_standard("extended", "pep508-dialect", c)
    # Field vs field, literal vs literal, unknown and misspelt names in the extended dialect.
    for m in ['cuda_version >= glibc_version', 'cuda_version == python_version', 'os_name == interpreter_arch',
              '"12" >= "11"', 'gpu_backends == gpu_backends', 'cuda_compute_capabilty >= "8.0"', 'cuda_versions >= "12"',
              'cuda_compute_capability >= "8.0" and cuda_compute_capabilities >= "8.0"', 'CUDA_VERSION >= "12"',
              'cuda.version >= "12"', 'uv:glibc_version >= "2.28"']:
        add_extended(b, "extended", "extended-errors", m, [ext_env()], "spec/SPEC.md §3, §5, §12")
    # Three-valued logic (Kleene), with unknown CUDA fields.
    atoms = {
        "T": 'os_name == "posix"',
        "F": 'os_name == "nt"',
        "U": 'cuda_version >= "12"',
        "V": '"cuda" in gpu_backends',
    }
    unknown_env = ext_env(cuda_version=None, gpu_backends=None)
    for a in atoms:
        for c in atoms:
            for op in ("and", "or"):
                add_extended(b, "extended", "three-valued-logic", f"{atoms[a]} {op} {atoms[c]}", [unknown_env], "spec/SPEC.md §6.1 Kleene logic")
    for a in "TFU":
        for c in "TFV":
            for d in "TFU":
                for o1 in ("and", "or"):
                    for o2 in ("and", "or"):
                        add_extended(b, "extended", "three-valued-logic", f"({atoms[a]} {o1} {atoms[c]}) {o2} {atoms[d]}", [unknown_env], "spec/SPEC.md §6.1 Kleene logic")
                        add_extended(b, "extended", "three-valued-logic", f"{atoms[a]} {o1} ({atoms[c]} {o2} {atoms[d]})", [unknown_env], "spec/SPEC.md §6.1 Kleene logic")
    # Standard fields Unknown under spec-2026 (pep508 dialect; packaging cannot say Unknown).
    for m in ['python_full_version >= "3.12.4"', 'os_name == "posix" and python_full_version >= "3.12.4"',
              'os_name == "nt" and python_full_version >= "3.12.4"', 'os_name == "posix" or python_full_version >= "3.12.4"',
              'extra == "test" and sys_platform == "linux"']:
        for env in ({"python_full_version": None}, {"sys_platform": None}, {"python_full_version": None, "sys_platform": None}):
            c = {"kind": "marker", "input": m, "see": "spec/SPEC.md §4.2, §6.1: standard fields can be Unknown",
                 "fixture": DEFAULT_FIXTURE, "environment": env, "_evaluate": True}
            b.add("extended", "three-valued-logic", c, {"spec-2026": b.spec_outcome(c)})


def variant_cases(b: Builder):
    props = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 90_real"]
    env = ext_env(variant_label="cu128", variant_namespaces=["nvidia"],
                  variant_features=["nvidia :: cuda_version_lower_bound", "nvidia :: sm_arch"],
                  variant_properties=props)
    env_tight = ext_env(variant_label="cu128", variant_namespaces=["nvidia"],
                        variant_features=["nvidia::cuda_version_lower_bound", "nvidia::sm_arch"],
                        variant_properties=["nvidia::cuda_version_lower_bound::12.8", "nvidia::sm_arch::90_real"])
    null_env = ext_env(variant_label="null")
    envs = [env, env_tight, ext_env(), null_env, ext_env(variant_properties=None, variant_features=None, variant_namespaces=None, variant_label=None)]
    see = "spec/SPEC.md §9; PEP 825"
    literals = {
        "variant_properties": [
            "nvidia :: sm_arch :: 90_real", "nvidia::sm_arch::90_real", "  nvidia :: sm_arch :: 90_real  ", "nvidia\t::\tsm_arch\t::\t90_real",
            "nvidia ::sm_arch:: 90_real", "nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 89_real",
            "NVIDIA :: sm_arch :: 90_real", "nvidia :: sm-arch :: 90_real", "nvidia :: :: 90_real", "nvidia :: sm_arch",
            "nvidia :: sm_arch :: 90_real :: x", "nvidia : sm_arch : 90_real", "nvidia :: sm_arch :: 90,real", "nvidia :: sm_arch :: >=90",
            "", "nvidia :: sm_arch :: 9.0", "x86_64 :: level :: v3",
        ],
        "variant_features": [
            "nvidia :: sm_arch", "nvidia::sm_arch", " nvidia :: sm_arch ", "nvidia :: sm_arch :: 90_real", "nvidia", "NVIDIA :: sm_arch",
            "nvidia :: sm.arch", "x86_64 :: level", "",
        ],
        "variant_namespaces": ["nvidia", " nvidia ", "NVIDIA", "nvidia :: sm_arch", "nv-idia", "x86_64", "", "nvidia.cuda"],
    }
    for field, lits in literals.items():
        for lit in lits:
            for op in ("in", "not in"):
                add_extended(b, "variants", "variant-properties", f"{json.dumps(lit)} {op} {field}", envs, see)
        add_extended(b, "variants", "variant-properties", f"{field} == {json.dumps(lits[0])}", envs[:1], see)
        add_extended(b, "variants", "variant-properties", f"{field} in {json.dumps(lits[0])}", envs[:1], see)
    for lit in ["cu128", "null", "", "CU128", "cu 128", "cu-128", "abcdefghijklmnop", "abcdefghijklmnopq", "cu12.8", "cu_128"]:
        for op in ("==", "!=", "in", "not in", ">=", "<", "~=", "==="):
            for m in orientations("variant_label", op, lit):
                add_extended(b, "variants", "variant-label", m, envs, see)


def spec_examples(b: Builder):
    text = (ROOT / "spec" / "SPEC.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    section = ""
    names = {}
    i = 0
    codes_by_name = diagnostic_codes()
    while i < len(lines):
        line = lines[i]
        m = re.match(r"#{2,3} (\d+(?:\.\d+)?)\.? ", line)
        if m:
            section = m.group(1)
        if line.strip() != "```marker-example":
            i += 1
            continue
        start = i + 1
        ex = {"dialect": "extended", "env": None}
        i += 1
        while lines[i].strip() != "```":
            key, _, value = lines[i].partition(":")
            ex[key.strip()] = value.strip()
            i += 1
        i += 1
        given = json.loads(ex["env"]) if ex["env"] else {}
        extras = given.pop("extra", None)
        env = fill_absent(ex["marker"], given)
        c = {"kind": "marker", "input": ex["marker"], "dialect": ex["dialect"], "fixture": DEFAULT_FIXTURE,
             "see": f"spec/SPEC.md §{section}, the example at line {start}", "_evaluate": True}
        if env:
            c["environment"] = env
        if extras:
            c["extras"] = extras
        want = ex["result"]
        if want.startswith("error: "):
            name = want[len("error: "):]
            code = codes_by_name.get(name)
            if code is None:
                raise SystemExit(f"SPEC.md line {start}: unknown diagnostic {name}")
            p = b.spec_parse("marker", ex["marker"], ex["dialect"])
            if p["parses"]:
                expect = {"result": {"error": code}}
            else:
                expect = {"parses": False, "error": code}
        else:
            r = want
            if want == "true":
                r = True
            elif want == "false":
                r = False
            expect = {"result": r}
        got = b.spec_outcome(c)
        if got.get("parses", True) != expect.get("parses", True) or got.get("error") != expect.get("error") or got.get("result") != expect.get("result"):
            b.mismatches.append(f"SPEC.md line {start}: {ex['marker']!r}: the spec says {want}, markerspec {got}")
        if got.get("canonical") is not None and expect.get("parses", True):
            expect = dict({"canonical": got["canonical"]}, **expect)
        b.add("spec-examples", "spec-examples", c, {"spec-2026": expect})


def diagnostic_codes():
    """name -> code, from spec/DIAGNOSTICS.md (errors first)."""
    out = {}
    text = (ROOT / "spec" / "DIAGNOSTICS.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        m = re.match(r"\| ([A-Z]\d{3}) \| `([a-z0-9-]+)` \|", line)
        if m and m.group(2) not in out:
            out[m.group(2)] = m.group(1)
    return out


def error_code_cases(b: Builder):
    """A case for each parse error code the oracle and the tables above may not reach."""
    see = "spec/DIAGNOSTICS.md"
    for kind, text in [
        ("requirement", ">=1.0"), ("requirement", "foo_"), ("requirement", "requests[security"),
        ("requirement", "requests[security,]"), ("requirement", "requests[security tests]"),
        ("requirement", "numpy (1.0)"), ("requirement", "numpy>="), ("requirement", "numpy (>=1.0"),
        ("requirement", "pkg @ "), ("requirement", "numpy 1.0"), ("requirement", "numpy==1.0.0-beta.x"),
        ("requirement", "numpy==99999999999999999999"), ("requirement", "numpy>=1.*"), ("requirement", "numpy>=1.0+local"),
        ("requirement", "numpy~=1"), ("requirement", "numpy==1.0+"), ("requirement", "numpy==1.0a1.*"),
        ("marker", "python_version >= 3.8"), ("marker", "python_versoin >= '3'"), ("marker", "os_name = 'posix'"),
        ("marker", "'a' not os_name"), ("marker", 'os_name == "posix'), ("marker", "os_name == 'a\\x4'"),
        ("marker", "(os_name == 'nt'"), ("marker", "os_name == 'nt' AND os_name == 'posix'"), ("requirement", "numpy;"),
        ("marker", '"a" == "a"'), ("marker", "os_name == sys_platform"), ("marker", '"cuda" in extras'),
        ("marker", 'os_name ~= "posix"'), ("marker", 'python_version ~= "3"'), ("marker", 'python_version in "3.10 3.11"'),
        ("marker", 'extra < "x"'), ("marker", 'sys_platform < "linux"'), ("marker", 'python_version >= "3.x"'),
    ]:
        c = {"kind": kind, "input": text, "see": see}
        if kind == "marker" or ";" in text:
            c = dict(c, fixture=DEFAULT_FIXTURE, _evaluate=True)
        group = "requirements" if kind == "requirement" else "marker-syntax"
        b.add_standard(group, "error-codes", c)


def merged_text_cases(b: Builder):
    """spec/SPEC.md Appendix E.5: the classes of the merged text that no other case pins."""
    base = {"kind": "marker", "fixture": DEFAULT_FIXTURE, "_evaluate": True}
    # A missing value: Unknown under spec-2026, packaging's UndefinedEnvironmentName.
    see = "spec/SPEC.md Appendix E.5, missing values; §6.1"
    for text in ['python_full_version >= "3.12"', 'os_name == "posix" or python_full_version >= "3.12"',
                 'os_name == "nt" and python_full_version >= "3.12"']:
        # No fixture: the environment holds only the fields given, so the others are missing.
        c = {"kind": "marker", "input": text, "see": see, "_evaluate": True,
             "environment": {"os_name": "posix", "sys_platform": "linux"}}
        b.add_standard("operators", "merged-text", c)
    # Extra names normalised on both sides against the requested extras.
    see = "spec/SPEC.md Appendix E.5, extra-name normalisation; §5.5"
    for text, extras in [('extra == "Foo_Bar"', ["foo-bar"]), ('extra == "foo-bar"', ["Foo.Bar"]),
                         ('extra != "FOO_BAR"', ["foo-bar"]), ('"foo.bar" == extra', ["Foo__Bar"])]:
        b.add_standard("operators", "merged-text", dict(base, input=text, see=see, extras=extras))
    # platform_version is `Version | String` in the merged text; packaging 26.4 compares strings.
    see = "spec/SPEC.md Appendix E.5, platform_version; packaging quirk: compared as a string"
    for value in ["13", "13.0.1", "Darwin Kernel Version 24.1.0"]:
        for text in ['platform_version >= "12"', 'platform_version < "12"', 'platform_version == "13.0"',
                     'platform_version ~= "13.0"', '"12" < platform_version', 'platform_version == "Darwin Kernel Version 24.1.0"']:
            b.add_standard("operators", "merged-text", dict(base, input=text, see=see, environment={"platform_version": value}))
    # The legacy `extra` in lock-file context.
    see = "spec/SPEC.md Appendix E.5, the legacy extra in lock files"
    for text in ['extra == "gpu"', '"gpu" != extra', '"cuda" in extras or extra == "gpu"']:
        b.add_standard("extras", "merged-text", dict(base, input=text, see=see, lock_file=True,
                                                     environment={"extras": ["cuda"]}))


def uv_tracking_cases(b: Builder):
    """Inputs on which uv-pep508 0.0.98 and the `uv` profile's reading of it were checked: URL
    authorities (uv parses URLs with the WHATWG rules, so an scp-style `host:path` is an invalid
    port), and `python_version` against `0`."""
    see = "uv-pep508 0.0.98"
    for text in [
        "package@git+ssh://git@github.com:pypa/packaging.git",
        "package @ git+ssh://git@github.com:22/pypa/packaging.git",
        "package @ git+ssh://git@github.com:/pypa/packaging.git",
        "pkg @ https://example.com:65536/pkg-1.0.tar.gz",
        "pkg @ https://example.com:0443/pkg-1.0.tar.gz",
        "pkg @ git+https://[::1]:8080/repo.git",
        "pkg @ git+https://[::1/repo.git",
        "pkg @ git+ssh://git@:22/repo.git",
        "pkg @ git+ssh:///srv/repo.git",
    ]:
        b.add_standard("requirements", "urls", {"kind": "requirement", "input": text, "see": see})
    for text in ['python_version < "0"', 'python_version >= "0.0"', 'python_version <= "0"']:
        b.add_standard("versions", "version-comparison",
                       {"kind": "marker", "input": text, "see": see, "fixture": DEFAULT_FIXTURE, "_evaluate": True})


# ---------------------------------------------------------------------------------------------
# Output


def load_old():
    old = {}
    if not VECTORS.exists():
        return old
    for p in sorted(VECTORS.glob("*.json")):
        if p.name == "schema.json":
            continue
        doc = json.loads(p.read_text(encoding="utf-8"))
        for c in doc.get("cases", []):
            old[identity(c)] = (p.stem, c["name"], c)
    return old


def slug(category):
    return category


def assign_names(b: Builder):
    for group, cases in b.cases.items():
        used = set()
        for c in cases:
            prev = b.old.get(c["_key"])
            if prev and prev[0] == group and prev[1].rsplit("-", 1)[0] == slug(c["category"]) and prev[1] not in used:
                c["name"] = prev[1]
                used.add(prev[1])
        counters = defaultdict(lambda: 100)
        for c in cases:
            if c["name"] is not None:
                continue
            s = slug(c["category"])
            while f"{s}-{counters[s]}" in used:
                counters[s] += 1
            c["name"] = f"{s}-{counters[s]}"
            used.add(c["name"])


def write(b: Builder):
    VECTORS.mkdir(parents=True, exist_ok=True)
    for group in sorted(b.cases):
        cases = b.cases[group]
        lines = []
        for c in cases:
            c = OrderedDict((k, v) for k, v in c.items() if k != "_key")
            lines.append(json.dumps(c, ensure_ascii=False))
        body = ",\n".join(lines)
        head = json.dumps({"$schema": "./schema.json", "description": GROUP_DESCRIPTIONS[group]}, ensure_ascii=False)[:-1]
        text = head + ', "cases": [\n' + body + "\n]}\n"
        (VECTORS / f"{group}.json").write_text(text, encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markerspec", default=str(ROOT / "target" / "debug" / "markerspec"), help="the markerspec binary")
    ap.add_argument("--uv", help="command running the uv-pep508 adapter; without it existing uv outcomes are kept")
    args = ap.parse_args()
    if packaging.__version__ != "26.4":
        raise SystemExit(f"packaging {packaging.__version__} is installed; the vectors record packaging 26.4")
    ms = Client(f"{args.markerspec} conformance --serve")
    uv = Client(args.uv) if args.uv else None
    if uv and "uv" not in uv.hello.get("profiles", []):
        raise SystemExit(f"{args.uv} does not claim the uv profile")
    b = Builder(ms, uv, load_old())
    spec_examples(b)
    oracle_cases(b)
    corpus_cases(b)
    limits_cases(b)
    error_code_cases(b)
    uv_tracking_cases(b)
    merged_text_cases(b)
    extended_cases(b)
    variant_cases(b)
    if b.mismatches:
        print("\n".join(b.mismatches[:50]), file=sys.stderr)
        raise SystemExit(f"{len(b.mismatches)} disagreements (oracle vs adapter, or the spec text vs markerspec)")
    assign_names(b)
    write(b)
    total = sum(len(c) for c in b.cases.values())
    for group in sorted(b.cases):
        cats = defaultdict(int)
        for c in b.cases[group]:
            cats[c["category"]] += 1
        print(f"{group}: {len(b.cases[group])} ({', '.join(f'{k} {v}' for k, v in sorted(cats.items()))})", file=sys.stderr)
    print(f"{total} cases", file=sys.stderr)
    if uv:
        print(f"uv adapter: {uv.crashes} crashes, {len(b.uv_crashes)} cases without a uv outcome", file=sys.stderr)
        for text, why in b.uv_crashes[:20]:
            print(f"  uv crash: {text!r}: {why}", file=sys.stderr)
    ms.close()
    if uv:
        uv.close()


if __name__ == "__main__":
    main()
