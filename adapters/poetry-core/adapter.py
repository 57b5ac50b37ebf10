#!/usr/bin/env python3
"""poetry-core 2.x (Poetry's PEP 508 parser) as a markerspec conformance adapter.

    markerspec conformance --adapter "VENV/bin/python adapters/poetry-core/adapter.py"

Claims the neutral ``standard`` profile. Requirements: ``Dependency.create_from_pep_508``,
printed with ``to_pep_508()``; markers: ``parse_marker``, printed with ``str()``, evaluated with
``BaseMarker.validate(environment)``, ``extra`` a set of names. poetry-core reports invalid
markers with lark's exceptions as well as its own.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from markerspec_adapter import Refuse, Tool, fix_hash_seed, run  # noqa: E402

fix_hash_seed()


class PoetryCore(Tool):
    name = "poetry-core"
    extras = "set"

    def check(self):
        try:
            import poetry.core  # puts poetry-core's vendored lark on sys.path

            import lark
            from poetry.core.packages.dependency import Dependency
            from poetry.core.version import markers
            from poetry.core.version.requirements import InvalidRequirementError
        except ImportError as e:
            raise Refuse(f"cannot import poetry-core: {e}") from e
        self.version = poetry.core.__version__
        self.Dependency, self.markers = Dependency, markers
        self.parse_errors = (InvalidRequirementError, markers.InvalidMarkerError,
                             lark.exceptions.LarkError)
        self.eval_errors = (markers.UndefinedComparisonError,
                            markers.UndefinedEnvironmentNameError)

    def parse(self, kind, text):
        if kind == "requirement":
            return self.Dependency.create_from_pep_508(text)
        return self.markers.parse_marker(text)

    def canonical(self, parsed):
        return parsed.to_pep_508() if isinstance(parsed, self.Dependency) else str(parsed)

    def marker(self, kind, parsed):
        if kind == "requirement":
            return None if parsed.marker.is_any() else parsed.marker
        return parsed

    def evaluate(self, marker, environment, lock_file):
        return marker.validate(environment)


if __name__ == "__main__":
    sys.exit(run(PoetryCore()))
