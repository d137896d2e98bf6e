"""Shape manipulation, elementwise maths and reductions on `jax.numpy` and `jax.lax`."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from bk import (
    DType,
    explain_failure,
    from_numpy_dtype,
    normalize_axes,
)
from bk.rules import (
    check_dtypes,
    check_integer_power,
    check_nonnegative,
    comparison_constant,
    divide_integers,
    explains_failures,
    is_python_number,
    numpy_accumulation_type,
    wrap_indices,
)
from bk.rules import clip as clip_rule
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
_INEXACT: Final = frozenset(np.dtype(t) for t in (np.float16, jnp.bfloat16, np.float32, np.float64, np.complex64, np.complex128))


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

    def _float_op(self, op: Callable[[Any], Any], x: Tensor) -> Tensor:
        """Applies a float-only operation; integers and booleans become the float type first."""
        x = self._t(x)
        return op(x if is_inexact(x) else self.to_float(x))  # type: ignore[attr-defined]

    def _float_pair(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return self._operands(a, b, bool_to_int=True, to_float=True)

    def abs(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return x if x.dtype == np.bool_ else jnp.abs(x)

    def sign(self, x: Tensor) -> Tensor:
        """-1, 0 or 1 (NaN stays NaN; complex values give `x / |x|`)."""
        return jnp.sign(self._t(x))

    def round(self, x: Tensor) -> Tensor:
        """Rounds halves to even, as NumPy; complex values round both parts (NumPy's `round`)."""
        x = self._t(x)
        return jnp.round(x) if is_inexact(x) else x

    def ceil(self, x: Tensor) -> Tensor:
        """Rounds up; integers and bools stay as they are.

        Raises:
            bk.ArgumentTypeError: for complex values, as NumPy.
        """
        x = self._t(x)
        if not is_inexact(x):
            return x
        check_dtypes(self, "ceil", x)
        return jnp.ceil(x)

    def floor(self, x: Tensor) -> Tensor:
        """Rounds down; integers and bools stay as they are.

        Raises:
            bk.ArgumentTypeError: for complex values, as NumPy.
        """
        x = self._t(x)
        if not is_inexact(x):
            return x
        check_dtypes(self, "floor", x)
        return jnp.floor(x)

    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """The larger of `a` and `b`; NaN propagates (complex values too: JAX would drop a complex NaN)."""
        return _nan_first(jnp.maximum, *self._operands(a, b))

    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """The smaller of `a` and `b`; NaN propagates (complex values too: JAX would drop a complex NaN)."""
        return _nan_first(jnp.minimum, *self._operands(a, b))

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]` in the dtype of `x`, for bounds of any kind (the core's rule, `bk.rules`)."""
        return clip_rule(self, self._t(x), minimum, maximum, _clip_kernel)

    def sqrt(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.sqrt, x)

    def exp(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.exp, x)

    def erf(self, x: Tensor) -> Tensor:
        return self._float_op(jss.erf, x)

    def softplus(self, x: Tensor) -> Tensor:
        x = self._t(x)
        check_dtypes(self, "softplus", x)
        return self._float_op(jax.nn.softplus, x)

    def sigmoid(self, x: Tensor) -> Tensor:
        x = self._t(x)
        check_dtypes(self, "sigmoid", x)
        return self._float_op(jax.nn.sigmoid, x)

    def log_gamma(self, x: Tensor) -> Tensor:
        return self._float_op(jax.lax.lgamma, x)

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        """P(a, x); P(0, x > 0) is 1, as SciPy (JAX gives NaN)."""
        a, x = self._float_pair(a, x)
        return _at_zero_a(jss.gammainc(a, x), a, x, 1.0)

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        """Q(a, x); Q(0, x > 0) is 0, as SciPy."""
        a, x = self._float_pair(a, x)
        return _at_zero_a(jss.gammaincc(a, x), a, x, 0.0)

    def sin(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.sin, x)

    def arcsin(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arcsin, x)

    def cos(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.cos, x)

    def arccos(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arccos, x)

    def tan(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.tan, x)

    def arctan(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arctan, x)

    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of `(x, y)`; integers become the float type.

        Raises:
            bk.ArgumentTypeError: for complex values, for which it is not defined (as in NumPy).
        """
        y, x = self._float_pair(y, x)
        check_dtypes(self, "arctan2", y, x)
        return jnp.arctan2(y, x)

    def sinh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.sinh, x)

    def arcsinh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arcsinh, x)

    def cosh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.cosh, x)

    def arccosh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arccosh, x)

    def tanh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.tanh, x)

    def arctanh(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.arctanh, x)

    def log(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.log, x)

    def log2(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.log2, x)

    def log10(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.log10, x)

    def isfinite(self, x: Tensor) -> Tensor:
        return jnp.isfinite(self._t(x))

    def isnan(self, x: Tensor) -> Tensor:
        return jnp.isnan(self._t(x))

    def isinf(self, x: Tensor) -> Tensor:
        return jnp.isinf(self._t(x))

    def real(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return jnp.real(x) if jnp.iscomplexobj(x) else x

    def imag(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return jnp.imag(x) if jnp.iscomplexobj(x) else jnp.zeros_like(x)

    def conj(self, x: Tensor) -> Tensor:
        """The complex conjugate; real values (bools too, as the spec says) stay as they are."""
        x = self._t(x)
        return jnp.conjugate(x) if jnp.iscomplexobj(x) else x

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, 0 where `y` is 0; the masked division keeps gradients finite."""
        x, y = self._float_pair(x, y)
        zero = y == 0
        return jnp.where(zero, jnp.zeros((), jnp.result_type(x, y)), x / jnp.where(zero, jnp.ones_like(y), y))

    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`; without `x` and `y` the `(nnz, ndims)` indices of true
        elements (a data-dependent shape: not usable under jit, use `nonzero(length=...)` there).

        A Python int beside an integer tensor takes the tensor's type and wraps around where it does
        not fit, as `numpy.where` (and bk-numpy, bk-torch, bk-tf) does.
        """
        condition = self._t(condition)
        if x is None or y is None:
            return jnp.argwhere(condition).astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]
        x = x if is_python_number(x) else self._t(x)
        y = y if is_python_number(y) else self._t(y)
        x, y = _wrapped(x, y), _wrapped(y, x)
        x, y = self._operands(x, y)
        return jnp.where(condition.astype(bool), x, y)

    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        return self._compare("equal", x, y, jnp.equal)

    # ------------------------------------------------------------ operators

    def _operands(self, a: Tensor, b: Tensor, bool_to_int: bool = False, to_float: bool = False) -> tuple[Tensor, Tensor]:
        """Operands of a binary operator in their common type, by `Backend.auto_cast`: a Python number
        is weak, as in JAX (`float16 array + 1.5` stays float16; an int array with a float number gives
        the float type); under `bk.precision(p)` floats take that precision."""
        a = a if is_python_number(a) else self._t(a)
        b = b if is_python_number(b) else self._t(b)
        if to_float and (type(a) is int or type(b) is int):  # the int is divided as a float: it need not fit the tensor's int type
            a, b = (v if type(v) is int or is_inexact(v) else self.to_float(v) for v in (a, b))  # type: ignore[attr-defined]
        a, b = self.auto_cast(a, b, bool_to_int=bool_to_int, int_to_float=to_float)  # type: ignore[attr-defined]
        return a, b

    @explains_failures
    def add(self, a: Tensor, b: Tensor) -> Tensor:
        try:
            x, y = self._operands(a, b, bool_to_int=True)
            return x + y
        except (TypeError, ValueError, OverflowError) as error:  # mapped here: the core does not wrap these (too hot for a wrapper)
            explain_failure(self, "add", error, (a, b), {})

    @explains_failures
    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        try:
            x, y = self._operands(a, b, bool_to_int=True)
            return x - y
        except (TypeError, ValueError, OverflowError) as error:
            explain_failure(self, "sub", error, (a, b), {})

    @explains_failures
    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        try:
            x, y = self._operands(a, b)
            return x * y
        except (TypeError, ValueError, OverflowError) as error:
            explain_failure(self, "mul", error, (a, b), {})

    @explains_failures
    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """True division; integers divide as the float type of the precision (float32 by default)."""
        try:
            x, y = self._operands(numerator, denominator, to_float=True)
            return x / y
        except (TypeError, ValueError, OverflowError) as error:
            explain_failure(self, "div", error, (numerator, denominator), {})

    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp`; integer powers wrap around as NumPy's (JAX's own integer power is exact
        only for exponents below 64), bools compute as int8 (NumPy's type).

        Raises:
            ValueError: for integers to negative integer powers (concrete exponents), as in NumPy (`bk.rules.check_integer_power`).
        """
        base, exp = _bool_as_int8(*self._operands(base, exp))
        if base.dtype.kind in "iu":
            check_integer_power(self, exp, "pow", base)  # type: ignore[arg-type]
            return _integer_power(base, exp)
        return base**exp

    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor, as in Python; integers modulo 0 give 0 and
        bools compute as int8, as in NumPy.

        Raises:
            bk.ArgumentTypeError: for complex values.
        """
        dividend, divisor = _bool_as_int8(*self._operands(dividend, divisor))
        return dividend % divisor  # jnp.remainder divides integers by 1 where the divisor is 0

    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b`, rounded down; integer division by zero gives 0 and bools compute as int8, as in NumPy.

        Raises:
            bk.ArgumentTypeError: for complex values.
        """
        a, b = _bool_as_int8(*self._operands(a, b))
        if a.dtype.kind in "iu":  # JAX's integer a // 0 is not NumPy's 0
            return divide_integers(self, operator.floordiv, a, b)
        return a // b

    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`; a count outside `[0, bits)` gives 0 and bools compute as int8, as in NumPy.

        Raises:
            bk.ArgumentTypeError: for floats or complex values.
        """
        return jnp.left_shift(*_bool_as_int8(*self._operands(a, b)))

    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b` (arithmetic for signed ints); a count outside `[0, bits)` gives 0, or -1 for negative `a`,
        and bools compute as int8, as in NumPy.

        Raises:
            bk.ArgumentTypeError: for floats or complex values.
        """
        return jnp.right_shift(*_bool_as_int8(*self._operands(a, b)))

    def _compare(self, op: str, x: Tensor, y: Tensor, function: Callable[[Any, Any], Any]) -> Tensor:
        """`function(x, y)` in the common type; a Python int outside the range of the integer tensor
        beside it compares by its value, as in NumPy 2 (`bk.rules`)."""
        try:
            a, b = self._operands(x, y)
        except OverflowError:
            tensor = self._t(y if type(x) is int else x)
            constant = comparison_constant(op, x, y, self.dtype(tensor))
            if constant is None:
                raise
            return jnp.full(tensor.shape, constant)
        return function(a, b)

    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        return self._compare("greater_than", x, y, jnp.greater)

    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        return self._compare("greater_or_equal", x, y, jnp.greater_equal)

    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        return self._compare("not_equal", x, y, jnp.not_equal)

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

    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis`; bool and integers narrower than 64 bits widen to int64 (unsigned: uint64), as NumPy 2."""
        x = self._stacked(value)
        return jnp.sum(x, axis=_reduce_axes(axis, x.ndim, "sum"), keepdims=keepdims, dtype=self._wide(x))

    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and integers narrower than 64 bits widen as in `sum`."""
        x = self._t(value)
        axes = _reduce_axes(axis, x.ndim, "prod")
        if axes == () and x.dtype.kind == "c":  # NumPy multiplies by 1 (complex inf * 1 has a NaN imaginary part)
            return x * jnp.ones((), x.dtype)
        return jnp.prod(x, axis=axes, dtype=self._wide(x))

    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`; integers and bools give the float type, the mean of nothing is NaN."""
        x = self._stacked(value)
        axes = _reduce_axes(axis, x.ndim, "mean")
        if axes == () and x.dtype.kind == "c":  # NumPy divides by the count 1, as a complex division
            return x / jnp.ones((), x.dtype)
        return self._float_op(lambda v: jnp.mean(v, axis=axes, keepdims=keepdims), x)

    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation (`ddof=0`, as NumPy)."""
        x = self._t(x)
        axes = _reduce_axes(axis, x.ndim, "std")

        def std(v: Any) -> Any:  # half precision accumulates in float32, as NumPy's mean: squares of float16 overflow
            if v.dtype in (jnp.float16, jnp.bfloat16):
                return jnp.std(v.astype(jnp.float32), axis=axes, keepdims=keepdims).astype(v.dtype)
            return jnp.std(v, axis=axes, keepdims=keepdims)

        return self._float_op(std, x)

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

    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is non-zero: `bool` for every input dtype."""
        x = _truth(self._stacked(boolean_tensor))
        return jnp.any(x, axis=_reduce_axes(axis, x.ndim, "any"), keepdims=keepdims)

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


def _bool_as_int8(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Two bool operands (already of one type) as int8, NumPy's type for bool arithmetic such as `left_shift`."""
    if a.dtype == np.bool_:
        return a.astype(np.int8), b.astype(np.int8)
    return a, b


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


def _wrapped(number: Any, other: Any) -> Any:
    """A Python int outside the range of the integer array `other` as NumPy casts it (wrapped around)."""
    if type(number) is int and isinstance(other, jax.Array) and other.dtype.kind in "iu":
        info = np.iinfo(other.dtype)
        if not info.min <= number <= info.max:
            return jnp.asarray(np.asarray(number).astype(other.dtype))
    return number


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
