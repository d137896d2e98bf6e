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
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
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
TIMEOUT_S = 300  # per page; the slowest pages (every framework, a LocalCluster) take 10-40 s
PARALLEL = max(2, min(4, os.cpu_count() or 1))  # pages run at once
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


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name


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
        assert reason, f"{_name(page)}:{number + 1}: a skipped example must say why: <!-- skip: next \"needs a GPU\" -->"
        visible = " ".join(lines[max(0, number - VISIBLE_AROUND) : number] + lines[number + 1 : number + 1 + VISIBLE_AROUND])
        assert reason.lower() in visible.lower() and "not run in ci" in visible.lower(), (
            f"{_name(page)}:{number + 1}: the page must tell the reader that the next example is not run in CI "
            f"and why ({reason!r}), in the text next to the block"
        )


# What an example needs installed, by the modules it imports and the backends it names.
_NEEDS_MODULE = {"torch": "bk-torch", "jax": "bk-jax", "tensorflow": "bk-tf", "dask": "bk-dask", "distributed": "bk-dask", "bk_lazy": "bk-lazy"}
_NEEDS_BACKEND = {"torch": "bk-torch", "jax": "bk-jax", "tf": "bk-tf", "dask": "bk-dask", "lazy": "bk-lazy"}
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def check_install_lines(page: Path) -> None:
    """Every framework an example imports, and every backend it names, is installed by a `pip install`
    line above it on the page (bk-core and bk-numpy, the base install, excepted)."""
    installed: set[str] = set()
    for match in _FENCE.finditer(page.read_text()):
        language, code = match.groups()
        if language in ("sh", "bash"):
            for line in code.splitlines():
                if "pip install" in line:
                    installed |= set(re.findall(r"bk-[a-z]+", line))
        elif language == "python":
            modules = re.findall(r"^\s*(?:import|from)\s+(\w+)", code, re.M)
            backends = re.findall(r"bk\.backend\([\"'](\w+)[\"']\)", code)
            needed = {_NEEDS_MODULE[m] for m in modules if m in _NEEDS_MODULE} | {_NEEDS_BACKEND[n] for n in backends if n in _NEEDS_BACKEND}
            line = page.read_text()[: match.start()].count("\n") + 1
            assert needed <= installed, (
                f"{_name(page)}:{line}: the example needs {', '.join(sorted(needed - installed))}, which no `pip install` line above it installs"
            )


def _run_page(page: Path, folder: Path) -> subprocess.CompletedProcess[str] | str:
    """Runs the page's script in `folder`; the reason instead when every block is skipped."""
    script, skipped = page_script(page)
    if not script.strip():
        return f"every example of {_name(page)} is marked as not run in CI: {'; '.join(skipped)}"
    path = folder / (_name(page).replace("/", "__") + ".py")
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "BK_"))}
    return subprocess.run([sys.executable, path.name], cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def page_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Path, Future[Any]]]:
    """The scripts of every selected page, started together (a few at a time): most of a page's time
    is starting Python and importing frameworks, which overlap well."""
    pages = [item.callspec.params["page"] for item in request.session.items if getattr(item, "originalname", "") == "test_page_examples_run_as_written"]
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        yield {page: pool.submit(_run_page, page, tmp_path_factory.mktemp("page")) for page in dict.fromkeys(pages)}


@pytest.mark.parametrize("page", [p for p in PAGES if _has_python(p)], ids=_name)
def test_page_examples_run_as_written(page: Path, page_runs: dict[Path, Future[Any]]):
    check_skip_markers(page)
    check_install_lines(page)
    result = page_runs[page].result()
    if isinstance(result, str):
        pytest.skip(result)
    assert result.returncode == 0, (
        f"the examples of {_name(page)} fail when run in order as one script (line numbers are the page's):\n"
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


def test_an_example_needs_an_install_line_above_it(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text('# Title\n\n```python\nimport bk\nb = bk.backend("torch")\n```\n')
    with pytest.raises(AssertionError, match="page.md:3: the example needs bk-torch"):
        check_install_lines(page)
    page.write_text('# Title\n\n```sh\npip install ./core ./plugins/bk-torch\n```\n\n```python\nimport torch\nimport bk\nb = bk.backend("torch")\n```\n')
    check_install_lines(page)
