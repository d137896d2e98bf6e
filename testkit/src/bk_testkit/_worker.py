"""The worker process of `testkit certify`: loads one backend and streams one JSON line per case.

Run as `python -m bk_testkit._worker`; reads `{"backend": NAME, "cases": [ids], "precisions": [...]}` from
standard input. Lines written (to the original stdout; the backend's own prints go to stderr):

- `{"event": "hello", ...}` once the backend loaded, with its metadata and claimed features;
- `{"event": "load_error", "message": ...}` if it cannot load (exit status 3);
- `{"event": "start", "case": id}` before and `{"event": "result", ...}` after every case;
- `{"event": "done"}`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

LOAD_ERROR_STATUS = 3


def _protocol_stream() -> IO[str]:
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol
    return stream


def _send(stream: IO[str], **message: Any) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def describe(backend: Any) -> dict[str, Any]:
    """Name, plugin distribution and version, framework and version of a loaded backend, and the gaps of
    its framework that it declares (`bk._rules.gaps.declared_gaps`: dtypes and kernels it lacks, orders and
    accuracy, each with how the core fills it)."""
    import bk
    from bk._rules.gaps import declared_gaps

    gaps = [str(g) for g in declared_gaps(type(backend))]
    for entry in bk.info()["backends"]:
        if entry["name"] == backend.name:
            return {**{k: entry.get(k) for k in ("name", "distribution", "version", "framework", "framework_version")}, "gaps": gaps}
    return {"name": backend.name, "distribution": None, "version": None, "framework": None, "framework_version": None, "gaps": gaps}


def main() -> int:
    """Runs the worker protocol; returns the exit status."""
    stream = _protocol_stream()
    config = json.loads(sys.stdin.read())
    import bk

    from . import cases as _cases  # noqa: F401 - registers the catalogue
    from ._run import find_case, run_case

    try:
        backend = bk.backend(config["backend"])
    except Exception as error:
        _send(stream, event="load_error", message=f"{type(error).__name__}: {error}")
        return LOAD_ERROR_STATUS
    claimed = {f: bool(backend.supports(f)) for f in bk.Backend.features()}
    _send(stream, event="hello", backend=describe(backend), claimed=claimed)
    precisions = [None if p is None else int(p) for p in config.get("precisions", [None, 32, 64])]
    if config.get("thorough"):
        from ._generated import set_thorough

        set_thorough(True)
    for case_id in config["cases"]:
        _send(stream, event="start", case=case_id)
        result = run_case(backend, find_case(case_id), precisions)
        _send(stream, event="result", **result.to_dict())
    _send(stream, event="done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
