"""Edge cases of reductions, `argmax`/`argmin` and `cumsum` (docs/semantics.md: Axes, Integers, NaN, Empty).

Every dtype, shapes of rank 0 to 5 with empty and size-1 dimensions, every axis form (None, `()`,
negative, tuples), keepdims, non-contiguous and big-endian inputs, NaN and infinities; the result
dtype follows NumPy 2 (narrow integers widen in sums and products); bad axes and non-tensors raise
the documented exception class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

_UINT64 = DType(int, 64, signed=False)
_REAL = (BOOL, *SIGNED, *UNSIGNED, *FLOATS)


def sum_dtype(dtype: DType) -> DType:
    """The result dtype of `sum`, `prod` and `cumsum`: NumPy 2 widens bool and narrow integers to 64 bits."""
    if dtype.kind is bool or (dtype.kind is int and dtype.signed):
        return INT64
    if dtype.kind is int:
        return _UINT64
    return dtype


def mean_dtype(dtype: DType) -> DType:
    """`mean` and `std`: integers and bools give the default float, floats and complex keep theirs."""
    return default_float() if dtype.kind in (bool, int) else dtype


def _axes(rank: int) -> st.SearchStrategy[Any]:
    single = st.integers(-rank, rank - 1) if rank else st.nothing()
    several = st.lists(st.integers(0, rank - 1), unique=True, max_size=rank).map(
        lambda axes: tuple(a - rank if i % 2 else a for i, a in enumerate(axes))
    ) if rank else st.just(())
    return st.one_of(st.none(), st.just(()), single, several)


def _reduced_size_zero(shape: tuple[int, ...], axis: Any) -> bool:
    if axis is None:
        return 0 in shape
    axes = (axis,) if isinstance(axis, int) else axis
    return any(shape[a] == 0 for a in axes)


_SPECS: dict[str, tuple[Callable[..., Any], Callable[[DType], DType], tuple[DType, ...], bool]] = {
    # name: (NumPy reference, result dtype, input dtypes, keepdims argument)
    "sum": (np.sum, sum_dtype, ALL_DTYPES, True),
    "prod": (np.prod, sum_dtype, ALL_DTYPES, False),
    "mean": (np.mean, mean_dtype, ALL_DTYPES, True),
    "std": (np.std, mean_dtype, _REAL, True),
    "max": (np.max, lambda d: d, _REAL, True),
    "min": (np.min, lambda d: d, _REAL, True),
    "any": (np.any, lambda d: BOOL, ALL_DTYPES, True),
    "all": (np.all, lambda d: BOOL, ALL_DTYPES, True),
}


def _reference(name: str, x: np.ndarray, want: DType, axis: Any, keepdims: bool) -> np.ndarray:
    function = _SPECS[name][0]
    kwargs = {"keepdims": True} if keepdims else {}
    with np.errstate(all="ignore"):
        if want.kind is int:
            return np.asarray(function(x.astype(bk.to_numpy_dtype(want)), axis=axis, **kwargs))
        if want.kind is bool or (x.dtype.kind == "b" and name in ("max", "min")):
            return np.asarray(function(x, axis=axis, **kwargs))
        return np.asarray(function(reference_float(x), axis=axis, **kwargs))


def _check_reduction(t: Trial, name: str, dtype: DType, shape: tuple[int, ...], axis: Any, kind: str, keepdims: bool) -> None:
    _, result_dtype, _, has_keepdims = _SPECS[name]
    low, high = (-1, 2) if name == "prod" else (-3, 3)
    x = layout(make_values(dtype, shape, seed=len(shape) * 31 + sum(shape), low=low, high=high), kind)
    keep = keepdims and has_keepdims
    kwargs = {"keepdims": True} if keep else {}
    what = describe(name, x, axis=axis, **kwargs) + f" [{kind}]"
    function = getattr(t.b, name)
    if name in ("max", "min") and _reduced_size_zero(shape, axis) and axis != ():
        check_raises(t, ValueError, lambda: function(tensor(t, x), axis=axis, **kwargs), what + " of nothing", name)
        return
    want = result_dtype(dtype)
    expected = _reference(name, x, want, axis, keep)
    got = function(tensor(t, x), axis=axis, **kwargs)
    check_result(t, got, expected, what, want, {"x": x}, scale=2 * max(1, x.size))


def _reduction_case(name: str) -> Callable[[Trial], None]:
    inputs = _SPECS[name][2]

    def run(t: Trial) -> None:
        @explore(dtypes(t, inputs), shapes(max_rank=4), st.data(), st.sampled_from(LAYOUTS), st.booleans(), examples=25)
        def example(dtype: DType, shape: tuple[int, ...], data: Any, kind: str, keepdims: bool) -> None:
            _check_reduction(t, name, dtype, shape, data.draw(_axes(len(shape)), label="axis"), kind, keepdims)

        example()
        for dtype in available(t, inputs):  # every dtype once
            _check_reduction(t, name, dtype, (2, 3), -1, "contiguous", False)

    return run


for _name in _SPECS:
    add_case(_name, "edge-dtypes-shapes-axes", _reduction_case(_name), "every dtype, rank 0-4, empty, every axis form, layouts, NaN/inf; NumPy 2 dtypes")


def _bad_axes_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        @explore(shapes(min_rank=0, max_rank=3, min_side=1), st.data(), examples=10)
        def example(shape: tuple[int, ...], data: Any) -> None:
            rank = len(shape)
            x = tensor(t, make_values(DType(float, 32), shape, seed=3, special=False))
            function = getattr(t.b, name)
            bad = data.draw(st.sampled_from([rank, -rank - 1, rank + 3, (0, rank), (-1, rank - 1)] if rank else [0, -1, 1, (0,)]), label="axis")
            check_raises(t, bk.AxisError, lambda: function(x, axis=bad), f"{name}(float32 {shape}, axis={bad!r})", name)
            wrong = data.draw(st.sampled_from(["0", 1.0, "all"]), label="axis")
            check_raises(t, bk.ArgumentTypeError, lambda: function(x, axis=wrong), f"{name}(float32 {shape}, axis={wrong!r})", name)

        example()
        x = tensor(t, np.ones((2, 3), np.float32))
        check_raises(t, bk.AxisError, lambda: getattr(t.b, name)(x, axis=(1, -1)), f"{name}(float32 (2, 3), axis=(1, -1)) names axis 1 twice", name)

    return run


def _not_a_tensor_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for value in (None, "abc"):
            check_raises(t, bk.ArgumentTypeError, lambda value=value: getattr(t.b, name)(value), f"{name}({value!r})", name)

    return run


for _name in _SPECS:
    add_case(_name, "edge-bad-axis", _bad_axes_case(_name), "axes out of range or repeated: AxisError; a str or float axis: ArgumentTypeError")
    add_case(_name, "edge-not-a-tensor", _not_a_tensor_case(_name), "None or a string as the tensor: ArgumentTypeError")


def _int_widening(t: Trial) -> None:
    """`sum(int8 [100, 100])` is int64 200; uint8 sums to uint64; bool counts in int64."""
    cases = (
        (np.array([100, 100], np.int8), 200, INT64),
        (np.array([200, 200], np.uint8), 400, _UINT64),
        (np.array([30000, 30000], np.int16), 60000, INT64),
        (np.array([True, True, False]), 2, INT64),
    )
    for x, value, want in cases:
        check_result(t, t.b.sum(tensor(t, x)), np.asarray(value), describe("sum", x), want, {"x": x})


add_case("sum", "edge-int-widening", _int_widening, "sum(int8 [100, 100]) is int64 200, as NumPy 2")


# ---------------------------------------------------------------- argmax / argmin


def _arg_case(name: str) -> Callable[[Trial], None]:
    reference = np.argmax if name == "argmax" else np.argmin

    def run(t: Trial) -> None:
        @explore(dtypes(t, _REAL), shapes(max_rank=4), st.data(), st.sampled_from(LAYOUTS), st.booleans(), examples=25)
        def example(dtype: DType, shape: tuple[int, ...], data: Any, kind: str, keepdims: bool) -> None:
            rank = len(shape)
            axis = data.draw(st.one_of(st.none(), st.integers(-rank, rank - 1)) if rank else st.none(), label="axis")
            x = layout(make_values(dtype, shape, seed=rank * 7 + sum(shape)), kind)
            kwargs = {"keepdims": True} if keepdims else {}
            what = describe(name, x, axis=axis, **kwargs) + f" [{kind}]"
            function = getattr(t.b, name)
            if _reduced_size_zero(shape, axis):
                check_raises(t, ValueError, lambda: function(tensor(t, x), axis=axis, **kwargs), what + " of nothing", name)
                return
            exact = x.astype(np.float64) if x.dtype.kind == "V" else x  # bfloat16: NumPy's argmax does not know its NaN
            expected = reference(exact, axis=axis, keepdims=keepdims)
            check_result(t, function(tensor(t, x), axis=axis, **kwargs), expected, what, INT64, {"x": x})

        example()
        for dtype in available(t, _REAL):  # every dtype once
            x = make_values(dtype, (2, 3), seed=5)
            exact = x.astype(np.float64) if x.dtype.kind == "V" else x
            check_result(t, getattr(t.b, name)(tensor(t, x), axis=-1), reference(exact, axis=-1), describe(name, x, axis=-1), INT64, {"x": x})
        x = np.array([[1.0, np.nan, 3.0, np.nan], [np.inf, -np.inf, 2.0, 0.0]], np.float32)
        check_result(t, getattr(t.b, name)(tensor(t, x), axis=-1), reference(x, axis=-1), describe(name, x, axis=-1) + ": the first NaN", INT64, {"x": x})
        check_result(t, getattr(t.b, name)(tensor(t, x), axis=None), reference(x), describe(name, x, axis=None) + ": a flat index", INT64, {"x": x})
        check_raises(t, bk.AxisError, lambda: getattr(t.b, name)(tensor(t, x), axis=2), describe(name, x, axis=2), name)
        check_raises(t, bk.AxisError, lambda: getattr(t.b, name)(tensor(t, x), axis=-3), describe(name, x, axis=-3), name)
        check_raises(t, bk.ArgumentTypeError, lambda: getattr(t.b, name)(tensor(t, x), axis="0"), describe(name, x, axis="0"), name)

    return run


for _name in ("argmax", "argmin"):
    add_case(_name, "edge-dtypes-shapes-axes", _arg_case(_name), "int64 indices, axis None is a flat index, first NaN wins, empty raises ValueError, bad axes")


# ---------------------------------------------------------------- cumsum


def _cumsum(t: Trial) -> None:
    """Every dtype, negative axes, layouts; narrow integers widen as in NumPy 2."""

    @explore(dtypes(t, ALL_DTYPES), shapes(min_rank=1, max_rank=4), st.data(), st.sampled_from(LAYOUTS), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], data: Any, kind: str) -> None:
        rank = len(shape)
        check(dtype, shape, data.draw(st.integers(-rank, rank - 1), label="axis"), kind)

    def check(dtype: DType, shape: tuple[int, ...], axis: int, kind: str) -> None:
        x = layout(make_values(dtype, shape, seed=len(shape) * 5 + sum(shape)), kind)
        want = sum_dtype(dtype)
        with np.errstate(all="ignore"):
            expected = np.cumsum(x.astype(bk.to_numpy_dtype(want)) if want.kind is int else reference_float(x), axis=axis)
        check_result(t, t.b.cumsum(tensor(t, x), axis), expected, describe("cumsum", x, axis=axis) + f" [{kind}]", want, {"x": x}, scale=2 * max(1, x.size))

    example()
    for dtype in available(t, ALL_DTYPES):  # every dtype once
        check(dtype, (2, 3), -1, "contiguous")
    x = tensor(t, np.ones((2, 3), np.float32))
    check_raises(t, bk.AxisError, lambda: t.b.cumsum(x, 2), "cumsum(float32 (2, 3), axis=2)", "cumsum")
    check_raises(t, bk.AxisError, lambda: t.b.cumsum(x, -3), "cumsum(float32 (2, 3), axis=-3)", "cumsum")


add_case("cumsum", "edge-dtypes-shapes-axes", _cumsum, "every dtype, negative axes, layouts, NumPy 2 widening, bad axes")


def _empty_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in available(t, (DType(float, 32), DType(int, 8), BOOL)):
            if name in ("mean", "std", "max", "min") and dtype.kind is bool:
                continue
            x = np.zeros((0, 3), bk.to_numpy_dtype(dtype))
            for axis in (None, 0):
                what = describe(name, x, axis=axis) + ": of nothing"
                if name in ("max", "min"):
                    check_raises(t, ValueError, lambda axis=axis, x=x: getattr(t.b, name)(tensor(t, x), axis=axis), what, name)
                    continue
                want = _SPECS[name][1](dtype)
                check_result(t, getattr(t.b, name)(tensor(t, x), axis=axis), _reference(name, x, want, axis, False), what, want, {"x": x})
        x = np.zeros((2, 0), np.float32)  # reducing the non-empty axis of an empty tensor is fine
        if name in ("max", "min"):
            check_result(t, getattr(t.b, name)(tensor(t, x), axis=0), np.zeros(0), describe(name, x, axis=0), DType(float, 32), {"x": x})

    return run


for _name in _SPECS:
    add_case(_name, "edge-empty", _empty_case(_name), "sum 0, prod 1, mean NaN, any false, all true; max/min of nothing raise ValueError")
