"""The operation specs (`bk.op_spec`, `bk.eval_shape`): API, promotion, broadcasting, reductions, errors.

The cross-check of every spec against what bk-numpy really returns lives in
`plugins/bk-numpy/tests/test_specs_numpy.py` (the core's tests need no backend).
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

import bk
from bk import DType, ShapeDtype
from bk._specs import NO_SPEC, WIDEN, binary, op_specs, register, specifies, unary

I8, I32, I64 = DType(int, 8), DType(int, 32), DType(int, 64)
U8, U64 = DType(int, 8, signed=False), DType(int, 64, signed=False)
F16, BF16, F32, F64 = DType(float, 16), DType(float, 16, brain=True), DType(float, 32), DType(float, 64)
C64, C128 = DType(complex, 64), DType(complex, 128)
BOOL = DType(bool)


def t(shape, dtype):
    return ShapeDtype(shape, dtype)


# ---------------------------------------------------------------- API


def test_shape_dtype_is_a_frozen_hashable_template():
    a = ShapeDtype([2, None], np.float32)
    assert a.shape == (2, None) and a.dtype == F32 and a.ndim == 2 and a.size is None
    assert a == ShapeDtype((2, None), F32) and hash(a) == hash(ShapeDtype((2, None), "float32"))
    assert ShapeDtype((0, None), F32).size == 0 and ShapeDtype((), I8).size == 1
    with pytest.raises(AttributeError):
        a.shape = (3,)  # type: ignore[misc]
    with pytest.raises(ValueError, match="0 or more"):
        ShapeDtype((-1,), F32)
    assert pickle.loads(pickle.dumps(a)) == a
    assert "float32" in repr(a)


def test_public_names():
    assert bk.ShapeDtype is ShapeDtype and bk.OpSpec.__module__ == "bk"
    assert bk.eval_shape("add", t((2,), F32), 1.0) == bk.op_spec("add").infer(t((2,), F32), 1.0) == t((2,), F32)
    with pytest.raises(TypeError):
        op_specs()["add"] = op_specs()["add"]  # type: ignore[index]


def test_unknown_operation_names_close_matches():
    with pytest.raises(ValueError, match="'sum'"):
        bk.op_spec("summ")


def test_register_refuses_a_second_spec_of_the_same_name():
    with pytest.raises(ValueError, match="registered already"):
        unary("sin", WIDEN, "again")


def test_specifies_registers_an_infer_function_with_its_argument_kinds():
    @specifies("_test_double", "Twice x, same shape and dtype.")
    def _double(x: Tensor, factor: int = 2) -> ShapeDtype:
        return bk.ShapeDtype(np.shape(x), DType.as_dtype(x))

    try:
        spec = bk.op_spec("_test_double")
        assert spec.params == (("x", "Tensor"), ("factor", "int"))
        assert spec.infer(np.zeros(3, np.int8)) == t((3,), I8)
        with pytest.raises(bk.ArgumentTypeError, match="_test_double"):
            spec.infer()
        register(spec, replace=True)
    finally:
        from bk._specs._base import _REGISTRY

        del _REGISTRY["_test_double"]


def test_binary_block_is_one_line():
    spec = binary("_test_hypot", "sqrt(a**2 + b**2)", int_to_float=True, kinds=frozenset({float}), register_it=False)
    assert spec.infer(np.zeros(2, np.int8), np.zeros((3, 1), np.int16)) == t((3, 2), F32)
    with pytest.raises(bk.ArgumentTypeError, match="_test_hypot"):
        spec.infer(np.zeros(2, np.complex64), 1)


def test_wrong_arguments_raise_argument_type_error_naming_the_operation():
    with pytest.raises(bk.ArgumentTypeError, match="^add: "):
        bk.eval_shape("add", None, 1)
    with pytest.raises(bk.ArgumentTypeError, match="^sin: "):
        bk.eval_shape("sin", "text")
    with pytest.raises(bk.ArgumentTypeError, match="^sum: "):
        bk.eval_shape("sum", np.zeros(3), 1, False, "extra")
    with pytest.raises(bk.ArgumentTypeError, match="^sin: "):
        bk.eval_shape("sin", np.array(["a"]))


def test_every_feature_has_a_spec_or_a_reason():
    from bk._features import CAPABILITIES

    methods = set(bk.Backend.features()) - set(CAPABILITIES)
    missing = sorted(methods - set(op_specs()) - set(NO_SPEC))
    # The Array API operations of `_catalogue_*.py` register their specs from their own modules.
    pending = {name for name in missing if bk._operations.operation(name).definition.__module__.startswith("bk._catalogue_")}
    assert not set(missing) - pending, f"catalogue operations without a spec or a reason: {sorted(set(missing) - pending)}"
    assert not set(op_specs()) & set(NO_SPEC)
    assert all(reason.strip() for reason in NO_SPEC.values())
    assert set(NO_SPEC) <= methods, "NO_SPEC names only catalogue methods"


# ---------------------------------------------------------------- promotion (docs/semantics.md)


@pytest.mark.parametrize(
    ("tensor", "scalar", "expected"),
    [
        (I8, 2, I8),
        (U8, True, U8),
        (F16, 1.5, F16),
        (I32, 1.5, F32),
        (F16, 1j, C64),
        (F64, 1j, C128),
        (BOOL, 2, I64),
        (BF16, 1.5, BF16),
        (BF16, 1j, C64),
        (BOOL, 1.5, F32),
        (U64, 2, U64),
    ],
)
def test_python_numbers_are_weak(tensor, scalar, expected):
    assert bk.eval_shape("mul", t((3,), tensor), scalar).dtype == expected
    assert bk.eval_shape("mul", scalar, t((3,), tensor)).dtype == expected
    assert bk.eval_shape("maximum", t((3,), tensor), scalar).dtype == expected


def test_python_ints_out_of_range_overflow_except_in_division_comparisons_and_where():
    x = t((3,), I8)
    with pytest.raises(OverflowError, match="^add: .*300"):
        bk.eval_shape("add", x, 300)
    with pytest.raises(OverflowError):
        bk.eval_shape("sub", t((3,), U8), -1)
    assert bk.eval_shape("div", x, 300) == t((3,), F32)
    assert bk.eval_shape("greater_than", x, 300) == t((3,), BOOL)
    assert bk.eval_shape("equal", -300, x) == t((3,), BOOL)
    assert bk.eval_shape("where", t((3,), BOOL), x, 300) == t((3,), I8)


def test_strong_operands_promote_as_numpy():
    for a, b in [(U8, I8), (I32, F16), (I8, U64), (F16, F32), (C64, F64), (BOOL, U8)]:
        got = bk.eval_shape("mul", t((), a), t((), b)).dtype
        if {a, b} == {I8, U64}:
            assert got == I64  # bk keeps an integer where NumPy falls back to float64
        elif {a, b} == {I32, F16}:
            assert got == F16  # bk.combine_types: an int never widens the float beside it (PyTorch, JAX)
        else:
            assert got == bk.from_numpy_dtype(np.result_type(bk.to_numpy_dtype(a), bk.to_numpy_dtype(b)))


def test_precision_applies_to_floats_only():
    with bk.precision(64):
        assert bk.eval_shape("add", t((2,), F32), t((2,), F16)).dtype == F64
        assert bk.eval_shape("add", t((2,), I8), 1).dtype == I8
        assert bk.eval_shape("div", t((2,), I32), t((2,), I32)).dtype == F64
        assert bk.eval_shape("sin", 1).dtype == F64
        assert bk.eval_shape("mul", t((2,), C64), 2).dtype == C128
    with bk.precision(16):
        assert bk.eval_shape("exp", t((2,), F64)).dtype == F16
        assert bk.eval_shape("mul", t((2,), F32), 1j).dtype == C64


def test_bool_rules():
    b = t((2,), BOOL)
    assert bk.eval_shape("add", b, b).dtype == I32
    assert bk.eval_shape("sub", b, True).dtype == I32
    assert bk.eval_shape("mul", b, b).dtype == BOOL
    assert bk.eval_shape("floordiv", b, b).dtype == I8
    assert bk.eval_shape("shift_bits_left", b, b).dtype == I8
    assert bk.eval_shape("and_", b, b).dtype == BOOL
    assert bk.eval_shape("and_", t((2,), I8), 3).dtype == I8


def test_kind_restrictions():
    for op, dtype in [("and_", F32), ("shift_bits_right", F64), ("mod", C64), ("floordiv", C128)]:
        with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: "):
            bk.eval_shape(op, t((2,), dtype), t((2,), dtype))
    for op, dtype in [("invert", F32), ("floor", C64), ("ceil", C64), ("sign", BOOL), ("log_gamma", C64)]:
        with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: "):
            bk.eval_shape(op, t((2,), dtype))


def test_pow_of_integers_to_a_negative_python_int_is_a_value_error():
    with pytest.raises(ValueError, match="^pow: "):
        bk.eval_shape("pow", t((2,), I32), -1)
    assert bk.eval_shape("pow", t((2,), I32), -1.0).dtype == F32


# ---------------------------------------------------------------- unary functions and casts


@pytest.mark.parametrize(
    ("op", "dtype", "expected"),
    [
        ("sqrt", I8, F32),
        ("sqrt", BOOL, F32),
        ("sqrt", F16, F16),
        ("exp", BF16, BF16),
        ("sin", C128, C128),
        ("abs", C64, F32),
        ("abs", I8, I8),
        ("round", I32, I32),
        ("floor", BOOL, BOOL),
        ("real", C128, F64),
        ("imag", F32, F32),
        ("isnan", C64, BOOL),
        ("invert", U8, U8),
        ("factorial", I64, I64),
        ("factorial", I8, I8),
    ],
)
def test_unary_dtypes(op, dtype, expected):
    assert bk.eval_shape(op, t((2, 0), dtype)) == t((2, 0), expected)


def test_a_lone_python_number_takes_as_tensors_dtype():
    assert bk.eval_shape("abs", 2) == t((), I64)
    assert bk.eval_shape("abs", 2.0) == t((), F32)
    assert bk.eval_shape("sqrt", 1j) == t((), C64)
    assert bk.eval_shape("add", 1, 2) == t((), I64)
    assert bk.eval_shape("add", 1, 2.0) == t((), F32)
    assert bk.eval_shape("add", True, True) == t((), I32)


def test_casts():
    assert bk.eval_shape("cast", t((2,), F32), DType(int, 16)) == t((2,), DType(int, 16))
    assert bk.eval_shape("cast", t((2,), F32), "uint8") == t((2,), U8)
    assert bk.eval_shape("to_float", t((2,), F16)) == t((2,), F16)
    assert bk.eval_shape("to_float", t((2,), I64)) == t((2,), F32)
    assert bk.eval_shape("to_complex", t((2,), F64)) == t((2,), C128)
    assert bk.eval_shape("to_complex", t((2,), F16)) == t((2,), C64)
    assert bk.eval_shape("to_int64", 1.5) == t((), I64)
    with bk.precision(64):
        assert bk.eval_shape("to_float", t((2,), F16)) == t((2,), F64)
        assert bk.eval_shape("to_complex", t((2,), C64)) == t((2,), C128)
    a, b = bk.eval_shape("auto_cast", t((2,), I8), 3, bool_to_int=True)
    assert a == t((2,), I8) and b == t((), I8)
    assert bk.eval_shape("auto_cast", t((2,), BOOL), True, bool_to_int=True) == (t((2,), I32), t((), I32))
    assert bk.eval_shape("auto_cast", t((2,), I8), 300, int_to_float=True)[1] == t((), F32)
    with pytest.raises(OverflowError):
        bk.eval_shape("auto_cast", t((2,), I8), 300)


def test_clip_keeps_the_dtype_of_x():
    assert bk.eval_shape("clip", t((3,), I8), -1.5, 2.5) == t((3,), I8)
    assert bk.eval_shape("clip", t((3,), U8), -5, 300) == t((3,), U8)
    assert bk.eval_shape("clip", t((3,), BOOL), 0, 1) == t((3,), BOOL)
    assert bk.eval_shape("clip", t((3,), F32), t((2, 1), F64), None) == t((2, 3), F32)


def test_where():
    assert bk.eval_shape("where", t((2, 1), BOOL), t((3,), F16), 0.0) == t((2, 3), F16)
    assert bk.eval_shape("where", True, 1, 2.0) == t((), F32)
    assert bk.eval_shape("where", t((2, 3), BOOL)) == t((None, 2), I64)
    with pytest.raises(ValueError, match="^where: "):
        bk.eval_shape("where", t((2,), BOOL), 1)


# ---------------------------------------------------------------- broadcasting


@pytest.mark.parametrize(
    ("a", "b"),
    [((), (3,)), ((2, 1), (3,)), ((0,), (1,)), ((4, 1, 5), (3, 1)), ((1,), ()), ((2, 0, 3), (1, 1))],
)
def test_broadcasting_matches_numpy(a, b):
    assert bk.eval_shape("add", t(a, F32), t(b, F32)).shape == np.broadcast_shapes(a, b)


@pytest.mark.parametrize(("a", "b"), [((2,), (3,)), ((0,), (2,)), ((2, 3), (3, 2))])
def test_shapes_that_do_not_broadcast(a, b):
    with pytest.raises(bk.ShapeMismatchError, match="^mul: "):
        bk.eval_shape("mul", t(a, F32), t(b, F32))


def test_unknown_sizes_broadcast():
    assert bk.eval_shape("add", t((None, 1), F32), t((3,), F32)).shape == (None, 3)
    assert bk.eval_shape("add", t((None,), F32), t((1,), F32)).shape == (None,)
    assert bk.eval_shape("add", t((None,), F32), t((4,), F32)).shape == (4,)


def test_lists_are_strong_arrays():
    assert bk.eval_shape("add", t((3,), F32), [1.0, 2.0, 3.0]) == t((3,), F64)
    assert bk.eval_shape("add", t((2, 1), I8), [1, 2]) == t((2, 2), I64)


# ---------------------------------------------------------------- reductions


@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (2, 0, 4)])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, -1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_shapes_match_numpy(shape, axis, keepdims):
    ndim = len(shape)
    valid = axis is None or axis == () or all(-ndim <= a < ndim for a in ((axis,) if isinstance(axis, int) else axis))
    if isinstance(axis, tuple) and len(axis) == 2 and ndim == 1:
        valid = False  # 0 and -1 name the same axis
    if not valid:
        with pytest.raises(bk.AxisError, match="^sum: "):
            bk.eval_shape("sum", t(shape, F32), axis, keepdims)
        return
    expected = np.sum(np.zeros(shape, np.float32), axis=axis, keepdims=keepdims)
    assert bk.eval_shape("sum", t(shape, F32), axis, keepdims) == t(np.shape(expected), F32)
    assert bk.eval_shape("mean", t(shape, I8), axis=axis, keepdims=keepdims) == t(np.shape(expected), F32)


@pytest.mark.parametrize(("dtype", "expected"), [(BOOL, I64), (I8, I64), (I32, I64), (U8, U64), (I64, I64), (F16, F16), (C64, C64)])
def test_sum_prod_and_cumsum_widen_small_ints(dtype, expected):
    assert bk.eval_shape("sum", t((2, 3), dtype), 0) == t((3,), expected)
    assert bk.eval_shape("prod", t((2, 3), dtype)) == t((), expected)
    assert bk.eval_shape("cumsum", t((2, 3), dtype), -1) == t((2, 3), expected)


def test_reductions_without_identity_refuse_empty_axes():
    assert bk.eval_shape("max", t((0, 3), F32), 1) == t((0,), F32)
    for op in ("max", "min", "argmax", "argmin"):
        with pytest.raises(ValueError, match=f"^{op}: "):
            bk.eval_shape(op, t((0, 3), F32), 0)
        with pytest.raises(ValueError, match=f"^{op}: "):
            bk.eval_shape(op, t((0,), F32), None)
    assert bk.eval_shape("sum", t((0, 3), F32), 0) == t((3,), F32)


def test_axis_mistakes():
    with pytest.raises(bk.AxisError, match="^sum: "):
        bk.eval_shape("sum", t((), F32), 0)
    with pytest.raises(bk.AxisError, match="twice"):
        bk.eval_shape("max", t((2, 3), F32), (1, -1))
    with pytest.raises(bk.ArgumentTypeError, match="^mean: "):
        bk.eval_shape("mean", t((2, 3), F32), 1.0)
    with pytest.raises(bk.ArgumentTypeError, match="^cumsum: "):
        bk.eval_shape("cumsum", t((2, 3), F32), None)
    with pytest.raises(bk.AxisError, match="^argmax: "):
        bk.eval_shape("argmax", t((2, 3), F32), 2)


def test_other_reductions():
    assert bk.eval_shape("any", t((2, 3), C64), 0) == t((3,), BOOL)
    assert bk.eval_shape("all", t((2, 3), F32), keepdims=True) == t((1, 1), BOOL)
    assert bk.eval_shape("std", t((2, 3), C128), -1) == t((2,), F64)
    assert bk.eval_shape("argmax", t((2, 3), F32), None, keepdims=True) == t((1, 1), I64)
    assert bk.eval_shape("argmin", t((2, 3), U8), 0) == t((3,), I64)
    assert bk.eval_shape("quantile", t((2, 5), I8), [0.1, 0.5, 0.9]) == t((3, 2), F32)
    assert bk.eval_shape("quantile", t((2, 5), F64), 0.5) == t((2,), F64)
    with pytest.raises(bk.AxisError, match="^quantile: "):
        bk.eval_shape("quantile", t((), F32), 0.5)
    with pytest.raises(bk.ArgumentTypeError, match="^quantile: "):
        bk.eval_shape("quantile", t((3,), C64), 0.5)
    with pytest.raises(ValueError, match="^quantile: "):
        bk.eval_shape("quantile", t((3, 0), F32), 0.5)


# ---------------------------------------------------------------- no data


def test_huge_templates_infer_without_allocating():
    huge = t((100_000, 100_000), F32)  # 1e10 elements
    tracemalloc.start()
    try:
        assert bk.eval_shape("add", huge, 1.0) == huge
        assert bk.eval_shape("sum", huge, -1) == t((100_000,), F32)
        assert bk.eval_shape("sin", huge) == huge
        assert bk.eval_shape("argmax", huge, 0) == t((100_000,), I64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


# ---------------------------------------------------------------- docstrings


def test_backend_docstrings_state_each_rule():
    assert "Rule: " in bk.Backend.sum.__doc__ and "int64" in bk.Backend.sum.__doc__.split("Rule: ")[1]
    assert bk.Backend.add.__doc__.count("Rule: ") == 1
    assert bk.op_spec("clip").rule in " ".join(bk.Backend.clip.__doc__.split())


Tensor = object


# ---------------------------------------------------------------- shapes, indexing, products


def test_reshape():
    x = t((2, 3, 4), F32)
    assert bk.eval_shape("reshape", x, (-1, 4)) == t((6, 4), F32)
    assert bk.eval_shape("reshape", t((None, 4), I8), (-1, 2)) == t((None, 2), I8)
    assert bk.eval_shape("reshape", t((None, 4), I8), (8, 2)) == t((8, 2), I8)
    with pytest.raises(bk.ShapeMismatchError, match="^reshape: "):
        bk.eval_shape("reshape", x, (5, -1))
    with pytest.raises(ValueError, match="one size"):
        bk.eval_shape("reshape", x, (-1, -1))
    assert bk.eval_shape("flatten", t((2, None), I8)) == t((None,), I8)
    assert bk.eval_shape("flatten", t((0, None), I8)) == t((0,), I8)


def test_transpose_expand_dims_and_flip():
    x = t((2, 3, 4), F32)
    assert bk.eval_shape("transpose", x, (2, 0, -2)) == t((4, 2, 3), F32)
    for axes in [(0, 0, 1), (0, 1), (0, 1, 3)]:
        with pytest.raises(bk.AxisError, match="^transpose: "):
            bk.eval_shape("transpose", x, axes)
    assert bk.eval_shape("expand_dims", x, -1, 2) == t((2, 3, 4, 1, 1), F32)
    assert bk.eval_shape("expand_dims", x, 3) == t((2, 3, 4, 1), F32)
    with pytest.raises(bk.AxisError):
        bk.eval_shape("expand_dims", x, 5)
    assert bk.eval_shape("flip", x, None) == x
    with pytest.raises(bk.AxisError):
        bk.eval_shape("flip", x, (0, -3))


def test_stack_concat_unstack():
    a, b = t((2, None), I8), t((None, 3), F16)
    assert bk.eval_shape("stack", [a, b], 1) == t((2, 2, 3), F16)
    assert bk.eval_shape("concat", [a, t((4, 3), I8)], 0) == t((6, 3), I8)
    assert bk.eval_shape("concat", [a, t((2, 3), I8)], -1) == t((2, None), I8)
    with pytest.raises(bk.ShapeMismatchError, match="^concat: "):
        bk.eval_shape("concat", [t((2, 3), I8), t((4, 3), I8)], 1)
    with pytest.raises(bk.ShapeMismatchError, match="rank"):
        bk.eval_shape("concat", [t((2, 3), I8), t((3,), I8)], 0)
    with pytest.raises(ValueError, match="at least one"):
        bk.eval_shape("stack", [])
    with bk.precision(64):
        assert bk.eval_shape("stack", [t((2,), F32), t((2,), F16)]) == t((2, 2), F64)
    parts = bk.eval_shape("unstack", t((2, 3), F32), -1, True)
    assert parts == (t((2, 1), F32),) * 3


def test_tile_repeat_pad():
    x = t((2, 3), I8)
    assert bk.eval_shape("tile", x, (2,)) == t((2, 6), I8) == t(np.tile(np.zeros((2, 3)), (2,)).shape, I8)
    assert bk.eval_shape("tile", x, (2, 1, 1)) == t((2, 2, 3), I8)
    assert bk.eval_shape("tile_to", x, -1, 9) == t((2, 9), I8)
    with pytest.raises(ValueError, match="multiple"):
        bk.eval_shape("tile_to", x, 1, 4)
    assert bk.eval_shape("repeat", x, 2, 0) == t((4, 3), I8)
    assert bk.eval_shape("repeat", x, [1, 2, 3], -1) == t((2, 6), I8)
    assert bk.eval_shape("repeat", x, t((3,), I64), 1) == t((2, None), I8)
    assert bk.eval_shape("repeat", x, t((3,), I64), 1, 7) == t((2, 7), I8)
    assert bk.eval_shape("pad", x, [(1, 2), (0, 3)], "reflect") == t((5, 6), I8)
    with pytest.raises(ValueError, match="mode"):
        bk.eval_shape("pad", x, [(1, 2), (0, 3)], "mirror")
    with pytest.raises(ValueError, match="pairs"):
        bk.eval_shape("pad", x, [(1, 2)])
    assert bk.eval_shape("pad_to", x, 1, 1, 0) == t((2, 1), I8)


def test_slicing_matches_numpy():
    array = np.zeros((2, 3, 4), np.float32)
    i = np.array([0, 1])
    for index in [
        (slice(None), 1), (Ellipsis, slice(None, None, -1)), (None, 0, Ellipsis, slice(1, 3)), (-2, -3), (i, slice(None), np.array([[0], [1]])),
        (slice(None), i, np.array([[0], [1]])),
        (0, slice(None), i), (i, slice(None), 0), (slice(None), i, 0), (i, None, i), (None, 0, slice(None), i),  # ints among arrays are arrays
        (np.int64(1), i), (slice(None), np.array(1), i),
    ]:  # fmt: skip
        assert bk.eval_shape("multi_slice", array, index).shape == array[index].shape, index
    assert bk.eval_shape("multi_slice", array, (np.array([True, False]),)).shape == (None, 3, 4)  # as many as are true
    with pytest.raises(bk.IndexOutOfRangeError, match="^multi_slice: "):
        bk.eval_shape("multi_slice", array, (2,))
    with pytest.raises(bk.IndexOutOfRangeError, match="^multi_slice: a mask of shape"):
        bk.eval_shape("multi_slice", array, (0, np.array([True, False])))
    assert bk.eval_shape("multi_slice", t((None, 3), F32), (slice(1, None), 0)) == t((None,), F32)
    assert bk.eval_shape("batch_gather", t((5, 3), F32), [0, 4, 4]) == t((3, 3), F32)


def test_gather_and_scatter():
    v = t((3, 4), F16)
    assert bk.eval_shape("gather", v, t((2, 5), I32), 1) == t((3, 2, 5), F16)
    assert bk.eval_shape("gather", v, t((0,), F32), 0) == t((0, 4), F16)  # `[]` is float64 as an array: empty indices pass
    with pytest.raises(bk.ArgumentTypeError, match="^gather: "):
        bk.eval_shape("gather", v, t((2,), F32), 0)
    with pytest.raises(bk.IndexOutOfRangeError, match="^gather: "):
        bk.eval_shape("gather", v, [0, -4], 0)
    values = t((2, 4, 5, 3), I32)
    assert bk.eval_shape("batched_gather_nd", values, t((1, 6, 2), I64)) == t((2, 6, 3), I32)
    with pytest.raises(bk.ShapeMismatchError):
        bk.eval_shape("batched_gather_nd", values, t((3, 6, 2), I64))
    grid = t((2, 4, 5, 3), F32)
    assert bk.eval_shape("scatter", grid, t((2, 6, 2), I64), t((1, 1, 3), F64), "add") == t((2, 4, 5, 3), F64)
    assert bk.eval_shape("scatter_nd_scalar", t((4, 5), F32), t((6, 2), I64), t((6,), F32), "max") == t((4, 5), F32)
    with pytest.raises(ValueError, match="mode"):
        bk.eval_shape("scatter", grid, t((2, 6, 2), I64), t((2, 6, 3), F32), "mul")


def test_data_dependent_sizes_are_unknown():
    assert bk.eval_shape("nonzero", t((2, 3), F32)) == t((None, 2), I64)
    assert bk.eval_shape("nonzero", t((2, 3), F32), 10) == t((10, 2), I64)
    assert bk.eval_shape("boolean_mask", t((4, 3), I8), t((4,), BOOL), 0) == t((None, 3), I8)
    with pytest.raises(bk.IndexOutOfRangeError, match="^boolean_mask: "):
        bk.eval_shape("boolean_mask", t((4, 3), I8), t((3,), BOOL), 0)
    assert bk.eval_shape("unique", t((2, 3), F32), True, False, 0) == (t((None, 3), F32), t((2,), I64))


def test_products_and_decompositions():
    assert bk.eval_shape("tensordot", t((2, 3, 4), I32), (1, 2), t((3, 4, 5), I32), (0, 1)) == t((2, 5), I32)
    with pytest.raises(bk.ShapeMismatchError, match="^tensordot: "):
        bk.eval_shape("tensordot", t((2, 3), F32), (1,), t((4, 4), F32), (0,))
    assert bk.eval_shape("einsum", "...i,...i", t((2, 3), F32), t((5, 1, 3), F32)) == t((5, 2), F32)
    assert bk.eval_shape("einsum", "ij->", t((3, 4), F32)) == t((), F32)
    assert bk.eval_shape("einsum", "ii->i", t((3, 3), F32)) == t((3,), F32)
    with pytest.raises(bk.ShapeMismatchError, match="^einsum: "):
        bk.eval_shape("einsum", "ij,jk", t((2, 3), F32), t((4, 4), F32))
    with pytest.raises(ValueError, match="^einsum: "):
        bk.eval_shape("einsum", "ij,jk", t((2, 3), F32))
    assert bk.eval_shape("svd", t((5, 2, 3), C64)) == (t((5, 2, 2), C64), t((5, 2), F32), t((5, 3, 3), C64))
    assert bk.eval_shape("eig", t((3, 3), I32)) == (t((3,), C64), t((3, 3), C64))
    with pytest.raises(bk.ShapeMismatchError):
        bk.eval_shape("eigvals", t((2, 3), F32))
    assert bk.eval_shape("fft", t((4, 8), F64), (-1,)) == t((4, 8), C128)
    with bk.precision(64):
        assert bk.eval_shape("fft", t((4, 8), F32), (0, 1)) == t((4, 8), C128)
    assert bk.eval_shape("conv", t((2, 3, 10, 9), F32), t((1, 4, 3, 3, 2), F32)) == t((2, 4, 10, 9), F32)
    assert bk.eval_shape("conv", t((2, 3, 10, 9), BOOL), t((1, 4, 3, 3, 2), BOOL), False) == t((2, 4, 8, 8), I32)


def test_creation():
    assert bk.eval_shape("zeros", (2, 0)) == t((2, 0), F32)
    with bk.precision(64):
        assert bk.eval_shape("ones", [3]) == t((3,), F64)
        assert bk.eval_shape("linspace", 0, 1, 5) == t((5,), F64)
    with pytest.raises(ValueError, match="^zeros: "):
        bk.eval_shape("zeros", (2, -1))
    assert bk.eval_shape("range", 10, 0, -3) == t((4,), I32) == t(np.arange(10, 0, -3).shape, I32)
    assert bk.eval_shape("range", 0, 1, 0.1) == t((10,), F32)
    with pytest.raises(ValueError, match="^range: "):
        bk.eval_shape("range", 0, 5, 0)
    assert bk.eval_shape("random_uniform", (2,), 0, 5, I8) == t((2,), I8)
    with pytest.raises(ValueError, match="^random_normal: "):
        bk.eval_shape("random_normal", (2,), I8)
    assert bk.eval_shape("meshgrid", t((3,), I8), [1.0, 2.0]) == (t((3, 2), I8), t((3, 2), F32))
    assert bk.eval_shape("as_tensor", [[1, 2]]) == t((1, 2), I64)
    assert bk.eval_shape("numpy_call", None, ((2,), (3,)), (F32, I8)) == (t((2,), F32), t((3,), I8))


def test_call_signature_is_the_catalogues():
    assert list(bk.op_spec("sum").call_signature.parameters) == ["value", "axis", "keepdims"]
    assert list(bk.op_spec("argmax").call_signature.parameters) == ["x", "axis", "keepdims"]
    assert bk.op_spec("any").infer(boolean_tensor=t((2,), F32)) == t((), BOOL)


def test_sparse_templates_describe_the_dense_equivalent():
    # the same templates as bk-numpy's results (SciPy sparse matrices and dense arrays), checked by hand
    idx, vals = t((2, 2), I64), t((2,), F32)
    assert bk.eval_shape("sparse_coo_tensor", idx, vals, (3, 4)) == t((3, 4), F32)
    assert bk.eval_shape("csr_matrix", t((2,), I64), t((4,), I64), vals, (3, 4)) == t((3, 4), F32)
    assert bk.eval_shape("csc_matrix", t((5,), I64), t((2,), I64), vals, (3, 4)) == t((3, 4), F32)
    assert bk.eval_shape("coo_to_dense", t((1, 2, 2), I64), t((1, 2, 2), F32), (3, 4), False) == t((1, 3, 4, 2), F32)
    assert bk.eval_shape("csr_to_coo", t((1, 2), I64), t((1, 4), I64)) == t((1, 2, 2), I64)
    assert bk.eval_shape("mul_coo_dense", t((1, 2, 2), I64), t((1, 2, 1), F32), (3, 4), t((1, 4, 1, 5), F64)) == t((1, 3, 1, 5), F64)
    assert bk.eval_shape("mul_csr_dense", t((1, 2), I64), t((1, 4), I64), t((1, 2, 1), F32), (3, 4), t((1, 4, 1, 5), F32)) == t((1, 3, 1, 5), F32)
    assert bk.eval_shape("csr_to_dense", t((1, 2), I64), t((1, 4), I64), t((1, 2, 1), F32), (3, 4)) == t((1, 3, 4, 1), F32)
    assert bk.eval_shape("sparse_coo_tensor_batched", t((2, 2, 2), I64), t((2, 2), F32), (3, 4)) == t((2, 3, 4), F32)
    with pytest.raises(bk.ShapeMismatchError, match="^mul_coo_dense: "):
        bk.eval_shape("mul_coo_dense", t((1, 2, 2), I64), t((1, 2, 1), F32), (3, 4), t((1, 5, 1, 5), F64))


def test_rules_in_docstrings_are_valid_restructured_text():
    """The API reference renders docstrings as reStructuredText with warnings as errors: a rule's `*` or `|` must not start markup."""
    import io

    docutils_core = pytest.importorskip("docutils.core")
    for name in op_specs():
        function = getattr(bk.Backend, name, None)
        if function is None:
            continue
        errors = io.StringIO()
        docutils_core.publish_doctree(function.__doc__.split("Rule: ", 1)[1], settings_overrides={"warning_stream": errors, "report_level": 2})
        assert not errors.getvalue(), f"{name}: {errors.getvalue()}"


def test_operand_dtype_is_the_cast_plan():
    b, i8 = t((2,), BOOL), t((2,), I8)
    plan = {
        ("add", (b, b)): I32,
        ("div", (i8, i8)): F32,
        ("mul", (i8, 2.5)): F32,
        ("greater_than", (i8, 2)): I8,
        ("greater_than", (i8, 300)): None,  # compared by value, not in one dtype
        ("equal", (-300, i8)): None,
        ("abs", (t((2,), C64),)): C64,  # computed on the complex values, the result is real
        ("sqrt", (i8,)): F32,
        ("isnan", (t((2,), F16),)): F16,
        ("mean", (i8,)): F32,
        ("std", (t((2,), C128),)): C128,
        ("sum", (i8,)): bk.DType(int, 64),  # summed in the wide type: a kernel never sums int8 in int8
        ("pow", (b, b)): I8,
        ("clip", (i8, -1.5, 2.5)): I8,
        ("where", (b, i8, 1.5)): F32,
        ("reshape", (i8, (2, 1))): None,  # shape operations keep each input's dtype
    }
    for (op, args), expected in plan.items():
        assert bk.op_spec(op).operand_dtype(*args) == expected, op
    with bk.precision(64):
        assert bk.op_spec("add").operand_dtype(t((2,), F32), 1) == F64
    with pytest.raises(bk.ArgumentTypeError, match="^and_: "):
        bk.op_spec("and_").operand_dtype(t((2,), F32), 1)
    with pytest.raises(OverflowError):
        bk.op_spec("add").operand_dtype(i8, 300)
