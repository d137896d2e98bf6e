"""Edge cases of inputs: `as_tensor` of Python values and unusual NumPy arrays, FFT axes, the issue's examples.

docs/semantics.md: "Inputs every backend accepts" and "Python scalars are weak": `as_tensor(3)` is
int64, a Python float the default float; negative-stride, transposed, big-endian and bfloat16
arrays keep their dtype and values; NumPy scalars keep their dtype.
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
    BOOL,
    INT64,
    LAYOUTS,
    available,
    check_raises,
    check_result,
    default_float,
    describe,
    dtypes,
    explore,
    layout,
    make_values,
    shapes,
    tensor,
)


def _as_tensor_arrays(t: Trial) -> None:
    """Every dtype (bfloat16 too) in every layout keeps its dtype and values."""

    @explore(dtypes(t, ALL_DTYPES), shapes(max_rank=5), st.sampled_from(LAYOUTS), examples=30)
    def example(dtype: DType, shape: tuple[int, ...], kind: str) -> None:
        check(dtype, shape, kind)

    def check(dtype: DType, shape: tuple[int, ...], kind: str) -> None:
        x = layout(make_values(dtype, shape, seed=len(shape) + 7), kind)
        check_result(t, tensor(t, x), x, describe("as_tensor", x) + f" [{kind}]", dtype, {"x": x})

    example()
    for dtype in available(t, ALL_DTYPES):  # every dtype in every layout
        for kind in LAYOUTS:
            check(dtype, (2, 3), kind)
    fixed = {
        "negative strides": np.arange(6, dtype=np.float32)[::-2],
        "transposed": np.arange(6, dtype=np.int16).reshape(2, 3).T,
        "big-endian": np.arange(4, dtype=">f8"),
        "big-endian ints": np.arange(4, dtype=">i4")[::-1],
    }
    if DType(float, 16, brain=True) not in t.lacking:  # NumPy has bfloat16 only through ml_dtypes
        fixed["bfloat16"] = np.array([1.5, -2.0, np.inf], bk.to_numpy_dtype(DType(float, 16, brain=True)))
    for name, x in fixed.items():
        want = bk.from_numpy_dtype(x.dtype)
        if not t.float64 and want.bits == 64 and want.kind is float:
            continue
        if want in t.lacking:  # a library without bfloat16 (array-api-strict), or no ml_dtypes here
            continue
        check_result(t, t.b.as_tensor(x), x, f"as_tensor({name} {x.dtype} {x.shape})", want, {"x": x})


add_case("as_tensor", "edge-arrays-layouts", _as_tensor_arrays, "negative strides, transposed, big-endian and bfloat16 arrays keep dtype and values")


def _as_tensor_python(t: Trial) -> None:
    """Python values: bool -> bool, int -> int64, float -> the default float, complex -> the default complex; NumPy scalars keep their dtype."""
    for precision in (None, 64) if t.float64 else (None,):
        with bk.precision(precision):
            complex_type = DType(complex, 128 if precision == 64 else 64)
            rows: tuple[tuple[Any, Any, DType], ...] = (
                (True, True, BOOL),
                (3, 3, INT64),
                (-(2**40), -(2**40), INT64),
                (1.5, 1.5, default_float()),
                (1j, 1j, complex_type),
                ([[1, 2], [3, 4]], [[1, 2], [3, 4]], INT64),
                ([1.5, 2], [1.5, 2.0], default_float()),
                ([True, False], [True, False], BOOL),
            )
            for value, expected, want in rows:
                check_result(t, t.b.as_tensor(value), np.asarray(expected), f"as_tensor({value!r}) under precision({precision})", want)
    for value in (np.int8(3), np.uint16(7), np.float16(1.5), np.bool_(True)):
        want = bk.from_numpy_dtype(value.dtype)
        if want in t.lacking:  # a library without float16 (array-api-strict) or uint16
            continue
        check_result(t, t.b.as_tensor(value), np.asarray(value), f"as_tensor(numpy.{value.dtype}({value}))", want)


add_case("as_tensor", "edge-python-values", _as_tensor_python, "as_tensor(3) is int64, floats the default float; NumPy scalars keep their dtype")


def _fft_case(name: str) -> Any:
    reference = np.fft.fftn if name == "fft" else np.fft.ifftn

    def run(t: Trial) -> None:
        @explore(shapes(min_rank=1, max_rank=3, min_side=1), st.data(), st.sampled_from([DType(float, 32), DType(complex, 64)]), examples=10)
        def example(shape: tuple[int, ...], data: Any, dtype: DType) -> None:
            rank = len(shape)
            axes = data.draw(st.lists(st.integers(0, rank - 1), unique=True, min_size=1, max_size=rank), label="axes")
            axes = [a - rank if i % 2 == 0 else a for i, a in enumerate(axes)]
            x = make_values(dtype, shape, seed=rank, special=False)
            got = getattr(t.b, name)(tensor(t, x), axes)
            check_result(t, got, reference(x.astype(np.complex128), axes=axes), describe(name, x, axes=axes), DType(complex, 64), {"x": x}, scale=10)

        example()
        x = tensor(t, np.ones((3, 4), np.complex64))
        for axes in ((5,), (-3,), (0, 2)):
            check_raises(t, bk.AxisError, lambda axes=axes: getattr(t.b, name)(x, axes), f"{name}(complex64 (3, 4), {axes})", name)
        empty = tensor(t, np.ones((0, 4), np.complex64))
        check_raises(t, ValueError, lambda: getattr(t.b, name)(empty, (0,)), f"{name}(complex64 (0, 4), (0,)): no points to transform, as numpy.fft", name)

    return run


add_case("fft", "edge-axes", _fft_case("fft"), "negative axes; fft(x2d, (5,)) raises AxisError, an axis of size 0 ValueError")
add_case("ifft", "edge-axes", _fft_case("ifft"), "negative axes; out-of-range axes raise AxisError, an axis of size 0 ValueError")


# ---------------------------------------------------------------- the examples of issue 12, one by one


def _reduction_examples(t: Trial) -> None:
    """`sum(x, axis=())` reduces nothing; `sum(x, axis="0")` is an ArgumentTypeError; `sum(None)` too."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    check_result(t, t.b.sum(tensor(t, x), axis=()), x, "sum(float32 (3, 4), axis=())", DType(float, 32))
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.sum(tensor(t, x), axis="0"), "sum(float32 (3, 4), axis='0')", "sum")
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.sum(None), "sum(None)", "sum")


def _any_examples(t: Trial) -> None:
    """`any(uint8)` and `all(uint8)` are bool."""
    x = np.array([0, 3, 0], np.uint8)
    check_result(t, t.b.any(tensor(t, x)), np.asarray(True), "any(uint8 [0, 3, 0])", BOOL)
    check_result(t, t.b.all(tensor(t, x)), np.asarray(False), "all(uint8 [0, 3, 0])", BOOL)


def _argmax_examples(t: Trial) -> None:
    """`argmax(x, axis=None)` of a (3, 4) tensor is one flat index."""
    x = np.array([[1, 5, 2, 0], [7, 3, 9, 4], [8, 6, 2, 1]], np.float32)
    check_result(t, t.b.argmax(tensor(t, x), axis=None), np.asarray(6), "argmax(float32 (3, 4), axis=None)", INT64)


def _sort_examples(t: Trial) -> None:
    """`sort(x2d, 5)` raises AxisError."""
    check_raises(t, bk.AxisError, lambda: t.b.sort(tensor(t, np.ones((3, 4), np.float32)), 5), "sort(float32 (3, 4), 5)", "sort")


def _gather_examples(t: Trial) -> None:
    """A negative gather index counts from the end (never clamped to 0)."""
    x = np.array([10.0, 20.0, 30.0], np.float32)
    check_result(t, t.b.gather(tensor(t, x), tensor(t, np.array([-1, 0], np.int32)), 0), np.array([30.0, 10.0]), "gather([10, 20, 30], [-1, 0], 0)", DType(float, 32))


def _maximum_examples(t: Trial) -> None:
    """`maximum(int8, 2)` is int8; `float16 + 1j` is complex64; `uint8 + True` is uint8."""
    check_result(t, t.b.maximum(tensor(t, np.array([1, 5], np.int8)), 2), np.array([2, 5]), "maximum(int8 [1, 5], 2)", DType(int, 8))
    if t.float16:  # not for a library without float16 (array-api-strict)
        check_result(t, t.b.add(tensor(t, np.array([1.0], np.float16)), 1j), np.array([1 + 1j]), "add(float16 [1], 1j)", DType(complex, 64))
    check_result(t, t.b.add(tensor(t, np.array([1], np.uint8)), True), np.array([2]), "add(uint8 [1], True)", DType(int, 8, signed=False))


for _feature, _function in (
    ("sum", _reduction_examples),
    ("any", _any_examples),
    ("argmax", _argmax_examples),
    ("sort", _sort_examples),
    ("gather", _gather_examples),
    ("maximum", _maximum_examples),
):
    add_case(_feature, "edge-issue-examples", _function, (_function.__doc__ or "").strip().splitlines()[0])
