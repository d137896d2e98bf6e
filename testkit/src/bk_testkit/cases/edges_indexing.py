"""Edge cases of gather, scatter, masks, segments and slices: negative and out-of-range indices.

docs/semantics.md: "Indices". Gather-like operations accept negative indices in `[-n, 0)` counting from
the end; an index outside `[-n, n)` raises `bk.IndexOutOfRangeError`, as do scatter indices,
segment starts outside the dimension and a boolean mask of the wrong length.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import SkipCase, Trial, add_case
from ._edges import (
    ALL_DTYPES,
    INT64,
    check_raises,
    check_result,
    describe,
    dtypes,
    explore,
    make_values,
    shapes,
    tensor,
)

_F32 = DType(float, 32)
_INDEX_DTYPES = (np.int32, np.int64)


def _indices(n: int, count: int, seed: int, dtype: Any) -> np.ndarray:
    return np.random.default_rng(seed).integers(-n, n, count).astype(dtype) if n else np.zeros(0, dtype)


def _gather(t: Trial) -> None:
    """Negative indices count from the end along a negative axis too; an index outside [-n, n) raises."""

    @explore(dtypes(t, ALL_DTYPES), shapes(min_rank=1, max_rank=3, min_side=1), st.data(), st.integers(0, 4), st.sampled_from(_INDEX_DTYPES), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], data: Any, count: int, index_dtype: Any) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(dtype, shape, seed=rank)
        indices = _indices(shape[axis], count, count + rank, index_dtype)
        got = t.b.gather(tensor(t, x), tensor(t, indices), axis)
        check_result(t, got, np.take(x, indices, axis=axis), describe("gather", x, indices, axis=axis), dtype, {"x": x, "indices": indices})

    example()
    x = tensor(t, np.arange(12, dtype=np.float32).reshape(3, 4))
    for index in (4, -5):
        indices = tensor(t, np.array([0, index], np.int64))
        check_raises(t, bk.IndexOutOfRangeError, lambda indices=indices: t.b.gather(x, indices, 1), f"gather(float32 (3, 4), [0, {index}], axis=1)", "gather")
    check_raises(t, bk.AxisError, lambda: t.b.gather(x, tensor(t, np.array([0])), 2), "gather(float32 (3, 4), [0], axis=2)", "gather")


add_case("gather", "edge-indices", _gather, "negative indices and axes, every dtype; indices out of range raise IndexOutOfRangeError")


def _gather_1d(t: Trial) -> None:
    """Negative indices count from the end; out of range raises IndexOutOfRangeError."""

    @explore(dtypes(t, ALL_DTYPES), st.integers(1, 5), st.integers(0, 6), st.sampled_from(_INDEX_DTYPES), examples=15)
    def example(dtype: DType, n: int, count: int, index_dtype: Any) -> None:
        x = make_values(dtype, (n,), seed=n)
        indices = _indices(n, count, count, index_dtype)
        check_result(t, t.b.gather_1d(tensor(t, x), tensor(t, indices)), x[indices], describe("gather_1d", x, indices), dtype, {"x": x, "indices": indices})

    example()
    x = tensor(t, np.arange(3, dtype=np.float32))
    for index in (3, -4):
        check_raises(t, bk.IndexOutOfRangeError, lambda index=index: t.b.gather_1d(x, tensor(t, np.array([index]))), f"gather_1d(float32 (3,), [{index}])", "gather_1d")


add_case("gather_1d", "edge-indices", _gather_1d, "negative indices; out of range raises IndexOutOfRangeError")


def _batched_gather_nd(t: Trial) -> None:
    """Negative indices count from the end; an index outside a spatial dimension raises IndexOutOfRangeError."""
    values = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)
    indices = np.array([[[0, -1], [-3, 3]], [[2, -4], [1, 0]]], np.int64)
    expected = np.stack([values[b][tuple(np.moveaxis(indices[b], -1, 0))] for b in range(2)])
    check_result(t, t.b.batched_gather_nd(tensor(t, values), tensor(t, indices)), expected, "batched_gather_nd with negative indices", _F32, {"indices": indices})
    for bad in ([[[0, 4]]], [[[3, 0]]], [[[-4, 0]]]):
        index = tensor(t, np.array(bad, np.int64))
        check_raises(t, bk.IndexOutOfRangeError, lambda index=index: t.b.batched_gather_nd(tensor(t, values), index), f"batched_gather_nd((2, 3, 4, 2), {bad})", "batched_gather_nd")


add_case("batched_gather_nd", "edge-indices", _batched_gather_nd, "negative indices; out of range raises IndexOutOfRangeError")


def _boolean_mask(t: Trial) -> None:
    """Along a negative axis too; a mask of the wrong length raises IndexOutOfRangeError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(min_rank=1, max_rank=3), st.data(), examples=15)
    def example(dtype: DType, shape: tuple[int, ...], data: Any) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(dtype, shape, seed=rank)
        mask = np.random.default_rng(sum(shape)).integers(0, 2, shape[axis]).astype(bool)
        got = t.b.boolean_mask(tensor(t, x), tensor(t, mask), axis)
        check_result(t, got, np.compress(mask, x, axis=axis), describe("boolean_mask", x, mask, axis=axis), dtype, {"x": x, "mask": mask}, dynamic=True)

    example()
    x = tensor(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    for length in (2, 4):
        mask = tensor(t, np.ones(length, bool))
        check_raises(t, bk.IndexOutOfRangeError, lambda mask=mask: t.b.boolean_mask(x, mask, 1), f"boolean_mask(float32 (2, 3), bool ({length},), axis=1)", "boolean_mask")


add_case("boolean_mask", "edge-length", _boolean_mask, "negative axes, every dtype; a mask of the wrong length raises IndexOutOfRangeError")


def _scatter_nd_scalar(t: Trial) -> None:
    """Scatter indices outside the grid raise IndexOutOfRangeError instead of writing elsewhere."""
    grid = tensor(t, np.zeros((2, 3), np.float32))
    values = tensor(t, np.ones(1, np.float32))
    for bad in ([[0, 3]], [[2, 0]], [[0, -4]]):
        index = tensor(t, np.array(bad, np.int64))
        for mode in ("update", "add"):
            check_raises(t, bk.IndexOutOfRangeError, lambda index=index, mode=mode: t.b.scatter_nd_scalar(grid, index, values, mode), f"scatter_nd_scalar((2, 3), {bad}, mode={mode!r})", "scatter_nd_scalar")
    index = tensor(t, np.array([[1, 2], [0, 0]], np.int64))
    got = t.b.scatter_nd_scalar(grid, index, tensor(t, np.array([5.0, 7.0], np.float32)), "add")
    check_result(t, got, np.array([[7.0, 0, 0], [0, 0, 5.0]]), "scatter_nd_scalar((2, 3), [[1, 2], [0, 0]], 'add')", _F32)


add_case("scatter_nd_scalar", "edge-indices", _scatter_nd_scalar, "indices outside the grid raise IndexOutOfRangeError (never the next row)")


def _scatter_1d_scalar(t: Trial) -> None:
    """Scatter indices outside the 1-D grid raise IndexOutOfRangeError."""
    grid = tensor(t, np.zeros(3, np.float32))
    for bad in (3, -4):
        index = tensor(t, np.array([bad], np.int64))
        check_raises(t, bk.IndexOutOfRangeError, lambda index=index: t.b.scatter_1d_scalar(grid, index, tensor(t, np.ones(1, np.float32)), "update"), f"scatter_1d_scalar((3,), [{bad}])", "scatter_1d_scalar")


add_case("scatter_1d_scalar", "edge-indices", _scatter_1d_scalar, "indices outside the grid raise IndexOutOfRangeError")


def _indexed_segment_sum(t: Trial) -> None:
    """Segments start at the indices; elements before the first index belong to no segment; starts outside raise."""

    @explore(st.integers(1, 6), st.data(), examples=15)
    def example(n: int, data: Any) -> None:
        starts = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n), label="starts"))
        x = make_values(_F32, (2, n), seed=n, special=False)
        indices = np.array([starts, starts], np.int64)
        expected = np.stack([np.add.reduceat(x[b].astype(np.float64), starts) for b in range(2)])
        got = t.b.indexed_segment_sum(tensor(t, x), tensor(t, indices), 1)
        check_result(t, got, expected, f"indexed_segment_sum(float32 (2, {n}), starts {starts}, axis=1)", _F32, {"x": x}, scale=n)

    example()
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32)
    got = t.b.indexed_segment_sum(tensor(t, x), tensor(t, np.array([[1, 3]], np.int64)), -1)
    check_result(t, got, np.array([[5.0, 9.0]]), "indexed_segment_sum([[1, 2, 3, 4, 5]], [[1, 3]], axis=-1): the 1 before the first start is in no segment", _F32)
    bad = tensor(t, np.array([[0, 5]], np.int64))
    check_raises(t, bk.IndexOutOfRangeError, lambda: t.b.indexed_segment_sum(tensor(t, x), bad, 1), "indexed_segment_sum((1, 5), [[0, 5]], axis=1)", "indexed_segment_sum")


add_case("indexed_segment_sum", "edge-segments", _indexed_segment_sum, "elements before the first start are in no segment; starts out of range raise IndexOutOfRangeError")


def _nonzero(t: Trial) -> None:
    """`(nnz, ndim)` int64 multi-indices for every dtype and rank 0-4."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=4), examples=15)
    def example(dtype: DType, shape: tuple[int, ...]) -> None:
        x = make_values(dtype, shape, seed=len(shape), low=-1, high=1)
        check_result(t, t.b.nonzero(tensor(t, x)), np.argwhere(x), describe("nonzero", x), INT64, {"x": x}, dynamic=True)

    example()


add_case("nonzero", "edge-dtypes-shapes", _nonzero, "int64 (nnz, ndim) indices for every dtype, 0-d and empty inputs")


def _multi_slice(t: Trial) -> None:
    """Negative steps, negative starts and stops, ints."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for slices in (
        (slice(None, None, -1),),
        (slice(None), slice(-1, 0, -2), 2),
        (-1, slice(None, None, -1), slice(1, -1)),
        (slice(2, None, -1), 0, slice(None, None, 2)),
    ):
        check_result(t, t.b.multi_slice(tensor(t, x), slices), x[slices], f"multi_slice(float32 (3, 4, 5), {slices})", _F32)


add_case("multi_slice", "edge-negative-steps", _multi_slice, "negative steps, starts and stops")


def _multi_slice_arrays(t: Trial) -> None:
    """NumPy's advanced indexing: integer arrays broadcast together, their axes go where they stood when
    they (and the ints among them) are adjacent, else first; bool arrays select where true."""
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    i, j, mask = np.array([1, -2]), np.array([[2], [0]]), np.array([True, False, True])
    for key in (
        (i,),
        (slice(None), j, i),
        (0, slice(None), i),  # an int among the arrays: not adjacent, the broadcast axes go first
        (slice(None), i, 0),
        (i, None, i),
        (Ellipsis, np.array([3, 0, 3])),
        (slice(None), mask),
        (1, mask, slice(None, None, -1)),
        (slice(None), np.zeros((0,), np.int64)),
    ):
        shown = tuple(f"array{a.tolist()}" if isinstance(a, np.ndarray) else a for a in key)
        masked = any(isinstance(a, np.ndarray) and a.dtype == bool for a in key)  # sizes from the data: unknown to lazy backends
        got = t.b.multi_slice(tensor(t, x), tuple(tensor(t, a) if isinstance(a, np.ndarray) else a for a in key))
        check_result(t, got, x[key], f"multi_slice(float32 (2, 3, 4, 5), {shown})", _F32, dynamic=masked)
    check_raises(t, bk.IndexOutOfRangeError, lambda: t.b.multi_slice(tensor(t, x), (slice(None), tensor(t, np.array([0, 3])))), "multi_slice(float32 (2, 3, 4, 5), (:, array[0, 3]))", "multi_slice")
    check_raises(t, bk.IndexOutOfRangeError, lambda: t.b.multi_slice(tensor(t, x), (tensor(t, mask),)), "multi_slice(float32 (2, 3, 4, 5), (a mask of 3 for 2,))", "multi_slice")


add_case("multi_slice", "edge-arrays", _multi_slice_arrays, "integer and bool arrays index as in NumPy, wherever they stand")


def _jit_out_of_range(t: Trial) -> None:
    """Inside `jit_compile` an index outside `[-n, n)` raises `IndexOutOfRangeError`, as it does eagerly.

    Where the compiler cannot raise on a data-dependent index (XLA clamps gathers), the backend
    lists this case in the expected-failure table with what it does instead.
    """
    if not t.b.supports("gather"):
        raise SkipCase(f"{t.b.name} does not support gather")
    x = np.arange(5, dtype=np.float32)
    gather = t.b.jit_compile(lambda values, indices: t.b.gather(values, indices, 0))
    check_result(t, gather(tensor(t, x), tensor(t, np.array([4, -1, 0]))), x[[4, -1, 0]], "jit_compile(gather)(arange(5), [4, -1, 0])", _F32)
    for index in (5, -6):
        what = f"jit_compile(gather)(arange(5), [1, {index}])"
        try:
            t.b.numpy(gather(tensor(t, x), tensor(t, np.array([1, index]))))
        except bk.IndexOutOfRangeError as raised:  # naming the operation, or the compiled function it ran in
            t.expect("gather" in str(raised) or str(raised).startswith("jit_compile"), what, f"the message names neither gather nor jit_compile: {raised}")
            continue
        except Exception as raised:
            t.fail(what, f"raised {type(raised).__module__}.{type(raised).__name__} ({str(raised)[:200]}), expected IndexOutOfRangeError (docs/semantics.md)")
        t.fail(what, "returned a result instead of raising IndexOutOfRangeError (docs/semantics.md)")


add_case("jit_compile", "edge-jit-out-of-range", _jit_out_of_range, "jit_compile(gather)(arange(5), [1, 5]) raises IndexOutOfRangeError, as eagerly")
