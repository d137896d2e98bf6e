"""The README's example runs as written, on every installed first-party backend."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import bk

README = Path(__file__).parents[1] / "README.md"
BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]


def example() -> str:
    text = README.read_text()
    return re.search(r"## Example\n\n```python\n(.*?)```", text, re.S).group(1)


@pytest.mark.parametrize("name", BACKENDS)
def test_readme_example_runs_on_each_backend(name: str):
    code = example()
    assert 'bk.backend("numpy")' in code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace('bk.backend("numpy")', f"bk.backend({name!r})", 1), str(README), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"{name} [") and lines[2] == "float64" and lines[3] == name
