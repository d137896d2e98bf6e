"""Gather, scatter, where, masks, sorting, searching and counting."""

from __future__ import annotations

import numpy as np

from bk import DType

from .._case import Trial, case


def _idx(values: list, dtype: str = "int32") -> np.ndarray:
    return np.array(values, dtype)


@case("gather")
def _gather(t: Trial) -> None:
    """Slices at 1-D indices along every axis, repeated indices, int32 and int64 indices."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for dtype in ("int32", "int64"):
        for axis, index in ((0, [1, 0, 1]), (1, [2]), (2, [3, 0]), (-1, [1, 1])):
            got = t.b.gather(t.tensor(x), t.tensor(_idx(index, dtype)), axis)
            t.check(got, np.take(x, index, axis), f"gather((2, 3, 4), {index} ({dtype}), axis={axis})", dtype=DType(float, 32))


@case("gather_1d")
def _gather_1d(t: Trial) -> None:
    """`values[indices]` for 1-D values."""
    x = np.array([5.0, 6.0, 7.0], np.float32)
    t.check(t.b.gather_1d(t.tensor(x), t.tensor(_idx([2, 0, 2]))), x[[2, 0, 2]], "gather_1d")


@case("gather_by_component_indices")
def _gather_components(t: Trial) -> None:
    """`values[i, j]` for scalar component indices."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t.check(t.b.gather_by_component_indices(t.tensor(x), 1, 2), x[1, 2], "gather_by_component_indices(x, 1, 2)")


def _gather_nd_ref(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    batch = max(values.shape[0], indices.shape[0])
    out = []
    for b in range(batch):
        v = values[min(b, values.shape[0] - 1)]
        i = indices[min(b, indices.shape[0] - 1)]
        out.append(v[tuple(np.moveaxis(i, -1, 0))])
    return np.stack(out)


@case("batched_gather_nd")
def _batched_gather_nd(t: Trial) -> None:
    """(batch, spatial..., channels) at (batch, any..., ndims); batch size 1 broadcasts on either side."""
    values = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)
    indices = _idx([[[0, 0], [2, 3], [1, 1]], [[2, 0], [0, 3], [1, 2]]])
    for v, i in ((values, indices), (values[:1], indices), (values, indices[:1])):
        got = t.b.batched_gather_nd(t.tensor(v), t.tensor(i))
        t.check(got, _gather_nd_ref(v, i), f"batched_gather_nd({v.shape}, {i.shape})", dtype=DType(float, 32), inputs={"indices": i})


@case("batched_gather_1d")
def _batched_gather_1d(t: Trial) -> None:
    """(batch, spatial) at (batch, indices)."""
    values = np.arange(8, dtype=np.float32).reshape(2, 4)
    indices = _idx([[3, 0], [1, 1]])
    t.check(t.b.batched_gather_1d(t.tensor(values), t.tensor(indices)), np.take_along_axis(values, indices, 1), "batched_gather_1d")


@case("gather_nd")
def _gather_nd(t: Trial) -> None:
    """(spatial..., channels) at (indices, ndims)."""
    values = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    indices = _idx([[1, 2], [0, 0]])
    t.check(t.b.gather_nd(t.tensor(values), t.tensor(indices)), values[indices[:, 0], indices[:, 1]], "gather_nd")


def _scatter_ref(base: np.ndarray, indices: np.ndarray, values: np.ndarray, mode: str) -> np.ndarray:
    out = base.copy()
    batch = out.shape[0]
    for b in range(batch):
        ib = indices[min(b, indices.shape[0] - 1)]
        vb = np.broadcast_to(values[min(b, values.shape[0] - 1)], (ib.shape[0], out.shape[-1]))
        for k in range(ib.shape[0]):
            where = (b, *ib[k])
            if mode == "update":
                out[where] = vb[k]
            elif mode == "add":
                out[where] += vb[k]
            elif mode == "max":
                out[where] = np.maximum(out[where], vb[k])
            else:
                out[where] = np.minimum(out[where], vb[k])
    return out


def _scatter_mode(mode: str) -> None:
    @case("scatter", name=mode)
    def run(t: Trial) -> None:
        base = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2) - 20
        indices = _idx([[[0, 0], [2, 3], [1, 1]]]) if mode == "update" else _idx([[[0, 0], [2, 3], [0, 0]]])
        for values in (np.full((2, 3, 2), 5.0, np.float32) * np.arange(1, 3).reshape(2, 1, 1), np.array([[[9.0]]], np.float32)):
            got = t.b.scatter(t.tensor(base), t.tensor(indices), t.tensor(values.astype(np.float32)), mode)
            t.check(got, _scatter_ref(base, indices, values, mode), f"scatter(mode={mode!r}, values {values.shape})", dtype=DType(float, 32), inputs={"indices": indices, "values": values})


for _mode in ("update", "add", "max", "min"):
    _scatter_mode(_mode)


@case("scatter_nd")
def _scatter_nd(t: Trial) -> None:
    """Unbatched scatter with channels; duplicates add."""
    base = np.zeros((3, 2), np.float32)
    indices, values = _idx([[0], [2], [0]]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    t.check(t.b.scatter_nd(t.tensor(base), t.tensor(indices), t.tensor(values), "add"), _scatter_ref(base[None], indices[None], values[None], "add")[0], "scatter_nd add")


@case("scatter_1d_scalar")
def _scatter_1d_scalar(t: Trial) -> None:
    """Scatter into a 1-D tensor."""
    base = np.zeros(4, np.float32)
    indices, values = _idx([1, 3]), np.array([2.0, 5.0], np.float32)
    expected = base.copy()
    expected[[1, 3]] = values
    t.check(t.b.scatter_1d_scalar(t.tensor(base), t.tensor(indices), t.tensor(values), "update"), expected, "scatter_1d_scalar update")


@case("scatter_nd_scalar")
def _scatter_nd_scalar(t: Trial) -> None:
    """Scatter without channels."""
    base = np.zeros((2, 3), np.float32)
    indices, values = _idx([[1, 2], [0, 0], [1, 2]]), np.array([1.0, 2.0, 3.0], np.float32)
    expected = base.copy()
    np.add.at(expected, (indices[:, 0], indices[:, 1]), values)
    t.check(t.b.scatter_nd_scalar(t.tensor(base), t.tensor(indices), t.tensor(values), "add"), expected, "scatter_nd_scalar add")


@case("where")
def _where(t: Trial) -> None:
    """Three-argument selection with broadcasting and promotion; one argument gives indices."""
    cond = np.array([[True, False, True], [False, False, True]])
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([-1.0], np.float32)
    t.check(t.b.where(t.tensor(cond), t.tensor(x), t.tensor(y)), np.where(cond, x, y), "where(cond, x, y)", dtype=DType(float, 32))
    xi = np.arange(6, dtype=np.int32).reshape(2, 3)
    t.check(t.b.where(t.tensor(cond), t.tensor(xi), t.tensor(np.zeros((2, 3), np.int32))), np.where(cond, xi, 0), "where(cond, int x, int y)", dtype=DType(int, 32))


@case("nonzero")
def _nonzero(t: Trial) -> None:
    """Multi-indices (nnz, ndims) of non-zeros; padded or cut to `length`."""
    values = np.array([[0, 3, 0], [1, 0, 2]], np.float32)
    expected = np.argwhere(values)
    t.check(t.b.nonzero(t.tensor(values)), expected, "nonzero((2, 3))", dtype=int)
    padded = np.concatenate([expected, np.full((2, 2), -1)])
    t.check(t.b.nonzero(t.tensor(values), length=5), padded, "nonzero(length=5)", dtype=int)
    t.check(t.b.nonzero(t.tensor(values), length=2), expected[:2], "nonzero(length=2)", dtype=int)


@case("boolean_mask")
def _boolean_mask(t: Trial) -> None:
    """Slices where a 1-D mask holds, along axis 0 and 1; padding to new_length."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m0, m1 = np.array([True, False, True]), np.array([False, True, True, False])
    t.check(t.b.boolean_mask(t.tensor(x), t.tensor(m0), axis=0), x[m0], "boolean_mask(axis=0)")
    t.check(t.b.boolean_mask(t.tensor(x), t.tensor(m1), axis=1), x[:, m1], "boolean_mask(axis=1)")
    expected = np.concatenate([x[m0], np.full((2, 4), -1.0, np.float32)])
    t.check(t.b.boolean_mask(t.tensor(x), t.tensor(m0), axis=0, new_length=4, fill_value=-1.0), expected, "boolean_mask(new_length=4, fill_value=-1)")


@case("unravel_index")
def _unravel_index(t: Trial) -> None:
    """Flat to multi-indices in C order."""
    flat = _idx([0, 5, 11])
    t.check(t.b.unravel_index(t.tensor(flat), (3, 4)), np.stack(np.unravel_index(flat, (3, 4)), -1), "unravel_index(shape (3, 4))", dtype=int)


_RAVEL_INSIDE = [[0, 0], [2, 3], [1, 2]]
_RAVEL_OUTSIDE = [[3, 0], [-1, 5], [1, 2]]
_RAVEL_MODES = {
    "undefined": (_RAVEL_INSIDE, lambda i: np.ravel_multi_index(i.T, (3, 4))),
    "periodic": (_RAVEL_OUTSIDE, lambda i: np.ravel_multi_index(i.T, (3, 4), mode="wrap")),
    "clamp": (_RAVEL_OUTSIDE, lambda i: np.ravel_multi_index(i.T, (3, 4), mode="clip")),
    -1: (_RAVEL_OUTSIDE, lambda i: np.array([-1, -1, 6])),
}


def _ravel_mode(mode: object) -> None:
    @case("ravel_multi_index", name=f"mode-{mode}")
    def run(t: Trial) -> None:
        values, ref = _RAVEL_MODES[mode]  # type: ignore[index]
        index = _idx(values)
        got = t.b.ravel_multi_index(t.tensor(index), (3, 4)) if mode == "undefined" else t.b.ravel_multi_index(t.tensor(index), (3, 4), mode)
        t.check(got, ref(index), f"ravel_multi_index(shape (3, 4), mode={mode!r})", dtype=int, inputs={"multi_index": index})


for _ravel in _RAVEL_MODES:
    _ravel_mode(_ravel)


@case("searchsorted")
def _searchsorted(t: Trial) -> None:
    """Left and right insertion points, int32 and int64 results, batched sequences."""
    seq = np.array([1.0, 2.0, 2.0, 5.0], np.float32)
    values = np.array([0.0, 2.0, 6.0, 3.0], np.float32)
    for side in ("left", "right"):
        for bits in (32, 64):
            got = t.b.searchsorted(t.tensor(seq), t.tensor(values), side, DType(int, bits))
            t.check(got, np.searchsorted(seq, values, side), f"searchsorted(side={side!r})", dtype=DType(int, bits), inputs={"sequence": seq, "values": values})
    batched = np.stack([seq, seq * 2])
    got = t.b.searchsorted(t.tensor(batched), t.tensor(np.stack([values, values])), "left")
    t.check(got, np.stack([np.searchsorted(s, values) for s in batched]), "searchsorted batched", dtype=int)


@case("sort")
def _sort(t: Trial) -> None:
    """Ascending along an axis; NaN sorts last as in NumPy."""
    x = np.array([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]], np.float32)
    for axis in (-1, 0):
        t.check(t.b.sort(t.tensor(x), axis), np.sort(x, axis), f"sort(axis={axis})", dtype=DType(float, 32))
    xi = np.array([5, -2, 7, 0], np.int64)
    t.check(t.b.sort(t.tensor(xi)), np.sort(xi), "sort(int64)", dtype=DType(int, 64))
    nan = np.array([2.0, np.nan, 1.0], np.float32)
    t.check(t.b.sort(t.tensor(nan)), np.sort(nan), "sort with NaN")


@case("argsort")
def _argsort(t: Trial) -> None:
    """Stable: equal elements keep their order."""
    x = np.array([[3.0, 1.0, 3.0, 1.0], [0.0, 0.0, -1.0, 2.0]], np.float32)
    for axis in (-1, 0):
        t.check(t.b.argsort(t.tensor(x), axis), np.argsort(x, axis, kind="stable"), f"argsort(axis={axis})", dtype=int)


@case("unique")
def _unique(t: Trial) -> None:
    """Sorted unique values with inverse and counts; unique rows along axis 0."""
    x = np.array([3, 1, 3, 2, 1, 3], np.int32)
    got = t.b.unique(t.tensor(x), True, True, 0)
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    t.check(got[0], values, "unique values", dtype=DType(int, 32))
    t.check(got[1], inverse, "unique inverse", dtype=int)
    t.check(got[2], counts, "unique counts", dtype=int)
    rows = np.array([[1, 2], [0, 5], [1, 2]], np.int64)
    got = t.b.unique(t.tensor(rows), False, False, 0)
    got = got[0] if isinstance(got, (tuple, list)) else got
    t.check(got, np.unique(rows, axis=0), "unique rows")


@case("bincount")
def _bincount(t: Trial) -> None:
    """Counts and weighted sums of each bin; bins without entries are 0."""
    x = _idx([0, 2, 2, 4, 2])
    t.check(t.b.bincount(t.tensor(x), None, 6), np.bincount(x, minlength=6), "bincount(bins=6)", dtype=int)
    w = np.array([0.5, 1.0, 2.0, 3.0, -1.0], np.float32)
    t.check(t.b.bincount(t.tensor(x), t.tensor(w), 5), np.bincount(x, w, minlength=5), "bincount weighted", dtype=float)
    t.check(t.b.bincount(t.tensor(np.sort(x)), None, 5, x_sorted=True), np.bincount(x, minlength=5), "bincount x_sorted", dtype=int)


@case("batched_bincount")
def _batched_bincount(t: Trial) -> None:
    """bincount of every row."""
    x = _idx([[0, 1, 1], [2, 2, 0]])
    t.check(t.b.batched_bincount(t.tensor(x), None, 3), np.stack([np.bincount(r, minlength=3) for r in x]), "batched_bincount", dtype=int)


@case("histogram1d")
def _histogram1d(t: Trial) -> None:
    """Batched weighted histograms; the last bin includes its right edge, as NumPy does."""
    values = np.array([[0.1, 0.5, 0.5, 0.9, 1.0], [0.2, 0.2, 0.7, 0.3, 0.0]], np.float32)
    weights = np.array([[1.0, 2.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.5, 2.0]], np.float32)
    edges = np.array([[0.0, 0.5, 1.0], [0.0, 0.25, 1.0]], np.float32)
    expected = np.stack([np.histogram(v, e, weights=w)[0] for v, e, w in zip(values, edges, weights, strict=True)])
    t.check(t.b.histogram1d(t.tensor(values), t.tensor(weights), t.tensor(edges)), expected, "histogram1d", dtype=DType(float, 32), inputs={"values": values, "edges": edges})


@case("indexed_segment_sum")
def _indexed_segment_sum(t: Trial) -> None:
    """Sums of contiguous segments starting at the given indices."""
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    indices = _idx([[0, 2, 5], [0, 1, 3]])
    expected = np.stack([np.add.reduceat(x[b], indices[b]) for b in range(2)])
    t.check(t.b.indexed_segment_sum(t.tensor(x), t.tensor(indices), 1), expected, "indexed_segment_sum(axis=1)", inputs={"indices": indices})
