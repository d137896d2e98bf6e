"""What a Dask user expects of bk-dask: progress bars and the dashboard see bk's computations, other
frameworks' tensors are refused as bk's dispatch refuses them, random numbers build raw Dask's
graph, and stencils keep their chunks."""

from __future__ import annotations

import io
import urllib.request
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest

import bk

# ------------------------------------------------------------ progress and the dashboard


def test_progress_bar_reports_a_bk_computation_on_threads(b: bk.Backend) -> None:
    from dask.diagnostics import ProgressBar

    x = b.random_uniform((64, 64), 0.0, 1.0, None).rechunk((16, 64))
    total = b.sum(b.mul(b.sin(x), 2.0))
    out = io.StringIO()
    with ProgressBar(out=out, minimum=0):
        value = b.numpy(total)
    assert "100% Completed" in out.getvalue()
    assert np.isfinite(value)


def test_distributed_progress_reports_a_bk_computation_on_the_cluster(b: bk.Backend, client: Any, capsys: Any) -> None:
    from distributed import progress, wait

    x = b.as_tensor(np.linspace(0, 1, 4000).reshape(40, 100)).rechunk((10, 100))
    y = client.persist(b.sum(b.sin(x) ** 2, axis=1))  # starts on the workers; progress follows it
    progress(y, notebook=False)
    wait(y)
    assert "100% Completed" in capsys.readouterr().out
    np.testing.assert_allclose(b.numpy(y), np.sum(np.sin(np.linspace(0, 1, 4000).reshape(40, 100)) ** 2, axis=1), atol=1e-12)


def test_the_dashboard_is_served_where_dashboard_link_says(client: Any) -> None:
    pytest.importorskip("bokeh", reason="the dashboard needs bokeh: pip install 'bk-dask[dashboard]'")
    link = client.dashboard_link
    assert link.startswith("http://") and link.endswith("/status")
    with urllib.request.urlopen(link, timeout=30) as response:
        assert response.status == 200
        assert b"Dask" in response.read()


# ------------------------------------------------------------ tensors of other frameworks


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_another_frameworks_tensor_raises_the_mixing_error(b: bk.Backend, framework: str) -> None:
    if framework == "torch":
        torch = pytest.importorskip("torch")
        other = torch.ones(2, 3)
    else:
        jnp = pytest.importorskip("jax.numpy")
        other = jnp.ones((2, 3))
    x = b.ones((2, 3))
    message = rf"cannot mix values of dask and {framework} in one operation; convert them to one backend first, e\.g\. bk\.convert"
    with pytest.raises(bk.NoBackendFound, match="add: " + message):
        b.add(x, other)
    with pytest.raises(bk.NoBackendFound, match="where: " + message):
        b.where(b.greater_than(x, 0), other, x)
    for operation in (lambda: b.sum(other), lambda: b.concat([x, other], 0), lambda: b.as_tensor(other), lambda: b.gather(x, other, 0)):
        with pytest.raises(bk.NoBackendFound, match=message):
            operation()
    with pytest.raises(bk.NoBackendFound, match=r"cannot mix values of dask and " + framework):  # the same words as bk's dispatch
        bk.choose_backend(x, other)
    converted = bk.convert(other, b)  # what the message advises works
    np.testing.assert_allclose(b.numpy(b.add(x, converted)), np.full((2, 3), 2.0), atol=0)


def test_numpy_arrays_and_numbers_stay_constants(b: bk.Backend) -> None:
    x = b.ones((2, 3))
    result = b.add(b.mul(x, np.arange(3.0)), 1)
    assert isinstance(result, da.Array)
    np.testing.assert_allclose(b.numpy(result), np.ones((2, 3)) * np.arange(3.0) + 1, atol=0)
    np.testing.assert_allclose(b.numpy(b.sum(np.ones((2, 2)))), 4.0, atol=0)


# ------------------------------------------------------------ random numbers: raw Dask's graph


def _graph(x: da.Array) -> tuple[int, int]:
    return len(x.__dask_graph__().layers), len(dask.optimize(x)[0].__dask_graph__())


CASES = [
    ("uniform float32 [0, 1)", lambda b: b.random_uniform((300, 200), 0, 1, bk.DType(float, 32)), lambda g: g.random((300, 200), dtype=np.float32)),
    ("uniform float64 [0, 1)", lambda b: b.random_uniform((300, 200), 0, 1, bk.DType(float, 64)), lambda g: g.random((300, 200))),
    ("uniform float64 [-2, 3)", lambda b: b.random_uniform((300, 200), -2, 3, bk.DType(float, 64)), lambda g: g.uniform(-2.0, 3.0, (300, 200))),
    ("uniform int32", lambda b: b.random_uniform((300, 200), 0, 10, bk.DType(int, 32)), lambda g: g.integers(0, 10, (300, 200), dtype=np.int32)),
    ("normal float32", lambda b: b.random_normal((300, 200), bk.DType(float, 32)), lambda g: g.standard_normal((300, 200), dtype=np.float32)),
    ("normal float64", lambda b: b.random_normal((300, 200), bk.DType(float, 64)), lambda g: g.standard_normal((300, 200))),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_random_numbers_are_raw_dasks_graph_and_values(b: bk.Backend, case: Any) -> None:
    _, ours, theirs = case
    with dask.config.set({"array.chunk-size": "128KiB"}):  # several chunks
        b.seed(7)
        mine = ours(b)
        raw = theirs(da.random.default_rng(7))
    assert mine.dtype == raw.dtype and mine.chunks == raw.chunks and len(mine.chunks[0]) > 1
    assert _graph(mine) == _graph(raw) == (1, mine.npartitions)  # one layer, one task per chunk
    np.testing.assert_array_equal(b.numpy(mine), raw.compute())


def test_random_precision_and_bounds(b: bk.Backend) -> None:
    b.seed(3)
    values = b.numpy(b.random_uniform((2000,), -2, 3, bk.DType(float, 32)))
    assert values.dtype == np.float32 and values.min() >= -2 and values.max() <= 3 and values.max() - values.min() > 4.5
    half = b.numpy(b.random_normal((4000,), bk.DType(float, 16)))
    assert half.dtype == np.float16 and 0.9 < half.std() < 1.1
    z = b.numpy(b.random_uniform((3000,), 1 + 2j, 3 + 5j, bk.DType(complex, 64)))
    assert z.dtype == np.complex64 and z.shape == (3000,)
    assert z.real.min() >= 1 and z.real.max() <= 3 and z.imag.min() >= 2 and z.imag.max() <= 5
    n = b.numpy(b.random_normal((20000,), bk.DType(complex, 128)))
    assert n.dtype == np.complex128 and abs(n.real.var() - 0.5) < 0.05 and abs(n.imag.var() - 0.5) < 0.05
    assert abs(np.corrcoef(n.real, n.imag)[0, 1]) < 0.05
    assert b.numpy(b.random_normal((), bk.DType(complex, 64))).shape == ()
    with bk.precision(32):
        assert b.random_uniform((4,), 0, 1, None).dtype == np.float32 and b.random_normal((4,), None).dtype == np.float32


# ------------------------------------------------------------ stencils keep their chunks


def test_a_stencil_loop_keeps_its_chunks_and_its_graph_grows_linearly(b: bk.Backend) -> None:
    def step(u: Any) -> Any:
        padded = b.pad(u, [(1, 1)], mode="periodic")
        return b.add(u, b.mul(b.sub(b.add(padded[2:], padded[:-2]), b.mul(u, 2.0)), 0.25))

    for chunks in ((256,), (100, 100, 56)):
        u0 = da.from_array(np.exp(-200 * (np.linspace(0, 1, 256) - 0.5) ** 2), chunks=chunks)
        u, sizes = u0, []
        for _ in range(20):
            u = step(u)
            sizes.append(len(u.__dask_graph__()))
        assert u.chunks == u0.chunks  # dask alone splits them further at every step
        assert sizes[-1] - sizes[-2] == sizes[1] - sizes[0]  # each step adds the same number of tasks
        expected = np.exp(-200 * (np.linspace(0, 1, 256) - 0.5) ** 2)
        for _ in range(20):
            expected = expected + 0.25 * (np.roll(expected, -1) + np.roll(expected, 1) - 2 * expected)
        np.testing.assert_allclose(b.numpy(u), expected, atol=1e-12)


def test_meshgrid_of_long_coordinates_is_chunked(b: bk.Backend) -> None:
    with dask.config.set({"array.chunk-size": "1MiB"}):
        x, y = b.meshgrid(b.linspace(0, 1, 2000), b.linspace(0, 1, 1000))  # 8 MB of float32 per grid
    assert x.shape == y.shape == (2000, 1000) and x.chunks == y.chunks
    assert max(x.chunks[0]) * max(x.chunks[1]) * 4 <= 2**20 and x.npartitions > 1  # dask alone: one 8 MB chunk
    assert max(x.chunks[0]) - min(x.chunks[0]) <= 1  # even chunks
    np.testing.assert_allclose(b.numpy(x)[:, 0], np.linspace(0, 1, 2000, dtype=np.float32), atol=1e-7)
    np.testing.assert_allclose(b.numpy(y)[0], np.linspace(0, 1, 1000, dtype=np.float32), atol=1e-7)
