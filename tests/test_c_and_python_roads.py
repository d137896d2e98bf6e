"""The C front and the pure-Python road give the same plans and the same results (issue 38, point 4).

The dispatcher's C front (`_fastplan*.c`: a call's key and the plan lookup, `_fastplan_lookup.c`; the direct
call, `DirectCall`, `_fastplan_direct.c`; the namespace's direct call, `Shortcut`, `_fastplan_namespace.c`)
and bk-numpy's C operators (`_fastops.c`) only accelerate: the pure-Python road
(`BK_PURE_PYTHON=1 BK_NUMPY_PURE_PYTHON=1`) is the reference. Each road runs in its own interpreter
(`tests/roads_worker.py`; the road is chosen when the backend classes are built) on the testkit's
generated calls of every operation (on numpy as many as `testkit diff` draws, on torch as many as
`testkit certify` draws), and the two records must agree:

- every call: the same error class and message, or the same dtypes, static shapes and values
  (bit for bit; random operations are unseeded, so only their dtypes and shapes);
- every call signature that both roads planned: the same plan, step by step;
- a signature only one road planned was served by a fast path on the other road, which only an
  operation with a fast path may do;
- every call of `bk.array_namespace`'s functions in `roads_worker._namespace_cases`, which the C road sends
  through `_fastplan.Shortcut` where it can and the Python road through the adapters: the same outcome.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bk
from bk import _dispatcher

WORKER = Path(__file__).with_name("roads_worker.py")
PURE = {"BK_PURE_PYTHON": "1", "BK_NUMPY_PURE_PYTHON": "1"}
BACKENDS = [name for name in ("numpy", "torch") if name in bk.backends()]
THOROUGH = {"numpy": True, "torch": False}  # torch's calls cost more; its fast calls are fewer kinds (DirectCall)

pytestmark = pytest.mark.skipif(not _dispatcher.C_FRONT, reason="bk-core was built without the dispatcher's C front: there is one road only")


@pytest.fixture(scope="module", params=BACKENDS)
def roads(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The backend, and the records of its C road and its pure-Python road, run side by side once per module."""
    backend = request.param
    tmp_path = tmp_path_factory.mktemp(f"roads-{backend}")
    env = {k: v for k, v in os.environ.items() if k not in PURE}
    outputs = (tmp_path / "c.pickle", tmp_path / "python.pickle")
    runs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), backend, str(out), *(["--thorough"] if THOROUGH[backend] else [])],
            env=environment,
            stderr=subprocess.PIPE,
            text=True,
        )
        for out, environment in zip(outputs, (env, {**env, **PURE}), strict=True)
    ]
    for run in runs:
        _, err = run.communicate(timeout=900)
        assert run.returncode == 0, err[-3000:]
    c_road, python_road = (pickle.loads(out.read_bytes()) for out in outputs)
    assert (c_road["road"], python_road["road"]) == ("C", "Python")
    return backend, c_road, python_road


def _same_values(op: str, a: list[np.ndarray], b: list[np.ndarray]) -> str | None:
    if op.startswith("random_"):
        return None
    for x, y in zip(a, b, strict=True):
        if x.dtype.name == "bfloat16":  # NumPy compares bfloat16 NaNs as unequal: compare their float32 values
            x, y = x.astype(np.float32), y.astype(np.float32)
        try:
            np.testing.assert_array_equal(x, y, strict=True)
        except AssertionError as error:
            return str(error)
    return None


def _has_fast_path(backend: bk.Backend, op: str) -> bool:
    declared = type(backend).declared_kernels().get(op)
    return declared is not None and declared.fast is not None


def test_the_c_front_and_the_python_road_agree_on_every_generated_call(roads: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    _, c_road, python_road = roads
    assert len(c_road["calls"]) == len(python_road["calls"]) > (1000 if THOROUGH[roads[0]] else 300)
    differences = []
    for (op, call, first), (op2, call2, second) in zip(c_road["calls"], python_road["calls"], strict=True):
        assert (op, call) == (op2, call2), "the roads drew different calls"
        if first[:3] != second[:3]:
            differences.append(f"{call[:200]}: C {first[:3]} / Python {second[:3]}")
        elif first[0] == "values" and (problem := _same_values(op, first[3], second[3])) is not None:
            differences.append(f"{call[:200]}: {problem[:400]}")
    assert not differences, f"{len(differences)} calls differ:\n" + "\n".join(differences[:20])


def test_the_c_front_and_the_python_road_compile_the_same_plans(roads: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    backend, c_road, python_road = roads
    instance = bk.backend(backend)
    compared = 0
    differences, one_sided = [], []
    for op in sorted(set(c_road["plans"]) | set(python_road["plans"])):
        first, second = c_road["plans"].get(op, {}), python_road["plans"].get(op, {})
        for key in sorted(set(first) & set(second)):
            compared += 1
            if first[key] != second[key]:
                differences.append(f"{op} {key}: C {first[key]} / Python {second[key]}")
        if set(first) ^ set(second) and not _has_fast_path(instance, op):
            one_sided.append(op)
    assert compared > (1000 if THOROUGH[backend] else 200)
    assert not differences, f"{len(differences)} plans differ:\n" + "\n".join(differences[:20])
    assert not one_sided, f"signatures planned on one road only, for operations without a fast path: {one_sided}"


def test_the_namespace_gives_the_same_on_both_roads(roads: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    """`_fastplan.Shortcut` (the namespace's direct call of the catalogue operation, C road) against the adapters
    (Python road): the same error class and message, or the same dtype, shape and values, with and without a precision."""
    _, c_road, python_road = roads
    assert c_road["shortcuts"] and not python_road["shortcuts"], "the C road serves some namespace functions by a Shortcut, the Python road none"
    assert "zeros" in c_road["shortcuts"] and "sum" in c_road["shortcuts"]
    differences = []
    for (label, first), (label2, second) in zip(c_road["namespace"], python_road["namespace"], strict=True):
        assert label == label2
        if first[:3] != second[:3]:
            differences.append(f"{label}: C {first[:3]} / Python {second[:3]}")
        elif first[0] == "values" and first[3] is not None and (problem := _same_values(label, [first[3]], [second[3]])) is not None:
            differences.append(f"{label}: {problem[:300]}")
    assert len(c_road["namespace"]) > 70 and any(outcome[0] == "error" for _, outcome in c_road["namespace"])
    assert not differences, f"{len(differences)} namespace calls differ:\n" + "\n".join(differences)
