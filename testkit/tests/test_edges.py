"""The edge-case suite (docs/semantics.md) from pytest: it runs in check_backend, catches rule breakers, and
its expected-failure table is data keyed by case id."""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import numpy as np
import pytest

import bk
import bk_testkit
from bk_testkit._run import find_case, run_case, select_cases

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import fakebackends as fb

EDGE_FEATURES = ["sum", "argmax", "add", "maximum", "clip", "expand_dims", "tile_to", "gather", "unique", "as_tensor"]


class Sloppy(fb.Honest):
    """Like Honest, but `sum` accepts any axis NumPy accepts and narrow ints do not widen."""

    def __init__(self) -> None:
        super().__init__("sloppy")

    def sum(self, value: Any, axis: Any = None, keepdims: bool = False) -> Any:
        value = np.asarray(value)
        return np.sum(value, axis=axis, keepdims=keepdims, dtype=value.dtype if value.dtype.kind in "iu" else None)


for _name in EDGE_FEATURES:  # its kernels answer for themselves: the core does not plan their calls
    if _name in vars(Sloppy) or _name in vars(fb.Honest):
        Sloppy.register_kernel(_name, getattr(Sloppy, _name), trusted=True, why="a test backend that breaks rules on purpose")


def test_every_feature_class_has_edge_cases():
    edge = {f for f, cases in bk_testkit.CATALOGUE.items() if any(c.name.startswith("edge-") for c in cases)}
    for feature in ("sum", "prod", "mean", "max", "argmax", "cumsum", "add", "div", "equal", "where", "clip", "sqrt", "abs", "isnan",
                    "expand_dims", "concat", "stack", "reshape", "transpose", "gather", "boolean_mask", "scatter_nd_scalar",
                    "indexed_segment_sum", "sort", "argsort", "unique", "searchsorted", "as_tensor", "fft", "multi_slice"):  # fmt: skip
        assert feature in edge, feature


def test_numpy_passes_the_edge_cases_from_pytest():
    result = bk_testkit.check_backend(bk.backend("numpy"), features=EDGE_FEATURES)
    assert set(result.with_status("certified")) == set(EDGE_FEATURES)
    assert all(any(c.name.startswith("edge-") for c in bk_testkit.CATALOGUE[f]) for f in EDGE_FEATURES)


def test_a_backend_that_breaks_a_rule_fails_with_the_case_id():
    with pytest.raises(AssertionError) as info:
        bk_testkit.check_backend(Sloppy(), features=["sum"])
    text = str(info.value)
    assert "sum/edge-bad-axis" in text and "AxisError" in text
    assert "sum/edge-int-widening" in text and "expected int64" in text


def test_case_level_expected_failures_pass_and_stale_entries_fail():
    sloppy_cases = {c.id: "sloppy on purpose" for c in select_cases(["sum"]) if run_case(Sloppy(), c).outcome == "failed"}
    assert "sum/edge-bad-axis" in sloppy_cases
    result = bk_testkit.check_backend(Sloppy(), features=["sum"], expected_failures=sloppy_cases)
    assert result.features["sum"].status == "certified"
    assert "sum/edge-bad-axis" in result.features["sum"].reason
    with pytest.raises(AssertionError, match=r"sum/axes-keepdims.*remove the stale entry"):
        bk_testkit.check_backend(Sloppy(), features=["sum"], expected_failures={**sloppy_cases, "sum/axes-keepdims": "passes"})
    with pytest.raises(AssertionError, match=r"unknown case 'sum/no-such-case'"):
        bk_testkit.check_backend(Sloppy(), features=["sum"], expected_failures={**sloppy_cases, "sum/no-such-case": "typo"})


def test_edge_cases_are_reproducible():
    case = find_case("sum/edge-dtypes-shapes-axes")
    first, second = run_case(Sloppy(), case), run_case(Sloppy(), case)
    assert first.outcome == second.outcome == "failed"
    assert first.message == second.message


def test_the_expected_failure_table_names_known_cases_with_reasons():
    for backend, table in bk_testkit.EXPECTED_FAILURES.items():
        for case_id, reason in table.items():
            find_case(case_id)  # raises KeyError for a typo
            assert reason.strip(), f"{backend}: {case_id} needs a reason"
