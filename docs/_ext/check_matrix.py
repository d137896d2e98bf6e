"""Checks the built feature-matrix page: every verdict is a coloured word, every backend has a column.

Run by `make docs` after the build (`python docs/_ext/check_matrix.py docs/_build/html REPORT`); it
fails if the labels disappeared (emoji alone, empty cells), a backend of the report is missing, or
the rows lost their topic headings and API links.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from feature_matrix import LABELS


def check(html_dir: Path, report: dict) -> list[str]:
    page = (html_dir / "matrix.html").read_text(encoding="utf-8")
    problems = []
    backends = report["backends"]
    for name, data in backends.items():
        if f"<code class=\"docutils literal notranslate\"><span class=\"pre\">{name}</span></code>" not in page:
            problems.append(f"no column for backend {name!r}")
        certified = data["counts"].get("certified", 0)
        if not re.search(rf"<span class=\"pre\">{re.escape(name)}</span></code></p></td>\s*<td><p>{certified}</p></td>", page):
            problems.append(f"the counts table does not show {certified} certified for {name!r}")
    verdicts = re.findall(r'<span class="bk-verdict bk-(\w+)">([^<]*)</span>', page)
    expected_cells = sum(len(d["features"]) for d in backends.values())
    if len(verdicts) < expected_cells:
        problems.append(f"{len(verdicts)} verdict labels, expected at least {expected_cells} (one per backend and feature)")
    for status, text in verdicts:
        if text != LABELS.get(status):
            problems.append(f"verdict {status!r} shows {text!r} instead of the word {LABELS.get(status)!r}")
            break
    generated = sum(1 for d in backends.values() for r in d["features"].values() if r.get("generated") == "passed")
    markers = page.count('class="bk-gen bk-gen-passed"')
    if markers < generated:
        problems.append(f"{markers} markers of the generated layer, expected {generated} (one per feature that passed it)")
    if page.count("<h2") < 10:
        problems.append("the rows are not grouped by topic (fewer than 10 sections)")
    if 'href="api/bk.html#bk.Backend.sin"' not in page:
        problems.append("rows do not link to their API entries (no link to bk.Backend.sin)")
    return problems


def main(argv: list[str]) -> int:
    html_dir, report = Path(argv[0]), json.loads(Path(argv[1]).read_text())
    problems = check(html_dir, report)
    for problem in problems:
        print(f"matrix.html: {problem}", file=sys.stderr)
    if not problems:
        print(f"matrix.html: {len(report['backends'])} backends, every verdict a coloured word")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
