"""Running cases in this process, and turning case outcomes into feature verdicts."""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import bk
from bk import Backend
from bk._rules.gaps import declared_accuracy

from ._case import ACCURACY, CATALOGUE, Case, SkipCase, Trial, Unsupported
from ._expected import EXPECTED_FAILURES, expected_failure

__all__ = ["CaseResult", "FeatureResult", "failure_lines", "run_case", "select_cases", "verdict"]

PASSED: Final = "passed"
FAILED: Final = "failed"
NOT_IMPLEMENTED: Final = "not_implemented"
SKIPPED: Final = "skipped"
CRASHED: Final = "crashed"
TIMEOUT: Final = "timeout"
XFAILED: Final = "xfailed"  # failed, as the expected-failure table says it does

STATUSES: Final = ("certified", "failed", "unsupported", "unclaimed", "skipped")
NO_CASE_YET: Final = "no conformance case yet"


@dataclass
class CaseResult:
    """The outcome of one case: passed, failed, not_implemented, skipped, crashed or timeout."""

    case: str
    outcome: str
    message: str = ""
    seconds: float = 0.0
    checks: list[str] = field(default_factory=list)
    """Every failing check of a failed case, in order (`message` joins them); empty otherwise."""

    def to_dict(self) -> dict[str, Any]:
        result = {"case": self.case, "outcome": self.outcome, "message": self.message, "seconds": round(self.seconds, 4)}
        if self.checks:
            result["checks"] = self.checks
        return result


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
    checks: dict[str, list[str]] = field(default_factory=dict)
    """Case id -> every failing check of that case, for each case that makes the feature fail."""
    skipped_cases: dict[str, str] = field(default_factory=dict)
    """Case id -> why it did not run (a dtype the framework lacks, no GPU), where other cases did."""
    generated: str = ""
    """How the feature's generated cases went (`passed`, `failed`, `xfailed`, `not_implemented`,
    `skipped`); empty where the feature has none."""

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
        if self.generated:
            result["generated"] = self.generated
        if self.checks:
            result["checks"] = self.checks
        if self.skipped_cases:
            result["skipped_cases"] = self.skipped_cases
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


def run_case(
    backend: Backend, case: Case, precisions: Sequence[int | None] = (None, 32, 64), expected: Mapping[str, str] | None = None
) -> CaseResult:
    """Runs one case in this thread and classifies what happened.

    Args:
        expected: `{case id: reason}` of cases expected to fail; by default the backend's entries of
            `EXPECTED_FAILURES`. A listed case that fails is `xfailed`; one that passes fails (a stale entry).
    """
    if expected is None:
        expected = EXPECTED_FAILURES.get(backend.name)
    result = _run_case(backend, case, precisions)
    reason = expected_failure(expected, case.id)
    if reason is None:
        return result
    if result.outcome == FAILED:
        return CaseResult(case.id, XFAILED, f"expected failure ({reason}): {result.message}", result.seconds, result.checks)
    if result.outcome == PASSED:
        message = f"listed as an expected failure ({reason}) but passed; remove the stale entry from the expected-failure table"
        return CaseResult(case.id, FAILED, message, result.seconds)
    return result


def _run_case(backend: Backend, case: Case, precisions: Sequence[int | None]) -> CaseResult:
    start = time.perf_counter()
    outcome, message = PASSED, ""
    trial = Trial(backend, precisions)
    computes_before = backend.compute_count()
    accuracy = ACCURACY.set(declared_accuracy(type(backend), case.feature))
    try:
        with warnings.catch_warnings(), _testkit_computes(backend, trial, case, computes_before is not None):
            # Warnings never change a verdict, whatever filters the host set: `check_backend` inside pytest (whose
            # `filterwarnings = error` makes a compiler's note an error, and the compiler then runs eagerly) gives
            # what `testkit certify`'s workers give. Invalid values (log(-1)) warn in some frameworks; the
            # values are what is checked.
            warnings.resetwarnings()
            warnings.simplefilter("ignore")
            case.function(trial)
    except SkipCase as skip:
        outcome, message = SKIPPED, str(skip)
    except bk.UnsupportedDtypeError as gap:  # a gap the backend declares and the core cannot fill: its reason
        outcome, message = SKIPPED, _first_line(gap)
    except (NotImplementedError, Unsupported) as error:
        outcome, message = NOT_IMPLEMENTED, f"{type(error).__name__}: {error}"
    except AssertionError as error:
        outcome, message = FAILED, str(error) or _where(error)
    except Exception as error:
        outcome, message = FAILED, f"raised {type(error).__name__}: {_first_line(error)} ({_where(error)})"
    finally:
        ACCURACY.reset(accuracy)
    if outcome == PASSED and computes_before is not None:
        hidden = backend.compute_count() - computes_before - trial.computes  # type: ignore[operator]
        if hidden > 0 and case.feature not in backend.computing_operations:
            outcome = FAILED
            message = f"computed {hidden} times behind the user's back (not declared in computing_operations)"
    checks = list(trial.failures)
    if checks and outcome != PASSED:  # the case stopped after the recorded failures: say how
        checks.append(message if outcome == FAILED else f"then the case stopped ({outcome}): {message}")
    elif outcome == FAILED:
        checks = [message]
    if checks:
        outcome, message = FAILED, join_checks(checks)
    kept = checks[:MAX_CHECKS] + ([f"... and {len(checks) - MAX_CHECKS} more failing checks"] if len(checks) > MAX_CHECKS else [])
    return CaseResult(case.id, outcome, message, time.perf_counter() - start, kept)


MAX_CHECKS: Final = 25
"""The failing checks of one case kept in its result (the message says how many there were)."""


def join_checks(checks: Sequence[str]) -> str:
    """One message for the failing checks of a case: the check itself, or a numbered list."""
    if len(checks) == 1:
        return checks[0]
    shown = [f"[{i}] {c}" for i, c in enumerate(checks[:MAX_CHECKS], 1)]
    more = [f"... and {len(checks) - MAX_CHECKS} more failing checks"] if len(checks) > MAX_CHECKS else []
    return "\n".join([f"{len(checks)} checks failed:", *shown, *more])


@contextlib.contextmanager
def _testkit_computes(backend: Backend, trial: Trial, case: Case, lazy: bool) -> Iterator[None]:
    """Counts the computes of `backend.numpy` calls made by testkit code (`t.check`, `t.to_numpy`)
    or by the case itself (`t.b.numpy(...)` in the case's module) in `trial.computes`: those
    compare, they are not the operation's.

    Calls from anywhere else (the backend's own code, the core's generic defaults) are not counted
    here, so the computes they cause show up as the operation's. Does nothing for eager backends.
    """
    if not lazy:
        yield
        return
    numpy = backend.numpy
    case_module = case.function.__module__

    def counting_numpy(tensor: Any) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not (caller.startswith("bk_testkit") or caller == case_module):
            return numpy(tensor)
        before = backend.compute_count() or 0
        try:
            return numpy(tensor)
        finally:
            trial.computes += (backend.compute_count() or 0) - before

    backend.numpy = counting_numpy  # type: ignore[method-assign]  # an instance attribute, removed below
    try:
        yield
    finally:
        del backend.numpy


def run_case_with_timeout(
    backend: Backend, case: Case, precisions: Sequence[int | None], timeout: float, expected: Mapping[str, str] | None = None
) -> CaseResult:
    """`run_case` in a daemon thread; a case still running after `timeout` seconds is left behind and reported."""
    box: list[CaseResult] = []
    context = contextvars.copy_context()
    thread = threading.Thread(target=lambda: box.append(context.run(run_case, backend, case, precisions, expected)), daemon=True)
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
    """`_combine`, and how the feature's generated cases (`OP/generated*`) went in `generated`."""
    result = _combine(feature, claimed, results)
    generated = [r.outcome for r in results if r.case.split("/", 1)[-1].startswith("generated")]
    if generated:
        for outcome in (CRASHED, TIMEOUT, FAILED, XFAILED, NOT_IMPLEMENTED, SKIPPED):
            if outcome in generated:
                result.generated = FAILED if outcome in (CRASHED, TIMEOUT) else outcome
                break
        else:
            result.generated = PASSED
    return result


def _combine(feature: str, claimed: bool, results: Sequence[CaseResult]) -> FeatureResult:
    """Combines the case results of one feature with whether the backend claims it.

    Cases that failed as the expected-failure table says (`xfailed`) count as passed; their reasons
    go into `reason`.

    | claimed | cases | status |
    |---|---|---|
    | either | none, or all skipped | skipped |
    | yes | all run ones passed | certified |
    | yes | any failed, crashed, timed out or not implemented | failed |
    | no | any not implemented (others noted in the reason) | unsupported |
    | no | all run ones passed | unclaimed |
    | no | none not implemented, any wrong result, other error, crash or timeout | failed |
    """
    result = _verdict_with_xfails(feature, claimed, results)
    if result.status != "skipped":  # where every case skipped, `reason` says why
        result.skipped_cases = {r.case: r.message for r in results if r.outcome == SKIPPED}
    return result


def _verdict_with_xfails(feature: str, claimed: bool, results: Sequence[CaseResult]) -> FeatureResult:
    xfailed = [r for r in results if r.outcome == XFAILED]
    if not xfailed:
        return _verdict(feature, claimed, results)
    result = _verdict(feature, claimed, [CaseResult(r.case, PASSED, r.message, r.seconds) if r.outcome == XFAILED else r for r in results])
    noted = "; ".join(f"{r.case}: {r.message}" for r in xfailed)
    result.reason = _cut(f"{result.reason}; {noted}" if result.reason else noted, 600)
    return result


def _verdict(feature: str, claimed: bool, results: Sequence[CaseResult]) -> FeatureResult:
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
        checks = {r.case: _checks(r, claimed) for r in ran if r.outcome != PASSED}
        return FeatureResult(**base, status="failed" if bad else "certified", failures=bad, checks=checks)  # type: ignore[arg-type]
    bad = [_message(r, claimed) for r in ran if r.outcome not in (PASSED, NOT_IMPLEMENTED)]
    declined = [r for r in ran if r.outcome == NOT_IMPLEMENTED]
    if bad and not declined:
        checks = {r.case: _checks(r, claimed) for r in ran if r.outcome not in (PASSED, NOT_IMPLEMENTED)}
        return FeatureResult(**base, status="failed", failures=bad, checks=checks)  # type: ignore[arg-type]
    if not declined:
        return FeatureResult(**base, status="unclaimed", reason="not claimed by supports(), but every case passed")  # type: ignore[arg-type]
    if len(declined) < len(ran):
        # it raises NotImplementedError as it should, but some inputs get through the generic default
        others = "; ".join(bad) or "passed: " + ", ".join(r.case for r in ran if r.outcome == PASSED)
        return FeatureResult(**base, status="unsupported", reason=f"not claimed; partly works anyway ({_cut(others)})")  # type: ignore[arg-type]
    return FeatureResult(**base, status="unsupported")  # type: ignore[arg-type]


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure_lines(result: FeatureResult, max_cases: int | None = None, max_checks: int | None = None, one_line: int | None = None) -> list[str]:
    """The failures of a feature grouped by case, every failing check of each (indented lines).

    Args:
        max_cases: Cases shown (all when `None`); the rest are counted.
        max_checks: Checks shown per case (all when `None`); the rest are counted.
        one_line: Shows each check on one line, cut to this many characters (`None`: as it is).
    """
    groups = result.checks or {f.split(": ", 1)[0]: [f.split(": ", 1)[-1]] for f in result.failures}
    lines: list[str] = []
    for number, (case_id, checks) in enumerate(groups.items()):
        if max_cases is not None and number == max_cases:
            lines.append(f"    ... and {len(groups) - max_cases} more failing cases")
            break
        real = [c for c in checks if not c.startswith("... and ")]
        total = len(real) + sum(int(c.split()[2]) for c in checks if c.startswith("... and "))  # counted past MAX_CHECKS
        if total == 1:  # one line, as `failures` says it
            lines.append(f"    {case_id}: " + _shown(real[0], one_line, "\n      "))
            continue
        lines.append(f"    {case_id}: {total} failing checks")
        for index, check in enumerate(real):
            if max_checks is not None and index == max_checks:
                lines.append(f"      ... and {total - max_checks} more")
                break
            lines.append("      - " + _shown(check, one_line, "\n        "))
        else:
            if total > len(real):
                lines.append(f"      ... and {total - len(real)} more")
    return lines


def _shown(check: str, one_line: int | None, indent: str) -> str:
    """A check as shown under its case: on one line cut to `one_line` characters, or with its lines indented."""
    if one_line is None:
        return check.replace("\n", indent)
    text = " ".join(check.split())
    return text if len(text) <= one_line else text[: one_line - 3] + "..."


def _checks(result: CaseResult, claimed: bool) -> list[str]:
    """The failing checks of a case that fails its feature; a single one says it as `failures` does."""
    if len(result.checks) > 1:
        return list(result.checks)
    return [_message(result, claimed)[len(result.case) + 2 :]]


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
