"""The generated feature matrix: words with colour classes (no emoji alone), grouped by topic, linked rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
sys.path.insert(0, str(Path(__file__).parents[1] / "docs" / "_ext"))

import feature_matrix


def report() -> dict:
    def backend(statuses: dict[str, str]) -> dict:
        counts = {s: list(statuses.values()).count(s) for s in feature_matrix.LABELS}
        return {"counts": counts, "features": {f: {"status": s, "claimed": s != "unsupported", "cases": 1} for f, s in statuses.items()}}

    return {
        "numpy": backend({"sin": "certified", "sum": "certified", "jacobian": "unsupported", "gradients": "unsupported"}),
        "other": backend({"sin": "failed", "sum": "unclaimed", "jacobian": "skipped", "gradients": "certified"}),
    }


def test_matrix_labels_are_coloured_words_grouped_and_linked():
    page = feature_matrix.matrix_page(report())
    for status, word in feature_matrix.LABELS.items():
        assert f'<span class="bk-verdict bk-{status}">{word}</span>' in page
    assert not any(ord(ch) > 0x2000 for ch in page), "no emoji or symbols that need a special font"
    assert "## Counts" in page and "| `numpy` | 2 | 0 | 2 | 0 | 0 |" in page and "| `other` | 1 | 1 | 0 | 1 | 1 |" in page
    sections = [line[3:] for line in page.splitlines() if line.startswith("## ")]
    assert sections[0] == "Counts" and "Elementwise maths" in sections and "Reductions" in sections and sections[-1] == "Capabilities"
    assert sections.index("Elementwise maths") < sections.index("Reductions") < sections.index("Autodiff, compilation, control flow")
    assert "{py:meth}`sin <bk.Backend.sin>`" in page and "{py:meth}`gradients <bk.Backend.supports>`" in page
    sin_row = next(line for line in page.splitlines() if "bk.Backend.sin>" in line)
    assert "bk-certified" in sin_row and "bk-failed" in sin_row


def test_every_feature_has_a_topic():
    import bk

    topics = feature_matrix.topics()
    assert set(topics) == set(bk.Backend.features())
    assert topics["sin"] == "elementwise maths" and topics["sum"] == "reductions" and topics["gradients"] == "capabilities"


def test_matrix_shows_which_operations_passed_the_generated_layer():
    data = report()
    data["numpy"]["features"]["sin"]["generated"] = "passed"
    data["other"]["features"]["sin"]["generated"] = "failed"
    data["numpy"]["features"]["sum"]["generated"] = "xfailed"
    page = feature_matrix.matrix_page(data)
    sin_row = next(line for line in page.splitlines() if "bk.Backend.sin>" in line)
    assert '<span class="bk-gen bk-gen-passed">+gen</span>' in sin_row and '<span class="bk-gen bk-gen-failed">gen FAILED</span>' in sin_row
    sum_row = next(line for line in page.splitlines() if "bk.Backend.sum>" in line)
    assert "gen declared" in sum_row
    jacobian_row = next(line for line in page.splitlines() if "bk.Backend.jacobian>" in line)
    assert "bk-gen" not in jacobian_row  # no generated cases: no marker
    assert "+gen" in feature_matrix.backend_page("numpy", {**data["numpy"], "distribution": "bk-numpy", "version": "0", "framework": "numpy", "framework_version": "2"})
