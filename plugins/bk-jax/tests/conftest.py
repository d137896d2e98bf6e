"""Shared fixtures: one `jax` backend per session (importing JAX takes a second or more)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import bk


@pytest.fixture(scope="session")
def b() -> bk.Backend:
    """The jax backend, loaded once for the whole session."""
    return bk.backend("jax")


@pytest.fixture
def x64_off(b: bk.Backend, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """JAX's 64-bit mode switched off (and no JAX_ENABLE_X64 choice) for one test; restored afterwards."""
    import jax

    monkeypatch.delenv("JAX_ENABLE_X64", raising=False)
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    try:
        yield jax
    finally:
        jax.config.update("jax_enable_x64", before)
