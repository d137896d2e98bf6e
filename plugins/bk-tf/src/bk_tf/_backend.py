"""`TFBackend`: the bk operation catalogue on TensorFlow 2.

This module holds the required set, conversion, devices, creation, random numbers, shape
manipulation and sparse tensors; the other topics live in mixins (`_math`, `_indexing`, `_linalg`,
`_autodiff`). Only the backend's modules import TensorFlow (through `_framework`, which keeps its
start-up messages quiet); `bk_tf` and `bk_tf.plugin` do not.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import numpy as np

from bk import (
    ArgumentTypeError,
    Backend,
    ComputeDevice,
    DType,
    ShapeDtype,
    check_tensor_argument,
    from_numpy_dtype,
    get_precision,
    normalize_axes,
    normalize_axis,
)
from bk.rules import (
    INDEX_OPERATIONS,
    advanced_index,
    check_indices,
    check_python_ints,
    int_range,
    is_python_number,
    kernel,
    only_python_numbers,
    spec_verdict,
)

from ._autodiff import AutodiffMixin
from ._devices import canonical_device, device_of, list_tf_devices
from ._dtypes import (
    PYTHON_SCALARS,
    complex_tf,
    float_tf,
    from_tf_dtype,
    python_scalar_dtype,
    to_precision,
    to_tf_dtype,
)
from ._errors import DATA_ERRORS, NO_KERNEL
from ._framework import tf
from ._indexing import IndexingMixin, with_signed_bits
from ._linalg import LinalgMixin
from ._math import MathMixin
from ._standard import StandardMixin

__all__ = ["TFBackend"]

_DLPACK_CPU: Final = 1  # kDLCPU
_F16: Final = DType(float, 16)
_BF16: Final = DType(float, 16, brain=True)
_TF_ALIGNMENT: Final = 64
_CONVERSION: Final = (
    "a conversion that applies bk's rules of Python numbers and of the precision itself: the core's rules "
    "around it would cost more than the conversion"
)  # why `as_tensor` and `cast` are trusted

Tensor = Any
_NATIVE = (tf.Tensor, tf.Variable, tf.SparseTensor, tf.RaggedTensor)


def _assemble_coo(backend: Backend, indices: Tensor, values: Tensor, *, shape: tuple[int, ...]) -> Tensor:
    return backend.sparse_coo_tensor(indices, values, shape)


def _assemble_dense(backend: Backend, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


class TFBackend(StandardMixin, MathMixin, IndexingMixin, LinalgMixin, AutodiffMixin, Backend):
    """TensorFlow 2 as a bk backend, eager by default.

    Native tensors are `tf.Tensor`, `tf.Variable`, `tf.SparseTensor` (COO) and `tf.RaggedTensor`
    (recognised and owned, but most operations need dense tensors: convert with `.to_tensor()`).
    Python numbers convert as in PyTorch and JAX: floats to the float type of the precision
    (float32 by default), ints to int64, complex numbers to complex64. New tensors are created on
    the default device; random numbers come from a backend-owned `tf.random.Generator`.
    """

    # Each kernel declares itself where it is defined (`bk.rules.kernel`): the conversions `as_tensor` and `cast`,
    # `invert`, the value tests, the complex parts and the reductions are trusted, tuned kernels that apply
    # docs/semantics.md with bk.rules; the operators and the elementwise functions are bare TensorFlow calls
    # behind the plan, most with a fast call in front of it.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves
    # TensorFlow's facts, declared once (the core's plan does the rest): its search kernels take neither
    # complex values (refused) nor bools (computed as int8); igamma, fmod (floordiv of floats), lgamma and
    # the triangular solver lack half-precision kernels (computed in float32).
    complex_unordered = frozenset(("searchsorted",))
    lacking_kernels = {
        "searchsorted": frozenset({DType(bool)}),
        "gamma_inc_l": frozenset({_F16, _BF16}),
        "gamma_inc_u": frozenset({_F16, _BF16}),
        "floordiv": frozenset({_F16, _BF16}),
        "log_gamma": frozenset({_BF16}),
        "solve_triangular_dense": frozenset({_F16, _BF16}),
        "matrix_solve_least_squares": frozenset({_F16, _BF16}),
    }

    kernel_errors = DATA_ERRORS
    framework_errors = dict.fromkeys(NO_KERNEL, ArgumentTypeError)  # no kernel for a dtype the spec allows

    def __init__(self) -> None:
        devices = list_tf_devices(self)
        super().__init__("tf", devices, devices[0])
        self._generator: Any = None

    # ------------------------------------------------------------ helpers

    def _t(self, x: Any) -> Any:
        """`x` as a dense native tensor (Variables read, other values converted by `as_tensor`)."""
        if isinstance(x, tf.Tensor):
            return x
        if isinstance(x, tf.Variable):
            return tf.convert_to_tensor(x)
        if isinstance(x, tf.RaggedTensor):
            raise TypeError(
                "this operation needs a dense tensor but got a tf.RaggedTensor; convert it with ragged.to_tensor() first"
            )
        if isinstance(x, tf.SparseTensor):
            raise TypeError(
                "this operation needs a dense tensor but got a tf.SparseTensor; convert it with tf.sparse.to_dense() first"
            )
        return self.as_tensor(x)  # None and strings: as_tensor's ArgumentTypeError (bk.check_tensor_argument)

    def _device_scope(self) -> Any:
        return tf.device(self._default_device.ref)

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: `tf.Tensor`, `tf.Variable`, `tf.SparseTensor`, `tf.RaggedTensor`; else also NumPy arrays, numbers and lists of them."""
        if isinstance(x, _NATIVE):
            return True
        if only_native:
            return False
        if isinstance(x, (np.ndarray, np.generic)):
            return x.dtype.kind in "biufcUS" or x.dtype.name == "bfloat16"
        if isinstance(x, numbers.Number):
            return True
        if isinstance(x, (list, tuple)):
            return all(self.is_tensor(e) for e in x)
        return False

    @kernel(trusted=True, why=_CONVERSION)
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """`x` as a native tensor; native values are returned as they are, converted to a set precision.

        Python floats become the float type of the precision (float32 when it is `None`), ints
        int64, complex numbers complex64 (or the precision's). NumPy arrays keep their dtype.

        Args:
            convert_external: If False, Python numbers are returned unchanged.

        Raises:
            ArgumentTypeError: for objects TensorFlow cannot convert.
        """
        precision = get_precision()
        if isinstance(x, (tf.Tensor, tf.Variable)):
            return to_precision(x, precision)
        if isinstance(x, tf.SparseTensor):
            values = to_precision(x.values, precision)
            return x if values is x.values else tf.SparseTensor(x.indices, values, x.dense_shape)
        if isinstance(x, tf.RaggedTensor):
            return x if precision is None else x.with_flat_values(to_precision(x.flat_values, precision))
        if is_python_number(x) and not convert_external:
            return x
        check_tensor_argument(x, "as_tensor")  # None, strings and bytes
        array = self._to_numpy_input(x, precision)
        if array.ndim == 0 and not tf.executing_eagerly():
            # a number converted while tracing (tf.function) is made eagerly and captured by the graph: the core's
            # plan keeps the constants of a call signature, which must serve every graph traced with it
            with tf.init_scope(), self._device_scope():
                return to_precision(tf.convert_to_tensor(array), precision)
        with self._device_scope():
            return to_precision(tf.convert_to_tensor(array), precision)

    @staticmethod
    def _to_numpy_input(x: Any, precision: int | None) -> np.ndarray:
        if is_python_number(x) or (isinstance(x, (list, tuple)) and only_python_numbers(x)):
            array = np.asarray(x)
            if array.dtype.kind == "f":
                return array.astype(np.dtype(f"float{precision or 32}"))
            if array.dtype.kind == "c":
                return array.astype(np.complex128 if precision == 64 else np.complex64)
            if array.dtype.kind == "i":
                return array.astype(np.int64)
            if array.dtype.kind == "O":  # NumPy keeps ints beyond 64 bits as objects
                check_python_ints(DType(int, 64), array.ravel(), "as_tensor")
            return array
        if isinstance(x, (list, tuple)) and any(isinstance(e, _NATIVE) for e in x):
            return np.stack([np.asarray(e) for e in x])
        try:
            array = np.asarray(x)
        except (TypeError, ValueError) as err:
            raise ArgumentTypeError(
                f"cannot convert {type(x).__name__} to a TensorFlow tensor; pass a number, a list, an array or a tensor"
            ) from err
        if array.dtype.kind not in "biufcUS" and array.dtype.name != "bfloat16":
            raise ArgumentTypeError(f"cannot convert {type(x).__name__} with NumPy dtype {array.dtype} to a TensorFlow tensor")
        return array

    def is_available(self, tensor: Tensor) -> bool:
        """False for symbolic tensors inside `tf.function` (graph tensors), True for eager values."""
        if isinstance(tensor, tf.SparseTensor):
            tensor = tensor.values
        if isinstance(tensor, tf.RaggedTensor):
            tensor = tensor.flat_values
        if isinstance(tensor, tf.Tensor):
            return hasattr(tensor, "numpy") and tf.executing_eagerly()
        return True

    def numpy(self, tensor: Tensor) -> np.ndarray:
        """The values as a NumPy array (a `scipy.sparse.coo_array` for 2-D `tf.SparseTensor`s).

        Raises:
            TypeError: for a `tf.RaggedTensor` (NumPy has no ragged arrays) or a symbolic tensor.
        """
        if isinstance(tensor, tf.RaggedTensor):
            raise TypeError("a tf.RaggedTensor has no NumPy equivalent; convert it with ragged.to_tensor() or ragged.to_list()")
        if isinstance(tensor, tf.SparseTensor):
            return self._sparse_numpy(tensor)
        if isinstance(tensor, (tf.Tensor, tf.Variable)):
            if not self.is_available(tensor):
                raise TypeError("cannot get the NumPy value of a symbolic tensor inside tf.function; use numpy_call() there")
            return tensor.numpy()  # type: ignore[no-any-return]
        return np.asarray(tensor)

    @staticmethod
    def _sparse_numpy(tensor: Any) -> Any:
        from scipy.sparse import coo_array

        indices = tensor.indices.numpy()
        shape = tuple(int(s) for s in tensor.dense_shape.numpy())
        return coo_array((tensor.values.numpy(), tuple(indices.T)), shape=shape)

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of a tensor; Python numbers as the reference defines: int is int32, float float64."""
        dtype = getattr(array, "dtype", None)
        if isinstance(dtype, tf.DType):
            return from_tf_dtype(dtype)
        if isinstance(dtype, np.dtype):
            return from_numpy_dtype(dtype)
        if isinstance(array, PYTHON_SCALARS):
            return python_scalar_dtype(array)
        return from_tf_dtype(self.as_tensor(array).dtype)

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The shape; sizes unknown while tracing (and ragged dimensions) are `None`."""
        if isinstance(tensor, (tf.Tensor, tf.Variable, tf.SparseTensor, tf.RaggedTensor)):
            return tuple(tensor.shape.as_list())
        return tuple(np.shape(tensor))

    def shape(self, tensor: Tensor) -> Any:
        """The static shape where known, else the dynamic size as a scalar tensor (inside `tf.function`)."""
        if not isinstance(tensor, (tf.Tensor, tf.Variable)):
            return self.staticshape(tensor)
        static = tensor.shape.as_list()
        if None not in static:
            return tuple(static)
        dynamic = tf.shape(tensor)
        return tuple(s if s is not None else dynamic[i] for i, s in enumerate(static))

    @kernel(trusted=True, why=_CONVERSION)
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as `dtype`; `x` itself when it already has it. Complex to real keeps the real part; to bool, either part counts."""
        target = to_tf_dtype(dtype)
        if isinstance(x, tf.SparseTensor):
            return x if x.dtype == target else tf.SparseTensor(x.indices, self.cast(x.values, dtype), x.dense_shape)
        if isinstance(x, tf.RaggedTensor):
            return x if x.dtype == target else x.with_flat_values(self.cast(x.flat_values, dtype))
        if not isinstance(x, (tf.Tensor, tf.Variable)):
            if type(x) is int and dtype.kind is int and not int_range(dtype)[0] <= x <= int_range(dtype)[1]:
                raise OverflowError(f"cast: Python int {x} does not fit {dtype.name} {list(int_range(dtype))} (NumPy 2, NEP 50)")
            x = self.as_tensor(x) if not isinstance(x, np.ndarray) else tf.convert_to_tensor(x)
        if x.dtype == target:
            return x
        if target == tf.bool:  # non-zero is true; for complex values either part (as NumPy)
            return tf.not_equal(x, tf.zeros((), x.dtype))
        if x.dtype.is_complex and not target.is_complex:
            x = tf.math.real(x)
        return tf.cast(x, target)

    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values; complex keeps its precision when the precision is `None`, float64 gives complex128."""
        x = self._t(x)
        precision = get_precision()
        if x.dtype.is_complex:
            return to_precision(x, precision)
        if precision is None and x.dtype == tf.float64:
            return tf.cast(x, tf.complex128)
        return tf.cast(x, complex_tf(precision))

    # ------------------------------------------------------------ devices, memory, conversion

    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The device `tensor` lives on (`tf.SparseTensor`s: the device of their values)."""
        if isinstance(tensor, tf.SparseTensor):
            tensor = tensor.values
        if isinstance(tensor, tf.RaggedTensor):
            tensor = tensor.flat_values
        if not isinstance(tensor, (tf.Tensor, tf.Variable)):
            return self._default_device
        try:
            return self.get_device_by_ref(device_of(tensor))
        except KeyError:
            return self._default_device

    def get_device_by_ref(self, ref: Any) -> ComputeDevice:
        """The device of `ref` in any of TensorFlow's spellings: `'/device:CPU:0'` (the `ref`), what tensors
        report (`'/job:localhost/replica:0/task:0/device:CPU:0'`), `'/CPU:0'`, `'cpu:0'`, `'GPU'`, a `tf.DeviceSpec`.

        Raises:
            KeyError: if no device of this backend has that reference.
        """
        for device in self._devices:
            if device.ref == ref:
                return device
        canonical = canonical_device(ref)
        for device in self._devices:
            if canonical is not None and device.ref == canonical:
                return device
        raise KeyError(f"tf has no device {ref!r}; available: {[d.ref for d in self._devices]}")

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """A copy of `tensor` on `device`, one of this backend's (the plan checks it: `bk.rules.check_device`);
        `tensor` itself when it is there already."""
        if isinstance(tensor, (tf.Tensor, tf.Variable)) and self.get_device(tensor) == device and isinstance(tensor, tf.Tensor):
            return tensor
        with tf.device(device.ref):
            if isinstance(tensor, tf.SparseTensor):
                return tf.SparseTensor(tf.identity(tensor.indices), tf.identity(tensor.values), tf.identity(tensor.dense_shape))
            return tf.identity(self._t(tensor))

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy; immutable `tf.Tensor`s are returned as they are when `only_mutable`. A `tf.Variable` gives a snapshot tensor."""
        if isinstance(tensor, tf.Variable):
            return tf.identity(tensor)
        if isinstance(tensor, tf.Tensor):
            return tensor if only_mutable else tf.identity(tensor)
        if isinstance(tensor, (tf.SparseTensor, tf.RaggedTensor)):
            return tensor  # immutable composite tensors
        return self.as_tensor(tensor)

    def to_dlpack(self, tensor: Tensor) -> Any:
        """An object with `__dlpack__` / `__dlpack_device__` sharing the memory of the dense `tensor`."""
        return _DLPackTensor(self._t(tensor))

    def from_dlpack(self, capsule: Any) -> Tensor:
        """A tensor sharing the memory of an object with `__dlpack__`, or of a raw DLPack capsule.

        TensorFlow's CPU kernels assume 64-byte aligned memory (Eigen) and abort the process on
        anything else, and it rejects strided views: such CPU buffers are copied instead of shared.
        """
        if hasattr(capsule, "__dlpack__"):
            if capsule.__dlpack_device__()[0] == _DLPACK_CPU:
                view = np.from_dlpack(capsule)
                if view.size and (view.ctypes.data % _TF_ALIGNMENT or not view.flags.c_contiguous):
                    return tf.constant(view)
            capsule = capsule.__dlpack__()
        return tf.experimental.dlpack.from_dlpack(capsule)

    def is_module(self, obj: Any) -> bool:
        """Whether `obj` is a `tf.Module` (Keras layers and models are)."""
        return isinstance(obj, tf.Module)

    def prefers_channels_last(self) -> bool:
        """True: TensorFlow's convolutions and pooling are written for channels-last data."""
        return True

    # ------------------------------------------------------------ creation

    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Zeros on the default device; `dtype` defaults to the float type of the current precision."""
        with self._device_scope():
            return tf.zeros(_shape(shape), to_tf_dtype(dtype or self.float_type))

    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape and dtype of `tensor`."""
        if isinstance(tensor, tf.SparseTensor):
            return tf.zeros(tensor.dense_shape, tensor.dtype)
        return tf.zeros_like(self._t(tensor))

    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Ones on the default device; `dtype` defaults to the float type of the current precision."""
        with self._device_scope():
            return tf.ones(_shape(shape), to_tf_dtype(dtype or self.float_type))

    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape and dtype of `tensor`."""
        if isinstance(tensor, tf.SparseTensor):
            return tf.ones(tensor.dense_shape, tensor.dtype)
        return tf.ones_like(self._t(tensor))

    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        with self._device_scope():
            if plan.dtype.kind is int:
                target = to_tf_dtype(plan.dtype)
                if target not in (
                    tf.int32,
                    tf.int64,
                ):  # TF's Range kernel has no narrow or unsigned ints: count in int64, then cast
                    return tf.cast(tf.range(plan.start, plan.start + plan.count * plan.delta, plan.delta, dtype=tf.int64), target)
                return tf.range(plan.start, plan.start + plan.count * plan.delta, plan.delta, dtype=target)
            steps = tf.range(plan.count, dtype=tf.float64)
            return tf.cast(steps * plan.delta + plan.start, to_tf_dtype(plan.dtype))

    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats of the current float type from `start` to `stop`, both included."""
        with self._device_scope():
            bounds = [
                tf.cast(b, tf.float64) if tf.is_tensor(b) else tf.constant(b, tf.float64) for b in (start, stop)
            ]  # 0-d tensors too
            result = tf.linspace(bounds[0], bounds[1], number)
            return tf.cast(result, float_tf(get_precision()))

    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        """Coordinate grids with matrix ('ij') indexing; each grid keeps the dtype of its coordinates (as NumPy)."""
        vectors = [tf.reshape(self._t(c), [-1]) for c in coordinates]
        shape = [v.shape[0] if v.shape[0] is not None else tf.size(v) for v in vectors]  # static sizes where known
        rank = len(vectors)
        return [tf.broadcast_to(tf.reshape(v, [-1 if i == d else 1 for i in range(rank)]), shape) for d, v in enumerate(vectors)]

    def variable(self, value: Tensor) -> Any:
        """A trainable `tf.Variable` holding `value`."""
        with self._device_scope():
            return tf.Variable(self._t(value), trainable=True)

    # ------------------------------------------------------------ randomness

    def _rng(self) -> Any:
        if self._generator is None:
            self._generator = tf.random.Generator.from_non_deterministic_state()
        return self._generator

    def seed(self, seed: int) -> None:
        """Restarts this backend's own `tf.random.Generator` from `seed`; TensorFlow's global seed is untouched."""
        self._generator = tf.random.Generator.from_seed(seed)

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`: integers for int dtypes, independent real and imaginary parts for complex
        (the spec refuses other dtypes)."""
        dtype = DType.as_dtype(dtype) or self.float_type  # names too, as the spec (checked first) takes them
        shape = tuple(shape)
        with self._device_scope():
            if dtype.kind is int:
                generated = tf.int64 if dtype.bits == 64 else tf.int32
                from bk.rules import int_uniform_bounds

                low, high = int_uniform_bounds(low, high)
                values = self._rng().uniform(shape, low, high, dtype=generated)
                return tf.cast(values, to_tf_dtype(dtype))
            if dtype.kind is float:
                return self._uniform(shape, low, high, to_tf_dtype(dtype))
            part = tf.float64 if dtype.bits == 128 else tf.float32  # complex
            low, high = complex(low), complex(high)
            real = self._uniform(shape, low.real, high.real, part)
            return tf.complex(real, self._uniform(shape, low.imag, high.imag, part))

    def _uniform(self, shape: tuple[int, ...], low: Any, high: Any, dtype: Any) -> Any:
        generated = dtype if dtype in (tf.float32, tf.float64) else tf.float32
        return tf.cast(self._rng().uniform(shape, low, high, dtype=generated), dtype)

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values; for complex dtypes each part has variance 1/2 (the spec refuses bool and int dtypes)."""
        dtype = DType.as_dtype(dtype) or self.float_type
        shape = tuple(shape)
        with self._device_scope():
            if dtype.kind is float:
                generated = to_tf_dtype(dtype) if dtype.bits in (32, 64) and not dtype.brain else tf.float32
                return tf.cast(self._rng().normal(shape, dtype=generated), to_tf_dtype(dtype))
            part = tf.float64 if dtype.bits == 128 else tf.float32  # complex
            scale = tf.constant(np.sqrt(0.5), part)
            return tf.complex(self._rng().normal(shape, dtype=part) * scale, self._rng().normal(shape, dtype=part) * scale)

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        """`value` with a new shape; -1 infers one size."""
        if isinstance(value, tf.SparseTensor):
            return tf.sparse.reshape(value, tuple(shape))
        return tf.reshape(self._t(value), tuple(shape))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its dimensions permuted to `axes`."""
        if not isinstance(tensor, tf.SparseTensor):
            tensor = self._t(tensor)
            return tf.transpose(tensor, [normalize_axis(a, tensor.shape.rank, "transpose") for a in axes])
        template = ShapeDtype(tuple(tensor.shape), from_tf_dtype(tensor.dtype))  # the spec's check skips sparse tensors
        verdict = spec_verdict(None, "transpose", (template, tuple(axes)), {})
        if verdict is not None:
            raise verdict
        return tf.sparse.transpose(tensor, [normalize_axis(a, tensor.shape.rank, "transpose") for a in axes])

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new dimensions of size 1 inserted at `axis` (in `[-rank - 1, rank]`)."""
        a = self._t(a)
        position = normalize_axis(axis, a.shape.rank + 1, "expand_dims")
        for _ in range(number):
            a = tf.expand_dims(a, position)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Stacks equally shaped tensors along a new axis (in `[-rank - 1, rank]`); the plan gives them in their common type."""
        values = list(values)
        return tf.stack(values, axis=normalize_axis(axis, values[0].shape.rank + 1, "stack"))

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """Concatenates tensors along an existing axis; the plan gives them in their common type."""
        values = list(values)
        if all(isinstance(v, tf.SparseTensor) for v in values):
            return tf.sparse.concat(normalize_axis(axis, values[0].shape.rank, "concat"), values)
        return tf.concat(values, axis=normalize_axis(axis, values[0].shape.rank, "concat"))

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes."""
        value = self._t(value)
        multiples = tuple(multiples)
        missing = len(multiples) - value.shape.rank
        if missing > 0:
            value = tf.reshape(value, tf.concat([tf.ones([missing], tf.int32), tf.shape(value)], 0))
        elif missing < 0:  # as numpy.tile: fewer multiples apply to the last axes
            multiples = (1,) * -missing + multiples
        return with_signed_bits(tf.tile, value, multiples)

    def tile_to(self, x: Tensor, axis: int, size: int) -> Tensor:
        """`x` tiled along `axis` until it has `size` elements there (the spec checks that `size` is a multiple).

        Raises:
            ValueError: while tracing, if the size along `axis` is unknown (the multiple is needed before the graph runs).
        """
        x = self._t(x)
        rank = x.shape.rank
        axis = normalize_axis(axis, rank, "tile_to")
        current = x.shape[axis]
        if current == size:
            return x
        if current is None:
            raise ValueError(f"tile_to: cannot tile an axis of unknown size to {size} (axis {axis} while tracing)")
        return with_signed_bits(tf.tile, x, [size // current if i == axis else 1 for i in range(rank)])

    def pad_to(self, x: Tensor, axis: int, new_size: int, fill_value: Any) -> Tensor:
        """`x` padded with `fill_value` or cut along `axis` to `new_size`."""
        x = self._t(x)
        rank = x.shape.rank
        axis = normalize_axis(axis, rank, "pad_to")
        current = x.shape[axis]
        if current is None or new_size == current:
            return x
        if new_size < current:
            return x[tuple(slice(new_size) if i == axis else slice(None) for i in range(rank))]
        widths = [[0, new_size - current] if i == axis else [0, 0] for i in range(rank)]
        if x.dtype == tf.bool:
            fill = tf.cast(fill_value, tf.bool)
        else:  # cast as NumPy casts (2.5 into uint32 is 2; TensorFlow refuses to convert it)
            fill = tf.constant(np.asarray(fill_value).astype(x.dtype.as_numpy_dtype))
        return tf.pad(x, widths, constant_values=fill)

    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        """`value` reversed along `axes`: an int, a sequence of ints, or `None` for every axis."""
        value = self._t(value)
        chosen = normalize_axes(axes, value.shape.rank, "flip")
        if chosen is None:
            chosen = tuple(range(value.shape.rank))
        return tf.reverse(value, list(chosen)) if chosen else value

    def batch_gather(self, tensor: Tensor, batches: Any) -> Tensor:
        """The entries `batches` (an int or list of ints) of the first dimension."""
        if isinstance(batches, int):
            batches = [batches]
        return self.gather(tensor, batches, 0)  # type: ignore[attr-defined]

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]` for a tuple of slices (negative steps included), ints, `None`, `...` and
        integer or bool tensors; TensorFlow indexes with the basic ones, the core's composite does
        NumPy's advanced indexing with it (`bk.rules.advanced_index`).

        Raises:
            IndexOutOfRangeError: for an index outside its dimension (the core's spec decides).
        """
        return advanced_index(self, self._t(tensor), slices, _basic_index)  # type: ignore[arg-type]

    def unstack(self, tensor: Tensor, axis: int = 0, keepdims: bool = False) -> tuple[Tensor, ...]:
        """Slices of `tensor` along `axis`, keeping that axis with size 1 if `keepdims`."""
        tensor = self._t(tensor)
        axis = normalize_axis(axis, tensor.shape.rank, "unstack")
        slices = tf.unstack(tensor, axis=axis)
        return tuple(tf.expand_dims(s, axis) for s in slices) if keepdims else tuple(slices)

    # ------------------------------------------------------------ sparse

    def is_sparse(self, x: Tensor) -> bool:
        """Whether `x` is a `tf.SparseTensor`."""
        return isinstance(x, tf.SparseTensor)

    def get_sparse_format(self, x: Tensor) -> str:
        """`'coo'` for `tf.SparseTensor`s (TensorFlow's only sparse format), else `'dense'`."""
        return "coo" if isinstance(x, tf.SparseTensor) else "dense"

    def disassemble(self, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
        """`(assemble, (indices, values))` for sparse tensors, `(assemble, (x,))` for dense ones.

        `assemble(backend, *parts)` rebuilds `x` on any backend that implements `sparse_coo_tensor`.
        """
        if not isinstance(x, tf.SparseTensor):
            return _assemble_dense, (x,)
        shape = (
            tuple(int(s) for s in x.shape.as_list())
            if x.shape.is_fully_defined()
            else tuple(int(s) for s in x.dense_shape.numpy())
        )
        return partial(_assemble_coo, shape=shape), (x.indices, x.values)

    def sparse_coo_tensor(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A `tf.SparseTensor` from `(nnz, ndims)` indices and `(nnz,)` values; duplicate indices add up.

        TensorFlow requires unique, ordered indices, so duplicates are summed and entries sorted here.
        """
        indices = tf.cast(self._t(indices), tf.int64)
        values = self._t(values)
        shape = tuple(int(s) for s in shape)
        check_indices(self, indices, shape, "sparse_coo_tensor", negative=False)
        strides = tf.constant([int(np.prod(shape[i + 1 :])) for i in range(len(shape))], tf.int64)
        flat = tf.reduce_sum(indices * strides, axis=-1)
        unique, position = tf.unique(flat)
        summed = tf.math.unsorted_segment_sum(values, position, tf.shape(unique)[0])
        order = tf.argsort(unique)
        unique = tf.gather(unique, order)
        summed = tf.gather(summed, order)
        unique_indices = (
            tf.stack([unique // s % n for s, n in zip(tf.unstack(strides), shape, strict=True)], axis=-1)
            if shape
            else tf.zeros((0, 0), tf.int64)
        )
        return tf.SparseTensor(unique_indices, summed, shape)

    def sparse_dense(self, x: Tensor) -> Tensor:
        """The dense tensor of a `tf.SparseTensor` (not a catalogue operation)."""
        return tf.sparse.to_dense(x)


class _DLPackTensor:
    """A dense TensorFlow tensor seen through the DLPack protocol (`__dlpack__`, `__dlpack_device__`)."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __dlpack__(self, *, stream: Any = None, **kwargs: Any) -> Any:
        return tf.experimental.dlpack.to_dlpack(self.tensor)

    def __dlpack_device__(self) -> tuple[int, int]:
        device = device_of(self.tensor)
        index = int(device.rsplit(":", 1)[-1])
        return (2, index) if ":GPU:" in device else (1, 0)  # kDLCUDA or kDLCPU


def _basic_index(tensor: Any, key: tuple[Any, ...]) -> Any:
    return tensor[key]


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple: a sequence of ints, or one int (the spec takes both, as NumPy)."""
    return tuple(shape) if isinstance(shape, (tuple, list)) or hasattr(shape, "__iter__") else (operator.index(shape),)
