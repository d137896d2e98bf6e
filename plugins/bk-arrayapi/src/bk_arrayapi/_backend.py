"""`ArrayAPIBackend`: the bk backend of one namespace of the Python Array API standard.

`create_backend(name, namespace)` imports the namespace and builds a subclass for it: every
operation whose namespace functions or capabilities (`__array_namespace_info__().capabilities()`)
are missing is taken back to the base class's `NotImplementedError`, so `supports()`, which is
cached per class, is right for each namespace. Nothing is decided from the library's name.

The operations live in mixins by topic (`_math`, `_indexing`, `_linalg`); this module holds the
required set, conversion, devices, creation, randomness and shape manipulation.
"""

from __future__ import annotations

import importlib
import numbers
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Final

import numpy as np

import bk
from bk import (
    ArgumentTypeError,
    Backend,
    ComputeDevice,
    DType,
    get_precision,
    normalize_axis,
    to_numpy_dtype,
)
from bk.rules import (
    INDEX_OPERATIONS,
    ORDERING,
    PYTHON_NUMBERS,
    advanced_index,
    is_array_index,
    kernel,
    only_python_numbers,
)
from bk.rules import SETTINGS as _GLOBALS

from ._devices import list_devices
from ._dtypes import DTypeMap, default_dtype, python_scalar_dtype
from ._indexing import IndexingMixin
from ._linalg import LinalgMixin
from ._math import MathMixin, namespace_kernels
from ._needs import missing, needs

__all__ = ["LOADERS", "ArrayAPIBackend", "create_backend", "namespace_of"]

Tensor = Any

_FLOAT64: Final = DType(float, 64)
_COMPLEX128: Final = DType(complex, 128)


class _DLPackCapsule:
    """Wraps a raw DLPack capsule (host memory) so that `from_dlpack`, which wants `__dlpack__`, accepts it."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


class ArrayAPIBackend(MathMixin, IndexingMixin, LinalgMixin, Backend):
    """Any namespace of the Array API standard; use `create_backend` to get one.

    Native tensors are the namespace's arrays. Python numbers convert as in PyTorch and JAX:
    floats to the float type of the precision (float32 by default), ints to int64, complex
    numbers to complex64; mixed operations promote as NumPy does, with Python numbers weak.

    Args:
        name: The backend name.
        xp: The namespace module.
        namespace: Its import name.
    """

    # Each kernel declares itself where it is defined (`bk.rules.kernel`): `any`, `all`, `real`, `imag`,
    # `as_tensor` and `cast` apply docs/semantics.md themselves and are trusted; the other elementwise kernels
    # and reductions are bare calls served by the plan (`namespace_kernels` gives them fast calls).
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves
    # The standard's facts, declared once (the core's plan does the rest): it orders no complex values, and
    # these functions take numbers only, no bools (computed as int8).
    complex_unordered = ORDERING  # the standard orders no complex values: the core orders them as NumPy
    lacking_kernels = dict.fromkeys(
        (
            "mul", "maximum", "minimum", "greater_than", "greater_or_equal", "abs", "round", "floor", "ceil", "isfinite", "isnan",
            "isinf", "conj", "max", "min", "argmax", "argmin", "sort", "argsort", "searchsorted", "unique",
        ),
        frozenset({DType(bool)}),
    )  # fmt: skip

    float16_supported: ClassVar[bool] = True
    """Whether the namespace has a float16 dtype (outside the standard; read by the testkit)."""

    bfloat16_supported: ClassVar[bool] = False
    """bfloat16 is outside the standard, and not mapped (read by the testkit)."""

    unsupported: ClassVar[dict[str, list[str]]] = {}
    """Operations taken back to `NotImplementedError` for this class's namespace, with what it lacks."""

    def __init__(self, name: str, xp: Any, namespace: str) -> None:
        self.xp = xp
        self.namespace = namespace
        self._info = xp.__array_namespace_info__()
        self._dtypes = DTypeMap(xp, namespace)
        self._index_dtype = self._dtypes.native(DType(int, 64)) if self._dtypes.has(DType(int, 64)) else None
        self._array_type = type(xp.asarray(0))
        self._rng = np.random.default_rng()
        devices, default = list_devices(self, xp, namespace)
        super().__init__(name, devices, default)

    # ------------------------------------------------------------ helpers of every mixin

    def _ref(self, like: Any = None) -> Any:
        """The device for new arrays: that of the array `like`, else the default device."""
        return self._default_device.ref if like is None else getattr(like, "device", self._default_device.ref)

    def _native_dtype(self, dtype: DType) -> Any:
        return self._dtypes.native(dtype)

    def _dt(self, x: Tensor) -> DType:
        """The `DType` of a native array."""
        return self._dtypes.from_native(x.dtype)

    def _astype(self, x: Tensor, dtype: DType) -> Tensor:
        """A native array as `dtype` (itself when it has it); complex to real keeps the real part."""
        current = self._dt(x)
        if current == dtype:
            return x
        if current.kind is complex and dtype.kind is not complex:
            if dtype.kind is bool:  # non-zero, the imaginary part included
                return self.xp.not_equal(x, self.xp.zeros_like(x))
            x = self.xp.real(x)
        return self.xp.astype(x, self._native_dtype(dtype))

    def _native(self, x: Any, op: str = "as_tensor") -> Tensor:
        """`x` as a native array, as `as_tensor` converts it; errors name the bk operation `op`."""
        if type(x) is self._array_type:
            return self._to_precision(x)
        return self._convert(x, op)

    def _to_precision(self, x: Tensor) -> Tensor:
        if _GLOBALS.precision_free:
            return x
        precision = get_precision()
        dtype = self._dt(x)
        if dtype.kind is float and dtype.bits != precision:
            return self._astype(x, DType(float, precision))
        if dtype.kind is complex and dtype.bits != 2 * precision:  # type: ignore[operator]
            return self._astype(x, DType(complex, 2 * max(precision, 32)))  # type: ignore[call-overload]
        return x

    def _floats(self, x: Any, op: str = "as_tensor") -> Tensor:
        """`x` as floats (or complex) of the current precision; bools and ints become the float type."""
        x = self._native(x, op)
        if self._dt(x).kind in (bool, int):
            return self._astype(x, self.float_type)
        return x

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: the namespace's arrays; else also Python numbers, NumPy values and (nested) lists of them."""
        if isinstance(x, self._array_type):
            return True
        if only_native:
            return False
        if isinstance(x, (list, tuple)):
            return all(self.is_tensor(e) for e in x)
        return isinstance(x, (numbers.Number, np.ndarray, np.generic))

    @kernel(trusted=True, why="applies the rules of Python numbers itself: ints as int64, floats in the precision")
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """`x` as an array of the namespace on the default device, with floats in the current precision.

        Python floats become the float type of the precision, ints int64, complex numbers complex64
        (or the precision's); NumPy arrays and scalars keep their dtype; tensors of other libraries
        come through DLPack.

        Args:
            convert_external: If False, Python numbers are returned unchanged.

        Raises:
            ArgumentTypeError: for values that are no numbers, lists or arrays (None, strings).
            TypeError: for an array of the namespace's type whose dtype the namespace does not declare
                (NumPy's bfloat16 beside `array_api_compat.numpy`), which `dtype` refuses too.
        """
        if not convert_external and type(x) in PYTHON_NUMBERS:
            return x
        if isinstance(x, self._array_type):
            self._dt(x)  # its dtype is one the namespace declares, or TypeError
        return self._convert(x, "as_tensor")

    def _convert(self, x: Any, op: str) -> Tensor:
        if isinstance(x, self._array_type):
            return self._to_precision(x)
        if type(x) in PYTHON_NUMBERS or only_python_numbers(x):
            return self._from_python(x)
        if isinstance(x, (list, tuple, np.ndarray, np.generic, numbers.Number)):
            return self._to_precision(self._from_numpy(self._host_precision(np.asarray(x), op)))
        if hasattr(x, "__dlpack__"):
            try:
                return self._to_precision(self.xp.from_dlpack(x))
            except Exception:  # another device or an unsupported dtype: through NumPy below
                pass
        if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
            return self._to_precision(self._from_numpy(np.asarray(x)))
        raise ArgumentTypeError(
            f"{op}: expected a tensor, a number or a list but got {type(x).__name__}; cannot convert it to a {self.namespace} array"
        )

    def _host_precision(self, array: np.ndarray, op: str) -> np.ndarray:
        """A NumPy array of numbers, floats converted to a set precision on the host (so that a
        float16 or bfloat16 array becomes float32/64 even where the namespace lacks its dtype)."""
        try:
            dtype = bk.from_numpy_dtype(array.dtype)
        except Exception:  # structured or other dtypes bk does not know
            dtype = None
        if dtype is None or dtype.kind not in (bool, int, float, complex):
            raise ArgumentTypeError(f"{op}: expected numbers or a numeric array but got {array.dtype} values")
        if _GLOBALS.precision_free or dtype.kind not in (float, complex):
            return array
        precision = get_precision()
        target = DType(float, precision) if dtype.kind is float else DType(complex, 2 * max(precision, 32))  # type: ignore[call-overload]
        return array if dtype == target else array.astype(to_numpy_dtype(target))

    def _from_python(self, x: Any) -> Tensor:
        array = np.asarray(x)
        kind = {"b": bool, "i": int, "u": int, "f": float, "c": complex}.get(array.dtype.kind, float)
        dtype = default_dtype(kind)
        return self._from_numpy(array.astype(to_numpy_dtype(dtype), copy=False))

    def _from_numpy(self, array: np.ndarray) -> Tensor:
        dtype = bk.from_numpy_dtype(array.dtype)
        native = self._native_dtype(dtype)
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        return self.xp.asarray(array, dtype=native, device=self._ref())

    def is_available(self, tensor: Tensor) -> bool:
        """False for lazy arrays whose values are not computed yet (`array_api_compat.is_lazy_array`)."""
        from array_api_compat import is_lazy_array

        return not is_lazy_array(tensor)

    def numpy(self, tensor: Tensor) -> np.ndarray:
        """The values as a NumPy array: through DLPack where the array is in host memory, else `numpy.asarray`."""
        if isinstance(tensor, np.ndarray):
            return tensor
        if not isinstance(tensor, self._array_type):
            return np.asarray(tensor)
        try:
            return np.from_dlpack(tensor)
        except Exception:  # device memory, lazy arrays, or no DLPack: let the array convert itself
            pass
        try:
            return np.asarray(tensor)
        except Exception:
            from array_api_compat import to_device

            return np.asarray(to_device(tensor, "cpu"))

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of an array, or of a Python number as the reference defines it (int is int32)."""
        if isinstance(array, self._array_type):
            return self._dt(array)
        if type(array) in PYTHON_NUMBERS:
            return python_scalar_dtype(array)
        if isinstance(array, (np.ndarray, np.generic)):
            return bk.from_numpy_dtype(array.dtype)
        return self._dt(self.as_tensor(array))

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The shape; sizes the namespace does not know yet (None or NaN) are `None`."""
        shape = getattr(tensor, "shape", None)
        if shape is None:
            return tuple(np.shape(tensor))
        return tuple(None if s is None or s != s else int(s) for s in shape)

    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values of the current precision; without one, complex values keep theirs,
        float64 becomes complex128 and everything else complex64 (as NumPy, torch, JAX)."""
        x = self._native(x, "to_complex")
        if get_precision() is None:
            dtype = self._dt(x)
            if dtype.kind is complex:
                return x
            if dtype == _FLOAT64:
                return self._astype(x, _COMPLEX128)
        return self._astype(x, self.complex_type)

    @kernel(trusted=True, why="converts Python values at full precision itself; complex to real keeps the real part")
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as `dtype`; `x` itself when it already has it. Complex to real keeps the real part.

        Raises:
            NotImplementedError: for a dtype the namespace does not have.
        """
        if not isinstance(x, self._array_type):
            # Python values at full precision (float64), so that nothing is rounded before the cast
            x = self._from_numpy(np.asarray(x)) if only_python_numbers(x) else self.as_tensor(x)
        return self._astype(x, dtype)

    # ------------------------------------------------------------ devices, memory, conversion

    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The device the array lives on (`array_api_compat.device`)."""
        from array_api_compat import device

        ref = device(tensor)
        for candidate in self._devices:
            if candidate.ref == ref:
                return candidate
        return self._default_device

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` on `device` (`to_device`), one of this backend's (the plan checks it: `bk.rules.check_device`)."""
        from array_api_compat import to_device

        return to_device(self._native(tensor, "allocate_on_device"), device.ref)

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy of `tensor` (a new array)."""
        return self.xp.asarray(self._native(tensor, "copy"), copy=True)

    @needs("array.__dlpack__")
    def to_dlpack(self, tensor: Tensor) -> Any:
        """The array itself: the standard requires `__dlpack__`, which shares its memory."""
        return self._native(tensor, "to_dlpack")

    @needs("from_dlpack")
    def from_dlpack(self, capsule: Any) -> Tensor:
        """An array sharing the memory of an object with `__dlpack__` (or of a raw host-memory capsule)."""
        if not hasattr(capsule, "__dlpack__"):
            capsule = _DLPackCapsule(capsule)
        return self.xp.from_dlpack(capsule)

    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value` itself: the standard has no automatic differentiation, so nothing tracks gradients here."""
        return value

    def is_module(self, obj: Any) -> bool:
        """False: the standard has no modules (networks)."""
        return False

    # ------------------------------------------------------------ creation

    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Zeros on the default device; `dtype` defaults to the float type of the current precision."""
        return self.xp.zeros(tuple(shape), dtype=self._native_dtype(dtype or self.float_type), device=self._ref())

    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape and dtype of `tensor`."""
        return self.xp.zeros_like(self._native(tensor, "zeros_like"))

    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Ones on the default device; `dtype` defaults to the float type of the current precision."""
        return self.xp.ones(tuple(shape), dtype=self._native_dtype(dtype or self.float_type), device=self._ref())

    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape and dtype of `tensor`."""
        return self.xp.ones_like(self._native(tensor, "ones_like"))

    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        if plan.dtype.kind is int:
            stop = plan.start + plan.count * plan.delta
            return self.xp.arange(plan.start, stop, plan.delta, dtype=self._native_dtype(plan.dtype), device=self._ref())
        wide = self._native_dtype(DType(float, 64) if self.float64_supported else plan.dtype)
        steps = self.xp.arange(plan.count, dtype=wide, device=self._ref())
        return self.xp.astype(steps * plan.delta + plan.start, self._native_dtype(plan.dtype))

    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats of the current float type from `start` to `stop`, both included."""
        return self.xp.linspace(
            float(start), float(stop), int(number), dtype=self._native_dtype(self.float_type), device=self._ref()
        )

    def linspace_without_last(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats from `start` to `stop`, `stop` excluded."""
        return self.xp.linspace(
            float(start), float(stop), int(number), dtype=self._native_dtype(self.float_type), device=self._ref(), endpoint=False
        )

    @needs("meshgrid")
    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        """Coordinate grids with matrix ('ij') indexing; each grid keeps the dtype of its coordinates, as NumPy
        (the standard's meshgrid refuses mixed dtypes)."""
        xp = self.xp
        flat = [xp.reshape(self._native(c, "meshgrid"), (-1,)) for c in coordinates]
        shape = tuple(int(t.shape[0]) for t in flat)
        return [
            xp.broadcast_to(xp.reshape(t, tuple(-1 if i == j else 1 for j in range(len(flat)))), shape)
            for i, t in enumerate(flat)
        ]

    # ------------------------------------------------------------ randomness (drawn by NumPy, moved with asarray)

    def seed(self, seed: int) -> None:
        """Restarts this backend's own NumPy generator, which draws every random value."""
        self._rng = np.random.default_rng(seed)

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`, drawn on the host by NumPy: ints for int dtypes, independent parts for complex.

        Raises:
            ValueError: for bool and non-numeric dtypes.
        """
        dtype = dtype or self.float_type
        shape = tuple(shape)
        if dtype.kind is int:
            from bk.rules import int_uniform_bounds

            low, high = int_uniform_bounds(low, high)
            values = self._rng.integers(low, high, size=shape, dtype=to_numpy_dtype(dtype))
        elif dtype.kind is float:
            values = low + self._rng.random(shape) * (high - low)
        else:  # complex (the spec refuses bool and other dtypes)
            low, high = complex(low), complex(high)
            real = low.real + self._rng.random(shape) * (high.real - low.real)
            values = real + 1j * (low.imag + self._rng.random(shape) * (high.imag - low.imag))
        return self._from_numpy(np.asarray(values).astype(to_numpy_dtype(dtype)))

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values drawn on the host by NumPy; for complex dtypes each part has variance 1/2.

        Raises:
            ValueError: for bool, int and non-numeric dtypes.
        """
        dtype = dtype or self.float_type
        if dtype.kind is float:
            values = self._rng.standard_normal(tuple(shape))
        else:  # complex (the spec refuses bool, int and other dtypes)
            parts = self._rng.standard_normal((2, *shape)) * np.sqrt(0.5)
            values = parts[0] + 1j * parts[1]
        return self._from_numpy(np.asarray(values).astype(to_numpy_dtype(dtype)))

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        """`value` with a new shape; -1 infers one size.

        Raises:
            ShapeMismatchError: when the sizes do not match.
        """
        return self.xp.reshape(self._native(value, "reshape"), tuple(int(s) for s in shape))

    def flatten(self, x: Tensor) -> Tensor:
        """`x` as a 1-D array."""
        return self.xp.reshape(self._native(x, "flatten"), (-1,))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its dimensions permuted to `axes`."""
        tensor = self._native(tensor, "transpose")
        ndim = len(tensor.shape)
        return self.xp.permute_dims(tensor, tuple(normalize_axis(a, ndim, "transpose") for a in axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new dimensions of size 1 inserted at `axis`.

        Raises:
            ValueError: for a negative `number`.
            AxisError: for an axis outside `[-ndim - 1, ndim]`.
        """
        a = self._native(a, "expand_dims")
        ndim = len(a.shape)
        axis = normalize_axis(axis, ndim + 1, "expand_dims")
        return self.xp.reshape(a, (*a.shape[:axis], *(1,) * number, *a.shape[axis:])) if number else a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Stacks equally shaped tensors along a new axis, in their common dtype.

        Raises:
            ShapeMismatchError: for tensors of different shapes.
        """
        arrays = list(values)  # of one dtype: the core's plan casts them
        return self.xp.stack(arrays, axis=normalize_axis(axis, len(arrays[0].shape) + 1, "stack"))

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """Concatenates tensors along an existing axis, in their common dtype.

        Raises:
            ShapeMismatchError: for tensors whose other dimensions differ.
        """
        arrays = list(values)  # of one dtype: the core's plan casts them
        return self.xp.concat(arrays, axis=normalize_axis(axis, len(arrays[0].shape), "concat"))

    @needs("tile")
    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes."""
        return self.xp.tile(self._native(value, "tile"), tuple(int(m) for m in multiples))

    def flip(self, value: Tensor, axes: Sequence[int] | int) -> Tensor:
        """`value` reversed along `axes` (an int is one axis).

        Raises:
            AxisError: for an axis out of range.
        """
        value = self._native(value, "flip")
        ndim = len(value.shape)
        if axes is None:  # every axis, as numpy.flip
            axes = tuple(range(ndim))
        named = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
        return self.xp.flip(value, axis=tuple(normalize_axis(a, ndim, "flip") for a in named)) if named else value

    def unstack(self, tensor: Tensor, axis: int = 0, keepdims: bool = False) -> tuple[Tensor, ...]:
        """Slices of `tensor` along `axis`, keeping that axis with size 1 if `keepdims`."""
        tensor = self._native(tensor, "unstack")
        axis = normalize_axis(axis, len(tensor.shape), "unstack")
        head = (slice(None),) * axis
        if keepdims:
            return tuple(tensor[(*head, slice(i, i + 1), ...)] for i in range(tensor.shape[axis]))
        return tuple(tensor[(*head, i, ...)] for i in range(tensor.shape[axis]))

    def vectorized_call(self, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
        """Calls `f` on every entry of the first dimension of `args` (size 1 broadcasts) and stacks the results."""
        args = tuple(self._native(a, "vectorized_call") for a in args)
        batch = self.determine_size(args, 0)
        results = [f(*[a[min(b, a.shape[0] - 1), ...] for a in args], **aux_args) for b in range(batch)]
        return self.stack_leaves(results)

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]` for a tuple of slices (negative steps too), ints, `None`, `...` and integer or
        bool tensors (NumPy's advanced indexing, by `bk.rules.advanced_index`).

        Axes the tuple leaves out are kept whole (the standard wants them named by `...`).
        """
        tensor = self._native(tensor, "multi_slice")
        slices = tuple(slices) if isinstance(slices, (tuple, list)) else (slices,)
        if any(is_array_index(s) for s in slices):  # the standard's array indexing is narrower than NumPy's: the core's composite
            return advanced_index(self, tensor, slices, _basic_index)  # type: ignore[arg-type]
        return _basic_index(tensor, slices)

    @needs("matmul", "matrix_transpose")
    def linear(self, lin: Any, vector: Tensor) -> Tensor:
        """Applies a matrix, a list of matrices (one per batch entry) or a function to `(batch, n)` vectors."""
        if callable(lin):
            return lin(vector)
        vector = self._native(vector, "linear")
        if isinstance(lin, (tuple, list)):
            rows = [self.mul_matrix_batched_vector(m, vector[i : i + 1, ...])[0, ...] for i, m in enumerate(lin)]
            return self.xp.stack(rows)
        if len(self.staticshape(lin)) != 2:
            raise ValueError(f"linear: the operator must be a matrix but has shape {self.staticshape(lin)}")
        return self.mul_matrix_batched_vector(lin, vector)

    def batch_gather(self, tensor: Tensor, batches: Any) -> Tensor:
        """The entries `batches` (an int or list of ints) of the first dimension."""
        if isinstance(batches, int):
            batches = [batches]
        tensor = self._native(tensor, "batch_gather")
        indices = self.xp.asarray(list(batches), dtype=self._index_dtype, device=self._ref(tensor))
        return self.xp.take(tensor, indices, axis=0)


# ---------------------------------------------------------------- one class per namespace


def namespace_of(module_name: str) -> Any:
    """The Array-API namespace for an import name: the module itself when it is compliant, else the
    namespace `array_api_compat` gives its arrays (`torch`, `dask.array`)."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__array_namespace_info__"):
        return module
    import array_api_compat

    try:
        return array_api_compat.array_namespace(module.asarray(0))
    except Exception as error:
        raise TypeError(
            f"{module_name} is not an Array-API namespace (it has no __array_namespace_info__) and array_api_compat does not wrap it: {error}"
        ) from error


_CLASSES: dict[tuple[str, str], type[ArrayAPIBackend]] = {}


def backend_class(xp: Any, namespace: str) -> type[ArrayAPIBackend]:
    """The subclass of `ArrayAPIBackend` for one namespace: the operations it lacks are unsupported."""
    key = (namespace, getattr(xp, "__name__", namespace))
    cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    capabilities = dict(xp.__array_namespace_info__().capabilities())
    dtypes = DTypeMap(xp, namespace)
    attributes: dict[str, Any] = {
        "float64_supported": dtypes.has(DType(float, 64)),
        "float16_supported": dtypes.has(DType(float, 16)),
        "native_types": (type(xp.asarray(0)),),
        "__doc__": f"The Array-API namespace {namespace} as a bk backend.",
        "unsupported": {},
    }
    for name in Backend.features():
        own = getattr(ArrayAPIBackend, name, None)
        if own is None or own is getattr(Backend, name, None):
            continue
        lacking = missing(own, xp, capabilities)
        if lacking:
            attributes[name] = getattr(Backend, name)
            attributes["unsupported"][name] = lacking
    # the bare elementwise kernels calling this namespace's functions, with their fast calls
    kernels = namespace_kernels(xp)
    attributes.update({op: kernel for op, kernel in kernels.items() if op not in attributes["unsupported"]})
    cls = type(f"ArrayAPIBackend_{namespace.replace('.', '_')}", (ArrayAPIBackend,), attributes)
    _CLASSES[key] = cls
    return cls


def create_backend(name: str, namespace: str) -> ArrayAPIBackend:
    """The bk backend `name` for the namespace of the import name `namespace`."""
    xp = namespace_of(namespace)
    return backend_class(xp, namespace)(name, xp, namespace)


class _Loaders:
    """`BackendSpec.load` targets: `LOADERS.<name>` builds the backend of the namespace declared as `name`."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Callable[[], ArrayAPIBackend]:
        from .plugin import declarations

        declared = declarations().get(name)
        if declared is None:
            raise AttributeError(f"no Array-API namespace is declared as backend {name!r}")
        return partial(create_backend, name, declared.namespace)


LOADERS: Final = _Loaders()


def _basic_index(tensor: Any, key: tuple[Any, ...]) -> Any:
    """`tensor[key]`; axes the tuple leaves out are kept whole (the standard wants them named by `...`)."""
    return tensor[key if any(s is Ellipsis for s in key) else (*key, Ellipsis)]
