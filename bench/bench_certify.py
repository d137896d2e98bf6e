"""`testkit certify numpy` must stay cheap enough for plugin CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
import timeit
from pathlib import Path

from _harness import Figure


def run() -> list[Figure]:
    testkit = shutil.which("testkit") or str(Path(sys.executable).parent / "testkit")
    if not Path(testkit).exists():
        return []
    start = timeit.default_timer()
    result = subprocess.run([testkit, "certify", "numpy"], capture_output=True, text=True)
    seconds = timeit.default_timer() - start
    note = "exit 0" if result.returncode == 0 else f"exit {result.returncode}: {result.stdout.strip().splitlines()[-1:]}"
    return [Figure("testkit certify numpy (wall time)", seconds, 60.0, "s", note)]
