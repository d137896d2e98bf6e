"""A shape mistake raises bk.ShapeMismatchError naming the operation and both shapes, on every installed backend."""

from __future__ import annotations

import pytest

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf", "dask", "lazy") if name in bk.backends()]


@pytest.mark.parametrize("name", BACKENDS)
def test_tensordot_names_both_shapes(name: str) -> None:
    b = bk.backend(name)
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: .*\(3, 4\).*\(5, 6\)"):
        b.tensordot(b.ones((3, 4)), (1,), b.ones((5, 6)), (0,))


@pytest.mark.parametrize("name", BACKENDS)
def test_add_names_both_shapes(name: str) -> None:
    b = bk.backend(name)
    with pytest.raises(bk.ShapeMismatchError, match=r"^add: .*\(2, 3\).*\(3, 2\)"):
        b.add(b.ones((2, 3)), b.ones((3, 2)))
