"""The CG solve of the 2-D Poisson problem on a 128x128 grid, against `scipy.sparse.linalg.cg`."""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from _harness import Figure, fresh_interpreter_json

import bk

SIZE = 128
RTOL = 1e-5


def poisson(size: int) -> sp.csr_matrix:
    one_d = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(size, size))
    eye = sp.identity(size)
    return (sp.kron(one_d, eye) + sp.kron(eye, one_d)).tocsr()


def best_of(function, reference, repeat: int = 7) -> tuple[float, float]:
    """Best times of `function` and `reference`, their runs taken in turn (the machine's speed drifts)."""
    function(), reference()  # warm-up: compilation, caches
    times = [(timeit.timeit(function, number=1), timeit.timeit(reference, number=1)) for _ in range(repeat)]
    return min(t[0] for t in times), min(t[1] for t in times)


BLAS_THREADS = "one OpenBLAS thread"
# NumPy's OpenBLAS threads busy-wait after each call. On a machine with two cores they hold the core
# that PyTorch's second thread needs, and torch's CG, timed in turn with SciPy's, takes 3-4x its time
# alone. With one OpenBLAS thread SciPy's CG is also faster (about 26 ms against 37 ms here), so both
# sides are timed in a fresh interpreter with OPENBLAS_NUM_THREADS=1: the peer at its best.


def _torch_figure() -> tuple[float, float]:
    """Best seconds of bk-torch's and SciPy's CG, timed in turn in a fresh interpreter with one OpenBLAS thread."""
    seconds, scipy_s = fresh_interpreter_json(__file__, "torch", env={"OPENBLAS_NUM_THREADS": "1"})
    return seconds, scipy_s


def _torch_seconds() -> tuple[float, float]:
    """Eager bk-torch CG, float64 like SciPy, on the matrix as users build it (COO), against SciPy's."""
    matrix, y, scipy_cg = _problem()
    b = bk.backend("torch")
    a = b.sparse_coo_tensor(np.stack(matrix.nonzero(), -1), matrix.data, matrix.shape)
    y_t, x0 = b.as_tensor(y), b.as_tensor(np.zeros_like(y))
    return best_of(lambda: b.linear_solve("CG", a, y_t, x0, RTOL, 0.0, 10_000, None, None), scipy_cg)


def _problem() -> tuple[sp.csr_matrix, np.ndarray, Callable[[], object]]:
    matrix = poisson(SIZE)
    y = np.random.default_rng(0).normal(size=(1, SIZE * SIZE))

    def scipy_cg() -> object:
        return spla.cg(matrix, y[0], rtol=RTOL, atol=0.0, maxiter=10_000)

    return matrix, y, scipy_cg


def run() -> list[Figure]:
    names = bk.backends()
    matrix, y, scipy_cg = _problem()
    figures = []
    if "numpy" in names:
        b = bk.backend("numpy")
        seconds, scipy_s = best_of(lambda: b.linear_solve("CG", matrix, y, np.zeros_like(y), RTOL, 0.0, 10_000, None, None), scipy_cg)
        figures.append(Figure("CG, Poisson 128x128, bk-numpy / scipy.sparse.linalg.cg", seconds / scipy_s, 1.5, "x", f"({seconds * 1e3:.0f} ms vs {scipy_s * 1e3:.0f} ms)"))
    if "torch" in names:
        seconds, scipy_s = _torch_figure()
        figures.append(Figure("CG, Poisson 128x128, bk-torch / scipy.sparse.linalg.cg", seconds / scipy_s, 2.0, "x", f"({seconds * 1e3:.0f} ms vs {scipy_s * 1e3:.0f} ms, eager, float64, COO matrix; {BLAS_THREADS})"))
    if "jax" in names:
        b = bk.backend("jax")
        with bk.precision(64):
            a = b.sparse_coo_tensor(np.stack(matrix.nonzero(), -1), matrix.data, matrix.shape) if b.supports("sparse_coo_tensor") else b.as_tensor(matrix.toarray())
            y_j, x0 = b.as_tensor(y), b.as_tensor(np.zeros_like(y))
            solve = b.jit_compile(lambda y, x0: b.linear_solve("CG", a, y, x0, RTOL, 0.0, 10_000, None, None).x)
            seconds, scipy_s = best_of(lambda: b.block_until_ready(solve(y_j, x0)), scipy_cg)
        figures.append(Figure("CG, Poisson 128x128, bk-jax jit / scipy.sparse.linalg.cg", seconds / scipy_s, 1.0, "x", f"({seconds * 1e3:.0f} ms vs {scipy_s * 1e3:.0f} ms, after compilation)"))
    return figures


if __name__ == "__main__":  # the child process of `_torch_figure`
    print(json.dumps(_torch_seconds()))
