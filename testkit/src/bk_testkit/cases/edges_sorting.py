"""Edge cases of sorting, searching and counting: NaN order, index dtypes, result structure.

docs/semantics.md: "NaN", "Integers" (index results) and "Results with several parts": `sort` and
`argsort` put NaN last, `unique` returns one NaN, last, and always a tuple, `searchsorted` orders
NaN after +inf.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import SkipCase, Trial, add_case
from ._edges import (
    BOOL,
    FLOATS,
    INT64,
    LAYOUTS,
    SIGNED,
    UNSIGNED,
    available,
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

_REAL = (BOOL, *SIGNED, *UNSIGNED, *FLOATS)
_ORDERED = (*SIGNED, *UNSIGNED, *FLOATS)


def _exact(x: np.ndarray) -> np.ndarray:
    """bfloat16 (ml_dtypes) as float64, the same values: NumPy's sorting and `unique` do not know its NaN."""
    return x.astype(np.float64) if x.dtype.kind == "V" else x


def _sort_case(name: str) -> Any:
    def run(t: Trial) -> None:
        @explore(dtypes(t, _REAL), shapes(min_rank=1, max_rank=4), st.data(), st.sampled_from(LAYOUTS), examples=20)
        def example(dtype: DType, shape: tuple[int, ...], data: Any, kind: str) -> None:
            rank = len(shape)
            check(dtype, shape, data.draw(st.integers(-rank, rank - 1), label="axis"), kind)

        def check(dtype: DType, shape: tuple[int, ...], axis: int, kind: str) -> None:
            rank = len(shape)
            x = layout(make_values(dtype, shape, seed=rank * 3 + sum(shape)), kind)
            what = describe(name, x, axis=axis) + f" [{kind}]"
            if name == "sort":
                check_result(t, t.b.sort(tensor(t, x), axis), np.sort(_exact(x), axis=axis), what, dtype, {"x": x})
            else:
                check_result(t, t.b.argsort(tensor(t, x), axis), np.argsort(_exact(x), axis=axis, kind="stable"), what, INT64, {"x": x})

        example()
        for dtype in available(t, _REAL):  # every dtype once
            check(dtype, (2, 3), -1, "contiguous")
        function = getattr(t.b, name)
        for dtype in available(t, (DType(float, 32), DType(float, 16, brain=True))):
            x = np.array([[3.0, np.nan, -np.inf, 1.0, np.inf]], bk.to_numpy_dtype(dtype))
            expected = np.sort(_exact(x), axis=-1) if name == "sort" else np.argsort(_exact(x), axis=-1, kind="stable")
            check_result(t, function(tensor(t, x), -1), expected, describe(name, x, axis=-1) + ": NaN after +inf", dtype if name == "sort" else INT64, {"x": x})
        for axis in (2, -3):
            check_raises(t, bk.AxisError, lambda axis=axis: function(tensor(t, x), axis), describe(name, x, axis=axis), name)

    return run


add_case("sort", "edge-dtypes-axes-nan", _sort_case("sort"), "every real dtype, negative axes, layouts, NaN last; bad axes raise AxisError")
add_case("argsort", "edge-dtypes-axes-nan", _sort_case("argsort"), "stable int64 indices, negative axes, NaN last; bad axes raise AxisError")


def _unique(t: Trial) -> None:
    """A tuple `(values[, inverse][, counts])` always; one NaN, last; int64 inverse and counts."""

    @explore(dtypes(t, _ORDERED), st.integers(0, 7), st.booleans(), st.booleans(), examples=20)
    def example(dtype: DType, size: int, inverse: bool, counts: bool) -> None:
        x = make_values(dtype, (size,), seed=size, low=-2, high=2)
        if dtype.kind is float and size >= 3:
            x[:2] = np.nan  # two NaNs must come back as one
        got = t.b.unique(tensor(t, x), inverse, counts, 0)
        what = f"unique({describe('', x)[1:-1]}, return_inverse={inverse}, return_counts={counts}, axis=0)"
        expected = np.unique(_exact(x), return_inverse=inverse, return_counts=counts, equal_nan=True)
        expected = expected if isinstance(expected, tuple) else (expected,)
        t.expect(isinstance(got, tuple), what, f"returned a {type(got).__name__}, expected a tuple (docs/semantics.md)")
        t.expect(len(got) == len(expected), what, f"returned {len(got)} parts, expected {len(expected)}")
        check_result(t, got[0], expected[0], what + " values", dtype, {"x": x}, dynamic=True)
        for i, part in enumerate(expected[1:], start=1):
            check_result(t, got[i], np.reshape(part, -1), what + (" inverse" if inverse and i == 1 else " counts"), INT64, {"x": x}, dynamic=True)

    example()
    x = np.array([3.0, np.nan, 1.0, 3.0], np.float32)
    got = t.b.unique(tensor(t, x), False, False, 0)
    t.expect(isinstance(got, tuple), "unique([3, nan, 1, 3])", f"returned a {type(got).__name__}, expected a tuple")
    check_result(t, got[0], np.array([1.0, 3.0, np.nan]), "unique([3, nan, 1, 3])", DType(float, 32), {"x": x}, dynamic=True)
    x2 = np.array([[3.0, np.nan], [1.0, 3.0]], np.float32)  # axis=None: values of the flattened tensor, a flat inverse
    got = t.b.unique(tensor(t, x2), True, True, None)
    what = "unique([[3, nan], [1, 3]], return_inverse=True, return_counts=True, axis=None)"
    check_result(t, got[0], np.array([1.0, 3.0, np.nan]), what + " values", DType(float, 32), {"x": x2}, dynamic=True)
    check_result(t, got[1], np.array([1, 2, 0, 1]), what + " inverse (flat)", INT64, {"x": x2}, dynamic=True)
    check_result(t, got[2], np.array([1, 2, 1]), what + " counts", INT64, {"x": x2}, dynamic=True)


add_case("unique", "edge-nan-structure", _unique, "unique([3, nan, 1, 3]) is ([1, 3, nan],); always a tuple; int64 inverse and counts")


def _searchsorted(t: Trial) -> None:
    """NaN and infinities in the sequence and the values; NaN is inserted after +inf; the result has the dtype asked for."""

    @explore(dtypes(t, _ORDERED), st.integers(0, 6), st.integers(0, 5), st.sampled_from(["left", "right"]), st.sampled_from([32, 64]), examples=20)
    def example(dtype: DType, size: int, count: int, side: str, bits: int) -> None:
        sequence = make_values(dtype, (size,), seed=size, low=-2, high=2)
        sequence = np.sort(_exact(sequence)).astype(sequence.dtype)
        values = make_values(dtype, (count,), seed=count + 10, low=-3, high=3)
        got = t.b.searchsorted(tensor(t, sequence), tensor(t, values), side, DType(int, bits))
        what = f"searchsorted({describe('', sequence, values)[1:-1]}, {side!r}, int{bits})"
        expected = np.searchsorted(_exact(sequence), _exact(values), side)
        check_result(t, got, expected, what, DType(int, bits), {"sequence": sequence, "values": values})

    example()
    for dtype in available(t, (DType(float, 32), DType(float, 16, brain=True))):
        sequence = np.array([1.0, 2.0, np.inf, np.nan], bk.to_numpy_dtype(dtype))
        values = np.array([np.nan, np.inf, 0.0], bk.to_numpy_dtype(dtype))
        for side in ("left", "right"):
            got = t.b.searchsorted(tensor(t, sequence), tensor(t, values), side, INT64)
            expected = np.searchsorted(_exact(sequence), _exact(values), side)
            check_result(t, got, expected, f"searchsorted({dtype} [1, 2, inf, nan], [nan, inf, 0], {side!r})", INT64)


add_case("searchsorted", "edge-nan-dtypes", _searchsorted, "NaN sorts after +inf; every real dtype; the dtype argument decides the result's")


# ---------------------------------------------------------------- complex values have no order

# Values whose order by real part, by imaginary part and by magnitude all differ from NumPy's
# (real part first, then imaginary part), so a backend that orders complex values any other way fails.
_COMPLEX_X: Final = np.array([1 + 5j, 1 + 1j, 0 + 9j, 2 - 1j, -3 + 0j])
_COMPLEX_Y: Final = np.array([1 + 2j, 1 + 1j, 0 + 10j, 1 + 100j, -3 - 1j])
_COMPLEX_OPS: Final = {
    "maximum": (lambda b, x, y: b.maximum(x, y), lambda x, y: np.maximum(x, y)),
    "minimum": (lambda b, x, y: b.minimum(x, y), lambda x, y: np.minimum(x, y)),
    "greater_than": (lambda b, x, y: b.greater_than(x, y), lambda x, y: x > y),
    "greater_or_equal": (lambda b, x, y: b.greater_or_equal(x, y), lambda x, y: x >= y),
    "max": (lambda b, x, y: b.max(x), lambda x, y: np.max(x)),
    "min": (lambda b, x, y: b.min(x), lambda x, y: np.min(x)),
    "argmax": (lambda b, x, y: b.argmax(x, 0), lambda x, y: np.argmax(x, 0)),
    "argmin": (lambda b, x, y: b.argmin(x, 0), lambda x, y: np.argmin(x, 0)),
    "sort": (lambda b, x, y: b.sort(x), lambda x, y: np.sort(x)),
    "argsort": (lambda b, x, y: b.argsort(x), lambda x, y: np.argsort(x, kind="stable")),
}


def _complex_order_case(name: str) -> Any:
    """docs/semantics.md, "Complex values have no order": NumPy's order, or `ArgumentTypeError` naming the operation."""
    ours, numpy_op = _COMPLEX_OPS[name]

    def run(t: Trial) -> None:
        for dtype in t.complexes():
            x, y = (v.astype(bk.to_numpy_dtype(dtype)) for v in (_COMPLEX_X, _COMPLEX_Y))
            expected = numpy_op(x, y)
            what = f"{name}({dtype} {x.tolist()}" + (f", {y.tolist()})" if name in ("maximum", "minimum", "greater_than", "greater_or_equal") else ")")
            try:
                result = ours(t.b, tensor(t, x), tensor(t, y))
                t.to_numpy(result)  # lazy backends: compute it here, where its error is expected
            except bk.ArgumentTypeError as raised:
                if name not in str(raised):
                    t.fail(what, f"raised ArgumentTypeError as it may, but its message does not name {name!r}: {raised}")
                continue
            except SkipCase:  # the call needed a dtype the backend lacks
                raise
            except Exception as raised:
                t.fail(what, f"raised {type(raised).__module__}.{type(raised).__name__} ({str(raised)[:200]}); complex values either follow NumPy's order or raise bk.ArgumentTypeError")
            want = DType(bool) if expected.dtype == bool else INT64 if expected.dtype.kind == "i" else dtype
            check_result(t, result, expected, what + ": NumPy's order (real part, then imaginary part)", want, {"x": x, "y": y})

    return run


for _name in _COMPLEX_OPS:
    add_case(_name, "edge-complex-order", _complex_order_case(_name), "complex values follow NumPy's order (real, then imaginary part) or raise ArgumentTypeError naming the operation")
