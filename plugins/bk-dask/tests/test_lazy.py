"""Laziness without a cluster: operations build graphs, only `numpy()` and the declared operations
compute, sizes that depend on data are `None`, chunks are kept, and graphs are as small as dask's own."""

from __future__ import annotations

import inspect
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest

import bk


@pytest.fixture
def x(b: bk.Backend) -> da.Array:
    return da.from_array(np.linspace(-1, 1, 40).reshape(8, 5), chunks=(2, 5))


def test_operations_compute_nothing_and_numpy_computes_once(b: bk.Backend, x: da.Array) -> None:
    values = np.linspace(-1, 1, 40).reshape(8, 5)
    before = b.compute_count()
    y = b.sum(b.sin(x) ** 2 + b.exp(x) * 2.0, axis=1)
    z = b.tensordot(b.cos(x), [1], x, [1])
    assert b.compute_count() == before
    assert not b.is_available(y) and b.is_available(np.ones(2))
    np.testing.assert_allclose(b.numpy(y), np.sum(np.sin(values) ** 2 + np.exp(values) * 2.0, axis=1), atol=1e-12)
    assert b.compute_count() == before + 1
    np.testing.assert_allclose(b.numpy(z), np.cos(values) @ values.T, atol=1e-12)


def test_elementwise_keeps_chunks_and_matches_dask_task_count(b: bk.Backend, x: da.Array) -> None:
    ours = b.sum(b.sin(b.mul(x, x)), axis=0)
    theirs = da.sum(da.sin(x * x), axis=0)
    assert b.sin(x).chunks == x.chunks
    assert len(dict(ours.__dask_graph__())) == len(dict(theirs.__dask_graph__()))
    assert len(dask.optimize(ours)[0].__dask_graph__()) == len(dask.optimize(theirs)[0].__dask_graph__())


def test_data_dependent_sizes_are_none_until_computed(b: bk.Backend, x: da.Array) -> None:
    before = b.compute_count()
    indices = b.nonzero(x > 0.5)
    masked = b.boolean_mask(x, x[:, 0] > 0, axis=0)
    (values, counts) = b.unique(b.round(x), False, True, 0)
    assert b.staticshape(indices) == (None, 2) and b.staticshape(masked) == (None, 5) and b.staticshape(counts) == (None,)
    assert b.staticshape(b.nonzero(x > 0.5, length=7)) == (7, 2)
    assert b.compute_count() == before
    np.testing.assert_array_equal(b.numpy(indices), np.argwhere(x.compute() > 0.5))
    assert b.numpy(masked).shape == (4, 5)
    assert b.numpy(values).ndim == 2


def test_precision_is_bound_into_the_tasks(b: bk.Backend, x: da.Array) -> None:
    with bk.precision(32):
        y = b.exp(x)
    assert b.dtype(y) == bk.DType(float, 32)
    assert b.numpy(y).dtype == np.float32  # computed outside the precision block, still float32


def test_bad_input_raises_at_call_time(b: bk.Backend, x: da.Array) -> None:
    with pytest.raises(bk.ShapeMismatchError, match="add"):
        b.add(x, da.ones(3))
    with pytest.raises(bk.AxisError, match="sum"):
        b.sum(x, axis=2)
    with pytest.raises(ValueError, match="max"):
        b.max(da.ones((0, 3)), axis=0)


def test_seed_gives_reproducible_random_numbers(b: bk.Backend) -> None:
    b.seed(7)
    first = b.numpy(b.random_normal((1000,), bk.DType(float, 64)))
    b.seed(7)
    second = b.numpy(b.random_normal((1000,), bk.DType(float, 64)))
    np.testing.assert_array_equal(first, second)
    assert abs(first.mean()) < 0.2


def test_computing_operations_say_so(b: bk.Backend) -> None:
    assert b.computing_operations == frozenset({"while_loop", "linear_solve", "conjugate_gradient", "conjugate_gradient_adaptive", "bi_conjugate_gradient", "minimize", "allocate_on_device"})
    for name in ("while_loop", "linear_solve", "minimize", "allocate_on_device"):
        assert "Computes" in inspect.getdoc(getattr(b, name))


def test_cg_evaluates_once_per_iteration(b: bk.Backend) -> None:
    rng = np.random.default_rng(0)
    m = rng.normal(size=(20, 20))
    matrix = m @ m.T + 20 * np.eye(20)
    y = rng.normal(size=(2, 20))
    before = b.compute_count()
    result = b.linear_solve("CG", b.as_tensor(matrix), b.as_tensor(y), b.zeros((2, 20), bk.DType(float, 64)), 1e-10, 0.0, 200, None, None)
    iterations = int(np.max(b.numpy(result.iterations)))
    # one evaluation per iteration, one before the loop, one for the messages, one for reading the iterations
    assert b.compute_count() - before == iterations + 3
    np.testing.assert_allclose(b.numpy(result.x), np.linalg.solve(matrix, y.T).T, atol=1e-8)
    assert result.message == [f"converged after {iterations} iterations"] * 2


def test_scipy_sparse_operator_multiplies_every_chunk(b: bk.Backend) -> None:
    import scipy.sparse as sp

    n = 30
    matrix = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n)).tocsr()
    y = np.random.default_rng(0).normal(size=(4, n))
    product = b.mul_matrix_batched_vector(matrix, b.as_tensor(y).rechunk((2, n)))
    assert product.chunks == ((2, 2), (n,))
    np.testing.assert_allclose(b.numpy(product), (matrix @ y.T).T, atol=1e-12)
    result = b.linear_solve("CG", matrix, b.as_tensor(y), b.zeros((4, n), bk.DType(float, 64)), 1e-10, 0.0, 200, None, None)
    np.testing.assert_allclose(b.numpy(result.x), np.linalg.solve(matrix.toarray(), y.T).T, atol=1e-8)


def test_the_testkit_fails_an_operation_that_computes_behind_the_users_back() -> None:
    import bk_testkit
    from bk_dask._backend import DaskBackend

    class Leaky(DaskBackend):
        def sin(self, x: object) -> object:  # evaluates its input: exactly what must not happen
            return self.as_tensor(np.sin(self.numpy(x)))

    with pytest.raises(AssertionError, match="behind the user's back"):
        bk_testkit.check_backend(Leaky(), features="sin", timeout=30)
    bk_testkit.check_backend(DaskBackend(), features="sin", timeout=30)


def test_the_spec_refuses_bad_arguments_before_the_kernel(b: bk.Backend, x: da.Array) -> None:
    """The kernels keep no copy of the spec's rules (issue #21): the core's plan refuses these
    calls with the spec's class, named after the operation, at call time."""
    calls: list[tuple[type[Exception], str, Any]] = [
        (bk.ShapeMismatchError, "reshape", lambda: b.reshape(x, (-1, 3))),
        (bk.AxisError, "transpose", lambda: b.transpose(x, (0,))),
        (ValueError, "expand_dims", lambda: b.expand_dims(x, 0, -1)),
        (ValueError, "stack", lambda: b.stack([])),
        (bk.ShapeMismatchError, "concat", lambda: b.concat([x, da.ones((2, 4))], 0)),
        (ValueError, "random_uniform", lambda: b.random_uniform((2,), 0, 1, bk.DType(bool))),
        (bk.ArgumentTypeError, "copy", lambda: b.copy(None)),
        (ValueError, "pad", lambda: b.pad(x, [(1, 1), (1, 1)], "bogus")),
        (bk.ShapeMismatchError, "tensordot", lambda: b.tensordot(x, [0], x, [0, 1])),
        (bk.ShapeMismatchError, "einsum", lambda: b.einsum("ij,jk->ik", x, x)),
        (ValueError, "grid_sample", lambda: b.grid_sample(da.ones((1, 4, 4, 1)), da.ones((1, 2, 2)), "mirror")),
        (ValueError, "argmin", lambda: b.argmin(da.ones((0, 3)), 0)),
        (bk.ArgumentTypeError, "quantile", lambda: b.quantile("x", 0.5)),
    ]
    for error, op, call in calls:
        with pytest.raises(error, match=f"^{op}:") as raised:
            call()
        assert type(raised.value) is error, (op, raised.value)


def test_einsum_and_tensordot_of_data_dependent_sizes_stay_lazy(b: bk.Backend, x: da.Array) -> None:
    masked = b.boolean_mask(x, x[:, 0] > 0, axis=0)  # (None, 5): the spec cannot check that size
    before = b.compute_count()
    gram = b.einsum("ij,kj->ik", masked, x)
    assert b.staticshape(gram)[1] == 8 and b.compute_count() == before
    values = x.compute()
    kept = values[values[:, 0] > 0]
    np.testing.assert_allclose(b.numpy(gram), kept @ values.T, atol=1e-12)
    np.testing.assert_allclose(b.numpy(b.tensordot(masked, [1], x, [1])), kept @ values.T, atol=1e-12)


def test_one_task_operations_take_inputs_of_data_dependent_sizes(b: bk.Backend, x: da.Array) -> None:
    """`sort(unique(x))`, a search in it, a gather from masked rows: the output sizes that depend on
    the unknown ones are unknown too (found by probing two stand-in sizes), the others stay known,
    nothing computes, and the chunks of the unknown sizes are read by one task, once."""
    values = x.compute()
    before = b.compute_count()
    distinct = b.unique(b.round(x * 3), False, False, None)[0]
    ordered = b.sort(b.mul(distinct, -1.0))
    found = b.searchsorted(b.sort(distinct), da.from_array(np.array([-0.5, 0.5])), "left")
    masked = b.boolean_mask(x, x[:, 0] > 0, axis=0)
    rows = b.batched_gather_1d(masked, b.zeros_like(masked[:, :2]).astype(np.int64) + 4)
    assert b.staticshape(ordered) == (None,) and b.staticshape(found) == (2,) and b.staticshape(rows) == (None, 2)
    assert b.compute_count() == before
    expected = np.unique(np.round(values * 3))
    np.testing.assert_array_equal(b.numpy(ordered), np.sort(-expected))
    np.testing.assert_array_equal(b.numpy(found), np.searchsorted(expected, [-0.5, 0.5]))
    np.testing.assert_array_equal(b.numpy(rows), np.repeat(values[values[:, 0] > 0][:, 4:], 2, axis=1))
    with pytest.raises(ValueError, match="^batched_gather_1d:.*compute_chunk_sizes"):  # sizes that must match: the operation says so
        b.batched_gather_1d(masked, da.from_array(np.zeros((3, 2), np.int64)))


def test_linspace_between_lazy_bounds_computes_nothing(b: bk.Backend) -> None:
    start, stop = b.as_tensor(np.float32(0.5)), b.as_tensor(np.float64(2.0))
    before = b.compute_count()
    with bk.precision(64):
        both, open_ended = b.linspace(start, stop, 4), b.linspace_without_last(-1.0, stop, 3)
    assert b.compute_count() == before and b.staticshape(both) == (4,)
    np.testing.assert_allclose(b.numpy(both), [0.5, 1.0, 1.5, 2.0], atol=1e-15)
    np.testing.assert_allclose(b.numpy(open_ended), [-1.0, 0.0, 1.0], atol=1e-15)


def test_lazy_fill_values_and_random_bounds_compute_nothing(b: bk.Backend, x: da.Array) -> None:
    """A pad's fill and `random_uniform`'s bounds that are dask arrays stay lazy (dask's own `pad`
    and `Generator` calls computed them at call time)."""
    fill, low, high = b.as_tensor(np.asarray(7.0)), b.as_tensor(np.asarray(-2)), b.as_tensor(np.asarray(3))
    before = b.compute_count()
    padded = b.pad(x, [[1, 2], [0, 1]], "constant", fill)
    b.seed(0)
    ints = b.random_uniform((2000,), low, high, bk.DType(int, 32))
    floats = b.random_uniform((2000,), 1.0, b.as_tensor(np.asarray(3.0)), bk.DType(float, 64))
    assert b.compute_count() == before
    np.testing.assert_array_equal(b.numpy(padded), np.pad(x.compute(), [[1, 2], [0, 1]], constant_values=7.0))
    assert set(np.unique(b.numpy(ints)).tolist()) == {-2, -1, 0, 1, 2} and b.dtype(ints) == bk.DType(int, 32)
    values = b.numpy(floats)
    assert values.min() >= 1.0 and values.max() < 3.0 and abs(values.mean() - 2.0) < 0.1
