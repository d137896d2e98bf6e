"""Runs the testkit's generated calls of every operation on one backend and pickles what happened.

    python tests/roads_worker.py BACKEND OUT.pickle [--thorough] [OP ...]

`tests/test_c_and_python_roads.py` runs it twice, once as installed (the dispatcher's C front and
bk-numpy's C operators) and once with `BK_PURE_PYTHON=1 BK_NUMPY_PURE_PYTHON=1` (the pure-Python
road), and compares the two records: the outcome of every call and the plan compiled for every
call signature. A fresh interpreter per road is needed because the road is chosen when the backend
classes are built.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

import numpy as np


def _plan_summary(plan: Any) -> dict[str, str]:
    """A plan's steps by field, functions by their qualified name (comparable across processes)."""
    fields: dict[str, str] = {}
    for slot in type(plan).__slots__:
        if slot == "constants":  # converted Python numbers, a cache filled as calls run
            continue
        value = getattr(plan, slot)
        fields[slot] = getattr(value, "__qualname__", None) or repr(value)
    return fields


def record(backend_name: str, operations: list[str], thorough: bool) -> dict[str, Any]:
    """{"road", "calls": [(op, call, outcome)], "plans": {op: {key: summary}}} for `backend_name`."""
    import bk
    from bk import _dispatcher
    from bk_testkit._generated import calls, error_class, execute, set_thorough
    from bk_testkit._strategies import OPERATIONS

    set_thorough(thorough)  # as many calls as `testkit diff` draws, or as `testkit certify`

    backend = bk.backend(backend_name)
    chosen = operations or sorted(OPERATIONS)
    outcomes: list[tuple[str, str, Any]] = []
    for op in chosen:
        for call in (*calls(op, "valid"), *calls(op, "invalid")):
            outcome = execute(backend, call)
            if outcome.error is not None:
                described: Any = ("error", error_class(outcome.error), str(outcome.error).split("\n")[0])
            else:
                described = ("values", [d.name for d in outcome.dtypes], list(outcome.static), [np.asarray(v) for v in outcome.values])
            outcomes.append((op, repr(call), described))
    plans: dict[str, dict[str, dict[str, str]]] = {}
    for op in chosen:
        method = getattr(type(backend), op, None)
        cache = getattr(method, "__bk_plans__", None)
        if cache:
            plans[op] = {repr(key): _plan_summary(plan) for key, plan in cache.items()}
    return {
        "road": "C" if _dispatcher.C_FRONT else "Python",
        "calls": outcomes,
        "plans": plans,
        "namespace": namespace_calls(backend_name),
        "shortcuts": shortcuts(backend_name),
    }


def _namespace_cases(xp: Any) -> list[tuple[str, Any]]:
    """Calls of `bk.array_namespace`'s functions, as `(label, thunk)`: those the C road sends to the catalogue at once
    (`_fastplan.Shortcut`: shapes as ints or tuples, `dtype=`, operands of exact types) and those it leaves to the
    adapter (lists as shapes, other keywords, mistakes), with and without a precision."""
    x = xp.asarray(np.linspace(0.0, 1.0, 10, dtype=np.float32))
    y = xp.asarray(np.linspace(1.0, 2.0, 10, dtype=np.float32))
    i = xp.asarray(np.arange(10, dtype=np.int32))
    m = xp.asarray(np.arange(16, dtype=np.float32).reshape(4, 4))
    c = xp.asarray(np.arange(10) % 3 == 0)
    calls = {
        "zeros(10)": lambda: xp.zeros(10),
        "zeros((2, 3), dtype=float64)": lambda: xp.zeros((2, 3), dtype=xp.float64),
        "zeros([2, 3])": lambda: xp.zeros([2, 3]),
        "zeros(-1)": lambda: xp.zeros(-1),
        "zeros(2.5)": lambda: xp.zeros(2.5),
        "ones(4, dtype=int32)": lambda: xp.ones(4, dtype=xp.int32),
        "ones(())": lambda: xp.ones(()),
        "empty(3)": lambda: xp.empty(3),
        "full(3, 2.0)": lambda: xp.full(3, 2.0),
        "full((2,), 7, dtype=int8)": lambda: xp.full((2,), 7, dtype=xp.int8),
        "full(2, 300, dtype=int8)": lambda: xp.full(2, 300, dtype=xp.int8),
        "arange(10)": lambda: xp.arange(10),
        "arange(1, 7, 2)": lambda: xp.arange(1, 7, 2),
        "arange(0.0, 1.0, 0.25)": lambda: xp.arange(0.0, 1.0, 0.25),
        "linspace(0.0, 1.0, 5)": lambda: xp.linspace(0.0, 1.0, 5),
        "eye(3)": lambda: xp.eye(3),
        "eye(2, 3, k=1)": lambda: xp.eye(2, 3, k=1),
        "zeros_like(x)": lambda: xp.zeros_like(x),
        "ones_like(i, dtype=int64)": lambda: xp.ones_like(i, dtype=xp.int64),
        "full_like(x, 2.0)": lambda: xp.full_like(x, 2.0),
        "empty_like(i)": lambda: xp.empty_like(i),
        "asarray([1.0, 2.0], dtype=float32)": lambda: xp.asarray([1.0, 2.0], dtype=xp.float32),
        "asarray(x)": lambda: xp.asarray(x),
        "reshape(x, (2, 5))": lambda: xp.reshape(x, (2, 5)),
        "reshape(x, (3, 5))": lambda: xp.reshape(x, (3, 5)),
        "matmul(m, m)": lambda: xp.matmul(m, m),
        "matmul(m, x)": lambda: xp.matmul(m, x),
        "where(c, x, y)": lambda: xp.where(c, x, y),
        "where(c, i, 2.5)": lambda: xp.where(c, i, 2.5),
        "add(x, y)": lambda: xp.add(x, y),
        "add(i, 3)": lambda: xp.add(i, 3),
        "add(x, i)": lambda: xp.add(x, i),
        "multiply(x, 2.0)": lambda: xp.multiply(x, 2.0),
        "sin(x)": lambda: xp.sin(x),
        "exp(i)": lambda: xp.exp(i),
        "sum(x)": lambda: xp.sum(x),
        "sum(i, axis=0)": lambda: xp.sum(i, axis=0),
        "mean(x, axis=0)": lambda: xp.mean(x, axis=0),
        "max(x)": lambda: xp.max(x),
        "max(i, axis=3)": lambda: xp.max(i, axis=3),
    }
    return list(calls.items())


def namespace_calls(backend_name: str) -> list[tuple[str, Any]]:
    """The outcome of each of `_namespace_cases` on `bk.array_namespace(backend_name)`, without a precision and with
    64-bit precision (where the catalogue call follows the precision and the namespace's does not)."""
    import bk

    xp = bk.array_namespace(backend_name)
    backend = bk.backend(backend_name)
    found: list[tuple[str, Any]] = []
    for precision in (None, 64):
        with bk.precision(precision):
            for label, thunk in _namespace_cases(xp):
                try:
                    result = thunk()
                except Exception as error:  # the outcome to compare
                    found.append((f"{label} @ {precision}", ("error", type(error).__name__, str(error).split("\n")[0])))
                    continue
                values = np.asarray(backend.numpy(result))
                found.append((f"{label} @ {precision}", ("values", values.dtype.name, values.shape, None if "empty" in label else values)))
    return found


def shortcuts(backend_name: str) -> list[str]:
    """The functions of `bk.array_namespace(backend_name)` that are the C front's `Shortcut` (none on the Python road)."""
    import bk

    xp = bk.array_namespace(backend_name)
    return sorted(name for name in dir(xp) if type(getattr(xp, name, None)).__name__ == "Shortcut")


if __name__ == "__main__":
    name, out, *ops = sys.argv[1:]
    thorough = "--thorough" in ops
    with open(out, "wb") as file:
        pickle.dump(record(name, [op for op in ops if op != "--thorough"], thorough), file)
