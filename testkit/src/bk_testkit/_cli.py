"""The `testkit` command: `testkit certify ...`, `testkit diff A B`, `testkit list-features` and `testkit new NAME`."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final

import bk

from ._catalogue import catalogue, describe_feature
from ._certify import BackendLoadError, BackendReport, certify_backend
from ._report import format_summary, to_json, to_markdown
from ._run import select_features
from ._scaffold import ScaffoldError, framework_distribution, scaffold

__all__ = ["main"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="testkit", description="Certifies what installed bk backends support.")
    sub = parser.add_subparsers(dest="command", required=True)
    certify = sub.add_parser("certify", help="run the conformance catalogue against installed backends")
    certify.add_argument("names", nargs="*", metavar="NAME", help="installed backend names, such as numpy")
    certify.add_argument("--all", action="store_true", help="certify every installed backend")
    certify.add_argument("--json", metavar="FILE", help="write the JSON report (schema certify-1) to FILE; '-' writes it to standard output (the summary then goes to standard error)")
    certify.add_argument("--markdown", metavar="FILE", help="write a Markdown feature table to FILE")
    certify.add_argument("--features", metavar="PATTERN", help="comma-separated glob patterns of feature ids, e.g. 'sum,arc*'")
    certify.add_argument("--precision", type=int, choices=(32, 64), help="run precision-dependent checks only at this precision")
    certify.add_argument("--timeout", type=float, default=20.0, help="seconds one case may run (default 20)")
    certify.add_argument("--thorough", action="store_true", help="draw many more generated calls per operation (the generated layer; slower)")
    certify.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="certify N backends at a time, each in its own worker process (default 1; the report is the same)"
    )
    diff = sub.add_parser(
        "diff",
        help="run the generated calls of every operation on two installed backends and list where they disagree",
        description="Runs the same generated calls on backends A and B and lists every disagreement (operation, inputs, "
        "both results: values, dtype, shape or exception class). Exit status 1 when a disagreement is not declared in the "
        "expected-failure table, 2 for a usage error.",
    )
    diff.add_argument("a", metavar="A", help="installed backend name, such as numpy")
    diff.add_argument("b", metavar="B", help="installed backend name, such as torch")
    diff.add_argument("--features", metavar="PATTERN", help="comma-separated glob patterns of operations, e.g. 'sum,arc*'")
    diff.add_argument("--examples", type=int, default=20, help="valid calls drawn per operation (default 20; invalid ones: a third as many)")
    diff.add_argument("--thorough", action="store_true", help="draw as many calls as testkit certify --thorough")
    diff.add_argument("--json", metavar="FILE", help="write the disagreements as JSON to FILE ('-': standard output)")
    sub.add_parser("list-features", help="print every feature id, its number of cases and a description")
    new = sub.add_parser(
        "new",
        help="scaffold a plugin distribution in the new folder bk-NAME",
        description="Writes a complete plugin distribution into the new folder bk-NAME (never NAME: a folder named "
        "like the framework would shadow its import): it installs with `pip install ./bk-NAME`, and "
        "`testkit certify NAME` exits 0 from the start.",
    )
    new.add_argument(
        "name",
        metavar="NAME",
        help="backend name (lowercase letters, digits and single underscores, such as mylib) or the distribution name bk-mylib",
    )
    new.add_argument("--framework", metavar="MODULE", help="top-level module of the framework whose tensor types the backend owns")
    new.add_argument(
        "--framework-dist",
        metavar="DIST",
        help="the distribution that provides MODULE, written as the dependency in pyproject.toml (such as paddlepaddle for "
        "the module paddle; default: the installed distribution that provides MODULE, a known name, or MODULE itself)",
    )
    new.add_argument(
        "--bk-source",
        metavar="URL_OR_PATH",
        help="where the generated CI installs bk-core, bk-numpy and bk-testkit while they are not on a package index: "
        "a git URL (git+https://...) or a path to a bk checkout (default: the git URL this testkit was installed from, if any)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `testkit` console command; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) and EXIT_USAGE
    try:
        if args.command == "list-features":
            return _list_features()
        if args.command == "new":
            return _new(args.name, args.framework, args.bk_source, args.framework_dist)
        if args.command == "diff":
            return _diff(args)
        return _certify(parser, args)
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return EXIT_OK


def _list_features() -> int:
    counts = catalogue()
    for feature, count in counts.items():
        print(f"{feature:<36} {count:>3}  {describe_feature(feature)}")
    missing = sum(1 for c in counts.values() if c == 0)
    print(f"\n{len(counts)} features, {sum(counts.values())} cases; {missing} features without a case yet.")
    return EXIT_OK


def backend_name(name: str) -> str:
    """The backend name of `name`, which may be the distribution name: `bk-my-lib` gives `my_lib`."""
    if name.lower().startswith(("bk-", "bk_")) and len(name) > 3:
        return name[3:].replace("-", "_")
    return name


def _new(name: str, framework: str | None, bk_source: str | None = None, framework_dist: str | None = None) -> int:
    name = backend_name(name)
    try:
        files = scaffold(name, framework, bk_source=bk_source, framework_dist=framework_dist)
    except ScaffoldError as error:
        print(f"testkit new: {error}", file=sys.stderr)
        return EXIT_USAGE
    folder = "bk-" + name.replace("_", "-")  # the distribution's name, never the framework's (it would shadow it)
    print(f"Created the plugin distribution {folder} in {folder}/:")
    for path in files:
        print(f"  {path.as_posix()}")
    if framework is not None and framework_dist is None and importlib.util.find_spec(framework) is None:
        print(
            f"Note: {framework} is not installed here, so {folder}/pyproject.toml depends on the distribution "
            f"{framework_distribution(framework)!r}; if that is not the distribution that provides {framework}, run again "
            "with --framework-dist DIST, or correct the dependency."
        )
    print(f"\nNext:\n  pip install -e './{folder}[test]'\n  testkit certify {name}\n  pytest {folder}/tests")
    print(f"Then follow 'Next steps' in {folder}/README.md.")
    return EXIT_OK


def _certify(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if bool(args.names) == bool(args.all):
        parser.print_usage(sys.stderr)
        print("testkit certify: name one or more backends, or pass --all (not both)", file=sys.stderr)
        return EXIT_USAGE
    names = list(bk.backends()) if args.all else list(dict.fromkeys(args.names))
    if not names:
        print("testkit certify --all: no backends are installed. Install one, e.g. pip install bk-numpy", file=sys.stderr)
        return EXIT_USAGE
    features = select_features(args.features)
    if not features:
        print(f"testkit certify: no feature id matches {args.features!r}; see testkit list-features", file=sys.stderr)
        return EXIT_USAGE
    precisions = (None, 32, 64) if args.precision is None else (args.precision,)
    start = time.perf_counter()
    reports: list[BackendReport] = []
    progress = _Progress()
    if args.jobs < 1:
        print(f"testkit certify: --jobs must be 1 or more, got {args.jobs}", file=sys.stderr)
        return EXIT_USAGE
    missing = [name for name in names if name not in bk.backends()]
    if missing:  # said before any backend starts (certify_backend says why it is missing)
        names = missing[:1]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # each backend's cases run in its own worker process
        pending = [pool.submit(certify_backend, name, features, precisions, args.timeout, progress, thorough=args.thorough) for name in names]
        for future in pending:  # reported in the order the backends were named
            try:
                reports.append(future.result())
            except BackendLoadError as error:
                for other in pending:
                    other.cancel()
                progress.clear()
                print(f"testkit certify: {error}", file=sys.stderr)
                return EXIT_USAGE
            progress.finish(reports[-1])
    summary = format_summary(reports, time.perf_counter() - start)
    print(summary, file=sys.stderr if args.json == "-" else sys.stdout)
    _write(args, reports)
    failed = any(r.status == "failed" and r.claimed for rep in reports for r in rep.features.values())
    return EXIT_FAILED if failed else EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    from ._diff import diff_backends, format_diff
    from ._generated import THOROUGH

    backends = []
    for name in (args.a, args.b):
        if name not in bk.backends():
            from bk._plugins import REGISTRY

            print(f"testkit diff: {REGISTRY.missing_message(name)}", file=sys.stderr)
            return EXIT_USAGE
        backends.append(bk.backend(name))
    operations = select_features(args.features)
    if not operations:
        print(f"testkit diff: no operation matches {args.features!r}; see testkit list-features", file=sys.stderr)
        return EXIT_USAGE
    examples = THOROUGH["valid"] if args.thorough else args.examples
    report = diff_backends(backends[0], backends[1], operations, examples)
    text = format_diff(report)
    print(text, file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        document = json.dumps(report.to_dict(), indent=2) + "\n"
        if args.json == "-":
            sys.stdout.write(document)
        else:
            with open(args.json, "w", encoding="utf-8") as file:
                file.write(document)
    return EXIT_FAILED if report.disagreements else EXIT_OK


def _write(args: argparse.Namespace, reports: list[BackendReport]) -> None:
    if args.json == "-":
        json.dump(to_json(reports, args.precision), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump(to_json(reports, args.precision), file, indent=2)
            file.write("\n")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as file:
            file.write(to_markdown(reports))


class _Progress:
    """A progress bar on stderr when it is a terminal; otherwise a short line every 10 %."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last_tenth: dict[str, int] = {}  # per backend: `--jobs` certifies several at once
        self.lock = threading.Lock()

    def __call__(self, backend: str, done: int, total: int, case: str) -> None:
        with self.lock:
            if self.tty:
                width = 30
                filled = width * done // max(total, 1)
                sys.stderr.write(f"\r{backend:<8} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {case[:40]:<40}")
                sys.stderr.flush()
                return
            tenth = 10 * done // max(total, 1)
            if tenth != self.last_tenth.get(backend):
                self.last_tenth[backend] = tenth
                print(f"{backend}: {done}/{total} cases", file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.tty:
            sys.stderr.write("\r" + " " * 100 + "\r")

    def finish(self, report: BackendReport) -> None:
        self.clear()
        counts = ", ".join(f"{v} {k}" for k, v in report.counts().items() if v)
        print(f"{report.name}: {counts} ({report.seconds:.1f} s)", file=sys.stderr, flush=True)
