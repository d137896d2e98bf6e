"""`bk.rules.einsum_subscripts`: einsum equations with `...` and implicit output, written out as NumPy reads them."""

from __future__ import annotations

import numpy as np
import pytest

from bk.rules import einsum_subscripts


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
        ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
        ("ij,jk", [(3, 4), (4, 5)]),
        ("i...->...", [(3, 2, 2)]),
        ("...ii->...i", [(2, 3, 3)]),
        ("a...,a...", [(3, 2), (3, 1)]),
        ("...", [(2, 3)]),
        ("...i->i", [(4,)]),
        ("ba", [(2, 3)]),
    ],
)
def test_written_out_equations_compute_what_numpy_computes(equation, shapes):
    operands = [np.arange(np.prod(s), dtype=np.float64).reshape(s) % 7 for s in shapes]
    inputs, output = einsum_subscripts(equation, [len(s) for s in shapes])
    assert "." not in "".join(inputs) + output
    explicit = ",".join(inputs) + "->" + output
    np.testing.assert_allclose(np.einsum(explicit, *operands), np.einsum(equation, *operands))


def test_broadcast_axes_use_letters_the_equation_does_not():
    inputs, output = einsum_subscripts("...a,...A->...aA", [3, 1])
    assert inputs == ["bca", "A"] and output == "bcaA"


def test_an_explicit_output_must_place_the_broadcast_axes():
    with pytest.raises(ValueError, match="^einsum: '...i->i' has '...' axes"):
        einsum_subscripts("...i->i", [3])


def test_malformed_equations_raise_as_the_spec():
    with pytest.raises(ValueError, match="^einsum: "):
        einsum_subscripts("ij,jk", [2])
    with pytest.raises(ValueError, match="^einsum: "):
        einsum_subscripts("...ij", [1])
