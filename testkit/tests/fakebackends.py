"""Throw-away NumPy-backed backends for the testkit's own tests (also installable as a plugin).

- `honest`: the required set plus sum, cos, exp, reshape and concat, all correct.
- `liar`: like honest, but `sum` adds one and `cos` computes the sine.
- `modest`: like honest plus a correct `abs` that `supports()` denies.
- `crashy`: like honest plus `sin` that hangs and `tanh` that kills the interpreter.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

import bk
from bk import check_tensor_argument, normalize_axes, normalize_axis, reraise_as


class Honest(bk.Backend):
    native_types = (np.ndarray,)  # it owns no module (NumPy's types belong to bk-numpy), so it names its tensor type

    def __init__(self, name: str = "honest") -> None:
        super().__init__(name, [], None)  # type: ignore[arg-type]
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, 1, "NumPy in tests", "cpu")
        self._devices, self._default_device = (cpu,), cpu

    # required set
    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        return isinstance(x, (np.ndarray, np.generic)) or (not only_native and isinstance(x, (bool, int, float, complex, list, tuple)))

    def as_tensor(self, x: Any, convert_external: bool = True) -> Any:
        array = np.asarray(x)
        p = bk.get_precision()
        if not isinstance(x, (np.ndarray, np.generic)) and array.dtype.kind in "fc":  # Python floats: the default float
            return array.astype(f"float{p or 32}" if array.dtype.kind == "f" else f"complex{2 * (p or 32)}")
        if p is not None and array.dtype.kind == "f":
            array = array.astype(f"float{p}")
        if p is not None and array.dtype.kind == "c":
            array = array.astype(f"complex{2 * p}")
        return array

    def is_available(self, tensor: Any) -> bool:
        return True

    def numpy(self, tensor: Any) -> np.ndarray:
        return np.asarray(tensor)

    def dtype(self, array: Any) -> bk.DType:
        if isinstance(array, bool):
            return bk.DType(bool)
        if isinstance(array, int):
            return bk.DType(int, 32)
        return bk.from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor: Any) -> tuple[int, ...]:
        return tuple(np.shape(tensor))

    def cast(self, x: Any, dtype: bk.DType) -> Any:
        return np.asarray(x).astype(bk.to_numpy_dtype(dtype), copy=False)

    # a few features
    def sum(self, value: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if type(value) in (bool, int, float, complex):  # a Python number sums as the tensor as_tensor makes of it
            value = self.as_tensor(value)
        if not isinstance(value, (np.ndarray, np.generic)):
            raise bk.ArgumentTypeError(f"sum: expected a tensor, got {type(value).__name__}")
        axes = normalize_axes(axis, np.ndim(value), "sum")  # the rules of docs/semantics.md
        return np.sum(value, axis=axes, keepdims=keepdims)

    def cos(self, x: Any) -> Any:
        return np.cos(_floats(x, "cos"))

    def exp(self, x: Any) -> Any:
        return np.exp(_floats(x, "exp"))

    def reshape(self, value: Any, shape: Any) -> Any:
        try:
            return np.reshape(value, shape)
        except ValueError as error:
            reraise_as(bk.ShapeMismatchError, "reshape", error)

    def concat(self, values: Any, axis: int) -> Any:
        if values:
            normalize_axis(axis, np.ndim(values[0]), "concat")  # a 0-d tensor has no axis: AxisError
        try:
            return np.concatenate(values, axis)
        except np.exceptions.AxisError as error:
            reraise_as(bk.AxisError, "concat", error)
        except ValueError as error:
            reraise_as(bk.ShapeMismatchError, "concat", error)


def _floats(x: Any, op: str) -> Any:
    """Ints and bools as the default float; None and strings raise ArgumentTypeError (docs/semantics.md)."""
    check_tensor_argument(x, op)
    x = np.asarray(x)
    return x.astype(f"float{bk.get_precision() or 32}") if x.dtype.kind in "biu" else x


class Liar(Honest):
    def __init__(self) -> None:
        super().__init__("liar")

    def sum(self, value: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return np.sum(value, axis=axis, keepdims=keepdims) + 1

    def cos(self, x: Any) -> Any:
        return np.sin(x)


class Modest(Honest):
    """Implements `abs` without claiming it."""

    def __init__(self) -> None:
        super().__init__("modest")

    def abs(self, x: Any) -> Any:
        check_tensor_argument(x, "abs")
        return np.abs(x)

    def supports(self, feature: Any) -> bool:
        return False if feature == "abs" else super().supports(feature)


class Crashy(Honest):
    def __init__(self) -> None:
        super().__init__("crashy")

    def sin(self, x: Any) -> Any:
        time.sleep(600)
        return np.sin(x)

    def tanh(self, x: Any) -> Any:
        os._exit(7)


_CLASSES = {"honest": Honest, "liar": Liar, "modest": Modest, "crashy": Crashy}


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    return [bk.BackendSpec(name=n, modules=(), load=f"fakebackends:{c.__name__}", priority=-1, description="test backend") for n, c in _CLASSES.items() if os.environ.get("FAKE_BACKENDS", n).find(n) >= 0]
