"""Gather, scatter, masks, padding, sorting, searching and counting (a mixin of `NumPyBackend`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from bk import DType, normalize_axis, rules, to_numpy_dtype

from ._errors import reraise

__all__ = ["IndexingMixin"]

Tensor = Any

_PAD_MODES: Final = {
    "constant": "constant",
    "boundary": "edge",
    "periodic": "wrap",
    "circular": "wrap",  # PyTorch's name for periodic
    "symmetric": "symmetric",
    "reflect": "reflect",
}
_SCATTER_UFUNCS: Final = {"add": np.add, "max": np.maximum, "min": np.minimum}
_RAVEL_MODES: Final = {"undefined": "clip", "periodic": "wrap", "clamp": "clip"}


def _comparable(x: Any) -> Any:
    """bfloat16 (ml_dtypes) as float32, the same values: NumPy's sorting does not place its NaN last."""
    return x.astype(np.float32) if x.dtype.kind == "V" else x


def _batch_size(op: str, *sizes: int) -> int:
    """The common batch size of `sizes`, where 1 broadcasts (the spec refuses sizes that differ otherwise)."""
    others = {s for s in sizes if s != 1}
    return others.pop() if others else 1


def _fit_length(x: Any, axis: int, length: int, fill_value: Any) -> Any:
    """`x` cut or padded with `fill_value` to `length` along `axis`."""
    current = x.shape[axis]
    if current >= length:
        return np.take(x, np.arange(length), axis=axis)
    widths = [(0, length - current) if i == axis % x.ndim else (0, 0) for i in range(x.ndim)]
    return np.pad(x, widths, mode="constant", constant_values=fill_value)


def batched_searchsorted(sorted_sequence: Any, values: Any, side: str) -> Any:
    """Insertion indices of `(batch..., m)` values into `(batch..., n)` sorted rows, fully vectorised.

    Each row's sequence and values are sorted together (stable, with the tie order that `side`
    asks for); a value's index is the number of sequence elements sorted before it.
    """
    batch = np.broadcast_shapes(sorted_sequence.shape[:-1], values.shape[:-1])
    seq = np.broadcast_to(sorted_sequence, (*batch, sorted_sequence.shape[-1]))
    vals = np.broadcast_to(values, (*batch, values.shape[-1]))
    dtype = np.result_type(seq.dtype, vals.dtype)
    n, m = seq.shape[-1], vals.shape[-1]
    # 'left': a value sorts before equal sequence elements; 'right': after them
    parts = (vals, seq) if side == "left" else (seq, vals)
    keys = np.concatenate([p.astype(dtype, copy=False) for p in parts], axis=-1)
    if side == "left":
        is_seq = np.concatenate([np.zeros(m, bool), np.ones(n, bool)])
    else:
        is_seq = np.concatenate([np.ones(n, bool), np.zeros(m, bool)])
    order = np.argsort(keys, axis=-1, kind="stable")
    sorted_is_seq = is_seq[order]
    before = np.cumsum(sorted_is_seq, axis=-1) - sorted_is_seq
    result = np.empty((*batch, m), np.int64)
    value_positions = order - (0 if side == "left" else n)  # index into vals where not a sequence element
    mask = ~sorted_is_seq
    batch_index = np.nonzero(mask)[:-1]
    result[(*batch_index, value_positions[mask])] = before[mask]
    return result


class IndexingMixin:
    """Indexing operations of NumPy: fancy indexing, `ufunc.at`, `np.pad`, `np.unique`, ..."""

    # ------------------------------------------------------------ gather

    def multi_slice(self, tensor: Tensor, slices: tuple[Any, ...]) -> Tensor:
        """`tensor[slices]`: NumPy's own basic and advanced indexing, which the spec describes (the core
        explains an `IndexError`)."""
        return np.asarray(tensor)[slices]

    def gather(self, values: Tensor, indices: Tensor, axis: int) -> Tensor:
        """The slices of `values` at the 1-D `indices` along `axis`; negative indices count from the end.

        Raises:
            IndexOutOfRangeError: for an index outside `[-n, n)`.
            AxisError: for an axis out of range.
        """
        indices = np.asarray(indices)
        if indices.dtype.kind not in "iu":  # empty float indices (`[]`): the spec refuses other kinds
            indices = indices.astype(np.intp)
        try:
            return np.take(np.asarray(values), indices, axis=axis)
        except (IndexError, ValueError) as error:
            reraise("gather", error)

    def batched_gather_nd(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial..., channel)` at `(batch, any..., ndims)` gives `(batch, any..., channel)`; batch 1 broadcasts."""
        values, indices = np.asarray(values), np.asarray(indices)
        batch = _batch_size("batched_gather_nd", values.shape[0], indices.shape[0])
        if values.shape[0] == 1:
            batch_index: Any = 0
        else:
            batch_index = np.arange(batch).reshape((batch,) + (1,) * (indices.ndim - 2))
        try:
            return values[(batch_index, *np.moveaxis(indices, -1, 0))]
        except IndexError as error:
            reraise("batched_gather_nd", error)

    def batched_gather_1d(self, values: Tensor, indices: Tensor) -> Tensor:
        """`(batch, spatial)` at `(batch, indices)` gives `(batch, indices)`; batch 1 broadcasts."""
        values, indices = np.asarray(values), np.asarray(indices)
        batch = _batch_size("batched_gather_1d", values.shape[0], indices.shape[0])
        rows = np.arange(batch)[:, None] if values.shape[0] > 1 else 0
        return values[rows, indices]

    # ------------------------------------------------------------ scatter

    def scatter(self, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
        """A copy of `(batch, spatial..., channels)` `base_grid` with `values` scattered at `indices`.

        Args:
            indices: `(batch or 1, updates, ndims)` integer indices.
            values: `(batch or 1, updates or 1, channels or 1)`.
            mode: `'update'` (the last duplicate wins), `'add'`, `'max'` or `'min'`.
        """
        base_grid, indices, values = np.asarray(base_grid), np.asarray(indices), np.asarray(values)
        dtype = np.result_type(base_grid, values)  # NumPy's promotion: the plan casts the result to the spec's dtype
        batch = _batch_size("scatter", base_grid.shape[0], indices.shape[0], values.shape[0])
        result = np.array(np.broadcast_to(base_grid, (batch, *base_grid.shape[1:])), dtype=dtype)
        updates = indices.shape[1]
        rows = np.broadcast_to(np.arange(batch)[:, None], (batch, updates))
        where = (rows, *[np.broadcast_to(indices[..., d], (batch, updates)) for d in range(indices.shape[-1])])
        values = np.broadcast_to(values.astype(dtype, copy=False), (batch, updates, result.shape[-1]))
        try:
            if mode == "update":
                result[where] = values
            else:
                _SCATTER_UFUNCS[mode].at(result, where, values)
        except IndexError as error:
            reraise("scatter", error)
        return result

    def indexed_segment_sum(self, x: Tensor, indices: Tensor, axis: int) -> Tensor:
        """Sums of contiguous segments of `(batch, ...)` `x` along `axis`, starting at `(batch, segments)` indices.

        Elements before the first start belong to no segment (as `numpy.add.reduceat`).

        Raises:
            IndexOutOfRangeError: for a start outside `[0, n)`.
        """
        x, indices = np.asarray(x), np.asarray(indices)
        axis = normalize_axis(axis, x.ndim, "indexed_segment_sum")
        rules.check_indices(self, indices, x.shape[axis], "indexed_segment_sum", "segment start", negative=False)
        batch = _batch_size("indexed_segment_sum", x.shape[0], indices.shape[0])
        x = np.broadcast_to(x, (batch, *x.shape[1:]))
        indices = np.broadcast_to(indices, (batch, indices.shape[1]))
        if not np.all(indices[:, 0] == 0):  # reduceat over the flattened batch needs segments to start at 0
            return np.stack([np.add.reduceat(x[b], indices[b], axis=axis - 1) for b in range(batch)])
        moved = np.moveaxis(x, axis, 1)
        length = moved.shape[1]
        flat = moved.reshape((batch * length, *moved.shape[2:]))
        starts = (indices + (np.arange(batch) * length)[:, None]).reshape(-1)
        sums = np.add.reduceat(flat, starts, axis=0).reshape((batch, indices.shape[1], *moved.shape[2:]))
        return np.moveaxis(sums, 1, axis)

    # ------------------------------------------------------------ masks, repetition, padding

    def boolean_mask(self, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0) -> Tensor:
        """Slices of `x` along `axis` where the 1-D `mask` is true; cut or padded with `fill_value` to `new_length`."""
        x, mask = np.asarray(x), np.asarray(mask, bool)
        result = np.compress(mask, x, axis=axis)
        return result if new_length is None else _fit_length(result, axis, new_length, fill_value)

    def nonzero(self, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
        """`(nnz, ndims)` multi-indices of the non-zero elements; cut or padded with `fill_value` to `length`."""
        result = np.argwhere(values)
        return result if length is None else _fit_length(result, 0, length, fill_value)

    def repeat(self, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
        """Repeats each element along `axis` `repeats[i]` times.

        With `new_length`, the result is cut to that length or padded by repeating its last
        slice (zeros if it is empty), as `jax.numpy.repeat(total_repeat_length=...)` does.
        """
        x = np.asarray(x)
        result = np.repeat(x, np.asarray(repeats), axis=axis)
        if new_length is None or result.shape[axis] == new_length:
            return result
        if result.shape[axis] > new_length or result.shape[axis] == 0:
            return _fit_length(result, axis, new_length, 0)
        widths = [(0, new_length - result.shape[axis]) if i == axis % result.ndim else (0, 0) for i in range(result.ndim)]
        return np.pad(result, widths, mode="edge")

    def pad(self, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0) -> Tensor:
        """Pads every axis by `(lower, upper)`.

        Modes: 'constant', 'boundary' (edge values), 'periodic' (wrap), 'symmetric' (mirror
        including the edge) and 'reflect' (mirror without repeating the edge). The spec checks the mode
        and the widths.
        """
        value = np.asarray(value)
        if value.ndim == 0:  # nothing to pad (NumPy's pad fails on 0-d arrays in every mode but 'constant')
            return value.copy()
        widths = np.asarray(pad_width, dtype=np.int64).reshape(value.ndim, 2)
        np_mode = _PAD_MODES[mode]
        if np_mode == "constant":
            return np.pad(value, widths, mode="constant", constant_values=np.asarray(constant_values).astype(value.dtype))
        return np.pad(value, widths, mode=np_mode)

    # ------------------------------------------------------------ sorting and searching

    def sort(self, x: Tensor, axis: int = -1) -> Tensor:
        """`x` sorted ascending along `axis`; NaN last."""
        x = np.asarray(x)
        try:
            return np.sort(_comparable(x), axis=axis).astype(x.dtype, copy=False)
        except ValueError as error:
            reraise("sort", error)

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Indices that sort `x` along `axis`; stable."""
        x = np.asarray(x)
        try:
            return np.argsort(_comparable(x), axis=axis, kind="stable")
        except ValueError as error:
            reraise("argsort", error)

    def searchsorted(self, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)) -> Tensor:
        """Insertion indices into the last axis of `sorted_sequence`, batched over leading dimensions."""
        sorted_sequence, search_values = _comparable(np.asarray(sorted_sequence)), _comparable(np.asarray(search_values))
        if sorted_sequence.ndim == 1:
            result = np.searchsorted(sorted_sequence, search_values, side=side)
        else:
            result = batched_searchsorted(sorted_sequence, search_values, side)
        return np.asarray(result).astype(to_numpy_dtype(dtype), copy=False)

    def unique(self, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
        """Sorted unique slices along `axis`, and as asked the inverse indices and the counts; one NaN, last.

        Always a tuple: `(values,)`, plus the inverse and the counts when asked for (int64).
        """
        x = np.asarray(x)
        exact = x.astype(np.float32) if x.dtype.kind == "V" else x  # bfloat16: NumPy's unique does not know its NaN
        result = np.unique(exact, return_inverse=return_inverse, return_counts=return_counts, axis=axis)
        if not isinstance(result, tuple):
            result = (result,)
        parts = list(result)
        parts[0] = parts[0].astype(x.dtype, copy=False)
        if return_inverse:
            parts[1] = parts[1].reshape(-1)  # some NumPy 2 versions keep the input's shape
        return tuple(parts)

    def unravel_index(self, flat_index: Tensor, shape: Sequence[int]) -> Tensor:
        """Multi-indices `(..., len(shape))` of flat indices (C order), in the dtype of `flat_index` (`bk.rules`)."""
        return rules.unravel_index(self, np.asarray(flat_index), shape, lambda flat, sizes: np.stack(np.unravel_index(flat, sizes), -1))

    def ravel_multi_index(self, multi_index: Tensor, shape: Sequence[int], mode: str | int = "undefined") -> Tensor:
        """Flat indices of `(..., ndims)` multi-indices (C order), in the dtype of `multi_index`.

        Args:
            mode: `'undefined'`, `'periodic'` (wrap), `'clamp'`, or an int returned for indices outside.
        """
        multi_index = np.asarray(multi_index)
        components = tuple(np.moveaxis(multi_index, -1, 0))
        if isinstance(mode, (int, np.integer)) and not isinstance(mode, bool):
            result = np.ravel_multi_index(components, tuple(shape), mode="wrap")
            inside = np.all((multi_index >= 0) & (multi_index < np.asarray(shape)), axis=-1)
            result = np.where(inside, result, mode)
        else:
            result = np.ravel_multi_index(components, tuple(shape), mode=_RAVEL_MODES[mode])
        return np.asarray(result).astype(multi_index.dtype, copy=False)

    # ------------------------------------------------------------ counting

    def bincount(self, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
        """Counts (or sums of `weights`) of each integer in `[0, bins)`; larger values are ignored (`bk.rules` checks)."""
        x = np.asarray(x)
        bins = rules.check_bincount(self.dtype(x), bins)
        rules.check_counted_values(self, x)
        if weights is None:
            return np.bincount(x, minlength=bins)[:bins]
        weights = np.asarray(weights)
        if weights.dtype.kind == "c":
            sums = np.bincount(x, weights.real, minlength=bins) + 1j * np.bincount(x, weights.imag, minlength=bins)
        else:
            sums = np.bincount(x, weights, minlength=bins)
        return sums[:bins].astype(weights.dtype if weights.dtype.kind != "b" else np.int64, copy=False)

    def batched_bincount(self, x: Tensor, weights: Tensor | None, bins: int) -> Tensor:
        """`bincount` of every row of `(batch, n)` indices, in one call."""
        x = np.asarray(x)
        batch = x.shape[0]
        valid = (x >= 0) & (x < bins)
        flat = (x.astype(np.int64, copy=False) + (np.arange(batch) * bins)[:, None])[valid]  # uint64 does not mix with int64
        if weights is None:
            return np.bincount(flat, minlength=batch * bins).reshape(batch, bins)
        weights = np.broadcast_to(np.asarray(weights), x.shape)[valid]  # the spec gave weights x's shape
        if weights.dtype.kind == "c":
            sums = np.bincount(flat, weights.real, minlength=batch * bins) + 1j * np.bincount(flat, weights.imag, minlength=batch * bins)
        else:
            sums = np.bincount(flat, weights, minlength=batch * bins)
        return sums.reshape(batch, bins).astype(weights.dtype if weights.dtype.kind != "b" else np.int64, copy=False)

    def histogram1d(self, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
        """Batched weighted histograms `(batch, edges - 1)`; the last bin includes its right edge, as in NumPy."""
        values, weights, bin_edges = np.asarray(values), np.asarray(weights), np.asarray(bin_edges)
        batch = _batch_size("histogram1d", values.shape[0], weights.shape[0], bin_edges.shape[0])
        bins = bin_edges.shape[-1] - 1
        values = np.broadcast_to(values, (batch, values.shape[-1]))
        edges = np.broadcast_to(bin_edges, (batch, bins + 1))
        index = batched_searchsorted(edges, values, "right") - 1
        index = np.where(values == edges[:, -1:], bins - 1, index)  # the right edge belongs to the last bin
        valid = (index >= 0) & (index < bins)
        flat = (index + (np.arange(batch) * bins)[:, None])[valid]
        weights = np.broadcast_to(weights, values.shape)[valid]
        if weights.dtype.kind == "c":
            counts = np.bincount(flat, weights.real, minlength=batch * bins) + 1j * np.bincount(flat, weights.imag, minlength=batch * bins)
        else:
            counts = np.bincount(flat, weights, minlength=batch * bins)
        return counts.reshape(batch, bins).astype(weights.dtype if weights.dtype.kind != "b" else np.int64, copy=False)
