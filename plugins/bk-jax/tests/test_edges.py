"""JAX-specific behaviour at the edges (docs/semantics.md): what bk-jax does beyond what JAX does by itself.

JAX clamps out-of-range gather indices, wraps Python ints into narrow integer types, reports
shape errors as `TypeError` and leaves 64-bit types off by default; bk-jax checks and translates
at its boundary. Inside `jit_compile` and `vectorized_call` values are tracers, where a check of
data cannot raise: those cases are tested for the documented fallback. The conformance of every
operation comes from the testkit (`testkit certify jax`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import bk
from bk import Backend, DType


def _countdown(condition: Any, x: Any) -> tuple[Any, Any]:
    x = x - 1
    return x > 0, x


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize(
    ("max_iter", "start", "expected"),
    [
        ((1, 5), 3, [2, 2]),  # stops after 3 iterations: checkpoint 5 repeats the last recorded entry (1), not the final 0
        ((0, 5), 3, [3, 3]),
        ((2, 3), 3, [1, 0]),
        ((0, 1, 2, 3, 4, 5), 3, [3, 2, 1, 0, 0, 0]),
        ((4, 8), 3, [0, 0]),  # nothing recorded before the stop: the final values
        ((1, 5), 0, [0, 0]),  # false from the start: no iteration runs
    ],
)
def test_while_loop_checkpoints_after_the_stop_repeat_the_last_recorded_entry(
    b: Backend, compiled: bool, max_iter: tuple[int, ...], start: int, expected: list[int]
) -> None:
    def run(condition: Any, x: Any) -> Any:
        return b.while_loop(_countdown, (condition, x), max_iter)

    function = b.jit_compile(run) if compiled else run
    condition, x = function(b.as_tensor(start > 0), b.as_tensor(np.int32(start)))
    assert np.asarray(x).tolist() == expected and np.asarray(x).dtype == np.int32
    assert np.asarray(condition).tolist() == [v > 0 for v in expected]


def test_vectorized_gather_with_negative_indices_counts_from_the_end(b: Backend) -> None:
    values = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    indices = np.array([[0, -1], [-5, 2]])
    expected = [[0.0, 4.0], [5.0, 7.0]]
    assert np.asarray(b.vectorized_call(b.gather_1d, b.as_tensor(values), b.as_tensor(indices))).tolist() == expected
    compiled = b.jit_compile(lambda v, i: b.vectorized_call(b.gather_1d, v, i))
    assert np.asarray(compiled(b.as_tensor(values), b.as_tensor(indices))).tolist() == expected
    assert np.asarray(b.gather(b.as_tensor(values), b.as_tensor(np.array([-1])), 0)).tolist() == [[5.0, 6.0, 7.0, 8.0, 9.0]]


def test_out_of_range_indices_raise_eagerly_and_clamp_or_drop_under_jit(b: Backend) -> None:
    values = b.as_tensor(np.arange(5.0, dtype=np.float32))
    for index in (5, -6):
        with pytest.raises(bk.IndexOutOfRangeError, match="^gather: index"):
            b.gather(values, b.as_tensor(np.array([index])), 0)
        with pytest.raises(bk.IndexOutOfRangeError, match="^scatter"):
            b.scatter_1d_scalar(values, b.as_tensor(np.array([index])), b.as_tensor(np.ones(1, np.float32)), "add")
    # Under jit the indices are tracers: JAX clamps gathers and drops scatters (README, expected-failure table).
    gather = b.jit_compile(lambda v, i: b.gather(v, i, 0))
    assert np.asarray(gather(values, b.as_tensor(np.array([7, -1, -9])))).tolist() == [4.0, 4.0, 0.0]
    scatter = b.jit_compile(lambda v, i: b.scatter_1d_scalar(v, i, b.ones((2,)), "add"))
    assert np.asarray(scatter(values, b.as_tensor(np.array([7, -1])))).tolist() == [0.0, 1.0, 2.0, 3.0, 5.0]


def test_index_vectors_and_segment_starts_are_checked_eagerly_and_left_to_jax_under_jit(b: Backend) -> None:
    """`bk.rules.wrap_indices` and `check_indices` raise for concrete indices; tracers are only wrapped."""
    x = b.as_tensor(np.arange(12.0, dtype=np.float32).reshape(2, 6))
    starts = b.as_tensor(np.array([[0, 2, 4], [1, 3, 5]]))
    segments = b.jit_compile(lambda v, i: b.indexed_segment_sum(v, i, 1))
    expected_sums = [[1.0, 5.0, 9.0], [15.0, 19.0, 11.0]]
    assert np.asarray(b.indexed_segment_sum(x, starts, 1)).tolist() == np.asarray(segments(x, starts)).tolist() == expected_sums
    for bad in (6, -1):  # segment starts lie in [0, n): no counting from the end
        with pytest.raises(bk.IndexOutOfRangeError, match=f"^indexed_segment_sum: segment start {bad} "):
            b.indexed_segment_sum(x, b.as_tensor(np.array([[0, bad]])), 1)
    grid = b.as_tensor(np.arange(12.0, dtype=np.float32).reshape(1, 3, 4, 1))
    indices = b.as_tensor(np.array([[[0, -1], [-3, 2]]]))  # each component counts from the end of its own dimension
    gather_nd = b.jit_compile(b.batched_gather_nd)
    assert np.asarray(b.batched_gather_nd(grid, indices)).tolist() == [[[3.0], [2.0]]]
    assert np.asarray(gather_nd(grid, indices)).tolist() == [[[3.0], [2.0]]]
    ones = b.as_tensor(np.ones((1, 2, 1), np.float32))
    scatter = b.jit_compile(lambda g, i, v: b.scatter(g, i, v, "add"))
    expected_grid = [[0.0, 1.0, 3.0, 4.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert np.asarray(b.scatter(grid, indices, ones, "add"))[0, ..., 0].tolist() == expected_grid
    assert np.asarray(scatter(grid, indices, ones))[0, ..., 0].tolist() == expected_grid
    outside = b.as_tensor(np.array([[[0, 4], [1, 1]]]))
    with pytest.raises(bk.IndexOutOfRangeError, match="^scatter: index 4 "):
        b.scatter(grid, outside, ones, "add")
    with pytest.raises(bk.IndexOutOfRangeError, match="^batched_gather_nd: index 4 "):
        b.batched_gather_nd(grid, outside)
    dropped = np.asarray(scatter(grid, outside, ones))[0, ..., 0]  # under jit JAX drops the update outside
    assert dropped.tolist() == [[0.0, 1.0, 2.0, 3.0], [4.0, 6.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]



def test_index_checks_of_32_bit_indices_leave_x64_off(b: Backend, x64_off: Any) -> None:
    grid = b.as_tensor(np.arange(12.0, dtype=np.float32).reshape(1, 3, 4, 1))
    indices = b.as_tensor(np.array([[[2, -1]]], np.int32))
    assert np.asarray(b.scatter(grid, indices, b.as_tensor(np.ones((1, 1, 1), np.float32)), "add"))[0, 2, 3, 0] == 12.0
    assert np.asarray(b.batched_gather_nd(grid, indices)).tolist() == [[[11.0]]]
    assert np.asarray(b.batch_gather(grid[0], [-1])).shape == (1, 4, 1)
    assert b.numpy(b.sparse_coo_tensor(np.array([[0, 1]], np.int32), np.ones(1, np.float32), (2, 2))).toarray().tolist() == [[0, 1], [0, 0]]
    assert not x64_off.config.jax_enable_x64  # the core builds bounds in the indices' dtype: no int64


def test_python_ints_are_int64_by_the_x64_rule(b: Backend) -> None:
    assert b.as_tensor(3).dtype == jnp.int64 and b.as_tensor([1, 2]).dtype == jnp.int64
    assert jax.config.jax_enable_x64  # switched on by the request for int64 (README: 64-bit types)
    assert b.as_tensor(True).dtype == jnp.bool_ and b.as_tensor(1.5).dtype == jnp.float32


def test_weak_python_ints_do_not_wrap(b: Backend) -> None:
    int8 = b.as_tensor(np.array([100, -100], np.int8))
    with pytest.raises(OverflowError, match="^add: Python integer 300 out of bounds for int8"):
        b.add(int8, 300)
    with pytest.raises(OverflowError, match="^maximum"):
        b.maximum(int8, -300)
    assert np.asarray(b.greater_than(int8, 300)).tolist() == [False, False]  # compared by value, as NumPy 2
    assert np.asarray(b.greater_than(300, int8)).tolist() == [True, True]
    assert np.asarray(b.not_equal(int8, -300)).tolist() == [True, True]
    clipped = b.clip(b.as_tensor(np.array([0, 100, 255], np.uint8)), -5, 200)
    assert clipped.dtype == jnp.uint8 and np.asarray(clipped).tolist() == [0, 100, 200]
    assert b.add(b.as_tensor(np.ones(2, np.float16)), 1j).dtype == jnp.complex64
    where = b.where(b.as_tensor(np.array([True, False])), int8, 300)  # wraps around, as numpy.where
    assert where.dtype == jnp.int8 and np.asarray(where).tolist() == [100, 44]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "jit"])
def test_jax_shape_errors_become_bk_classes_named_after_the_operation(b: Backend, compiled: bool) -> None:
    def wrong(x: Any, y: Any) -> Any:
        return b.add(x, y)

    function = b.jit_compile(wrong) if compiled else wrong
    with pytest.raises(bk.ShapeMismatchError, match="^add: ") as raised:
        function(b.ones((3,)), b.ones((4,)))
    if not compiled:  # the fast path called JAX, whose error stays the cause; tracers take the plan, which refuses first
        assert isinstance(raised.value.__cause__, TypeError)
    with pytest.raises(bk.ShapeMismatchError, match="^concat: "):
        b.concat([b.ones((2, 3)), b.ones((3, 2))], 0)
    with pytest.raises(bk.AxisError, match="^sum: axis 2"):
        b.sum(b.ones((2, 3)), axis=2)
    with pytest.raises(bk.ArgumentTypeError, match="^sum: "):
        b.sum(b.ones((2, 3)), axis="0")
    with pytest.raises(bk.ArgumentTypeError, match="^mean: "):
        b.mean(None)


def test_the_core_maps_kernel_errors_and_keeps_every_supports_answer(b: Backend) -> None:
    wrapped = [name for name in Backend.features() if getattr(getattr(type(b), name, None), "__bk_kernel__", None) is not None]
    assert "gather" in wrapped and "tensordot" in wrapped and "add" in wrapped  # add: bare, behind the plan
    for name in wrapped:  # only the kernels bk-jax defines are wrapped: each is claimed
        assert b.supports(name), name
    assert not b.supports("csc_matrix_batched") and getattr(type(b).csc_matrix_batched, "__bk_kernel__", None) is None
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: axis 1 of a \(3, 4\) and axis 0 of b \(5, 6\)") as raised:
        b.tensordot(b.ones((3, 4)), (1,), b.ones((5, 6)), (0,))
    assert raised.value.__cause__ is None  # the plan refused the call before JAX ran


def test_reductions_widen_and_keep_complex_arithmetic(b: Backend) -> None:
    assert b.sum(b.as_tensor(np.array([100, 100], np.int8))).dtype == jnp.int64
    assert b.cumsum(b.as_tensor(np.array([200, 200], np.uint8)), 0).dtype == jnp.uint64
    assert b.prod(b.as_tensor(np.array([True, False]))).dtype == jnp.int64
    assert bool(b.any(b.as_tensor(np.array([1j], np.complex64))))  # JAX alone looks at the real part
    assert b.argmax(b.as_tensor(np.array([1.0, np.nan, np.nan], np.float32)), None).dtype == jnp.int64
    with pytest.raises(ValueError, match="^argmax: "):
        b.argmax(b.zeros((0,)), 0)
    assert b.dtype(b.unique(b.as_tensor(np.array([3, 1, 3])), True, False, None)[1]) == DType(int, 64)


def test_sparse_constructors_check_their_indices(b: Backend) -> None:
    values = np.ones(2, np.float32)
    for indices in ([[0, 0], [2, 1]], [[0, 0], [-1, 1]]):  # JAX builds these, and SciPy would fail or read out of bounds later
        with pytest.raises(bk.IndexOutOfRangeError, match="^sparse_coo_tensor: index"):
            b.sparse_coo_tensor(np.array(indices), values, (2, 2))
    with pytest.raises(bk.IndexOutOfRangeError, match="^csr_matrix: index 5"):
        b.csr_matrix(np.array([0, 5]), np.array([0, 1, 2]), values, (2, 2))
    with pytest.raises(bk.IndexOutOfRangeError, match="^csr_matrix: pointer 3"):
        b.csr_matrix(np.array([0, 1]), np.array([0, 1, 3]), values, (2, 2))
    assert b.numpy(b.csr_matrix(np.array([0, 1]), np.array([0, 1, 2]), values, (2, 2))).toarray().tolist() == [[1, 0], [0, 1]]


def test_integer_floordiv_by_zero_is_zero_as_numpy(b: Backend) -> None:
    result = b.floordiv(b.as_tensor(np.array([3, -3, 7], np.int32)), b.as_tensor(np.array([0, 2, 0], np.int32)))
    assert result.dtype == jnp.int32 and np.asarray(result).tolist() == [0, -2, 0]  # JAX alone gives -2 for 3 // 0


# ---------------------------------------------------------------- NumPy's rules where JAX differs (R1-R11 of the differential run)


def _t(b: Backend, values: Any, dtype: str) -> Any:
    return b.as_tensor(np.asarray(values).astype(dtype))


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("and_", ("float32", "float32")),
        ("or_", ("float32", 1)),
        ("xor", ("complex64", "complex64")),
        ("shift_bits_left", ("float32", 1)),
        ("shift_bits_right", ("float64", "float64")),
        ("invert", ("float32",)),
        ("floordiv", ("complex64", 1)),
        ("mod", ("complex64", "complex64")),
        ("floor", ("complex64",)),
        ("ceil", ("complex128",)),
        ("quantile", ("complex64", 0.5)),
    ],
)
def test_dtypes_an_operation_does_not_take_raise_argument_type_error(b: Backend, op: str, args: tuple[Any, ...]) -> None:
    values = [_t(b, [1.5, 2.0], a) if isinstance(a, str) else a for a in args]
    with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: "):
        getattr(b, op)(*values)


def test_sign_of_unsigned_ints_is_zero_or_one(b: Backend) -> None:
    assert np.asarray(b.sign(_t(b, [0, 7, 255], "uint8"))).tolist() == [0, 1, 1]


def test_conj_of_bools_stays_bool_as_the_spec_says(b: Backend) -> None:
    result = b.conj(b.as_tensor(np.array([True, False])))
    assert result.dtype == jnp.bool_ and np.asarray(result).tolist() == [True, False]


def test_round_of_complex_values_rounds_both_parts(b: Backend) -> None:
    values = np.array([1.5 - 2.5j, -0.4 + 3.6j], np.complex64)
    assert np.asarray(b.round(b.as_tensor(values))).tolist() == np.round(values).tolist()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
def test_shifts_by_counts_outside_the_bits_follow_numpy(b: Backend, dtype: str) -> None:
    bits = np.iinfo(dtype).bits
    x = np.array([-5 if dtype[0] == "i" else 5, 3, 1, 7, 9]).astype(dtype)
    counts = np.array([bits, bits + 3, -1, 1, 0]).astype(dtype)
    with np.errstate(all="ignore"):
        for op, ufunc in (("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)):
            result = getattr(b, op)(b.as_tensor(x), b.as_tensor(counts))
            assert result.dtype == np.dtype(dtype) and np.asarray(result).tolist() == ufunc(x, counts).tolist()


@pytest.mark.parametrize("op", ["shift_bits_left", "shift_bits_right", "floordiv", "mod", "pow"])
def test_bool_with_bool_computes_as_int8(b: Backend, op: str) -> None:
    x = b.as_tensor(np.array([True, False, True, False]))
    y = b.as_tensor(np.array([True, True, False, False]))
    expected = getattr(np, {"shift_bits_left": "left_shift", "shift_bits_right": "right_shift", "floordiv": "floor_divide", "mod": "mod", "pow": "power"}[op])
    with np.errstate(all="ignore"):
        reference = expected(np.asarray(x), np.asarray(y))
    result = getattr(b, op)(x, y)
    assert result.dtype == np.int8 == reference.dtype and np.asarray(result).tolist() == reference.tolist()


def test_integer_mod_by_zero_is_zero_as_numpy(b: Backend) -> None:
    result = b.mod(_t(b, [3, -3, 7], "int16"), _t(b, [0, 2, 0], "int16"))
    assert result.dtype == jnp.int16 and np.asarray(result).tolist() == [0, 1, 0]


def test_clip_keeps_the_dtype_for_float_bounds_and_bools(b: Backend) -> None:
    result = b.clip(_t(b, [-128, 5], "int8"), -1.5, 2.5)
    assert result.dtype == jnp.int8 and np.asarray(result).tolist() == [-1, 2]
    assert b.clip(_t(b, [True, False], "bool"), 0, 1).dtype == jnp.bool_


def test_comparisons_with_ints_outside_the_range_compare_values(b: Backend) -> None:
    assert np.asarray(b.equal(_t(b, [1, -1], "int8"), 300)).tolist() == [False, False]
    assert np.asarray(b.greater_than(_t(b, [0, 255], "uint8"), -1)).tolist() == [True, True]
    assert np.asarray(b.greater_or_equal(-1, _t(b, [0, 255], "uint8"))).tolist() == [False, False]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_quantile_of_values_with_nan_is_nan(b: Backend, dtype: str) -> None:
    x = b.cast(b.as_tensor(np.array([1.0, np.nan, 3.0], np.float32)), bk.DType(float, 16 if "16" in dtype else int(dtype[-2:])))
    if dtype == "bfloat16":
        x = x.astype(jnp.bfloat16)
    assert np.isnan(float(b.quantile(x, 0.5)))
    with pytest.raises(ValueError, match="^quantile: "):
        b.quantile(b.as_tensor(np.zeros((2, 0), np.float32)), 0.5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_integer_powers_wrap_as_numpy(b: Backend, dtype: str) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    base = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    exp = rng.integers(0, info.max, 40, dtype=dtype, endpoint=True)
    exp[:5] = [0, 1, 2, 63, 64]  # JAX's own integer power stops after 6 bits of the exponent
    with np.errstate(all="ignore"):
        expected = np.power(base, exp)
    assert np.asarray(b.pow(b.as_tensor(base), b.as_tensor(exp))).tolist() == expected.tolist()
    compiled = b.jit_compile(b.pow)
    assert np.asarray(compiled(b.as_tensor(base), b.as_tensor(exp))).tolist() == expected.tolist()


def test_integer_to_negative_integer_power_raises_value_error(b: Backend) -> None:
    with pytest.raises(ValueError, match="^pow: .*negative integer powers"):
        b.pow(_t(b, [2, 3], "int32"), -1)
    with pytest.raises(ValueError, match="^pow: .*negative integer powers"):
        b.pow(_t(b, [2, 3], "int32"), _t(b, [-1, 2], "int32"))


def test_flip_takes_an_int_axis(b: Backend) -> None:
    x = b.as_tensor(np.arange(6).reshape(2, 3))
    assert np.asarray(b.flip(x, 1)).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert np.asarray(b.flip(x, [0])).tolist() == [[3, 4, 5], [0, 1, 2]]
    with pytest.raises(bk.AxisError, match="^flip: "):
        b.flip(x, 2)


def test_gather_with_bool_indices_raises_argument_type_error(b: Backend) -> None:
    for op, args in (("gather", (0,)), ("gather_1d", ())):
        with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: indices must be integers"):
            getattr(b, op)(_t(b, [1.0, 2.0], "float32"), b.as_tensor(np.array([True, False])), *args)


def test_bincount_and_unravel_index_refuse_values_outside_their_range(b: Backend) -> None:
    with pytest.raises(ValueError, match="^bincount: "):
        b.bincount(_t(b, [-1, 2], "int32"), None, 4)
    with pytest.raises(ValueError, match="^unravel_index: "):
        b.unravel_index(_t(b, [6], "int32"), (2, 3))


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "int16", "bool", "float16", "bfloat16", "complex64"])
def test_shape_operations_take_every_dtype(b: Backend, dtype: str) -> None:
    x = b.as_tensor(np.array([[1, 0, 3], [2, 1, 0]]).astype(np.float32)).astype(jnp.bfloat16 if dtype == "bfloat16" else dtype)
    assert b.tile(x, (1, 2)).shape == (2, 6) and b.repeat(x, 2, 1).shape == (2, 6)
    assert b.concat([x, x], 0).shape == (4, 3) and b.sort(x, -1).dtype == x.dtype


def test_sort_of_a_0d_tensor_has_no_axis(b: Backend) -> None:
    for op in ("sort", "argsort"):
        with pytest.raises(bk.AxisError, match=f"^{op}: "):
            getattr(b, op)(b.as_tensor(np.float32(2.5)), 0)


def test_complex_nan_propagates_through_maximum_max_and_argmax(b: Backend) -> None:
    values = np.array([[1 + 1j, np.nan, 3], [2, 5j, complex(1, np.nan)], [0, 0, 0]], np.complex64)
    x = b.as_tensor(values)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            for op in ("max", "min"):
                result, expected = np.asarray(getattr(b, op)(x, axis, keepdims)), getattr(np, op)(values, axis, keepdims=keepdims)
                assert result.shape == expected.shape and np.array_equal(np.isnan(result), np.isnan(expected))
                assert np.allclose(result, expected, equal_nan=True)
    for axis in (None, 0, 1):
        assert np.asarray(b.argmax(x, axis)).tolist() == np.argmax(values, axis).tolist()
        assert np.asarray(b.argmin(x, axis)).tolist() == np.argmin(values, axis).tolist()
    y = np.array([np.nan, 1 + 1j, 3, 2j], np.complex64)
    z = np.array([0, np.nan, 1, 1j], np.complex64)
    assert np.allclose(np.asarray(b.maximum(b.as_tensor(y), b.as_tensor(z))), np.maximum(y, z), equal_nan=True)
    assert np.allclose(np.asarray(b.minimum(b.as_tensor(y), b.as_tensor(z))), np.minimum(y, z), equal_nan=True)
    assert np.allclose(np.asarray(b.clip(b.as_tensor(y), -1, 2)), np.clip(y, -1, 2), equal_nan=True)


def test_pad_of_a_0d_tensor_returns_it(b: Backend) -> None:
    for mode in ("constant", "periodic", "reflect", "symmetric", "boundary"):
        assert float(b.pad(b.as_tensor(np.float32(2.5)), [], mode)) == 2.5
