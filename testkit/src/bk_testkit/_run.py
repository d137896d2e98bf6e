"""Running cases in this process, and turning case outcomes into feature verdicts."""

from __future__ import annotations

import contextvars
import fnmatch
import threading
import time
import traceback
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bk import Backend

from ._case import CATALOGUE, Case, SkipCase, Trial, Unsupported

__all__ = ["CaseResult", "FeatureResult", "run_case", "select_cases", "verdict"]

PASSED: Final = "passed"
FAILED: Final = "failed"
NOT_IMPLEMENTED: Final = "not_implemented"
SKIPPED: Final = "skipped"
CRASHED: Final = "crashed"
TIMEOUT: Final = "timeout"

STATUSES: Final = ("certified", "failed", "unsupported", "unclaimed", "skipped")
NO_CASE_YET: Final = "no conformance case yet"


@dataclass
class CaseResult:
    """The outcome of one case: passed, failed, not_implemented, skipped, crashed or timeout."""

    case: str
    outcome: str
    message: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "outcome": self.outcome, "message": self.message, "seconds": round(self.seconds, 4)}


@dataclass
class FeatureResult:
    """The verdict on one feature of one backend."""

    feature: str
    claimed: bool
    status: str
    cases: int
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "claimed": self.claimed,
            "status": self.status,
            "cases": self.cases,
            "failures": self.failures,
            "seconds": round(self.seconds, 4),
        }
        if self.reason:
            result["reason"] = self.reason
        return result


def select_features(pattern: str | None = None) -> list[str]:
    """Feature ids matching a comma-separated list of glob patterns (all when `None`)."""
    features = list(Backend.features())
    if not pattern:
        return features
    globs = [p.strip() for p in pattern.split(",") if p.strip()]
    return [f for f in features if any(fnmatch.fnmatchcase(f, g) for g in globs)]


def select_cases(features: Iterable[str]) -> list[Case]:
    """All cases of `features`, in catalogue order."""
    return [c for f in features for c in CATALOGUE.get(f, ())]


def find_case(case_id: str) -> Case:
    """The case with id `feature/name`."""
    feature, _, name = case_id.partition("/")
    for c in CATALOGUE.get(feature, ()):
        if c.name == name:
            return c
    raise KeyError(f"no case {case_id!r}")


def run_case(backend: Backend, case: Case, precisions: Sequence[int | None] = (None, 32, 64)) -> CaseResult:
    """Runs one case in this thread and classifies what happened."""
    start = time.perf_counter()
    outcome, message = PASSED, ""
    try:
        with warnings.catch_warnings():
            # invalid values (log(-1)) warn in some frameworks; the values are what is checked
            warnings.simplefilter("ignore", RuntimeWarning)
            case.function(Trial(backend, precisions))
    except SkipCase as skip:
        outcome, message = SKIPPED, str(skip)
    except (NotImplementedError, Unsupported) as error:
        outcome, message = NOT_IMPLEMENTED, f"{type(error).__name__}: {error}"
    except AssertionError as error:
        outcome, message = FAILED, str(error) or _where(error)
    except Exception as error:
        outcome, message = FAILED, f"raised {type(error).__name__}: {_first_line(error)} ({_where(error)})"
    return CaseResult(case.id, outcome, message, time.perf_counter() - start)


def run_case_with_timeout(backend: Backend, case: Case, precisions: Sequence[int | None], timeout: float) -> CaseResult:
    """`run_case` in a daemon thread; a case still running after `timeout` seconds is left behind and reported."""
    box: list[CaseResult] = []
    context = contextvars.copy_context()
    thread = threading.Thread(target=lambda: box.append(context.run(run_case, backend, case, precisions)), daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        return CaseResult(case.id, TIMEOUT, f"did not finish within {timeout:g} s", timeout)
    return box[0]


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else ""


def _where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "no traceback"
    last = frames[-1]
    return f"at {last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name}"


# ---------------------------------------------------------------- verdicts


def verdict(feature: str, claimed: bool, results: Sequence[CaseResult]) -> FeatureResult:
    """Combines the case results of one feature with whether the backend claims it.

    | claimed | cases | status |
    |---|---|---|
    | either | none, or all skipped | skipped |
    | yes | all run ones passed | certified |
    | yes | any failed, crashed, timed out or not implemented | failed |
    | no | any not implemented (others noted in the reason) | unsupported |
    | no | all run ones passed | unclaimed |
    | no | none not implemented, any wrong result, other error, crash or timeout | failed |
    """
    seconds = sum(r.seconds for r in results)
    base = {"feature": feature, "claimed": claimed, "cases": len(results), "seconds": seconds}
    if not results:
        return FeatureResult(**base, status="skipped", reason=NO_CASE_YET)  # type: ignore[arg-type]
    ran = [r for r in results if r.outcome != SKIPPED]
    if not ran:
        reasons = sorted({r.message for r in results})
        return FeatureResult(**base, status="skipped", reason="; ".join(reasons))  # type: ignore[arg-type]
    if claimed:
        bad = [_message(r, claimed) for r in ran if r.outcome != PASSED]
        return FeatureResult(**base, status="failed" if bad else "certified", failures=bad)  # type: ignore[arg-type]
    bad = [_message(r, claimed) for r in ran if r.outcome not in (PASSED, NOT_IMPLEMENTED)]
    declined = [r for r in ran if r.outcome == NOT_IMPLEMENTED]
    if bad and not declined:
        return FeatureResult(**base, status="failed", failures=bad)  # type: ignore[arg-type]
    if not declined:
        return FeatureResult(**base, status="unclaimed", reason="not claimed by supports(), but every case passed")  # type: ignore[arg-type]
    if len(declined) < len(ran):
        # it raises NotImplementedError as it should, but some inputs get through the generic default
        others = "; ".join(bad) or "passed: " + ", ".join(r.case for r in ran if r.outcome == PASSED)
        return FeatureResult(**base, status="unsupported", reason=f"not claimed; partly works anyway ({_cut(others)})")  # type: ignore[arg-type]
    return FeatureResult(**base, status="unsupported")  # type: ignore[arg-type]


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(result: CaseResult, claimed: bool) -> str:
    if claimed:
        if result.outcome == NOT_IMPLEMENTED:
            return f"{result.case}: claimed by supports(), but {result.message}"
        return f"{result.case}: {result.message}"
    if result.outcome == FAILED and result.message.startswith("raised "):
        return f"{result.case}: not claimed, but {result.message} instead of NotImplementedError"
    if result.outcome == FAILED:
        return f"{result.case}: not claimed, and gives wrong results instead of raising NotImplementedError: {result.message}"
    return f"{result.case}: not claimed, but {result.outcome}: {result.message}"
