"""bk-torch's kernels of the Array API standard's operations where PyTorch lacks a kernel for a
dtype: `signbit` and `matmul` of the wide unsigned integers (uint16/32/64)."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk import DType

B = bk.backend("torch")


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_signbit_of_wide_unsigned_ints_is_false(dtype: str) -> None:
    x = np.array([0, 1, 2**15], dtype)
    result = B.signbit(B.as_tensor(x))
    assert B.dtype(result) == DType(bool)
    assert not B.numpy(result).any()


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_matmul_of_wide_unsigned_ints_wraps_as_numpy(dtype: str) -> None:
    x = (np.arange(6).reshape(2, 3) * 40_000).astype(dtype)
    y = (np.arange(3) + 60_000).astype(dtype)
    result = B.matmul(B.as_tensor(x), B.as_tensor(y))
    assert B.dtype(result) == DType.parse(dtype)
    assert np.array_equal(B.numpy(result), np.matmul(x, y))


def test_eye_of_every_dtype_including_the_wide_unsigned_ones():
    # PyTorch has no eye kernel of uint16/32/64 (the official Array API suite's test_eye found it)
    import bk

    b = bk.backend("torch")
    for name in ("uint8", "uint16", "uint32", "uint64", "int8", "int64", "float16", "float32", "complex64", "bool"):
        dtype = bk.DType.parse(name)
        for k in (0, 1, -1):
            result = b.eye(3, 4, k, dtype)
            assert b.dtype(result) == dtype and np.real(b.numpy(result)).astype(float).tolist() == np.eye(3, 4, k).tolist(), (name, k)
