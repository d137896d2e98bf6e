"""Specs of gather, scatter, masks, sorting, searching, counting and index conversion."""

from __future__ import annotations

from typing import Any, Final

from .._errors import ArgumentTypeError, IndexOutOfRangeError, ShapeMismatchError
from .._rules.indices import check_bincount, check_flat_index, index_needs_cast, unravel_shape
from ._base import (
    INT64,
    NUMERIC,
    ShapeDtype,
    Weak,
    as_dtype_arg,
    as_operand,
    as_tensor_dtype,
    batch_size,
    broadcast_shapes,
    int_argument,
    promote,
    shape_of,
    single_axis,
    specifies,
    strong,
)
from ._blocks import WIDEN

Tensor = Any
Axis = Any
DTypeLike = Any

_INDEX_KINDS: Final = "Indices must be integers (bool or float indices raise ArgumentTypeError)."


def _indices(value: Any, op: str, name: str = "indices") -> ShapeDtype:
    given = as_operand(value, op, name)
    if isinstance(given, ShapeDtype):
        operand = given
    else:  # a Python number: bool, int, float or complex as a 0-d index
        operand = ShapeDtype((), INT64 if given.kind is int else as_tensor_dtype(given))
    index_needs_cast(operand.dtype, operand.size, op, name)
    return operand


def _check_python_indices(value: Any, size: int | None, op: str) -> None:
    """Python ints and lists of ints are data: check them against `size` now."""
    if size is None:
        return
    items = [value] if type(value) is int else value if isinstance(value, (list, tuple)) and all(type(v) is int for v in value) else []
    for index in items:
        if not -size <= index < size:
            raise IndexOutOfRangeError(f"{op}: index {index} is out of range for a dimension of size {size} (valid: -{size}..{size - 1})")


# ---------------------------------------------------------------- gather


@specifies(
    "gather",
    f"The slices of values at indices along axis: shape values.shape[:axis] + indices.shape + values.shape[axis + 1:], values' dtype. Negative indices count from the end; an index outside [-n, n) raises IndexOutOfRangeError (checked on the data). {_INDEX_KINDS} An axis out of range raises AxisError.",
)
def _gather(values: Tensor, indices: Tensor, axis: Axis) -> ShapeDtype:
    x = strong(values, "gather", "values")
    index = _indices(indices, "gather")
    position = single_axis("gather", axis, x.ndim)
    _check_python_indices(indices, x.shape[position], "gather")
    return ShapeDtype((*x.shape[:position], *index.shape, *x.shape[position + 1 :]), x.dtype)


@specifies("gather_1d", f"values[indices] for 1-D values: shape indices.shape, values' dtype. {_INDEX_KINDS} An index outside [-n, n) raises IndexOutOfRangeError.")
def _gather_1d(values: Tensor, indices: Tensor) -> ShapeDtype:
    return _gather(values, indices, 0)  # type: ignore[no-any-return]


def _gather_nd(op: str, values: ShapeDtype, index: ShapeDtype) -> ShapeDtype:
    if values.ndim < 2 or index.ndim < 2:
        raise ShapeMismatchError(f"{op}: expected (batch, spatial..., channels) values and (batch, ..., ndims) indices, got {values.shape} and {index.shape}")
    if index.shape[-1] is not None and index.shape[-1] != values.ndim - 2:
        raise ShapeMismatchError(f"{op}: indices must hold {values.ndim - 2} components for values of shape {values.shape} but hold {index.shape[-1]}")
    batch = batch_size(op, values.shape[0], index.shape[0])
    return ShapeDtype((batch, *index.shape[1:-1], values.shape[-1]), values.dtype)


@specifies(
    "batched_gather_nd",
    f"(batch, spatial..., channels) values at (batch, any..., ndims) indices give (batch, any..., channels), values' dtype; batch sizes may be 1 on either side (ShapeMismatchError if they differ otherwise), ndims must equal the number of spatial axes (ShapeMismatchError). {_INDEX_KINDS}",
)
def _batched_gather_nd(values: Tensor, indices: Tensor) -> ShapeDtype:
    return _gather_nd("batched_gather_nd", strong(values, "batched_gather_nd", "values"), _indices(indices, "batched_gather_nd"))


@specifies("gather_nd", f"(spatial..., channels) values at (any..., ndims) indices give (any..., channels), values' dtype. {_INDEX_KINDS}")
def _gather_nd_spec(values: Tensor, indices: Tensor) -> ShapeDtype:
    x, index = strong(values, "gather_nd", "values"), _indices(indices, "gather_nd")
    result = _gather_nd("gather_nd", ShapeDtype((1, *x.shape), x.dtype), ShapeDtype((1, *index.shape), index.dtype))
    return ShapeDtype(result.shape[1:], result.dtype)


@specifies("batched_gather_1d", f"(batch, spatial) values at (batch, n) indices give (batch, n), values' dtype; batch sizes may be 1 on either side. {_INDEX_KINDS}")
def _batched_gather_1d(values: Tensor, indices: Tensor) -> ShapeDtype:
    x, index = strong(values, "batched_gather_1d", "values"), _indices(indices, "batched_gather_1d")
    if x.ndim != 2 or index.ndim != 2:
        raise ShapeMismatchError(f"batched_gather_1d: expected (batch, spatial) values and (batch, n) indices, got {x.shape} and {index.shape}")
    return ShapeDtype((batch_size("batched_gather_1d", x.shape[0], index.shape[0]), index.shape[1]), x.dtype)


# ---------------------------------------------------------------- scatter

_SCATTER_MODES: Final = ("update", "add", "max", "min")


def _scatter(op: str, base: ShapeDtype, index: ShapeDtype, values: Any, mode: Any) -> ShapeDtype:
    if mode not in _SCATTER_MODES:
        raise ValueError(f"{op}: mode must be 'update', 'add', 'max' or 'min' but got {mode!r}")
    update = values if isinstance(values, (Weak, ShapeDtype)) else as_operand(values, op, "values")
    if isinstance(update, Weak):
        raise ArgumentTypeError(f"{op}: values must be a tensor (one value per index, or one value), got the Python number {update.value!r}; pass as_tensor([{update.value!r}])")
    update_shape = shape_of(update)
    if index.ndim != 3 or index.shape[-1] not in (None, base.ndim - 2) or len(update_shape) != 3:
        raise ShapeMismatchError(
            f"{op}: expected (batch, updates, {base.ndim - 2}) indices and (batch, updates, channels) values for a grid of shape {base.shape}, got indices {index.shape} and values {update_shape}"
        )
    batch = batch_size(op, base.shape[0], index.shape[0], update_shape[0])
    broadcast_shapes(op, update_shape[1:], (index.shape[1], base.shape[-1]))
    return ShapeDtype((batch, *base.shape[1:]), promote(op, (base, update)))


_SCATTER: Final = (
    "The dtype is the common type of base_grid and values (Python numbers weak). mode is 'update' (the last duplicate wins), 'add', 'max' or 'min'; another mode raises ValueError."
    " Shapes that do not fit raise ShapeMismatchError, an index outside its dimension IndexOutOfRangeError (checked on the data)."
)


@specifies("scatter", f"A copy of (batch, spatial..., channels) base_grid with (batch or 1, updates or 1, channels or 1) values scattered at (batch or 1, updates, ndims) indices: shape (batch, spatial..., channels). {_SCATTER}")
def _scatter_spec(base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> ShapeDtype:
    base, index = strong(base_grid, "scatter", "base_grid"), _indices(indices, "scatter")
    return _scatter("scatter", base, index, values, mode)


def _unbatched(op: str, base_grid: Any, indices: Any, values: Any, mode: Any, base_dims: int, index_dims: int, value_dims: int) -> ShapeDtype:
    base, index = strong(base_grid, op, "base_grid"), _indices(indices, op)
    update = as_operand(values, op, "values")
    if isinstance(update, ShapeDtype):
        update = ShapeDtype((1,) * value_dims[0] + update.shape + (1,) * value_dims[1], update.dtype)  # type: ignore[index]
    batched = ShapeDtype((1,) * base_dims[0] + base.shape + (1,) * base_dims[1], base.dtype)  # type: ignore[index]
    index = ShapeDtype((1,) * index_dims[0] + index.shape + (1,) * index_dims[1], index.dtype)  # type: ignore[index]
    result = _scatter(op, batched, index, update, mode)
    return ShapeDtype(base.shape, result.dtype)


@specifies("scatter_nd", f"Unbatched scatter: (spatial..., channels) base_grid, (updates, ndims) indices, (updates or 1, channels or 1) values; shape of base_grid. {_SCATTER}")
def _scatter_nd(base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> ShapeDtype:
    return _unbatched("scatter_nd", base_grid, indices, values, mode, (1, 0), (1, 0), (1, 0))  # type: ignore[arg-type]


@specifies("scatter_1d_scalar", f"Scatter into a 1-D base_grid: (spatial,), (updates,) indices, (updates or 1,) values; shape of base_grid. {_SCATTER}")
def _scatter_1d_scalar(base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> ShapeDtype:
    return _unbatched("scatter_1d_scalar", base_grid, indices, values, mode, (1, 1), (1, 1), (1, 1))  # type: ignore[arg-type]


@specifies("scatter_nd_scalar", f"Scatter without channels: (spatial...) base_grid, (updates, ndims) indices, (updates or 1,) values; shape of base_grid. {_SCATTER}")
def _scatter_nd_scalar(base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> ShapeDtype:
    return _unbatched("scatter_nd_scalar", base_grid, indices, values, mode, (1, 1), (1, 0), (1, 1))  # type: ignore[arg-type]


@specifies(
    "indexed_segment_sum",
    "Sums of the segments of (batch, ...) x along axis that start at (batch, segments) indices (numpy.add.reduceat): x's shape with segments along axis; the dtype widens as sum's (bool and small ints give int64 or uint64). Axis 0 (the batch) raises ValueError, a start outside [0, n) IndexOutOfRangeError (checked on the data), an axis out of range AxisError.",
)
def _indexed_segment_sum(x: Tensor, indices: Tensor, axis: Axis) -> ShapeDtype:
    operand, index = strong(x, "indexed_segment_sum", "x"), _indices(indices, "indexed_segment_sum")
    position = single_axis("indexed_segment_sum", axis, operand.ndim)
    if position == 0:
        raise ValueError("indexed_segment_sum: sums along a non-batch axis; axis 0 is the batch")
    if index.ndim != 2:
        raise ShapeMismatchError(f"indexed_segment_sum: indices must be (batch, segments), got shape {index.shape}")
    batch = batch_size("indexed_segment_sum", operand.shape[0], index.shape[0])
    shape = [batch, *operand.shape[1:]]
    shape[position] = index.shape[1]
    return ShapeDtype(tuple(shape), WIDEN(operand.dtype))


# ---------------------------------------------------------------- masks and data-dependent sizes


@specifies(
    "boolean_mask",
    "The slices of x along axis where the 1-D bool mask is true: x's shape and dtype with an unknown size along axis (new_length when given, padded with fill_value). A mask of another dtype raises ArgumentTypeError, a mask whose length is not that of the axis IndexOutOfRangeError, an axis out of range AxisError.",
)
def _boolean_mask(x: Tensor, mask: Tensor, axis: Axis = 0, new_length: int | None = None, fill_value: Any = 0) -> ShapeDtype:
    operand, flags = strong(x, "boolean_mask", "x"), strong(mask, "boolean_mask", "mask", frozenset({bool}))  # a float mask is no mask
    position = single_axis("boolean_mask", axis, operand.ndim)
    size = operand.shape[position]
    if flags.ndim != 1 or (None not in (size, flags.shape[0]) and flags.shape[0] != size):
        raise IndexOutOfRangeError(f"boolean_mask: a mask of shape {flags.shape} for a dimension of size {size}; the mask must be 1-D of that length")
    length = None if new_length is None else int_argument(new_length, "boolean_mask", "new_length")
    return ShapeDtype(tuple(length if i == position else n for i, n in enumerate(operand.shape)), operand.dtype)


@specifies("nonzero", "The int64 multi-indices of the nonzero elements, shape (nnz, ndim); nnz is unknown (it depends on the data) unless length is given (then cut or padded with fill_value).")
def _nonzero(values: Tensor, length: int | None = None, fill_value: int = -1) -> ShapeDtype:
    x = strong(values, "nonzero", "values")
    return ShapeDtype((None if length is None else int_argument(length, "nonzero", "length"), x.ndim), INT64)


@specifies(
    "unique",
    "Always a tuple: the sorted unique values (x's dtype; with axis None flattened, size unknown; with an int axis, the unique slices along it, size unknown), then with return_inverse the int64 inverse (one index per element, flat for axis None, else one per slice), then with return_counts the int64 counts (as many as unique values). An axis out of range raises AxisError.",
)
def _unique(x: Tensor, return_inverse: bool, return_counts: bool, axis: Axis) -> tuple[ShapeDtype, ...]:
    operand = strong(x, "unique", "x")
    if axis is None:
        parts = [ShapeDtype((None,), operand.dtype)]
        inverse = ShapeDtype((operand.size,), INT64)
    else:
        position = single_axis("unique", axis, operand.ndim)
        parts = [ShapeDtype(tuple(None if i == position else n for i, n in enumerate(operand.shape)), operand.dtype)]
        inverse = ShapeDtype((operand.shape[position],), INT64)
    if return_inverse:
        parts.append(inverse)
    if return_counts:
        parts.append(ShapeDtype((None,), INT64))
    return tuple(parts)


# ---------------------------------------------------------------- sorting and searching

_ORDER: Final = "Complex values order as NumPy (real part, then imaginary part) where the backend has an order, else raise ArgumentTypeError."


@specifies("sort", f"x sorted ascending along axis (NaN last), same shape and dtype. A 0-d tensor has no axis: AxisError. {_ORDER}")
def _sort(x: Tensor, axis: Axis = -1) -> ShapeDtype:
    operand = strong(x, "sort", "x")
    single_axis("sort", axis, operand.ndim)
    return operand


@specifies("argsort", f"int64 indices that sort x along axis (stable, NaN last), same shape. A 0-d tensor has no axis: AxisError. {_ORDER}")
def _argsort(x: Tensor, axis: Axis = -1) -> ShapeDtype:
    operand = strong(x, "argsort", "x")
    single_axis("argsort", axis, operand.ndim)
    return ShapeDtype(operand.shape, INT64)


@specifies(
    "searchsorted",
    f"Insertion indices of search_values into the last axis of sorted_sequence (batched over the leading axes, which broadcast), in dtype (int32 by default): shape: the broadcast leading axes + (search_values.shape[-1],), or search_values.shape for a 1-D sequence. side other than 'left' or 'right' raises ValueError. {_ORDER}",
)
def _searchsorted(sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DTypeLike = None) -> ShapeDtype:
    from .._dtype import DType

    sequence, values = strong(sorted_sequence, "searchsorted", "sorted_sequence"), strong(search_values, "searchsorted", "search_values")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right' but got {side!r}")
    result = as_dtype_arg(dtype, "searchsorted", DType(int, 32))
    if sequence.ndim == 0:
        raise ShapeMismatchError("searchsorted: sorted_sequence must have at least one axis")
    if sequence.ndim == 1:
        return ShapeDtype(values.shape, result)
    if values.ndim == 0:
        raise ShapeMismatchError(f"searchsorted: search_values must have an axis of values for a batched sequence of shape {sequence.shape}")
    batch = broadcast_shapes("searchsorted", sequence.shape[:-1], values.shape[:-1])
    return ShapeDtype((*batch, values.shape[-1]), result)


# ---------------------------------------------------------------- counting


def _count_dtype(weights: ShapeDtype | None) -> Any:
    if weights is None or weights.dtype.kind is bool:
        return INT64
    return weights.dtype


@specifies(
    "bincount",
    "Counts (int64), or sums of weights (weights' dtype; bool weights count as int64), of each integer in [0, bins) in the 1-D x: shape (bins,). x of another rank, or weights of another shape than x, raise ShapeMismatchError; a negative value raises ValueError (checked on the data).",
)
def _bincount(x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> ShapeDtype:
    operand = strong(x, "bincount", "x")
    count = check_bincount(operand.dtype, bins)
    weight = None if weights is None else strong(weights, "bincount", "weights")
    if operand.ndim != 1:
        raise ShapeMismatchError(f"bincount: x must be 1-D, got shape {operand.shape}; batched_bincount counts each row of a (batch, n) x")
    _weights_fit("bincount", operand, weight)
    return ShapeDtype((count,), _count_dtype(weight))


def _weights_fit(op: str, x: ShapeDtype, weights: ShapeDtype | None, broadcast: bool = False) -> None:
    """`weights` has the shape of `x` (one weight per value, as NumPy's `bincount`), or for `broadcast` a shape
    that broadcasts to it (`batched_bincount`: one row of weights for every row of x)."""
    if weights is None or weights.shape == x.shape or None in (*weights.shape, *x.shape):
        return
    if broadcast and weights.ndim <= x.ndim and all(w in (1, n) for w, n in zip(weights.shape[::-1], x.shape[::-1], strict=False)):
        return
    fits = "have the shape of x" if not broadcast else "broadcast to the shape of x"
    raise ShapeMismatchError(f"{op}: weights must {fits}, {x.shape}, got {weights.shape}")


@specifies("batched_bincount", "bincount of each row of (batch, n) x: shape (batch, bins), dtype as bincount's; weights broadcast to x's shape (ShapeMismatchError if they do not).")
def _batched_bincount(x: Tensor, weights: Tensor | None, bins: int) -> ShapeDtype:
    operand = strong(x, "batched_bincount", "x")
    count = check_bincount(operand.dtype, bins, "batched_bincount")
    weight = None if weights is None else strong(weights, "batched_bincount", "weights")
    if operand.ndim != 2:
        raise ShapeMismatchError(f"batched_bincount: x must be (batch, n), got shape {operand.shape}")
    _weights_fit("batched_bincount", operand, weight, broadcast=True)
    return ShapeDtype((operand.shape[0], count), _count_dtype(weight))


@specifies(
    "histogram1d",
    "Batched weighted histograms of (batch, n) values into (batch, edges) bin_edges: shape (batch, edges - 1), weights' dtype (bool weights count as int64, as bincount's); batch sizes may be 1 (ShapeMismatchError if they differ otherwise).",
)
def _histogram1d(values: Tensor, weights: Tensor, bin_edges: Tensor) -> ShapeDtype:
    v = strong(values, "histogram1d", "values")
    w = strong(weights, "histogram1d", "weights")
    e = strong(bin_edges, "histogram1d", "bin_edges")
    if v.ndim != 2 or e.ndim != 2 or w.ndim != 2:
        raise ShapeMismatchError(f"histogram1d: values, weights and bin_edges must be 2-D (batch, n), got {v.shape}, {w.shape} and {e.shape}")
    batch = batch_size("histogram1d", v.shape[0], w.shape[0], e.shape[0])
    bins = None if e.shape[-1] is None else e.shape[-1] - 1
    return ShapeDtype((batch, bins), _count_dtype(w))


# ---------------------------------------------------------------- index conversion


@specifies(
    "unravel_index",
    "Multi-indices of flat indices into an array of shape (C order): shape flat_index.shape + (len(shape),), flat_index's dtype. Non-integer indices (bool included) raise ArgumentTypeError, a flat index outside [0, size) ValueError (checked on the data).",
)
def _unravel_index(flat_index: Tensor, shape: Any) -> ShapeDtype:
    index = strong(flat_index, "unravel_index", "flat_index")
    check_flat_index(index.dtype)
    sizes = unravel_shape(shape)
    return ShapeDtype((*index.shape, len(sizes)), index.dtype)


@specifies(
    "ravel_multi_index",
    "Flat indices (C order) of (..., len(shape)) multi-indices: shape multi_index.shape[:-1], multi_index's dtype. mode is 'undefined', 'periodic', 'clamp' or an int returned for indices outside; another mode raises ValueError.",
)
def _ravel_multi_index(multi_index: Tensor, shape: Any, mode: Any = "undefined") -> ShapeDtype:
    index = strong(multi_index, "ravel_multi_index", "multi_index", NUMERIC)
    if not (isinstance(mode, int) and not isinstance(mode, bool)) and mode not in ("undefined", "periodic", "clamp"):
        raise ValueError(f"ravel_multi_index: mode must be 'undefined', 'periodic', 'clamp' or an int but got {mode!r}")
    sizes = tuple(shape)
    if index.ndim == 0 or index.shape[-1] not in (None, len(sizes)):
        raise ValueError(f"ravel_multi_index: multi_index of shape {index.shape} must hold {len(sizes)} indices along its last axis for shape {sizes}")
    return ShapeDtype(index.shape[:-1], index.dtype)
