"""TensorFlow-specific behaviour at the edges (docs/semantics.md): error translation, loops under
tf.function, NaN handling built around TensorFlow's kernels. The shared rules are checked by
`testkit certify tf`; these tests pin what bk-tf does to make TensorFlow follow them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import bk


def _np(b: Any, x: Any) -> np.ndarray:
    return np.asarray(b.numpy(x))


# ---------------------------------------------------------------- errors


def test_tensorflow_errors_become_bk_classes_naming_the_operation(b: Any, tf: Any) -> None:
    with pytest.raises(bk.ShapeMismatchError, match=r"^add: ") as info:
        b.add(tf.ones((2, 3)), tf.ones((3, 2)))
    assert isinstance(info.value.__cause__, tf.errors.InvalidArgumentError)
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^gather: "):
        b.gather(tf.range(3), tf.constant([3]), 0)
    with pytest.raises(bk.ArgumentTypeError, match=r"^xor: "):
        b.xor(tf.ones(2), tf.ones(2))  # TensorFlow has no float kernel: InvalidArgumentError inside
    with pytest.raises(bk.ShapeMismatchError, match=r"^reshape: "):
        b.reshape(tf.ones((2, 3)), (4,))


def test_bk_tf_own_value_errors_pass_unchanged(b: Any, tf: Any) -> None:
    with pytest.raises(ValueError, match="side must be") as info:
        b.searchsorted(tf.range(3), tf.range(2), "middle")
    assert type(info.value) is ValueError


def test_where_rejects_a_string_condition(b: Any, tf: Any) -> None:
    with pytest.raises(bk.ArgumentTypeError, match=r"^where: "):
        b.where("abc", tf.ones(2), tf.zeros(2))


def test_kinds_tensorflow_would_take_raise_the_spec_error_also_while_tracing(b: Any, tf: Any) -> None:
    c = tf.constant([1 + 2j], tf.complex64)
    calls = {  # tf.math.sigmoid and tf.bitcast take complex values, tf.not_equal strings, FloorDiv fails only when a graph runs
        "sigmoid": lambda x: b.sigmoid(x),
        "signbit": lambda x: b.signbit(x),
        "floordiv": lambda x: b.floordiv(x, x),
    }
    for op, call in calls.items():
        for run in (call, tf.function(call, autograph=False)):
            with pytest.raises(bk.ArgumentTypeError, match=rf"^{op}: .*complex64"):
                run(c)
    with pytest.raises(bk.ArgumentTypeError, match=r"^sign: .*bool"):
        b.sign(tf.constant([True]))
    with pytest.raises(bk.ArgumentTypeError, match=r"^shift_bits_left: .*float32"):
        b.shift_bits_left(tf.ones(2), 1)
    with pytest.raises(ValueError, match=r"^where: pass both x and y"):
        b.where(tf.constant([True]), tf.ones(1))
    np.testing.assert_array_equal(b.where(tf.constant([2, 0]), 1, 0).numpy(), [1, 0])  # numbers are conditions


def test_indices_are_checked_eagerly_and_wrapped_while_tracing(b: Any, tf: Any) -> None:
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^indexed_segment_sum: segment start 3"):
        b.indexed_segment_sum(tf.ones((1, 3)), tf.constant([[0, 3]]), 1)
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^sparse_coo_tensor: index -1"):
        b.sparse_coo_tensor(tf.constant([[0, -1]]), tf.ones(1), (2, 2))
    with pytest.raises(ValueError, match=r"^repeat: repeats must be 0 or more"):
        b.repeat(tf.ones(2), tf.constant([1, -1]), 0)
    unknown = [tf.TensorSpec([None]), tf.TensorSpec([None], tf.int32)]
    gather = tf.function(lambda v, i: b.gather(v, i, 0), input_signature=unknown)  # sizes unknown until the graph runs
    np.testing.assert_array_equal(gather(tf.constant([1.0, 2.0, 3.0]), tf.constant([-1, 0])).numpy(), [3.0, 1.0])


def test_einsum_writes_out_an_implicit_output_with_ellipsis(b: Any, tf: Any) -> None:
    left, right = np.ones((2, 1, 3, 4), np.float32), np.ones((5, 4, 2), np.float32)
    result = b.einsum("...ij,...jk", tf.constant(left), tf.constant(right))  # TensorFlow wants '->...ik'
    np.testing.assert_array_equal(result.numpy(), np.einsum("...ij,...jk", left, right))


def test_random_dtypes_by_name_as_the_spec_takes_them(b: Any, tf: Any) -> None:
    assert b.random_uniform((2,), 0, 1, "float64").dtype == tf.float64
    assert b.random_normal((2,), "complex64").dtype == tf.complex64


def test_python_int_overflow_and_weak_bool(b: Any, tf: Any) -> None:
    with pytest.raises(OverflowError, match=r"^add: .*300"):
        b.add(tf.constant([100], tf.int8), 300)
    result = b.add(tf.constant([1, 2], tf.uint8), True)  # TensorFlow itself refuses True as uint8
    assert result.dtype == tf.uint8
    np.testing.assert_array_equal(result.numpy(), [2, 3])


def test_axes_are_checked_before_tensorflow_sees_them(b: Any, tf: Any) -> None:
    x = tf.reshape(tf.range(12.0), (3, 4))
    with pytest.raises(bk.AxisError, match=r"^sort: "):
        b.sort(x, 5)  # TensorFlow alone runs this silently
    with pytest.raises(bk.AxisError, match=r"^fft: "):
        b.fft(x, (5,))
    with pytest.raises(bk.AxisError, match=r"^transpose: "):
        b.transpose(x, (0, 2))
    flat = b.argmax(x, None)
    assert flat.shape == () and int(flat) == 11  # not a (3, 4) array
    assert b.argmax(x, None, keepdims=True).shape == (1, 1)


# ---------------------------------------------------------------- integers


def test_reductions_widen_like_numpy(b: Any, tf: Any) -> None:
    total = b.sum(tf.constant([100, 100], tf.int8))
    assert total.dtype == tf.int64 and int(total) == 200
    assert b.sum(tf.constant([200, 200], tf.uint8)).dtype == tf.uint64
    assert b.cumsum(tf.constant([True, True]), 0).dtype == tf.int64
    assert b.prod(tf.constant([True, False])).dtype == tf.int64


def test_where_wraps_a_python_int_as_numpy_where(b: Any, tf: Any) -> None:
    result = b.where(tf.constant([True, False]), tf.constant([1, 2], tf.uint8), -1)
    assert result.dtype == tf.uint8
    np.testing.assert_array_equal(result.numpy(), [1, 255])


def test_complex_to_bool_counts_either_part(b: Any, tf: Any) -> None:
    x = tf.constant([-2.2j, 0j, 1 + 0j], tf.complex128)
    np.testing.assert_array_equal(b.cast(x, bk.DType(bool)).numpy(), [True, False, True])  # real part alone: False first


def test_complex_division_as_numpy(b: Any, tf: Any) -> None:
    a = np.array([0j, 1 + 1j, 1e300 + 1e300j], np.complex128)
    c = np.array([complex(np.inf, 0), 1e-300 + 0j, 1e300 + 1e300j], np.complex128)
    np.testing.assert_allclose(b.div(tf.constant(a), tf.constant(c)).numpy(), a / c)  # TensorFlow: NaN, inf, NaN


def test_clip_of_unsigned_ints_clips_the_bounds(b: Any, tf: Any) -> None:
    result = b.clip(tf.constant([0, 100, 255], tf.uint8), -5, 200)
    assert result.dtype == tf.uint8
    np.testing.assert_array_equal(result.numpy(), [0, 100, 200])


def test_unsigned_abs_and_bool_comparisons_need_no_missing_kernel(b: Any, tf: Any) -> None:
    np.testing.assert_array_equal(b.abs(tf.constant([3, 250], tf.uint8)).numpy(), [3, 250])
    np.testing.assert_array_equal(b.greater_than(tf.constant([True, False]), False).numpy(), [True, False])


def test_integer_operations_without_tensorflow_kernels(b: Any, tf: Any) -> None:
    small = tf.constant([[100, 2], [3, 4]], tf.int8)
    product = b.tensordot(small, (1,), small, (0,))  # no int8 MatMul kernel: computed in int64, wraps as NumPy
    np.testing.assert_array_equal(product.numpy(), small.numpy() @ small.numpy())
    assert product.dtype == tf.int8
    np.testing.assert_array_equal(b.pow(tf.constant([3, 20], tf.uint8), 2).numpy(), np.array([3, 20], np.uint8) ** 2)
    np.testing.assert_array_equal(b.floordiv(tf.constant([5, -5]), tf.constant([0, 2])).numpy(), [0, -3])
    np.testing.assert_array_equal(b.equal(tf.constant([1, 2], tf.uint8), 300).numpy(), [False, False])


def test_rank_of_complex_and_half_precision_matrices(b: Any, tf: Any) -> None:
    complex_matrix = tf.constant([[[1 + 1j, 2], [2 + 2j, 4 - 0j]]], tf.complex64)  # second row = 2 * first
    assert b.matrix_rank_dense(complex_matrix).numpy().tolist() == [1]
    eigenvalues = b.eigvals(tf.constant([[[2.0, 0.0], [0.0, 3.0]]], tf.float16))
    np.testing.assert_allclose(np.sort(eigenvalues.numpy().real), [[2.0, 3.0]])


def test_creation_edges(b: Any, tf: Any) -> None:
    assert b.range(3, 0).shape == (0,)  # empty as NumPy; TensorFlow refuses start > limit
    grids = b.meshgrid(tf.range(2, dtype=tf.int64), tf.constant([0.5, 1.5, 2.5], tf.float64))
    assert [g.dtype for g in grids] == [tf.int64, tf.float64] and grids[0].shape == (2, 3)


# ---------------------------------------------------------------- NaN


def test_unique_returns_one_nan_last(b: Any, tf: Any) -> None:
    values, inverse, counts = b.unique(tf.constant([3.0, np.nan, 1.0, 3.0, np.nan]), True, True, None)
    np.testing.assert_array_equal(values.numpy(), [1.0, 3.0, np.nan])
    np.testing.assert_array_equal(inverse.numpy(), [1, 2, 0, 1, 2])
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 2])
    assert isinstance(b.unique(tf.constant([2, 1]), False, False, None), tuple)


def test_searchsorted_orders_nan_after_inf(b: Any, tf: Any) -> None:
    sequence = tf.constant([1.0, 2.0, np.inf, np.nan])
    values = tf.constant([np.nan, 2.0, np.inf, 5.0])
    for side in ("left", "right"):
        expected = np.searchsorted(sequence.numpy(), values.numpy(), side=side)
        np.testing.assert_array_equal(b.searchsorted(sequence, values, side).numpy(), expected)


def test_sort_of_complex_values_is_lexicographic(b: Any, tf: Any) -> None:
    x = np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 0j], np.complex64)
    np.testing.assert_array_equal(b.sort(tf.constant(x)).numpy(), np.sort(x))
    np.testing.assert_array_equal(b.argsort(tf.constant(x)).numpy(), np.argsort(x, kind="stable"))


def test_complex_extremes_in_numpy_order(b: Any, tf: Any) -> None:
    x = np.array([[1 + 5j, 2 - 1j, 2 + 0j], [0 + 0j, -1 + 9j, 0 - 1j]], np.complex64)
    np.testing.assert_array_equal(b.max(tf.constant(x), 1).numpy(), np.max(x, axis=1))
    np.testing.assert_array_equal(b.min(tf.constant(x), None, keepdims=True).numpy(), np.min(x, keepdims=True))
    np.testing.assert_array_equal(b.argmax(tf.constant(x), 1).numpy(), np.argmax(x, axis=1))


# ---------------------------------------------------------------- indices


def test_negative_indices_count_from_the_end_also_when_vectorized(b: Any, tf: Any) -> None:
    values = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(b.gather_1d(values[0], tf.constant([-1])).numpy(), [3.0])
    mapped = b.vectorized_call(b.gather_1d, values, tf.constant([-1, 0]))  # traced inside tf.vectorized_map
    np.testing.assert_array_equal(mapped.numpy(), [3.0, 4.0])
    with pytest.raises(bk.IndexOutOfRangeError):
        b.gather_1d(values[0], tf.constant([-4]))


def test_out_of_range_index_inside_jit_raises_the_bk_class(b: Any, tf: Any) -> None:
    compiled = b.jit_compile(lambda v, i: b.gather(v, i, 0))
    np.testing.assert_array_equal(compiled(tf.range(3.0), tf.constant([-1])).numpy(), [2.0])
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^jit_compile\(<lambda>\): ") as info:
        compiled(tf.range(3.0), tf.constant([5]))  # checked by TensorFlow's CPU kernel while the graph runs
    assert isinstance(info.value.__cause__, tf.errors.InvalidArgumentError)


def test_boolean_mask_of_the_wrong_length(b: Any, tf: Any) -> None:
    with pytest.raises(bk.IndexOutOfRangeError, match=r"^boolean_mask: "):
        b.boolean_mask(tf.ones((3, 4)), tf.constant([True, False, True]), 1)


# ---------------------------------------------------------------- loops


def _count_down(n: Any, total: Any) -> tuple[Any, Any]:
    return n - 1, total + n


@pytest.mark.parametrize("max_iter", [None, 3, (1, 5), (0, 2, 9)])
def test_while_loop_on_an_integer_condition_under_jit(b: Any, tf: Any, max_iter: Any) -> None:
    start = (tf.constant(4, tf.int64), tf.constant(0, tf.int64))
    eager = b.while_loop(_count_down, start, max_iter)
    compiled = b.jit_compile(lambda n, t: b.while_loop(_count_down, (n, t), max_iter))(*start)
    np.testing.assert_array_equal(_np(b, compiled[1]), _np(b, eager[1]))


def test_while_loop_checkpoints_after_the_stop_repeat_the_last_recorded_values(b: Any, tf: Any) -> None:
    def double(condition: Any, x: Any, n: Any) -> tuple[Any, Any, Any]:
        return n > 1, x * 2, n - 1

    start = (tf.constant([True]), tf.constant([1.0]), tf.constant([3]))
    compiled = b.jit_compile(lambda c, x, n: b.while_loop(double, (c, x, n), (1, 5)))
    for result in (b.while_loop(double, start, (1, 5)), compiled(*start)):
        # the loop stops after iteration 3 (x = 8), so checkpoint 5 repeats checkpoint 1, as phiml.backend does
        np.testing.assert_array_equal(_np(b, result[1])[:, 0], [2.0, 2.0])
    reached = b.jit_compile(lambda c, x, n: b.while_loop(double, (c, x, n), (1, 3)))(*start)
    np.testing.assert_array_equal(_np(b, reached[1])[:, 0], [2.0, 8.0])


# ---------------------------------------------------------------- NumPy's rules where TensorFlow's kernels differ


def test_unsupported_dtypes_raise_argument_type_error_naming_the_operation(b: Any, tf: Any) -> None:
    for op in ("and_", "or_", "xor", "shift_bits_left", "shift_bits_right"):
        with pytest.raises(bk.ArgumentTypeError, match=rf"^{op}: "):
            getattr(b, op)(tf.ones(2), tf.ones(2))
    for op in ("floordiv", "mod"):
        with pytest.raises(bk.ArgumentTypeError, match=rf"^{op}: "):
            getattr(b, op)(tf.constant([1 + 2j]), tf.constant([1j]))
    for op in ("floor", "ceil", "invert"):
        with pytest.raises(bk.ArgumentTypeError, match=rf"^{op}: "):
            getattr(b, op)(tf.constant([1.5 + 2j]))
    with pytest.raises(bk.ArgumentTypeError, match=r"^sign: "):
        b.sign(tf.constant([True]))  # NumPy has no sign of booleans
    for dtype in (tf.uint8, tf.uint16, tf.uint32, tf.uint64):  # TensorFlow has no kernel
        result = b.sign(tf.constant([0, 1, 200], dtype))
        assert result.dtype == dtype
        np.testing.assert_array_equal(result.numpy(), [0, 1, 1])


def test_shifts_by_counts_outside_the_bits_follow_numpy(b: Any, tf: Any) -> None:
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        info = np.iinfo(dtype)
        x = np.array([info.min, -3 if info.min else 3, 0, 5, info.max], dtype)
        counts = (
            np.array([-1, info.bits, info.bits + 3, 1, 200 if info.bits > 8 else 100], dtype)
            if info.min
            else np.array([info.bits, 1, 100, 2, 0], dtype)
        )
        for op, reference in (("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)):
            result = getattr(b, op)(tf.constant(x), tf.constant(counts))
            assert result.dtype.name == dtype
            np.testing.assert_array_equal(result.numpy(), reference(x, counts), err_msg=f"{op} {dtype}")
    np.testing.assert_array_equal(b.shift_bits_right(tf.constant([-8, 8], tf.int32), 40).numpy(), [-1, 0])
    for op, reference in (("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)):
        x = np.array([True, False, True])
        result = getattr(b, op)(tf.constant(x), tf.constant([True, True, False]))
        assert result.dtype == tf.int8  # as NumPy's left_shift(bool, bool)
        np.testing.assert_array_equal(result.numpy(), reference(x, np.array([True, True, False])))


def test_integer_division_by_zero_and_booleans(b: Any, tf: Any) -> None:
    for op in ("floordiv", "mod"):
        np.testing.assert_array_equal(
            getattr(b, op)(tf.constant([7, -7], tf.int32), tf.constant([0, 0], tf.int32)).numpy(), [0, 0]
        )
        result = getattr(b, op)(tf.constant([True, False]), tf.constant([True, True]))
        assert result.dtype == tf.int8


def test_float_floordiv_follows_numpy_divmod(b: Any, tf: Any) -> None:
    a = np.array([np.inf, -np.inf, -1.0, 1.0, 1.0, -0.0, 7.0, 3.0], np.float32)
    d = np.array([2.0, 300.0, np.inf, -np.inf, 0.1, 2.0, 0.0, np.nan], np.float32)
    result = b.floordiv(tf.constant(a), tf.constant(d)).numpy()  # TensorFlow: floor(a / b)
    with np.errstate(all="ignore"):
        expected = np.floor_divide(a, d)
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(np.signbit(result), np.signbit(expected))


def test_clip_keeps_the_dtype_of_x(b: Any, tf: Any) -> None:
    result = b.clip(tf.constant([-128, 5, 0], tf.int8), -1.5, 2.5)
    assert result.dtype == tf.int8
    np.testing.assert_array_equal(result.numpy(), [-1, 2, 0])
    result = b.clip(tf.constant([True, False]), 0, 5)
    assert result.dtype == tf.bool
    np.testing.assert_array_equal(result.numpy(), [True, False])
    np.testing.assert_array_equal(b.clip(tf.constant([True, False]), 0.5, 2.5).numpy(), [True, True])  # 0.5 casts to True
    assert b.clip(tf.constant([3], tf.uint16), -1.5, 2.5).dtype == tf.uint16


def test_comparisons_with_python_ints_beyond_the_dtype(b: Any, tf: Any) -> None:
    np.testing.assert_array_equal(b.equal(tf.constant([-128, 127], tf.int8), 300).numpy(), [False, False])
    np.testing.assert_array_equal(b.greater_than(tf.constant([0, 255], tf.uint8), -1).numpy(), [True, True])


def test_quantile_of_nan_is_nan(b: Any, tf: Any) -> None:
    x = np.array([[1.5, -0.0, np.nan, np.inf, -2.5, 0.0], [1, 2, 3, 4, 5, 6]])
    for dtype in (tf.float16, tf.float32, tf.float64):
        result = b.quantile(tf.constant(x, dtype), 0.25).numpy()
        assert np.isnan(result[0]) and result[1] == pytest.approx(2.25)
    with pytest.raises(bk.AxisError, match=r"^quantile: "):
        b.quantile(tf.constant(2.5), 0.5)
    with pytest.raises(ValueError, match=r"^quantile: "):
        b.quantile(tf.zeros((2, 0)), 0.5)
    with pytest.raises(bk.ArgumentTypeError, match=r"^quantile: "):
        b.quantile(tf.constant([1 + 1j, 2]), 0.5)


def test_integer_power_with_negative_exponent_raises(b: Any, tf: Any) -> None:
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(tf.constant([2, 3], tf.int32), -1)
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(tf.constant([2, 3], tf.int32), tf.constant([-1, 2], tf.int32))
    np.testing.assert_array_equal(b.pow(tf.constant([3], tf.int8), 7).numpy(), [-117])  # wraps as NumPy


def test_flip_takes_an_int_a_sequence_or_none(b: Any, tf: Any) -> None:
    x = tf.reshape(tf.range(6), (2, 3))
    np.testing.assert_array_equal(b.flip(x, 1).numpy(), np.flip(x.numpy(), 1))
    np.testing.assert_array_equal(b.flip(x, [0, -1]).numpy(), np.flip(x.numpy(), (0, 1)))
    np.testing.assert_array_equal(b.flip(x, None).numpy(), np.flip(x.numpy()))
    with pytest.raises(bk.AxisError, match=r"^flip: "):
        b.flip(x, 2)


def test_gather_refuses_boolean_indices(b: Any, tf: Any) -> None:
    with pytest.raises(bk.ArgumentTypeError, match=r"^gather: indices must be integers"):
        b.gather(tf.range(3.0), tf.constant([True, False, True]), 0)
    with pytest.raises(bk.ArgumentTypeError, match=r"^gather_1d: indices must be integers"):
        b.gather_1d(tf.range(3.0), tf.constant([True, False, True]))


def test_bincount_and_unravel_index_check_their_values(b: Any, tf: Any) -> None:
    with pytest.raises(ValueError, match=r"^bincount: "):
        b.bincount(tf.constant([0, -1]), None, 3)
    for index in (-1, 6):
        with pytest.raises(ValueError, match=r"^unravel_index: "):
            b.unravel_index(tf.constant([0, index]), (2, 3))
    result = b.unravel_index(tf.constant([0, 5, 4], tf.int32), (2, 3))
    assert result.dtype == tf.int32
    np.testing.assert_array_equal(result.numpy(), np.stack(np.unravel_index([0, 5, 4], (2, 3)), -1))


def test_every_dtype_tiles_repeats_and_sorts(b: Any, tf: Any) -> None:
    for dtype in (tf.bool, tf.int8, tf.uint8, tf.int16, tf.uint16, tf.uint32, tf.uint64, tf.float16, tf.bfloat16, tf.complex64):
        x = tf.cast(tf.constant([[1, 0, 2], [3, 1, 0]]), dtype)
        reference = x.numpy()
        np.testing.assert_array_equal(b.tile(x, (2, 1)).numpy(), np.tile(reference, (2, 1)))
        np.testing.assert_array_equal(b.repeat(x, 2, 1).numpy(), np.repeat(reference, 2, 1))
        np.testing.assert_array_equal(b.tile_to(x, 0, 4).numpy(), np.tile(reference, (2, 1)))
        np.testing.assert_array_equal(b.concat([x, x], 1).numpy(), np.concatenate([reference, reference], 1))
        if not dtype.is_complex:
            np.testing.assert_array_equal(b.sort(x, 1).numpy(), np.sort(reference, 1))
        assert b.pad_to(x, 1, 5, 0).dtype == dtype
    tiled = b.jit_compile(lambda v: b.tile(v, (2,)))(tf.constant([1, 65535], tf.uint16))  # the kernel is missing in graphs too
    np.testing.assert_array_equal(tiled.numpy(), [1, 65535, 1, 65535])


def test_complex_edges_follow_numpy(b: Any, tf: Any) -> None:
    z = tf.constant(np.array([1 + 2j, complex(np.nan, 0), 3], np.complex64))
    w = tf.constant(np.array([2, 5, complex(0, np.nan)], np.complex64))
    assert np.isnan(b.maximum(z, w).numpy()[1:]).all() and np.isnan(b.minimum(z, w).numpy()[1:]).all()
    np.testing.assert_array_equal(
        b.divide_no_nan(tf.constant([3 + 0j, 2 - 2j], tf.complex128), tf.constant(np.array([np.inf, 0], np.complex128))).numpy(),
        [0, 0],
    )
    result = b.log2(tf.constant(np.array([0, 4], np.complex64))).numpy()
    assert result[0] == complex(-np.inf, 0) and result[1] == 2
    assert b.conj(tf.constant([True])).dtype == tf.bool  # real values as they are, as the spec of conj says
