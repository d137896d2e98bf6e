"""Reports of a certify run: the terminal summary, JSON (schema `certify-1`) and Markdown."""

from __future__ import annotations

import datetime
import json
import platform
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

import bk

from ._certify import BackendReport
from ._run import STATUSES, failure_lines
from ._version import __version__

__all__ = ["SCHEMA_VERSION", "format_summary", "load_schema", "to_json", "to_markdown"]

SCHEMA_VERSION: Final = 1
_MARKS: Final = {"certified": "yes", "failed": "**FAILED**", "unsupported": "-", "unclaimed": "unclaimed", "skipped": "skipped"}


def to_json(reports: Sequence[BackendReport], precision: int | None = None) -> dict[str, Any]:
    """The JSON document of a run, following `schema/certify-1.json`."""
    return {
        "schema": SCHEMA_VERSION,
        "testkit": {"name": "bk-testkit", "version": __version__},
        "core": bk.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "precision": precision,
        "backends": {r.name: r.to_dict() for r in reports},
    }


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the JSON report, shipped as `bk_testkit/schema/certify-1.json`."""
    text = resources.files("bk_testkit").joinpath("schema/certify-1.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def format_summary(reports: Sequence[BackendReport], seconds: float, max_failures: int = 50, max_cases: int = 10, max_checks: int = 10) -> str:
    """The readable summary table printed at the end of `testkit certify`, then every failing check
    of each failed feature, grouped by case (up to `max_failures` features, `max_cases` cases each
    and `max_checks` checks per case; the JSON report has them all)."""
    header = f"{'backend':<12}" + "".join(f"{s:>12}" for s in STATUSES)
    lines = ["", header, "-" * len(header)]
    for report in reports:
        counts = report.counts()
        lines.append(f"{report.name:<12}" + "".join(f"{counts[s]:>12}" for s in STATUSES))
    for report in reports:
        failed = [(f, r) for f, r in report.features.items() if r.status == "failed"]
        if failed:
            lines += ["", f"Failures of {report.name}:"]
        for feature, result in failed[:max_failures]:
            claim = "claimed" if result.claimed else "not claimed"
            count = len(result.checks or result.failures)
            lines.append(f"  {feature} [{claim}]: {count} failing case{'s' if count != 1 else ''}")
            lines += failure_lines(result, max_cases, max_checks, one_line=300)
        if len(failed) > max_failures:
            lines.append(f"  ... and {len(failed) - max_failures} more failed features (see --json)")
        unclaimed = [f for f, r in report.features.items() if r.status == "unclaimed"]
        if unclaimed:
            lines += ["", f"Unclaimed but working in {report.name}: {', '.join(unclaimed)}"]
        lines += _skipped_lines(report)
        lines += _gap_lines(report)
    cases = sum(len(r.cases) for r in reports)
    lines += ["", f"Ran {cases} cases for {len(reports)} backend(s) in {seconds:.1f} s (testkit {__version__})."]
    return "\n".join(lines)


def _skipped_lines(report: BackendReport, max_cases: int = 6) -> list[str]:
    """The cases that did not run although their feature got a verdict, grouped by reason."""
    by_reason: dict[str, list[str]] = {}
    for result in report.features.values():
        for case_id, reason in result.skipped_cases.items():
            by_reason.setdefault(reason, []).append(case_id)
    if not by_reason:
        return []
    total = sum(len(c) for c in by_reason.values())
    lines = ["", f"Cases skipped in {report.name} ({total}; their features were judged on the others):"]
    for reason, cases in sorted(by_reason.items()):
        shown = ", ".join(cases[:max_cases]) + (f", ... ({len(cases) - max_cases} more)" if len(cases) > max_cases else "")
        lines.append(f"  {_one_line(reason, 200)}: {shown}")
    return lines


def _gap_lines(report: BackendReport) -> list[str]:
    """The gaps the backend declares for its framework (`Backend.unsupported_dtypes`, `lacking_kernels`,
    `complex_unordered`, `nan_unordered`, `precision_deficits`), each with how the core fills it."""
    gaps = report.info.get("gaps") or []
    if not gaps:
        return []
    return ["", f"Declared gaps of {report.name} ({len(gaps)}; docs/write-a-plugin.md, \"What your framework lacks\"):", *(f"  {_one_line(g, 300)}" for g in gaps)]


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def to_markdown(reports: Sequence[BackendReport]) -> str:
    """A Markdown feature table (one row per feature, one column per backend) for the docs."""
    from ._catalogue import describe_feature

    names = [r.name for r in reports]
    lines = [
        f"<!-- generated by bk-testkit {__version__} (testkit certify --markdown) -->",
        "",
        "| feature | " + " | ".join(names) + " | description |",
        "|---|" + "---|" * len(names) + "---|",
    ]
    features = list(reports[0].features) if reports else []
    for feature in features:
        cells = [_MARKS[r.features[feature].status] if feature in r.features else "" for r in reports]
        lines.append(f"| `{feature}` | " + " | ".join(cells) + f" | {describe_feature(feature)} |")
    lines += ["", "yes: certified; -: not supported; unclaimed: works but `supports()` says no; skipped: no case could run.", ""]
    for report in reports:
        counts = ", ".join(f"{v} {k}" for k, v in report.counts().items())
        info = report.info
        lines.append(f"- **{report.name}** ({info.get('distribution')} {info.get('version')}, {info.get('framework')} {info.get('framework_version')}): {counts}")
        lines += [f"  - declared gap: {g}" for g in info.get("gaps") or []]
    for report in reports:
        lines += _markdown_failures(report)
    return "\n".join(lines) + "\n"


def _markdown_failures(report: BackendReport) -> list[str]:
    """A section per backend with failures: each failed feature, its failing cases, every failing check."""
    failed = [(f, r) for f, r in report.features.items() if r.status == "failed"]
    if not failed:
        return []
    lines = ["", f"## Failures of {report.name}", ""]
    for feature, result in failed:
        claim = "claimed" if result.claimed else "not claimed"
        lines.append(f"- `{feature}` ({claim})")
        groups = result.checks or {f.split(": ", 1)[0]: [f.split(": ", 1)[-1]] for f in result.failures}
        for case_id, checks in groups.items():
            lines.append(f"  - `{case_id}`")
            lines += [f"    - {_markdown_text(check)}" for check in checks]
    return lines


def _markdown_text(text: str, limit: int = 600) -> str:
    """One line of Markdown: whitespace collapsed, `|` and backticks kept harmless, cut to `limit`."""
    text = _one_line(text, limit).replace("`", "'")
    return f"`{text}`"
