#!/usr/bin/env python3
"""Lists the public items of the library crates whose docs have neither an example (a fenced
code block) nor an intra-doc link to an item whose docs have one.

    scripts/doc-examples.py                 # builds rustdoc JSON (nightly) for every library
    scripts/doc-examples.py --summary       # one line per crate
    scripts/doc-examples.py --check         # exits 1 when any item is listed
    scripts/doc-examples.py target/doc-json/doc/markerspec_pep508.json   # existing JSON files

Items are walked from each crate root: modules, re-exports, types, traits and their items,
functions, constants, statics, macros, and the methods of inherent impls (trait impls are not
counted). A link counts only when it resolves to an item whose own docs have an example; the
sentence that carries it ("See the example on [`Report`].") should say which example, and that
example should use the item. The JSON is built with `cargo +nightly rustdoc ... --output-format
json` into `target/doc-json` (override with DOC_JSON_TARGET).
"""
import glob
import json
import os
import subprocess
import sys

CRATES = ["process", "pep440", "pep508", "algebra", "gpu", "env", "conformance"]


def build(target):
    for crate in CRATES:
        subprocess.run(
            ["cargo", "+nightly", "rustdoc", "-q", "-p", f"markerspec-{crate}", "--lib",
             "--target-dir", target, "--", "-Z", "unstable-options", "--output-format", "json"],
            check=True,
        )
    return sorted(glob.glob(os.path.join(target, "doc", "markerspec_*.json")))


def items(path):
    """Every reachable public item as (path, kind, has_example, links_to_example)."""
    doc = json.load(open(path))
    index = doc["index"]
    seen, out = set(), []

    def kind(item):
        return next(iter(item["inner"]))

    def has_example(item):
        return "```" in (item.get("docs") or "")

    def links_example(item):
        return any(
            (target := index.get(str(i))) is not None and has_example(target)
            for i in (item.get("links") or {}).values()
        )

    def record(path, k, item):
        out.append(("::".join(path[1:]) or path[0], k, has_example(item), links_example(item)))

    def walk(i, path):
        i = str(i)
        if i in seen or i not in index:
            return
        seen.add(i)
        item = index[i]
        k = kind(item)
        if item.get("visibility") != "public" and k != "impl":
            return
        name = item.get("name") or ""
        if k == "module":
            for child in item["inner"]["module"]["items"]:
                walk(child, path + [name])
            return
        if k == "use":
            target = item["inner"]["use"].get("id")
            if target is not None:
                walk(target, path)
            return
        if k in ("struct", "enum", "trait", "function", "constant", "static", "type_alias", "macro"):
            record(path + [name], k, item)
        inner = item["inner"][k]
        for impl_id in (inner.get("impls", []) if isinstance(inner, dict) else []):
            imp = index.get(str(impl_id))
            if not imp:
                continue
            body = imp["inner"]["impl"]
            if body.get("trait") is not None or body.get("synthetic") or body.get("blanket_impl") is not None:
                continue
            for m in body["items"]:
                method = index.get(str(m))
                if method and method.get("visibility") == "public" and kind(method) == "function":
                    record(path + [name, method["name"]], "method", method)
        if k == "trait":
            for m in inner["items"]:
                member = index.get(str(m))
                if member:
                    record(path + [name, member["name"]], "trait-item", member)

    walk(doc["root"], [])
    return out


def main(argv):
    flags = {a for a in argv if a.startswith("--")}
    files = [a for a in argv if not a.startswith("--")]
    if not files:
        files = build(os.environ.get("DOC_JSON_TARGET", "target/doc-json"))
    missing = 0
    for path in files:
        found = items(path)
        with_example = sum(1 for f in found if f[2])
        linked = sum(1 for f in found if not f[2] and f[3])
        neither = [f for f in found if not f[2] and not f[3]]
        missing += len(neither)
        print(f"{os.path.basename(path)}: {len(found)} items, {with_example} with an example, "
              f"{linked} link to one, {len(neither)} neither")
        if "--summary" not in flags:
            for p, k, _, _ in neither:
                print(f"    {p} ({k})")
    if "--check" in flags and missing:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
