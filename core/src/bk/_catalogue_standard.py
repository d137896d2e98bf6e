"""Array API standard operations of the catalogue: creation, elementwise, shape and data, dtype queries.

A mixin of `Backend`: every method is a catalogue feature (see `_features.py`). Most are generic
defaults built only from other catalogue operations, so every backend (bk-lazy, bk-dask and
third-party ones included) gets them; plugins override them with native kernels where the
framework is faster or more accurate (`log1p`, `expm1`, `hypot`, ...). `signbit` and `nextafter`
need the bits of a float, which no catalogue operation exposes: they are `@optional`.

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
from ._axes import normalize_axes, normalize_axis
from ._axes import shape_argument as _shape_arg
from ._catalogue_dtypes import DTypeQueriesMixin, is_python_number
from ._dtype import DType, to_numpy_dtype
from ._errors import ArgumentTypeError, ShapeMismatchError, check_tensor_argument
from ._explain import check_dtypes
from ._features import generic, optional
from ._rules.indices import index_needs_cast
from ._rules.reductions import accumulation_type
from ._rules.weak import check_python_ints

__all__ = ["StandardOpsMixin", "accumulation_type"]

Tensor = Any

_BOOL: Final = DType(bool)
_INT64: Final = DType(int, 64)


def _broadcast_two(a: tuple[Any, ...], b: tuple[Any, ...], op: str) -> tuple[Any, ...]:
    result = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == 1 or x == y:
            result.append(y)
        elif y == 1:
            result.append(x)
        elif x is None or y is None:
            result.append(x if y is None else y)
        else:
            raise ShapeMismatchError(f"{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast (sizes {x} and {y})")
    return tuple(reversed(result))


class StandardOpsMixin(DTypeQueriesMixin):
    """The Array API standard's creation, elementwise, shape/data and dtype-query operations."""

    # `self` is a `Backend`: the defaults call its catalogue operations.

    # ------------------------------------------------------------ helpers

    def _std_tensor(self: Any, x: Tensor, op: str, name: str = "x") -> Tensor:
        """`x` as a native tensor: native tensors as they are (keeping their dtype under a precision,
        as the shape operations do), Python numbers and lists through `as_tensor`."""
        check_tensor_argument(x, op, name)
        return x if self.is_tensor(x, only_native=True) else self.as_tensor(x)

    def _dtype_param(self: Any, dtype: Any, op: str) -> DType | None:
        """A `dtype` argument as a `DType` (names and NumPy dtypes too, as `DType.as_dtype`); `None` stays."""
        if dtype is None or isinstance(dtype, DType):
            return dtype
        try:
            return DType.as_dtype(dtype)
        except (TypeError, ValueError) as error:
            raise ArgumentTypeError(f"{op}: dtype must be a bk.DType, got {dtype!r} ({error})") from None

    def _inexact_operand(self: Any, x: Tensor, op: str, complex_ok: bool = True) -> Tensor:
        """`x` as floats of the current precision (bools and ints the default float); complex kept or refused."""
        x = self._std_tensor(x, op)
        kind = self.dtype(x).kind
        if kind is complex:
            if not complex_ok:
                check_dtypes(self, op, x)  # the spec's error
            return self.to_complex(x)
        if kind in (bool, int, float):
            return self.to_float(x)
        raise ArgumentTypeError(f"{op}: takes numbers, not {self.dtype(x)} values")

    def _inexact_pair(self: Any, x1: Tensor, x2: Tensor, op: str) -> tuple[Tensor, Tensor]:
        """Two real operands cast to their common float type; Python numbers are weak (NEP 50)."""
        check_tensor_argument(x1, op, "x1")
        check_tensor_argument(x2, op, "x2")
        x1, x2 = self.auto_cast(x1, x2, bool_to_int=True, int_to_float=True)
        if self.dtype(x1).kind is not float:
            check_dtypes(self, op, x1, x2)  # the spec's error
        return x1, x2

    def _real_or_int(self: Any, x: Tensor, op: str) -> Tensor:
        x = self._std_tensor(x, op)
        if self.dtype(x).kind is complex:
            check_dtypes(self, op, x)  # the spec's error
        return x

    def _rank_at_least(self: Any, x: Tensor, rank: int, op: str, what: str) -> tuple[Any, ...]:
        shape = tuple(self.staticshape(x))
        if len(shape) < rank:
            raise ShapeMismatchError(f"{op}: needs a tensor of rank {rank} or more ({what}), got shape {shape}")
        return shape

    def _slice_axis(self: Any, x: Tensor, axis: int, ndim: int, start: int | None, stop: int | None) -> Tensor:
        return self.multi_slice(x, tuple(slice(start, stop) if i == axis else slice(None) for i in range(ndim)))

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
        dtype = self._dtype_param(dtype, "eye")
        if n_rows < 0 or n_cols < 0:
            raise ValueError(f"eye: sizes must be 0 or more, got n_rows={n_rows}, n_cols={n_cols}")
        rows = self.expand_dims(self.range(n_rows, dtype=_INT64), -1)
        cols = self.expand_dims(self.range(n_cols, dtype=_INT64), 0)
        return self.cast(self.equal(self.sub(cols, rows), k), dtype or self.float_type)

    def _fill(self: Any, fill_value: Any, dtype: DType | None, op: str) -> Tensor:
        """`fill_value` as a 0-d tensor of `dtype` (by default the type `as_tensor` gives it)."""
        if not isinstance(fill_value, numbers.Number) or isinstance(fill_value, (str, bytes)):
            raise ArgumentTypeError(f"{op}: fill_value must be a bool, int, float or complex number, got {type(fill_value).__name__} {fill_value!r}")
        inexact = dtype is not None and (
            (dtype.kind is float and isinstance(fill_value, float)) or (dtype.kind is complex and isinstance(fill_value, (float, complex)))
        )
        if dtype is not None and inexact and dtype.precision != 32:
            try:  # converted once, at the dtype: a float filling float64 is not rounded through the default float32
                return self.cast(self.as_tensor(np.asarray(fill_value, to_numpy_dtype(dtype))), dtype)
            except TypeError:  # a dtype NumPy has not (bfloat16 without ml_dtypes): rounded as as_tensor does
                pass
        value = self.as_tensor(fill_value)
        if dtype is None:
            return value
        if isinstance(fill_value, int) and not isinstance(fill_value, bool) and dtype.kind is int:
            check_python_ints(dtype, [fill_value], op)  # OverflowError, as NumPy 2
        return self.cast(value, dtype)

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
        value = self._fill(fill_value, self._dtype_param(dtype, "full"), "full")
        return self.cast(self.where(self.ones(shape, _BOOL), value, value), self.dtype(value))  # where applies a set precision

    @generic("as_tensor", "cast", "dtype", "ones_like", "where")
    def full_like(self: Any, x: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
        """A tensor of the shape of `x` filled with `fill_value`, of `dtype` (by default that of `x`).

        Raises:
            ArgumentTypeError: for a fill value that is not a number.
            OverflowError: for a Python int outside the range of an integer dtype.
        """
        x = self._std_tensor(x, "full_like")
        value = self._fill(fill_value, self._dtype_param(dtype, "full_like") or self.dtype(x), "full_like")
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
        return self.zeros(_shape_arg(shape, "empty"), self._dtype_param(dtype, "empty") or self.float_type)

    @generic("zeros_like", "cast")
    def empty_like(self: Any, x: Tensor, dtype: DType | None = None) -> Tensor:
        """A tensor of the shape of `x` with unspecified values (this default gives zeros), of `dtype`
        (by default that of `x`)."""
        zeros = self.zeros_like(self._std_tensor(x, "empty_like"))
        return zeros if dtype is None else self.cast(zeros, self._dtype_param(dtype, "empty_like"))

    def _triangle(self: Any, x: Tensor, k: int, op: str) -> Tensor:
        x = self._std_tensor(x, op)
        shape = self._rank_at_least(x, 2, op, "matrices in the last two axes")
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
        return self._triangle(x, k, "tril")

    @generic("staticshape", "dtype", "cast", "range", "expand_dims", "sub", "greater_or_equal", "where", "zeros_like")
    def triu(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """The upper triangle of the matrices in the last two axes of `x`: elements below the `k`-th
        diagonal are zero.

        Raises:
            ShapeMismatchError: for a tensor of rank below 2.
        """
        return self._triangle(x, k, "triu")

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
        x = self._std_tensor(x, "diag")
        shape = self._rank_at_least(x, 1, "diag", "vectors in the last axis")
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
        x1, x2 = self._inexact_pair(x1, x2, "hypot")
        a, b = self.abs(x1), self.abs(x2)
        big, small = self.maximum(a, b), self.minimum(a, b)
        ratio = self.divide_no_nan(small, big)
        result = self.mul(big, self.sqrt(self.add(self.mul(ratio, ratio), 1)))
        return self.where(self.or_(self.isinf(a), self.isinf(b)), math.inf, result)

    @generic("as_tensor", "dtype", "to_float", "to_complex", "add", "sub", "mul", "divide_no_nan", "log", "equal", "where")
    def log1p(self: Any, x: Tensor) -> Tensor:
        """`log(1 + x)`, accurate for `x` near 0; bools and ints give the default float."""
        x = self._inexact_operand(x, "log1p")
        u = self.add(x, 1)
        # Goldberg: log(u) * x / (u - 1) cancels the rounding of 1 + x
        corrected = self.mul(self.log(u), self.divide_no_nan(x, self.sub(u, 1)))
        return self.where(self.equal(u, 1), x, self.where(self.equal(u, math.inf), u, corrected))

    @generic("as_tensor", "dtype", "to_float", "to_complex", "exp", "sub", "mul", "divide_no_nan", "log", "equal", "isinf", "where")
    def expm1(self: Any, x: Tensor) -> Tensor:
        """`exp(x) - 1`, accurate for `x` near 0; bools and ints give the default float."""
        x = self._inexact_operand(x, "expm1")
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
        x1, x2 = self._inexact_pair(x1, x2, "logaddexp")
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
        x1, x2 = self._inexact_pair(x1, x2, "copysign")
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
        return self.div(1, self._inexact_operand(x, "reciprocal"))

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
        x = self._real_or_int(x, "trunc")
        if self.dtype(x).kind is not float:
            return x
        return self.where(self.greater_than(0, x), self.ceil(x), self.floor(x))

    @generic("as_tensor", "dtype", "cast", "mul")
    def square(self: Any, x: Tensor) -> Tensor:
        """`x * x` in the type of `x` (integers wrap); bools give int8, as NumPy."""
        x = self._std_tensor(x, "square")
        if self.dtype(x).kind is bool:
            x = self.cast(x, DType(int, 8))
        return self.mul(x, x)

    @generic("as_tensor", "dtype", "mul", "sub")
    def negative(self: Any, x: Tensor) -> Tensor:
        """`-x` in the type of `x` (unsigned integers wrap, `-0.0` for `0.0`).

        Raises:
            ArgumentTypeError: for bools, as NumPy (use `invert`).
        """
        x = self._std_tensor(x, "negative")
        kind = self.dtype(x).kind
        if kind is bool:
            raise ArgumentTypeError("negative: bools have no negative; use invert() for logical not")
        return self.mul(x, -1) if kind is float else self.sub(0, x)  # 0 - x: complex infinities keep a zero part

    # ------------------------------------------------------------ shape and data

    @generic("staticshape", "transpose")
    def moveaxis(self: Any, x: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
        """`x` with the axes `source` moved to the positions `destination`; the others keep their order.

        Raises:
            AxisError: for an axis out of range or named twice.
            ValueError: when `source` and `destination` have different lengths.
        """
        x = self._std_tensor(x, "moveaxis")
        ndim = len(self.staticshape(x))
        src = self._axis_list(source, ndim, "moveaxis")
        dst = self._axis_list(destination, ndim, "moveaxis")
        if len(src) != len(dst):
            raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} must name as many axes")
        order = [n for n in range(ndim) if n not in src]
        for d, s in sorted(zip(dst, src, strict=True)):
            order.insert(d, s)
        return x if order == list(range(ndim)) else self.transpose(x, order)

    def _axis_list(self: Any, axes: Any, ndim: int, op: str) -> list[int]:
        listed = list(axes) if isinstance(axes, Sequence) and not isinstance(axes, (str, bytes)) else [axes]
        result = [normalize_axis(a, ndim, op) for a in listed]
        if len(set(result)) != len(result):
            from ._errors import AxisError

            raise AxisError(f"{op}: {axes!r} names the same axis twice")
        return result

    @generic("staticshape", "dtype", "cast", "reshape", "multi_slice", "concat")
    def roll(self: Any, x: Tensor, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Tensor:
        """`x` shifted by `shift` places along `axis` (elements that leave one end come back at the other).

        Args:
            x: The tensor.
            shift: An int, or one int per axis; negative shifts roll toward the start.
            axis: An int or a tuple of ints (an int `shift` applies to each); `None` rolls the
                flattened tensor and restores the shape.

        Raises:
            AxisError: for an axis out of range.
            ValueError: when `shift` and `axis` are sequences of different lengths.
        """
        x = self._std_tensor(x, "roll")
        shape = tuple(self.staticshape(x))
        shifts = list(shift) if isinstance(shift, Sequence) else [shift]
        shifts = [_int_arg(s, "roll", "shift") for s in shifts]
        if axis is None:
            return self.reshape(self.roll(self.reshape(x, (-1,)), sum(shifts), 0), shape)
        axes = [normalize_axis(a, len(shape), "roll") for a in (axis if isinstance(axis, Sequence) else [axis])]
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        if len(shifts) != len(axes):
            raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same length")
        dtype = self.dtype(x)
        total = dict.fromkeys(axes, 0)
        for a, s in zip(axes, shifts, strict=True):
            total[a] += s
        for a, s in total.items():
            size = shape[a]
            if size is None:
                raise ValueError(f"roll: the size of axis {a} must be known, got shape {shape}")
            cut = size - s % size if size else size
            if 0 < cut < size:
                x = self.concat([self._slice_axis(x, a, len(shape), cut, None), self._slice_axis(x, a, len(shape), 0, cut)], a)
        return self.cast(x, dtype)  # concat applies a set precision

    @generic("staticshape", "transpose")
    def matrix_transpose(self: Any, x: Tensor) -> Tensor:
        """The matrices in the last two axes of `x` transposed (no complex conjugate).

        Raises:
            ShapeMismatchError: for a tensor of rank below 2.
        """
        x = self._std_tensor(x, "matrix_transpose")
        ndim = len(self._rank_at_least(x, 2, "matrix_transpose", "matrices in the last two axes"))
        return self.transpose(x, [*range(ndim - 2), ndim - 1, ndim - 2])

    @generic("staticshape", "reshape")
    def squeeze(self: Any, x: Tensor, axis: int | Sequence[int] | None = None) -> Tensor:
        """`x` without the size-1 axes `axis` (every size-1 axis for `None`, as NumPy).

        Raises:
            AxisError: for an axis out of range or named twice.
            ShapeMismatchError: for an axis whose size is not 1.
        """
        x = self._std_tensor(x, "squeeze")
        shape = tuple(self.staticshape(x))
        axes = normalize_axes(axis, len(shape), "squeeze")
        if axes is None:
            axes = tuple(i for i, n in enumerate(shape) if n == 1)
        for a in axes:
            if shape[a] != 1:
                raise ShapeMismatchError(f"squeeze: axis {a} has size {shape[a]}, not 1, in shape {shape}")
        if not axes:
            return x
        kept = [-1 if n is None else n for i, n in enumerate(shape) if i not in axes]
        return self.reshape(x, tuple(kept))

    @generic()
    def broadcast_shapes(self: Any, *shapes: Sequence[int]) -> tuple[int, ...]:
        """The shape that tensors of `shapes` broadcast to (a pure shape function; no tensor is made).

        Raises:
            ShapeMismatchError: for shapes that do not broadcast.
        """
        result: tuple[Any, ...] = ()
        for shape in shapes:
            result = _broadcast_two(result, _shape_arg(shape, "broadcast_shapes"), "broadcast_shapes")
        return result

    @generic("staticshape", "reshape", "tile")
    def broadcast_to(self: Any, x: Tensor, shape: Sequence[int]) -> Tensor:
        """`x` repeated along its size-1 (and new leading) axes to `shape`.

        Raises:
            ShapeMismatchError: when `x` does not broadcast to `shape`.
        """
        x = self._std_tensor(x, "broadcast_to")
        target = _shape_arg(shape, "broadcast_to")
        current = tuple(self.staticshape(x))
        if len(current) > len(target) or _broadcast_two(current, target, "broadcast_to") != target:
            raise ShapeMismatchError(f"broadcast_to: a tensor of shape {current} does not broadcast to {target}")
        padded = (1,) * (len(target) - len(current)) + current
        if padded != current:
            x = self.reshape(x, padded)
        multiples = [t if n == 1 else 1 for n, t in zip(padded, target, strict=True)]
        return x if all(m == 1 for m in multiples) else self.tile(x, multiples)

    @generic("staticshape", "broadcast_shapes", "broadcast_to")
    def broadcast_arrays(self: Any, *arrays: Tensor) -> tuple[Tensor, ...]:
        """The tensors broadcast to their common shape, each keeping its dtype.

        Raises:
            ShapeMismatchError: for shapes that do not broadcast.
        """
        tensors = [self._std_tensor(a, "broadcast_arrays") for a in arrays]
        shape = self.broadcast_shapes(*[tuple(self.staticshape(t)) for t in tensors])
        return tuple(self.broadcast_to(t, shape) for t in tensors)

    @generic("cast", "sum")
    def count_nonzero(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """The number (int64) of elements of `x` along `axis` that are not zero (NaN counts).

        Raises:
            AxisError: for an axis out of range or named twice.
        """
        x = self._std_tensor(x, "count_nonzero")
        normalize_axes(axis, len(self.staticshape(x)), "count_nonzero")
        return self.sum(self.cast(x, _BOOL), axis, keepdims=keepdims)

    def _cumulative_axis(self: Any, x: Tensor, axis: Any, op: str) -> int:
        ndim = len(self.staticshape(x))
        if axis is None:
            if ndim != 1:
                from ._errors import AxisError

                raise AxisError(f"{op}: axis=None needs a 1-D tensor; give the axis for a tensor of rank {ndim}")
            return 0
        return normalize_axis(axis, ndim, op)

    @generic("cumsum", "sum", "zeros_like", "concat")
    def cumulative_sum(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
        """Cumulative sums along `axis` (may be `None` for a 1-D tensor), as `cumsum`; with
        `include_initial` the result starts with a 0 (one element longer along `axis`).

        Bools and narrow ints widen to 64 bits, as `sum`.

        Raises:
            AxisError: for an axis out of range, or `None` for a tensor that is not 1-D.
        """
        x = self._std_tensor(x, "cumulative_sum")
        axis = self._cumulative_axis(x, axis, "cumulative_sum")
        result = self.cumsum(x, axis)
        if include_initial:
            result = self.concat([self.zeros_like(self.sum(result, axis, keepdims=True)), result], axis)
        return result

    @generic("staticshape", "dtype", "cast", "to_float", "to_complex", "multi_slice", "concat", "ones_like", "mul", "sum")
    def cumulative_prod(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
        """Cumulative products along `axis` (may be `None` for a 1-D tensor); with `include_initial`
        the result starts with a 1.

        Bools and narrow ints widen to 64 bits (unsigned to uint64), as `prod`; integers wrap.

        Raises:
            AxisError: for an axis out of range, or `None` for a tensor that is not 1-D.
        """
        x = self._std_tensor(x, "cumulative_prod")
        axis = self._cumulative_axis(x, axis, "cumulative_prod")
        shape = tuple(self.staticshape(x))
        dtype = self.dtype(x)
        x = self.to_float(x) if dtype.kind is float else self.to_complex(x) if dtype.kind is complex else self.cast(x, accumulation_type(dtype))
        size = shape[axis]
        if size is None:
            raise ValueError(f"cumulative_prod: the size of axis {axis} must be known, got shape {shape}")
        step = 1
        while step < size:  # Hillis-Steele scan: log2(size) products of shifted copies
            lead = self.ones_like(self._slice_axis(x, axis, len(shape), 0, step))
            x = self.mul(x, self.concat([lead, self._slice_axis(x, axis, len(shape), 0, size - step)], axis))
            step *= 2
        if include_initial:
            x = self.concat([self.ones_like(self.sum(x, axis, keepdims=True)), x], axis)
        return x

    @generic("staticshape", "dtype", "multi_slice", "sub", "not_equal", "concat", "broadcast_to", "auto_cast")
    def diff(self: Any, x: Tensor, axis: int = -1, n: int = 1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
        """The `n`-th discrete difference `x[i + 1] - x[i]` along `axis`, as `numpy.diff`.

        Args:
            x: The tensor (rank 1 or more).
            axis: The axis.
            n: How many times to take differences; 0 returns `x`.
            prepend: Values put before `x` along `axis` first: a tensor of the shape of `x` except
                along `axis`, or a number or 0-d tensor (broadcast to one slice). Python numbers are weak.
            append: The same, after `x`.

        Returns:
            The differences in the (common) type of `x`; bools give `x[i + 1] != x[i]`, as NumPy.
            The size along `axis` shrinks by `n` (to 0 at least).

        Raises:
            AxisError: for an axis out of range (a 0-d tensor has none).
            ValueError: for a negative `n`.
        """
        x = self._std_tensor(x, "diff")
        shape = tuple(self.staticshape(x))
        axis = normalize_axis(axis, len(shape), "diff")
        n = _int_arg(n, "diff", "n")
        if n < 0:
            raise ValueError(f"diff: n must be 0 or more, got {n}")
        parts = [self._diff_edge(p, x, shape, axis) for p in (prepend, append)]
        if parts[0] is not None or parts[1] is not None:
            values = [p for p in (parts[0], x, parts[1]) if p is not None]
            values = self.auto_cast(*values)
            x = self.concat(values, axis)
        for _ in range(n):
            size = self.staticshape(x)[axis]
            later = self._slice_axis(x, axis, len(shape), 1 if size != 0 else 0, None)  # strict namespaces refuse a start past the end
            earlier = self._slice_axis(x, axis, len(shape), None, max(size - 1, 0) if size is not None else -1)
            x = self.not_equal(later, earlier) if self.dtype(x).kind is bool else self.sub(later, earlier)
        return x

    def _diff_edge(self: Any, edge: Any, x: Tensor, shape: tuple[Any, ...], axis: int) -> Any:
        if edge is None or is_python_number(edge):
            if is_python_number(edge):  # weak, as in every binary operation: broadcast a 0-d tensor of the type of x
                return self.broadcast_to(self.auto_cast(x, edge)[1], tuple(1 if i == axis else n for i, n in enumerate(shape)))
            return None
        edge = self._std_tensor(edge, "diff", "prepend or append")
        if not self.staticshape(edge):
            return self.broadcast_to(edge, tuple(1 if i == axis else n for i, n in enumerate(shape)))
        return edge

    @generic("as_tensor", "reshape", "expand_dims", "equal", "any", "invert")
    def isin(self: Any, x: Tensor, test_elements: Tensor, invert: bool = False) -> Tensor:
        """Whether each element of `x` equals an element of `test_elements` (any shape), as bools of the
        shape of `x`; NaN is in nothing. With `invert`, whether it equals none.
        """
        x = self._std_tensor(x, "isin")
        pool = self.reshape(self._std_tensor(test_elements, "isin", "test_elements"), (-1,))
        found = self.any(self.equal(self.expand_dims(x, -1), pool), -1)
        return self.invert(found) if invert else found

    @generic("auto_cast", "staticshape", "dtype", native=("__matmul__",))
    def matmul(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        """The matrix product, as `numpy.matmul` (the `@` operator): matrices in the last two axes,
        batch axes broadcast; a 1-D first (second) argument is a row (column) vector whose axis is
        dropped from the result.

        Raises:
            ShapeMismatchError: for a 0-d argument, inner sizes that differ, or batch shapes that do
                not broadcast.
            ArgumentTypeError: for bools (the standard's matmul takes numbers).
        """
        x1, x2 = self.auto_cast(self._std_tensor(x1, "matmul", "x1"), self._std_tensor(x2, "matmul", "x2"))
        if self.dtype(x1).kind is bool:
            raise ArgumentTypeError("matmul: takes numbers, not bools; cast them to an integer type first")
        self._matmul_shape(tuple(self.staticshape(x1)), tuple(self.staticshape(x2)))
        try:
            return x1 @ x2
        except Exception as error:  # the native type lacks the operator, or refuses the dtype
            self._operator_failed("matmul", error, x1)
            raise

    def _matmul_shape(self: Any, s1: tuple[Any, ...], s2: tuple[Any, ...]) -> tuple[Any, ...]:
        """The shape of `matmul` of tensors of shapes `s1` and `s2`; raises ShapeMismatchError."""
        if not s1 or not s2:
            raise ShapeMismatchError(f"matmul: needs tensors of rank 1 or more, got shapes {s1} and {s2}; use mul() for scalars")
        inner1, inner2 = s1[-1], s2[-2] if len(s2) > 1 else s2[0]
        if inner1 is not None and inner2 is not None and inner1 != inner2:
            raise ShapeMismatchError(f"matmul: the inner sizes of shapes {s1} and {s2} differ ({inner1} and {inner2})")
        batch = _broadcast_two(s1[:-2], s2[:-2], "matmul")
        return (*batch, *s1[-2:-1], *(s2[-1:] if len(s2) > 1 else ()))

    @generic("staticshape", "dtype", "moveaxis", "broadcast_to", "reshape", "batched_gather_1d")
    def take_along_axis(self: Any, x: Tensor, indices: Tensor, axis: int = -1) -> Tensor:
        """The elements of `x` at `indices` along `axis`, as `numpy.take_along_axis`.

        Args:
            x: The tensor.
            indices: Integer indices of the rank of `x`; their other axes broadcast with those of `x`.
                Negative indices count from the end.
            axis: The axis to pick along.

        Raises:
            AxisError: for an axis out of range (a 0-d tensor has none).
            ShapeMismatchError: when the ranks differ or the other axes do not broadcast.
            ArgumentTypeError: for indices that are not integers.
            IndexOutOfRangeError: for an index outside `[-n, n)`.
        """
        x, indices = self._std_tensor(x, "take_along_axis"), self._std_tensor(indices, "take_along_axis", "indices")
        shape, index_shape = tuple(self.staticshape(x)), tuple(self.staticshape(indices))
        axis = normalize_axis(axis, len(shape), "take_along_axis")
        if index_needs_cast(self.dtype(indices), math.prod(index_shape) if None not in index_shape else None, "take_along_axis"):
            indices = self.cast(indices, DType(int, 64))
        if len(index_shape) != len(shape):
            raise ShapeMismatchError(f"take_along_axis: indices of shape {index_shape} must have the rank of x, shape {shape}")
        x, indices = self.moveaxis(x, axis, -1), self.moveaxis(indices, axis, -1)
        batch = _broadcast_two(tuple(self.staticshape(x))[:-1], tuple(self.staticshape(indices))[:-1], "take_along_axis")
        size, count = shape[axis], index_shape[axis]
        x = self.broadcast_to(x, (*batch, size))
        indices = self.broadcast_to(indices, (*batch, count))
        flat = self.batched_gather_1d(self.reshape(x, (math.prod(batch), size)), self.reshape(indices, (math.prod(batch), count)))
        return self.moveaxis(self.reshape(flat, (*batch, count)), -1, axis)

    @generic("std", "mul")
    def var(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """Population variance over `axis` (the square of `std`), as floats; complex values give real variances."""
        deviation = self.std(x, axis, keepdims=keepdims)
        return self.mul(deviation, deviation)

    # ------------------------------------------------------------ NumPy and PyTorch extras

    @generic("staticshape", "reshape", "mul")
    def kron(self: Any, a: Tensor, b: Tensor) -> Tensor:
        """The Kronecker product, as `numpy.kron`: the lower rank is padded with leading size-1 axes,
        and axis i of the result has size `a.shape[i] * b.shape[i]`."""
        a, b = self._std_tensor(a, "kron", "a"), self._std_tensor(b, "kron", "b")
        sa, sb = tuple(self.staticshape(a)), tuple(self.staticshape(b))
        rank = max(len(sa), len(sb))
        sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
        if any(n is None for n in sa + sb):
            raise ValueError(f"kron: the shapes must be known, got {sa} and {sb}")
        wide_a = self.reshape(a, tuple(n for size in sa for n in (size, 1)))
        wide_b = self.reshape(b, tuple(n for size in sb for n in (1, size)))
        return self.reshape(self.mul(wide_a, wide_b), tuple(x * y for x, y in zip(sa, sb, strict=True)))

    @generic("auto_cast", "dtype", "staticshape", "sub", "abs", "mul", "add", "greater_or_equal", "equal", "isfinite", "isnan", "and_", "or_")
    def isclose(self: Any, a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
        """Where `|a - b| <= atol + rtol * |b|`, as `numpy.isclose`: bools of the broadcast shape.

        Infinities are close only to themselves; NaN is close to nothing, or to NaN with `equal_nan`.

        Raises:
            ShapeMismatchError: for shapes that do not broadcast.
        """
        check_tensor_argument(a, "isclose", "a")
        check_tensor_argument(b, "isclose", "b")
        a, b = self.auto_cast(a, b, bool_to_int=True, int_to_float=True)
        _broadcast_two(tuple(self.staticshape(a)), tuple(self.staticshape(b)), "isclose")  # ShapeMismatchError naming isclose
        finite = self.and_(self.isfinite(a), self.isfinite(b))
        near = self.greater_or_equal(self.add(self.mul(self.abs(b), rtol), atol), self.abs(self.sub(a, b)))
        close = self.or_(self.equal(a, b), self.and_(finite, near))
        return self.or_(close, self.and_(self.isnan(a), self.isnan(b))) if equal_nan else close

    @generic("isclose", "all")
    def allclose(self: Any, a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
        """Whether all of `isclose(a, b, ...)` holds, as a 0-d bool tensor (lazy and traced backends
        cannot give a Python bool without computing; `bool(...)` of the result does)."""
        return self.all(self.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))

    @generic("as_tensor", "dtype", "to_float", "staticshape", "max", "isfinite", "where", "sub", "exp", "sum", "log", "add", "reshape")
    def logsumexp(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """`log(sum(exp(x), axis))` without overflow, as `scipy.special.logsumexp`; `-inf` for no elements.

        Raises:
            ArgumentTypeError: for complex values.
            AxisError: for an axis out of range or named twice.
        """
        x = self._inexact_operand(x, "logsumexp", complex_ok=False)
        shape = tuple(self.staticshape(x))
        axes = normalize_axes(axis, len(shape), "logsumexp")
        reduced = tuple(range(len(shape))) if axes is None else axes
        if any(shape[a] == 0 for a in reduced):  # no elements: no maximum to shift by, and exp of nothing sums to 0
            return self.log(self.sum(self.exp(x), axis, keepdims=keepdims))
        top = self.max(x, axes, keepdims=True)
        shift = self.where(self.isfinite(top), top, 0)
        total = self.log(self.sum(self.exp(self.sub(x, shift)), axes, keepdims=keepdims))
        if not keepdims:
            shift = self.reshape(shift, tuple(-1 if n is None else n for i, n in enumerate(shape) if i not in reduced))
        return self.add(total, shift)
