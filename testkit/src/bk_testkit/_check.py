"""`check_backend`: the catalogue as one call from a test suite."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bk import Backend

from . import cases as _cases  # noqa: F401 - registers every case
from ._expected import EXPECTED_FAILURES
from ._run import FeatureResult, failure_lines, find_case, run_case_with_timeout, select_cases, select_features, verdict

__all__ = ["CheckResult", "check_backend"]


@dataclass
class CheckResult:
    """What `check_backend` found: one verdict per feature."""

    backend: str
    features: dict[str, FeatureResult]

    def with_status(self, status: str) -> list[str]:
        """The feature ids with `status`."""
        return [f for f, r in self.features.items() if r.status == status]


def check_backend(
    backend: Backend,
    features: str | list[str] | None = None,
    expected_failures: Mapping[str, str] | None = None,
    timeout: float = 20.0,
    precisions: tuple[int | None, ...] = (None, 32, 64),
) -> CheckResult:
    """Runs the conformance catalogue against `backend` in this process.

    Each case runs in a thread with a time limit; unlike `testkit certify`, a case that crashes the
    interpreter cannot be isolated here.

    Args:
        backend: The backend instance to check.
        features: Feature ids or glob patterns (a list, or one comma-separated string); all if `None`.
        expected_failures: `{feature id: reason}` of claimed features known to fail, and
            `{case id: reason}` (`feature/name`) of single cases known to fail: such a case must fail
            (else it is a stale entry) and does not fail its feature. The backend's entries of the
            testkit's own table (`bk_testkit.EXPECTED_FAILURES`) apply too.
        timeout: Seconds one case may run.
        precisions: The precision settings swept by precision-aware cases.

    Returns:
        The verdicts, when every claimed feature passed (or failed as expected).

    Raises:
        AssertionError: naming every unexpected failure with its reason, and every stale entry of
            `expected_failures` (unknown feature id, or a feature that did not fail).
    """
    pattern = ",".join(features) if isinstance(features, list) else features
    selected = select_features(pattern)
    expected = {k: v for k, v in (expected_failures or {}).items() if "/" not in k}
    expected_cases = {**EXPECTED_FAILURES.get(backend.name, {}), **{k: v for k, v in (expected_failures or {}).items() if "/" in k}}
    unknown = [_unknown_case(c, r) for c, r in expected_cases.items() if not _known_case(c)]
    results = {}
    for feature in selected:
        cases = select_cases([feature])
        outcomes = [run_case_with_timeout(backend, c, precisions, timeout, expected_cases) for c in cases]
        results[feature] = verdict(feature, backend.supports(feature), outcomes)
    problems = unknown + _problems(results, expected, set(Backend.features()))
    if problems:
        raise AssertionError(f"backend {backend.name!r} does not conform:\n" + "\n".join(problems))
    return CheckResult(backend.name, results)


def _problems(results: dict[str, FeatureResult], expected: dict[str, str], known: set[str]) -> list[str]:
    problems = []
    for feature, result in results.items():
        if result.status == "failed" and feature not in expected:
            claim = "claimed" if result.claimed else "not claimed"
            problems += [f"- {feature} ({claim}) FAILED:", *failure_lines(result)]
    for feature, reason in expected.items():
        if feature not in known:
            problems.append(f"- expected_failures names unknown feature {feature!r} (reason given: {reason})")
        elif feature in results and results[feature].status != "failed":
            problems.append(f"- {feature} is listed in expected_failures ({reason}) but is {results[feature].status}; remove the stale entry")
    return problems


def _known_case(case_id: str) -> bool:
    try:
        find_case(case_id)
    except KeyError:
        return False
    return True


def _unknown_case(case_id: str, reason: str) -> str:
    return f"- expected_failures names unknown case {case_id!r} (reason given: {reason})"
