"""Results and preconditioners of linear solves."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple

__all__ = ["Preconditioner", "SolveResult"]


class SolveResult(NamedTuple):
    """The outcome of `Backend.linear_solve()`.

    Tensors have a leading batch dimension; with trajectories (several `max_iter` checkpoints)
    they have an outer checkpoint dimension before it.
    """

    method: str
    """The algorithm that was used."""
    x: Any
    """The solution, `(batch, n)`."""
    residual: Any
    """`y - A x`, `(batch, n)`."""
    iterations: Any
    """Iterations performed, `(batch,)`."""
    function_evaluations: Any
    """Applications of the linear operator, `(batch,)`."""
    converged: Any
    """Whether the tolerance was reached, `(batch,)` bool."""
    diverged: Any
    """Whether the solve failed (non-finite values or a breakdown), `(batch,)` bool."""
    message: Any
    """A human-readable message per batch entry."""


class Preconditioner(ABC):
    """An approximate inverse `M ≈ A⁻¹` that speeds up iterative solves."""

    @abstractmethod
    def apply(self, vec: Any) -> Any:
        """`M · vec` for `(batch, n)` vectors."""

    def apply_transposed(self, vec: Any) -> Any:
        """`Mᵀ · vec`; the default assumes a symmetric preconditioner."""
        return self.apply(vec)

    def __call__(self, vec: Any) -> Any:
        return self.apply(vec)


# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _name in __all__:
    globals()[_name].__module__ = "bk"
del _name
