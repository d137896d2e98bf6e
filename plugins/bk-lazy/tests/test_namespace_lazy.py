"""`bk.array_namespace("lazy")`: a function written against the standard builds a bk-lazy graph."""

from __future__ import annotations

import bk_lazy
import numpy as np

import bk
from bk import DType


def test_standard_code_records_a_graph_that_runs_on_numpy() -> None:
    xp = bk.array_namespace("lazy")
    assert xp.float32 == DType(float, 32)  # bk-lazy's native dtypes are bk.DTypes
    x = bk_lazy.Variable((2, 3), "float32", name="x")
    assert bk.array_namespace(x) is xp
    y = xp.sum(xp.exp(x), axis=1, keepdims=True)
    assert isinstance(y, bk_lazy.LazyArray) and tuple(y.shape) == (2, 1) and y.dtype == xp.float32
    f = bk_lazy.Function([x], y)
    np.testing.assert_allclose(f(np.zeros((2, 3), np.float32)), [[3.0], [3.0]])
