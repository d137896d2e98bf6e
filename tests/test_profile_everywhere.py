"""Profiling on every installed backend: calls recorded with their backend, trace files, nothing left behind."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]


def energy(b: bk.Backend, x):
    y = b.add(x, 1.0)
    return b.sum(b.mul(y, y))


@pytest.mark.parametrize("name", BACKENDS)
def test_profile_records_the_calls_of_each_backend(name: str, tmp_path):
    b = bk.backend(name)
    x = b.as_tensor(np.arange(4, dtype=np.float32))
    before, class_before = dict(vars(b)), dict(vars(type(b)))
    path = tmp_path / "trace.json"
    with bk.profile([b], save=str(path)) as prof:
        total = energy(b, x)
    assert float(b.numpy(total)) == pytest.approx(float(np.sum((np.arange(4) + 1.0) ** 2)))
    assert [(c.backend, c.function) for c in prof.backend_calls] == [(name, "add"), (name, "mul"), (name, "sum")]
    assert prof.backend_calls[0].arguments == "float32[4], 1.0"
    events = json.loads(path.read_text())["traceEvents"]
    recorded = [e["name"] for e in events if e["ph"] == "X" and e["pid"] == 1]
    nested = [f"{name}.{c.function}" for c in _with_children(prof.backend_calls)]
    assert recorded == nested and nested[0] == f"{name}.add" and f"{name}.sum" in nested
    assert vars(b) == before and dict(vars(type(b))) == class_before


def _with_children(calls):
    for call in calls:
        yield call
        yield from _with_children(call.children)


@pytest.mark.parametrize("name", BACKENDS)
def test_profile_function_of_a_solve(name: str):
    b = bk.backend(name)
    matrix = b.as_tensor(np.diag(np.arange(1.0, 6.0)))
    y = b.as_tensor(np.ones((1, 5)))

    def solve():
        return b.linear_solve("CG", matrix, y, b.zeros_like(y), 1e-8, 0.0, 100, None, None)

    prof = bk.profile_function(solve, backends=[name], warmup=1, call_count=2)
    assert [c.function for c in prof.backend_calls] == ["zeros_like", "linear_solve"]
    steps = {c.function for c in _with_children(prof.backend_calls[1].children)}
    assert "conjugate_gradient" in steps and "while_loop" in steps  # the solve's own operations are its children
    assert all(c.start <= c.stop for c in prof.backend_calls)  # averaged over the calls, still intervals
