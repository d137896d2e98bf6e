"""`bk.array_namespace("torch")`: PyTorch as an Array API namespace, with torch's own tensors and dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import bk

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def xp():
    return bk.array_namespace("torch")


def test_tensors_and_dtypes_are_torchs_own(xp) -> None:
    assert xp.float32 is torch.float32 and xp.int64 is torch.int64 and xp.complex64 is torch.complex64
    x = xp.asarray([1.0, 2.0])
    assert isinstance(x, torch.Tensor) and x.dtype is torch.float32
    assert bk.array_namespace(x, torch.ones(2)) is xp
    assert xp.__array_namespace_info__().default_device() == torch.device("cpu")
    assert xp.zeros((2,), dtype=xp.int16, device=torch.device("cpu")).dtype is torch.int16


def test_standard_signatures_and_results(xp) -> None:
    x = xp.asarray([[1.0, -2.0], [3.0, 4.0]], dtype=xp.float64)
    assert xp.sum(x, axis=0, dtype=xp.float32).dtype is torch.float32
    assert xp.linalg.matrix_transpose(x).shape == (2, 2) if hasattr(xp.linalg, "matrix_transpose") else True
    values, counts = xp.unique_counts(xp.asarray([3, 1, 3, 3]))
    np.testing.assert_array_equal(values.numpy(), [1, 3])
    np.testing.assert_array_equal(counts.numpy(), [1, 3])
    np.testing.assert_array_equal(xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True).numpy(), [0, 1, 3, 6])
    assert xp.isdtype(xp.uint8, "unsigned integer") and xp.result_type(xp.int8, xp.uint8) is torch.int16
