"""Shape manipulation, elementwise maths and reductions on native PyTorch operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

Tensor = Any

_PAD_MODES = ("constant", "boundary", "periodic", "symmetric", "reflect")


def _axes(axis: Any) -> Any:
    """An axis argument as PyTorch takes it: None, an int, or a tuple."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(int(a) for a in axis)


class MathMixin:
    """Shape manipulation, elementwise maths and reductions of `TorchBackend`."""

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        return torch.reshape(self._t(value), tuple(int(s) for s in shape))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        return torch.permute(self._t(tensor), tuple(axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        a = self._t(a)
        for _ in range(number):
            a = torch.unsqueeze(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        tensors = self.auto_cast(*[self._t(v) for v in values])
        self._same_device(*tensors)
        return torch.stack(tensors, dim=axis)

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        tensors = self.auto_cast(*[self._t(v) for v in values])
        self._same_device(*tensors)
        return torch.cat(tensors, dim=axis)

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        return torch.tile(self._t(value), tuple(int(m) for m in multiples))

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats elements along `axis`; with `new_length`, extra entries repeat the last element or are cut."""
        x = self._t(x)
        if new_length is None:
            repeats = repeats if isinstance(repeats, int) else self._t(repeats).to(x.device)
            return torch.repeat_interleave(x, repeats, dim=axis)
        size = x.shape[axis]
        repeats = self._t(repeats).to(x.device)
        indices = torch.repeat_interleave(torch.arange(size, device=x.device), repeats)
        if indices.shape[0] < new_length:
            last = indices[-1:] if indices.shape[0] else torch.full((1,), size - 1, device=x.device)
            indices = torch.cat([indices, last.expand(new_length - indices.shape[0])])
        return torch.index_select(x, axis, indices[:new_length])

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis; all modes work on any number of dimensions (non-constant modes gather indices).

        Raises:
            ValueError: for an unknown mode or a wrong number of `pad_width` pairs.
        """
        value = self._t(value)
        if mode not in _PAD_MODES:
            raise ValueError(f"pad mode must be one of {_PAD_MODES} but got {mode!r}")
        if len(pad_width) != value.ndim:
            raise ValueError(f"pad_width needs one (lower, upper) pair per axis: {value.ndim} pairs, not {len(pad_width)}")
        if mode == "constant":
            flat = [int(w) for pair in reversed(pad_width) for w in pair]
            if isinstance(constant_values, torch.Tensor):
                constant_values = constant_values.item()
            return torch.nn.functional.pad(value, flat, mode="constant", value=constant_values)
        for axis, (lower, upper) in enumerate(pad_width):
            if lower or upper:
                value = torch.index_select(
                    value, axis, _pad_indices(value.shape[axis], int(lower), int(upper), mode, value.device)
                )
        return value

    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        return torch.flip(self._t(value), tuple(axes))

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` as `(batch, diagonal, channels)`."""
        return torch.diagonal(self._t(matrices), offset=offset, dim1=1, dim2=2).permute(0, 2, 1)

    # ------------------------------------------------------------ elementwise maths

    def _float_op(self, op: Any, x: Tensor) -> Tensor:
        """Applies a float-only operation; integers and booleans become floats first."""
        x = self._t(x)
        return op(x if x.is_floating_point() or x.is_complex() else self.to_float(x))

    def abs(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return x if x.dtype == torch.bool else torch.abs(x)

    def sign(self, x: Tensor) -> Tensor:
        x = self._t(x)
        if x.is_complex():
            return torch.sgn(x)
        if x.is_floating_point():  # NaN keeps its sign NaN, as in NumPy (torch.sign gives 0)
            return torch.where(torch.isnan(x), x, torch.sign(x))
        return torch.sign(x)

    def round(self, x: Tensor) -> Tensor:
        """Rounds halves to even, as NumPy."""
        x = self._t(x)
        return torch.round(x) if x.is_floating_point() else x

    def ceil(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.ceil(x) if x.is_floating_point() else x

    def floor(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.floor(x) if x.is_floating_point() else x

    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self.auto_cast(self._t(a), self._t(b))
        self._same_device(a, b)
        return torch.maximum(a, b)

    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        a, b = self.auto_cast(self._t(a), self._t(b))
        self._same_device(a, b)
        return torch.minimum(a, b)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        x = self._t(x)
        if isinstance(minimum, torch.Tensor) or isinstance(maximum, torch.Tensor):
            lo, hi = self._t(minimum).to(x.device), self._t(maximum).to(x.device)
            x, lo, hi = self.auto_cast(x, lo, hi)
            return torch.minimum(torch.maximum(x, lo), hi)
        return torch.clamp(x, minimum, maximum)

    def sqrt(self, x: Tensor) -> Tensor:
        return self._float_op(torch.sqrt, x)

    def exp(self, x: Tensor) -> Tensor:
        return self._float_op(torch.exp, x)

    def erf(self, x: Tensor) -> Tensor:
        return self._float_op(torch.erf, x)

    def softplus(self, x: Tensor) -> Tensor:
        return self._float_op(torch.nn.functional.softplus, x)

    def sigmoid(self, x: Tensor) -> Tensor:
        return self._float_op(torch.sigmoid, x)

    def log_gamma(self, x: Tensor) -> Tensor:
        return self._float_op(torch.lgamma, x)

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        a, x = self.auto_cast(self._t(a), self._t(x), int_to_float=True, bool_to_int=True)
        return torch.special.gammainc(a, x)

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        a, x = self.auto_cast(self._t(a), self._t(x), int_to_float=True, bool_to_int=True)
        return torch.special.gammaincc(a, x)

    def sin(self, x: Tensor) -> Tensor:
        return self._float_op(torch.sin, x)

    def arcsin(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arcsin, x)

    def cos(self, x: Tensor) -> Tensor:
        return self._float_op(torch.cos, x)

    def arccos(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arccos, x)

    def tan(self, x: Tensor) -> Tensor:
        return self._float_op(torch.tan, x)

    def arctan(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arctan, x)

    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        y, x = self.auto_cast(self._t(y), self._t(x), int_to_float=True, bool_to_int=True)
        return torch.arctan2(y, x)

    def sinh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.sinh, x)

    def arcsinh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arcsinh, x)

    def cosh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.cosh, x)

    def arccosh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arccosh, x)

    def tanh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.tanh, x)

    def arctanh(self, x: Tensor) -> Tensor:
        return self._float_op(torch.arctanh, x)

    def log(self, x: Tensor) -> Tensor:
        return self._float_op(torch.log, x)

    def log2(self, x: Tensor) -> Tensor:
        return self._float_op(torch.log2, x)

    def log10(self, x: Tensor) -> Tensor:
        return self._float_op(torch.log10, x)

    def isfinite(self, x: Tensor) -> Tensor:
        return torch.isfinite(self._t(x))

    def isnan(self, x: Tensor) -> Tensor:
        return torch.isnan(self._t(x))

    def isinf(self, x: Tensor) -> Tensor:
        return torch.isinf(self._t(x))

    def real(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.real(x) if x.is_complex() else x

    def imag(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.imag(x) if x.is_complex() else torch.zeros_like(x)

    def conj(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.conj_physical(x) if x.is_complex() else x

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, 0 where `y` is 0; the masked division keeps gradients finite."""
        x, y = self.auto_cast(self._t(x), self._t(y), int_to_float=True, bool_to_int=True)
        zero = y == 0
        return torch.where(zero, torch.zeros_like(x / torch.ones_like(y)), x / torch.where(zero, torch.ones_like(y), y))

    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        condition = self._t(condition)
        if x is None or y is None:
            return torch.argwhere(condition)
        x, y = self.auto_cast(self._t(x), self._t(y))
        self._same_device(condition, x, y)
        return torch.where(condition.to(torch.bool), x, y)

    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        x, y = self.auto_cast(self._t(x), self._t(y))
        self._same_device(x, y)
        return torch.eq(x, y)

    # ------------------------------------------------------------ reductions

    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        if isinstance(value, (tuple, list)) and not all(isinstance(v, (int, float, bool, complex)) for v in value):
            value = self.stack(value)
        value = self._t(value)
        if axis is None or axis == ():
            return torch.sum(value) if not keepdims else torch.sum(value, dim=tuple(range(value.ndim)), keepdim=True)
        return torch.sum(value, dim=_axes(axis), keepdim=keepdims)

    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        value = self._t(value)
        if value.dtype == torch.bool:
            return self.all(value, axis)
        if axis is None:
            return torch.prod(value)
        for a in sorted((axis,) if isinstance(axis, int) else {a % value.ndim for a in axis}, reverse=True):
            value = torch.prod(value, dim=a)
        return value

    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        value = self._t(value)
        value = value if value.is_floating_point() or value.is_complex() else self.to_float(value)
        if axis is None:
            return torch.mean(value) if not keepdims else torch.mean(value, dim=tuple(range(value.ndim)), keepdim=True)
        return torch.mean(value, dim=_axes(axis), keepdim=keepdims)

    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation (`correction=0`, as NumPy)."""
        x = self._t(x)
        x = x if x.is_floating_point() or x.is_complex() else self.to_float(x)
        return torch.std(x, dim=_axes(axis), correction=0, keepdim=keepdims)

    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        x = self._t(x)
        if axis is None and not keepdims:
            return torch.max(x)
        return torch.amax(x, dim=() if axis is None else _axes(axis), keepdim=keepdims)

    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        x = self._t(x)
        if axis is None and not keepdims:
            return torch.min(x)
        return torch.amin(x, dim=() if axis is None else _axes(axis), keepdim=keepdims)

    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        if isinstance(boolean_tensor, (tuple, list)):
            boolean_tensor = self.stack(boolean_tensor)
        value = self._t(boolean_tensor)
        if axis is None and not keepdims:
            return torch.any(value)
        return torch.any(value, dim=tuple(range(value.ndim)) if axis is None else _axes(axis), keepdim=keepdims)

    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        if isinstance(boolean_tensor, (tuple, list)):
            boolean_tensor = self.stack(boolean_tensor)
        value = self._t(boolean_tensor)
        if axis is None and not keepdims:
            return torch.all(value)
        return torch.all(value, dim=tuple(range(value.ndim)) if axis is None else _axes(axis), keepdim=keepdims)

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        return torch.argmax(self._t(x), dim=axis, keepdim=keepdims)

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        return torch.argmin(self._t(x), dim=axis, keepdim=keepdims)

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        x = self._t(x)
        return torch.cumsum(x, dim=axis)

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Linear-interpolation quantiles of the last axis, shaped `(quantiles, *x.shape[:-1])`."""
        x = self._t(x)
        x = x if x.is_floating_point() else self.to_float(x)
        q = torch.as_tensor(quantiles, dtype=x.dtype, device=x.device)
        return torch.quantile(x, q, dim=-1)


def _pad_indices(size: int, lower: int, upper: int, mode: str, device: torch.device) -> torch.Tensor:
    """Source indices of a padded axis for the non-constant modes."""
    i = torch.arange(-lower, size + upper, device=device)
    if mode == "boundary":
        return torch.clamp(i, 0, size - 1)
    if mode == "periodic":
        return torch.remainder(i, size)
    if mode == "symmetric":  # edge values repeat: period 2 * size
        i = torch.remainder(i, 2 * size)
        return torch.where(i < size, i, 2 * size - 1 - i)
    if size == 1:  # reflect: edge values do not repeat: period 2 * (size - 1)
        return torch.zeros_like(i)
    i = torch.remainder(i, 2 * (size - 1))
    return torch.where(i < size, i, 2 * (size - 1) - i)
