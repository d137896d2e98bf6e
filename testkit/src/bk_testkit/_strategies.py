"""`hypothesis` strategies of the generated layer: valid and invalid calls of every operation.

`OPERATIONS` maps a catalogue operation to an `OpStrategy`: a strategy of valid calls (every dtype
the operation is meant for, and others where the spec must answer with an error; 0-d, empty and
size-1 dimensions; broadcastable shapes; negative axes; Python scalars of each kind; transposed,
negative-stride and big-endian layouts), one of invalid calls (wrong kinds, out-of-range axes,
mismatched shapes), and how to compare its values. Calls are backend-independent (`Call`): the
same calls run on every backend, which is what `testkit diff` needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from ._draws import (
    F32,
    F64,
    INT32,
    INT64,
    INTS,
    NUMERIC,
    REAL,
    SCALARS,
    Draw,
    arrays,
    axes_arg,
    axis_of,
    bad_tensor,
    binary,
    binary_invalid,
    broadcast_partner,
    creation,
    int_axis,
    int_axis_invalid,
    linspace,
    range_call,
    reduction,
    reduction_invalid,
    shapes,
    unary,
)  # fmt: skip
from ._generated import Arr, Call, compare_values
from ._parts import compare_eigenvalues, compare_random, compare_svd, compare_uniform
from .cases._edges import ALL_DTYPES, BOOL, COMPLEX, FLOATS, SIGNED, UNSIGNED

__all__ = ["OPERATIONS", "OpStrategy"]

@dataclass(frozen=True)
class OpStrategy:
    """How the generated layer calls one operation.

    Args:
        valid: Strategy of valid calls (the spec or the reference may still answer with an error,
            e.g. `floor` of complex values).
        invalid: Strategy of calls that must raise; `None` where there is none to draw.
        smooth: Values are compared with a reference computed in float64 (inputs upcast); else the
            reference runs on the same inputs.
        scale: Multiplies the tolerance.
        compare: `compare(actual, reference, scale)` -> problem or `None`.
    """

    valid: st.SearchStrategy[Call] | None
    invalid: st.SearchStrategy[Call] | None = None
    smooth: bool = True
    scale: float = 1.0
    compare: Callable[..., str | None] = compare_values


# ---------------------------------------------------------------- specific operations


@st.composite
def _clip(draw: Draw) -> Call:
    x = draw(arrays(REAL))
    bound = st.one_of(
        st.sampled_from((-1, 0, 2, 300, -1.5, 2.5, True)),
        arrays((*INTS, *FLOATS), shape=broadcast_partner(draw, x.array.shape), special=False),
    )
    low, high = draw(bound), draw(bound)
    return Call("clip", (x, low, high))


@st.composite
def _where(draw: Draw) -> Call:
    cond = draw(arrays((BOOL,)))
    shape = cond.array.shape

    def branch() -> Any:
        if draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from(SCALARS))
        return draw(arrays(ALL_DTYPES, shape=broadcast_partner(draw, shape)))

    return Call("where", (cond, branch(), branch()))


@st.composite
def _cast(draw: Draw) -> Call:
    target = draw(st.sampled_from(ALL_DTYPES))
    if draw(st.integers(0, 3)) == 0:  # a Python number: an int beyond an int dtype raises OverflowError (NEP 50)
        return Call("cast", (draw(st.sampled_from((*SCALARS, -129, 70000, 2**40))), target))
    low = 0 if target.kind is int and not target.signed else -3  # a negative value in an unsigned type is left to each framework
    x = draw(arrays(ALL_DTYPES, special=False, low=low))
    return Call("cast", (x, target))


@st.composite
def _abs(draw: Draw) -> Call:
    """abs of every dtype, and complex values with an infinite part (C99's cabs: +inf, also beside a NaN)."""
    if draw(st.integers(0, 3)):
        return draw(unary("abs", scalars=True))
    parts = (0.0, 1.5, -2.0, np.inf, -np.inf, np.nan)
    values = np.array([complex(draw(st.sampled_from(parts)), draw(st.sampled_from(parts))) for _ in range(draw(st.integers(1, 6)))])
    return Call("abs", (Arr(values.astype(draw(st.sampled_from((np.complex64, np.complex128))))),))


@st.composite
def _quantile(draw: Draw) -> Call:
    # no infinities: NumPy's interpolation gives NaN between two of them (inf - inf), the frameworks inf
    x = draw(arrays(REAL, shape=shapes(min_rank=1, min_side=1), special=False))
    q = draw(
        st.one_of(st.sampled_from((0.0, 0.25, 0.5, 1.0)), arrays((F32, F64), shape=(2,), special=False, low=0, high=1).map(_unit))
    )
    return Call("quantile", (x, q))


def _unit(a: Arr) -> Arr:
    return Arr(np.clip(np.abs(a.array), 0, 1).astype(a.array.dtype), a.layout)


def _factor_shape(draw: Draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    size = int(np.prod(shape))
    if size == 0:
        return draw(st.sampled_from(((0,), (0, 3), (2, 0), (0, 1))))
    options = [(size,), (-1,), (1, size), (size, 1)]
    for d in (2, 3):
        if size % d == 0:
            options += [(d, size // d), (d, -1)]
    return draw(st.sampled_from(options))


@st.composite
def _reshape(draw: Draw) -> Call:
    x = draw(arrays())
    return Call("reshape", (x, _factor_shape(draw, x.array.shape)))


@st.composite
def _reshape_invalid(draw: Draw) -> Call:
    x = draw(arrays((F32,), shape=shapes(min_rank=1, min_side=2)))
    size = int(np.prod(x.array.shape))
    return Call("reshape", (x, (size + 1,)), valid=False)


@st.composite
def _transpose(draw: Draw) -> Call:
    x = draw(arrays())
    perm = draw(st.permutations(range(x.array.ndim)))
    return Call("transpose", (x, tuple(perm)))


@st.composite
def _transpose_invalid(draw: Draw) -> Call:
    x = draw(arrays((F32,), shape=shapes(min_rank=2)))
    form = draw(st.sampled_from(("short", "duplicate", "range")))
    n = x.array.ndim
    axes = tuple(range(n - 1)) if form == "short" else (0,) * n if form == "duplicate" else tuple(range(1, n + 1))
    return Call("transpose", (x, axes), valid=False)


@st.composite
def _expand_dims(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(max_rank=4)))
    n = x.array.ndim
    return Call("expand_dims", (x,), {"axis": draw(st.integers(-n - 1, n)), "number": draw(st.integers(0, 2))})


@st.composite
def _flip(draw: Draw) -> Call:
    x = draw(arrays())
    axes = axes_arg(draw, x.array.ndim)
    return Call("flip", (x, axes))


@st.composite
def _tile(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(max_rank=3)))
    multiples = tuple(draw(st.integers(0, 2)) for _ in x.array.shape)
    return Call("tile", (x, multiples))


@st.composite
def _repeat(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=3)))
    return Call("repeat", (x, draw(st.integers(0, 3)), axis_of(draw, x.array.ndim)))


@st.composite
def _tile_to(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=3, min_side=1)))
    axis = axis_of(draw, x.array.ndim)
    n = x.array.shape[axis]
    return Call("tile_to", (x, axis, n * draw(st.integers(1, 3))))


@st.composite
def _pad(draw: Draw) -> Call:
    x = draw(arrays(REAL, shape=shapes(max_rank=3, min_side=1)))
    widths = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in x.array.shape)
    mode = draw(st.sampled_from(("constant", "constant", "boundary", "periodic", "symmetric", "reflect")))
    kwargs: dict[str, Any] = {"mode": mode}
    if mode == "constant":
        kwargs["constant_values"] = draw(st.sampled_from((0, 1, 2.5, True, 300, -1)))  # 300 beyond int8: OverflowError
    return Call("pad", (x, widths), kwargs)


@st.composite
def _pad_invalid(draw: Draw) -> Call:
    x = draw(arrays((F32, INT32), shape=shapes(min_rank=1, max_rank=3, min_side=1)))
    form = draw(st.sampled_from(("negative", "negative", "count", "mode")))
    n = x.array.ndim
    if form == "negative":
        widths = [(1, 1)] * n
        widths[draw(st.integers(0, n - 1))] = draw(st.sampled_from(((-1, 0), (0, -1), (-1, 2))))
        return Call("pad", (x, tuple(widths)), {"mode": draw(st.sampled_from(("constant", "periodic", "boundary")))}, valid=False)
    if form == "count":
        return Call("pad", (x, ((1, 1),) * (n + 1)), valid=False)
    return Call("pad", (x, ((1, 1),) * n), {"mode": "no-such-mode"}, valid=False)


@st.composite
def _pad_to(draw: Draw) -> Call:
    x = draw(arrays(REAL, shape=shapes(min_rank=1, max_rank=3)))
    axis = axis_of(draw, x.array.ndim)
    return Call("pad_to", (x, axis, draw(st.integers(0, 5)), draw(st.sampled_from((0, 1, 2.5, True)))))


@st.composite
def _concat(draw: Draw, op: str) -> Call:
    shape = draw(shapes(min_rank=1, max_rank=4))
    count = draw(st.integers(1, 3))
    axis = axis_of(draw, len(shape) + (1 if op == "stack" else 0))
    parts = []
    for _ in range(count):
        sizes = list(shape)
        if op == "concat":
            sizes[axis] = draw(st.integers(0, 2))
        parts.append(draw(arrays(ALL_DTYPES, shape=tuple(sizes))))
    return Call(op, (parts,), {"axis": axis})


@st.composite
def _concat_invalid(draw: Draw, op: str) -> Call:
    form = draw(st.sampled_from(("shape", "axis", "empty")))
    a = draw(arrays((F32,), shape=(2, 3)))
    if form == "shape":
        b = draw(arrays((F32,), shape=(3, 4)))
        return Call(op, ([a, b],), {"axis": 0}, valid=False)
    if form == "axis":
        return Call(op, ([a, a],), {"axis": 3}, valid=False)
    return Call(op, ([],), {"axis": 0}, valid=False)


@st.composite
def _unstack(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=4)))
    return Call("unstack", (x,), {"axis": axis_of(draw, x.array.ndim), "keepdims": draw(st.booleans())})


@st.composite
def _get_diagonal(draw: Draw) -> Call:
    sizes = (draw(st.integers(1, 2)), draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(1, 2)))
    x = draw(arrays(NUMERIC, shape=sizes))
    return Call("get_diagonal", (x,), {"offset": draw(st.integers(-3, 3))})


@st.composite
def _meshgrid(draw: Draw) -> Call:
    count = draw(st.integers(1, 3))
    sizes = st.one_of(st.integers(0, 3).map(lambda n: (n,)), st.sampled_from(((), (2, 2), (1, 3))))  # flattened
    coords = [draw(arrays(REAL, shape=draw(sizes), layouts=False)) for _ in range(count)]
    return Call("meshgrid", tuple(coords))


@st.composite
def _tensordot(draw: Draw) -> Call:
    dtypes = (INT32, INT64, *FLOATS, *COMPLEX)
    m, k, n = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    a = draw(arrays(dtypes, shape=(m, k), special=False))
    b = draw(arrays(dtypes, shape=(k, n), special=False))
    return Call("tensordot", (a, (1,), b, (0,)))


@st.composite
def _einsum(draw: Draw) -> Call:
    dtypes = (INT32, INT64, F32, F64, *COMPLEX)
    m, k, n = draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    form = draw(st.sampled_from(("ij,jk->ik", "ij->ji", "ij->", "i,i->", "ij,ij->i")))
    shapes_ = {
        "ij,jk->ik": [(m, k), (k, n)],
        "ij->ji": [(m, k)],
        "ij->": [(m, k)],
        "i,i->": [(k,), (k,)],
        "ij,ij->i": [(m, k), (m, k)],
    }[form]
    arrs = [draw(arrays(dtypes, shape=s, special=False)) for s in shapes_]
    return Call("einsum", (form, *arrs))


def _index_array(draw: Draw, n: int, count_max: int = 4, negative: bool = True, dtypes: Sequence[DType] = (INT32, INT64)) -> Arr:
    count = draw(st.integers(0, count_max))
    low = -n if negative else 0
    values = [draw(st.integers(low, n - 1)) for _ in range(count)] if n else []
    dtype = bk.to_numpy_dtype(draw(st.sampled_from(tuple(dtypes))))
    return Arr(np.asarray(values, dtype=dtype))


@st.composite
def _gather(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=3)))
    axis = axis_of(draw, x.array.ndim)
    return Call("gather", (x, _index_array(draw, x.array.shape[axis]), axis))


@st.composite
def _gather_invalid(draw: Draw) -> Call:
    x = draw(arrays((F32,), shape=(3, 2)))
    form = draw(st.sampled_from(("range", "negative", "bool", "axis")))
    if form == "range":
        return Call("gather", (x, Arr(np.array([0, 3])), 0), valid=False)
    if form == "negative":
        return Call("gather", (x, Arr(np.array([-4])), 0), valid=False)
    if form == "bool":
        return Call("gather", (x, Arr(np.array([True, False, True])), 0), valid=False)
    return Call("gather", (x, Arr(np.array([0])), 2), valid=False)


@st.composite
def _gather_1d(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=1)))
    return Call("gather_1d", (x, _index_array(draw, x.array.shape[0])))


@st.composite
def _multi_slice(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=3, min_side=1)))
    slices: list[Any] = []
    for n in x.array.shape:
        form = draw(st.sampled_from(("all", "slice", "int", "neg-step")))
        if form == "all":
            slices.append(slice(None))
        elif form == "slice":
            slices.append(slice(draw(st.integers(-n, n)), draw(st.integers(-n, n))))
        elif form == "int":
            slices.append(draw(st.integers(-n, n - 1)))
        else:
            slices.append(slice(None, None, -draw(st.integers(1, 2))))
    return Call("multi_slice", (x, tuple(slices)))


@st.composite
def _nonzero(draw: Draw) -> Call:
    x = draw(arrays(REAL, shape=shapes(min_rank=1, max_rank=3), special=False))
    return Call("nonzero", (x,))


@st.composite
def _boolean_mask(draw: Draw) -> Call:
    x = draw(arrays(shape=shapes(min_rank=1, max_rank=3)))
    axis = axis_of(draw, x.array.ndim)
    mask = draw(arrays((BOOL,), shape=(x.array.shape[axis],), layouts=False))
    return Call("boolean_mask", (x, mask), {"axis": axis})


@st.composite
def _boolean_mask_invalid(draw: Draw) -> Call:
    x = draw(arrays((F32,), shape=(3, 2)))
    return Call("boolean_mask", (x, Arr(np.array([True, False]))), {"axis": 0}, valid=False)


@st.composite
def _unique(draw: Draw) -> Call:
    x = draw(arrays(REAL, shape=shapes(min_rank=1, max_rank=2), special=False))
    axis = draw(st.sampled_from((None, *range(-x.array.ndim, x.array.ndim))))
    return Call("unique", (x, draw(st.booleans()), draw(st.booleans()), axis))


@st.composite
def _searchsorted(draw: Draw) -> Call:
    dtypes = (*SIGNED, DType(int, 8, signed=False), F32, F64)
    seq = draw(arrays(dtypes, shape=shapes(min_rank=1, max_rank=2), special=False))
    sorted_ = Arr(np.sort(seq.array, axis=-1))
    values = draw(arrays((seq.dtype,), shape=(*seq.array.shape[:-1], draw(st.integers(0, 3))), special=False))
    return Call(
        "searchsorted",
        (sorted_, values, draw(st.sampled_from(("left", "right")))),
        {"dtype": draw(st.sampled_from((INT32, INT64)))},
    )


@st.composite
def _bincount(draw: Draw) -> Call:
    n = draw(st.integers(0, 6))
    bins = draw(st.integers(1, 6))
    x = Arr(
        np.asarray(
            [draw(st.integers(0, bins - 1)) for _ in range(n)], dtype=bk.to_numpy_dtype(draw(st.sampled_from((INT32, INT64))))
        )
    )
    weights = None if draw(st.booleans()) else draw(arrays((BOOL, INT32, F32, F64, *COMPLEX), shape=(n,), special=False, layouts=False))
    form = draw(st.sampled_from(("1-d", "1-d", "1-d", "2-d", "0-d", "weights")))
    if form == "2-d" and n % 2 == 0 and n:  # one axis only: ShapeMismatchError (batched_bincount counts rows)
        x = Arr(x.array.reshape(2, n // 2))
        weights = None if weights is None else Arr(weights.array.reshape(2, n // 2))
    elif form == "0-d":
        return Call("bincount", (Arr(np.asarray(draw(st.integers(0, bins - 1)))), None, bins))
    elif form == "weights" and weights is not None:
        weights = Arr(np.ones(n + 1, weights.array.dtype))
    return Call("bincount", (x, weights, bins))


@st.composite
def _batched_bincount(draw: Draw) -> Call:
    batch, n, bins = draw(st.integers(0, 3)), draw(st.integers(0, 5)), draw(st.integers(1, 6))
    dtype = bk.to_numpy_dtype(draw(st.sampled_from((*SIGNED, *UNSIGNED))))
    x = Arr(np.asarray([[draw(st.integers(0, bins)) for _ in range(n)] for _ in range(batch)], dtype=dtype).reshape(batch, n))
    form = draw(st.sampled_from(("none", "full", "row", "row-2d", "mismatch")))
    if form == "none":
        return Call("batched_bincount", (x, None, bins))
    shape = {"full": (batch, n), "row": (n,), "row-2d": (1, n), "mismatch": (batch, n + 1)}[form]  # rows broadcast
    weights = draw(arrays((BOOL, INT32, F32, F64, *COMPLEX), shape=shape, special=False, layouts=False))
    return Call("batched_bincount", (x, weights, bins))


@st.composite
def _bincount_invalid(draw: Draw) -> Call:
    form = draw(st.sampled_from(("negative-value", "negative-bins", "float")))
    if form == "negative-value":
        return Call("bincount", (Arr(np.array([0, -1, 2])), None, 3), valid=False)
    if form == "negative-bins":
        return Call("bincount", (Arr(np.array([0, 1])), None, -2), valid=False)
    return Call("bincount", (Arr(np.array([0.5, 1.0])), None, 3), valid=False)


@st.composite
def _unravel_index(draw: Draw) -> Call:
    shape = draw(st.sampled_from(((3,), (2, 3), (3, 1, 2))))
    size = int(np.prod(shape))
    flat = Arr(
        np.asarray(
            [draw(st.integers(0, size - 1)) for _ in range(draw(st.integers(0, 4)))],
            dtype=bk.to_numpy_dtype(draw(st.sampled_from((INT32, INT64)))),
        )
    )
    return Call("unravel_index", (flat, shape))


@st.composite
def _ravel_multi_index(draw: Draw) -> Call:
    shape = draw(st.sampled_from(((3,), (2, 3), (3, 1, 2))))
    count = draw(st.integers(0, 3))
    index = np.asarray([[draw(st.integers(0, n - 1)) for n in shape] for _ in range(count)], dtype=np.int64).reshape(
        count, len(shape)
    )
    return Call("ravel_multi_index", (Arr(index), shape))


@st.composite
def _indexed_segment_sum(draw: Draw) -> Call:
    n = draw(st.integers(1, 5))
    x = draw(arrays((INT32, INT64, F32, F64), shape=(draw(st.integers(1, 2)), n), special=False))
    starts = sorted({draw(st.integers(0, n - 1)) for _ in range(draw(st.integers(1, 3)))})
    return Call("indexed_segment_sum", (x, Arr(np.asarray([starts] * x.array.shape[0], dtype=np.int64)), 1))


@st.composite
def _histogram1d(draw: Draw) -> Call:
    batch, n = draw(st.integers(0, 2)), draw(st.integers(0, 5))
    sizes = [draw(st.sampled_from((batch, 1))) for _ in range(3)]  # batch sizes of 1 broadcast
    values = draw(arrays((F32, F64, INT32), shape=(sizes[0], n), special=False))
    weights = draw(arrays((F32, F64, INT32, BOOL, *COMPLEX), shape=(sizes[1], n), special=False, low=0))
    # increasing edges (within the values' range and beyond it; histograms of decreasing edges are undefined)
    edges = np.linspace(draw(st.sampled_from((-3, -1.5, 0))), draw(st.sampled_from((1, 2.5, 3))), draw(st.integers(2, 5)))
    return Call("histogram1d", (values, weights, Arr(np.tile(edges.astype(draw(st.sampled_from((np.float32, np.float64)))), (sizes[2], 1)))))


@st.composite
def _least_squares(draw: Draw) -> Call:
    """Tall, wide, square, rank-deficient and empty systems; batch sizes of 1 broadcast."""
    m, n, k = draw(st.integers(0, 4)), draw(st.integers(0, 3)), draw(st.integers(0, 2))
    batch = draw(st.integers(1, 2))
    sizes = (draw(st.sampled_from((batch, 1))), draw(st.sampled_from((batch, 1))))
    dtype = bk.to_numpy_dtype(draw(st.sampled_from((F32, F64, *COMPLEX, DType(float, 16), INT32))))
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    matrix = rng.standard_normal((sizes[0], m, n)) + (1j * rng.standard_normal((sizes[0], m, n)) if dtype.kind == "c" else 0)
    if draw(st.booleans()) and n >= 2:
        matrix[..., -1] = matrix[..., 0]  # rank-deficient
    rhs = rng.standard_normal((sizes[1], m, k)) + (1j * rng.standard_normal((sizes[1], m, k)) if dtype.kind == "c" else 0)
    if dtype.kind == "i":
        matrix, rhs = np.round(matrix * 2), np.round(rhs * 2)
    return Call("matrix_solve_least_squares", (Arr(matrix.astype(dtype)), Arr(rhs.astype(dtype))))


@st.composite
def _random_uniform(draw: Draw) -> Call:
    shape = draw(st.sampled_from(((), (0,), (4,), (2, 3))))
    dtype = draw(st.sampled_from((None, F32, F64, INT32, INT64)))
    low, high = draw(st.sampled_from(((0, 1), (-2, 3), (2, 2), (1.5, 1.5), (0.5, 2.5))))
    if dtype is not None and dtype.kind is int:
        low, high = int(low), int(high) + (1 if int(high) == int(low) and draw(st.booleans()) else 0)
    return Call("random_uniform", (shape, low, high, dtype))


@st.composite
def _random_normal(draw: Draw) -> Call:
    return Call("random_normal", (draw(st.sampled_from(((), (0,), (4,), (2, 3)))), draw(st.sampled_from((None, F32, F64)))))


def _matrices(draw: Draw, dtypes: Sequence[DType], square: bool = False, batch: bool = True) -> Arr:
    m = draw(st.integers(0, 3))
    n = m if square else draw(st.integers(0, 3))
    lead = draw(st.sampled_from(((), (1,), (2,)))) if batch else ()
    return draw(arrays(dtypes, shape=(*lead, m, n), special=False))


@st.composite
def _svd(draw: Draw) -> Call:
    return Call("svd", (_matrices(draw, (*FLOATS, *COMPLEX)),), {"full_matrices": draw(st.booleans())})


@st.composite
def _eig(draw: Draw, op: str) -> Call:
    return Call(op, (_matrices(draw, (*FLOATS, *COMPLEX), square=True),))


@st.composite
def _matrix_rank(draw: Draw) -> Call:
    x = _matrices(draw, (F32, F64), batch=False)
    return Call("matrix_rank_dense", (Arr(x.array[None]),))


@st.composite
def _solve_triangular(draw: Draw) -> Call:
    n = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from((F32, F64)))
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    lower = draw(st.booleans())
    matrix = rng.uniform(-1, 1, (1, n, n)) + 3 * np.eye(n)
    matrix = np.tril(matrix) if lower else np.triu(matrix)
    rhs = rng.uniform(-1, 1, (1, n))
    np_dtype = bk.to_numpy_dtype(dtype)
    return Call("solve_triangular_dense", (Arr(matrix.astype(np_dtype)), Arr(rhs.astype(np_dtype)), lower, draw(st.booleans())))


@st.composite
def _fft(draw: Draw, op: str) -> Call:
    x = draw(arrays((*FLOATS, *COMPLEX, INT32), shape=shapes(min_rank=1, max_rank=3, min_side=1), special=False))
    n = x.array.ndim
    chosen = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    return Call(op, (x, tuple(a - n if draw(st.booleans()) else a for a in chosen)))


@st.composite
def _conv(draw: Draw) -> Call:
    dims = draw(st.integers(1, 2))
    batch, c_in, c_out = draw(st.integers(0, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    spatial = tuple(draw(st.integers(1, 5)) for _ in range(dims))
    kernel = tuple(draw(st.integers(1, 4)) for _ in range(dims))
    dtype = draw(st.sampled_from((F32, F64)))
    value = draw(arrays((dtype,), shape=(batch, c_in, *spatial), special=False))
    k_batch = draw(st.sampled_from((1, batch))) if batch else 1
    weights = draw(arrays((dtype,), shape=(k_batch, c_out, c_in, *kernel), special=False))
    return Call("conv", (value, weights), {"zero_padding": draw(st.booleans())})


@st.composite
def _mul_matrix_batched_vector(draw: Draw) -> Call:
    rows, cols, batch = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 2))
    dtypes = (INT32, F32, F64)
    return Call(
        "mul_matrix_batched_vector",
        (draw(arrays(dtypes, shape=(rows, cols), special=False)), draw(arrays(dtypes, shape=(batch, cols), special=False))),
    )


@st.composite
def _gamma_inc(draw: Draw, op: str) -> Call:
    a = draw(arrays((F32, F64), special=False, low=0, high=4))
    x = draw(arrays((F32, F64), shape=broadcast_partner(draw, a.array.shape), special=False, low=0, high=4))
    return Call(op, (a, x))


# ---------------------------------------------------------------- the table


def _table() -> dict[str, OpStrategy]:
    table: dict[str, OpStrategy] = {}
    unary_any = (
        "abs",
        "sign",
        "isfinite",
        "isinf",
        "isnan",
        "real",
        "imag",
        "conj",
        "round",
        "floor",
        "ceil",
        "stop_gradient",
        "copy",
        "zeros_like",
        "ones_like",
        "flatten",
        "to_complex",
        "to_float",
        "invert",
    )
    exact_unary = {
        "isfinite",
        "isinf",
        "isnan",
        "round",
        "floor",
        "ceil",
        "stop_gradient",
        "copy",
        "zeros_like",
        "ones_like",
        "flatten",
        "invert",
        "sign",
        "abs",
        "real",
        "imag",
        "conj",
    }
    for op in unary_any:
        table[op] = OpStrategy(unary(op, scalars=op in ("abs", "to_float", "real")), bad_tensor(op), smooth=op not in exact_unary)
    table["abs"] = OpStrategy(_abs(), bad_tensor("abs"), smooth=False)
    for op in ("to_int32", "to_int64"):
        table[op] = OpStrategy(unary(op, special=False), bad_tensor(op), smooth=False)
    for op in (
        "sin",
        "cos",
        "tan",
        "sinh",
        "cosh",
        "tanh",
        "exp",
        "log",
        "log2",
        "log10",
        "sqrt",
        "arcsin",
        "arccos",
        "arctan",
        "arcsinh",
        "arccosh",
        "arctanh",
        "sigmoid",
        "softplus",
        "erf",
        "log_gamma",
        "factorial",
    ):
        table[op] = OpStrategy(unary(op, scalars=op in ("sin", "exp")), bad_tensor(op), scale=4.0)
    for op in (
        "add",
        "sub",
        "mul",
        "div",
        "maximum",
        "minimum",
        "equal",
        "not_equal",
        "greater_than",
        "greater_or_equal",
        "arctan2",
        "divide_no_nan",
    ):
        table[op] = OpStrategy(binary(op), binary_invalid(op), smooth=op in ("div", "arctan2", "divide_no_nan"), scale=2.0)
    for op in ("floordiv", "mod"):
        table[op] = OpStrategy(binary(op, dtypes=REAL), binary_invalid(op), smooth=False)
    table["pow"] = OpStrategy(binary("pow", low=-2, high=3), binary_invalid("pow"), smooth=False, scale=4.0)
    for op in ("and_", "or_", "xor"):
        table[op] = OpStrategy(binary(op, dtypes=(BOOL, *INTS)), binary_invalid(op, (INT32,)), smooth=False)
    for op in ("shift_bits_left", "shift_bits_right"):
        table[op] = OpStrategy(binary(op, dtypes=(BOOL, *INTS), low=-2, high=9), binary_invalid(op, (INT32,)), smooth=False)
    for op in ("gamma_inc_l", "gamma_inc_u"):
        table[op] = OpStrategy(_gamma_inc(op), binary_invalid(op, (F32,)), scale=20.0)
    for op in ("sum", "mean", "std", "max", "min", "any", "all"):
        table[op] = OpStrategy(reduction(op), reduction_invalid(op), smooth=op in ("sum", "mean", "std"), scale=10.0)
    table["prod"] = OpStrategy(reduction("prod", keepdims=False), reduction_invalid("prod"), smooth=False, scale=10.0)
    for op in ("argmax", "argmin"):
        table[op] = OpStrategy(int_axis(op, REAL, keepdims=True), int_axis_invalid(op), smooth=False)
    table["cumsum"] = OpStrategy(int_axis("cumsum", NUMERIC), int_axis_invalid("cumsum"), scale=10.0)
    for op in ("sort", "argsort"):
        table[op] = OpStrategy(int_axis(op, REAL), int_axis_invalid(op), smooth=False)
    table["quantile"] = OpStrategy(_quantile(), bad_tensor("quantile", after=(0.5,)), scale=4.0)
    table["clip"] = OpStrategy(_clip(), bad_tensor("clip", after=(0, 1)), smooth=False)
    table["where"] = OpStrategy(_where(), None, smooth=False)
    table["cast"] = OpStrategy(_cast(), bad_tensor("cast", after=(F32,)), smooth=False)
    table["reshape"] = OpStrategy(_reshape(), _reshape_invalid(), smooth=False)
    table["transpose"] = OpStrategy(_transpose(), _transpose_invalid(), smooth=False)
    table["expand_dims"] = OpStrategy(_expand_dims(), int_axis_invalid("expand_dims"), smooth=False)
    table["flip"] = OpStrategy(_flip(), int_axis_invalid("flip", "axes"), smooth=False)
    table["tile"] = OpStrategy(_tile(), None, smooth=False)
    table["repeat"] = OpStrategy(_repeat(), None, smooth=False)
    table["tile_to"] = OpStrategy(_tile_to(), None, smooth=False)
    table["pad"] = OpStrategy(_pad(), _pad_invalid(), smooth=False)
    table["pad_to"] = OpStrategy(_pad_to(), None, smooth=False)
    for op in ("concat", "stack"):
        table[op] = OpStrategy(_concat(op), _concat_invalid(op), smooth=False)
    table["unstack"] = OpStrategy(_unstack(), int_axis_invalid("unstack"), smooth=False)
    table["get_diagonal"] = OpStrategy(_get_diagonal(), None, smooth=False)
    table["meshgrid"] = OpStrategy(_meshgrid(), None, smooth=False)
    table["tensordot"] = OpStrategy(_tensordot(), None, scale=10.0)
    table["einsum"] = OpStrategy(_einsum(), None, scale=10.0)
    table["gather"] = OpStrategy(_gather(), _gather_invalid(), smooth=False)
    table["gather_1d"] = OpStrategy(_gather_1d(), None, smooth=False)
    table["multi_slice"] = OpStrategy(_multi_slice(), None, smooth=False)
    table["nonzero"] = OpStrategy(_nonzero(), None, smooth=False)
    table["boolean_mask"] = OpStrategy(_boolean_mask(), _boolean_mask_invalid(), smooth=False)
    table["unique"] = OpStrategy(_unique(), None, smooth=False)
    table["searchsorted"] = OpStrategy(_searchsorted(), None, smooth=False)
    table["bincount"] = OpStrategy(_bincount(), _bincount_invalid(), scale=4.0)
    table["batched_bincount"] = OpStrategy(_batched_bincount(), None, scale=4.0)
    table["unravel_index"] = OpStrategy(_unravel_index(), None, smooth=False)
    table["ravel_multi_index"] = OpStrategy(_ravel_multi_index(), None, smooth=False)
    table["indexed_segment_sum"] = OpStrategy(_indexed_segment_sum(), None, scale=4.0)
    table["histogram1d"] = OpStrategy(_histogram1d(), None, scale=4.0)
    for op in ("zeros", "ones"):
        table[op] = OpStrategy(creation(op), None, smooth=False)
    table["range"] = OpStrategy(range_call(), None, smooth=False)
    for op in ("linspace", "linspace_without_last"):
        table[op] = OpStrategy(linspace(op), None, scale=4.0)
    table["random_uniform"] = OpStrategy(_random_uniform(), None, smooth=False, compare=compare_uniform)
    table["random_normal"] = OpStrategy(_random_normal(), None, smooth=False, compare=compare_random)
    table["svd"] = OpStrategy(_svd(), None, compare=compare_svd)
    table["eig"] = OpStrategy(_eig("eig"), None, compare=compare_eigenvalues(0))
    table["eigvals"] = OpStrategy(_eig("eigvals"), None, compare=compare_eigenvalues(None))
    table["matrix_rank_dense"] = OpStrategy(_matrix_rank(), None, smooth=False)
    table["solve_triangular_dense"] = OpStrategy(_solve_triangular(), None, scale=10.0)
    for op in ("fft", "ifft"):
        table[op] = OpStrategy(_fft(op), None, scale=10.0)
    table["conv"] = OpStrategy(_conv(), None, scale=10.0)
    table["matrix_solve_least_squares"] = OpStrategy(_least_squares(), None, scale=100.0)
    table["mul_matrix_batched_vector"] = OpStrategy(_mul_matrix_batched_vector(), None, scale=10.0)
    _standard(table)
    return {op: s for op, s in table.items() if op in bk.Backend.features()}


def _standard(table: dict[str, OpStrategy]) -> None:
    """The Array API standard's elementwise functions and reductions (issue 25), generated the same way."""
    for op in ("log1p", "expm1", "reciprocal", "square", "trunc", "signbit", "negative"):
        dtypes = REAL if op in ("trunc", "signbit") else ALL_DTYPES
        exact = op in ("trunc", "signbit", "negative", "square")
        table[op] = OpStrategy(unary(op, dtypes=dtypes), bad_tensor(op), smooth=not exact, scale=4.0)
    for op in ("hypot", "logaddexp", "copysign"):
        table[op] = OpStrategy(binary(op, dtypes=(*INTS, *FLOATS)), binary_invalid(op, (F32,)), smooth=op != "copysign", scale=4.0)
    for op in ("var", "count_nonzero", "logsumexp"):
        table[op] = OpStrategy(reduction(op, scalars=False), reduction_invalid(op), smooth=op != "count_nonzero", scale=10.0)


OPERATIONS: Final[dict[str, OpStrategy]] = _table()
"""Catalogue operation -> how the generated layer calls it."""
