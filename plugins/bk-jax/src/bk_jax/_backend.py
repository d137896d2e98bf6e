"""`JaxBackend`: the bk operation catalogue on JAX.

This module holds the required set, conversion, devices, creation and random numbers; the other
topics live in mixins (`_math`, `_indexing`, `_linalg`, `_sparse`, `_autodiff`). Only the
backend's modules import JAX; `bk_jax` and `bk_jax.plugin` do not.
"""

from __future__ import annotations

import numbers
import operator
import secrets
from collections.abc import Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.sparse import JAXSparse

from bk import ArgumentTypeError, Backend, ComputeDevice, DType, check_tensor_argument, from_numpy_dtype, get_precision
from bk.rules import INDEX_OPERATIONS, PYTHON_NUMBERS, check_python_ints, is_python_number, kernel, only_python_numbers

from ._autodiff import AutodiffMixin
from ._devices import jax_default_device, list_jax_devices
from ._dtypes import from_jax_dtype, is_wide, require_x64, to_jax_dtype, x64_enabled, x64_locked_off
from ._indexing import IndexingMixin
from ._linalg import LinalgMixin
from ._math import MathMixin
from ._sparse import SparseMixin
from ._standard import StandardMixin

__all__ = ["JaxBackend"]

Tensor = Any
_DLPACK_CPU: Final = 1  # kDLCPU
_BFLOAT16: Final = np.dtype(jnp.bfloat16)
_CONVERSION: Final = (
    "applies docs/semantics.md's number rules itself (Python ints as int64, floats and complex numbers in the "
    "types of the precision, ints beyond an integer dtype's range refused with bk.rules.check_python_ints), "
    "switching x64 on for 64-bit types; called for every operand, so the core only refuses values with no bk "
    "dtype in front of it"
)
"""Why `as_tensor` and `cast` are trusted kernels."""
_NARROW: Final = {
    np.dtype(np.int64): np.int32,
    np.dtype(np.uint64): np.uint32,
    np.dtype(np.float64): np.float32,
    np.dtype(np.complex128): np.complex64,
}


def _scalar_for(x: bool | int | float | complex, target: np.dtype) -> Any:
    """The Python number `x` as a value JAX converts to `target` without wrapping around.

    Raises:
        OverflowError: for an int outside the range of an integer `target` (the dtype JAX holds: int32
            where x64 is off), as NumPy 2 (NEP 50; `bk.rules.check_python_ints`).
    """
    if target.kind in "iu":
        check_python_ints(from_numpy_dtype(target), (x,))
    if type(x) is complex and target.kind != "c":
        return bool(x) if target.kind == "b" else x.real
    return x


def _shape(shape: Sequence[int]) -> tuple[int, ...]:
    """`shape` as a tuple of ints (the spec refuses negative sizes)."""
    return tuple(int(s) for s in shape)


def _contains_native(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_contains_native(e) for e in x)
    return isinstance(x, jax.Array)


class JaxBackend(StandardMixin, MathMixin, IndexingMixin, LinalgMixin, SparseMixin, AutodiffMixin, Backend):
    """JAX as a bk backend: CPU, GPU and TPU arrays, `jax.jit`, autodiff, `vmap` and sparse matrices.

    Arrays are immutable: scatter returns new arrays (`.at[]`). Values inside `jit_compile`,
    `jacobian`, `hessian` and `vectorized_call` are tracers: `is_available` is False for them,
    their shapes are static (hence `requires_fixed_shapes_when_tracing()` and the `new_length`
    arguments), `while_loop` becomes `lax.while_loop` and `numpy_call` a `jax.pure_callback`.

    64-bit types: JAX computes in 64 bits only with its process-wide flag `jax_enable_x64`.
    bk-jax switches it on the first time a 64-bit type is asked for (under `bk.precision(64)`,
    a float64/complex128/int64 dtype given to a creation function or `cast`, or 64-bit NumPy data
    given to `as_tensor`), unless the user chose the setting explicitly with the environment
    variable `JAX_ENABLE_X64` or a `with jax.enable_x64(...)` block: bk-jax never overrides that
    choice, and then 64-bit requests raise a `TypeError` while 64-bit NumPy data converts to 32 bits
    as in JAX. `float64_supported` is False when `JAX_ENABLE_X64` keeps x64 off.

    New arrays are placed on the default device, which is JAX's default device (the first
    accelerator if there is one) until `set_default_device` chooses another. Random numbers come
    from a backend-owned key that every call splits; `seed()` resets it.
    """

    # Trusted kernels (`@kernel(trusted=True, why=...)` where each is defined): the reductions (`_math`),
    # `as_tensor` and `cast`; the elementwise operations and `where` are bare kernels behind the core's plan.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves
    shifts_every_count = True  # XLA's shifts give NumPy's results for counts outside [0, bits)
    lacking_kernels = {"matrix_solve_least_squares": frozenset({DType(float, 16), DType(float, 16, brain=True)})}  # XLA's CPU decompositions have no half kernels: float32

    float64_supported = not x64_locked_off()  # decided when the backend loads

    def __init__(self) -> None:
        devices = list_jax_devices(self)
        default = jax_default_device()
        super().__init__("jax", devices, next((d for d in devices if d.ref == default), devices[0]))
        self._jax_default = self._default_device
        self._key: Any = None

    # ------------------------------------------------------------ helpers

    def _t(self, x: Any) -> Any:
        """`x` as a JAX array (precision applied to converted values)."""
        return x if isinstance(x, jax.Array) else self.as_tensor(x)

    def _place(self, array: Any) -> Any:
        """`array` committed to the default device when the user chose one other than JAX's default."""
        if self._default_device is self._jax_default or isinstance(array, jax.core.Tracer):
            return array
        return jax.device_put(array, self._default_device.ref)

    def _jax_dtype(self, dtype: DType | None) -> np.dtype:
        """The JAX dtype of `dtype` (default: the float type), switching x64 on where it is needed."""
        result = to_jax_dtype(dtype or self.float_type)
        if is_wide(result) and not x64_enabled():
            require_x64(f"dtype {dtype or self.float_type}")
        return result

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: `jax.Array` (tracers included) and `jax.experimental.sparse` matrices; otherwise also
        NumPy arrays of numbers, Python numbers and lists of them."""
        if isinstance(x, (jax.Array, JAXSparse, jax.core.Tracer)):
            return True
        if only_native:
            return False
        if isinstance(x, (np.ndarray, np.generic)):
            return x.dtype.kind in "biufc" or x.dtype == _BFLOAT16
        if isinstance(x, numbers.Number):
            return True
        if isinstance(x, (tuple, list)):
            return all(self.is_tensor(e) for e in x)
        return False

    @kernel(trusted=True, why=_CONVERSION)
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """`x` as a JAX array on the default device, floats converted to the precision when one is set.

        Python bools become bool, ints int64 (NumPy 2's default integer: this switches x64 on, see
        the class docstring), floats the float type (float32 when the precision is `None`, as in JAX),
        complex numbers the complex type. NumPy arrays (any byte order or strides, bfloat16 from
        `ml_dtypes` included) and NumPy scalars keep their dtype; 64-bit data switches x64 on.

        Raises:
            bk.ArgumentTypeError: for values JAX cannot hold, such as `None`, strings or object arrays.
        """
        if isinstance(x, jax.Array):
            return self._to_precision(x)
        if isinstance(x, JAXSparse):
            return self._sparse_to_precision(x)
        if not convert_external and is_python_number(x):
            return x
        return self._to_precision(self._place(self._convert_external(x)))

    def _to_precision(self, array: Any) -> Any:
        precision = get_precision()
        if precision is None:
            return array
        kind = from_jax_dtype(array.dtype).kind
        if kind is float and array.dtype != to_jax_dtype(DType(float, precision)):
            return array.astype(self._jax_dtype(DType(float, precision)))
        if kind is complex and array.dtype != to_jax_dtype(DType(complex, 2 * max(precision, 32))):
            return array.astype(self._jax_dtype(DType(complex, 2 * max(precision, 32))))
        return array

    def _convert_external(self, x: Any) -> Any:
        if isinstance(x, (np.ndarray, np.generic)):
            return jnp.asarray(self._numpy_input(np.asarray(x)))
        if only_python_numbers(x):
            return jnp.asarray(self._python_input(x))
        if isinstance(x, (list, tuple)) and _contains_native(x):
            return jnp.stack([self._t(e) for e in x])
        check_tensor_argument(x, "as_tensor")  # None, strings and bytes
        try:
            array = np.asarray(x)
        except (TypeError, ValueError) as err:
            raise ArgumentTypeError(
                f"as_tensor: cannot convert {type(x).__name__} to a JAX array; pass a number, a list, an array or a tensor"
            ) from err
        return jnp.asarray(self._numpy_input(array))

    def _numpy_input(self, array: np.ndarray) -> np.ndarray:
        """NumPy data as JAX takes it: numbers only; 64-bit data enables x64 or narrows to 32 bits by the x64 rule."""
        if array.dtype.kind not in "biufc" and array.dtype != _BFLOAT16:
            raise ArgumentTypeError(
                f"as_tensor: JAX cannot hold NumPy arrays of dtype {array.dtype}; only bool, int, float and complex values"
            )
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))  # JAX takes native byte order only
        if is_wide(array.dtype) and not x64_enabled():
            if x64_locked_off():
                return array.astype(_NARROW[array.dtype])  # as JAX itself converts 64-bit data with x64 off
            require_x64(f"NumPy data of dtype {array.dtype}")
        return array

    def _python_input(self, x: Any) -> np.ndarray:
        """Python numbers as NumPy data of bk's types: float and complex by the precision, ints as int64.

        With x64 kept off by the user (`JAX_ENABLE_X64`), ints that fit become int32, as in JAX.
        """
        array = np.asarray(x)
        kind = array.dtype.kind
        if kind == "O":  # only ints beyond 64 bits make NumPy fall back to objects here
            raise OverflowError(f"as_tensor: Python integer {x!r} does not fit int64")
        if kind == "f":
            return array.astype(self._jax_dtype(self.float_type))
        if kind == "c":
            return array.astype(self._jax_dtype(self.complex_type))
        if kind in "iu":
            info = np.iinfo(np.int32)
            if x64_locked_off() and (array.size == 0 or (array.min() >= info.min and array.max() <= info.max)):
                return array.astype(np.int32)
            return array.astype(self._jax_dtype(DType(int, 64)))
        return array

    def is_available(self, tensor: Tensor) -> bool:
        """False for tracers (inside `jit_compile`, `jacobian`, `hessian`, `vectorized_call`), True otherwise."""
        if isinstance(tensor, JAXSparse):
            return not any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(tensor))
        return not isinstance(tensor, jax.core.Tracer)

    def numpy(self, tensor: Tensor) -> Any:
        """A NumPy array (read-only where it shares JAX's buffer); a SciPy sparse matrix for 2-D sparse matrices.

        Raises:
            TypeError: for tracers, whose values are not known while tracing.
        """
        if not self.is_available(tensor):
            raise TypeError(
                "cannot get the NumPy value of a JAX tracer (inside jit_compile, jacobian or vectorized_call); "
                "use numpy_call() there, or call numpy() outside the traced function"
            )
        if isinstance(tensor, JAXSparse):
            return self._sparse_to_scipy(tensor)
        return np.asarray(tensor)

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of an array; Python `int` is int32 and `float` float64, as everywhere in bk."""
        if isinstance(array, (jax.Array, JAXSparse)):
            return from_jax_dtype(array.dtype)
        if isinstance(array, bool):
            return DType(bool)
        if isinstance(array, int):
            return DType(int, 32)
        if isinstance(array, float):
            return DType(float, 64)
        if isinstance(array, complex):
            return DType(complex, 128)
        return from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The shape; always known, as JAX traces with static shapes."""
        if isinstance(tensor, (jax.Array, JAXSparse, np.ndarray, np.generic)):
            return tuple(tensor.shape)
        return tuple(np.shape(tensor))

    @kernel(trusted=True, why=_CONVERSION)
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as `dtype`; `x` itself when it already has it. Complex to real keeps the real part,
        complex to bool tests `!= 0`.

        A Python number becomes a value of `dtype` directly (as a weak scalar beside a tensor does).

        Raises:
            TypeError: for a dtype JAX has no arrays of, or a 64-bit dtype while x64 is kept off.
            OverflowError: for a Python int outside the range of an integer `dtype` (NumPy 2, NEP 50).
        """
        target = self._jax_dtype(dtype)
        if isinstance(x, JAXSparse):
            return self._sparse_cast(x, dtype)
        if type(x) in PYTHON_NUMBERS:
            return self._place(jnp.asarray(_scalar_for(x, target), target))
        x = x if isinstance(x, jax.Array) else self._place(self._convert_external(x))
        if x.dtype == target:
            return x
        if jnp.iscomplexobj(x) and target.kind != "c":
            if target.kind == "b":
                return x != 0  # true where either part is non-zero, as NumPy
            x = jnp.real(x)
        return x.astype(target)

    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values; with precision `None`, complex keeps its type and float64 gives complex128."""
        x = self._t(x)
        if get_precision() is None and x.dtype in (np.float64, np.complex128, np.complex64):
            return x.astype(np.complex128) if x.dtype == np.float64 else x
        return self.cast(x, self.complex_type)

    # ------------------------------------------------------------ conversion

    def to_dlpack(self, tensor: Tensor) -> Any:
        """The array itself: JAX arrays implement `__dlpack__` and `__dlpack_device__`.

        Raises:
            TypeError: for tracers and sparse matrices, which have no buffer to share.
        """
        if isinstance(tensor, (JAXSparse, jax.core.Tracer)):
            raise TypeError(f"a {type(tensor).__name__} has no buffer to share through DLPack; export a dense, concrete array")
        return self._t(tensor)

    def from_dlpack(self, capsule: Any) -> Tensor:
        """An array sharing the memory of an object implementing `__dlpack__` (NumPy, PyTorch, ...).

        JAX imports only dense row-major buffers, so strided CPU views are copied; misaligned CPU
        buffers are copied by JAX itself.

        Raises:
            TypeError: for a raw DLPack capsule, which JAX no longer accepts.
        """
        if not hasattr(capsule, "__dlpack__"):
            raise TypeError(
                f"JAX imports objects implementing __dlpack__ and __dlpack_device__, not {type(capsule).__name__}; "
                "pass the array itself instead of a DLPack capsule"
            )
        if capsule.__dlpack_device__()[0] == _DLPACK_CPU:
            view = np.from_dlpack(capsule)
            if not view.flags.c_contiguous:
                return jnp.array(self._numpy_input(view))
            if is_wide(view.dtype) and not x64_enabled():
                self._numpy_input(view)
        return jax.dlpack.from_dlpack(capsule)

    # ------------------------------------------------------------ devices and memory

    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The device `tensor` lives on; tracers, NumPy arrays and numbers report the default device.

        An array sharded over several devices reports the device of its first shard.
        """
        if isinstance(tensor, JAXSparse):
            tensor = jax.tree_util.tree_leaves(tensor)[0]
        if not isinstance(tensor, jax.Array) or isinstance(tensor, jax.core.Tracer):
            return self._default_device
        devices = tensor.devices()
        device = next(iter(devices)) if len(devices) == 1 else tensor.addressable_shards[0].device
        return self.get_device_by_ref(device)

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` on `device`, one of this backend's (the plan checks it: `bk.rules.check_device`), through
        `jax.device_put` (committed to it, as JAX does with explicit placement)."""
        value = tensor if isinstance(tensor, JAXSparse) else self._t(tensor)
        return jax.device_put(value, device.ref)

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy; JAX arrays are immutable, so with `only_mutable` they are returned as they are."""
        if only_mutable and isinstance(tensor, (jax.Array, JAXSparse)):
            return tensor
        if isinstance(tensor, JAXSparse):
            return jax.tree_util.tree_map(lambda leaf: jnp.array(leaf, copy=True), tensor)
        return jnp.array(self._t(tensor), copy=True)

    def deallocate(self, tensor: Tensor) -> bool:
        """Frees the device buffers of a concrete array (`jax.Array.delete`); later use raises `RuntimeError`."""
        if isinstance(tensor, JAXSparse):
            freed = [self.deallocate(leaf) for leaf in jax.tree_util.tree_leaves(tensor)]  # every leaf, no short cut
            return any(freed)
        if not isinstance(tensor, jax.Array) or isinstance(tensor, jax.core.Tracer):
            raise TypeError(f"deallocate: expected a concrete jax.Array, got {type(tensor).__name__}")
        if tensor.is_deleted():
            return False
        tensor.delete()
        return True

    def block_until_ready(self, values: Any) -> None:
        """Waits for every concrete array in `values` (any pytree); tracers and other leaves are skipped."""
        for leaf in jax.tree_util.tree_leaves(values):
            if isinstance(leaf, jax.Array) and not isinstance(leaf, jax.core.Tracer):
                leaf.block_until_ready()

    def prefers_channels_last(self) -> bool:
        """True: XLA's convolutions on GPUs and TPUs are fastest with channels last (NHWC), as Flax uses."""
        return True

    def requires_fixed_shapes_when_tracing(self) -> bool:
        """True: shapes are static under `jax.jit`, so data-dependent sizes need `new_length` arguments."""
        return True

    # ------------------------------------------------------------ random

    def seed(self, seed: int) -> None:
        """Resets the backend's key to `jax.random.key(seed)` (JAX has no global random state to touch)."""
        self._key = jax.random.key(int(seed))

    def _next_key(self) -> Any:
        """A fresh subkey; split eagerly even while tracing, so that the stored key never becomes a tracer.

        Inside `jit_compile`, the subkey is a constant of the compiled function: it draws the same
        numbers on every call. Pass keys (or random arrays) as arguments for fresh numbers per call.
        """
        with jax.ensure_compile_time_eval():
            if self._key is None:
                self._key = jax.random.key(secrets.randbits(31))
            self._key, subkey = jax.random.split(self._key)
        return subkey

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`: integers for int dtypes, the current float type by default."""
        dtype = dtype or self.float_type
        target, shape = self._jax_dtype(dtype), _shape(shape)
        if dtype.kind is int:
            from bk.rules import int_uniform_bounds

            low, high = int_uniform_bounds(low, high)
            return self._place(jax.random.randint(self._next_key(), shape, low, high, dtype=target))
        if dtype.kind is complex:
            part = self._jax_dtype(DType(float, dtype.bits // 2))  # type: ignore[operator]
            low, high = complex(low), complex(high)
            real = jax.random.uniform(self._next_key(), shape, part, minval=low.real, maxval=high.real)
            imag = jax.random.uniform(self._next_key(), shape, part, minval=low.imag, maxval=high.imag)
            return self._place(jax.lax.complex(real, imag))
        return self._place(jax.random.uniform(self._next_key(), shape, target, minval=low, maxval=high))  # floats (the spec refuses bools)

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values (complex: independent real and imaginary parts of variance 1/2 each, as JAX)."""
        dtype = dtype or self.float_type
        shape = _shape(shape)
        return self._place(jax.random.normal(self._next_key(), shape, self._jax_dtype(dtype)))

    # ------------------------------------------------------------ creation

    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        return self._place(jnp.zeros(_shape(shape), self._jax_dtype(dtype)))

    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape and dtype of `tensor` (dense, also for sparse matrices)."""
        if isinstance(tensor, JAXSparse):
            return self._place(jnp.zeros(tensor.shape, tensor.dtype))
        return jnp.zeros_like(self._t(tensor))

    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        return self._place(jnp.ones(_shape(shape), self._jax_dtype(dtype)))

    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape and dtype of `tensor` (dense, also for sparse matrices)."""
        if isinstance(tensor, JAXSparse):
            return self._place(jnp.ones(tensor.shape, tensor.dtype))
        return jnp.ones_like(self._t(tensor))

    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        if plan.dtype.kind is int:
            return self._place(jnp.arange(plan.start, plan.start + plan.count * plan.delta, plan.delta, dtype=self._jax_dtype(plan.dtype)))
        values = np.arange(plan.count, dtype=np.float64) * plan.delta + plan.start  # in float64 even where JAX has no x64
        return self._place(jnp.asarray(values, dtype=self._jax_dtype(plan.dtype)))

    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        return self._place(_linspace(start, stop, int(number), True, self._jax_dtype(None)))

    def linspace_without_last(self, start: Any, stop: Any, number: int) -> Tensor:
        return self._place(_linspace(start, stop, int(number), False, self._jax_dtype(None)))

    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        # inputs are flattened, as NumPy (jnp.meshgrid refuses 0-d and n-d coordinates)
        return list(jnp.meshgrid(*[jnp.ravel(self._t(c)) for c in coordinates], indexing="ij"))


def _linspace(start: Any, stop: Any, number: int, endpoint: bool, dtype: Any) -> Any:
    """`jnp.linspace` of Python or 0-d bounds, computed in float64 where the bounds are Python numbers and cast to
    `dtype`: a bound beyond `dtype`'s range gives inf, as NumPy (JAX computes `0 * inf` = NaN at the start)."""
    if not isinstance(start, jax.core.Tracer) and not isinstance(stop, jax.core.Tracer):  # numbers and concrete 0-d arrays
        start, stop = float(np.asarray(start)), float(np.asarray(stop))
        with np.errstate(over="ignore"):
            values = np.linspace(float(start), float(stop), number, endpoint=endpoint).astype(np.dtype(dtype))
        return jnp.asarray(values)
    return jnp.linspace(start, stop, number, endpoint=endpoint, dtype=dtype)


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple: a sequence of ints, or one int (the spec takes both, as NumPy)."""
    return tuple(shape) if isinstance(shape, (tuple, list)) or hasattr(shape, "__iter__") else (operator.index(shape),)
