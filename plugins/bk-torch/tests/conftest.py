from __future__ import annotations

import pytest

import bk


@pytest.fixture(scope="session")
def b() -> bk.Backend:
    """The torch backend, loaded once for the whole session (importing torch takes seconds)."""
    return bk.backend("torch")
