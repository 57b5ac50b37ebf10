#!/usr/bin/env python3
"""pypa/packaging 26 as a markerspec conformance adapter (spec/PROTOCOL.md, markerspec-adapter/1).

    markerspec conformance --adapter "python3 adapters/packaging/adapter.py"

Claims the ``packaging`` profile (packaging 26.4's exact behaviour) for the ``pep508`` dialect.
``parse`` is ``Requirement(input)`` or ``Marker(input)`` and its ``str()``; ``evaluate`` runs
``Marker.evaluate_prepared`` on ``prepare_environment(environment, context)`` with every key the
request does not give removed again (the host never leaks into a result; a missing field raises
``UndefinedEnvironmentName``). The context is ``lock_file`` or ``metadata``; the extras become
``extra`` as ``""`` (none), the name (one, as pip passes it) or a frozenset (several).
For packaging 22–24 (no ``prepare_environment``), use ``adapters/packaging-legacy/adapter.py``.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from markerspec_adapter import Refuse, Skip, Tool, fix_hash_seed, message, run  # noqa: E402

fix_hash_seed()

try:
    import packaging
    from packaging import markers as M
    from packaging.requirements import InvalidRequirement, Requirement
except ImportError as e:
    packaging = None
    IMPORT_ERROR = e


class Packaging(Tool):
    name = "packaging"
    profiles = ["packaging"]
    extras = "string-or-set"
    lock_file = True

    def check(self):
        if packaging is None:
            raise Refuse(f"cannot import packaging: {IMPORT_ERROR}")
        if not hasattr(M, "prepare_environment"):
            raise Refuse(f"packaging {packaging.__version__} has no prepare_environment (26+): "
                         "use adapters/packaging-legacy/adapter.py")
        self.version = packaging.__version__
        self.parse_errors = (InvalidRequirement, M.InvalidMarker)
        self.eval_errors = (M.UndefinedComparison, M.UndefinedEnvironmentName)

    def parse(self, kind, text):
        return Requirement(text) if kind == "requirement" else M.Marker(text)

    def canonical(self, parsed):
        try:
            return str(parsed)
        except ValueError as e:  # a value holding both quote characters
            raise Skip(f"str() raised: {e}") from e

    def describe(self, e):
        if isinstance(e, M.UndefinedEnvironmentName) and e.args:
            return f"UndefinedEnvironmentName: {e.args[0]}"
        return message(e)

    def evaluate(self, marker, environment, lock_file):
        prepared = M.prepare_environment(environment, "lock_file" if lock_file else "metadata")
        for key in M.default_environment():
            if key not in environment:
                del prepared[key]
        return marker.evaluate_prepared(prepared)


if __name__ == "__main__":
    sys.exit(run(Packaging()))
