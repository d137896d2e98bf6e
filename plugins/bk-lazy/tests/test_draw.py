"""`bk_lazy.draw`: Graphviz pictures of graphs (the optional extra `bk-lazy[draw]`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import bk_lazy
import numpy as np
import pytest

import bk

graphviz = pytest.importorskip("graphviz", reason="bk-lazy[draw] is not installed (pip install bk-lazy[draw])")
needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot program is not installed (apt-get install graphviz)"
)


def _graph() -> tuple[bk_lazy.LazyArray, bk_lazy.LazyArray]:
    lazy = bk.backend("lazy")
    x = bk_lazy.Variable((None, 3), "float32", name="x")
    shared = lazy.exp(x)  # used twice: drawn once
    y = lazy.sum(shared * lazy.as_tensor(np.ones(3, np.float32)) + shared, axis=1)
    return x, y


def test_draw_lists_each_node_once_with_operation_shape_and_dtype() -> None:
    _, y = _graph()
    picture = bk_lazy.draw(y)
    source = picture.source
    assert source.count('"exp\n') == 1 and source.count("->") == 6
    assert '"Variable x\n(?, 3) float32"' in source and '"sum\n(?,) float32"' in source
    assert "array (numpy)" in source


@needs_dot
def test_draw_renders_svg(tmp_path: Path) -> None:
    x, y = _graph()
    svg = bk_lazy.draw({"y": y, "x": x}, direction="LR").pipe(format="svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert svg.count(">exp</text>") == 1 and ">Variable x</text>" in svg and "(?, 3) float32" in svg
    target = tmp_path / "graph.svg"
    y.draw(str(target))
    assert target.read_text().count(">exp</text>") == 1
    assert not list(tmp_path.glob("*.gv"))  # the Graphviz source is cleaned up


def test_without_graphviz_draw_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "graphviz", None)  # `import graphviz` raises ImportError
    _, y = _graph()
    with pytest.raises(ImportError, match=r"pip install bk-lazy\[draw\]"):
        bk_lazy.draw(y)
