"""Fixtures shared by the cross-backend tests of this folder."""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator

import pytest

import bk

NAMESPACES = [name for name in ("numpy", "torch", "jax", "tf", "lazy", "dask") if name in bk.backends()]
"""The installed backends whose `bk.array_namespace` the namespace tests run on, and `strict` (array-api-strict
through bk-arrayapi) where both are installed."""
if importlib.util.find_spec("array_api_strict") and importlib.util.find_spec("bk_arrayapi"):
    NAMESPACES.append("strict")


@contextlib.contextmanager
def _registered(param: str, name: str) -> Iterator[str]:
    """The backend name of the parameter `param`: itself, or for `strict` array-api-strict registered through
    bk-arrayapi as `name` while the block runs."""
    if param != "strict":
        yield param
        return
    import bk_arrayapi

    bk_arrayapi.register(name, "array_api_strict")
    try:
        yield name
    finally:
        bk_arrayapi.unregister(name)


@pytest.fixture(scope="module", params=NAMESPACES)
def xp(request: pytest.FixtureRequest) -> Iterator[object]:
    """`bk.array_namespace` of each backend of `NAMESPACES` (array-api-strict registered for the module's tests)."""
    with _registered(request.param, "nsstrict") as name:
        yield bk.array_namespace(name)


@pytest.fixture(scope="module", params=NAMESPACES)
def b(request: pytest.FixtureRequest) -> Iterator[bk.Backend]:
    """Each backend of `NAMESPACES`: the installed ones, and array-api-strict through bk-arrayapi (registered for
    the module's tests). A module that defines its own `b` uses that one."""
    with _registered(request.param, "everystrict") as name:
        yield bk.backend(name)
