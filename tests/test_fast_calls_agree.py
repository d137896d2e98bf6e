"""Every fast call agrees with its plan (issue 38, point 5), on every backend that declares fast calls.

A kernel's fast call (`bk.rules.kernel(fast=...)`: `framework_call`, `native_call`, bk-numpy's C operators) is tried before the
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
from bk import _dispatcher

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]
VALID, INVALID = 20, 6  # generated calls per operation (derandomized: the same on every run)


def _fast_operations(backend: bk.Backend) -> dict[str, Any]:
    """Operation -> (its kernel, its fast call), for every kernel of `backend` that declares a fast call."""
    from bk_testkit._strategies import OPERATIONS

    declared = type(backend).declared_kernels()
    found = {}
    for op in OPERATIONS:
        kernel = getattr(getattr(type(backend), op, None), "__bk_kernel__", None)
        if kernel is not None and op in declared and declared[op].fast is not None:
            found[op] = (kernel, declared[op].fast)
    return found


def _outcome(backend: bk.Backend, function: Any, args: list[Any]) -> Any:
    from bk_testkit._generated import Outcome

    try:
        with np.errstate(all="ignore"):
            result = function(*args)
        outcome = Outcome()
        outcome.dtypes.append(backend.dtype(result))
        outcome.static.append(tuple(backend.staticshape(result)))
        outcome.values.append(np.asarray(backend.numpy(result)))
        return outcome
    except Exception as error:
        return Outcome(error=error)


def _disagreements(backend: bk.Backend, only: frozenset[str] | None = None, valid: int = VALID) -> tuple[int, list[str]]:
    """How many generated calls took a fast call on `backend`, and each that disagrees with its plan."""
    from bk_testkit._generated import _convert, calls, compare_values, error_class

    served, differences = 0, []
    for op, (kernel, fast_call) in sorted(_fast_operations(backend).items()):
        if only is not None and op not in only:
            continue
        planned = _dispatcher.dispatch(op, kernel)  # the same kernel behind its plan, with no fast call
        for call in (*calls(op, "valid", valid), *calls(op, "invalid", INVALID)):
            if call.kwargs:  # keyword calls never take the fast call
                continue
            try:
                args = [_convert(backend, a, False) for a in call.args]
            except Exception:  # the backend cannot hold the inputs
                continue
            try:
                with np.errstate(all="ignore"):
                    fast = fast_call(backend, *args)
            except Exception:
                fast = None  # it raised: the public call explains the failure, which must match the plan's
            if fast is NotImplemented:
                continue
            served += 1
            public = _outcome(backend, getattr(backend, op), args)
            plan = _outcome(backend, lambda *a, planned=planned: planned(backend, *a), args)
            if (public.error is None) != (plan.error is None):
                differences.append(f"{call}: fast call {public.describe()}, plan {plan.describe()}")
            elif public.error is not None:
                if error_class(public.error) != error_class(plan.error):
                    differences.append(f"{call}: fast call {public.describe()}, plan {plan.describe()}")
            elif public.dtypes != plan.dtypes or public.static != plan.static:
                differences.append(f"{call}: fast call {public.describe()}, plan {plan.describe()}")
            elif (problem := compare_values(public, plan)) is not None:
                differences.append(f"{call}: {problem}")
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
