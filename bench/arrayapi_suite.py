"""Runs the official Array API test suite against `bk.array_namespace(BACKEND)` (or a peer namespace).

    python bench/arrayapi_suite.py numpy                       # bk.array_namespace("numpy")
    python bench/arrayapi_suite.py --module array_api_compat.numpy
    python bench/arrayapi_suite.py tf -k "test_sum or test_prod" --failures tf-failures.txt

The suite (`shared/array-api-tests`, unmodified) is copied to a temporary folder, since it writes
caches next to itself, and runs with `--max-examples=5 --hypothesis-seed=0` by default. The
script prints the pass/fail counts and, with `--failures FILE`, writes the failing test ids (one
per line, the format of the suite's `--xfails-file`). `--xfails FILE` passes such a file on (then an
unexpected failure exits 1); `make arrayapi-suite` runs numpy, torch, jax and tf with the lists in
`bench/arrayapi_xfails/`.
The backend `strict` is array-api-strict served by bk-arrayapi.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE_CANDIDATES = (ROOT.parent / "shared" / "array-api-tests", ROOT / "shared" / "array-api-tests")


def module_expression(backend: str) -> str:
    """The `ARRAY_API_TESTS_MODULE` value that makes the suite test bk's namespace of `backend`."""
    setup = 'import bk_arrayapi; bk_arrayapi.register("strict", "array_api_strict"); ' if backend == "strict" else ""
    return f"exec('import bk; {setup}xp = bk.array_namespace(\"{backend}\")')"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("backend", nargs="?", help="a bk backend name (numpy, torch, jax, tf, dask, lazy, strict)")
    parser.add_argument("--module", help="test this module instead (a peer such as array_api_compat.torch)")
    parser.add_argument("--suite", type=Path, help="the array-api-tests folder (default: shared/array-api-tests)")
    parser.add_argument("--max-examples", type=int, default=5)
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("--failures", type=Path, help="write the failing test ids to this file")
    parser.add_argument("--xfails", type=Path, help="a file of expected failures (the suite's --xfails-file)")
    parser.add_argument(
        "--no-deadline",
        action="store_true",
        help="disable Hypothesis's 800 ms deadline (on a busy machine, JAX's first compilations exceed it)",
    )
    parser.add_argument(
        "--api-version", help="test this version of the standard (default: the namespace's __array_api_version__)"
    )
    parser.add_argument("--files", nargs="+", help="only these test files (array_api_tests/test_fft.py ...)")
    parser.add_argument("--show", action="store_true", help="print pytest's whole output")
    parser.add_argument("--messages", action="store_true", help="print each failure's first message line")
    args, pytest_args = parser.parse_known_args(argv)  # the rest goes to pytest
    if not args.backend and not args.module:
        parser.error("name a backend or --module")
    suite = args.suite or next((p for p in SUITE_CANDIDATES if p.is_dir()), None)
    if suite is None:
        parser.error("the suite was not found; pass --suite PATH (a copy of data-apis/array-api-tests with its array-api folder)")
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=args.module or module_expression(args.backend))
    if args.api_version:  # peers declare 2025.12, which adds tests; compare on one version
        env["ARRAY_API_TESTS_VERSION"] = args.api_version
    with tempfile.TemporaryDirectory(prefix="arrayapi-suite-") as folder:
        shutil.copytree(suite, folder, dirs_exist_ok=True)
        command = [sys.executable, "-m", "pytest", *(args.files or ["array_api_tests"]), "-q", "-rf", "-p", "no:cacheprovider", "--tb=no",
                   f"--max-examples={args.max_examples}", "--hypothesis-seed=0", "-W", "ignore"]  # fmt: skip
        if args.no_deadline:
            command.append("--disable-deadline")
        if args.keyword:
            command += ["-k", args.keyword]
        report = Path(folder) / "report.json"
        command += [
            "--json-report",
            f"--json-report-file={report}",
            "--json-report-omit",
            "collectors",
            "log",
            "streams",
            "warnings",
        ]
        if args.xfails:
            command += ["--xfails-file", str(args.xfails.resolve())]
        result = subprocess.run([*command, *pytest_args], cwd=folder, env=env, capture_output=True, text=True)
        tests = json.loads(report.read_text())["tests"] if report.exists() else []
    output = result.stdout + result.stderr
    failed = sorted(t["nodeid"] for t in tests if t["outcome"] == "failed")
    if args.messages:
        for t in tests:
            if t["outcome"] == "failed":
                message = (t.get("call") or t.get("setup") or {}).get("crash", {}).get("message", "")
                print(t["nodeid"], "::", message.splitlines()[0][:300] if message else "")
    summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    print(output if args.show else summary[-1] if summary else output[-3000:])
    if args.failures:
        args.failures.write_text("".join(f"{name}\n" for name in failed))
        print(f"{len(failed)} failing test ids written to {args.failures}")
    if args.xfails is None and result.returncode == 1:
        return 0  # failures without a list of expected ones are information, not an error
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
