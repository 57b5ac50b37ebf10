"""Runs poetry-core's tests/version/test_markers.py against a recording stand-in for
poetry.core.version.markers, to collect (input, expected relation) pairs."""
import sys, types, json, inspect, itertools, re

cases = []
current = {"test": None}

def norm(s):
    return re.sub(r"\s+", " ", s).strip()

class Sym:
    def __init__(self, text): self.text = text
    def intersect(self, other): return Sym(f"({self.text}) and ({as_sym(other).text})")
    def union(self, other): return Sym(f"({self.text}) or ({as_sym(other).text})")
    def is_any(self):
        cases.append(dict(test=current["test"], relation="true", a=self.text)); return True
    def is_empty(self):
        cases.append(dict(test=current["test"], relation="false", a=self.text)); return True
    def __str__(self): return RecStr(self.text)
    def __eq__(self, other):
        cases.append(dict(test=current["test"], relation="equivalent", a=self.text, b=as_sym(other).text)); return True
    __hash__ = object.__hash__

def as_sym(x):
    if isinstance(x, Sym): return x
    if isinstance(x, RecStr): return Sym(x.sym)
    return Sym(str(x))

class RecStr(str):
    def __new__(cls, text):
        o = str.__new__(cls, text); o.sym = text; return o
    def __eq__(self, other):
        b = other.sym if isinstance(other, RecStr) else str(other)
        # poetry-core prints AnyMarker as "" and EmptyMarker as "<empty>".
        if b == "<empty>": rel = dict(relation="false", a=self.sym)
        elif b == "": rel = dict(relation="true", a=self.sym)
        else: rel = dict(relation="equivalent", a=self.sym, b=b)
        cases.append(dict(test=current["test"], **rel)); return True
    __hash__ = str.__hash__

def parse_marker(text): return Sym(text)
def intersection(*ms): return Sym(" and ".join(f"({as_sym(m).text})" for m in ms))
def union(*ms): return Sym(" or ".join(f"({as_sym(m).text})" for m in ms))
class _Unsupported:
    """A value the stand-in cannot model: using it ends the test run."""
    def __init__(self, *a, **k): pass
    def __getattr__(self, n): raise NotImplementedError(n)
    def __eq__(self, o): raise NotImplementedError
    __hash__ = object.__hash__
    def __str__(self): raise NotImplementedError
def _unsupported(*a, **k): raise NotImplementedError

mod = types.ModuleType("poetry.core.version.markers")
mod.parse_marker = parse_marker; mod.intersection = intersection; mod.union = union
mod.AnyMarker = lambda: Sym("true")
mod.EmptyMarker = lambda: Sym("false")
for n in ["MarkerUnion", "MultiMarker", "SingleMarker", "AtomicMarkerUnion", "AtomicMultiMarker"]:
    setattr(mod, n, type(n, (_Unsupported,), {}))
for n in ["cnf", "dnf"]: setattr(mod, n, _unsupported)
mod.__getattr__ = lambda name: type(name, (Exception,), {})
for name in ["poetry", "poetry.core", "poetry.core.version", "poetry.core.constraints"]:
    sys.modules[name] = types.ModuleType(name)
    sys.modules[name].__path__ = []
for name in ["poetry.core.constraints.generic", "poetry.core.constraints.version"]:
    m = types.ModuleType(name)
    m.__getattr__ = lambda n: _Unsupported
    sys.modules[name] = m
sys.modules["poetry.core.version.markers"] = mod
# pytest stand-in: parametrize records its argument lists on the function.
pytest = types.ModuleType("pytest")
class _Mark:
    def parametrize(self, names, values, **kw):
        def deco(f):
            f.__dict__.setdefault("_params", []).insert(0, (names, values)); return f
        return deco
    def __getattr__(self, n): return lambda *a, **k: (lambda f: f)
pytest.mark = _Mark()
pytest.param = lambda *a, **k: a
pytest.raises = _unsupported
sys.modules["pytest"] = pytest

src = open(sys.argv[1]).read()
ns = {"__name__": "test_markers"}
exec(compile(src, "test_markers.py", "exec"), ns)
ran = skipped = 0
for name, f in list(ns.items()):
    if not name.startswith("test_") or not callable(f): continue
    params = getattr(f, "_params", [])
    sets = [{}]
    for names, values in params:
        names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
        new = []
        for s in sets:
            for v in values:
                v = v if isinstance(v, (tuple, list)) and len(names) > 1 else (v,)
                d = dict(s); d.update(zip(names, v)); new.append(d)
        sets = new
    sig = inspect.signature(f)
    for kwargs in sets:
        if set(sig.parameters) - set(kwargs): skipped += 1; continue
        current["test"] = name
        before = len(cases)
        try:
            f(**{k: kwargs[k] for k in sig.parameters}); ran += 1
        except Exception:
            skipped += 1
for c in cases:
    c = {"source": "tests/version/test_markers.py", **c}
    for k in ("a", "b"):
        if k in c: c[k] = norm(c[k])
    print(json.dumps(c, ensure_ascii=False))
print(f"{len(cases)} cases, {ran} runs, {skipped} skipped", file=sys.stderr)
