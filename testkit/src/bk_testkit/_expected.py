"""The expected-failure table: what a first-party backend declares it cannot do, with the reason.

Expected failures are data, never silent skips (STYLE.md). Each entry is keyed by backend name,
then by a case id (`feature/name`, as `testkit list-features` and the failure messages show it), and holds the reason, which also goes
into the backend's README. A listed case that fails is reported as `xfailed` and does not fail the
feature; a listed case that passes is a failure ("remove the stale entry"), so the table can
never hide a fixed problem. Third-party plugins pass their own table to `check_backend(...,
expected_failures=...)`.

Typical reason: a framework cannot follow a rule of `docs/semantics.md`, such as JAX inside `jit`
raising on a data-dependent index.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["EXPECTED_FAILURES", "expected_failure"]

_NO_COMPLEX_ERF: Final = (
    "{framework} has no error function of complex values (erf(complex128) raises), which the spec of erf and "
    "SciPy's reference accept; real inputs are checked by the other erf cases"
)

EXPECTED_FAILURES: Final[dict[str, dict[str, str]]] = {
    "numpy": {},
    "torch": {
        "erf/generated": _NO_COMPLEX_ERF.format(framework="PyTorch"),
    },
    "jax": {
        "jit_compile/edge-jit-out-of-range": (
            "inside jit a data-dependent index cannot raise: XLA clamps out-of-range gather indices "
            "(gather(arange(5), [1, 5]) gives [1, 4]) and drops out-of-range scatter updates; eagerly bk-jax raises"
        ),
        "erf/generated": _NO_COMPLEX_ERF.format(framework="JAX"),
    },
    "tf": {
        "erf/generated": _NO_COMPLEX_ERF.format(framework="TensorFlow"),
    },
}
"""Backend name -> {case id: reason}."""


def expected_failure(table: Mapping[str, str] | None, case_id: str) -> str | None:
    """The reason `case_id` is expected to fail according to `table`, or `None`."""
    return table.get(case_id) if table else None
