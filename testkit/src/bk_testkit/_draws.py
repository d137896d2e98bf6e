"""The building blocks of the generated layer's strategies: shapes, arrays and their layouts, axes, and the
families of calls that many operations share (unary, binary, reductions, an int axis), valid and invalid.
`bk_testkit._strategies` builds each operation's strategy from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

from bk import DType

from ._generated import Arr, Call
from .cases._edges import ALL_DTYPES, BOOL, COMPLEX, FLOATS, SHAPES, SIGNED, UNSIGNED, make_values

Draw = Callable[[st.SearchStrategy[Any]], Any]
INTS: Final = (*SIGNED, *UNSIGNED)
REAL: Final = (BOOL, *INTS, *FLOATS)
NUMERIC: Final = (*INTS, *FLOATS, *COMPLEX)
INEXACT: Final = (*FLOATS, *COMPLEX)
INT32, INT64 = DType(int, 32), DType(int, 64)
F32, F64 = DType(float, 32), DType(float, 64)
LAYOUTS: Final = ("contiguous", "contiguous", "transposed", "negative-strides", "big-endian")
SCALARS: Final = (True, False, 0, 2, -3, 300, 1.5, -0.5, 2.0, 1j, 2 - 1j)
"""Python scalars of each kind (weak, NEP 50), with an int beyond int8 and uint8."""
BAD_TENSORS: Final = (None, "abc")


# ---------------------------------------------------------------- building blocks


def shapes(min_rank: int = 0, max_rank: int = 5, min_side: int = 0) -> st.SearchStrategy[tuple[int, ...]]:
    pool = [s for s in SHAPES if min_rank <= len(s) <= max_rank and all(n >= min_side for n in s)]
    return st.sampled_from(pool)


@st.composite
def arrays(
    draw: Draw,
    dtypes: Sequence[DType] = ALL_DTYPES,
    shape: st.SearchStrategy[tuple[int, ...]] | tuple[int, ...] | None = None,
    special: bool = True,
    low: int = -3,
    high: int = 3,
    layouts: bool = True,
) -> Arr:
    """An `Arr` of one of `dtypes`, small values (NaN and infinities among floats if `special`)."""
    dtype = draw(st.sampled_from(tuple(dtypes)))
    if shape is None:
        shape = shapes()
    sizes = shape if isinstance(shape, tuple) else draw(shape)
    seed = draw(st.integers(0, 2**20))
    layout = draw(st.sampled_from(LAYOUTS)) if layouts else "contiguous"
    values = make_values(dtype, sizes, seed, special, low, high)
    if dtype.kind is complex:  # complex infinities are implementation-defined (C99 Annex G): NaN only
        values = np.where(np.isinf(values), np.complex128(complex(np.nan, 0)), values).astype(values.dtype)
    return Arr(values, layout)


def values_of(array: np.ndarray, layout: str = "contiguous") -> Arr:
    return Arr(array, layout)


def broadcast_partner(draw: Draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape`: equal, a suffix, some sizes 1, or one more leading axis."""
    form = draw(st.sampled_from(("same", "suffix", "ones", "lead")))
    if form == "suffix":
        return shape[draw(st.integers(0, len(shape))) :]
    if form == "ones":
        return tuple(1 if draw(st.booleans()) else n for n in shape)
    if form == "lead" and len(shape) < 5:
        return (draw(st.sampled_from((1, 2))), *shape)
    return shape


def mismatched(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that does not broadcast with `shape`."""
    if not shape or shape[-1] == 1:
        return (*shape[:-1], 4, 5) if shape else (4,)  # callers pass shapes with sizes >= 2 where it matters
    return (*shape[:-1], shape[-1] + 1)


def axis_of(draw: Draw, ndim: int) -> int:
    """An int axis in `[-ndim, ndim)`."""
    return draw(st.integers(-ndim, ndim - 1))


def axes_arg(draw: Draw, ndim: int) -> Any:
    """`None`, an int, a tuple of distinct axes (negative ones too) or `()`."""
    form = draw(st.sampled_from(("none", "int", "tuple", "empty") if ndim else ("none", "empty")))
    if form == "none":
        return None
    if form == "empty":
        return ()
    if form == "int":
        return axis_of(draw, ndim)
    chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen)


def bad_axis(draw: Draw, ndim: int) -> Any:
    """An axis that must raise: out of range (AxisError), a float or a string (ArgumentTypeError)."""
    return draw(st.sampled_from((ndim, -ndim - 1, ndim + 3, 1.5, "0")))


# ---------------------------------------------------------------- families


def unary(
    op: str, dtypes: Sequence[DType] = ALL_DTYPES, special: bool = True, low: int = -3, high: int = 3, scalars: bool = False
) -> st.SearchStrategy[Call]:
    tensors = arrays(dtypes, special=special, low=low, high=high).map(lambda x: Call(op, (x,)))
    if not scalars:
        return tensors
    return st.one_of(tensors, st.sampled_from(SCALARS).map(lambda s: Call(op, (s,))))


def bad_tensor(op: str, before: tuple[Any, ...] = (), after: tuple[Any, ...] = ()) -> st.SearchStrategy[Call]:
    return st.sampled_from(BAD_TENSORS).map(lambda v: Call(op, (*before, v, *after), valid=False))


@st.composite
def binary(
    draw: Draw,
    op: str,
    dtypes: Sequence[DType] = ALL_DTYPES,
    special: bool = True,
    low: int = -3,
    high: int = 3,
    scalars: bool = True,
) -> Call:
    a = draw(arrays(dtypes, special=special, low=low, high=high))
    forms = ("tt", "tt", "ts", "st") if scalars else ("tt",)
    form = draw(st.sampled_from(forms))
    if form == "tt":
        b = draw(arrays(dtypes, shape=broadcast_partner(draw, a.array.shape), special=special, low=low, high=high))
        return Call(op, (a, b) if draw(st.booleans()) else (b, a))
    s = draw(st.sampled_from(SCALARS))
    return Call(op, (a, s) if form == "ts" else (s, a))


@st.composite
def binary_invalid(draw: Draw, op: str, dtypes: Sequence[DType] = (INT32, F32)) -> Call:
    a = draw(arrays(dtypes, shape=shapes(min_rank=1, min_side=1)))
    form = draw(st.sampled_from(("shape", "none", "str")))
    if form == "shape":
        b = draw(arrays(dtypes, shape=mismatched(a.array.shape)))
        return Call(op, (a, b), valid=False)
    bad = None if form == "none" else "abc"
    return Call(op, (a, bad) if draw(st.booleans()) else (bad, a), valid=False)


@st.composite
def reduction(draw: Draw, op: str, dtypes: Sequence[DType] = ALL_DTYPES, keepdims: bool = True, scalars: bool = True) -> Call:
    if scalars and draw(st.integers(0, 5)) == 0:
        return Call(op, (draw(st.sampled_from((True, 3, 3.5, 2 - 1j))),))
    x = draw(arrays(dtypes))
    axis = axes_arg(draw, x.array.ndim)
    kwargs: dict[str, Any] = {"axis": axis}
    if keepdims:
        kwargs["keepdims"] = draw(st.booleans())
    return Call(op, (x,), kwargs)


@st.composite
def reduction_invalid(draw: Draw, op: str, dtypes: Sequence[DType] = (INT32, F32)) -> Call:
    x = draw(arrays(dtypes, shape=shapes(min_rank=1, min_side=1)))
    ndim = x.array.ndim
    form = draw(st.sampled_from(("axis", "duplicate", "tensor")))
    if form == "tensor":
        return Call(op, (draw(st.sampled_from(BAD_TENSORS)),), valid=False)
    if form == "duplicate":
        return Call(op, (x,), {"axis": (0, -ndim)}, valid=False)
    return Call(op, (x,), {"axis": bad_axis(draw, ndim)}, valid=False)


@st.composite
def int_axis(
    draw: Draw, op: str, dtypes: Sequence[DType] = ALL_DTYPES, keepdims: bool = False, min_rank: int = 1, **extra: Any
) -> Call:
    x = draw(arrays(dtypes, shape=shapes(min_rank=min_rank)))
    kwargs: dict[str, Any] = {"axis": axis_of(draw, x.array.ndim), **extra}
    if keepdims:
        kwargs["keepdims"] = draw(st.booleans())
    return Call(op, (x,), kwargs)


@st.composite
def int_axis_invalid(draw: Draw, op: str, name: str = "axis") -> Call:
    x = draw(arrays((INT32, F32), shape=shapes(min_rank=0, min_side=1)))
    return Call(op, (x,), {name: bad_axis(draw, x.array.ndim)}, valid=False)


# ---------------------------------------------------------------- creation


@st.composite
def creation(draw: Draw, op: str) -> Call:
    shape = draw(st.sampled_from(((), (0,), (3,), (2, 0), (2, 3), 3, 0, np.int64(2), [2, 1])))  # one int is a shape too
    return Call(op, (shape,), {"dtype": draw(st.sampled_from((None, *ALL_DTYPES)))})


_RANGE_ARGS: Final = (
    (5,),
    (0,),
    (-2,),
    (2, 7),
    (7, 2),
    (0, 10, 3),
    (10, 0, -3),
    (0.5, 3, 0.5),
    (0, 1, 0.1),
    (3, 0.5, -0.5),
    (1.5,),
    (0, 5, 2.5),
    (-1, 1, 0.25),
)


@st.composite
def range_call(draw: Draw) -> Call:
    args = draw(st.sampled_from((*_RANGE_ARGS, (250, 260, 5), (0, 300, 100), (2**31 + 5, 2**31 + 8), (-1, 3))))
    dtype = draw(st.sampled_from((*INTS, F32, F64)))
    if any(isinstance(a, float) for a in args) and dtype.kind is int:
        return Call("range", args)
    return Call("range", args, {"dtype": dtype})


@st.composite
def linspace(draw: Draw, op: str) -> Call:
    start = draw(st.sampled_from((0, 1.5, -2, 0.0, True, Arr(np.float32(0.5)), Arr(np.int32(-1)))))
    stop = draw(st.sampled_from((1, 3.5, -1, 10, 1e40, -1e300, Arr(np.float64(2.0)), 1 + 1j)))
    return Call(op, (start, stop, draw(st.integers(0, 5))))
