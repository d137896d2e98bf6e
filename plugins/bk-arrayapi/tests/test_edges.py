"""NumPy's rules at the edges (docs/semantics.md), checked on array-api-strict and on NumPy through
array-api-compat, so that each fix is namespace-generic: bad dtypes, shifts, division by zero,
clip, out-of-range comparisons, quantile with NaN, integer powers, flip axes, gather indices,
bincount / unravel_index domains and every dtype through the shape operations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import bk
import bk_arrayapi
from bk import DType
from bk_arrayapi._backend import ArrayAPIBackend, create_backend

INT8, UINT8, INT32, INT64, BOOL = DType(int, 8), DType(int, 8, signed=False), DType(int, 32), DType(int, 64), DType(bool)


@pytest.fixture(scope="module", params=["strict", "compat_numpy"])
def b(request: pytest.FixtureRequest) -> Iterator[ArrayAPIBackend]:
    if request.param == "compat_numpy":
        yield create_backend("compat_numpy_edges", "array_api_compat.numpy")
        return
    bk_arrayapi.register("strict_edges", "array_api_strict")
    try:
        yield bk.backend("strict_edges")  # type: ignore[misc]
    finally:
        bk_arrayapi.unregister("strict_edges")


def t(b: ArrayAPIBackend, values: Any, dtype: str) -> Any:
    return b.as_tensor(np.asarray(values).astype(dtype))


def same(b: ArrayAPIBackend, result: Any, expected: Any, dtype: str) -> None:
    values = np.asarray(b.numpy(result))
    assert values.dtype == np.dtype(dtype), (values.dtype, dtype)
    np.testing.assert_array_equal(values, np.asarray(expected, dtype=dtype))


def test_r1_dtypes_an_operation_does_not_take_raise_argument_type_error(b: ArrayAPIBackend) -> None:
    f32, c64 = t(b, [1.5, -2.0], "float32"), t(b, [1 + 2j, -1j], "complex64")
    for op in ("and_", "or_", "xor", "shift_bits_left", "shift_bits_right"):
        for x in (f32, c64):
            with pytest.raises(bk.ArgumentTypeError, match=f"^{op}:"):
                getattr(b, op)(x, x)
    for x in (f32, c64):
        with pytest.raises(bk.ArgumentTypeError, match="^invert:"):
            b.invert(x)
    for op in ("floordiv", "mod"):
        with pytest.raises(bk.ArgumentTypeError, match=f"^{op}:"):
            getattr(b, op)(c64, c64)
    for op in ("floor", "ceil"):
        with pytest.raises(bk.ArgumentTypeError, match=f"^{op}:"):
            getattr(b, op)(c64)
    for op in ("floor", "ceil", "round"):
        same(b, getattr(b, op)(t(b, [True, False], "bool")), [True, False], "bool")  # bool stays bool
    np.testing.assert_array_equal(b.numpy(b.round(t(b, [1.5 + 2.5j, -0.5 + 0.4j], "complex64"))), [2 + 2j, 0j])  # parts rounded, as NumPy
    same(b, b.sign(t(b, [0, 3, 255], "uint8")), [0, 1, 1], "uint8")
    with pytest.raises(bk.ArgumentTypeError, match="^sign:"):
        b.sign(t(b, [True], "bool"))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint16"])
def test_r2_shift_counts_outside_the_bits_follow_numpy(b: ArrayAPIBackend, dtype: str) -> None:
    bits = np.dtype(dtype).itemsize * 8
    signed = np.dtype(dtype).kind == "i"
    x = np.asarray([-5, 3, 1, -1] if signed else [5, 3, 1, 200]).astype(dtype)
    counts = np.asarray([-1 if signed else 0, bits, bits + 3, 2]).astype(dtype)
    with np.errstate(all="ignore"):
        for op, ufunc in (("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)):
            expected = [
                ufunc(int(v), int(c)) if 0 <= c < bits else (0 if op == "shift_bits_left" or v >= 0 else -1)
                for v, c in zip(x, counts, strict=True)
            ]
            same(b, getattr(b, op)(b.as_tensor(x), b.as_tensor(counts)), np.asarray(expected).astype(dtype), dtype)
    same(b, b.shift_bits_right(b.as_tensor(x), bits), np.where(x < 0, -1, 0).astype(dtype), dtype)
    same(b, b.shift_bits_left(t(b, [True, False], "bool"), t(b, [True, True], "bool")), [2, 0], "int8")


def test_r3_integer_division_by_zero_gives_zero(b: ArrayAPIBackend) -> None:
    with np.errstate(all="ignore"):
        same(b, b.floordiv(t(b, [5, -5], "int32"), t(b, [0, 0], "int32")), [0, 0], "int32")
        same(b, b.mod(t(b, [5, -5], "int32"), 0), [0, 0], "int32")
        same(b, b.floordiv(t(b, [True, False], "bool"), t(b, [True, True], "bool")), [1, 0], "int8")
        same(b, b.mod(t(b, [True, False], "bool"), t(b, [True, False], "bool")), [0, 0], "int8")


def test_r4_clip_keeps_the_dtype_for_python_bounds(b: ArrayAPIBackend) -> None:
    same(b, b.clip(t(b, [-128, -1, 0, 1, 127, 5], "int8"), -1.5, 2.5), [-1, -1, 0, 1, 2, 2], "int8")
    same(b, b.clip(t(b, [0, 1, 2], "int32"), 1.5, float("inf")), [1, 1, 2], "int32")  # NumPy: clip in floats, truncate
    same(b, b.clip(t(b, [0, 100, 255], "uint8"), -5, 200), [0, 100, 200], "uint8")
    same(b, b.clip(t(b, [True, False], "bool"), 0, 5), [True, False], "bool")
    same(b, b.clip(t(b, [True, False], "bool"), 0.5, 2.5), [True, True], "bool")


def test_r5_comparisons_with_python_ints_outside_the_range_compare_values(b: ArrayAPIBackend) -> None:
    i8, u8 = t(b, [-128, 0, 127], "int8"), t(b, [0, 1, 255], "uint8")
    same(b, b.equal(i8, 300), [False] * 3, "bool")
    same(b, b.not_equal(300, i8), [True] * 3, "bool")
    same(b, b.greater_than(u8, -1), [True] * 3, "bool")
    same(b, b.greater_or_equal(-1, u8), [False] * 3, "bool")
    same(b, b.greater_than(i8, 300), [False] * 3, "bool")
    same(b, b.equal(t(b, [1], "int64"), 2**70), [False], "bool")
    with pytest.raises(OverflowError):  # arithmetic still refuses them (NEP 50)
        b.add(i8, 300)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_r6_quantile_of_values_with_nan_is_nan(b: ArrayAPIBackend, dtype: str) -> None:
    x = t(b, [[1, np.nan, 3], [1, 2, 3]], dtype)
    same(
        b,
        b.quantile(x, [0.2, 0.5]),
        [[np.nan, 1.4], [np.nan, 2.0]] if dtype == "float64" else np.asarray([[np.nan, 1.4], [np.nan, 2.0]], "float32"),
        dtype,
    )
    same(b, b.quantile(x, 0.5), np.asarray([np.nan, 2.0]), dtype)


def test_r7_integer_powers(b: ArrayAPIBackend) -> None:
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(t(b, [2, 3], "int32"), -1)
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(t(b, [2, 3], "int32"), t(b, [-1, 2], "int32"))
    same(b, b.pow(t(b, [10, 3], "int8"), 3), [-24, 27], "int8")  # wraps as NumPy
    same(b, b.pow(t(b, [2, 3], "uint8"), t(b, [1, 2], "uint8")), [2, 9], "uint8")


def test_r8_flip_takes_an_int_axis(b: ArrayAPIBackend) -> None:
    m = t(b, [[1, 2], [3, 4]], "int32")
    same(b, b.flip(m, 0), [[3, 4], [1, 2]], "int32")
    same(b, b.flip(m, -1), [[2, 1], [4, 3]], "int32")
    same(b, b.flip(m, [0, 1]), [[4, 3], [2, 1]], "int32")
    with pytest.raises(bk.AxisError, match="^flip:"):
        b.flip(m, 2)


def test_r9_gather_with_bool_indices_is_an_argument_type_error(b: ArrayAPIBackend) -> None:
    x = t(b, [1.5, -2.0], "float32")
    for call in (lambda: b.gather(x, t(b, [True, False], "bool"), 0), lambda: b.gather_1d(x, t(b, [True, False], "bool"))):
        with pytest.raises(bk.ArgumentTypeError, match="integers"):
            call()
    same(b, b.gather(x, t(b, [[0, 1], [1, 1]], "int64"), 0), [[1.5, -2.0], [-2.0, -2.0]], "float32")  # n-d indices, as numpy.take


def test_r10_bincount_and_unravel_index_domains(b: ArrayAPIBackend) -> None:
    with pytest.raises(ValueError, match="^bincount:"):
        b.bincount(t(b, [0, -1, 2], "int64"), None, 8)
    same(b, b.bincount(t(b, [True, False, True], "bool"), None, 3), [1, 2, 0], "int64")
    for flat in ([0, -1], [6]):
        with pytest.raises(ValueError, match="^unravel_index:"):
            b.unravel_index(t(b, flat, "int64"), (2, 3))
    same(b, b.unravel_index(t(b, [5, 0], "int32"), (2, 3)), [[1, 2], [0, 0]], "int32")


@pytest.mark.parametrize(
    "dtype",
    [
        "bool",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "uint32",
        "uint64",
        "int32",
        "int64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ],
)
def test_r11_shape_operations_take_every_dtype(b: ArrayAPIBackend, dtype: str) -> None:
    x = np.asarray([1, 0, 1]).astype(dtype)
    same(b, b.tile(b.as_tensor(x), (2,)), np.tile(x, 2), dtype)
    same(b, b.repeat(b.as_tensor(x), 2, 0), np.repeat(x, 2), dtype)
    same(b, b.concat([b.as_tensor(x), b.as_tensor(x)], 0), np.concatenate([x, x]), dtype)
    same(b, b.flip(b.as_tensor(x), 0), x[::-1], dtype)
    same(b, b.sort(b.as_tensor(x), 0), np.sort(x), dtype)
    same(b, b.unique(b.as_tensor(x), False, False, None)[0], np.unique(x), dtype)


def test_other_edges(b: ArrayAPIBackend) -> None:
    same(b, b.to_complex(t(b, [1.0], "float64")), [1 + 0j], "complex128")
    same(b, b.to_complex(t(b, [1.0], "float32")), [1 + 0j], "complex64")
    same(b, b.einsum("ij,ij->", t(b, [[1, 2]], "int32"), t(b, [[1, 2]], "int32")), 5, "int32")
    same(b, b.einsum("ij->j", t(b, [[100, 2], [100, 1]], "int8")), [-56, 3], "int8")
    same(b, b.std(t(b, [1 + 2j, 1j], "complex64")), np.std(np.asarray([1 + 2j, 1j], "complex64")), "float32")
    same(b, b.cast(t(b, [-1j, 0], "complex64"), BOOL), [True, False], "bool")
    same(b, b.any(t(b, [-1j, 0], "complex64"), ()), [True, False], "bool")
    with pytest.raises(ValueError, match="^pad:"):
        b.pad(t(b, [], "float32"), [(1, 1)], "reflect")
    for op in ("sort", "argsort"):
        with pytest.raises(bk.AxisError, match=f"^{op}:"):
            getattr(b, op)(t(b, 2.5, "float32"), -1)
    assert b.dtype(b.shift_bits_left(t(b, [1], "int8"), 2)) == INT8
    assert b.dtype(b.clip(t(b, [1], "uint8"), 0, 300)) == UINT8
    assert b.dtype(b.unravel_index(t(b, [1], "int64"), (2,))) == INT64
    assert b.dtype(b.floordiv(t(b, [1], "int32"), 1)) == INT32


def test_the_spec_refuses_bad_arguments_before_the_kernel(b: ArrayAPIBackend) -> None:
    """The kernels keep no copy of the spec's rules (issue #21): the core's plan refuses these
    calls with the spec's class, named after the operation, before the kernel runs."""
    x, grid, m = t(b, np.ones((2, 3)), "float32"), t(b, np.zeros((2, 3, 4, 1)), "float32"), t(b, np.eye(3), "float32")
    ones = t(b, np.ones((2, 5, 1)), "float32")
    calls: list[tuple[type[Exception], str, Any]] = [
        (bk.ShapeMismatchError, "reshape", lambda: b.reshape(x, (4, 2))),
        (bk.AxisError, "transpose", lambda: b.transpose(x, (0, 0))),
        (ValueError, "expand_dims", lambda: b.expand_dims(x, 0, -1)),
        (bk.ShapeMismatchError, "stack", lambda: b.stack([x, t(b, np.ones((3, 2)), "float32")])),
        (bk.ShapeMismatchError, "concat", lambda: b.concat([x, t(b, np.ones(3), "float32")], 0)),
        (ValueError, "random_normal", lambda: b.random_normal((2,), INT32)),
        (bk.ShapeMismatchError, "batched_gather_nd", lambda: b.batched_gather_nd(grid, t(b, np.zeros((3, 5, 2)), "int64"))),
        (bk.ShapeMismatchError, "batched_gather_nd", lambda: b.batched_gather_nd(grid, t(b, np.zeros((2, 5, 3)), "int64"))),
        (bk.ArgumentTypeError, "gather", lambda: b.gather(x, t(b, [0.5], "float32"), 1)),
        (ValueError, "scatter", lambda: b.scatter(grid, t(b, np.zeros((2, 5, 2)), "int64"), ones, "mul")),
        (ValueError, "indexed_segment_sum", lambda: b.indexed_segment_sum(x, t(b, [[0, 1]], "int64"), 0)),
        (bk.IndexOutOfRangeError, "boolean_mask", lambda: b.boolean_mask(x, t(b, [True, False], "bool"), 1)),
        (ValueError, "pad", lambda: b.pad(x, [(1, 1), (1, 1)], "bogus")),
        (ValueError, "pad", lambda: b.pad(x, [(1, -1), (1, 1)], "constant")),
        (ValueError, "searchsorted", lambda: b.searchsorted(t(b, [1.0, 2.0], "float32"), t(b, [1.5], "float32"), "middle")),
        (ValueError, "bincount", lambda: b.bincount(t(b, [1, 2], "int64"), None, -1)),
        (ValueError, "qr", lambda: b.qr(m, mode="full")),
        (bk.ArgumentTypeError, "solve", lambda: b.solve(m, None)),
        (bk.ShapeMismatchError, "solve", lambda: b.solve(m, t(b, np.ones(4), "float32"))),
        (bk.ShapeMismatchError, "tensordot", lambda: b.tensordot(x, [0], m, [0])),
        (ValueError, "einsum", lambda: b.einsum("ij,jk", x)),
        (bk.ShapeMismatchError, "einsum", lambda: b.einsum("ij,jk->ik", x, x)),
        (bk.ShapeMismatchError, "conv", lambda: b.conv(t(b, np.ones((2, 3, 8)), "float32"), t(b, np.ones((1, 4, 2, 3)), "float32"))),
        (ValueError, "argmax", lambda: b.argmax(t(b, np.zeros((0, 3)), "float32"), 0)),
        (ValueError, "pow", lambda: b.pow(t(b, [2, 3], "int64"), -1)),
    ]
    for error, op, call in calls:
        with pytest.raises(error, match=f"^{op}:") as raised:
            call()
        assert type(raised.value) is error, (op, raised.value)
