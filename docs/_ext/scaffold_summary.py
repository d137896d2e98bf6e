"""Generates the certification summary of a freshly scaffolded plugin while the docs build.

docs/write-a-plugin.md shows what `testkit certify mylib` prints right after `testkit new mylib`. The
figures (certified, unsupported, case counts) change with every bk-core release, so they are never
typed: at `builder-inited` this extension scaffolds `mylib` into a temporary folder, makes it
installed for a subprocess (a `.dist-info` with its entry point on `PYTHONPATH`), certifies it, and
writes the summary table into the git-ignored `generated/scaffold-summary.txt`, which the page includes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sphinx.application import Sphinx


def summary() -> str:
    """The summary table `testkit certify mylib` prints for the scaffold (timings left out)."""
    from bk_testkit._scaffold import scaffold

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        scaffold("mylib", parent=root)
        source = root / "bk-mylib" / "src"
        info = source / "bk_mylib-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bk-mylib\nVersion: 0.1.0\n")
        (info / "entry_points.txt").write_text("[bk.backends]\nmylib = bk_mylib.plugin\n")
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")])}
        for variable in ("BK_DISABLE_PLUGIN_AUTOLOAD", "BK_PLUGINS", "BK_BLOCK_PLUGINS"):
            environment.pop(variable, None)
        code = "import sys; from bk_testkit._cli import main; sys.exit(main())"
        result = subprocess.run([sys.executable, "-c", code, "certify", "mylib"], capture_output=True, text=True, env=environment, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"the scaffolded plugin did not certify (exit {result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    table = [line for line in lines if line.startswith(("backend ", "-----", "mylib "))]
    ran = next(line for line in lines if line.startswith("Ran "))
    ran = ran.split(" in ")[0] + "."  # "Ran 885 cases for 1 backend(s)." without the time of this machine
    return "\n".join([*table, "", ran]) + "\n"


def generate(app: Sphinx) -> None:
    target = Path(app.srcdir) / "generated" / "scaffold-summary.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    print("scaffold summary: certifying a freshly generated plugin (testkit new mylib; about half a minute)...", flush=True)
    target.write_text(summary())


def setup(app: Sphinx) -> dict[str, bool]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True}
