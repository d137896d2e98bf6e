"""Shape manipulation, elementwise maths and reductions on `jax.numpy` and `jax.lax`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from bk import DType, from_numpy_dtype, normalize_axes
from bk.rules import check_nonnegative, framework_call, kernel, numpy_accumulation_type, wrap_indices
from bk.rules import quantile as quantile_rule

Tensor = Any

_PAD_MODES: Final = {
    "constant": "constant",
    "boundary": "edge",
    "periodic": "wrap",
    "circular": "wrap",  # PyTorch's name for periodic
    "symmetric": "symmetric",
    "reflect": "reflect",
}
_INT64: Final = DType(int, 64)
_ARRAY: Final = type(jnp.zeros(()))  # the concrete type of eager arrays (`jax.Array` is abstract; tracers take the plan)
_REAL_FLOATS: Final = frozenset(np.dtype(t) for t in (np.float16, jnp.bfloat16, np.float32, np.float64))
_INEXACT: Final = _REAL_FLOATS | frozenset(np.dtype(t) for t in (np.complex64, np.complex128))

_REDUCTION: Final = (
    "a tuned reduction that applies docs/semantics.md itself (NumPy's accumulation types with "
    "bk.rules.numpy_accumulation_type, axes with bk.normalize_axes, complex values and NaN in NumPy's order): "
    "on small tensors its own checks cost less than a plan"
)
"""Why the reductions (`sum`, `prod`, `mean`, `std`, `max`, `min`, `any`, `all`) are trusted kernels."""


def _abs(x: Any) -> Any:
    """`jnp.abs`, with C99's `cabs` of an infinite part: +inf even when the other part is NaN (JAX gives NaN)."""
    magnitude = jnp.abs(x)
    if jnp.iscomplexobj(x):
        return jnp.where(jnp.isinf(x.real) | jnp.isinf(x.imag), jnp.asarray(jnp.inf, magnitude.dtype), magnitude)
    return magnitude


def _float_power(base: Tensor, exp: Any) -> Tensor:
    """`jnp.power` of floats and complex numbers as the plan calls it, the fast call of `pow`: a Python int exponent
    goes as the float it equals (the plan converts it to the base's dtype; JAX would multiply out a concrete int
    power instead of `lax.pow`)."""
    return jnp.power(base, float(exp) if type(exp) is int else exp)


def _unary(function: Callable[[Any], Any], name: str, doc: str = "") -> Callable[..., Any]:
    """The bare kernel `function(x)` of an elementwise operation, behind the core's plan (it declares no
    trust): the plan gives it the spec's verdict and its operand in the dtype the operation computes in,
    and casts the result. Its fast call (`bk.rules.framework_call`, in C) gives an array to JAX at once
    wherever the plan would do nothing around the kernel: the core derives those dtypes from the operation's
    spec and rules on the first call."""

    @kernel(fast=framework_call(function, _ARRAY, 1))
    def bare(self: Any, x: Tensor) -> Tensor:
        return function(x)

    bare.__name__ = bare.__qualname__ = name
    bare.__doc__ = doc or f"`{function.__name__}` of floats (ints and bools in the default float type)."
    return bare


def _binary(function: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    """The bare kernel `function(x1, x2)` of an elementwise operation, behind the core's plan (which gives it
    two tensors of one dtype), with its fast call in front of the plan (`bk.rules.framework_call`): two arrays
    of one dtype, or an array and a Python number JAX keeps it in (weak typing), wherever the plan would do
    nothing but convert that number."""

    @kernel(fast=framework_call(function, _ARRAY, 2))
    def bare(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        return function(x1, x2)

    bare.__name__ = bare.__qualname__ = name
    bare.__doc__ = f"`jax.numpy.{name}` in the common float type (ints and bools in the default float type)."
    return bare


def _axes(axis: Any) -> Any:
    """An axis argument as `jax.numpy` takes it: None, an int, or a tuple."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(int(a) for a in axis)


def is_inexact(x: Any) -> bool:
    """Whether the array `x` holds floats or complex numbers."""
    return x.dtype in _INEXACT


class MathMixin:
    """Shape manipulation, elementwise maths and reductions of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        return jnp.reshape(self._t(value), tuple(int(s) for s in shape))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its axes permuted; negative axes count from the end (the spec checks `axes`)."""
        return jnp.transpose(self._t(tensor), tuple(int(a) for a in axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new axes of size 1 at `axis` (in `[-ndim - 1, ndim]`)."""
        a = self._t(a)
        for _ in range(number):
            a = jnp.expand_dims(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """`values` (of one shape) stacked along a new axis `axis` in `[-ndim - 1, ndim]`."""
        arrays = self.auto_cast(*[self._t(v) for v in values])  # type: ignore[attr-defined]
        return jnp.stack(arrays, axis=axis)

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """`values` joined along the existing axis `axis`."""
        arrays = self.auto_cast(*[self._t(v) for v in values])  # type: ignore[attr-defined]
        return jnp.concatenate(arrays, axis=axis)

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """`value` repeated `multiples[i]` times along axis `i`."""
        return jnp.tile(self._t(value), tuple(int(m) for m in multiples))

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats elements along `axis`; `new_length` fixes the output size (needed under jit when
        `repeats` is an array): extra entries repeat the last element, surplus ones are cut."""
        x = self._t(x)
        if not isinstance(repeats, int):
            repeats = self._t(repeats)
            check_nonnegative(self, repeats, "repeat", "repeats")  # type: ignore[arg-type]  # the data: the spec sees no values
        return jnp.repeat(x, repeats, axis=axis, total_repeat_length=new_length)

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis with `jnp.pad`; all modes work on any number of dimensions (the spec checks the
        mode and the widths)."""
        value = self._t(value)
        if value.ndim == 0:  # nothing to pad (jnp.pad refuses an empty pad_width)
            return value
        widths = tuple((int(lower), int(upper)) for lower, upper in pad_width)
        if mode == "constant":
            return jnp.pad(value, widths, mode="constant", constant_values=jnp.asarray(constant_values, value.dtype))
        return jnp.pad(value, widths, mode=_PAD_MODES[mode])

    def flip(self, value: Tensor, axes: int | Sequence[int]) -> Tensor:
        """`value` reversed along `axes`: one int, or a tuple or list of axes, each named once; None: every axis, as numpy.flip."""
        return jnp.flip(self._t(value), tuple(axes) if isinstance(axes, list) else axes)

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` as `(batch, diagonal, channels)`."""
        return jnp.moveaxis(jnp.diagonal(self._t(matrices), offset=offset, axis1=1, axis2=2), -1, 1)

    def batch_gather(self, tensor: Tensor, batches: Any) -> Tensor:
        """The entries `batches` (an int or a list of ints) of the first dimension."""
        tensor = self._t(tensor)
        entries = np.asarray([batches] if isinstance(batches, int) else list(batches), np.int64).reshape(-1)
        if not entries.size or (entries.min() >= -(2**31) and entries.max() < 2**31):  # int32: int64 would switch x64 on
            entries = entries.astype(np.int32)
        indices = wrap_indices(self, self._t(entries), tensor.shape[0], "batch_gather", "batch")  # type: ignore[arg-type]
        return jnp.take(tensor, indices, axis=0)

    # ------------------------------------------------------------ elementwise maths
    # Bare kernels, planned (they declare no trust): the plan gives them what the spec says they compute on (two
    # tensors of one dtype, floats for the float functions, int8 for bool powers and shifts, non-zero integer
    # divisors; Python numbers converted), runs the core composites (integer division by zero, integer powers,
    # comparisons beyond an int's range) and casts their results; what is left here is JAX's own gaps. Their
    # fast calls (`bk.rules.framework_call`, in C) give JAX the common case at once: native arrays (and Python
    # numbers beside them, which JAX keeps in the array's dtype) wherever the plan would do nothing around the
    # kernel, as the core derives from the specs and rules on the first call. Where a kernel does more than the
    # JAX function for some dtypes (`maximum` of complex values, `pow` of integers), those are `lacking`: the
    # plan serves them.

    abs = _unary(_abs, "abs", "`jax.numpy.abs`; complex values give their real magnitude (inf where a part is infinite).")
    sign = _unary(jnp.sign, "sign", "-1, 0 or 1 (NaN stays NaN; complex values give `x / |x|`).")
    ceil = _unary(jnp.ceil, "ceil", "Rounds up; integers and bools stay as they are.")
    floor = _unary(jnp.floor, "floor", "Rounds down; integers and bools stay as they are.")
    isfinite = _unary(jnp.isfinite, "isfinite", "`jax.numpy.isfinite`.")
    isnan = _unary(jnp.isnan, "isnan", "`jax.numpy.isnan`.")
    isinf = _unary(jnp.isinf, "isinf", "`jax.numpy.isinf`.")
    real = _unary(jnp.real, "real", "The real part; real values stay as they are.")
    imag = _unary(jnp.imag, "imag", "The imaginary part; zeros of their own dtype for real values.")
    conj = _unary(jnp.conjugate, "conj", "The complex conjugate; real values (bools too, as the spec says) stay.")
    sqrt = _unary(jnp.sqrt, "sqrt")
    exp = _unary(jnp.exp, "exp")
    erf = _unary(jss.erf, "erf")  # JAX has no erf of complex values: its TypeError is explained as behind the plan
    softplus = _unary(jax.nn.softplus, "softplus")
    sigmoid = _unary(jax.nn.sigmoid, "sigmoid")
    log_gamma = _unary(jax.lax.lgamma, "log_gamma")
    sin = _unary(jnp.sin, "sin")
    arcsin = _unary(jnp.arcsin, "arcsin")
    cos = _unary(jnp.cos, "cos")
    arccos = _unary(jnp.arccos, "arccos")
    tan = _unary(jnp.tan, "tan")
    arctan = _unary(jnp.arctan, "arctan")
    sinh = _unary(jnp.sinh, "sinh")
    arcsinh = _unary(jnp.arcsinh, "arcsinh")
    cosh = _unary(jnp.cosh, "cosh")
    arccosh = _unary(jnp.arccosh, "arccosh")
    tanh = _unary(jnp.tanh, "tanh")
    arctanh = _unary(jnp.arctanh, "arctanh")
    log = _unary(jnp.log, "log")
    log2 = _unary(jnp.log2, "log2")
    log10 = _unary(jnp.log10, "log10")

    def round(self, x: Tensor) -> Tensor:
        """Rounds halves to even, as NumPy; complex values round both parts (NumPy's `round`)."""
        return jnp.round(x) if x.dtype in _INEXACT else x  # JAX rounds no bools

    @kernel(fast=framework_call(jnp.maximum, _ARRAY, 2, lacking=(complex,)))  # complex: the kernel keeps NaN
    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """The larger of `a` and `b`; NaN propagates (complex values too: JAX would drop a complex NaN)."""
        return _nan_first(jnp.maximum, a, b)

    @kernel(fast=framework_call(jnp.minimum, _ARRAY, 2, lacking=(complex,)))  # complex: the kernel keeps NaN
    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """The smaller of `a` and `b`; NaN propagates (complex values too: JAX would drop a complex NaN)."""
        return _nan_first(jnp.minimum, a, b)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`_clip_kernel` of `x` and the bounds the core's rule prepared (`bk.rules.clip`, run by the plan around this
        kernel: one dtype, number bounds within it)."""
        return _clip_kernel(self._t(x), minimum, maximum)

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        """P(a, x); P(0, x > 0) is 1, as SciPy (JAX gives NaN)."""
        return _at_zero_a(jss.gammainc(a, x), a, x, 1.0)

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        """Q(a, x); Q(0, x > 0) is 0, as SciPy."""
        return _at_zero_a(jss.gammaincc(a, x), a, x, 0.0)

    @kernel(fast=framework_call(jnp.arctan2, _ARRAY, 2))
    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of `(x, y)` (floats: the plan gives integers as the float type)."""
        return jnp.arctan2(y, x)

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, 0 where `y` is 0; the masked division keeps gradients finite."""
        zero = y == 0
        return jnp.where(zero, jnp.zeros((), x.dtype), x / jnp.where(zero, jnp.ones_like(y), y))

    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`; without `x` and `y` the `(nnz, ndims)` indices of true
        elements (a data-dependent shape: not usable under jit, use `nonzero(length=...)` there). The plan
        gives `x` and `y` in their common type (a Python int beyond an int branch's range wrapped into it)."""
        condition = self._t(condition)  # the plan converts the branches only
        if x is None or y is None:
            return jnp.argwhere(condition).astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]
        return jnp.where(condition.astype(bool), x, y)

    # ------------------------------------------------------------ operators

    @kernel(fast=framework_call(jnp.add, _ARRAY, 2))
    def add(self, a: Tensor, b: Tensor) -> Tensor:
        return jnp.add(a, b)

    @kernel(fast=framework_call(jnp.subtract, _ARRAY, 2))
    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        return jnp.subtract(a, b)

    @kernel(fast=framework_call(jnp.multiply, _ARRAY, 2))
    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        return jnp.multiply(a, b)

    @kernel(fast=framework_call(jnp.true_divide, _ARRAY, 2))
    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """True division of floats (the plan gives integers as the float type of the precision)."""
        return jnp.true_divide(numerator, denominator)

    @kernel(fast=framework_call(_float_power, _ARRAY, 2, lacking=(int,)))  # integers: `_integer_power`
    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp`; integer powers wrap around as NumPy's (JAX's own integer power is exact only for
        exponents below 64). The plan refuses negative integer exponents and gives bools as int8."""
        if base.dtype.kind in "iu":
            return _integer_power(base, exp)
        return jnp.power(base, exp)

    @kernel(fast=framework_call(jnp.remainder, _ARRAY, 2))
    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor, as in Python (the plan answers integer divisors of 0)."""
        return jnp.remainder(dividend, divisor)

    @kernel(fast=framework_call(jnp.floor_divide, _ARRAY, 2))
    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b`, rounded down (the plan answers integer divisors of 0)."""
        return jnp.floor_divide(a, b)

    # XLA's shifts give NumPy's results for every count (`JAXBackend.shifts_every_count`), so the plan of a tensor of
    # counts takes no composite and the fast calls are derived as the other operators'.
    @kernel(fast=framework_call(jnp.left_shift, _ARRAY, 2))
    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`; a count outside `[0, bits)` gives 0, as in NumPy."""
        return jnp.left_shift(a, b)

    @kernel(fast=framework_call(jnp.right_shift, _ARRAY, 2))
    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b` (arithmetic for signed ints); a count outside `[0, bits)` gives 0, or -1 for negative `a`, as in NumPy."""
        return jnp.right_shift(a, b)

    @kernel(fast=framework_call(jnp.equal, _ARRAY, 2))
    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        return jnp.equal(x, y)

    @kernel(fast=framework_call(jnp.not_equal, _ARRAY, 2))
    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        return jnp.not_equal(x, y)

    @kernel(fast=framework_call(jnp.greater, _ARRAY, 2))
    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        """`x > y`; complex values compare real parts first, as NumPy."""
        return jnp.greater(x, y)

    @kernel(fast=framework_call(jnp.greater_equal, _ARRAY, 2))
    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """`x >= y`; complex values compare real parts first, as NumPy."""
        return jnp.greater_equal(x, y)

    # ------------------------------------------------------------ reductions

    def _stacked(self, value: Tensor) -> Tensor:
        """A list of tensors as one stacked array; other values as arrays."""
        if isinstance(value, (tuple, list)) and _contains_arrays(value):
            return self.stack(value)
        return self._t(value)

    def _wide(self, x: Tensor) -> Any:
        """The dtype `x` sums and multiplies in (the core's `accumulation_type`; switching x64 on), None to keep the dtype."""
        wide = numpy_accumulation_type(x.dtype)
        return None if wide is None else self._jax_dtype(from_numpy_dtype(wide))  # type: ignore[attr-defined]

    @kernel(trusted=True, why=_REDUCTION)
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis`; bool and integers narrower than 64 bits widen to int64 (unsigned: uint64), as NumPy 2."""
        x = self._stacked(value)
        return jnp.sum(x, axis=_reduce_axes(axis, x.ndim, "sum"), keepdims=keepdims, dtype=self._wide(x))

    @kernel(trusted=True, why=_REDUCTION)
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and integers narrower than 64 bits widen as in `sum`."""
        x = self._t(value)
        axes = _reduce_axes(axis, x.ndim, "prod")
        if axes == () and x.dtype.kind == "c":  # NumPy multiplies by 1 (complex inf * 1 has a NaN imaginary part)
            return x * jnp.ones((), x.dtype)
        return jnp.prod(x, axis=axes, dtype=self._wide(x))

    @kernel(trusted=True, why=_REDUCTION)
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`; integers and bools give the float type, the mean of nothing is NaN."""
        x = self._stacked(value)
        axes = _reduce_axes(axis, x.ndim, "mean")
        if axes == () and x.dtype.kind == "c":  # NumPy divides by the count 1, as a complex division
            return x / jnp.ones((), x.dtype)
        return jnp.mean(x if is_inexact(x) else self.to_float(x), axis=axes, keepdims=keepdims)  # type: ignore[attr-defined]

    @kernel(trusted=True, why=_REDUCTION)
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation (`ddof=0`, as NumPy)."""
        x = self._t(x)
        x = x if is_inexact(x) else self.to_float(x)  # type: ignore[attr-defined]
        axes = _reduce_axes(axis, x.ndim, "std")
        if x.dtype in (jnp.float16, jnp.bfloat16):  # accumulated in float32, as NumPy's mean: squares of float16 overflow
            return jnp.std(x.astype(jnp.float32), axis=axes, keepdims=keepdims).astype(x.dtype)
        return jnp.std(x, axis=axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates.

        Raises:
            ValueError: when a reduced axis is empty (no identity).
        """
        x = self._t(x)
        axes = _reduce_axes(axis, x.ndim, "max")
        if x.dtype.kind == "c":
            return _complex_extreme(jnp.max, x, axes, keepdims)
        return jnp.max(x, axis=axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates.

        Raises:
            ValueError: when a reduced axis is empty (no identity).
        """
        x = self._t(x)
        axes = _reduce_axes(axis, x.ndim, "min")
        if x.dtype.kind == "c":
            return _complex_extreme(jnp.min, x, axes, keepdims)
        return jnp.min(x, axis=axes, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is non-zero: `bool` for every input dtype."""
        x = _truth(self._stacked(boolean_tensor))
        return jnp.any(x, axis=_reduce_axes(axis, x.ndim, "any"), keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether every element along `axis` is non-zero: `bool` for every input dtype."""
        x = _truth(self._stacked(boolean_tensor))
        return jnp.all(x, axis=_reduce_axes(axis, x.ndim, "all"), keepdims=keepdims)

    def _arg_reduce(self, function: Any, x: Tensor, axis: Any, keepdims: bool, op: str) -> Tensor:
        x = self._t(x)
        if x.dtype.kind == "c":  # JAX has no complex argmax: the first element equal to NumPy's max (min), NaN first
            extreme = _complex_extreme(jnp.max if op == "argmax" else jnp.min, x, None if axis is None else (axis,), True)
            x, function = (x == extreme) | (jnp.isnan(x) & jnp.isnan(extreme)), jnp.argmax
        return function(x, axis=axis, keepdims=keepdims).astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """int64 index of the maximum along `axis` (a flat index for `axis=None`); the first NaN wins."""
        return self._arg_reduce(jnp.argmax, x, axis, keepdims, "argmax")

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """int64 index of the minimum along `axis` (a flat index for `axis=None`); the first NaN wins."""
        return self._arg_reduce(jnp.argmin, x, axis, keepdims, "argmin")

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`; narrow integers and bools widen as in `sum`."""
        x = self._t(x)
        return jnp.cumsum(x, axis=axis, dtype=self._wide(x))

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Linear-interpolation quantiles of the last axis, shaped `(quantiles, *x.shape[:-1])` (`bk.rules`)."""
        return quantile_rule(self, self._t(x), quantiles, lambda values, q: jnp.quantile(values, jnp.asarray(q, values.dtype), axis=-1))  # type: ignore[attr-defined, arg-type]


def _clip_kernel(x: Tensor, low: Any, high: Any) -> Tensor:
    """`jnp.maximum` then `jnp.minimum`, skipping None bounds; NaN propagates (complex NaN too). Python
    ints beyond int64 (uint64 bounds) go as arrays of `x`'s dtype: JAX converts weak ints through int64."""
    low, high = (jnp.asarray(b, x.dtype) if type(b) is int and b >= 2**63 else b for b in (low, high))
    if low is not None:
        x = _nan_first(jnp.maximum, x, low)
    return x if high is None else _nan_first(jnp.minimum, x, high)


def _nan_first(function: Callable[[Any, Any], Any], a: Tensor, b: Tensor) -> Tensor:
    """`function(a, b)` (maximum or minimum); for complex values a NaN operand wins, as in NumPy."""
    result = function(a, b)
    if result.dtype.kind != "c":
        return result
    return jnp.where(jnp.isnan(a), a, jnp.where(jnp.isnan(b), b, result))


def _complex_extreme(function: Any, x: Tensor, axes: Any, keepdims: bool) -> Tensor:
    """`jnp.max` or `jnp.min` of complex `x` over `axes` (None, an int or a tuple); the first NaN along the
    reduced axes wins, as in NumPy (JAX's complex reductions lose NaN)."""
    result = function(x, axis=axes, keepdims=keepdims)
    nan = jnp.isnan(x)
    reduced = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in ((axes,) if isinstance(axes, int) else axes))
    if not reduced:
        return result
    kept = [a for a in range(x.ndim) if a not in reduced]
    moved = jnp.transpose(x, (*kept, *reduced)).reshape(*(x.shape[a] for a in kept), math.prod(x.shape[a] for a in reduced))
    first = jnp.argmax(jnp.transpose(nan, (*kept, *reduced)).reshape(moved.shape), axis=-1)
    first_nan = jnp.take_along_axis(moved, first[..., None], axis=-1)[..., 0]
    if keepdims:
        first_nan = jnp.expand_dims(first_nan, reduced)
    return jnp.where(jnp.any(nan, axis=reduced, keepdims=keepdims), first_nan, result)


@jax.jit
def _integer_power(base: Tensor, exp: Tensor) -> Tensor:
    """`base ** exp` for integers of one type, wrapping around as NumPy: binary exponentiation over every
    bit of `exp` (JAX's `jnp.power` stops after 6 bits, so `2 ** uint8(128)` would be 1, not 0)."""
    base, exp = jnp.broadcast_arrays(base, exp)
    one = jnp.ones((), exp.dtype)

    def step(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        result, square, rest = state
        result = jnp.where((rest & one) != 0, result * square, result)
        return result, square * square, jax.lax.shift_right_logical(rest, one)

    return jax.lax.while_loop(lambda state: jnp.any(state[2] != 0), step, (jnp.ones_like(base), base, exp))[0]


def _truth(x: Tensor) -> Tensor:
    """`x != 0` for complex values (JAX's `any`/`all` would look at the real part only), else `x`."""
    return x != 0 if x.dtype.kind == "c" else x


def _reduce_axes(axis: Any, ndim: int, op: str) -> Any:
    """`axis` checked by `bk._axes.normalize_axes`: None, or a tuple (`()` reduces nothing); an int in range passes as it is."""
    if axis is None or (type(axis) is int and -ndim <= axis < ndim):
        return axis
    return normalize_axes(axis, ndim, op)


def _contains_arrays(values: Sequence[Any]) -> bool:
    return any(isinstance(v, (jax.Array, np.ndarray)) for v in values)


def _at_zero_a(result: Any, a: Any, x: Any, value: float) -> Any:
    """`result` with SciPy's limits at `a == 0`: `value` for `x > 0`, NaN for `x == 0`."""
    return jnp.where(a == 0, jnp.where(x > 0, value, jnp.nan).astype(result.dtype), result)
