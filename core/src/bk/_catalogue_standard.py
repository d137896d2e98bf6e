"""Array API standard operations of the catalogue: creation and elementwise operations (shape and data
are in `_catalogue_shapes.py`, dtype queries in `_catalogue_dtypes.py`).

Every public function is an operation of the catalogue, a method of `Backend` (`bk._operations`), a
feature (see `_features.py`). Most are generic defaults built only from other catalogue operations, so
every backend (bk-lazy, bk-dask and third-party ones included) gets them; plugins override them with
native kernels where the framework is faster or more accurate (`log1p`, `expm1`, `hypot`, ...).
`signbit` and `nextafter` need the bits of a float, which no catalogue operation exposes: they are
`@optional`.

Where the reference (`phiml.backend`) already has an operation under another name, the standard's
name is not added (`atan2` is `arctan2`, `multiply` is `mul`, `permute_dims` is `transpose`,
`take` is `gather`, `astype` is `cast`); `bk.array_namespace` maps those names. Rules at the edges
follow `docs/semantics.md`: NumPy 2 where the standard is silent.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from ._axes import int_argument as _int_arg
from ._axes import shape_argument as _shape_arg
from ._dtype import DType, to_numpy_dtype
from ._errors import ArgumentTypeError, ShapeMismatchError, check_tensor_argument
from ._explain import check_dtypes
from ._features import generic, optional
from ._rules.reductions import accumulation_type
from ._rules.weak import check_python_ints

__all__ = ["accumulation_type"]

Tensor = Any

_BOOL: Final = DType(bool)
_INT64: Final = DType(int, 64)


# `self` is the `Backend` (typed `Any` here): the defaults call its catalogue operations.

# ------------------------------------------------------------ helpers


def _std_tensor(backend: Any, x: Tensor, op: str, name: str = "x") -> Tensor:
    """`x` as a native tensor: native tensors as they are (keeping their dtype under a precision,
    as the shape operations do), Python numbers and lists through `as_tensor`."""
    check_tensor_argument(x, op, name)
    return x if backend.is_tensor(x, only_native=True) else backend.as_tensor(x)


def _dtype_param(dtype: Any, op: str) -> DType | None:
    """A `dtype` argument as a `DType` (names and NumPy dtypes too, as `DType.as_dtype`); `None` stays."""
    if dtype is None or isinstance(dtype, DType):
        return dtype
    try:
        return DType.as_dtype(dtype)
    except (TypeError, ValueError) as error:
        raise ArgumentTypeError(f"{op}: dtype must be a bk.DType, got {dtype!r} ({error})") from None


def _inexact_operand(backend: Any, x: Tensor, op: str, complex_ok: bool = True) -> Tensor:
    """`x` as floats of the current precision (bools and ints the default float); complex kept or refused."""
    x = _std_tensor(backend, x, op)
    kind = backend.dtype(x).kind
    if kind is complex:
        if not complex_ok:
            check_dtypes(backend, op, x)  # the spec's error
        return backend.to_complex(x)
    if kind in (bool, int, float):
        return backend.to_float(x)
    raise ArgumentTypeError(f"{op}: takes numbers, not {backend.dtype(x)} values")


def _inexact_pair(self: Any, x1: Tensor, x2: Tensor, op: str) -> tuple[Tensor, Tensor]:
    """Two real operands cast to their common float type; Python numbers are weak (NEP 50)."""
    check_tensor_argument(x1, op, "x1")
    check_tensor_argument(x2, op, "x2")
    x1, x2 = self.auto_cast(x1, x2, bool_to_int=True, int_to_float=True)
    if self.dtype(x1).kind is not float:
        check_dtypes(self, op, x1, x2)  # the spec's error
    return x1, x2


def _real_or_int(self: Any, x: Tensor, op: str) -> Tensor:
    x = _std_tensor(self, x, op)
    if self.dtype(x).kind is complex:
        check_dtypes(self, op, x)  # the spec's error
    return x


def _rank_at_least(self: Any, x: Tensor, rank: int, op: str, what: str) -> tuple[Any, ...]:
    shape = tuple(self.staticshape(x))
    if len(shape) < rank:
        raise ShapeMismatchError(f"{op}: needs a tensor of rank {rank} or more ({what}), got shape {shape}")
    return shape


# ------------------------------------------------------------ creation


@generic("range", "expand_dims", "sub", "equal", "cast")
def eye(self: Any, n_rows: int, n_cols: int | None = None, k: int = 0, dtype: DType | None = None) -> Tensor:
    """A `(n_rows, n_cols)` matrix with ones on the `k`-th diagonal and zeros elsewhere.

    Args:
        n_rows: Number of rows.
        n_cols: Number of columns; `n_rows` when `None`.
        k: The diagonal: 0 the main one, positive above it, negative below.
        dtype: The element type; the float type of the current precision by default.

    Raises:
        ArgumentTypeError: for sizes or `k` that are not ints.
        ValueError: for a negative size.
    """
    n_rows = _int_arg(n_rows, "eye", "n_rows")
    n_cols = n_rows if n_cols is None else _int_arg(n_cols, "eye", "n_cols")
    k = _int_arg(k, "eye", "k")
    dtype = _dtype_param(dtype, "eye")
    if n_rows < 0 or n_cols < 0:
        raise ValueError(f"eye: sizes must be 0 or more, got n_rows={n_rows}, n_cols={n_cols}")
    rows = self.expand_dims(self.range(n_rows, dtype=_INT64), -1)
    cols = self.expand_dims(self.range(n_cols, dtype=_INT64), 0)
    return self.cast(self.equal(self.sub(cols, rows), k), dtype or self.float_type)


def _fill(backend: Any, fill_value: Any, dtype: DType | None, op: str) -> Tensor:
    """`fill_value` as a 0-d tensor of `dtype` (by default the type `as_tensor` gives it)."""
    if not isinstance(fill_value, numbers.Number) or isinstance(fill_value, (str, bytes)):
        raise ArgumentTypeError(
            f"{op}: fill_value must be a bool, int, float or complex number, got {type(fill_value).__name__} {fill_value!r}"
        )
    inexact = dtype is not None and (
        (dtype.kind is float and isinstance(fill_value, float))
        or (dtype.kind is complex and isinstance(fill_value, (float, complex)))
    )
    if dtype is not None and inexact and dtype.precision != 32:
        try:  # converted once, at the dtype: a float filling float64 is not rounded through the default float32
            return backend.cast(backend.as_tensor(np.asarray(fill_value, to_numpy_dtype(dtype))), dtype)
        except TypeError:  # a dtype NumPy has not (bfloat16 without ml_dtypes): rounded as as_tensor does
            pass
    value = backend.as_tensor(fill_value)
    if dtype is None:
        return value
    if isinstance(fill_value, int) and not isinstance(fill_value, bool) and dtype.kind is int:
        check_python_ints(dtype, [fill_value], op)  # OverflowError, as NumPy 2
    return backend.cast(value, dtype)


@generic("as_tensor", "cast", "dtype", "ones", "where")
def full(self: Any, shape: Sequence[int], fill_value: Any, dtype: DType | None = None) -> Tensor:
    """A tensor of `shape` filled with `fill_value`.

    Args:
        shape: The shape (an int or a sequence of ints).
        fill_value: A Python (or NumPy) bool, int, float or complex number.
        dtype: The element type; by default the type `as_tensor(fill_value)` has (bool, int64,
            the float or complex type of the current precision).

    Raises:
        ArgumentTypeError: for a fill value that is not a number, or a shape that is not ints.
        ValueError: for a negative size.
        OverflowError: for a Python int outside the range of an integer `dtype`.
    """
    shape = _shape_arg(shape, "full")
    value = _fill(self, fill_value, _dtype_param(dtype, "full"), "full")
    return self.cast(self.where(self.ones(shape, _BOOL), value, value), self.dtype(value))  # where applies a set precision


@generic("as_tensor", "cast", "dtype", "ones_like", "where")
def full_like(self: Any, x: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
    """A tensor of the shape of `x` filled with `fill_value`, of `dtype` (by default that of `x`).

    Raises:
        ArgumentTypeError: for a fill value that is not a number.
        OverflowError: for a Python int outside the range of an integer dtype.
    """
    x = _std_tensor(self, x, "full_like")
    value = _fill(self, fill_value, _dtype_param(dtype, "full_like") or self.dtype(x), "full_like")
    return self.cast(self.where(self.cast(self.ones_like(x), _BOOL), value, value), self.dtype(value))


@generic("zeros")
def empty(self: Any, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
    """A tensor of `shape` whose values are unspecified (this default gives zeros).

    Args:
        shape: The shape (an int or a sequence of ints).
        dtype: The element type; the float type of the current precision by default.

    Raises:
        ValueError: for a negative size.
    """
    return self.zeros(_shape_arg(shape, "empty"), _dtype_param(dtype, "empty") or self.float_type)


@generic("zeros_like", "cast")
def empty_like(self: Any, x: Tensor, dtype: DType | None = None) -> Tensor:
    """A tensor of the shape of `x` with unspecified values (this default gives zeros), of `dtype`
    (by default that of `x`)."""
    zeros = self.zeros_like(_std_tensor(self, x, "empty_like"))
    return zeros if dtype is None else self.cast(zeros, _dtype_param(dtype, "empty_like"))


def _triangle(self: Any, x: Tensor, k: int, op: str) -> Tensor:
    x = _std_tensor(self, x, op)
    shape = _rank_at_least(self, x, 2, op, "matrices in the last two axes")
    k = _int_arg(k, op, "k")
    if shape[-2] is None or shape[-1] is None:
        raise ValueError(f"{op}: the matrix sizes must be known, got shape {shape}")
    rows = self.expand_dims(self.range(shape[-2], dtype=_INT64), -1)
    cols = self.expand_dims(self.range(shape[-1], dtype=_INT64), 0)
    offset = self.sub(cols, rows)
    keep = self.greater_or_equal(k, offset) if op == "tril" else self.greater_or_equal(offset, k)
    return self.cast(self.where(keep, x, self.zeros_like(x)), self.dtype(x))  # the dtype of x, also under a precision


@generic("staticshape", "dtype", "cast", "range", "expand_dims", "sub", "greater_or_equal", "where", "zeros_like")
def tril(self: Any, x: Tensor, k: int = 0) -> Tensor:
    """The lower triangle of the matrices in the last two axes of `x`: elements above the `k`-th
    diagonal are zero.

    Raises:
        ShapeMismatchError: for a tensor of rank below 2.
    """
    return _triangle(self, x, k, "tril")


@generic("staticshape", "dtype", "cast", "range", "expand_dims", "sub", "greater_or_equal", "where", "zeros_like")
def triu(self: Any, x: Tensor, k: int = 0) -> Tensor:
    """The upper triangle of the matrices in the last two axes of `x`: elements below the `k`-th
    diagonal are zero.

    Raises:
        ShapeMismatchError: for a tensor of rank below 2.
    """
    return _triangle(self, x, k, "triu")


@generic("staticshape", "dtype", "cast", "pad", "expand_dims", "range", "sub", "equal", "where", "zeros_like")
def diag(self: Any, x: Tensor, k: int = 0) -> Tensor:
    """Square matrices with the vectors in the last axis of `x` on their `k`-th diagonal.

    A vector of length n gives an `(n + |k|, n + |k|)` matrix, as `numpy.diag` of a 1-D array;
    a batch `(..., n)` gives `(..., n + |k|, n + |k|)` (`torch.diag_embed`). `get_diagonal`
    reads diagonals.

    Raises:
        ShapeMismatchError: for a 0-d tensor.
        ArgumentTypeError: for a `k` that is not an int.
    """
    x = _std_tensor(self, x, "diag")
    shape = _rank_at_least(self, x, 1, "diag", "vectors in the last axis")
    k = _int_arg(k, "diag", "k")
    if shape[-1] is None:
        raise ValueError(f"diag: the vector length must be known, got shape {shape}")
    size = shape[-1] + abs(k)
    widths = [(0, 0)] * (len(shape) - 1) + [(0, abs(k))]
    padded = self.pad(x, widths) if k else x  # the entries of row i (k >= 0) or column j (k < 0)
    values = self.expand_dims(padded, -1 if k >= 0 else -2)
    rows = self.expand_dims(self.range(size, dtype=_INT64), -1)
    cols = self.expand_dims(self.range(size, dtype=_INT64), 0)
    return self.cast(self.where(self.equal(self.sub(cols, rows), k), values, self.zeros_like(values)), self.dtype(x))


# ------------------------------------------------------------ elementwise


@generic("auto_cast", "dtype", "abs", "maximum", "minimum", "divide_no_nan", "mul", "add", "sqrt", "isinf", "or_", "where")
def hypot(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """`sqrt(x1**2 + x2**2)` without overflow or underflow in the squares; infinite where either
    argument is infinite (even if the other is NaN), as IEEE 754 and NumPy.

    Bools and ints give the default float; Python numbers are weak.

    Raises:
        ArgumentTypeError: for complex values.
        ShapeMismatchError: for shapes that do not broadcast.
    """
    x1, x2 = _inexact_pair(self, x1, x2, "hypot")
    a, b = self.abs(x1), self.abs(x2)
    big, small = self.maximum(a, b), self.minimum(a, b)
    ratio = self.divide_no_nan(small, big)
    result = self.mul(big, self.sqrt(self.add(self.mul(ratio, ratio), 1)))
    return self.where(self.or_(self.isinf(a), self.isinf(b)), math.inf, result)


@generic("as_tensor", "dtype", "to_float", "to_complex", "add", "sub", "mul", "divide_no_nan", "log", "equal", "where")
def log1p(self: Any, x: Tensor) -> Tensor:
    """`log(1 + x)`, accurate for `x` near 0; bools and ints give the default float."""
    x = _inexact_operand(self, x, "log1p")
    u = self.add(x, 1)
    # Goldberg: log(u) * x / (u - 1) cancels the rounding of 1 + x
    corrected = self.mul(self.log(u), self.divide_no_nan(x, self.sub(u, 1)))
    return self.where(self.equal(u, 1), x, self.where(self.equal(u, math.inf), u, corrected))


@generic("as_tensor", "dtype", "to_float", "to_complex", "exp", "sub", "mul", "divide_no_nan", "log", "equal", "isinf", "where")
def expm1(self: Any, x: Tensor) -> Tensor:
    """`exp(x) - 1`, accurate for `x` near 0; bools and ints give the default float."""
    x = _inexact_operand(self, x, "expm1")
    u = self.exp(x)
    um1 = self.sub(u, 1)
    # Kahan: (u - 1) * x / log(u) cancels the rounding of exp(x)
    corrected = self.mul(um1, self.divide_no_nan(x, self.log(u)))
    result = self.where(self.equal(um1, -1), um1, self.where(self.isinf(u), u, corrected))
    return self.where(self.equal(u, 1), x, result)


@generic("auto_cast", "dtype", "maximum", "sub", "abs", "mul", "exp", "log1p", "add", "equal", "where")
def logaddexp(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """`log(exp(x1) + exp(x2))` without overflow; NaN propagates, `logaddexp(-inf, -inf)` is `-inf`.

    Raises:
        ArgumentTypeError: for complex values.
        ShapeMismatchError: for shapes that do not broadcast.
    """
    x1, x2 = _inexact_pair(self, x1, x2, "logaddexp")
    top = self.maximum(x1, x2)
    spread = self.log1p(self.exp(self.mul(self.abs(self.sub(x1, x2)), -1)))
    return self.where(self.equal(x1, x2), self.add(x1, math.log(2.0)), self.add(top, spread))


@generic("auto_cast", "dtype", "signbit", "abs", "mul", "where")
def copysign(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """The magnitude of `x1` with the sign bit of `x2` (also of `-0.0` and of NaN).

    Raises:
        ArgumentTypeError: for complex values.
        ShapeMismatchError: for shapes that do not broadcast.
    """
    x1, x2 = _inexact_pair(self, x1, x2, "copysign")
    magnitude = self.abs(x1)
    negative = self.signbit(x2)
    return self.where(negative, self.mul(magnitude, -1), magnitude)


@optional
def nextafter(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """The next representable float after `x1` in the direction of `x2`, in the common float type.

    `x2` itself where `x1 == x2`, NaN where either is NaN. Bools and ints give the default float.

    Raises:
        ArgumentTypeError: for complex values.
        ShapeMismatchError: for shapes that do not broadcast.
    """
    raise NotImplementedError(f"{self.name} does not implement nextafter")


@generic("as_tensor", "dtype", "to_float", "div")
def reciprocal(self: Any, x: Tensor) -> Tensor:
    """`1 / x`; bools and ints give the default float."""
    return self.div(1, _inexact_operand(self, x, "reciprocal"))


@optional
def signbit(self: Any, x: Tensor) -> Tensor:
    """True where the sign bit of `x` is set: negative numbers, `-0.0`, `-inf` and NaN with the sign bit.

    Integers give `x < 0`, bools false everywhere (as NumPy).

    Raises:
        ArgumentTypeError: for complex values.
    """
    raise NotImplementedError(f"{self.name} does not implement signbit")


@generic("as_tensor", "dtype", "greater_than", "ceil", "floor", "where")
def trunc(self: Any, x: Tensor) -> Tensor:
    """Rounds toward zero; bools and ints stay as they are, floats keep their type.

    Raises:
        ArgumentTypeError: for complex values.
    """
    x = _real_or_int(self, x, "trunc")
    if self.dtype(x).kind is not float:
        return x
    return self.where(self.greater_than(0, x), self.ceil(x), self.floor(x))


@generic("as_tensor", "dtype", "cast", "mul")
def square(self: Any, x: Tensor) -> Tensor:
    """`x * x` in the type of `x` (integers wrap); bools give int8, as NumPy."""
    x = _std_tensor(self, x, "square")
    if self.dtype(x).kind is bool:
        x = self.cast(x, DType(int, 8))
    return self.mul(x, x)


@generic("as_tensor", "dtype", "mul", "sub")
def negative(self: Any, x: Tensor) -> Tensor:
    """`-x` in the type of `x` (unsigned integers wrap, `-0.0` for `0.0`).

    Raises:
        ArgumentTypeError: for bools, as NumPy (use `invert`).
    """
    x = _std_tensor(self, x, "negative")
    kind = self.dtype(x).kind
    if kind is bool:
        raise ArgumentTypeError("negative: bools have no negative; use invert() for logical not")
    return self.mul(x, -1) if kind is float else self.sub(0, x)  # 0 - x: complex infinities keep a zero part
