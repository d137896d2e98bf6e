"""Behaviour that depends on how the process started: several devices, and x64 kept off by JAX_ENABLE_X64.

Both need a fresh interpreter (JAX reads them when it initialises), so one shared subprocess
reports what it saw, with two CPU devices (`--xla_force_host_platform_device_count`) and
`JAX_ENABLE_X64=0`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

SCRIPT = r"""
import json, warnings
import numpy as np
import bk
from bk import DType

warnings.simplefilter("error")
b = bk.backend("jax")
cpu0, cpu1 = b.list_devices("CPU")
report = {"devices": [d.ref.id for d in b.list_devices()], "default": b.get_default_device().ref.id}
report["float64_supported"] = b.supports("float64")
report["float64_data"] = str(b.as_tensor(np.ones(2)).dtype)
report["python_int"] = str(b.as_tensor(3).dtype)
try:
    b.zeros((1,), DType(float, 64))
except TypeError as error:
    report["float64_request"] = str(error)
moved = b.allocate_on_device(b.as_tensor([1.0, 2.0]), cpu1)
report["moved"] = [b.get_device(moved).ref.id, b.numpy(moved * 2).tolist()]
b.set_default_device(cpu1)
report["created"] = [b.get_device(f()).ref.id for f in (lambda: b.zeros((2,)), lambda: b.as_tensor(np.ones(2)), lambda: b.random_normal((2,), None), lambda: b.range(3))]
report["jitted"] = b.get_device(b.jit_compile(lambda x: x + 1)(b.ones((2,)))).ref.id
b.set_default_device(cpu0)
report["back"] = b.get_device(b.zeros((2,))).ref.id
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_ENABLE_X64="0", JAX_PLATFORMS="cpu")
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_every_device_is_listed_and_new_arrays_follow_the_default(report: dict[str, Any]) -> None:
    assert report["devices"] == [0, 1] and report["default"] == 0
    assert report["moved"] == [1, [2.0, 4.0]]
    assert report["created"] == [1, 1, 1, 1] and report["jitted"] == 1
    assert report["back"] == 0


def test_x64_kept_off_by_the_environment_is_respected(report: dict[str, Any]) -> None:
    assert report["float64_supported"] is False
    assert report["float64_data"] == "float32"
    assert report["python_int"] == "int32"  # as_tensor(3) is int64 only where x64 may be switched on
    assert "JAX_ENABLE_X64='0' keeps it off" in report["float64_request"]
