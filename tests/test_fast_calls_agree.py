"""Every fast call agrees with its plan (issue 38, point 5), on every backend that declares fast calls.

A kernel's fast call (`bk.rules.kernel(fast=...)`: `framework_call`, `listed_call`, bk-numpy's C operators) is tried before the
plan and serves the calls it knows the framework already computes as bk's rules say; everything else
takes the plan. For the testkit's generated calls of each such operation, this runs the fast call
alone, and wherever it served the call (a result or an error, not `NotImplemented`) compares the public
call (which took the fast call) with the same kernel behind a plan without a fast call: the same error
class, or the same dtype, shape and values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]
VALID, INVALID = 20, 6  # generated calls per operation (derandomized: the same on every run)


def _fast_operations(backend: bk.Backend) -> dict[str, Any]:
    """Operation -> (its kernel, its fast call), for every kernel of `backend` that declares a fast call."""
    from bk_testkit._declarations import fast_call_of
    from bk_testkit._strategies import OPERATIONS

    return {op: found for op in OPERATIONS if (found := fast_call_of(backend, op)) is not None}


def _disagreements(backend: bk.Backend, only: frozenset[str] | None = None, valid: int = VALID) -> tuple[int, list[str]]:
    """How many generated calls took a fast call on `backend`, and each that disagrees with its plan."""
    from bk_testkit._declarations import fast_call_disagreements, generated_arguments, probes
    from bk_testkit._generated import calls

    served, differences = 0, []
    for op in sorted(_fast_operations(backend)):
        if only is not None and op not in only:
            continue
        drawn = generated_arguments(backend, (*calls(op, "valid", valid), *calls(op, "invalid", INVALID)))
        count, found = fast_call_disagreements(backend, op, [*probes(backend, op), *drawn])
        served += count
        differences += found
    return served, differences


@pytest.mark.parametrize("name", BACKENDS)
def test_every_fast_call_agrees_with_its_plan(name: str) -> None:
    backend = bk.backend(name)
    assert _fast_operations(backend), f"{name} declares no fast call: nothing to compare"
    served, differences = _disagreements(backend)
    assert served > 100, f"only {served} generated calls took a fast call on {name}"
    assert not differences, f"{len(differences)} fast calls disagree with their plans on {name}:\n" + "\n".join(differences[:20])


def test_a_fast_call_that_restates_a_rule_wrongly_is_found() -> None:
    """A fast call that gives float64 for float32 `sin` (the plan keeps float32) disagrees with its plan,
    and the calls are named."""
    from bk.rules import kernel
    from bk_numpy._backend import NumPyBackend

    def wrong_sin(self: Any, x: Any) -> Any:
        return np.sin(x.astype(np.float64)) if type(x) is np.ndarray and x.dtype == np.float32 else NotImplemented

    class WrongFast(NumPyBackend):
        @kernel(fast=wrong_sin)
        def sin(self, x: Any) -> Any:
            return np.sin(x)

    served, differences = _disagreements(WrongFast(), only=frozenset({"sin"}), valid=60)
    assert served > 0
    assert differences and all(d.startswith("sin(") for d in differences), differences
