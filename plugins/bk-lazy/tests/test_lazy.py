"""bk-lazy on NumPy: graphs over variables, compute, Function (folding, CSE, dead nodes), pickling, memory."""

from __future__ import annotations

import gc
import pickle
import tracemalloc
from collections.abc import Iterator
from typing import Any

import bk_lazy
import numpy as np
import pytest

import bk
from bk import DType

F32, F64, I64 = DType(float, 32), DType(float, 64), DType(int, 64)


@pytest.fixture(scope="module")
def lazy() -> bk.Backend:
    return bk.backend("lazy")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts calls of the NumPy backend's `exp`, `sin` and `add`."""
    counts: dict[str, int] = {}
    cls = type(bk.backend("numpy"))
    for name in ("exp", "sin", "add"):
        original = getattr(cls, name)

        def counting(self: Any, *args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            counts[_name] = counts.get(_name, 0) + 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, counting)
    yield counts


# ---------------------------------------------------------------- graphs over variables


def test_variables_infer_shape_and_dtype_without_data(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2, 3), "float32", name="x")
    y = bk_lazy.Variable((3,), F64, name="y")
    z = lazy.sum(lazy.exp(x) * y, axis=-1, keepdims=True)
    assert (lazy.staticshape(z), lazy.dtype(z)) == ((2, 1), F64)
    assert z.fn_name == "sum" and z.depth == 3 and z.deps[0].fn_name == "mul"
    assert lazy.dtype(lazy.greater_than(x, 1)) == DType(bool)
    assert lazy.dtype(x + 1.5) == F32  # Python scalars are weak
    assert lazy.staticshape(lazy.transpose(x, (1, 0))) == (3, 2)
    assert lazy.staticshape(x[:, None, 1:]) == (2, 1, 2)


def test_bad_arguments_raise_when_the_node_is_made(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2, 3), "float32", name="x")
    with pytest.raises(bk.ShapeMismatchError, match="add"):
        lazy.add(x, bk_lazy.Variable((4,), "float32"))
    with pytest.raises(bk.AxisError, match="sum"):
        lazy.sum(x, axis=2)
    with pytest.raises(bk.ArgumentTypeError, match="exp"):
        lazy.exp(None)


def test_sizes_that_depend_on_data_are_none(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((5,), "float32", name="x")
    indices = lazy.nonzero(x)
    assert lazy.staticshape(indices) == (None, 1)
    masked = lazy.boolean_mask(bk_lazy.Variable((4, 2), "float32"), lazy.greater_than(x[:4], 0), 0)
    assert lazy.staticshape(masked) == (None, 2)
    assert lazy.staticshape(lazy.exp(masked)) == (None, 2)  # unknown sizes propagate
    data = np.array([0.0, 2.0, 0.0, 3.0], np.float32)
    assert bk_lazy.Function([x], indices)(np.append(data, np.float32(1.0))).shape == (3, 1)


def test_huge_variables_cost_nothing() -> None:
    lazy = bk.backend("lazy")
    a = bk_lazy.Variable((100_000, 100_000), "float64", name="a")
    y = lazy.mean(lazy.sqrt(lazy.abs(a * 2.0 - 1.0)), axis=0)
    assert lazy.staticshape(y) == (100_000,)
    assert y.history_peak_memory() == 2 * 8 * 100_000 * 100_000  # two intermediates at once


def test_compute_on_numpy_matches_eager(lazy: bk.Backend) -> None:
    data = np.linspace(-1, 1, 6).reshape(2, 3)
    x = lazy.as_tensor(data)
    y = lazy.max(lazy.tanh(x) * 3 - x, axis=1)
    values = bk_lazy.compute(y)
    assert isinstance(values, np.ndarray)
    np.testing.assert_allclose(values, np.max(np.tanh(data) * 3 - data, axis=1), rtol=1e-12, atol=1e-12)
    assert bk_lazy.compute({"a": (y, x)})["a"][1] is data


def test_compute_evaluates_each_node_once(lazy: bk.Backend, calls: dict[str, int]) -> None:
    x = lazy.as_tensor(np.ones(3))
    e = lazy.exp(x)
    nodes = [e + e, lazy.sin(e), e]
    calls.clear()  # building ran templates (shape inference) on stand-ins
    bk_lazy.compute(nodes)
    assert calls == {"exp": 1, "add": 1, "sin": 1}


def test_unbound_variable_is_named(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float32", name="speed")
    y = lazy.exp(x) + 1
    with pytest.raises(bk_lazy.UnboundVariableError, match="speed"):
        bk_lazy.compute(y)
    with pytest.raises(bk_lazy.UnboundVariableError, match="speed"):
        bk_lazy.Function([], y)
    with pytest.raises(bk_lazy.UnboundVariableError, match="speed"):
        lazy.numpy(y)


def test_ascend_and_descend(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2,), "float32", name="x")
    a = lazy.exp(x)
    b = lazy.sin(lazy.cos(x))
    c = a + b
    up = list(bk_lazy.ascend(c))
    assert len(up) == 5 and up[-1] is c and up[0] is x
    position = {id(n): i for i, n in enumerate(up)}  # by identity: == of nodes is elementwise
    assert all(position[id(d)] < position[id(n)] for n in up for d in n.deps)
    down = list(bk_lazy.descend(c))
    assert down[0] is c and set(map(id, down)) == set(map(id, up))


def test_shared_intermediates(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2,), "float32", name="x")
    with bk_lazy.shared_intermediates() as cache:
        assert lazy.exp(x) is lazy.exp(x)
        assert lazy.add(x, 1) is lazy.add(x, 1)
        assert lazy.add(x, 1) is not lazy.add(x, 2)
    assert lazy.exp(x) is not lazy.exp(x)
    with bk_lazy.shared_intermediates(cache):
        assert lazy.add(x, 1) is cache[next(k for k in cache if k[0] == "add" and k[1][2] == (int, 1))]


def test_get_source_runs(lazy: bk.Backend) -> None:
    data = np.arange(3.0)
    x = lazy.as_tensor(data)
    y = lazy.sum(lazy.exp(x) * 2.0, axis=0)
    params: dict[str, Any] = {}
    source = bk_lazy.get_source(y, params)
    assert "b.exp(c0)" in source and "b.sum(" in source
    namespace = {**params, "b": bk.backend("numpy")}
    exec(source, namespace)
    np.testing.assert_allclose(namespace["result"], np.sum(np.exp(data) * 2.0), rtol=1e-12, atol=1e-12)


def test_history_statistics(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((10, 4), "float32", name="x")
    y = lazy.sum(lazy.exp(x) + lazy.exp(x), axis=0)
    assert y.history_fn_frequencies() == {"Variable": 1, "exp": 2, "add": 1, "sum": 1}
    assert y.history_num_nodes() == 5
    assert y.history_max_size() == 40
    assert y.history_peak_memory() == 3 * 40 * 4  # two exps and their sum
    assert y.history_stats("sizeout")["exp"] == 80


def test_random_nodes_are_one_value(lazy: bk.Backend) -> None:
    r = lazy.random_normal((50,), None)
    np.testing.assert_array_equal(lazy.numpy(r), lazy.numpy(r))


def test_choose_backend_picks_lazy_next_to_numpy_and_numbers(lazy: bk.Backend) -> None:
    x = lazy.as_tensor(np.ones(2))
    assert bk.choose_backend(x, np.ones(2), 1.5) is lazy
    assert bk.choose_backend(np.ones(2), x) is lazy


def test_compute_counts(lazy: bk.Backend) -> None:
    x = lazy.as_tensor(np.ones(2))
    before = lazy.compute_count()
    y = lazy.exp(x) * 2
    assert lazy.compute_count() == before
    lazy.numpy(y)
    assert lazy.compute_count() == before + 1


# ---------------------------------------------------------------- Function


def test_function_folds_constants_once(lazy: bk.Backend, calls: dict[str, int]) -> None:
    x = bk_lazy.Variable((3,), "float64", name="x")
    constant = lazy.exp(lazy.as_tensor(np.array([0.0, 1.0, 2.0])))
    y = lazy.sin(x) * constant
    calls.clear()
    f = bk_lazy.Function([x], y)
    assert calls.get("exp") == 1  # at compile time
    for _ in range(3):
        np.testing.assert_allclose(f(np.ones(3)), np.sin(1.0) * np.exp([0.0, 1.0, 2.0]), rtol=1e-12, atol=1e-12)
    assert calls["exp"] == 1 and calls["sin"] == 3
    unfolded = bk_lazy.Function([x], y, fold_constants=False)
    for _ in range(3):
        unfolded(np.ones(3))
    assert calls["exp"] == 4


def test_function_merges_common_subexpressions_and_drops_dead_nodes(lazy: bk.Backend, calls: dict[str, int]) -> None:
    x = bk_lazy.Variable((3,), "float64", name="x")
    unused = lazy.exp(x)
    y = lazy.sin(x) + lazy.sin(x)
    calls.clear()
    f = bk_lazy.Function([x], y)
    assert f.source.count("sin(") == 1 and "exp" not in f.source
    np.testing.assert_allclose(f(np.full(3, 0.5)), 2 * np.sin(np.full(3, 0.5)), rtol=1e-12, atol=1e-12)
    assert calls == {"sin": 1, "add": 1}
    del unused


def test_function_outputs_keep_their_structure(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((2,), "float32", name="x")
    y = bk_lazy.Variable((2,), "float32", name="y")
    f = bk_lazy.Function([x, y], {"sum": x + y, "parts": (x, lazy.exp(y))})
    out = f(np.ones(2, np.float32), np.zeros(2, np.float32))
    np.testing.assert_array_equal(out["sum"], [1, 1])
    np.testing.assert_array_equal(out["parts"][1], [1, 1])
    assert "x: float32 (2,)" in repr(f) and "3 output(s)" in repr(f)


def test_function_pickles(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float64", name="x")
    f = bk_lazy.Function([x], lazy.sum(lazy.exp(x) * lazy.as_tensor(np.array([1.0, 2.0, 3.0])), axis=0))
    g = pickle.loads(pickle.dumps(f))
    data = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(g(data), f(data), rtol=1e-15, atol=1e-15)
    assert g.source == f.source


def test_function_on_lazy_arguments_builds_a_graph(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3,), "float64", name="x")
    f = bk_lazy.Function([x], lazy.exp(x) + 1)
    node = f(bk_lazy.Variable((3,), "float64", name="z"))
    assert isinstance(node, bk_lazy.LazyArray) and node.fn_name == "add"


# ---------------------------------------------------------------- memory


def test_compute_releases_intermediates() -> None:
    lazy = bk.backend("lazy")
    data = np.ones(1_000_000)  # 8 MB
    x = lazy.as_tensor(data)
    y = x
    for i in range(30):
        y = lazy.sin(y) if i % 2 else y * 1.0001
    predicted = y.history_peak_memory()
    gc.collect()
    tracemalloc.start()
    try:
        bk_lazy.compute(y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 3 * data.nbytes  # 30 intermediates would be 240 MB
    assert abs(peak - predicted) <= 0.1 * predicted


def test_large_functions_are_interpreted_with_the_same_results(lazy: bk.Backend) -> None:
    from bk_lazy._function import CODEGEN_LIMIT

    x = bk_lazy.Variable((4,), "float64", name="x")
    y = x
    for i in range(CODEGEN_LIMIT + 10):
        y = lazy.sin(y) if i % 2 else lazy.add(y, 0.5)
    stacked = lazy.stack([y, x], axis=0)  # nodes inside a list argument
    f = bk_lazy.Function([x], (stacked, lazy.sum(y, axis=0)))
    data = np.linspace(0, 1, 4)
    expected = data
    for i in range(CODEGEN_LIMIT + 10):
        expected = np.sin(expected) if i % 2 else expected + 0.5
    got_stacked, got_sum = f(data)
    np.testing.assert_allclose(got_stacked, np.stack([expected, data]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_sum, expected.sum(), rtol=1e-12, atol=1e-12)
    assert "x2 = sin(x1)" in f.source  # written on request


def test_function_with_several_results_and_precision(lazy: bk.Backend) -> None:
    x = bk_lazy.Variable((3, 3), "float64", name="x")
    u, s, vh = lazy.svd(x, full_matrices=False)
    with bk.precision(32):
        low = lazy.exp(s)  # made under precision(32): computed in float32 wherever it runs
    assert lazy.dtype(low) == DType(float, 32)
    f = bk_lazy.Function([x], (u, low))
    matrix = np.diag([1.0, 2.0, 3.0])
    got_u, got_low = f(matrix)
    assert got_low.dtype == np.float32 and got_u.shape == (3, 3)
    np.testing.assert_allclose(got_low, np.exp([3.0, 2.0, 1.0]), rtol=1e-6, atol=1e-6)
    del vh


def test_mixing_two_variables_of_a_function_and_constants_on_every_call(lazy: bk.Backend) -> None:
    a = bk_lazy.Variable((2,), "int64", name="a")
    b = bk_lazy.Variable((2,), "int64", name="b")
    f = bk_lazy.Function([a, b], lazy.maximum(a, b) * lazy.as_tensor(np.array([1, 10])))
    np.testing.assert_array_equal(f(np.array([1, 5]), np.array([3, 2])), [3, 50])
    np.testing.assert_array_equal(f([np.array([0, 0]), np.array([1, 1])]), [1, 10])  # one sequence of arguments
    with pytest.raises(TypeError, match="or as 2 flat arguments; got 1"):
        f(np.array([1, 5]))


def test_jit_compile_traces_once_per_signature(lazy: bk.Backend) -> None:
    traces = [0]

    def f(x: Any, y: Any) -> Any:
        traces[0] += 1
        return lazy.exp(x) * y + lazy.exp(x)

    compiled = lazy.jit_compile(f)
    a, b = lazy.as_tensor(np.arange(3.0)), lazy.as_tensor(np.full(3, 2.0))
    first = compiled(a, b)
    second = compiled(lazy.sin(a), b)
    assert traces[0] == 1 and isinstance(first, bk_lazy.LazyArray)
    assert first.history_fn_frequencies()["exp"] == 1  # merged by the Function
    np.testing.assert_allclose(lazy.numpy(second), np.exp(np.sin(np.arange(3.0))) * 3, rtol=1e-12, atol=1e-12)
    compiled(lazy.as_tensor(np.ones(4)), lazy.as_tensor(np.ones(4)))
    assert traces[0] == 2  # a new shape traces again


def test_contractions_of_huge_variables(lazy: bk.Backend) -> None:
    a = bk_lazy.Variable((100_000, 50_000), "float64", name="a")
    b = bk_lazy.Variable((50_000, 3), "float32", name="b")
    assert (lazy.staticshape(a @ b), lazy.dtype(a @ b)) == ((100_000, 3), F64)
    assert lazy.staticshape(lazy.tensordot(a, (0,), a, (0,))) == (50_000, 50_000)
    assert lazy.staticshape(lazy.stack([b, b, b], 1)) == (50_000, 3, 3)
    assert lazy.staticshape(lazy.concat([a, a], 0)) == (200_000, 50_000)


def test_autoray_style_properties(lazy: bk.Backend) -> None:
    z = bk_lazy.LazyArray.from_data(np.array([[1 + 2j, 3j]]))
    assert z.H.shape == (2, 1) and z.real.dtype == F64 and z.imag.fn_name == "imag"
    np.testing.assert_array_equal(lazy.numpy(z.H), np.array([[1 - 2j], [-3j]]))
    v = bk_lazy.LazyArray.from_shape((2, 5), "int32")
    assert v.is_variable and v.size == 10 and v.ndim == 2 and v.nbytes == 40
