"""Reductions: axis conventions (None, int, negative, tuple), keepdims, empty inputs, NaN."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bk import DType

from .._case import Trial, add_case, label

_AXES: tuple[Any, ...] = (None, 0, -1, (0, 2))


def _reduce_case(name: str, ref: Callable[..., np.ndarray], keepdims: bool = True, ints: bool = True, tuple_axes: bool = True, dtype_kind: bool = False) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        dtypes = [*t.floats(half=False), *((DType(int, 32), DType(int, 64)) if ints else ())]
        for dtype in dtypes:
            x = t.np(t.uniform((2, 3, 4)) if dtype.kind is float else t.rng.integers(-3, 4, (2, 3, 4)), dtype)
            for axis in _AXES if tuple_axes else (None, 0, -1):
                for keep in (False, True) if keepdims else (False,):
                    kwargs = {"keepdims": True} if keep else {}
                    got = getattr(t.b, name)(t.tensor(x), axis=axis, **kwargs)
                    expected = ref(x.astype(np.float64) if dtype.kind is float else x, axis=axis, keepdims=keep)
                    want: Any = dtype.kind if dtype_kind or dtype.kind is int else dtype
                    t.check(got, expected, f"{label(name, x)} axis={axis} keepdims={keep}", dtype=want, inputs={"x": x}, tol_dtype=dtype, scale=4)

    return run


def _prod_ref(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.prod(x, axis=axis, keepdims=keepdims)


add_case("sum", "axes-keepdims", _reduce_case("sum", np.sum, dtype_kind=False), "axis None/int/negative/tuple, keepdims, float and int")
add_case("mean", "axes-keepdims", _reduce_case("mean", np.mean, ints=False), "axis None/int/negative/tuple, keepdims")
add_case("std", "axes-keepdims", _reduce_case("std", np.std, ints=False), "population std; axis None/int/negative/tuple, keepdims")
add_case("max", "axes-keepdims", _reduce_case("max", np.max), "axis None/int/negative/tuple, keepdims, float and int")
add_case("min", "axes-keepdims", _reduce_case("min", np.min), "axis None/int/negative/tuple, keepdims, float and int")
add_case("prod", "axes", _reduce_case("prod", _prod_ref, keepdims=False), "axis None/int/negative/tuple, float and int")


def _sum_int_dtype(t: Trial) -> None:
    """Sums of ints are ints; sums of booleans count the true values."""
    x = np.array([[True, False, True], [True, True, False]])
    got = t.b.sum(t.tensor(x), axis=1)
    t.check(got, np.array([2, 2]), label("sum", x) + " axis=1", dtype=int)


def _empty_sum_prod(t: Trial) -> None:
    """The sum of nothing is 0, the product 1."""
    x = np.zeros((0, 3), np.float32)
    t.check(t.b.sum(t.tensor(x), axis=0), np.zeros(3), "sum(float32 (0, 3)) axis=0", dtype=DType(float, 32))
    t.check(t.b.sum(t.tensor(x), axis=None), np.float64(0), "sum(float32 (0, 3)) axis=None", dtype=DType(float, 32))


def _empty_prod(t: Trial) -> None:
    x = np.zeros((0, 3), np.float32)
    t.check(t.b.prod(t.tensor(x), axis=0), np.ones(3), "prod(float32 (0, 3)) axis=0", dtype=DType(float, 32))


add_case("sum", "bool-to-int", _sum_int_dtype, "booleans sum to ints")
add_case("sum", "empty", _empty_sum_prod, "empty input sums to 0")
add_case("prod", "empty", _empty_prod, "empty input multiplies to 1")


def _nan_case(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, -1.0]], np.float32)
        t.check(getattr(t.b, name)(t.tensor(x), axis=1), ref(x.astype(np.float64), axis=1), label(name, x) + " axis=1", dtype=DType(float, 32), inputs={"x": x})

    return run


for _name, _ref in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod)):
    add_case(_name, "nan-inf", _nan_case(_name, _ref), "NaN propagates, inf as in NumPy")


def _precision_case(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = t.uniform((3, 4))
        for p in t.precisions:
            with t.precision(p):
                want = t.result_float(DType(float, 64 if t.float64 else 32))
                t.check(getattr(t.b, name)(t.tensor(x), axis=-1), ref(x, axis=-1), f"{name} under precision({p})", dtype=want, inputs={"x": x})

    return run


for _name, _ref in (("sum", np.sum), ("mean", np.mean), ("std", np.std), ("max", np.max), ("min", np.min), ("prod", np.prod)):
    add_case(_name, "precision", _precision_case(_name, _ref), "result dtype follows bk.precision(p)")


def _logical(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = np.array([[[True, False], [False, False]], [[True, True], [False, True]]])
        for axis in _AXES:
            for keep in (False, True):
                got = getattr(t.b, name)(t.tensor(x), axis=axis, keepdims=keep)
                t.check(got, ref(x, axis=axis, keepdims=keep), f"{name}(bool (2, 2, 2)) axis={axis} keepdims={keep}", dtype=DType(bool), inputs={"x": x})
        empty = np.zeros((0,), bool)
        t.check(getattr(t.b, name)(t.tensor(empty)), ref(empty), f"{name} of an empty tensor", dtype=DType(bool))

    return run


add_case("any", "axes-keepdims", _logical("any", np.any), "axis None/int/tuple, keepdims, empty input")
add_case("all", "axes-keepdims", _logical("all", np.all), "axis None/int/tuple, keepdims, empty input")


def _arg(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = np.array([[3, 1, 3, 0], [2, 2, 5, 5], [-1, 7, 7, -1]], np.float32)
        for axis in (0, 1, -1):
            for keep in (False, True):
                got = getattr(t.b, name)(t.tensor(x), axis=axis, keepdims=keep)
                t.check(got, ref(x, axis=axis, keepdims=keep), f"{label(name, x)} axis={axis} keepdims={keep}", dtype=int, inputs={"x": x})

    return run


add_case("argmax", "first-of-ties", _arg("argmax", np.argmax), "index of the first maximum, axis and keepdims")
add_case("argmin", "first-of-ties", _arg("argmin", np.argmin), "index of the first minimum, axis and keepdims")


def _cumsum(t: Trial) -> None:
    for dtype in (*t.floats(half=False), DType(int, 32), DType(int, 64)):
        x = t.np(t.rng.integers(-3, 4, (2, 3)), dtype)
        for axis in (0, 1, -1):
            t.check(t.b.cumsum(t.tensor(x), axis), np.cumsum(x, axis=axis), f"{label('cumsum', x)} axis={axis}", dtype=dtype.kind, inputs={"x": x})


add_case("cumsum", "axes", _cumsum, "float and int, every axis")


def _quantile(t: Trial) -> None:
    x = t.uniform((2, 5))
    for quantiles in ([0.5], [0.0, 0.25, 1.0]):
        for dtype in t.floats(half=False):
            xs = t.np(x, dtype)
            got = t.b.quantile(t.tensor(xs), quantiles)
            expected = np.quantile(xs.astype(np.float64), quantiles, axis=-1)
            t.check(got, expected, f"{label('quantile', xs)} q={quantiles}", dtype=dtype, inputs={"x": xs}, scale=4)


add_case("quantile", "linear", _quantile, "linear interpolation over the last axis, shape (quantiles, ...)")
