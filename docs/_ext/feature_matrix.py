"""Generates the feature-matrix pages from `testkit certify --json` while the docs build.

At `builder-inited` it certifies every installed backend (`testkit certify --all --json`) and writes
`generated/backend-NAME.md` (one feature table per backend) and `generated/matrix.md` (all backends
side by side). The tables are never written by hand. `BK_CERTIFY_JSON` may name the report of a
certification run just before the build (see `certify`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

STATUS = {"certified": "✅ certified", "failed": "❌ failed", "unsupported": "— unsupported", "unclaimed": "⚠️ unclaimed", "skipped": "⏭ skipped"}
SHORT = {"certified": "✅", "failed": "❌", "unsupported": "—", "unclaimed": "⚠️", "skipped": "⏭"}


def certify(report: Path) -> dict[str, Any]:
    """Runs `testkit certify --all` and returns its JSON report.

    `BK_CERTIFY_JSON=FILE` uses the report of a certification that just ran instead (`make test`
    certifies every backend right before it builds the docs, and need not do it twice).
    """
    given = os.environ.get("BK_CERTIFY_JSON")
    if given:
        return json.loads(Path(given).read_text())
    testkit = Path(sys.executable).parent / "testkit"
    command = [str(testkit), "certify", "--all", "--json", str(report)]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if result.returncode not in (0, 1) or not report.exists():
        raise RuntimeError(f"testkit certify --all failed with exit {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return json.loads(report.read_text())


def backend_page(name: str, data: dict[str, Any]) -> str:
    counts = ", ".join(f"{v} {k}" for k, v in data["counts"].items())
    lines = [
        f"# Feature matrix: `{name}`",
        "",
        f"Generated from the JSON report of `testkit certify` when these docs were built: {counts}.",
        f"Plugin `{data['distribution']}` {data['version']}, framework {data['framework']} {data['framework_version']}.",
        "",
        "| feature | claimed | verdict | cases | notes |",
        "|---|---|---|---|---|",
    ]
    for feature, result in sorted(data["features"].items()):
        note = "; ".join(result.get("failures") or [])[:160].replace("|", "\\|").replace("\n", " ")
        reason = result.get("reason") or ""
        note = note or reason.replace("|", "\\|").replace("\n", " ")[:160]
        lines.append(f"| `{feature}` | {'yes' if result['claimed'] else 'no'} | {STATUS.get(result['status'], result['status'])} | {result['cases']} | {note} |")
    return "\n".join(lines) + "\n"


def matrix_page(backends: dict[str, Any]) -> str:
    names = sorted(backends)
    features = sorted({f for b in backends.values() for f in b["features"]})
    lines = [
        "# Feature matrix of all backends",
        "",
        "Generated from the JSON report of `testkit certify` when these docs were built. "
        + " ".join(f"{SHORT[k]} {k}." for k in SHORT),
        "",
        "| feature | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for feature in features:
        cells = [SHORT.get(backends[n]["features"].get(feature, {}).get("status", ""), "") for n in names]
        lines.append(f"| `{feature}` | " + " | ".join(cells) + " |")
    totals = [str(backends[n]["counts"].get("certified", 0)) for n in names]
    lines.append("| **certified** | " + " | ".join(totals) + " |")
    return "\n".join(lines) + "\n"


def readme_page(name: str, data: dict[str, Any], root: Path) -> str:
    """The page of one backend: its plugin's README (first-party plugins) and its feature table."""
    readme = root / "plugins" / data["distribution"] / "README.md"
    parts = [f"# The `{name}` backend\n"]
    if readme.exists():
        parts.append(f"```{{include}} ../../../plugins/{data['distribution']}/README.md\n:start-line: 1\n```\n")
    parts.append(backend_page(name, data).replace("# Feature matrix", "## Feature matrix", 1))
    return "\n".join(parts)


def generate(app: Sphinx) -> None:
    out = Path(app.srcdir) / "generated"
    (out / "backends").mkdir(parents=True, exist_ok=True)
    report = certify(out / "certify.json")
    backends = report["backends"]
    for name, data in backends.items():
        (out / "backends" / f"{name}.md").write_text(readme_page(name, data, Path(app.srcdir).parent))
    (out / "matrix.md").write_text(matrix_page(backends))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True}
