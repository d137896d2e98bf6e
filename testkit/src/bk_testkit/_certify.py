"""`certify`: runs the catalogue against installed backends, each in worker subprocesses.

A worker streams one JSON line per case. When it dies in the middle of a case, that case is run
again alone in a fresh worker; if it dies again it is reported as crashed (failed). A case that
runs past the time limit is reported as timed out and its worker is killed. Either way the
remaining cases resume in a new worker, so one bad case never stops the others.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final

import bk

from ._run import CRASHED, TIMEOUT, CaseResult, FeatureResult, select_cases, verdict

__all__ = ["BackendLoadError", "BackendReport", "certify_backend"]

LOAD_TIMEOUT: Final = 300.0
Progress = Callable[[str, int, int, str], None]  # backend, done, total, case id


class BackendLoadError(Exception):
    """A backend is not installed or cannot be loaded."""


@dataclass
class BackendReport:
    """Everything `certify` found out about one backend."""

    name: str
    info: dict[str, Any]
    features: dict[str, FeatureResult]
    seconds: float
    cases: list[CaseResult] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Number of features per status."""
        counts = dict.fromkeys(("certified", "failed", "unsupported", "unclaimed", "skipped"), 0)
        for result in self.features.values():
            counts[result.status] += 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.info,
            "seconds": round(self.seconds, 3),
            "counts": self.counts(),
            "features": {f: r.to_dict() for f, r in self.features.items()},
        }


class _Worker:
    """One worker subprocess and a thread that reads its lines into a queue."""

    def __init__(self, backend: str, case_ids: Sequence[str], precisions: Sequence[int | None], thorough: bool = False) -> None:
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in kill()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bk_testkit._worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        assert self.process.stdin is not None
        config = {"backend": backend, "cases": list(case_ids), "precisions": list(precisions), "thorough": thorough}
        self.process.stdin.write(json.dumps(config))
        self.process.stdin.close()
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self.lines.put(json.loads(line))
            except json.JSONDecodeError:
                continue
        self.lines.put(None)

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next message; `None` when the worker ended; raises `queue.Empty` after `timeout`."""
        return self.lines.get(timeout=timeout)

    def stop(self) -> str:
        """Ends the worker (killing it if needed); returns its exit status and last stderr lines."""
        if self.process.poll() is None:
            self.process.kill()
        status = self.process.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        self.stderr.close()
        return f"exit status {status}" + (f"; stderr: {' | '.join(tail)}" if tail else "")


@dataclass
class _Session:
    hello: dict[str, Any] | None = None
    results: dict[str, CaseResult] = field(default_factory=dict)
    died_in: str | None = None
    death: str = ""


def _session(
    backend: str, case_ids: Sequence[str], precisions: Sequence[int | None], timeout: float, on_result: Callable[[CaseResult], None], thorough: bool = False
) -> _Session:
    """Runs `case_ids` in one worker until all are done, one times out, or the worker dies."""
    session = _Session()
    worker = _Worker(backend, case_ids, precisions, thorough)
    try:
        message = worker.next(LOAD_TIMEOUT)
    except queue.Empty:
        raise BackendLoadError(f"backend {backend!r} did not load within {LOAD_TIMEOUT:g} s ({worker.stop()})") from None
    if message is None or message.get("event") != "hello":
        detail = message.get("message") if message else worker.stop()
        worker.stop()
        raise BackendLoadError(f"backend {backend!r} cannot be loaded: {detail}")
    session.hello = message
    current: str | None = None
    while True:
        try:
            message = worker.next(timeout)
        except queue.Empty:
            if current is not None:
                session.results[current] = CaseResult(current, TIMEOUT, f"did not finish within {timeout:g} s (worker killed)", timeout)
                on_result(session.results[current])
                worker.stop()
            else:
                session.death = f"worker stalled between cases ({worker.stop()})"
            return session
        if message is None:
            session.died_in, session.death = current, worker.stop()
            return session
        if message["event"] == "start":
            current = message["case"]
        elif message["event"] == "result":
            result = CaseResult(message["case"], message["outcome"], message["message"], message["seconds"], message.get("checks", []))
            session.results[result.case] = result
            on_result(result)
            current = None
        elif message["event"] == "done":
            worker.stop()
            return session


def certify_backend(
    name: str,
    features: Sequence[str],
    precisions: Sequence[int | None] = (None, 32, 64),
    timeout: float = 20.0,
    progress: Progress | None = None,
    thorough: bool = False,
) -> BackendReport:
    """Runs the cases of `features` against the installed backend `name` in worker subprocesses.

    `thorough` draws many more calls in the generated cases (`OP/generated`, `testkit certify --thorough`).

    Raises:
        BackendLoadError: if the backend is not installed or cannot be loaded.
    """
    if name not in bk.backends():
        from bk._plugins import REGISTRY  # says why: not installed, failed, blocked or not autoloaded

        raise BackendLoadError(REGISTRY.missing_message(name))
    start = time.perf_counter()
    case_ids = [c.id for c in select_cases(features)]
    results: dict[str, CaseResult] = {}
    hello: dict[str, Any] | None = None

    done = [0]

    def note(result: CaseResult) -> None:
        done[0] += 1
        if progress is not None:
            progress(name, done[0], len(case_ids), result.case)

    remaining = list(case_ids)
    while True:
        session = _session(name, remaining, precisions, timeout, note, thorough)
        hello = hello or session.hello
        results.update(session.results)
        if session.died_in is not None:
            results[session.died_in] = _retry_alone(name, session.died_in, session.death, precisions, timeout, thorough)
            note(results[session.died_in])
        remaining = [c for c in case_ids if c not in results]
        if not remaining:
            break
        if session.died_in is None and not session.results and session.death:
            raise BackendLoadError(f"the worker for {name!r} ended before running any case ({session.death})")
    assert hello is not None
    claimed: dict[str, bool] = hello["claimed"]
    by_feature: dict[str, list[CaseResult]] = {f: [] for f in features}
    for case_id in case_ids:
        by_feature[case_id.split("/", 1)[0]].append(results[case_id])
    verdicts = {f: verdict(f, claimed.get(f, False), by_feature[f]) for f in features}
    return BackendReport(name, hello["backend"], verdicts, time.perf_counter() - start, [results[c] for c in case_ids])


def _retry_alone(name: str, case_id: str, death: str, precisions: Sequence[int | None], timeout: float, thorough: bool = False) -> CaseResult:
    """Runs a case that killed its worker once more, alone, in a fresh worker."""
    retry = _session(name, [case_id], precisions, timeout, lambda result: None, thorough)
    if case_id in retry.results:
        return retry.results[case_id]
    return CaseResult(case_id, CRASHED, f"crashed the worker process twice ({death}; on retry: {retry.death})", 0.0)
