"""Shape manipulation, elementwise maths and reductions on `jax.numpy` and `jax.lax`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

Tensor = Any

_PAD_MODES: Final = {
    "constant": "constant",
    "boundary": "edge",
    "periodic": "wrap",
    "symmetric": "symmetric",
    "reflect": "reflect",
}
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
        return jnp.transpose(self._t(tensor), tuple(axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        a = self._t(a)
        for _ in range(number):
            a = jnp.expand_dims(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        return jnp.stack(self.auto_cast(*[self._t(v) for v in values]), axis=axis)  # type: ignore[attr-defined]

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        return jnp.concatenate(self.auto_cast(*[self._t(v) for v in values]), axis=axis)  # type: ignore[attr-defined]

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        return jnp.tile(self._t(value), tuple(int(m) for m in multiples))

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats elements along `axis`; `new_length` fixes the output size (needed under jit when
        `repeats` is an array): extra entries repeat the last element, surplus ones are cut."""
        x = self._t(x)
        if not isinstance(repeats, int):
            repeats = self._t(repeats)
        return jnp.repeat(x, repeats, axis=axis, total_repeat_length=new_length)

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis with `jnp.pad`; all modes work on any number of dimensions.

        Raises:
            ValueError: for an unknown mode or a wrong number of `pad_width` pairs.
        """
        value = self._t(value)
        if mode not in _PAD_MODES:
            raise ValueError(f"pad mode must be one of {tuple(_PAD_MODES)} but got {mode!r}")
        if len(pad_width) != value.ndim:
            raise ValueError(f"pad_width needs one (lower, upper) pair per axis: {value.ndim} pairs, not {len(pad_width)}")
        widths = tuple((int(lower), int(upper)) for lower, upper in pad_width)
        if mode == "constant":
            return jnp.pad(value, widths, mode="constant", constant_values=jnp.asarray(constant_values, value.dtype))
        return jnp.pad(value, widths, mode=_PAD_MODES[mode])

    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        return jnp.flip(self._t(value), tuple(axes))

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` as `(batch, diagonal, channels)`."""
        return jnp.moveaxis(jnp.diagonal(self._t(matrices), offset=offset, axis1=1, axis2=2), -1, 1)

    def batch_gather(self, tensor: Tensor, batches: Any) -> Tensor:
        """The entries `batches` (an int or a list of ints) of the first dimension."""
        indices = [batches] if isinstance(batches, int) else list(batches)
        return jnp.take(self._t(tensor), jnp.asarray(indices, np.int32), axis=0)

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
        """Rounds halves to even, as NumPy."""
        x = self._t(x)
        return jnp.round(x) if is_inexact(x) else x

    def ceil(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return jnp.ceil(x) if is_inexact(x) else x

    def floor(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return jnp.floor(x) if is_inexact(x) else x

    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        return jnp.maximum(*self._operands(a, b))

    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        return jnp.minimum(*self._operands(a, b))

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]` in the type of `x`; NaN stays NaN."""
        x = self._t(x)
        lower = minimum if isinstance(minimum, (int, float)) else self._t(minimum).astype(x.dtype)
        upper = maximum if isinstance(maximum, (int, float)) else self._t(maximum).astype(x.dtype)
        return jnp.minimum(jnp.maximum(x, lower), upper).astype(x.dtype)

    def sqrt(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.sqrt, x)

    def exp(self, x: Tensor) -> Tensor:
        return self._float_op(jnp.exp, x)

    def erf(self, x: Tensor) -> Tensor:
        return self._float_op(jss.erf, x)

    def softplus(self, x: Tensor) -> Tensor:
        return self._float_op(jax.nn.softplus, x)

    def sigmoid(self, x: Tensor) -> Tensor:
        return self._float_op(jax.nn.sigmoid, x)

    def log_gamma(self, x: Tensor) -> Tensor:
        return self._float_op(jax.lax.lgamma, x)

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        return jss.gammainc(*self._float_pair(a, x))

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        return jss.gammaincc(*self._float_pair(a, x))

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
        return jnp.arctan2(*self._float_pair(y, x))

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
        x = self._t(x)
        return jnp.conjugate(x) if jnp.iscomplexobj(x) else x

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, 0 where `y` is 0; the masked division keeps gradients finite."""
        x, y = self._float_pair(x, y)
        zero = y == 0
        return jnp.where(zero, jnp.zeros((), jnp.result_type(x, y)), x / jnp.where(zero, jnp.ones_like(y), y))

    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`; without `x` and `y` the `(nnz, ndims)` indices of true
        elements (a data-dependent shape: not usable under jit, use `nonzero(length=...)` there)."""
        condition = self._t(condition)
        if x is None or y is None:
            return jnp.argwhere(condition)
        x, y = self._operands(x, y)
        return jnp.where(condition.astype(bool), x, y)

    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        x, y = self._operands(x, y)
        return x == y

    # ------------------------------------------------------------ operators

    def _operands(self, a: Tensor, b: Tensor, bool_to_int: bool = False, to_float: bool = False) -> tuple[Tensor, Tensor]:
        """Operands of a binary operator in their common type, by `Backend.auto_cast`: a Python number
        is weak, as in JAX (`float16 array + 1.5` stays float16; an int array with a float number gives
        the float type); under `bk.precision(p)` floats take that precision."""
        a, b = self.auto_cast(a if _is_number(a) else self._t(a), b if _is_number(b) else self._t(b), bool_to_int=bool_to_int, int_to_float=to_float)  # type: ignore[attr-defined]
        return a, b

    def add(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._operands(a, b, bool_to_int=True)
        return a + b

    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._operands(a, b, bool_to_int=True)
        return a - b

    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._operands(a, b)
        return a * b

    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """True division; integers divide as the float type of the precision (float32 by default)."""
        numerator, denominator = self._operands(numerator, denominator, to_float=True)
        return numerator / denominator

    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        base, exp = self._operands(base, exp)
        return base**exp

    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor, as in Python."""
        dividend, divisor = self._operands(dividend, divisor)
        return dividend % divisor

    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._operands(a, b)
        return a // b

    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        x, y = self._operands(x, y)
        return x > y

    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        x, y = self._operands(x, y)
        return x >= y

    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        x, y = self._operands(x, y)
        return x != y

    # ------------------------------------------------------------ reductions

    def _stacked(self, value: Tensor) -> Tensor:
        """A list of tensors as one stacked array; other values as arrays."""
        if isinstance(value, (tuple, list)) and _contains_arrays(value):
            return self.stack(value)
        return self._t(value)

    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return jnp.sum(self._stacked(value), axis=_axes(axis), keepdims=keepdims)

    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        value = self._t(value)
        if value.dtype == np.bool_:
            return jnp.all(value, axis=_axes(axis))
        return jnp.prod(value, axis=_axes(axis))

    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return self._float_op(lambda v: jnp.mean(v, axis=_axes(axis), keepdims=keepdims), value)

    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation (`ddof=0`, as NumPy)."""
        return self._float_op(lambda v: jnp.std(v, axis=_axes(axis), keepdims=keepdims), x)

    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return jnp.max(self._t(x), axis=_axes(axis), keepdims=keepdims)

    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return jnp.min(self._t(x), axis=_axes(axis), keepdims=keepdims)

    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return jnp.any(self._stacked(boolean_tensor), axis=_axes(axis), keepdims=keepdims)

    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        return jnp.all(self._stacked(boolean_tensor), axis=_axes(axis), keepdims=keepdims)

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        return jnp.argmax(self._t(x), axis=axis, keepdims=keepdims)

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        return jnp.argmin(self._t(x), axis=axis, keepdims=keepdims)

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        return jnp.cumsum(self._t(x), axis=axis)

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Linear-interpolation quantiles of the last axis, shaped `(quantiles, *x.shape[:-1])`."""
        x = self._t(x)
        x = x if is_inexact(x) else self.to_float(x)  # type: ignore[attr-defined]
        return jnp.quantile(x, jnp.asarray(quantiles, x.dtype), axis=-1)


def _is_number(x: Any) -> bool:
    """Whether `x` is a Python number (weakly typed in JAX), not a NumPy scalar or an array."""
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _contains_arrays(values: Sequence[Any]) -> bool:
    return any(isinstance(v, (jax.Array, np.ndarray)) for v in values)
