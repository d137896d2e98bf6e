"""Shared fixtures: one `tf` backend per session (importing TensorFlow takes seconds)."""

from __future__ import annotations

from typing import Any

import pytest

import bk


@pytest.fixture(scope="session")
def b() -> Any:
    return bk.backend("tf")


@pytest.fixture(scope="session")
def tf(b: Any) -> Any:
    import tensorflow

    return tensorflow
