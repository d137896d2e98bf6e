"""`TorchBackend`: the bk operation catalogue on native PyTorch operations.

This module holds the required set, conversion, devices, creation and random numbers; the other
topics live in mixins (`_math`, `_indexing`, `_linalg`, `_autodiff`). Only the backend's modules
import PyTorch; `bk_torch` and `bk_torch.plugin` do not.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import torch

from bk import (
    ArgumentTypeError,
    Backend,
    ComputeDevice,
    DType,
    check_tensor_argument,
    from_numpy_dtype,
    get_precision,
    to_numpy_dtype,
)
from bk.rules import INDEX_OPERATIONS, factory_call, holds_number, int_range, kernel, listed_call
from bk.rules import SETTINGS as _SETTINGS

from ._autodiff import AutodiffMixin
from ._devices import list_torch_devices, normalize_device
from ._dtypes import _FROM_TORCH, _TO_TORCH, from_torch_dtype, to_torch_dtype
from ._indexing import IndexingMixin
from ._linalg import LinalgMixin
from ._math import _WIDE_UNSIGNED, MathMixin
from ._operators import BINARY_OPERATORS, OperatorsMixin, unsigned_gaps
from ._solvers import SolversMixin
from ._standard import StandardMixin

__all__ = ["TorchBackend"]

Tensor = Any
_SPARSE_LAYOUTS = (torch.sparse_coo, torch.sparse_csr, torch.sparse_csc)
_INT64 = DType(int, 64)
_FILLS = frozenset((bool, int, float, complex))
_NUMBERS = frozenset((bool, int, float))
_REALS = frozenset((int, float))
_F32_MAX: Final = 3.4028234663852886e38  # linspace bounds beyond float32 compute in float64 (torch refuses them)
# the dtypes a Python float fills as it is (NEP 50: a weak float takes the dtype of an inexact tensor)
_INEXACT = frozenset(native for dtype, native in _TO_TORCH.items() if dtype.kind is float or dtype.kind is complex)
_BOUND = 2**62  # Python ints of a range below it count in int64 without overflow
_CONVERSION: Final = (
    "a conversion that applies bk's rules of Python numbers and of the precision itself, its common cases "
    "inlined: the core's rules around it would cost more than the conversion"
)  # why `as_tensor` and `cast` are trusted
# the Python ints a tensor of each dtype holds as they are (`bk.rules.holds_number`; within int64 for `listed_call`)
_FILL_RANGES = {
    native: int_range(dtype) if dtype.kind is int else int_range(_INT64)
    for dtype, native in _TO_TORCH.items()
    if dtype.kind is not bool and (dtype.kind is not int or dtype.bits < 64 or dtype.signed)
}


def _created(factory: Any) -> Any:
    """The fast call of `zeros`, `ones` and `empty`: `factory(*sizes, dtype=, device=)` on the default device for a
    tuple shape and a `DType` PyTorch has (`bk.rules.factory_call`, in C: a Python fast call's frame costs a fifth
    of `torch.zeros(10)`); every other call takes the plan."""
    return factory_call(factory, _TO_TORCH, sizes_apart=True, device="_default_device.ref")


def _full(backend: Any, shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """The fast path of `full`: `torch.full` of a tuple shape and a Python number `dtype` holds as it is; else NotImplemented."""
    torch_dtype = _TO_TORCH.get(dtype)
    if type(shape) is not tuple or torch_dtype is None:
        return NotImplemented
    kind = type(fill_value)
    if not (
        (kind is float and (dtype.kind is float or dtype.kind is complex)) or (kind in _FILLS and holds_number(dtype, fill_value))
    ):
        return NotImplemented
    return torch.full(shape, fill_value, dtype=torch_dtype, device=backend._default_device.ref)


def _full_like(backend: Any, x: Any, fill_value: Any, dtype: Any = None) -> Any:
    """The fast path of `full_like`: `torch.full_like` of a strided tensor and a Python number `dtype` holds
    as it is (no `dtype=` keyword where it is x's own: PyTorch parses one in a fifth of the call); else NotImplemented."""
    if type(x) is not torch.Tensor or type(fill_value) not in _FILLS or x.layout is not torch.strided:
        return NotImplemented
    torch_dtype = x.dtype if dtype is None else _TO_TORCH.get(dtype)
    if torch_dtype is None:
        return NotImplemented
    if not (type(fill_value) is float and torch_dtype in _INEXACT) and not holds_number(
        _FROM_TORCH[torch_dtype] if dtype is None else dtype, fill_value
    ):
        return NotImplemented
    return torch.full_like(x, fill_value) if torch_dtype is x.dtype else torch.full_like(x, fill_value, dtype=torch_dtype)


def _int64_range(backend: Any, start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None) -> Any:
    """The fast path of `range`: PyTorch's own `arange` of Python ints counting in int64 (well inside its range,
    and never an empty range of the other sign, which PyTorch refuses); else NotImplemented (`range_plan`)."""
    if limit is None:
        start, limit = 0, start
    if (
        dtype is _INT64
        and type(start) is int
        and type(limit) is int
        and type(delta) is int
        and -_BOUND < start < _BOUND
        and -_BOUND < limit < _BOUND
        and (0 < delta < _BOUND if start <= limit else -_BOUND < delta < 0)  # a step towards the limit (or an empty range)
    ):
        return torch.arange(start, limit, delta, dtype=torch.int64, device=backend._default_device.ref)
    return NotImplemented


class TorchBackend(StandardMixin, OperatorsMixin, SolversMixin, MathMixin, IndexingMixin, LinalgMixin, AutodiffMixin, Backend):
    """PyTorch as a bk backend: CPU, every CUDA/ROCm device and Apple MPS.

    New tensors are created on the default device, which is the CPU until `set_default_device`
    chooses another one, as PyTorch users expect. Random numbers come from one backend-owned
    `torch.Generator` per device, so `seed()` never touches PyTorch's global generator.
    """

    # Each kernel declares itself where it is defined (`bk.rules.kernel`): the conversions `as_tensor` and `cast`,
    # the hot unary functions (`abs`, `round`, `isnan`, `real`, ...) and the reductions are trusted, tuned kernels
    # that apply docs/semantics.md with bk.rules; the float functions, the binary operators, `where`, `invert` and
    # the other elementwise kernels are planned, most with a fast call in front of the plan.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves
    # PyTorch's facts, declared once (the core fills them, docs/write-a-plugin.md "What your framework lacks"):
    # no order of complex values (the core orders them as NumPy; `max`/`min`, trusted, call its composite),
    # no bool kernel of searchsorted, pow, mod, floordiv and the shifts (computed as int8).
    complex_unordered = frozenset(
        (
            "argmax",
            "argmin",
            "searchsorted",
            "unique",
            "greater_than",
            "greater_or_equal",
            "maximum",
            "minimum",
            "clip",
            "sort",
            "argsort",
        )
    )
    nan_unordered = frozenset(("searchsorted",))  # torch.searchsorted puts NaN before +inf
    # and no uint16/uint32 kernels of the binary operators, nor uint64 ones of the modular operators (signed ints)
    lacking_kernels = {
        **unsigned_gaps(BINARY_OPERATORS),
        **{
            op: unsigned_gaps(BINARY_OPERATORS).get(op, frozenset()) | {DType(bool)}
            for op in ("searchsorted", "pow", "mod", "floordiv", "shift_bits_left", "shift_bits_right")
        },
        "matrix_solve_least_squares": frozenset(
            {DType(float, 16), DType(float, 16, brain=True)}
        ),  # least squares: no half kernel (float32)
    }

    kernel_errors = (RuntimeError, IndexError)  # PyTorch reports bad data as RuntimeError or IndexError

    def __init__(self) -> None:
        devices = list_torch_devices(self)
        super().__init__("torch", devices, devices[0])
        self._generators: dict[torch.device, torch.Generator] = {}
        self._seed: int | None = None

    # ------------------------------------------------------------ helpers

    @property
    def _torch_device(self) -> torch.device:
        return self._default_device.ref  # type: ignore[no-any-return]

    def _t(self, x: Any) -> torch.Tensor:
        """`x` as a native tensor (precision applied to converted values)."""
        return x if isinstance(x, torch.Tensor) else self.as_tensor(x)

    def _same_device(self, *tensors: Any) -> None:
        """Raises a clear error when native tensors live on different devices."""
        devices = {t.device for t in tensors if isinstance(t, torch.Tensor) and t.ndim > 0}
        if len(devices) > 1:
            names = ", ".join(sorted(str(d) for d in devices))
            raise ValueError(
                f"tensors live on different devices ({names}); move them to one device with allocate_on_device() first"
            )

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: `torch.Tensor` (dense or sparse); otherwise also NumPy arrays, numbers and lists of them."""
        if isinstance(x, torch.Tensor):
            return True
        if only_native:
            return False
        if isinstance(x, (np.ndarray, np.bool_, np.number)):
            return x.dtype.kind in "biufc"
        if isinstance(x, numbers.Number):
            return True
        if isinstance(x, (tuple, list)):
            return all(self.is_tensor(e) for e in x)
        return False

    @kernel(trusted=True, why=_CONVERSION)
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """A tensor on the default device; floats converted to the current precision when one is set.

        Python floats become float32 when the precision is `None` (PyTorch's default); NumPy
        arrays keep their precision and share memory with the tensor on the CPU.

        Raises:
            TypeError: for values PyTorch cannot hold, such as strings or object arrays.
        """
        if _SETTINGS.precision_free:  # the common cases, inlined (a trusted kernel: the core's number rules do not run)
            kind = type(x)
            if kind is torch.Tensor:
                return x
            device = self._default_device.ref
            if device.type == "cpu":
                if kind is np.ndarray and x.base is None and x.dtype.kind in "biufc" and x.dtype.isnative and x.flags.writeable:
                    return torch.from_numpy(x)  # an array owning its memory (no negative strides): what _from_numpy does
                if kind is list and set(map(type, x)) <= _NUMBERS:
                    return torch.as_tensor(x, device=device)  # Python numbers only: what _convert_external does
        if isinstance(x, torch.Tensor):
            tensor = x
        elif not convert_external and isinstance(x, numbers.Number) and not isinstance(x, np.generic):
            return x
        else:
            tensor = self._convert_external(x)
        kind = from_torch_dtype(tensor.dtype).kind if not tensor.is_sparse else None
        precision = get_precision()
        if precision is not None and kind is float and tensor.dtype != to_torch_dtype(DType(float, precision)):
            return tensor.to(to_torch_dtype(DType(float, precision)))
        if precision is not None and kind is complex and tensor.dtype != to_torch_dtype(DType(complex, 2 * max(precision, 32))):
            return tensor.to(to_torch_dtype(DType(complex, 2 * max(precision, 32))))
        return tensor

    def _convert_external(self, x: Any) -> torch.Tensor:
        if isinstance(x, (np.ndarray, np.generic)):
            return _from_numpy(np.asarray(x)).to(self._torch_device)
        if isinstance(x, (tuple, list)) and any(isinstance(e, torch.Tensor) for e in x):
            return torch.stack([self._t(e) for e in x])
        if x is None or isinstance(x, (str, bytes)):
            check_tensor_argument(x, _operation(self))  # the operation's name only on this error path
        try:
            return torch.as_tensor(x, device=self._torch_device)
        except (TypeError, ValueError, RuntimeError) as err:
            raise ArgumentTypeError(f"{_operation(self)}: cannot convert {type(x).__name__} to a torch tensor: {err}") from err

    def is_available(self, tensor: Tensor) -> bool:
        """False while `torch.jit.trace` records a graph or inside `torch.vmap` / `torch.func` transforms."""
        if torch._C._get_tracing_state() is not None:
            return False
        if isinstance(tensor, torch.Tensor):
            return not torch._C._functorch.is_functorch_wrapped_tensor(tensor)
        return True

    def numpy(self, tensor: Tensor) -> Any:
        """A NumPy array (a SciPy sparse matrix for 2-D sparse tensors); copies off the CPU."""
        if not isinstance(tensor, torch.Tensor):
            return np.asarray(tensor)
        if tensor.layout in _SPARSE_LAYOUTS:
            return self._sparse_to_scipy(tensor)
        tensor = tensor.detach().resolve_conj().resolve_neg()
        if tensor.device.type != "cpu":
            tensor = tensor.cpu()
        if tensor.dtype == torch.bfloat16:
            return tensor.view(torch.int16).numpy().view(to_numpy_dtype(DType(float, 16, brain=True)))
        return tensor.numpy()

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of a tensor; Python `int` is int32 and `float` float64, as everywhere in bk."""
        if isinstance(array, torch.Tensor):
            return from_torch_dtype(array.dtype)
        if isinstance(array, bool):
            return DType(bool)
        if isinstance(array, int):
            return DType(int, 32)
        if isinstance(array, float):
            return DType(float, 64)
        if isinstance(array, complex):
            return DType(complex, 128)
        if array is None or isinstance(array, (str, bytes)):
            check_tensor_argument(array, _operation(self))
        return from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        if isinstance(tensor, (torch.Tensor, np.ndarray, np.generic)):
            return tuple(tensor.shape)
        return tuple(np.shape(tensor))

    @kernel(trusted=True, why=_CONVERSION)
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as a tensor of `dtype`; `x` itself when it already is one.

        Raises:
            TypeError: for a dtype PyTorch has no tensors of.
        """
        torch_dtype = to_torch_dtype(dtype)
        if isinstance(x, torch.Tensor):
            if x.dtype == torch_dtype:
                return x
            if (
                x.is_complex() and not torch_dtype.is_complex and torch_dtype != torch.bool
            ):  # the real part, as NumPy, without a warning
                x = torch.real(x)
            return x.to(torch_dtype)
        if isinstance(x, (np.ndarray, np.generic)):
            return self._convert_external(x).to(torch_dtype)
        if x is None or isinstance(x, (str, bytes)):
            check_tensor_argument(x, _operation(self))
        if type(x) is int and dtype.kind is int and not int_range(dtype)[0] <= x <= int_range(dtype)[1]:
            raise OverflowError(f"cast: Python int {x} does not fit {dtype.name} {list(int_range(dtype))} (NumPy 2, NEP 50)")
        if type(x) in (float, complex):  # in double precision first, then cast as a tensor is (complex to real: the real part)
            wide = torch.as_tensor(x, dtype=torch.float64 if type(x) is float else torch.complex128, device=self._torch_device)
            return self.cast(wide, dtype)
        return torch.as_tensor(x, dtype=torch_dtype, device=self._torch_device)

    # ------------------------------------------------------------ conversion

    def to_dlpack(self, tensor: Tensor) -> Any:
        """The tensor itself (it implements `__dlpack__`), detached from autograd and with conjugation resolved."""
        return self._t(tensor).detach().resolve_conj().resolve_neg()

    def from_dlpack(self, capsule: Any) -> Tensor:
        """A tensor sharing the memory of an object implementing `__dlpack__`, or of a DLPack capsule."""
        if hasattr(capsule, "__dlpack__"):
            return torch.from_dlpack(capsule)
        return torch.utils.dlpack.from_dlpack(capsule)

    # ------------------------------------------------------------ devices and memory

    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The device of a tensor; NumPy arrays and numbers report the default device."""
        if not isinstance(tensor, torch.Tensor):
            return self._default_device
        return self.get_device_by_ref(normalize_device(tensor.device))

    def get_device_by_ref(self, ref: Any) -> ComputeDevice:
        """The device of `ref` in any of PyTorch's spellings: a `torch.device`, `'cpu'`, `'cuda'`, `'cuda:1'`, an index.

        Raises:
            KeyError: if no device of this backend has that reference.
        """
        for device in self._devices:
            if device.ref == ref:
                return device
        try:
            normalized = normalize_device(ref)
        except (RuntimeError, TypeError, ValueError):
            normalized = None
        for device in self._devices:
            if normalized is not None and device.ref == normalized:
                return device
        raise KeyError(f"torch has no device {ref!r}; available: {[str(d.ref) for d in self._devices]}")

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` on `device`, one of this backend's (the plan checks it: `bk.rules.check_device`); the same
        tensor if it is already there."""
        return self._t(tensor).to(device.ref)

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy; torch tensors are mutable, so they are always copied (gradients flow through the copy)."""
        return torch.clone(self._t(tensor))

    def block_until_ready(self, values: Any) -> None:
        """Waits for the CUDA streams of every tensor in `values` (tuples, lists, dicts)."""
        if isinstance(values, (tuple, list)):
            for v in values:
                self.block_until_ready(v)
        elif isinstance(values, dict):
            self.block_until_ready(list(values.values()))
        elif isinstance(values, torch.Tensor) and values.device.type == "cuda":
            torch.cuda.synchronize(values.device)

    def is_module(self, obj: Any) -> bool:
        """Whether `obj` is a `torch.nn.Module`."""
        return isinstance(obj, torch.nn.Module)

    def seed(self, seed: int) -> None:
        """Seeds the backend's generators on every device (PyTorch's global generator is left alone)."""
        self._seed = int(seed)
        for generator in self._generators.values():
            generator.manual_seed(self._seed)

    def _generator(self) -> torch.Generator:
        device = self._torch_device
        generator = self._generators.get(device)
        if generator is None:
            generator = torch.Generator(device=device)
            if self._seed is None:
                generator.seed()
            else:
                generator.manual_seed(self._seed)
            self._generators[device] = generator
        return generator

    # ------------------------------------------------------------ creation

    def _new_dtype(self, dtype: DType | None) -> torch.dtype:
        return to_torch_dtype(dtype or self.float_type)

    # The creation kernels get arguments the plan has checked (sizes that are ints of 0 or more, a
    # `DType`): each is one PyTorch call, the dtype looked up inline (a helper call costs as much as a
    # small tensor). Their fast calls stay hand-written (`listed_call`, `factory_call`, `_full`): no spec decides
    # the dtypes they serve, which `framework_call` derives for elementwise operations only (`zeros_like`
    # serves a tensor of any dtype, `full_like` the fill values a dtype holds as they are).

    @kernel(fast=_created(torch.zeros))
    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        return torch.zeros(*_size_args(shape), dtype=self._new_dtype(dtype), device=self._default_device.ref)

    @kernel(fast=listed_call(torch.zeros_like, torch.Tensor, None, 1))  # any dtype: the kernel is this call for each
    def zeros_like(self, tensor: Tensor) -> Tensor:
        return torch.zeros_like(self._t(tensor))

    @kernel(fast=_created(torch.ones))
    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        return torch.ones(*_size_args(shape), dtype=self._new_dtype(dtype), device=self._default_device.ref)

    @kernel(fast=listed_call(torch.ones_like, torch.Tensor, None, 1))
    def ones_like(self, tensor: Tensor) -> Tensor:
        return torch.ones_like(self._t(tensor))

    @kernel(fast=_created(torch.empty))
    def empty(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """`torch.empty`: uninitialized values; see `Backend.empty`."""
        return torch.empty(*_size_args(shape), dtype=self._new_dtype(dtype), device=self._default_device.ref)

    @kernel(fast=listed_call(torch.empty_like, torch.Tensor, None, 1, check=("layout", torch.strided)))
    def empty_like(self, x: Tensor, dtype: DType | None = None) -> Tensor:
        """`torch.empty_like`: uninitialized values on the device of `x`; see `Backend.empty_like`."""
        if type(x) is not torch.Tensor or x.layout is not torch.strided:
            return super().empty_like(x, dtype)
        return (
            torch.empty_like(x) if dtype is None else torch.empty_like(x, dtype=self._new_dtype(dtype))
        )  # no keyword: 20% faster

    @kernel(fast=_full)
    def full(self, shape: Sequence[int], fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`torch.full` for a fill value that `dtype` holds as it is (`bk.rules.holds_number`); see `Backend.full`."""
        result = _full(self, _sizes(shape), fill_value, dtype)  # the fast path's case under a precision; the core's default else
        return super().full(shape, fill_value, dtype) if result is NotImplemented else result

    @kernel(fast=listed_call(torch.full_like, torch.Tensor, (), 2, _INEXACT, _FILL_RANGES, check=("layout", torch.strided)))
    def full_like(self, x: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`torch.full_like` on the device of `x`, for a fill value its dtype (or `dtype`) holds as it is; see `Backend.full_like`."""
        result = _full_like(self, x, fill_value, dtype)  # the fast path's case under a precision; the core's default else
        return super().full_like(x, fill_value, dtype) if result is NotImplemented else result

    def eye(self, n_rows: int, n_cols: int | None = None, k: int = 0, dtype: DType | None = None) -> Tensor:
        """A matrix with ones on the `k`-th diagonal (`torch.eye`, shifted for `k` other than 0); see `Backend.eye`."""
        columns = n_rows if n_cols is None else n_cols
        if type(n_rows) is not int or type(columns) is not int or type(k) is not int:
            return super().eye(n_rows, n_cols, k, dtype)
        torch_dtype = _TO_TORCH.get(dtype) or self._new_dtype(dtype)
        if k == 0 and torch_dtype not in _WIDE_UNSIGNED:  # PyTorch has no eye kernel of uint16, uint32 and uint64
            return torch.eye(n_rows, columns, dtype=torch_dtype, device=self._default_device.ref)
        result = torch.zeros((n_rows, columns), dtype=torch_dtype, device=self._default_device.ref)
        result.diagonal(k).fill_(1)  # empty for a diagonal outside the matrix
        return result

    @kernel(fast=_int64_range)
    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        if plan.dtype.kind is int:
            stop = plan.start + plan.count * plan.delta
            target = to_torch_dtype(plan.dtype)
            if target in (
                torch.uint16,
                torch.uint32,
                torch.uint64,
            ):  # no arange kernel: count in int64 (range_plan checked the values fit)
                return torch.arange(plan.start, stop, plan.delta, dtype=torch.int64, device=self._torch_device).to(target)
            return torch.arange(plan.start, stop, plan.delta, dtype=target, device=self._torch_device)
        steps = torch.arange(plan.count, dtype=torch.float64, device=self._torch_device)
        return (steps * plan.delta + plan.start).to(to_torch_dtype(plan.dtype))

    @kernel(
        fast=lambda self, start, stop, number: (
            torch.linspace(start, stop, number, dtype=torch.float32, device=self._default_device.ref)
            if type(start) in _REALS
            and type(stop) in _REALS
            and type(number) is int
            and number >= 0
            and -_F32_MAX < start < _F32_MAX
            and -_F32_MAX < stop < _F32_MAX
            else NotImplemented
        )
    )  # no precision is set on a fast path: float32 (bounds beyond it take the float64 path)
    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        # in float64, then cast: bounds beyond float32 give inf as NumPy, where torch refuses them
        values = torch.linspace(float(start), float(stop), int(number), dtype=torch.float64, device=self._torch_device)
        return values.to(self._new_dtype(None))

    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        tensors = [self._t(c).reshape(-1) for c in coordinates]
        self._same_device(*tensors)
        # each grid keeps the dtype of its coordinates, as NumPy (torch.meshgrid refuses mixed dtypes)
        shape = [t.shape[0] for t in tensors]
        return [t.reshape([-1 if i == j else 1 for j in range(len(tensors))]).expand(shape) for i, t in enumerate(tensors)]

    def variable(self, value: Tensor) -> Any:
        """A `torch.nn.Parameter` holding a copy of `value` (trainable for float and complex values)."""
        tensor = torch.clone(self._t(value)).detach()
        return torch.nn.Parameter(tensor, requires_grad=tensor.is_floating_point() or tensor.is_complex())

    # ------------------------------------------------------------ random

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`: integers for int dtypes, the current float type by default (the spec
        refuses bool and other non-numeric dtypes)."""
        dtype = dtype or self.float_type
        shape, generator, device = _sizes(shape), self._generator(), self._torch_device
        if dtype.kind is int:
            from bk.rules import int_uniform_bounds

            low, high = int_uniform_bounds(low, high)
            return torch.randint(low, high, shape, generator=generator, dtype=to_torch_dtype(dtype), device=device)
        if dtype.kind is float:
            unit = torch.rand(shape, generator=generator, dtype=to_torch_dtype(dtype), device=device)
            return unit * (high - low) + low
        part = to_torch_dtype(DType(float, dtype.bits // 2))  # type: ignore[operator]  # complex
        low, high = complex(low), complex(high)
        real = torch.rand(shape, generator=generator, dtype=part, device=device) * (high.real - low.real) + low.real
        imag = torch.rand(shape, generator=generator, dtype=part, device=device) * (high.imag - low.imag) + low.imag
        return torch.complex(real, imag)

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values (complex: independent real and imaginary parts of variance 1/2 each, as PyTorch;
        the spec refuses other dtypes)."""
        dtype = dtype or self.float_type
        return torch.randn(_sizes(shape), generator=self._generator(), dtype=to_torch_dtype(dtype), device=self._torch_device)


def _from_numpy(array: np.ndarray) -> torch.Tensor:
    """A CPU tensor of a NumPy array of any layout: negative strides, big-endian bytes, read-only
    memory and `ml_dtypes.bfloat16` are copied or reinterpreted as PyTorch needs; others share memory.

    Raises:
        ArgumentTypeError: for arrays of strings, objects and other non-numeric dtypes.
    """
    bfloat16 = array.dtype.name == "bfloat16"
    if array.dtype.kind not in "biufc" and not bfloat16:
        raise ArgumentTypeError(
            f"as_tensor: PyTorch cannot hold NumPy arrays of dtype {array.dtype}; only bool, int, float and complex values"
        )
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.writeable or any(s < 0 for s in array.strides):  # torch refuses both (warns on read-only)
        array = array.copy()
    if bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


_FEATURES: frozenset[str] = frozenset(Backend.features())


def _operation(backend: Backend) -> str:
    """The catalogue operation the caller invoked on `backend`, for messages of errors raised deep inside.

    The outermost frame on the stack that runs a catalogue method of this backend: `sqrt(None)`
    fails in `as_tensor`, and the message names `sqrt`. Runs on error paths only.
    """
    name, frame = "as_tensor", sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name in _FEATURES and frame.f_locals.get("self") is backend:
            name = frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return name


def _size_args(shape: Sequence[int] | int) -> tuple[Any, ...]:
    """`shape` as the positional size arguments of a PyTorch factory, `torch.zeros(*_size_args(shape))`:
    ints one by one (PyTorch parses them in a third of the time of one tuple of them), the empty tuple for a 0-d shape."""
    sizes = _sizes(shape)
    return sizes if sizes else ((),)


def _sizes(shape: Sequence[int] | int) -> tuple[int, ...]:
    """`shape` (a tuple, another sequence or one int) as a tuple of ints (the spec refuses negative sizes)."""
    if type(shape) is tuple:
        return shape
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
