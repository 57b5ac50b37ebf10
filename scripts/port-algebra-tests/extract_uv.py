"""Extracts the marker-algebra assertions of uv-pep508's crates/uv-pep508/src/marker/tree.rs tests
(assert_simplifies, assert_true/false, is_disjoint, implies, m(..) == m(..), negate) as JSON lines.

usage: extract_uv.py PATH/TO/tree.rs > uv_cases.jsonl
"""
import re, json, sys
src = open(sys.argv[1]).read()
FILE = "crates/uv-pep508/src/marker/tree.rs"
# tokenise string literals
lits = []
def lit_repl(m):
    s = m.group(0)
    if s.startswith('r'):
        mm0 = re.match(r"r(#*)\"(.*)\"\1$", s, re.S)
        if mm0 is None: print(repr(s[:200]), file=sys.stderr); raise SystemExit(1)
        body = mm0.group(2)
    else:
        body = s[1:-1]
        body = re.sub(r'\\\n\s*', '', body).replace('\\"', '"').replace("\\'", "'").replace('\\\\', '\\')
        body = re.sub(r'\n\s*', ' ', body) if '\\' in s else body
    lits.append(re.sub(r'\s*\n\s*', ' ', body))
    return f'${len(lits)-1}'
PAT = r"""(?<![\w'])r(#+)"(?:.|\n)*?"\1|(?<![\w'])r"[^"]*"|(?<!')"(?:[^"\\]|\\.|\\\n)*""" + '"' 
text = re.sub(PAT, lit_repl, src)
# find test functions
cases = []
for m in re.finditer(r'#\[test\]\s*(?:#\[[^\]]*\]\s*)*fn (\w+)\(\)\s*\{', text):
    name = m.group(1)
    # body: until a line "    }" at 4-space indent
    start = m.end()
    end = text.find('\n    }\n', start)
    body = re.sub(r'\s+', ' ', text[start:end])
    body = re.sub(r',\s*\)', ')', body)
    body = re.sub(r'\(\s+', '(', body)
    body = re.sub(r'\s+\)', ')', body)
    body = re.sub(r'\s*\.\s*', '.', body)
    # remove trailing messages in asserts: assert!(X, $n) -> assert!(X)
    def add(rel, a, b=None, c=None, upstream=True):
        d = {"source": FILE, "test": name, "relation": rel, "a": lits[int(a)]}
        if b is not None: d["b"] = lits[int(b)]
        if c is not None: d["c"] = lits[int(c)]
        d["upstream"] = upstream
        cases.append(d)
    for mm in re.finditer(r'assert_simplifies\(\$(\d+), \$(\d+)\)', body):
        add("equivalent", mm.group(1), mm.group(2))
    for mm in re.finditer(r'assert_true\(\$(\d+)\)', body): add("true", mm.group(1))
    for mm in re.finditer(r'assert_false\(\$(\d+)\)', body): add("false", mm.group(1))
    for mm in re.finditer(r'assert!\((!?)is_disjoint\(\$(\d+), \$(\d+)\)(?:, \$\d+)?\)', body):
        add("disjoint", mm.group(2), mm.group(3), upstream=mm.group(1) == '')
    for mm in re.finditer(r'assert!\((!?)implies\(\$(\d+), \$(\d+)\)(?:, \$\d+)?\)', body):
        add("implies", mm.group(2), mm.group(3), upstream=mm.group(1) == '')
    for mm in re.finditer(r'assert!\((!?)m\(\$(\d+)\)\.is_disjoint\(m\(\$(\d+)\)\)\)', body):
        add("disjoint", mm.group(2), mm.group(3), upstream=mm.group(1) == '')
    for mm in re.finditer(r'assert_(eq|ne)!\(m\(\$(\d+)\), m\(\$(\d+)\)(?:, \$\d+)?\)', body):
        add("equivalent", mm.group(2), mm.group(3), upstream=mm.group(1) == 'eq')
    for mm in re.finditer(r'assert_(eq|ne)!\(m\(\$(\d+)\)\.negate\(\), m\(\$(\d+)\)\)', body):
        add("complement", mm.group(2), mm.group(3), upstream=mm.group(1) == 'eq')
    for mm in re.finditer(r'assert!\((!?)m\(\$(\d+)\)\.is_(true|false)\(\)\)', body):
        add(mm.group(3), mm.group(2), upstream=mm.group(1) == '')
for c in cases:
    print(json.dumps(c, ensure_ascii=False))
print(len(cases), file=sys.stderr)
