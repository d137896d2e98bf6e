"""An eager fast path of the conjugate gradient for one float32 or float64 system on a matrix.

The core's generic CG (`bk._linalg.cg`) runs about forty small PyTorch operations per iteration
on batched masks, so that it traces under `jit_compile` and serves any batch. Eagerly, for a single
right-hand side, the same iteration needs seven: with Python scalars between the vector operations
and in-place updates, an iteration costs little more than its sparse product, as in SciPy.

The fast path computes exactly the core's iteration (the same recurrences, stopping rules, counts
and `SolveResult`); everything else (batches, trajectories, preconditioners, matrix offsets,
functions as operators, other dtypes, tracing, autograd) goes to the core's implementation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from bk import Preconditioner, SolveResult
from bk.rules import solve_result as finish
from bk.rules import solve_setup as setup

from ._linalg import _LAYOUT_FORMATS, _csr_for_products

__all__ = ["SolversMixin"]

Tensor = Any

# Python-side scalar types whose arithmetic rounds as the tensors' does (IEEE single and double)
_SCALARS = {torch.float32: np.float32, torch.float64: float}


class SolversMixin:
    """The eager conjugate-gradient fast path of `TorchBackend`."""

    def conjugate_gradient(self, lin: Any, y: Tensor, x0: Tensor, rtol: Any, atol: Any, max_iter: Any, pre: Preconditioner | None, matrix_offset: Any) -> SolveResult:
        """Preconditioned conjugate gradient; arguments as `linear_solve`.

        One float32 or float64 system on a dense or sparse matrix of its dtype, computed eagerly,
        runs a lean loop with the core's arithmetic and stopping rules; every other case runs the
        core's batched CG.
        """
        if _fast_case(self, lin, y, x0, max_iter, pre, matrix_offset):
            p = setup(self, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
            if p.batch == 1 and isinstance(p.checkpoints, int) and p.y.dtype == lin.dtype:
                return _cg_one(p, lin)
        return super().conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)  # type: ignore[misc, no-any-return]


def _fast_case(b: Any, lin: Any, y: Any, x0: Any, max_iter: Any, pre: Any, matrix_offset: Any) -> bool:
    """Cheap checks before `setup`: eager float tensors, no autograd, a 2-D matrix, one iteration limit."""
    if pre is not None or matrix_offset is not None or np.ndim(max_iter) > 1:
        return False
    if not isinstance(lin, torch.Tensor) or lin.ndim != 2 or lin.requires_grad or lin.dtype not in _SCALARS:
        return False
    if lin.layout not in _LAYOUT_FORMATS and lin.layout != torch.strided:
        return False
    for v in (y, x0):
        if isinstance(v, torch.Tensor) and (v.requires_grad or not b.is_available(v)):
            return False
    return torch._C._get_tracing_state() is None


def _cg_one(p: Any, lin: torch.Tensor) -> SolveResult:
    """The core's CG iteration for `batch == 1` with scalar control flow and in-place updates."""
    real = _SCALARS[lin.dtype]
    matrix = _csr_for_products(lin, lin.dtype) if lin.layout in _LAYOUT_FORMATS else lin
    if matrix.layout not in (torch.sparse_csr, torch.strided):
        matrix = lin.to_dense()  # CSR conversion refused (not expected for 2-D float matrices)
    x = p.x0[0].clone()
    r = p.y[0] - torch.mv(matrix, x)
    d = r.clone()
    tolerance_sq, limit = real(p.tolerance_sq[0].item()), int(p.limit[0])
    zero = real(0)
    rz = real(torch.dot(r, r).item())
    converged, diverged = bool(rz <= tolerance_sq), not math.isfinite(rz)
    go = not converged and not diverged and limit > 0

    def step(go: bool, rz: Any, iterations: int, evaluations: int, converged: bool, diverged: bool) -> tuple[Any, ...]:
        ad = torch.mv(matrix, d)
        d_ad = real(torch.dot(d, ad).item())
        alpha = rz / d_ad if d_ad != 0 else zero  # divide_no_nan
        x.add_(d, alpha=alpha)
        r.add_(ad, alpha=-alpha)
        r_sq = real(torch.dot(r, r).item())
        beta = r_sq / rz if rz != 0 else zero
        d.mul_(beta).add_(r)
        converged, diverged = bool(r_sq <= tolerance_sq), not math.isfinite(r_sq)
        return not converged and not diverged and iterations + 1 < limit, r_sq, iterations + 1, evaluations + 1, converged, diverged

    with np.errstate(all="ignore"):  # float32 scalars overflow to inf as the tensors do, without warnings
        # the backend's while_loop, so that profiles show the solve's steps as they show the core's
        _, _, iterations, evaluations, converged, diverged = p.b.while_loop(step, (go, rz, 0, 1, converged, diverged), int(p.checkpoints))
    device = x.device
    counts = torch.tensor([iterations], dtype=torch.int32, device=device), torch.tensor([evaluations], dtype=torch.int32, device=device)
    flags = torch.tensor([converged], device=device), torch.tensor([diverged], device=device)
    return finish(p, "CG", x[None], r[None], counts[0], counts[1], flags[0], flags[1])
