"""Gaps declared once on a backend class (`bk._rules.gaps`): the core fills them or says why it cannot."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

import bk
from bk import DType
from bk_numpy._backend import NumPyBackend

F32, F64, C64, C128 = DType(float, 32), DType(float, 64), DType(complex, 64), DType(complex, 128)
I32, U64 = DType(int, 32), DType(int, 64, signed=False)


class Gappy(NumPyBackend):
    """bk-numpy with declared gaps; its kernels record the dtypes they see."""

    lacking_kernels: ClassVar[Any] = {"matmul": frozenset({int, bool}), "cholesky": frozenset({C64}), "add": frozenset({U64}), "maximum": frozenset({U64}), "greater_than": frozenset({U64})}
    unsupported_dtypes: ClassVar[Any] = frozenset({C128})
    complex_unordered: ClassVar[Any] = bk.rules.ORDERING
    seen: ClassVar[list[Any]] = []

    def __init__(self) -> None:
        super().__init__()
        self._name = "gappy"

    def matmul(self, x1: Any, x2: Any) -> Any:
        Gappy.seen.append(("matmul", x1.dtype, x2.dtype))
        return np.matmul(x1, x2)

    def argmax(self, x: Any, axis: Any, keepdims: bool = False) -> Any:
        Gappy.seen.append(("argmax", x.dtype))
        return np.argmax(x, axis=axis, keepdims=keepdims)


def test_the_fill_ladder_changes_kind_where_a_size_up_is_missing() -> None:
    assert bk.rules.fill_dtype(Gappy, "matmul", I32) == F64  # no int kernel at all: in float64
    assert bk.rules.fill_dtype(Gappy, "matmul", DType(bool)) == F32  # bool: past the ints, to a float
    assert bk.rules.fill_dtype(Gappy, "add", U64) == DType(int, 64)  # uint64 add: int64's modular arithmetic
    assert bk.rules.fill_dtype(Gappy, "cholesky", C64) is None  # complex128 is missing altogether
    assert bk.rules.fill_dtype(NumPyBackend, "abs", DType(float, 16)) == F32


def test_declared_kernels_are_filled_for_every_operation_linear_algebra_included() -> None:
    b, Gappy.seen[:] = Gappy(), []
    x = np.array([[1, 2], [3, 4]], np.int32)
    result = b.matmul(x, x)
    assert Gappy.seen == [("matmul", np.float64, np.float64)]  # the kernel never saw int32
    assert result.dtype == np.int32 and result.tolist() == [[7, 10], [15, 22]]
    big = np.array([2**64 - 1, 5], np.uint64)
    assert b.add(big, np.array([2, 1], np.uint64)).tolist() == [1, 6]  # wraps as uint64 does
    other = np.array([2**63 - 1, 7], np.uint64)  # uint64 orders: through int64's order-preserving image
    assert b.maximum(big, other).tolist() == [2**64 - 1, 7] and b.greater_than(big, other).tolist() == [True, False]
    with pytest.raises(bk.UnsupportedDtypeError, match="^cholesky: unsupported for dtype complex64: gappy has no cholesky kernel"):
        b.cholesky(np.eye(2, dtype=np.complex64))


def test_a_result_of_a_dtype_the_framework_lacks_is_unsupported_not_computed() -> None:
    b = Gappy()
    with pytest.raises(bk.UnsupportedDtypeError, match="^fftn: unsupported for dtype complex128: .*gappy lacks"):
        b.fftn(np.ones(4))  # float64 gives complex128
    assert b.fftn(np.ones(4, np.float32)).dtype == np.complex64


def test_complex_order_is_the_cores_composite_unique_included() -> None:
    b, Gappy.seen[:] = Gappy(), []
    z = np.array([1 + 5j, 2 - 1j, np.nan + 0j, 2 + 0j], np.complex64)
    assert int(b.argmax(z, 0)) == 2 and int(b.argmax(z[[0, 1, 3]], 0)) == 2
    assert all(dtype != np.complex64 for _, dtype in Gappy.seen)  # argmax only of reals (bool through int8)
    np.testing.assert_array_equal(b.sort(z), np.sort(z))
    np.testing.assert_array_equal(b.maximum(z, z[::-1]), np.maximum(z, z[::-1]))
    for part, expected in zip(b.unique(z, True, True, None), np.unique(z, return_inverse=True, return_counts=True, equal_nan=True), strict=True):
        np.testing.assert_array_equal(part, np.reshape(expected, -1))
    with pytest.raises(bk.UnsupportedDtypeError, match="^unique: unsupported for dtype complex64: .* not slices"):
        b.unique(np.ones((2, 2), np.complex64), False, False, 0)
    assert [g.filled for g in bk.rules.declared_gaps(Gappy) if g.kind == "complex order"] == ["filled: NumPy's order from real and imaginary parts"]


class NaNElsewhere(NumPyBackend):
    """A framework whose sort puts NaN first: declared in `nan_unordered`, filled by the core."""

    nan_unordered: ClassVar[Any] = frozenset({"sort", "argsort", "argmax", "max", "unique"})

    def __init__(self) -> None:
        super().__init__()
        self._name = "nanfirst"

    def argsort(self, x: Any, axis: int = -1) -> Any:
        return np.argsort(np.where(np.isnan(x), -np.inf, x), axis=axis, kind="stable")

    def sort(self, x: Any, axis: int = -1) -> Any:
        return np.sort(np.where(np.isnan(x), -np.inf, x), axis=axis)

    def argmax(self, x: Any, axis: Any, keepdims: bool = False) -> Any:
        return np.argmax(np.where(np.isnan(x), -np.inf, x), axis=axis, keepdims=keepdims)

    def unique(self, x: Any, return_inverse: bool, return_counts: bool, axis: Any) -> Any:
        result = np.unique(x, return_inverse=return_inverse, return_counts=return_counts, axis=axis, equal_nan=False)  # every NaN its own
        return tuple(np.reshape(r, -1) for r in result) if isinstance(result, tuple) else (result,)


def test_the_nan_order_is_filled_for_a_framework_that_declares_it_orders_nan_otherwise() -> None:
    b = NaNElsewhere()
    x = np.array([[3.0, np.nan, -np.inf, 1.0], [np.nan, 2.0, np.nan, 0.0]], np.float32)
    np.testing.assert_array_equal(b.sort(x), np.sort(x))
    np.testing.assert_array_equal(b.argsort(x), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(b.argmax(x, 1), np.argmax(x, 1))
    np.testing.assert_array_equal(b.max(x, 0), np.max(x, 0))
    got = b.unique(x, True, True, None)  # NaNs: one, last
    for part, expected in zip(got, np.unique(x, return_inverse=True, return_counts=True, equal_nan=True), strict=True):
        np.testing.assert_array_equal(part, np.reshape(expected, -1))
