"""Profiling: recording backend calls, the call tree, trace-event JSON, retiming, per-context profiles."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading

import numpy as np
import pytest

import bk
from bk import Backend

from .conftest import Richer


@pytest.fixture
def b() -> Richer:
    return Richer()


def poisson_step(b: Backend, x: np.ndarray) -> np.ndarray:
    y = b.add(x, 1.0)
    return b.sum(b.mul(y, y))


def outer(b: Backend, x: np.ndarray) -> np.ndarray:
    return poisson_step(b, x)


def assert_timeline(calls) -> None:
    """Recorded calls are intervals, in order, none overlapping the next (bookkeeping, not speed)."""
    assert all(c.start <= c.stop for c in calls)
    assert all(a.stop <= b.start for a, b in itertools.pairwise(calls))


def test_records_each_call_with_its_arguments(b):
    x = np.ones(4, np.float32)
    with bk.profile([b]) as prof:
        assert bk.get_current_profile() is prof
        poisson_step(b, x)
    assert bk.get_current_profile() is None
    assert [c.function for c in prof.backend_calls] == ["add", "mul", "sum"]
    assert all(c.backend == "richer" for c in prof.backend_calls)
    assert prof.backend_calls[0].arguments == "float32[4], 1.0"
    assert prof.duration is not None
    assert_timeline(prof.backend_calls)


def test_calls_made_inside_a_recorded_call_are_its_children(b, capsys):
    # `add` calls `auto_cast`, which calls `dtype` and `cast`: `add` is the recorded call, the rest its children
    with bk.profile([b]) as prof:
        b.add(np.ones(2, np.float32), np.ones(2, np.float64))
    assert [c.function for c in prof.backend_calls] == ["add"]
    add = prof.backend_calls[0]
    assert [c.function for c in add.children] == ["auto_cast"]
    assert {"dtype", "cast"} <= {c.function for c in add.children[0].children}
    for parent in (add, add.children[0]):
        assert all(parent.start <= c.start <= c.stop <= parent.stop for c in parent.children)
    prof.print()  # shows everything by default, children indented below their call
    lines = capsys.readouterr().out.splitlines()
    assert "hiding" not in lines[0]
    add_line = next(i for i, line in enumerate(lines) if "richer.add" in line)
    indent = len(lines[add_line]) - len(lines[add_line].lstrip())
    assert "richer.auto_cast" in lines[add_line + 1] and len(lines[add_line + 1]) - len(lines[add_line + 1].lstrip()) == indent + 2
    prof.print(min_duration=3600)
    assert "hiding entries under" in capsys.readouterr().out


def test_backend_call_is_recorded_under_its_name(b):
    with bk.profile([b]) as prof:
        assert b.call(np.add, 1, 2, name="my_step") == 3
        b.call(np.multiply, 2, 3)
    assert [c.function for c in prof.backend_calls] == ["my_step", "multiply"]


def test_profiling_off_leaves_the_backend_untouched(b):
    before, class_before = dict(vars(b)), dict(vars(Richer))
    with bk.profile([b]):
        assert getattr(Richer.add, "__bk_profiled__", False) and getattr(Richer.sum, "__bk_profiled__", False)  # wrapped while active
        assert vars(b) == before  # the instance is never touched
    assert vars(b) == before and dict(vars(Richer)) == class_before
    assert Richer.add is Backend.add and Richer.sum is class_before["sum"]


def test_only_the_named_backends_are_profiled(b):
    other = Richer()
    other._name = "other"
    with bk.profile([b]) as prof:
        b.sum(np.ones(3))
        other.sum(np.ones(3))
    assert [c.backend for c in prof.backend_calls] == ["richer"]


def test_print_shows_a_tree_grouped_by_calling_code(b, capsys):
    with bk.profile([b]) as prof:
        outer(b, np.ones(3))
        prof.add_external_message("compiled in 1.5 s")
    prof.print(min_duration=0)
    text = capsys.readouterr().out
    assert text.startswith("Profile: ") and "3 backend calls" in text
    assert "compiled in 1.5 s" in text
    lines = text.splitlines()
    outer_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith("outer"))
    step_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith("poisson_step"))
    add_line = next(i for i, line in enumerate(lines) if "richer.add" in line)
    assert outer_line < step_line < add_line
    indent = [len(lines[i]) - len(lines[i].lstrip()) for i in (outer_line, step_line, add_line)]
    assert indent[0] < indent[1] < indent[2]
    assert "outer(b, np.ones(3))" in lines[outer_line]  # the line that called the function
    assert "return poisson_step(b, x)" in lines[step_line]
    assert "y = b.add(x, 1.0)" in lines[add_line] and "(float64[3], 1.0)" in lines[add_line]
    assert sum("poisson_step" in line for line in lines) == 1  # calls from several lines of one function share its node


def test_print_without_trace_lists_calls(b, capsys):
    with bk.profile([b], trace=False) as prof:
        poisson_step(b, np.ones(3))
    prof.print(min_duration=0)
    text = capsys.readouterr().out
    assert "richer.add" in text and "richer.sum" in text
    assert all(c.site == () for c in prof.backend_calls)


def test_save_writes_trace_events_that_perfetto_opens(b, tmp_path):
    path = tmp_path / "trace.json"
    with bk.profile([b], save=str(path)):
        outer(b, np.ones(3))
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    assert {"name", "ph", "pid", "tid"} <= set(events[0])
    meta = [e for e in events if e["ph"] == "M"]
    assert {e["args"]["name"] for e in meta} >= {"Python calls", "Backend operations", "richer"}
    complete = [e for e in events if e["ph"] == "X"]
    ops = [e for e in complete if e["pid"] == 1]
    outermost = [e for e in ops if not any(o is not e and o["ts"] <= e["ts"] and e["ts"] + e["dur"] <= o["ts"] + o["dur"] for o in ops)]
    assert [e["name"] for e in outermost] == ["richer.add", "richer.mul", "richer.sum"]
    for e in complete:
        assert isinstance(e["ts"], float) and isinstance(e["dur"], float) and e["dur"] >= 0 and e["ts"] >= 0
    frames = [e for e in complete if e["pid"] == 0]
    assert any(e["name"].startswith("outer") for e in frames)
    # a frame spans the operations below it
    step = next(e for e in frames if e["name"].startswith("poisson_step"))
    assert step["ts"] <= ops[0]["ts"] and step["ts"] + step["dur"] >= ops[-1]["ts"] + ops[-1]["dur"] - 1e-3
    assert ops == sorted(ops, key=lambda e: e["ts"])


def test_retime_replaces_the_times_and_checks_the_calls(b):
    with bk.profile([b]) as prof:
        poisson_step(b, np.ones(3))
    before = [(c.start, c.stop) for c in prof.backend_calls]
    with prof.retime():
        poisson_step(b, np.ones(3))
    after = [(c.start, c.stop) for c in prof.backend_calls]
    assert [c.function for c in prof.backend_calls] == ["add", "mul", "sum"]
    assert all(a[0] > b_[0] for a, b_ in zip(after, before, strict=True))
    with pytest.raises(RuntimeError, match="retime: call 0 is 'sum'"), prof.retime():
        b.sum(np.ones(3))
    with pytest.raises(RuntimeError, match="retime: 1 backend calls, but the profile recorded 3"), prof.retime():
        b.add(np.ones(3), 1.0)


def test_profile_function_with_warmup_and_call_count(b):
    calls = []

    def f(x):
        calls.append(1)
        return poisson_step(b, x)

    prof = bk.profile_function(f, (np.ones(3),), backends=[b], warmup=2, call_count=3)
    assert len(calls) == 2 + 3
    assert [c.function for c in prof.backend_calls] == ["add", "mul", "sum"]
    assert all(c.start <= c.stop for c in prof.backend_calls)  # averaged intervals stay intervals
    prof = bk.profile_function(f, (np.ones(3),), backends=[b], warmup=0, retime=True)
    assert len(calls) == 5 + 2


def test_profile_function_rejects_a_function_that_changes_its_calls(b):
    state = {"n": 0}

    def f():
        state["n"] += 1
        for _ in range(state["n"]):
            b.sum(np.ones(2))

    with pytest.raises(RuntimeError, match="retime"):
        bk.profile_function(f, backends=[b], warmup=0, call_count=3)


def test_backend_names_are_accepted(site):
    site.fake_framework("fakeprof")
    site.activate("fakeprof")
    fake = bk.backend("fakeprof")
    with bk.profile(["fakeprof"]) as prof:
        fake.sum(fake.as_tensor([1.0, 2.0]))
    assert [c.function for c in prof.backend_calls] == ["as_tensor", "sum"]
    with pytest.raises(ValueError, match="no backend named"), bk.profile(["nosuchbackend"]):
        pass


def test_threads_profile_separately(b):
    barrier = threading.Barrier(3)
    results: dict[str, list[str]] = {}

    def worker(name: str, op: str) -> None:
        with bk.profile([b]) as prof:
            barrier.wait()
            for _ in range(20):
                getattr(b, op)(np.ones(3))
            barrier.wait()
        results[name] = [c.function for c in prof.backend_calls]

    def idle() -> None:
        barrier.wait()
        for _ in range(20):
            b.exp(np.ones(3))  # no profile in this thread: recorded nowhere
        barrier.wait()

    threads = [threading.Thread(target=worker, args=("a", "sum")), threading.Thread(target=worker, args=("b", "exp")), threading.Thread(target=idle)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["a"] == ["sum"] * 20
    assert results["b"] == ["exp"] * 20
    assert not getattr(Richer.sum, "__bk_profiled__", False)


def test_asyncio_tasks_profile_separately(b):
    async def task(op: str) -> list[str]:
        with bk.profile([b]) as prof:
            for _ in range(5):
                getattr(b, op)(np.ones(2))
                await asyncio.sleep(0)
        return [c.function for c in prof.backend_calls]

    async def main() -> tuple[list[str], list[str]]:
        return await asyncio.gather(task("sum"), task("exp"))

    first, second = asyncio.run(main())
    assert first == ["sum"] * 5 and second == ["exp"] * 5
