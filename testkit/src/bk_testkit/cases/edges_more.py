"""More edge cases: bitwise operators, `mod`/`floordiv`/`pow` with weak scalars, `cast` between every
pair of dtypes, `zeros`/`ones` of every dtype, shape mismatches in linear algebra, `repeat` axes.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import Trial, add_case
from ._edges import (
    ALL_DTYPES,
    BOOL,
    FLOATS,
    SIGNED,
    UNSIGNED,
    available,
    check_raises,
    check_result,
    describe,
    dtypes,
    explore,
    make_values,
    reference_float,
    shapes,
    tensor,
)
from .edges_binary import weak_result

_INTS: Final = (*SIGNED, *UNSIGNED)
_F32: Final = DType(float, 32)

_BITWISE: Final = {"and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor}


def _bitwise_case(name: str) -> Any:
    ufunc = _BITWISE[name]

    def run(t: Trial) -> None:
        @explore(dtypes(t, (BOOL, *_INTS)), dtypes(t, (BOOL, *_INTS)), shapes(max_rank=3), st.one_of(st.none(), st.booleans(), st.integers(0, 3)), examples=25)
        def example(da: DType, db: DType, shape: tuple[int, ...], scalar: Any) -> None:
            a = make_values(da, shape, seed=sum(shape) + 1, low=0)
            if scalar is None:
                b: Any = make_values(db, shape, seed=sum(shape) + 2, low=0)
                operand = bk.combine_types(da, db)
                got = getattr(t.b, name)(tensor(t, a), tensor(t, b))
            else:
                b = scalar
                operand = weak_result(da, scalar)
                got = getattr(t.b, name)(tensor(t, a), scalar)
            np_dtype = bk.to_numpy_dtype(operand)
            expected = ufunc(a.astype(np_dtype), np.asarray(b).astype(np_dtype))
            check_result(t, got, expected, f"{name}({describe('', a)[1:-1]}, {b!r})" if scalar is not None else describe(name, a, b), operand, {"a": a})

        example()

    return run


for _name in _BITWISE:
    add_case(_name, "edge-dtypes-weak", _bitwise_case(_name), "bool and every int dtype in pairs and with weak Python bools and ints")


_ARITHMETIC: Final = {"mod": np.mod, "floordiv": np.floor_divide, "pow": np.power}


def _arithmetic_case(name: str) -> Any:
    ufunc = _ARITHMETIC[name]
    scalars = [2, 3, 1.5, -2] if name != "pow" else [2, 3, 0.5]

    def run(t: Trial) -> None:
        @explore(dtypes(t, (*_INTS, *FLOATS)), shapes(max_rank=3), st.sampled_from(scalars), examples=20)
        def example(dtype: DType, shape: tuple[int, ...], scalar: Any) -> None:
            if dtype.kind is int and not dtype.signed and isinstance(scalar, int) and scalar < 0:
                scalar = -scalar  # an out-of-range Python int is the overflow rule of add & co.
            x = make_values(dtype, shape, seed=sum(shape) + 4, low=0 if name == "pow" else -3, special=False)
            operand = weak_result(dtype, scalar)
            np_dtype = bk.to_numpy_dtype(operand)
            with np.errstate(all="ignore"):
                if operand.kind is int:
                    expected = ufunc(x.astype(np_dtype), np.asarray(scalar, np_dtype))
                else:
                    expected = ufunc(reference_float(x.astype(np_dtype)), float(np.asarray(scalar, np_dtype)))
            check_result(t, getattr(t.b, name)(tensor(t, x), scalar), expected, f"{name}({describe('', x)[1:-1]}, {scalar!r})", operand, {"x": x}, scale=4)

        example()

    return run


for _name in _ARITHMETIC:
    add_case(_name, "edge-weak-scalars", _arithmetic_case(_name), "every int and float dtype with weak Python ints and floats")


def _cast(t: Trial) -> None:
    """Pairs of the 14 dtypes: values in range of the target; floats truncate toward zero; complex to real keeps the real part, to bool tests != 0."""

    @explore(dtypes(t, ALL_DTYPES), dtypes(t, ALL_DTYPES), shapes(max_rank=3), examples=40)
    def example(source: DType, target: DType, shape: tuple[int, ...]) -> None:
        check(source, target, shape)

    def check(source: DType, target: DType, shape: tuple[int, ...]) -> None:
        to_int = target.kind in (int, bool)
        low = 0 if (target.kind is int and not target.signed) or (source.kind is int and not source.signed) else -3
        x = make_values(source, shape, seed=sum(shape) + 5, low=low, special=not to_int)
        with np.errstate(all="ignore"):
            if x.dtype.kind == "c" and target.kind is bool:
                expected = x != 0  # a complex value is true where it is not 0
            else:
                real = x.real if (x.dtype.kind == "c" and target.kind is not complex) else x  # complex to real: the real part
                expected = real.astype(bk.to_numpy_dtype(target))
        got = t.b.cast(tensor(t, x), target)
        check_result(t, got, expected, f"cast({describe('', x)[1:-1]}, {target})", target, {"x": x})

    example()
    kinds = available(t, ALL_DTYPES)
    for i, source in enumerate(kinds):  # every dtype from and to float32, and to its neighbours in the list
        for target in {DType(float, 32), kinds[(i + 1) % len(kinds)], kinds[(i + 5) % len(kinds)]}:
            check(source, target, (4,))
        check(DType(float, 32), source, (4,))


add_case("cast", "edge-dtype-pairs", _cast, "every dtype to and from float32 and others, bfloat16 and unsigned included")


def _creation_case(name: str) -> Any:
    fill = np.zeros if name == "zeros" else np.ones

    def run(t: Trial) -> None:
        @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=5), examples=20)
        def example(dtype: DType, shape: tuple[int, ...]) -> None:
            check(dtype, shape)

        def check(dtype: DType, shape: tuple[int, ...]) -> None:
            got = getattr(t.b, name)(shape, dtype)
            check_result(t, got, fill(shape, bk.to_numpy_dtype(dtype)), f"{name}({shape}, {dtype})", dtype)

        example()
        for dtype in available(t, ALL_DTYPES):  # every dtype once
            check(dtype, (2, 0) if dtype.kind is complex else (3,))

    return run


for _name in ("zeros", "ones"):
    add_case(_name, "edge-dtypes-shapes", _creation_case(_name), "every dtype, rank 0-5, empty shapes")


def _tensordot(t: Trial) -> None:
    """Contracted axes of different sizes raise ShapeMismatchError; negative axes count from the end."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    check_result(t, t.b.tensordot(tensor(t, a), [-1], tensor(t, b), [-2]), np.tensordot(a, b, ([1], [0])), "tensordot((2, 3), [-1], (3, 4), [-2])", _F32)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.tensordot(tensor(t, a), [0], tensor(t, b), [0]), "tensordot((2, 3), [0], (3, 4), [0])", "tensordot")


add_case("tensordot", "edge-shapes", _tensordot, "negative axes; contracting sizes that differ raises ShapeMismatchError")


def _einsum(t: Trial) -> None:
    """An index with two different sizes raises ShapeMismatchError."""
    a, b = tensor(t, np.ones((2, 3), np.float32)), tensor(t, np.ones((4, 5), np.float32))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.einsum("ij,jk->ik", a, b), "einsum('ij,jk->ik', (2, 3), (4, 5))", "einsum")


add_case("einsum", "edge-shapes", _einsum, "an index with two different sizes raises ShapeMismatchError")


def _einsum_ellipsis(t: Trial) -> None:
    """'...' axes broadcast and go where the output puts them; the implicit output puts them first."""
    left, right = np.arange(24, dtype=np.float32).reshape(2, 1, 3, 4) % 5, np.arange(40, dtype=np.float32).reshape(5, 4, 2) % 3
    for equation, operands in (
        ("...ij,...jk->...ik", (left, right)),
        ("...ij,...jk", (left, right)),
        ("i...->...", (right,)),
        ("...ii->...i", (np.arange(18, dtype=np.float32).reshape(2, 3, 3),)),
        ("a...,a...", (right[:, 0, :], right[:, :1, 0])),
        ("...i->i", (right[0, 0],)),
    ):
        check_result(
            t, t.b.einsum(equation, *(tensor(t, o) for o in operands)), np.einsum(equation, *operands), f"einsum({equation!r}, {', '.join(str(o.shape) for o in operands)})", _F32, {"x": operands[0]}
        )
    check_raises(t, ValueError, lambda: t.b.einsum("...i->i", tensor(t, right)), "einsum('...i->i', (5, 4, 2)): the output must place the '...' axes", "einsum")


add_case("einsum", "edge-ellipsis", _einsum_ellipsis, "'...' axes broadcast; the implicit output puts them first; an explicit output without '...' raises ValueError")


def _repeat(t: Trial) -> None:
    """Negative axes; a bad axis raises AxisError."""

    @explore(shapes(min_rank=1, max_rank=3), st.data(), st.integers(0, 3), examples=12)
    def example(shape: tuple[int, ...], data: Any, times: int) -> None:
        rank = len(shape)
        axis = data.draw(st.integers(-rank, rank - 1), label="axis")
        x = make_values(_F32, shape, seed=rank)
        check_result(t, t.b.repeat(tensor(t, x), times, axis), np.repeat(x, times, axis), describe("repeat", x, repeats=times, axis=axis), _F32, {"x": x})

    example()
    check_raises(t, bk.AxisError, lambda: t.b.repeat(tensor(t, np.ones((2, 3), np.float32)), 2, 2), "repeat(float32 (2, 3), 2, axis=2)", "repeat")


add_case("repeat", "edge-axes", _repeat, "negative axes, zero repeats; a bad axis raises AxisError")

