"""bk._rules.weak and bk._rules.compare: NEP 50 promotion of Python numbers, and comparisons with ints beyond a dtype's range.

Pure functions of `DType`s and Python values, checked against NumPy 2 (a core dependency), which
defines both rules.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bk
from bk import DType
from bk._rules.compare import COMPARISONS, compare_beyond_range, comparison_constant, filled_bool
from bk._rules.weak import int_range, raise_kind, scalar_dtype, weak_result

from .conftest import Minimal

INTS = [DType(int, b) for b in (8, 16, 32, 64)] + [DType(int, b, signed=False) for b in (8, 16, 32, 64)]
NUMPY_OPS = {"equal": np.equal, "not_equal": np.not_equal, "greater_than": np.greater, "greater_or_equal": np.greater_equal, "less": np.less, "less_equal": np.less_equal}
F16, F32, F64 = DType(float, 16), DType(float, 32), DType(float, 64)
C64, C128 = DType(complex, 64), DType(complex, 128)
I8, I64, BOOL = DType(int, 8), DType(int, 64), DType(bool)


# ---------------------------------------------------------------- int_range


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
def test_int_range_is_numpys_iinfo(dtype):
    info = np.iinfo(bk.to_numpy_dtype(dtype))
    assert int_range(dtype) == (int(info.min), int(info.max))


# ---------------------------------------------------------------- comparison_constant


def _beyond(dtype):
    low, high = int_range(dtype)
    return (low - 1, high + 1, low - 2**70, high + 2**70)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
def test_comparison_constant_is_numpy_2s_comparison_by_value(dtype):
    low, high = int_range(dtype)
    x = np.array([low, 0, high], bk.to_numpy_dtype(dtype))  # both ends of the range: every element compares alike
    for op, number in itertools.product(sorted(COMPARISONS), _beyond(dtype)):
        numpy_op = NUMPY_OPS[op]
        right = numpy_op(x, number)
        assert right.tolist() == [right[0]] * 3  # NumPy 2 gives a constant too
        assert comparison_constant(op, x, number, dtype) is bool(right[0]), (op, dtype.name, "tensor first", number)
        left = numpy_op(number, x)
        assert comparison_constant(op, number, x, dtype) is bool(left[0]), (op, dtype.name, "number first", number)


def test_comparison_constant_is_none_where_the_data_decides():
    x = np.zeros(3, np.int8)
    assert comparison_constant("equal", x, 127, I8) is None  # fits int8
    assert comparison_constant("greater_than", -128, x, I8) is None
    assert comparison_constant("equal", np.zeros(3), 300, F64) is None  # floats hold 300
    assert comparison_constant("equal", 3, 2**70, I64) is None  # no tensor: two Python ints
    assert comparison_constant("equal", x, x, I8) is None  # no Python int
    assert comparison_constant("equal", x, 300.0, I8) is None  # a float is not compared by this rule
    assert comparison_constant("equal", x, True, I8) is None  # nor a bool


def test_comparison_constant_compares_bools_in_int64():
    flags = np.array([True, False])
    assert comparison_constant("equal", flags, 300, BOOL) is None  # 300 fits int64, the promoted dtype
    assert comparison_constant("equal", flags, 2**63, BOOL) is False
    assert comparison_constant("greater_than", flags, -(2**63) - 1, BOOL) is True
    assert comparison_constant("less", 2**70, flags, BOOL) is False


def test_comparison_constant_refuses_other_operations():
    with pytest.raises(ValueError, match="'add' is not a comparison"):
        comparison_constant("add", np.zeros(2, np.int8), 300, I8)


# ---------------------------------------------------------------- the core's composite


class _WithFullLike(Minimal):
    def full_like(self, x, fill_value, dtype=None):
        self.called = True
        return np.full(np.shape(x), fill_value, bk.to_numpy_dtype(dtype))


@pytest.mark.parametrize("backend", [Minimal, _WithFullLike], ids=["as_tensor", "full_like"])
def test_compare_beyond_range_fills_a_bool_tensor_of_the_tensors_shape(backend):
    b = backend()
    x = np.zeros((2, 3), np.uint8)
    result = compare_beyond_range(b, "greater_or_equal", x, -1)
    assert result.shape == (2, 3) and result.dtype == np.bool_ and result.all()
    assert compare_beyond_range(b, "greater_than", 2**64, [[1, 2]]).shape == (1, 2)  # a list beside the int: made a tensor
    assert compare_beyond_range(b, "equal", x, 255) is None  # 255 fits: the kernel compares
    assert getattr(b, "called", False) is (backend is _WithFullLike)


def test_filled_bool_without_full_like():
    assert filled_bool(Minimal(), np.zeros((0, 2)), True).shape == (0, 2)


# ---------------------------------------------------------------- weak_result (NEP 50)


@pytest.mark.parametrize(
    ("strong", "kinds", "expected"),
    [
        ((I8,), (int,), I8),  # maximum(int8, 2) is int8
        ((DType(int, 8, signed=False),), (bool,), DType(int, 8, signed=False)),
        ((F16,), (float,), F16),
        ((DType(int, 32),), (float,), F32),  # the default float
        ((F16,), (complex,), C64),
        ((DType(float, 16, brain=True),), (complex,), C64),
        ((F64,), (complex,), C128),
        ((BOOL,), (int,), I64),
        ((I8, DType(int, 8, signed=False)), (int,), DType(int, 16)),  # tensors promote as NumPy
        ((), (int,), I64),  # numbers alone: as_tensor's dtype
        ((), (bool, float), F32),
        ((), (complex, int), C64),
        ((DType(str),), (float,), DType(str)),  # never raised: the operation decides what it takes
    ],
)
def test_weak_result_follows_the_semantics_table(strong, kinds, expected):
    assert weak_result(strong, kinds, None) == expected


def test_weak_result_under_a_precision():
    assert weak_result((DType(int, 32),), (float,), 64) == F64
    assert weak_result((F32,), (float,), 64) == F64  # tensors take the precision
    assert weak_result((F16,), (complex,), 64) == C128
    assert weak_result((F64,), (complex,), 16) == C64  # the set precision, not the tensor's
    assert weak_result((), (complex,), 64) == C128
    assert weak_result((), (float,), 16) == F16


def test_weak_result_agrees_with_numpy_2():
    numeric = [BOOL, *INTS, F16, F32, F64, C64, C128]
    samples = {bool: True, int: 1, float: 1.5, complex: 1j}
    for dtype, kind in itertools.product(numeric, samples):
        expected = (np.zeros(1, bk.to_numpy_dtype(dtype)) + samples[kind]).dtype
        ours = weak_result((dtype,), (kind,), None)
        if kind in (float, complex) and dtype.kind in (bool, int):
            assert ours == (F32 if kind is float else C64)  # bk's default float and complex, where NumPy's are 64-bit
        elif dtype.kind is bool and kind is bool:
            assert ours == BOOL  # NumPy adds bools in bool (`add` itself makes them int32)
        else:
            assert bk.to_numpy_dtype(ours) == expected, (dtype.name, kind.__name__)


def test_weak_result_needs_an_operand():
    with pytest.raises(ValueError, match="at least one"):
        weak_result((), (), None)


def test_scalar_dtype_and_raise_kind():
    assert [scalar_dtype(k, None) for k in (bool, int, float, complex)] == [BOOL, I64, F32, C64]
    assert [scalar_dtype(k, 64) for k in (float, complex)] == [F64, C128]
    assert raise_kind(I8, bool, None) == I8 and raise_kind(I8, int, None) == I8
    assert raise_kind(BOOL, int, None) == I64
    assert raise_kind(I8, complex, 32) == C64


def test_check_python_ints_names_the_operation():
    from bk._rules.weak import check_python_ints

    check_python_ints(I8, [np.zeros(2, np.int8), 127, -128, 1.5e9])  # in range; tensors and floats are not looked at
    with pytest.raises(OverflowError, match="^add: Python integer 300 out of bounds for int8"):
        check_python_ints(I8, [300], "add")
    with pytest.raises(OverflowError, match="^Python integer -1 out of bounds for uint8"):
        check_python_ints(DType(int, 8, signed=False), [-1])


def test_auto_cast_and_result_type_take_weak_result():
    """The generic auto_cast and result_type promote Python numbers by bk._rules.weak, under every precision."""
    b = Minimal()
    x16 = np.zeros(2, np.float16)
    for precision in (None, 16, 32, 64):
        with bk.precision(precision):
            (cast, _) = b.auto_cast(x16, 1j)
            assert b.dtype(cast) == weak_result((b.dtype(x16),), (complex,), precision)
            assert b.result_type(x16, 1j) == weak_result((b.dtype(x16),), (complex,), precision)
            assert b.result_type(True, 2, 1.5) == weak_result((), (bool, int, float), precision)
    with bk.precision(16):
        assert b.result_type(x16, 1j) == C64  # not complex32, which does not exist
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        b.auto_cast(np.zeros(2, np.int8), 300)


def test_complex_type_exists_at_every_precision():
    b = Minimal()
    for precision, expected in ((None, C64), (16, C64), (32, C64), (64, C128)):
        with bk.precision(precision):
            assert b.complex_type == expected == scalar_dtype(complex, precision)
            assert b.float_type == scalar_dtype(float, precision)
