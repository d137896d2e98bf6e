"""The testkit on a lazy backend: it computes only where it compares, and fails operations that
compute behind the user's back unless they are declared in `computing_operations`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import bk
from bk_testkit._case import CATALOGUE, Case, Trial
from bk_testkit._run import PASSED, run_case


class Deferred:
    """A lazy value: a thunk with a known dtype and shape."""

    def __init__(self, thunk: Callable[[], np.ndarray], dtype: np.dtype, shape: tuple[int, ...]) -> None:
        self.thunk, self.np_dtype, self.shape = thunk, np.dtype(dtype), shape


class Lazy(bk.Backend):
    """Lazy NumPy: `cos`, `reshape` and `cast` defer; `sum` computes without saying so; `exp`
    computes and declares it."""

    computing_operations = frozenset({"exp"})

    def __init__(self) -> None:
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, 1, "lazy NumPy in tests", "cpu")
        super().__init__("lazyfake", [cpu], cpu)
        self.computes = 0

    def compute_count(self) -> int | None:
        return self.computes

    def _defer(self, function: Callable[[np.ndarray], np.ndarray], x: Deferred) -> Deferred:
        out = function(np.zeros(x.shape, x.np_dtype))  # dtype and shape from a stand-in, no compute
        return Deferred(lambda: function(x.thunk()), out.dtype, out.shape)

    def _compute(self, x: Deferred) -> np.ndarray:
        self.computes += 1
        return x.thunk()

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        return isinstance(x, Deferred) or (not only_native and isinstance(x, (np.ndarray, np.generic, bool, int, float, complex, list, tuple)))

    def as_tensor(self, x: Any, convert_external: bool = True) -> Deferred:
        if isinstance(x, Deferred):
            return x
        array = np.asarray(x)
        p = bk.get_precision()
        if p is not None and array.dtype.kind == "f":
            array = array.astype(f"float{p}")
        return Deferred(lambda: array, array.dtype, array.shape)

    def is_available(self, tensor: Any) -> bool:
        return not isinstance(tensor, Deferred)

    def numpy(self, tensor: Any) -> np.ndarray:
        return self._compute(tensor) if isinstance(tensor, Deferred) else np.asarray(tensor)

    def dtype(self, array: Any) -> bk.DType:
        if isinstance(array, Deferred):
            return bk.from_numpy_dtype(array.np_dtype)
        if isinstance(array, bool):
            return bk.DType(bool)
        return bk.DType(int, 32) if isinstance(array, int) else bk.from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor: Any) -> tuple[int, ...]:
        return tensor.shape if isinstance(tensor, Deferred) else np.shape(tensor)

    def cast(self, x: Any, dtype: bk.DType) -> Deferred:
        return self._defer(lambda a: a.astype(bk.to_numpy_dtype(dtype)), self.as_tensor(x))

    def cos(self, x: Any) -> Deferred:
        return self._defer(lambda a: np.cos(a.astype(np.float32) if a.dtype.kind in "biu" else a), self.as_tensor(x))  # ints: float32

    def reshape(self, value: Any, shape: Any) -> Deferred:
        try:
            return self._defer(lambda a: np.reshape(a, shape), self.as_tensor(value))
        except ValueError as error:  # sizes that do not fit (docs/semantics.md)
            raise bk.ShapeMismatchError(f"reshape: {error}") from error

    def sum(self, value: Any, axis: Any = None, keepdims: bool = False) -> Deferred:
        result = np.asarray(np.sum(self._compute(self.as_tensor(value)), axis=axis, keepdims=keepdims))
        return self.as_tensor(result)

    def exp(self, x: Any) -> Deferred:
        """Computes `x` (declared in `computing_operations`)."""
        a = self._compute(self.as_tensor(x))
        return self.as_tensor(np.exp(a.astype(np.float32) if a.dtype.kind in "biu" else a))  # ints: float32


def test_lazy_operations_pass_and_undeclared_computes_fail():
    # the features' main cases (the edge cases check rules this small fake does not follow)
    backend = Lazy()
    outcomes = {}
    for feature in ("cos", "reshape", "cast", "exp", "sum"):
        for c in CATALOGUE[feature]:
            if not c.name.startswith("edge-"):
                outcomes[c.id] = run_case(backend, c, precisions=(None,))
    failed = {case: r.message for case, r in outcomes.items() if r.outcome != PASSED}
    assert failed and {case.split("/")[0] for case in failed} == {"sum"}, failed
    assert all("behind the user's back (not declared in computing_operations)" in m for m in failed.values()), failed


def test_comparisons_and_explicit_numpy_are_the_testkits_computes():
    backend = Lazy()

    def explicit(t: Trial) -> None:
        x = t.b.cos(t.tensor([0.0, 1.0]))
        t.compare(t.b.numpy(x), np.cos([0.0, 1.0]), "cos", bk.DType(float, 64))
        t.check(x, np.cos([0.0, 1.0]), "cos")
        assert t.computes == 2, t.computes

    case = Case("cos", "explicit-numpy", explicit)
    result = run_case(backend, case, precisions=(None,))
    assert (result.outcome, backend.compute_count()) == (PASSED, 2), result.message
    assert "numpy" not in vars(backend)  # the counting wrapper is removed after the case
    assert CATALOGUE["cos"]  # the catalogue itself is untouched


def test_eager_backends_report_no_computes():
    numpy_backend = bk.backend("numpy")
    assert numpy_backend.compute_count() is None
    assert numpy_backend.computing_operations == frozenset()
