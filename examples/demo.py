"""What bk is for, in one run: certified backends and one program on all of them.

1. A certification summary of every installed backend (`testkit certify --all`).
2. One backend-agnostic program: the 2-D Poisson equation on a 32x32 grid, solved with
   `linear_solve` (conjugate gradient), and the derivative of the solution's energy with respect to
   the source strength, through each backend's autodiff where it has one. It runs unchanged on every
   backend that supports what it needs; the results are compared side by side.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import bk

GRID = 32
NEEDED = ("linear_solve", "sum", "mul", "as_tensor")


def certification_summary() -> None:
    """Runs `testkit certify --all` (progress on stderr) and prints one line per backend."""
    testkit = Path(sys.executable).parent / "testkit"
    if not testkit.exists():
        print("(bk-testkit is not installed: no certification summary)")
        return
    print("Certifying every installed backend (testkit certify --all) ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "certify.json"
        subprocess.run([str(testkit), "certify", "--all", "--json", str(report_path)], stdout=subprocess.DEVNULL, check=False)
        report = json.loads(report_path.read_text())
    print(f"\n{'backend':<8} {'plugin':<18} {'framework':<22} {'certified':>9} {'unsupported':>11} {'failed':>6}")
    for name, data in sorted(report["backends"].items()):
        counts = data["counts"]
        framework = f"{data['framework']} {data['framework_version']}"
        print(f"{name:<8} {data['distribution'] + ' ' + data['version']:<18} {framework:<22} {counts['certified']:>9} {counts['unsupported']:>11} {counts['failed']:>6}")


def laplacian(size: int) -> np.ndarray:
    """The negated 5-point Laplacian of a `size` x `size` grid with zero boundaries (dense)."""
    one_d = 2 * np.eye(size) - np.eye(size, k=1) - np.eye(size, k=-1)
    return np.kron(one_d, np.eye(size)) + np.kron(np.eye(size), one_d)


def source(size: int) -> np.ndarray:
    """A Gaussian heat source in the middle of the grid, flattened to `(1, size²)`."""
    x = np.linspace(0, 1, size)
    xx, yy = np.meshgrid(x, x, indexing="ij")
    return np.exp(-((xx - 0.5) ** 2 + (yy - 0.5) ** 2) / 0.02).reshape(1, -1)


def poisson(b: bk.Backend, strength: float = 2.0) -> tuple[float, float | None, int]:
    """Energy of the solution of `-Δu = strength · f`, its derivative by `strength`, and CG iterations.

    The derivative comes from the backend's autodiff (`jacobian`) where it has one, else `None`.
    """
    matrix = b.as_tensor(laplacian(GRID))
    f = b.as_tensor(source(GRID))
    result = b.linear_solve("CG", matrix, f, b.as_tensor(np.zeros((1, GRID * GRID))), 1e-6, 0.0, 2000, None, None)
    unit = result.x  # the solution for strength 1: u = strength * unit

    def energy(k):
        u = b.mul(unit, k)
        value = b.mul(b.sum(b.mul(u, u)), 0.5)
        return value, value

    value = float(b.numpy(energy(b.as_tensor(np.float64(strength)))[0]))
    derivative = None
    if b.supports("gradients"):
        gradient = b.jacobian(energy, wrt=[0], get_output=False, is_f_scalar=True)
        derivative = float(b.numpy(gradient(b.as_tensor(np.float64(strength)))[0]))
    iterations = int(np.max(b.numpy(result.iterations)))
    return value, derivative, iterations


def run_everywhere() -> None:
    print(f"\nThe 2-D Poisson equation on a {GRID}x{GRID} grid, solved with CG on every backend that can:\n")
    print(f"{'backend':<8} {'energy E(k=2)':>14} {'dE/dk (autodiff)':>17} {'expected dE/dk':>15} {'CG its':>7} {'time':>9}")
    results = {}
    for name in bk.backends():
        try:
            b = bk.backend(name)
        except Exception as error:  # a broken plugin must not stop the demo
            print(f"{name:<8} cannot load: {error}")
            continue
        missing = [f for f in NEEDED if not b.supports(f)]
        if missing:
            print(f"{name:<8} skipped: does not support {', '.join(missing)}")
            continue
        poisson(b)  # warm-up: first calls may compile or allocate
        start = time.perf_counter()
        value, derivative, iterations = poisson(b)
        seconds = time.perf_counter() - start
        results[name] = value
        shown = f"{derivative:>17.6f}" if derivative is not None else f"{'(no gradients)':>17}"
        print(f"{name:<8} {value:>14.6f} {shown} {value:>15.6f} {iterations:>7} {seconds * 1e3:>7.1f} ms")
    if len(results) > 1:
        spread = max(results.values()) - min(results.values())
        print(f"\nAll backends agree on the energy to {spread / max(results.values()):.1e} (relative).")
        print("E(k) = k² E(1), so dE/dk = 2 E(k) / k, which equals E(2) at k = 2: the autodiff column matches the energy.")


def terrain(b: bk.Backend, size: int) -> object:
    """A smooth `size` x `size` height field with ripples, built by each backend itself (on a cluster: on the workers)."""
    x, y = b.meshgrid(b.linspace(0, 8, size), b.linspace(0, 8, size))
    return b.add(b.mul(b.sin(x), b.cos(y)), b.mul(b.sin(b.mul(x, 9.0)), 0.05))


def roughness(b: bk.Backend, field: object) -> object:
    """The root mean square of the field's finite-difference gradient: backend-agnostic code."""
    dx = b.sub(field[1:, :-1], field[:-1, :-1])  # type: ignore[index]
    dy = b.sub(field[:-1, 1:], field[:-1, :-1])  # type: ignore[index]
    return b.sqrt(b.mean(b.add(b.mul(dx, dx), b.mul(dy, dy))))


def on_a_cluster() -> None:
    """`roughness` on NumPy, then unchanged on a 2-worker dask LocalCluster through bk-dask."""
    if "dask" not in bk.backends():
        print("\n(bk-dask is not installed: no cluster demo. pip install ./plugins/bk-dask)")
        return
    import logging

    from distributed import Client, LocalCluster

    print("\nThe same function on NumPy and on a 2-worker dask LocalCluster (bk-dask):\n")
    size = 3000
    expected = float(roughness(bk.backend("numpy"), terrain(bk.backend("numpy"), size)))
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="1GiB", dashboard_address=None, silence_logs=logging.ERROR) as cluster, Client(cluster):
        b = bk.backend("dask")
        for device in b.list_devices():
            print(f"  {device.name}: {device.processor_count} thread, memory limit {device.memory / 2**30:.1f} GiB")
        field = terrain(b, size).rechunk((750, size))  # four chunks, generated on the workers
        lazy = roughness(b, field)
        tasks = len(lazy.__dask_graph__())
        start = time.perf_counter()
        value = float(b.numpy(lazy))
        seconds = time.perf_counter() - start
    print(f"  numpy: {expected:.12f}\n  dask:  {value:.12f}  ({tasks} tasks, computed on the workers in {seconds * 1e3:.0f} ms)")


def main() -> None:
    print(f"bk {bk.__version__}: one array API, {len(bk.backends())} installed backends: {', '.join(bk.backends())}\n")
    certification_summary()
    run_everywhere()
    on_a_cluster()


if __name__ == "__main__":
    main()
