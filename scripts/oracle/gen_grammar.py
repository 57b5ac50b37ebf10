#!/usr/bin/env python3
"""Generate tests/data/packaging-oracle/grammar.txt.

A deterministic list (no randomness, fixed iteration order, duplicates dropped
keeping the first occurrence) of requirement and marker strings that exercise
every production of the PEP 508 grammar as packaging implements it, plus the
corners where implementations tend to disagree. Each section below says what
it covers. Every input is fed to the oracle both as a requirement and as a
marker, so one list serves both kinds.

Usage: python scripts/oracle/gen_grammar.py [OUTPUT.txt]
"""

from __future__ import annotations

import sys
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pep508_oracle import encode_input_line  # noqa: E402

OUT: list[str] = []
SEEN: set[str] = set()


def add(*items: str) -> None:
    for s in items:
        if s not in SEEN:
            SEEN.add(s)
            OUT.append(s)


# --------------------------------------------------------------------------
# Marker vocabulary
# --------------------------------------------------------------------------
FIELDS = [
    "python_version",
    "python_full_version",
    "implementation_version",
    "platform_release",
    "os_name",
    "sys_platform",
    "platform_machine",
    "platform_system",
    "platform_version",
    "platform_python_implementation",
    "implementation_name",
    "extra",
    "extras",
    "dependency_groups",
]
# PEP 345 / legacy spellings (some accepted, some not), and unknown names.
ALIASES = [
    "os.name",
    "sys.platform",
    "platform.version",
    "platform.machine",
    "platform.python_implementation",
    "python_implementation",
    "platform.release",
    "platform.system",
    "python.version",
    "os_name_",
    "Os_name",
    "OS_NAME",
    "osname",
    "os-name",
    "os..name",
    "implementation.name",
    "extra_",
    "platform_python_implementation.",
    "foo",
    "_os_name",
    "python_versions",
    "dependency_group",
]
OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]
VALUES = {
    "python_version": ["3.12", "3.9", "3", "3.10 3.11", "3.x", "foo", "3.*", "3.12.0", "", "3.12.*", "3.14", "3.1"],
    "python_full_version": ["3.12.7", "3.14.0rc1", "3.14.0", "3.13.1+local", "3.12.*", "3.13.1", "3.9.2", "3.12", "3.14.0rc1.*"],
    "implementation_version": ["3.12.7", "7.3", "3.14.0rc1", "7.3.17", "3.14.0", "pypy"],
    "platform_release": ["5.0", "6.8.0-49-generic", "24.1.0", "10", "6.8", "11", "5.15.167.4-microsoft-standard-WSL2", "generic"],
    "os_name": ["posix", "nt", "os", "POSIX", "", "java"],
    "sys_platform": ["linux", "win32", "darwin", "lin", "linux2", "cygwin", "emscripten"],
    "platform_machine": ["x86_64", "AMD64", "arm64", "aarch64", "X86_64", "x86"],
    "platform_system": ["Linux", "Windows", "Darwin", "linux", "Java"],
    "platform_version": ["10.0.19045", "#1 SMP", "Darwin Kernel", "10.0"],
    "platform_python_implementation": ["CPython", "PyPy", "cpython", "Jython"],
    "implementation_name": ["cpython", "pypy", "CPython", "graalpy"],
    "extra": ["test", "Test", "foo-bar", "Foo_Bar", "cuda", "", "TEST", "te", "foo.bar", "test cuda"],
    "extras": ["cuda", "CUDA", "test", "Cu_Da", "", "cuda test"],
    "dependency_groups": ["dev", "Dev", "DEV", "test", "d-e-v", ""],
}


def q(v: str, quote: str = '"') -> str:
    return f"{quote}{v}{quote}"


def marker_sections() -> None:
    # 1. Every field x every operator, both orientations, first few values.
    for f in FIELDS:
        for op in OPS:
            for v in VALUES[f][:3]:
                add(f"{f} {op} {q(v)}")
                add(f"{q(v)} {op} {f}")
    # 2. Every field x every value with the common operators.
    for f in FIELDS:
        for v in VALUES[f]:
            for op in ("==", "!=", ">=", "<", "in", "not in"):
                add(f"{f} {op} {q(v)}")
            for op in ("in", "not in", "==", "<="):
                add(f"{q(v)} {op} {f}")
    # 3. Aliases and unknown variables.
    for a in ALIASES:
        for op in ("==", ">=", "in"):
            add(f"{a} {op} \"posix\"", f"\"posix\" {op} {a}")
        add(f"{a} == 'CPython'", f"{a} == \"3.12\"")
    # 4. Variable vs variable.
    vv = [
        "python_version", "python_full_version", "os_name", "sys_platform",
        "platform_release", "extra", "extras", "dependency_groups",
        "implementation_name", "platform_system",
    ]
    for a, b in product(vv, vv):
        add(f"{a} == {b}")
    for a, b in product(vv[:6], vv):
        for op in ("in", "<", "!="):
            add(f"{a} {op} {b}")
    add("python_version in python_full_version", "os_name in sys_platform")
    # 5. Literal vs literal (the right-hand literal is looked up as a key).
    lits = ["a", "os_name", "posix", "python_version", "3.12", "extra", "", "sys_platform", "linux", "extras"]
    for a, b in product(lits, lits):
        add(f"{q(a)} == {q(b)}")
    for a, b in product(lits[:5], lits[:5]):
        for op in ("in", "<", "not in", ">="):
            add(f"{q(a)} {op} {q(b)}")
    # 6. Version comparisons: operators x versions against python_version etc.
    vers = [
        "3", "3.0", "3.8", "3.12", "3.12.0", "3.12.7", "3.13", "3.13rc1", "3.13.0a1",
        "3.14.0rc1", "3.14", "3.14.dev0", "3.12.7.post1", "3.12.7+local", "1!3.0",
        "v3.12", "3.12 ", " 3.12", "3.12-1", "3.*", "3.12.*", "3.1*", "3.x", "foo", "",
        "3.12.7-rc1", "3..12", "03.012", "3.12.7.0", "3.12.a", "3.12+", "3.12+abc.*",
    ]
    for f in ("python_version", "python_full_version", "implementation_version", "platform_release"):
        for op in OPS:
            for v in vers:
                add(f"{f} {op} {q(v)}")
    for op in OPS:
        for v in vers[:12]:
            add(f"{q(v)} {op} python_full_version")
    # 7. String operators on plain string fields.
    for op in OPS:
        for v in ("posix", "a", "z", "po", "posixx", "POSIX", "", "nt posix"):
            add(f"os_name {op} {q(v)}")
    # 8. Quotes.
    qcases = [
        "os_name == 'posix'", 'os_name == "posix"', "'posix' == os_name",
        "os_name == \"po'six\"", "os_name == 'po\"six'", "os_name == 'posix\"",
        "os_name == \"posix'", "os_name == ''", 'os_name == ""', "os_name == '''",
        'os_name == """', "os_name == 'a''b'", 'os_name == "a""b"',
        "os_name == \"'\"", "os_name == '\"'", "os_name == `posix`",
        "os_name == posix", "os_name == \u201cposix\u201d", "os_name == \u2018posix\u2019",
        'os_name == "posix', "os_name == 'posix", 'os_name == "', "os_name == '",
        '"posix', 'os_name == "posix" and os_name == "nt', "'' == extra", '"" == extra',
        'extra == "test" or extra == ""', "os_name == \"a'b\" or os_name == 'a\"b'",
    ]
    add(*qcases)
    # 9. Backslash escapes (evaluated by ast.literal_eval in packaging).
    escapes = [
        r"\n", r"\t", r"\\", r"\x41", r"\u00e9", r"\U0001F600", r"\N{LATIN SMALL LETTER E WITH ACUTE}",
        r"\'", r"\"", r"\0", r"\101", r"\a", r"\q", r"\u12", r"\x4", r"\N{NOPE}", "\\",
        r"posix\\", r"pos\ix", r"\x27\x22", r"\x22", r"\x27", r"\r\n", r"\
",
    ]
    for e in escapes:
        add(f'os_name == "{e}"', f"os_name == '{e}'", f'"{e}" in os_name')
    add(r'os_name == "p\x6fsix"', r"os_name == 'p\157six'", r'sys_platform == "\u006cinux"')
    add('os_name == "tab\there"', 'os_name == "nl\nhere"', 'os_name == "cr\rhere"', 'os_name == "nul\x00here"')
    add('os_name == "\x7f"', 'os_name == "\u00a0"', 'os_name == "é"', 'os_name == "\u200b"', 'os_name == "日本"')
    add('platform_version == "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024"')
    # 10. Boolean structure: 3 atoms x and/or x parenthesisation.
    atoms = {
        "T": 'os_name == "posix"',
        "F": 'os_name == "java"',
        "U": 'python_version ~= "3"',       # UndefinedComparison
        "K": '"x" in dependency_groups',     # missing key outside lock_file
        "X": 'extra == "test"',
    }
    keys = list(atoms)
    for a, b in product(keys, keys):
        for op in ("and", "or"):
            add(f"{atoms[a]} {op} {atoms[b]}")
    tri = ["T", "F", "U", "K"]
    for a, b, c in product(tri, tri, tri):
        for o1, o2 in product(("and", "or"), repeat=2):
            A, B, C = atoms[a], atoms[b], atoms[c]
            add(f"{A} {o1} {B} {o2} {C}")
            add(f"({A} {o1} {B}) {o2} {C}")
            add(f"{A} {o1} ({B} {o2} {C})")
    # 11. Parentheses: redundant, deep, nesting limit, unbalanced.
    t = atoms["T"]
    for d in (1, 2, 3, 5, 10, 50, 199, 200, 201, 250):
        add("(" * d + t + ")" * d)
    add("(" * 199 + t + ")" * 200, "(" * 200 + t + ")" * 199)
    for d in (1, 2, 3):
        add(f"{'(' * d}{t} and {t}{')' * d}", f"{'(' * d}{t}{')' * d} or {t}")
        add(f"({'(' * d}{t}{')' * d})", f"{t} and {'(' * d}{t} or {t}{')' * d}")
    add(
        f"(({t}) and ({t})) or ({t})", f"({t} and ({t} or ({t} and {t})))",
        f"({t}) ({t})", f"({t})and({t})", f"({t})or({t})", f"( {t} )", f"(\t{t}\t)",
        "()", "(())", f"({t}", f"{t})", f"(({t})", f"({t}))", f")({t}", f"{t} and ()",
        f"({t} and)", f"(and {t})", f"{t} (and) {t}",
    )
    # 12. Keywords: case, spacing, missing operands.
    a, b = 'os_name == "posix"', 'python_version >= "3"'
    for kw in ("and", "or", "AND", "OR", "And", "Or", "&&", "||", "&", "|", "xor", "andor", "and and", "or or", "and or", ","):
        add(f"{a} {kw} {b}")
    for kw in ("in", "not in", "IN", "NOT IN", "Not in", "not In", "notin", "not  in", "not\tin", "not\t\tin", "not\nin", "! in", "not", "is", "is not", "=", "<>", "=<", "=>", "!==", "====", "~", "~==", "=~", "< =", "= =", "! =", "=== ="):
        add(f'os_name {kw} "posix"', f'"posix" {kw} os_name')
    add(a + " and", a + " or", "and " + a, "or " + a, f"{a} and and {b}", f"{a} {b}", f"{a} ; {b}", f"{a}, {b}")
    add("not os_name == \"posix\"", "os_name == not \"posix\"", "os_name not == \"posix\"", "os_name in not \"posix\"")
    # 13. Whitespace between tokens.
    ws = ["", " ", "  ", "\t", " \t ", "\n", "\r", "\f", "\u00a0", "\u3000"]
    for w in ws:
        add(f"os_name{w}=={w}\"posix\"")
        add(f"{w}os_name == \"posix\"{w}")
        add(f"os_name == \"posix\"{w}and{w}python_version >= \"3\"")
        add(f"os_name == \"posix\" {w}or{w} python_version >= \"3\"")
        add(f"os_name{w}in{w}\"posix\"", f"os_name not{w}in \"posix\"", f"\"posix\"{w}in{w}os_name")
        add(f"({w}os_name == \"posix\"{w})")
    for w1, w2, w3, w4 in product(["", " ", "\t"], repeat=4):
        add(f"{w1}python_version{w2}>={w3}'3.8'{w4}")
    add('os_name=="posix"and python_version>="3"', 'os_name=="posix"or python_version>="3"',
        'os_name=="posix"andpython_version>="3"', 'os_name=="posix" andpython_version>="3"',
        "python_version>='3.8'and'x'in extras", "extra=='test'or(extra=='cuda')", "(extra=='test')and(extra=='cuda')",
        'os_name=="posix"and(python_version>="3")', "'posix'in os_name", "'posix'not in os_name", "os_name not in'posix'",
        "os_namein'posix'", "os_name in'posix'and'a'in'b'", "'a'in'b'")
    # 14. extra / extras / dependency_groups specifics.
    for v in ("Foo_Bar", "foo-bar", "FOO.BAR", "foo__bar", "foo--bar", "-foo-", "_foo_", "foo bar", "Foo", "test", "TEST", "te.st", "", " test", "test ", "t-e-s-t", "ä", "cuda", "CUDA"):
        add(f"extra == {q(v)}", f"{q(v)} == extra", f"extra != {q(v)}", f"{q(v)} in extras", f"{q(v)} not in extras",
            f"{q(v)} in dependency_groups", f"extras == {q(v)}", f"extra in {q(v)}", f"{q(v)} in extra")
    for op in OPS:
        add(f"extra {op} \"test\"", f"\"test\" {op} extra", f"extras {op} \"cuda\"", f"\"cuda\" {op} extras",
            f"dependency_groups {op} \"dev\"", f"\"dev\" {op} dependency_groups")
    add('extra == "test" and extra == "cuda"', 'extra == "test" or extra == "cuda"', 'extra != "test" and extra != "cuda"',
        '"cuda" in extras and "dev" in dependency_groups', '"cuda" in extras or "dev" in dependency_groups',
        '"cuda" in extras and extra == "test"', 'extra == "test" and "cuda" in extras',
        'python_version >= "3.9" and "cuda" in extras', '"dev" in dependency_groups and python_version < "4"',
        '"dev" in extras', '"cuda" in dependency_groups', "extras in extras", "extra in extras", "extras == extra")


def requirement_sections() -> None:
    # 14. Names.
    names = [
        "a", "A", "Z", "0", "9", "ab", "a1", "1a", "foo", "Foo", "FOO", "foo-bar", "foo_bar", "foo.bar",
        "Foo.Bar_baz-Qux", "foo--bar", "foo__bar", "foo..bar", "foo-_.bar", "a-b-c-d-e", "x" * 100,
        "-foo", "_foo", ".foo", "foo-", "foo_", "foo.", "foo-.", "fo\u00e9", "\u00e9foo", "f\u00f6\u00f6",
        "\u65e5\u672c", "foo\u00e9bar", "foo+bar", "foo/bar", "foo:bar", "foo!", "foo$", "foo bar",
        "zope.interface", "backports.zoneinfo", "ruamel.yaml.clib", "Django", "nvidia-cuda-nvrtc-cu12",
        "torch", "_", "-", ".", "a_", "a.", "a-", "\u0661\u0662", "ﬀ",
    ]
    suffixes = ["", "[x]", ">=1", " >=1", "==1.0", " @ https://example.com/p.whl", "; os_name == 'posix'",
                " ; python_version < '4'", "(>=1)", " (>=1)", "[x]>=1; extra == 'y'"]
    for n in names:
        for s in suffixes:
            add(n + s)
    add(" foo", "  foo", "\tfoo", "foo ", "foo\t", " foo ", "\nfoo", "foo\n", "\ufefffoo", "foo\r\n")

    # 15. Extras.
    extras = [
        "[]", "[ ]", "[\t]", "[a]", "[A]", "[a,b]", "[a, b]", "[a ,b]", "[ a , b ]", "[\ta\t,\tb\t]", "[a,]",
        "[a, ]", "[,a]", "[,]", "[a,,b]", "[a b]", "[a;b]", "[a.b]", "[a-b]", "[a_b]", "[A_B,a-b,a.b]",
        "[a,a]", "[a,A]", "[b,a]", "[z,y,x,a]", "[-a]", "[a-]", "[.a]", "[a.]", "[_a]", "[\u00e9]", "[a\u00e9]",
        "[a", "a]", "[[a]]", "[a][b]", "[\"a\"]", "['a']", "[a=1]", "[*]", "[a+b]", "[1]", "[1a]", "[Test,TEST,test]",
        "[ cuda , test ]", "[cuda,test,cublas,cudart,cufft,cufile,cupti]",
    ]
    for e in extras:
        for s in ("", ">=1.0", " >=1.0", "; os_name == 'posix'", " @ https://example.com/x.whl", "==2.*,!=2.1.*"):
            add("pkg" + e + s)
        add("pkg " + e, "pkg  " + e + " >=1")

    # 16. Version specifiers: every operator x assorted versions x layouts.
    ops = ["==", "!=", "<=", ">=", "<", ">", "~=", "==="]
    versions = [
        "1", "1.0", "1.0.0", "1.*", "1.0.*", "1.0+local", "1.0+local.7", "1.0+LOCAL", "1.0a1", "1.0A1", "1.0.post1",
        "1.0-1", "1.0.dev1", "1.0rc1.dev2", "1!2.0", "v1.0", "V1.0", "1.0_rc1", "1.0.RC1", "1.0-preview-2", "1.x",
        "foo", "", "1..0", "1.0.*.*", "1.0a1.*", "1.0+local.*", "1.0+", "1.*.0", "*", "1.0.post1.*", "1.0.dev1.*",
        "01.00", "1.0.0.0.0", "1.0 ", "1 .0", "1.0a", "1.0.post", "1.0.dev", "1.0-a1", "1.0c1", "1.0pre1",
        "1.0alpha1", "1.0beta1", "1.0rev1", "1.0r1", "1.0 a1", "1.0;", "1.0)", "1.0,", "\u0661.0", "1.0\u00e9",
    ]
    for op, v in product(ops, versions):
        add(f"pkg{op}{v}", f"pkg {op} {v}", f"pkg ({op}{v})", f"pkg({op} {v} )")
    add("pkg===1.0", "pkg===1.0+local", "pkg===foo bar", "pkg===foo;bar", "pkg===foo)", "pkg (===foo)",
        "pkg===a,b", "pkg=== foo", "pkg ===", "pkg===", "pkg ==", "pkg >=", "pkg ~=", "pkg~=1.0.*", "pkg~=1!1.0",
        "pkg==1.0.*+local", "pkg!=1.0+local", "pkg<1.0+local", "pkg>1.0.*", "pkg<=1.*")
    multi = [
        ">=1.0,<2", ">=1.0, <2", ">=1.0 ,<2", ">=1.0 , <2", ">=1.0,\t<2", ">=1.0,<2,", ">=1.0,<2 ,", ">=1.0,<2, ",
        ">=1.0,,<2", ",>=1.0", ",", ">=1.0 <2", ">=1.0;<2", ">=1.0,<2,!=1.5,~=1.1,==1.*,===x", "<2,>=1.0", ">=1.0,>=1.0",
        ">=1.0,>=1", "==1.0,==1.0.0", ">=1,<2,>=1,<2", "<2,<10,<1.5", "~=1.1,>1,<3,!=2,==1.*,<=4,>=0,===1.2",
        ">=2,<1", "!=1.0,!=1.0", ">=1.0 ,", ">=1.0,\u00a0<2", ">=1.0\u00a0", ">=1.0\t", "(>=1.0,<2)",
        "( >=1.0 , <2 )", "(>=1.0,<2,)", "(>=1.0 <2)", "(>=1.0", ">=1.0)", "()", "( )", "((>=1))",
    ]
    for m in multi:
        add("pkg" + m, "pkg " + m, "pkg" + m + "; os_name == 'posix'", "pkg" + m + ";os_name=='posix'",
            "pkg[x]" + m, "pkg " + m + " ; extra == 'x'")

    # 17. URL requirements.
    urls = [
        "https://example.com/pkg-1.0.tar.gz", "https://example.com/pkg.whl#sha256=abc",
        "https://example.com/pkg.whl#egg=pkg", "file:///tmp/pkg", "file:/tmp/pkg", "file://localhost/tmp/pkg",
        "file:./pkg", "file:../pkg", "./pkg", "/abs/pkg", "C:\\pkg", "git+https://github.com/o/r.git@v1.0",
        "git+ssh://git@github.com/o/r.git@main#egg=pkg&subdirectory=sub", "hg+https://hg.example.com/r",
        "https://user:pw@example.com/p.whl", "https://example.com/p;q", "https://example.com/p;python_version>'3'",
        "https://example.com/p@x", "https://example.com/p?a=1&b=2", "https://example.com/p(1)",
        "https://example.com/p[1]", "https://example.com/p,q", "https://example.com/\u00e9", "pkg",
        "https://example.com/p#egg=other", "http://[::1]:8080/p.whl", "https://example.com/p\"q", "@",
        "https://example.com/p'q", "https://example.com/p;",
    ]
    for u in urls:
        add(
            f"pkg @ {u}", f"pkg@{u}", f"pkg @{u}", f"pkg@ {u}", f"pkg[x] @ {u}", f"pkg [x] @ {u}",
            f"pkg @ {u} ; os_name == 'posix'", f"pkg @ {u};os_name == 'posix'", f"pkg @ {u}; os_name == 'posix'",
            f"pkg @ {u} ;os_name == 'posix'", f"pkg @ {u}  ;  os_name == 'posix'", f"pkg @ {u}\t; os_name == 'posix'",
            f"pkg @ {u} ", f"pkg @ {u} os_name == 'posix'", f"pkg @ {u} ; ", f"pkg @ {u} ;",
        )
    add("pkg @", "pkg @ ", "pkg@", "pkg @ ;", "pkg @ ; os_name == 'posix'", "pkg @@ https://e.com/x",
        "pkg @ @", "pkg>=1.0 @ https://e.com/x", "pkg @ https://e.com/x >=1.0", "pkg @ https://e.com/x ; extra == 'Foo_Bar'",
        "pkg@https://e.com/x;extra=='a'", "pkg @ https://e.com/x ; (os_name == 'posix')",
        "pkg @ https://e.com/x\t", "pkg @\thttps://e.com/x", "pkg @ https://e.com/x # comment",
        "pkg @ https://e.com/x#frag ; os_name == 'nt'", "pkg (>=1) @ https://e.com/x", "pkg[x]@https://e.com/x")

    # 18. Requirement + marker combinations.
    markers = [
        "os_name == 'posix'", 'python_version >= "3.9"', 'extra == "test"', 'extra == "Foo_Bar"',
        '"cuda" in extras', 'platform_release >= "5.0"', 'python_version ~= "3"', "(os_name == 'nt')",
        'implementation_name == "pypy" or sys_platform == "win32"', "",
    ]
    for base, seps in product(["pkg", "pkg>=1.0", "pkg[x]", "pkg (>=1.0)", "pkg[x]>=1.0,<2"], [";", " ;", "; ", " ; ", "\t;\t", ";;", " ;;"]):
        for m in markers[:4] + markers[9:]:
            add(base + seps + m)
    for m in markers:
        add("pkg>=1.0; " + m)

    # 19. Trailing garbage, comments, empty input, separators.
    add(
        "", " ", "\t", ";", " ; ", ";;", "#", "# comment", "pkg # comment", "pkg#comment", "pkg>=1.0#c",
        "pkg>=1.0 #c", "pkg; os_name == 'posix' # comment", "pkg; os_name == 'posix'#c", "pkg;", "pkg ;", "pkg; ",
        "pkg; ;", "pkg;;", "pkg; and", "pkg>=1.0 garbage", "pkg garbage", "pkg[x] garbage", "pkg)", "pkg]", "pkg,",
        "pkg,other", "pkg other", "pkg\\", "pkg\\\n>=1", "pkg >=1 \\", "pkg\x00", "pkg>=1.0\x00", "pkg\r", "pkg\n",
        "pkg\n; os_name == 'posix'", "pkg; os_name == 'posix'\n", "-r requirements.txt", "-e .", "--hash=sha256:abc",
        "pkg; os_name == 'posix' and", "pkg; os_name == 'posix' extra", "pkg; (os_name == 'posix'",
        "pkg[x]>=1.0; os_name == 'posix'; extra == 'y'", "pkg; os_name", "pkg; 'posix'", "pkg>=1.0;python_version",
    )


def odd_cases() -> None:
    # 20. Hand-written odd ones.
    add(
        'python_version >= "3.x"', 'python_version >= "foo"', '"foo" >= python_version', 'python_version ~= "3"',
        'python_version ~= "3.10"', 'python_version ~= "3.10.0"', 'python_version in "3.10 3.11"',
        'python_version not in "3.10 3.11"', 'python_version in "3.1"', 'python_version in "3.12.7"',
        'python_full_version in "3.12"', 'platform_release >= "5.0"', 'platform_release < "5.0"',
        'os_name < "z"', 'os_name > "a"', 'os_name <= "posix"', 'os_name >= "posix"', 'os_name <= "z"',
        'extra == "Foo_Bar"', 'extra == "foo-bar"', 'extra == "foo_bar"', '"a" == "a"', '"posix" == "os_name"',
        '"posix" in "os_name"', 'os_name == os_name', 'python_version == python_version', 'extra == extra',
        'python_version === "3.12"', 'python_version === "3.12.0"', 'python_version === "3.12 "',
        'python_full_version === "3.14.0RC1"', 'python_full_version == "3.13.1+"', 'python_full_version == "3.13.1+local"',
        'python_full_version >= "3.13.1"', 'python_full_version == "3.13.1"', 'python_full_version == "3.14.0rc1"',
        'python_full_version >= "3.14"', 'python_full_version < "3.14"', 'python_full_version >= "3.14.0"',
        'python_full_version > "3.14.0rc1"', 'python_full_version > "3.14.0a1"', 'implementation_version >= "7"',
        'python_version > "3.12"', 'python_version > "3.12.0"', 'python_version <= "3.12.0"',
        'python_version == "3.12.0"', 'python_version != "3.12.0"', 'python_version == "3.12.*"', 'python_version == "3.1.*"',
        'python_version == "3.1*"', 'python_version >= "3.12.*"', 'python_version ~= "3.12.*"', 'python_version == "3.12.0+local"',
        'python_version <= "3.12+local"', 'python_version < "3.12.0+local"', 'python_version == "v3.12"',
        'python_version == "3.12.0.0"', 'python_version == "3.012"', 'python_version == "1!3.12"',
        'platform_release == "6.8.0-49-generic"', 'platform_release >= "6.8.0-49"', 'platform_release ~= "24.1"',
        'platform_release === "6.8.0-49-generic"', 'platform_release in "6.8.0-49-generic"', 'platform_version >= "10"',
        'platform_version == "10.0.19045"', 'platform_release == "11"', 'platform_release > "10"',
        'platform_system == "windows"', 'sys_platform.startswith("linux")', 'os.name == "posix"',
        'platform.python_implementation == "CPython"', 'python_implementation == "PyPy"',
        'platform_python_implementation == "PyPy"', 'implementation_name == "pypy"',
        'extra', 'extras', '"x"', 'os_name ==', '== "posix"', '"posix"', 'os_name "posix"',
        'os_name == "posix" == "nt"', 'os_name == "posix" "nt"', 'os_name == ("posix")', '(os_name) == "posix"',
        'os_name == "posix" and not python_version == "3"', 'True', 'true', 'os_name == None', 'os_name == 1',
        'python_version >= 3.8', "python_version >= '3.8' and python_version < '4' and os_name == 'posix' or extra == 'test'",
        "sys_platform == 'linux' and platform_machine == 'x86_64' and python_version >= '3.10'",
        "(platform_machine == 'x86_64' or platform_machine == 'AMD64') and platform_system != 'Darwin'",
        "platform_system == 'Linux' and platform_machine == 'aarch64' and implementation_name == 'cpython'",
        'python_version<"3.11" or "cuda" in extras and "dev" in dependency_groups',
        "extra == 'test' and python_version >= '3.9' or extra == 'cuda' and sys_platform == 'linux'",
        "platform_python_implementation != 'PyPy' and python_version < '3.14'",
    )


def version_semantics() -> None:
    # 21. Version-field semantics: prereleases, locals, wildcards, whitespace
    # inside the literal (Specifier strips Unicode whitespace), arbitrary
    # equality, invalid versions on either side.
    lits = [
        "3.14", "3.14.0", "3.14.0rc1", "3.14.0rc2", "3.14.0a1", "3.14.dev0", "3.14.*", "3.14.0.*", "3.13",
        "3.13.1", "3.13.1+local", "3.13.1+", "3.13.1+LOCAL", "3.14.0rc1.post0", "3.14.0RC1", "3.14.0-rc1",
    ]
    for f in ("python_full_version", "implementation_version"):
        for op in OPS:
            for v in lits:
                add(f"{f} {op} {q(v)}")
    for op in ("<", "<=", ">", ">=", "==", "!=", "~=", "==="):
        for v in ("3.14", "3.14.0rc1", "3.13.1", "6.8", "10", "7.3"):
            add(f"{q(v)} {op} python_full_version", f"{q(v)} {op} platform_release", f"{q(v)} {op} implementation_version")
    for v in (" 3.12", "3.12 ", "\t3.12", "3.12\t", "\u00a03.12", "3.12\u00a0", "\u20033.12", "3.12\u200b", "3.12\\n",
              "\\n3.12", " 3.12 ", "3.12.* ", " 3.*", "= 3.12", "3. 12"):
        for op in ("==", ">=", "!=", "==="):
            add(f"python_version {op} \"{v}\"")
    for v in ("6.8.0-49-generic", "6.8.0-49-GENERIC", "6.8.0-49-generic ", "24.1.0", "10", "", " ", "a b"):
        for op in ("===", "==", "~=", "in"):
            add(f"platform_release {op} {q(v)}", f"{q(v)} {op} platform_release")
    for v in ("3.x", "foo", "", "3..1", "*", "3.12.*.*"):
        for op in ("==", "!=", "<", "<=", ">", ">=", "~=", "==="):
            add(f"python_version {op} {q(v)}", f"{q(v)} {op} python_version")
    # The operator and the literal are concatenated before Specifier() parses them.
    for op in ("==", "!=", "<", "<=", ">", ">=", "~="):
        for v in ("=3.12", "= 3.12", "=3.12.0", "=3.11", "==3.12", "=3.*", ">3", "!3.12", "=3.12 "):
            add(f"python_version {op} {q(v)}", f"{q(v)} {op} python_version")
    add("extras in \"x\"", "dependency_groups in \"dev\"", "extras not in \"x\"", "dependency_groups == \"dev\"",
        "extras", "extra", "extra ==", "\"cuda\" in extras in extras")
    # Requirement-shaped inputs that look like markers / keywords as names.
    for n in ("and", "or", "in", "not", "extra", "extras", "python_version", "os.name", "True"):
        add(n, f"{n}>=1", f"{n}; os_name == 'posix'", f"{n}[x]")
    add('python_version>=3.8', 'python_version >= "3.8"', 'python_full_version === "3.14.0RC1"',
        'os_name===posix', "os_name === 'posix'", "os_name=='posix'")
    # === in a specifier list: the fast path splits on commas, the token loop does not.
    add("pkg===a,>=1", "pkg===a ,>=1", "pkg===a, >=1", "pkg (===a,>=1)", "pkg===a,b,>=1", "pkg===a,b",
        "pkg===a;os_name=='posix'", "pkg===a ;os_name=='posix'", "pkg===(a)", "pkg===a)b", "pkg >=1,===a,b",
        "pkg===1.0,", "pkg===1.0,,", "pkg===a,,>=1", "pkg >=1,,===a", "pkg===a, ,>=1", "pkg===a,;os_name=='posix'", "pkg===\u00e9", "pkg===a\u00a0", "pkg===a\tb")
    # Variables glued to other characters.
    add('os_name.lower() == "posix"', 'os_name\u00e9 == "posix"', 'os_name0 == "posix"', 'os_name- == "posix"',
        'sys_platform_ == "linux"', '(os_name)== "posix"', 'os_name==("posix")', '[os_name] == "posix"')


def findings_examples() -> None:
    # 22. Every example quoted in scripts/oracle/FINDINGS.md that is not
    # already produced above.
    add(
        '"Te.St" in extra', 'extra == "-Foo-"', 'extra == "foo bar"', '"x" ~= extras', '"x" < extras', '"x" == extras',
        '"CUDA" == extras', 'extras == "X"', '"3.12" >= "python_version"', '"posix" == "os_name"',
        '((os_name == "a")) and os_name == "b"', '((os_name == "a" and os_name == "c")) or os_name == "b"',
        'os_name == "a" and (((os_name == "b")))', '(os_name == "a" or os_name == "b") or os_name == "c"',
        'os_name == "posix" or python_version ~= "3"', 'python_version ~= "3" or os_name == "posix"',
        'os_name == "java" and "x" in extras', 'os_name == "a" AND os_name == "b"', 'os_name=="a"and os_name=="b"',
        'os_namein "a"', 'os_name in"a"', 'os_name not "x"', '(os_name == "a"', 'os_name == "a")',
        "foo[Bar,bar]", "foo[bar,]", "foo[bar baz]", "foo[bar,bar]", "foo @ https://x.y/z;python_version>\"3\"",
        "foo @ https://x ;python_version>\"3\"", "foo>=1.0,<2;python_version>\"3\"", "foo >= 1.0 , < 2",
        "foo>=1.0 <2", "pkg(>=1.0 <2)", "foo~=1", "foo>=1.*", "foo>=1.0+local", "foo # c", "foo>=1.0 # c",
        "pkg @ https://e.com/x\u00a0; os_name==\"a\"", "pkg @ https://e.com/x\u3000", "pkg @ https://e.com/x\u00a0",
        "foo[bar]>=1.0,!=1.5,<2,~=1.1,==1.2.*,===x,>1,<=3", "pkg>=1.0,>=1", "pkg==1.0,==1.0.0", "pkg>=1.0,>=1.0",
        "foo== 1.0", "foo>=v1.0", "foo>=1.0.POST1", "pkg; os_name == 'posix' # c", "foo;;x", "pkg @ ./x", "pkg @ C:\\x",
        'os_name == "a\\nb"', "'a' == \"b'\"", 'python_full_version == "3.13.*"', "fo\u00e9", "fooé",
    )


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parent.parent.parent / "tests" / "data" / "packaging-oracle" / "grammar.txt"
    )
    odd_cases()
    marker_sections()
    requirement_sections()
    version_semantics()
    findings_examples()
    text = "".join(encode_input_line(s) + "\n" for s in OUT)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}: {len(OUT)} inputs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
