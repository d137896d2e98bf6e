"""Shared helpers of the benchmarks: timing and the result table."""

from __future__ import annotations

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


def per_call_ns(function: Callable[[], object] | str, repeat: int = 15, number: int = 0, namespace: dict[str, Any] | None = None) -> float:
    """Time of one call in nanoseconds: the best of `repeat` batches of `number` calls.

    `function` may be a statement such as `"f(a)"` with its names in `namespace`: that times the
    call alone, without the extra call of a wrapping lambda. As `timeit` advises, the minimum is the
    estimate least disturbed by other processes.
    """
    return interleaved_ns({"x": function}, repeat, number, namespace)["x"]


def interleaved_ns(
    functions: dict[str, Callable[[], object] | str], repeat: int = 15, number: int = 0, namespace: dict[str, Any] | None = None
) -> dict[str, float]:
    """Per-call nanoseconds of several functions or statements, their batches taken in turn.

    Taking the batches of the two sides of a ratio alternately, rather than one side after the
    other, keeps a machine whose speed drifts (shared virtual machines) from biasing the ratio.
    """
    timers = {key: timeit.Timer(f, globals=namespace) if isinstance(f, str) else timeit.Timer(f) for key, f in functions.items()}
    numbers = {key: number if number > 0 else max(timer.autorange()[0], 1000) for key, timer in timers.items()}
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(repeat):
        for key, timer in timers.items():
            best[key] = min(best[key], timer.timeit(numbers[key]) / numbers[key])
    return {key: seconds * 1e9 for key, seconds in best.items()}


def cold_start_ms(code: str, runs: int = 20, env: dict[str, str] | None = None, quiet: bool = False, warm: bool = True) -> float:
    """Median wall time in ms of `python -c code` in fresh interpreters (after one untimed run if `warm`)."""
    times = []
    environment = {**os.environ, **(env or {})}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # measure as users run: with cached bytecode
    stderr = subprocess.DEVNULL if quiet else None
    if warm or runs == 0:
        subprocess.run([sys.executable, "-c", code], check=True, env=environment, stderr=stderr)
    for _ in range(runs):
        start = timeit.default_timer()
        subprocess.run([sys.executable, "-c", code], check=True, env=environment, stderr=stderr)
        times.append(timeit.default_timer() - start)
    return statistics.median(times) * 1e3 if times else 0.0


def cold_start_difference_ms(
    code: str, baseline: str, runs: int = 41, env: dict[str, str] | None = None, baseline_env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Median extra wall time in ms of `python -c code` over `python -c baseline`, and the baseline's median.

    The two run in turn and each run is compared with its neighbour, so a machine whose speed
    drifts during the measurement does not bias the difference.
    """
    cold_start_ms(code, runs=0, env=env)  # write bytecode caches first
    cold_start_ms(baseline, runs=0, env=baseline_env if baseline_env is not None else env)
    differences, baselines = [], []
    for _ in range(runs):
        base = cold_start_ms(baseline, runs=1, env=baseline_env if baseline_env is not None else env, warm=False)
        ours = cold_start_ms(code, runs=1, env=env, warm=False)
        differences.append(ours - base)
        baselines.append(base)
    return statistics.median(differences), statistics.median(baselines)


def print_table(title: str, figures: list[Figure]) -> None:
    print(f"\n{title}")
    print("-" * len(title))
    for figure in figures:
        print(figure.row(), flush=True)
