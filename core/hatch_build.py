"""Builds the optional C front of the dispatcher (`src/bk/_fastplan*.c`: a call's key, plan lookup and direct calls).

The extension needs only Python's headers and the C compiler Python was built with. When either
is missing, or `BK_PURE_PYTHON=1` is set, the wheel is built without it: the core then runs the
same call path in Python, with the same plans and results, a few hundred nanoseconds slower per call.
An editable install (`pip install -e`) builds the extension next to its source.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The extension module `bk._fastplan`, from four files that share `_fastplan.h` (see `_fastplan.c`).
SOURCES = tuple(Path("src/bk") / f"_fastplan{part}.c" for part in ("", "_lookup", "_direct", "_namespace"))


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("BK_PURE_PYTHON", "") not in ("", "0"):
            self.app.display_info("bk-core: BK_PURE_PYTHON is set: building without the dispatcher's C front")
            return
        name = "_fastplan" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
        root = Path(self.root)
        if version == "editable":  # imported from the source folder: the extension goes beside its source
            target = root / SOURCES[0].parent / name
        else:
            target = root / "build" / "fastplan" / name
        error = compile_extension([root / source for source in SOURCES], target)
        if error is not None:
            self.app.display_warning(f"bk-core: building without the dispatcher's C front ({error}); the call path runs in Python")
            return
        if version != "editable":
            build_data["force_include"][str(target)] = f"bk/{name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def compile_extension(sources: list[Path], target: Path) -> str | None:
    """Compiles and links `sources` into the extension module `target`; the error, or None."""
    linker = sysconfig.get_config_var("LDSHARED")
    if not linker:
        return "this Python names no C compiler (sysconfig LDSHARED)"
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [*shlex.split(linker), "-O2", "-fPIC", "-I", sysconfig.get_paths()["include"], *map(str, sources), "-o", str(target)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        return f"cannot run {command[0]}: {error}"
    if done.returncode != 0:
        return f"{command[0]} failed: {done.stderr.strip()[-2000:]}"
    return None
