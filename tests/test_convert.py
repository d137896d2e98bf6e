"""`bk.convert` between every ordered pair of installed backends: dense and sparse, dtype and shape kept,
memory shared through DLPack where both frameworks allow it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bk

FIRST_PARTY = ("numpy", "torch", "jax", "tf")
INSTALLED = [name for name in FIRST_PARTY if name in bk.backends()]
PAIRS = list(itertools.permutations(INSTALLED, 2))
# Every pair of first-party backends shares 64-byte aligned, contiguous CPU memory (docs/conversion.md).
ZERO_COPY = set(PAIRS)


def aligned(count: int) -> np.ndarray:
    """float32 values 0..count-1 in 64-byte aligned memory (TensorFlow shares only aligned memory)."""
    buffer = np.empty(count + 16, np.float32)
    offset = (-buffer.ctypes.data % 64) // 4
    array = buffer[offset : offset + count]
    array[:] = np.arange(count)
    return array


def address(backend: bk.Backend, tensor: object) -> int:
    """The address of the first element, read through a zero-copy NumPy view."""
    return int(np.from_dlpack(backend.to_dlpack(tensor)).ctypes.data)


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "complex64"])
def test_dense_values_dtype_and_shape(source: str, target: str, dtype: str):
    a, b = bk.backend(source), bk.backend(target)
    array = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    tensor = a.as_tensor(array)
    result = bk.convert(tensor, b)
    assert b.is_tensor(result, only_native=True)
    assert b.dtype(result) == a.dtype(tensor) and b.staticshape(result) == (2, 3, 4)
    np.testing.assert_array_equal(b.numpy(result), array)


@pytest.mark.parametrize(("source", "target"), sorted(ZERO_COPY & set(PAIRS)), ids=lambda p: str(p))
def test_zero_copy_pairs_share_memory(source: str, target: str):
    a, b = bk.backend(source), bk.backend(target)
    tensor = a.as_tensor(aligned(1024))
    result = bk.convert(tensor, b)
    assert address(b, result) == address(a, tensor)


@pytest.mark.parametrize("target", [name for name in ("tf", "jax") if name in INSTALLED])
def test_xla_frameworks_copy_misaligned_and_strided_memory(target: str):
    """TensorFlow and JAX (XLA) need 64-byte aligned, contiguous buffers: others are copied, never shared."""
    b = bk.backend(target)
    misaligned = aligned(33)[1:]  # 4 bytes past a 64-byte boundary
    strided = np.arange(12, dtype=np.float32)[::2]
    for array in (misaligned, strided):
        result = bk.convert(array, b)
        assert address(b, result) != array.ctypes.data
        np.testing.assert_array_equal(b.numpy(b.mul(result, 2)), array * 2)  # computing on it must not crash


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_without_dlpack_values_are_copied_through_numpy(source: str, target: str):
    a, b = bk.backend(source), bk.backend(target)
    tensor = a.as_tensor(np.arange(6, dtype=np.float32))
    result = bk.convert(tensor, b, use_dlpack=False)
    np.testing.assert_array_equal(b.numpy(result), np.arange(6))


SPARSE = [(a, b) for a, b in PAIRS if bk.backend(a).supports("sparse") and bk.backend(b).supports("sparse")]


@pytest.mark.parametrize(("source", "target"), SPARSE, ids=[f"{a}-{b}" for a, b in SPARSE])
def test_sparse_coo(source: str, target: str):
    a, b = bk.backend(source), bk.backend(target)
    dense = np.array([[0, 1.5, 0], [2.0, 0, 0]], np.float32)
    rows, cols = np.nonzero(dense)
    tensor = a.sparse_coo_tensor(a.as_tensor(np.stack([rows, cols], -1)), a.as_tensor(dense[rows, cols]), dense.shape)
    result = bk.convert(tensor, b)
    assert b.is_sparse(result)
    as_numpy = b.numpy(result)
    np.testing.assert_array_equal(as_numpy.toarray() if hasattr(as_numpy, "toarray") else as_numpy, dense)


def test_convert_to_the_default_backend_and_by_name():
    numpy = bk.backend("numpy")
    for name in INSTALLED:
        tensor = bk.backend(name).as_tensor(np.ones(3, np.float32))
        assert isinstance(bk.convert(tensor, "numpy"), np.ndarray)
        with numpy:
            assert isinstance(bk.convert(tensor), np.ndarray)
