"""`bk.array_namespace` of a bk-arrayapi backend: array-api-strict's arrays and dtypes round-trip."""

from __future__ import annotations

import numpy as np
import pytest

import bk

xps = pytest.importorskip("array_api_strict")
bk_arrayapi = pytest.importorskip("bk_arrayapi")


@pytest.fixture
def xp():
    bk_arrayapi.register("nsstrict", "array_api_strict")
    try:
        yield bk.array_namespace("nsstrict")
    finally:
        bk_arrayapi.unregister("nsstrict")


def test_strict_arrays_and_dtypes_round_trip(xp) -> None:
    assert xp.float32 == xps.float32 and xp.int64 == xps.int64
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float64)
    assert type(x) is type(xps.asarray(1.0)) and x.dtype == xps.float64
    y = xp.linalg.matrix_transpose(x) if hasattr(xp.linalg, "matrix_transpose") else xp.permute_dims(x, (1, 0))
    np.testing.assert_array_equal(np.asarray(xp.sum(y, axis=0)), [3.0, 7.0])
    assert xp.sum(xp.asarray([1, 2], dtype=xp.int8)).dtype == xps.int64
