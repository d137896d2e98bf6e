"""The semantics autoray.lazy users rely on: simplification, trees, NumPy scalars, unbound graphs,
callables, constant folding in place, matmul, and the argument checks of `Function`."""

from __future__ import annotations

from typing import Any

import bk_lazy
import numpy as np
import pytest

import bk
from bk import DType

F16, F32, F64, I32 = DType(float, 16), DType(float, 32), DType(float, 64), DType(int, 32)


@pytest.fixture(scope="module")
def lazy() -> bk.Backend:
    return bk.backend("lazy")


# ---------------------------------------------------------------- simplification while building


def test_inverse_transposes_give_back_the_input(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2, 3, 4), "float32", name="x")
    t = lazy.transpose(x, (1, 2, 0))
    assert t.fn_name == "transpose" and t.shape == (3, 4, 2)
    assert lazy.transpose(t, (2, 0, 1)) is x  # the permutations compose to the identity
    assert x.T.T is x
    twice = lazy.transpose(t, (1, 0, 2))  # composes into one transpose of x
    assert twice.fn_name == "transpose" and twice.args[0] is x and twice.shape == (4, 3, 2)
    np.testing.assert_array_equal(
        bk_lazy.Function([x], twice)(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
        np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(1, 2, 0).transpose(1, 0, 2),
    )


def test_no_op_transpose_reshape_and_swapaxes_return_the_input(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2, 3), "float64", name="x")
    assert lazy.transpose(x, (0, 1)) is x
    assert lazy.reshape(x, (2, 3)) is x and lazy.reshape(x, (-1, 3)) is x and x.reshape(2, 3) is x
    assert x.swapaxes(0, 0) is x and x.swapaxes(0, 1).swapaxes(1, 0) is x
    flat = lazy.reshape(x, (6,))
    assert lazy.reshape(flat, (2, 3)) is x  # a reshape back to the original shape
    again = lazy.reshape(flat, (3, 2))
    assert again.args[0] is x  # a reshape of a reshape reshapes the original


def test_repeated_casts_collapse(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float32", name="x")
    assert lazy.cast(x, F32) is x
    wide = lazy.cast(x, F64)
    assert lazy.cast(wide, F32) is x  # float32 -> float64 keeps every value
    narrow = lazy.cast(wide, F16)
    assert narrow.fn_name == "cast" and narrow.args[0] is x and narrow.dtype == F16
    y = bk_lazy.Variable((3,), "float64", name="y")
    lossy = lazy.cast(lazy.cast(y, I32), F64)  # float64 -> int32 truncates: both casts stay
    assert lossy.args[0].fn_name == "cast"
    np.testing.assert_array_equal(bk_lazy.Function([y], lossy)(np.array([1.5, -2.5, 3.0])), [1.0, -2.0, 3.0])
    small = bk_lazy.Variable((3,), "int8", name="small")
    assert lazy.cast(lazy.cast(small, I32), F64).args[0] is small  # int8 -> int32 keeps every value
    big = bk_lazy.Variable((3,), "int64", name="big")
    kept = lazy.cast(lazy.cast(big, F64), DType(int, 64))  # int64 -> float64 rounds large values
    assert kept.args[0].fn_name == "cast"
    assert bk_lazy.Function([big], kept)(np.array([2**53 + 1, 0, -1]))[0] == 2**53


# ---------------------------------------------------------------- Function: trees and checks


def test_function_is_called_with_the_tree_of_its_inputs(lazy: bk.Backend) -> None:
    a = bk_lazy.Variable((2,), "float64", name="a")
    b = bk_lazy.Variable((2,), "float64", name="b")
    c = bk_lazy.Variable((), "float64", name="c")
    f = bk_lazy.Function({"a": a, "rest": [b, (c,)]}, {"out": (a + b) * c})
    one, two = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(f({"a": one, "rest": [two, (np.float64(2.0),)]})["out"], [8.0, 12.0])
    g = bk_lazy.Function({"a": a, "b": b}, a - b)
    np.testing.assert_array_equal(g(a=one, b=two), [-2.0, -2.0])
    np.testing.assert_array_equal(g({"b": two, "a": one}), [-2.0, -2.0])
    with pytest.raises(TypeError, match=r"inputs\['rest'\] must be a sequence of 2"):
        f({"a": one, "rest": [two]})
    with pytest.raises(TypeError, match="keys"):
        g({"a": one})
    h = bk_lazy.Function((a, b), a * b)
    np.testing.assert_array_equal(h(one, two), h((one, two)))


def test_function_checks_shapes_and_dtypes_of_its_arguments(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((4, 3), "float32", name="x")
    f = bk_lazy.Function([x], lazy.sum(x, axis=1))
    assert f(np.ones((4, 3), np.float32)).shape == (4,)
    with pytest.raises(bk.ShapeMismatchError, match=r"'x' must have shape \(4, 3\).*got \(5, 7\)"):
        f(np.ones((5, 7), np.float32))
    with pytest.raises(bk.ShapeMismatchError, match="'x'"):
        f(np.ones((4,), np.float32))
    with pytest.raises(TypeError, match="'x' must have dtype float32.*float64"):
        f(np.ones((4, 3)))
    with pytest.raises(bk.ShapeMismatchError, match="'x'"):
        f(bk_lazy.Variable((4, 4), "float32"))  # lazy arguments are checked too
    free = bk_lazy.Variable((None, 3), "float32", name="rows")
    g = bk_lazy.Function([free], free * 2.0)
    assert g(np.ones((7, 3), np.float32)).shape == (7, 3)  # an unknown size accepts any size
    with pytest.raises(bk.ShapeMismatchError, match="'rows'"):
        g(np.ones((7, 4), np.float32))
    middle = bk_lazy.Variable((2, None, 3), "float32", name="middle")
    h = bk_lazy.Function([middle], middle + 1.0)
    assert h(np.ones((2, 9, 3), np.float32)).shape == (2, 9, 3)
    for wrong in ((2, 9, 4), (1, 9, 3), (2, 9)):
        with pytest.raises(bk.ShapeMismatchError, match="'middle'"):
            h(np.ones(wrong, np.float32))
    scalar = bk_lazy.Variable((), "float64", name="s")
    assert bk_lazy.Function([scalar], scalar + 1.0)(2.0) == 3.0  # a Python number fits a 0-d variable
    with pytest.raises(TypeError, match="'s'"):
        bk_lazy.Function([scalar], scalar + 1.0)(np.float32(2.0))


# ---------------------------------------------------------------- NumPy scalars and ufuncs stay lazy


def test_numpy_scalars_and_ufuncs_make_nodes(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float32", name="x")
    before = lazy.compute_count()
    y = np.float64(2.0) * x
    assert isinstance(y, bk_lazy.LazyArray) and y.fn_name == "mul"
    assert y.dtype == F64  # NumPy 2: NumPy scalars are strongly typed
    assert (np.float32(1.0) + x).dtype == F32
    assert isinstance(np.exp(x), bk_lazy.LazyArray) and np.exp(x).fn_name == "exp"
    assert (np.float32(1.0) < x).fn_name == "greater_than"
    assert isinstance(np.ones(3, np.float32) - x, bk_lazy.LazyArray)
    assert lazy.compute_count() == before  # nothing computed
    np.testing.assert_allclose(bk_lazy.Function([x], y)(np.ones(3, np.float32)), [2.0, 2.0, 2.0], rtol=0, atol=0)


def test_numpy_integers_as_axes_shapes_and_counts(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((4, 6), "float32", name="x")
    assert lazy.reshape(x, (np.int64(3), -1)).shape == (3, 8)
    assert lazy.sum(x, axis=np.int64(0)).shape == (6,)
    assert lazy.expand_dims(x, np.int32(1), number=np.int64(2)).shape == (4, 1, 1, 6)
    assert lazy.add(x, np.float64(1.0)).dtype == F64  # a NumPy scalar as a tensor argument is strong


# ---------------------------------------------------------------- unbound graphs are not computed


def test_numpy_of_an_unbound_graph_raises_type_error_naming_the_variable(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float32", name="speed")
    y = lazy.exp(lazy.as_tensor(np.ones(3, np.float32))) + x
    before = lazy.compute_count()
    with pytest.raises(TypeError, match="speed"):
        lazy.numpy(y)
    with pytest.raises(TypeError, match="speed"):
        np.asarray(y)
    with pytest.raises(TypeError, match="speed"):
        float(lazy.sum(y))
    with pytest.raises(bk_lazy.UnboundVariableError, match="speed"):
        bk_lazy.compute({"y": y})
    assert lazy.compute_count() == before


# ---------------------------------------------------------------- a node for a Python callable


def test_call_node_with_a_declared_result(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((4,), "float64", name="x")
    calls: list[Any] = []

    def cumulative_max(values: Any, *, start: float) -> Any:
        calls.append(values)
        return np.maximum.accumulate(np.maximum(values, start))

    node = bk_lazy.call(cumulative_max, x * 2.0, shape=(4,), dtype="float64", kwargs={"start": 0.0})
    assert (node.fn_name, node.shape, node.dtype) == ("call", (4,), F64) and not calls
    f = bk_lazy.Function([x], lazy.sum(node, axis=0))
    assert f(np.array([1.0, -3.0, 2.0, 0.5])) == pytest.approx(2.0 + 2.0 + 4.0 + 4.0)
    assert len(calls) == 1
    low, high = bk_lazy.call(lambda v: (v - 1, v + 1), x, shape=[(4,), (4,)], dtype=["float64", "float64"])
    np.testing.assert_array_equal(bk_lazy.Function([x], high - low)(np.zeros(4)), [2.0, 2.0, 2.0, 2.0])
    with pytest.raises(TypeError, match="callable"):
        bk_lazy.call(3, x, shape=(4,), dtype="float64")
    params: dict[str, Any] = {}
    source = bk_lazy.get_source(bk_lazy.call(cumulative_max, x, shape=(4,), dtype="float64", kwargs={"start": 1.0}), params)
    assert "f_cumulative_max(x, start=1.0)" in source and params["f_cumulative_max"] is cumulative_max


# ---------------------------------------------------------------- constants folded in place


def test_compute_constants_in_place(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float64", name="x")
    weights = lazy.exp(lazy.as_tensor(np.array([0.0, 1.0, 2.0])))
    scaled = weights / lazy.sum(weights, axis=0)
    y = lazy.sin(x) * scaled
    before = lazy.compute_count()
    bk_lazy.compute_constants(y)
    assert lazy.compute_count() == before + 1
    assert scaled.is_leaf and not scaled.is_variable and isinstance(scaled.data, np.ndarray)
    assert y.fn_name == "mul" and y.deps[0].fn_name == "sin"  # the part that needs x stays a graph
    expected = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    np.testing.assert_allclose(scaled.data, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bk_lazy.Function([x], y)(np.ones(3)), np.sin(1.0) * expected, rtol=1e-12, atol=1e-12)
    assert y.history_fn_frequencies() == {"Variable": 1, "sin": 1, "array": 1, "mul": 1}


# ---------------------------------------------------------------- matmul


def test_matmul_is_its_own_node_with_numpys_shape_rules(lazy: bk.Backend) -> None:
    a = bk_lazy.Variable((2, 3), "float32", name="a")
    v = bk_lazy.Variable((3,), "float32", name="v")
    assert (a @ v).fn_name == "matmul" and (a @ v).shape == (2,)
    assert (v @ bk_lazy.Variable((3, 4), "float32")).shape == (4,)
    assert (v @ v).shape == ()
    assert (bk_lazy.Variable((5, 1, 2, 3), "float64") @ bk_lazy.Variable((4, 3, 6), "float32")).shape == (5, 4, 2, 6)
    assert (a @ bk_lazy.Variable((3, 4), "float64")).dtype == F64
    with pytest.raises(bk.ShapeMismatchError, match="matmul"):
        bk_lazy.Variable((3,), "float32") @ bk_lazy.Variable((1,), "float32")
    with pytest.raises(bk.ShapeMismatchError, match="matmul"):
        a @ bk_lazy.Variable((2, 3), "float32")
    with pytest.raises(bk.ShapeMismatchError, match="matmul"):
        bk_lazy.Variable((2, 2, 3), "float32") @ bk_lazy.Variable((3, 3, 1), "float32")  # batch 2 vs 3
    f = bk_lazy.Function([a, v], a @ v)
    assert "matmul(" in f.source and "einsum" not in f.source
    data, vector = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(f(data, vector), data @ vector, rtol=1e-6, atol=1e-6)
