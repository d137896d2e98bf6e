"""Fixtures of the core's tests: throw-away plugins installed on a temporary `sys.path` entry.

The core's tests need no framework. Fake "frameworks" are tiny modules whose tensor type wraps a
NumPy array; their backends are real plugins, discovered through `*.dist-info/entry_points.txt`.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import bk
from bk import DType, _context
from bk._choose import _reset_owner_cache

# A fake framework: a module that defines a tensor type. `{name}` is substituted.
FAKE_FRAMEWORK = '''
import numpy as np

class Tensor:
    """A fake framework tensor wrapping a NumPy array."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __repr__(self):
        return f"{name}.Tensor({{self.array!r}})"
'''

# The backend of a fake framework: the required set plus DLPack and a few operations.
FAKE_BACKEND = '''
import numpy as np
import bk
import {name}

class FakeBackend(bk.Backend):
    def __init__(self):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, 1, "fake", "cpu")
        super().__init__("{name}", [cpu], cpu)

    def is_tensor(self, x, only_native=False):
        if isinstance(x, {name}.Tensor):
            return True
        return not only_native and isinstance(x, (int, float, bool, complex, np.ndarray, list, tuple))

    def as_tensor(self, x, convert_external=True):
        return x if isinstance(x, {name}.Tensor) else {name}.Tensor(np.asarray(x))

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return tensor.array if isinstance(tensor, {name}.Tensor) else np.asarray(tensor)

    def dtype(self, array):
        return bk.from_numpy_dtype(self.numpy(array).dtype)

    def staticshape(self, tensor):
        return self.numpy(tensor).shape

    def cast(self, x, dtype):
        return {name}.Tensor(self.numpy(x).astype(bk.to_numpy_dtype(dtype)))

    def to_dlpack(self, tensor):
        return tensor

    def from_dlpack(self, capsule):
        return {name}.Tensor(np.from_dlpack(capsule))

    def sum(self, value, axis=None, keepdims=False):
        return {name}.Tensor(np.sum(self.numpy(value), axis=axis, keepdims=keepdims))
'''

PLUGIN = '''
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="{name}", modules=("{name}",), load="{name}_backend:FakeBackend", priority={priority}, api={api})]
'''


@dataclass
class Site:
    """A temporary `sys.path` entry to install throw-away plugins into."""

    path: Path
    monkeypatch: pytest.MonkeyPatch

    def activate(self, *plugins: str) -> list[str]:
        """Enables the entry points `plugins` (through BK_PLUGINS) and discovers again."""
        self.monkeypatch.setenv("BK_PLUGINS", ",".join(plugins))
        names = bk.refresh()
        _context.GLOBALS.default_backend = None
        return names

    def module(self, name: str, source: str) -> None:
        (self.path / f"{name}.py").write_text(textwrap.dedent(source))

    def distribution(self, dist: str, entry_points: dict[str, str], version: str = "1.0") -> None:
        info = self.path / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
        (info / "entry_points.txt").write_text(f"[bk.backends]\n{lines}")

    def fake_framework(self, name: str, priority: int = 10, api: int = bk.API_VERSION, dist: str | None = None) -> None:
        """A fake framework module `name`, its backend, and a plugin distribution for it."""
        self.module(name, FAKE_FRAMEWORK.format(name=name))
        self.module(f"{name}_backend", FAKE_BACKEND.format(name=name))
        self.module(f"{name}_plugin", PLUGIN.format(name=name, priority=priority, api=api))
        self.distribution(dist or f"bk-{name}", {name: f"{name}_plugin"})


def reset_bk() -> None:
    """Forgets discovered plugins, cached ownership and the global default backend."""
    _context.GLOBALS.default_backend = None
    bk.set_global_precision(None)
    bk.refresh()
    _reset_owner_cache()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """A temporary site on `sys.path`; only its plugins are loaded (autoload of others is disabled)."""
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    monkeypatch.setenv("BK_DISABLE_PLUGIN_AUTOLOAD", "1")
    for variable in ("BK_PLUGINS", "BK_BLOCK_PLUGINS", "BK_DEFAULT_BACKEND", "BK_STRICT_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    before = set(sys.modules)
    yield Site(path, monkeypatch)
    monkeypatch.undo()
    for name in set(sys.modules) - before:  # fake frameworks must not leak into other tests
        if name.startswith(("fake", "broken")):
            del sys.modules[name]
    reset_bk()



# ---------------------------------------------------------------- NumPy-backed fake backends

class Minimal(bk.Backend):
    """Implements only the required set, on NumPy arrays."""

    native_types = (np.ndarray,)  # not a plugin: its native tensor type is declared

    def __init__(self) -> None:
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "", "cpu")
        super().__init__("minimal", [cpu], cpu)

    def is_tensor(self, x, only_native=False):
        return isinstance(x, np.ndarray) or (not only_native and isinstance(x, (int, float, bool, list, tuple)))

    def as_tensor(self, x, convert_external=True):
        return np.asarray(x)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return np.asarray(tensor)

    def dtype(self, array):
        if isinstance(array, bool):
            return DType(bool)
        if isinstance(array, int):
            return DType(int, 32)
        if isinstance(array, float):
            return DType(float, 64)
        return bk.from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor):
        return np.shape(tensor)

    def cast(self, x, dtype):
        return np.asarray(x).astype(bk.to_numpy_dtype(dtype), copy=False)


class Richer(Minimal):
    """A few primitives more, enough for most generic defaults."""

    def __init__(self) -> None:
        super().__init__()
        self._name = "richer"

    def stack(self, values, axis=0):
        return np.stack(values, axis)

    def tile(self, value, multiples):
        return np.tile(value, multiples)

    def pad(self, value, pad_width, mode="constant", constant_values=0):
        if mode != "constant":
            return NotImplemented
        return np.pad(value, pad_width, constant_values=constant_values)

    def gather(self, values, indices, axis):
        return np.take(values, indices, axis)

    def exp(self, x):
        return np.exp(x)

    def log_gamma(self, x):
        from math import lgamma

        return np.vectorize(lgamma)(x)

    def reshape(self, value, shape):
        return np.reshape(value, shape)

    def zeros(self, shape, dtype=None):
        return np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type))

    def batched_gather_nd(self, values, indices):
        batch = np.arange(max(values.shape[0], indices.shape[0])).reshape((-1,) + (1,) * (indices.ndim - 2))
        return values[(batch, *np.moveaxis(indices, -1, 0))]

    def scatter(self, base_grid, indices, values, mode):
        result = base_grid.copy()
        batch = np.arange(result.shape[0])[:, None]
        index = (batch, *np.moveaxis(np.broadcast_to(indices, (result.shape[0], *indices.shape[1:])), -1, 0))
        values = np.broadcast_to(values, (result.shape[0], indices.shape[1], result.shape[-1]))
        if mode == "add":
            np.add.at(result, index, values)
        else:
            result[index] = values
        return result

    def range(self, start, limit=None, delta=1, dtype=DType(int, 32)):
        return np.arange(start, limit, delta, bk.to_numpy_dtype(dtype)) if limit is not None else np.arange(start, dtype=bk.to_numpy_dtype(dtype))

    def repeat(self, x, repeats, axis, new_length=None):
        return np.repeat(x, repeats, axis)

    def any(self, boolean_tensor, axis=None, keepdims=False):
        return np.any(boolean_tensor, axis=axis, keepdims=keepdims)

    def sum(self, value, axis=None, keepdims=False):
        return np.sum(value, axis=axis, keepdims=keepdims)

    def clip(self, x, minimum, maximum):
        return np.clip(x, minimum, maximum)

    def all(self, boolean_tensor, axis=None, keepdims=False):
        return np.all(boolean_tensor, axis=axis, keepdims=keepdims)

    def where(self, condition, x=None, y=None):
        return np.where(condition, x, y)

    def stop_gradient(self, value):
        return value

    def copy(self, tensor, only_mutable=False):
        return np.copy(tensor)

    def divide_no_nan(self, x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(y == 0, 0, x / np.where(y == 0, 1, y))

    def isfinite(self, x):
        return np.isfinite(x)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def ones(self, shape, dtype=None):
        return np.ones(shape, bk.to_numpy_dtype(dtype or self.float_type))

    def mul_matrix_batched_vector(self, A, b):
        return (A @ b.T).T


def trust(cls: type, names: object, why: str = "a test backend's kernel, called as it is") -> type:
    """Declares the kernels of `names` that `cls` (or a test class it derives from) defines trusted, each with
    `register_kernel`: what a `trusted_operations` set in the class body declared before (names of generic
    defaults are left out: they are always planned)."""
    for name in sorted(names):  # type: ignore[call-overload]
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is not None and owner not in bk.Backend.__mro__:
            cls.register_kernel(name, getattr(cls, name), trusted=True, why=why)  # type: ignore[attr-defined]
    return cls


@pytest.fixture
def minimal() -> Minimal:
    """A backend with only the required set."""
    return Minimal()


@pytest.fixture
def richer() -> Richer:
    """A NumPy-backed backend with enough primitives for most generic defaults."""
    return Richer()
