#!/usr/bin/env python3
"""pypa/packaging 22.x–24.x (the versions pip 23–24 vendor) as a markerspec conformance adapter.

    markerspec conformance --adapter "VENV/bin/python adapters/packaging-legacy/adapter.py"

Reports itself as ``packaging-VERSION`` for whichever packaging is installed and claims the
neutral ``standard`` profile (these versions predate packaging 26.4, whose exact behaviour the
``packaging`` profile records). ``Marker.evaluate`` of these versions starts from the host's
``default_environment()``; to keep the host out of every result the adapter evaluates with the
same internal function on exactly the request's environment (a missing field raises
``UndefinedEnvironmentName``, as packaging 26 does). ``extra`` is one string in these versions:
requests with several extras are skipped, as are lock-file requests (no lock-file context).
When the installed packaging lacks a function this needs, the adapter refuses with one line.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from markerspec_adapter import Refuse, Tool, fix_hash_seed, run  # noqa: E402

fix_hash_seed()


class LegacyPackaging(Tool):
    name = "packaging-legacy"
    profiles = ["standard"]
    extras = "string"

    def check(self):
        try:
            import packaging
            from packaging import markers
            from packaging.requirements import InvalidRequirement, Requirement
        except ImportError as e:
            raise Refuse(f"cannot import packaging: {e}") from e
        self.version = packaging.__version__
        self.name = f"packaging-{packaging.__version__}"
        needed = ["_evaluate_markers", "Marker", "InvalidMarker", "UndefinedComparison",
                  "UndefinedEnvironmentName"]
        missing = [n for n in needed if not hasattr(markers, n)]
        if missing:
            raise Refuse(f"packaging {packaging.__version__} lacks packaging.markers."
                         f"{', '.join(missing)}; this adapter supports packaging 22 to 24")
        if hasattr(markers, "prepare_environment"):
            raise Refuse(f"packaging {packaging.__version__} is 26 or later: "
                         "use adapters/packaging/adapter.py")
        self.M, self.Requirement = markers, Requirement
        self.parse_errors = (InvalidRequirement, markers.InvalidMarker)
        self.eval_errors = (markers.UndefinedComparison, markers.UndefinedEnvironmentName)
        undefined = markers.UndefinedEnvironmentName

        class Exact(dict):
            """Only the request's fields; a missing one is UndefinedEnvironmentName."""

            def __missing__(self, key):
                raise undefined(f"{key!r} does not exist in evaluation environment.")

        self.Exact = Exact

    def parse(self, kind, text):
        return self.Requirement(text) if kind == "requirement" else self.M.Marker(text)

    def evaluate(self, marker, environment, lock_file):
        if not hasattr(marker, "_markers"):
            raise Refuse("Marker has no _markers")
        return self.M._evaluate_markers(marker._markers, self.Exact(environment))


if __name__ == "__main__":
    sys.exit(run(LegacyPackaging()))
