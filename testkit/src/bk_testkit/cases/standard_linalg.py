"""The Array API standard's `linalg` and `fft` extensions: decompositions, solvers, norms, products, FFTs.

Values are compared with NumPy in float64 (complex128). Decompositions are checked through what
defines them (`Q R == x`, `Q diag(w) Q^H == x`, orthonormal columns), never against one BLAS's
choice of signs. Matrices are well conditioned (a multiple of the identity is added) so that
float32 tolerances hold on every framework.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import bk
from bk import DType

from .._case import Trial, case
from ._edges import check_raises

F32, F64, C64, C128 = DType(float, 32), DType(float, 64), DType(complex, 64), DType(complex, 128)


def _dtypes(t: Trial, complex_: bool = True) -> list[DType]:
    """float32, float64 (where supported), complex64 and complex128 (where supported)."""
    chosen = [F32, *([F64] if t.float64 else [])]
    if complex_:
        chosen += [C64, *([C128] if t.float64 else [])]
    return chosen


def _random(t: Trial, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """Reference values (float64 or complex128) that are exactly representable in `dtype`."""
    x = t.uniform(shape)
    if dtype.kind is complex:
        x = x + 1j * t.uniform(shape)
    return x.astype(bk.to_numpy_dtype(dtype)).astype(np.complex128 if dtype.kind is complex else np.float64)


def _conj_t(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _spd(t: Trial, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """Hermitian positive-definite matrices, exactly representable in `dtype`."""
    a = _random(t, shape, dtype)
    m = a @ _conj_t(a) + shape[-1] * np.eye(shape[-1])
    return m.astype(bk.to_numpy_dtype(dtype)).astype(m.dtype)


def _well(t: Trial, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """Well-conditioned square matrices (diagonally dominant)."""
    m = _random(t, shape, dtype) + 4 * np.eye(shape[-1])
    return m.astype(bk.to_numpy_dtype(dtype)).astype(m.dtype)


def _real(dtype: DType) -> DType:
    return DType(float, int(dtype.bits or 64) // 2) if dtype.kind is complex else dtype


def _factor(t: Trial, value: Any, shape: tuple[int, ...], dtype: DType, what: str) -> np.ndarray:
    """A factor that is unique only up to signs or phases: its dtype and shape checked, its values returned."""
    got = t.b.dtype(value)
    if got != dtype:
        t.fail(what, f"dtype {got}, expected {dtype}")
    values = t.to_numpy(value)
    if values.shape != shape:
        t.fail(what, f"shape {values.shape}, expected {shape}")
    if t.b.compute_count() is not None:
        t.check_inferred(value, values, what, got)
    return values


def _raises(t: Trial, error: Any, function: Callable[[], Any], what: str, op: str) -> None:
    """`check_raises`, for an operation the backend claims (else the case is not implemented)."""
    if not t.b.supports(op):
        raise NotImplementedError(f"{t.b.name} does not implement {op}")
    check_raises(t, error, function, what, op)


# ---------------------------------------------------------------- decompositions


@case("cholesky")
def _cholesky(t: Trial) -> None:
    """Lower and upper factors of batched real and complex positive-definite matrices: L L^H == x."""
    for dtype in _dtypes(t):
        x = _spd(t, (2, 3, 3), dtype)
        for upper in (False, True):
            got = t.check(t.b.cholesky(t.tensor(x, dtype), upper=upper), np.linalg.cholesky(x, upper=upper), f"cholesky({dtype} (2, 3, 3), upper={upper})", dtype=dtype, scale=100)
            tri = np.triu(got) if upper else np.tril(got)
            t.compare(got, tri, f"cholesky(upper={upper}) is triangular", dtype, scale=100)


@case("cholesky", name="dtypes")
def _cholesky_dtypes(t: Trial) -> None:
    """Integers give the default float; float16 computes in float32 and stays float16."""
    x = np.array([[4, 2], [2, 3]])
    t.check(t.b.cholesky(t.tensor(x, "int32")), np.linalg.cholesky(x.astype(float)), "cholesky(int32)", dtype=F32, scale=10)
    with bk.precision(64 if t.float64 else 32):
        want = F64 if t.float64 else F32
        t.check(t.b.cholesky(t.tensor(x, "int64")), np.linalg.cholesky(x.astype(float)), "cholesky(int64) under precision 64", dtype=want, scale=10)
    if t.float16:
        t.check(t.b.cholesky(t.tensor(x, "float16")), np.linalg.cholesky(x.astype(float)), "cholesky(float16)", dtype=DType(float, 16), scale=1)


@case("cholesky", name="empty")
def _cholesky_empty(t: Trial) -> None:
    """A batch of 0 x 0 matrices and an empty batch."""
    for shape in ((2, 0, 0), (0, 2, 2)):
        t.check(t.b.cholesky(t.tensor(np.zeros(shape), "float32")), np.zeros(shape), f"cholesky(float32 {shape})", dtype=F32)


@case("cholesky", name="errors")
def _cholesky_errors(t: Trial) -> None:
    """Non-square and 1-D inputs raise ShapeMismatchError; a matrix that is not positive definite ValueError."""
    _raises(t, bk.ShapeMismatchError, lambda: t.b.cholesky(t.tensor(np.ones((2, 3)), "float32")), "cholesky((2, 3))", "cholesky")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.cholesky(t.tensor(np.ones(3), "float32")), "cholesky((3,))", "cholesky")
    _raises(t, ValueError, lambda: t.b.cholesky(t.tensor(np.array([[1.0, 2], [2, 1]]), "float32")), "cholesky(indefinite)", "cholesky")


@case("qr")
def _qr(t: Trial) -> None:
    """Q R == x, Q^H Q == I and triangular R for tall, wide and square batches, in both modes."""
    for dtype in _dtypes(t):
        for shape in ((2, 4, 3), (3, 2), (2, 3, 3)) if dtype == F32 else ((2, 4, 3),):
            x = _random(t, shape, dtype)
            m, n = shape[-2:]
            for mode in ("reduced", "complete"):
                q, r = t.b.qr(t.tensor(x, dtype), mode=mode)
                k = min(m, n) if mode == "reduced" else m
                what = f"qr({dtype} {shape}, mode={mode!r})"
                q_ = _factor(t, q, (*shape[:-2], m, k), dtype, what + " Q")
                r_ = _factor(t, r, (*shape[:-2], k, n), dtype, what + " R")
                t.compare(q_ @ r_, x, what + ": Q R", dtype, scale=100)
                t.compare(_conj_t(q_) @ q_, np.broadcast_to(np.eye(k), (*shape[:-2], k, k)), what + ": Q^H Q", dtype, scale=100)
                t.compare(np.tril(r_, -1), np.zeros(r_.shape), what + ": R upper triangular", dtype, scale=100)


@case("qr", name="errors")
def _qr_errors(t: Trial) -> None:
    """An unknown mode raises ValueError, a 1-D input ShapeMismatchError."""
    _raises(t, ValueError, lambda: t.b.qr(t.tensor(np.ones((2, 2)), "float32"), mode="r"), "qr(mode='r')", "qr")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.qr(t.tensor(np.ones(3), "float32")), "qr((3,))", "qr")


@case("eigh")
def _eigh(t: Trial) -> None:
    """Ascending real eigenvalues; Q diag(w) Q^H == x with orthonormal Q, for real symmetric and complex Hermitian batches."""
    for dtype in _dtypes(t):
        a = _random(t, (2, 4, 4), dtype)
        x = ((a + _conj_t(a)) / 2).astype(bk.to_numpy_dtype(dtype)).astype(a.dtype)
        w, q = t.b.eigh(t.tensor(x, dtype))
        what = f"eigh({dtype} (2, 4, 4))"
        w_ = t.check(w, np.linalg.eigvalsh(x), what + " eigenvalues", dtype=_real(dtype), scale=100)
        q_ = _factor(t, q, x.shape, dtype, what + " eigenvectors")
        t.compare(q_ @ (w_[..., :, None] * _conj_t(q_)), x, what + ": Q diag(w) Q^H", dtype, scale=100)
        t.compare(_conj_t(q_) @ q_, np.broadcast_to(np.eye(4), x.shape), what + ": Q^H Q", dtype, scale=100)


@case("eigh", name="empty")
def _eigh_empty(t: Trial) -> None:
    """0 x 0 matrices have no eigenvalues."""
    w, q = t.b.eigh(t.tensor(np.zeros((2, 0, 0)), "float32"))
    t.check(w, np.zeros((2, 0)), "eigh((2, 0, 0)) eigenvalues", dtype=F32)
    t.check(q, np.zeros((2, 0, 0)), "eigh((2, 0, 0)) eigenvectors", dtype=F32)


@case("eigh", name="errors")
def _eigh_errors(t: Trial) -> None:
    """Non-square matrices raise ShapeMismatchError."""
    _raises(t, bk.ShapeMismatchError, lambda: t.b.eigh(t.tensor(np.ones((2, 3)), "float32")), "eigh((2, 3))", "eigh")


@case("eigvalsh")
def _eigvalsh(t: Trial) -> None:
    """Ascending real eigenvalues of real symmetric and complex Hermitian batches; integers give the default float."""
    for dtype in _dtypes(t):
        a = _random(t, (3, 3, 3), dtype)
        x = ((a + _conj_t(a)) / 2).astype(bk.to_numpy_dtype(dtype)).astype(a.dtype)
        t.check(t.b.eigvalsh(t.tensor(x, dtype)), np.linalg.eigvalsh(x), f"eigvalsh({dtype} (3, 3, 3))", dtype=_real(dtype), scale=100)
    x = np.array([[2, 1], [1, 2]])
    t.check(t.b.eigvalsh(t.tensor(x, "int32")), [1.0, 3.0], "eigvalsh(int32)", dtype=F32, scale=10)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.eigvalsh(t.tensor(np.ones((2, 3)), "float32")), "eigvalsh((2, 3))", "eigvalsh")


@case("svdvals")
def _svdvals(t: Trial) -> None:
    """Descending singular values of tall, wide and batched matrices; real for complex inputs."""
    for dtype in _dtypes(t):
        for shape in ((4, 3), (2, 3, 5)):
            x = _random(t, shape, dtype)
            t.check(t.b.svdvals(t.tensor(x, dtype)), np.linalg.svdvals(x), f"svdvals({dtype} {shape})", dtype=_real(dtype), scale=100)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.svdvals(t.tensor(np.ones(3), "float32")), "svdvals((3,))", "svdvals")


# ---------------------------------------------------------------- inverses and solvers


@case("inv")
def _inv(t: Trial) -> None:
    """Inverses of batched real and complex matrices, an empty batch, and integers (default float)."""
    for dtype in _dtypes(t):
        x = _well(t, (2, 3, 3), dtype)
        t.check(t.b.inv(t.tensor(x, dtype)), np.linalg.inv(x), f"inv({dtype} (2, 3, 3))", dtype=dtype, scale=100)
    t.check(t.b.inv(t.tensor(np.zeros((0, 2, 2)), "float32")), np.zeros((0, 2, 2)), "inv(float32 (0, 2, 2))", dtype=F32)
    t.check(t.b.inv(t.tensor(np.zeros((2, 0, 0)), "float32")), np.zeros((2, 0, 0)), "inv(float32 (2, 0, 0))", dtype=F32)
    x = np.array([[2, 1], [1, 1]])
    t.check(t.b.inv(t.tensor(x, "int64")), np.linalg.inv(x), "inv(int64)", dtype=F32, scale=10)


@case("inv", name="errors")
def _inv_errors(t: Trial) -> None:
    """A singular matrix raises ValueError; non-square and 1-D inputs ShapeMismatchError."""
    _raises(t, ValueError, lambda: t.b.inv(t.tensor(np.ones((3, 3)), "float32")), "inv(singular)", "inv")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.inv(t.tensor(np.ones((2, 3)), "float32")), "inv((2, 3))", "inv")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.inv(t.tensor(np.ones(3), "float32")), "inv((3,))", "inv")


@case("solve")
def _solve(t: Trial) -> None:
    """A vector right side (n,), matrix right sides (..., n, k) and broadcast batches, as NumPy 2 and the standard."""
    for dtype in _dtypes(t):
        a = _well(t, (2, 3, 3), dtype)
        for b_shape in ((3,), (3, 2), (2, 3, 1), (1, 3, 2)) if dtype == F32 else ((1, 3, 2),):
            b = _random(t, b_shape, dtype)
            t.check(t.b.solve(t.tensor(a, dtype), t.tensor(b, dtype)), np.linalg.solve(a, b), f"solve({dtype} (2, 3, 3), {b_shape})", dtype=dtype, scale=100)
    a1 = _well(t, (1, 3, 3), F32)
    b = _random(t, (4, 3, 2), F32)
    t.check(t.b.solve(t.tensor(a1, F32), t.tensor(b, F32)), np.linalg.solve(a1, b), "solve((1, 3, 3), (4, 3, 2))", dtype=F32, scale=100)
    t.check(t.b.solve(t.tensor(np.array([[2, 0], [0, 4]]), "int32"), t.tensor(np.array([2, 2]), "int32")), [1.0, 0.5], "solve(int32, int32)", dtype=F32)


@case("solve", name="errors")
def _solve_errors(t: Trial) -> None:
    """Singular: ValueError. Right sides whose rows do not fit (a (2, 3) right side is a 2-row matrix, not a batch of vectors): ShapeMismatchError."""
    a = _well(t, (2, 3, 3), F32)
    _raises(t, ValueError, lambda: t.b.solve(t.tensor(np.ones((3, 3)), "float32"), t.tensor(np.ones(3), "float32")), "solve(singular)", "solve")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.solve(t.tensor(a, F32), t.tensor(np.ones((2, 3)), "float32")), "solve((2, 3, 3), (2, 3))", "solve")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.solve(t.tensor(a, F32), t.tensor(np.ones((3, 3, 1)), "float32")), "solve((2, 3, 3), (3, 3, 1))", "solve")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.solve(t.tensor(np.ones((2, 3)), "float32"), t.tensor(np.ones(2), "float32")), "solve((2, 3), (2,))", "solve")


@case("det")
def _det(t: Trial) -> None:
    """Determinants of batched real and complex matrices, a singular one (0) and an empty batch."""
    for dtype in _dtypes(t):
        x = _random(t, (2, 3, 3), dtype)
        t.check(t.b.det(t.tensor(x, dtype)), np.linalg.det(x), f"det({dtype} (2, 3, 3))", dtype=dtype, scale=100)
    t.check(t.b.det(t.tensor(np.ones((3, 3)), "float32")), 0.0, "det(singular)", dtype=F32, scale=10)
    t.check(t.b.det(t.tensor(np.zeros((0, 2, 2)), "float32")), np.zeros(0), "det(float32 (0, 2, 2))", dtype=F32)
    t.check(t.b.det(t.tensor(np.zeros((0, 0)), "float32")), 1.0, "det(float32 (0, 0)) is 1", dtype=F32)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.det(t.tensor(np.ones((2, 3)), "float32")), "det((2, 3))", "det")


@case("slogdet")
def _slogdet(t: Trial) -> None:
    """sign * exp(logabsdet) == det; real logabsdet for complex inputs; sign 0 and -inf for a singular matrix."""
    for dtype in _dtypes(t):
        x = _random(t, (2, 3, 3), dtype)
        sign, logabs = t.b.slogdet(t.tensor(x, dtype))
        ref_sign, ref_log = np.linalg.slogdet(x)
        t.check(sign, ref_sign, f"slogdet({dtype}) sign", dtype=dtype, scale=100)
        t.check(logabs, ref_log, f"slogdet({dtype}) logabsdet", dtype=_real(dtype), scale=100)
    sign, logabs = t.b.slogdet(t.tensor(np.zeros((2, 2)), "float32"))
    t.check(sign, 0.0, "slogdet(zeros) sign", dtype=F32)
    t.check(logabs, -np.inf, "slogdet(zeros) logabsdet", dtype=F32)


@case("pinv")
def _pinv(t: Trial) -> None:
    """Pseudo-inverses of tall, wide and batched matrices; a rank-deficient one with rtol."""
    for dtype in _dtypes(t):
        for shape in ((4, 3), (2, 2, 5)) if dtype == F32 else ((2, 2, 5),):
            x = _random(t, shape, dtype)
            t.check(t.b.pinv(t.tensor(x, dtype)), np.linalg.pinv(x), f"pinv({dtype} {shape})", dtype=dtype, scale=1000)
    x = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    t.check(t.b.pinv(t.tensor(x, "float32"), rtol=1e-4), np.linalg.pinv(x, rtol=1e-4), "pinv(rank 2, rtol=1e-4)", dtype=F32, scale=1000)
    t.check(t.b.pinv(t.tensor(np.zeros((2, 0, 3)), "float32")), np.zeros((2, 3, 0)), "pinv((2, 0, 3))", dtype=F32)


@case("matrix_rank")
def _matrix_rank(t: Trial) -> None:
    """int64 ranks of full and deficient matrices; rtol raises the cutoff."""
    x = np.stack([np.eye(3), np.outer([1.0, 2, 3], [1.0, 0, 1]), np.diag([1.0, 1e-3, 0])])
    t.check(t.b.matrix_rank(t.tensor(x, "float32")), [3, 1, 2], "matrix_rank(float32 (3, 3, 3))", dtype=DType(int, 64))
    t.check(t.b.matrix_rank(t.tensor(x, "float32"), rtol=1e-2), [3, 1, 1], "matrix_rank(rtol=1e-2)", dtype=DType(int, 64))
    t.check(t.b.matrix_rank(t.tensor(_random(t, (4, 2), F32), "float32")), 2, "matrix_rank((4, 2))", dtype=DType(int, 64))
    t.check(t.b.matrix_rank(t.tensor(np.zeros((2, 0, 3)), "float32")), [0, 0], "matrix_rank((2, 0, 3))", dtype=DType(int, 64))


@case("matrix_power")
def _matrix_power(t: Trial) -> None:
    """Positive, zero and negative powers of batched matrices; integer matrices stay integers."""
    for dtype in _dtypes(t):
        x = _well(t, (2, 3, 3), dtype) / 4
        for n in (0, 1, 2, 5, -1, -3):
            t.check(t.b.matrix_power(t.tensor(x, dtype), n), np.linalg.matrix_power(x, n), f"matrix_power({dtype}, {n})", dtype=dtype, scale=100)
    m = np.array([[1, 1], [1, 0]])
    t.check(t.b.matrix_power(t.tensor(m, "int32"), 10), np.linalg.matrix_power(m, 10), "matrix_power(int32, 10)", dtype=DType(int, 32))
    _raises(t, bk.ArgumentTypeError, lambda: t.b.matrix_power(t.tensor(m, "int32"), 1.5), "matrix_power(n=1.5)", "matrix_power")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.matrix_power(t.tensor(np.ones((2, 3)), "float32"), 2), "matrix_power((2, 3))", "matrix_power")


# ---------------------------------------------------------------- norms


_VECTOR_ORDS = (2, 1, math.inf, -math.inf, 0, 3, -1, 0.5)


@case("vector_norm")
def _vector_norm(t: Trial) -> None:
    """Every ord of the standard over None, one axis and a tuple of axes, with keepdims; real results for complex values."""
    for dtype in _dtypes(t):  # every ord over one axis tuple; the axis forms with two ords (each call compiles on JAX)
        x = _random(t, (2, 3, 4), dtype) + 0.1  # no zeros, so that negative orders stay finite
        calls = [(ord, (0, 2), False) for ord in _VECTOR_ORDS] + [(ord, axis, keepdims) for ord in (2, math.inf) for axis, keepdims in ((None, False), (-1, True), (None, True))]
        for ord, axis, keepdims in calls if dtype in (F32, C64) else calls[:2]:
            got = t.b.vector_norm(t.tensor(x, dtype), axis=axis, keepdims=keepdims, ord=ord)
            expected = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
            t.check(got, expected, f"vector_norm({dtype}, axis={axis}, keepdims={keepdims}, ord={ord})", dtype=_real(dtype), scale=100)


@case("vector_norm", name="dtypes")
def _vector_norm_dtypes(t: Trial) -> None:
    """Integers give the default float; an empty vector has norm 0; an unknown ord raises ValueError."""
    t.check(t.b.vector_norm(t.tensor([3, 4], "int32")), 5.0, "vector_norm(int32)", dtype=F32)
    t.check(t.b.vector_norm(t.tensor(np.zeros((0, 3)), "float32"), axis=0), np.zeros(3), "vector_norm((0, 3), axis=0)", dtype=F32)
    _raises(t, ValueError, lambda: t.b.vector_norm(t.tensor([1.0, 2.0], "float32"), ord="fro"), "vector_norm(ord='fro')", "vector_norm")
    t.check(t.b.vector_norm(t.tensor(np.zeros((0, 3)), "float32"), ord=math.inf), 0.0, "vector_norm((0, 3), ord=inf) is 0, as NumPy", dtype=F32)
    _raises(t, ValueError, lambda: t.b.vector_norm(t.tensor(np.zeros((0, 3)), "float32"), ord=-math.inf), "vector_norm((0, 3), ord=-inf)", "vector_norm")


@case("matrix_norm")
def _matrix_norm(t: Trial) -> None:
    """Every ord of the standard, with keepdims, of batched real and complex matrices."""
    for dtype in _dtypes(t):
        x = _random(t, (2, 3, 4), dtype)
        for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf) if dtype in (F32, C64) else ("fro", 2):
            for keepdims in (False, True) if ord in ("fro", 2) else (False,):
                got = t.b.matrix_norm(t.tensor(x, dtype), keepdims=keepdims, ord=ord)
                expected = np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
                t.check(got, expected, f"matrix_norm({dtype}, keepdims={keepdims}, ord={ord!r})", dtype=_real(dtype), scale=100)
    for shape in ((2, 0, 3), (3, 0)):
        empty = np.zeros(shape)
        for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
            try:
                expected = np.linalg.matrix_norm(empty, ord=ord)
            except ValueError:  # NumPy takes the minimum of nothing
                _raises(t, ValueError, lambda s=shape, o=ord: t.b.matrix_norm(t.tensor(np.zeros(s), "float32"), ord=o), f"matrix_norm({shape}, ord={ord!r})", "matrix_norm")
                continue
            t.check(t.b.matrix_norm(t.tensor(empty, "float32"), ord=ord), expected, f"matrix_norm({shape}, ord={ord!r})", dtype=F32)
    _raises(t, ValueError, lambda: t.b.matrix_norm(t.tensor(np.ones((2, 2)), "float32"), ord=3), "matrix_norm(ord=3)", "matrix_norm")
    _raises(t, bk.ShapeMismatchError, lambda: t.b.matrix_norm(t.tensor(np.ones(3), "float32")), "matrix_norm((3,))", "matrix_norm")


# ---------------------------------------------------------------- products and diagonals


@case("outer")
def _outer(t: Trial) -> None:
    """Outer products of floats, complex values and integers (which stay integers); 1-D only."""
    for dtype in (*_dtypes(t), DType(int, 32)):
        a, b = _random(t, (3,), dtype), _random(t, (4,), dtype)
        if dtype.kind is int:
            a, b = np.round(a * 3), np.round(b * 3)
        t.check(t.b.outer(t.tensor(a, dtype), t.tensor(b, dtype)), np.outer(a, b), f"outer({dtype})", dtype=dtype, scale=10)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.outer(t.tensor(np.ones((2, 2)), "float32"), t.tensor(np.ones(2), "float32")), "outer((2, 2), (2,))", "outer")


@case("cross")
def _cross(t: Trial) -> None:
    """Cross products along the last and another negative axis, with broadcasting; integers stay integers."""
    for dtype in (F32, C64, DType(int, 64)):
        a, b = _random(t, (2, 3), dtype), _random(t, (4, 1, 3), dtype)
        if dtype.kind is int:
            a, b = np.round(a * 3), np.round(b * 3)
        t.check(t.b.cross(t.tensor(a, dtype), t.tensor(b, dtype)), np.linalg.cross(a, b), f"cross({dtype} (2, 3), (4, 1, 3))", dtype=dtype, scale=10)
    a, b = _random(t, (3, 2), F32), _random(t, (3, 2), F32)
    t.check(t.b.cross(t.tensor(a, F32), t.tensor(b, F32), axis=-2), np.cross(a, b, axis=-2), "cross(axis=-2)", dtype=F32, scale=10)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.cross(t.tensor(np.ones(2), "float32"), t.tensor(np.ones(2), "float32")), "cross((2,), (2,))", "cross")
    _raises(t, bk.AxisError, lambda: t.b.cross(t.tensor(np.ones(3), "float32"), t.tensor(np.ones(3), "float32"), axis=0), "cross(axis=0)", "cross")


@case("diagonal")
def _diagonal(t: Trial) -> None:
    """Main and off diagonals of batched square and rectangular matrices, offsets past the edge (empty), any dtype."""
    for dtype in (F32, C64, DType(int, 32), DType(bool)):
        x = _random(t, (2, 3, 4), F32) > 0 if dtype.kind is bool else np.round(_random(t, (2, 3, 4), dtype) * 3)
        for offset in (0, 1, -1, 3, -2, 5, -4):
            t.check(t.b.diagonal(t.tensor(x, dtype), offset=offset), np.linalg.diagonal(x, offset=offset), f"diagonal({dtype} (2, 3, 4), offset={offset})", dtype=dtype)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.diagonal(t.tensor(np.ones(3), "float32")), "diagonal((3,))", "diagonal")


@case("trace")
def _trace(t: Trial) -> None:
    """Traces with offsets; int32 widens to int64 as sum does; dtype= casts first."""
    x = _random(t, (2, 3, 4), F32)
    for offset in (0, 1, -1, 4):
        t.check(t.b.trace(t.tensor(x, F32), offset=offset), np.linalg.trace(x, offset=offset), f"trace(float32, offset={offset})", dtype=F32, scale=10)
    xi = np.arange(9).reshape(3, 3)
    t.check(t.b.trace(t.tensor(xi, "int32")), 12, "trace(int32)", dtype=DType(int, 64))
    t.check(t.b.trace(t.tensor(xi, "int32"), dtype=F32), 12.0, "trace(int32, dtype=float32)", dtype=F32)


@case("vecdot")
def _vecdot(t: Trial) -> None:
    """sum(conj(x1) * x2) along a negative axis, with broadcasting; integers keep their width."""
    for dtype in (*_dtypes(t), DType(int, 32)):
        a, b = _random(t, (2, 1, 3), dtype), _random(t, (4, 3), dtype)
        if dtype.kind is int:
            a, b = np.round(a * 3), np.round(b * 3)
        t.check(t.b.vecdot(t.tensor(a, dtype), t.tensor(b, dtype)), np.linalg.vecdot(a, b), f"vecdot({dtype} (2, 1, 3), (4, 3))", dtype=dtype, scale=10)
    a, b = _random(t, (3, 2), F32), _random(t, (3, 2), F32)
    t.check(t.b.vecdot(t.tensor(a, F32), t.tensor(b, F32), axis=-2), np.linalg.vecdot(a, b, axis=-2), "vecdot(axis=-2)", dtype=F32, scale=10)
    _raises(t, bk.ShapeMismatchError, lambda: t.b.vecdot(t.tensor(np.ones(3), "float32"), t.tensor(np.ones(2), "float32")), "vecdot((3,), (2,))", "vecdot")


# ---------------------------------------------------------------- FFT


def _complex_of(dtype: DType) -> DType:
    return dtype if dtype.kind is complex else DType(complex, 2 * int(dtype.bits or 32))


_NORMS = ("backward", "ortho", "forward")


@case("fftn")
def _fftn(t: Trial) -> None:
    """Sizes (padding, trimming, -1), axes and the three norms; real inputs give complex values of their precision."""
    for dtype in _dtypes(t):
        x = _random(t, (2, 4, 6), dtype)
        for s, axes in ((None, None), ((3,), (-1,)), ((5, -1), (0, 2)), (None, (1,))) if dtype in (F32, C64) else ((None, None),):
            for norm in _NORMS if (s, axes) == ((5, -1), (0, 2)) or dtype not in (F32, C64) else ("backward",):
                got = t.b.fftn(t.tensor(x, dtype), s=s, axes=axes, norm=norm)
                t.check(got, np.fft.fftn(x, s=s if s is None else [x.shape[a] if n == -1 else n for a, n in zip(axes, s, strict=True)], axes=axes, norm=norm), f"fftn({dtype}, s={s}, axes={axes}, norm={norm!r})", dtype=_complex_of(dtype), scale=100)
    _raises(t, ValueError, lambda: t.b.fftn(t.tensor(np.ones(4), "complex64"), norm="none"), "fftn(norm='none')", "fftn")
    _raises(t, ValueError, lambda: t.b.fftn(t.tensor(np.ones(4), "complex64"), s=(0,), axes=(0,)), "fftn(s=(0,))", "fftn")
    t.check(t.b.fftn(t.tensor(np.zeros((0, 4)), "complex64"), axes=(1,)), np.zeros((0, 4)), "fftn(complex64 (0, 4), axes=(1,))", dtype=C64)
    t.check(t.b.rfftn(t.tensor(np.zeros((0, 4)), "float32"), axes=(1,)), np.zeros((0, 3)), "rfftn(float32 (0, 4), axes=(1,))", dtype=C64)


@case("ifftn")
def _ifftn(t: Trial) -> None:
    """Inverse transforms with sizes, axes and the three norms; ifftn(fftn(x)) == x."""
    for dtype in (C64, *([C128] if t.float64 else [])):
        x = _random(t, (2, 4, 6), dtype)
        for s, axes in ((None, None), ((3,), (-1,)), ((5, 7), (0, 2))) if dtype == C64 else (((5, 7), (0, 2)),):
            for norm in _NORMS if s == (5, 7) else ("backward",):
                t.check(t.b.ifftn(t.tensor(x, dtype), s=s, axes=axes, norm=norm), np.fft.ifftn(x, s=s, axes=axes, norm=norm), f"ifftn({dtype}, s={s}, axes={axes}, norm={norm!r})", dtype=dtype, scale=100)


@case("rfftn")
def _rfftn(t: Trial) -> None:
    """Real n-dimensional transforms: the last axis keeps n//2 + 1 frequencies; complex input raises ArgumentTypeError."""
    for dtype in (F32, *([F64] if t.float64 else [])):
        x = _random(t, (2, 4, 5), dtype)
        for s, axes in ((None, None), ((6,), (-1,)), ((3, 4), (0, 1))) if dtype == F32 else (((3, 4), (0, 1)),):
            for norm in _NORMS if s == (3, 4) else ("backward",):
                t.check(t.b.rfftn(t.tensor(x, dtype), s=s, axes=axes, norm=norm), np.fft.rfftn(x, s=s, axes=axes, norm=norm), f"rfftn({dtype}, s={s}, axes={axes}, norm={norm!r})", dtype=_complex_of(dtype), scale=100)
    _raises(t, bk.ArgumentTypeError, lambda: t.b.rfftn(t.tensor(np.ones(4), "complex64")), "rfftn(complex64)", "rfftn")


@case("irfftn")
def _irfftn(t: Trial) -> None:
    """Inverse real transforms: default output length 2 (m - 1), explicit even and odd sizes, the three norms."""
    for dtype in (C64, *([C128] if t.float64 else [])):
        x = _random(t, (3, 4, 5), dtype)
        for s, axes in ((None, None), ((7,), (-1,)), ((4, 8), (0, 2)), (None, (0, 1))) if dtype == C64 else (((4, 8), (0, 2)),):
            for norm in _NORMS if s == (4, 8) else ("backward",):
                t.check(t.b.irfftn(t.tensor(x, dtype), s=s, axes=axes, norm=norm), np.fft.irfftn(x, s=s, axes=axes, norm=norm), f"irfftn({dtype}, s={s}, axes={axes}, norm={norm!r})", dtype=_real(dtype), scale=100)


@case("rfft")
def _rfft(t: Trial) -> None:
    """1-D real transforms along an axis with n (padding and trimming) and the three norms; integers give complex64."""
    x = _random(t, (3, 6), F32)
    for n, axis in ((None, -1), (4, -1), (9, 0)):
        for norm in _NORMS:
            t.check(t.b.rfft(t.tensor(x, F32), n=n, axis=axis, norm=norm), np.fft.rfft(x, n=n, axis=axis, norm=norm), f"rfft(float32, n={n}, axis={axis}, norm={norm!r})", dtype=C64, scale=100)
    t.check(t.b.rfft(t.tensor([1, 2, 3, 4], "int32")), np.fft.rfft([1.0, 2, 3, 4]), "rfft(int32)", dtype=C64, scale=10)


@case("irfft")
def _irfft(t: Trial) -> None:
    """1-D inverse real transforms: default length 2 (m - 1), odd n, other axes, the three norms."""
    x = _random(t, (3, 4), C64)
    for n, axis in ((None, -1), (7, -1), (4, 0)):
        for norm in _NORMS:
            t.check(t.b.irfft(t.tensor(x, C64), n=n, axis=axis, norm=norm), np.fft.irfft(x, n=n, axis=axis, norm=norm), f"irfft(complex64, n={n}, axis={axis}, norm={norm!r})", dtype=F32, scale=100)


@case("hfft")
def _hfft(t: Trial) -> None:
    """Transforms of Hermitian-symmetric signals (real results) with n and the three norms."""
    x = _random(t, (2, 4), C64)
    for n in (None, 5, 8):
        for norm in _NORMS:
            t.check(t.b.hfft(t.tensor(x, C64), n=n, norm=norm), np.fft.hfft(x, n=n, norm=norm), f"hfft(complex64, n={n}, norm={norm!r})", dtype=F32, scale=100)


@case("ihfft")
def _ihfft(t: Trial) -> None:
    """Inverse Hermitian transforms of real signals with n and the three norms."""
    x = _random(t, (2, 6), F32)
    for n in (None, 5):
        for norm in _NORMS:
            t.check(t.b.ihfft(t.tensor(x, F32), n=n, norm=norm), np.fft.ihfft(x, n=n, norm=norm), f"ihfft(float32, n={n}, norm={norm!r})", dtype=C64, scale=100)


@case("fftfreq")
def _fftfreq(t: Trial) -> None:
    """Frequencies for even and odd n and a spacing; the default float, or dtype."""
    for n, d in ((8, 1.0), (5, 0.25), (1, 1.0)):
        t.check(t.b.fftfreq(n, d), np.fft.fftfreq(n, d), f"fftfreq({n}, {d})", dtype=F32)
    if t.float64:
        t.check(t.b.fftfreq(6, 0.1, dtype=F64), np.fft.fftfreq(6, 0.1), "fftfreq(dtype=float64)", dtype=F64)
        with bk.precision(64):
            t.check(t.b.fftfreq(4), np.fft.fftfreq(4), "fftfreq under precision 64", dtype=F64)
    _raises(t, ValueError, lambda: t.b.fftfreq(0), "fftfreq(0)", "fftfreq")


@case("rfftfreq")
def _rfftfreq(t: Trial) -> None:
    """Non-negative frequencies n//2 + 1 for even and odd n."""
    for n, d in ((8, 1.0), (5, 0.25), (1, 2.0)):
        t.check(t.b.rfftfreq(n, d), np.fft.rfftfreq(n, d), f"rfftfreq({n}, {d})", dtype=F32)


@case("fftshift")
def _fftshift(t: Trial) -> None:
    """Shifts over all axes, one axis and a tuple, for even and odd lengths; keeps the dtype."""
    x = np.arange(30).reshape(5, 6)
    for axes in (None, 0, -1, (0, 1)):
        t.check(t.b.fftshift(t.tensor(x, "int32"), axes=axes), np.fft.fftshift(x, axes=axes), f"fftshift((5, 6), axes={axes})", dtype=DType(int, 32))
    t.check(t.b.fftshift(t.tensor(np.fft.fftfreq(7), "float32")), np.fft.fftshift(np.fft.fftfreq(7)), "fftshift(fftfreq(7))", dtype=F32)
    t.check(t.b.fftshift(t.tensor(x, "int32"), axes=()), x, "fftshift(axes=()) shifts nothing", dtype=DType(int, 32))
    t.check(t.b.fftshift(t.tensor(np.float32(3.0))), 3.0, "fftshift(0-d)", dtype=F32)
    t.check(t.b.ifftshift(t.tensor(np.float32(3.0))), 3.0, "ifftshift(0-d)", dtype=F32)


@case("ifftshift")
def _ifftshift(t: Trial) -> None:
    """The inverse shift (differs from fftshift for odd lengths); ifftshift(fftshift(x)) == x."""
    x = np.arange(30).reshape(5, 6)
    for axes in (None, 0, (0, 1)):
        t.check(t.b.ifftshift(t.tensor(x, "int32"), axes=axes), np.fft.ifftshift(x, axes=axes), f"ifftshift((5, 6), axes={axes})", dtype=DType(int, 32))


# ---------------------------------------------------------------- every dtype against the spec


def _hermitian(dtype: DType) -> np.ndarray:
    """(2, 3, 3) Hermitian, diagonally dominant (so positive definite and invertible) matrices, exactly
    representable in every dtype; bool: identity matrices."""
    if dtype.kind is bool:
        return np.broadcast_to(np.eye(3, dtype=bool), (2, 3, 3)).copy()
    rng = np.random.default_rng(7)
    a = rng.integers(0 if not dtype.signed or dtype.kind is bool else -1, 2, size=(2, 3, 3)).astype(np.float64)
    if dtype.kind is complex:
        a = a + 0.5j * rng.integers(-1, 2, size=(2, 3, 3))
    return (a + _conj_t(a) + 8 * np.eye(3)).astype(bk.to_numpy_dtype(dtype))


def _reference_float(x: Any) -> Any:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64) if isinstance(x, np.ndarray) else x


_EVERY_DTYPE: dict[str, tuple[Callable[[np.ndarray], tuple[Any, ...]], Callable[..., Any] | None]] = {
    "cholesky": (lambda x: (x,), np.linalg.cholesky),
    "qr": (lambda x: (x,), None),
    "eigh": (lambda x: (x,), None),
    "eigvalsh": (lambda x: (x,), np.linalg.eigvalsh),
    "svdvals": (lambda x: (x,), np.linalg.svdvals),
    "inv": (lambda x: (x,), np.linalg.inv),
    "solve": (lambda x: (x, x[0, 0]), np.linalg.solve),
    "det": (lambda x: (x,), np.linalg.det),
    "slogdet": (lambda x: (x,), lambda x: tuple(np.linalg.slogdet(x))),
    "pinv": (lambda x: (x,), lambda x: np.linalg.pinv(x, rtol=None)),
    "matrix_rank": (lambda x: (x,), np.linalg.matrix_rank),
    "matrix_power": (lambda x: (x, 2), np.linalg.matrix_power),
    "vector_norm": (lambda x: (x,), np.linalg.vector_norm),
    "matrix_norm": (lambda x: (x,), np.linalg.matrix_norm),
    "outer": (lambda x: (x[0, 0], x[1, 1]), np.outer),
    "cross": (lambda x: (x, x[1]), np.cross),
    "diagonal": (lambda x: (x,), np.linalg.diagonal),
    "trace": (lambda x: (x,), np.linalg.trace),
    "vecdot": (lambda x: (x, x[1]), np.linalg.vecdot),
    "fftn": (lambda x: (x,), np.fft.fftn),
    "ifftn": (lambda x: (x,), np.fft.ifftn),
    "irfftn": (lambda x: (x,), np.fft.irfftn),
    "fftshift": (lambda x: (x,), np.fft.fftshift),
    "ifftshift": (lambda x: (x,), np.fft.ifftshift),
}


_SWEEP = (DType(bool), DType(int, 8, signed=False), DType(int, 32), DType(float, 16), DType(float, 16, brain=True), F32, F64, C64)
"""One dtype of each kind and width class (each new dtype compiles anew on JAX)."""


def _every_dtype(op: str) -> None:
    arguments, reference = _EVERY_DTYPE[op]

    @case(op, name="every-dtype")
    def run(t: Trial) -> None:
        from ._edges import available

        for dtype in available(t, _SWEEP):
            args = arguments(_hermitian(dtype))
            what = f"{op}({', '.join(f'{a.dtype} {a.shape}' if isinstance(a, np.ndarray) else repr(a) for a in args)})"
            spec = bk.op_spec(op).infer(*[bk.ShapeDtype(a.shape, bk.from_numpy_dtype(a.dtype)) if isinstance(a, np.ndarray) else a for a in args])
            result = getattr(t.b, op)(*[t.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
            results = result if isinstance(result, tuple) else (result,)
            specs = spec if isinstance(spec, tuple) else (spec,)
            expected = None if reference is None else reference(*[_reference_float(a) for a in args])
            expected = expected if isinstance(expected, tuple) or expected is None else (expected,)
            for i, (value, template) in enumerate(zip(results, specs, strict=True)):
                got = _factor(t, value, tuple(template.shape), template.dtype, f"{what}[{i}] as its spec says")
                if expected is None or (op == "matrix_power" and template.dtype.kind is int and (template.dtype.bits or 64) < 32):
                    continue
                want = np.asarray(expected[i])
                if template.dtype.kind in (bool, int):
                    want = want.astype(bk.to_numpy_dtype(template.dtype))
                t.compare(got, want, f"{what}[{i}]", template.dtype, scale=100)


for _op in _EVERY_DTYPE:
    _every_dtype(_op)
