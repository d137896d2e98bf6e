"""Generates the feature-matrix pages from `testkit certify --json` while the docs build.

At `builder-inited` it certifies every installed backend (`testkit certify --all --json`) and writes,
into the git-ignored folder `generated/`, `backends/NAME.md` (one feature table per backend) and
`matrix.part` (all backends side by side, included by `matrix.md`; not a page of its own). The
tables are never written by hand. `BK_CERTIFY_JSON` may name the report of a certification run just
before the build (see `certify`).

Verdicts are words with a colour (classes `bk-certified`, `bk-failed`, ... in `_static/bk.css`),
never emoji alone, so the page reads the same without an emoji font. Rows are grouped by the topic
banners of the catalogue's source (see `topics`) and link to the operation's API entry.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

LABELS = {"certified": "certified", "failed": "FAILED", "unsupported": "no", "unclaimed": "unclaimed", "skipped": "skipped"}
MEANING = {
    "certified": "claimed by `supports()` and passes every case",
    "failed": "claimed, but a case fails",
    "unsupported": "not claimed, raises `NotImplementedError`",
    "unclaimed": "not claimed, but works",
    "skipped": "cannot run on this machine",
}
GENERATED = {"passed": "+gen", "failed": "gen FAILED", "xfailed": "gen declared", "not_implemented": "", "skipped": "gen skipped"}
"""How a feature's generated cases went (the report's optional `generated` field), shown after its verdict."""
GENERATED_MEANING = {
    "passed": "the operation also passed its generated inputs (every dtype, 0-d and empty, broadcasting, Python scalars, invalid calls)",
    "failed": "a generated input failed",
    "xfailed": "a generated input fails as the expected-failure table declares, with its reason",
    "skipped": "the generated inputs need dtypes the backend lacks",
}
CAPABILITIES = "capabilities"
_BANNER = re.compile(r"^\s*# -{10,}\s*(.+?)\s*$")
_REFERENCE_MODULES = ("_catalogue_core", "_catalogue_algorithms", "_defaults", "_defaults_algorithms")
"""The core modules of the reference catalogue (the required set and the catalogue's signatures, whose
banners give the topics' order, then the generic defaults); the Array API standard's modules are the other
modules that define operations (`bk._operations.defined_in`)."""


def certify(report: Path) -> dict[str, Any]:
    """Runs `testkit certify --all` and returns its JSON report.

    `BK_CERTIFY_JSON=FILE` uses the report of a certification that just ran instead (`make test`
    certifies every backend right before it builds the docs, and need not do it twice).
    """
    given = os.environ.get("BK_CERTIFY_JSON")
    if given:
        print(f"feature matrix: using the certification report {given}", flush=True)
        return json.loads(Path(given).read_text())
    print("feature matrix: certifying every installed backend (testkit certify --all, a minute or two)...", flush=True)
    testkit = Path(sys.executable).parent / "testkit"
    command = [str(testkit), "certify", "--all", "--json", str(report)]
    result = subprocess.run(command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if result.returncode not in (0, 1) or not report.exists():
        raise RuntimeError(f"testkit certify --all failed with exit {result.returncode}:\n{result.stdout}")
    return json.loads(report.read_text())


def label(status: str) -> str:
    """A verdict as a coloured word (raw HTML inside the Markdown table)."""
    return f'<span class="bk-verdict bk-{status}">{LABELS.get(status, status)}</span>'


def topics() -> dict[str, str]:
    """Feature id -> the topic banner it sits under in the source of the module that defines it: the
    reference catalogue (`bk._catalogue_core` and `bk._catalogue_algorithms`, whose banners give the
    topics' order, with its generic defaults in `bk._defaults` and `bk._defaults_algorithms`) or an
    Array API standard's module (`"elementwise maths"`, `"decompositions"`, ...)."""
    import importlib

    import bk

    reference = [inspect.getfile(importlib.import_module(f"bk.{name}")) for name in _REFERENCE_MODULES]
    files: dict[str, list[tuple[int, str]]] = {}

    def banners(filename: str) -> list[tuple[int, str]]:
        if filename not in files:
            lines = Path(filename).read_text().splitlines()
            files[filename] = [(i + 1, m.group(1)) for i, line in enumerate(lines) if (m := _BANNER.match(line))]
        return files[filename]

    # the reference catalogue's topics in reading order: the required set, then the catalogue's banners
    rank = {topic: i for i, topic in enumerate(dict.fromkeys(name for path in reference[:2] for _, name in banners(path)))}
    placed = []
    for feature in bk.Backend.features():
        code = getattr(inspect.unwrap(getattr(bk.Backend, feature, None) or (lambda: None)), "__code__", None)
        filename = code.co_filename if code is not None and code.co_filename.startswith(str(Path(reference[0]).parent)) else None
        if filename is None:
            placed.append((2, 0, feature, CAPABILITIES))
            continue
        before = [name for start, name in banners(filename) if start <= code.co_firstlineno and name != "helpers" and not name.startswith("helpers ")]
        topic = before[-1] if before else CAPABILITIES
        if filename in reference:  # the reference's catalogue first, then the Array API standard's modules
            placed.append((0, rank.get(topic, len(rank)), feature, topic))
        else:
            standard = 1 + sum(1 for seen in files if seen not in reference)  # the Array API modules, in the order met
            placed.append((1, standard * 100_000 + code.co_firstlineno, feature, topic))
    return {feature: topic for _, _, feature, topic in sorted(placed)}  # in source order: topics keep the classes' order


def feature_link(feature: str) -> str:
    """The feature's API entry: the `Backend` method, or `supports` for a named capability."""
    import bk

    if callable(getattr(bk.Backend, feature, None)):
        return f"{{py:meth}}`{feature} <bk.Backend.{feature}>`"
    return f"{{py:meth}}`{feature} <bk.Backend.supports>`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def generated_label(result: dict[str, Any]) -> str:
    """The marker of a feature's generated cases, or '' where it has none (or they were not implemented)."""
    word = GENERATED.get(result.get("generated", ""), "")
    return f' <span class="bk-gen bk-gen-{result["generated"]}">{word}</span>' if word else ""


def backend_page(name: str, data: dict[str, Any]) -> str:
    counts = ", ".join(f"{v} {k}" for k, v in data["counts"].items())
    lines = [
        f"# Feature matrix: `{name}`",
        "",
        f"Generated from the JSON report of `testkit certify` when these docs were built: {counts}.",
        f"Plugin `{data['distribution']}` {data['version']}, framework {data['framework']} {data['framework_version']}.",
        "",
        *_gap_lines(data),
        "| feature | claimed | verdict | cases | notes |",
        "|---|---|---|---|---|",
    ]
    for feature, result in sorted(data["features"].items()):
        note = "; ".join(result.get("failures") or [])[:160] or (result.get("reason") or "")[:160]
        lines.append(
            f"| `{feature}` | {'yes' if result['claimed'] else 'no'} | {label(result['status'])}{generated_label(result)} | {result['cases']} | {_cell(note)} |"
        )
    return "\n".join(lines) + "\n"


def _gap_lines(data: dict[str, Any]) -> list[str]:
    """The gaps the backend declares (`bk.rules.declared_gaps`), as a list before its table."""
    gaps = data.get("gaps") or []
    return ["Declared gaps of its framework, and how the core fills them:", "", *[f"- {_cell(g)}" for g in gaps], ""] if gaps else []


def matrix_page(backends: dict[str, Any], topic_of: dict[str, str] | None = None) -> str:
    """All backends side by side: counts first, then one table per topic, each row linking its API entry."""
    topic_of = topic_of if topic_of is not None else topics()
    names = sorted(backends)
    features = sorted({f for b in backends.values() for f in b["features"]})
    statuses = list(LABELS)
    lines = [
        "Generated from the JSON report of `testkit certify` when these docs were built.",
        "",
        *[f"- {label(k)}: {MEANING[k]}" for k in statuses],
        *[f'- <span class="bk-gen bk-gen-{k}">{GENERATED[k]}</span>: {text}' for k, text in GENERATED_MEANING.items()],
        "",
        "## Counts",
        "",
        "| backend | " + " | ".join(label(s) for s in statuses) + " |",
        "|---|" + "---|" * len(statuses),
        *[f"| `{n}` | " + " | ".join(str(backends[n]["counts"].get(s, 0)) for s in statuses) + " |" for n in names],
    ]
    declared = [n for n in names if backends[n].get("gaps")]
    if declared:
        lines += ["", "## Declared gaps", "", "What each backend's framework lacks, declared on its class, and how the core fills it (docs/concepts.md, \"gap\"):", ""]
        lines += [f"- `{n}`: " + "; ".join(_cell(g) for g in backends[n]["gaps"]) for n in declared]
    order = list(dict.fromkeys(topic_of.get(f, CAPABILITIES) for f in sorted(features, key=_source_order(topic_of))))
    for topic in order:
        rows = [f for f in features if topic_of.get(f, CAPABILITIES) == topic]
        lines += ["", f"## {topic[:1].upper()}{topic[1:]}", "", "| operation | " + " | ".join(f"`{n}`" for n in names) + " |", "|---|" + "---|" * len(names)]
        for feature in rows:
            results = [backends[n]["features"].get(feature, {}) for n in names]
            cells = [label(r["status"]) + generated_label(r) if r.get("status") else "" for r in results]
            lines.append(f"| {feature_link(feature)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _source_order(topic_of: dict[str, str]) -> Any:
    position = {t: i for i, t in enumerate(dict.fromkeys(topic_of.values()))}
    return lambda feature: position.get(topic_of.get(feature, CAPABILITIES), len(position))


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
    for stale in (out / "backends").glob("*.md"):
        if stale.stem not in backends:
            stale.unlink()
    for name, data in backends.items():
        (out / "backends" / f"{name}.md").write_text(readme_page(name, data, Path(app.srcdir).parent))
    (out / "matrix.md").unlink(missing_ok=True)  # older builds wrote the table as an orphan page
    (out / "matrix.part").write_text(matrix_page(backends))
    print(f"feature matrix: {len(backends)} backends ({', '.join(sorted(backends))}) written to {out}", flush=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"version": "2", "parallel_read_safe": True}
