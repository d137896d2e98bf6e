"""`OP/declared`: the testkit checks every kernel declaration (issue 38, point 5)."""

from __future__ import annotations

from typing import Any

import numpy as np

import bk
from bk.rules import kernel
from bk_testkit._run import find_case, run_case


def _numpy_class() -> Any:
    return type(bk.backend("numpy"))


def test_every_operation_of_numpy_is_declared_and_its_fast_calls_agree():
    backend = bk.backend("numpy")
    for op in ("add", "sin", "where", "sum", "matmul", "solve", "gather"):
        result = run_case(backend, find_case(f"{op}/declared"))
        assert result.outcome == "passed", (op, result.message)


def test_a_fast_call_that_restates_a_rule_wrongly_fails_its_case():
    def wrong_sin(self: Any, x: Any) -> Any:  # float64 for float32 sin: the plan keeps float32
        return np.sin(x.astype(np.float64)) if type(x) is np.ndarray and x.dtype == np.float32 else NotImplemented

    class WrongFast(_numpy_class()):  # type: ignore[misc]
        @kernel(fast=wrong_sin)
        def sin(self, x: Any) -> Any:
            return np.sin(x)

    result = run_case(WrongFast(), find_case("sin/declared"), expected={})
    assert result.outcome == "failed" and "differ from its plan" in result.message, result.message


def test_a_kernel_neither_planned_nor_declared_fails_its_case():
    class Unplanned(_numpy_class()):  # type: ignore[misc]
        pass

    Unplanned.cos = lambda self, x: np.cos(x)  # set after the class exists: the core never saw it
    result = run_case(Unplanned(), find_case("cos/declared"), expected={})
    assert result.outcome == "failed" and "neither planned nor declared trusted" in result.message, result.message
