"""Shared helpers of the benchmarks: timing and the result table."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable
from dataclasses import dataclass


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


def per_call_ns(function: Callable[[], object], repeat: int = 15, number: int = 0) -> float:
    """Time of one call in nanoseconds: the best of `repeat` batches of `number` calls.

    As `timeit` advises, the minimum is the estimate least disturbed by other processes; both sides
    of every ratio are measured the same way.
    """
    timer = timeit.Timer(function)
    if number <= 0:
        number, _ = timer.autorange()
        number = max(number, 1000)
    return min(t / number for t in timer.repeat(repeat, number)) * 1e9


def cold_start_ms(code: str, runs: int = 20, env: dict[str, str] | None = None, quiet: bool = False) -> float:
    """Median wall time in ms of `python -c code` in fresh interpreters."""
    times = []
    environment = {**os.environ, **(env or {})}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # measure as users run: with cached bytecode
    subprocess.run([sys.executable, "-c", code], check=True, env=environment, stderr=subprocess.DEVNULL if quiet else None)
    for _ in range(runs):
        start = timeit.default_timer()
        subprocess.run([sys.executable, "-c", code], check=True, env=environment, stderr=subprocess.DEVNULL if quiet else None)
        times.append(timeit.default_timer() - start)
    return statistics.median(times) * 1e3


def print_table(title: str, figures: list[Figure]) -> None:
    print(f"\n{title}")
    print("-" * len(title))
    for figure in figures:
        print(figure.row(), flush=True)
