"""Operators: arithmetic, comparison and bitwise features, with NumPy's type promotion."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import bk
from bk import DType

from .._case import Trial, add_case, label

# (a dtype, b dtype) pairs; the result type follows NumPy promotion
_NUMERIC_PAIRS = (("float32", "float32"), ("float64", "float64"), ("int32", "int32"), ("int64", "int64"), ("int32", "float32"), ("float32", "float64"))
_INT_PAIRS = (("int32", "int32"), ("int64", "int64"), ("bool", "bool"))


def _expected_dtype(t: Trial, a: np.ndarray, b: np.ndarray, result: np.ndarray) -> DType:
    if result.dtype.kind == "b":
        return DType(bool)
    # the contract's promotion: NumPy among ints; int with float gives that float (as PyTorch and JAX)
    return bk.combine_types(bk.from_numpy_dtype(a.dtype), bk.from_numpy_dtype(b.dtype), fp_precision=bk.get_precision())


def _values(t: Trial, dtype: str, shape: tuple[int, ...], positive: bool) -> np.ndarray:
    if dtype == "bool":
        return t.rng.integers(0, 2, size=shape).astype(bool)
    low = 1 if positive else -4
    if dtype.startswith("int"):
        return t.rng.integers(low, 5, size=shape).astype(dtype)
    return t.uniform(shape, 0.5 if positive else -3.0, 3.0).astype(dtype)


def _binary_case(name: str, ref: Callable[[Any, Any], Any], pairs: tuple[tuple[str, str], ...], positive_b: bool = False, positive_a: bool = False) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for a_dtype, b_dtype in pairs:
            if not t.float64 and "float64" in (a_dtype, b_dtype):
                continue
            for a_shape, b_shape in (((2, 3), (2, 3)), ((3, 1), (4,)), ((), (0,))):
                a = _values(t, a_dtype, a_shape, positive_a)
                b = _values(t, b_dtype, b_shape, positive_b)
                with np.errstate(all="ignore"):
                    wide = [v.astype(np.float64) if v.dtype.kind == "f" else v for v in (a, b)]
                    expected = np.asarray(ref(*wide))
                got = getattr(t.b, name)(t.tensor(a), t.tensor(b))
                want = _expected_dtype(t, a, b, np.asarray(ref(a, b)))
                t.check(got, expected, label(name, a, b), dtype=want, inputs={"a": a, "b": b}, tol_dtype=want)

    return run


def _precision_case(name: str, ref: Callable[[Any, Any], Any]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        a, b = t.uniform((3,), 0.5, 2.0), t.uniform((3,), 0.5, 2.0)
        for p in t.precisions:
            with t.precision(p):
                got = getattr(t.b, name)(t.tensor(a.astype(np.float32)), t.tensor(b))
                want = DType(bool) if name in _COMPARISONS else t.result_float(DType(float, 64 if t.float64 else 32))
                with np.errstate(all="ignore"):
                    expected = ref(a.astype(np.float32).astype(np.float64), b)
                t.check(got, expected, f"{name}(float32, float64) under precision({p})", dtype=want, inputs={"a": a, "b": b}, tol_dtype=DType(float, 32))

    return run


_COMPARISONS = ("equal", "not_equal", "greater_than", "greater_or_equal")
_OPERATORS: dict[str, tuple[Callable[[Any, Any], Any], tuple[tuple[str, str], ...], bool]] = {
    "add": (operator.add, _NUMERIC_PAIRS, False),
    "sub": (operator.sub, _NUMERIC_PAIRS, False),
    "mul": (operator.mul, _NUMERIC_PAIRS, False),
    "div": (operator.truediv, (("float32", "float32"), ("float64", "float64"), ("float32", "float64")), True),
    "pow": (operator.pow, (("float32", "float32"), ("float64", "float64"), ("int32", "int32"), ("int64", "int64")), True),
    "mod": (operator.mod, _NUMERIC_PAIRS, True),
    "floordiv": (operator.floordiv, _NUMERIC_PAIRS, True),
    "equal": (operator.eq, (*_NUMERIC_PAIRS, ("bool", "bool")), False),
    "not_equal": (operator.ne, (*_NUMERIC_PAIRS, ("bool", "bool")), False),
    "greater_than": (operator.gt, _NUMERIC_PAIRS, False),
    "greater_or_equal": (operator.ge, _NUMERIC_PAIRS, False),
    "and_": (operator.and_, _INT_PAIRS, False),
    "or_": (operator.or_, _INT_PAIRS, False),
    "xor": (operator.xor, _INT_PAIRS, False),
}

for _name, (_ref, _pairs, _positive) in _OPERATORS.items():
    add_case(_name, "dtypes-broadcast", _binary_case(_name, _ref, _pairs, positive_b=_positive), "same and mixed dtypes (NumPy promotion), broadcasting, 0-d with empty")
    if _name not in ("and_", "or_", "xor"):
        add_case(_name, "precision", _precision_case(_name, _ref), "mixed float32/float64 under bk.precision(p)")


def _mod_sign(t: Trial) -> None:
    """`mod` takes the sign of the divisor, as Python and NumPy do."""
    for dtype in ("int32", "float32"):
        a, b = np.array([-7, 7, -7, 7], dtype), np.array([3, -3, -3, 3], dtype)
        t.check(t.b.mod(t.tensor(a), t.tensor(b)), np.mod(a, b), label("mod", a, b), dtype=bk.from_numpy_dtype(a.dtype), inputs={"a": a, "b": b})


add_case("mod", "sign-of-divisor", _mod_sign, "negative operands: the result has the divisor's sign")


def _div_by_zero(t: Trial) -> None:
    """Float division by zero gives inf and NaN as in IEEE 754."""
    a, b = np.array([1.0, -1.0, 0.0], np.float32), np.zeros(3, np.float32)
    with np.errstate(all="ignore"):
        expected = a / b
    t.check(t.b.div(t.tensor(a), t.tensor(b)), expected, "div([1, -1, 0], 0)", dtype=DType(float, 32))


add_case("div", "by-zero", _div_by_zero, "x / 0 gives inf, -inf, NaN")


def _shift(name: str, ref: Callable[[Any, Any], Any]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in ("int32", "int64"):
            a = np.array([[1, 5, 96], [7, 1024, 3]], dtype)
            b = np.array([0, 1, 3], dtype)
            t.check(getattr(t.b, name)(t.tensor(a), t.tensor(b)), ref(a, b), label(name, a, b), dtype=bk.from_numpy_dtype(np.dtype(dtype)), inputs={"a": a, "b": b})

    return run


add_case("shift_bits_left", "ints", _shift("shift_bits_left", operator.lshift), "int32/int64 with broadcasting")
add_case("shift_bits_right", "ints", _shift("shift_bits_right", operator.rshift), "int32/int64 with broadcasting")


def _invert(t: Trial) -> None:
    for values in (np.array([True, False, True]), np.array([0, 5, -3], np.int32), np.array([[1, -1]], np.int64)):
        t.check(t.b.invert(t.tensor(values)), np.invert(values), label("invert", values), dtype=bk.from_numpy_dtype(values.dtype), inputs={"x": values})


add_case("invert", "bool-int", _invert, "logical not of booleans, bitwise not of ints")


for _name in _COMPARISONS:
    add_case(_name, "nan", lambda t, _n=_name: _nan_one(t, _n), "NaN compares unequal, also to itself")


def _nan_one(t: Trial, name: str) -> None:
    a = np.array([np.nan, 1.0, np.nan], np.float32)
    b = np.array([np.nan, np.nan, 1.0], np.float32)
    ref = {"equal": np.equal, "not_equal": np.not_equal, "greater_than": np.greater, "greater_or_equal": np.greater_equal}[name]
    t.check(getattr(t.b, name)(t.tensor(a), t.tensor(b)), ref(a, b), label(name, a, b), dtype=DType(bool), inputs={"a": a, "b": b})
