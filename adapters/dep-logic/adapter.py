#!/usr/bin/env python3
"""pdm's dep-logic 0.7 (its marker algebra) as a markerspec conformance adapter.

    markerspec conformance --adapter "VENV/bin/python adapters/dep-logic/adapter.py"

Claims the neutral ``standard`` profile, markers only (dep-logic parses no requirements; PDM
reads those with packaging). ``parse_marker`` and ``str()``; ``BaseMarker.evaluate(environment,
context)`` with ``extra`` a set of names, in the ``lock_file`` context for lock-file requests.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from markerspec_adapter import Refuse, Tool, fix_hash_seed, run  # noqa: E402

fix_hash_seed()


class DepLogic(Tool):
    name = "dep-logic"
    kinds = ["marker"]
    extras = "set"

    def check(self):
        try:
            from importlib.metadata import version

            from dep_logic import markers
            from dep_logic.markers.single import UndefinedComparison as DepLogicUndefined
            from packaging.markers import UndefinedComparison, UndefinedEnvironmentName
        except ImportError as e:
            raise Refuse(f"cannot import dep-logic: {e}") from e
        self.version = version("dep-logic")
        self.markers = markers
        self.parse_errors = (markers.InvalidMarker,)
        # dep-logic raises its own UndefinedComparison, and packaging's for what it delegates.
        self.eval_errors = (DepLogicUndefined, UndefinedComparison, UndefinedEnvironmentName)

    def parse(self, kind, text):
        return self.markers.parse_marker(text)

    def evaluate(self, marker, environment, lock_file):
        return marker.evaluate(environment)


if __name__ == "__main__":
    sys.exit(run(DepLogic()))
