"""Edge cases a differential run across the backends found: dtype kinds an operation does not take,
integer shifts and division by zero, float bounds on integers, out-of-range Python ints in
comparisons, NaN in `quantile`, 0-d inputs, bool indices, and dtypes of products and conversions.

docs/semantics.md: "Exceptions" (a kind an operation does not take is `ArgumentTypeError`),
"Integers" (shifts and division by zero as NumPy), "Weak scalars", "NaN", "Empty and 0-d inputs".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

import bk
from bk import DType

from .._case import Trial, add_case
from ._edges import check_raises, check_result, tensor

_F32: Final = DType(float, 32)
_I8: Final = DType(int, 8)
_BOOL: Final = DType(bool)


def _kind_case(name: str, call: Callable[[Any, Any], Any], values: np.ndarray) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        what = f"{name}({values.dtype} {values.tolist()})"
        check_raises(t, bk.ArgumentTypeError, lambda: call(t.b, tensor(t, values)), what + f": {values.dtype} is not a kind {name} takes", name)

    return run


_FLOATS: Final = np.array([1.5, -2.0], np.float32)
_COMPLEX: Final = np.array([1 + 2j, -1j], np.complex64)
_KINDS: Final = {
    "and_": (lambda b, x: b.and_(x, x), _FLOATS),
    "or_": (lambda b, x: b.or_(x, x), _FLOATS),
    "xor": (lambda b, x: b.xor(x, x), _FLOATS),
    "invert": (lambda b, x: b.invert(x), _FLOATS),
    "shift_bits_left": (lambda b, x: b.shift_bits_left(x, x), _FLOATS),
    "shift_bits_right": (lambda b, x: b.shift_bits_right(x, x), _FLOATS),
    "floordiv": (lambda b, x: b.floordiv(x, x), _COMPLEX),
    "mod": (lambda b, x: b.mod(x, x), _COMPLEX),
    "floor": (lambda b, x: b.floor(x), _COMPLEX),
    "ceil": (lambda b, x: b.ceil(x), _COMPLEX),
}
for _name, (_call, _values) in _KINDS.items():
    add_case(_name, "edge-unsupported-kind", _kind_case(_name, _call, _values), f"{_name} of {_values.dtype} values raises ArgumentTypeError naming {_name}")


def _shifts(name: str) -> Callable[[Trial], None]:
    """Counts outside `[0, bits)` give what NumPy gives: 0, or -1 for right shifts of negative values."""
    numpy_op = np.left_shift if name == "shift_bits_left" else np.right_shift

    def run(t: Trial) -> None:
        for dtype, values, counts in (
            (np.int8, [-128, -1, 0, 1, 127, 5, -7], [0, 1, 7, 8, 9, 100, -1]),
            (np.uint8, [0, 1, 255, 128, 7, 3, 200], [0, 1, 7, 8, 9, 255, 3]),
            (np.int32, [-(2**31), -1, 0, 1, 2**31 - 1, 5, -9], [0, 31, 32, 33, -1, -32, 4]),
        ):
            x, s = np.array(values, dtype), np.array(counts, dtype)
            check_result(t, getattr(t.b, name)(tensor(t, x), tensor(t, s)), numpy_op(x, s), f"{name}({x.dtype.name} {values}, {counts})", bk.from_numpy_dtype(x.dtype), {"x": x, "counts": s})
        x = np.array([True, False, True])
        check_result(t, getattr(t.b, name)(tensor(t, x), tensor(t, x)), numpy_op(x, x), f"{name}(bool {x.tolist()}, bool {x.tolist()}) is int8", _I8, {"x": x})

    return run


for _name in ("shift_bits_left", "shift_bits_right"):
    add_case(_name, "edge-shift-counts", _shifts(_name), "shift counts outside [0, bits) give NumPy's results (0, or -1 for negative values shifted right); bools shift as int8")


def _division_by_zero(name: str) -> Callable[[Trial], None]:
    numpy_op = np.floor_divide if name == "floordiv" else np.mod

    def run(t: Trial) -> None:
        for dtype in (np.int8, np.uint8, np.int32, np.int64):
            x, y = np.array([5, 0, 7, 3], dtype), np.array([0, 0, 2, 0], dtype)
            with np.errstate(all="ignore"):
                expected = numpy_op(x, y)
            check_result(t, getattr(t.b, name)(tensor(t, x), tensor(t, y)), expected, f"{name}({x.dtype.name} {x.tolist()}, {y.tolist()}): 0 where dividing by 0", bk.from_numpy_dtype(x.dtype), {"x": x, "y": y})
        a, c = np.array([True, False, True, False]), np.array([True, True, False, False])
        with np.errstate(all="ignore"):
            expected = numpy_op(a, c)
        check_result(t, getattr(t.b, name)(tensor(t, a), tensor(t, c)), expected, f"{name}(bool {a.tolist()}, bool {c.tolist()}) is int8", _I8, {"a": a, "b": c})

    return run


for _name in ("floordiv", "mod"):
    add_case(_name, "edge-int-division-by-zero", _division_by_zero(_name), "integer division by zero gives 0, as NumPy; two bools give int8")


def _clip_float_bounds(t: Trial) -> None:
    """Bounds of another kind are applied in the tensor's dtype: `clip(int8, -1.5, 2.5)` stays int8."""
    x = np.array([-128, -1, 0, 1, 127, 5], np.int8)
    check_result(t, t.b.clip(tensor(t, x), -1.5, 2.5), np.array([-1, -1, 0, 1, 2, 2], np.int8), "clip(int8 [-128, -1, 0, 1, 127, 5], -1.5, 2.5)", _I8, {"x": x})
    u = np.array([0, 7, 200], np.uint16)
    if DType(int, 16, signed=False) not in t.lacking:
        check_result(t, t.b.clip(tensor(t, u), 0.5, 100.0), np.array([0, 7, 100], np.uint16), "clip(uint16 [0, 7, 200], 0.5, 100.0)", DType(int, 16, signed=False), {"x": u})
    m = np.array([True, False, True])
    check_result(t, t.b.clip(tensor(t, m), 0, 1), m, "clip(bool [True, False, True], 0, 1) stays bool", _BOOL, {"x": m})


add_case("clip", "edge-float-bounds", _clip_float_bounds, "clip keeps the tensor's dtype for float bounds on ints and for bools")


def _comparison(name: str) -> Callable[[Trial], None]:
    numpy_op = {"equal": np.equal, "not_equal": np.not_equal, "greater_than": np.greater, "greater_or_equal": np.greater_equal}[name]

    def run(t: Trial) -> None:
        for dtype, scalar in ((np.int8, 300), (np.int8, -300), (np.uint8, -1), (np.uint8, 256), (np.int32, 2**40), (np.uint64, -1)):
            x = np.array([0, 1, 100], dtype)
            if bk.from_numpy_dtype(x.dtype) in t.lacking:  # a framework without uint64
                continue
            check_result(t, getattr(t.b, name)(tensor(t, x), scalar), numpy_op(x, scalar), f"{name}({x.dtype.name} {x.tolist()}, {scalar}) compares the values", _BOOL, {"x": x})
            check_result(t, getattr(t.b, name)(scalar, tensor(t, x)), numpy_op(scalar, x), f"{name}({scalar}, {x.dtype.name} {x.tolist()}) compares the values", _BOOL, {"x": x})

    return run


for _name in ("equal", "not_equal", "greater_than", "greater_or_equal"):
    add_case(_name, "edge-int-out-of-range", _comparison(_name), "an int tensor against a Python int outside its range compares the values (no OverflowError)")


def _quantile_nan(t: Trial) -> None:
    """NaN among the values makes the quantile NaN, as NumPy's `quantile`."""
    x = np.array([[1.0, np.nan, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]], np.float32)
    expected = np.quantile(x, np.array([0.25, 0.5]), axis=-1).astype(np.float32)
    check_result(t, t.b.quantile(tensor(t, x), [0.25, 0.5]), expected, "quantile([[1, nan, 2, 3], [0, 1, 2, 3]], [0.25, 0.5])", _F32, {"x": x})
    check_raises(t, bk.AxisError, lambda: t.b.quantile(tensor(t, np.asarray(2.5, np.float32)), 0.5), "quantile of a 0-d tensor, which has no last axis", "quantile")
    check_raises(t, ValueError, lambda: t.b.quantile(tensor(t, np.zeros((2, 0), np.float32)), 0.5), "quantile of an empty last axis")
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.quantile(tensor(t, np.array([1 + 1j, 2], np.complex64)), 0.5), "quantile of complex values, which have no order", "quantile")


add_case("quantile", "edge-nan-0d", _quantile_nan, "NaN gives NaN; a 0-d tensor raises AxisError, an empty axis ValueError, complex values ArgumentTypeError")


def _pow_negative(t: Trial) -> None:
    """An integer to a negative integer power raises ValueError, as NumPy; integer powers wrap as NumPy's."""
    x = np.array([2, 3, -1], np.int32)
    check_raises(t, ValueError, lambda: t.b.pow(tensor(t, x), -1), "pow(int32 [2, 3, -1], -1)")
    check_raises(t, ValueError, lambda: t.b.pow(tensor(t, x), tensor(t, np.array([1, -2, 2], np.int32))), "pow(int32 [2, 3, -1], int32 [1, -2, 2])")
    u = np.array([2, 3, 128, 0], np.uint8)
    check_result(t, t.b.pow(tensor(t, u), tensor(t, np.array([9, 5, 2, 0], np.uint8))), u ** np.array([9, 5, 2, 0], np.uint8), "pow(uint8 [2, 3, 128, 0], [9, 5, 2, 0]) wraps", DType(int, 8, signed=False), {"x": u})
    w = np.array([3, 7, -5], np.int64)
    check_result(t, t.b.pow(tensor(t, w), tensor(t, np.array([41, 30, 29], np.int64))), w ** np.array([41, 30, 29], np.int64), "pow(int64 [3, 7, -5], [41, 30, 29]) wraps", DType(int, 64), {"x": w})


add_case("pow", "edge-int-powers", _pow_negative, "pow(int, negative int) raises ValueError; integer powers wrap as NumPy's")


def _flip_int(t: Trial) -> None:
    """One int names one axis, as NumPy's `flip`; a tuple names several."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for axes in (0, -1, (0, 1), (-1,)):
        check_result(t, t.b.flip(tensor(t, x), axes), np.flip(x, axes), f"flip(float32 (2, 3), {axes!r})", _F32, {"x": x})
    check_raises(t, bk.AxisError, lambda: t.b.flip(tensor(t, x), 2), "flip(float32 (2, 3), 2)", "flip")


add_case("flip", "edge-int-axis", _flip_int, "flip takes an int axis or a tuple; an axis out of range raises AxisError")


def _bool_indices(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x, mask = np.arange(4, dtype=np.float32), np.array([True, False, True, True])
        call = (lambda: t.b.gather(tensor(t, x), tensor(t, mask), 0)) if name == "gather" else (lambda: t.b.gather_1d(tensor(t, x), tensor(t, mask)))
        check_raises(t, bk.ArgumentTypeError, call, f"{name}(arange(4), bool indices): indices must be integers (use boolean_mask)", name)

    return run


for _name in ("gather", "gather_1d"):
    add_case(_name, "edge-bool-indices", _bool_indices(_name), "bool indices raise ArgumentTypeError (they would read as 0 and 1)")


def _bincount_negative(t: Trial) -> None:
    check_raises(t, ValueError, lambda: t.b.bincount(tensor(t, np.array([1, -1, 2], np.int64)), None, 4), "bincount([1, -1, 2], bins=4)")


def _unravel_out_of_range(t: Trial) -> None:
    for index in (-1, 6):
        check_raises(t, ValueError, lambda index=index: t.b.unravel_index(tensor(t, np.array([0, index], np.int64)), (2, 3)), f"unravel_index([0, {index}], (2, 3))")
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.unravel_index(tensor(t, np.array([True, False])), (2, 3)), "unravel_index(bool indices)", "unravel_index")


add_case("bincount", "edge-negative", _bincount_negative, "negative values raise ValueError, as numpy.bincount")
add_case("unravel_index", "edge-out-of-range", _unravel_out_of_range, "a flat index outside [0, size) raises ValueError, as numpy.unravel_index; bool indices ArgumentTypeError")


def _every_dtype(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for dtype in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float32):
            x = np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype)
            if bk.from_numpy_dtype(x.dtype) in t.lacking:  # a framework without uint16
                continue
            if name == "tile":
                actual, expected = t.b.tile(tensor(t, x), (2, 1)), np.tile(x, (2, 1))
            else:
                actual, expected = t.b.repeat(tensor(t, x), 2, -1), np.repeat(x, 2, -1)
            check_result(t, actual, expected, f"{name}({np.dtype(dtype).name} (2, 3))", bk.from_numpy_dtype(np.dtype(dtype)), {"x": x})

    return run


for _name in ("tile", "repeat"):
    add_case(_name, "edge-every-dtype", _every_dtype(_name), "bool and every int dtype, unsigned included")


def _zero_d(t: Trial) -> None:
    """A 0-d tensor has no axis to concatenate along."""
    s = np.asarray(2.5, np.float32)
    check_raises(t, bk.AxisError, lambda: t.b.concat([tensor(t, s), tensor(t, s)], 0), "concat of 0-d tensors", "concat")


def _pad_0d(t: Trial) -> None:
    s = np.asarray(2.5, np.float32)
    for mode in ("constant", "periodic", "reflect", "symmetric", "boundary"):
        check_result(t, t.b.pad(tensor(t, s), [], mode), s, f"pad(0-d, [], {mode!r})", _F32, {"x": s})


def _round_bool(t: Trial) -> None:
    m, i = np.array([True, False]), np.array([-7, 0, 127], np.int8)
    for name in ("round", "floor", "ceil"):
        check_result(t, getattr(t.b, name)(tensor(t, m)), m, f"{name}(bool [True, False]) stays bool", _BOOL, {"x": m})
        check_result(t, getattr(t.b, name)(tensor(t, i)), i, f"{name}(int8 [-7, 0, 127]) stays int8", _I8, {"x": i})


add_case("concat", "edge-0d", _zero_d, "concat of 0-d tensors raises AxisError")
add_case("pad", "edge-0d", _pad_0d, "pad of a 0-d tensor with no widths returns it, in every mode")
add_case("round", "edge-bool", _round_bool, "round, floor and ceil keep bools (NumPy rounds them into float16) and ints")


def _cast_complex_to_bool(t: Trial) -> None:
    x = np.array([1 + 2j, -1j, 0, 3], np.complex64)
    check_result(t, t.b.cast(tensor(t, x), _BOOL), x != 0, "cast(complex64 [1+2j, -1j, 0, 3], bool) tests != 0", _BOOL, {"x": x})


def _to_complex_precision(t: Trial) -> None:
    t.need_float64()
    x = np.array([0.5, -1.0], np.float64)
    check_result(t, t.b.to_complex(tensor(t, x)), x.astype(np.complex128), "to_complex(float64) is complex128 when no precision is set", DType(complex, 128), {"x": x})


def _product_dtype(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = np.array([[1, -2, 3], [0, 7, -9]], np.int32)
        if name == "einsum":
            actual, expected = t.b.einsum("ij,ij->i", tensor(t, x), tensor(t, x)), np.einsum("ij,ij->i", x, x)
        else:
            actual, expected = t.b.tensordot(tensor(t, x), (1,), tensor(t, x), (1,)), np.tensordot(x, x, ((1,), (1,)))
        check_result(t, actual, expected, f"{name} of int32 stays int32", DType(int, 32), {"x": x})

    return run


def _cumsum_none(t: Trial) -> None:
    check_raises(t, bk.ArgumentTypeError, lambda: t.b.cumsum(tensor(t, np.arange(4, dtype=np.float32)), None), "cumsum(x, None): one int axis", "cumsum")


add_case("cast", "edge-complex-to-bool", _cast_complex_to_bool, "complex to bool tests != 0 (not the real part)")
add_case("to_complex", "edge-float64", _to_complex_precision, "float64 gives complex128 when no precision is set")
add_case("einsum", "edge-int32", _product_dtype("einsum"), "products of int32 stay int32")
add_case("tensordot", "edge-int32", _product_dtype("tensordot"), "products of int32 stay int32")
add_case("cumsum", "edge-axis-none", _cumsum_none, "cumsum takes one int axis: None raises ArgumentTypeError")


def _big_endian_reductions(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        x = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10).astype(">f4")
        native = x.astype(np.float32)
        for axis in (None, 1, (0, 2)):
            expected = getattr(np, name)(native, axis=axis)
            check_result(t, getattr(t.b, name)(tensor(t, x), axis=axis), np.asarray(expected, np.float32), f"{name}(big-endian float32 (2, 3, 4), axis={axis})", _F32, {"x": x})

    return run


for _name in ("sum", "prod", "mean", "max"):
    add_case(_name, "edge-big-endian-axes", _big_endian_reductions(_name), "big-endian input reduced over None, one axis and a tuple of axes")


def _reshape_indivisible(t: Trial) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.reshape(tensor(t, x), (5, -1)), "reshape(24 elements, (5, -1))", "reshape")


add_case("reshape", "edge-inferred-size", _reshape_indivisible, "a -1 size that does not divide the element count raises ShapeMismatchError")


def _scatter_shapes(t: Trial) -> None:
    grid = np.zeros((1, 6, 1), np.float32)  # (batch, spatial, channels)
    values = np.ones((1, 2, 1), np.float32)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.scatter(tensor(t, grid), tensor(t, np.array([[[0, 1], [2, 3]]])), tensor(t, values), "add"), "scatter with two index components into one spatial axis", "scatter")
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.scatter(tensor(t, np.zeros((2, 6, 1), np.float32)), tensor(t, np.array([[[0], [2]]] * 3)), tensor(t, values), "add"), "scatter with batch sizes 2 and 3", "scatter")


def _gather_nd_shapes(t: Trial) -> None:
    values = np.zeros((1, 2, 3, 1), np.float32)  # (batch, spatial (2, 3), channels)
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.batched_gather_nd(tensor(t, values), tensor(t, np.array([[[0, 1, 2]]]))), "batched_gather_nd with three index components into two spatial axes", "batched_gather_nd")


add_case("scatter", "edge-shapes", _scatter_shapes, "index vectors of the wrong length and mismatching batch sizes raise ShapeMismatchError")
add_case("batched_gather_nd", "edge-shapes", _gather_nd_shapes, "index vectors of the wrong length raise ShapeMismatchError")
