"""bk on a real `distributed.LocalCluster` (2 worker processes, see conftest): work runs on the
workers, solvers and conversions give NumPy's answers, devices are the workers, and a worker that
dies in the middle of a computation does not change the result."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np
import pytest

import bk


def _worker_addresses(client: Any) -> set[str]:
    return set(client.scheduler_info(n_workers=-1)["workers"])


def test_operations_run_on_the_workers_and_numpy_computes_once(b: bk.Backend, client: Any) -> None:
    from distributed import get_task_stream

    x = b.as_tensor(np.linspace(0, 1, 4000).reshape(40, 100))
    y = b.sum(b.sin(x.rechunk((10, 100))) ** 2, axis=1)  # four chunks: work for both workers
    before = b.compute_count()
    with get_task_stream(client) as stream:
        values = b.numpy(y)
    assert b.compute_count() == before + 1
    np.testing.assert_allclose(values, np.sum(np.sin(np.linspace(0, 1, 4000).reshape(40, 100)) ** 2, axis=1), atol=1e-12)
    ran_on = {task["worker"] for task in stream.data}
    assert ran_on and ran_on <= _worker_addresses(client)


def test_one_task_and_batch_chunked_operations_on_the_workers(b: bk.Backend, client: Any) -> None:
    """The tasks that read their inputs' chunks themselves (unique, nonzero, svd, numpy_call, a sort of
    an unknown size) and the batch-chunked gathers, scatters and decompositions run on the workers, give bk-numpy's
    answers, and an out-of-range index raises `IndexOutOfRangeError` from the worker."""
    n = bk.backend("numpy")
    rng = np.random.default_rng(0)
    values = rng.uniform(0, 1, (12, 6))
    x = da.from_array(values, chunks=(3, 6))
    picks = rng.integers(0, 6, (12, 4))
    grid, points, updates = rng.uniform(0, 1, (12, 5, 2)), rng.integers(0, 5, (12, 3, 1)), rng.uniform(0, 1, (12, 3, 2))
    results = {
        "unique": (b.sort(b.unique(b.round(x * 4), False, False, None)[0]), np.unique(np.round(values * 4))),
        "nonzero": (b.nonzero(x > 0.5), np.argwhere(values > 0.5)),
        "svd": (b.svd(x, False)[1], np.linalg.svd(values, full_matrices=False)[1]),
        "stacked svd": (b.svd(b.reshape(x, (4, 3, 6)), False)[1], np.linalg.svd(values.reshape(4, 3, 6), full_matrices=False)[1]),
        "stacked inv": (b.inv(b.reshape(x[:, :4], (3, 4, 4)) + 4 * np.eye(4)), np.linalg.inv(values[:, :4].reshape(3, 4, 4) + 4 * np.eye(4))),
        "numpy_call": (b.numpy_call(np.cumsum, (72,), bk.DType(float, 64), x), np.cumsum(values)),
        "take_along_axis": (b.batched_gather_1d(x, da.from_array(picks, chunks=(3, 4))), np.take_along_axis(values, picks, axis=1)),
        "scatter": (
            b.scatter(da.from_array(grid, chunks=(3, 5, 2)), da.from_array(points, chunks=(3, 3, 1)), da.from_array(updates, chunks=(3, 3, 2)), "add"),
            n.scatter(grid, points, updates, "add"),
        ),
    }
    for name, (ours, expected) in results.items():
        np.testing.assert_allclose(b.numpy(ours), expected, atol=1e-12, err_msg=name)
    with pytest.raises(bk.IndexOutOfRangeError, match="^batched_gather_1d"):
        b.numpy(b.batched_gather_1d(x, da.from_array(picks + 6, chunks=(3, 4))))


def test_cg_on_the_cluster_matches_numpy(b: bk.Backend, client: Any) -> None:
    rng = np.random.default_rng(1)
    m = rng.normal(size=(30, 30))
    matrix = m @ m.T + 30 * np.eye(30)
    y = rng.normal(size=(3, 30))
    result = b.linear_solve("CG", b.as_tensor(matrix), b.as_tensor(y), b.zeros((3, 30), bk.DType(float, 64)), 1e-10, 0.0, 300, None, None)
    np.testing.assert_allclose(b.numpy(result.x), np.linalg.solve(matrix, y.T).T, rtol=1e-7, atol=1e-9)
    assert bool(np.all(b.numpy(result.converged)))
    scipy = b.linear_solve("scipy-GMres", b.as_tensor(matrix), b.as_tensor(y), None, 1e-10, 0.0, 300, None, None)
    np.testing.assert_allclose(b.numpy(scipy.x), np.linalg.solve(matrix, y.T).T, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("target", [n for n in bk.backends() if n != "dask"])
def test_conversion_to_and_from_every_installed_backend(b: bk.Backend, client: Any, target: str) -> None:
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = b.as_tensor(values)
    other = bk.convert(x, target)
    backend = bk.backend(target)
    assert backend.is_tensor(other, only_native=True)
    assert backend.dtype(other) == bk.DType(float, 32)
    np.testing.assert_array_equal(backend.numpy(other), values)
    back = bk.convert(other, "dask")
    assert isinstance(back, da.Array) and b.dtype(back) == bk.DType(float, 32)
    np.testing.assert_array_equal(b.numpy(back), values)


def test_seeded_random_numbers_are_the_same_on_the_workers_and_locally(b: bk.Backend, client: Any) -> None:
    import dask

    b.seed(3)
    on_workers = b.numpy(b.random_uniform((4000,), 0.0, 1.0, bk.DType(float, 64)).rechunk(1000))
    b.seed(3)
    (locally,) = dask.compute(b.random_uniform((4000,), 0.0, 1.0, bk.DType(float, 64)).rechunk(1000), scheduler="threads")
    np.testing.assert_array_equal(on_workers, locally)
    b.seed(4)
    assert not np.array_equal(b.numpy(b.random_uniform((4000,), 0.0, 1.0, bk.DType(float, 64))), on_workers)


def test_devices_are_the_workers(b: bk.Backend, client: Any) -> None:
    devices = b.list_devices()
    assert {d.ref for d in devices} == _worker_addresses(client)
    assert all(d.memory == 512 * 2**20 and d.processor_count == 1 and d.device_type == "CPU" for d in devices)
    assert b.list_devices("GPU") == []
    info = next(e for e in bk.info()["backends"] if e["name"] == "dask")
    assert len(info["devices"]) == 2
    with pytest.raises(ValueError, match="device_type"):
        b.list_devices("gpu")


def test_bk_info_shows_the_workers_of_the_configured_scheduler(cluster_client: Any) -> None:
    import subprocess
    import sys

    environment = {**os.environ, "DASK_SCHEDULER_ADDRESS": cluster_client.scheduler.address, "BK_PLUGINS": "dask,numpy", "BK_DISABLE_PLUGIN_AUTOLOAD": "1"}
    out = subprocess.run([sys.executable, "-m", "bk", "info"], capture_output=True, text=True, check=True, env=environment).stdout
    workers = [line for line in out.splitlines() if "CPU worker" in line]
    assert len(workers) == 2 and all("0.5 GiB, 1 processors" in line for line in workers), out


def test_without_a_client_the_device_is_this_machine(b: bk.Backend, cluster_client: Any) -> None:
    (device,) = b.list_devices()
    assert device.ref == "local" and device.processor_count == os.cpu_count()


def test_allocate_on_device_pins_the_tasks_to_that_worker(b: bk.Backend, client: Any) -> None:
    from distributed import get_task_stream, wait

    target = b.list_devices()[1]
    with get_task_stream(client) as stream:
        x = b.allocate_on_device(b.as_tensor(np.ones((4, 4))), target)
        wait(x)
    assert {task["worker"] for task in stream.data} == {target.ref}
    assert set(client.who_has(x).values()) == {(target.ref,)}
    assert b.numpy(b.sum(x)) == 16


def test_a_worker_dying_mid_computation_gives_the_right_result(b: bk.Backend, client: Any, tmp_path: Path) -> None:
    marker = str(tmp_path / "died")

    def _die_once(block: np.ndarray, marker: str) -> np.ndarray:  # nested: pickled by value for the workers
        import os
        from pathlib import Path

        if not os.path.exists(marker):
            Path(marker).touch()
            os._exit(1)  # the worker process dies in the middle of the computation
        return block

    x = b.as_tensor(np.arange(1000, dtype=np.float64)).rechunk(100)
    fragile = x.map_blocks(_die_once, marker, dtype=x.dtype, meta=np.empty((0,), x.dtype))  # no call in this process
    total = b.numpy(b.sum(b.sin(fragile) ** 2))
    assert os.path.exists(marker)  # a worker really died
    np.testing.assert_allclose(total, np.sum(np.sin(np.arange(1000.0)) ** 2), rtol=1e-12, atol=1e-9)
    client.wait_for_workers(2, timeout=30)
