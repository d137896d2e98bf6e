"""Specs of shape manipulation: reshape, transpose, stacking, tiling, padding, flipping, slicing."""

from __future__ import annotations

import math
import operator
from typing import Any, Final

from .._axes import normalize_axes, normalize_axis
from .._errors import ArgumentTypeError, AxisError, IndexOutOfRangeError, ShapeMismatchError
from .._rules.indices import index_axes, is_array_index
from ._base import (
    ShapeDtype,
    as_operand,
    broadcast_shapes,
    check_kinds,
    int_argument,
    promote,
    specifies,
    strong,
)

Tensor = Any
Axis = Any
Axes = Any
Shape = Any

_KEEP: Final = "The dtype is the input's."


def _product(sizes: Any) -> int | None:
    if 0 in sizes:
        return 0
    if None in sizes:
        return None
    return int(math.prod(sizes))


# ---------------------------------------------------------------- reshape, transpose, expand_dims


@specifies(
    "reshape",
    f"value with a new shape of the same size; one size may be -1 and is inferred (unknown when a size of value is unknown). Sizes that do not fit raise ShapeMismatchError; two -1 or another negative size ValueError. {_KEEP}",
)
def _reshape(value: Tensor, shape: Shape) -> ShapeDtype:
    x = strong(value, "reshape", "value")
    items = (shape,) if not hasattr(shape, "__iter__") else tuple(shape)
    sizes = [int_argument(s, "reshape", "shape") for s in items]
    if sum(1 for s in sizes if s == -1) > 1:
        raise ValueError(f"reshape: only one size may be -1, got shape {tuple(sizes)}")
    if any(s < -1 for s in sizes):
        raise ValueError(f"reshape: negative size in shape {tuple(sizes)}; only -1 (infer the size) is allowed")
    total = _product(x.shape)
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if total is None:
            return ShapeDtype(tuple(None if s == -1 else s for s in sizes), x.dtype)
        if known == 0 or total % known:
            raise ShapeMismatchError(f"reshape: cannot reshape a tensor of shape {x.shape} (size {total}) into shape {tuple(sizes)}")
        return ShapeDtype(tuple(total // known if s == -1 else s for s in sizes), x.dtype)
    if total is not None and total != known:
        raise ShapeMismatchError(f"reshape: cannot reshape a tensor of shape {x.shape} (size {total}) into shape {tuple(sizes)}")
    return ShapeDtype(tuple(sizes), x.dtype)


@specifies("flatten", f"x as a 1-D tensor of all its elements (C order). {_KEEP}")
def _flatten(x: Tensor) -> ShapeDtype:
    operand = strong(x, "flatten", "x")
    return ShapeDtype((_product(operand.shape),), operand.dtype)


@specifies(
    "transpose",
    f"tensor with its dimensions permuted: result axis i is input axis axes[i] (negative from the end). An axis out of range or named twice, or a permutation of the wrong length, raises AxisError. {_KEEP}",
)
def _transpose(tensor: Tensor, axes: Axes) -> ShapeDtype:
    x = strong(tensor, "transpose", "tensor")
    if not hasattr(axes, "__iter__") or isinstance(axes, str):
        raise ArgumentTypeError(f"transpose: axes must be a sequence of ints (a permutation), got {type(axes).__name__} {axes!r}")
    items = tuple(axes)
    order = [normalize_axis(a, x.ndim, "transpose") for a in items]
    if len(set(order)) != len(order):
        raise AxisError(f"transpose: repeated axis in {items}")
    if len(order) != x.ndim:
        raise AxisError(f"transpose: axes {items} do not match a tensor of rank {x.ndim}; name every axis once")
    return ShapeDtype(tuple(x.shape[a] for a in order), x.dtype)


@specifies(
    "expand_dims",
    f"a with number new dimensions of size 1 inserted at axis (in [-ndim - 1, ndim]; AxisError outside). A negative number raises ValueError. {_KEEP}",
)
def _expand_dims(a: Tensor, axis: Axis = 0, number: int = 1) -> ShapeDtype:
    x = strong(a, "expand_dims", "a")
    number = int_argument(number, "expand_dims", "number")
    if number < 0:
        raise ValueError(f"expand_dims: number must be 0 or more, got {number}")
    position = normalize_axis(axis, x.ndim + 1, "expand_dims")
    return ShapeDtype((*x.shape[:position], *(1,) * number, *x.shape[position:]), x.dtype)


# ---------------------------------------------------------------- stack, concat, unstack


def _operands(values: Any, op: str) -> list[ShapeDtype]:
    if values is None or isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or hasattr(values, "dtype"):
        raise ArgumentTypeError(f"{op}: values must be a sequence of tensors, got {type(values).__name__}")
    operands = [strong(v, op, f"values[{i}]") for i, v in enumerate(values)]
    if not operands:
        raise ValueError(f"{op}: needs at least one tensor")
    return operands


def _same_size(sizes: list[int | None]) -> bool:
    known = {s for s in sizes if s is not None}
    return len(known) <= 1


@specifies(
    "stack",
    "Stacks tensors of one shape along a new axis (in [-ndim - 1, ndim]). The dtype is their common type (bk.combine_types; floats take the set precision). Different shapes raise ShapeMismatchError, an axis out of range AxisError, no tensors ValueError.",
)
def _stack(values: Any, axis: Axis = 0) -> ShapeDtype:
    operands = _operands(values, "stack")
    shapes = [o.shape for o in operands]
    if len({len(s) for s in shapes}) > 1 or not all(_same_size(list(sizes)) for sizes in zip(*shapes, strict=False)):
        raise ShapeMismatchError(f"stack: all tensors must have the same shape, got {', '.join(str(s) for s in shapes)}")
    shape = tuple(next((n for n in sizes if n is not None), None) for sizes in zip(*shapes, strict=False))
    position = normalize_axis(axis, len(shape) + 1, "stack")
    return ShapeDtype((*shape[:position], len(operands), *shape[position:]), promote("stack", operands))


@specifies(
    "concat",
    "Concatenates tensors along an existing axis; the other sizes must match (ShapeMismatchError), as must the ranks. The dtype is their common type (bk.combine_types; floats take the set precision). 0-d tensors have no axis: AxisError; no tensors: ValueError.",
)
def _concat(values: Any, axis: Axis) -> ShapeDtype:
    operands = _operands(values, "concat")
    ndim = operands[0].ndim
    if any(o.ndim != ndim for o in operands):
        raise ShapeMismatchError(f"concat: all tensors must have the same rank, got shapes {', '.join(str(o.shape) for o in operands)}")
    position = normalize_axis(axis, ndim, "concat")
    shape: list[int | None] = []
    for i, sizes in enumerate(zip(*(o.shape for o in operands), strict=True)):
        if i == position:
            shape.append(None if None in sizes else sum(n for n in sizes if n is not None))
        elif not _same_size(list(sizes)):
            raise ShapeMismatchError(f"concat: sizes along axis {i} differ: shapes {', '.join(str(o.shape) for o in operands)}")
        else:
            shape.append(next((n for n in sizes if n is not None), None))
    return ShapeDtype(tuple(shape), promote("concat", operands))


@specifies(
    "unstack",
    f"A tuple of the slices of tensor along axis (shape without that axis, or with size 1 if keepdims), one per element of that axis (its size must be known). An axis out of range raises AxisError. {_KEEP}",
)
def _unstack(tensor: Tensor, axis: Axis = 0, keepdims: bool = False) -> tuple[ShapeDtype, ...]:
    x = strong(tensor, "unstack", "tensor")
    position = normalize_axis(axis, x.ndim, "unstack")
    count = x.shape[position]
    if count is None:
        raise ValueError(f"unstack: the size of axis {axis} of shape {x.shape} is unknown, so the number of slices is")
    part = ShapeDtype((*x.shape[:position], *((1,) if keepdims else ()), *x.shape[position + 1 :]), x.dtype)
    return (part,) * count


# ---------------------------------------------------------------- tile, repeat, pad, flip


@specifies(
    "tile",
    f"Repeats the whole tensor multiples[i] times along axis i; fewer multiples than axes apply to the last axes, extra multiples add outer axes (numpy.tile). A negative multiple raises ValueError. {_KEEP}",
)
def _tile(value: Tensor, multiples: Shape) -> ShapeDtype:
    x = strong(value, "tile", "value")
    reps = [int_argument(m, "tile", "multiples") for m in (multiples if hasattr(multiples, "__iter__") else (multiples,))]
    if any(m < 0 for m in reps):
        raise ValueError(f"tile: multiples must be 0 or more, got {tuple(reps)}")
    rank = max(len(reps), x.ndim)
    reps = [1] * (rank - len(reps)) + reps
    shape = (1,) * (rank - x.ndim) + x.shape
    return ShapeDtype(tuple(None if n is None else n * m for n, m in zip(shape, reps, strict=True)), x.dtype)


@specifies(
    "tile_to",
    f"Tiles x along axis until it has size elements there; size must be a multiple of the current size (ValueError otherwise); an axis out of range raises AxisError. {_KEEP}",
)
def _tile_to(x: Tensor, axis: Axis, size: int) -> ShapeDtype:
    operand = strong(x, "tile_to", "x")
    position = normalize_axis(axis, operand.ndim, "tile_to")
    current = operand.shape[position]
    size = int_argument(size, "tile_to", "size")
    if current is not None and current != size and (not current or size % current):
        raise ValueError(f"tile_to: cannot tile size {current} to {size} along axis {axis}; the size must be a multiple")
    return ShapeDtype(tuple(size if i == position else n for i, n in enumerate(operand.shape)), operand.dtype)


@specifies(
    "repeat",
    f"Repeats each element along axis repeats[i] times (an int repeats all alike). The size along axis is new_length when given, else known only for an int or a list of repeats (it depends on a tensor's values). An axis out of range raises AxisError, a repeats list of the wrong length ValueError, repeats that are no ints (a Python float or bool, a bool or float tensor) ArgumentTypeError. {_KEEP}",
)
def _repeat(x: Tensor, repeats: Any, axis: Axis, new_length: int | None = None) -> ShapeDtype:
    operand = strong(x, "repeat", "x")
    position = normalize_axis(axis, operand.ndim, "repeat")
    size = operand.shape[position]
    if new_length is not None:
        length: int | None = int_argument(new_length, "repeat", "new_length")
    elif type(repeats) is int:
        if repeats < 0:
            raise ValueError(f"repeat: repeats must be 0 or more, got {repeats}")
        length = None if size is None else size * repeats
    elif isinstance(repeats, (list, tuple)) and all(type(r) is int for r in repeats):
        if size is not None and len(repeats) not in (1, size):
            raise ValueError(f"repeat: {len(repeats)} repeats for an axis of size {size}")
        if any(r < 0 for r in repeats):
            raise ValueError(f"repeat: repeats must be 0 or more, got {repeats}")
        if len(repeats) == 1:
            length = None if size is None else size * repeats[0]
        else:
            length = sum(repeats)
    else:
        counts = as_operand(repeats, "repeat", "repeats")
        if not isinstance(counts, ShapeDtype):  # a Python float, complex or bool: frameworks truncate, refuse or count it
            raise ArgumentTypeError(f"repeat: repeats must be an int, a sequence of ints or an integer tensor, got {type(repeats).__name__} {repeats!r}")
        check_kinds("repeat", counts.dtype, frozenset({int}), "repeats")  # the standard: an integer array (TensorFlow has no bool repeats)
        if counts.ndim > 1 or (counts.ndim == 1 and size is not None and counts.shape[0] not in (1, size, None)):
            raise ValueError(f"repeat: repeats of shape {counts.shape} for an axis of size {size}")
        length = None
    return ShapeDtype(tuple(length if i == position else n for i, n in enumerate(operand.shape)), operand.dtype)


_PAD_MODES: Final = ("constant", "boundary", "periodic", "circular", "symmetric", "reflect")


def _pad_widths(pad_width: Any, ndim: int, op: str) -> list[tuple[int, int]]:
    try:
        pairs = [tuple(pair) for pair in pad_width]
    except TypeError:
        raise ArgumentTypeError(f"{op}: pad_width must hold one (lower, upper) pair per axis, got {pad_width!r}") from None
    if len(pairs) != ndim or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{op}: pad_width must hold {ndim} (lower, upper) pairs, one per axis, got {pad_width!r}")
    widths = [(int_argument(lo, op, "pad_width"), int_argument(hi, op, "pad_width")) for lo, hi in pairs]
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError(f"{op}: pad widths must be 0 or more, got {pad_width!r}")
    return widths


@specifies(
    "pad",
    f"Pads every axis i by pad_width[i] = (lower, upper): the size grows by lower + upper; a 0-d tensor takes no pairs and is returned as it is. Modes: 'constant' (with constant_values), 'boundary', 'periodic' (or 'circular'), 'symmetric', 'reflect'; another mode raises ValueError, widths of the wrong count or negative ValueError, and so does widening an empty axis in a mode other than 'constant'. {_KEEP}",
)
def _pad(value: Tensor, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> ShapeDtype:
    x = strong(value, "pad", "value")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: unknown mode {mode!r}; use one of {', '.join(repr(m) for m in _PAD_MODES)}")
    widths = _pad_widths(pad_width, x.ndim, "pad")  # a 0-d tensor takes no pairs (`()`), and is returned as it is
    _python_int_fits("pad", "constant_values", constant_values, x.dtype)
    if mode != "constant":
        for axis, (n, (lo, hi)) in enumerate(zip(x.shape, widths, strict=True)):
            if n == 0 and (lo or hi):
                raise ValueError(f"pad: cannot extend the empty axis {axis} in mode {mode!r} (there is nothing to repeat); use mode 'constant'")
    return ShapeDtype(tuple(None if n is None else n + lo + hi for n, (lo, hi) in zip(x.shape, widths, strict=True)), x.dtype)


def _python_int_fits(op: str, name: str, value: Any, dtype: Any) -> None:
    """A Python int filling an int tensor must fit its dtype: OverflowError, as `full((2,), 300, int8)` (NEP 50)."""
    if type(value) is int and dtype.kind is int:
        from .._rules.weak import int_range

        low, high = int_range(dtype)
        if not low <= value <= high:
            raise OverflowError(f"{op}: {name} {value} does not fit {dtype.name} [{low}, {high}]")


@specifies("pad_to", f"x padded with fill_value or cropped along axis to new_size (AxisError for an axis out of range). {_KEEP}")
def _pad_to(x: Tensor, axis: Axis, new_size: int, fill_value: Any) -> ShapeDtype:
    operand = strong(x, "pad_to", "x")
    _python_int_fits("pad_to", "fill_value", fill_value, operand.dtype)
    position = normalize_axis(axis, operand.ndim, "pad_to")
    size = int_argument(new_size, "pad_to", "new_size")
    if operand.shape[position] is None:
        return operand
    return ShapeDtype(tuple(size if i == position else n for i, n in enumerate(operand.shape)), operand.dtype)


@specifies("flip", f"value reversed along axes (an int, a sequence of ints, or None for every axis), same shape. An axis out of range or named twice raises AxisError. {_KEEP}")
def _flip(value: Tensor, axes: Axes) -> ShapeDtype:
    x = strong(value, "flip", "value")
    normalize_axes(axes, x.ndim, "flip")
    return x


# ---------------------------------------------------------------- slicing


def index_shape(shape: tuple[int | None, ...], index: Any, op: str) -> tuple[int | None, ...]:
    """The shape of `tensor[index]` for NumPy basic and integer-array indexing (bool arrays: unknown sizes).

    Raises:
        IndexOutOfRangeError: for an int index outside `[-n, n)`, or too many indices.
        ArgumentTypeError: for an index of another type (a float, a string).
    """
    items = index if isinstance(index, tuple) else (index,)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError(f"{op}: an index can only have a single ellipsis")
    used = sum(index_axes(i) for i in items)
    if used > len(shape):
        raise IndexOutOfRangeError(f"{op}: too many indices ({used}) for a tensor of rank {len(shape)}")
    if not any(i is Ellipsis for i in items):
        items = (*items, Ellipsis)
    result: list[Any] = []
    advanced: list[tuple[int | None, ...]] = []
    advanced_at: list[int] = []
    arrays = any(is_array_index(i) for i in items)  # then ints index as 0-d arrays: they count where the broadcast axes go (NumPy)
    dim = 0
    for item in items:
        if item is Ellipsis:
            rest = len(shape) - used
            result.extend(shape[dim : dim + rest])
            dim += rest
        elif item is None:
            result.append(1)
        elif isinstance(item, slice):
            size = shape[dim]
            result.append(None if size is None else len(range(*item.indices(size))))
            dim += 1
        elif type(item) is int or (hasattr(item, "__index__") and not hasattr(item, "shape") and not isinstance(item, bool)):
            position = operator.index(item)
            size = shape[dim]
            if size is not None and not -size <= position < size:
                raise IndexOutOfRangeError(f"{op}: index {position} is out of range for axis {dim} of size {size}")
            dim += 1
            if arrays:
                advanced.append(())
                advanced_at.append(len(result))
                result.append(_ADVANCED)
        elif isinstance(item, bool):  # a 0-d mask (NumPy): a new axis of 1 (True) or 0 (False), among the arrays
            advanced.append((int(item),))
            advanced_at.append(len(result))
            result.append(_ADVANCED)
        else:
            operand = as_operand(item, op, "index")
            if not isinstance(operand, ShapeDtype) or operand.dtype.kind not in (bool, int):
                raise ArgumentTypeError(f"{op}: indices must be ints, slices, None, ... or integer or bool tensors, got {item!r}")
            if operand.ndim == 0 and operand.dtype.kind is int and not arrays:
                dim += 1
                continue
            if operand.dtype.kind is bool:
                covered = shape[dim : dim + operand.ndim]
                if any(m is not None and n is not None and m != n for m, n in zip(operand.shape, covered, strict=False)):
                    raise IndexOutOfRangeError(f"{op}: a mask of shape {tuple(operand.shape)} for the dimensions {tuple(covered)}; a mask must have their sizes")
                advanced.append((None,))
                dim += operand.ndim  # a 0-d mask takes no axis: it adds one (NumPy)
            else:
                advanced.append(operand.shape)
                dim += 1
            advanced_at.append(len(result))
            result.append(_ADVANCED)
    if not advanced:
        return tuple(result)
    combined = broadcast_shapes(op, *advanced)
    positions = [i for i, r in enumerate(result) if r is _ADVANCED]
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    plain = [r for r in result if r is not _ADVANCED]
    at = positions[0] if adjacent else 0
    return (*plain[:at], *combined, *plain[at:])


_ADVANCED: Final = object()


@specifies(
    "multi_slice",
    f"tensor[slices] for a tuple of slices (negative steps too), ints (negative from the end), None, Ellipsis and integer tensors (NumPy indexing). An int outside [-n, n) raises IndexOutOfRangeError. {_KEEP}",
)
def _multi_slice(tensor: Tensor, slices: Any) -> ShapeDtype:
    x = strong(tensor, "multi_slice", "tensor")
    return ShapeDtype(index_shape(x.shape, slices, "multi_slice"), x.dtype)


@specifies("batch_gather", f"The entries batches (an int or a list of ints) of the first axis: shape (len(batches), ...), the other axes kept. An entry outside [-n, n) raises IndexOutOfRangeError. {_KEEP}")
def _batch_gather(tensor: Tensor, batches: Any) -> ShapeDtype:
    x = strong(tensor, "batch_gather", "tensor")
    entries = [batches] if type(batches) is int else batches
    return ShapeDtype(index_shape(x.shape, (entries, Ellipsis), "batch_gather"), x.dtype)


@specifies(
    "gather_by_component_indices",
    f"values[component_indices] (NumPy indexing with one index per leading axis). {_KEEP}",
)
def _gather_by_component_indices(values: Tensor, *component_indices: Any) -> ShapeDtype:
    x = strong(values, "gather_by_component_indices", "values")
    return ShapeDtype(index_shape(x.shape, tuple(component_indices), "gather_by_component_indices"), x.dtype)


@specifies(
    "get_diagonal",
    f"The diagonals (offset above the main one, negative below) of (batch, rows, cols, channels) matrices as (batch, diagonal, channels). {_KEEP}",
)
def _get_diagonal(matrices: Tensor, offset: int = 0) -> ShapeDtype:
    x = strong(matrices, "get_diagonal", "matrices")
    if x.ndim != 4:
        raise ShapeMismatchError(f"get_diagonal: matrices must be (batch, rows, cols, channels), got shape {x.shape}")
    batch, rows, cols, channels = x.shape
    offset = int_argument(offset, "get_diagonal", "offset")
    if rows is None or cols is None:
        length = None
    else:
        length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    return ShapeDtype((batch, length, channels), x.dtype)
