"""Elementwise maths: unary functions by table, NaN/inf propagation, precision, special functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from bk import DType

from .._case import Trial, add_case, label

SHAPES = ((), (0,), (2, 3))
NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class Unary:
    """A unary elementwise feature and its reference."""

    name: str
    ref: Callable[[np.ndarray], np.ndarray]
    low: float = -3.0
    high: float = 3.0
    half: bool = True
    ints: bool = False
    complex: bool = False
    specials: tuple[float, ...] = (NAN, INF, -INF, 0.0)
    scale: float = 1.0
    out: str = "same"  # 'same', 'bool', or 'real' (complex inputs give real outputs)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


UNARY = (
    Unary("abs", np.abs, ints=True, complex=True, out="real"),
    Unary("sign", np.sign, ints=True),
    Unary("round", np.round, low=-5, high=5, specials=(NAN, INF, -INF, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5)),
    Unary("ceil", np.ceil, low=-5, high=5),
    Unary("floor", np.floor, low=-5, high=5),
    Unary("sqrt", np.sqrt, low=0.0, high=4.0, complex=True, specials=(NAN, INF, 0.0, -1.0)),
    Unary("exp", np.exp, complex=True, specials=(NAN, INF, -INF, 0.0)),
    Unary("erf", special.erf, half=False, scale=4),
    Unary("softplus", _softplus, half=False, specials=(NAN, INF, -INF, 0.0)),
    Unary("log_gamma", special.gammaln, low=0.2, high=6.0, half=False, specials=(NAN, INF, 1.0, 2.0), scale=8),
    Unary("sigmoid", _sigmoid, specials=(NAN, INF, -INF, 0.0)),
    Unary("sin", np.sin, complex=True),
    Unary("cos", np.cos, complex=True),
    Unary("tan", np.tan, low=-1.2, high=1.2, specials=(NAN, INF, 0.0), scale=4),
    Unary("arcsin", np.arcsin, low=-0.9, high=0.9, specials=(NAN, 2.0, 0.0), scale=2),
    Unary("arccos", np.arccos, low=-0.9, high=0.9, specials=(NAN, 2.0, 1.0), scale=2),
    Unary("arctan", np.arctan, specials=(NAN, INF, -INF, 0.0)),
    Unary("sinh", np.sinh, specials=(NAN, INF, -INF, 0.0)),
    Unary("cosh", np.cosh, specials=(NAN, INF, -INF, 0.0)),
    Unary("tanh", np.tanh, specials=(NAN, INF, -INF, 0.0)),
    Unary("arcsinh", np.arcsinh, specials=(NAN, INF, -INF, 0.0)),
    Unary("arccosh", np.arccosh, low=1.1, high=4.0, specials=(NAN, INF, 1.0, 0.5), scale=2),
    Unary("arctanh", np.arctanh, low=-0.9, high=0.9, specials=(NAN, 1.0, -1.0, 2.0, 0.0), scale=2),
    Unary("log", np.log, low=0.1, high=5.0, complex=True, specials=(NAN, INF, 0.0, -1.0)),
    Unary("log2", np.log2, low=0.1, high=5.0, specials=(NAN, INF, 0.0, -1.0)),
    Unary("log10", np.log10, low=0.1, high=5.0, specials=(NAN, INF, 0.0, -1.0)),
    Unary("isfinite", np.isfinite, ints=True, out="bool"),
    Unary("isnan", np.isnan, ints=True, out="bool"),
    Unary("isinf", np.isinf, ints=True, out="bool"),
)


def _out_dtype(t: Trial, op: Unary, dtype: DType) -> DType:
    if op.out == "bool":
        return DType(bool)
    if op.out == "real" and dtype.kind is complex:
        return DType(float, dtype.bits // 2)  # type: ignore[operator]
    return t.result_float(dtype)


def _reference(op: Unary, x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with np.errstate(all="ignore"):
        result = np.asarray(op.ref(wide))
    return result


def _sample(t: Trial, op: Unary, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    if dtype.kind is int:
        return t.np(t.rng.integers(-5, 6, size=shape), dtype)
    values = t.uniform(shape, op.low, op.high)
    if dtype.kind is complex:
        values = values + 1j * t.uniform(shape, -1.0, 1.0)
    return t.np(values, dtype)


def _check_one(t: Trial, op: Unary, x: np.ndarray, dtype: DType) -> None:
    result = getattr(t.b, op.name)(t.tensor(x, dtype))
    expected = _reference(op, x)
    out = _out_dtype(t, op, dtype)
    t.check(result, expected, label(op.name, x), dtype=out, scale=op.scale, inputs={"x": x})


def _dtypes_case(op: Unary) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        dtypes = [*t.floats(op.half), *(t.complexes() if op.complex else ()), *((DType(int, 32), DType(int, 64)) if op.ints else ())]
        for dtype in dtypes:
            for shape in SHAPES:
                _check_one(t, op, _sample(t, op, shape, dtype), dtype)

    return run


def _precision_case(op: Unary) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = t.uniform((3,), op.low, op.high)
        for p in t.precisions:
            with t.precision(p):
                result = getattr(t.b, op.name)(t.tensor(x))
                out = DType(bool) if op.out == "bool" else t.result_float(DType(float, 64 if t.float64 else 32))
                t.check(result, _reference(op, x), f"{op.name} under precision({p})", dtype=out, scale=op.scale, inputs={"x": x})

    return run


def _specials_case(op: Unary) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        dtype = DType(float, 64 if t.float64 else 32)
        x = t.np(op.specials, dtype)
        _check_one(t, op, x, dtype)

    return run


for _op in UNARY:
    add_case(_op.name, "dtypes-shapes", _dtypes_case(_op), "float16/32/64 (ints, complex where meaningful) on 0-d, empty and 2-D inputs")
    add_case(_op.name, "precision", _precision_case(_op), "result dtype follows bk.precision(p)")
    add_case(_op.name, "nan-inf", _specials_case(_op), "NaN, infinities and domain edges as in NumPy")


# ---------------------------------------------------------------- complex parts


def _complex_part(name: str, ref: Callable[[np.ndarray], np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in t.complexes():
            x = t.np(t.uniform((2, 3)) + 1j * t.uniform((2, 3)), dtype)
            out = dtype if name == "conj" else DType(float, dtype.bits // 2)  # type: ignore[operator]
            t.check(getattr(t.b, name)(t.tensor(x)), ref(x), label(name, x), dtype=out, inputs={"x": x})
        for dtype in t.floats(half=False):
            x = t.np(t.uniform((4,)), dtype)
            t.check(getattr(t.b, name)(t.tensor(x)), ref(x).real, label(name, x), dtype=dtype, inputs={"x": x})

    return run


for _name, _ref in (("real", np.real), ("imag", np.imag), ("conj", np.conj)):
    add_case(_name, "complex-and-real", _complex_part(_name, _ref), "complex64/128 and real inputs")


# ---------------------------------------------------------------- binary and special functions


def _binary(name: str, ref: Callable[[Any, Any], np.ndarray], a_range: tuple[float, float], b_range: tuple[float, float], scale: float = 1.0, specials: tuple[tuple[float, float], ...] = ()) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in t.floats(half=False):
            a = t.np(t.uniform((3, 1), *a_range), dtype)
            b = t.np(t.uniform((4,), *b_range), dtype)
            with np.errstate(all="ignore"):
                expected = ref(a.astype(np.float64), b.astype(np.float64))
            t.check(getattr(t.b, name)(t.tensor(a), t.tensor(b)), expected, label(name, a, b), dtype=dtype, scale=scale, inputs={"a": a, "b": b})
        if specials:
            dtype = DType(float, 64 if t.float64 else 32)
            a, b = (t.np([s[i] for s in specials], dtype) for i in (0, 1))
            with np.errstate(all="ignore"):
                expected = ref(a, b)
            t.check(getattr(t.b, name)(t.tensor(a), t.tensor(b)), expected, label(name, a, b), dtype=dtype, scale=scale, inputs={"a": a, "b": b})

    return run


add_case("maximum", "broadcast-nan", _binary("maximum", np.maximum, (-2, 2), (-2, 2), specials=((NAN, 1.0), (1.0, NAN), (INF, -INF))), "broadcasting; NaN propagates")
add_case("minimum", "broadcast-nan", _binary("minimum", np.minimum, (-2, 2), (-2, 2), specials=((NAN, 1.0), (1.0, NAN), (INF, -INF))), "broadcasting; NaN propagates")
add_case("arctan2", "broadcast", _binary("arctan2", np.arctan2, (-2, 2), (-2, 2), specials=((0.0, -1.0), (1.0, 0.0), (NAN, 1.0))), "quadrants, axes, NaN")
add_case("gamma_inc_l", "values", _binary("gamma_inc_l", special.gammainc, (0.5, 4), (0.1, 5), scale=20), "regularized lower incomplete gamma vs scipy.special.gammainc")
add_case("gamma_inc_u", "values", _binary("gamma_inc_u", special.gammaincc, (0.5, 4), (0.1, 5), scale=20), "regularized upper incomplete gamma vs scipy.special.gammaincc")


def _divide_no_nan_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _divide_no_nan(t: Trial) -> None:
    for dtype in t.floats(half=False):
        a = t.np([[1.0, -2.0, 0.0, 3.0]], dtype)
        b = t.np([[2.0, 0.0, 0.0, -4.0], [0.0, 1.0, 2.0, 0.5]], dtype)
        t.check(t.b.divide_no_nan(t.tensor(a), t.tensor(b)), _divide_no_nan_ref(a, b), label("divide_no_nan", a, b), dtype=dtype, inputs={"a": a, "b": b})


add_case("divide_no_nan", "zeros", _divide_no_nan, "x / y, 0 where y is 0 (also 0/0), broadcasting")


def _clip(t: Trial) -> None:
    for dtype in (*t.floats(half=False), DType(int, 32), DType(int, 64)):
        x = t.np([[-3, -1, 0], [1, 2, 5]], dtype)
        t.check(t.b.clip(t.tensor(x), -1, 2), np.clip(x, -1, 2), label("clip", x) + " to [-1, 2]", dtype=dtype, inputs={"x": x})
    if t.float64:
        x = t.np([NAN, INF, -INF], "float64")
        t.check(t.b.clip(t.tensor(x), 0.0, 1.0), np.clip(x, 0.0, 1.0), "clip(nan, inf, -inf) to [0, 1]", dtype=DType(float, 64))


add_case("clip", "dtypes", _clip, "float and int inputs, scalar bounds, NaN stays NaN")


def _factorial(t: Trial) -> None:
    for bits, top in ((32, 12), (64, 20)):
        n = t.np(np.arange(top + 1), f"int{bits}")
        expected = np.array([float(special.factorial(int(i), exact=True)) for i in n]).astype(f"int{bits}")
        t.check(t.b.factorial(t.tensor(n)), expected, f"factorial(int{bits} 0..{top})", dtype=DType(int, bits), inputs={"n": n})
    for dtype in t.floats(half=False):
        x = t.np([0.0, 1.0, 2.5, 5.0], dtype)
        t.check(t.b.factorial(t.tensor(x)), special.gamma(x.astype(np.float64) + 1), label("factorial", x), dtype=dtype, scale=20, inputs={"x": x})


add_case("factorial", "ints-floats", _factorial, "exact for int32 up to 12! and int64 up to 20!; gamma(x+1) for floats")
