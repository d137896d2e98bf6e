"""Shape manipulation, elementwise maths and reductions on native PyTorch operations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from bk import check_tensor_argument, explain_failure, get_precision, normalize_axes, normalize_axis
from bk.rules import SETTINGS as _GLOBALS
from bk.rules import (
    accumulation_type,
    advanced_index,
    array_key_layout,
    check_nonempty,
    framework_call,
    kernel,
    ordered_extreme,
    pad_source_indices,
)
from bk.rules import quantile as quantile_rule

from ._dtypes import from_torch_dtype

_REAL_FLOATS = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
_INEXACT = _REAL_FLOATS | {torch.complex64, torch.complex128}  # the dtypes of the hot paths of `sum`, `mean` and `max`

Tensor = Any

_HOT_UNARY = (
    "a hot unary function that handles every dtype itself as docs/semantics.md says (bools, ints and complex "
    "values included), where a plan would cost more on small tensors"
)
"""Why `abs`, `round`, `isfinite`, `isnan`, `isinf`, `real`, `imag` and `conj` are trusted."""

_HOT_REDUCTION = (
    "a hot reduction that checks its axes and applies the accumulation dtypes, the empty-reduction errors and "
    "NumPy's order of complex values itself, with bk.rules, where a plan would cost more on small tensors"
)
"""Why the reductions `sum`, `prod`, `mean`, `std`, `max`, `min`, `any` and `all` are trusted."""

_FAILURES = (TypeError, ValueError, IndexError, RuntimeError)  # what the kernels that explain their failures map
_EXPLAINED = _HOT_REDUCTION + "; it maps its own failures (bk.explain_failure), so nothing at all precedes it"
"""Why `sum`, `mean` and `max`, which explain their failures inline around their hot case, are trusted."""


def _float_function(function: Callable[[Any], Any], name: str) -> Callable[..., Any]:
    """The kernel of a function of floats (`sqrt`, `exp`, `sin`, `log`, ...): `function(x)` alone, planned. The
    core's plan gives it floats (ints and bools in the default float, or the precision's); the tensors it would
    give as they are (float and complex ones) go to PyTorch at once, through the fast call in front of the plan
    (`bk.rules.framework_call`, in C; the core derives its dtypes)."""

    def computed(self: Any, x: Tensor) -> Tensor:
        return function(x)

    computed.__name__ = computed.__qualname__ = name
    computed.__doc__ = f"`torch.{name}` of floats (ints and bools in the default float type)."
    return kernel(fast=framework_call(function, torch.Tensor, 1))(computed)


def _axes(axis: Any) -> Any:
    """An axis argument as PyTorch takes it: None, an int, or a tuple."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(int(a) for a in axis)


class MathMixin:
    """Shape manipulation, elementwise maths and reductions of `TorchBackend`."""

    # ------------------------------------------------------------ shape manipulation

    @kernel(
        fast=lambda self, value, shape: (
            torch.reshape(value, shape) if type(value) is torch.Tensor and type(shape) is tuple else NotImplemented
        )
    )
    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        return torch.reshape(self._t(value), tuple(int(s) for s in shape))  # the plan has checked the sizes

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        tensor = self._t(tensor)
        return torch.permute(tensor, tuple(normalize_axis(a, tensor.ndim, "transpose") for a in axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new axes of size 1 at `axis` (an axis of the result; negative counts from its end)."""
        a = self._t(a)
        if number == 0:
            return a
        axis = normalize_axis(axis, a.ndim + 1, "expand_dims")
        for _ in range(number):
            a = torch.unsqueeze(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        tensors = self.auto_cast(*[self._t(v) for v in values])
        self._same_device(*tensors)
        axis = normalize_axis(axis, tensors[0].ndim + 1, "stack") if tensors else axis
        return torch.stack(tensors, dim=axis)  # the spec checks the shapes first

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        tensors = self.auto_cast(*[self._t(v) for v in values])
        self._same_device(*tensors)
        axis = normalize_axis(axis, tensors[0].ndim, "concat") if tensors else axis
        return torch.cat(tensors, dim=axis)  # the spec checks the shapes first

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        return torch.tile(self._t(value), tuple(int(m) for m in multiples))

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats elements along `axis`; with `new_length`, extra entries repeat the last element or are cut."""
        x = self._t(x)
        axis = normalize_axis(axis, x.ndim, "repeat")
        if new_length is None:
            # torch counts repeats in int64 only ("repeat_interleave_cpu" not implemented for int8)
            repeats = repeats if isinstance(repeats, int) else self._t(repeats).to(x.device, torch.int64)
            return _from_signed(
                torch.repeat_interleave(_bits_as_signed(x), repeats, dim=axis), x.dtype
            )  # errors: the core's spec
        size = x.shape[axis]
        repeats = self._t(repeats).to(x.device, torch.int64)
        indices = torch.repeat_interleave(torch.arange(size, device=x.device), repeats)
        if indices.shape[0] < new_length:
            last = indices[-1:] if indices.shape[0] else torch.full((1,), size - 1, device=x.device)
            indices = torch.cat([indices, last.expand(new_length - indices.shape[0])])
        return _select(x, axis, indices[:new_length])

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis; all modes work on any number of dimensions (non-constant modes gather indices).
        The spec checks the mode and the widths, and refuses extending an empty axis in a mode other than
        'constant'.
        """
        value = self._t(value)
        mode = "periodic" if mode == "circular" else mode  # PyTorch's name
        if mode == "constant":
            flat = [int(w) for pair in reversed(pad_width) for w in pair]
            if isinstance(constant_values, torch.Tensor):
                constant_values = constant_values.item()
            return torch.nn.functional.pad(value, flat, mode="constant", value=constant_values)
        for axis, (lower, upper) in enumerate(pad_width):
            if lower or upper:
                value = _select(
                    value,
                    axis,
                    torch.as_tensor(pad_source_indices(value.shape[axis], int(lower), int(upper), mode), device=value.device),
                )
        return value

    def flip(self, value: Tensor, axes: int | Sequence[int]) -> Tensor:
        """`value` reversed along `axes`, an int or a sequence of ints.

        Raises:
            AxisError: for an axis out of range or named twice.
        """
        value = self._t(value)
        if not isinstance(axes, Sequence) and hasattr(axes, "__iter__") and not hasattr(axes, "__index__"):
            axes = tuple(axes)  # a generator or a set
        axes = normalize_axes(axes, value.ndim, "flip")
        flipped = torch.flip(_bits_as_signed(value), tuple(range(value.ndim)) if axes is None else axes)
        return _narrowed(flipped, value.dtype) if value.dtype in _WIDE_UNSIGNED else flipped

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]` for a tuple of slices (negative steps too), ints, `None`, `...` and integer or
        bool tensors (the spec refuses an int outside `[-size, size)`; the core explains PyTorch's
        `IndexError`). PyTorch places the axes of integer tensors as NumPy does unless ints stand
        apart from them, which NumPy counts as arrays: such keys go through `bk.rules.advanced_index`."""
        tensor = self._t(tensor)
        slices = tuple(slices) if isinstance(slices, (tuple, list)) else (slices,)
        if not array_key_layout(slices)[1]:
            return advanced_index(self, tensor, slices, _sliced)  # type: ignore[arg-type]
        return _sliced(tensor, slices)

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` as `(batch, diagonal, channels)`."""
        return torch.diagonal(self._t(matrices), offset=offset, dim1=1, dim2=2).permute(0, 2, 1)

    # ------------------------------------------------------------ elementwise maths

    def _float_op(self, op: Any, x: Tensor) -> Tensor:
        """Applies a float-only operation; integers and booleans become floats first."""
        x = self._t(x)
        return op(x if x.is_floating_point() or x.is_complex() else self.to_float(x))

    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values: of the precision when one is set, else complex128 for float64 and
        complex values, complex64 for everything else."""
        x = self._t(x)
        if get_precision() is None and (x.is_complex() or x.dtype == torch.float64):
            return x if x.is_complex() else x.to(torch.complex128)
        return self.cast(x, self.complex_type)

    @kernel(trusted=True, why=_HOT_UNARY)
    def abs(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return x if x.dtype == torch.bool or x.dtype == torch.uint8 or x.dtype in _WIDE_UNSIGNED else torch.abs(x)

    def sign(self, x: Tensor) -> Tensor:
        """-1, 0 or 1 by the sign of `x` (0 or 1 for unsigned ints; `x / |x|` for complex values); the
        spec refuses booleans (PyTorch would give them back)."""
        if x.dtype in _WIDE_UNSIGNED:  # no PyTorch kernel
            return (x != 0).to(x.dtype)
        if x.is_complex():
            return torch.sgn(x)
        if x.is_floating_point():  # NaN keeps its sign NaN, as in NumPy (torch.sign gives 0)
            return torch.where(torch.isnan(x), x, torch.sign(x))
        return torch.sign(x)

    @kernel(trusted=True, why=_HOT_UNARY)
    def round(self, x: Tensor) -> Tensor:
        """Rounds halves to even, as NumPy; complex values part by part (as NumPy; PyTorch returned
        them unchanged); integers and booleans stay as they are."""
        x = self._t(x)
        if x.is_complex():
            return torch.complex(torch.round(x.real), torch.round(x.imag))
        return torch.round(x) if x.is_floating_point() else x

    def ceil(self, x: Tensor) -> Tensor:
        """Smallest integer not below `x`; integers and booleans stay as they are (the plan refuses complex values)."""
        return torch.ceil(x) if x.is_floating_point() else x

    def floor(self, x: Tensor) -> Tensor:
        """Largest integer not above `x`; integers and booleans stay as they are (the plan refuses complex values)."""
        return torch.floor(x) if x.is_floating_point() else x

    sqrt = _float_function(torch.sqrt, "sqrt")

    exp = _float_function(torch.exp, "exp")

    erf = _float_function(torch.erf, "erf")

    def softplus(self, x: Tensor) -> Tensor:
        """`log(1 + exp(x))` of the real floats the plan gives (it refuses complex values)."""
        return torch.nn.functional.softplus(x)

    def sigmoid(self, x: Tensor) -> Tensor:
        """`1 / (1 + exp(-x))` of the real floats the plan gives (it refuses complex values, which PyTorch would compute)."""
        return torch.sigmoid(x)

    def log_gamma(self, x: Tensor) -> Tensor:
        """`log(|gamma(x)|)` of the real floats the plan gives (it refuses complex values)."""
        return torch.lgamma(x)

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        """The regularized lower incomplete gamma function of the floats the plan gives."""
        return torch.special.gammainc(a, x)

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        """The regularized upper incomplete gamma function of the floats the plan gives."""
        return torch.special.gammaincc(a, x)

    sin = _float_function(torch.sin, "sin")

    arcsin = _float_function(torch.arcsin, "arcsin")

    cos = _float_function(torch.cos, "cos")

    arccos = _float_function(torch.arccos, "arccos")

    tan = _float_function(torch.tan, "tan")

    arctan = _float_function(torch.arctan, "arctan")

    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of the point `(x, y)`, of the real floats the plan gives (it refuses complex values)."""
        return torch.arctan2(y, x)

    sinh = _float_function(torch.sinh, "sinh")

    arcsinh = _float_function(torch.arcsinh, "arcsinh")

    cosh = _float_function(torch.cosh, "cosh")

    arccosh = _float_function(torch.arccosh, "arccosh")

    tanh = _float_function(torch.tanh, "tanh")

    arctanh = _float_function(torch.arctanh, "arctanh")

    log = _float_function(torch.log, "log")

    log2 = _float_function(torch.log2, "log2")

    log10 = _float_function(torch.log10, "log10")

    @kernel(trusted=True, why=_HOT_UNARY)
    def isfinite(self, x: Tensor) -> Tensor:
        return torch.isfinite(self._t(x))

    @kernel(trusted=True, why=_HOT_UNARY)
    def isnan(self, x: Tensor) -> Tensor:
        return torch.isnan(self._t(x))

    @kernel(trusted=True, why=_HOT_UNARY)
    def isinf(self, x: Tensor) -> Tensor:
        return torch.isinf(self._t(x))

    @kernel(trusted=True, why=_HOT_UNARY)
    def real(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.real(x) if x.is_complex() else x

    @kernel(trusted=True, why=_HOT_UNARY)
    def imag(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.imag(x) if x.is_complex() else torch.zeros_like(x)

    @kernel(trusted=True, why=_HOT_UNARY)
    def conj(self, x: Tensor) -> Tensor:
        x = self._t(x)
        return torch.conj_physical(x) if x.is_complex() else x

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, 0 where `y` is 0, of the floats the plan gives; the masked division keeps gradients finite."""
        zero = y == 0
        return torch.where(zero, 0, x / torch.where(zero, 1, y))

    # ------------------------------------------------------------ reductions

    def _reduce_input(self, value: Tensor, axis: Any, op: str) -> tuple[torch.Tensor, tuple[int, ...] | None]:
        """The tensor to reduce (lists of tensors stacked) and its checked axes (`None`: all)."""
        check_tensor_argument(value, op)
        if isinstance(value, (tuple, list)) and not all(isinstance(v, (int, float, bool, complex)) for v in value):
            value = self.stack(value)
        x = self._t(value)
        return x, normalize_axes(axis, x.ndim, op)

    @kernel(trusted=True, explains=True, why=_EXPLAINED)
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis`; bool and narrow integers widen to int64 (uint64 for unsigned), as NumPy 2."""
        if axis is None and keepdims is False and type(value) is torch.Tensor and value.dtype in _INEXACT:
            return torch.sum(value)  # the hot path: every axis of floats, as below
        try:
            if keepdims.__class__ is not bool:  # the spec's verdict, named by explain_failure (no wrapper checks this kernel)
                raise TypeError("keepdims")
            x, axes = self._reduce_input(value, axis, "sum")
            x, result = _widened(x)
            if axes == ():
                return _narrowed(x, result)
            total = (
                torch.sum(x, dim=axes if axes is not None else tuple(range(x.ndim)), keepdim=keepdims) if x.ndim else x.clone()
            )
            return _narrowed(total, result)
        except _FAILURES as error:  # mapped here: a trusted kernel that explains its failures
            explain_failure(self, "sum", error, (value, axis, keepdims), {})

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and narrow integers widen to int64 (uint64 for unsigned), as NumPy 2."""
        x, axes = self._reduce_input(value, axis, "prod")
        x, result = _widened(x)
        if axes == () and x.is_complex():  # multiplied by 1, as NumPy does (complex infinities gain a NaN part)
            return x * torch.ones((), dtype=x.dtype, device=x.device)
        for a in reversed(axes if axes is not None else range(x.ndim)):
            x = torch.prod(x, dim=a)
        return _narrowed(x, result)

    @kernel(trusted=True, explains=True, why=_EXPLAINED)
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`; integers and booleans give the default float, NaN for empty inputs."""
        try:
            if (
                type(value) is torch.Tensor
                and type(axis) is int
                and value.dtype in _INEXACT
                and -value.ndim <= axis < value.ndim
                and _GLOBALS.precision_free
            ):
                return torch.mean(value, axis, keepdims)  # the hot case, inlined: floats over one axis
            if keepdims.__class__ is not bool:  # the spec's verdict, named by explain_failure (no wrapper checks this kernel)
                raise TypeError("keepdims")
            return self._mean(value, axis, keepdims)
        except _FAILURES as error:  # mapped here: a trusted kernel that explains its failures
            explain_failure(self, "mean", error, (value, axis, keepdims), {})

    def _mean(self, value: Tensor, axis: Any, keepdims: bool) -> Tensor:
        x, axes = self._reduce_input(value, axis, "mean")
        x = x if x.is_floating_point() or x.is_complex() else self.to_float(_signed(x))
        if axes == () or x.ndim == 0:  # divided by a count of 1, as NumPy does (complex infinities gain a NaN part)
            return x / torch.ones((), dtype=x.dtype, device=x.device) if x.is_complex() else x.clone()
        return torch.mean(x, dim=axes if axes is not None else tuple(range(x.ndim)), keepdim=keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation (`correction=0`, as NumPy); real-valued for complex inputs."""
        x, axes = self._reduce_input(x, axis, "std")
        x = x if x.is_floating_point() or x.is_complex() else self.to_float(_signed(x))
        if axes == () or x.ndim == 0:
            return torch.abs(x - x)  # 0, or NaN where x is not finite, as NumPy
        dims = axes if axes is not None else tuple(range(x.ndim))
        if x.numel() == 0:  # NaN (or nothing) without PyTorch's degrees-of-freedom warning
            shape = (
                [1 if a in dims else s for a, s in enumerate(x.shape)]
                if keepdims
                else [s for a, s in enumerate(x.shape) if a not in dims]
            )
            return torch.full(shape, float("nan"), dtype=x.real.dtype, device=x.device)
        return torch.std(x, dim=dims, correction=0, keepdim=keepdims)

    @kernel(trusted=True, explains=True, why=_EXPLAINED)
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates; an empty reduction raises ValueError."""
        if axis is None and keepdims is False and type(x) is torch.Tensor and x.dtype in _REAL_FLOATS and x.numel():
            return torch.amax(x)  # the hot path: every axis of real floats, as _extremum does
        try:
            if keepdims.__class__ is not bool:  # the spec's verdict, named by explain_failure (no wrapper checks this kernel)
                raise TypeError("keepdims")
            return self._extremum(x, axis, keepdims, "max", torch.amax)
        except _FAILURES as error:  # mapped here: a trusted kernel that explains its failures
            explain_failure(self, "max", error, (x, axis, keepdims), {})

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates; an empty reduction raises ValueError."""
        return self._extremum(x, axis, keepdims, "min", torch.amin)

    def _extremum(self, x: Tensor, axis: Any, keepdims: bool, op: str, function: Any) -> Tensor:
        x, axes = self._reduce_input(x, axis, op)
        if axes == ():
            return x
        check_nonempty(op, x.shape, axes)
        dims = axes if axes is not None else tuple(range(x.ndim))
        if x.ndim == 0:
            return x.clone()
        if x.is_complex():  # PyTorch orders no complex values: the core's composite of NumPy's order
            return ordered_extreme(self, x, dims, keepdims, op == "max")
        ordered, dtype = _ordered(x)
        return _from_ordered(function(ordered, dim=dims, keepdim=keepdims), dtype)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is non-zero; always bool."""
        x, axes = self._reduce_input(boolean_tensor, axis, "any")
        x = x if x.dtype == torch.bool else x != 0
        if axes == () or x.ndim == 0:
            return x
        if axes is None and not keepdims:
            return torch.any(x)
        return torch.any(x, dim=axes if axes is not None else tuple(range(x.ndim)), keepdim=keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether every element along `axis` is non-zero; always bool."""
        x, axes = self._reduce_input(boolean_tensor, axis, "all")
        x = x if x.dtype == torch.bool else x != 0
        if axes == () or x.ndim == 0:
            return x
        if axes is None and not keepdims:
            return torch.all(x)
        return torch.all(x, dim=axes if axes is not None else tuple(range(x.ndim)), keepdim=keepdims)

    def argmax(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Index of the maximum (the first NaN wins); `axis=None` gives a flat index; int64."""
        return self._arg_extremum(x, axis, keepdims, "argmax", torch.argmax)

    def argmin(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Index of the minimum (the first NaN wins); `axis=None` gives a flat index; int64."""
        return self._arg_extremum(x, axis, keepdims, "argmin", torch.argmin)

    def _arg_extremum(self, x: Tensor, axis: Any, keepdims: bool, op: str, function: Any) -> Tensor:
        x = self._t(x)
        dim = None if axis is None else normalize_axis(axis, x.ndim, op)
        if dim is None:
            # spec gap: the spec's signature (as the catalogue's) has no default for axis, so a call without
            # one gets no verdict before the kernel; the spec decides every call that names an axis (None too).
            check_nonempty(op, x.shape, None)
        ordered, _ = _ordered(x.to(torch.uint8) if x.dtype == torch.bool else x)
        if dim is None:
            index = function(ordered)
            return index.reshape((1,) * x.ndim) if keepdims else index
        return function(ordered, dim=dim, keepdim=keepdims)

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum; bool and narrow integers widen as in `sum`."""
        x = self._t(x)
        dim = normalize_axis(axis, x.ndim, "cumsum")
        x, result = _widened(x)
        return _narrowed(torch.cumsum(x, dim=dim), result)

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Linear-interpolation quantiles of the last axis, shaped `(quantiles, *x.shape[:-1])` (`bk.rules`
        checks and shapes; `torch.quantile` computes where it can)."""
        return quantile_rule(self, self._t(x), quantiles, _torch_quantile)  # type: ignore[arg-type]


def _torch_quantile(x: torch.Tensor, q: Any) -> Any:
    """`torch.quantile` along the last axis for 1-D `q`; `NotImplemented` where PyTorch refuses the input
    (no elements, or more than 2**24), so that the core's composite computes it."""
    if x.numel() == 0 or x.numel() > 2**24:
        return NotImplemented
    wide = x if x.dtype in (torch.float32, torch.float64) else x.to(torch.float32)  # PyTorch: float and double only
    return torch.quantile(wide, torch.as_tensor(q, dtype=wide.dtype, device=x.device), dim=-1)


def _negative_steps(tensor: torch.Tensor, slices: tuple[Any, ...]) -> tuple[torch.Tensor, tuple[Any, ...]]:
    """Applies the slices with negative steps (which PyTorch refuses) as index selections; returns the rest."""
    count = sum(1 for s in slices if s is not Ellipsis and s is not None)
    rest, axis = [], 0
    for item in slices:
        if item is Ellipsis:
            axis += tensor.ndim - count
            rest.append(item)
            continue
        if item is None:
            rest.append(item)
            continue
        if isinstance(item, slice) and item.step is not None and int(item.step) < 0:
            index = torch.arange(*item.indices(tensor.shape[axis]), device=tensor.device)
            tensor = _select(tensor, axis, index)
            item = slice(None)
        rest.append(item)
        axis += 1
    return tensor, tuple(rest)


# ---------------------------------------------------------------- integer helpers

_WIDE_UNSIGNED = {getattr(torch, f"uint{b}") for b in (16, 32, 64) if hasattr(torch, f"uint{b}")}
_UINT64 = getattr(torch, "uint64", None)
_SIGNED_FOR = {torch.uint8: torch.int16, getattr(torch, "uint16", None): torch.int32, getattr(torch, "uint32", None): torch.int64}
_INT64_MIN = -(2**63)


def _widened(x: torch.Tensor) -> tuple[torch.Tensor, torch.dtype | None]:
    """`x` in the type PyTorch sums it in, and the result type (`None`: the same), which the core's
    `accumulation_type` gives. PyTorch lacks most uint64 kernels: unsigned ints sum as int64,
    reinterpreted as uint64 afterwards, which is exact in modular arithmetic.
    """
    wide = accumulation_type(from_torch_dtype(x.dtype))
    if wide.kind is not int:
        return x, None
    if not wide.signed:
        return (x.view(torch.int64) if x.dtype == _UINT64 else x.to(torch.int64)), _UINT64
    return (x if x.dtype == torch.int64 else x.to(torch.int64)), None


def _narrowed(x: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    if dtype is None:
        return x
    return x.view(dtype) if x.ndim else x.reshape(1).view(dtype).reshape(())


def _signed(x: torch.Tensor) -> torch.Tensor:
    """Wide unsigned ints as a signed type that PyTorch computes with (uint64 values must fit int64)."""
    if x.dtype in _WIDE_UNSIGNED:
        return x.to(_SIGNED_FOR.get(x.dtype, torch.int64))
    return x


def _ordered(x: torch.Tensor) -> tuple[torch.Tensor, torch.dtype | None]:
    """Wide unsigned ints as signed ints of the same order (PyTorch cannot compare them), and their type.

    uint16 and uint32 widen; uint64 flips its top bit and is reinterpreted as int64, which maps the
    unsigned order onto the signed one exactly.
    """
    if x.dtype not in _WIDE_UNSIGNED:
        return x, None
    if x.dtype == _UINT64:
        return _narrowed(x, torch.int64) ^ _INT64_MIN, _UINT64
    return x.to(_SIGNED_FOR[x.dtype]), x.dtype


def _from_ordered(x: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    """Inverse of `_ordered` for values (not for indices)."""
    if dtype is None:
        return x
    if dtype == _UINT64:
        return _narrowed(x ^ _INT64_MIN, _UINT64)
    return x.to(dtype)


_SAME_WIDTH_SIGNED = {getattr(torch, f"uint{b}"): getattr(torch, f"int{b}") for b in (16, 32, 64) if hasattr(torch, f"uint{b}")}


def _bits_as_signed(x: torch.Tensor) -> torch.Tensor:
    """uint16/32/64 reinterpreted as the signed type of the same width: exact for moving values, and
    for sums and products (modular arithmetic); others unchanged."""
    signed = _SAME_WIDTH_SIGNED.get(x.dtype)
    return x if signed is None else _narrowed(x, signed)


def _from_signed(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Inverse of `_bits_as_signed` for a result that held `dtype` values."""
    return _narrowed(x, dtype) if dtype in _WIDE_UNSIGNED else x


def _select(x: torch.Tensor, axis: int, index: torch.Tensor) -> torch.Tensor:
    """`torch.index_select`, also for uint16/32/64 (no PyTorch kernel: through the signed type of their width)."""
    return _from_signed(torch.index_select(_bits_as_signed(x), axis, index), x.dtype)


def _sliced(tensor: torch.Tensor, slices: tuple[Any, ...]) -> torch.Tensor:
    """`tensor[slices]`, negative steps included (PyTorch takes none: `_negative_steps` flips)."""
    if any(isinstance(s, slice) and s.step is not None and int(s.step) < 0 for s in slices):
        tensor, slices = _negative_steps(tensor, slices)
    return tensor[slices]
