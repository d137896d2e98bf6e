"""The core's operation specs against what bk-numpy really returns.

For every specced operation, a table of sample calls (every dtype kind, Python numbers of each
kind, 0-d, empty, broadcasting, negative axes) runs on bk-numpy and through `bk.eval_shape`, under
precision None, 32 and 64: the result's shape and `DType` must agree, and a mistake must raise
the same exception class. Where bk-numpy does not follow the spec (yet), the call is listed in
`KNOWN_DIFFERENCES` with the reason: a listed call that agrees fails the test, so the table
cannot go stale.
"""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import bk
from bk import ShapeDtype

B = bk.backend("numpy")

DTYPES = [
    np.dtype(np.bool_),
    *map(np.dtype, ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")),
    *map(np.dtype, ("float16", "float32", "float64", "complex64", "complex128")),
    np.dtype(ml_dtypes.bfloat16),
]
SCALARS = [True, 2, 300, -1, 1.5, 1j]
PRECISIONS = [None, 32, 64]

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def arr(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Ones (no zeros to divide by, no negative values for roots), of any dtype."""
    return np.ones(shape, np.dtype(dtype))


def describe(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    def one(value: Any) -> str:
        if isinstance(value, np.ndarray):
            return f"{value.dtype.name}{list(value.shape)}"
        if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
            return f"[{', '.join(one(v) for v in value)}]"
        return repr(value)

    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return f"{op}({', '.join(parts)})"


def template(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(template(v) for v in value)
    value = np.asarray(value)
    return ShapeDtype(value.shape, bk.from_numpy_dtype(value.dtype))


def outcome(function: Callable[[], Any]) -> Any:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return function()
    except Exception as error:  # the class is what is compared
        return type(error)


def agrees(expected: Any, got: Any) -> bool:
    """Whether bk-numpy's result (or error class) agrees with the spec's; a size the spec leaves
    unknown (`None`: it depends on the data) agrees with any size."""
    if isinstance(expected, type) or isinstance(got, type):
        return expected is got
    if isinstance(expected, tuple) or isinstance(got, tuple):
        return isinstance(expected, tuple) and isinstance(got, tuple) and len(expected) == len(got) and all(map(agrees, expected, got))
    return (
        expected.dtype == got.dtype
        and len(expected.shape) == len(got.shape)
        and all(g is None or e == g for e, g in zip(expected.shape, got.shape, strict=True))
    )


def compare(calls: list[Call], precision: int | None) -> dict[str, str]:
    """`{call: difference}` for the calls where bk-numpy and the spec disagree."""
    differences = {}
    with bk.precision(precision):
        for op, args, kwargs in calls:
            expected = outcome(lambda: getattr(B, op)(*args, **kwargs))  # noqa: B023
            got = outcome(lambda: bk.eval_shape(op, *args, **kwargs))  # noqa: B023
            if not isinstance(expected, type):
                expected = template(expected)
            if not agrees(expected, got):
                differences[f"{describe(op, args, kwargs)} at precision {precision}"] = f"bk-numpy {_name(expected)}, spec {_name(got)}"
    return differences


def _name(value: Any) -> str:
    return value.__name__ if isinstance(value, type) else repr(value)


def check(family: str, calls: list[Call]) -> None:
    differences: dict[str, str] = {}
    for precision in PRECISIONS:
        differences.update(compare(calls, precision))
    known = KNOWN_DIFFERENCES.get(family, {})
    used = set()
    unexpected = {}
    for call, difference in differences.items():
        line = f"{call} | {difference}"
        matches = [pattern for pattern in known if re.search(pattern, line)]
        used.update(matches)
        if not matches:
            unexpected[call] = difference
    listing = "\n".join(f"  {c}: {d}" for c, d in list(unexpected.items())[:40])
    assert not unexpected, f"{len(unexpected)} calls where bk-numpy and the spec disagree:\n{listing}"
    stale = sorted(set(known) - used)
    assert not stale, f"listed in KNOWN_DIFFERENCES[{family!r}] but agreeing now: {stale}"


# ---------------------------------------------------------------- the calls

UNARY = [
    "sqrt", "exp", "sin", "arcsin", "cos", "arccos", "tan", "arctan", "sinh", "arcsinh", "cosh", "arccosh", "tanh", "arctanh",
    "log", "log2", "log10", "erf", "sigmoid", "softplus", "log_gamma", "abs", "real", "imag", "conj", "round", "ceil", "floor",
    "sign", "invert", "isfinite", "isnan", "isinf", "to_float", "to_int32", "to_int64", "to_complex",
]  # fmt: skip
BINARY = [
    "add", "sub", "mul", "div", "divide_no_nan", "mod", "floordiv", "maximum", "minimum", "and_", "or_", "xor",
    "shift_bits_left", "shift_bits_right", "arctan2", "gamma_inc_l", "gamma_inc_u", "equal", "not_equal",
    "greater_than", "greater_or_equal", "pow",
]  # fmt: skip


def unary_calls() -> Iterator[Call]:
    for op in UNARY:
        for dtype in DTYPES:
            for shape in ((), (0,), (2, 3)):
                yield op, (arr(shape, dtype),), {}
        for scalar in (True, 2, 1.5, 1j):
            yield op, (scalar,), {}
        yield op, (None,), {}


def binary_calls() -> Iterator[Call]:
    for op in BINARY:
        for a, b in itertools.product(DTYPES, repeat=2):
            yield op, (arr((2, 1), a), arr((3,), b)), {}
        for dtype in DTYPES:
            for scalar in SCALARS:
                yield op, (arr((2,), dtype), scalar), {}
                yield op, (scalar, arr((2,), dtype)), {}
        for x, y in itertools.product((True, 2, 1.5, 1j), repeat=2):
            yield op, (x, y), {}
        yield op, (arr((2,), "float32"), arr((3,), "float32")), {}
        yield op, (arr((0,), "int32"), arr((1,), "int32")), {}
        yield op, (arr((2,), "float32"), [1.0, 2.0]), {}
        yield op, (arr((2,), "float32"), None), {}


def reduction_calls() -> Iterator[Call]:
    for op in ("sum", "prod", "mean", "std", "max", "min", "any", "all"):
        for dtype in DTYPES:
            yield op, (arr((2, 3), dtype),), {}
            yield op, (arr((2, 3), dtype), -1), {}
        for shape, axis in [((), None), ((), 0), ((0,), None), ((0, 3), 0), ((0, 3), 1), ((2, 3), (0, 1)), ((2, 3), ()), ((2, 3), 2), ((2, 3), (1, -1)), ((2, 3), 1.0)]:
            yield op, (arr(shape, "float32"), axis), {}
        if op != "prod":
            yield op, (arr((2, 3), "int8"), 0), {"keepdims": True}
            yield op, (arr((2, 3), "int8"),), {"keepdims": True}
        yield op, (2.5,), {}
        yield op, ("x",), {}
    for op in ("argmax", "argmin"):
        for dtype in DTYPES:
            yield op, (arr((2, 3), dtype), 0), {}
        for shape, axis in [((2, 3), None), ((2, 3), -1), ((0, 3), 0), ((0, 3), 1), ((0,), None), ((2, 3), 2)]:
            yield op, (arr(shape, "float32"), axis), {}
            yield op, (arr(shape, "float32"), axis), {"keepdims": True}
    for dtype in DTYPES:
        yield "cumsum", (arr((2, 3), dtype), -1), {}
        yield "quantile", (arr((2, 5), dtype), [0.25, 0.75]), {}
    yield "cumsum", (arr((2, 3), "float32"), None), {}
    yield "cumsum", (arr((), "float32"), 0), {}
    yield "quantile", (arr((), "float32"), 0.5), {}
    yield "quantile", (arr((3, 0), "float32"), 0.5), {}
    yield "quantile", (arr((3, 4), "float32"), 0.5), {}


def other_elementwise_calls() -> Iterator[Call]:
    cond = np.array([True, False])
    for dtype in DTYPES:
        yield "clip", (arr((2,), dtype), -1.5, 2.5), {}
        yield "clip", (arr((2,), dtype), 0, 300), {}
        yield "clip", (arr((2,), dtype), arr((3, 1), "float32"), None), {}
        yield "where", (cond, arr((2,), dtype), 0.0), {}
        yield "where", (cond, arr((2,), dtype), 300), {}
        yield "where", (cond, 1, arr((3, 1), dtype)), {}
        yield "cast", (arr((2,), dtype), bk.DType(int, 16)), {}
        yield "auto_cast", (arr((2,), dtype), 3), {}
        yield "auto_cast", (arr((2,), dtype), 1.5, True), {}
        yield "auto_cast", (arr((2,), dtype), True), {"bool_to_int": True}
        yield "auto_cast", (arr((2,), dtype), 3), {"int_to_float": True}
        yield "factorial", (arr((2,), dtype),), {}
    yield "where", (cond,), {}
    yield "where", (cond, 1), {}
    yield "where", (cond, arr((3,), "float32"), 1.0), {}
    yield "where", (True, 1, 2.0), {}


def shape_calls() -> Iterator[Call]:
    x = arr((2, 3, 4), "float32")
    i = arr((2, 3), "int8")
    for shape in [(6, 4), (-1, 4), (4, -1, 2), (-1,), (5, -1), (7, 4), (-1, -1), (2, -2, 12), ()]:
        yield "reshape", (x, shape), {}
    yield "reshape", (arr((0, 3), "int8"), (-1, 3)), {}
    yield "reshape", (arr((), "int8"), (1, 1)), {}
    yield "flatten", (x,), {}
    yield "flatten", (arr((), "int8"),), {}
    for axes in [(2, 0, 1), (-1, 0, 1), (0, 1), (0, 0, 1), (0, 1, 3)]:
        yield "transpose", (x, axes), {}
    for axis, number in [(0, 1), (-1, 2), (3, 1), (4, 1), (-5, 1), (1, 0), (0, -1)]:
        yield "expand_dims", (x, axis, number), {}
    for dtypes in [("float32", "float32"), ("int8", "float16"), ("int32", "float16"), ("bool", "uint8"), ("float32", "float64")]:
        yield "stack", ([arr((2, 3), dtypes[0]), arr((2, 3), dtypes[1])],), {}
        yield "concat", ([arr((2, 3), dtypes[0]), arr((4, 3), dtypes[1])], 0), {}
    for axis in (0, -1, 2, 3, -4):
        yield "stack", ([i, i], axis), {}
    yield "stack", ([i, arr((3, 2), "int8")],), {}
    yield "stack", ([],), {}
    for axis in (0, 1, -1, 2):
        yield "concat", ([i, i], axis), {}
    yield "concat", ([i, arr((2, 4), "int8")], 1), {}
    yield "concat", ([i, arr((2, 4), "int8")], 0), {}
    yield "concat", ([i, arr((2,), "int8")], 0), {}
    yield "concat", ([arr((), "int8"), arr((), "int8")], 0), {}
    for axis, keepdims in [(0, False), (-1, True), (2, False)]:
        yield "unstack", (i, axis, keepdims), {}
    for multiples in [(2, 1), (3,), (1, 2, 2), (0, 1), (-1, 1)]:
        yield "tile", (i, multiples), {}
    for axis, size in [(0, 4), (-1, 9), (1, 4), (0, 2)]:
        yield "tile_to", (i, axis, size), {}
    for repeats, axis, new_length in [(2, 0, None), ([1, 2], 0, None), ([1, 2, 3], -1, None), (2, 1, 4), ([1, 2, 3], 0, None), (np.array([1, 2]), 0, None), (np.array([1, 2]), 0, 5)]:
        yield "repeat", (i, repeats, axis, new_length), {}
    for mode in ("constant", "boundary", "periodic", "circular", "symmetric", "reflect", "wrong"):
        yield "pad", (i, [(1, 2), (0, 3)], mode), {}
    yield "pad", (arr((), "int8"), [], "reflect"), {}
    yield "pad", (i, [(1, 2)]), {}
    for axis, size in [(0, 5), (-1, 1), (2, 1)]:
        yield "pad_to", (i, axis, size, 0), {}
    for axes in [0, -1, (0, 1), None, (0, 0), 2]:
        yield "flip", (x, axes), {}
    for index in [(slice(None), 1), (Ellipsis, slice(None, None, -1)), (None, 0, Ellipsis, slice(1, 3)), (5,), (-2, -3), (np.array([0, 1]), slice(None), np.array([[0], [1]])), (slice(None), np.array([0, 1]), np.array([[0], [1]])), (0, 0, 0, 0)]:
        yield "multi_slice", (x, index), {}
    for batches in [0, [1, 0, 1], -1]:
        yield "batch_gather", (x, batches), {}
    m = arr((2, 3, 4, 5), "complex64")
    for offset in (0, 1, -1, 5):
        yield "get_diagonal", (m, offset), {}
    for dtype in DTYPES:
        yield "zeros_like", (arr((2, 0), dtype),), {}
        yield "ones_like", (arr((3,), dtype),), {}
        yield "copy", (arr((3,), dtype),), {}
        yield "stop_gradient", (arr((3,), dtype),), {}


def indexing_calls() -> Iterator[Call]:
    v = arr((3, 4), "float16")
    for indices, axis in [(np.array([0, 2]), 0), (np.array([[0], [3]]), 1), (np.array([-1]), -1), (np.array([], np.int64), 0), (np.array([True]), 0), (np.array([0.0]), 0), (np.array([], np.float64), 0), ([0, 5], 0), (np.array([0]), 2), (1, 1)]:
        yield "gather", (v, indices, axis), {}
    yield "gather_1d", (arr((5,), "int8"), np.array([[0, 1], [2, 3]])), {}
    yield "gather_by_component_indices", (v, np.array([0, 2]), np.array([1, 3])), {}
    yield "gather_by_component_indices", (v, np.array([[0], [2]]), np.array([1, 3, 0])), {}
    values = arr((2, 4, 5, 3), "int32")
    for indices in [arr((2, 6, 2), "int64"), arr((1, 6, 2), "int64"), arr((2, 7, 1, 2), "int32"), arr((3, 6, 2), "int64"), arr((2, 6, 3), "int64")]:
        yield "batched_gather_nd", (values, indices), {}
    yield "batched_gather_nd", (arr((1, 4, 3), "float32"), arr((5, 6, 1), "int64")), {}
    yield "gather_nd", (arr((4, 5, 3), "float32"), arr((6, 2), "int64")), {}
    yield "batched_gather_1d", (arr((2, 5), "float32"), arr((2, 7), "int64")), {}
    yield "batched_gather_1d", (arr((1, 5), "float32"), arr((3, 7), "int64")), {}
    grid = np.zeros((2, 4, 5, 3), np.float32)
    for indices, upd, mode in [
        (np.zeros((2, 6, 2), np.int64), arr((2, 6, 3), "float64"), "add"),
        (np.zeros((1, 6, 2), np.int64), arr((1, 1, 1), "int8"), "update"),
        (np.zeros((2, 6, 2), np.int64), arr((2, 6, 3), "float32"), "mul"),
        (np.zeros((2, 6, 3), np.int64), arr((2, 6, 3), "float32"), "max"),
        (np.zeros((2, 6, 2), np.int64), arr((2, 5, 3), "float32"), "min"),
    ]:
        yield "scatter", (grid, indices, upd, mode), {}
    yield "scatter_nd", (np.zeros((4, 5, 3), np.int32), np.zeros((6, 2), np.int64), arr((6, 3), "int32"), "add"), {}
    yield "scatter_1d_scalar", (np.zeros((5,), np.float32), np.zeros((6,), np.int64), arr((6,), "float32"), "update"), {}
    yield "scatter_nd_scalar", (np.zeros((4, 5), np.float32), np.zeros((6, 2), np.int64), arr((6,), "float32"), "max"), {}
    x = arr((2, 6, 3), "int8")
    for indices, axis in [(np.array([[0, 2, 4], [0, 1, 5]]), 1), (np.array([[0, 2]]), -1), (np.array([[0, 1]]), 0)]:
        yield "indexed_segment_sum", (x, indices, axis), {}
    mask = np.array([True, False, True, True, False, True])
    for axis, new_length in [(1, None), (-2, 4), (0, None)]:
        yield "boolean_mask", (x, mask, axis, new_length), {}
    yield "nonzero", (arr((2, 3), "float32"),), {}
    yield "nonzero", (arr((2, 3), "float32"), 10), {}
    for inverse, counts, axis in [(False, False, None), (True, True, None), (True, False, 0), (False, True, -1)]:
        yield "unique", (arr((2, 3), "float32"), inverse, counts, axis), {}
    for dtype in DTYPES:
        yield "sort", (arr((2, 3), dtype),), {}
        yield "argsort", (arr((2, 3), dtype), 0), {}
    yield "sort", (arr((), "float32"),), {}
    yield "argsort", (arr((), "float32"),), {}
    yield "sort", (arr((2, 3), "float32"), 2), {}
    for seq, vals, side, dtype in [
        (arr((5,), "float32"), arr((2, 3), "float32"), "left", bk.DType(int, 32)),
        (arr((2, 5), "float32"), arr((2, 3), "float32"), "right", bk.DType(int, 64)),
        (arr((2, 5), "float32"), arr((1, 3), "int8"), "left", bk.DType(int, 32)),
        (arr((5,), "float32"), arr((3,), "float32"), "middle", bk.DType(int, 32)),
    ]:
        yield "searchsorted", (seq, vals, side, dtype), {}
    idx = np.array([0, 1, 1, 3])
    for weights in (None, arr((4,), "float32"), arr((4,), "bool"), arr((4,), "complex64"), arr((4,), "int16")):
        yield "bincount", (idx, weights, 5), {}
        yield "batched_bincount", (np.stack([idx, idx]), weights, 5), {}
    yield "histogram1d", (arr((2, 7), "float32"), arr((2, 7), "float64"), np.linspace(0, 2, 5)[None].repeat(2, 0)), {}
    for flat in (np.array([0, 5]), np.array([[1]], np.int16), np.array([True]), np.array([1.0])):
        yield "unravel_index", (flat, (2, 3)), {}
    for mode in ("undefined", "periodic", "clamp", -1, "wrong"):
        yield "ravel_multi_index", (np.array([[0, 1], [1, 2]]), (2, 3), mode), {}


def creation_calls() -> Iterator[Call]:
    for dtype in (None, bk.DType(int, 8), bk.DType(bool), bk.DType(float, 16, brain=True), bk.DType(complex, 128), bk.DType(int, 64, signed=False)):
        yield "zeros", ((2, 0, 3), dtype), {}
        yield "ones", ((4,), dtype), {}
        yield "random_uniform", ((2, 3), 0, 5, dtype), {}
        yield "random_normal", ((2, 3), dtype), {}
    yield "zeros", ((2, -1),), {}
    for args in [(5,), (0, 5, 2), (5, 0), (0, 2.5, 0.5), (0, 1, 0.1), (1, 10, 3), (0.5, 3.2, 0.7), (10, 0, -3), (0, 5, 0)]:
        yield "range", args, {}
    yield "range", (0, 5, 1, bk.DType(float, 64)), {}
    for number in (0, 5, -1):
        yield "linspace", (0, 1, number), {}
        yield "linspace_without_last", (0, 1, number), {}
    yield "meshgrid", (np.arange(3, dtype=np.int8), np.arange(4.0), arr((2, 2), "float16")), {}
    yield "meshgrid", ([1, 2], [1.0, 2.0, 3.0]), {}
    for value in (True, 3, 1.5, 1j, [1, 2], [[1.5], [2.5]], [1j], np.ones(3, np.float64), np.ones(2, np.int8), arr((2,), "float16")):
        yield "as_tensor", (value,), {}


def linalg_calls() -> Iterator[Call]:
    for a, b in [("float32", "float32"), ("int32", "int32"), ("int8", "float64"), ("bool", "bool"), ("complex64", "float32")]:
        yield "tensordot", (arr((2, 3, 4), a), (1, 2), arr((3, 4, 5), b), (0, 1)), {}
        yield "einsum", ("ij,jk->ik", arr((2, 3), a), arr((3, 4), b)), {}
        yield "mul_matrix_batched_vector", (arr((4, 3), a), arr((5, 3), b)), {}
        yield "conv", (arr((2, 3, 8), a), arr((1, 4, 3, 3), b)), {}
    yield "tensordot", (arr((2, 3), "float32"), (-1,), arr((3, 4), "float32"), (0,)), {}
    yield "tensordot", (arr((2, 3), "float32"), (1,), arr((4, 4), "float32"), (0,)), {}
    yield "tensordot", (arr((2, 3), "float32"), (2,), arr((3, 4), "float32"), (0,)), {}
    yield "tensordot", (arr((2, 3), "float32"), (0, 1), arr((3, 4), "float32"), (0,)), {}
    for equation, shapes in [
        ("ij,jk", [(2, 3), (3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ij->", [(3, 4)]),
        ("...i,...i", [(2, 3), (5, 1, 3)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("i,j", [(3,), (4,)]),
        ("ij,jk", [(2, 3), (4, 4)]),
        ("ij,jk", [(2, 3)]),
    ]:
        yield "einsum", (equation, *[arr(s, "float32") for s in shapes]), {}
    yield "mul_matrix_batched_vector", (arr((4, 3), "float32"), arr((5, 2), "float32")), {}
    for dtype in ("float32", "float64", "int32", "complex64", "bool"):
        yield "matrix_solve_least_squares", (arr((2, 5, 3), dtype), arr((2, 5, 4), dtype)), {}
        yield "solve_triangular_dense", (np.eye(3, dtype=dtype)[None].repeat(2, 0), arr((2, 3), dtype), True, False), {}
        yield "matrix_rank_dense", (arr((2, 3, 4), dtype),), {}
        yield "eigvals", (np.eye(3, dtype=dtype)[None],), {}
        yield "eig", (np.eye(3, dtype=dtype),), {}
        yield "svd", (arr((2, 3, 4), dtype),), {}
        yield "svd", (arr((3, 2), dtype), False), {}
        yield "fft", (arr((2, 4), dtype), (0, 1)), {}
        yield "ifft", (arr((2, 4), dtype), (-1,)), {}
    yield "fft", (arr((2, 4), "float32"), (2,)), {}
    yield "fft", (arr((2, 4), "float32"), ()), {}
    yield "fft", (arr((2, 4), "float16"), (0,)), {}
    yield "eigvals", (arr((2, 3), "float32"),), {}
    for zero_padding in (True, False):
        yield "conv", (arr((2, 3, 8, 7), "float32"), arr((2, 4, 3, 3, 2), "float32"), zero_padding), {}
    yield "conv", (arr((2, 3, 8), "float32"), arr((1, 4, 2, 3), "float32")), {}
    yield "conv", (arr((2, 3, 2), "float32"), arr((1, 4, 3, 3), "float32"), False), {}
    for grid_dtype in ("float32", "int8", "float64"):
        for extrapolation in ("zeros", "periodic", "unknown"):
            yield "grid_sample", (arr((2, 4, 5, 3), grid_dtype), arr((2, 6, 2), "float32"), extrapolation), {}
    yield "grid_sample", (arr((1, 4, 5, 3), "float32"), arr((2, 6, 7, 2), "float64"), "boundary"), {}
    yield "grid_sample", (arr((1, 4, 5, 3), "float32"), arr((2, 6, 3), "float64"), "boundary"), {}
    yield "linear", (arr((4, 3), "float32"), arr((5, 3), "float32")), {}
    yield "linear", (arr((4, 3, 1), "float32"), arr((5, 3), "float32")), {}


FAMILIES: dict[str, Callable[[], Iterator[Call]]] = {
    "unary": unary_calls,
    "binary": binary_calls,
    "reductions": reduction_calls,
    "where-clip-cast": other_elementwise_calls,
    "shapes": shape_calls,
    "indexing": indexing_calls,
    "creation": creation_calls,
    "linalg": linalg_calls,
}


_SHAPES = "bk-numpy lets NumPy's ValueError for shapes that do not fit through, not bk.ShapeMismatchError"
_BF16_PRECISION = "bk-numpy's precision conversion skips bfloat16 (an ml_dtypes dtype of NumPy kind 'V')"

# family -> {regular expression matched against "call at precision p | difference": why bk-numpy differs from the spec}
KNOWN_DIFFERENCES: dict[str, dict[str, str]] = {
    "unary": {
        r"bfloat16\[.* at precision (32|64) \| bk-numpy .*bfloat16": _BF16_PRECISION,
    },
    "binary": {
    },
    "reductions": {
        r"bfloat16\[.* at precision (32|64) \| bk-numpy .*bfloat16": _BF16_PRECISION,
    },
    "where-clip-cast": {},
    "shapes": {},
    "indexing": {},
    "linalg": {},
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_specs_agree_with_bk_numpy(family: str) -> None:
    check(family, list(FAMILIES[family]()))


def test_every_specced_operation_is_cross_checked() -> None:
    checked = {op for family in FAMILIES.values() for op, _, _ in family()}
    not_here = {
        "variable": "bk-numpy has no variables (NotImplemented)",
        "allocate_on_device": "needs a device; same template by definition",
        "numpy_call": "its template is its own arguments",
        "solve_triangular": "dispatches to solve_triangular_dense, checked",
        "solve_triangular_sparse": "needs SciPy sparse input",
    }
    sparse = {name for name in bk.op_specs() if name.startswith(("sparse_coo", "csr_", "csc_", "coo_", "mul_coo", "mul_csr"))}
    from bk._operations import operation

    core = {name for name in bk.op_specs() if not operation(name).definition.__module__.startswith("bk._catalogue_")}  # the generic defaults
    unchecked = core - checked - set(not_here) - sparse
    assert not unchecked, sorted(unchecked)


def _huge(value: Any, factor: int) -> Any:
    """Arrays as templates with every size above 1 multiplied by `factor` (sizes 0 and 1 kept, so broadcasting holds)."""
    if isinstance(value, np.ndarray):
        return ShapeDtype(tuple(n * factor if n > 1 else n for n in value.shape), bk.from_numpy_dtype(value.dtype))
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(_huge(v, factor) for v in value)
    return value


def test_templates_of_1e10_elements_infer_without_allocating() -> None:
    import tracemalloc

    factor = 50_000  # (2, 3) becomes (100_000, 150_000): 1.5e10 elements
    inferred = set()
    calls = [(op, args, kwargs) for family in FAMILIES.values() for op, args, kwargs in family() if op != "unstack"]  # unstack's result holds one template per slice
    tracemalloc.start()
    try:
        for op, args, kwargs in calls:
            huge_args = tuple(_huge(a, factor) for a in args)
            if all(h is a for h, a in zip(huge_args, args, strict=True)):
                continue
            try:
                result = bk.eval_shape(op, *huge_args, **{k: _huge(v, factor) for k, v in kwargs.items()})
            except (ValueError, TypeError, IndexError, OverflowError):
                continue  # sizes that had to fit exactly (reshape, histogram edges) no longer do
            if any(n is not None and n >= factor for part in (result if isinstance(result, tuple) else (result,)) for n in part.shape):
                inferred.add(op)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"inference allocated {peak} bytes at its peak"
    with_arrays = {op for op, args, _ in calls if any(_huge(a, factor) is not a for a in args)}
    assert len(inferred) > 0.9 * len(with_arrays), sorted(with_arrays - inferred)
