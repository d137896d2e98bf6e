"""Import and discovery cost: `import bk; bk.backends()` against `import numpy`, and with 100 extra plugins."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from _harness import Figure, cold_start_difference_ms, cold_start_ms

PLUGIN = '''import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="{name}", modules=("{name}",), load="{name}_impl:Backend", priority=10)]
'''


def make_site(root: Path, count: int) -> None:
    """`count` throw-away plugins: light entry-point modules whose load targets do not even exist."""
    for i in range(count):
        name = f"benchplugin{i}"
        (root / f"{name}_plugin.py").write_text(PLUGIN.format(name=name))
        info = root / f"bk_{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: bk-{name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[bk.backends]\n{name} = {name}_plugin\n")


def run() -> list[Figure]:
    extra_ms, numpy_ms = cold_start_difference_ms(
        "import sys, numpy, bk; bk.backends(); assert not [m for m in ('torch', 'jax', 'tensorflow') if m in sys.modules]", "import numpy"
    )
    figures = [Figure("import numpy, bk; bk.backends()  minus  import numpy", extra_ms, 15.0, "ms", f"(numpy alone {numpy_ms:.0f} ms)")]
    try:
        phiml_ms = cold_start_ms("import phiml.backend", runs=10, quiet=True)
        figures[0].note += f"; phiml.backend costs {phiml_ms - numpy_ms:.0f} ms more than numpy"
    except Exception:
        figures[0].note += "; phiml not installed for comparison"
    with tempfile.TemporaryDirectory() as tmp:
        make_site(Path(tmp), 100)
        check = "import sys, bk; n = len(bk.backends()); assert not [m for m in sys.modules if m.startswith('benchplugin') and m.endswith('_impl')], 'a plugin was loaded'"
        extra_plugins_ms, _ = cold_start_difference_ms(check + "; assert n >= 100", check, env={"PYTHONPATH": os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))}, baseline_env={})
    figures.append(Figure("discovery with 100 extra plugins  minus  without", extra_plugins_ms, 30.0, "ms", "(none of them loaded)"))
    return figures
