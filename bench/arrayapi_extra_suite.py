"""Runs array-api-extra's own test suite against `bk.array_namespace("dask")` and, in the same run,
against `array_api_compat.dask.array` (the namespace array-api-extra itself tests Dask with).

    python bench/arrayapi_extra_suite.py                    # both, side by side
    python bench/arrayapi_extra_suite.py --backend dask -k searchsorted
    python bench/arrayapi_extra_suite.py --report .reports  # also writes arrayapi-extra-suite.md and .json

array-api-extra 0.11.5 (a client library of the Array API standard: `searchsorted`, `at`, `pad`,
`isclose`, ... written once over any namespace) is fetched from PyPI into `.bench/` the first time
(its sdist, which holds the tests; its sha256 is checked against PyPI's index), and nothing is
installed into the virtualenv: the library is imported from the sdist's `src/`. The tests run
from a copy in which one line of their `conftest.py` changes: the `xp` fixture of the `dask.array`
backend yields bk's namespace when `BK_AAE_BACKEND` names a bk backend. Every other line (the
skips and expected failures array-api-extra marks for Dask, `filterwarnings = error`,
`xfail_strict`) applies to both runs alike. Only the tests of the Dask backend run (`-k dask`);
`tests/vendoring` (which checks that the library can be vendored into another package) does not run;
the few tests that take the `da` fixture (dask's own namespace, for Dask-only behaviour) get
`array_api_compat.dask.array` in both runs.

What differs between the two runs, and is not a difference of the namespaces: bk's Dask arrays are
plain `dask.array.Array`s, so a function that infers its namespace from its arguments (no `xp=`)
uses `array_api_compat.dask.array` in both runs; and array-api-extra's count of computes
(`lazy_xp_function`) recognises only dask's own namespace, so it is not checked in bk's run.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
VERSION: Final = "0.11.5"
CACHE: Final = ROOT / ".bench" / f"array-api-extra-{VERSION}"
INDEX: Final = "https://pypi.org/simple/array-api-extra/"
SDIST: Final = f"array_api_extra-{VERSION}.tar.gz"

# The line of array-api-extra's conftest.py that picks the namespace of the `xp` fixture, and what
# replaces it: bk's namespace for the Dask backend when BK_AAE_BACKEND names a bk backend.
_XP_LINE: Final = "    xp = array_namespace(xp.empty(0))\n"
_XP_PATCH: Final = "    xp = _bk_namespace(library) or array_namespace(xp.empty(0))\n"
_HELPER: Final = '''

def _bk_namespace(library):  # added by bk's bench/arrayapi_extra_suite.py
    import os

    backend = os.environ.get("BK_AAE_BACKEND")
    if not backend or library != Backend.DASK:
        return None
    import bk

    return bk.array_namespace(backend)
'''

# array-api-extra marks Dask and JAX tests `thread_unsafe`, a marker of pytest-run-parallel (which
# its CI installs): registered here, as `--strict-markers` would refuse it otherwise.
_PLUGIN: Final = '''
def pytest_configure(config):
    config.addinivalue_line("markers", "thread_unsafe: pytest-run-parallel's marker (not installed here)")
'''


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sdist_from_pypi(target: Path) -> None:
    """Downloads array-api-extra's sdist from PyPI's simple index (JSON form), checking its sha256."""
    request = urllib.request.Request(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    entry = next((f for f in files if f["filename"] == SDIST), None)
    if entry is None:
        raise SystemExit(f"PyPI lists no {SDIST}")
    part = target.with_suffix(".part")
    with urllib.request.urlopen(entry["url"], timeout=120) as response, part.open("wb") as out:
        shutil.copyfileobj(response, out)
    if _sha256(part) != entry["hashes"]["sha256"]:
        part.unlink()
        raise SystemExit(f"{SDIST}: the download does not match PyPI's sha256")
    part.replace(target)


def sources(sdist: Path | None = None) -> Path:
    """The unpacked sdist of array-api-extra (`src/`, `tests/`), fetched into `.bench/` once.

    `sdist` is a local copy of the sdist to use instead of downloading it."""
    unpacked = CACHE / f"array_api_extra-{VERSION}"
    if (unpacked / "tests" / "main" / "conftest.py").exists():
        return unpacked
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / SDIST
    if not archive.exists():
        if sdist is not None:
            shutil.copyfile(sdist, archive)
        else:
            _sdist_from_pypi(archive)
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return unpacked


def library_path(sdist: Path | None = None) -> Path:
    """The folder to put on `sys.path` to import array-api-extra (pure Python, from the sdist)."""
    return sources(sdist) / "src"


def _copy_with_bk_fixture(source: Path, work: Path) -> Path:
    """array-api-extra's sources in `work`, with the `xp` fixture able to yield bk's namespace."""
    tree = work / source.name
    shutil.copytree(source, tree)
    conftest = tree / "tests" / "main" / "conftest.py"
    text = conftest.read_text()
    fixture = text.find("\ndef xp(")
    line = text.find(_XP_LINE, fixture)
    if fixture < 0 or line < 0:
        raise SystemExit(f"{conftest}: the xp fixture changed (expected the line {_XP_LINE.strip()!r} in it)")
    conftest.write_text(text[:line] + _XP_PATCH + text[line + len(_XP_LINE) :] + _HELPER)
    (tree / "bk_aae_markers.py").write_text(_PLUGIN)
    return tree


def _counts(output: str) -> dict[str, int]:
    """pytest's summary line as counts (`passed`, `failed`, `skipped`, `xfailed`, `xpassed`, `error`)."""
    lines = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed|skipped|deselected|error)", line)]
    counts = {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0, "xpassed": 0, "error": 0}
    for number, word in re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)", lines[-1] if lines else ""):
        counts[word.rstrip("s") if word.startswith("error") else word] = int(number)
    return counts


def run_suite(tree: Path, backend: str | None, pytest_args: list[str], timeout: float) -> dict[str, Any]:
    """array-api-extra's tests of the Dask backend on bk's namespace of `backend` (None: array_api_compat's)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(tree), os.environ.get("PYTHONPATH", "")])}
    env.pop("BK_AAE_BACKEND", None)
    if backend:
        env["BK_AAE_BACKEND"] = backend
    command = [sys.executable, "-m", "pytest", "tests/main", "-k", "dask", "-q", "-p", "no:cacheprovider", "-p", "bk_aae_markers", "-o", "log_cli=false", "--tb=line", *pytest_args]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
        output, timed_out = done.stdout + done.stderr, False
    except subprocess.TimeoutExpired as expired:
        output, timed_out = (expired.stdout or b"").decode() if isinstance(expired.stdout, bytes) else (expired.stdout or ""), True
    seconds = time.perf_counter() - start
    failures = sorted({m.group(1) for m in re.finditer(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)})
    name = f'bk.array_namespace("{backend}")' if backend else "array_api_compat.dask.array"
    return {"namespace": name, **_counts(output), "seconds": round(seconds, 1), "timed_out": timed_out, "failures": failures}


def _table(results: list[dict[str, Any]]) -> str:
    rows = [
        f"array-api-extra {VERSION}, the tests of its Dask backend ({datetime.date.today().isoformat()})",
        "",
        "| namespace | passed | failed | skipped | xfailed | xpassed | errors | time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        seconds = f"{r['seconds']:.0f} s" + (" (stopped: time limit)" if r["timed_out"] else "")
        rows.append(f"| {r['namespace']} | {r['passed']} | {r['failed']} | {r['skipped']} | {r['xfailed']} | {r['xpassed']} | {r['error']} | {seconds} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default=None, help="run only bk's namespace of this backend (default: dask, beside array_api_compat.dask.array)")
    parser.add_argument("--sdist", type=Path, default=None, help=f"a local {SDIST} to use instead of downloading it")
    parser.add_argument("--report", type=Path, default=None, help="write arrayapi-extra-suite.md and .json to this folder")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds each run may take (default 1800)")
    parser.add_argument("-k", dest="keyword", default=None, help="only tests matching this expression too")
    args = parser.parse_args(argv)
    pytest_args = ["-k", args.keyword] if args.keyword else []
    source = sources(args.sdist)
    with tempfile.TemporaryDirectory(prefix="bk-aae-") as work:
        tree = _copy_with_bk_fixture(source, Path(work))
        backends: list[str | None] = [args.backend] if args.backend else ["dask", None]
        results = []
        for backend in backends:
            result = run_suite(tree, backend, pytest_args, args.timeout)
            print(f"{result['namespace']}: {result['passed']} passed, {result['failed']} failed, {result['skipped']} skipped, "
                  f"{result['xfailed']} xfailed, {result['xpassed']} xpassed, {result['error']} errors in {result['seconds']:.0f} s", flush=True)
            for failure in result["failures"]:
                print(f"    {failure}")
            results.append(result)
    table = _table(results)
    print()
    print(table)
    if args.report:
        args.report.mkdir(parents=True, exist_ok=True)
        (args.report / "arrayapi-extra-suite.md").write_text(table + "\n")
        (args.report / "arrayapi-extra-suite.json").write_text(json.dumps(results, indent=1) + "\n")
    return 1 if any(r["timed_out"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
