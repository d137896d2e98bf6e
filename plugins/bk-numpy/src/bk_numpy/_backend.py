"""`NumPyBackend`: the bk backend for NumPy arrays and SciPy sparse matrices.

The operations live in mixins by topic (`_math`, `_indexing`, `_linalg`, `_sparse`); this module
holds the required set, conversion, devices, creation, randomness and shape manipulation.
NumPy has no automatic differentiation and no compiler, so `jacobian`, `hessian`,
`custom_gradient` and `jit_compile` are not overridden and `supports()` says so.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from bk import (
    Backend,
    ComputeDevice,
    DType,
    check_tensor_argument,
    combine_types,
    from_numpy_dtype,
    get_precision,
    to_numpy_dtype,
)
from bk.rules import INDEX_OPERATIONS, PYTHON_NUMBERS, int_range, kernel, only_python_numbers

from ._devices import cpu_device
from ._dtypes import complex_dtype, float_dtype, python_scalar_dtype, to_precision
from ._errors import reraise
from ._indexing import IndexingMixin
from ._linalg import LinalgMixin
from ._math import MathMixin
from ._sparse import SparseMixin, is_scipy_sparse
from ._standard import StandardMixin

__all__ = ["NumPyBackend"]

Tensor = Any

_INT64: Final = np.dtype(np.int64)
_RANGE_INT64: Final = DType(int, 64)
_REALS: Final = (int, float)


def _linspace(start: float, stop: float, number: int, endpoint: bool, dtype: np.dtype[Any]) -> np.ndarray:
    """`numpy.linspace(start, stop, number, endpoint, dtype=dtype)` of two Python reals: NumPy's own steps in
    float64 (the same values), without its argument handling, which costs twice the computation."""
    div = number - 1 if endpoint else number
    values = np.arange(number, dtype=np.float64)
    delta = float(stop) - float(start)
    if div > 0:
        step = delta / div
        if step == 0:  # NumPy divides first where the step underflows
            values /= div
            values *= delta
        else:
            values *= step
    else:  # no step: 0 values, or 1 with its endpoint
        values *= delta
    values += start
    if endpoint and number > 1:
        values[-1] = stop
    return values.astype(dtype, copy=False)


_BOUND: Final = 2**62  # Python ints of a range below it count in int64 without overflow


class _DLPackCapsule:
    """Wraps a raw DLPack capsule so that `numpy.from_dlpack` (which wants `__dlpack__`) accepts it."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU: a capsule NumPy can read lives in CPU memory


class NumPyBackend(StandardMixin, MathMixin, IndexingMixin, LinalgMixin, SparseMixin, Backend):
    """NumPy and SciPy on the CPU.

    Native tensors are `numpy.ndarray`, NumPy scalars (`numpy.generic`) and SciPy sparse
    matrices and arrays. Python numbers are converted as PyTorch and JAX do: floats become the
    float type of the precision (float32 by default), integers int64, complex numbers complex64.
    NumPy arrays keep their dtype unless a precision is set.
    """

    # Each kernel declares itself where it is defined (`bk.rules.kernel`): the tuned kernels that apply
    # docs/semantics.md with bk.rules (the reductions, the unary functions that keep ints, `as_tensor`, `cast`)
    # are trusted; the bare kernels (binary operators, `where`, functions of floats) take the core's plan,
    # most with a fast call in front.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves
    shifts_every_count = True  # NumPy's shifts are the reference for counts outside [0, bits)
    # NumPy's linalg has no half kernels: float32
    lacking_kernels = {"matrix_solve_least_squares": frozenset({DType(float, 16), DType(float, 16, brain=True)})}

    def __init__(self) -> None:
        cpu = cpu_device(self)
        super().__init__("numpy", [cpu], cpu)
        self._rng = np.random.default_rng()

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: ndarrays, NumPy scalars and SciPy sparse matrices; else also Python numbers and (nested) lists of them."""
        if isinstance(x, (np.ndarray, np.generic)) or is_scipy_sparse(x):
            return True
        if only_native:
            return False
        if isinstance(x, (list, tuple)):
            return all(self.is_tensor(e) for e in x)
        return isinstance(x, numbers.Number)

    @kernel(trusted=True, why="applies the rules of Python numbers itself: ints as int64, floats in the precision")
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """`x` as a NumPy array (native values are returned as they are, converted to a set precision).

        Python floats become the float type of the precision (float32 when it is `None`), Python
        ints int64 (NumPy 2's default integer on every platform), complex numbers complex64 (or
        the precision's). Lists of Python numbers follow the same rules.

        Args:
            convert_external: If False, Python numbers are returned unchanged.

        Raises:
            TypeError: for objects NumPy cannot convert to an array.
        """
        precision = get_precision()
        if isinstance(x, (np.ndarray, np.generic)) or is_scipy_sparse(x):
            return to_precision(x, precision)
        if isinstance(x, numbers.Number):
            if not convert_external:
                return x
            return self._from_python(np.asarray(x), precision)
        if isinstance(x, (list, tuple)):
            array = np.asarray(x)
            return self._from_python(array, precision) if only_python_numbers(x) else to_precision(array, precision)
        if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
            return to_precision(np.asarray(x), precision)
        raise TypeError(f"cannot convert {type(x).__name__} to a NumPy array; pass a number, a list, an array or a tensor")

    @staticmethod
    def _from_python(array: Any, precision: int | None) -> Any:
        kind = array.dtype.kind
        if kind == "f":
            return array.astype(float_dtype(precision), copy=False)
        if kind == "c":
            return array.astype(complex_dtype(precision), copy=False)
        if kind == "i" and array.dtype != _INT64:
            return array.astype(_INT64)
        return array

    def is_available(self, tensor: Tensor) -> bool:
        """Always True: NumPy computes eagerly."""
        return True

    def numpy(self, tensor: Tensor) -> np.ndarray:
        """`tensor` itself for ndarrays and SciPy sparse matrices, else as an ndarray."""
        if isinstance(tensor, np.ndarray) or is_scipy_sparse(tensor):
            return tensor
        return np.asarray(tensor)

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of a tensor; Python numbers as the reference defines: int is int32, float float64."""
        dtype = getattr(array, "dtype", None)
        if isinstance(dtype, np.dtype):
            return from_numpy_dtype(dtype)
        if isinstance(array, PYTHON_NUMBERS):
            return python_scalar_dtype(array)
        return from_numpy_dtype(self.as_tensor(array).dtype)

    def staticshape(self, tensor: Tensor) -> tuple[int, ...]:
        """The shape as a tuple of ints."""
        shape = getattr(tensor, "shape", None)
        return tuple(shape) if shape is not None else np.shape(tensor)

    @kernel(trusted=True, why="checks Python ints against the dtype's range itself (NEP 50); complex to real keeps the real part")
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as `dtype`; `x` itself when it already has it. Complex to real keeps the real part; to bool tests `!= 0`."""
        np_dtype = to_numpy_dtype(dtype)
        current = getattr(x, "dtype", None)
        if current == np_dtype and (isinstance(x, np.ndarray) or is_scipy_sparse(x)):
            return x
        if not isinstance(x, np.ndarray) and not is_scipy_sparse(x):
            check_tensor_argument(x, "cast")
            if type(x) is int and dtype.kind is int and not int_range(dtype)[0] <= x <= int_range(dtype)[1]:
                raise OverflowError(f"cast: Python int {x} does not fit {dtype.name} {list(int_range(dtype))} (NumPy 2, NEP 50)")
            x = np.asarray(x)
        if x.dtype.kind == "c" and np_dtype.kind == "b":
            return x != 0
        if x.dtype.kind == "c" and np_dtype.kind != "c":
            x = x.real  # an explicit choice instead of NumPy's ComplexWarning
        return x.astype(np_dtype)

    # ------------------------------------------------------------ devices, memory, conversion

    def get_device(self, tensor: Tensor) -> ComputeDevice:
        """The CPU: NumPy values always live in host memory."""
        return self._default_device

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` itself on the CPU device, this backend's only one (the plan checks that `device` is one of
        this backend's: `bk.rules.check_device`)."""
        return self.as_tensor(tensor)

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A copy of `tensor`; with `only_mutable`, immutable values (NumPy scalars, numbers) are returned as they are."""
        if isinstance(tensor, np.ndarray) or is_scipy_sparse(tensor):
            return tensor.copy()
        if only_mutable or isinstance(tensor, (np.generic, numbers.Number)):
            return tensor
        return np.array(tensor)

    def to_dlpack(self, tensor: Tensor) -> Any:
        """The ndarray itself: it implements `__dlpack__` and shares its memory."""
        return np.asarray(tensor)

    def from_dlpack(self, capsule: Any) -> Tensor:
        """An ndarray sharing the memory of an object with `__dlpack__` (or of a raw CPU DLPack capsule)."""
        if not hasattr(capsule, "__dlpack__"):
            capsule = _DLPackCapsule(capsule)
        return np.from_dlpack(capsule)

    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
        """Calls `f` directly; its outputs are converted to `output_dtypes`."""
        output = f(*args, **aux_args)
        if isinstance(output, (tuple, list)):
            return type(output)(
                np.asarray(o).astype(to_numpy_dtype(d), copy=False) for o, d in zip(output, output_dtypes, strict=True)
            )
        return np.asarray(output).astype(to_numpy_dtype(output_dtypes), copy=False)

    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value` itself: NumPy values carry no gradient."""
        return value

    def is_module(self, obj: Any) -> bool:
        """False: NumPy has no modules (networks)."""
        return False

    # ------------------------------------------------------------ creation

    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """A tensor of zeros; `dtype` defaults to the float type of the current precision."""
        return np.zeros(_shape(shape), to_numpy_dtype(dtype or self.float_type))

    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape and dtype of `tensor`."""
        return np.zeros_like(tensor.toarray() if is_scipy_sparse(tensor) else tensor)

    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """A tensor of ones; `dtype` defaults to the float type of the current precision."""
        return np.ones(_shape(shape), to_numpy_dtype(dtype or self.float_type))

    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape and dtype of `tensor`."""
        return np.ones_like(tensor.toarray() if is_scipy_sparse(tensor) else tensor)

    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
        if (
            dtype is _RANGE_INT64
            and type(start) is int
            and type(delta) is int
            and delta != 0
            and (limit is None or type(limit) is int)
        ):
            start, limit = (0, start) if limit is None else (start, limit)  # Python ints counting in int64: NumPy's own arange
            if -_BOUND < start < _BOUND and -_BOUND < limit < _BOUND and -_BOUND < delta < _BOUND:
                return np.arange(start, limit, delta, dtype=np.int64)
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        if plan.dtype.kind is int:
            return np.arange(plan.start, plan.start + plan.count * plan.delta, plan.delta, dtype=to_numpy_dtype(plan.dtype))
        return (np.arange(plan.count, dtype=np.float64) * plan.delta + plan.start).astype(to_numpy_dtype(plan.dtype))

    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats of the current float type from `start` to `stop`, both included."""
        if type(start) in _REALS and type(stop) in _REALS and type(number) is int and number >= 0:
            return _linspace(start, stop, number, True, to_numpy_dtype(self.float_type))
        with np.errstate(over="ignore"):  # 0-d bounds in float64, as Python ones: a bound beyond float32 gives inf, not NaN
            return np.linspace(np.float64(start), np.float64(stop), number).astype(to_numpy_dtype(self.float_type))

    def linspace_without_last(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats from `start` to `stop`, `stop` excluded."""
        if type(start) in _REALS and type(stop) in _REALS and type(number) is int and number >= 0:
            return _linspace(start, stop, number, False, to_numpy_dtype(self.float_type))
        with np.errstate(over="ignore"):
            return np.linspace(np.float64(start), np.float64(stop), number, endpoint=False).astype(
                to_numpy_dtype(self.float_type)
            )

    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        """Coordinate grids with matrix ('ij') indexing."""
        return list(np.meshgrid(*[self.as_tensor(c) for c in coordinates], indexing="ij"))

    # ------------------------------------------------------------ randomness

    def seed(self, seed: int) -> None:
        """Restarts this backend's own `numpy.random.Generator` from `seed` (the global NumPy state is untouched)."""
        self._rng = np.random.default_rng(seed)

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`: integers for int dtypes, independent real and imaginary parts for complex."""
        dtype = dtype or self.float_type
        np_dtype = to_numpy_dtype(dtype)
        shape = tuple(shape)
        if dtype.kind is int:
            from bk.rules import int_uniform_bounds

            low, high = int_uniform_bounds(low, high)
            return self._rng.integers(low, high, size=shape, dtype=np_dtype)
        if dtype.kind is complex:
            part = to_numpy_dtype(DType(float, dtype.precision))
            low, high = complex(low), complex(high)
            real = self._uniform(shape, low.real, high.real, part)
            return real + 1j * self._uniform(shape, low.imag, high.imag, part).astype(np_dtype)
        return self._uniform(shape, low, high, np_dtype)  # floats (the spec refuses bools)

    def _uniform(self, shape: tuple[int, ...], low: Any, high: Any, np_dtype: np.dtype[Any]) -> Any:
        generated = np_dtype if np_dtype in (np.float32, np.float64) else np.dtype(np.float64)
        unit = self._rng.random(shape, dtype=generated)
        return (np.asarray(low, generated) + unit * (np.asarray(high, generated) - np.asarray(low, generated))).astype(
            np_dtype, copy=False
        )

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values; for complex dtypes each part has variance 1/2 (the spec refuses other kinds)."""
        dtype = dtype or self.float_type
        np_dtype = to_numpy_dtype(dtype)
        if dtype.kind is complex:
            parts = self._rng.standard_normal((2, *shape)) * np.sqrt(0.5)
            return (parts[0] + 1j * parts[1]).astype(np_dtype)
        generated = np_dtype if np_dtype in (np.float32, np.float64) else np.dtype(np.float64)
        return self._rng.standard_normal(tuple(shape), dtype=generated).astype(np_dtype, copy=False)

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        """`value` with a new shape; -1 infers one size.

        Raises:
            ShapeMismatchError: if the sizes do not fit.
        """
        try:
            if type(value) is np.ndarray and type(shape) is tuple:
                return value.reshape(shape)
            return np.reshape(value, tuple(shape))
        except ValueError as error:
            reraise("reshape", error)

    def flatten(self, x: Tensor) -> Tensor:
        """`x` as a 1-D array."""
        return np.reshape(x, (-1,))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its dimensions permuted to `axes` (the spec checks `axes`)."""
        return np.transpose(tensor, tuple(axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new dimensions of size 1 inserted at `axis` (in `[-ndim - 1, ndim]`)."""
        for _ in range(number):
            a = np.expand_dims(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Stacks equally shaped tensors along a new axis (floats follow a set precision).

        Raises:
            ShapeMismatchError: for tensors of different shapes.
            AxisError: for an axis outside `[-ndim - 1, ndim]`.
        """
        try:
            if len({getattr(v, "dtype", None) for v in values}) > 1:  # mixed dtypes: bk's promotion (the spec), not NumPy's
                values = _promoted(values)
            return to_precision(np.stack(values, axis=axis), get_precision())
        except ValueError as error:
            reraise("stack", error)
        except TypeError:  # ml_dtypes' bfloat16 has no NumPy promotion with other types: bk's
            return to_precision(np.stack(_promoted(values), axis=axis), get_precision())

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """Concatenates tensors along an existing axis (floats follow a set precision).

        Raises:
            ShapeMismatchError: for tensors whose other dimensions differ.
            AxisError: for an axis out of range.
        """
        try:
            if len({getattr(v, "dtype", None) for v in values}) > 1:  # mixed dtypes: bk's promotion (the spec), not NumPy's
                values = _promoted(values)
            return to_precision(np.concatenate(values, axis=axis), get_precision())
        except ValueError as error:
            reraise("concat", error)
        except TypeError:  # ml_dtypes' bfloat16 has no NumPy promotion with other types: bk's
            return to_precision(np.concatenate(_promoted(values), axis=axis), get_precision())

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes."""
        return np.tile(value, tuple(multiples))

    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        """`value` reversed along `axes`, an int or a sequence of ints (a view); `None` reverses every axis.

        Raises:
            AxisError: for an axis out of range or named twice.
        """
        value = np.asarray(value) if not isinstance(value, (np.ndarray, np.generic)) else value
        return np.flip(value, tuple(axes) if isinstance(axes, list) else axes)


def _promoted(values: Sequence[Any]) -> list[np.ndarray]:
    """`values` as arrays of the dtype `bk.combine_types` gives them (bfloat16 with NumPy's types)."""
    arrays = [np.asarray(v) for v in values]
    if not arrays:
        return arrays
    dtype = to_numpy_dtype(combine_types(*[from_numpy_dtype(a.dtype) for a in arrays]))
    return [a.astype(dtype) for a in arrays]


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple: a sequence of ints, or one int (the spec takes both, as NumPy)."""
    return tuple(shape) if isinstance(shape, (tuple, list)) or hasattr(shape, "__iter__") else (operator.index(shape),)
