"""Edge cases of shape operations: negative and out-of-range axes, empty and 0-d inputs, bad shapes.

docs/semantics.md: "Axes", "Exceptions" and "Results with several parts". Every operation that takes
an axis accepts `[-ndim, ndim)` (`[-ndim - 1, ndim]` where a new axis is inserted) and raises
`bk.AxisError` outside; shapes that do not fit raise `bk.ShapeMismatchError`; a negative count is a
`ValueError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import Trial, add_case
from ._edges import (
    ALL_DTYPES,
    LAYOUTS,
    check_raises,
    check_result,
    describe,
    dtypes,
    explore,
    layout,
    make_values,
    shapes,
    tensor,
)

_F32 = DType(float, 32)


def _x(t: Trial, shape: tuple[int, ...]) -> Any:
    return tensor(t, np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


def _expand_dims(t: Trial) -> None:
    """Negative axes, several new axes; an axis outside [-ndim-1, ndim] is an AxisError, number=-1 a ValueError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=4), st.data(), st.integers(0, 2), st.sampled_from(LAYOUTS), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], data: Any, number: int, kind: str) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank - 1, rank), label="axis")
        x = layout(make_values(dtype, shape, seed=rank), kind)
        expected = x
        for _ in range(number):
            expected = np.expand_dims(expected, axis)
        got = t.b.expand_dims(tensor(t, x), axis, number)
        check_result(t, got, expected, describe("expand_dims", x, axis=axis, number=number) + f" [{kind}]", dtype, {"x": x})

    example()
    x = _x(t, (2, 3))
    check_raises(t, ValueError, lambda: t.b.expand_dims(x, 0, number=-1), "expand_dims(float32 (2, 3), 0, number=-1)", "expand_dims")
    for axis in (3, -4):
        check_raises(t, bk.AxisError, lambda axis=axis: t.b.expand_dims(x, axis), f"expand_dims(float32 (2, 3), {axis})", "expand_dims")


add_case("expand_dims", "edge-axes-number", _expand_dims, "negative axes, number 0-2; out-of-range axes raise AxisError, number=-1 ValueError")


def _tile_to(t: Trial) -> None:
    """`tile_to(x, -1, 6)` tiles the last axis; a size that is no multiple is a ValueError, a bad axis an AxisError."""

    @explore(shapes(min_rank=1, max_rank=4, min_side=1), st.data(), st.integers(1, 3), examples=15)
    def example(shape: tuple[int, ...], data: Any, times: int) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(_F32, shape, seed=rank)
        size = shape[axis] * times
        reps = [1] * rank
        reps[axis] = times
        check_result(t, t.b.tile_to(tensor(t, x), axis, size), np.tile(x, reps), describe("tile_to", x, axis=axis, size=size), _F32, {"x": x})

    example()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_result(t, t.b.tile_to(tensor(t, x), -1, 6), np.tile(x, (1, 2)), "tile_to(float32 (2, 3), -1, 6)", _F32, {"x": x})
    check_raises(t, ValueError, lambda: t.b.tile_to(tensor(t, x), -1, 7), "tile_to(float32 (2, 3), -1, 7)", "tile_to")
    check_raises(t, bk.AxisError, lambda: t.b.tile_to(tensor(t, x), 2, 6), "tile_to(float32 (2, 3), 2, 6)", "tile_to")


add_case("tile_to", "edge-axes", _tile_to, "tile_to(x, -1, 6) tiles the last axis; a bad size or axis raises")


def _pieces(shape: tuple[int, ...], axis: int, data: Any) -> list[tuple[int, ...]]:
    count = data.draw(st.integers(1, 3), label="count")
    return [tuple(data.draw(st.integers(0, 2), label="size") if i == axis else s for i, s in enumerate(shape)) for _ in range(count)]


def _concat(t: Trial) -> None:
    """Negative axes, empty pieces, every dtype; a bad axis is an AxisError, pieces that do not fit a ShapeMismatchError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(min_rank=1, max_rank=4), st.data(), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], data: Any) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        arrays = [make_values(dtype, s, seed=i) for i, s in enumerate(_pieces(shape, axis % rank, data))]
        got = t.b.concat([tensor(t, a) for a in arrays], axis)
        check_result(t, got, np.concatenate(arrays, axis), describe("concat", *arrays, axis=axis), dtype)

    example()
    a, b = _x(t, (2, 3)), _x(t, (2, 4))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.concat([a, b], 0), "concat([float32 (2, 3), float32 (2, 4)], 0)", "concat")
    for axis in (2, -3):
        check_raises(t, bk.AxisError, lambda axis=axis: t.b.concat([a, a], axis), f"concat([float32 (2, 3)] * 2, {axis})", "concat")


add_case("concat", "edge-axes-shapes", _concat, "negative axes, empty pieces, every dtype; bad axes and shapes raise")


def _stack(t: Trial) -> None:
    """Negative axes (a new axis: [-ndim-1, ndim]), 0-d and empty tensors; different shapes are a ShapeMismatchError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=3), st.data(), st.integers(1, 3), examples=20)
    def example(dtype: DType, shape: tuple[int, ...], data: Any, count: int) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank - 1, rank), label="axis")
        arrays = [make_values(dtype, shape, seed=i) for i in range(count)]
        check_result(t, t.b.stack([tensor(t, a) for a in arrays], axis), np.stack(arrays, axis), describe("stack", *arrays, axis=axis), dtype)

    example()
    a, b = _x(t, (2, 3)), _x(t, (3, 2))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.stack([a, b], 0), "stack([float32 (2, 3), float32 (3, 2)], 0)", "stack")
    check_raises(t, bk.AxisError, lambda: t.b.stack([a, a], 3), "stack([float32 (2, 3)] * 2, 3)", "stack")
    check_raises(t, bk.AxisError, lambda: t.b.stack([a, a], -4), "stack([float32 (2, 3)] * 2, -4)", "stack")


add_case("stack", "edge-axes-shapes", _stack, "negative axes, 0-d and empty inputs; different shapes and bad axes raise")


def _unstack(t: Trial) -> None:
    """A tuple of slices along a negative axis too; keepdims; a bad axis is an AxisError."""

    @explore(shapes(min_rank=1, max_rank=4), st.data(), st.booleans(), examples=15)
    def example(shape: tuple[int, ...], data: Any, keepdims: bool) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(_F32, shape, seed=rank)
        got = t.b.unstack(tensor(t, x), axis, keepdims)
        what = describe("unstack", x, axis=axis, keepdims=keepdims)
        t.expect(isinstance(got, tuple), what, f"returned a {type(got).__name__}, expected a tuple")
        t.expect(len(got) == shape[axis], what, f"{len(got)} parts, expected {shape[axis]}")
        for i, part in enumerate(got):
            expected = np.take(x, [i] if keepdims else i, axis=axis)
            check_result(t, part, expected, f"{what}[{i}]", _F32, {"x": x})

    example()
    check_raises(t, bk.AxisError, lambda: t.b.unstack(_x(t, (2, 3)), 2), "unstack(float32 (2, 3), 2)", "unstack")


add_case("unstack", "edge-axes", _unstack, "negative axes, keepdims, a tuple of parts; a bad axis raises AxisError")


def _flip(t: Trial) -> None:
    """Negative axes, several axes, empty and 0-d (no axes); a bad axis is an AxisError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=4), st.data(), st.sampled_from(LAYOUTS), examples=15)
    def example(dtype: DType, shape: tuple[int, ...], data: Any, kind: str) -> None:
        rank = len(shape)
        axes = data.draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank) if rank else st.just([]), label="axes")
        axes = [a - rank if i % 2 else a for i, a in enumerate(axes)]
        x = layout(make_values(dtype, shape, seed=rank + 1), kind)
        check_result(t, t.b.flip(tensor(t, x), axes), np.flip(x, tuple(axes)), describe("flip", x, axes=axes) + f" [{kind}]", dtype, {"x": x})

    example()
    check_raises(t, bk.AxisError, lambda: t.b.flip(_x(t, (2, 3)), [2]), "flip(float32 (2, 3), [2])", "flip")


add_case("flip", "edge-axes", _flip, "negative and several axes, empty and 0-d inputs; bad axes raise AxisError")


def _transpose(t: Trial) -> None:
    """Every permutation (negative axes too); an out-of-range or repeated axis is an AxisError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=5), st.data(), examples=15)
    def example(dtype: DType, shape: tuple[int, ...], data: Any) -> None:
        rank = len(shape)
        perm = data.draw(st.permutations(range(rank)), label="perm")
        perm = [p - rank if i % 2 else p for i, p in enumerate(perm)]
        x = make_values(dtype, shape, seed=rank + 2)
        check_result(t, t.b.transpose(tensor(t, x), perm), np.transpose(x, perm), describe("transpose", x, axes=perm), dtype, {"x": x})

    example()
    x = _x(t, (2, 3))
    check_raises(t, bk.AxisError, lambda: t.b.transpose(x, [0, 2]), "transpose(float32 (2, 3), [0, 2])", "transpose")
    check_raises(t, bk.AxisError, lambda: t.b.transpose(x, [1, 1]), "transpose(float32 (2, 3), [1, 1])", "transpose")


add_case("transpose", "edge-axes", _transpose, "every permutation of rank 0-5, negative axes; bad axes raise AxisError")


def _reshape(t: Trial) -> None:
    """Empty and 0-d shapes, -1; a size that does not fit is a ShapeMismatchError."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=4), st.data(), examples=15)
    def example(dtype: DType, shape: tuple[int, ...], data: Any) -> None:
        x = make_values(dtype, shape, seed=len(shape))
        target = tuple(data.draw(st.permutations(shape), label="target"))
        if target and data.draw(st.booleans(), label="infer") and x.size:
            target = (-1, *target[1:])
        check_result(t, t.b.reshape(tensor(t, x), target), x.reshape(target), describe("reshape", x, shape=target), dtype, {"x": x})

    example()
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.reshape(_x(t, (2, 3)), (4, 2)), "reshape(float32 (2, 3), (4, 2))", "reshape")


add_case("reshape", "edge-shapes", _reshape, "empty, 0-d, -1; a size that does not fit raises ShapeMismatchError")


def _pad_to(t: Trial) -> None:
    """Pads or crops along a negative axis too; a bad axis is an AxisError."""

    @explore(shapes(min_rank=1, max_rank=3), st.data(), st.integers(0, 4), examples=12)
    def example(shape: tuple[int, ...], data: Any, size: int) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(_F32, shape, seed=rank)
        widths = [(0, max(0, size - shape[axis])) if i == axis % rank else (0, 0) for i in range(rank)]
        expected = np.pad(x, widths, constant_values=7.0)[tuple(slice(size) if i == axis % rank else slice(None) for i in range(rank))]
        check_result(t, t.b.pad_to(tensor(t, x), axis, size, 7.0), expected, describe("pad_to", x, axis=axis, new_size=size), _F32, {"x": x})

    example()
    check_raises(t, bk.AxisError, lambda: t.b.pad_to(_x(t, (2, 3)), 2, 5, 0.0), "pad_to(float32 (2, 3), 2, 5, 0.0)", "pad_to")


add_case("pad_to", "edge-axes", _pad_to, "pads or crops along negative axes; a bad axis raises AxisError")
