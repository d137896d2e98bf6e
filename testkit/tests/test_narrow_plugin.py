"""A kernels-only third-party plugin for a framework narrower than NumPy certifies with 0 failed apart from its
declared gaps.

The plugin's files are in `narrow_plugin/`: its framework has no complex128, no order of complex values, no
integer matrix product, and puts NaN anywhere in its sort of bfloat16. The backend declares each once
(`unsupported_dtypes`, `complex_unordered`, `lacking_kernels`, `nan_unordered`); the core fills what it can
(NumPy's complex and NaN order from real parts, integer `matmul` in float64) and the testkit skips what needs
complex128, as input or as result, with the reason.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_plain_plugin import certify, install

HERE = pathlib.Path(__file__).parent / "narrow_plugin"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return install(tmp_path_factory.mktemp("narrowsite"), HERE, "narrow")


@pytest.mark.slow
def test_the_narrow_plugin_certifies_with_no_failure_apart_from_its_gaps(site):
    result, features = certify(site, "narrow")
    failed = {f: r["failures"][:2] for f, r in features.items() if r["status"] == "failed"}
    assert result.returncode == 0 and not failed, (failed, result.stderr[-2000:])
    # the complex order its framework lacks, filled by the core (the complex-order cases run in complex64)
    for feature in ("greater_than", "maximum", "max", "argmax", "argmin", "sort", "argsort", "searchsorted", "clip", "matmul"):
        assert features[feature]["status"] == "certified", (feature, features[feature])
    # what needs complex128 is skipped with the reason, never failed
    skipped = {case: why for r in features.values() for case, why in r.get("skipped_cases", {}).items()}
    assert skipped["to_complex/dtypes"].startswith("to_complex: unsupported for dtype complex128"), skipped
    assert "narrow lacks complex128" in skipped["as_tensor/numpy scalars"], skipped
    # the certificate's summary lists every declared gap
    assert "Declared gaps of narrow" in result.stdout + result.stderr
