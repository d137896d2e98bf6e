"""Gather, scatter, masks, repetition, padding, sorting, searching and counting (a mixin of `TFBackend`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from bk import DType, normalize_axis, rules
from bk.rules import index_needs_cast

from ._dtypes import from_tf_dtype, to_tf_dtype
from ._framework import tf

__all__ = ["IndexingMixin"]

Tensor = Any

_SCATTER: Final = {
    "update": tf.tensor_scatter_nd_update,
    "add": tf.tensor_scatter_nd_add,
    "max": tf.tensor_scatter_nd_max,
    "min": tf.tensor_scatter_nd_min,
}


def _batch_size(*sizes: int | None) -> Any:
    """The common batch size of `sizes`, where 1 broadcasts (the operation's spec checks that they fit)."""
    return next((s for s in sizes if s not in (1, None)), None if None in sizes else 1)


def _wrapped_indices(backend: Any, indices: Any, values: Any, axes: int | slice, op: str) -> Any:
    """Integer `indices` into the dimensions `axes` of `values` (an int: every index points along that axis; a
    slice: one axis per entry of the last axis of `indices`) as int32/int64, negative ones counted from the end.

    `bk.rules.wrap_indices` where the sizes are known: eagerly an index outside `[-size, size)` raises
    `IndexOutOfRangeError`. Sizes unknown while tracing are only wrapped (TensorFlow's kernels check).
    """
    if indices.dtype not in (tf.int32, tf.int64):
        if not indices.dtype.is_integer:  # bk.rules decides: empty floats (`[]`) are cast, the others raise
            index_needs_cast(from_tf_dtype(indices.dtype), indices.shape.num_elements(), op)
        indices = tf.cast(indices, tf.int64)
    sizes = values.shape.as_list()[axes] if values.shape.rank is not None else None
    if sizes is not None and None not in (sizes if isinstance(axes, slice) else [sizes]):
        return rules.wrap_indices(backend, indices, sizes, op)
    sizes = tf.cast(tf.shape(values)[axes], indices.dtype)
    return tf.where(indices < 0, indices + sizes, indices)


_SIGNED: Final = {1: tf.int8, 2: tf.int16, 4: tf.int32, 8: tf.int64}


def with_signed_bits(function: Callable[..., Any], x: Any, *args: Any, **kwargs: Any) -> Any:
    """`function(x, ...)` for a function that only moves elements (tile, repeat); unsigned ints go through the signed
    ints of the same size, bit for bit, since TensorFlow lacks kernels for some (uint16 on the CPU). Checked on the dtype,
    not in an `except` branch: inside `tf.function` the missing kernel is only found when the graph runs."""
    if not x.dtype.is_unsigned:
        return function(x, *args, **kwargs)
    return tf.bitcast(function(tf.bitcast(x, _SIGNED[x.dtype.size]), *args, **kwargs), x.dtype)


def _broadcast_batch(x: Any, batch: int) -> Any:
    if x.shape[0] == batch:
        return x
    return tf.broadcast_to(x, tf.concat([[batch], tf.shape(x)[1:]], 0))


def _fit_length(x: Any, axis: int, length: int, fill_value: Any) -> Any:
    """`x` cut or padded with `fill_value` to `length` along `axis`."""
    axis %= x.shape.rank
    current = tf.shape(x)[axis]
    cut = tf.gather(x, tf.range(tf.minimum(current, length)), axis=axis)
    widths = [[0, 0]] * x.shape.rank
    widths[axis] = [0, tf.maximum(length - current, 0)]
    return tf.pad(cut, widths, constant_values=tf.cast(fill_value, x.dtype))


def _edge_pad(x: Any, axis: int, lower: int, upper: int, mode: str) -> Any:
    """Pads one axis in mode 'boundary' (repeat the edge) or 'periodic' (wrap around)."""
    if lower == 0 and upper == 0:
        return x
    size = x.shape[axis]
    if mode == "periodic":
        index = tf.range(-lower, size + upper) % size
    else:
        index = tf.clip_by_value(tf.range(-lower, size + upper), 0, size - 1)
    return tf.gather(x, index, axis=axis)


def _lexsort_slices(flat: Any) -> Any:
    """The order that sorts the rows of the 2-D `flat` lexicographically (stable; NaN after +inf, complex by real then imaginary part)."""
    if flat.dtype == tf.bool:
        flat = tf.cast(flat, tf.int8)
    if flat.dtype.is_complex:
        parts = tf.stack([tf.math.real(flat), tf.math.imag(flat)], axis=-1)
        flat = tf.reshape(parts, tf.stack([tf.shape(flat)[0], -1]))
    order = tf.range(tf.shape(flat)[0])
    for column in reversed(range(flat.shape[1])):
        keys = tf.gather(flat[:, column], order)
        by_key = _argsort_last(keys) if keys.dtype.is_floating else tf.argsort(keys, stable=True)
        order = tf.gather(order, by_key)
    return order


def _differ(a: Any, b: Any) -> Any:
    """Elementwise `a != b`, where two NaNs are equal (as `numpy.unique` sees them)."""
    different = tf.not_equal(a, b)
    if a.dtype.is_floating:
        return tf.logical_and(different, tf.logical_not(tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b))))
    if a.dtype.is_complex:
        nan_a = tf.logical_or(tf.math.is_nan(tf.math.real(a)), tf.math.is_nan(tf.math.imag(a)))
        nan_b = tf.logical_or(tf.math.is_nan(tf.math.real(b)), tf.math.is_nan(tf.math.imag(b)))
        return tf.logical_and(different, tf.logical_not(tf.logical_and(nan_a, nan_b)))
    return different


def _search(sequence: Any, values: Any, side: str) -> Any:
    """`tf.searchsorted` of 2-D `values` in 2-D `sequence` rows (int64), with NaN ordered after +inf as NumPy does.

    TensorFlow's binary search compares with `<`, where NaN is neither smaller nor larger; NaNs
    therefore search as +inf, a non-NaN value never lands after a NaN of the sequence, and a NaN
    value lands before the first NaN ('left') or at the end ('right').
    """
    if not sequence.dtype.is_floating:
        return tf.searchsorted(sequence, values, side=side, out_type=tf.int64)
    inf = tf.constant(float("inf"), sequence.dtype)
    sequence_nan, value_nan = tf.math.is_nan(sequence), tf.math.is_nan(values)
    found = tf.searchsorted(tf.where(sequence_nan, inf, sequence), tf.where(value_nan, inf, values), side=side, out_type=tf.int64)
    valid = tf.reduce_sum(tf.cast(tf.logical_not(sequence_nan), tf.int64), axis=-1, keepdims=True)
    nan_position = valid if side == "left" else tf.shape(sequence, out_type=tf.int64)[-1:][None] + 0 * valid
    return tf.where(value_nan, nan_position, tf.minimum(found, valid))


def _along_last(x: Any, axis: int, function: Callable[[Any], Any]) -> Any:
    """`function` applied along the last axis after moving `axis` there, then moved back."""
    rank = x.shape.rank
    if axis == rank - 1:
        return function(x)
    order = [i for i in range(rank) if i != axis] + [axis]
    inverse = [order.index(i) for i in range(rank)]
    return tf.transpose(function(tf.transpose(x, order)), inverse)


def _argsort_last(x: Any) -> Any:
    """Stable argsort of floats along the last axis with NaN after +inf; complex values by real, then imaginary part."""
    if x.dtype.is_complex:
        batch = x.shape.rank - 1
        by_imag = _argsort_last(tf.math.imag(x))
        real = tf.gather(tf.math.real(x), by_imag, axis=-1, batch_dims=batch)
        return tf.gather(by_imag, _argsort_last(real), axis=-1, batch_dims=batch)
    nan = tf.math.is_nan(x)
    keys = tf.where(nan, tf.constant(float("inf"), x.dtype), x)
    by_value = tf.argsort(keys, axis=-1, stable=True)
    batch = x.shape.rank - 1
    flags = tf.gather(tf.cast(nan, tf.int8), by_value, axis=-1, batch_dims=batch)
    reorder = tf.argsort(flags, axis=-1, stable=True)  # among equal keys (inf, NaN) NaN goes last
    return tf.gather(by_value, reorder, axis=-1, batch_dims=batch)


class IndexingMixin:
    """Indexing operations through `tf.gather`, `tf.tensor_scatter_nd_*`, `tf.pad`, `tf.sort`, ..."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ gather

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at the 1-D `indices` along `axis`; negative indices count from the end.

        Raises:
            IndexOutOfRangeError: for an index outside `[-n, n)` (eagerly; inside `tf.function`
                TensorFlow's CPU kernel raises `InvalidArgumentError`, GPUs give zeros).
        """
        values = self._t(values)
        axis = normalize_axis(axis, values.shape.rank, "gather")
        return tf.gather(values, _wrapped_indices(self, self._t(indices), values, axis, "gather"), axis=axis)

    def gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`values[indices]` for 1-D `values`; negative indices count from the end."""
        values = self._t(values)
        return tf.gather(values, _wrapped_indices(self, self._t(indices), values, 0, "gather_1d"), axis=0)

    def gather_by_component_indices(self, values: Tensor, *component_indices: Any) -> Tensor:
        """`values[component_indices]` for integer (tensor) indices, one per dimension; negative ones count from the end."""
        values = self._t(values)
        parts = [
            _wrapped_indices(self, self._t(i), values, d, "gather_by_component_indices") for d, i in enumerate(component_indices)
        ]
        shape = tf.shape(parts[0])
        for p in parts[1:]:
            shape = tf.broadcast_dynamic_shape(shape, tf.shape(p))
        return tf.gather_nd(values, tf.stack([tf.broadcast_to(p, shape) for p in parts], axis=-1))

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`; batch 1 broadcasts.

        Negative indices count from the end of their dimension.
        """
        values, indices = self._t(values), self._t(indices)
        indices = _wrapped_indices(self, indices, values, slice(1, -1), "batched_gather_nd")
        batch = _batch_size(values.shape[0], indices.shape[0])
        if values.shape[0] == 1:
            return tf.gather_nd(values[0], _broadcast_batch(indices, batch))
        return tf.gather_nd(values, _broadcast_batch(indices, batch), batch_dims=1)

    def gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(spatial..., channels)` at `(indices, ndims)` gives `(indices, channels)`; negative indices count from the end."""
        values, indices = self._t(values), self._t(indices)
        return tf.gather_nd(values, _wrapped_indices(self, indices, values, slice(None, -1), "gather_nd"))

    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`; batch 1 broadcasts, negative indices count from the end."""
        values, indices = self._t(values), self._t(indices)
        indices = _wrapped_indices(self, indices, values, 1, "batched_gather_1d")
        batch = _batch_size(values.shape[0], indices.shape[0])
        if values.shape[0] == 1:
            return tf.gather(values[0], _broadcast_batch(indices, batch))
        return tf.gather(values, _broadcast_batch(indices, batch), batch_dims=1)

    # ------------------------------------------------------------ scatter

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """A copy of `(batch, spatial..., channels)` `base_grid` with `values` scattered at `indices`.

        Args:
            indices: `(batch or 1, updates, ndims)` integer indices.
            values: `(batch or 1, updates or 1, channels or 1)`.
            mode: `'update'`, `'add'`, `'max'` or `'min'`. For 'update' with duplicate indices,
                TensorFlow does not define which value wins.
        """
        base_grid, values = self.auto_cast(base_grid, values)  # the plan casts neither (not in bk.rules.COMMON_OPERANDS)
        indices = self._t(indices)
        indices = tf.cast(_wrapped_indices(self, indices, base_grid, slice(1, -1), "scatter"), tf.int64)
        batch = _batch_size(base_grid.shape[0], indices.shape[0], values.shape[0])
        base_grid = _broadcast_batch(base_grid, batch)
        indices = _broadcast_batch(indices, batch)
        updates = tf.shape(indices)[1]
        rows = tf.broadcast_to(tf.range(batch, dtype=tf.int64)[:, None, None], tf.stack([batch, updates, 1]))
        full_indices = tf.concat([rows, indices], axis=-1)
        channels = tf.shape(base_grid)[-1]
        values = tf.broadcast_to(values, tf.stack([batch, updates, channels]))
        function = _SCATTER[mode]
        if base_grid.dtype == tf.bool:  # TensorFlow scatters no booleans: add/max as or, min as and
            as_int = function(tf.cast(base_grid, tf.int8), full_indices, tf.cast(values, tf.int8))
            return as_int > 0
        return function(base_grid, full_indices, values)

    def scatter_nd(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Unbatched `scatter`: `(spatial..., channels)`, `(updates, ndims)`, `(updates or 1, channels or 1)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self.scatter(base_grid[None], indices[None], values[None], mode)[0]  # type: ignore[attr-defined]

    def scatter_1d_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """`scatter` into a 1-D tensor: `(spatial,)`, `(updates,)`, `(updates or 1,)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self.scatter(base_grid[None, :, None], indices[None, :, None], values[None, :, None], mode)[0, :, 0]  # type: ignore[attr-defined]

    def scatter_nd_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """`scatter` without channels: `(spatial...)`, `(updates, ndims)`, `(updates or 1,)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self.scatter(base_grid[None, ..., None], indices[None], values[None, :, None], mode)[0, ..., 0]  # type: ignore[attr-defined]

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of contiguous segments of `(batch, ...)` `x` along `axis`, starting at `(batch, segments)` indices."""
        x, indices = self._t(x), self._t(indices)
        # sums widen as `sum` does: to int64 (uint64 for unsigned)
        if (x.dtype.is_integer or x.dtype == tf.bool) and x.dtype.size < 8:
            x = tf.cast(x, tf.uint64 if x.dtype.is_unsigned else tf.int64)
        rank = x.shape.rank
        axis = normalize_axis(axis, rank, "indexed_segment_sum")
        rules.check_indices(self, indices, x.shape[axis], "indexed_segment_sum", "segment start", negative=False)  # type: ignore[arg-type]
        indices = tf.cast(indices, tf.int32)
        batch = _batch_size(x.shape[0], indices.shape[0])
        x, indices = _broadcast_batch(x, batch), _broadcast_batch(indices, batch)
        moved = tf.experimental.numpy.moveaxis(x, axis, 1)
        length, segments = tf.shape(moved)[1], tf.shape(indices)[1]
        positions = tf.broadcast_to(tf.range(length)[None, :], tf.stack([batch, length]))
        segment = tf.searchsorted(indices, positions, side="right") - 1  # elements before the first start are dropped
        segment_ids = tf.where(segment >= 0, segment + tf.range(batch)[:, None] * segments, batch * segments)
        flat = tf.reshape(moved, tf.concat([[batch * length], tf.shape(moved)[2:]], 0))
        sums = tf.math.unsorted_segment_sum(flat, tf.reshape(segment_ids, [-1]), batch * segments + 1)[:-1]
        sums = tf.reshape(sums, tf.concat([[batch, segments], tf.shape(moved)[2:]], 0))
        return tf.experimental.numpy.moveaxis(sums, 1, axis)

    # ------------------------------------------------------------ masks, repetition, padding

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices of `x` along `axis` where the 1-D `mask` is true; cut or padded with `fill_value` to `new_length`."""
        x, mask = self._t(x), self._t(mask)
        axis = normalize_axis(axis, x.shape.rank, "boolean_mask")
        if mask.dtype != tf.bool:
            mask = tf.not_equal(mask, tf.zeros((), mask.dtype))
        result = tf.boolean_mask(x, mask, axis=axis)
        return result if new_length is None else _fit_length(result, axis, new_length, fill_value)

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` int64 multi-indices of the non-zero elements; cut or padded with `fill_value` to `length`."""
        values = self._t(values)
        nonzero = values if values.dtype == tf.bool else tf.not_equal(values, tf.zeros((), values.dtype))
        if values.shape.rank == 0:  # tf.where needs a dimension; NumPy gives (1, 0) or (0, 0)
            result = tf.zeros(tf.stack([tf.cast(nonzero, tf.int32), 0]), tf.int64)
        else:
            result = tf.where(nonzero)
        return result if length is None else _fit_length(result, 0, length, fill_value)

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats each element along `axis` `repeats[i]` times.

        With `new_length`, the result is cut to that length or padded by repeating its last
        slice (zeros if it is empty), as `jax.numpy.repeat(total_repeat_length=...)` does.
        """
        x, repeats = self._t(x), self._t(repeats)
        axis = normalize_axis(axis, x.shape.rank, "repeat")
        rules.check_nonnegative(self, repeats, "repeat", "repeats")  # type: ignore[arg-type]
        result = with_signed_bits(tf.repeat, x, repeats, axis=axis)
        if new_length is None:
            return result
        current = tf.shape(result)[axis]
        last = tf.maximum(current - 1, 0)
        index = tf.minimum(tf.range(new_length), last)
        padded = tf.gather(result, index, axis=axis) if result.shape[axis] != 0 else None
        if padded is None:
            return _fit_length(result, axis, new_length, 0)
        return padded

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis by `(lower, upper)` (the spec checks the mode and the widths); returns `NotImplemented` for an unknown mode.

        Modes: 'constant', 'boundary' (edge values), 'periodic' (wrap), 'symmetric' (mirror
        including the edge) and 'reflect' (mirror without repeating the edge).
        """
        value = self._t(value)
        widths = [[int(w) for w in pair] for pair in pad_width]
        mode = "periodic" if mode == "circular" else mode  # PyTorch's name
        if value.shape.rank == 0:  # nothing to pad (TensorFlow wants a (0, 2) matrix)
            return value
        if mode == "constant":
            return tf.pad(value, widths, constant_values=tf.cast(constant_values, value.dtype))
        if 0 in value.shape.as_list():  # no elements to mirror or repeat: still none (the spec refuses widening an empty axis)
            return tf.zeros([n + lo + hi for n, (lo, hi) in zip(value.shape.as_list(), widths, strict=True)], value.dtype)
        if mode in ("symmetric", "reflect"):
            for axis, (lower, upper) in enumerate(widths):
                value = _mirror_pad(value, axis, lower, upper, mode)
            return value
        if mode in ("boundary", "periodic"):
            for axis, (lower, upper) in enumerate(widths):
                value = _edge_pad(value, axis, lower, upper, mode)
            return value
        return NotImplemented

    # ------------------------------------------------------------ sorting and searching

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """`x` sorted ascending along `axis`; NaN last and complex values by real, then imaginary part, as in NumPy."""
        x = self._t(x)
        axis = normalize_axis(axis, x.shape.rank, "sort")
        if x.dtype == tf.bool:
            return tf.cast(tf.sort(tf.cast(x, tf.int8), axis=axis), tf.bool)
        if not (x.dtype.is_floating or x.dtype.is_complex):
            return tf.sort(x, axis=axis)
        return _along_last(x, axis, lambda v: tf.gather(v, _argsort_last(v), axis=-1, batch_dims=v.shape.rank - 1))

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Indices (int64) that sort `x` along `axis`; stable, NaN last, complex values by real, then imaginary part."""
        x = self._t(x)
        axis = normalize_axis(axis, x.shape.rank, "argsort")
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.int8)
        if not (x.dtype.is_floating or x.dtype.is_complex):
            return tf.cast(tf.argsort(x, axis=axis, stable=True), tf.int64)
        return tf.cast(_along_last(x, axis, _argsort_last), tf.int64)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis of `sorted_sequence`, batched over leading dimensions; NaN sorts after +inf.

        Raises:
            ArgumentTypeError: for complex values (TensorFlow has no search kernel for them).
        """
        sequence, values = sorted_sequence, search_values  # of one dtype: the plan's (bk.rules.COMMON_OPERANDS)
        shape = tf.shape(values)
        if sequence.shape.rank == 1:
            result = _search(sequence[None], tf.reshape(values, [1, -1]), side)
            return tf.cast(tf.reshape(result, shape), to_tf_dtype(dtype))
        batch = tf.broadcast_dynamic_shape(tf.shape(sequence)[:-1], tf.shape(values)[:-1])
        sequence = tf.broadcast_to(sequence, tf.concat([batch, tf.shape(sequence)[-1:]], 0))
        values = tf.broadcast_to(values, tf.concat([batch, tf.shape(values)[-1:]], 0))
        return tf.cast(_search(sequence, values, side), to_tf_dtype(dtype))

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
        """Sorted unique slices along `axis` (`None`: unique elements of the flattened `x`).

        All NaNs count as one value, sorted last, as NumPy 2 does. Always returns a tuple:
        `(values,)`, then the int64 inverse indices and counts as asked.
        """
        x = self._t(x)
        if axis is None:
            x, axis = tf.reshape(x, [-1]), 0
        axis = normalize_axis(axis, x.shape.rank, "unique")
        moved = tf.experimental.numpy.moveaxis(x, axis, 0)
        flat = tf.reshape(moved, tf.stack([tf.shape(moved)[0], -1]))
        order = _lexsort_slices(flat)
        ordered = tf.gather(flat, order)
        different = tf.reduce_any(_differ(ordered[1:], ordered[:-1]), axis=1)
        starts = tf.concat([tf.ones([tf.minimum(tf.shape(ordered)[0], 1)], tf.bool), different], 0)
        group = tf.cumsum(tf.cast(starts, tf.int64)) - 1
        first = tf.boolean_mask(tf.range(tf.shape(ordered)[0]), starts)
        unique = tf.gather(tf.gather(moved, order), first)
        result = [tf.experimental.numpy.moveaxis(unique, 0, axis)]
        if return_inverse:
            result.append(tf.scatter_nd(tf.cast(order[:, None], tf.int64), group, tf.cast(tf.shape(order), tf.int64)))
        if return_counts:
            result.append(tf.math.bincount(tf.cast(group, tf.int32), minlength=tf.shape(first)[0], dtype=tf.int64))
        return tuple(result)

    # ------------------------------------------------------------ counting

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (int64) or sums of `weights` of each integer in `[0, bins)`; other values are ignored (`bk.rules` checks)."""
        x = self._t(x)
        bins = rules.check_bincount(from_tf_dtype(x.dtype), bins)
        x = tf.cast(x, tf.int64)
        rules.check_counted_values(self, x)  # type: ignore[arg-type]
        valid = tf.logical_and(x >= 0, x < bins)
        target = tf.where(valid, x, bins)
        if weights is None:
            weights = tf.ones_like(x)
        else:
            weights = self._t(weights)
            if weights.dtype == tf.bool:
                weights = tf.cast(weights, tf.int64)
        return tf.math.unsorted_segment_sum(weights, target, bins + 1)[:bins]

    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of integer flat indices into an array of `shape` (C order), in their dtype
        (`bk.rules`; the range is checked eagerly only)."""
        return rules.unravel_index(self, self._t(flat_index), shape)  # type: ignore[arg-type]

    def batched_bincount(self, x: Tensor, weights: Tensor | None, bins: int) -> Tensor:
        """`bincount` of every row of `(batch, n)` indices, in one call."""
        x = self._t(x)
        bins = rules.check_bincount(from_tf_dtype(x.dtype), bins, "batched_bincount")
        x = tf.cast(x, tf.int64)
        batch = x.shape[0]
        valid = tf.logical_and(x >= 0, x < bins)
        target = tf.where(valid, x + tf.range(batch, dtype=tf.int64)[:, None] * bins, batch * bins)
        weights = tf.ones_like(x) if weights is None else tf.broadcast_to(self._t(weights), tf.shape(x))
        if weights.dtype == tf.bool:  # bool weights count as int64, as bincount's
            weights = tf.cast(weights, tf.int64)
        sums = tf.math.unsorted_segment_sum(weights, target, batch * bins + 1)[:-1]
        return tf.reshape(sums, [batch, bins])

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms `(batch, edges - 1)`; the last bin includes its right edge, as in NumPy."""
        values, weights, edges = self._t(values), self._t(weights), self._t(bin_edges)
        batch = _batch_size(values.shape[0], weights.shape[0], edges.shape[0])
        values, edges = self.auto_cast(values, edges)  # the plan casts neither (not in bk.rules.COMMON_OPERANDS)
        values, edges = _broadcast_batch(values, batch), _broadcast_batch(edges, batch)
        weights = tf.broadcast_to(weights, tf.shape(values))
        if weights.dtype == tf.bool:  # bool weights count as int64, as bincount's
            weights = tf.cast(weights, tf.int64)
        bins = edges.shape[-1] - 1
        if batch == 0:  # TF's searchsorted refuses an empty batch
            return tf.zeros((0, bins), weights.dtype)
        index = tf.searchsorted(edges, values, side="right") - 1
        index = tf.where(tf.equal(values, edges[:, -1:]), bins - 1, index)  # right edge of the last bin
        inside = tf.logical_and(values >= edges[:, :1], values <= edges[:, -1:])
        target = tf.where(inside, index + tf.range(batch)[:, None] * bins, batch * bins)
        sums = tf.math.unsorted_segment_sum(weights, target, batch * bins + 1)[:-1]
        return tf.reshape(sums, [batch, bins])


def _mirror_pad(value: Any, axis: int, lower: int, upper: int, mode: str) -> Any:
    """'symmetric' or 'reflect' padding of one axis, also wider than the axis: in steps of at most the
    axis' size (one less for 'reflect'), mirroring what is already padded, as NumPy's pad does
    (TensorFlow's MirrorPad refuses widths beyond the size). A size-1 axis reflects as its edge."""
    size = value.shape[axis]
    limit = size if mode == "symmetric" else size - 1
    if limit <= 0:
        return _edge_pad(value, axis, lower, upper, "boundary")
    while lower > 0 or upper > 0:
        low, high = min(lower, limit), min(upper, limit)
        pads = [[0, 0]] * value.shape.rank
        pads[axis] = [low, high]
        value = tf.pad(value, pads, mode=mode.upper())
        lower, upper = lower - low, upper - high
    return value
