"""Builds the optional C fast paths of the bare kernels (`src/bk_numpy/_fastops.c`).

The extension needs only Python's headers and the C compiler Python was built with. When either
is missing, or `BK_NUMPY_PURE_PYTHON=1` is set, the wheel is built without it: bk-numpy then takes
`bk.rules.native_call` as the fast paths, with the same results, a little slower on arrays of ten
elements. An editable install (`pip install -e`) builds the extension next to its source.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("src/bk_numpy/_fastops.c")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("BK_NUMPY_PURE_PYTHON", "") not in ("", "0"):
            self.app.display_info("bk-numpy: BK_NUMPY_PURE_PYTHON is set: building without the C fast path")
            return
        name = "_fastops" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
        root = Path(self.root)
        if version == "editable":  # imported from the source folder: the extension goes beside its source
            target = root / SOURCE.parent / name
        else:
            target = root / "build" / "fastops" / name
        error = compile_extension(root / SOURCE, target)
        if error is not None:
            self.app.display_warning(f"bk-numpy: building without the C fast path ({error}); the fast paths run in Python")
            return
        if version != "editable":
            build_data["force_include"][str(target)] = f"bk_numpy/{name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def compile_extension(source: Path, target: Path) -> str | None:
    """Compiles and links `source` into the extension module `target`; the error, or None."""
    linker = sysconfig.get_config_var("LDSHARED")
    if not linker:
        return "this Python names no C compiler (sysconfig LDSHARED)"
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [*shlex.split(linker), "-O2", "-fPIC", "-I", sysconfig.get_paths()["include"], str(source), "-o", str(target)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        return f"cannot run {command[0]}: {error}"
    if done.returncode != 0:
        return f"{command[0]} failed: {done.stderr.strip()[-2000:]}"
    return None
