"""The index rules that need the data or the dtype: which dtypes index, indices in range, `unravel_index`,
`quantile`, `bincount`, counts that must not be negative.

docs/semantics.md, "Indices", "Exceptions" and "NaN": gather-like operations take integer indices
(bool and float indices raise `ArgumentTypeError`; an empty non-integer index such as `[]`, which
converts to floats, is an empty index); negative indices count from the end and one outside
`[-n, n)` raises `IndexOutOfRangeError`, checked on the data wherever it is available (not inside
`jit_compile`, where a framework clamps or drops them); `unravel_index` keeps the dtype of its flat indices and
raises `ValueError` for one outside `[0, size)`; `quantile` interpolates linearly along the last
axis, refuses quantiles outside `[0, 1]` (`ValueError`) and gives NaN for values that hold NaN;
`bincount` counts integers (bools as 0 and 1) and refuses a negative `bins` or a negative value (`ValueError`).

The decisions are functions of `DType`s, shapes and Python (or NumPy) values, shared by the
operation specs and every plugin. `unravel_index` and `quantile` are also composites of catalogue
operations on a `Backend`: a plugin passes its native kernel where it has one (NumPy's
`unravel_index`, `jax.numpy.quantile`) and the composite does everything around it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np

from .._dtype import DType, to_numpy_dtype
from .._errors import ArgumentTypeError, AxisError, IndexOutOfRangeError
from .reductions import check_nonempty

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = [
    "INDEX_OPERATIONS",
    "advanced_index",
    "array_key_layout",
    "check_bincount",
    "check_counted_values",
    "check_flat_index",
    "check_flat_range",
    "check_indices",
    "check_nonnegative",
    "check_quantile_input",
    "extreme",
    "index_axes",
    "index_needs_cast",
    "index_rule",
    "is_array_index",
    "is_mask_index",
    "quantile",
    "quantile_values",
    "unravel_index",
    "unravel_shape",
    "unravel_strides",
    "wrap_indices",
]

Tensor = Any
_INT64: Final = DType(int, 64)


# ---------------------------------------------------------------- which dtypes index


def index_needs_cast(dtype: DType, size: int | None, op: str, name: str = "indices") -> bool:
    """Checks the dtype of the indices of a gather-like operation (`gather`, `gather_1d`, `take`, scatter, ...).

    Args:
        dtype: The indices' dtype.
        size: Their number of elements (`None` if it depends on the data).
        op: The operation, for the message.
        name: The argument, for the message.

    Returns:
        False for integer indices (the kernel takes them as they are); True for empty float indices
        (`[]` converts to floats), which the kernel casts to its integer index type.

    Raises:
        ArgumentTypeError: for bool indices (a framework would read them as a mask, or as 0 and 1),
            float and complex ones.
    """
    if dtype.kind is int:
        return False
    if size == 0 and dtype.kind is float:
        return True
    hint = " (a mask selects with boolean_mask)" if dtype.kind is bool else ""
    raise ArgumentTypeError(f"{op}: {name} must be integers, got {dtype.name}{hint}")


# ---------------------------------------------------------------- indices in range


_HOST_CHECK: Final = 1 << 16
"""Indices of up to this many elements are checked on the host (one copy, no reductions); more are
reduced on their device (`min` and `max`: only the extremes come to the host)."""


def check_indices(backend: Backend, indices: Tensor, sizes: int | Sequence[int], op: str, what: str = "index", negative: bool = True) -> None:
    """Raises `IndexOutOfRangeError` for an integer index outside its dimension, as NumPy's indexing.

    Checked where the data is available; inside `jit_compile` (tracers, graph nodes) nothing is
    checked, and the framework does what it does with an index outside (JAX clamps `gather` and
    drops `scatter`). Small indices are checked on the host (one copy); large ones by their `min`
    and `max` on their device, so only the extremes come to the host.

    Args:
        backend: The backend of `indices`.
        indices: A native tensor of integers.
        sizes: The size of the dimension every index points into (an int), or one size per entry
            of the last axis of `indices` (`(..., d)` index vectors into `d` dimensions).
        op: The operation, for the message.
        what: What an index is called in the message (`"index"`, `"segment start"`, `"batch"`).
        negative: Whether negative indices count from the end (valid range `[-n, n)`); False for
            `[0, n)` (the segment starts of `indexed_segment_sum`).
    """
    _range_checked(backend, indices, sizes, op, what, negative)


def _range_checked(backend: Backend, indices: Tensor, sizes: int | Sequence[int], op: str, what: str, negative: bool) -> tuple[Any, np.ndarray | None]:
    """`check_indices`; returns the smallest index (per dimension for index vectors) and the indices on
    the host where they were copied there, or `(None, None)` where the data is not available or there
    is none."""
    shape: tuple[Any, ...] = tuple(backend.staticshape(indices))
    if None in shape or not math.prod(shape) or not backend.is_available(indices):
        return None, None
    vector = not isinstance(sizes, (int, np.integer))
    limits = np.asarray(tuple(sizes) if vector else int(sizes), np.int64)  # type: ignore[arg-type]
    axes = tuple(range(len(shape) - 1)) if vector else None
    host = None
    if isinstance(indices, np.ndarray) or math.prod(shape) <= _HOST_CHECK or not (backend.supports("min") and backend.supports("max")):
        host = np.asarray(backend.numpy(indices))
        low, high = host.min(axis=axes), host.max(axis=axes)
    else:
        low = np.asarray(backend.numpy(backend.min(indices, axes)))
        high = np.asarray(backend.numpy(backend.max(indices, axes)))
    if not vector:  # Python ints compare fastest
        low, high, size = int(low), int(high), int(sizes)  # type: ignore[arg-type]
        if low >= (-size if negative else 0) and high < size:
            return low, host
    elif np.all(low >= (-limits if negative else 0)) and np.all(high < limits):
        return low, host
    host = np.asarray(backend.numpy(indices)) if host is None else host
    bounds = np.broadcast_to(limits, host.shape)
    where = tuple(int(i) for i in np.argwhere((host < (-bounds if negative else 0)) | (host >= bounds))[0])
    size, value = int(bounds[where]), int(host[where])
    valid = f"-{size}..{size - 1}" if negative else f"0..{size - 1}"
    raise IndexOutOfRangeError(f"{op}: {what} {value} is out of range for a dimension of size {size} (valid: {valid})")


def wrap_indices(backend: Backend, indices: Tensor, sizes: int | Sequence[int], op: str, what: str = "index") -> Tensor:
    """Integer `indices` into dimensions of `sizes` with negative ones counted from the end, as NumPy.

    Checks them first (`check_indices`: `IndexOutOfRangeError` for one outside `[-n, n)` where the
    data is available). Returns `indices` itself when the data shows no negative one, else
    `where(indices < 0, indices + n, indices)` in the indices' dtype (int64 where that cannot hold
    `n`); bounds of index vectors are built in that dtype too, so a backend with 64-bit types
    switched off (JAX) keeps them off.

    Args:
        backend: The backend of `indices`.
        indices: A native tensor of integers.
        sizes: The size of the dimension every index points into, or one size per entry of the last
            axis of `indices`.
        op: The operation, for the message.
        what: What an index is called in the message.
    """
    low, host = _range_checked(backend, indices, sizes, op, what, True)
    dtype = backend.dtype(indices)
    if not dtype.signed or (low is not None and np.all(low >= 0)):
        return indices
    shape: tuple[Any, ...] = tuple(backend.staticshape(indices))
    if None not in shape and not math.prod(shape):
        return indices
    vector = not isinstance(sizes, (int, np.integer))
    largest = max(tuple(sizes), default=0) if vector else int(sizes)  # type: ignore[arg-type]
    if largest > (1 << (int(dtype.bits or 64) - 1)) - 1:
        dtype = _INT64
    limits = np.asarray(tuple(sizes) if vector else int(sizes), to_numpy_dtype(dtype))  # type: ignore[arg-type]
    if host is not None:  # small indices, on the host already: wrapped there, one copy back
        return _like(backend, np.where(host < 0, host + limits, host).astype(to_numpy_dtype(dtype), copy=False), indices)
    if dtype != backend.dtype(indices):
        indices = backend.cast(indices, dtype)
    high = _like(backend, limits, indices) if vector else int(sizes)  # type: ignore[arg-type]
    return backend.where(backend.greater_than(0, indices), backend.cast(backend.add(indices, high), dtype), indices)


def check_nonnegative(backend: Backend, x: Tensor, op: str, what: str) -> None:
    """Raises `ValueError` for a negative number among the integers `x` (`repeat`'s repeats, the
    values `bincount` counts), as NumPy.

    Checked where the data is available (not inside `jit_compile`, where a backend cannot raise on values).

    Args:
        backend: The backend of `x`.
        x: A native tensor of integers.
        op: The operation, for the message.
        what: What `x` is, for the message (`"repeats"`, `"values"`).
    """
    shape: tuple[Any, ...] = tuple(backend.staticshape(x))
    if None in shape or not math.prod(shape) or not backend.dtype(x).signed or not backend.is_available(x):
        return
    low = extreme(backend, x, "min")
    if low < 0:
        raise ValueError(f"{op}: {what} must be 0 or more, got {low}")


# ---------------------------------------------------------------- NumPy's advanced indexing


def is_array_index(item: Any) -> bool:
    """Whether `item` in an index tuple indexes as an array (NumPy's advanced indexing): a tensor or
    array of 1 dimension or more, a bool (of any rank, Python's `True` and `False` too), or a list or
    tuple (NumPy reads a sequence inside an index tuple as an array). Python ints, slices, None, `...`
    and 0-d integer tensors are basic indices."""
    if isinstance(item, (list, tuple, bool)):
        return True
    shape = getattr(item, "shape", None)
    if shape is None or isinstance(item, (int, float, complex)):
        return False
    try:
        return len(shape) > 0 or is_mask_index(item)
    except TypeError:  # a shape of unknown rank
        return True


def is_mask_index(item: Any) -> bool:
    """Whether `item` in an index tuple is a mask: a tensor or array of bools (of any framework: its
    dtype's name ends in `bool`, as `bool`, `torch.bool` or TensorFlow's `<dtype: 'bool'>`), a Python
    bool, or a list or tuple of bools."""
    if isinstance(item, bool):
        return True
    if isinstance(item, (list, tuple)):
        return _sequence_kind(item) == "b"
    return getattr(item, "shape", None) is not None and "bool" in str(getattr(item, "dtype", ""))


def _sequence_kind(item: Any) -> str:
    """The NumPy dtype kind of a list or tuple index (`'O'` where NumPy cannot read it as one array)."""
    try:
        return str(np.asarray(item).dtype.kind)
    except (ValueError, TypeError):
        return "O"


def index_axes(item: Any) -> int:
    """How many axes of the indexed tensor `item` of an index tuple takes: none for None and `...`
    (which takes what is left), as many as a mask has (none for a 0-d mask, which adds an axis, as
    in NumPy), else 1."""
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, slice) or type(item) is int or not is_mask_index(item):
        return 1
    return len(item.shape) if hasattr(item, "shape") else int(np.ndim(item))


def array_key_layout(key: Any) -> tuple[int, bool]:
    """How `key` uses NumPy's advanced indexing: the number of array indices in it (`is_array_index`),
    and whether they and the ints among them stand together (then frameworks that read ints as basic
    indices, as PyTorch and dask, place the arrays' axes where NumPy does; apart, NumPy puts them first)."""
    items = key if isinstance(key, tuple) else (key,)
    arrays = [k for k, i in enumerate(items) if is_array_index(i)]
    if not arrays:
        return 0, True
    joined = [k for k, i in enumerate(items) if k in arrays or (i is not None and i is not Ellipsis and not isinstance(i, slice))]
    return len(arrays), joined == list(range(joined[0], joined[0] + len(joined)))


def advanced_index(backend: Backend, x: Tensor, key: Any, basic: Callable[[Tensor, tuple[Any, ...]], Tensor], op: str = "multi_slice") -> Tensor:
    """`x[key]` as NumPy indexes, for frameworks whose own indexing takes only basic indices.

    `key` may mix slices, ints, None, `...` and integer or bool tensors (or NumPy arrays). The integer
    arrays broadcast together and select elements; their axes go where the first array stood when
    the arrays (and the ints among them) are adjacent, else first, as NumPy. Bool arrays select where
    they are true (their indices come from the data, so inside `jit_compile` only integer arrays work).

    For a kernel behind the spec's verdict, which the core gives before every kernel of `multi_slice`
    (too many indices, a mask of the wrong shape, float indices). A composite: `basic` (the
    framework's own `x[key]` for slices only) slices first, then the
    selected axes are moved to the front (`transpose`), flattened into one (`reshape`) and gathered
    at the flat index of each selected element (`gather`); indices are checked and wrapped by
    `wrap_indices`.

    Args:
        backend: The backend of `x`.
        x: A native tensor.
        key: The index: one item or a tuple.
        basic: `basic(x, slices)` indexes `x` with a tuple of slices, one per axis.
        op: The operation, for messages.

    Raises:
        IndexOutOfRangeError: for an index outside its dimension (the data).
    """
    items = key if isinstance(key, tuple) else (key,)
    if not any(is_array_index(i) for i in items):
        return basic(x, items)
    rank = len(backend.staticshape(x))
    consumed = sum(index_axes(i) for i in items)
    if not any(i is Ellipsis for i in items):
        items = (*items, Ellipsis)
    parts: list[Any] = []  # one entry per axis of x once the new axes (None) are inserted
    new_axes: list[int] = []
    for item in items:
        if item is Ellipsis:
            parts.extend([slice(None)] * (rank - consumed))
        elif item is None:
            new_axes.append(len(parts))
            parts.append(slice(None))
        elif is_mask_index(item):
            mask = np.asarray(item if isinstance(item, (np.ndarray, np.generic, bool, list, tuple)) else backend.numpy(item))
            if mask.ndim == 0:  # a 0-d mask adds an axis of 1 and keeps it (true) or none of it (false), as NumPy
                new_axes.append(len(parts))
                parts.append(np.zeros(1 if mask else 0, np.int64))
            else:
                parts.extend(np.nonzero(mask))
        else:
            parts.append(item)
    for axis in new_axes:
        x = backend.expand_dims(x, axis)
    y = basic(x, tuple(p if isinstance(p, slice) else slice(None) for p in parts))
    shape: tuple[Any, ...] = tuple(backend.staticshape(y))
    chosen = [k for k, p in enumerate(parts) if not isinstance(p, slice)]
    flat: Any = 0
    stride = 1
    for k in reversed(chosen):
        index, size = parts[k], shape[k]
        if isinstance(index, np.ndarray) or not backend.is_tensor(index, only_native=True):
            index = _like(backend, np.asarray(index, np.int64), y)
        else:  # a tensor of indices may live elsewhere (on the host, for a GPU tensor), as NumPy's do
            index = _on_device_of(backend, backend.cast(index, _INT64), y)
        index = wrap_indices(backend, index, size, op)
        term = index if stride == 1 else backend.mul(index, stride)
        flat = term if type(flat) is int and flat == 0 else backend.add(term, flat)
        stride *= size
    rest = [k for k in range(len(shape)) if k not in chosen]
    order = chosen + rest
    moved = backend.transpose(y, order) if order != list(range(len(shape))) else y
    result = backend.gather(backend.reshape(moved, (stride, *(shape[k] for k in rest))), flat, 0)
    if chosen == list(range(chosen[0], chosen[0] + len(chosen))) and chosen[0] > 0:  # adjacent: the broadcast axes go where they stood
        selected = len(backend.staticshape(result)) - len(rest)
        at = chosen[0]
        result = backend.transpose(result, [*range(selected, selected + at), *range(selected), *range(selected + at, selected + len(rest))])
    return result


# ---------------------------------------------------------------- unravel_index


def check_flat_index(dtype: DType, op: str = "unravel_index") -> None:
    """Raises `ArgumentTypeError` for flat indices that are not integers (bool included, as NumPy)."""
    if dtype.kind is not int:
        raise ArgumentTypeError(f"{op}: flat indices must be integers, got {dtype.name}")


def unravel_shape(shape: Any, op: str = "unravel_index") -> tuple[int, ...]:
    """The shape argument as a tuple of ints.

    Raises:
        ArgumentTypeError: for a size that is not an int.
        ValueError: for a negative size.
    """
    try:
        sizes = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ArgumentTypeError(f"{op}: shape must be a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in sizes):
        raise ValueError(f"{op}: sizes must be 0 or more, got shape {sizes}")
    return sizes


def unravel_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The C-order strides (in elements) of an array of `shape`: `(12, 4, 1)` for `(2, 3, 4)`."""
    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))


def check_flat_range(low: int, high: int, shape: Sequence[int], op: str = "unravel_index") -> None:
    """Raises `ValueError` when the smallest or largest flat index lies outside `[0, prod(shape))`."""
    size = math.prod(shape)
    if low < 0 or high >= size:
        bad = low if low < 0 else high
        raise ValueError(f"{op}: index {bad} is out of bounds for an array of size {size} (shape {tuple(shape)}); flat indices must lie in [0, {size})")


def unravel_index(backend: Backend, flat_index: Tensor, shape: Any, kernel: Callable[[Tensor, tuple[int, ...]], Tensor] | None = None) -> Tensor:
    """`unravel_index` on any backend: the multi-indices `(..., len(shape))` of flat indices, in their dtype.

    Args:
        backend: The backend of `flat_index`.
        flat_index: A native integer tensor.
        shape: The indexed array's shape.
        kernel: The framework's own `(flat_index, shape) -> (..., len(shape))` stack of indices, called
            on checked indices; without it the composite computes them with `floordiv` and `mod`.

    Raises:
        ArgumentTypeError: for indices that are not integers.
        ValueError: for a flat index outside `[0, prod(shape))`, where the data is available (not
            inside `jit_compile`).
    """
    dtype = backend.dtype(flat_index)
    check_flat_index(dtype)
    sizes = unravel_shape(shape)
    index_shape: tuple[Any, ...] = tuple(backend.staticshape(flat_index))
    wide = flat_index if dtype == _INT64 else backend.cast(flat_index, _INT64)  # strides may not fit a narrow dtype
    count = None if None in index_shape else math.prod(index_shape)
    if count and backend.is_available(flat_index):
        check_flat_range(extreme(backend, wide, "min"), extreme(backend, wide, "max"), sizes)
    if not sizes:  # no axes: one empty multi-index per flat index
        return backend.zeros((*index_shape, 0), dtype)
    if kernel is not None:
        result = kernel(flat_index, sizes)
    else:
        parts = [backend.mod(backend.floordiv(wide, stride), max(n, 1)) for stride, n in zip(unravel_strides(sizes), sizes, strict=True)]
        result = backend.stack(parts, -1)
    return result if backend.dtype(result) == dtype else backend.cast(result, dtype)


# ---------------------------------------------------------------- quantile


def check_quantile_input(dtype: DType, shape: Sequence[int | None], op: str = "quantile") -> None:
    """The values' part of the quantile rule.

    Raises:
        AxisError: for a 0-d tensor, which has no last axis.
        ArgumentTypeError: for complex values, which have no order.
        ValueError: for an empty last axis, whose quantiles are undefined.
    """
    if len(shape) == 0:
        raise AxisError(f"{op}: a 0-d tensor has no last axis to take quantiles along")
    if dtype.kind is complex:
        raise ArgumentTypeError(f"{op}: complex values have no order; take abs() or real() first")
    check_nonempty(op, shape, (len(shape) - 1,))  # an empty last axis has no quantiles


def quantile_values(quantiles: Any, op: str = "quantile") -> np.ndarray:
    """Concrete quantiles (a Python number, a list, a NumPy array) as float64, checked.

    Raises:
        ValueError: for a quantile outside `[0, 1]` or NaN, as `numpy.quantile`.
    """
    q = np.asarray(quantiles, dtype=np.float64)
    if q.size and not (q.min() >= 0 and q.max() <= 1):  # NaN fails both comparisons
        raise ValueError(f"{op}: quantiles must lie in [0, 1], got {q.tolist()}")
    return q


def quantile(backend: Backend, x: Tensor, quantiles: Any, kernel: Callable[[Tensor, Any], Tensor] | None = None) -> Tensor:
    """`quantile` on any backend: linear interpolation along the last axis, shaped `quantiles.shape + x.shape[:-1]`.

    Bool and integer values give the default float; floats keep their dtype (or take the set
    precision); a row that holds NaN gives NaN.

    Args:
        backend: The backend of `x`.
        x: A native tensor.
        quantiles: A number, a sequence, a NumPy array or a native tensor (traced tensors are not checked).
        kernel: The framework's own `(x, q) -> (len(q), *x.shape[:-1])` for float `x` and 1-D `q`
            (float64 NumPy values, or a native tensor where they are traced), called on checked
            input; it may return `NotImplemented` for input the framework cannot take. Without it
            (or then) the composite sorts and interpolates.

    Raises:
        AxisError, ArgumentTypeError, ValueError: see `check_quantile_input` and `quantile_values`.
    """
    shape: tuple[Any, ...] = tuple(backend.staticshape(x))
    check_quantile_input(backend.dtype(x), shape)
    x = backend.to_float(x)
    dtype = backend.dtype(x)
    native = backend.is_tensor(quantiles, only_native=True) and not isinstance(quantiles, np.ndarray)
    q_shape: tuple[Any, ...]
    host: np.ndarray | None
    if native and not backend.is_available(quantiles):
        q_shape, host = tuple(backend.staticshape(quantiles)), None
        flat: Any = backend.reshape(quantiles, (-1,))
    else:
        host = quantile_values(backend.numpy(quantiles) if native else quantiles)
        q_shape, flat = host.shape, host.reshape(-1)
    result = NotImplemented if kernel is None else kernel(x, flat)
    if result is NotImplemented:
        result = _interpolated(backend, x, flat, host is not None)
    result = backend.reshape(result, (*q_shape, *shape[:-1]))
    return result if backend.dtype(result) == dtype else backend.cast(result, dtype)


def _interpolated(backend: Backend, x: Tensor, q: Any, concrete: bool) -> Tensor:
    """Linear-interpolation quantiles `(len(q), *x.shape[:-1])` of float `x` along its last axis."""
    dtype = backend.dtype(x)
    n: int = tuple(backend.staticshape(x))[-1]  # type: ignore[assignment]  # checked non-empty; lazy sizes never reach here
    if concrete:  # positions on the host, in float64
        position = np.asarray(q, np.float64) * (n - 1)
        below = np.floor(position)
        low: Any = _like(backend, below.astype(np.int64), x)
        high: Any = _like(backend, np.minimum(below.astype(np.int64) + 1, n - 1), x)
        fraction: Any = backend.cast(_like(backend, position - below, x), dtype)
    else:  # traced quantiles: the same arithmetic on the device
        wide = DType(float, 64) if type(backend).float64_supported else DType(float, 32)
        position = backend.mul(backend.cast(q, wide), n - 1)
        below = backend.floor(position)
        low = backend.cast(below, _INT64)
        high = backend.minimum(backend.add(low, 1), n - 1)
        fraction = backend.cast(backend.sub(position, below), dtype)
    ordered = backend.sort(x, -1)
    lower = backend.gather(ordered, low, -1)
    upper = backend.gather(ordered, high, -1)
    result = backend.add(lower, backend.mul(backend.sub(upper, lower), fraction))
    if dtype.kind is float:  # NaN anywhere in a row makes its quantiles NaN, as NumPy
        result = backend.where(backend.any(backend.isnan(x), -1, keepdims=True), float("nan"), result)
    return backend.moveaxis(result, -1, 0)


def _like(backend: Backend, values: np.ndarray, like: Tensor) -> Tensor:
    """Host values as a tensor on the device of `like`."""
    return _on_device_of(backend, backend.as_tensor(values), like)


def _on_device_of(backend: Backend, tensor: Tensor, like: Tensor) -> Tensor:
    """`tensor` on the device of `like` (moved where the backend can move tensors)."""
    device = backend.get_device(like)
    if backend.get_device(tensor) != device and backend.supports("allocate_on_device"):
        tensor = backend.allocate_on_device(tensor, device)
    return tensor


# ---------------------------------------------------------------- bincount


def check_bincount(dtype: DType, bins: Any, op: str = "bincount") -> int:
    """The checks of `bincount`'s (and `batched_bincount`'s) arguments that need no data; returns `bins` as an int.

    Raises:
        ArgumentTypeError: for values that are neither integers nor bools (which count as 0 and 1, as in
            `numpy.bincount`), or `bins` that is not an int.
        ValueError: for a negative `bins`.
    """
    if dtype.kind not in (bool, int):
        raise ArgumentTypeError(f"{op}: x must hold integers (or bools), got {dtype.name}")
    if isinstance(bins, bool):
        raise ArgumentTypeError(f"{op}: bins must be an int, got bool {bins!r}")
    try:
        count = operator.index(bins)
    except TypeError:
        raise ArgumentTypeError(f"{op}: bins must be an int, got {type(bins).__name__} {bins!r}") from None
    if count < 0:
        raise ValueError(f"{op}: bins must be 0 or more, got {bins}")
    return count


def check_counted_values(backend: Backend, x: Tensor, op: str = "bincount") -> None:
    """Raises `ValueError` for a negative value among the integers `x` to count, as `numpy.bincount`
    (`check_nonnegative`)."""
    check_nonnegative(backend, x, op, "the values to count")


def extreme(backend: Backend, x: Tensor, reduction: str) -> int:
    """The smallest (`'min'`) or largest (`'max'`) of the integers `x` (not empty, its data available): a
    reduction where the backend has one (only the number comes to the host), else on the host."""
    if not isinstance(x, np.ndarray) and backend.supports(reduction):
        return int(backend.numpy(getattr(backend, reduction)(x)))
    return int(getattr(np.asarray(backend.numpy(x)), reduction)())


_INDEX_LAYOUTS: Final = {
    # op: (the tensor indexed, the indices, which axes of the indexed tensor the index vectors point into)
    "gather": ("values", "indices", "axis"),
    "gather_1d": ("values", "indices", slice(0, 1)),
    "take_along_axis": ("x", "indices", "axis"),
    "batched_gather_1d": ("values", "indices", slice(1, 2)),
    "gather_nd": ("values", "indices", slice(0, -1)),
    "batched_gather_nd": ("values", "indices", slice(1, -1)),
    "scatter": ("base_grid", "indices", slice(1, -1)),
    "scatter_nd": ("base_grid", "indices", slice(0, -1)),
    "scatter_1d_scalar": ("base_grid", "indices", slice(0, 1)),
    "scatter_nd_scalar": ("base_grid", "indices", slice(0, None)),
    "indexed_segment_sum": ("x", "indices", "axis"),
}
"""Where each gather and scatter takes its indices from: the data rule the core checks before the kernel."""

INDEX_OPERATIONS: Final = frozenset(_INDEX_LAYOUTS)
"""The gathers and scatters whose indices the core checks before the kernel, unless a backend lists them in
`Backend.checked_indices`."""


def index_rule(op: str, arguments: Mapping[str, Any]) -> tuple[str, int | tuple[int, ...], bool] | None:
    """`(argument, sizes, negative)` of the data rule of `op`'s indices (docs/semantics.md): the name of the indices
    argument, the size of the dimension each index points into (one per entry of the last axis for index
    vectors), and whether negative indices count from the end (all but `indexed_segment_sum`'s starts); None
    where `op` has no such rule or a size is unknown. `arguments` are the call's bound templates (shapes)."""
    layout = _INDEX_LAYOUTS.get(op)
    if layout is None:
        return None
    source, name, where = layout
    shape = getattr(arguments.get(source), "shape", None)
    if shape is None or name not in arguments:
        return None
    if where == "axis":
        axis = arguments.get("axis")
        if type(axis) is not int or not -len(shape) <= axis < len(shape):
            return None
        sizes: Any = shape[axis]
    else:
        span = cast(slice, where)  # every layout but "axis" is a slice
        picked = tuple(shape[span])
        single = isinstance(span.stop, int) and span.stop > 0 and span.stop - span.start == 1  # one index per entry, not vectors
        sizes = picked[0] if single and picked else picked
    if sizes is None or (isinstance(sizes, tuple) and (not sizes or None in sizes)):
        return None
    return name, sizes, op != "indexed_segment_sum"
