"""Runs the official Array API test suite against `bk.array_namespace(BACKEND)` (or a peer namespace).

    python bench/arrayapi_suite.py numpy                       # bk.array_namespace("numpy")
    python bench/arrayapi_suite.py --module array_api_compat.numpy
    python bench/arrayapi_suite.py tf -k "test_sum or test_prod" --failures tf-failures.txt
    python bench/arrayapi_suite.py --compare numpy dask --report .reports   # each beside its peer

The suite (`shared/array-api-tests`, unmodified) is copied to a temporary folder, since it writes
caches next to itself, and runs with `--max-examples=5 --hypothesis-seed=0` by default. The
script prints the pass/fail counts and, with `--failures FILE`, writes the failing test ids (one
per line, the format of the suite's `--xfails-file`). `--xfails FILE` passes such a file on (then an
unexpected failure exits 1). The backend `strict` is array-api-strict served by bk-arrayapi.

`--compare BACKEND...` (what `make arrayapi-suite` runs) tests each bk namespace with its list of
expected failures `bench/arrayapi_xfails/BACKEND.txt` and, in the same run, its peer (the namespace
another project offers for the same arrays, `PEERS`) on the same tests (the standard's 2024.12
version, which bk's namespaces declare; peers declare 2025.12). It writes the table of passed and
failed tests, each beside its peer, to `REPORT/arrayapi-suite.md` and `.json` (a run of fewer
backends replaces their rows and keeps the others, each dated), and exits 1 when a
bk namespace fails a test its list does not expect, or, for the backends of `AT_LEAST_PEER`,
passes fewer tests than its peer.

Hypothesis stops at the first failing example of a test instead of shrinking it (`--shrink` turns
shrinking back on): which tests fail stays the same, and TensorFlow's run takes under a minute
instead of 27 (shrinking its 190 failures).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parent.parent
SUITE_CANDIDATES = (ROOT.parent / "shared" / "array-api-tests", ROOT / "shared" / "array-api-tests")
XFAILS: Final = Path(__file__).resolve().parent / "arrayapi_xfails"
VERSION: Final = "2024.12"  # the version bk's namespaces declare; peers are tested on it too

# The namespace another project offers for the same arrays (None: there is none).
PEERS: Final[dict[str, str | None]] = {
    "numpy": "array_api_compat.numpy",
    "torch": "array_api_compat.torch",
    "jax": "jax.numpy",
    "tf": None,
    "dask": "array_api_compat.dask.array",
    "lazy": None,
    "strict": "array_api_strict",
}
# bk's namespace must pass at least as many tests as the peer of the same run.
AT_LEAST_PEER: Final = ("numpy", "torch", "jax", "dask")

# A pytest plugin written next to the suite's copy: Hypothesis reports the first failing example
# instead of shrinking it (a failing test fails either way; shrinking only makes the example small).
_NO_SHRINK_PLUGIN: Final = """
import pytest
from hypothesis import Phase, settings


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    base = settings.get_profile("array-api-tests")
    settings.register_profile("array-api-tests-no-shrink", base, phases=(Phase.explicit, Phase.reuse, Phase.generate))
    settings.load_profile("array-api-tests-no-shrink")
"""


def module_expression(backend: str) -> str:
    """The `ARRAY_API_TESTS_MODULE` value that makes the suite test bk's namespace of `backend`."""
    setup = 'import bk_arrayapi; bk_arrayapi.register("strict", "array_api_strict"); ' if backend == "strict" else ""
    return f"exec('import bk; {setup}xp = bk.array_namespace(\"{backend}\")')"


@dataclass
class Outcome:
    """One run of the suite: the counts as the suite gives them without a list of expected failures
    (`passed` includes tests listed as expected failures that passed, `failed` those that failed)."""

    namespace: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    tests: int = 0  # every test the report names (the suite collects 1,380 of the 2024.12 version)
    seconds: float = 0.0
    unexpected: list[str] = field(default_factory=list)  # failed, not listed
    stale: list[str] = field(default_factory=list)  # listed, passed
    failures: list[str] = field(default_factory=list)
    messages: dict[str, str] = field(default_factory=dict)
    error: str = ""  # set when pytest produced no report (the namespace failed to import, ...)
    listed: bool = False  # whether a list of expected failures was given


def find_suite(path: Path | None) -> Path | None:
    return path or next((p for p in SUITE_CANDIDATES if p.is_dir()), None)


def run_suite(
    suite: Path,
    module: str,
    namespace: str,
    *,
    max_examples: int = 5,
    xfails: Path | None = None,
    api_version: str | None = None,
    no_deadline: bool = False,
    shrink: bool = False,
    keyword: str | None = None,
    files: list[str] | None = None,
    pytest_args: tuple[str, ...] = (),
    show: bool = False,
) -> Outcome:
    """Runs the suite on one namespace (`module`: the suite's `ARRAY_API_TESTS_MODULE`)."""
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module)
    if api_version:
        env["ARRAY_API_TESTS_VERSION"] = api_version
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="arrayapi-suite-") as folder:
        shutil.copytree(suite, folder, dirs_exist_ok=True)
        command = [sys.executable, "-m", "pytest", *(files or ["array_api_tests"]), "-q", "-rf", "-p", "no:cacheprovider", "--tb=no",
                   f"--max-examples={max_examples}", "--hypothesis-seed=0", "-W", "ignore"]  # fmt: skip
        if not shrink:
            Path(folder, "_bk_no_shrink.py").write_text(_NO_SHRINK_PLUGIN)
            command += ["-p", "_bk_no_shrink"]
        if no_deadline:
            command.append("--disable-deadline")
        if keyword:
            command += ["-k", keyword]
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
        if xfails:
            command += ["--xfails-file", str(xfails.resolve())]
        result = subprocess.run([*command, *pytest_args], cwd=folder, env=env, capture_output=True, text=True)
        tests = json.loads(report.read_text())["tests"] if report.exists() else []
    output = result.stdout + result.stderr
    outcome = Outcome(namespace, seconds=round(time.perf_counter() - start, 1), listed=xfails is not None)
    for t in tests:
        kind, nodeid = t["outcome"], t["nodeid"]
        if kind in ("passed", "xpassed"):
            outcome.passed += 1
        elif kind in ("failed", "xfailed", "error"):
            outcome.failed += 1
            outcome.failures.append(nodeid)
            message = (t.get("call") or t.get("setup") or {}).get("crash", {}).get("message", "")
            outcome.messages[nodeid] = message.splitlines()[0][:300] if message else ""
        elif kind == "skipped":
            outcome.skipped += 1
        outcome.tests += 1
        if kind in ("failed", "error"):
            outcome.unexpected.append(nodeid)
        elif kind == "xpassed":
            outcome.stale.append(nodeid)
    outcome.failures.sort()
    if not tests:
        outcome.error = output[-3000:]
    if show:
        print(output)
    return outcome


def summary(outcome: Outcome) -> str:
    if outcome.error:
        return f"{outcome.namespace}: no result\n{outcome.error}"
    text = f"{outcome.namespace}: {outcome.passed} passed, {outcome.failed} failed, {outcome.skipped} skipped in {outcome.seconds:.0f} s"
    if outcome.listed and outcome.unexpected:
        text += f"; {len(outcome.unexpected)} unexpected failure(s)"
    if outcome.stale:
        text += f"; {len(outcome.stale)} listed failure(s) passed"
    return text


# ---------------------------------------------------------------- --compare: bk beside its peers


def compare(backends: list[str], suite: Path, report: Path | None, args: argparse.Namespace) -> int:
    """Runs each bk namespace and its peer on the same tests; writes and checks the table."""
    rows = []
    for backend in backends:
        xfails = XFAILS / f"{backend}.txt"
        options = {"max_examples": args.max_examples, "api_version": VERSION, "no_deadline": args.no_deadline,
                   "shrink": args.shrink, "keyword": args.keyword, "files": args.files}  # fmt: skip
        ours = run_suite(
            suite,
            module_expression(backend),
            f'bk.array_namespace("{backend}")',
            xfails=xfails if xfails.exists() else None,
            **options,
        )
        print(summary(ours), flush=True)
        peer_name = PEERS.get(backend)
        peer = run_suite(suite, peer_name, peer_name, **options) if peer_name else None
        if peer:
            print(summary(peer), flush=True)
        rows.append(_row(backend, ours, peer))
    document = {
        "suite": _suite_version(suite),
        "api_version": VERSION,
        "flags": f"--max-examples={args.max_examples} --hypothesis-seed=0" + (" --disable-deadline" if args.no_deadline else ""),
        "rows": rows,
    }
    print(markdown(document))
    if report:
        written = _merge(report / "arrayapi-suite.json", document)
        report.mkdir(parents=True, exist_ok=True)
        (report / "arrayapi-suite.json").write_text(json.dumps(written, indent=1) + "\n")
        (report / "arrayapi-suite.md").write_text(markdown(written))
        print(f"written: {report / 'arrayapi-suite.md'} and .json")
    problems = [r["backend"] for r in rows if r["verdict"] != "ok"]
    if problems:
        print(f"not as expected: {', '.join(problems)} (see the verdict column)", file=sys.stderr)
    return 1 if problems else 0


def _merge(path: Path, document: dict[str, Any]) -> dict[str, Any]:
    """`document` with the rows of an earlier report at `path` for other backends, when that report
    ran the same suite, version and flags (`SUITE_BACKENDS=dask` updates the dask row only)."""
    try:
        earlier = json.loads(path.read_text())
    except (OSError, ValueError):
        return document
    if any(earlier.get(key) != document[key] for key in ("suite", "api_version", "flags")):
        return document
    mine = {row["backend"] for row in document["rows"]}
    kept = [row for row in earlier.get("rows", []) if row["backend"] not in mine]
    order = list(PEERS)
    rows = sorted([*kept, *document["rows"]], key=lambda row: order.index(row["backend"]))
    return {**document, "rows": rows}


def _row(backend: str, ours: Outcome, peer: Outcome | None) -> dict[str, object]:
    verdict = "ok"
    if ours.error or (peer and peer.error):
        verdict = "no result"
    elif ours.unexpected:
        verdict = f"{len(ours.unexpected)} unexpected failure(s)"
    elif peer and backend in AT_LEAST_PEER and ours.passed < peer.passed:
        verdict = f"{peer.passed - ours.passed} passed fewer than the peer"
    date = datetime.date.today().isoformat()
    return {"backend": backend, "date": date, "bk": asdict(ours), "peer": asdict(peer) if peer else None, "verdict": verdict}


def _suite_version(suite: Path) -> str:
    source = suite / "SOURCE.txt"
    found = re.search(r"array-api-tests ([0-9a-f]{7,40})", source.read_text()) if source.exists() else None
    return f"data-apis/array-api-tests {found.group(1)[:12]}" if found else str(suite)


def markdown(document: dict[str, Any]) -> str:
    lines = [
        f"Official Array API tests ({document['suite']}, the {document['api_version']} tests), "
        f"{document['flags']}; passed / failed (seconds), each beside its peer of the same run.",
        "",
        "| backend | date | `bk.array_namespace` | peer | peer's figure | bk - peer (passed) | listed failures that passed | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in document["rows"]:
        ours, peer = row["bk"], row["peer"]
        figure = f"{ours['passed']:,} / {ours['failed']:,} ({ours['seconds']:.0f} s)"
        if peer:
            peer_figure = f"{peer['passed']:,} / {peer['failed']:,} ({peer['seconds']:.0f} s)"
            delta = f"{ours['passed'] - peer['passed']:+d}"
        else:
            peer_figure, delta = "none", ""
        peer_name = f"`{peer['namespace']}`" if peer else "none"
        lines.append(
            f"| {row['backend']} | {row.get('date', '')} | {figure} | {peer_name} | {peer_figure} | {delta} | {len(ours['stale'])} | {row['verdict']} |"
        )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("backend", nargs="?", help="a bk backend name (numpy, torch, jax, tf, dask, lazy, strict)")
    parser.add_argument("--module", help="test this module instead (a peer such as array_api_compat.torch)")
    parser.add_argument("--compare", nargs="+", metavar="BACKEND", help="test these bk namespaces, each beside its peer")
    parser.add_argument("--report", type=Path, help="with --compare: write arrayapi-suite.md and .json to this folder")
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
    parser.add_argument("--shrink", action="store_true", help="let Hypothesis shrink failing examples (slower)")
    parser.add_argument(
        "--api-version", help="test this version of the standard (default: the namespace's __array_api_version__)"
    )
    parser.add_argument("--files", nargs="+", help="only these test files (array_api_tests/test_fft.py ...)")
    parser.add_argument("--show", action="store_true", help="print pytest's whole output")
    parser.add_argument("--messages", action="store_true", help="print each failure's first message line")
    args, pytest_args = parser.parse_known_args(argv)  # the rest goes to pytest
    suite = find_suite(args.suite)
    if suite is None:
        parser.error("the suite was not found; pass --suite PATH (a copy of data-apis/array-api-tests with its array-api folder)")
    if args.compare:
        unknown = [b for b in args.compare if b not in PEERS]
        if unknown:
            parser.error(f"--compare: unknown backend(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")
        return compare(args.compare, suite, args.report, args)
    if not args.backend and not args.module:
        parser.error("name a backend, --module or --compare")
    outcome = run_suite(
        suite,
        args.module or module_expression(args.backend),
        args.module or args.backend,
        max_examples=args.max_examples,
        xfails=args.xfails,
        api_version=args.api_version,
        no_deadline=args.no_deadline,
        shrink=args.shrink,
        keyword=args.keyword,
        files=args.files,
        pytest_args=tuple(pytest_args),
        show=args.show,
    )
    if args.messages:
        for nodeid in outcome.failures:
            print(nodeid, "::", outcome.messages.get(nodeid, ""))
    print(summary(outcome))
    if args.failures:
        args.failures.write_text("".join(f"{name}\n" for name in outcome.failures))
        print(f"{len(outcome.failures)} failing test ids written to {args.failures}")
    if outcome.error:
        return 2
    return 1 if args.xfails is not None and outcome.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
