//! Unit tests: exact `(code, span)` pairs for invalid input.
