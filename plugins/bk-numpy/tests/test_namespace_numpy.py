"""`bk.array_namespace("numpy")`: NumPy arrays and dtypes through bk's catalogue."""

from __future__ import annotations

import numpy as np

import bk


def test_arrays_and_dtypes_are_numpys_own() -> None:
    xp = bk.array_namespace("numpy")
    assert xp.float64 == np.dtype("float64") and isinstance(xp.float64, np.dtype)
    x = xp.asarray([1.0, 2.0], dtype=xp.float64)
    assert type(x) is np.ndarray and x.dtype == np.float64
    assert bk.array_namespace(x) is xp
    assert xp.asarray([1.5]).dtype == np.float32  # bk's default float
    assert xp.__array_namespace_info__().devices() == ["cpu"]


def test_copy_semantics_of_asarray() -> None:
    xp = bk.array_namespace("numpy")
    x = np.ones(3)
    assert xp.asarray(x) is x
    assert xp.asarray(x, copy=True) is not x
    assert not np.shares_memory(xp.asarray(x, copy=True), x)
    assert xp.asarray(x, copy=False) is x


def test_unique_all_and_searchsorted() -> None:
    xp = bk.array_namespace("numpy")
    result = xp.unique_all(xp.asarray([[2, 1], [2, 5]]))
    np.testing.assert_array_equal(result.values, [1, 2, 5])
    np.testing.assert_array_equal(result.indices, [1, 0, 3])
    np.testing.assert_array_equal(result.inverse_indices, [[1, 0], [1, 2]])
    np.testing.assert_array_equal(result.counts, [1, 2, 1])
    np.testing.assert_array_equal(
        xp.searchsorted(xp.asarray([3.0, 1.0, 2.0]), xp.asarray([2.5]), sorter=xp.asarray([1, 2, 0])), [2]
    )
