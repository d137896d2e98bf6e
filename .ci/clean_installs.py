#!/usr/bin/env python3
"""Clean installs: each distribution alone in a fresh virtual environment, then a smoke test.

For every distribution of the repository (core, each plugin in plugins/, testkit) this creates a
virtual environment (`python -m venv`, no system site packages), installs only that distribution
and what it declares, and runs a smoke test there: `python -m bk info` for bk-core, loading the
backend and running one operation for a plugin, `testkit certify numpy` with nothing failed for
bk-testkit. An import that a distribution uses but does not declare fails here.

The bk distributions are not on a package index: a generated constraints file maps each of them to
its folder (`bk-core @ file:///.../core`), after the pins of constraints.txt, so
`pip install -c FILE ./testkit` resolves bk-core and bk-numpy from the checkout. pip's cache is
reused between environments; each environment is deleted once its test passed.

Usage: python3 .ci/clean_installs.py [NAME ...]   (folder names such as core, bk-torch, testkit;
default: all). Exits 1 when any install or smoke test fails.

`python3 .ci/clean_installs.py --constraints FILE` only writes that constraints file, for installing
from a checkout by hand: `pip install -c FILE ./testkit` (pip 23 to 26 accept direct URLs there).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PYTHON = os.environ.get("BK_CLEAN_PYTHON", "python3")

_PLUGIN_SMOKE = """
import bk
b = bk.backend({name!r})
x = b.as_tensor([1.0, 2.0])
y = b.numpy(b.add(x, x)).tolist()
assert y == [2.0, 4.0], y
print({name!r}, "computes 2 * [1.0, 2.0] =", y, "with", type(b).__module__)
"""

_ARRAYAPI_SMOKE = """
import bk, bk_arrayapi
bk_arrayapi.register("compat_numpy", "array_api_compat.numpy")
b = bk.backend("compat_numpy")
y = b.numpy(b.add(b.as_tensor([1.0, 2.0]), b.as_tensor([1.0, 2.0]))).tolist()
assert y == [2.0, 4.0], y
print("compat_numpy computes 2 * [1.0, 2.0] =", y)
"""

_TESTKIT_SMOKE = """
import json, os, subprocess, sys
testkit = os.path.join(os.path.dirname(sys.executable), "testkit")  # the environment's console script
status = subprocess.run([testkit, "certify", "numpy", "--json", "report.json"]).returncode
counts = json.load(open("report.json"))["backends"]["numpy"]["counts"]
print("testkit certify numpy:", counts, "exit status", status)
sys.exit(0 if status == 0 and counts["failed"] == 0 else 1)
"""

# Folder -> (extras to install, smoke test as Python source). A plugin's backend name is its folder
# name without "bk-". bk-tf chooses its TensorFlow through an extra (cpu or gpu).
EXTRAS = {"bk-tf": "[cpu]"}


def distributions() -> list[Path]:
    return [ROOT / "core", *sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml")), ROOT / "testkit"]


def smoke_test(dist: Path) -> list[str]:
    """The command that proves `dist` works in its environment (run with the environment's python)."""
    if dist.name == "core":
        return ["-m", "bk", "info"]
    if dist.name == "testkit":
        return ["-c", _TESTKIT_SMOKE]
    if dist.name == "bk-arrayapi":
        return ["-c", _ARRAYAPI_SMOKE]
    return ["-c", _PLUGIN_SMOKE.format(name=dist.name.removeprefix("bk-"))]


def write_constraints(path: Path) -> None:
    """constraints.txt, then every bk distribution as a local path (a direct URL constraint)."""
    lines = [(ROOT / "constraints.txt").read_text(encoding="utf-8").rstrip(), "# the bk distributions of this checkout"]
    for dist in distributions():
        name = tomllib.loads((dist / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
        lines.append(f"{name} @ {dist.as_uri()}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run(command: list[str], cwd: Path, log: Path) -> bool:
    """Runs `command`, appending its output to `log`; True when it exits 0."""
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n$ {' '.join(command)}\n")
        out.flush()
        return subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False).returncode == 0


def check(dist: Path, work: Path, constraints: Path) -> tuple[bool, str, float]:
    """Installs `dist` alone into a fresh environment and runs its smoke test."""
    start = time.perf_counter()
    env_dir = work / f"venv-{dist.name}"
    log = work / f"{dist.name}.log"
    python = str(env_dir / "bin" / "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    steps = [
        ([PYTHON, "-m", "venv", str(env_dir)], "venv"),
        ([*pip, "install", "-q", "--no-compile", "-c", str(constraints), f"{dist}{EXTRAS.get(dist.name, '')}"], "install"),
        ([*pip, "check"], "pip check"),
        ([python, *smoke_test(dist)], "smoke test"),
    ]
    ok, failed_step = True, ""
    for command, what in steps:
        if not run(command, work, log):
            ok, failed_step = False, what
            break
    if ok:
        shutil.rmtree(env_dir, ignore_errors=True)
    return ok, failed_step, time.perf_counter() - start


def main(argv: list[str]) -> int:
    if argv[:1] == ["--constraints"] and len(argv) == 2:
        write_constraints(Path(argv[1]).resolve())
        print(f"wrote {argv[1]}: pip install -c {argv[1]} ./testkit (or any distribution of this checkout)")
        return 0
    chosen = [d for d in distributions() if not argv or d.name in argv]
    unknown = set(argv) - {d.name for d in chosen}
    if unknown:
        print(f"clean installs: unknown distribution folder(s) {sorted(unknown)}; choose from {[d.name for d in distributions()]}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="bk-clean-installs-"))
    constraints = work / "constraints.txt"
    write_constraints(constraints)
    failures = []
    total = time.perf_counter()
    for dist in chosen:
        ok, step, seconds = check(dist, work, constraints)
        print(f"clean install of {dist.name}: {'ok' if ok else 'FAILED at ' + step} ({seconds:.0f} s)", flush=True)
        if not ok:
            failures.append(dist.name)
            print((work / f"{dist.name}.log").read_text(encoding="utf-8")[-6000:], file=sys.stderr)
    print(f"clean installs: {len(chosen) - len(failures)} of {len(chosen)} passed in {time.perf_counter() - total:.0f} s", flush=True)
    if failures:
        print(f"clean installs failed: {', '.join(failures)} (logs and environments in {work})", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
