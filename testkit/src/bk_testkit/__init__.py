"""bk-testkit: the conformance catalogue that certifies what every bk backend supports.

Use `testkit certify NAME` on the command line, or `check_backend(backend)` from a test suite.
"""

from ._case import CATALOGUE, Case, SkipCase, Trial, case
from ._catalogue import catalogue, describe_feature
from ._certify import BackendLoadError, BackendReport, certify_backend
from ._check import CheckResult, check_backend
from ._expected import EXPECTED_FAILURES
from ._report import SCHEMA_VERSION, format_summary, load_schema, to_json, to_markdown
from ._version import __version__

__all__ = [
    "CATALOGUE",
    "EXPECTED_FAILURES",
    "SCHEMA_VERSION",
    "BackendLoadError",
    "BackendReport",
    "Case",
    "CheckResult",
    "SkipCase",
    "Trial",
    "__version__",
    "case",
    "catalogue",
    "certify_backend",
    "check_backend",
    "describe_feature",
    "format_summary",
    "load_schema",
    "to_json",
    "to_markdown",
]
