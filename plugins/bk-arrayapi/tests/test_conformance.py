"""Conformance of a second namespace, NumPy through `array_api_compat`, with the testkit's Python API.

array-api-strict is certified by `make test` (`testkit certify strict`); this certifies another
namespace in-process, so that the plugin is not tuned to one library. Precision sweeps are left
to the command line to keep the test short.
"""

from __future__ import annotations

import pytest

from bk_arrayapi._backend import create_backend
from bk_testkit import check_backend


@pytest.mark.slow
def test_numpy_through_array_api_compat_conforms() -> None:
    backend = create_backend("compat_numpy", "array_api_compat.numpy")
    result = check_backend(backend, precisions=(None,))  # raises AssertionError naming every failure
    assert result.with_status("failed") == []
    certified = result.with_status("certified")
    assert len(certified) >= 0.7 * len(result.features), f"only {len(certified)} of {len(result.features)} features certified"
    assert {"fft", "svd", "unique", "scatter", "dlpack", "float64"} <= set(certified)
