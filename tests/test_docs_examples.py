"""Every ```python example of the documentation runs as written, page by page, as a reader pastes it.

The pages are README.md, docs/*.md, each plugin's README and the testkit's README. Sybil parses
each page; the page's Python blocks, in order, become ONE script (each block at its own line
numbers, so a traceback points into the page) that a fresh interpreter runs as `__main__` in an
empty folder, as a reader who pastes the blocks into a file and runs it would. A page whose blocks
start a `distributed.LocalCluster` must therefore guard it with `if __name__ == "__main__":`.

A block that cannot run in CI (it needs a GPU, a cluster elsewhere, an install) carries Sybil's
skip marker with the reason, and the page says so where a reader sees it::

    <!-- skip: next "needs a GPU" -->
    (Not run in CI: needs a GPU.)

    ```python
    ...
    ```

The reason given in the marker must appear in the visible text right around the block; a skip
without a reason, or one the reader cannot see, fails the page. Shell blocks are not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pytest

pytest.importorskip("sybil")

from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser

ROOT = Path(__file__).parents[1]
PAGES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "plugins").glob("*/README.md"), ROOT / "testkit" / "README.md"],
    key=lambda p: p.relative_to(ROOT).as_posix(),
)
TIMEOUT_S = 300  # per page; the slowest pages (a LocalCluster, TensorFlow) take about 10 s
VISIBLE_AROUND = 4  # lines before the marker and between the marker and the fence that must show the reason


def _collect(example) -> None:
    example.namespace.setdefault("__blocks__", []).append((example.line, example.parsed))


SYBIL = Sybil(parsers=[CodeBlockParser(language="python", evaluator=_collect), SkipParser()])
_SKIP = re.compile(r"<!--\s*skip:\s*(\w+)(.*?)-->")


def page_script(page: Path) -> tuple[str, list[str]]:
    """The page's runnable Python blocks as one script (blank lines keep each block at its page
    line numbers), and the reasons of the blocks that are skipped."""
    document = SYBIL.parse(page)
    skipped = []
    for example in document:
        try:
            example.evaluate()
        except SkipTest as reason:
            skipped.append(str(reason))
    lines: list[str] = []
    for line, source in document.namespace.get("__blocks__", []):
        lines += [""] * (line - len(lines))  # `line` is the fence's line (1-based): the code starts right after it
        lines += str(source).splitlines()
    return "\n".join(lines) + "\n", skipped


def _has_python(page: Path) -> bool:
    return "```python" in page.read_text()


def check_skip_markers(page: Path) -> None:
    """Every skip marker gives a reason that the visible text around it repeats."""
    lines = page.read_text().splitlines()
    for number, line in enumerate(lines):
        match = _SKIP.search(line)
        if not match or match.group(1) == "end":
            continue
        reason = match.group(2).strip().strip("\"'")
        assert reason, f"{page.name}:{number + 1}: a skipped example must say why: <!-- skip: next \"needs a GPU\" -->"
        visible = " ".join(lines[max(0, number - VISIBLE_AROUND) : number] + lines[number + 1 : number + 1 + VISIBLE_AROUND])
        assert reason.lower() in visible.lower() and "not run in ci" in visible.lower(), (
            f"{page.name}:{number + 1}: the page must tell the reader that the next example is not run in CI "
            f"and why ({reason!r}), in the text next to the block"
        )


@pytest.mark.parametrize("page", [p for p in PAGES if _has_python(p)], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples_run_as_written(page: Path, tmp_path: Path):
    check_skip_markers(page)
    script, skipped = page_script(page)
    if not script.strip():
        pytest.skip(f"every example of {page.name} is marked as not run in CI: {'; '.join(skipped)}")
    path = tmp_path / (page.relative_to(ROOT).as_posix().replace("/", "__") + ".py")
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "BK_"))}
    result = subprocess.run([sys.executable, path.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert result.returncode == 0, (
        f"the examples of {page.relative_to(ROOT)} fail when run in order as one script (line numbers are the page's):\n"
        f"{result.stderr[-6000:]}\n--- stdout ---\n{result.stdout[-2000:]}"
    )


def test_script_keeps_page_line_numbers(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n```python\nx = 1\n```\n\n"
        '<!-- skip: next "needs a GPU" -->\n(Not run in CI: needs a GPU.)\n\n```python\nraise SystemExit(1)\n```\n\n'
        "```sh\nexit 1\n```\n\n```python\ny = x + 1\nassert y == 2\n```\n"
    )
    script, skipped = page_script(page)
    lines = script.splitlines()
    assert lines[3] == "x = 1" and lines[18] == "y = x + 1" and "SystemExit" not in script and "exit 1" not in script
    assert skipped == ["needs a GPU"]
    check_skip_markers(page)
    exec(compile(script, str(page), "exec"), {})


def test_a_skip_the_reader_cannot_see_fails(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text('# Title\n\n<!-- skip: next "needs a GPU" -->\n```python\nimport cupy\n```\n')
    with pytest.raises(AssertionError, match="not run in CI"):
        check_skip_markers(page)
    page.write_text("# Title\n\n<!-- skip: next -->\n(Not run in CI.)\n```python\nimport cupy\n```\n")
    with pytest.raises(AssertionError, match="must say why"):
        check_skip_markers(page)
