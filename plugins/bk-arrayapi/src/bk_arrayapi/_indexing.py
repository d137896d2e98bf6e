"""Gather, scatter, masks, padding, sorting, searching and counting (a mixin of `ArrayAPIBackend`).

The standard has no scatter and no in-place updates that every namespace allows, so scatter,
`bincount` and `histogram1d` compare each index with every target position (a one-hot mask) and
reduce: exact, but memory grows with updates x positions. Operations whose output shape
depends on the data declare the `data-dependent shapes` capability.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from bk import DType, normalize_axis, rules
from bk.rules import pad_source_indices

from ._needs import needs

__all__ = ["IndexingMixin"]

Tensor = Any

_DATA_DEPENDENT: Final = ("data-dependent shapes",)
_INT64: Final = DType(int, 64)
_INT8: Final = DType(int, 8)


def _batch_size(*sizes: int) -> int:
    """The batch of sizes that are equal or 1 (the spec refuses others before the kernel runs)."""
    return next((s for s in sizes if s != 1), 1)


class IndexingMixin:
    """Indexing through `take`, `sort`, `argsort`, `searchsorted`, `nonzero`, `cumulative_sum`, masks and reductions."""

    xp: Any

    def _indices(self, values: Any, like: Any) -> Tensor:
        """Host (NumPy) indices as an int64 array of the namespace, on the device of the array `like`."""
        return self.xp.asarray(np.asarray(values, dtype=np.int64), dtype=self._index_dtype, device=self._ref(like))  # type: ignore[attr-defined]

    def _checked(self, op: str, indices: Tensor, n: int) -> Tensor:
        """Integer indices (or empty float ones, `[]`; the spec refuses others) into a dimension of size `n`,
        as int64, negative ones counted from the end (`bk.rules.wrap_indices`: `IndexOutOfRangeError` for one outside)."""
        indices = self._astype(self._native(indices, op), _INT64)  # type: ignore[attr-defined]
        return rules.wrap_indices(self, indices, n, op)  # type: ignore[arg-type]

    # ------------------------------------------------------------ gather

    @needs("take")
    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at `indices` along `axis` (the indices' shape replaces that axis, as
        `numpy.take`); negative indices count from the end.

        Raises:
            ArgumentTypeError: for indices that are not integers.
            IndexOutOfRangeError: for an index outside the dimension.
        """
        values = self._native(values, "gather")  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(values.shape), "gather")
        indices = self._checked("gather", indices, values.shape[axis])
        if len(indices.shape) == 1:
            return self.xp.take(values, indices, axis=axis)
        taken = self.xp.take(values, self.xp.reshape(indices, (-1,)), axis=axis)  # the standard takes 1-D indices
        return self.xp.reshape(taken, (*values.shape[:axis], *indices.shape, *values.shape[axis + 1 :]))

    def _flat_indices(self, op: str, indices: Tensor, spatial: tuple[int, ...]) -> Tensor:
        """`(..., ndims)` multi-indices as flat (C order) int64 indices into `spatial`."""
        indices = self._native(indices, op)  # type: ignore[attr-defined]
        flat = None
        for d, size in enumerate(spatial):
            component = self._checked(op, indices[..., d], size) * math.prod(spatial[d + 1 :])
            flat = component if flat is None else flat + component
        return flat if flat is not None else self.xp.zeros(indices.shape[:-1], dtype=self._index_dtype, device=self._ref(indices))  # type: ignore[attr-defined]

    @needs("take")
    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`; batch 1 broadcasts.

        Raises:
            IndexOutOfRangeError: for an index outside its dimension.
        """
        values, indices = self._native(values, "batched_gather_nd"), self._native(indices, "batched_gather_nd")  # type: ignore[attr-defined]
        spatial = tuple(values.shape[1:-1])
        batch = _batch_size(values.shape[0], indices.shape[0])
        flat = self._flat_indices("batched_gather_nd", indices, spatial)
        table = self.xp.reshape(values, (values.shape[0], math.prod(spatial), values.shape[-1]))
        rows = [self.xp.take(table[min(b, values.shape[0] - 1), ...], self.xp.reshape(flat[min(b, indices.shape[0] - 1), ...], (-1,)), axis=0) for b in range(batch)]
        return self.xp.reshape(self.xp.stack(rows), (batch, *indices.shape[1:-1], values.shape[-1]))

    @needs("take")
    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`; batch 1 broadcasts."""
        values, indices = self._native(values, "batched_gather_1d"), self._native(indices, "batched_gather_1d")  # type: ignore[attr-defined]
        return self.batched_gather_nd(values[:, :, None], indices[:, :, None])[..., 0]

    @needs("take")
    def gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(spatial..., channels)` at `(indices, ndims)` gives `(indices, channels)`."""
        values, indices = self._native(values, "gather_nd"), self._native(indices, "gather_nd")  # type: ignore[attr-defined]
        return self.batched_gather_nd(values[None, ...], indices[None, ...])[0, ...]

    # ------------------------------------------------------------ scatter

    @needs("where", "any", "max", "min", "sum", "take", "broadcast_to")
    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """A copy of `(batch, spatial..., channels)` `base_grid` with `values` scattered at `indices`.

        Args:
            indices: `(batch or 1, updates, ndims)` integer indices.
            values: `(batch or 1, updates or 1, channels or 1)`.
            mode: `'update'` (the last duplicate wins), `'add'`, `'max'` or `'min'`.

        Raises:
            ValueError: for another mode.
            IndexOutOfRangeError: for an index outside its dimension.
        """
        xp = self.xp
        # their common dtype (the core's plan casts no operands of scatter: not one of bk.rules.COMMON_OPERANDS)
        base_grid, values = self._native(base_grid, "scatter"), self._native(values, "scatter")  # type: ignore[attr-defined]
        base_grid, values = self.auto_cast(base_grid, values)  # type: ignore[attr-defined]
        indices = self._native(indices, "scatter")  # type: ignore[attr-defined]
        spatial, channels = tuple(base_grid.shape[1:-1]), base_grid.shape[-1]
        batch = _batch_size(base_grid.shape[0], indices.shape[0], values.shape[0])
        updates, size = indices.shape[1], math.prod(spatial)
        base = xp.reshape(xp.broadcast_to(base_grid, (batch, *base_grid.shape[1:])), (batch, size, channels))
        flat = xp.broadcast_to(self._flat_indices("scatter", indices, spatial), (batch, updates))
        if updates == 0:
            return xp.reshape(xp.asarray(base, copy=True), (batch, *spatial, channels))
        vals = xp.broadcast_to(values, (batch, updates, channels))
        hits = flat[:, :, None] == self._indices(np.arange(size), flat)[None, None, :]  # (batch, updates, size)
        if mode == "update":
            order = xp.where(hits, self._indices(np.arange(updates), flat)[None, :, None], -1)
            last = xp.max(order, axis=1)  # the last update of each position, -1 for none
            picked = xp.stack([xp.take(vals[b, ...], xp.where(last[b, ...] < 0, 0, last[b, ...]), axis=0) for b in range(batch)])
            result = xp.where(last[:, :, None] >= 0, picked, base)
        elif mode == "add":
            zero = xp.zeros_like(vals[:, :, None, :])
            result = base + xp.sum(xp.where(hits[:, :, :, None], vals[:, :, None, :], zero), axis=1, dtype=base.dtype)
        else:
            masked = xp.where(hits[:, :, :, None], vals[:, :, None, :], xp.broadcast_to(base[:, None, :, :], (batch, updates, size, channels)))
            reduced = (xp.max if mode == "max" else xp.min)(masked, axis=1)
            combine = xp.maximum if mode == "max" else xp.minimum
            result = xp.where(xp.any(hits, axis=1)[:, :, None], combine(base, reduced), base)
        return xp.reshape(result, (batch, *spatial, channels))

    @needs("where", "any", "max", "min", "sum", "take", "broadcast_to")
    def scatter_nd(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Unbatched scatter: `(spatial..., channels)`, `(updates, ndims)`, `(updates or 1, channels or 1)`."""
        base_grid, indices, values = (self._native(v, "scatter_nd") for v in (base_grid, indices, values))  # type: ignore[attr-defined]
        return self.scatter(base_grid[None, ...], indices[None, ...], values[None, ...], mode=mode)[0, ...]

    @needs("where", "any", "max", "min", "sum", "take", "broadcast_to")
    def scatter_1d_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter into a 1-D tensor: `(spatial,)`, `(updates,)`, `(updates or 1,)`."""
        base_grid, indices, values = (self._native(v, "scatter_1d_scalar") for v in (base_grid, indices, values))  # type: ignore[attr-defined]
        return self.scatter(base_grid[None, :, None], indices[None, :, None], values[None, :, None], mode=mode)[0, :, 0]

    @needs("where", "any", "max", "min", "sum", "take", "broadcast_to")
    def scatter_nd_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter without channels: `(spatial...)`, `(updates, ndims)`, `(updates or 1,)`."""
        base_grid, indices, values = (self._native(v, "scatter_nd_scalar") for v in (base_grid, indices, values))  # type: ignore[attr-defined]
        return self.scatter(base_grid[None, ..., None], indices[None, ...], values[None, :, None], mode=mode)[0, ..., 0]

    @needs("repeat", capabilities=_DATA_DEPENDENT)
    def csr_to_coo(self, column_indices: Tensor, row_pointers: Tensor) -> Tensor:
        """`(batch, nnz, 2)` COO indices of `(batch, nnz)` column indices and `(batch, rows + 1)` row pointers."""
        columns, pointers = self._native(column_indices, "csr_to_coo"), self._native(row_pointers, "csr_to_coo")  # type: ignore[attr-defined]
        counts = self._astype(pointers[:, 1:] - pointers[:, :-1], _INT64)  # type: ignore[attr-defined]
        rows = self._indices(np.arange(counts.shape[-1]), columns)
        dtype = self._dt(columns)  # type: ignore[attr-defined]
        expanded = [self._astype(self.repeat(rows, counts[b, ...], 0, new_length=columns.shape[1]), dtype) for b in range(columns.shape[0])]  # type: ignore[attr-defined]
        return self.xp.stack([self.xp.stack(expanded), columns], axis=-1)

    @needs("take", "where", "sum", "moveaxis", "concat", "full")
    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of contiguous segments of `(batch, ...)` `x` along `axis`, starting at `(batch, segments)`
        indices, as `numpy.add.reduceat` (a start not before the next one gives that single slice).

        Raises:
            ValueError: for axis 0, the batch.
            IndexOutOfRangeError: for a start outside the axis.
        """
        xp = self.xp
        x = self._native(x, "indexed_segment_sum")  # type: ignore[attr-defined]
        kind = self._dt(x)  # type: ignore[attr-defined]
        if kind.kind in (bool, int) and (kind.bits or 64) < 64:  # sums widen as `sum` does: to int64 (uint64 for unsigned)
            x = self._astype(x, DType(int, 64, signed=False) if kind.kind is int and not kind.signed else DType(int, 64))  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(x.shape), "indexed_segment_sum")
        length = x.shape[axis]
        starts = self._astype(self._native(indices, "indexed_segment_sum"), _INT64)  # type: ignore[attr-defined]
        rules.check_indices(self, starts, length, "indexed_segment_sum", "segment start", negative=False)  # type: ignore[arg-type]
        batch = _batch_size(x.shape[0], starts.shape[0])
        moved = xp.moveaxis(x, axis, 1)  # (batch or 1, length, rest...)
        rest = (1,) * (len(moved.shape) - 2)
        ends = xp.concat([starts[:, 1:], xp.full((starts.shape[0], 1), length, dtype=starts.dtype, device=self._ref(starts))], axis=1)  # type: ignore[attr-defined]
        position = self._indices(np.arange(length), starts)[None, None, :]
        inside = (position >= starts[:, :, None]) & (position < ends[:, :, None])  # (batch or 1, segments, length)
        inside = xp.reshape(inside, (*inside.shape, *rest))
        sums = xp.sum(xp.where(inside, moved[:, None, ...], xp.zeros_like(moved[:, None, ...])), axis=2, dtype=moved.dtype)
        singles = xp.stack([xp.take(moved[min(b, moved.shape[0] - 1), ...], starts[min(b, starts.shape[0] - 1), ...], axis=0) for b in range(batch)])
        result = xp.where(xp.reshape(starts < ends, (*starts.shape, *rest)), sums, singles)
        return xp.moveaxis(result, 1, axis)

    # ------------------------------------------------------------ masks, repetition, padding

    def _fit_length(self, x: Tensor, axis: int, length: int, fill_value: Any) -> Tensor:
        current = x.shape[axis]
        if current >= length:
            return self.xp.take(x, self._indices(np.arange(length), x), axis=axis)
        shape = list(x.shape)
        shape[axis] = length - current
        dtype = self._dt(x)  # type: ignore[attr-defined]
        filler = self.xp.full(tuple(shape), bool(fill_value) if dtype.kind is bool else fill_value, dtype=x.dtype, device=self._ref(x))  # type: ignore[attr-defined]
        return self.xp.concat([x, filler], axis=axis)

    @needs("nonzero", "stack", capabilities=_DATA_DEPENDENT)
    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` int64 multi-indices of the non-zero elements; cut or padded with `fill_value` to `length`."""
        values = self._native(values, "nonzero")  # type: ignore[attr-defined]
        if len(values.shape) == 0:  # NumPy's argwhere: one row without columns where the value is true
            count = int(bool(self.xp.any(self._astype(values, DType(bool)))))  # type: ignore[attr-defined]
            return self.xp.zeros((count if length is None else length, 0), dtype=self._index_dtype, device=self._ref(values))  # type: ignore[attr-defined]
        result = self._astype(self.xp.stack(self.xp.nonzero(values), axis=-1), _INT64)  # type: ignore[attr-defined]
        return result if length is None else self._fit_length(result, 0, length, fill_value)

    @needs("nonzero", "take", capabilities=_DATA_DEPENDENT)
    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices of `x` along `axis` where the 1-D `mask` is true; cut or padded with `fill_value` to `new_length`.

        Raises:
            IndexOutOfRangeError: for a mask whose length is not that of the dimension.
        """
        x, mask = self._native(x, "boolean_mask"), self._native(mask, "boolean_mask")  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(x.shape), "boolean_mask")
        if self._dt(mask).kind is not bool:  # type: ignore[attr-defined]
            mask = self._astype(mask, DType(bool))  # type: ignore[attr-defined]
        result = self.xp.take(x, self.xp.nonzero(mask)[0], axis=axis)
        return result if new_length is None else self._fit_length(result, axis, new_length, fill_value)

    @needs("repeat", capabilities=_DATA_DEPENDENT)
    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats each element along `axis` `repeats[i]` times; with `new_length` the result is cut to
        it or padded by repeating its last slice (zeros if it is empty), as `jax.numpy.repeat` does."""
        x = self._native(x, "repeat")  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(x.shape), "repeat")
        if not isinstance(repeats, int):
            repeats = self._astype(self._native(repeats, "repeat"), _INT64)  # type: ignore[attr-defined]
        result = self.xp.repeat(x, repeats, axis=axis)
        current = result.shape[axis]
        if new_length is None or current == new_length:
            return result
        if current > new_length or current == 0:
            return self._fit_length(result, axis, new_length, 0)
        index = np.minimum(np.arange(new_length), current - 1)
        return self.xp.take(result, self._indices(index, result), axis=axis)

    @needs("take", "full", "concat")
    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis by `(lower, upper)`; `ValueError` for an unknown mode.

        Modes: 'constant', 'boundary' (edge values), 'periodic' (wrap; also by PyTorch's name
        'circular'), 'symmetric' (mirror including the edge) and 'reflect' (mirror without repeating the edge).
        """
        mode = "periodic" if mode == "circular" else mode  # PyTorch's name
        x = self._native(value, "pad")  # type: ignore[attr-defined]
        widths = np.asarray(pad_width, dtype=np.int64).reshape(len(x.shape), 2)
        for axis, (lower, upper) in enumerate(widths.tolist()):
            if lower == upper == 0:
                continue
            if mode == "constant":
                x = self._pad_constant(x, axis, lower, upper, constant_values)
            else:
                x = self.xp.take(x, self._indices(pad_source_indices(x.shape[axis], lower, upper, mode), x), axis=axis)
        return x

    def _pad_constant(self, x: Tensor, axis: int, lower: int, upper: int, fill: Any) -> Tensor:
        parts = []
        for width in (lower, upper):
            shape = list(x.shape)
            shape[axis] = width
            fill_value = fill.item() if hasattr(fill, "item") else fill
            parts.append(self.xp.astype(self.xp.full(tuple(shape), fill_value, device=self._ref(x)), x.dtype) if width else None)  # type: ignore[attr-defined]
        return self.xp.concat([p for p in (parts[0], x, parts[1]) if p is not None], axis=axis)

    # ------------------------------------------------------------ sorting and searching

    @needs("sort")
    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """`x` sorted ascending along `axis` (NaN last where the namespace sorts as NumPy)."""
        x = self._native(x, "sort")  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(x.shape), "sort")  # a 0-d tensor has no axis: AxisError
        return self.xp.sort(x, axis=axis)  # no bools, no complex values: the class declares them

    @needs("argsort")
    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Int64 indices that sort `x` along `axis`; stable."""
        x = self._native(x, "argsort")  # type: ignore[attr-defined]
        axis = normalize_axis(axis, len(x.shape), "argsort")  # a 0-d tensor has no axis: AxisError
        return self._astype(self.xp.argsort(x, axis=axis, stable=True), _INT64)  # type: ignore[attr-defined]

    @needs("searchsorted")
    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis of `sorted_sequence`, batched over leading dimensions.

        Raises:
            ValueError: if `side` is not 'left' or 'right'.
        """
        sequence, values = sorted_sequence, search_values  # of one dtype: the core's plan casts them
        if len(sequence.shape) == 1:
            result = self.xp.searchsorted(sequence, values, side=side)
        elif math.prod(sequence.shape[:-1]) == 0:  # no rows: nothing to search (reshaping to (0, -1) is ambiguous)
            result = self.xp.zeros((*sequence.shape[:-1], values.shape[-1]), dtype=self._native_dtype(DType(int, 64)), device=self._ref(sequence))  # type: ignore[attr-defined]
        else:
            batch = sequence.shape[:-1]
            rows = self.xp.reshape(sequence, (-1, sequence.shape[-1]))
            wanted = self.xp.reshape(self.xp.broadcast_to(values, (*batch, values.shape[-1])), (rows.shape[0], -1))
            found = [self.xp.searchsorted(rows[i, ...], wanted[i, ...], side=side) for i in range(rows.shape[0])]
            result = self.xp.reshape(self.xp.stack(found), (*batch, values.shape[-1]))
        return self._astype(result, dtype)  # type: ignore[attr-defined]

    @needs("argsort", "take", "nonzero", "cumulative_sum", "isnan", "any", "moveaxis", capabilities=_DATA_DEPENDENT)
    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
        """Sorted unique slices along `axis` (all NaNs count as one, last), and as asked the int64
        inverse indices and counts. Rows are ordered lexicographically by stable argsorts."""
        xp = self.xp
        x = self._native(x, "unique")  # type: ignore[attr-defined]
        if not x.shape or axis is None:  # axis None: the unique elements of the flattened tensor
            x, axis = xp.reshape(x, (-1,)), 0
        axis = normalize_axis(axis, len(x.shape), "unique")
        moved = xp.moveaxis(x, axis, 0) if axis else x
        n = moved.shape[0]
        rows = xp.reshape(moved, (n, math.prod(moved.shape[1:])))
        order = self._indices(np.arange(n), moved)
        for column in reversed(range(rows.shape[1])):
            keys = xp.take(rows[:, column], order, axis=0)
            order = xp.take(order, xp.argsort(keys, stable=True), axis=0)
        if n == 0:
            empty = self._indices(np.zeros(0), x)
            return (x, *[empty] * (int(return_inverse) + int(return_counts)))
        ordered = xp.take(rows, order, axis=0)
        new = self._differs(ordered[1:, ...], ordered[:-1, ...])
        first = xp.concat([xp.ones((1,), dtype=new.dtype, device=self._ref(new)), new])  # type: ignore[attr-defined]
        starts = xp.nonzero(first)[0]
        values = xp.take(moved, xp.take(order, starts, axis=0), axis=0)
        result = [xp.moveaxis(values, 0, axis) if axis else values]
        if return_inverse:
            group = xp.cumulative_sum(self._astype(first, _INT64)) - 1  # type: ignore[attr-defined]
            result.append(xp.take(group, xp.argsort(order, stable=True), axis=0))
        if return_counts:
            ends = xp.concat([starts[1:], self._indices([n], starts)])
            result.append(self._astype(ends - starts, _INT64))  # type: ignore[attr-defined]
        return tuple(result)

    def _differs(self, a: Tensor, b: Tensor) -> Tensor:
        """Per row: whether any element differs, NaN equal to NaN."""
        xp = self.xp
        different = a != b
        if self._dt(a).kind in (float, complex):  # type: ignore[attr-defined]
            different = different & ~(xp.isnan(a) & xp.isnan(b))
        return xp.any(different, axis=1)

    # ------------------------------------------------------------ counting

    @needs("sum", "where")
    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (int64) or sums of `weights` of each integer in `[0, bins)`; values `>= bins` are ignored (`bk.rules` checks)."""
        xp = self.xp
        x = self._native(x, "bincount")  # type: ignore[attr-defined]
        bins = operator.index(bins)  # checked by the spec
        if self._dt(x).kind is bool:  # type: ignore[attr-defined]
            x = self._astype(x, _INT64)  # type: ignore[attr-defined]
        rules.check_counted_values(self, x)  # type: ignore[arg-type]
        if self._dt(x) != _INT64:  # type: ignore[attr-defined]  # the namespace compares one int dtype (values beyond int64 wrap: ignored)
            x = self._astype(x, _INT64)  # type: ignore[attr-defined]
        hits = x[:, None] == self._indices(np.arange(bins), x)[None, :]
        if weights is None:
            return xp.sum(self._astype(hits, _INT64), axis=0)  # type: ignore[attr-defined]
        weights = self._native(weights, "bincount")  # type: ignore[attr-defined]
        if self._dt(weights).kind is bool:  # type: ignore[attr-defined]
            weights = self._astype(weights, _INT64)  # type: ignore[attr-defined]
        return xp.sum(xp.where(hits, weights[:, None], xp.zeros_like(weights)[:, None]), axis=0, dtype=weights.dtype)

    @needs("sum", "where", "searchsorted")
    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms `(batch, edges - 1)`; the last bin includes its right edge, as in NumPy."""
        xp = self.xp
        values, weights, edges = (self._native(v, "histogram1d") for v in (values, weights, bin_edges))  # type: ignore[attr-defined]
        batch = _batch_size(values.shape[0], weights.shape[0], edges.shape[0])
        bins = edges.shape[-1] - 1
        values, edges = self.auto_cast(values, edges)  # type: ignore[attr-defined]  # int values beside float edges: the common type
        if self._dt(weights).kind is bool:  # type: ignore[attr-defined]  # bools count as int64, as bincount's
            weights = self._astype(weights, _INT64)  # type: ignore[attr-defined]
        values = xp.broadcast_to(values, (batch, values.shape[-1]))
        edges = xp.broadcast_to(edges, (batch, bins + 1))
        weights = xp.broadcast_to(weights, values.shape)
        index = self._astype(self.searchsorted(edges, values, "right"), _INT64) - 1  # type: ignore[attr-defined]
        index = xp.where(values == edges[:, -1:], bins - 1, index)  # the right edge belongs to the last bin
        hits = index[:, :, None] == self._indices(np.arange(bins), index)[None, None, :]
        return xp.sum(xp.where(hits, weights[:, :, None], xp.zeros_like(weights)[:, :, None]), axis=1, dtype=weights.dtype)

    @needs("stack", "any")
    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices into an array of `shape` (C order), in the
        dtype of the flat indices (`bk.rules`)."""
        return rules.unravel_index(self, self._native(flat_index, "unravel_index"), shape)  # type: ignore[arg-type, attr-defined]

    # ------------------------------------------------------------ diagonals

    @needs("linalg.diagonal")
    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
        matrices = self._native(matrices, "get_diagonal")  # type: ignore[attr-defined]
        moved = self.xp.permute_dims(matrices, (0, 3, 1, 2))
        return self.xp.permute_dims(self.xp.linalg.diagonal(moved, offset=offset), (0, 2, 1))
