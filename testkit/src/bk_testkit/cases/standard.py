"""The Array API standard's operations (and NumPy's everyday extras): values against NumPy in float64,
dtypes, 0-d and empty inputs, negative axes, and the error classes of docs/semantics.md.

Covers `bk._catalogue_standard` and `bk._catalogue_dtypes`: creation (`eye`, `full`, `tril`, `diag`,
...), elementwise (`log1p`, `hypot`, `nextafter`, ...), shape and data (`moveaxis`, `roll`,
`matmul`, `take_along_axis`, ...), dtype queries (`result_type`, `can_cast`, `finfo`, ...) and
`kron`, `isclose`, `allclose`, `logsumexp`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

import bk
from bk import DType

from .._case import Trial, case
from ._edges import (
    ALL_DTYPES,
    BOOL,
    COMPLEX,
    FLOATS,
    SIGNED,
    UNSIGNED,
    available,
    check_raises,
    check_result,
    describe,
    make_values,
    tensor,
)

NAN, INF = float("nan"), float("inf")
F32, F64, I64 = DType(float, 32), DType(float, 64), DType(int, 64)
REAL_FLOATS = (DType(float, 16), DType(float, 32), DType(float, 64))
NUMERIC = (*SIGNED, *UNSIGNED, *REAL_FLOATS, *COMPLEX)


def _wide(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x


def _default_float(t: Trial) -> DType:
    return DType(float, bk.get_precision() or 32)


def _rotate(items: Any, params: Any) -> list[tuple[Any, Any]]:
    """Pairs that use every item and every parameter at least once (not every combination): each
    new shape and dtype costs a compile on JAX and TensorFlow."""
    items, params = list(items), list(params)
    return [(items[i % len(items)], params[i % len(params)]) for i in range(max(len(items), len(params)))]


def _exact(t: Trial, actual: Any, expected: np.ndarray, what: str, dtype: DType) -> None:
    """Bit-exact comparison (NaN equals NaN; -0.0 differs from 0.0)."""
    values = check_result(t, actual, expected, what, dtype, scale=0.0 + 1e-30)
    same = (values == expected) & (np.signbit(values) == np.signbit(expected)) | (np.isnan(values) & np.isnan(expected))
    if not bool(np.all(same)):
        t.fail(what, f"values differ bit for bit\n  expected {expected!r}\n  actual   {values!r}")


# ---------------------------------------------------------------- creation


@case("eye", name="values")
def _eye(t: Trial) -> None:
    """np.eye for every dtype, rectangular shapes, diagonals above, below and outside, 0 rows."""
    for dtype, (n, m, k) in _rotate(available(t, (BOOL, SIGNED[2], SIGNED[3], UNSIGNED[0], *FLOATS, *COMPLEX)), ((3, None, 0), (2, 4, 1), (4, 2, -1), (0, None, 0), (3, 3, 5))):
        expected = np.eye(n, m, k=k, dtype=bk.to_numpy_dtype(dtype))
        check_result(t, t.b.eye(n, m, k=k, dtype=dtype), expected, f"eye({n}, {m}, k={k}, dtype={dtype})", dtype)
    for p in t.precisions:
        with t.precision(p):
            check_result(t, t.b.eye(2), np.eye(2), f"eye(2) under precision({p})", _default_float(t))
    check_raises(t, ValueError, lambda: t.b.eye(-1), "eye(-1)", "eye")
    check_raises(t, TypeError, lambda: t.b.eye(2.5), "eye(2.5)", "eye")


@case("full", name="values")
def _full(t: Trial) -> None:
    """Default dtypes from the fill value, explicit dtypes, 0-d and empty shapes; out-of-range ints raise OverflowError."""
    for p in t.precisions:
        with t.precision(p):
            fills = ((True, BOOL), (3, I64), (2.5, _default_float(t)), (1 + 2j, DType(complex, 2 * (bk.get_precision() or 32))))
            for (fill, dtype), shape in _rotate(fills, ((), (0,), (2, 3))):
                check_result(t, t.b.full(shape, fill), np.full(shape, fill), f"full({shape}, {fill!r}) under precision({p})", dtype)
    for fill, dtype in ((5, SIGNED[0]), (1.5, DType(float, 16)), (255, UNSIGNED[0]), (0.5, F32), (-7, I64)):
        if dtype in available(t, (dtype,)):
            check_result(t, t.b.full(4, fill, dtype), np.full(4, fill, bk.to_numpy_dtype(dtype)), f"full(4, {fill!r}, {dtype})", dtype)
    check_raises(t, OverflowError, lambda: t.b.full((2,), 300, SIGNED[0]), "full((2,), 300, int8)")
    check_raises(t, ValueError, lambda: t.b.full((-1,), 0.0), "full((-1,), 0.0)", "full")
    for bad in (None, "a"):
        check_raises(t, TypeError, lambda bad=bad: t.b.full((2,), bad), f"full((2,), {bad!r})", "full")


@case("full_like", name="values")
def _full_like(t: Trial) -> None:
    """The dtype of x by default, or the given one; NaN fills; OverflowError for ints out of range."""
    for dtype, shape in _rotate(available(t, ALL_DTYPES), ((), (0, 2), (2, 3))):
        x = make_values(dtype, shape, seed=1)
        expected = np.full_like(x, 1)
        check_result(t, t.b.full_like(tensor(t, x), 1), expected, describe("full_like", x) + " with 1", dtype)
    x = np.zeros((2, 2), np.int8)
    check_result(t, t.b.full_like(tensor(t, x), 0.5, F32), np.full((2, 2), 0.5, np.float32), "full_like(int8, 0.5, float32)", F32)
    check_result(t, t.b.full_like(tensor(t, np.zeros(3, np.float32)), NAN), np.full(3, NAN, np.float32), "full_like(float32, nan)", F32)
    check_raises(t, OverflowError, lambda: t.b.full_like(tensor(t, x), 1000), "full_like(int8, 1000)")


@case("empty", name="shape-dtype")
def _empty(t: Trial) -> None:
    """The shape and dtype asked for (values unspecified)."""
    for shape, dtype in (((2, 3), None), ((), SIGNED[2]), ((0, 4), UNSIGNED[0]), ((3,), BOOL)):
        result = t.b.empty(shape, dtype)
        want = dtype or F32
        t.expect(t.b.dtype(result) == want and tuple(t.b.staticshape(result)) == shape, f"empty({shape}, {dtype})", f"got {t.b.dtype(result)} {t.b.staticshape(result)}")
        t.expect(t.to_numpy(result).shape == shape, f"empty({shape}, {dtype})", "computed shape differs")
    check_raises(t, ValueError, lambda: t.b.empty((2, -1)), "empty((2, -1))", "empty")


@case("empty_like", name="shape-dtype")
def _empty_like(t: Trial) -> None:
    """The shape of x and its dtype or the given one (values unspecified)."""
    for dtype, want in _rotate(available(t, ALL_DTYPES), (None, SIGNED[2])):
        x = tensor(t, make_values(dtype, (2, 0, 3), seed=2))
        result = t.b.empty_like(x, want)
        t.expect(t.b.dtype(result) == (want or dtype), f"empty_like({dtype}, {want})", f"dtype {t.b.dtype(result)}")
        t.expect(t.to_numpy(result).shape == (2, 0, 3), f"empty_like({dtype}, {want})", "shape differs")


def _triangle(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        params = [(shape, k) for shape in ((3, 4), (2, 3, 3), (0, 2), (2, 0, 3)) for k in (-1, 0, 2)]
        for dtype, (shape, k) in _rotate(available(t, ALL_DTYPES), params):
            x = make_values(dtype, shape, seed=len(shape))
            check_result(t, getattr(t.b, name)(tensor(t, x), k), ref(x, k), describe(name, x, k=k), dtype)
        for shape in ((), (3,)):
            x = tensor(t, np.ones(shape, np.float32))
            check_raises(t, bk.ShapeMismatchError, lambda x=x: getattr(t.b, name)(x), f"{name}(float32 {shape})", name)

    return run


case("tril", name="values")(_triangle("tril", np.tril))
case("triu", name="values")(_triangle("triu", np.triu))


@case("diag", name="values")
def _diag(t: Trial) -> None:
    """np.diag of vectors with offsets, batches of vectors (diag_embed), empty vectors; 0-d raises."""
    params = [(shape, k) for shape in ((3,), (0,), (2, 3)) for k in (-2, 0, 1)]
    for dtype, (shape, k) in _rotate(available(t, ALL_DTYPES), params):
        x = make_values(dtype, shape, seed=3)
        expected = np.diag(x, k) if x.ndim == 1 else np.stack([np.diag(v, k) for v in x])
        check_result(t, t.b.diag(tensor(t, x), k), expected, describe("diag", x, k=k), dtype)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.diag(tensor(t, np.float32(1))), "diag(float32 ())", "diag")


# ---------------------------------------------------------------- elementwise


def _unary_float(name: str, ref: Callable[[np.ndarray], np.ndarray], values: tuple[float, ...], complex_ok: bool, tiny: tuple[float, ...] = ()) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in available(t, REAL_FLOATS, COMPLEX if complex_ok else ()):
            for shape in ((), (0,), (2, 3)):
                x = t.np(t.uniform(shape, -0.9, 2.0), dtype)
                if dtype.kind is complex:
                    x = t.np(t.uniform(shape, -0.5, 1.0) + 1j * t.uniform(shape, -1.0, 1.0), dtype)
                with np.errstate(all="ignore"):
                    expected = ref(_wide(x))
                check_result(t, getattr(t.b, name)(tensor(t, x)), expected, describe(name, x), dtype, scale=4)
            if dtype.kind is float:
                x = t.np(values, dtype)
                with np.errstate(all="ignore"):
                    expected = ref(_wide(x)).astype(x.dtype)  # in the type of x: float16 overflows sooner
                check_result(t, getattr(t.b, name)(tensor(t, x)), expected, describe(name, x) + " at NaN, infinities and edges", dtype, scale=4)
        for dtype in available(t, (BOOL, SIGNED[2], UNSIGNED[0])):
            x = make_values(dtype, (4,), seed=4)
            with np.errstate(all="ignore"):
                expected = ref(x.astype(np.float64))
            check_result(t, getattr(t.b, name)(tensor(t, x)), expected, describe(name, x), F32, tol_dtype=F32)
        for p in t.precisions:
            with t.precision(p):
                x = t.np([0.5, 1.5], F64 if t.float64 else F32)
                check_result(t, getattr(t.b, name)(t.tensor(x)), ref(x.astype(np.float64)), f"{name} under precision({p})", t.result_float(F64 if t.float64 else F32))
        for dtype in available(t, (F32, F64)):
            x = t.np(tiny, dtype)
            got = t.to_numpy(getattr(t.b, name)(tensor(t, x)))
            expected = ref(x.astype(np.float64))
            if not np.allclose(got, expected, rtol=1e-5 if dtype.bits == 32 else 1e-12, atol=0):
                t.fail(f"{name}({dtype} near 0)", f"inaccurate: {got!r} instead of {expected!r}")
        if not complex_ok:
            x = tensor(t, np.ones(2, np.complex64))
            check_raises(t, TypeError, lambda: getattr(t.b, name)(x), f"{name}(complex64)", name)
        check_raises(t, TypeError, lambda: getattr(t.b, name)(None), f"{name}(None)", name)

    return run


case("log1p", name="values")(_unary_float("log1p", np.log1p, (NAN, INF, -INF, -1.0, -2.0, 0.0, -0.0, 1e30, 3.0), True, (1e-10, -3e-8, 2e-20, 0.0)))
case("expm1", name="values")(_unary_float("expm1", np.expm1, (NAN, INF, -INF, 0.0, -0.0, 50.0, -50.0, 3.0), True, (1e-10, -3e-8, 2e-20, 0.0)))
case("reciprocal", name="values")(_unary_float("reciprocal", np.reciprocal, (NAN, INF, -INF, 0.0, -0.0, 4.0), True, (4.0, 1e-3)))


def _binary_float(name: str, ref: Callable[[np.ndarray, np.ndarray], np.ndarray], specials: tuple[tuple[float, float], ...], scale: float = 2.0) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in available(t, REAL_FLOATS):
            a = t.np(t.uniform((3, 1), -3, 3), dtype)
            b = t.np(t.uniform((4,), -3, 3), dtype)
            with np.errstate(all="ignore"):
                check_result(t, getattr(t.b, name)(tensor(t, a), tensor(t, b)), ref(_wide(a), _wide(b)), describe(name, a, b), dtype, scale=scale)
            a, b = (t.np([s[i] for s in specials], dtype) for i in (0, 1))
            with np.errstate(all="ignore"):
                check_result(t, getattr(t.b, name)(tensor(t, a), tensor(t, b)), ref(_wide(a), _wide(b)), describe(name, a, b) + " at NaN, infinities and zeros", dtype, scale=scale)
            z, row = t.np(np.zeros((0, 2)), dtype), t.np(np.zeros(2), dtype)
            with np.errstate(all="ignore"):
                check_result(t, getattr(t.b, name)(tensor(t, z), tensor(t, row)), ref(_wide(z), _wide(row)), describe(name, z, row), dtype)
            s = t.np(1.25, dtype)
            with np.errstate(all="ignore"):
                check_result(t, getattr(t.b, name)(tensor(t, s), 2.0), ref(_wide(s), np.float64(2.0)), describe(name, s) + " with a Python float (weak)", dtype, scale=scale)
        i = np.array([1, -2, 3], np.int32)
        with np.errstate(all="ignore"):
            check_result(t, getattr(t.b, name)(tensor(t, i), tensor(t, i)), ref(i.astype(np.float64), i.astype(np.float64)), describe(name, i, i), F32)
        c = tensor(t, np.ones(2, np.complex64))
        check_raises(t, TypeError, lambda: getattr(t.b, name)(c, c), f"{name}(complex64, complex64)", name)
        x, y = tensor(t, np.ones(3, np.float32)), tensor(t, np.ones(4, np.float32))
        check_raises(t, bk.ShapeMismatchError, lambda: getattr(t.b, name)(x, y), f"{name}(float32 (3,), float32 (4,))", name)

    return run


_SIGNED_ZERO = ((0.0, -0.0), (-0.0, 0.0), (NAN, 1.0), (1.0, NAN), (INF, NAN), (-INF, 2.0), (INF, -INF), (-INF, -INF), (0.0, 0.0), (3.0, -4.0))
case("hypot", name="values")(_binary_float("hypot", np.hypot, _SIGNED_ZERO))
case("logaddexp", name="values")(_binary_float("logaddexp", np.logaddexp, (*_SIGNED_ZERO, (1000.0, 999.0), (-1000.0, -1001.0))))
case("copysign", name="values")(_binary_float("copysign", np.copysign, (*_SIGNED_ZERO, (2.0, -NAN), (-2.0, NAN))))


@case("hypot", name="no-overflow")
def _hypot_big(t: Trial) -> None:
    """No overflow or underflow in the squares: hypot(1e30, 1e30) and hypot(1e-30, 1e-30) in float32."""
    x = t.np([1e30, 1e-30, 2e38], F32)
    check_result(t, t.b.hypot(tensor(t, x), tensor(t, x)), np.hypot(x.astype(np.float64), x.astype(np.float64)), "hypot(float32 large and tiny)", F32)


def _np_nextafter(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.nextafter, but x2 where x1 == x2 (the standard's rule; NumPy's float16 loop returns x1: 0.0 for (0.0, -0.0))."""
    return np.where(a == b, b, np.nextafter(a, b))


@case("nextafter", name="values")
def _nextafter(t: Trial) -> None:
    """Bit-exact against np.nextafter: both directions, zeros, subnormals, infinities, NaN, equal arguments (x2)."""
    pairs = ((1.0, 2.0), (1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (-0.0, 1.0), (2.0, 2.0), (NAN, 1.0), (1.0, NAN), (INF, 0.0), (-INF, 0.0), (5.0, INF), (0.0, -0.0))
    for dtype in available(t, REAL_FLOATS):
        np_dtype = bk.to_numpy_dtype(dtype)
        a, b = (np.array([p[i] for p in pairs], np_dtype) for i in (0, 1))
        _exact(t, t.b.nextafter(tensor(t, a), tensor(t, b)), _np_nextafter(a, b), describe("nextafter", a, b), dtype)
        a2 = t.np(t.uniform((3, 1)), dtype)
        b2 = t.np(t.uniform((4,)), dtype)
        _exact(t, t.b.nextafter(tensor(t, a2), tensor(t, b2)), _np_nextafter(a2, b2), describe("nextafter", a2, b2), dtype)
        s = np.array(1.0, np_dtype)
        _exact(t, t.b.nextafter(tensor(t, s), 2.0), _np_nextafter(s, np.array(2.0, np_dtype)), describe("nextafter", s) + " with 2.0 (weak)", dtype)
    c = tensor(t, np.ones(2, np.complex64))
    check_raises(t, TypeError, lambda: t.b.nextafter(c, c), "nextafter(complex64, complex64)", "nextafter")
    x, y = tensor(t, np.ones(3, np.float32)), tensor(t, np.ones(4, np.float32))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.nextafter(x, y), "nextafter(float32 (3,), float32 (4,))", "nextafter")


@case("signbit", name="values")
def _signbit(t: Trial) -> None:
    """Negative values, -0.0, -inf and -NaN for floats; x < 0 for ints; false for bools; complex raises."""
    for dtype in available(t, REAL_FLOATS):
        x = t.np([-1.0, 0.0, -0.0, INF, -INF, NAN, -NAN, 2.0], dtype)
        check_result(t, t.b.signbit(tensor(t, x)), np.signbit(x), describe("signbit", x), BOOL)
        check_result(t, t.b.signbit(tensor(t, x[:0])), np.signbit(x[:0]), describe("signbit", x[:0]), BOOL)
    for dtype in available(t, (SIGNED[0], SIGNED[3], UNSIGNED[0], BOOL)):
        x = make_values(dtype, (2, 3), seed=5)
        check_result(t, t.b.signbit(tensor(t, x)), np.signbit(x), describe("signbit", x), BOOL)
    c = tensor(t, np.ones(2, np.complex64))
    check_raises(t, TypeError, lambda: t.b.signbit(c), "signbit(complex64)", "signbit")


@case("trunc", name="values")
def _trunc(t: Trial) -> None:
    """Toward zero (-0.5 gives -0.0), NaN and infinities kept; ints and bools unchanged; complex raises."""
    for dtype in available(t, REAL_FLOATS):
        x = t.np([-2.5, -0.5, 0.5, 2.7, NAN, INF, -INF, -0.0, 7.0], dtype)
        _exact(t, t.b.trunc(tensor(t, x)), np.trunc(x), describe("trunc", x), dtype)
        check_result(t, t.b.trunc(tensor(t, x[:0].reshape(0, 0))), np.zeros((0, 0)), describe("trunc", x[:0].reshape(0, 0)), dtype)
    for dtype in available(t, (BOOL, SIGNED[0], SIGNED[3], UNSIGNED[1])):
        x = make_values(dtype, (3,), seed=6)
        check_result(t, t.b.trunc(tensor(t, x)), x, describe("trunc", x), dtype)
    check_raises(t, TypeError, lambda: t.b.trunc(tensor(t, np.ones(2, np.complex64))), "trunc(complex64)", "trunc")


@case("square", name="values")
def _square(t: Trial) -> None:
    """x * x in the type of x: ints wrap, bools give int8 (as NumPy), complex squares."""
    for dtype in available(t, (BOOL, *NUMERIC)):
        x = make_values(dtype, (2, 3), seed=7)
        if dtype.kind is int:
            x = (x * 5).astype(x.dtype)
        want = SIGNED[0] if dtype.kind is bool else dtype
        check_result(t, t.b.square(tensor(t, x)), np.square(x) if dtype.kind is not float else np.square(_wide(x)), describe("square", x), want)
    x = np.float32(3)
    check_result(t, t.b.square(tensor(t, np.asarray(x))), np.float32(9), "square(float32 ())", F32)


@case("negative", name="values")
def _negative(t: Trial) -> None:
    """-x in the type of x: -0.0 for 0.0, unsigned ints and the most negative int wrap; bools raise."""
    for dtype in available(t, NUMERIC):
        x = make_values(dtype, (2, 3), seed=8)
        if dtype.kind is float:
            x[0, 0] = 0.0
        expected = np.negative(x)
        if dtype.kind is float:
            _exact(t, t.b.negative(tensor(t, x)), expected, describe("negative", x), dtype)
        else:
            check_result(t, t.b.negative(tensor(t, x)), expected, describe("negative", x), dtype)
    x = np.array([-128, 5], np.int8)
    check_result(t, t.b.negative(tensor(t, x)), np.negative(x), "negative(int8 [-128, 5])", SIGNED[0])
    check_raises(t, TypeError, lambda: t.b.negative(tensor(t, np.array([True]))), "negative(bool)", "negative")


# ---------------------------------------------------------------- shape and data


def _arange(shape: tuple[int, ...], dtype: Any = np.int32) -> np.ndarray:
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


@case("moveaxis", name="values")
def _moveaxis(t: Trial) -> None:
    """Single and several axes, negative positions; out-of-range and repeated axes raise AxisError."""
    x = _arange((2, 3, 4))
    for source, destination in ((0, -1), ((0, 1), (-1, -2)), (-1, 0), (1, 1), ((), ())):
        check_result(t, t.b.moveaxis(tensor(t, x), source, destination), np.moveaxis(x, source, destination), describe("moveaxis", x, source=source, destination=destination), SIGNED[2])
    check_raises(t, bk.AxisError, lambda: t.b.moveaxis(tensor(t, x), 3, 0), "moveaxis(int32 (2, 3, 4), 3, 0)", "moveaxis")
    check_raises(t, bk.AxisError, lambda: t.b.moveaxis(tensor(t, x), (0, 0), (1, 2)), "moveaxis(int32 (2, 3, 4), (0, 0), (1, 2))", "moveaxis")
    check_raises(t, ValueError, lambda: t.b.moveaxis(tensor(t, x), (0, 1), (1,)), "moveaxis(int32 (2, 3, 4), (0, 1), (1,))", "moveaxis")


@case("roll", name="values")
def _roll(t: Trial) -> None:
    """Positive, negative and oversized shifts, several axes, axis=None (flat), empty axes, 0-d."""
    for dtype, (shift, axis) in _rotate(available(t, ALL_DTYPES), ((1, 1), (-7, -1), ((1, 2), (0, 1)), (3, None), (2, (0, 1)), ((1, 1), (1, 1)))):
        x = make_values(dtype, (2, 5), seed=9)
        check_result(t, t.b.roll(tensor(t, x), shift, axis), np.roll(x, shift, axis), describe("roll", x, shift=shift, axis=axis), dtype)
    e = _arange((0, 3))
    check_result(t, t.b.roll(tensor(t, e), 2, 0), e, describe("roll", e, shift=2, axis=0), SIGNED[2])
    s = np.array(4.0, np.float32)
    check_result(t, t.b.roll(tensor(t, s), 1), s, describe("roll", s, shift=1), F32)
    check_raises(t, bk.AxisError, lambda: t.b.roll(tensor(t, e), 1, 2), "roll(int32 (0, 3), 1, axis=2)", "roll")


@case("matrix_transpose", name="values")
def _matrix_transpose(t: Trial) -> None:
    """The last two axes swapped, batches and empty matrices; rank below 2 raises ShapeMismatchError."""
    for shape in ((2, 3), (2, 3, 4), (0, 3), (2, 1, 0)):
        x = _arange(shape, np.float32) + 0.5
        check_result(t, t.b.matrix_transpose(tensor(t, x)), np.swapaxes(x, -1, -2), describe("matrix_transpose", x), F32)
    c = np.array([[1 + 2j, 3j]], np.complex64)
    check_result(t, t.b.matrix_transpose(tensor(t, c)), c.T, "matrix_transpose(complex64): no conjugate", COMPLEX[0])
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.matrix_transpose(tensor(t, np.ones(3))), "matrix_transpose(float64 (3,))", "matrix_transpose")


@case("squeeze", name="values")
def _squeeze(t: Trial) -> None:
    """Given and negative axes, every size-1 axis for None; an axis of another size raises ShapeMismatchError."""
    x = _arange((1, 3, 1))
    for axis in (0, (0, -1), None, -1, ()):
        check_result(t, t.b.squeeze(tensor(t, x), axis), np.squeeze(x, axis), describe("squeeze", x, axis=axis), SIGNED[2])
    one = np.array([True])
    check_result(t, t.b.squeeze(tensor(t, one), 0), one[0], "squeeze(bool (1,), 0)", BOOL)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.squeeze(tensor(t, x), 1), "squeeze(int32 (1, 3, 1), 1)", "squeeze")
    check_raises(t, bk.AxisError, lambda: t.b.squeeze(tensor(t, x), 3), "squeeze(int32 (1, 3, 1), 3)", "squeeze")


@case("broadcast_shapes", name="values")
def _broadcast_shapes(t: Trial) -> None:
    """np.broadcast_shapes, size 0 and 1; shapes that do not broadcast raise ShapeMismatchError."""
    for shapes in (((2, 1), (3,)), ((), (4, 1, 2)), ((0,), (1,)), ((5, 1, 3), (4, 1), ()), ((3,),)):
        got = t.b.broadcast_shapes(*shapes)
        t.expect(tuple(got) == np.broadcast_shapes(*shapes), f"broadcast_shapes{shapes}", f"got {got}, expected {np.broadcast_shapes(*shapes)}")
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.broadcast_shapes((2,), (3,)), "broadcast_shapes((2,), (3,))", "broadcast_shapes")


@case("broadcast_to", name="values")
def _broadcast_to(t: Trial) -> None:
    """New leading axes, size-1 axes, size 0, 0-d; a shape the tensor does not broadcast to raises ShapeMismatchError."""
    for dtype, (shape, target) in _rotate(available(t, ALL_DTYPES), (((3,), (2, 3)), ((), (2, 2)), ((3, 1), (3, 4)), ((1,), (0,)), ((2, 3), (2, 3)))):
        x = make_values(dtype, shape, seed=10)
        check_result(t, t.b.broadcast_to(tensor(t, x), target), np.broadcast_to(x, target), describe("broadcast_to", x, shape=target), dtype)
    for shape, target in (((3,), (4,)), ((2, 3), (3,)), ((2, 1), (3, 1))):
        x = tensor(t, np.ones(shape, np.float32))
        check_raises(t, bk.ShapeMismatchError, lambda x=x, target=target: t.b.broadcast_to(x, target), f"broadcast_to(float32 {shape}, {target})", "broadcast_to")


@case("broadcast_arrays", name="values")
def _broadcast_arrays(t: Trial) -> None:
    """A tuple of tensors of the common shape, each keeping its dtype."""
    a, b, c = _arange((3, 1), np.int8), np.ones(4, np.float32), np.array(True)
    result = t.b.broadcast_arrays(tensor(t, a), tensor(t, b), tensor(t, c))
    t.expect(isinstance(result, tuple) and len(result) == 3, "broadcast_arrays", f"returned {type(result).__name__}, expected a tuple of 3")
    for got, x, dtype in zip(result, np.broadcast_arrays(a, b, c), (SIGNED[0], F32, BOOL), strict=True):
        check_result(t, got, x, "broadcast_arrays(int8 (3, 1), float32 (4,), bool ())", dtype)
    x, y = tensor(t, np.ones(3)), tensor(t, np.ones(2))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.broadcast_arrays(x, y), "broadcast_arrays((3,), (2,))", "broadcast_arrays")


@case("count_nonzero", name="values")
def _count_nonzero(t: Trial) -> None:
    """int64 counts for every dtype (NaN counts), axis None, ints, tuples, negative; keepdims; empty."""
    for dtype, (axis, keepdims) in _rotate(available(t, ALL_DTYPES), ((None, False), (0, False), ((-1,), True), ((0, 1), False))):
        x = make_values(dtype, (3, 4), seed=11)
        expected = np.count_nonzero(x, axis=axis, keepdims=keepdims)
        check_result(t, t.b.count_nonzero(tensor(t, x), axis, keepdims), np.asarray(expected, np.int64), describe("count_nonzero", x, axis=axis, keepdims=keepdims), I64)
    e = np.zeros((0, 2), np.float32)
    check_result(t, t.b.count_nonzero(tensor(t, e), 0), np.zeros(2, np.int64), "count_nonzero(float32 (0, 2), 0)", I64)
    check_raises(t, bk.AxisError, lambda: t.b.count_nonzero(tensor(t, e), 2), "count_nonzero(float32 (0, 2), 2)", "count_nonzero")


def _cumulative(name: str, ref: Callable[..., np.ndarray]) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype, (axis, initial) in _rotate(available(t, (BOOL, SIGNED[0], SIGNED[2], UNSIGNED[0], *REAL_FLOATS, *COMPLEX)), ((-1, False), (0, True), (1, True))):
            x = make_values(dtype, (3, 4), seed=12, special=False, low=-2, high=2)
            wide = _wide(x)
            expected = ref(wide, axis=axis)
            if initial:
                start = np.zeros_like(np.take(expected, [0], axis=axis)) + (1 if name == "cumulative_prod" else 0)
                expected = np.concatenate([start, expected], axis=axis)
            want = dtype if dtype.kind in (float, complex) else (I64 if dtype.kind is bool or dtype.signed else DType(int, 64, signed=False))
            if dtype.kind is int and not dtype.signed:
                expected = ref(x.astype(np.uint64), axis=axis) if not initial else np.concatenate([np.full_like(np.take(ref(x.astype(np.uint64), axis=axis), [0], axis=axis), 1 if name == "cumulative_prod" else 0), ref(x.astype(np.uint64), axis=axis)], axis=axis)
            check_result(t, getattr(t.b, name)(tensor(t, x), axis, initial), expected, describe(name, x, axis=axis, include_initial=initial), want, scale=4)
        v = np.array([1.0, 2.0, -3.0], np.float32)
        check_result(t, getattr(t.b, name)(tensor(t, v)), ref(v.astype(np.float64)), describe(name, v) + " axis=None", F32)
        e = np.zeros((0, 2), np.float32)
        expected = np.full((1, 2), 1.0 if name == "cumulative_prod" else 0.0)
        check_result(t, getattr(t.b, name)(tensor(t, e), 0, True), expected, describe(name, e, axis=0, include_initial=True), F32)
        check_raises(t, bk.AxisError, lambda: getattr(t.b, name)(tensor(t, e)), f"{name}(float32 (0, 2), axis=None)", name)
        check_raises(t, bk.AxisError, lambda: getattr(t.b, name)(tensor(t, e), -3), f"{name}(float32 (0, 2), -3)", name)

    return run


case("cumulative_sum", name="values")(_cumulative("cumulative_sum", np.cumsum))
case("cumulative_prod", name="values")(_cumulative("cumulative_prod", np.cumprod))


@case("diff", name="values")
def _diff(t: Trial) -> None:
    """n = 0, 1, 2 and beyond the size, axes, bools (!=), prepend/append tensors and numbers; errors."""
    for dtype, (axis, n) in _rotate(available(t, (BOOL, SIGNED[2], UNSIGNED[0], *REAL_FLOATS, COMPLEX[0])), ((-1, 1), (0, 2), (1, 0), (0, 5))):
        x = make_values(dtype, (3, 4), seed=13, special=False)
        expected = np.diff(x, n=n, axis=axis)
        check_result(t, t.b.diff(tensor(t, x), axis, n), expected if dtype.kind is not float else np.diff(_wide(x), n=n, axis=axis), describe("diff", x, axis=axis, n=n), dtype)
    x = np.array([[1.0, 4.0, 9.0], [2.0, 2.0, 0.0]], np.float32)
    front = np.array([[0.5], [1.0]], np.float32)
    check_result(t, t.b.diff(tensor(t, x), -1, 1, tensor(t, front), 10.0), np.diff(x, axis=-1, prepend=front, append=10.0), "diff(float32 (2, 3), prepend=(2, 1), append=10.0)", F32)
    check_raises(t, ValueError, lambda: t.b.diff(tensor(t, x), -1, -1), "diff(float32 (2, 3), n=-1)", "diff")
    check_raises(t, bk.AxisError, lambda: t.b.diff(tensor(t, np.float32(1))), "diff(float32 ())", "diff")


@case("isin", name="values")
def _isin(t: Trial) -> None:
    """Bools of the shape of x; test elements of any shape and dtype; NaN is in nothing; invert; empty."""
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    for pool, invert in ((np.array([2, 6, 9], np.int64), False), (np.array([[3], [4]], np.int8), True), (np.zeros(0, np.int32), False)):
        check_result(t, t.b.isin(tensor(t, x), tensor(t, pool), invert), np.isin(x, pool, invert=invert), describe("isin", x, pool, invert=invert), BOOL)
    f = np.array([NAN, 1.5, INF, 0.0], np.float32)
    pool = np.array([NAN, INF, -0.0], np.float32)
    check_result(t, t.b.isin(tensor(t, f), tensor(t, pool)), np.isin(f, pool), describe("isin", f, pool), BOOL)
    s = np.array(5, np.int32)
    check_result(t, t.b.isin(tensor(t, s), tensor(t, x)), np.isin(s, x), describe("isin", s, x), BOOL)
    check_result(t, t.b.isin(tensor(t, x[:0]), tensor(t, x)), np.isin(x[:0], x), describe("isin", x[:0], x), BOOL)


@case("matmul", name="values")
def _matmul(t: Trial) -> None:
    """NumPy's matmul: matrices, vectors on either side, broadcast batches, ints and complex; shape errors."""
    cases = (((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 1, 2, 3), (4, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)))
    for dtype, (sa, sb) in [*_rotate(available(t, (F64, SIGNED[2], SIGNED[3], *COMPLEX)), cases), *((F32, c) for c in cases)]:
        a, b = make_values(dtype, sa, seed=14, special=False), make_values(dtype, sb, seed=15, special=False)
        check_result(t, t.b.matmul(tensor(t, a), tensor(t, b)), np.matmul(_wide(a), _wide(b)), describe("matmul", a, b), dtype, scale=4)
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.float64)
    if t.float64:
        check_result(t, t.b.matmul(tensor(t, a), tensor(t, b)), a @ b, "matmul(float32, float64)", F64)
    flags = tensor(t, np.ones((2, 2), bool))
    check_raises(t, TypeError, lambda: t.b.matmul(flags, flags), "matmul(bool (2, 2), bool (2, 2))", "matmul")
    for sa, sb in (((2, 3), (2, 3)), ((), (3,)), ((2, 2, 3), (3, 3, 1)), ((3,), (4,))):
        x, y = tensor(t, np.ones(sa, np.float32)), tensor(t, np.ones(sb, np.float32))
        check_raises(t, bk.ShapeMismatchError, lambda x=x, y=y: t.b.matmul(x, y), f"matmul(float32 {sa}, float32 {sb})", "matmul")


@case("take_along_axis", name="values")
def _take_along_axis(t: Trial) -> None:
    """np.take_along_axis with argsort indices, negative indices, broadcasting index axes; errors."""
    for dtype, axis in _rotate(available(t, ALL_DTYPES), (-1, 0)):
        x = make_values(dtype, (3, 4), seed=16)
        idx = np.argsort(np.arange(12).reshape(3, 4)[::-1, ::-1], axis=axis)
        check_result(t, t.b.take_along_axis(tensor(t, x), tensor(t, idx), axis), np.take_along_axis(x, idx, axis), describe("take_along_axis", x, idx, axis=axis), dtype)
    x = _arange((3, 4), np.float32)
    idx = np.array([[-1, 0]], np.int32)
    check_result(t, t.b.take_along_axis(tensor(t, x), tensor(t, idx), 1), np.take_along_axis(x, np.broadcast_to(idx, (3, 2)), 1), "take_along_axis(float32 (3, 4), int32 (1, 2), 1)", F32)
    check_result(t, t.b.take_along_axis(tensor(t, x), tensor(t, idx[:, :0]), 1), np.zeros((3, 0)), "take_along_axis(float32 (3, 4), int32 (1, 0), 1)", F32)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.take_along_axis(tensor(t, x), tensor(t, idx[0]), 1), "take_along_axis(rank 2, rank 1 indices)", "take_along_axis")
    check_raises(t, TypeError, lambda: t.b.take_along_axis(tensor(t, x), tensor(t, idx.astype(np.float32)), 1), "take_along_axis(float indices)", "take_along_axis")
    check_raises(t, IndexError, lambda: t.b.take_along_axis(tensor(t, x), tensor(t, idx + 9), 1), "take_along_axis(index 8 of 4)", "take_along_axis")
    check_raises(t, bk.AxisError, lambda: t.b.take_along_axis(tensor(t, x), tensor(t, idx), 2), "take_along_axis(axis=2)", "take_along_axis")


@case("var", name="values")
def _var(t: Trial) -> None:
    """Population variance as floats: ints give the default float, complex a real variance; axes, keepdims."""
    for dtype, (axis, keepdims) in _rotate(available(t, (F32, F64, SIGNED[2], COMPLEX[0])), ((None, False), (0, True), ((0, 1), False), (-1, False))):
        x = make_values(dtype, (3, 4), seed=17, special=False)
        out = DType(float, dtype.bits // 2) if dtype.kind is complex else (dtype if dtype.kind is float else F32)  # type: ignore[operator]
        check_result(t, t.b.var(tensor(t, x), axis, keepdims), np.var(_wide(x).astype(np.complex128 if dtype.kind is complex else np.float64), axis=axis, keepdims=keepdims), describe("var", x, axis=axis, keepdims=keepdims), out, scale=8)


# ---------------------------------------------------------------- dtype queries

_QUERY_DTYPES = (BOOL, *SIGNED, *UNSIGNED, DType(float, 16), F32, F64, *COMPLEX)


@case("result_type", name="values")
def _result_type(t: Trial) -> None:
    """bk's promotion of tensors and DTypes, Python numbers weak; the type binary operations give."""
    i8, u8, i16 = SIGNED[0], UNSIGNED[0], SIGNED[1]
    x = tensor(t, np.ones(2, np.float32))
    for args, want in (((i8, i16), i16), ((u8, i8), i16), ((x, 1.5), F32), ((SIGNED[2], 1.0), F32), ((i8, 3), i8), ((BOOL, True), BOOL), ((x, 1j), COMPLEX[0])):
        got = t.b.result_type(*args)
        t.expect(got == want, f"result_type{args}", f"got {got}, expected {want}")
    got = t.b.result_type(x, tensor(t, np.ones(2, np.int32)))
    t.expect(got == t.b.dtype(t.b.add(x, tensor(t, np.ones(2, np.int32)))), "result_type(float32, int32)", f"got {got}, not the dtype of add")
    check_raises(t, ValueError, lambda: t.b.result_type(), "result_type()", "result_type")


@case("can_cast", name="values")
def _can_cast(t: Trial) -> None:
    """np.can_cast(..., 'safe') for every pair of bool, int, uint, float16/32/64 and complex types, and for a tensor."""
    for a in _QUERY_DTYPES:
        for b in _QUERY_DTYPES:
            want = bool(np.can_cast(bk.to_numpy_dtype(a), bk.to_numpy_dtype(b)))
            got = t.b.can_cast(a, b)
            t.expect(got is want, f"can_cast({a}, {b})", f"got {got}, expected {want}")
    got = t.b.can_cast(tensor(t, np.ones(2, np.int8)), F32)
    t.expect(got is True, "can_cast(int8 tensor, float32)", f"got {got}")
    got = t.b.can_cast("int64", np.dtype(np.float32))
    t.expect(got is False, "can_cast('int64', numpy float32): dtypes by name and NumPy dtypes", f"got {got}")
    check_raises(t, TypeError, lambda: t.b.can_cast(float, F32), "can_cast(float, float32): a bare Python type", "can_cast")


@case("finfo", name="values")
def _finfo(t: Trial) -> None:
    """np.finfo limits of float16/32/64 and bfloat16 (complex: of the parts); integer types raise."""
    import ml_dtypes

    for dtype in (*REAL_FLOATS, DType(float, 16, brain=True), *COMPLEX):
        info = t.b.finfo(dtype)
        part = DType(float, dtype.bits // 2) if dtype.kind is complex else dtype  # type: ignore[operator]
        ref = ml_dtypes.finfo(bk.to_numpy_dtype(part))
        for field in ("bits", "eps", "max", "min", "smallest_normal"):
            t.expect(getattr(info, field) == float(getattr(ref, field)), f"finfo({dtype}).{field}", f"got {getattr(info, field)}, expected {getattr(ref, field)}")
        t.expect(info.dtype == part, f"finfo({dtype}).dtype", f"got {info.dtype}")
    t.expect(t.b.finfo(tensor(t, np.ones(1, np.float32))).bits == 32, "finfo(float32 tensor)", "bits differ")
    check_raises(t, TypeError, lambda: t.b.finfo(SIGNED[2]), "finfo(int32)", "finfo")


@case("iinfo", name="values")
def _iinfo(t: Trial) -> None:
    """np.iinfo limits of every signed and unsigned integer type; float types raise."""
    for dtype in (*SIGNED, *UNSIGNED):
        info, ref = t.b.iinfo(dtype), np.iinfo(bk.to_numpy_dtype(dtype))
        t.expect((info.bits, info.min, info.max, info.dtype) == (ref.bits, ref.min, ref.max, dtype), f"iinfo({dtype})", f"got {info}")
    t.expect(t.b.iinfo(tensor(t, np.ones(1, np.uint8))).max == 255, "iinfo(uint8 tensor)", "max differs")
    check_raises(t, TypeError, lambda: t.b.iinfo(F32), "iinfo(float32)", "iinfo")


@case("isdtype", name="values")
def _isdtype(t: Trial) -> None:
    """The Array API's kind names, DTypes and tuples of them; an unknown name raises ValueError."""
    table = {
        "bool": (BOOL,),
        "signed integer": SIGNED,
        "unsigned integer": UNSIGNED,
        "integral": (*SIGNED, *UNSIGNED),
        "real floating": FLOATS,
        "complex floating": COMPLEX,
        "numeric": (*SIGNED, *UNSIGNED, *FLOATS, *COMPLEX),
    }
    for kind, members in table.items():
        for dtype in (BOOL, *SIGNED, *UNSIGNED, *FLOATS, *COMPLEX):
            got = t.b.isdtype(dtype, kind)
            t.expect(got is (dtype in members), f"isdtype({dtype}, {kind!r})", f"got {got}")
    t.expect(t.b.isdtype(F32, (SIGNED[0], "real floating")) is True, "isdtype(float32, (int8, 'real floating'))", "got False")
    t.expect(t.b.isdtype(F32, F64) is False, "isdtype(float32, float64)", "got True")
    check_raises(t, ValueError, lambda: t.b.isdtype(F32, "floating"), "isdtype(float32, 'floating')", "isdtype")


# ---------------------------------------------------------------- NumPy and PyTorch extras


@case("kron", name="values")
def _kron(t: Trial) -> None:
    """np.kron of vectors, matrices, mixed ranks, ints and complex values, empty factors."""
    for dtype, (sa, sb) in _rotate(available(t, (SIGNED[2], F32, F64, COMPLEX[0])), (((2,), (3,)), ((2, 2), (2, 3)), ((2,), (2, 3)), ((2, 1, 2), (3, 2)), ((0, 2), (2, 2)))):
        a, b = make_values(dtype, sa, seed=18, special=False), make_values(dtype, sb, seed=19, special=False)
        check_result(t, t.b.kron(tensor(t, a), tensor(t, b)), np.kron(_wide(a), _wide(b)), describe("kron", a, b), dtype)


@case("isclose", name="values")
def _isclose(t: Trial) -> None:
    """np.isclose with infinities, NaN (equal_nan), rtol/atol, ints, broadcasting."""
    a = np.array([1.0, 1.0 + 1e-9, NAN, INF, -INF, 0.0, 1e-9, 2.0], np.float64 if t.float64 else np.float32)
    b = np.array([1.0, 1.0, NAN, INF, INF, 1e-9, 0.0, 2.1], a.dtype)
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.1}, {"atol": 0.0, "rtol": 0.0}):
        check_result(t, t.b.isclose(tensor(t, a), tensor(t, b), **kwargs), np.isclose(a, b, **kwargs), describe("isclose", a, b, **kwargs), BOOL)
    i = np.array([[1, 2], [3, 4]], np.int32)
    check_result(t, t.b.isclose(tensor(t, i), tensor(t, i[0])), np.isclose(i, i[0]), describe("isclose", i, i[0]), BOOL)
    x, y = tensor(t, np.ones(2, np.float32)), tensor(t, np.ones(3, np.float32))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.isclose(x, y), "isclose(float32 (2,), float32 (3,))", "isclose")


@case("allclose", name="values")
def _allclose(t: Trial) -> None:
    """A 0-d bool tensor: np.allclose, with NaN and equal_nan, empty inputs (true)."""
    a = np.array([1.0, NAN, 3.0], np.float32)
    for b, kwargs in ((a, {}), (a, {"equal_nan": True}), (a + 1e-7, {"equal_nan": True}), (a + 1.0, {"equal_nan": True})):
        check_result(t, t.b.allclose(tensor(t, a), tensor(t, b), **kwargs), np.asarray(np.allclose(a, b, **kwargs)), describe("allclose", a, b, **kwargs), BOOL)
    e = np.zeros(0, np.float32)
    check_result(t, t.b.allclose(tensor(t, e), tensor(t, e)), np.asarray(True), "allclose(empty, empty)", BOOL)


@case("logsumexp", name="values")
def _logsumexp(t: Trial) -> None:
    """scipy.special.logsumexp: axes, keepdims, large values without overflow, infinities, NaN, empty (-inf), ints."""
    for dtype, (axis, keepdims) in _rotate(available(t, REAL_FLOATS), ((None, False), (0, False), (-1, True), ((0, 1), True))):
        x = t.np(t.uniform((3, 4), -5, 5), dtype)
        check_result(t, t.b.logsumexp(tensor(t, x), axis, keepdims), special.logsumexp(_wide(x), axis=axis, keepdims=keepdims), describe("logsumexp", x, axis=axis, keepdims=keepdims), dtype, scale=4)
    x = t.np([[1000.0, 999.0], [-INF, -INF], [INF, 1.0], [NAN, 0.0]], F32)
    with np.errstate(all="ignore"):
        expected = special.logsumexp(x.astype(np.float64), axis=1)
    check_result(t, t.b.logsumexp(tensor(t, x), 1), expected, describe("logsumexp", x, axis=1), F32)
    e = np.zeros((0, 2), np.float32)
    check_result(t, t.b.logsumexp(tensor(t, e), 0), np.full(2, -INF), "logsumexp(float32 (0, 2), 0)", F32)
    i = np.array([1, 2, 3], np.int32)
    check_result(t, t.b.logsumexp(tensor(t, i)), special.logsumexp(i.astype(np.float64)), "logsumexp(int32 (3,))", F32)
    check_raises(t, TypeError, lambda: t.b.logsumexp(tensor(t, np.ones(2, np.complex64))), "logsumexp(complex64)", "logsumexp")
    check_raises(t, bk.AxisError, lambda: t.b.logsumexp(tensor(t, i), 1), "logsumexp(int32 (3,), 1)", "logsumexp")
