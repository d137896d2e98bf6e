"""The one call path: a kernels-only third-party backend against NumPy's own calls, side by side.

The backend's tensors are an ndarray subclass owned by no installed plugin, and its kernels are bare
NumPy calls: every rule (the spec's verdict, the Python number's dtype, the result's dtype) comes from
the core's plan, so what these figures measure beyond NumPy's call is the plan's key and lookup.
"""

from __future__ import annotations

import numpy as np
from _harness import Figure, interleaved_ns

import bk


class PlanArray(np.ndarray):
    """NumPy's array under another name: a framework no installed plugin owns."""


class KernelsOnly(bk.Backend):
    """A backend as docs/write-a-plugin.md describes the minimum: the required set and bare kernels."""

    native_types = (PlanArray,)

    def __init__(self) -> None:
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "numpy", "cpu")
        super().__init__("kernels-only", [cpu], cpu)

    def is_tensor(self, x, only_native=False):  # type: ignore[no-untyped-def]
        return isinstance(x, PlanArray) or (not only_native and isinstance(x, (bool, int, float, complex, list, tuple, np.ndarray)))

    def as_tensor(self, x, convert_external=True):  # type: ignore[no-untyped-def]
        return x if isinstance(x, PlanArray) else np.asarray(x).view(PlanArray)

    def is_available(self, tensor):  # type: ignore[no-untyped-def]
        return True

    def numpy(self, tensor):  # type: ignore[no-untyped-def]
        return np.asarray(tensor).view(np.ndarray)

    def dtype(self, array):  # type: ignore[no-untyped-def]
        return bk.from_numpy_dtype(array.dtype)

    def staticshape(self, tensor):  # type: ignore[no-untyped-def]
        return tensor.shape

    def cast(self, x, dtype):  # type: ignore[no-untyped-def]
        return x.astype(bk.to_numpy_dtype(dtype))

    def add(self, a, b):  # type: ignore[no-untyped-def]
        return np.add(a, b)

    def sin(self, x):  # type: ignore[no-untyped-def]
        return np.sin(x)

    def sum(self, value, axis=None, keepdims=False):  # type: ignore[no-untyped-def]
        return np.sum(value, axis=axis, keepdims=keepdims)


def run() -> list[Figure]:
    b = KernelsOnly()
    x = np.ones(10, np.float32).view(PlanArray)
    for call in (lambda: b.add(x, 2.0), lambda: b.add(x, x), lambda: b.sin(x), lambda: b.sum(x)):
        call()  # compiles the plans
    assert b.add(x, 2.0).dtype == np.float32 and type(b.add(x, 2.0)) is PlanArray
    namespace = {"b": b, "x": x, "np": np, "add": np.add, "sin": np.sin, "total": np.sum}
    statements = {
        "bk_scalar": "b.add(x, 2.0)", "np_scalar": "add(x, 2.0)",
        "bk_add": "b.add(x, x)", "np_add": "add(x, x)",
        "bk_sin": "b.sin(x)", "np_sin": "sin(x)",
        "bk_sum": "b.sum(x)", "np_sum": "total(x)",
    }  # fmt: skip
    ns = interleaved_ns(statements, repeat=31, number=5_000, namespace=namespace)  # type: ignore[arg-type]
    figures = []
    for name, label in (("scalar", "add(x, 2.0)"), ("add", "add(x, x)"), ("sin", "sin(x)"), ("sum", "sum(x)")):
        ratio = ns[f"bk_{name}"] / ns[f"np_{name}"]
        note = f"({ns[f'bk_{name}']:.0f} ns; NumPy {ns[f'np_{name}']:.0f} ns, 10 float32, in the same run)"
        figures.append(Figure(f"kernels-only plugin {label} / NumPy's call", ratio, 2.0, "x", note))
    return figures
