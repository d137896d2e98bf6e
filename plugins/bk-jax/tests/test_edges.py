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
    assert isinstance(raised.value.__cause__, TypeError)  # JAX's own error stays the cause
    with pytest.raises(bk.ShapeMismatchError, match="^concat: "):
        b.concat([b.ones((2, 3)), b.ones((3, 2))], 0)
    with pytest.raises(bk.AxisError, match="^sum: axis 2"):
        b.sum(b.ones((2, 3)), axis=2)
    with pytest.raises(bk.ArgumentTypeError, match="^sum: "):
        b.sum(b.ones((2, 3)), axis="0")
    with pytest.raises(bk.ArgumentTypeError, match="^mean: "):
        b.mean(None)


def test_translation_keeps_every_supports_answer(b: Backend) -> None:
    translated = [name for name in Backend.features() if getattr(getattr(type(b), name, None), "__bk_translated__", False)]
    assert "gather" in translated and "gather_1d" in translated and "add" not in translated
    for name in translated:  # an inherited generic is wrapped only where it was supported before
        assert b.supports(name), name
    assert not b.supports("csc_matrix_batched") and not getattr(type(b).csc_matrix_batched, "__bk_translated__", False)


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
