"""Sorting, searching, counting, gather and scatter on `jax.numpy`; scatter through `.at[]` (arrays are immutable)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

from bk import DType, normalize_axis, rules

Tensor = Any

_INT64: Final = DType(int, 64)


def _index_array(backend: Any, indices: Any, sizes: int | Sequence[int], op: str) -> Any:
    """Integer `indices` into dimensions of `sizes` (an int, or one size per entry of the last axis),
    negative ones counted from the end: `bk.rules.wrap_indices`, which raises `bk.IndexOutOfRangeError`
    for concrete indices outside `[-n, n)`. Tracers (inside `jit_compile` or `vectorized_call`) are only
    wrapped: JAX clamps (gather) or drops (scatter) those still outside. Empty float indices (`[]`, which
    the spec lets through) become int32."""
    indices = backend._t(indices)
    if indices.dtype.kind not in "iu":
        indices = indices.astype(np.int32)
    return rules.wrap_indices(backend, indices, sizes, op)


def _index_vectors(backend: Any, indices: Any, sizes: Sequence[int], op: str) -> list[Any]:
    """The components of `(..., len(sizes))` index vectors, checked and wrapped by `_index_array`
    against one size each."""
    indices = _index_array(backend, indices, tuple(sizes), op)
    return [indices[..., i] for i in range(len(sizes))]


def _combined_batch(*sizes: int) -> int:
    """The batch size of sizes that are equal or 1 (the spec refuses others)."""
    other = {s for s in sizes if s != 1}
    return other.pop() if other else 1


class IndexingMixin:
    """Sorting, searching, counting, gather and scatter of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ sorting, searching, counting

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Ascending along `axis`; NaN sorts last, as in NumPy."""
        return jnp.sort(self._t(x), axis=axis)

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """int64 indices that sort `x` along `axis`; stable (equal elements keep their order), NaN last."""
        return jnp.argsort(self._t(x), axis=axis, stable=True).astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis; a 1-D sequence serves all values, else leading dimensions match."""
        sequence, values = self.auto_cast(self._t(sorted_sequence), self._t(search_values))  # type: ignore[attr-defined]
        search = lambda s, v: jnp.searchsorted(s, v, side=side)  # noqa: E731
        for _ in range(sequence.ndim - 1):
            search = jax.vmap(search)
        return self.cast(search(sequence, values), dtype)  # type: ignore[attr-defined]

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` indices of non-zero elements, padded with `fill_value` or cut to `length` (needed under jit)."""
        result = jnp.argwhere(self._t(values), size=length, fill_value=fill_value if length is not None else None)
        return result.astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]

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
        """Sorted unique slices along `axis` (all NaNs count as one, last) as a tuple: `(values,)`, plus the
        int64 inverse indices (1-D) and counts when asked for.

        The number of unique values decides the shape, so this works on concrete arrays only.
        """
        result = jnp.unique(self._t(x), return_inverse=return_inverse, return_counts=return_counts, axis=axis)
        if not isinstance(result, tuple):
            return (result,)
        index = self._jax_dtype(_INT64)  # type: ignore[attr-defined]
        return (result[0], *(part.reshape(-1).astype(index) for part in result[1:]))

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms; the last bin includes its upper edge and values outside are dropped, as NumPy."""
        values, bin_edges = self.auto_cast(self._t(values), self._t(bin_edges))  # type: ignore[attr-defined]
        weights = self._t(weights)
        batch = next((s for s in (values.shape[0], weights.shape[0], bin_edges.shape[0]) if s != 1), 1)  # sizes of 1 broadcast
        values = jnp.broadcast_to(values, (batch, values.shape[-1]))
        bin_edges = jnp.broadcast_to(bin_edges, (batch, bin_edges.shape[-1]))
        weights = jnp.broadcast_to(weights, values.shape)
        if weights.dtype == np.bool_:
            weights = weights.astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]  # bools count, as bincount's
        bins = bin_edges.shape[-1] - 1
        index = jax.vmap(lambda e, v: jnp.searchsorted(e, v, side="right"))(bin_edges, values) - 1
        index = jnp.where(values == bin_edges[:, -1:], bins - 1, index)
        inside = (index >= 0) & (index < bins)
        index = jnp.where(inside, index, bins)  # out of range: dropped by the scatter
        rows = jnp.arange(values.shape[0])[:, None]
        result = jnp.zeros((values.shape[0], bins), weights.dtype)
        return result.at[rows, index].add(jnp.where(inside, weights, 0), mode="drop")

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or weight sums, in the weights' dtype) of each integer in `[0, bins)`; others are dropped (`bk.rules` checks)."""
        x = self._t(x)
        bins = rules.check_bincount(self.dtype(x), bins)  # type: ignore[attr-defined]
        rules.check_counted_values(self, x)  # type: ignore[arg-type]
        x = jnp.where((x >= 0) & (x < bins), x, bins)  # under jit: negative values would wrap around; move them out
        source = jnp.ones(x.shape, self._jax_dtype(_INT64)) if weights is None else self._t(weights)  # type: ignore[attr-defined]
        if source.dtype == np.bool_:
            source = source.astype(self._jax_dtype(_INT64))  # type: ignore[attr-defined]  # counts of true weights, as NumPy
        if x_sorted:
            return jax.ops.segment_sum(source, x, num_segments=bins, indices_are_sorted=True)
        return jnp.zeros(bins, source.dtype).at[x].add(source, mode="drop")

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of segments starting at `indices` along `axis`, like `numpy.add.reduceat` per batch entry.

        The starts are expected in ascending order, as row pointers are; as with `reduceat`, a segment
        whose start is not below the next start is `x` at its start, and values before the first
        start belong to no segment.
        """
        x, indices = self._t(x), self._t(indices)
        if x.dtype.kind in "biu" and x.dtype.itemsize < 8:  # sums widen as `sum` does: bool and signed to int64, unsigned to uint64
            x = x.astype(jnp.uint64 if x.dtype.kind == "u" else jnp.int64)
        axis = normalize_axis(axis, x.ndim, "indexed_segment_sum")
        rules.check_indices(self, indices, x.shape[axis], "indexed_segment_sum", what="segment start", negative=False)  # type: ignore[arg-type]
        batch = _combined_batch(x.shape[0], indices.shape[0])
        return _batched_reduceat(x, indices.astype(np.int32), axis, batch)

    # ------------------------------------------------------------ gather and scatter

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at `indices` along `axis`; negative indices count from the end.

        Raises:
            bk.IndexOutOfRangeError: for an index outside `[-n, n)` (eagerly; under jit JAX clamps it).
        """
        values = self._t(values)
        indices = _index_array(self, indices, values.shape[axis], "gather")
        return jnp.take(values, indices, axis=axis, mode="clip")

    def gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`values[indices]` for 1-D `values`; negative indices count from the end (also inside `vectorized_call`)."""
        values = self._t(values)
        indices = _index_array(self, indices, values.shape[0], "gather_1d")
        return jnp.take(values, indices, axis=0, mode="clip")

    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices (C order), in the dtype of `flat_index` (`bk.rules`)."""
        return rules.unravel_index(self, self._t(flat_index), shape, lambda flat, sizes: jnp.stack(jnp.unravel_index(flat, sizes), -1))  # type: ignore[arg-type]

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]`: slices (negative steps too), ints and integer tensors, `None` and `...`.

        Raises:
            bk.IndexOutOfRangeError: for an int or a concrete index outside its dimension (the spec checks ints).
        """
        tensor = self._t(tensor)
        slices = slices if isinstance(slices, tuple) else (slices,)
        checked, dim = [], 0
        explicit = sum(1 for s in slices if s is not None and s is not Ellipsis)
        for item in slices:
            if item is Ellipsis:
                dim += tensor.ndim - explicit
            elif item is None:
                pass
            elif isinstance(item, slice):
                dim += 1
            elif getattr(item, "dtype", None) == np.bool_ or isinstance(item, bool):
                dim += max(np.ndim(item), 1)  # a mask: JAX checks its shape
            elif type(item) is int:  # the spec checked it; JAX counts a negative one from the end
                dim += 1
            else:
                item = _index_array(self, item, tensor.shape[dim], "multi_slice")
                dim += 1
            checked.append(item)
        return tensor[tuple(checked)]

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`."""
        values, indices = self._t(values), self._t(indices)
        batch = _combined_batch(values.shape[0], indices.shape[0])
        batch_index = jnp.arange(batch) if values.shape[0] > 1 else jnp.zeros(batch, np.int32)
        batch_index = batch_index.reshape((batch,) + (1,) * (indices.ndim - 2))
        return values[(batch_index, *_index_vectors(self, indices, values.shape[1:-1], "batched_gather_nd"))]

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """Batched scatter into a new array (JAX arrays are immutable); batch, update and channel sizes of 1 broadcast.

        With mode 'update', JAX does not define which of several updates of one element wins.
        """
        base_grid, indices, values = self._t(base_grid), self._t(indices), self._t(values)
        out_dtype = self.combine_types(self.dtype(base_grid), self.dtype(values))  # type: ignore[attr-defined]  # the plan leaves them as they are
        target = np.int8 if mode == "add" and out_dtype.kind is bool else self._jax_dtype(out_dtype)  # type: ignore[attr-defined]  # JAX adds no bools
        base_grid, values = base_grid.astype(target), values.astype(target)
        spatial = base_grid.shape[1:-1]
        batch = _combined_batch(base_grid.shape[0], indices.shape[0], values.shape[0])
        grid = jnp.broadcast_to(base_grid, (batch, *base_grid.shape[1:]))
        where = (jnp.arange(batch).reshape(batch, 1), *_index_vectors(self, indices, spatial, "scatter"))
        source = jnp.broadcast_to(values, (batch, indices.shape[1], base_grid.shape[-1]))
        at = grid.at[where]
        result = {"update": at.set, "add": at.add, "max": at.max, "min": at.min}[mode](source)
        return self.cast(result, out_dtype)  # type: ignore[attr-defined]


@functools.partial(jax.jit, static_argnums=(2, 3))
def _batched_reduceat(x: Tensor, indices: Tensor, axis: int, batch: int) -> Tensor:
    """`_reduceat` of every batch entry, compiled as one function (eagerly, one compilation per shape
    instead of one per primitive)."""
    x = jnp.broadcast_to(x, (batch, *x.shape[1:]))
    indices = jnp.broadcast_to(indices, (batch, indices.shape[-1]))
    return jax.vmap(lambda xb, ib: _reduceat(xb, ib, axis - 1))(x, indices)


def _reduceat(x: Tensor, starts: Tensor, axis: int) -> Tensor:
    """`numpy.add.reduceat(x, starts, axis)` for one batch entry."""
    size, segments = x.shape[axis], starts.shape[0]
    segment_ids = jnp.cumsum(jnp.zeros(size, np.int32).at[starts].add(1)) - 1  # searchsorted(starts, i, 'right') - 1
    segment_ids = jnp.where(segment_ids < 0, segments, segment_ids)  # before the first start: dropped
    moved = jnp.moveaxis(x, axis, 0)
    summed = jax.ops.segment_sum(moved, segment_ids, num_segments=segments)
    following = jnp.concatenate([starts[1:], jnp.full((1,), size, starts.dtype)])
    empty = (following <= starts).reshape((segments,) + (1,) * (moved.ndim - 1))
    return jnp.moveaxis(jnp.where(empty, moved[starts], summed), 0, axis)
