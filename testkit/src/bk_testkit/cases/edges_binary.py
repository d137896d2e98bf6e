"""Edge cases of binary operations: promotion, weak Python scalars (NEP 50), broadcasting, overflow.

docs/semantics.md: "Python scalars are weak" and "Integers". Tensor pairs of every dtype promote
as `bk.combine_types`; a Python bool, int, float or complex on either side takes the tensor's dtype
when its kind fits and only raises the kind otherwise; a Python int that does not fit the integer
tensor beside it raises `OverflowError`; shapes that cannot broadcast raise `bk.ShapeMismatchError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import Trial, add_case
from ._edges import (
    ALL_DTYPES,
    BOOL,
    FLOATS,
    INT64,
    LAYOUTS,
    SIGNED,
    UNSIGNED,
    available,
    check_raises,
    check_result,
    default_float,
    describe,
    dtypes,
    explore,
    layout,
    make_values,
    reference_float,
    shapes,
    tensor,
)

_KINDS: Final = (bool, int, float, complex)
_REAL: Final = (BOOL, *SIGNED, *UNSIGNED, *FLOATS)


def default_complex() -> DType:
    """complex64, or complex128 at precision 64."""
    return DType(complex, 128 if bk.get_precision() == 64 else 64)


def weak_result(dtype: DType, scalar: Any) -> DType:
    """The dtype of `tensor op scalar` for a Python scalar, as docs/semantics.md's table."""
    need = _KINDS.index(type(scalar))
    if need <= _KINDS.index(dtype.kind):
        return dtype
    if need == 1:
        return INT64
    if need == 2:
        return default_float()
    if dtype.kind is float and dtype.bits == 64:
        return DType(complex, 128)
    return default_complex()


def fits(dtype: DType, value: int) -> bool:
    """Whether a Python int fits an integer dtype (bool tensors take ints as int64)."""
    info = np.iinfo(bk.to_numpy_dtype(dtype if dtype.kind is int else INT64))
    return int(info.min) <= value <= int(info.max)


# name: (NumPy ufunc, input dtypes, result is bool, ints divide into floats)
_OPS: Final[dict[str, tuple[Any, tuple[DType, ...], bool, bool]]] = {
    "add": (np.add, ALL_DTYPES, False, False),
    "sub": (np.subtract, ALL_DTYPES, False, False),
    "mul": (np.multiply, ALL_DTYPES, False, False),
    "div": (np.true_divide, ALL_DTYPES, False, True),
    "maximum": (np.maximum, _REAL, False, False),
    "minimum": (np.minimum, _REAL, False, False),
    "equal": (np.equal, ALL_DTYPES, True, False),
    "not_equal": (np.not_equal, ALL_DTYPES, True, False),
    "greater_than": (np.greater, _REAL, True, False),
    "greater_or_equal": (np.greater_equal, _REAL, True, False),
}


def _result_dtype(name: str, operand: DType) -> DType:
    _, _, boolean, divides = _OPS[name]
    if boolean:
        return BOOL
    if divides and operand.kind in (bool, int):
        return default_float()
    return operand


def _reference(name: str, a: Any, b: Any, operand: DType) -> np.ndarray:
    """The ufunc on both operands cast to the common dtype: exact for ints (wrapping), float64 for floats."""
    ufunc = _OPS[name][0]
    np_dtype = bk.to_numpy_dtype(operand)
    a, b = np.asarray(a).astype(np_dtype), np.asarray(b).astype(np_dtype)
    with np.errstate(all="ignore"):
        if operand.kind in (float, complex) or (name == "div"):
            return np.asarray(ufunc(reference_float(a), reference_float(b)))
        return np.asarray(ufunc(a, b))


def _bool_arithmetic(name: str, operand: DType) -> bool:
    """bool with bool in add/sub has no NumPy 2 result (bk's reference casts to int32): not an edge checked here."""
    return operand.kind is bool and name in ("add", "sub", "div")


def _broadcast_partner(shape: tuple[int, ...], data: Any) -> tuple[int, ...]:
    keep = data.draw(st.integers(0, len(shape)), label="partner rank")
    tail = shape[len(shape) - keep :]
    return tuple(1 if data.draw(st.booleans(), label="to 1") else s for s in tail)


def _pair_case(name: str) -> Callable[[Trial], None]:
    inputs = _OPS[name][1]

    def run(t: Trial) -> None:
        @explore(dtypes(t, inputs), dtypes(t, inputs), shapes(max_rank=4), st.data(), st.sampled_from(LAYOUTS), examples=30)
        def example(da: DType, db: DType, shape: tuple[int, ...], data: Any, kind: str) -> None:
            other = _broadcast_partner(shape, data)
            if data.draw(st.booleans(), label="swap"):
                shape, other = other, shape
            check(da, db, shape, other, kind)

        def check(da: DType, db: DType, shape: tuple[int, ...], other: tuple[int, ...], kind: str) -> None:
            operand = bk.combine_types(da, db)
            if _bool_arithmetic(name, operand) or (name == "div" and operand.kind is int):
                return  # integer division by zero differs by design between frameworks: see the scalar case
            a = layout(make_values(da, shape, seed=sum(shape) + 1), kind)
            b = make_values(db, other, seed=sum(other) + 2)
            want = _result_dtype(name, operand)
            got = getattr(t.b, name)(tensor(t, a), tensor(t, b))
            check_result(t, got, _reference(name, a, b, operand), describe(name, a, b) + f" [{kind}]", want, {"a": a, "b": b})

        example()
        for dtype in available(t, inputs):  # every dtype once (mixed pairs: the examples above)
            check(dtype, dtype, (2, 3), (3,), "contiguous")
        a, b = tensor(t, np.ones((2, 3), np.float32)), tensor(t, np.ones((4,), np.float32))
        check_raises(t, bk.ShapeMismatchError, lambda: getattr(t.b, name)(a, b), f"{name}(float32 (2, 3), float32 (4,))", name)

    return run


def _scalars(dtype: DType) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.booleans(),
        st.integers(-3, 3),
        st.sampled_from([1.5, -0.25, 2.0]),
        st.sampled_from([1j, 0.5 - 2j]),
    )


def _scalar_case(name: str) -> Callable[[Trial], None]:
    inputs = _OPS[name][1]
    ordering = name in ("maximum", "minimum", "greater_than", "greater_or_equal")

    def run(t: Trial) -> None:
        @explore(dtypes(t, inputs), shapes(max_rank=3), st.data(), st.booleans(), examples=40)
        def example(dtype: DType, shape: tuple[int, ...], data: Any, left: bool) -> None:
            check(dtype, shape, data.draw(_scalars(dtype), label="scalar"), left)

        def check(dtype: DType, shape: tuple[int, ...], scalar: Any, left: bool) -> None:
            operand = weak_result(dtype, scalar)
            if (ordering and operand.kind is complex) or _bool_arithmetic(name, operand):
                return
            if name == "div" and scalar == 0:
                scalar = 2
            if dtype.kind is int and type(scalar) is int and not dtype.signed and scalar < 0:
                scalar = -scalar  # an out-of-range Python int is the overflow case below
            x = make_values(dtype, shape, seed=sum(shape) + 3, low=1 if name == "div" and dtype.kind is int else -3)
            args = (scalar, tensor(t, x)) if left else (tensor(t, x), scalar)
            what = f"{name}({scalar!r}, {describe('', x)[1:-1]})" if left else f"{name}({describe('', x)[1:-1]}, {scalar!r})"
            expected = _reference(name, *((scalar, x) if left else (x, scalar)), operand)
            check_result(t, getattr(t.b, name)(*args), expected, what, _result_dtype(name, operand), {"x": x})

        example()
        for i, dtype in enumerate(available(t, inputs)):  # every dtype once, with each kind of scalar in turn
            check(dtype, (3,), (True, 2, 1.5, 1j)[i % 4], bool(i % 2))

    return run


def _overflow_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        @explore(dtypes(t, (*SIGNED, *UNSIGNED)), st.sampled_from([300, -1, 2**40, -(2**63) - 1, 2**64]), st.booleans(), examples=12)
        def example(dtype: DType, scalar: int, left: bool) -> None:
            x = make_values(dtype, (3,), seed=4, low=0)
            args = (scalar, tensor(t, x)) if left else (tensor(t, x), scalar)
            what = f"{name}({describe('', x)[1:-1]}, {scalar})"
            if fits(dtype, scalar):
                operand = weak_result(dtype, scalar)
                expected = _reference(name, *((scalar, x) if left else (x, scalar)), operand)
                check_result(t, getattr(t.b, name)(*args), expected, what, _result_dtype(name, operand), {"x": x})
            else:
                check_raises(t, OverflowError, lambda: getattr(t.b, name)(*args), what + ": the Python int does not fit", name)

        example()

    return run


for _name in _OPS:
    add_case(_name, "edge-tensor-pairs", _pair_case(_name), "every pair of dtypes promotes as combine_types; broadcasting, layouts; bad shapes raise ShapeMismatchError")
    add_case(_name, "edge-weak-scalars", _scalar_case(_name), "Python bool/int/float/complex on either side are weak (NEP 50)")
for _name in ("add", "sub", "mul", "maximum", "minimum"):
    add_case(_name, "edge-int-overflow", _overflow_case(_name), "a Python int that does not fit the integer tensor raises OverflowError (add(int8 [100], 300))")


def _div_ints(t: Trial) -> None:
    """`div(int32, int32)` is the default float: float32, or float64 under precision(64)."""
    a, b = np.array([1, 7, -3], np.int32), np.array([2, 2, 4], np.int32)
    for precision, want in ((None, DType(float, 32)), (64, DType(float, 64))):
        if precision == 64 and not t.float64:
            continue
        with bk.precision(precision):
            got = t.b.div(t.b.as_tensor(a), t.b.as_tensor(b))
            check_result(t, got, a / b, f"div(int32, int32) under precision({precision})", want, {"a": a, "b": b})


add_case("div", "edge-int-precision", _div_ints, "div(int32, int32) is the default float of the precision")


def _div_large_ints(t: Trial) -> None:
    """`div(int8, 300)` divides in floats, so the Python int need not fit int8 (NumPy: a float result)."""
    for dtype, scalar in ((np.int8, 300), (np.uint8, -7), (np.int16, 2**40), (np.int32, -(2**40))):
        x, y = np.array([100, 1, 0], dtype), np.array([100, 1, 3], dtype)
        name = np.dtype(dtype).name
        check_result(t, t.b.div(t.b.as_tensor(x), scalar), (x / np.float64(scalar)).astype(np.float32), f"div({name} {x.tolist()}, {scalar})", DType(float, 32), {"x": x})
        check_result(t, t.b.div(scalar, t.b.as_tensor(y)), (np.float64(scalar) / y).astype(np.float32), f"div({scalar}, {name} {y.tolist()})", DType(float, 32), {"y": y})


add_case("div", "edge-int-large-scalar", _div_large_ints, "div(int8 [100, 1, 0], 300) is float32 [1/3, 1/300, 0]: a Python int beyond the int type is fine when dividing")


def _weak_table(t: Trial) -> None:
    """The table of docs/semantics.md, one row at a time."""
    rows = (
        ("add", np.array([1, 2], np.uint8), True, DType(int, 8, signed=False), [2, 3]),
        ("add", np.array([1.0, 2.0], np.float16), 1.5, DType(float, 16), [2.5, 3.5]),
        ("add", np.array([1, 2], np.int32), 1.5, DType(float, 32), [2.5, 3.5]),
        ("add", np.array([1.0, 2.0], np.float16), 1j, DType(complex, 64), [1 + 1j, 2 + 1j]),
        ("add", np.array([1.0, 2.0], np.float64), 1j, DType(complex, 128), [1 + 1j, 2 + 1j]),
        ("add", np.array([True, False]), 2, INT64, [3, 2]),
    )
    for name, x, scalar, want, values in rows:
        if not t.float64 and want.bits in (64, 128) and want.kind is not int:
            continue
        if not t.float16 and x.dtype == np.float16:  # a library without float16 (array-api-strict)
            continue
        check_result(t, getattr(t.b, name)(tensor(t, x), scalar), np.asarray(values), describe(name, x) + f" with {scalar!r}", want, {"x": x})
    check_raises(t, OverflowError, lambda: t.b.add(tensor(t, np.array([100], np.int8)), 300), "add(int8 [100], 300)", "add")
    if t.float64:  # under precision(64) the default float and complex are 64-bit, and floats follow it
        with bk.precision(64):
            rows64 = (
                (np.array([1, 2], np.int32), 1.5, DType(float, 64), [2.5, 3.5]),
                (np.array([1.0, 2.0], np.float16), 1j, DType(complex, 128), [1 + 1j, 2 + 1j]),
                (np.array([1, 2], np.int8), 2, DType(int, 8), [3, 4]),
            )
            for x, scalar, want, values in rows64:
                if not t.float16 and x.dtype == np.float16:
                    continue
                got = t.b.add(t.b.as_tensor(x), scalar)
                check_result(t, got, np.asarray(values), describe("add", x) + f" with {scalar!r} under precision(64)", want, {"x": x})


add_case("add", "edge-weak-table", _weak_table, "the rows of the weak-scalar table of docs/semantics.md")


# ---------------------------------------------------------------- where and clip


def _where(t: Trial) -> None:
    """Promotion of both branches, weak scalars, broadcasting of the condition; a string condition is an ArgumentTypeError."""

    @explore(dtypes(t, ALL_DTYPES), dtypes(t, ALL_DTYPES), shapes(max_rank=3), st.data(), examples=20)
    def example(da: DType, db: DType, shape: tuple[int, ...], data: Any) -> None:
        condition = make_values(BOOL, shape, seed=sum(shape) + 5)
        x = make_values(da, shape, seed=1)
        if data.draw(st.booleans(), label="scalar y"):
            y: Any = data.draw(_scalars(da), label="y")
            operand = weak_result(da, y)
        else:
            y = make_values(db, shape[1:], seed=2)
            operand = bk.combine_types(da, db)
        np_dtype = bk.to_numpy_dtype(operand)
        expected = np.where(condition, x.astype(np_dtype), np.asarray(y).astype(np_dtype))
        got = t.b.where(tensor(t, condition), tensor(t, x), y if not isinstance(y, np.ndarray) else tensor(t, y))
        check_result(t, got, expected, f"where(bool {shape}, {da} {shape}, {short_value(y)})", operand, {"condition": condition, "x": x, "y": y})

    example()
    x, y = tensor(t, np.ones(3, np.float32)), tensor(t, np.zeros(3, np.float32))
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.where("abc", x, y), "where('abc', x, y)", "where")
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.where(None, x, y), "where(None, x, y)", "where")


def short_value(value: Any) -> str:
    return f"{value.dtype} {value.shape}" if isinstance(value, np.ndarray) else repr(value)


add_case("where", "edge-promotion", _where, "both branches promote (weak scalars too); where('abc', x, y) raises ArgumentTypeError")


def _clip(t: Trial) -> None:
    """Integer tensors keep their dtype; bounds outside the dtype's range clip to the representable range."""

    @explore(dtypes(t, (*SIGNED, *UNSIGNED, *FLOATS)), shapes(max_rank=3), st.integers(-300, 100), st.integers(0, 400), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], low: int, high: int) -> None:
        x = make_values(dtype, shape, seed=sum(shape) + 6, low=-3 if dtype.signed else 0, high=255 if dtype.kind is int else 3)
        if dtype.kind is float:
            low_b, high_b = low / 100, high / 100
            expected = np.clip(reference_float(x), low_b, max(high_b, low_b))
        else:
            info = np.iinfo(x.dtype)
            low_b, high_b = low, high
            expected = np.clip(x.astype(np.int64), max(low, int(info.min)), min(max(high, low), int(info.max))).astype(x.dtype)
        got = t.b.clip(tensor(t, x), low_b, max(high_b, low_b))
        check_result(t, got, expected, f"clip({dtype} {shape}, {low_b}, {max(high_b, low_b)})", dtype, {"x": x})

    example()
    x = np.array([0, 100, 255], np.uint8)
    check_result(t, t.b.clip(tensor(t, x), -5, 200), np.array([0, 100, 200], np.uint8), "clip(uint8 [0, 100, 255], -5, 200)", DType(int, 8, signed=False), {"x": x})


add_case("clip", "edge-int-bounds", _clip, "clip(uint8 [0, 100, 255], -5, 200) is uint8 [0, 100, 200]; every dtype keeps its dtype")



def _not_a_tensor_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = tensor(t, np.ones(3, np.float32))
        for bad in (None, "abc"):
            check_raises(t, bk.ArgumentTypeError, lambda bad=bad: getattr(t.b, name)(x, bad), f"{name}(float32 (3,), {bad!r})", name)
            check_raises(t, bk.ArgumentTypeError, lambda bad=bad: getattr(t.b, name)(bad, x), f"{name}({bad!r}, float32 (3,))", name)

    return run


for _name in ("add", "sub", "mul", "div", "maximum", "minimum", "greater_than", "greater_or_equal"):
    add_case(_name, "edge-not-a-tensor", _not_a_tensor_case(_name), "None or a string as an operand raises ArgumentTypeError")
