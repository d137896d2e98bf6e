"""`Backend`: the abstract base class and the whole operation catalogue.

Operations follow `phiml.backend` in name, arguments and meaning. See `_features.py` for how
each method declares whether it is required, a generic default, or an optional feature.
"""

from __future__ import annotations

import math
import sys
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

import numpy as np

from . import _context
from ._axes import normalize_axes, normalize_axis
from ._catalogue_linalg import StandardLinalgMixin
from ._catalogue_standard import StandardOpsMixin
from ._device import ComputeDevice
from ._dtype import DType, combine_types, to_numpy_dtype
from ._errors import ArgumentTypeError, ShapeMismatchError, check_tensor_argument, did_you_mean
from ._features import CAPABILITIES, generic, native_of, optional, uses_of
from ._kernels import explain_failure
from ._solve import Preconditioner, SolveResult

__all__ = ["Backend"]

Tensor = Any

_SOLVER_OPS: Final = ("linear", "while_loop", "stack_leaves", "sum", "where", "divide_no_nan", "isfinite", "maximum", "zeros", "ones")
# the native operators the iterative solvers of `_linalg.py` apply to tensors
_SOLVER_NATIVE: Final = ("__add__", "__sub__", "__mul__", "__rmul__", "__matmul__", "__getitem__", "__invert__", "__and__", "__lt__", "__le__")
_INDEXING: Final = ("__getitem__",)
_INFRASTRUCTURE: Final = frozenset({"name", "supports", "precision", "float_type", "complex_type", "features", "compute_count"})


class Backend(StandardOpsMixin, StandardLinalgMixin, ABC):
    """A numerics library seen through one common API.

    Subclasses implement the required set (`is_tensor`, `as_tensor`, `is_available`, `numpy`,
    `dtype`, `staticshape`, `cast`) and override whichever optional features their framework
    provides. `supports()` reports which ones those are.

    Args:
        name: Unique name of the backend, such as `'numpy'` or `'torch'`.
        devices: All devices this backend can use.
        default_device: The device new tensors are created on.
    """

    float64_supported: ClassVar[bool] = True
    """Whether the framework computes in 64-bit floating point (the `float64` capability)."""

    unsupported_dtypes: ClassVar[frozenset[DType]] = frozenset()
    """The dtypes the framework lacks altogether, declared once, such as
    `frozenset({DType(int, 16, signed=False), DType(int, 32, signed=False), DType(int, 64, signed=False)})`
    for a framework without uint16/32/64. The testkit sweeps no values of them and reports a case that
    needs one as skipped ("framework lacks uint16"), never as failed. float64 and complex128 are
    declared by `float64_supported` instead."""

    native_types: ClassVar[tuple[type, ...] | None] = None
    """The native tensor type(s) of this backend, whose Python operators generic defaults may use.

    `supports()` claims a default declared with `@generic(..., native=("__and__",))` only when
    every one of these types defines `__and__` (statically: looked up on the classes, never
    called). `None` (the default) infers them from the backend's `BackendSpec.modules`: the public
    classes defined in those (already imported) modules that have a `shape` attribute, such as
    `numpy.ndarray` or `torch.Tensor`; then a dunder counts when one of them defines it. A backend
    that is not installed as a plugin, or whose tensor type lives elsewhere, should list its types.
    """

    computing_operations: ClassVar[frozenset[str]] = frozenset()
    """Catalogue operations of a lazy backend that compute (evaluate data) by design, such as `nonzero`
    or `unique`, whose output size depends on the data. Each says so in its docstring. The testkit
    fails any other operation that computes. Eager backends: empty."""

    kernel_errors: ClassVar[tuple[type[BaseException], ...]] = (IndexError,)
    """The exception types with which this backend's framework reports bad data (NumPy's `IndexError`
    for an index out of bounds; PyTorch's `RuntimeError`, TensorFlow's `InvalidArgumentError`); not
    the built-in errors the plugin raises itself. When a kernel raises one of them and the operation's spec
    accepts the call's shapes and dtypes, the data was at fault and the operation's data-error class
    is raised (`IndexOutOfRangeError` for an index outside the indexed dimension, ...). Mistakes of
    shape, axis and dtype kind are decided by the operation's spec, whatever the kernel raised; see
    `bk.explain_failure`. No framework message is ever read."""

    core_rules: ClassVar[bool] = True
    """Whether the core applies the operation specs around this backend's kernels (the default, for
    plugins whose kernels are bare framework calls): elementwise operations and reductions get the
    spec's cast plan before the kernel (cached per signature: operation, dtypes, Python-number kinds,
    precision) and the spec's result dtype after it; integer division by zero and comparisons with
    out-of-range Python ints run as core composites. The first-party plugins set it to False: their
    kernels apply these rules themselves (on their tuned hot paths)."""

    framework_errors: ClassVar[Mapping[type[BaseException], type[Exception]]] = {}
    """What the framework's own exception types mean, where the type alone says it (TensorFlow's
    `NotFoundError`: no kernel for this dtype, `bk.ArgumentTypeError`). Consulted after the
    operation's spec, which decides mistakes of shape, axis and dtype kind."""

    unchecked_operations: ClassVar[frozenset[str]] = frozenset()
    """Kernels the core does not wrap with its error mapping: hot operations that catch inline (a
    wrapper's call costs a few percent of a small eager operation) and map errors themselves with
    `bk.explain_failure`. Methods that are not plain Python functions (C operators) are never wrapped."""

    _supports_cache: ClassVar[dict[str, bool]]
    _bk_priority: int = 0  # dispatch priority, set from the plugin's BackendSpec when loaded

    def __init__(self, name: str, devices: Sequence[ComputeDevice], default_device: ComputeDevice) -> None:
        self._name = name
        self._devices = tuple(devices)
        self._default_device = default_device

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._supports_cache = {}
        from ._kernels import wrap_kernels

        wrap_kernels(cls, _METHOD_FEATURES)  # kernel failures become the bk errors of the specs

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails, so it costs nothing on existing attributes.
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        from ._names import suggest

        close = suggest(name, list(type(self).features()))
        hint = f"; see {', '.join(repr(c) for c in close)}" if close else ""
        raise AttributeError(
            f"backend {getattr(self, '_name', type(self).__name__)!r} has no operation {name!r}{hint}. The NumPy/PyTorch -> bk name table is in "
            "docs/migration.md; Backend.features() lists every operation."
        )

    # ------------------------------------------------------------ identity and context

    @property
    def name(self) -> str:
        """The unique name of this backend."""
        return self._name

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return self._name

    def __enter__(self) -> Backend:
        _context.push_backend(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _context.pop_backend(self)

    @property
    def precision(self) -> int | None:
        """The current precision, see `bk.get_precision()`."""
        return _context.get_precision()

    @property
    def float_type(self) -> DType:
        """The float type of new tensors: the current precision, float32 when it is `None`."""
        return DType(float, _context.get_precision() or 32)

    @property
    def complex_type(self) -> DType:
        """The complex type matching `float_type`."""
        return DType(complex, 2 * (_context.get_precision() or 32))

    # ------------------------------------------------------------ features

    @classmethod
    def features(cls) -> tuple[str, ...]:
        """Every feature id: the catalogue's method names followed by the named capabilities."""
        return (*_METHOD_FEATURES, *CAPABILITIES)

    def supports(self, feature: str | Callable[..., Any]) -> bool:
        """Whether this backend provides `feature`, answered without calling anything.

        Args:
            feature: A catalogue method name (`'sparse_coo_tensor'`), an unbound method
                (`Backend.sparse_coo_tensor`) or a named capability: `'gradients'`, `'jit'`,
                `'dlpack'`, `'sparse'`, `'float64'`, `'devices'`.

        Returns:
            True when this backend overrides the method, or when the base class's generic default
            applies and every operation that default uses is supported.

        Raises:
            ValueError: for an unknown feature, naming close matches.
        """
        name = feature if isinstance(feature, str) else getattr(feature, "__name__", repr(feature))
        cache = type(self)._supports_cache
        result = cache.get(name)
        if result is None:
            result = _resolve_support(type(self), name, (), self._has_native)
            cache[name] = result
        return result

    def compute_count(self) -> int | None:
        """How many times this backend has evaluated lazy values in this process so far.

        `None` for an eager backend (the default). A lazy backend counts every evaluation, whoever
        asks for it; the testkit reads the count before and after each case to find operations
        that compute behind the user's back (see `computing_operations`).
        """
        return None

    def _check_native(self, feature: str) -> None:
        """Raises NotImplementedError when `feature` is a default this backend's tensors cannot run.

        Called by generic defaults after a native operator raised TypeError: for a claimed feature
        the TypeError is a real error and the caller re-raises it.
        """
        if not self.supports(feature):
            needs = ", ".join(native_of(getattr(Backend, feature)))
            raise NotImplementedError(f"{self.name} does not support {feature}: its tensor type has no {needs}")

    def _operator_failed(self, feature: str, error: Exception, *operands: Tensor) -> None:
        """Turns the failure of a native operator into the errors of docs/semantics.md where it can tell.

        Raises `bk.ArgumentTypeError` for an operand that is `None` or a string, NotImplementedError
        when the native type lacks the operator and the feature is not claimed,
        `bk.ArgumentTypeError` when the operator refuses the operands' dtype (bitwise operations of
        floats, `mod` of complex values), `bk.ShapeMismatchError` when the operands' shapes do not
        broadcast; otherwise returns and the caller re-raises `error`. Runs only after a failure:
        the success path of an operator costs nothing more.
        """
        if isinstance(error, TypeError):
            for name, operand in zip("xy", operands, strict=False):
                check_tensor_argument(operand, feature, name)  # None or a string: ArgumentTypeError
            self._check_native(feature)
        # shapes first: JAX reports shapes that do not broadcast in `|` and `^` with a TypeError
        shapes = [tuple(self.staticshape(o)) for o in operands if self.is_tensor(o, only_native=True)]
        for sizes in zip(*(reversed(s) for s in shapes), strict=False) if len(shapes) > 1 else ():
            known = {n for n in sizes if n is not None and n != 1}
            if len(known) > 1:
                listed = " and ".join(str(tuple(s)) for s in shapes)
                raise ShapeMismatchError(f"{feature}: shapes {listed} do not broadcast") from error
        if isinstance(error, TypeError) and not isinstance(error, ArgumentTypeError):  # the operator refused the dtypes
            kinds = ", ".join(str(self.dtype(o)) for o in operands if self.is_tensor(o, only_native=True))
            raise ArgumentTypeError(f"{feature}: {kinds or 'these'} operands are not supported: {error}") from error

    def _compare_beyond_range(self, x: Tensor, y: Tensor) -> Tensor:
        """`x > y` or `x >= y` (the same here) where one side is a Python int outside the range of the integer tensor
        on the other side: the same as comparing with the end of that range, which every element
        lies on one side of (`int8 > 300` is `int8 > 127`, all false; `int8 >= -300` is
        `int8 >= -128`, all true). Runs only where `auto_cast` refused the int."""
        left_int = _is_python_number(x)
        tensor, value = (y, x) if left_int else (x, y)
        info = np.iinfo(to_numpy_dtype(self.dtype(tensor)))
        above = value > info.max
        bound = int(info.max if above else info.min)
        # x > v (v above: x > high, all false; v below: x >= low, all true); v > x mirrored
        strict = above != left_int
        if left_int:
            return bound > tensor if strict else bound >= tensor
        return tensor > bound if strict else tensor >= bound

    def _has_native(self, dunder: str) -> bool:
        """Whether the native tensor type(s) define the Python operator `dunder`; calls nothing."""
        declared = type(self).native_types
        if declared is not None:
            return bool(declared) and all(_defines(t, dunder) for t in declared)
        return any(_defines(t, dunder) for t in _inferred_native_types(getattr(self, "_name", "")))

    # ------------------------------------------------------------ required set

    @abstractmethod
    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Whether this backend accepts `x` as a tensor.

        Args:
            x: Any object.
            only_native: If True, accept only the framework's own tensor types, not Python numbers,
                lists or NumPy arrays that `as_tensor` would convert.
        """

    @abstractmethod
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """Converts a tensor-like object (number, list, NumPy array, native tensor) to a native tensor.

        Float values are converted to the current precision when one is set.

        Args:
            x: Tensor-like value.
            convert_external: If False, Python numbers this backend understands are returned as-is.
        """

    @abstractmethod
    def is_available(self, tensor: Tensor) -> bool:
        """Whether the value of `tensor` is known now (False for tracers and graph nodes)."""

    @abstractmethod
    def numpy(self, tensor: Tensor) -> np.ndarray:
        """The value of `tensor` as a NumPy array (or SciPy sparse matrix for sparse tensors)."""

    @abstractmethod
    def dtype(self, array: Tensor) -> DType:
        """The `DType` of a tensor or Python number (`int` is int32, `float` float64)."""

    @abstractmethod
    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The shape as a tuple; unknown sizes under tracing are `None`."""

    @abstractmethod
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` converted to `dtype`; returns `x` itself when it already has that type."""

    # ------------------------------------------------------------ types and precision

    @generic()
    def combine_types(self, *dtypes: DType) -> DType:
        """The result type of mixing `dtypes`, converted to the current precision when one is set."""
        return combine_types(*dtypes, fp_precision=_context.get_precision())

    @generic("dtype", "cast")
    def auto_cast(self, *tensors: Tensor, bool_to_int: bool = False, int_to_float: bool = False) -> list[Tensor]:
        """Casts `tensors` to their common type.

        Python numbers are weak, as in NumPy 2 (NEP 50), PyTorch and JAX: they never raise the
        precision of the tensors beside them (`float32` tensor with `1.5` gives float32), only the
        kind (`int32` tensor with `1.5` gives the float type of the current precision). See
        `docs/semantics.md`.

        Args:
            *tensors: Values to cast.
            bool_to_int: Cast to int32 if all values are boolean.
            int_to_float: Cast to the float type if the common type is an integer.

        Raises:
            OverflowError: for a Python int outside the range of the integer type it is cast to
                (`int8` tensor with `300`), as NumPy 2; with `int_to_float` the values are cast to
                floats, and no int range applies.
        """
        strong = [t for t in tensors if not _is_python_number(t)]
        if len(strong) == len(tensors):
            result_type = self.combine_types(*[self.dtype(t) for t in tensors])
        else:  # Python numbers are weak; only Python numbers: bk's default types
            base = self.combine_types(*[self.dtype(t) for t in strong]) if strong else DType(bool)
            result_type = self._weak_promotion(base, tensors)
        if result_type.kind is bool and bool_to_int:
            result_type = DType(int, 32)
        if result_type.kind is int and int_to_float:
            result_type = self.float_type  # `int8 / 300` divides floats: 300 need not fit int8
        if result_type.kind is int and len(strong) < len(tensors):
            _check_int_range(result_type, tensors)
        if result_type.kind in (bool, int, float, complex):
            return [self.cast(t, result_type) for t in tensors]
        return list(tensors)

    def _weak_promotion(self, tensor_type: DType, values: Sequence[Any]) -> DType:
        """`tensor_type` raised to the kind that the Python numbers among `values` need, in bk's default
        types: Python numbers are weak, as in NumPy 2, PyTorch and JAX (`float32 + 1.5` is float32,
        `int32 * 1.5` the float type, `float64 * 1j` complex128)."""
        kinds = (bool, int, float, complex)
        need = max(kinds.index(type(v)) for v in values if _is_python_number(v))
        have = kinds.index(tensor_type.kind) if tensor_type.kind in kinds else len(kinds)
        if have >= need:
            return tensor_type
        if need == 1:
            return DType(int, 64)  # as `as_tensor(3)`: NumPy 2's default integer
        if need == 2:
            return self.float_type
        if tensor_type.kind is float and _context.get_precision() is None:
            return DType(complex, max(64, 2 * int(tensor_type.bits or 32)))  # float16 and bfloat16 give complex64
        return self.complex_type

    @generic("cast", "dtype")
    def to_float(self, x: Tensor) -> Tensor:
        """`x` as floats of the current precision; floats keep theirs when the precision is `None`."""
        check_tensor_argument(x, "to_float")
        if type(x) in (bool, int, float, complex):  # a Python number: the dtype as_tensor gives it (a float is the default float)
            x = self.as_tensor(x)
        if _context.get_precision() is None and self.dtype(x).kind is float:
            return x
        return self.cast(x, self.float_type)

    @generic("cast")
    def to_int32(self, x: Tensor) -> Tensor:
        """`x` as int32."""
        return self.cast(x, DType(int, 32))

    @generic("cast")
    def to_int64(self, x: Tensor) -> Tensor:
        """`x` as int64."""
        return self.cast(x, DType(int, 64))

    @generic("cast", "dtype")
    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values of the current precision; when it is `None`, complex values keep theirs
        and floats give the complex type of their precision (float64 gives complex128)."""
        check_tensor_argument(x, "to_complex")
        if _context.get_precision() is None:
            dtype = self.dtype(x)
            if dtype.kind is complex:
                return x
            if dtype.kind is float and (dtype.bits or 0) > 32:
                return self.cast(x, DType(complex, 2 * int(dtype.bits or 32)))
        return self.cast(x, self.complex_type)

    # ------------------------------------------------------------ devices and memory

    @generic()
    def list_devices(self, device_type: str | None = None) -> list[ComputeDevice]:
        """All devices this backend can use, optionally only those of `device_type` ('CPU', 'GPU', 'TPU')."""
        if device_type is None:
            return list(self._devices)
        if device_type not in ("CPU", "GPU", "TPU"):
            raise ValueError(f"device_type must be 'CPU', 'GPU', 'TPU' or None but got {device_type!r}")
        return [d for d in self._devices if d.device_type == device_type]

    @generic()
    def get_default_device(self) -> ComputeDevice:
        """The device new tensors are created on."""
        return self._default_device

    @generic()
    def set_default_device(self, device: ComputeDevice | str) -> bool:
        """Sets the device new tensors are created on.

        Args:
            device: A `ComputeDevice` of this backend, or a device type such as `'GPU'`.

        Returns:
            Whether the device was set; False (with a warning) when no device of that type exists.

        Raises:
            ValueError: for a device of another backend.
        """
        if isinstance(device, str):
            devices = self.list_devices(device.upper())
            if not devices:
                warnings.warn(f"{self.name}: no {device} device is available; keeping {self._default_device.name}", RuntimeWarning, stacklevel=2)
                return False
            device = devices[0]
        if device.backend is not self:
            raise ValueError(f"device {device.name!r} belongs to backend {device.backend}, not {self.name}")
        self._default_device = device
        return True

    @generic()
    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The device `tensor` lives on (the default device unless a backend knows better)."""
        return self._default_device

    @generic()
    def get_device_by_ref(self, ref: Any) -> ComputeDevice:
        """The device whose native reference is `ref`.

        Raises:
            KeyError: if no device has that reference.
        """
        for device in self._devices:
            if device.ref == ref:
                return device
        raise KeyError(f"{self.name} has no device with ref {ref!r}; available: {[d.ref for d in self._devices]}")

    @optional
    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` moved (or copied) to `device`."""
        raise NotImplementedError(f"{self.name} cannot move tensors between devices")

    @optional
    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy of `tensor`; with `only_mutable=True` immutable tensors may be returned as they are."""
        raise NotImplementedError(f"{self.name} does not implement copy")

    @optional
    def deallocate(self, tensor: Tensor) -> bool:
        """Frees the memory of `tensor` now instead of when it is garbage-collected (Nx's `backend_deallocate`).

        Only frameworks that can free a buffer explicitly provide it. Afterwards `tensor` (and every
        view sharing its memory) must not be used: using it raises the framework's error.

        Returns:
            True when memory was freed, False when it had been freed already.
        """
        raise NotImplementedError(f"{self.name} cannot free a tensor's memory explicitly; drop every reference to it instead")

    @generic("copy")
    def copy_leaves(self, tree: Any, only_mutable: bool = False) -> Any:
        """`copy` applied to every tensor in a tree of tuples, lists and dicts."""
        return _map_tree(lambda t: self.copy(t, only_mutable=only_mutable), tree)

    @generic()
    def block_until_ready(self, values: Any) -> None:
        """Waits until asynchronous computations producing `values` have finished."""
        return None

    @generic()
    def call(self, f: Callable[..., Any], *args: Any, name: str | None = None) -> Any:
        """Calls `f(*args)`; lets the profiler record calls that are not catalogue operations."""
        return f(*args)

    @generic()
    def prefers_channels_last(self) -> bool:
        """Whether the framework's own operations prefer channels as the last dimension."""
        return False

    @generic()
    def requires_fixed_shapes_when_tracing(self) -> bool:
        """Whether shapes must be known when tracing (then `new_length` arguments are needed)."""
        return False

    @optional
    def nn_library(self) -> Any:
        """The neural network module of this backend."""
        raise NotImplementedError(f"{self.name} has no neural network library")

    @optional
    def seed(self, seed: int) -> None:
        """Seeds the random number generator of this backend."""
        raise NotImplementedError(f"{self.name} does not implement seed")

    # ------------------------------------------------------------ tensor metadata

    @generic()
    def is_module(self, obj: Any) -> bool:
        """Whether `obj` is a framework-specific object such as a neural network."""
        return False

    @generic()
    def is_sparse(self, x: Tensor) -> bool:
        """Whether `x` is a sparse tensor."""
        return False

    @generic("is_sparse")
    def get_sparse_format(self, x: Tensor) -> str:
        """`'coo'`, `'csr'`, `'csc'`, or `'dense'` for dense tensors."""
        if not self.is_sparse(x):
            return "dense"
        raise NotImplementedError(f"{self.name} does not implement get_sparse_format")

    @generic("is_sparse")
    def disassemble(self, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
        """Splits `x` into its constituent tensors.

        Returns:
            `(assemble, constituents)`, where `assemble(backend, *constituents)` rebuilds `x`
            on any backend.
        """
        if not self.is_sparse(x):
            return _assemble_dense, (x,)
        raise NotImplementedError(f"{self.name} does not implement disassemble for sparse tensors")

    @generic("staticshape")
    def shape(self, tensor: Tensor) -> Any:
        """The shape of `tensor`; under tracing it may hold symbolic sizes."""
        return self.staticshape(tensor)

    @generic("staticshape")
    def ndims(self, tensor: Tensor) -> int:
        """The number of dimensions of `tensor`."""
        return len(self.staticshape(tensor))

    @generic("shape")
    def size(self, array: Tensor) -> Any:
        """The number of elements of `array` (under tracing with unknown sizes, this needs `prod`)."""
        shape = self.shape(array)
        if all(isinstance(s, int) for s in shape):
            return math.prod(shape)
        return self.prod(self.as_tensor(shape))

    @generic("staticshape", "dtype")
    def sizeof(self, tensor: Tensor) -> int:
        """The number of bytes the elements of `tensor` occupy (as `phiml.backend`'s `sizeof`).

        Raises:
            ValueError: when a size is unknown (data-dependent on a lazy backend) or the dtype has no
                fixed size (`str`).
        """
        shape = self.staticshape(tensor)
        itemsize = self.dtype(tensor).itemsize
        if itemsize is None or any(s is None for s in shape):
            raise ValueError(f"sizeof: the size of a {self.dtype(tensor)} tensor of shape {shape} is not known")
        return math.prod(int(s or 0) for s in shape) * itemsize

    @generic("staticshape")
    def determine_size(self, tensors: Sequence[Tensor], axis: int) -> int:
        """The common size of `tensors` along `axis`, where size 1 broadcasts.

        Raises:
            ValueError: if two sizes other than 1 differ.
        """
        sizes = {self.staticshape(t)[axis] for t in tensors} - {1}
        if len(sizes) > 1:
            raise ValueError(f"sizes along axis {axis} do not match: {sorted(sizes, key=str)}")
        return sizes.pop() if sizes else 1  # type: ignore[return-value]

    # ------------------------------------------------------------ conversion

    @optional
    def to_dlpack(self, tensor: Tensor) -> Any:
        """An object implementing the DLPack protocol (`__dlpack__`) that shares `tensor`'s memory."""
        raise NotImplementedError(f"{self.name} does not implement DLPack")

    @optional
    def from_dlpack(self, capsule: Any) -> Tensor:
        """A native tensor sharing the memory of a DLPack object or capsule."""
        raise NotImplementedError(f"{self.name} does not implement DLPack")

    @generic("is_available", "numpy", "as_tensor")
    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
        """Calls `f` on NumPy versions of `args` and converts its results back; usable under jit where
        the framework allows, not differentiable.

        Args:
            f: Function of NumPy arrays.
            output_shapes: Shape (tuple) or tuple of shapes of the outputs of `f`.
            output_dtypes: `DType` or tuple of DTypes of the outputs of `f`.
            *args: Tensors converted to NumPy for `f`.
            **aux_args: Keyword arguments passed to `f` unchanged.
        """
        if not all(self.is_available(a) for a in args):
            raise NotImplementedError(f"{self.name} cannot call NumPy functions on traced values")
        output = f(*[self.numpy(a) for a in args], **aux_args)
        if isinstance(output, (tuple, list)):
            return type(output)(self.cast(self.as_tensor(o), d) for o, d in zip(output, output_dtypes, strict=True))
        return self.cast(self.as_tensor(output), output_dtypes)

    # ------------------------------------------------------------ creation

    @optional
    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """A tensor of zeros; `dtype` defaults to the float type of the current precision."""
        raise NotImplementedError(f"{self.name} does not implement zeros")

    @optional
    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape and dtype of `tensor`."""
        raise NotImplementedError(f"{self.name} does not implement zeros_like")

    @optional
    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """A tensor of ones; `dtype` defaults to the float type of the current precision."""
        raise NotImplementedError(f"{self.name} does not implement ones")

    @optional
    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape and dtype of `tensor`."""
        raise NotImplementedError(f"{self.name} does not implement ones_like")

    @optional
    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
        raise NotImplementedError(f"{self.name} does not implement range")

    @optional
    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats from `start` to `stop`, both included."""
        raise NotImplementedError(f"{self.name} does not implement linspace")

    @generic("linspace", native=_INDEXING)
    def linspace_without_last(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats from `start` to `stop`, `stop` excluded."""
        try:
            return self.linspace(start, stop, number + 1)[:-1]
        except TypeError:  # the native type cannot be indexed
            self._check_native("linspace_without_last")
            raise

    @optional
    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        """Coordinate grids with matrix ('ij') indexing."""
        raise NotImplementedError(f"{self.name} does not implement meshgrid")

    @optional
    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform random values in `[low, high)`; ints for int dtypes, the current float type by default."""
        raise NotImplementedError(f"{self.name} does not implement random_uniform")

    @optional
    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal random values of the current float type by default."""
        raise NotImplementedError(f"{self.name} does not implement random_normal")

    @optional
    def variable(self, value: Tensor) -> Any:
        """A mutable, trainable variable holding `value`; `NotImplemented` where the framework has none."""
        return NotImplemented

    # ------------------------------------------------------------ shape manipulation

    @optional
    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        """`value` with a new shape; -1 infers one size."""
        raise NotImplementedError(f"{self.name} does not implement reshape")

    @generic("reshape")
    def flatten(self, x: Tensor) -> Tensor:
        """`x` as a 1-D tensor."""
        return self.reshape(x, (-1,))

    @optional
    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its dimensions permuted to `axes`."""
        raise NotImplementedError(f"{self.name} does not implement transpose")

    @optional
    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new dimensions of size 1 inserted at `axis`."""
        raise NotImplementedError(f"{self.name} does not implement expand_dims")

    @optional
    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Stacks equally shaped tensors along a new axis."""
        raise NotImplementedError(f"{self.name} does not implement stack")

    @generic("stack")
    def stack_leaves(self, trees: Sequence[Any], axis: int = 0) -> Any:
        """Stacks the corresponding tensors of equally structured trees (tuples, lists, dicts)."""
        first = trees[0]
        if isinstance(first, (tuple, list)):
            return type(first)(self.stack_leaves([t[i] for t in trees], axis) for i in range(len(first)))
        if isinstance(first, dict):
            return {k: self.stack_leaves([t[k] for t in trees], axis) for k in first}
        return self.stack(trees, axis=axis)

    @generic("staticshape", native=_INDEXING)
    def unstack(self, tensor: Tensor, axis: int = 0, keepdims: bool = False) -> tuple[Tensor, ...]:
        """Slices of `tensor` along `axis`, keeping that axis with size 1 if `keepdims`.

        Raises:
            AxisError: for an axis outside the tensor's dimensions.
        """
        shape = self.staticshape(tensor)
        axis = normalize_axis(axis, len(shape), "unstack")
        head = (slice(None),) * axis
        try:
            if keepdims:
                return tuple(tensor[(*head, slice(i, i + 1))] for i in range(shape[axis]))  # type: ignore[arg-type]
            return tuple(tensor[(*head, i)] for i in range(shape[axis]))  # type: ignore[arg-type]
        except TypeError:  # the native type cannot be indexed
            self._check_native("unstack")
            raise

    @optional
    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """Concatenates tensors along an existing axis."""
        raise NotImplementedError(f"{self.name} does not implement concat")

    @optional
    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes."""
        raise NotImplementedError(f"{self.name} does not implement tile")

    @generic("tile", "staticshape")
    def tile_to(self, x: Tensor, axis: int, size: int) -> Tensor:
        """Tiles `x` along `axis` until it has `size` elements there.

        Raises:
            ValueError: if `size` is not a multiple of the current size.
            AxisError: for an axis outside the tensor's dimensions.
        """
        shape = self.staticshape(x)
        axis = normalize_axis(axis, len(shape), "tile_to")
        current = shape[axis]
        if current == size:
            return x
        if current is None or not current or size % current:
            raise ValueError(f"tile_to: cannot tile size {current} to {size} along axis {axis}; the size must be a multiple")
        return self.tile(x, [size // current if i == axis else 1 for i in range(self.ndims(x))])

    @optional
    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats each element along `axis` `repeats[i]` times; `new_length` fixes the output size."""
        raise NotImplementedError(f"{self.name} does not implement repeat")

    @optional
    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis by `pad_width[i] = (lower, upper)`.

        Args:
            value: Tensor to pad.
            pad_width: One `(lower, upper)` pair for every axis.
            mode: `'constant'`, `'boundary'`, `'periodic'` (also by PyTorch's name `'circular'`),
                `'symmetric'` or `'reflect'`.
            constant_values: The fill value of mode `'constant'`.

        Returns:
            The padded tensor, or `NotImplemented` for a mode this backend does not support.
        """
        raise NotImplementedError(f"{self.name} does not implement pad")

    @generic("pad", "staticshape", native=_INDEXING)
    def pad_to(self, x: Tensor, axis: int, new_size: int, fill_value: Any) -> Tensor:
        """Pads with `fill_value` or crops `x` along `axis` to `new_size`."""
        shape = self.staticshape(x)
        axis = normalize_axis(axis, len(shape), "pad_to")
        current = shape[axis]
        if current is None or new_size == current:
            return x
        if new_size > current:
            widths = [(0, new_size - current) if i == axis else (0, 0) for i in range(len(shape))]
            return self.pad(x, widths, mode="constant", constant_values=fill_value)
        return x[tuple(slice(new_size) if i == axis else slice(None) for i in range(len(shape)))]

    @generic("ndims", native=_INDEXING)
    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        """`value` reversed along `axes`, an int or a sequence of ints; `None` reverses every axis."""
        ndims = self.ndims(value)
        chosen = normalize_axes(axes, ndims, "flip")
        flipped = set(range(ndims) if chosen is None else chosen)
        try:
            return value[tuple(slice(None, None, -1) if i in flipped else slice(None) for i in range(ndims))]
        except TypeError:  # the native type cannot be indexed
            self._check_native("flip")
            raise

    @generic(native=_INDEXING)
    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]` for a tuple of slices, ints or scalar integer tensors."""
        try:
            return tensor[slices]
        except TypeError:  # the native type cannot be indexed
            self._check_native("multi_slice")
            raise
        except (IndexError, ValueError) as error:  # an index out of range: the spec decides the class
            explain_failure(self, "multi_slice", error, (tensor, slices), {})

    @generic(native=_INDEXING)
    def batch_gather(self, tensor: Tensor, batches: Any) -> Tensor:
        """The entries `batches` (an int or list of ints) of the first dimension."""
        if isinstance(batches, int):
            batches = [batches]
        try:
            return tensor[batches, ...]
        except TypeError:  # the native type cannot be indexed
            self._check_native("batch_gather")
            raise
        except (IndexError, ValueError) as error:  # an index out of range: the spec decides the class
            explain_failure(self, "batch_gather", error, (tensor, batches), {})

    @optional
    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
        raise NotImplementedError(f"{self.name} does not implement get_diagonal")

    # ------------------------------------------------------------ elementwise maths

    @optional
    def abs(self, x: Tensor) -> Tensor:
        """Absolute value (magnitude for complex values)."""
        raise NotImplementedError(f"{self.name} does not implement abs")

    @optional
    def sign(self, x: Tensor) -> Tensor:
        """-1, 0 or 1 by the sign of `x`."""
        raise NotImplementedError(f"{self.name} does not implement sign")

    @optional
    def round(self, x: Tensor) -> Tensor:
        """Rounds to the nearest integer, halves to even."""
        raise NotImplementedError(f"{self.name} does not implement round")

    @optional
    def ceil(self, x: Tensor) -> Tensor:
        """Smallest integer not below `x`."""
        raise NotImplementedError(f"{self.name} does not implement ceil")

    @optional
    def floor(self, x: Tensor) -> Tensor:
        """Largest integer not above `x`."""
        raise NotImplementedError(f"{self.name} does not implement floor")

    @optional
    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise maximum; NaN propagates."""
        raise NotImplementedError(f"{self.name} does not implement maximum")

    @optional
    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise minimum; NaN propagates."""
        raise NotImplementedError(f"{self.name} does not implement minimum")

    @optional
    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]`."""
        raise NotImplementedError(f"{self.name} does not implement clip")

    @optional
    def sqrt(self, x: Tensor) -> Tensor:
        """Square root."""
        raise NotImplementedError(f"{self.name} does not implement sqrt")

    @optional
    def exp(self, x: Tensor) -> Tensor:
        """Natural exponential."""
        raise NotImplementedError(f"{self.name} does not implement exp")

    @optional
    def erf(self, x: Tensor) -> Tensor:
        """The error function."""
        raise NotImplementedError(f"{self.name} does not implement erf")

    @optional
    def softplus(self, x: Tensor) -> Tensor:
        """`log(1 + exp(x))`, computed without overflow."""
        raise NotImplementedError(f"{self.name} does not implement softplus")

    @optional
    def log_gamma(self, x: Tensor) -> Tensor:
        """Natural logarithm of the absolute value of the gamma function, as floats."""
        raise NotImplementedError(f"{self.name} does not implement log_gamma")

    @optional
    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        """Regularized lower incomplete gamma function P(a, x)."""
        raise NotImplementedError(f"{self.name} does not implement gamma_inc_l")

    @optional
    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        """Regularized upper incomplete gamma function Q(a, x)."""
        raise NotImplementedError(f"{self.name} does not implement gamma_inc_u")

    @generic("dtype", "gather", "cast", "as_tensor", "exp", "log_gamma", "to_float", "add")
    def factorial(self, x: Tensor) -> Tensor:
        """`x!`: exact for int32 (up to 12!) and int64 (up to 20!), through `log_gamma` for floats."""
        check_tensor_argument(x, "factorial")
        dtype = self.dtype(x)
        if dtype.kind is int:
            table = [math.factorial(i) for i in range(13 if dtype.bits == 32 else 21)]
            return self.gather(self.cast(self.as_tensor(table), dtype), x, 0)
        return self.exp(self.log_gamma(self.add(self.to_float(x), 1)))

    @generic("exp", "mul", "add", "div", "dtype", "to_float")
    def sigmoid(self, x: Tensor) -> Tensor:
        """`1 / (1 + exp(-x))`; booleans and integers give the default float; complex values raise
        `ArgumentTypeError` (the spec of sigmoid)."""
        kind = self.dtype(x).kind
        if kind is complex:
            raise ArgumentTypeError(f"sigmoid: takes real values, not {self.dtype(x).name}")
        if kind in (bool, int):
            x = self.to_float(x)
        return self.div(1, self.add(1, self.exp(self.mul(x, -1))))

    @optional
    def sin(self, x: Tensor) -> Tensor:
        """Sine."""
        raise NotImplementedError(f"{self.name} does not implement sin")

    @optional
    def arcsin(self, x: Tensor) -> Tensor:
        """Inverse sine."""
        raise NotImplementedError(f"{self.name} does not implement arcsin")

    @optional
    def cos(self, x: Tensor) -> Tensor:
        """Cosine."""
        raise NotImplementedError(f"{self.name} does not implement cos")

    @optional
    def arccos(self, x: Tensor) -> Tensor:
        """Inverse cosine."""
        raise NotImplementedError(f"{self.name} does not implement arccos")

    @optional
    def tan(self, x: Tensor) -> Tensor:
        """Tangent."""
        raise NotImplementedError(f"{self.name} does not implement tan")

    @optional
    def arctan(self, x: Tensor) -> Tensor:
        """Inverse tangent."""
        raise NotImplementedError(f"{self.name} does not implement arctan")

    @optional
    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of the point `(x, y)`."""
        raise NotImplementedError(f"{self.name} does not implement arctan2")

    @optional
    def sinh(self, x: Tensor) -> Tensor:
        """Hyperbolic sine."""
        raise NotImplementedError(f"{self.name} does not implement sinh")

    @optional
    def arcsinh(self, x: Tensor) -> Tensor:
        """Inverse hyperbolic sine."""
        raise NotImplementedError(f"{self.name} does not implement arcsinh")

    @optional
    def cosh(self, x: Tensor) -> Tensor:
        """Hyperbolic cosine."""
        raise NotImplementedError(f"{self.name} does not implement cosh")

    @optional
    def arccosh(self, x: Tensor) -> Tensor:
        """Inverse hyperbolic cosine."""
        raise NotImplementedError(f"{self.name} does not implement arccosh")

    @optional
    def tanh(self, x: Tensor) -> Tensor:
        """Hyperbolic tangent."""
        raise NotImplementedError(f"{self.name} does not implement tanh")

    @optional
    def arctanh(self, x: Tensor) -> Tensor:
        """Inverse hyperbolic tangent."""
        raise NotImplementedError(f"{self.name} does not implement arctanh")

    @optional
    def log(self, x: Tensor) -> Tensor:
        """Natural logarithm."""
        raise NotImplementedError(f"{self.name} does not implement log")

    @optional
    def log2(self, x: Tensor) -> Tensor:
        """Base-2 logarithm."""
        raise NotImplementedError(f"{self.name} does not implement log2")

    @optional
    def log10(self, x: Tensor) -> Tensor:
        """Base-10 logarithm."""
        raise NotImplementedError(f"{self.name} does not implement log10")

    @optional
    def isfinite(self, x: Tensor) -> Tensor:
        """True where `x` is neither infinite nor NaN."""
        raise NotImplementedError(f"{self.name} does not implement isfinite")

    @optional
    def isnan(self, x: Tensor) -> Tensor:
        """True where `x` is NaN."""
        raise NotImplementedError(f"{self.name} does not implement isnan")

    @optional
    def isinf(self, x: Tensor) -> Tensor:
        """True where `x` is infinite."""
        raise NotImplementedError(f"{self.name} does not implement isinf")

    @optional
    def real(self, x: Tensor) -> Tensor:
        """Real part."""
        raise NotImplementedError(f"{self.name} does not implement real")

    @optional
    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros for real values)."""
        raise NotImplementedError(f"{self.name} does not implement imag")

    @optional
    def conj(self, x: Tensor) -> Tensor:
        """Complex conjugate."""
        raise NotImplementedError(f"{self.name} does not implement conj")

    @optional
    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0."""
        raise NotImplementedError(f"{self.name} does not implement divide_no_nan")

    @optional
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`; without `x` and `y` the indices of true elements."""
        raise NotImplementedError(f"{self.name} does not implement where")

    # ------------------------------------------------------------ operators

    @optional
    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x == y`."""
        raise NotImplementedError(f"{self.name} does not implement equal")

    @generic("equal", native=("__invert__",))
    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x != y`."""
        try:
            return ~self.equal(x, y)
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("not_equal", error, x, y)
            raise

    @generic("auto_cast", native=("__gt__",))
    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x > y`; a Python int outside the range of the integer tensor beside it compares by value."""
        try:
            try:
                x, y = self.auto_cast(x, y)
            except OverflowError:
                return self._compare_beyond_range(x, y)
            return x > y
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("greater_than", error, x, y)
            raise

    @generic("auto_cast", native=("__ge__",))
    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x >= y`; a Python int outside the range of the integer tensor beside it compares by value."""
        try:
            try:
                x, y = self.auto_cast(x, y)
            except OverflowError:
                return self._compare_beyond_range(x, y)
            return x >= y
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("greater_or_equal", error, x, y)
            raise

    @generic("auto_cast", native=("__add__",))
    def add(self, a: Tensor, b: Tensor) -> Tensor:
        """`a + b` in the common type; booleans add as int32."""
        try:
            a, b = self.auto_cast(a, b, bool_to_int=True)
            return a + b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("add", error, a, b)
            raise

    @generic("auto_cast", native=("__sub__",))
    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        """`a - b` in the common type; booleans subtract as int32."""
        try:
            a, b = self.auto_cast(a, b, bool_to_int=True)
            return a - b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("sub", error, a, b)
            raise

    @generic("auto_cast", native=("__mul__",))
    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        """`a * b` in the common type."""
        try:
            a, b = self.auto_cast(a, b)
            return a * b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("mul", error, a, b)
            raise

    @generic("auto_cast", native=("__truediv__",))
    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """`numerator / denominator` (true division); integers divide into the default float (docs/semantics.md)."""
        try:
            numerator, denominator = self.auto_cast(numerator, denominator, bool_to_int=True, int_to_float=True)
            return numerator / denominator
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("div", error, numerator, denominator)
            raise

    @generic("auto_cast", native=("__pow__",))
    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp` in the common type."""
        try:
            base, exp = self.auto_cast(base, exp)
            return base**exp
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("pow", error, base, exp)
            raise

    @generic("auto_cast", native=("__mod__",))
    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor, as in Python."""
        try:
            dividend, divisor = self.auto_cast(dividend, divisor)
            return dividend % divisor
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("mod", error, dividend, divisor)
            raise

    @generic("auto_cast", native=("__floordiv__",))
    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a // b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("floordiv", error, a, b)
            raise

    @generic("auto_cast", native=("__and__",))
    def and_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a & b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a & b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("and_", error, a, b)
            raise

    @generic("auto_cast", native=("__or__",))
    def or_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a | b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a | b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("or_", error, a, b)
            raise

    @generic("auto_cast", native=("__xor__",))
    def xor(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a ^ b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a ^ b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("xor", error, a, b)
            raise

    @generic("auto_cast", native=("__lshift__",))
    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a << b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("shift_bits_left", error, a, b)
            raise

    @generic("auto_cast", native=("__rshift__",))
    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b`."""
        try:
            a, b = self.auto_cast(a, b)
            return a >> b
        except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
            self._operator_failed("shift_bits_right", error, a, b)
            raise

    @generic(native=("__invert__",))
    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers."""
        if isinstance(x, bool):
            return not x
        try:
            return ~x
        except TypeError as error:  # the native type lacks the operator, or refuses the dtype (floats)
            self._check_native("invert")
            check_tensor_argument(x, "invert")
            raise ArgumentTypeError(f"invert: {self.dtype(x)} values have no bits to invert: {error}") from error

    # ------------------------------------------------------------ reductions

    @optional
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (an int, a tuple, or None for all)."""
        raise NotImplementedError(f"{self.name} does not implement sum")

    @optional
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`."""
        raise NotImplementedError(f"{self.name} does not implement prod")

    @optional
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`."""
        raise NotImplementedError(f"{self.name} does not implement mean")

    @optional
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis`."""
        raise NotImplementedError(f"{self.name} does not implement std")

    @optional
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates."""
        raise NotImplementedError(f"{self.name} does not implement max")

    @optional
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates."""
        raise NotImplementedError(f"{self.name} does not implement min")

    @optional
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true."""
        raise NotImplementedError(f"{self.name} does not implement any")

    @optional
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether all elements along `axis` are true."""
        raise NotImplementedError(f"{self.name} does not implement all")

    @optional
    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index of the first maximum along `axis`."""
        raise NotImplementedError(f"{self.name} does not implement argmax")

    @optional
    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index of the first minimum along `axis`."""
        raise NotImplementedError(f"{self.name} does not implement argmin")

    @optional
    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`."""
        raise NotImplementedError(f"{self.name} does not implement cumsum")

    @optional
    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles (linear interpolation) of the last axis, shaped `(quantiles, *x.shape[:-1])`."""
        raise NotImplementedError(f"{self.name} does not implement quantile")

    # ------------------------------------------------------------ sorting, searching, counting

    @optional
    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """`x` sorted ascending along `axis`."""
        raise NotImplementedError(f"{self.name} does not implement sort")

    @optional
    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Indices that sort `x` along `axis` (stable)."""
        raise NotImplementedError(f"{self.name} does not implement argsort")

    @optional
    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices of `search_values` into the last axis of `sorted_sequence`; `side` is 'left' or 'right'."""
        raise NotImplementedError(f"{self.name} does not implement searchsorted")

    @optional
    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """Multi-indices of the non-zero elements, shape `(nnz, ndims)`; padded with `fill_value` or
        cut to `length` if given."""
        raise NotImplementedError(f"{self.name} does not implement nonzero")

    @optional
    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices of `x` along `axis` where the 1-D `mask` is true; padded with `fill_value` to `new_length`."""
        raise NotImplementedError(f"{self.name} does not implement boolean_mask")

    @optional
    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
        """Sorted unique slices along `axis`, and optionally the inverse indices and the counts."""
        raise NotImplementedError(f"{self.name} does not implement unique")

    @optional
    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms: `(batch, values)` into `(batch, edges)` bins, shape `(batch, edges - 1)`."""
        raise NotImplementedError(f"{self.name} does not implement histogram1d")

    @optional
    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or sums `weights`) of each integer in `[0, bins)` in the 1-D `x`."""
        raise NotImplementedError(f"{self.name} does not implement bincount")

    @generic("vectorized_call", "bincount")
    def batched_bincount(self, x: Tensor, weights: Tensor | None, bins: int) -> Tensor:
        """`bincount` of each row of `(batch, n)` indices."""
        if weights is None:
            return self.vectorized_call(self.bincount, x, weights=None, bins=bins)
        return self.vectorized_call(self.bincount, x, weights, bins=bins)

    # ------------------------------------------------------------ indices

    @generic("stack", "floordiv", "mod", "any", "or_", "greater_than", "greater_or_equal")
    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices into an array of `shape` (C order).

        Raises:
            ArgumentTypeError: for flat indices that are not integers (bools included).
            ValueError: for a flat index outside `[0, prod(shape))` (checked on the data).
        """
        from ._rules.indices import unravel_index  # the rule and its composite, shared with the plugins

        return unravel_index(self, flat_index, shape)

    @generic("as_tensor", "cast", "dtype", "sum", "clip", "all", "where", "mod", "sub", "mul", "and_", "greater_or_equal", "greater_than")
    def ravel_multi_index(self, multi_index: Tensor, shape: Sequence[int], mode: str | int = "undefined") -> Tensor:
        """Flat indices of `(..., index_dim)` multi-indices into an array of `shape` (C order).

        Args:
            multi_index: Integer tensor whose last axis holds one index per dimension.
            shape: Shape of the indexed array.
            mode: `'undefined'`, `'periodic'` (wrap), `'clamp'`, or an int returned for indices outside.
        """
        dtype = self.dtype(multi_index)
        strides = self.cast(self.as_tensor([math.prod(shape[i + 1 :]) for i in range(len(shape))]), dtype)
        sizes = self.cast(self.as_tensor(list(shape)), dtype)
        if mode == "periodic":
            multi_index = self.mod(multi_index, sizes)
        elif mode == "clamp":
            multi_index = self.clip(multi_index, 0, self.sub(sizes, 1))
        result = self.sum(self.mul(multi_index, strides), -1)
        if isinstance(mode, int) and not isinstance(mode, bool):
            inside = self.all(self.and_(self.greater_or_equal(multi_index, 0), self.greater_than(sizes, multi_index)), -1)
            result = self.where(inside, result, self.cast(self.as_tensor(mode), dtype))
        elif mode not in ("undefined", "periodic", "clamp"):
            raise ValueError(f"mode must be 'undefined', 'periodic', 'clamp' or an int but got {mode!r}")
        return result

    # ------------------------------------------------------------ gather and scatter

    @optional
    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at the 1-D `indices` along `axis`."""
        raise NotImplementedError(f"{self.name} does not implement gather")

    @generic("gather")
    def gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`values[indices]` for 1-D `values`."""
        return self.gather(values, indices, 0)

    @generic(native=_INDEXING)
    def gather_by_component_indices(self, values: Tensor, *component_indices: Any) -> Tensor:
        """`values[component_indices]`."""
        try:
            return values[component_indices]
        except TypeError:  # the native type cannot be indexed
            self._check_native("gather_by_component_indices")
            raise

    @optional
    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """Batched gather: `(batch, spatial..., channel)` at `(batch, any..., ndims)` indices gives
        `(batch, any..., channel)`; batch sizes may be 1 on either side."""
        raise NotImplementedError(f"{self.name} does not implement batched_gather_nd")

    @generic("batched_gather_nd", native=_INDEXING)
    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`."""
        return self.batched_gather_nd(values[:, :, None], indices[:, :, None])[..., 0]

    @generic("batched_gather_nd", native=_INDEXING)
    def gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(spatial..., channels)` at `(indices, ndims)` gives `(indices, channels)`."""
        return self.batched_gather_nd(values[None], indices[None])[0]

    @optional
    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Batched n-dimensional scatter into a copy of `base_grid`.

        Args:
            base_grid: `(batch, spatial..., channels)`.
            indices: `(batch or 1, updates, ndims)` integer indices.
            values: `(batch or 1, updates or 1, channels or 1)`.
            mode: `'update'`, `'add'`, `'max'` or `'min'`.
        """
        raise NotImplementedError(f"{self.name} does not implement scatter")

    @generic("scatter", native=_INDEXING)
    def scatter_nd(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Unbatched scatter: `(spatial..., channels)`, `(updates, ndims)`, `(updates or 1, channels or 1)`."""
        return self.scatter(base_grid[None], indices[None], values[None], mode=mode)[0]

    @generic("scatter", native=_INDEXING)
    def scatter_1d_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter into a 1-D tensor: `(spatial,)`, `(updates,)`, `(updates or 1,)`."""
        return self.scatter(base_grid[None, :, None], indices[None, :, None], values[None, :, None], mode=mode)[0, :, 0]

    @generic("scatter", native=_INDEXING)
    def scatter_nd_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter without channels: `(spatial...)`, `(updates, ndims)`, `(updates or 1,)`."""
        return self.scatter(base_grid[None, ..., None], indices[None], values[None, :, None], mode=mode)[0, ..., 0]

    @optional
    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of contiguous segments of `x` along `axis` starting at `indices`; `(batch, ...)` and
        `(batch, segments)`."""
        raise NotImplementedError(f"{self.name} does not implement indexed_segment_sum")

    # ------------------------------------------------------------ linear algebra

    @optional
    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b`."""
        raise NotImplementedError(f"{self.name} does not implement tensordot")

    @optional
    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation."""
        raise NotImplementedError(f"{self.name} does not implement einsum")

    @optional
    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` matrix (dense or sparse) times `(batch, cols)` vectors gives `(batch, rows)`."""
        raise NotImplementedError(f"{self.name} does not implement mul_matrix_batched_vector")

    @optional
    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions of `(batch, vec, constraints)` systems with `(batch, vec, k)` right sides.

        Returns:
            `(solution, residuals, rank, singular_values)`; the last three may be `None`.
        """
        raise NotImplementedError(f"{self.name} does not implement matrix_solve_least_squares")

    @generic("is_sparse", "solve_triangular_dense")
    def solve_triangular(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Triangular solve, sparse or dense by the format of `matrix`."""
        if self.is_sparse(matrix):
            return self.solve_triangular_sparse(matrix, rhs, lower, unit_diagonal)
        return self.solve_triangular_dense(matrix, rhs, lower, unit_diagonal)

    @optional
    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides."""
        raise NotImplementedError(f"{self.name} does not implement solve_triangular_dense")

    @optional
    def solve_triangular_sparse(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves a sparse triangular `(n, n)` system for `(batch, n)` right-hand sides."""
        raise NotImplementedError(
            f"sparse triangular solves are not supported by {self.name}; use a SciPy solver such as 'scipy-CG'"
        )

    @optional
    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks of `(batch, rows, cols)` matrices."""
        raise NotImplementedError(f"{self.name} does not implement matrix_rank_dense")

    @optional
    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues of `(batch..., n, n)` matrices."""
        raise NotImplementedError(f"{self.name} does not implement eigvals")

    @optional
    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns)."""
        raise NotImplementedError(f"{self.name} does not implement eig")

    @optional
    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices."""
        raise NotImplementedError(f"{self.name} does not implement svd")

    @generic("mul_matrix_batched_vector", "stack", "unstack", native=_INDEXING)
    def linear(self, lin: Any, vector: Tensor) -> Tensor:
        """Applies a linear operator to `(batch, n)` vectors.

        Args:
            lin: A dense or sparse matrix, a list of matrices (one per batch entry), or a function.
            vector: `(batch, n)` tensor.
        """
        if callable(lin):
            return lin(vector)
        if isinstance(lin, (tuple, list)):
            return self.stack([self.mul_matrix_batched_vector(m, v[None])[0] for m, v in zip(lin, self.unstack(vector), strict=True)])
        if len(self.staticshape(lin)) != 2:
            raise ValueError(f"the linear operator must be a matrix but has shape {self.staticshape(lin)}")
        return self.mul_matrix_batched_vector(lin, vector)

    # ------------------------------------------------------------ generic algorithms: solves and minimisation

    @generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
    def linear_solve(
        self,
        method: str,
        lin: Any,
        y: Tensor,
        x0: Tensor | None = None,
        rtol: Any = 1e-5,
        atol: Any = 0.0,
        max_iter: Any = None,
        pre: Preconditioner | None = None,
        matrix_offset: Any = None,
    ) -> SolveResult:
        """Solves the batched linear systems `A x = y`.

        The arguments keep the reference's order and names; all after `y` have defaults and may be
        given by keyword: `b.linear_solve("CG", A, y, rtol=1e-8)`.

        Args:
            method: 'auto' (adaptive CG), 'CG', 'CG-adaptive', 'biCG-stab' (= 'biCG-stab(1)'),
                'biCG-stab(n)', 'scipy-direct', 'scipy-CG', 'scipy-GMres', 'scipy-biCG',
                'scipy-biCG-stab', 'scipy-CGS', 'scipy-QMR' or 'scipy-GCrotMK'.
            lin: A dense or sparse `(n, n)` matrix, a list of matrices (one per batch entry), or a
                linear function of `(batch, n)` tensors.
            y: Right-hand sides, `(batch, n)`.
            x0: Initial guesses, `(batch, n)`; `None` (the default) starts from zeros.
            rtol: Relative tolerance on the residual norm, scalar or `(batch,)`; default 1e-5.
            atol: Absolute tolerance on the residual norm, scalar or `(batch,)`; default 0.
            max_iter: Iteration limit: an int, `(batch,)`, or `(checkpoints, batch)` to record the
                state at each checkpoint (a trajectory: every result gets an outer checkpoint axis).
                `None` (the default) allows `10 * n` iterations, as SciPy does.
            pre: Preconditioner or `None` (the default).
            matrix_offset: A constant added to every matrix entry, or `None` (the default).

        Raises:
            ValueError: for an unknown method or badly shaped arguments.
        """
        if x0 is None:
            x0 = self.zeros(tuple(int(s or 0) for s in self.staticshape(y)), self.dtype(y))
        if max_iter is None:
            max_iter = 10 * int(self.staticshape(y)[-1] or 1)
        if method in ("auto", "CG-adaptive"):
            return self.conjugate_gradient_adaptive(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
        if method == "CG":
            return self.conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
        if method == "biCG-stab":
            return self.bi_conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset, poly_order=1)
        if method.startswith("biCG-stab(") and method.endswith(")") and method[10:-1].isdigit():
            return self.bi_conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset, poly_order=int(method[10:-1]))
        if method.startswith("scipy-"):
            from ._linalg import scipy_solve

            return scipy_solve(self, method[6:], lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
        raise ValueError(
            f"unknown linear solve method {method!r}; use 'auto', 'CG', 'CG-adaptive', 'biCG-stab', 'biCG-stab(n)', "
            "or one of 'scipy-direct', 'scipy-CG', 'scipy-GMres', 'scipy-biCG', 'scipy-biCG-stab', 'scipy-CGS', 'scipy-QMR', 'scipy-GCrotMK'"
        )

    @generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
    def conjugate_gradient(self, lin: Any, y: Tensor, x0: Tensor, rtol: Any, atol: Any, max_iter: Any, pre: Preconditioner | None, matrix_offset: Any) -> SolveResult:
        """Preconditioned conjugate gradient; arguments as `linear_solve`."""
        from ._linalg import cg

        return cg(self, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)

    @generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
    def conjugate_gradient_adaptive(self, lin: Any, y: Tensor, x0: Tensor, rtol: Any, atol: Any, max_iter: Any, pre: Preconditioner | None, matrix_offset: Any) -> SolveResult:
        """Conjugate gradient with directions recomputed from the residual; arguments as `linear_solve`."""
        from ._linalg import cg_adaptive

        return cg_adaptive(self, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)

    @generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
    def bi_conjugate_gradient(self, lin: Any, y: Tensor, x0: Tensor, rtol: Any, atol: Any, max_iter: Any, pre: Preconditioner | None, matrix_offset: Any, poly_order: int = 2) -> SolveResult:
        """BiCGstab(`poly_order`) for general square systems; arguments as `linear_solve`."""
        from ._linalg import bicg

        return bicg(self, lin, y, x0, rtol, atol, max_iter, pre, poly_order, matrix_offset)

    @generic("numpy", "as_tensor", "cast")  # the SciPy methods; 'GD' also needs `gradients`, `sum` and `where`
    def minimize(self, method: str, f: Callable[[Tensor], Tensor], x0: Tensor, atol: Any, max_iter: Any, trj: bool) -> SolveResult | list[SolveResult]:
        """Minimises `f(x) -> loss` for `(batch, n)` parameters, each batch entry independently.

        Args:
            method: 'GD' (gradient descent, needs `gradients`), 'auto' (= 'L-BFGS-B'), or any
                method of `scipy.optimize.minimize` such as 'L-BFGS-B', 'BFGS', 'CG'. SciPy methods get
                gradients from this backend's autodiff, or estimate them by finite differences if it has none.
            f: Loss function returning `(batch,)` values.
            x0: Initial parameters, `(batch, n)`.
            atol: Tolerance (of the largest gradient component for 'GD', SciPy's `tol` otherwise).
            max_iter: Iteration limit.
            trj: Return the list of states after every iteration instead of the final one.
        """
        if method == "GD":
            from ._minimize import gradient_descent

            return gradient_descent(self, f, x0, atol, max_iter, trj)
        from ._minimize import scipy_minimize

        return scipy_minimize(self, "L-BFGS-B" if method == "auto" else method, f, x0, atol, max_iter, trj)

    # ------------------------------------------------------------ FFT, convolution, sampling

    @optional
    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes`, as complex values."""
        raise NotImplementedError(f"{self.name} does not implement fft")

    @optional
    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes`."""
        raise NotImplementedError(f"{self.name} does not implement ifft")

    @optional
    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels.

        Args:
            zero_padding: If True, pad with zeros so that the output has the spatial shape of `value`
                ('same'); else only full overlaps ('valid').
        """
        raise NotImplementedError(f"{self.name} does not implement conv")

    @optional
    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Linear interpolation of `(batch, spatial..., channels)` at `(batch, instance..., ndims)` index
        coordinates; `extrapolation` is 'undefined', 'zeros', 'boundary', 'periodic', 'symmetric' or
        'reflect'. Returns `NotImplemented` for an extrapolation this backend does not support."""
        return NotImplemented

    # ------------------------------------------------------------ sparse

    @optional
    def sparse_coo_tensor(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A sparse COO tensor from `(nnz, ndims)` indices and `(nnz,)` values."""
        raise NotImplementedError(f"{self.name} does not implement sparse tensors")

    @optional
    def sparse_coo_tensor_batched(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """Batched COO tensors from `(batch, nnz, ndims)` indices and `(batch, nnz)` values."""
        raise NotImplementedError(f"{self.name} does not implement batched sparse tensors")

    @optional
    def csr_matrix(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A sparse CSR matrix."""
        raise NotImplementedError(f"{self.name} does not implement CSR matrices")

    @optional
    def csr_matrix_batched(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """Batched CSR matrices from `(batch, nnz)`, `(batch, rows + 1)` and `(batch, nnz, channels)`."""
        raise NotImplementedError(f"{self.name} does not implement batched CSR matrices")

    @optional
    def csc_matrix(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A sparse CSC matrix."""
        raise NotImplementedError(f"{self.name} does not implement CSC matrices")

    @optional
    def csc_matrix_batched(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """Batched CSC matrices."""
        raise NotImplementedError(f"{self.name} does not implement batched CSC matrices")

    @generic("auto_cast", "staticshape", "reshape", "batched_gather_nd", "zeros", "scatter", "dtype", native=("__getitem__", "__mul__"))
    def mul_coo_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
        """Batched sparse COO matrices times dense matrices.

        Args:
            indices: `(batch, nnz, 2)` row and column indices.
            values: `(batch, nnz, channels)`.
            shape: `(rows, cols)` of the sparse matrices.
            dense: `(batch, cols, channels, dense_cols)`.

        Returns:
            `(batch, rows, channels, dense_cols)`.
        """
        values, dense = self.auto_cast(values, dense)
        batch, _nnz, channels = _known(self.staticshape(values), "values")
        _, rows, _, cols = _known(self.staticshape(dense), "dense")
        flat = self.reshape(dense, (batch, rows, channels * cols))
        gathered = self.batched_gather_nd(flat, indices[:, :, 1:2])
        gathered = self.reshape(gathered, (batch, -1, channels, cols))
        products = self.reshape(values[:, :, :, None] * gathered, (batch, -1, channels * cols))
        base = self.zeros((batch, shape[0], channels * cols), self.dtype(dense))
        result = self.scatter(base, indices[:, :, 0:1], products, mode="add")
        return self.reshape(result, (batch, shape[0], channels, cols))

    @generic("staticshape", "zeros", "scatter", "dtype")
    def coo_to_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, ...], contains_duplicates: bool) -> Tensor:
        """Dense `(batch, *shape, channels)` from `(batch, nnz, ndims)` indices and `(batch, nnz, channels)` values."""
        batch, _nnz, channels = _known(self.staticshape(values), "values")
        base = self.zeros((batch, *shape, channels), self.dtype(values))
        return self.scatter(base, indices, values, mode="add" if contains_duplicates else "update")

    @generic("staticshape", "repeat", "range", "stack", "dtype", native=("__getitem__", "__sub__"))
    def csr_to_coo(self, column_indices: Tensor, row_pointers: Tensor) -> Tensor:
        """`(batch, nnz, 2)` COO indices of `(batch, nnz)` column indices and `(batch, rows + 1)` row pointers."""
        batch, nnz = _known(self.staticshape(column_indices), "column_indices")
        repeats = row_pointers[:, 1:] - row_pointers[:, :-1]
        rows = self.staticshape(repeats)[-1]
        row_range = self.range(rows, dtype=self.dtype(column_indices))
        row_indices = [self.repeat(row_range, repeats[b], 0, new_length=nnz) for b in range(batch)]
        return self.stack([self.stack(row_indices), column_indices], axis=-1)

    @generic("csr_to_coo", "mul_coo_dense")
    def mul_csr_dense(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
        """Batched CSR matrices times dense matrices; arguments as `csr_to_coo` and `mul_coo_dense`."""
        return self.mul_coo_dense(self.csr_to_coo(column_indices, row_pointers), values, shape, dense)

    @generic("csr_to_coo", "coo_to_dense")
    def csr_to_dense(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int], contains_duplicates: bool = False) -> Tensor:
        """Dense `(batch, rows, cols, channels)` of batched CSR matrices."""
        indices = self.csr_to_coo(column_indices, row_pointers)
        return self.coo_to_dense(indices, values, shape, contains_duplicates=contains_duplicates)

    # ------------------------------------------------------------ autodiff, compilation, control flow

    @optional
    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value`, cut from automatic differentiation."""
        raise NotImplementedError(f"{self.name} does not implement stop_gradient")

    @generic("stop_gradient")
    def stop_gradient_tree(self, tree: Any) -> Any:
        """`stop_gradient` applied to every tensor of a tree of tuples, lists and dicts."""
        return _map_tree(self.stop_gradient, tree)

    @optional
    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """A compiled version of `f` that gives the same results; traced once per input signature."""
        raise NotImplementedError(f"{self.name} cannot compile functions")

    @optional
    def jacobian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
        """The gradient function of `f`, which returns `(loss, *outputs)`.

        Args:
            f: Function whose first output is the loss to differentiate.
            wrt: Indices of the arguments to differentiate by.
            get_output: Whether the result also returns the outputs of `f` (before the gradients).
            is_f_scalar: Whether the loss is a scalar.

        Returns:
            `g(*args)` returning the gradients, or `(*outputs, *gradients)` if `get_output`.
        """
        raise NotImplementedError(f"{self.name} cannot compute gradients")

    @optional
    def hessian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
        """A function returning `(f(x), g(x), H(x))` (or fewer, as asked) for a batched scalar loss.

        The first dimension of inputs and outputs is a batch dimension; Hessians are computed per batch entry.
        """
        raise NotImplementedError(f"{self.name} cannot compute Hessians")

    @optional
    def custom_gradient(self, f: Callable[..., Any], gradient: Callable[..., Any], get_external_cache: Callable[..., Any] | None = None, on_call_skipped: Callable[..., Any] | None = None) -> Callable[..., Any]:
        """`f` with a custom backward pass `gradient(args, output, d_output) -> d_args`.

        Returns:
            The new function, or `NotImplemented` if this backend cannot define custom gradients.
        """
        return NotImplemented  # type: ignore[no-any-return]

    @generic("jit_compile", "jacobian")
    def jit_compile_grad(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
        """`jit_compile(jacobian(...))`."""
        return self.jit_compile(self.jacobian(f, wrt, get_output, is_f_scalar))

    @generic("jit_compile", "hessian")
    def jit_compile_hessian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
        """`jit_compile(hessian(...))`."""
        compiled: Callable[..., Any] = self.jit_compile(self.hessian(f, wrt, get_output, get_gradient))
        return compiled

    @generic("stop_gradient", "copy", "stack", "any")
    def while_loop(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: int | Sequence[int] | None) -> Any:
        """Runs `values = loop(*values)` while any element of `values[0]` is true.

        Args:
            loop: Returns new values of the same shapes and dtypes.
            values: Initial loop values; the first is the condition.
            max_iter: Iteration limit (`None` for none), or a sequence of checkpoints, in which
                case the values at each checkpoint are stacked along a new first axis; checkpoints after
                the loop ended repeat the last recorded checkpoint, as in `phiml.backend` (not the final
                values: a loop whose body keeps changing values after its condition turned false at
                iteration 3 gives `max_iter=(1, 5)` twice the values of iteration 1).
        """
        values = self.stop_gradient_tree(values)
        if isinstance(max_iter, (tuple, list)):
            checkpoints = list(max_iter)
            trajectory = [self.copy_leaves(values, only_mutable=True)] if 0 in checkpoints else []
            for i in range(1, max(checkpoints) + 1):
                if not self.any(values[0]):
                    break
                values = loop(*values)
                if i in checkpoints:
                    trajectory.append(self.copy_leaves(values, only_mutable=True))
            if not trajectory:  # no checkpoint reached (the condition was false from the start)
                trajectory.append(self.copy_leaves(values, only_mutable=True))
            trajectory.extend([trajectory[-1]] * (len(checkpoints) - len(trajectory)))
            return self.stop_gradient_tree(self.stack_leaves(trajectory))
        i, limit = 0, max_iter
        while (limit is None or i < limit) and self.any(values[0]):  # type: ignore[operator]
            values = loop(*values)
            i += 1
        return self.stop_gradient_tree(values)

    @generic("determine_size", "staticshape", "stack", native=_INDEXING)
    def vectorized_call(self, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
        """Calls `f` on every entry of the first dimension of `args` (size 1 broadcasts) and stacks the results."""
        batch = self.determine_size(args, 0)
        results = [f(*[t[min(b, self.staticshape(t)[0] - 1)] for t in args], **aux_args) for b in range(batch)]  # type: ignore[operator]
        return self.stack_leaves(results)


# ---------------------------------------------------------------- helpers


def _is_python_number(value: Any) -> bool:
    """Python `bool`, `int`, `float` or `complex`, but not NumPy scalars (which subclass some of them)."""
    return type(value) in (bool, int, float, complex)


def _check_int_range(dtype: DType, values: Sequence[Any]) -> None:
    """Raises `OverflowError` for a Python int among `values` outside the range of `dtype` (NumPy 2, NEP 50)."""
    info = np.iinfo(to_numpy_dtype(dtype))
    for value in values:
        if type(value) is int and not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype.name}")


def _assemble_dense(backend: Backend, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


def _known(shape: tuple[int | None, ...], what: str) -> tuple[int, ...]:
    if any(s is None for s in shape):
        raise ValueError(f"the shape of {what} must be known, but is {shape}")
    return shape  # type: ignore[return-value]


def _map_tree(function: Callable[[Any], Any], tree: Any) -> Any:
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map_tree(function, e) for e in tree)
    if isinstance(tree, dict):
        return {k: _map_tree(function, e) for k, e in tree.items()}
    return function(tree)


def _method_features() -> tuple[str, ...]:
    names = []
    for name in dir(Backend):
        if name.startswith("_") or name in _INFRASTRUCTURE:
            continue
        if callable(getattr(Backend, name)):
            names.append(name)
    return tuple(names)


_METHOD_FEATURES: Final = _method_features()
_REQUIRED: Final = frozenset(Backend.__abstractmethods__)


def _defines(cls: type, dunder: str) -> bool:
    """Whether instances of `cls` have the operator `dunder`: looked up in the MRO as Python does for
    operators (not on the metaclass, whose `type.__or__` builds unions), and not `object`'s
    comparison placeholders, which return NotImplemented."""
    for klass in cls.__mro__:
        if dunder in vars(klass):
            return klass is not object and vars(klass)[dunder] is not None
    return False


def _inferred_native_types(name: str) -> list[type]:
    """The tensor types of the modules that the plugin of backend `name` owns; imports nothing."""
    from ._plugins import REGISTRY

    entry = REGISTRY.entries.get(name)
    found: list[type] = []
    for module_name in entry.spec.modules if entry is not None else ():
        module = sys.modules.get(module_name)
        for attribute, value in vars(module).items() if module is not None else ():
            if attribute.startswith("_") or not isinstance(value, type) or value in found:
                continue
            if str(value.__module__).partition(".")[0] == module_name and hasattr(value, "shape"):
                found.append(value)
    return found


def _resolve_support(cls: type, name: str, visiting: tuple[str, ...], has_native: Callable[[str], bool]) -> bool:
    if name in CAPABILITIES:
        if name == "float64" and not getattr(cls, "float64_supported", True):
            return False
        return all(_resolve_support(cls, op, visiting, has_native) for op in CAPABILITIES[name])
    base = getattr(Backend, name, None)
    if base is None or name not in _METHOD_FEATURES:
        valid = [*_METHOD_FEATURES, *CAPABILITIES]
        hint = did_you_mean(name, valid)
        raise ValueError(f"unknown feature {name!r}.{hint} Features are Backend method names or one of {', '.join(CAPABILITIES)}.")
    if name in _REQUIRED or getattr(cls, name) is not base:
        return True
    uses = uses_of(base)
    if uses is None or name in visiting:
        return False
    if not all(has_native(dunder) for dunder in native_of(base)):
        return False
    return all(_resolve_support(cls, op, (*visiting, name), has_native) for op in uses)



# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _name in __all__:
    globals()[_name].__module__ = "bk"
del _name

# Each catalogue method's docstring ends with its operation spec's rule ("Rule: ..."), from bk._specs.
from ._specs import annotate_docstrings as _annotate_docstrings  # noqa: E402  (the specs load with Backend)

_annotate_docstrings(Backend)
