"""Every operation with a spec is planned or declared trusted, on every installed backend (issue 38, point 5).

A backend's method of an operation that has a spec either takes the operation's plan (the dispatcher's
wrapper, which holds the plans it compiled: `__bk_plans__`) or is declared trusted
(`@bk.rules.kernel(trusted=True)` or `Backend.register_kernel(..., trusted=True)`: called as it is, checked
by the testkit on every case like any kernel). The operations whose record says `infrastructure`
(`auto_cast`, `numpy_call`, `linear`, `variable`, ...: they transform functions or values rather than
compute) are never planned. Nothing else may be left unplanned and undeclared: bk-lazy's recorders,
registered after its class exists, are declared.
"""

from __future__ import annotations

import pytest

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf", "dask", "lazy") if name in bk.backends()]


@pytest.mark.parametrize("name", BACKENDS)
def test_every_operation_with_a_spec_is_planned_or_declared_trusted(name: str) -> None:
    from bk_testkit._declarations import undeclared

    found = undeclared(bk.backend(name), sorted(bk.op_specs()))
    assert not found, f"{name}: neither planned nor declared trusted: {found}"
