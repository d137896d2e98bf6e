"""Elementwise maths, operators and reductions of the Dask backend (a mixin of `DaskBackend`).

Elementwise operations run bk-numpy on every block (one task per chunk, chunks kept), so their
results follow bk's rules exactly. Reductions are `dask.array`'s own tree reductions.

The kernels that apply docs/semantics.md themselves declare so where they are defined
(`bk.rules.kernel(trusted=True, why=...)`; `_elementwise(..., trusted=True)`): the elementwise operations
but `pow`, `clip` and the conversions `to_*`, `where`, and the reductions but `argmax`, `argmin`, `cumsum`
and `quantile`. The others declare nothing: the core's plan is in front of them.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, Final

import dask.array as da
import numpy as np

from bk import Backend, check_tensor_argument, get_precision, normalize_axes, normalize_axis
from bk.rules import check_nonempty, kernel, numpy_accumulation_type, spec_verdict

from ._blocks import elementwise, probe, task
from ._blocks import kernel as block_kernel
from ._dtypes import as_dask, complex_dtype, float_dtype, keep_ints, to_floats

__all__ = ["MathMixin"]

Tensor = Any

_BLOCKWISE: Final = "bk-numpy's operation (its plan included) on every block, probed on empty blocks for its dtype and errors"
_REDUCTION: Final = "checks its operand and axes itself (_reduced) and widens sums by the accumulation rule, means in floats"


def _elementwise(name: str, doc: str, *, trusted: bool) -> Callable[..., Any]:
    """The kernel of `name`: bk-numpy's `name` on every block (`elementwise`), declared trusted (`_BLOCKWISE`) or not."""

    def operation(self: Any, *args: Tensor) -> Tensor:
        return elementwise(name, *args)

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = doc + " Lazy: bk-numpy on every block."
    # The catalogue's parameters, positional-only as `*args` takes them: `inspect.signature` (and
    # so the Array API suite's signature tests of `bk.array_namespace("dask")`) sees `add(a, b, /)`.
    catalogue = inspect.signature(getattr(Backend, name))
    positional = [p.replace(kind=inspect.Parameter.POSITIONAL_ONLY) for p in catalogue.parameters.values()]
    operation.__signature__ = catalogue.replace(parameters=positional)  # type: ignore[attr-defined]
    return kernel(trusted=True, why=_BLOCKWISE)(operation) if trusted else operation


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


class MathMixin:
    """Elementwise operations through bk-numpy on blocks; reductions through `dask.array`."""

    # ------------------------------------------------------------ operators and comparisons

    add = _elementwise("add", "`a + b` in the common type; booleans add as int32.", trusted=True)
    sub = _elementwise("sub", "`a - b` in the common type; booleans subtract as int32.", trusted=True)
    mul = _elementwise("mul", "`a * b` in the common type.", trusted=True)
    div = _elementwise("div", "`numerator / denominator`; integers divide into the float type of the precision.", trusted=True)
    pow = _elementwise("pow", "`base ** exp` in the common type.", trusted=False)
    mod = _elementwise("mod", "`dividend % divisor` with the sign of the divisor.", trusted=True)
    floordiv = _elementwise("floordiv", "`a // b`.", trusted=True)
    and_ = _elementwise("and_", "Logical or bitwise `a & b`.", trusted=True)
    or_ = _elementwise("or_", "Logical or bitwise `a | b`.", trusted=True)
    xor = _elementwise("xor", "Logical or bitwise `a ^ b`.", trusted=True)
    shift_bits_left = _elementwise("shift_bits_left", "`a << b`.", trusted=True)
    shift_bits_right = _elementwise("shift_bits_right", "`a >> b`.", trusted=True)
    invert = _elementwise("invert", "Logical not for booleans, bitwise not for integers.", trusted=True)
    equal = _elementwise("equal", "Elementwise `x == y`.", trusted=True)
    not_equal = _elementwise("not_equal", "Elementwise `x != y`.", trusted=True)
    greater_than = _elementwise("greater_than", "Elementwise `x > y`.", trusted=True)
    greater_or_equal = _elementwise("greater_or_equal", "Elementwise `x >= y`.", trusted=True)
    maximum = _elementwise("maximum", "Elementwise maximum; NaN propagates.", trusted=True)
    minimum = _elementwise("minimum", "Elementwise minimum; NaN propagates.", trusted=True)
    arctan2 = _elementwise("arctan2", "The angle of the point `(x, y)`.", trusted=True)
    divide_no_nan = _elementwise("divide_no_nan", "`x / y`, and 0 where `y` is 0.", trusted=True)
    clip = _elementwise("clip", "`x` limited to `[minimum, maximum]`.", trusted=False)

    @kernel(trusted=True, why=_BLOCKWISE)
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y` (lazy, chunked); without `x` and `y` the `(nnz, ndims)`
        indices of true elements, lazy with an unknown length (`None` in `staticshape`)."""
        if x is None and y is None:
            return da.argwhere(as_dask(condition))
        if x is None or y is None:  # the spec's error (dask itself would make an object array)
            raise spec_verdict(self, "where", (condition, x, y), {})  # type: ignore[misc]
        return elementwise("where", condition, x, y)

    # ------------------------------------------------------------ unary functions

    abs = _elementwise("abs", "Absolute value (magnitude for complex values).", trusted=True)
    sign = _elementwise("sign", "-1, 0 or 1 by the sign of `x`.", trusted=True)
    round = _elementwise("round", "Rounds to the nearest integer, halves to even.", trusted=True)
    ceil = _elementwise("ceil", "Smallest integer not below `x`.", trusted=True)
    floor = _elementwise("floor", "Largest integer not above `x`.", trusted=True)
    sqrt = _elementwise("sqrt", "Square root.", trusted=True)
    exp = _elementwise("exp", "Natural exponential.", trusted=True)
    sin = _elementwise("sin", "Sine.", trusted=True)
    arcsin = _elementwise("arcsin", "Inverse sine.", trusted=True)
    cos = _elementwise("cos", "Cosine.", trusted=True)
    arccos = _elementwise("arccos", "Inverse cosine.", trusted=True)
    tan = _elementwise("tan", "Tangent.", trusted=True)
    arctan = _elementwise("arctan", "Inverse tangent.", trusted=True)
    sinh = _elementwise("sinh", "Hyperbolic sine.", trusted=True)
    arcsinh = _elementwise("arcsinh", "Inverse hyperbolic sine.", trusted=True)
    cosh = _elementwise("cosh", "Hyperbolic cosine.", trusted=True)
    arccosh = _elementwise("arccosh", "Inverse hyperbolic cosine.", trusted=True)
    tanh = _elementwise("tanh", "Hyperbolic tangent.", trusted=True)
    arctanh = _elementwise("arctanh", "Inverse hyperbolic tangent.", trusted=True)
    log = _elementwise("log", "Natural logarithm.", trusted=True)
    log2 = _elementwise("log2", "Base-2 logarithm.", trusted=True)
    log10 = _elementwise("log10", "Base-10 logarithm.", trusted=True)
    sigmoid = _elementwise("sigmoid", "`1 / (1 + exp(-x))`, without overflow.", trusted=True)
    softplus = _elementwise("softplus", "`log(1 + exp(x))`, without overflow.", trusted=True)
    erf = _elementwise("erf", "The error function (`scipy.special.erf` on every block).", trusted=True)
    log_gamma = _elementwise("log_gamma", "Natural logarithm of the absolute value of the gamma function.", trusted=True)
    gamma_inc_l = _elementwise("gamma_inc_l", "Regularized lower incomplete gamma function P(a, x).", trusted=True)
    gamma_inc_u = _elementwise("gamma_inc_u", "Regularized upper incomplete gamma function Q(a, x).", trusted=True)
    isfinite = _elementwise("isfinite", "True where `x` is neither infinite nor NaN.", trusted=True)
    isnan = _elementwise("isnan", "True where `x` is NaN.", trusted=True)
    isinf = _elementwise("isinf", "True where `x` is infinite.", trusted=True)
    real = _elementwise("real", "Real part.", trusted=True)
    imag = _elementwise("imag", "Imaginary part (zeros of the same type for real values).", trusted=True)
    conj = _elementwise("conj", "Complex conjugate.", trusted=True)
    to_float = _elementwise(
        "to_float", "`x` as floats of the current precision; floats keep theirs when it is `None`.", trusted=False
    )
    to_complex = _elementwise(
        "to_complex", "`x` as complex values; complex keeps its precision when the precision is `None`.", trusted=False
    )
    to_int32 = _elementwise("to_int32", "`x` as int32.", trusted=False)
    to_int64 = _elementwise("to_int64", "`x` as int64.", trusted=False)

    # ------------------------------------------------------------ reductions (dask's tree reductions)

    @kernel(trusted=True, why=_REDUCTION)
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (an int, a tuple, or None for all); bool and narrow ints widen to 64 bits."""
        if isinstance(value, (list, tuple)) and axis == 0:
            value = da.stack([as_dask(v) for v in value])
        x, axes = _reduced("sum", value, axis)
        return _reduce(da.sum, np.sum, x, axes, keepdims=keepdims, dtype=_widened(x.dtype))

    @kernel(trusted=True, why=_REDUCTION)
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and narrow ints widen to 64 bits."""
        x, axes = _reduced("prod", value, axis)
        return _reduce(da.prod, np.prod, x, axes, dtype=_widened(x.dtype))

    @kernel(trusted=True, why=_REDUCTION)
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`, as floats (NaN for nothing)."""
        x, axes = _reduced("mean", value, axis, floats=True)
        work = _computable(x)
        return _reduce(da.mean, np.mean, work, axes, keepdims=keepdims).astype(x.dtype)

    @kernel(trusted=True, why=_REDUCTION)
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis`, as floats."""
        x, axes = _reduced("std", x, axis, floats=True)
        result = _reduce(da.std, np.std, _computable(x), axes, keepdims=keepdims)
        return result.astype(x.real.dtype if x.dtype.kind == "c" else x.dtype)

    @kernel(trusted=True, why=_REDUCTION)
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates.

        Raises:
            ValueError: for an empty reduction (there is no identity).
        """
        x, axes = _reduced("max", x, axis, nonempty=True)
        return _reduce(da.max, np.max, x, axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates.

        Raises:
            ValueError: for an empty reduction (there is no identity).
        """
        x, axes = _reduced("min", x, axis, nonempty=True)
        return _reduce(da.min, np.min, x, axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true (a lazy 0-d array for `axis=None`)."""
        x, axes = _reduced("any", boolean_tensor, axis)
        return _reduce(da.any, np.any, x, axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether all elements along `axis` are true."""
        x, axes = _reduced("all", boolean_tensor, axis)
        return _reduce(da.all, np.all, x, axes, keepdims=keepdims)

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first maximum along `axis`.

        Raises:
            ValueError: for an empty reduction.
        """
        x, axes = _reduced("argmax", x, axis)
        return _reduce(da.argmax, np.argmax, x, None if axes is None else axes[0], keepdims=keepdims).astype(np.int64)

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first minimum along `axis`.

        Raises:
            ValueError: for an empty reduction.
        """
        x, axes = _reduced("argmin", x, axis)
        return _reduce(da.argmin, np.argmin, x, None if axes is None else axes[0], keepdims=keepdims).astype(np.int64)

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`, one int (dask's blocked scan); bool and narrow ints widen to 64 bits."""
        x = as_dask(x)
        axis = normalize_axis(axis, x.ndim, "cumsum")  # one axis: None (NumPy's flattening) is refused, as everywhere
        return _reduce(da.cumsum, np.cumsum, x, axis, dtype=_widened(x.dtype))

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles of the last axis, shaped `(quantiles, *x.shape[:-1])`: chunked over the leading
        axes (each task holds whole rows)."""
        x = as_dask(x)
        if isinstance(quantiles, da.Array):  # a lazy tensor of quantiles: one task, nothing computed now
            return task("quantile", [x, quantiles])
        q = np.asarray(quantiles, dtype=np.float64)
        if x.ndim < 2 or 0 in x.shape or q.ndim > 1 or any(np.isnan(s) for s in x.shape):
            return task("quantile", [x, q])
        function = partial(block_kernel, "quantile", get_precision(), (("quantiles", q),))
        dtype = np.asarray(probe(function, np.ones((1,) * x.ndim, x.dtype))).dtype
        rows = x.rechunk({x.ndim - 1: -1})
        if q.ndim == 0:
            chunks = rows.chunks[:-1]
            return rows.map_blocks(
                function, drop_axis=x.ndim - 1, chunks=chunks, dtype=dtype, meta=np.empty((0,) * (x.ndim - 1), dtype)
            )
        return rows.map_blocks(
            function,
            drop_axis=x.ndim - 1,
            new_axis=0,
            chunks=((len(q),), *rows.chunks[:-1]),
            dtype=dtype,
            meta=np.empty((0,) * x.ndim, dtype),
        )


def _reduced(
    op: str, value: Any, axis: Any, floats: bool = False, nonempty: bool = False
) -> tuple[da.Array, tuple[int, ...] | None]:
    """The input of a reduction as a dask array, and its axes checked by bk's rule."""
    check_tensor_argument(value, op)
    if type(value) in (float, complex):  # a Python number has the dtype as_tensor gives it: the default float (complex)
        value = np.asarray(value, (float_dtype if type(value) is float else complex_dtype)(get_precision()))
    x = to_floats(value) if floats else keep_ints(value)
    axes = normalize_axes(axis, x.ndim, op)
    if nonempty:
        check_nonempty(op, x.shape, axes)
    return x, axes


def _widened(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype of sums and products of `dtype` (`bk.rules.accumulation_type`)."""
    return numpy_accumulation_type(dtype) or dtype


def _computable(x: da.Array) -> da.Array:
    """bfloat16 (which dask's moment reductions cannot accumulate) as float32."""
    return x.astype(np.float32) if x.dtype.kind == "V" or x.dtype.name == "bfloat16" else x


def _reduce(lazy: Any, eager: Any, x: da.Array, axis: Any, **kwargs: Any) -> da.Array:
    """`lazy(x, axis, **kwargs)`; for an input without elements (whose result has a known shape and
    needs no data, but whose empty chunks dask's tree reductions refuse) NumPy's answer as a constant."""
    if 0 not in x.shape:
        return lazy(x, axis=axis, **kwargs)  # type: ignore[no-any-return]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing is NaN, as NumPy says
        return da.asarray(np.asarray(eager(np.empty(x.shape, x.dtype), axis=axis, **kwargs)))
