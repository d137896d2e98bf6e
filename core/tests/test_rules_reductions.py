"""`bk._rules.reductions`: the dtype sums accumulate in, and reductions of nothing, decided once."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk import DType
from bk._rules.reductions import accumulation_type, check_nonempty, is_empty_reduction, numpy_accumulation_type

BOOL, I8, I32, I64 = DType(bool), DType(int, 8), DType(int, 32), DType(int, 64)
U8, U16, U64 = DType(int, 8, signed=False), DType(int, 16, signed=False), DType(int, 64, signed=False)
F16, F32, C64 = DType(float, 16), DType(float, 32), DType(complex, 64)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [(BOOL, I64), (I8, I64), (I32, I64), (I64, I64), (U8, U64), (U16, U64), (U64, U64), (F16, F16), (F32, F32), (C64, C64)],
)
def test_accumulation_type_widens_bool_and_ints_to_64_bits(dtype, expected):
    assert accumulation_type(dtype) == expected


def test_numpy_accumulation_type_is_none_where_nothing_widens():
    assert numpy_accumulation_type(np.dtype(np.bool_)) == np.dtype(np.int64)
    assert numpy_accumulation_type(np.dtype(np.uint16)) == np.dtype(np.uint64)
    assert numpy_accumulation_type(np.dtype(np.int32)) == np.dtype(np.int64)
    assert numpy_accumulation_type(np.dtype(np.int64)) is None
    assert numpy_accumulation_type(np.dtype(np.uint64)) is None
    assert numpy_accumulation_type(np.dtype(np.float16)) is None


def test_the_specs_and_the_catalogue_use_the_same_rule():
    from bk._catalogue_standard import accumulation_type as catalogue_rule

    assert catalogue_rule is accumulation_type
    assert bk.eval_shape("sum", bk.ShapeDtype((2, 3), U16), -1, True).dtype == U64
    assert bk.eval_shape("cumsum", bk.ShapeDtype((2, 3), BOOL), 0).dtype == I64
    with bk.precision(64):
        assert bk.eval_shape("prod", bk.ShapeDtype((4,), F32)).dtype == DType(float, 64)  # floats take the precision


def test_is_empty_reduction():
    assert is_empty_reduction((2, 0), None)
    assert is_empty_reduction((2, 0), (1,))
    assert not is_empty_reduction((2, 0), (0,))  # the axis reduced is not the empty one
    assert not is_empty_reduction((2, 0), ())
    assert not is_empty_reduction((), None)  # a 0-d tensor holds one element
    assert not is_empty_reduction((None, 3), (0,))  # unknown sizes (lazy values) are not empty


def test_check_nonempty_raises_value_error_naming_the_operation():
    check_nonempty("max", (3, 4), None)
    check_nonempty("argmax", (0, 4), (1,))
    with pytest.raises(ValueError, match=r"^max: the max of no elements \(shape \(0, 4\), every axis\)"):
        check_nonempty("max", (0, 4), None)
    with pytest.raises(ValueError, match=r"^argmin: .*axes \(0,\)"):
        check_nonempty("argmin", [0, 4], (0,))


def test_the_specs_raise_through_check_nonempty():
    for op in ("max", "min"):
        with pytest.raises(ValueError, match=f"^{op}: the {op} of no elements"):
            bk.eval_shape(op, bk.ShapeDtype((0, 3), F32), 0)
        assert bk.eval_shape(op, bk.ShapeDtype((0, 3), F32), 1).shape == (0,)
    with pytest.raises(ValueError, match="^argmax: the argmax of no elements"):
        bk.eval_shape("argmax", bk.ShapeDtype((0,), F32), None)
    with pytest.raises(ValueError, match="^quantile: the quantile of no elements"):
        bk.eval_shape("quantile", bk.ShapeDtype((2, 0), F32), 0.5)
    assert bk.eval_shape("sum", bk.ShapeDtype((0,), F32)).shape == ()  # sum has an identity
