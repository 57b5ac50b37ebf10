#!/usr/bin/env python3
"""Record what pypa/packaging 26.4 does with PEP 440 versions and specifiers.

Writes two JSON files next to this script, read by ``tests/oracle.rs``:

* ``versions.json``: for each version input, whether ``Version(text)`` accepts it and, if so, its
  ``str()``, parts and properties; and ordered pairs of valid versions with packaging's comparison.
* ``specifiers.json``: for each specifier input, whether ``Specifier(text)`` accepts it and its
  ``str()``, ``operator``, ``version`` and ``prereleases``; ``Specifier.contains(item,
  prereleases)`` for every specifier against a shared list of items, with prereleases None, True
  and False (as strings of ``1``/``0``, one character per item); the same for ``SpecifierSet``;
  and equality of specifier and set pairs.

Inputs that hold a number larger than 2**64 - 1 are recorded with ``"diverges":
"number-too-large"``: packaging accepts them, markerspec rejects them on purpose (see the crate
docs). Everything is generated from fixed lists and a seeded random generator, so running the
script again with the same packaging gives the same files.

Usage: /work/venv-packaging/bin/python crates/pep440/tests/oracle/generate.py
"""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import packaging
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version

EXPECTED_PACKAGING = "26.4"
HERE = Path(__file__).resolve().parent
U64_MAX = 2**64 - 1
RNG = random.Random(440)

# Python's `\s`: what packaging strips around versions and specifiers.
PY_SPACES = ["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000"]


def too_large(text: str) -> bool:
    """Whether a run of digits in text is larger than a u64."""
    return any(int(run) > U64_MAX for run in re.findall(r"[0-9]+", text) if len(run) >= 20)


def too_many_digits(text: str) -> bool:
    """Whether Python's int() would refuse a run of digits (its 4300-digit limit)."""
    return any(len(run) > 4000 for run in re.findall(r"[0-9]+", text))


# --------------------------------------------------------------------------------------------
# Version inputs

# From PEP 440 and packaging's own test-suite categories.
CURATED_VERSIONS = [
    # Implicit epoch of 0, release only
    "1.0", "1.1", "2.0", "2013.10", "2014.04", "1", "1.0.0", "1.0.0.0", "1.0.0.0.0", "0", "0.0",
    "00", "01.02.03", "1.2.3.4.5.6.7.8.9.10",
    # Pre-releases
    "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
    "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0c1", "1.0c2",
    "1.0pre1", "1.0preview1", "1.0alpha1", "1.0beta1", "1.0PRE", "1.0Preview", "1.0RC1",
    "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1",
    # Epochs
    "7!1.0.dev456", "7!1.0a1", "7!1.0a2.dev456", "7!1.0a12.dev456", "7!1.0a12",
    "7!1.0b1.dev456", "7!1.0b2", "7!1.0b2.post345.dev456", "7!1.0b2.post345",
    "7!1.0rc1.dev456", "7!1.0rc1", "7!1.0", "7!1.0.post456.dev34", "7!1.0.post456",
    "7!1.0.15", "7!1.1.dev1", "0!1.0", "00!1.0", "1!0",
    # Local versions
    "1.0+abc", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0+ubuntu-1", "1.0+ubuntu_1", "1.0+ABC",
    "1.0+abc.def.1.2", "1.0+1.abc", "1.0+007", "1.0+0", "1.0+a0b", "1.0+123abc", "1.0+abc123",
    "1.0a1+abc", "1.0.post1+abc", "1.0.dev1+abc", "1!1.0+abc", "1.0+1-2_3.4",
    # Normalisation forms
    "1.0-a1", "1.0_a1", "1.0.a1", "1.0a.1", "1.0a-1", "1.0a_1", "1.0-alpha-1", "1.0ALPHA1",
    "1.0a", "1.0b", "1.0c", "1.0rc", "1.0-rc", "1.0.rc.1", "1.0-1", "1.0-0", "1.0post",
    "1.0.post", "1.0-post", "1.0_post", "1.0post1", "1.0-post-1", "1.0.post.1", "1.0.rev1",
    "1.0r1", "1.0-r-1", "1.0REV", "1.0-1-dev", "1.0dev", "1.0.dev", "1.0-dev", "1.0_dev",
    "1.0dev1", "1.0-dev-1", "1.0.dev.1", "1.0DEV1", "1.0a1-1", "1.0a1.r2", "1.0a1post2",
    "1.0a1-dev", "1.0a-", "1.0a.", "1.0.post-", "1.0.dev_", "1.0a--dev", "1.0a-.dev",
    "v1.0", "V1.0", "v1!1.0", "  1.0", "1.0  ", " \t1.0\n", "1.0\r\n",
    "1.0.0-rc.1+build.1", "1!2.3.4a5.post6.dev7+eight.9",
    # Invalid
    "", " ", "french toast", "1.0+", "1.0++", "1.0+abc+def", "1.0+_abc", "1.0+abc_",
    "1.0+abc.", "1.0+.abc", "1.0+a~b", "1.0+a/b", "1.0+a b", "1.0+é", "1.0.", ".1.0",
    "1..0", "1.0..", "1.0.*", "1.*", "1.0.x", "1.0foo", "1.0a1foo", "1.0-foo", "1.0!2",
    "1!2!3", "!1.0", "1!", "v", "vv1.0", "1.0v", "1.0a1a2", "1.0.post1.post2",
    "1.0.dev1.post1", "1.0.dev1a1", "1.0.post1a1", "1.0a1.2", "1.0 a1", "1.0 1", "1. 0",
    "1.0-", "1.0_", "1.0--1", "1.0-1-1", "1.0preview-", "1.0prev", "1.0al", "1.0alph1",
    "1.0-a-", "1.0.dev1.dev2", "1.0rc1.rc2", "1.0,2.0", "1.0;", "1.0)", "(1.0)", "=1.0",
    "1.0 ; python_version", "1.0\u00a0+abc", "1.0\x00", "1\u0661", "\u0661.0", "１.０",
    "1.0+ǅ", "1.0K", "1.0+\u212a", "1.0ſost1", "1.0+abc\n.def",
    "1.0\u200b", "\u200b1.0", "1.0\u2028", "\u2029 1.0", "1.0\x1c", "\x1f1.0", "1.0\x1b",
]

RELEASES = ["0", "1", "1.0", "1.2", "1.2.3", "1.2.3.4", "1.2.3.4.5", "01.002", "2013.10.4",
            "0.0.0", "10.20.30.40"]
EPOCHS = ["", "1!", "01!", "20!"]
PRES = ["", "a", "a1", "A2", "-a1", ".a1", "_a1", "a.1", "a-1", "a_1", "alpha", "alpha3",
        "-alpha.3", "b", "b2", "beta", "BETA4", "c", "c5", "rc", "rc1", "-rc.1", "RC6", "pre",
        "pre7", "preview", "preview8", ".preview.8", "a0", "a000", "-a", "a-", "a."]
POSTS = ["", "-1", "-0", ".post1", "post", "post2", "-post3", "_post_4", ".post.5", "rev",
         "rev6", "r", "r7", ".r.8", "POST9", "-rev-10", ".post", "post-", "-r"]
DEVS = ["", ".dev0", "dev", "dev1", "-dev2", "_dev_3", ".dev.4", "DEV5", ".dev", "-dev-",
        "dev_"]
LOCALS = ["", "+abc", "+1", "+abc.1", "+1.abc", "+ABC-1_def", "+007", "+0.0", "+a.b.c.1.2.3",
          "+local.version.123"]


def combinatoric_versions(count: int) -> list[str]:
    out = []
    for _ in range(count):
        out.append(
            RNG.choice(["", "", "", "v"])
            + RNG.choice(EPOCHS)
            + RNG.choice(RELEASES)
            + RNG.choice(PRES)
            + RNG.choice(POSTS)
            + RNG.choice(DEVS)
            + RNG.choice(LOCALS)
        )
    return out


FUZZ_ALPHABET = "0123456789" * 3 + "....--__++!!" + "vVaAbBcCrRpPeEdDoOsStTlLhHwWiI" + " *x~,;"


def fuzz_versions(count: int) -> list[str]:
    out = []
    for _ in range(count):
        n = RNG.randint(1, 14)
        out.append("".join(RNG.choice(FUZZ_ALPHABET) for _ in range(n)))
    return out


def mutate(text: str) -> str:
    """One random edit: insert, delete or replace a character."""
    pos = RNG.randint(0, len(text))
    choice = RNG.random()
    ch = RNG.choice(FUZZ_ALPHABET)
    if choice < 0.4 or not text:
        return text[:pos] + ch + text[pos:]
    pos = min(pos, len(text) - 1)
    if choice < 0.7:
        return text[:pos] + text[pos + 1:]
    return text[:pos] + ch + text[pos + 1:]


def whitespace_versions() -> list[str]:
    out = []
    for ws in PY_SPACES + [" ", "\u200b", "\ufeff", "\u180e"]:
        out += [ws + "1.0", "1.0" + ws, ws + "1.0a1+abc" + ws, "1.0" + ws + "a1"]
    return out


BIG = str(U64_MAX)
BIG1 = str(U64_MAX + 1)
BIG_VERSIONS = [
    BIG, BIG1, f"1.{BIG}", f"1.{BIG1}", f"{BIG}!1.0", f"{BIG1}!1.0", f"1.0a{BIG}",
    f"1.0a{BIG1}", f"1.0.post{BIG}", f"1.0.post{BIG1}", f"1.0-{BIG1}", f"1.0.dev{BIG}",
    f"1.0.dev{BIG1}", f"1.0+{BIG}", f"1.0+{BIG1}", f"1.0+abc.{BIG1}", "9" * 40,
    "0" * 30 + "1", "1." + "0" * 50, f"1.0+{'0' * 25}7", f"{BIG}.{BIG}.{BIG}.{BIG}.{BIG}",
    "4294967295", "4294967296", "1.0a4294967295", "1.0.post4294967295", "1.0.dev4294967295",
    "4294967295!1", "1.2.3.4.4294967295",
]


def version_record(text: str) -> dict:
    record: dict = {"input": text}
    if too_large(text):
        try:
            Version(text)
            record["diverges"] = "number-too-large"
        except InvalidVersion:
            record["valid"] = False
        return record
    try:
        v = Version(text)
    except InvalidVersion:
        record["valid"] = False
        return record
    record.update(
        valid=True,
        str=str(v),
        epoch=v.epoch,
        release=list(v.release),
        pre=list(v.pre) if v.pre is not None else None,
        post=v.post,
        dev=v.dev,
        local=v.local,
        public=v.public,
        is_prerelease=v.is_prerelease,
        is_postrelease=v.is_postrelease,
        is_devrelease=v.is_devrelease,
    )
    return record


def all_version_inputs() -> list[str]:
    inputs = list(CURATED_VERSIONS)
    inputs += combinatoric_versions(1500)
    inputs += fuzz_versions(700)
    seeds = [t for t in CURATED_VERSIONS if t.strip()]
    inputs += [mutate(RNG.choice(seeds)) for _ in range(500)]
    inputs += whitespace_versions()
    inputs += BIG_VERSIONS
    return [t for t in dict.fromkeys(inputs) if not too_many_digits(t)]


# Versions to order: families around a few releases, so every pre/post/dev/local interaction
# meets its neighbours.
FAMILY_SUFFIXES = ["", ".dev0", ".dev1", "a1.dev0", "a1", "a1.post1.dev0", "a1.post1", "a2",
                   "b1", "rc1", "rc1.post0", ".post0.dev0", ".post0", ".post1.dev1", ".post1",
                   "+abc", "+abc.1", "+1", "+1.abc", "+0", "a1+abc", ".post1+1", ".dev0+z"]
FAMILY_BASES = ["0", "0.0", "1", "1.0", "1.0.0", "1.0.1", "1.1", "1.10", "2", "1!0", "1!1.0"]


def ordering_versions() -> list[Version]:
    texts = [b + s for b in FAMILY_BASES for s in FAMILY_SUFFIXES]
    return [Version(t) for t in texts]


def comparisons(versions: list[Version]) -> list[dict]:
    ordered = sorted(versions)
    pairs = set()
    for a, b in zip(ordered, ordered[1:]):
        pairs.add((str(a), str(b)))
        pairs.add((str(b), str(a)))
    for _ in range(3000):
        a, b = RNG.choice(versions), RNG.choice(versions)
        pairs.add((str(a), str(b)))
    # Equal under different spellings.
    for a, b in [("1.0", "1.0.0"), ("1", "1.0.0.0"), ("1.0a", "1.0alpha0"), ("1.0-1", "1.0.post1"),
                 ("1.0+ABC", "1.0+abc"), ("1.0+01", "1.0+1"), ("0!1", "1"), ("v1", "1.0"),
                 ("1.0c1", "1.0rc1"), ("1.0+a-b", "1.0+a.b"), ("1.0+1.0", "1.0+1"),
                 ("1.0.0+abc", "1+abc")]:
        pairs.add((a, b))
    out = []
    for a, b in sorted(pairs):
        va, vb = Version(a), Version(b)
        cmp = (va > vb) - (va < vb)
        out.append({"a": a, "b": b, "cmp": cmp})
    return out


# --------------------------------------------------------------------------------------------
# Specifier inputs

OPERATORS = ["==", "!=", "~=", "<", "<=", ">", ">=", "==="]
SPEC_VERSIONS = ["1", "1.0", "1.0.0", "1.2", "1.2.3", "2", "0", "0.0", "1.0a1", "1.0b2.dev1",
                 "1.0rc1", "1.0.dev0", "1.0.dev1", "1.0.post1", "1.0.post0", "1.0.post1.dev1",
                 "1.0a1.post1", "1!1.0", "1.0+abc", "1.0+1", "1.0a1+abc", "1.*", "1.0.*",
                 "1.2.*", "0.*", "1!1.*", "1.0a1.*", "1.0+abc.*", "1.0.post1.*", "v1.0",
                 "V1.0.*", "1.0-1", "1.0_rc_1", "1.0.0.0", "2.0.0.*", "foo", "1.0;", "1.0)",
                 "*", ".*", "1.*.*", "1.0.**", "1.0.", "abc.def", "FOO", "1.0 ", " 1.0",
                 "=1.0", "1.0,2.0",
                 # Spellings that differ from the canonical text (kept as written by str()).
                 "01.0", "1.00", "0!1.0", "1!01.0", "1.0+ABC", "1.0+a-b", "1.0+a_b", "1.0+007",
                 "1.0+0", "1.0+00", "1.0a01", "1.0A1", "1.0.a1", "1.0alpha1", "1.0.post01",
                 "1.0post1", "1.0-post1", "1.0.POST1", "1.0.dev01", "1.0dev1", "1.0.dev", "1.0a",
                 "1.0rc", "1.0.rev1", "01.*", "1.00.*", "0!1.*", "1.0-rc1", "1.0+Abc.1"]


def specifier_inputs() -> list[str]:
    inputs = []
    for op in OPERATORS:
        for v in SPEC_VERSIONS:
            inputs.append(op + v)
    for op in OPERATORS:
        inputs += [op, op + " ", " " + op + " 1.0 ", op + "\t1.0", op + "\u00a01.0",
                   op + " v1.0", op + "1.0\x1c"]
    inputs += ["", " ", "1.0", "=1.0", "=>1.0", "=<1.0", "<>1.0", "~1.0", "~>1.0", "!1.0",
               "====1.0", "== =1.0", ">==1.0", "<<1.0", ">>1.0", "!==1.0", "~==1.0", "=~1.0",
               "==1.0==", "== 1.0 .*", "==1.0 .*", "==1. *", ">= 1.0 , < 2", "===", "=== ",
               "===;", "===)", "===foo bar", "===foo;", "===foo)", "===a,b", "===\u00e9",
               "===F\u00d6\u00d6", "=== 1.0", "===1.0\n", "\n===1.0", "~=1", "~=1.*", "~=1.0.*",
               "~=1.0+abc", "~=1!1", "~=1!1.0", "~=v1", "~=1a1", "~=1.0a1", "~=1.0.post1.dev1",
               "<1.0+abc", ">1.0+abc", "<=1.0+abc", ">=1.0+abc", "==1.0+", "==1.0+abc.",
               "==1.0+a~b", "==1.0a1.*", "!=1.0.dev0.*", "== v1.0.*", "==1.0.*+abc",
               f"=={BIG1}", f"=={BIG}.*", f"~={BIG}.{BIG}", f">1.0.post{BIG}", f"<1.0.dev{BIG}",
               f"==1.0+{BIG1}", f"==={BIG1}"]
    fuzz_alphabet = FUZZ_ALPHABET + "=<>!~" * 3
    for _ in range(600):
        n = RNG.randint(1, 12)
        inputs.append("".join(RNG.choice(fuzz_alphabet) for _ in range(n)))
    for _ in range(400):
        inputs.append(mutate(RNG.choice(OPERATORS) + RNG.choice(SPEC_VERSIONS)))
    return [t for t in dict.fromkeys(inputs) if not too_many_digits(t)]


def specifier_record(text: str) -> dict:
    record: dict = {"input": text}
    try:
        spec = Specifier(text)
    except InvalidSpecifier:
        record["valid"] = False
        if too_large(text):
            record["note"] = "number-too-large"
        return record
    if too_large(text):
        if spec.operator != "===":
            record["diverges"] = "number-too-large"
            return record
        # Valid in both, but the text is a version only for packaging.
        record["note"] = "number-too-large"
    record.update(
        valid=True,
        str=str(spec),
        operator=spec.operator,
        version=spec.version,
        prereleases=spec.prereleases,
    )
    return record


# Specifiers for membership: every operator against versions from the families, plus wildcards,
# locals and arbitrary text.
CONTAINS_VERSIONS = ["0", "1", "1.0", "1.0.0", "1.1", "2", "1!1.0", "1.0.dev0", "1.0.dev1",
                     "1.0a1", "1.0a1.dev0", "1.0a1.post1", "1.0rc1", "1.0.post0", "1.0.post1",
                     "1.0.post1.dev0", "1.0.post1.dev1", "1.1a1", "0.dev0", "0.0.dev0"]
CONTAINS_LOCAL = ["1.0+abc", "1.0+1", "1.0a1+abc", "1.0.post1+abc"]
CONTAINS_WILDCARDS = ["0", "1", "1.0", "1.0.0", "1.1", "2", "1!1", "1!1.0", "1.0.0.0"]
CONTAINS_ARBITRARY = ["1.0", "1.0.0", "1.0+ABC", "1.0a1", "foo", "FOO", "1.0.*", "v1.0", "1.0RC1",
                      "1.0-1", "1.0+abc", "\u00c9t\u00e9", "\u03a3\u0391\u03a3"]


def contains_specifiers() -> list[str]:
    specs = []
    for op in ["==", "!=", "~=", "<", "<=", ">", ">="]:
        for v in CONTAINS_VERSIONS:
            if op == "~=" and "." not in v.split("!")[-1].split("a")[0].split(".dev")[0]:
                continue
            specs.append(op + v)
    for op in ["==", "!="]:
        for v in CONTAINS_LOCAL:
            specs.append(op + v)
        for v in CONTAINS_WILDCARDS:
            specs.append(op + v + ".*")
    for v in CONTAINS_ARBITRARY:
        specs.append("===" + v)
    specs += ["~=1.0.0", "~=1.0.1", "~=1.1", "~=1!1.0", "~=1.0a1", "~=1.0.post1", "~=0.0",
              "== 1.0", ">=V1.0", "<1.0-1", ">1.0_rc_1", "==1.0.0.0+abc", f"<={BIG}",
              f"=={BIG}.*", f"~={BIG}.{BIG}", f"<1.0.dev{BIG}", f">1.0.post{BIG}",
              f">1.0.dev{BIG}", f"<{BIG}"]
    return list(dict.fromkeys(specs))


def contains_items() -> list[str]:
    items = []
    for base in ["0", "0.0", "1", "1.0", "1.0.0", "1.0.1", "1.1", "1.10", "2", "1!1.0", "1!1.1",
                 "1!0"]:
        for suffix in ["", ".dev0", ".dev1", "a1.dev0", "a1", "a1.post1", "a2", "rc1",
                       ".post0", ".post1.dev0", ".post1", ".post2", "+abc", "+1", "a1+abc",
                       ".post1+abc", ".dev0+abc"]:
            items.append(base + suffix)
    items += ["1.0+ABC", "1.0+abc.1", "1.0+0", "1.0.0+abc", "1.0.0.0", "v1.0", "V1.0", "1.0RC1",
              "1.0-1", " 1.0", "1.0 ", "FOO", "foo", "1.0.*", "", "1.0+", "\u00e9t\u00e9",
              "\u03c3\u03b1\u03c2", "\u03a3\u0391\u03a3", f"{BIG}", f"1.0.dev{BIG}",
              f"1.0.post{BIG}", f"{BIG}.{BIG}", "0.dev0+abc"]
    return list(dict.fromkeys(items))


def bits(values) -> str:
    return "".join("1" if v else "0" for v in values)


def version_or_none(item: str) -> Version | None:
    if too_large(item):
        return None
    try:
        return Version(item)
    except InvalidVersion:
        return None


def spec_contains(spec, items: list[str]) -> dict:
    """Contains results for str items (all three prerelease settings) and for Version items."""
    record = {}
    for name, pre in [("none", None), ("true", True), ("false", False)]:
        record[name] = bits(spec.contains(item, prereleases=pre) for item in items)
    versions = [version_or_none(item) for item in items]
    for name, pre in [("version_none", None), ("version_false", False)]:
        record[name] = "".join(
            "-" if v is None else ("1" if spec.contains(v, prereleases=pre) else "0")
            for v in versions
        )
    return record


def set_inputs(specs: list[str]) -> list[str]:
    out = ["", " ", ",", " , ", ",,>=1.0,,", ">=1.0,", ",<2", ">=1.0 , <2.0",
           ">=1.0,<2.0,!=1.5", "==1.0,==1.0.0", "==1.0.0,==1.0", "~=1.0,~=1.0.0", "===1.0,==1.0",
           "===foo,===FOO", "===foo,>=1", ">=1,<1", ">1.0,<1.0.post1", ">=1.0a1,<1.0",
           "!=1.0.*,==1.0.1", ">=1.0, foo", ">=1.0,,=>2", ">=1.0;", "==1.0+abc,<=1.0",
           "<1.0,>=1.0.dev0", ">1.0a1,<1.0a2.dev0", ">=1.0.dev0,<1.0a1", "<=1.0,>=1.0",
           "==1.*,!=1.0", "~=1.0,!=1.5.*", "===1.0+ABC", ">=1.0.post1,<1.0.post2",
           ">1.0.post1.dev1,<1.0.post1", ">=1.0rc1,<1.0", "~=1.0a1,<1.0", "!=1.0,!=1.0.0"]
    for _ in range(250):
        k = RNG.randint(2, 3)
        out.append(",".join(RNG.sample(specs, k)))
    return list(dict.fromkeys(out))


def set_record(text: str, items: list[str]) -> dict:
    record: dict = {"input": text}
    try:
        spec_set = SpecifierSet(text)
    except InvalidSpecifier:
        record["valid"] = False
        return record
    # `len` first: str() sorts and deduplicates the specifiers in place, which changes `len`.
    record["len"] = len(spec_set)
    record.update(valid=True, str=str(spec_set), prereleases=spec_set.prereleases)
    record.update(spec_contains(spec_set, items))
    return record


def equality_pairs(texts: list[str], maker, count: int) -> list[dict]:
    valid = []
    for t in texts:
        try:
            valid.append((t, maker(t)))
        except InvalidSpecifier:
            pass
    pairs = set()
    by_op: dict = {}
    for t, s in valid:
        key = str(s)[:2]
        by_op.setdefault(key, []).append((t, s))
    for group in by_op.values():
        for _ in range(count):
            (a, _), (b, _) = RNG.choice(group), RNG.choice(group)
            pairs.add((a, b))
    out = []
    for a, b in sorted(pairs):
        sa, sb = maker(a), maker(b)
        out.append({"a": a, "b": b, "equal": sa == sb})
    return out


SPEC_EQUALITY_EXTRA = ["==1.0", "==1.0.0", "== 1.0", "==v1.0", "==1.0+abc", "==1.0.0+ABC",
                       "~=1.0", "~=1.0.0", "~=1.00", "==1.0.*", "==1.0.0.*", "== 1.0.*",
                       "==V1.0.*", "===foo", "===FOO", "=== foo", ">=1.0", ">=1", ">=1.0a",
                       ">=1.0a0", "!=1.0.*", "!=1.0", "<1.0-1", "<1.0.post1", "==1!1.0", "==1.0c1",
                       "==1.0rc1"]


def main() -> None:
    assert packaging.__version__ == EXPECTED_PACKAGING, packaging.__version__

    version_inputs = all_version_inputs()
    versions_doc = {
        "meta": {
            "generator": "crates/pep440/tests/oracle/generate.py",
            "packaging": packaging.__version__,
        },
        "versions": [version_record(t) for t in version_inputs],
        "comparisons": comparisons(ordering_versions()),
    }

    spec_texts = specifier_inputs()
    items = contains_items()
    contains_specs = contains_specifiers()
    spec_records = []
    for text in contains_specs:
        record = {"spec": text}
        record.update(spec_contains(Specifier(text), items))
        spec_records.append(record)
    sets = set_inputs(contains_specs)
    specs_doc = {
        "meta": versions_doc["meta"],
        "specifiers": [specifier_record(t) for t in spec_texts],
        "items": items,
        "contains": spec_records,
        "sets": [set_record(t, items) for t in sets],
        "specifier_equality": equality_pairs(
            contains_specs + SPEC_EQUALITY_EXTRA, Specifier, 60
        ) + [
            {"a": a, "b": b, "equal": Specifier(a) == Specifier(b)}
            for a, b in itertools.combinations(SPEC_EQUALITY_EXTRA, 2)
        ],
        "set_equality": equality_pairs(sets, SpecifierSet, 30),
    }

    for name, doc in [("versions.json", versions_doc), ("specifiers.json", specs_doc)]:
        path = HERE / name
        with path.open("w", encoding="utf-8") as f:
            f.write("{\n")
            keys = list(doc)
            for i, key in enumerate(keys):
                value = doc[key]
                f.write(f"{json.dumps(key)}: ")
                if isinstance(value, list):
                    f.write("[\n")
                    for j, item in enumerate(value):
                        sep = "," if j + 1 < len(value) else ""
                        f.write(f"  {json.dumps(item, ensure_ascii=True, sort_keys=True)}{sep}\n")
                    f.write("]")
                else:
                    f.write(json.dumps(value, sort_keys=True))
                f.write(",\n" if i + 1 < len(keys) else "\n")
            f.write("}\n")
        print(f"wrote {path}")

    n_versions = len(versions_doc["versions"])
    n_cmp = len(versions_doc["comparisons"])
    n_specs = len(specs_doc["specifiers"])
    n_contains = len(spec_records) * len(items) * 5
    n_sets = len(specs_doc["sets"])
    print(f"{n_versions} versions, {n_cmp} comparisons, {n_specs} specifiers, "
          f"{len(spec_records)} x {len(items)} x 5 contains checks ({n_contains}), {n_sets} sets")


if __name__ == "__main__":
    main()
