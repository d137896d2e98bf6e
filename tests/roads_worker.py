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
    return {"road": "C" if _dispatcher.C_FRONT else "Python", "calls": outcomes, "plans": plans}


if __name__ == "__main__":
    name, out, *ops = sys.argv[1:]
    thorough = "--thorough" in ops
    with open(out, "wb") as file:
        pickle.dump(record(name, [op for op in ops if op != "--thorough"], thorough), file)
