"""The checks of a backend's kernel declarations (issue 38): each operation with a spec is planned or
declared trusted, and each fast call agrees with the same kernel behind its plan on the generated calls.

`testkit certify` runs them as the case `OP/declared` of every operation (`bk_testkit.cases.declared`); the
project's tests call them for every installed backend.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

import bk

from ._generated import Call, Outcome, _convert, compare_values, error_class
from .cases._edges import ALL_DTYPES


def undeclared(backend: bk.Backend, operations: Iterable[str]) -> list[str]:
    """The operations of `operations` with a spec that `backend` supports whose method is neither planned (the
    core's plan in front of it) nor declared trusted (`bk.rules.kernel(trusted=True)`)."""
    from bk._operations import operation

    cls = type(backend)
    trusted = cls.trusted_operations
    found = []
    for op in operations:
        method = getattr(cls, op, None)
        if method is None or not operation(op).planned or not backend.supports(op):
            continue
        if not hasattr(method, "__bk_plans__") and op not in trusted:
            found.append(op)
    return found


def fast_call_of(backend: bk.Backend, op: str) -> tuple[Any, Any] | None:
    """`(kernel, fast call as bound)` of `op` on `backend` when its kernel declares a fast call, else None."""
    method = getattr(type(backend), op, None)
    kernel = getattr(method, "__bk_kernel__", None)
    fast = getattr(method, "__bk_fast_call__", None)
    return None if kernel is None or fast is None else (kernel, fast)


def _outcome(backend: bk.Backend, function: Any, args: list[Any]) -> Outcome:
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


def _differ(public: Outcome, plan: Outcome) -> bool:
    """Whether two outcomes differ in error class, or in result dtypes or shapes."""
    if public.error is not None or plan.error is not None:
        return public.error is None or plan.error is None or error_class(public.error) != error_class(plan.error)
    return public.dtypes != plan.dtypes or public.static != plan.static


def probes(backend: bk.Backend, op: str) -> list[tuple[str, list[Any]]]:
    """Calls that exercise a derived fast call's whole table: for an elementwise operation, a small tensor of each
    dtype the backend has, alone (unary), beside itself, and beside a Python float and a Python int on either side (binary),
    and chosen between by a bool condition (`where`)."""
    from bk._operations import operation

    record = operation(op)
    family = record.family
    choice = record.allows_framework_call and len(record.spec.params) == 3  # type: ignore[union-attr]  # `where`
    if family not in ("unary", "binary") and not choice:
        return []
    found: list[tuple[str, list[Any]]] = []
    try:
        condition = backend.as_tensor(np.asarray([True, False, True])) if choice else None
    except Exception:  # a backend without bools: nothing to probe
        return []
    for dtype in ALL_DTYPES:
        values = np.asarray([True, False, True]) if dtype.kind is bool else np.asarray([-1.5, 0.0, 2.25]) + (0j if dtype.kind is complex else 0)
        if dtype.kind is int and not dtype.signed:
            values = np.abs(values)
        try:
            x = backend.as_tensor(values.astype(bk.to_numpy_dtype(dtype)))
        except Exception:  # the backend has no such dtype
            continue
        if backend.dtype(x) != dtype:
            continue
        name = f"{dtype.name}[3]"
        if choice:
            found += [(f"{op}(bool[3], {name}, {name})", [condition, x, x]), (f"{op}(bool[3], {name}, 0.5)", [condition, x, 0.5])]
            found += [(f"{op}(bool[3], 0.5, {name})", [condition, 0.5, x]), (f"{op}(bool[3], {name}, 3)", [condition, x, 3])]
        elif family == "unary":
            found.append((f"{op}({name})", [x]))
        else:
            found += [(f"{op}({name}, {name})", [x, x]), (f"{op}({name}, 0.5)", [x, 0.5]), (f"{op}({name}, 3)", [x, 3])]
            found += [(f"{op}(0.5, {name})", [0.5, x]), (f"{op}(3, {name})", [3, x])]  # a number first: some fast calls take it
    return found


def generated_arguments(backend: bk.Backend, calls: Iterable[Call]) -> list[tuple[str, list[Any]]]:
    """The generated calls without keywords (which never take a fast call) as `(label, native arguments)`."""
    found = []
    for call in calls:
        if call.kwargs:
            continue
        try:
            found.append((repr(call), [_convert(backend, a, False) for a in call.args]))
        except Exception:  # the backend cannot hold the inputs
            continue
    return found


def fast_call_disagreements(backend: bk.Backend, op: str, calls: Iterable[tuple[str, list[Any]]]) -> tuple[int, list[str]]:
    """How many of `calls` (`(label, native arguments)`) `op`'s fast call serves on `backend`, and each served call
    whose result (error class, dtype, shape, values) differs from what the same kernel behind its plan gives."""
    from bk._dispatcher import dispatch

    found = fast_call_of(backend, op)
    if found is None:
        return 0, []
    kernel, fast = found
    planned = dispatch(op, kernel)  # the same kernel behind its plan, with no fast call
    served, differences = 0, []
    for label, args in calls:
        try:
            with np.errstate(all="ignore"):
                taken = fast(backend, *args)
        except Exception:
            taken = None  # it raised: the public call explains the failure, which must match the plan's
        if taken is NotImplemented:
            continue
        served += 1
        public = _outcome(backend, getattr(backend, op), args)
        plan = _outcome(backend, lambda *a: planned(backend, *a), args)
        if _differ(public, plan):
            differences.append(f"{label}: fast call {public.describe()}, plan {plan.describe()}")
        elif public.error is None and (problem := compare_values(public, plan)) is not None:
            differences.append(f"{label}: {problem}")
    return served, differences
