"""The tests declare their own namespaces: a `BK_ARRAYAPI` of the environment (as `make test`'s
certification sets it) would add a second backend for array_api_strict and change which one owns
its arrays, so each test module runs without it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import bk
from bk_arrayapi.plugin import ENV_VAR


@pytest.fixture(autouse=True, scope="module")
def _without_declarations_of_the_environment() -> Iterator[None]:
    declared = os.environ.pop(ENV_VAR, None)
    if declared is not None:
        bk.refresh()
    try:
        yield
    finally:
        if declared is not None:
            os.environ[ENV_VAR] = declared
            bk.refresh()
