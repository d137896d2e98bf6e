"""Gather, scatter, masks, padding, sorting, searching and counting (a mixin of `DaskBackend`).

Padding is `dask.array.pad`; gathers, scatters, searching and sorting run bk-numpy on blocks that
hold whole rows or samples (one task per chunk); the others run bk-numpy as one lazy task over
whole arrays (on one worker), which reads the chunks of its inputs itself. Operations whose output
size depends on the data return arrays of unknown length (`None` in `staticshape`) unless a fixed
length is asked for; none of them computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

import dask.array as da
import numpy as np
from dask.base import tokenize

from bk import DType, eval_shape, get_precision, normalize_axis
from bk.rules import array_key_layout

from ._blocks import call_with_extra, kernel, probe, task
from ._dtypes import as_dask

__all__ = ["IndexingMixin"]

Tensor = Any

_PAD_MODES: Final = {"constant": "constant", "boundary": "edge", "periodic": "wrap", "circular": "wrap", "symmetric": "symmetric", "reflect": "reflect"}


def _ndim(x: Any) -> int:
    return int(getattr(x, "ndim", np.ndim(x)))


class IndexingMixin:
    """Indexing operations as lazy tasks of bk-numpy; `pad` through `dask.array.pad`."""

    # ------------------------------------------------------------ gather and scatter

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]`: dask's own chunked slicing for slices, ints, `None` and `...`; a key with
        integer or bool arrays (NumPy's advanced indexing, which dask does only in part and without
        checking a dask array's indices) is one task of bk-numpy's indexing over the whole array, whose
        out-of-range indices raise `IndexOutOfRangeError` when computed. Sizes that depend on a mask
        are unknown (`None` in `staticshape`) until then."""
        tensor = as_dask(tensor)
        if not array_key_layout(slices)[0]:
            return tensor[slices]
        shape = eval_shape("multi_slice", tensor, slices).shape
        return task("multi_slice", [tensor, slices], unknown={0: [axis for axis, size in enumerate(shape) if size is None]})

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at the 1-D `indices` along `axis`: chunked over the other axes and
        over `indices` (each task holds the whole of `axis`). Out-of-range indices raise
        `IndexOutOfRangeError` when computed (they are data)."""
        values = as_dask(values)
        if values.ndim == 0 or np.ndim(indices) != 1 or any(np.isnan(s) for s in values.shape):
            return task("gather", [values, indices, axis])
        axis = normalize_axis(axis, values.ndim, "gather")
        indices = as_dask(indices)
        function = partial(kernel, "gather", get_precision(), (("axis", axis),))
        dtype = np.asarray(probe(function, np.empty((0,) * values.ndim, values.dtype), np.empty((0,), indices.dtype))).dtype
        value_index = tuple(range(values.ndim))
        out_index = tuple(values.ndim if i == axis else i for i in value_index)  # the axis takes the indices' chunks
        return da.blockwise(
            function, out_index, values.rechunk({axis: -1}), value_index, indices, (values.ndim,),
            dtype=dtype, meta=np.empty((0,) * values.ndim, dtype), concatenate=True,
        )

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`:
        one task per chunk of the batch (each holds whole samples); one task when a batch of 1 broadcasts."""
        values_, indices_ = as_dask(values), as_dask(indices)
        if not _same_batches(values_, indices_) or values_.ndim < 2 or indices_.ndim < 2:
            return task("batched_gather_nd", [values, indices])
        v, i = values_.ndim, indices_.ndim  # letters: 0 the batch, then values' axes, then the indices'
        value_index = (0, *range(1, v))
        index_index = (0, *range(v, v + i - 1))
        out_index = (0, *index_index[1:-1], v - 1)
        return _over_batch("batched_gather_nd", out_index, [(values_, value_index), (indices_, index_index)])

    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`: chunked over the batch and
        the indices (each task holds whole rows of `values`); one task when one batch broadcasts."""
        return _rows("batched_gather_1d", values, indices)

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """A copy of `base_grid` with `values` scattered at `indices` ('update', 'add', 'max', 'min'): one
        task per chunk of the batch (each holds whole samples); one task when a batch of 1 broadcasts."""
        grid_, indices_, values_ = as_dask(base_grid), as_dask(indices), as_dask(values)
        if not _same_batches(grid_, indices_, values_) or grid_.ndim < 2 or indices_.ndim != 3 or values_.ndim != 3:
            return task("scatter", [base_grid, indices, values, mode])
        g = grid_.ndim
        grid_index = tuple(range(g))
        arrays = [(grid_, grid_index), (indices_, (0, g, g + 1)), (values_, (0, g + 2, g + 3))]
        return _over_batch("scatter", grid_index, arrays, (mode,))

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of contiguous segments of `x` along `axis` starting at `(batch, segments)` indices (one task)."""
        return task("indexed_segment_sum", [x, indices, axis])

    # ------------------------------------------------------------ masks, repetition, padding

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices of `x` along `axis` where the 1-D `mask` is true; the length is unknown (`None` in
        `staticshape`) until computed unless `new_length` fixes it (one task, nothing computed)."""
        unknown = {0: (axis % _ndim(x),)} if new_length is None and isinstance(mask, da.Array) else None
        return task("boolean_mask", [x, mask, axis, new_length, fill_value], unknown=unknown)

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` indices of the non-zero elements; `nnz` is unknown (`None` in `staticshape`)
        until computed unless `length` fixes it (one task, nothing computed)."""
        unknown = {0: (0,)} if length is None else None
        return task("nonzero", [values, length, fill_value], unknown=unknown)

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats each element along `axis` `repeats[i]` times; with lazy `repeats` the length is unknown
        unless `new_length` fixes it (one task, nothing computed)."""
        unknown = {0: (axis % _ndim(x),)} if new_length is None and isinstance(repeats, da.Array) else None
        return task("repeat", [x, repeats, axis, new_length], unknown=unknown)

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis by `(lower, upper)` with `dask.array.pad` (chunked)."""
        dask_mode = _PAD_MODES[mode]  # the spec refuses other modes
        value = as_dask(value)
        if 0 in value.shape:  # dask cannot pad empty chunks; the result needs no data but the fill value
            return task("pad", [value, pad_width, mode, constant_values])
        widths = tuple((int(lo), int(hi)) for lo, hi in np.asarray(pad_width, dtype=np.int64).reshape(value.ndim, 2))
        spare = 1 if dask_mode == "reflect" else 0  # reflect mirrors without the edge: at most n - 1 at once
        if dask_mode not in ("constant", "edge") and any(max(w) > n - spare for w, n in zip(widths, value.shape, strict=True)):
            return task("pad", [value, pad_width, mode, constant_values])  # wider than the axis: dask's pad gets the chunks wrong
        if dask_mode == "constant" and isinstance(constant_values, da.Array):  # a lazy fill: dask's pad would compute it
            inside = da.pad(da.ones(value.shape, bool, chunks=value.chunks), widths, mode="constant", constant_values=False)
            padded = da.where(inside, da.pad(value, widths, mode="constant"), constant_values.astype(value.dtype))
        elif dask_mode == "constant":
            fill = np.asarray(constant_values).astype(value.dtype)
            padded = da.pad(value, widths, mode="constant", constant_values=fill)
        else:
            padded = da.pad(value, widths, mode=dask_mode)
        # dask puts each pad in chunks of its own; merged into the edge chunks, the result keeps the
        # input's chunk count, and slices of it (a stencil) line up with the input's chunks again
        chunks = tuple((c[0] + lo, *c[1:-1], c[-1] + hi) if len(c) > 1 else (c[0] + lo + hi,) for c, (lo, hi) in zip(value.chunks, widths, strict=True))
        return padded if chunks == padded.chunks or any(np.isnan(s) for s in value.shape) else padded.rechunk(chunks)

    # ------------------------------------------------------------ sorting and searching

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """`x` sorted ascending along `axis`; NaN last. Chunked over the other axes (`axis` in one chunk)."""
        return _along_axis("sort", x, axis)

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Indices that sort `x` along `axis`; stable. Chunked over the other axes (`axis` in one chunk)."""
        return _along_axis("argsort", x, axis)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis of `sorted_sequence`, batched over leading dimensions:
        chunked over those and over the search values (each task holds whole rows of `sorted_sequence`)."""
        return _rows("searchsorted", sorted_sequence, search_values, side, dtype)

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
        """Sorted unique slices along `axis`, and as asked the inverse indices and the counts; the number
        of unique slices is unknown (`None` in `staticshape`) until computed (one task, nothing computed)."""
        unknown = {0: (0,) if axis is None else (axis % _ndim(x),)}  # axis None: unique elements, flattened
        if return_counts:
            unknown[1 + int(return_inverse)] = (0,)
        return task("unique", [x, return_inverse, return_counts, axis], unknown=unknown, single=False)  # type: ignore[no-any-return]

    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices (C order), in the dtype of `flat_index` (one task)."""
        return task("unravel_index", [flat_index, tuple(shape)])

    def ravel_multi_index(self, multi_index: Tensor, shape: Sequence[int], mode: str | int = "undefined") -> Tensor:
        """Flat indices of `(..., ndims)` multi-indices (C order); `mode` 'undefined', 'periodic', 'clamp' or an int (one task)."""
        return task("ravel_multi_index", [multi_index, tuple(shape), mode])

    # ------------------------------------------------------------ counting

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or sums of `weights`) of each integer in `[0, bins)` (one task)."""
        return task("bincount", [x, weights, bins, x_sorted])

    def batched_bincount(self, x: Tensor, weights: Tensor | None, bins: int) -> Tensor:
        """`bincount` of every row of `(batch, n)` indices (one task)."""
        return task("batched_bincount", [x, weights, bins])

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms `(batch, edges - 1)` (one task)."""
        return task("histogram1d", [values, weights, bin_edges])


def _along_axis(name: str, x: Tensor, axis: int) -> Tensor:
    """bk-numpy's `name(block, axis)` on blocks that hold the whole of `axis`, keeping the other
    axes' chunks; one task for 0-d and empty inputs (which dask cannot chunk)."""
    x = as_dask(x)
    if x.ndim == 0 or 0 in x.shape or any(np.isnan(s) for s in x.shape):
        return task(name, [x, axis])
    axis = normalize_axis(axis, x.ndim, name)
    function = partial(kernel, name, get_precision(), (("axis", axis),))
    dtype = np.asarray(probe(function, np.empty((0,) * x.ndim, x.dtype))).dtype
    return x.rechunk({axis: -1}).map_blocks(function, dtype=dtype, meta=np.empty((0,) * x.ndim, dtype))


def _rows(name: str, rows: Tensor, other: Tensor, *extra: Any) -> Tensor:
    """bk-numpy's `name(rows, other, *extra)` for operations that read whole rows (the last axis) of
    `rows` at each position of `other`, batched over the leading axes: one task per chunk of `other`,
    with `rows` rechunked to whole rows and its batch chunks aligned with `other`'s (a 1-D `rows` is
    one chunk that every task reads). One task over whole arrays for what this cannot chunk: 0-d or
    empty inputs, sizes unknown until computed, and batches that broadcast."""
    rows_, other_ = as_dask(rows), as_dask(other)
    chunkable = (
        rows_.ndim >= 1 and other_.ndim >= 1 and 0 not in rows_.shape and 0 not in other_.shape
        and not any(np.isnan(s) for s in (*rows_.shape, *other_.shape))
        and (rows_.ndim == 1 or rows_.shape[:-1] == other_.shape[:-1])
    )
    if not chunkable:
        return task(name, [rows, other, *extra])
    function = partial(kernel, name, get_precision(), ())
    with_extra = partial(call_with_extra, function, extra)
    dtype = np.asarray(probe(with_extra, np.zeros((1,) * rows_.ndim, rows_.dtype), np.zeros((1,) * other_.ndim, other_.dtype))).dtype
    out_index = tuple(range(other_.ndim))
    if rows_.ndim == 1:
        pairs: list[Any] = [rows_.rechunk(-1), (other_.ndim,), other_, out_index]
    else:
        pairs = [rows_.rechunk({rows_.ndim - 1: -1}), (*out_index[:-1], other_.ndim), other_, out_index]
    return da.blockwise(
        with_extra, out_index, *pairs, dtype=dtype, meta=np.empty((0,) * other_.ndim, dtype), concatenate=True, align_arrays=True,
        name=f"{name}-{tokenize(name, get_precision(), extra, rows_, other_)}",
    )


def _same_batches(*arrays: da.Array) -> bool:
    """Whether `arrays` share one batch size (their first axis) and have known, non-zero sizes: what
    `_over_batch` chunks; a batch of 1 that broadcasts, or an unknown size, is one task instead."""
    return (
        all(a.ndim >= 1 for a in arrays)
        and not any(np.isnan(s) or s == 0 for a in arrays for s in a.shape)
        and len({a.shape[0] for a in arrays}) == 1
    )


def _over_batch(name: str, out_index: tuple[int, ...], arrays: list[tuple[da.Array, tuple[int, ...]]], extra: tuple[Any, ...] = ()) -> Tensor:
    """bk-numpy's `name(*arrays, *extra)` on every chunk of the batch (axis 0, shared by `arrays`),
    each task holding whole samples: the other axes are rechunked to one chunk, the batch chunks
    aligned with the first array's. `out_index` names the output's axes by the arrays' letters."""
    function = partial(kernel, name, get_precision(), ())
    call = partial(call_with_extra, function, extra)
    standins = [np.broadcast_to(np.zeros((), a.dtype), (1, *a.shape[1:])) for a, _ in arrays]
    dtype = np.asarray(probe(call, *standins)).dtype
    batch = arrays[0][0].chunks[0]
    pairs: list[Any] = []
    for a, index in arrays:
        pairs += [a.rechunk((batch, *(-1,) * (a.ndim - 1))), index]
    token = tokenize(name, get_precision(), extra, *[a for a, _ in arrays])
    return da.blockwise(
        call, out_index, *pairs, dtype=dtype, meta=np.empty((0,) * len(out_index), dtype), concatenate=True, name=f"{name}-{token}"
    )
