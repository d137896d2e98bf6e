"""Sorting, searching, counting, gather and scatter on native PyTorch operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from bk import DType, normalize_axis, rules
from bk.rules import check_indices, index_needs_cast, wrap_indices

from ._dtypes import to_torch_dtype
from ._math import _WIDE_UNSIGNED, _bits_as_signed, _from_ordered, _narrowed, _ordered, _select, _widened

Tensor = Any

class IndexingMixin:
    """Sorting, searching, counting, gather and scatter of `TorchBackend`."""

    # ------------------------------------------------------------ sorting, searching, counting

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Stable ascending sort; NaN last, as NumPy (complex values never arrive: the core sorts them in NumPy's order)."""
        x = self._t(x)
        dim = normalize_axis(axis, x.ndim, "sort")
        ordered, dtype = _ordered(x)
        return _from_ordered(torch.sort(ordered, dim=dim, stable=True).values, dtype)

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Stable ascending sort order (int64); NaN last, as NumPy."""
        x = self._t(x)
        dim = normalize_axis(axis, x.ndim, "argsort")
        return torch.argsort(_ordered(x)[0], dim=dim, stable=True)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices; a 1-D sequence serves all values, else leading dimensions must match.
        NaN never arrives: the core places it after `+inf`, as NumPy (`TorchBackend.nan_unordered`).
        """
        sequence, values = self.auto_cast(sorted_sequence, search_values)
        self._same_device(sequence, values)
        sequence, values = _ordered(sequence)[0].contiguous(), _ordered(values)[0].contiguous()
        result = torch.searchsorted(sequence, values, right=side == "right")
        return result.to(to_torch_dtype(dtype))

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` int64 indices of non-zero elements, padded with `fill_value` or cut to `length`."""
        values = self._t(values)
        indices = torch.nonzero(values if values.dtype == torch.bool else values != 0)
        if length is None:
            return indices
        if indices.shape[0] >= length:
            return indices[:length]
        padding = torch.full(
            (length - indices.shape[0], indices.shape[1]), fill_value, dtype=indices.dtype, device=indices.device
        )
        return torch.cat([indices, padding])

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """The slices of `x` along `axis` where the 1-D `mask` is true, optionally padded or cut to `new_length`."""
        x, mask = self._t(x), self._t(mask)
        self._same_device(x, mask)
        axis = normalize_axis(axis, x.ndim, "boolean_mask")
        indices = torch.nonzero(mask.to(torch.bool).reshape(-1))[:, 0]
        if new_length is None:
            return _select(x, axis, indices)
        valid = torch.arange(new_length, device=x.device) < indices.shape[0]
        padded = torch.zeros(new_length, dtype=indices.dtype, device=x.device)
        count = min(new_length, indices.shape[0])
        padded[:count] = indices[:count]
        result = _select(x, axis, padded)
        valid = valid.reshape([-1 if i == axis else 1 for i in range(x.ndim)])
        return torch.where(valid, result, torch.as_tensor(fill_value, dtype=x.dtype, device=x.device))

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int | None) -> tuple[Tensor, ...]:
        """Sorted unique values (`axis=None`, of the flattened tensor) or slices along `axis`.

        Returns:
            Always a tuple: `(values,)`, then the inverse indices (int64, flattened for
            `axis=None`, as on every backend) and the counts (int64) when asked for. All NaNs count
            as one value, last.
        """
        x = self._t(x)
        axis = None if axis is None else normalize_axis(axis, x.ndim, "unique")
        if axis is not None and x.ndim > 1 and x.numel() == 0:  # torch refuses empty dimensions it does not select
            return self._empty_unique(x, axis, return_inverse, return_counts)
        if axis is not None and x.ndim > 1:
            values, inverse, counts = torch.unique(x, sorted=True, return_inverse=True, return_counts=True, dim=axis)
        else:
            values, inverse, counts = _unique_flat(x.reshape(-1))
        return (values, *((inverse,) if return_inverse else ()), *((counts,) if return_counts else ()))

    def _empty_unique(self, x: Tensor, axis: int, return_inverse: bool, return_counts: bool) -> tuple[Tensor, ...]:
        """`unique` of a tensor with no elements along `axis`: slices of size 0 are all equal, as NumPy."""
        n = x.shape[axis]
        values = x.narrow(axis, 0, min(n, 1))
        inverse = torch.zeros(n, dtype=torch.int64, device=x.device)
        counts = torch.full((min(n, 1),), n, dtype=torch.int64, device=x.device)
        return (values, *((inverse,) if return_inverse else ()), *((counts,) if return_counts else ()))

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms; the last bin includes its upper edge and values outside are dropped, as NumPy."""
        values, bin_edges = self.auto_cast(self._t(values), self._t(bin_edges))
        weights = self._t(weights)
        self._same_device(values, weights, bin_edges)
        batch = next((s for s in (values.shape[0], weights.shape[0], bin_edges.shape[0]) if s != 1), 1)  # sizes of 1 broadcast
        values = values.expand(batch, values.shape[-1])
        bin_edges = bin_edges.expand(batch, bin_edges.shape[-1])
        weights = weights.expand(values.shape).to(torch.int64 if weights.dtype == torch.bool else weights.dtype)  # bools count
        bins = bin_edges.shape[-1] - 1
        index = torch.searchsorted(bin_edges.contiguous(), values.contiguous(), right=True) - 1
        index = torch.where(values == bin_edges[:, -1:], bins - 1, index)
        inside = (index >= 0) & (index < bins)
        index = torch.where(inside, index, bins)  # an overflow bin, dropped below
        weights = torch.where(inside, weights, torch.zeros_like(weights))
        result = torch.zeros((values.shape[0], bins + 1), dtype=weights.dtype, device=values.device)
        return result.scatter_add(1, index, weights)[:, :bins]

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or weight sums, in the weights' dtype) of each integer in `[0, bins)`; larger ones are dropped (`bk.rules` checks)."""
        x = self._t(x)
        bins = rules.check_bincount(self.dtype(x), bins)  # type: ignore[attr-defined]
        x = x.to(torch.int64)
        rules.check_counted_values(self, x)  # type: ignore[arg-type]
        inside = (x >= 0) & (x < bins)
        index = torch.where(inside, x, bins)
        if weights is None:
            source = inside.to(torch.int64)
        else:
            weights = self._t(weights)
            self._same_device(x, weights)
            source = torch.where(inside, _bits_as_signed(weights), 0)
        result = torch.zeros(bins + 1, dtype=source.dtype, device=x.device).scatter_add(0, index, source)[:bins]
        return _narrowed(result, weights.dtype) if weights is not None and weights.dtype in _WIDE_UNSIGNED else result

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of segments starting at `indices` along `axis`, like `numpy.add.reduceat` per batch entry.

        As with `reduceat`, elements before the first start belong to no segment, and a segment
        whose start is not below the next start is `x` at its start. A start outside `[0, size)` raises
        `IndexOutOfRangeError` (`bk.rules.check_indices`).
        """
        x, indices = self._t(x), self._index_tensor(indices, "indexed_segment_sum")
        self._same_device(x, indices)
        axis = normalize_axis(axis, x.ndim, "indexed_segment_sum")
        x, result_dtype = _widened(x)  # sums widen as in `sum`
        if result_dtype is not None:
            return _narrowed(self.indexed_segment_sum(x, indices, axis), result_dtype)
        size, segments = x.shape[axis], indices.shape[-1]
        check_indices(self, indices, size, "indexed_segment_sum", what="segment start", negative=False)
        batch = max(x.shape[0], indices.shape[0])
        x = x.expand(batch, *x.shape[1:])
        indices = indices.expand(batch, segments)
        positions = torch.arange(size, device=x.device).expand(batch, size).contiguous()
        segment_ids = torch.searchsorted(indices.contiguous(), positions, right=True) - 1
        segment_ids = torch.where(segment_ids < 0, segments, segment_ids)  # before the first start: dropped
        view = [batch if i == 0 else size if i == axis else 1 for i in range(x.ndim)]
        index = segment_ids.reshape(view).expand(x.shape)
        out_shape = list(x.shape)
        out_shape[axis] = segments + 1
        summed = torch.zeros(out_shape, dtype=x.dtype, device=x.device).scatter_add(axis, index, x)
        summed = summed.narrow(axis, 0, segments)
        out_shape[axis] = segments
        segment_view = [batch if i == 0 else segments if i == axis else 1 for i in range(x.ndim)]
        starts = torch.gather(x, axis, indices.reshape(segment_view).expand(out_shape))
        following = torch.cat([indices[:, 1:], torch.full((batch, 1), size, dtype=indices.dtype, device=x.device)], dim=1)
        empty = (following <= indices).reshape(segment_view)
        return torch.where(empty, starts, summed)

    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices into an array of `shape` (C order), in their dtype (`bk.rules`)."""
        return rules.unravel_index(self, self._t(flat_index), shape)  # type: ignore[arg-type]

    # ------------------------------------------------------------ gather and scatter

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at the 1-D `indices` along `axis`; negative indices count from the end (one
        outside `[-size, size)`: PyTorch's `IndexError`, which the core raises as `IndexOutOfRangeError`)."""
        return self._gather(values, indices, axis, "gather")

    def gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`values[indices]` for 1-D `values`; negative indices count from the end."""
        return self._gather(values, indices, 0, "gather_1d")

    def _gather(self, values: Tensor, indices: Tensor, axis: int, op: str) -> Tensor:
        values, indices = self._t(values), self._index_tensor(indices, op)
        self._same_device(values, indices)
        axis = normalize_axis(axis, values.ndim, op)
        return values[(slice(None),) * axis + (indices,)]

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`;
        negative indices count from the end (as in `gather`)."""
        return self._batched_gather(values, indices, "batched_gather_nd")

    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`."""
        values, indices = self._t(values), self._t(indices)
        return self._batched_gather(values[:, :, None], indices[:, :, None], "batched_gather_1d")[..., 0]

    def gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(spatial..., channels)` at `(indices, ndims)` gives `(indices, channels)`."""
        values, indices = self._t(values), self._t(indices)
        return self._batched_gather(values[None], indices[None], "gather_nd")[0]

    def _index_tensor(self, indices: Tensor, op: str) -> torch.Tensor:
        """Indices as int64; bool, float and complex ones go to the core's rule (`bk.rules`), which
        refuses them (PyTorch would take booleans as a mask, floats as truncated ints) or casts an empty `[]`."""
        indices = self._t(indices)
        if indices.is_floating_point() or indices.is_complex() or indices.dtype == torch.bool:
            index_needs_cast(self.dtype(indices), indices.numel(), op)  # type: ignore[attr-defined]
        return indices.to(torch.int64)

    def _batched_gather(self, values: Tensor, indices: Tensor, op: str) -> Tensor:
        values, indices = self._t(values), self._index_tensor(indices, op)
        self._same_device(values, indices)
        batch = max(values.shape[0], indices.shape[0])  # equal or 1: the spec checks them
        batch_index = (
            torch.arange(batch, device=values.device)
            if values.shape[0] > 1
            else torch.zeros(batch, dtype=torch.int64, device=values.device)
        )
        batch_index = batch_index.reshape((batch,) + (1,) * (indices.ndim - 2))
        components = [indices[..., i] for i in range(indices.shape[-1])]
        return values[(batch_index, *components)]

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Batched scatter into a copy of `base_grid`; batch, update and channel sizes of 1 broadcast.
        Negative indices count from the end (`bk.rules.wrap_indices`: `IndexOutOfRangeError` outside `[-size, size)`)."""
        return self._scatter(base_grid, indices, values, mode, "scatter")

    def scatter_nd(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Unbatched scatter: `(spatial..., channels)`, `(updates, ndims)`, `(updates or 1, channels or 1)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self._scatter(base_grid[None], indices[None], values[None], mode, "scatter_nd")[0]

    def scatter_1d_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter into a 1-D tensor: `(spatial,)`, `(updates,)`, `(updates or 1,)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self._scatter(base_grid[None, :, None], indices[None, :, None], values[None, :, None], mode, "scatter_1d_scalar")[0, :, 0]

    def scatter_nd_scalar(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Scatter without channels: `(spatial...)`, `(updates, ndims)`, `(updates or 1,)`."""
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        return self._scatter(base_grid[None, ..., None], indices[None], values[None, :, None], mode, "scatter_nd_scalar")[0, ..., 0]

    def _scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str, op: str) -> Tensor:
        base_grid, indices, values = self._t(base_grid), self._index_tensor(indices, op), self._t(values)
        self._same_device(base_grid, indices, values)
        out_dtype = self.combine_types(self.dtype(base_grid), self.dtype(values))
        base_grid, values = self.auto_cast(base_grid, values)
        if mode != "update" and base_grid.dtype == torch.bool:  # sums and products of booleans: counted as ints
            base_grid, values = base_grid.to(torch.int64), values.to(torch.int64)
        spatial = base_grid.shape[1:-1]
        indices = wrap_indices(self, indices, tuple(spatial), op)
        batch = max(base_grid.shape[0], indices.shape[0], values.shape[0])  # equal or 1: the spec checks them
        channels, updates = base_grid.shape[-1], indices.shape[1]
        flat_index = torch.zeros(indices.shape[:-1], dtype=torch.int64, device=indices.device)
        for i, size in enumerate(spatial):
            flat_index = flat_index * size + indices[..., i]
        flat_index = flat_index.expand(batch, updates)[..., None].expand(batch, updates, channels)
        grid = base_grid.reshape(base_grid.shape[0], -1, channels).expand(batch, -1, channels)
        source = values.expand(batch, updates, channels)
        unsigned = grid.dtype if grid.dtype in _WIDE_UNSIGNED else None  # no PyTorch kernels: signed images
        if mode == "update":
            result = _bits_as_signed(grid).scatter(1, flat_index, _bits_as_signed(source))
        elif mode == "add":
            result = _bits_as_signed(grid).scatter_add(1, flat_index, _bits_as_signed(source))
        else:
            reduce = "amax" if mode == "max" else "amin"
            result = _ordered(grid)[0].scatter_reduce(1, flat_index, _ordered(source)[0], reduce=reduce, include_self=True)
            result = _from_ordered(result, unsigned) if unsigned is not None else result
            unsigned = None
        if unsigned is not None:
            result = _narrowed(result, unsigned)
        return self.cast(result.reshape(batch, *spatial, channels), out_dtype)


def _unique_flat(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`torch.unique` of a 1-D tensor with all NaNs as one value, last (PyTorch keeps every NaN)."""
    if not x.is_floating_point() or not bool(torch.isnan(x).any()):
        ordered, dtype = _ordered(x)
        values, inverse, counts = torch.unique(ordered, sorted=True, return_inverse=True, return_counts=True)
        return _from_ordered(values, dtype), inverse, counts
    nan = torch.isnan(x)
    values, inverse, counts = torch.unique(x[~nan], sorted=True, return_inverse=True, return_counts=True)
    full_inverse = torch.full(x.shape, values.shape[0], dtype=inverse.dtype, device=x.device)
    full_inverse[~nan] = inverse
    values = torch.cat([values, x[nan][:1]])
    counts = torch.cat([counts, nan.sum().reshape(1).to(counts.dtype)])
    return values, full_inverse, counts
