"""Dtypes a framework lacks, and optional packages that are missing: cases are skipped with the reason, never failed."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, ClassVar

import numpy as np
import pytest

import bk
from bk_numpy._backend import NumPyBackend
from bk_testkit import SkipCase, Trial, check_backend, format_summary, to_json
from bk_testkit._certify import BackendReport
from bk_testkit._run import FAILED, PASSED, SKIPPED, run_case, select_cases

UNSIGNED_WIDE = frozenset(bk.DType(int, bits, signed=False) for bits in (16, 32, 64))
FEATURES = ["as_tensor", "cast", "sum", "max", "argmax", "cumulative_sum", "clip", "tile", "repeat", "greater_than", "sort", "concat"]


class NoWideUnsigned(NumPyBackend):
    """bk-numpy as a framework without uint16, uint32 and uint64 (as PaddlePaddle): it refuses them."""

    unsupported_dtypes: ClassVar[frozenset[bk.DType]] = UNSIGNED_WIDE

    def __init__(self) -> None:
        super().__init__()
        self._name = "nowideunsigned"

    def as_tensor(self, x: Any, convert_external: bool = True) -> Any:
        result = super().as_tensor(x, convert_external)
        if isinstance(result, (np.ndarray, np.generic)) and bk.from_numpy_dtype(result.dtype) in UNSIGNED_WIDE:
            raise TypeError(f"nowideunsigned has no {result.dtype}")
        return result

    def cast(self, x: Any, dtype: bk.DType) -> Any:
        if dtype in UNSIGNED_WIDE:
            raise TypeError(f"nowideunsigned has no {dtype}")
        return super().cast(x, dtype)


def test_a_backend_declares_the_dtypes_it_lacks_once() -> None:
    assert bk.Backend.unsupported_dtypes == frozenset()
    lacking = Trial(NoWideUnsigned()).lacking
    assert {d.name for d in lacking} >= {"uint16", "uint32", "uint64"}
    assert lacking[bk.DType(int, 16, signed=False)] == "nowideunsigned lacks uint16 (declared in unsupported_dtypes)"


def test_cases_that_need_a_lacking_dtype_are_skipped_with_the_reason_never_failed() -> None:
    backend = NoWideUnsigned()
    results = [run_case(backend, case, expected={}) for case in select_cases(FEATURES)]
    assert [r for r in results if r.outcome == FAILED] == []
    skipped = {r.case: r.message for r in results if r.outcome == SKIPPED}
    assert any("lacks uint" in message for message in skipped.values()), skipped
    assert all("lacks" in m or "GPU" in m or "float64" in m for m in skipped.values()), skipped
    # the other dtypes of a case still run: clip's int8 and bool checks pass without its uint16 one
    assert {r.case: r.outcome for r in results}["clip/edge-float-bounds"] == PASSED
    result = check_backend(backend, features=FEATURES)  # no expected-failure entry needed
    # the feature is judged on the cases that ran; the report names the ones that could not, and why
    assert result.features["sum"].status == "certified"
    assert "nowideunsigned lacks uint64 (declared in unsupported_dtypes)" in result.features["sum"].skipped_cases.values()
    report = BackendReport("nowideunsigned", {}, result.features, 1.0)
    assert "Cases skipped in nowideunsigned" in format_summary([report], 1.0)
    assert "skipped_cases" in to_json([report])["backends"]["nowideunsigned"]["features"]["sum"]


def test_need_skips_for_dtype_objects_and_numpy_dtypes() -> None:
    t = Trial(NoWideUnsigned())
    t.need(bk.DType(int, 8), np.dtype("uint8"), None)  # has them: nothing happens
    for dtype in (bk.DType(int, 32, signed=False), np.dtype("uint64"), "uint16"):
        with pytest.raises(SkipCase, match="nowideunsigned lacks uint"):
            t.need(dtype)
    with pytest.raises(SkipCase, match="lacks uint16"):
        t.tensor([1, 2], "uint16")


_WITHOUT_ML_DTYPES = """
import json, sys
sys.modules["ml_dtypes"] = None  # as if it were not installed: importing it raises ImportError
import bk
from bk_testkit import Trial
from bk_testkit._run import run_case, select_cases
backend = bk.backend("numpy")
results = [run_case(backend, case) for case in select_cases(sys.argv[1].split(","))]
print(json.dumps({"lacking": {d.name: why for d, why in Trial(backend).lacking.items()},
                  "results": [[r.case, r.outcome, r.message] for r in results]}))
"""


@pytest.mark.slow
def test_without_ml_dtypes_bfloat16_cases_are_skipped_not_failed() -> None:
    """The issue's clean venv reported 54 false failures on bk-numpy without ml_dtypes (issue 24)."""
    features = "as_tensor,cast,sort,argmax,unique,sum,abs"
    out = subprocess.run([sys.executable, "-c", _WITHOUT_ML_DTYPES, features], capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    assert "ml_dtypes" in report["lacking"]["bfloat16"]
    failed = [r for r in report["results"] if r[1] == FAILED]
    assert failed == []
    assert any(r[1] == PASSED for r in report["results"])
    assert all("ml_dtypes" in r[2] or "GPU" in r[2] for r in report["results"] if r[1] == SKIPPED)
