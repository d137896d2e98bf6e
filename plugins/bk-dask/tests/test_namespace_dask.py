"""`bk.array_namespace("dask")`: Dask arrays stay lazy Dask arrays through the namespace."""

from __future__ import annotations

import numpy as np
import pytest

import bk

da = pytest.importorskip("dask.array")


def test_dask_arrays_stay_dask_arrays() -> None:
    xp = bk.array_namespace("dask")
    x = da.ones((4, 3), chunks=(2, 3), dtype=np.float64)
    assert bk.array_namespace(x) is xp
    y = xp.mean(xp.square(x), axis=0)
    assert isinstance(y, da.Array) and y.dtype == xp.float64
    np.testing.assert_allclose(y.compute(), np.ones(3))
    assert xp.float32 == np.dtype("float32")
    assert xp.__array_namespace_info__().capabilities()["boolean indexing"] is False  # unknown sizes, not a known shape
