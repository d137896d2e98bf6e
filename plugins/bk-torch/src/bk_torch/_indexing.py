"""Sorting, searching, counting, gather and scatter on native PyTorch operations."""

from __future__ import annotations

from typing import Any

import torch

from bk import DType

from ._dtypes import to_torch_dtype

Tensor = Any

_SCATTER_MODES = ("update", "add", "max", "min")


class IndexingMixin:
    """Sorting, searching, counting, gather and scatter of `TorchBackend`."""

    # ------------------------------------------------------------ sorting, searching, counting

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        return torch.sort(self._t(x), dim=axis, stable=True).values

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        return torch.argsort(self._t(x), dim=axis, stable=True)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices; a 1-D sequence serves all values, else leading dimensions must match.

        Raises:
            ValueError: for a `side` other than 'left' or 'right'.
        """
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right' but got {side!r}")
        sequence, values = self.auto_cast(self._t(sorted_sequence), self._t(search_values))
        self._same_device(sequence, values)
        result = torch.searchsorted(sequence.contiguous(), values.contiguous(), right=side == "right")
        return result.to(to_torch_dtype(dtype))

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` indices of non-zero elements, padded with `fill_value` or cut to `length`."""
        indices = torch.nonzero(self._t(values))
        if length is None:
            return indices
        if indices.shape[0] >= length:
            return indices[:length]
        padding = torch.full(
            (length - indices.shape[0], indices.shape[1]), fill_value, dtype=indices.dtype, device=indices.device
        )
        return torch.cat([indices, padding])

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        x, mask = self._t(x), self._t(mask)
        self._same_device(x, mask)
        indices = torch.nonzero(mask.to(torch.bool).reshape(-1))[:, 0]
        if new_length is None:
            return torch.index_select(x, axis, indices)
        valid = torch.arange(new_length, device=x.device) < indices.shape[0]
        padded = torch.zeros(new_length, dtype=indices.dtype, device=x.device)
        count = min(new_length, indices.shape[0])
        padded[:count] = indices[:count]
        result = torch.index_select(x, axis, padded)
        valid = valid.reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)])
        return torch.where(valid, result, torch.as_tensor(fill_value, dtype=x.dtype, device=x.device))

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> Any:
        """Sorted unique slices along `axis`; like `numpy.unique`, a lone array unless inverse or counts are asked for."""
        x = self._t(x)
        return torch.unique(x, sorted=True, return_inverse=return_inverse, return_counts=return_counts, dim=axis)

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms; the last bin includes its upper edge and values outside are dropped, as NumPy."""
        values, bin_edges = self.auto_cast(self._t(values), self._t(bin_edges))
        weights = self._t(weights)
        self._same_device(values, weights, bin_edges)
        bins = bin_edges.shape[-1] - 1
        index = torch.searchsorted(bin_edges.contiguous(), values.contiguous(), right=True) - 1
        index = torch.where(values == bin_edges[:, -1:], bins - 1, index)
        inside = (index >= 0) & (index < bins)
        index = torch.where(inside, index, bins)  # an overflow bin, dropped below
        weights = torch.where(inside, weights, torch.zeros_like(weights))
        result = torch.zeros((values.shape[0], bins + 1), dtype=weights.dtype, device=values.device)
        return result.scatter_add(1, index, weights)[:, :bins]

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or weight sums, in the weights' dtype) of each integer in `[0, bins)`; others are dropped."""
        x = self._t(x).to(torch.int64)
        inside = (x >= 0) & (x < bins)
        index = torch.where(inside, x, bins)
        if weights is None:
            source = inside.to(torch.int64)
        else:
            weights = self._t(weights)
            self._same_device(x, weights)
            source = torch.where(inside, weights, torch.zeros_like(weights))
        result = torch.zeros(bins + 1, dtype=source.dtype, device=x.device)
        return result.scatter_add(0, index, source)[:bins]

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of segments starting at `indices` along `axis`, like `numpy.add.reduceat` per batch entry.

        As with `reduceat`, a segment whose start is not below the next start is `x` at its start.
        """
        x, indices = self._t(x), self._t(indices).to(torch.int64)
        self._same_device(x, indices)
        axis %= x.ndim
        size, segments = x.shape[axis], indices.shape[-1]
        batch = max(x.shape[0], indices.shape[0])
        x = x.expand(batch, *x.shape[1:])
        indices = indices.expand(batch, segments)
        positions = torch.arange(size, device=x.device).expand(batch, size).contiguous()
        segment_ids = torch.searchsorted(indices.contiguous(), positions, right=True) - 1
        segment_ids = torch.clamp(segment_ids, 0, segments - 1)
        view = [batch if i == 0 else size if i == axis else 1 for i in range(x.ndim)]
        index = segment_ids.reshape(view).expand(x.shape)
        out_shape = list(x.shape)
        out_shape[axis] = segments
        summed = torch.zeros(out_shape, dtype=x.dtype, device=x.device).scatter_add(axis, index, x)
        starts = torch.gather(
            x, axis, indices.reshape([batch if i == 0 else segments if i == axis else 1 for i in range(x.ndim)]).expand(out_shape)
        )
        following = torch.cat([indices[:, 1:], torch.full((batch, 1), size, dtype=indices.dtype, device=x.device)], dim=1)
        empty = (following <= indices).reshape([batch if i == 0 else segments if i == axis else 1 for i in range(x.ndim)])
        return torch.where(empty, starts, summed)

    # ------------------------------------------------------------ gather and scatter

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        values, indices = self._t(values), self._t(indices)
        self._same_device(values, indices)
        return values[(slice(None),) * (axis % values.ndim) + (indices.to(torch.int64),)]

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`.

        Raises:
            ValueError: if the index vectors do not match the spatial rank or batch sizes differ.
        """
        values, indices = self._t(values), self._t(indices).to(torch.int64)
        self._same_device(values, indices)
        if indices.shape[-1] != values.ndim - 2:
            raise ValueError(
                f"indices must have {values.ndim - 2} components for values of shape {tuple(values.shape)} but have {indices.shape[-1]}"
            )
        batch = _combined_batch(values.shape[0], indices.shape[0])
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

        Raises:
            ValueError: for a mode other than 'update', 'add', 'max', 'min', or mismatching shapes.
        """
        if mode not in _SCATTER_MODES:
            raise ValueError(f"scatter mode must be one of {_SCATTER_MODES} but got {mode!r}")
        base_grid, indices, values = self._t(base_grid), self._t(indices).to(torch.int64), self._t(values)
        self._same_device(base_grid, indices, values)
        out_dtype = self.combine_types(self.dtype(base_grid), self.dtype(values))
        base_grid, values = self.auto_cast(base_grid, values, bool_to_int=mode != "update")
        spatial = base_grid.shape[1:-1]
        if indices.shape[-1] != len(spatial):
            raise ValueError(
                f"indices must have {len(spatial)} components for a grid of shape {tuple(base_grid.shape)} but have {indices.shape[-1]}"
            )
        batch = _combined_batch(_combined_batch(base_grid.shape[0], indices.shape[0]), values.shape[0])
        channels, updates = base_grid.shape[-1], indices.shape[1]
        flat_index = torch.zeros(indices.shape[:-1], dtype=torch.int64, device=indices.device)
        for i, size in enumerate(spatial):
            flat_index = flat_index * size + indices[..., i]
        flat_index = flat_index.expand(batch, updates)[..., None].expand(batch, updates, channels)
        grid = base_grid.reshape(base_grid.shape[0], -1, channels).expand(batch, -1, channels)
        source = values.expand(batch, updates, channels)
        if mode == "update":
            result = grid.scatter(1, flat_index, source)
        elif mode == "add":
            result = grid.scatter_add(1, flat_index, source)
        else:
            result = grid.scatter_reduce(1, flat_index, source, reduce="amax" if mode == "max" else "amin", include_self=True)
        return self.cast(result.reshape(batch, *spatial, channels), out_dtype)


def _combined_batch(a: int, b: int) -> int:
    if a != b and a != 1 and b != 1:
        raise ValueError(f"batch sizes {a} and {b} do not match; use equal sizes or 1 for broadcasting")
    return max(a, b)
