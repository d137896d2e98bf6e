"""The generic defaults of the reference catalogue: types, devices, metadata, creation, shapes,
elementwise operations, operators, indices, gather and scatter.

Every public function is an operation of the catalogue, a method of `Backend` (`bk._operations`): a feature marked `@generic(*uses, native=...)` (see
`_features.py`): a composite of the catalogue operations it lists in `uses` and of the native
tensor's Python operators it lists in `native`, so any backend that provides those gets it;
`supports()` claims it only then. Plugins override a default with a native kernel where the
framework is faster or stricter. The signatures of the operations without a default are in
`_catalogue_core.py`; the defaults of linear algebra, the solvers, sparse tensors and control flow
in `_defaults_algorithms.py`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from . import _context
from ._axes import normalize_axes, normalize_axis
from ._catalogue_dtypes import is_python_number
from ._device import ComputeDevice
from ._dtype import DType
from ._dtype import combine_types as _combine_types
from ._errors import ArgumentTypeError, check_tensor_argument
from ._explain import explain_failure
from ._features import generic
from ._rules.compare import greater_beyond_range
from ._rules.indices import advanced_index, array_key_layout
from ._rules.weak import check_python_ints, weak_result

if TYPE_CHECKING:
    from ._backend import Backend

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any

_INDEXING: Final = ("__getitem__",)


# ------------------------------------------------------------ types and precision


@generic()
def combine_types(self: Backend, *dtypes: DType) -> DType:
    """The result type of mixing `dtypes`, converted to the current precision when one is set."""
    return _combine_types(*dtypes, fp_precision=_context.get_precision())


@generic("dtype", "cast")
def auto_cast(self: Backend, *tensors: Tensor, bool_to_int: bool = False, int_to_float: bool = False) -> list[Tensor]:
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
    strong = [self.dtype(t) for t in tensors if not is_python_number(t)]
    kinds = tuple(type(t) for t in tensors if is_python_number(t))
    # Python numbers are weak (bk._rules.weak); only Python numbers: bk's default types
    result_type = weak_result(tuple(strong), kinds, _context.get_precision()) if kinds else self.combine_types(*strong)
    if result_type.kind is bool and bool_to_int:
        result_type = DType(int, 32)
    if result_type.kind is int and int_to_float:
        result_type = self.float_type  # `int8 / 300` divides floats: 300 need not fit int8
    if result_type.kind is int and kinds:
        check_python_ints(result_type, tensors)
    if result_type.kind in (bool, int, float, complex):
        return [self.cast(t, result_type) for t in tensors]
    return list(tensors)


@generic("cast", "dtype")
def to_float(self: Backend, x: Tensor) -> Tensor:
    """`x` as floats of the current precision; floats keep theirs when the precision is `None`."""
    check_tensor_argument(x, "to_float")
    if type(x) in (bool, int, float, complex):  # a Python number: the dtype as_tensor gives it (a float is the default float)
        x = self.as_tensor(x)
    if _context.get_precision() is None and self.dtype(x).kind is float:
        return x
    return self.cast(x, self.float_type)


@generic("cast")
def to_int32(self: Backend, x: Tensor) -> Tensor:
    """`x` as int32."""
    return self.cast(x, DType(int, 32))


@generic("cast")
def to_int64(self: Backend, x: Tensor) -> Tensor:
    """`x` as int64."""
    return self.cast(x, DType(int, 64))


@generic("cast", "dtype")
def to_complex(self: Backend, x: Tensor) -> Tensor:
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
def list_devices(self: Backend, device_type: str | None = None) -> list[ComputeDevice]:
    """All devices this backend can use, optionally only those of `device_type` ('CPU', 'GPU', 'TPU')."""
    if device_type is None:
        return list(self._devices)
    if device_type not in ("CPU", "GPU", "TPU"):
        raise ValueError(f"device_type must be 'CPU', 'GPU', 'TPU' or None but got {device_type!r}")
    return [d for d in self._devices if d.device_type == device_type]


@generic()
def get_default_device(self: Backend) -> ComputeDevice:
    """The device new tensors are created on."""
    return self._default_device


@generic()
def set_default_device(self: Backend, device: ComputeDevice | str) -> bool:
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
            warnings.warn(
                f"{self.name}: no {device} device is available; keeping {self._default_device.name}", RuntimeWarning, stacklevel=2
            )
            return False
        device = devices[0]
    if device.backend is not self:
        raise ValueError(f"device {device.name!r} belongs to backend {device.backend}, not {self.name}")
    self._default_device = device
    return True


@generic()
def get_device(self: Backend, tensor: Tensor) -> ComputeDevice:
    """The device `tensor` lives on (the default device unless a backend knows better)."""
    return self._default_device


@generic()
def get_device_by_ref(self: Backend, ref: Any) -> ComputeDevice:
    """The device whose native reference is `ref`.

    Raises:
        KeyError: if no device has that reference.
    """
    for device in self._devices:
        if device.ref == ref:
            return device
    raise KeyError(f"{self.name} has no device with ref {ref!r}; available: {[d.ref for d in self._devices]}")


@generic("copy")
def copy_leaves(self: Backend, tree: Any, only_mutable: bool = False) -> Any:
    """`copy` applied to every tensor in a tree of tuples, lists and dicts."""
    return _map_tree(lambda t: self.copy(t, only_mutable=only_mutable), tree)


@generic()
def block_until_ready(self: Backend, values: Any) -> None:
    """Waits until asynchronous computations producing `values` have finished."""
    return None


@generic()
def call(self: Backend, f: Callable[..., Any], *args: Any, name: str | None = None) -> Any:
    """Calls `f(*args)`; lets the profiler record calls that are not catalogue operations."""
    return f(*args)


@generic()
def prefers_channels_last(self: Backend) -> bool:
    """Whether the framework's own operations prefer channels as the last dimension."""
    return False


@generic()
def requires_fixed_shapes_when_tracing(self: Backend) -> bool:
    """Whether shapes must be known when tracing (then `new_length` arguments are needed)."""
    return False


# ------------------------------------------------------------ tensor metadata


@generic()
def is_module(self: Backend, obj: Any) -> bool:
    """Whether `obj` is a framework-specific object such as a neural network."""
    return False


@generic()
def is_sparse(self: Backend, x: Tensor) -> bool:
    """Whether `x` is a sparse tensor."""
    return False


@generic("is_sparse")
def get_sparse_format(self: Backend, x: Tensor) -> str:
    """`'coo'`, `'csr'`, `'csc'`, or `'dense'` for dense tensors."""
    if not self.is_sparse(x):
        return "dense"
    raise NotImplementedError(f"{self.name} does not implement get_sparse_format")


@generic("is_sparse")
def disassemble(self: Backend, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
    """Splits `x` into its constituent tensors.

    Returns:
        `(assemble, constituents)`, where `assemble(backend, *constituents)` rebuilds `x`
        on any backend.
    """
    if not self.is_sparse(x):
        return _assemble_dense, (x,)
    raise NotImplementedError(f"{self.name} does not implement disassemble for sparse tensors")


@generic("staticshape")
def shape(self: Backend, tensor: Tensor) -> Any:
    """The shape of `tensor`; under tracing it may hold symbolic sizes."""
    return self.staticshape(tensor)


@generic("staticshape")
def ndims(self: Backend, tensor: Tensor) -> int:
    """The number of dimensions of `tensor`."""
    return len(self.staticshape(tensor))


@generic("shape")
def size(self: Backend, array: Tensor) -> Any:
    """The number of elements of `array` (under tracing with unknown sizes, this needs `prod`)."""
    shape = self.shape(array)
    if all(isinstance(s, int) for s in shape):
        return math.prod(shape)
    return self.prod(self.as_tensor(shape))


@generic("staticshape", "dtype")
def sizeof(self: Backend, tensor: Tensor) -> int:
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
def determine_size(self: Backend, tensors: Sequence[Tensor], axis: int) -> int:
    """The common size of `tensors` along `axis`, where size 1 broadcasts.

    Raises:
        ValueError: if two sizes other than 1 differ.
    """
    sizes = {self.staticshape(t)[axis] for t in tensors} - {1}
    if len(sizes) > 1:
        raise ValueError(f"sizes along axis {axis} do not match: {sorted(sizes, key=str)}")
    return sizes.pop() if sizes else 1  # type: ignore[return-value]


# ------------------------------------------------------------ conversion


@generic("is_available", "numpy", "as_tensor")
def numpy_call(
    self: Backend, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any
) -> Any:
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


@generic("linspace", native=_INDEXING)
def linspace_without_last(self: Backend, start: Any, stop: Any, number: int) -> Tensor:
    """`number` evenly spaced floats from `start` to `stop`, `stop` excluded."""
    try:
        return self.linspace(start, stop, number + 1)[:-1]
    except TypeError:  # the native type cannot be indexed
        self._check_native("linspace_without_last")
        raise


# ------------------------------------------------------------ shape manipulation


@generic("reshape")
def flatten(self: Backend, x: Tensor) -> Tensor:
    """`x` as a 1-D tensor."""
    return self.reshape(x, (-1,))


@generic("stack")
def stack_leaves(self: Backend, trees: Sequence[Any], axis: int = 0) -> Any:
    """Stacks the corresponding tensors of equally structured trees (tuples, lists, dicts)."""
    first = trees[0]
    if isinstance(first, (tuple, list)):
        return type(first)(self.stack_leaves([t[i] for t in trees], axis) for i in range(len(first)))
    if isinstance(first, dict):
        return {k: self.stack_leaves([t[k] for t in trees], axis) for k in first}
    return self.stack(trees, axis=axis)


@generic("staticshape", native=_INDEXING)
def unstack(self: Backend, tensor: Tensor, axis: int = 0, keepdims: bool = False) -> tuple[Tensor, ...]:
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


@generic("tile", "staticshape")
def tile_to(self: Backend, x: Tensor, axis: int, size: int) -> Tensor:
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


@generic("pad", "staticshape", native=_INDEXING)
def pad_to(self: Backend, x: Tensor, axis: int, new_size: int, fill_value: Any) -> Tensor:
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
def flip(self: Backend, value: Tensor, axes: Sequence[int]) -> Tensor:
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
def multi_slice(self: Backend, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
    """`tensor[slices]` for a tuple of slices, ints, None, `...` and integer or bool tensors: the native
    type's indexing (NumPy's for NumPy arrays), or, where it refuses array indices, the core's
    composite of `transpose`, `reshape` and `gather` (`bk.rules.advanced_index`). A framework
    whose indexing takes arrays but places their axes otherwise than NumPy (PyTorch with ints
    apart from the arrays) calls the composite in its own kernel."""
    try:
        return tensor[slices]
    except (TypeError, NotImplementedError) as error:  # the native type cannot be indexed, or not with arrays
        if array_key_layout(slices)[0] and all(self.supports(op) for op in ("transpose", "reshape", "gather")):
            return advanced_index(self, tensor, slices, _basic_index)
        if isinstance(error, NotImplementedError):
            raise
        self._check_native("multi_slice")
        raise
    except (IndexError, ValueError) as error:  # an index out of range: the spec decides the class
        explain_failure(self, "multi_slice", error, (tensor, slices), {})


@generic(native=_INDEXING)
def batch_gather(self: Backend, tensor: Tensor, batches: Any) -> Tensor:
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


# ------------------------------------------------------------ elementwise maths


@generic("dtype", "gather", "cast", "as_tensor", "exp", "log_gamma", "to_float", "add")
def factorial(self: Backend, x: Tensor) -> Tensor:
    """`x!`: exact for int32 (up to 12!) and int64 (up to 20!), through `log_gamma` for floats."""
    check_tensor_argument(x, "factorial")
    dtype = self.dtype(x)
    if dtype.kind is int:
        table = [math.factorial(i) for i in range(13 if dtype.bits == 32 else 21)]
        return self.gather(self.cast(self.as_tensor(table), dtype), x, 0)
    return self.exp(self.log_gamma(self.add(self.to_float(x), 1)))


@generic("exp", "mul", "add", "div", "dtype", "to_float")
def sigmoid(self: Backend, x: Tensor) -> Tensor:
    """`1 / (1 + exp(-x))`; booleans and integers give the default float; complex values raise
    `ArgumentTypeError` (the spec of sigmoid)."""
    kind = self.dtype(x).kind
    if kind is complex:
        raise ArgumentTypeError(f"sigmoid: takes real values, not {self.dtype(x).name}")
    if kind in (bool, int):
        x = self.to_float(x)
    return self.div(1, self.add(1, self.exp(self.mul(x, -1))))


# ------------------------------------------------------------ operators


@generic("equal", native=("__invert__",))
def not_equal(self: Backend, x: Tensor, y: Tensor) -> Tensor:
    """Elementwise `x != y`."""
    try:
        return ~self.equal(x, y)
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("not_equal", error, x, y)
        raise


@generic("auto_cast", native=("__gt__",))
def greater_than(self: Backend, x: Tensor, y: Tensor) -> Tensor:
    """Elementwise `x > y`; a Python int outside the range of the integer tensor beside it compares by value."""
    try:
        try:
            x, y = self.auto_cast(x, y)
        except OverflowError as error:
            return greater_beyond_range(self, x, y, error)
        return x > y
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("greater_than", error, x, y)
        raise


@generic("auto_cast", native=("__ge__",))
def greater_or_equal(self: Backend, x: Tensor, y: Tensor) -> Tensor:
    """Elementwise `x >= y`; a Python int outside the range of the integer tensor beside it compares by value."""
    try:
        try:
            x, y = self.auto_cast(x, y)
        except OverflowError as error:
            return greater_beyond_range(self, x, y, error)
        return x >= y
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("greater_or_equal", error, x, y)
        raise


@generic("auto_cast", native=("__add__",))
def add(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a + b` in the common type; booleans add as int32."""
    try:
        a, b = self.auto_cast(a, b, bool_to_int=True)
        return a + b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("add", error, a, b)
        raise


@generic("auto_cast", native=("__sub__",))
def sub(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a - b` in the common type; booleans subtract as int32."""
    try:
        a, b = self.auto_cast(a, b, bool_to_int=True)
        return a - b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("sub", error, a, b)
        raise


@generic("auto_cast", native=("__mul__",))
def mul(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a * b` in the common type."""
    try:
        a, b = self.auto_cast(a, b)
        return a * b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("mul", error, a, b)
        raise


@generic("auto_cast", native=("__truediv__",))
def div(self: Backend, numerator: Tensor, denominator: Tensor) -> Tensor:
    """`numerator / denominator` (true division); integers divide into the default float (docs/semantics.md)."""
    try:
        numerator, denominator = self.auto_cast(numerator, denominator, bool_to_int=True, int_to_float=True)
        return numerator / denominator
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("div", error, numerator, denominator)
        raise


@generic("auto_cast", native=("__pow__",))
def pow(self: Backend, base: Tensor, exp: Tensor) -> Tensor:
    """`base ** exp` in the common type."""
    try:
        base, exp = self.auto_cast(base, exp)
        return base**exp
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("pow", error, base, exp)
        raise


@generic("auto_cast", native=("__mod__",))
def mod(self: Backend, dividend: Tensor, divisor: Tensor) -> Tensor:
    """`dividend % divisor` with the sign of the divisor, as in Python."""
    try:
        dividend, divisor = self.auto_cast(dividend, divisor)
        return dividend % divisor
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("mod", error, dividend, divisor)
        raise


@generic("auto_cast", native=("__floordiv__",))
def floordiv(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a // b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a // b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("floordiv", error, a, b)
        raise


@generic("auto_cast", native=("__and__",))
def and_(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """Logical or bitwise `a & b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a & b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("and_", error, a, b)
        raise


@generic("auto_cast", native=("__or__",))
def or_(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """Logical or bitwise `a | b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a | b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("or_", error, a, b)
        raise


@generic("auto_cast", native=("__xor__",))
def xor(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """Logical or bitwise `a ^ b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a ^ b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("xor", error, a, b)
        raise


@generic("auto_cast", native=("__lshift__",))
def shift_bits_left(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a << b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a << b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("shift_bits_left", error, a, b)
        raise


@generic("auto_cast", native=("__rshift__",))
def shift_bits_right(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """`a >> b`."""
    try:
        a, b = self.auto_cast(a, b)
        return a >> b
    except Exception as error:  # e.g. the native type lacks the operator, or shapes do not broadcast
        self._operator_failed("shift_bits_right", error, a, b)
        raise


@generic(native=("__invert__",))
def invert(self: Backend, x: Tensor) -> Tensor:
    """Logical not for booleans, bitwise not for integers."""
    if isinstance(x, bool):
        return not x
    try:
        return ~x
    except TypeError as error:  # the native type lacks the operator, or refuses the dtype (floats)
        self._check_native("invert")
        check_tensor_argument(x, "invert")
        raise ArgumentTypeError(f"invert: {self.dtype(x)} values have no bits to invert: {error}") from error


# ------------------------------------------------------------ sorting, searching, counting


@generic("vectorized_call", "bincount", "broadcast_to", "zeros")
def batched_bincount(self: Backend, x: Tensor, weights: Tensor | None, bins: int) -> Tensor:
    """`bincount` of each row of `(batch, n)` indices."""
    shape = self.staticshape(x)
    if shape[0] == 0:  # no rows to map over
        kind = None if weights is None else self.dtype(weights)
        return self.zeros((0, bins), DType(int, 64) if kind is None or kind.kind is bool else kind)
    if weights is None:
        return self.vectorized_call(self.bincount, x, weights=None, bins=bins)
    if tuple(self.staticshape(weights)) != tuple(shape) and None not in shape:  # one row of weights for every row of x
        weights = self.broadcast_to(weights, cast("tuple[int, ...]", shape))  # no None: checked above
    return self.vectorized_call(self.bincount, x, weights, bins=bins)


# ------------------------------------------------------------ indices


@generic("stack", "floordiv", "mod", "any", "or_", "greater_than", "greater_or_equal")
def unravel_index(self: Backend, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
    """Multi-indices `(..., len(shape))` of flat indices into an array of `shape` (C order).

    Raises:
        ArgumentTypeError: for flat indices that are not integers (bools included).
        ValueError: for a flat index outside `[0, prod(shape))` (checked on the data).
    """
    from ._rules.indices import unravel_index  # the rule and its composite, shared with the plugins

    return unravel_index(self, flat_index, shape)


@generic(
    "as_tensor", "cast", "dtype", "sum", "clip", "all", "where", "mod", "sub", "mul", "and_", "greater_or_equal", "greater_than"
)
def ravel_multi_index(self: Backend, multi_index: Tensor, shape: Sequence[int], mode: str | int = "undefined") -> Tensor:
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


@generic("gather")
def gather_1d(self: Backend, values: Tensor, indices: Tensor) -> Tensor:
    """`values[indices]` for 1-D `values`."""
    return self.gather(values, indices, 0)


@generic(native=_INDEXING)
def gather_by_component_indices(self: Backend, values: Tensor, *component_indices: Any) -> Tensor:
    """`values[component_indices]`."""
    try:
        return values[component_indices]
    except TypeError:  # the native type cannot be indexed
        self._check_native("gather_by_component_indices")
        raise


@generic("batched_gather_nd", native=_INDEXING)
def batched_gather_1d(self: Backend, values: Tensor, indices: Tensor) -> Tensor:
    """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`."""
    return self.batched_gather_nd(values[:, :, None], indices[:, :, None])[..., 0]


@generic("batched_gather_nd", native=_INDEXING)
def gather_nd(self: Backend, values: Tensor, indices: Tensor) -> Tensor:
    """`(spatial..., channels)` at `(indices, ndims)` gives `(indices, channels)`."""
    return self.batched_gather_nd(values[None], indices[None])[0]


@generic("scatter", native=_INDEXING)
def scatter_nd(self: Backend, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
    """Unbatched scatter: `(spatial..., channels)`, `(updates, ndims)`, `(updates or 1, channels or 1)`."""
    return self.scatter(base_grid[None], indices[None], values[None], mode=mode)[0]


@generic("scatter", native=_INDEXING)
def scatter_1d_scalar(self: Backend, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
    """Scatter into a 1-D tensor: `(spatial,)`, `(updates,)`, `(updates or 1,)`."""
    return self.scatter(base_grid[None, :, None], indices[None, :, None], values[None, :, None], mode=mode)[0, :, 0]


@generic("scatter", native=_INDEXING)
def scatter_nd_scalar(self: Backend, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
    """Scatter without channels: `(spatial...)`, `(updates, ndims)`, `(updates or 1,)`."""
    return self.scatter(base_grid[None, ..., None], indices[None], values[None, :, None], mode=mode)[0, ..., 0]


# ---------------------------------------------------------------- helpers


def _assemble_dense(backend: Backend, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


def _map_tree(function: Callable[[Any], Any], tree: Any) -> Any:
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map_tree(function, e) for e in tree)
    if isinstance(tree, dict):
        return {k: _map_tree(function, e) for k, e in tree.items()}
    return function(tree)


def _basic_index(tensor: Any, key: tuple[Any, ...]) -> Any:
    return tensor[key]
