"""The linear-algebra and FFT functions of `bk.array_namespace` (`xp.linalg`, `xp.fft`), each a factory
`(backend, namespace) -> function`; named tuples of results come from `_namespace_common.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._axes import normalize_axes
from ._errors import ArgumentTypeError
from ._namespace_common import (
    _FLOAT32,
    Factory,
    QRResult,
    SVDResult,
    _placer,
    _shape_of,
    check_correction,
    refuse_keywords,
)

# ---------------------------------------------------------------- linear algebra


def _matmul_tensordot(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.tensordot

    def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(tensordot.__name__, keywords, b.name)
        if isinstance(axes, int):
            if axes < 0:
                raise ValueError(f"tensordot: axes must be non-negative, not {axes}")
            n1 = len(b.staticshape(x1))
            return kernel(x1, list(range(n1 - axes, n1)), x2, list(range(axes)))
        try:
            first, second = axes
            pair = list(first), list(second)
        except (TypeError, ValueError):  # not a pair of sequences: the spec would never see it
            raise ArgumentTypeError(f"tensordot: axes must be an int or a pair of sequences of axes, got {axes!r}") from None
        return kernel(x1, pair[0], x2, pair[1])

    return tensordot


def _diagonal(b: Any, ns: Any) -> Callable[..., Any]:
    def diagonal(x: Any, /, *, offset: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(diagonal.__name__, keywords, b.name)
        shape = _shape_of(b, x)
        if len(shape) < 2:
            raise ValueError(f"diagonal: a matrix or a stack of matrices is required, not a {len(shape)}-d array")
        stacked = b.reshape(x, (-1, shape[-2], shape[-1], 1))  # bk: (batch, rows, cols, channels)
        result = b.get_diagonal(stacked, offset)
        return b.reshape(result, (*shape[:-2], -1))

    return diagonal


def _matrix_rank(b: Any, ns: Any) -> Callable[..., Any]:
    def matrix_rank(x: Any, /, *, rtol: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_rank.__name__, keywords, b.name)
        if rtol is not None:
            raise NotImplementedError(
                f"matrix_rank: {b.name} computes the rank with the framework's default tolerance; rtol is not supported"
            )
        return b.matrix_rank_dense(x)

    return matrix_rank


def _svd(b: Any, ns: Any) -> Callable[..., Any]:
    def svd(x: Any, /, *, full_matrices: bool = True, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(svd.__name__, keywords, b.name)
        return SVDResult(*b.svd(x, full_matrices))

    return svd




def _named(op: str, result: Any) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def named(x: Any, /, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(named.__name__, keywords, b.name)
            return result(*kernel(x))

        return named

    return factory


def _cholesky(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.cholesky

    def cholesky(x: Any, /, *, upper: bool = False, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(cholesky.__name__, keywords, b.name)
        return kernel(x, upper)

    return cholesky


def _qr(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.qr

    def qr(x: Any, /, *, mode: str = "reduced", **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(qr.__name__, keywords, b.name)
        return QRResult(*kernel(x, mode))

    return qr


def _cross(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.cross

    def cross(x1: Any, x2: Any, /, *, axis: int = -1, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(cross.__name__, keywords, b.name)
        return kernel(x1, x2, axis)

    return cross


def _vecdot(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.vecdot

    def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(vecdot.__name__, keywords, b.name)
        return kernel(x1, x2, axis)

    return vecdot


def _diagonal_catalogue(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.diagonal

    def diagonal(x: Any, /, *, offset: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(diagonal.__name__, keywords, b.name)
        return kernel(x, offset)

    return diagonal


def _rtol(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def with_rtol(x: Any, /, *, rtol: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(with_rtol.__name__, keywords, b.name)
            return kernel(x, rtol)

        return with_rtol

    return factory


def _matrix_norm(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.matrix_norm

    def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro", **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_norm.__name__, keywords, b.name)
        return kernel(x, keepdims, ord)

    return matrix_norm


def _vector_norm(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.vector_norm

    def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(vector_norm.__name__, keywords, b.name)
        return kernel(x, axis, keepdims, ord)

    return vector_norm


def _trace(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.trace

    def trace(x: Any, /, *, offset: int = 0, dtype: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(trace.__name__, keywords, b.name)
        return kernel(x, offset, None if dtype is None else ns.as_dtype(dtype, "trace"))

    return trace


def _matrix_power(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.matrix_power

    def matrix_power(x: Any, n: int, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_power.__name__, keywords, b.name)
        return kernel(x, n)

    return matrix_power


def _var(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.var

    def var(x: Any, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(var.__name__, keywords, b.name)
        check_correction(correction, "var")
        result = kernel(x, axis, keepdims)
        return _corrected(b, result, x, axis, correction, "var") if correction else result

    return var


def _corrected(b: Any, result: Any, x: Any, axis: Any, correction: float, op: str) -> Any:
    """`result` (a population variance or standard deviation) with `correction` degrees of freedom."""
    shape = _shape_of(b, x)
    axes = normalize_axes(axis, len(shape), op)
    n = math.prod(shape[i] for i in (range(len(shape)) if axes is None else axes))
    scale = n / (n - correction) if n > correction else math.inf
    return b.mul(result, scale if op == "var" else math.sqrt(scale))


def _catalogue_cumulative(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def cumulative(
            x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False, **keywords: Any
        ) -> Any:
            if keywords:
                refuse_keywords(cumulative.__name__, keywords, b.name)
            if dtype is None:
                return kernel(x, axis, include_initial)
            target = ns.as_dtype(dtype, op)
            return b.cast(kernel(b.cast(x, target), axis, include_initial), target)

        return cumulative

    return factory


# ---------------------------------------------------------------- FFT


def _fft_1d(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def one_axis(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(one_axis.__name__, keywords, b.name)
            return kernel(x, None if n is None else (n,), (axis,), norm)

        return one_axis

    return factory


def _fft_nd(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def n_axes(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(n_axes.__name__, keywords, b.name)
            return kernel(x, s, axes, norm)

        return n_axes

    return factory


def _fft_real(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def real_1d(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(real_1d.__name__, keywords, b.name)
            return kernel(x, n, axis, norm)

        return real_1d

    return factory


def _fft_freq(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)
        place = _placer(b, ns)

        def freq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(freq.__name__, keywords, b.name)
            result = kernel(n, d, _FLOAT32 if dtype is None else ns.as_dtype(dtype, op))
            return result if device is None else place.new(result, device, op)

        return freq

    return factory


def _fft_shift(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def shift(x: Any, /, *, axes: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(shift.__name__, keywords, b.name)
            return kernel(x, axes)

        return shift

    return factory
