"""Sorting, searching, counting, gather and scatter on `jax.numpy`; scatter through `.at[]` (arrays are immutable)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

from bk import DType

Tensor = Any

_SCATTER_MODES: Final = ("update", "add", "max", "min")


def _combined_batch(*sizes: int) -> int:
    other = {s for s in sizes if s != 1}
    if len(other) > 1:
        raise ValueError(f"batch sizes {sizes} do not match; use equal sizes or 1 for broadcasting")
    return other.pop() if other else 1


class IndexingMixin:
    """Sorting, searching, counting, gather and scatter of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ sorting, searching, counting

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Ascending along `axis`; NaN sorts last, as in NumPy."""
        return jnp.sort(self._t(x), axis=axis)

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Stable: equal elements keep their order."""
        return jnp.argsort(self._t(x), axis=axis, stable=True)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis; a 1-D sequence serves all values, else leading dimensions match.

        Raises:
            ValueError: for a `side` other than 'left' or 'right'.
        """
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right' but got {side!r}")
        sequence, values = self.auto_cast(self._t(sorted_sequence), self._t(search_values))  # type: ignore[attr-defined]
        search = lambda s, v: jnp.searchsorted(s, v, side=side)  # noqa: E731
        for _ in range(sequence.ndim - 1):
            search = jax.vmap(search)
        return self.cast(search(sequence, values), dtype)  # type: ignore[attr-defined]

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` indices of non-zero elements, padded with `fill_value` or cut to `length` (needed under jit)."""
        return jnp.argwhere(self._t(values), size=length, fill_value=fill_value if length is not None else None)

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices where the 1-D `mask` holds; with `new_length` (needed under jit) padded with `fill_value` or cut."""
        x, mask = self._t(x), self._t(mask).astype(bool)
        if new_length is None:
            return jnp.compress(mask, x, axis=axis)
        indices = jnp.nonzero(mask, size=new_length, fill_value=-1)[0]
        result = jnp.take(x, jnp.maximum(indices, 0), axis=axis)
        valid = (indices >= 0).reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)])
        return jnp.where(valid, result, jnp.asarray(fill_value, x.dtype))

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> Any:
        """Sorted unique slices along `axis`; like `numpy.unique`, a lone array unless inverse or counts are asked for.

        The number of unique values decides the shape, so this works on concrete arrays only.
        """
        return jnp.unique(self._t(x), return_inverse=return_inverse, return_counts=return_counts, axis=axis)

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms; the last bin includes its upper edge and values outside are dropped, as NumPy."""
        values, bin_edges = self.auto_cast(self._t(values), self._t(bin_edges))  # type: ignore[attr-defined]
        weights = self._t(weights)
        bins = bin_edges.shape[-1] - 1
        index = jax.vmap(lambda e, v: jnp.searchsorted(e, v, side="right"))(bin_edges, values) - 1
        index = jnp.where(values == bin_edges[:, -1:], bins - 1, index)
        inside = (index >= 0) & (index < bins)
        index = jnp.where(inside, index, bins)  # out of range: dropped by the scatter
        rows = jnp.arange(values.shape[0])[:, None]
        result = jnp.zeros((values.shape[0], bins), weights.dtype)
        return result.at[rows, index].add(jnp.where(inside, weights, 0), mode="drop")

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or weight sums, in the weights' dtype) of each integer in `[0, bins)`; others are dropped."""
        x = self._t(x)
        x = jnp.where((x >= 0) & (x < bins), x, bins)  # negative values would wrap around; move them out
        source = jnp.ones(x.shape, np.int32) if weights is None else self._t(weights)
        if x_sorted:
            return jax.ops.segment_sum(source, x, num_segments=bins, indices_are_sorted=True)
        return jnp.zeros(bins, source.dtype).at[x].add(source, mode="drop")

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of segments starting at `indices` along `axis`, like `numpy.add.reduceat` per batch entry.

        The starts are expected in ascending order, as row pointers are; as with `reduceat`, a segment
        whose start is not below the next start is `x` at its start, and values before the first
        start belong to no segment.
        """
        x, indices = self._t(x), self._t(indices).astype(np.int32)
        axis %= x.ndim
        batch = _combined_batch(x.shape[0], indices.shape[0])
        x = jnp.broadcast_to(x, (batch, *x.shape[1:]))
        indices = jnp.broadcast_to(indices, (batch, indices.shape[-1]))
        return jax.vmap(lambda xb, ib: _reduceat(xb, ib, axis - 1))(x, indices)

    # ------------------------------------------------------------ gather and scatter

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        return jnp.take(self._t(values), self._t(indices), axis=axis, mode="clip")

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`.

        Raises:
            ValueError: if the index vectors do not match the spatial rank or batch sizes differ.
        """
        values, indices = self._t(values), self._t(indices)
        if indices.shape[-1] != values.ndim - 2:
            raise ValueError(
                f"indices must have {values.ndim - 2} components for values of shape {values.shape} but have {indices.shape[-1]}"
            )
        batch = _combined_batch(values.shape[0], indices.shape[0])
        batch_index = jnp.arange(batch) if values.shape[0] > 1 else jnp.zeros(batch, np.int32)
        batch_index = batch_index.reshape((batch,) + (1,) * (indices.ndim - 2))
        return values[(batch_index, *(indices[..., i] for i in range(indices.shape[-1])))]

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Batched scatter into a new array (JAX arrays are immutable); batch, update and channel sizes of 1 broadcast.

        With mode 'update', JAX does not define which of several updates of one element wins.

        Raises:
            ValueError: for a mode other than 'update', 'add', 'max', 'min', or mismatching shapes.
        """
        if mode not in _SCATTER_MODES:
            raise ValueError(f"scatter mode must be one of {_SCATTER_MODES} but got {mode!r}")
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        out_dtype = self.combine_types(self.dtype(base_grid), self.dtype(values))  # type: ignore[attr-defined]
        base_grid, values = self.auto_cast(base_grid, values, bool_to_int=mode != "update")  # type: ignore[attr-defined]
        spatial = base_grid.shape[1:-1]
        if indices.shape[-1] != len(spatial):
            raise ValueError(
                f"indices must have {len(spatial)} components for a grid of shape {base_grid.shape} but have {indices.shape[-1]}"
            )
        batch = _combined_batch(base_grid.shape[0], indices.shape[0], values.shape[0])
        grid = jnp.broadcast_to(base_grid, (batch, *base_grid.shape[1:]))
        where = (jnp.arange(batch).reshape(batch, 1), *(indices[..., i] for i in range(len(spatial))))
        source = jnp.broadcast_to(values, (batch, indices.shape[1], base_grid.shape[-1]))
        at = grid.at[where]
        result = {"update": at.set, "add": at.add, "max": at.max, "min": at.min}[mode](source)
        return self.cast(result, out_dtype)  # type: ignore[attr-defined]


def _reduceat(x: Tensor, starts: Tensor, axis: int) -> Tensor:
    """`numpy.add.reduceat(x, starts, axis)` for one batch entry."""
    size, segments = x.shape[axis], starts.shape[0]
    segment_ids = jnp.searchsorted(starts, jnp.arange(size), side="right") - 1
    segment_ids = jnp.where(segment_ids < 0, segments, segment_ids)  # before the first start: dropped
    moved = jnp.moveaxis(x, axis, 0)
    summed = jax.ops.segment_sum(moved, segment_ids, num_segments=segments)
    following = jnp.concatenate([starts[1:], jnp.full((1,), size, starts.dtype)])
    empty = (following <= starts).reshape((segments,) + (1,) * (moved.ndim - 1))
    return jnp.moveaxis(jnp.where(empty, moved[starts], summed), 0, axis)
