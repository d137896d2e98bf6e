"""A certify report shows every failing check of a case, grouped by feature and case (issue 24)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import bk
import bk_testkit
from bk_testkit import Case, Trial
from bk_testkit._certify import BackendReport
from bk_testkit._run import FAILED, PASSED, CaseResult, run_case, verdict

sys.path.insert(0, str(Path(__file__).parent))
import fakebackends as fb


def _three_checks(t: Trial) -> None:
    """cos of three inputs: the liar (whose cos is the sine) gets each one wrong."""
    for x in (0.0, np.pi / 2, 1.0):
        t.check(t.b.cos(t.tensor([x], "float64")), np.cos([x]), f"cos({x:.3f})", bk.DType(float, 64))


def _checks_then_crash(t: Trial) -> None:
    t.check(t.b.cos(t.tensor([0.0], "float64")), [1.0], "cos(0)", bk.DType(float, 64))
    t.check(t.b.cos(t.tensor([1.0, 2.0], "float64")), [1.0], "cos of two values", bk.DType(float, 64))  # a shape mismatch
    raise KeyError("the case went on and met its end")


THREE = Case("cos", "three-checks", _three_checks, "three checks")
CRASH = Case("cos", "checks-then-crash", _checks_then_crash, "two checks, then an exception")


def test_a_case_goes_on_after_a_failing_check_and_reports_each() -> None:
    result = run_case(fb.Liar(), THREE, expected={})
    assert result.outcome == FAILED
    assert [c.split(":")[0] for c in result.checks] == ["cos(0.000)", "cos(1.571)", "cos(1.000)"]  # sin differs from cos at each
    assert result.message.startswith("3 checks failed:\n[1] cos(0.000): values differ")
    assert run_case(fb.Honest(), THREE, expected={}).outcome == PASSED


def test_an_exception_after_failing_checks_is_the_last_check() -> None:
    result = run_case(fb.Honest(), CRASH, expected={})
    assert result.outcome == FAILED and len(result.checks) == 2
    assert "cos of two values: shape (2,), expected (1,)" in result.checks[0]
    assert result.checks[1].startswith("raised KeyError: 'the case went on and met its end'")


def test_the_feature_groups_the_checks_by_case_in_json_terminal_and_markdown(tmp_path: Path) -> None:
    liar = fb.Liar()
    results = [run_case(liar, case, expected={}) for case in (THREE, CRASH)]
    result = verdict("cos", True, results)
    assert result.status == "failed"
    assert list(result.checks) == ["cos/three-checks", "cos/checks-then-crash"]
    assert len(result.checks["cos/three-checks"]) == 3
    assert len(result.failures) == 2  # one line per failing case, as before

    report = BackendReport("liar", {"name": "liar", "distribution": None, "version": None, "framework": None, "framework_version": None}, {"cos": result}, 0.1, results)
    document = bk_testkit.to_json([report])
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, bk_testkit.load_schema())
    feature = json.loads(json.dumps(document))["backends"]["liar"]["features"]["cos"]
    assert feature["checks"]["cos/three-checks"][2].startswith("cos(1.000): values differ")
    assert isinstance(feature["failures"], list) and all(isinstance(f, str) for f in feature["failures"])  # the old field stays

    summary = bk_testkit.format_summary([report], 1.0)
    assert "  cos [claimed]: 2 failing cases" in summary
    assert "    cos/three-checks: 3 failing checks" in summary
    assert summary.count("      - cos(") == 4 and "      - cos of two values: shape (2,), expected (1,)" in summary
    assert "raised KeyError" in summary

    markdown = bk_testkit.to_markdown([report])
    assert "## Failures of liar" in markdown
    assert "  - `cos/three-checks`" in markdown and markdown.count("    - `cos(1.000)") == 1

    with pytest.raises(AssertionError) as raised:
        bk_testkit.check_backend(liar, features=["cos"])
    assert "failing checks" in str(raised.value)


def test_the_terminal_summary_counts_what_it_leaves_out() -> None:
    checks = [f"check {i}: values differ" for i in range(30)]
    results = [CaseResult(f"cos/case-{n}", FAILED, "\n".join(checks), 0.0, checks) for n in range(12)]
    report = BackendReport("liar", {}, {"cos": verdict("cos", True, results)}, 0.1, results)
    summary = bk_testkit.format_summary([report], 1.0, max_cases=2, max_checks=3)
    assert "  cos [claimed]: 12 failing cases" in summary
    assert "    cos/case-0: 30 failing checks" in summary and "      ... and 27 more" in summary
    assert "    ... and 10 more failing cases" in summary
