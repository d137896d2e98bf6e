"""`bk._rules.indices`: the index rules (index kinds, unravel_index, quantile, bincount), on DTypes and a NumPy-backed fake."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk import DType
from bk._rules import indices as rules

I8, I64, U64 = DType(int, 8), DType(int, 64), DType(int, 64, signed=False)
F16, F32, F64 = DType(float, 16), DType(float, 32), DType(float, 64)
BOOL, C64 = DType(bool), DType(complex, 64)


def _sorting(richer_type: type) -> type:
    class Sorting(richer_type):  # type: ignore[misc, valid-type]
        """The NumPy-backed `richer` backend with what the quantile composite needs beyond it."""

        def sort(self, x, axis=-1):
            return np.sort(x, axis=axis)

        def isnan(self, x):
            return np.isnan(x)

        def floor(self, x):
            return np.floor(x)

        def minimum(self, a, b):
            return np.minimum(a, b)

        def moveaxis(self, x, source, destination):
            return np.moveaxis(x, source, destination)

        def gather(self, values, indices, axis):
            return np.take(values, indices, axis=axis)

    return Sorting


@pytest.fixture
def sorting(richer):
    return _sorting(type(richer))()


# ---------------------------------------------------------------- index kinds


@pytest.mark.parametrize("dtype", [I8, DType(int, 8, signed=False), DType(int, 32), I64, U64])
def test_integer_indices_pass_as_they_are(dtype):
    assert rules.index_needs_cast(dtype, 3, "gather") is False
    assert rules.index_needs_cast(dtype, 0, "gather") is False


def test_empty_float_indices_are_an_empty_index():
    assert rules.index_needs_cast(F64, 0, "gather") is True  # `[]` converts to float64
    assert rules.index_needs_cast(F32, 0, "take_along_axis") is True


@pytest.mark.parametrize(("dtype", "size"), [(BOOL, 2), (BOOL, 0), (F32, 1), (F32, None), (C64, 0), (C64, 3)])
def test_bool_float_and_complex_indices_raise(dtype, size):
    with pytest.raises(bk.ArgumentTypeError, match=f"^gather_1d: indices must be integers, got {dtype.name}"):
        rules.index_needs_cast(dtype, size, "gather_1d")


def test_bool_indices_point_to_boolean_mask():
    with pytest.raises(bk.ArgumentTypeError, match="boolean_mask"):
        rules.index_needs_cast(BOOL, 4, "gather")


def test_specs_use_the_same_rule():
    assert bk.eval_shape("gather", bk.ShapeDtype((3, 4), F32), bk.ShapeDtype((0,), F64), 1).shape == (3, 0)
    with pytest.raises(bk.ArgumentTypeError, match="got bool"):
        bk.eval_shape("gather", bk.ShapeDtype((3,), F32), bk.ShapeDtype((0,), BOOL), 0)
    with pytest.raises(bk.ArgumentTypeError, match="^take_along_axis: indices must be integers, got float32"):
        bk.eval_shape("take_along_axis", bk.ShapeDtype((3,), F32), bk.ShapeDtype((2,), F32), 0)


# ---------------------------------------------------------------- unravel_index


def test_flat_index_kind():
    rules.check_flat_index(DType(int, 16))
    for dtype in (BOOL, F32, C64):
        with pytest.raises(bk.ArgumentTypeError, match=f"^unravel_index: flat indices must be integers, got {dtype.name}$"):
            rules.check_flat_index(dtype)


def test_unravel_shape_and_strides():
    assert rules.unravel_shape([2, np.int64(3)]) == (2, 3)
    assert rules.unravel_strides((2, 3, 4)) == (12, 4, 1)
    assert rules.unravel_strides(()) == ()
    with pytest.raises(ValueError, match="0 or more"):
        rules.unravel_shape((2, -1))
    with pytest.raises(bk.ArgumentTypeError, match="sequence of ints"):
        rules.unravel_shape((2, 1.5))


@pytest.mark.parametrize(("low", "high", "bad"), [(-1, 3, -1), (0, 6, 6), (-2, 9, -2)])
def test_flat_range_names_the_first_bad_end(low, high, bad):
    with pytest.raises(ValueError, match=rf"^unravel_index: index {bad} is out of bounds for an array of size 6 \(shape \(2, 3\)\)"):
        rules.check_flat_range(low, high, (2, 3))


def test_flat_range_inside():
    rules.check_flat_range(0, 5, (2, 3))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint64])
def test_unravel_composite_keeps_the_dtype(richer, dtype):
    b = richer
    flat = np.array([0, 5, 3], dtype)
    result = rules.unravel_index(b, flat, (2, 3))
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.stack(np.unravel_index(flat, (2, 3)), -1))


def test_unravel_composite_widens_before_dividing(richer):
    """Strides beyond int8 (600) divide int64 copies: no overflow, same result as NumPy."""
    flat = np.array([[0, 5], [100, 127]], np.int8)
    result = rules.unravel_index(richer, flat, (300, 300, 2))
    assert result.dtype == np.int8 and result.shape == (2, 2, 3)
    np.testing.assert_array_equal(result, np.stack(np.unravel_index(flat, (300, 300, 2)), -1))


def test_unravel_composite_errors_and_edges(richer):
    b = richer
    with pytest.raises(ValueError, match="index 6 is out of bounds"):
        rules.unravel_index(b, np.array([0, 6]), (2, 3))
    with pytest.raises(ValueError, match="index -1 is out of bounds"):
        rules.unravel_index(b, np.array([-1, 2]), (2, 3))
    with pytest.raises(bk.ArgumentTypeError):
        rules.unravel_index(b, np.array([True]), (2, 3))
    assert rules.unravel_index(b, np.array([0, 0]), ()).shape == (2, 0)  # no axes: empty multi-indices
    assert rules.unravel_index(b, np.zeros((0,), np.int16), (2, 0)).dtype == np.int16


def test_unravel_composite_calls_the_kernel_on_checked_indices(richer):
    calls = []

    def kernel(flat, sizes):
        calls.append(sizes)
        return np.stack(np.unravel_index(flat, sizes), -1)  # intp: the composite casts back

    result = rules.unravel_index(richer, np.array([1, 4], np.int16), [2, 3], kernel)
    assert calls == [(2, 3)] and result.dtype == np.int16
    with pytest.raises(ValueError):
        rules.unravel_index(richer, np.array([7], np.int16), [2, 3], kernel)
    assert len(calls) == 1


def test_unravel_skips_the_range_check_without_data(richer):
    class Traced(type(richer)):  # type: ignore[misc]
        def is_available(self, tensor):
            return False

    result = rules.unravel_index(Traced(), np.array([7]), (2, 3))  # as inside jit_compile: wraps, no error
    np.testing.assert_array_equal(result, [[0, 1]])


# ---------------------------------------------------------------- quantile


def test_quantile_input_rule():
    rules.check_quantile_input(F32, (2, 3))
    rules.check_quantile_input(BOOL, (None, 3))
    with pytest.raises(bk.AxisError, match="0-d"):
        rules.check_quantile_input(F32, ())
    with pytest.raises(bk.ArgumentTypeError, match="complex"):
        rules.check_quantile_input(C64, (3,))
    with pytest.raises(ValueError, match="no elements"):
        rules.check_quantile_input(F32, (2, 0))


def test_quantile_values():
    q = rules.quantile_values([0.0, 0.37, 1.0])
    assert q.dtype == np.float64 and q.tolist() == [0.0, 0.37, 1.0]  # float64: 0.37 is not rounded to float32
    assert rules.quantile_values([]).shape == (0,)
    for bad in (1.5, -0.1, float("nan"), [[0.5, 2.0]]):
        with pytest.raises(ValueError, match=r"^quantile: quantiles must lie in \[0, 1\]"):
            rules.quantile_values(bad)


_X = np.array([[1.0, 4.0, 2.0, 3.0], [0.0, 1.0, 2.0, 7.0], [5.0, 5.0, 5.0, 5.0]], np.float32)


@pytest.mark.parametrize("q", [0.5, [0.0, 0.25, 1.0], [[0.1, 0.9], [0.5, 0.3]], np.array([0.37])])
def test_quantile_composite_is_numpys_linear_quantile(sorting, q):
    result = rules.quantile(sorting, _X, q)
    expected = np.quantile(_X.astype(np.float64), q, axis=-1)
    assert result.dtype == np.float32 and result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-6)


def test_quantile_composite_nan_rows_and_empty_batch(sorting):
    x = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], np.float64)
    result = rules.quantile(sorting, x, [0.25, 0.5])
    assert np.isnan(result[:, 0]).all() and result[:, 1].tolist() == [1.5, 2.0]
    assert rules.quantile(sorting, np.zeros((0, 3), np.float32), [0.5]).shape == (1, 0)


def test_quantile_composite_dtypes(sorting):
    b = sorting
    assert rules.quantile(b, _X.astype(np.int8), 0.5).dtype == np.float32  # ints: the default float
    assert rules.quantile(b, _X.astype(np.float16), 0.5).dtype == np.float16
    with bk.precision(64):
        assert rules.quantile(b, _X, 0.5).dtype == np.float64


def test_quantile_composite_errors(sorting):
    b = sorting
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        rules.quantile(b, _X, [0.5, 1.5])
    with pytest.raises(bk.AxisError):
        rules.quantile(b, np.float32(2.0), 0.5)
    with pytest.raises(bk.ArgumentTypeError):
        rules.quantile(b, _X.astype(np.complex64), 0.5)


def test_quantile_kernel_gets_float_values_and_flat_quantiles(sorting):
    seen = {}

    def kernel(values, q):
        seen.update(dtype=values.dtype, q=q)
        return np.quantile(values, q, axis=-1)

    result = rules.quantile(sorting, _X.astype(np.int32), [[0.5], [1.0]], kernel)
    assert seen["dtype"] == np.float32 and seen["q"].tolist() == [0.5, 1.0]
    assert result.shape == (2, 1, 3) and result.dtype == np.float32


def test_quantile_kernel_may_decline(sorting):
    result = rules.quantile(sorting, _X, [0.25, 0.75], lambda values, q: NotImplemented)  # the composite steps in
    np.testing.assert_allclose(result, np.quantile(_X.astype(np.float64), [0.25, 0.75], axis=-1), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- bincount


def test_bincount_arguments():
    assert rules.check_bincount(I64, 4) == 4
    assert rules.check_bincount(DType(int, 8, signed=False), np.int64(0)) == 0
    with pytest.raises(ValueError, match="bins must be 0 or more"):
        rules.check_bincount(I64, -1)
    assert rules.check_bincount(BOOL, 2) == 2  # bools count as 0 and 1, as numpy.bincount
    for dtype in (F32, C64):
        with pytest.raises(bk.ArgumentTypeError, match=rf"^bincount: x must hold integers \(or bools\), got {dtype.name}$"):
            rules.check_bincount(dtype, 3)
    for bins in (True, 2.0, None):
        with pytest.raises(bk.ArgumentTypeError, match="bins must be an int"):
            rules.check_bincount(I64, bins)


def test_counted_values(richer):
    rules.check_counted_values(richer, np.array([0, 3, 1]))
    rules.check_counted_values(richer, np.zeros((0,), np.int64))
    with pytest.raises(ValueError, match=r"^bincount: the values to count must be 0 or more, got -2$"):
        rules.check_counted_values(richer, np.array([0, -1, -2]))


# ---------------------------------------------------------------- indices in range, counts


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_wrap_indices_counts_negative_ones_from_the_end(richer, dtype):
    indices = np.array([0, 3, 1] if dtype == np.uint8 else [0, -1, 2, -3], dtype)
    result = rules.wrap_indices(richer, indices, 4, "gather")
    np.testing.assert_array_equal(result, np.arange(4)[indices])


def test_wrap_indices_keeps_indices_without_negative_ones(richer):
    indices = np.array([0, 2, 1], np.int32)
    assert rules.wrap_indices(richer, indices, 3, "gather") is indices


def test_wrap_indices_widens_when_the_dtype_cannot_hold_the_size(richer):
    result = rules.wrap_indices(richer, np.array([-1, 5], np.int8), 300, "gather")
    np.testing.assert_array_equal(result, [299, 5])
    assert result.dtype == np.int64


def test_wrap_indices_vectors_have_one_size_per_dimension(richer):
    vectors = np.array([[0, -1], [1, 2], [-2, -3]], np.int64)
    np.testing.assert_array_equal(rules.wrap_indices(richer, vectors, (2, 3), "gather_nd"), [[0, 2], [1, 2], [0, 0]])
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^gather_nd: index 2 is out of range for a dimension of size 2 \(valid: -2..1\)$"):
        rules.wrap_indices(richer, np.array([[0, 0], [2, 0]], np.int64), (2, 3), "gather_nd")


@pytest.mark.parametrize("bad", [4, -5, 100])
def test_indices_outside_raise_with_the_first_one(richer, bad):
    with pytest.raises(bk.IndexOutOfRangeError, match=rf"^take: index {bad} is out of range for a dimension of size 4 \(valid: -4..3\)$"):
        rules.check_indices(richer, np.array([0, bad, 1], np.int64), 4, "take")


def test_segment_starts_are_not_counted_from_the_end(richer):
    rules.check_indices(richer, np.array([0, 3]), 4, "indexed_segment_sum", "segment start", negative=False)
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^indexed_segment_sum: segment start -1 is out of range for a dimension of size 4 \(valid: 0..3\)$"):
        rules.check_indices(richer, np.array([0, -1]), 4, "indexed_segment_sum", "segment start", negative=False)


def test_empty_indices_and_indices_without_data_pass(richer):
    empty = np.zeros((0, 2), np.int64)
    assert rules.wrap_indices(richer, empty, (1, 1), "gather_nd") is empty

    class Traced(type(richer)):  # type: ignore[misc]
        def is_available(self, tensor):
            return False

    np.testing.assert_array_equal(rules.wrap_indices(Traced(), np.array([9, -1]), 3, "gather"), [9, 2])  # as inside jit_compile: wrapped, not checked


def test_nonnegative_counts(richer):
    rules.check_nonnegative(richer, np.array([0, 2]), "repeat", "repeats")
    rules.check_nonnegative(richer, np.array([7], np.uint8), "repeat", "repeats")
    with pytest.raises(ValueError, match=r"^repeat: repeats must be 0 or more, got -3$"):
        rules.check_nonnegative(richer, np.array([1, -3, -1]), "repeat", "repeats")


# ---------------------------------------------------------------- NumPy's advanced indexing


_KEYS = [
    (np.array([1, -2]),),
    (slice(None), np.array([[2], [0]]), np.array([1, 0])),
    (0, slice(None), np.array([1, 0])),  # an int apart from the array: the broadcast axes go first
    (slice(None), np.array([1, 0]), 0),
    (np.array([1, 0]), None, np.array([1, 0])),
    (None, 0, slice(None), np.array([3, 1])),
    (Ellipsis, np.array([4, 0])),
    (slice(None), np.array([True, False, True])),
    (1, np.array([True, False, True]), slice(None, None, -1)),
    (slice(1, None), np.zeros((0,), np.int64)),
    (Ellipsis, np.ones((4, 5), bool)),
    (0, slice(None), [1, 0]),  # a list is an array: the int apart from it still counts among the arrays
    (slice(None), (2, 0), None, [[1], [3]]),  # a tuple inside the key too
    ([True, False], Ellipsis, [0, 4]),  # a list of bools is a mask
    (0, slice(None), True),  # a 0-d mask adds an axis of 1, among the arrays
    (np.array(False), 1),
    (Ellipsis, np.array(True), [2, 0]),
]


def _basic(x, key):
    assert all(isinstance(k, slice) for k in key)  # the composite hands the framework slices only
    return x[key]


def _indexing(richer_type: type) -> type:
    class Indexing(richer_type):  # type: ignore[misc, valid-type]
        """The NumPy-backed `richer` backend with what the composite needs, and a `multi_slice` kernel of
        the composite alone (the core asks the spec before it, as before every kernel)."""

        def transpose(self, tensor, axes):
            return np.transpose(tensor, axes)

        def expand_dims(self, value, axis=0, number=1):
            return np.expand_dims(value, axis)

        def gather(self, values, indices, axis):
            return np.take(values, indices, axis=axis)

        def multi_slice(self, tensor, slices):
            return rules.advanced_index(self, tensor, slices, _basic)

    return Indexing


@pytest.mark.parametrize("key", _KEYS, ids=range(len(_KEYS)))
def test_advanced_index_is_numpys(richer, key):
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    np.testing.assert_array_equal(rules.advanced_index(_indexing(type(richer))(), x, key, _basic), x[key])


def test_advanced_index_errors(richer):
    b = _indexing(type(richer))()
    x = np.zeros((2, 3))
    with pytest.raises(bk.IndexOutOfRangeError, match="^multi_slice: index 3 is out of range for a dimension of size 3"):
        rules.advanced_index(b, x, (slice(None), np.array([0, 3])), _basic)  # the data: the composite's check
    with pytest.raises(bk.IndexOutOfRangeError, match="^multi_slice: a mask of shape"):  # the spec's, before the kernel
        b.multi_slice(x, (np.array([True, False, True]),))
    with pytest.raises(bk.IndexOutOfRangeError, match="^multi_slice: too many indices"):
        b.multi_slice(x, (0, 0, np.array([0])))
    with pytest.raises(bk.ArgumentTypeError, match="^multi_slice: indices must be"):
        b.multi_slice(x, (np.array([0.5]),))


def test_array_key_layout():
    i = np.array([0])
    assert rules.array_key_layout((slice(None), 0)) == (0, True)
    assert rules.array_key_layout((i, 0, slice(None))) == (1, True)
    assert rules.array_key_layout((0, slice(None), i)) == (1, False)
    assert rules.array_key_layout((i, None, i)) == (2, False)
    assert rules.array_key_layout((Ellipsis, i, i)) == (2, True)
    assert not rules.is_array_index(np.array(3)) and rules.is_array_index(np.array(True)) and not rules.is_array_index(5)
    assert rules.is_array_index([0, 1]) and rules.is_array_index((0,)) and rules.is_array_index(True)
    assert rules.is_mask_index([[True], [False]]) and not rules.is_mask_index([1, 0]) and rules.is_mask_index(False)
    assert rules.index_axes(np.array(True)) == 0 and rules.index_axes([[True, False]]) == 2 and rules.index_axes([3, 1]) == 1
    assert rules.array_key_layout((0, slice(None), [1])) == (1, False)


@pytest.mark.parametrize("key", _KEYS, ids=range(len(_KEYS)))
def test_multi_slice_spec_is_numpys(key):
    x = np.zeros((2, 3, 4, 5), np.float32)
    expected = x[key].shape
    shape = bk.eval_shape("multi_slice", x, key).shape
    masks = [k for k in key if rules.is_mask_index(k) and not isinstance(k, bool)]
    assert len(shape) == len(expected)  # a mask's size is its data's: None, unless it is a Python bool
    assert all(s == e for s, e in zip(shape, expected, strict=True) if s is not None)
    assert None not in shape or masks
