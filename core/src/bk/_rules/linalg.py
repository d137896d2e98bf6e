"""The rules of linear algebra and FFT every backend follows (docs/semantics.md, "Linear algebra and FFT"), as
functions for the specs, the generic defaults and the kernels (`bk.rules` exports them): a matrix operand's checks
and compute dtype, the result's dtype, the FFT's norms and sizes, the norms of empty matrices."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .._axes import normalize_axis
from .._dtype import DType
from .._errors import ShapeMismatchError, check_tensor_argument

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = [
    "FFT_NORMS", "check_empty_matrix_norm", "check_fft_norm", "check_vector_norm_ord", "compute_dtype", "fft_sizes", "matrix_operand",
    "real_dtype", "reduced_size", "result_of",
]  # fmt: skip

Tensor = Any

FFT_NORMS: Final = ("backward", "ortho", "forward")
_F32: Final = DType(float, 32)


def real_dtype(dtype: DType) -> DType:
    """The real dtype of the precision of `dtype` (complex64 gives float32)."""
    return DType(float, int(dtype.bits or 64) // 2) if dtype.kind is complex else dtype


def compute_dtype(backend: Backend, dtype: DType) -> tuple[DType, DType]:
    """`(compute, result)` dtypes of a floating-point operation on values of `dtype`.

    Integers and bools give the backend's float type; float16 and bfloat16 compute in float32
    (no framework decomposes half-precision matrices everywhere) and return their own type.
    """
    if dtype.kind in (bool, int):
        return backend.float_type, backend.float_type
    if dtype.kind is float and (dtype.bits or 32) < 32:
        return _F32, dtype
    return dtype, dtype


def matrix_operand(backend: Backend, x: Any, op: str, square: bool = False, name: str = "x") -> tuple[Tensor, DType]:
    """`x` as a tensor of its compute dtype, checked to be a (stack of) matrices, and the result dtype.

    Raises:
        bk.ArgumentTypeError: for `None` or a string.
        bk.ShapeMismatchError: for fewer than two axes, or a non-square matrix when `square`.
    """
    check_tensor_argument(x, op, name)
    x = backend.as_tensor(x)
    shape = tuple(backend.staticshape(x))
    if len(shape) < 2:
        raise ShapeMismatchError(f"{op}: {name} must be a matrix or a stack of matrices (at least 2 dimensions) but has shape {shape}")
    if square and shape[-1] is not None and shape[-2] is not None and shape[-1] != shape[-2]:
        raise ShapeMismatchError(f"{op}: {name} must hold square matrices but its last two dimensions are {shape[-2:]}")
    dtype = backend.dtype(x)
    compute, result = compute_dtype(backend, dtype)
    return (x if compute == dtype else backend.cast(x, compute)), result


def result_of(backend: Backend, value: Tensor, dtype: DType) -> Tensor:
    """`value` cast to `dtype` (the result dtype from `matrix_operand`) where it differs."""
    return value if backend.dtype(value) == dtype else backend.cast(value, dtype)


def check_fft_norm(norm: str, op: str) -> None:
    """Raises `ValueError` unless `norm` is 'backward', 'ortho' or 'forward'."""
    if norm not in FFT_NORMS:
        raise ValueError(f"{op}: norm must be 'backward', 'ortho' or 'forward' but got {norm!r}")


def fft_sizes(shape: Sequence[int | None], s: Sequence[int] | None, axes: Any, op: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`(axes, sizes)` of an n-dimensional transform, as the standard's `s` and `axes` arguments say.

    `axes=None` means every axis (or the last `len(s)` ones when `s` is given, as NumPy); a size of
    `-1` keeps the axis's length.

    Raises:
        bk.AxisError: for an axis out of range or named twice.
        ValueError: for `s` and `axes` of different lengths, or a size below 1.
    """
    ndim = len(shape)
    if axes is None:
        axes = tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim))
    elif isinstance(axes, int) or not isinstance(axes, Sequence):
        axes = (axes,)
    axes = tuple(normalize_axis(a, ndim, op) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: axes {axes} name the same axis twice")
    if s is None:
        sizes = tuple(shape[a] for a in axes)
    else:
        s = tuple(s)
        if len(s) != len(axes):
            raise ValueError(f"{op}: s {s} and axes {axes} must have the same length")
        sizes = tuple(shape[a] if n == -1 else n for a, n in zip(axes, s, strict=True))
    for n in sizes:
        if n is not None and (not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1):
            raise ValueError(f"{op}: every transform length must be a positive int but got {n!r}")
    return axes, tuple(int(n) for n in sizes)


def reduced_size(shape: Sequence[int | None], axes: tuple[int, ...] | None) -> int | None:
    """How many elements each reduction over `axes` (normalized; `None` for all) combines; `None` if unknown."""
    sizes = [shape[a] for a in axes] if axes is not None else list(shape)
    return None if None in sizes else math.prod(sizes)  # type: ignore[arg-type]


def check_vector_norm_ord(ord: Any) -> None:
    """Raises `ValueError` unless `ord` is a number, as `vector_norm` takes it (2, 1, inf, -inf, 0, p)."""
    if isinstance(ord, (str, bool)) or ord is None:
        raise ValueError(f"vector_norm: ord must be a number (2, 1, inf, -inf, 0, p) but got {ord!r}")


def check_empty_matrix_norm(ord: Any, shape: Sequence[int | None]) -> None:
    """For matrices with no elements: raises `ValueError` where NumPy's norm takes the minimum of
    nothing (-2 always, -1 without columns, -inf without rows); every other norm is 0."""
    m, n = shape[-2], shape[-1]
    if ord == -2 or (ord == -1 and n == 0) or (ord == -math.inf and m == 0):
        raise ValueError(f"matrix_norm: ord={ord} of {tuple(shape)} matrices is the minimum of no values, which has no identity")
