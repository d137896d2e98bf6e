"""Shared helpers of the benchmarks: timing and the result table."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Figure:
    """One measured figure beside its target."""

    name: str
    value: float
    target: float
    unit: str
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.value <= self.target

    def row(self) -> str:
        verdict = "ok" if self.ok else "MISSED"
        return f"{self.name:<58} {self.value:>10.3f} {self.unit:<4} target <= {self.target:<8.3f} {verdict:<6} {self.note}"


def interleaved_ns(
    functions: dict[str, Callable[[], object] | str], repeat: int = 15, number: int = 0, namespace: dict[str, Any] | None = None
) -> dict[str, float]:
    """Per-call nanoseconds of several functions or statements: the best of `repeat` batches each.

    A statement such as `"f(a)"`, with its names in `namespace`, times the call alone, without the
    extra call of a wrapping lambda. The batches of all sides are taken in turn, rather than one
    side after the other, so that a machine whose speed drifts (a shared virtual machine) does not
    bias their ratios; as `timeit` advises, the minimum is the estimate least disturbed by others.
    """
    timers = {key: timeit.Timer(f, globals=namespace) if isinstance(f, str) else timeit.Timer(f) for key, f in functions.items()}
    numbers = {key: number if number > 0 else max(timer.autorange()[0], 1000) for key, timer in timers.items()}
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(repeat):
        for key, timer in timers.items():
            best[key] = min(best[key], timer.timeit(numbers[key]) / numbers[key])
    return {key: seconds * 1e9 for key, seconds in best.items()}


def _python_ms(code: str, env: dict[str, str] | None, quiet: bool = False) -> float:
    """Wall time in ms of one `python -c code` in a fresh interpreter."""
    environment = {**os.environ, **(env or {})}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # measure as users run: with cached bytecode
    start = timeit.default_timer()
    subprocess.run([sys.executable, "-c", code], check=True, env=environment, stderr=subprocess.DEVNULL if quiet else None)
    return (timeit.default_timer() - start) * 1e3


def fresh_interpreter_json(script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """What `python script *args` prints as JSON on its last line: figures measured away from the state
    that earlier suites leave in this process (threads busy-waiting, a large heap)."""
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})})
    return json.loads(done.stdout.strip().splitlines()[-1])


def cold_start_ms(code: str, runs: int = 20, env: dict[str, str] | None = None, quiet: bool = False) -> float:
    """Median wall time in ms of `python -c code` in fresh interpreters, after one untimed run."""
    _python_ms(code, env, quiet)  # writes the bytecode caches
    return statistics.median(_python_ms(code, env, quiet) for _ in range(runs))


def cold_start_difference_ms(
    code: str, baseline: str, runs: int = 41, env: dict[str, str] | None = None, baseline_env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Median extra wall time in ms of `python -c code` over `python -c baseline`, and the baseline's median.

    The two run in turn and each run is compared with its neighbour, so a machine whose speed
    drifts during the measurement does not bias the difference.
    """
    baseline_env = env if baseline_env is None else baseline_env
    _python_ms(code, env), _python_ms(baseline, baseline_env)  # write the bytecode caches
    pairs = [(_python_ms(baseline, baseline_env), _python_ms(code, env)) for _ in range(runs)]
    return statistics.median(ours - base for base, ours in pairs), statistics.median(base for base, _ in pairs)


def print_table(title: str, figures: list[Figure]) -> None:
    print(f"\n{title}")
    print("-" * len(title))
    for figure in figures:
        print(figure.row(), flush=True)
