"""Merges the extracted cases into crates/algebra/tests/data/ported-algebra.jsonl.

usage: merge.py UV_CASES.jsonl POETRY_CASES.jsonl OUT.jsonl
The hand-ported cases of uv-pep508's marker/algebra.rs (its tests build nodes in code) are here.
"""
import json, sys
UV = "astral-sh/uv, uv-pep508 0.0.98: crates/uv-pep508/src/marker/"
PO = "python-poetry/poetry-core c4d922c3183763f19b790c5123b5f9d4f5fa9eaf: "
out = []
for l in open(sys.argv[1]):
    c = json.loads(l)
    c["source"] = UV + "tree.rs"
    out.append(c)
alg = UV + "algebra.rs"
def add(test, relation, a, b=None, upstream=True):
    c = {"source": alg, "test": test, "relation": relation, "a": a}
    if b is not None: c["b"] = b
    c["upstream"] = upstream
    out.append(c)
add("basic", "false", "extra == 'foo'", upstream=False)
add("basic", "false", "extra == 'foo' or os_name == 'foo'", upstream=False)
add("basic", "false", "extra == 'foo' and os_name == 'foo'", upstream=False)
add("basic", "false", "extra == 'foo' and extra != 'foo'")
add("basic", "true", "extra == 'foo' or extra != 'foo'")
add("basic", "equivalent", "os_name >= 'bar'", "os_name == 'bar'")
add("basic", "false", "os_name < 'bar'")
add("basic", "false", "os_name >= 'bar' and os_name < 'bar'")
add("basic", "equivalent", "os_name >= 'bar' or os_name < 'bar'", "os_name >= 'bar'")
add("basic", "equivalent", "os_name <= 'bar'", "os_name >= 'bar'")
add("basic", "equivalent", "os_name >= 'bar' and os_name <= 'bar'", "os_name >= 'bar'")
add("basic", "equivalent", "os_name >= 'bar' or os_name <= 'bar'", "os_name >= 'bar'")
add("version", "false", "python_version == '2' and python_version == '1'")
add("version", "complement", "python_version == '3'", "python_version != '3'")
add("version", "false", "python_version == '3' and python_version != '3'")
add("version", "true", "python_version == '3' or python_version != '3'")
add("version", "equivalent", "python_version == '3' and python_version >= '3'", "python_version == '3'")
add("version", "equivalent", "python_version == '3' and python_version <= '3'", "python_version == '3'")
add("version", "equivalent", "python_version >= '3' and python_version <= '3'", "python_version == '3'")
add("version", "false", "python_version >= '3' and python_version <= '3'", upstream=False)
add("version", "true", "python_version >= '3' or python_version <= '3'")
add("simplify", "equivalent",
    "(platform_machine == 'x86_64' and platform_machine == 'Windows') or (platform_machine != 'x86_64' and platform_machine == 'Windows')",
    "platform_machine == 'Windows'")
for l in open(sys.argv[2]):
    c = json.loads(l)
    c["source"] = PO + "tests/version/test_markers.py"
    c["upstream"] = True
    out.append(c)
seen = set(); final = []
for c in out:
    if c["relation"] == "equivalent" and c["a"] == c.get("b"):
        continue  # a printing round trip, no relation
    key = (c["relation"], c["a"], c.get("b"), c["upstream"])
    if key in seen: continue
    seen.add(key)
    final.append({k: c[k] for k in ["source", "test", "relation", "a", "b", "upstream"] if k in c})
with open(sys.argv[3], 'w') as f:
    for c in final: f.write(json.dumps(c, ensure_ascii=False) + "\n")
import collections
print(len(final), collections.Counter(c["source"].split(":")[0] for c in final))
