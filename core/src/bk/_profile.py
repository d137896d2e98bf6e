"""Profiling of backend calls: `profile()`, `profile_function()`, `Profile`.

While at least one profile is active anywhere, the profiled backend objects get wrappers (instance
attributes) around their catalogue methods; each wrapper records into the profile of the *current*
context (`contextvars`), so threads and tasks profile separately. When the last profile ends the
wrappers are removed: profiling that is off costs nothing. Calls that a backend makes from inside
another of its recorded calls (`add` calling `auto_cast`, the steps of `linear_solve`) are recorded
as that call's `children`; `backend_calls` and the timeline hold the outermost calls.
"""

from __future__ import annotations

import _thread
import functools
import inspect
import linecache
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from time import perf_counter
from types import FrameType, FunctionType
from typing import Any, Final, cast

from . import _context
from ._backend import Backend
from ._context import DESCRIBING as _DESCRIBING

__all__ = ["BackendCall", "Profile", "get_current_profile", "profile", "profile_function"]

_SKIPPED: Final = frozenset({"supports", "features"})
_CHILDREN: ContextVar[list[BackendCall] | None] = ContextVar("bk_profile_children", default=None)  # of the running call
_OWN_FILES: Final = (__file__.rsplit("_profile", 1)[0],)  # frames inside bk itself are not call sites


@dataclass
class BackendCall:
    """One recorded call of a backend method."""

    backend: str
    function: str
    start: float
    stop: float
    arguments: str
    site: tuple[tuple[str, int, str], ...] = ()
    children: list[BackendCall] = field(default_factory=list)
    """Backend calls made while this one ran, in order."""

    @property
    def duration(self) -> float:
        """Seconds the call took."""
        return self.stop - self.start


@dataclass
class _Node:
    """A function of the calling code (`code`: the line that called it), with the backend calls made below it."""

    name: str
    code: str
    children: list[_Node | BackendCall] = field(default_factory=list)
    key: tuple[str, str, int | None] | None = None  # (file, function, line of the caller)

    def calls(self) -> Iterator[BackendCall]:
        for child in self.children:
            if isinstance(child, BackendCall):
                yield child
            else:
                yield from child.calls()

    def duration(self) -> float:
        return sum(c.duration for c in self.calls())


class Profile:
    """The backend calls recorded by `profile()` or `profile_function()`, with their timing and call sites."""

    def __init__(self, trace: bool, backends: Sequence[Backend], subtract_trace_time: bool) -> None:
        self._trace = trace
        self._backends = tuple(backends)
        self._subtract = subtract_trace_time
        self._calls: list[BackendCall] = []
        self._messages: list[str] = []
        self._start = perf_counter()
        self._stop: float | None = None
        self._trace_time = 0.0
        self._entry_depth = 0
        self._root = _Node("", "")
        self._path: list[_Node] = [self._root]
        self._retime_index = -1
        self._accumulate = 0

    # ------------------------------------------------------------ reading

    @property
    def duration(self) -> float | None:
        """Seconds from the start of the profile to its end; `None` while it is still active."""
        return None if self._stop is None else self._stop - self._start

    @property
    def backend_calls(self) -> tuple[BackendCall, ...]:
        """Every recorded call, in order."""
        return tuple(self._calls)

    def add_external_message(self, message: str) -> None:
        """Stores a message (for example a timing taken elsewhere) that `print()` shows first."""
        self._messages.append(message)

    # ------------------------------------------------------------ recording

    def _covers(self, backend: Backend) -> bool:
        return not self._backends or backend in self._backends

    def _record(
        self,
        backend: Backend,
        function: str,
        start: float,
        stop: float,
        traced_before: float,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        children: list[BackendCall],
        parent: list[BackendCall] | None,
    ) -> None:
        if self._retime_index >= 0:
            if parent is None:  # retime replaces the times of the outermost calls only
                self._retime(function, start, stop)
            return
        trace_start = perf_counter()
        # the trace time spent before the call moves its start; children recorded meanwhile also move its stop
        call = BackendCall(backend.name, function, start - traced_before, stop - self._trace_time, _summary(backend, args, kwargs), children=children)
        if parent is not None:
            parent.append(call)
        else:
            if self._trace:
                call.site = _call_site(self._entry_depth)
                self._place(call)
            self._calls.append(call)
        if self._subtract:
            self._trace_time += perf_counter() - trace_start

    def _retime(self, function: str, start: float, stop: float) -> None:
        if self._retime_index >= len(self._calls) or self._calls[self._retime_index].function != function:
            expected = self._calls[self._retime_index].function if self._retime_index < len(self._calls) else "no more calls"
            raise RuntimeError(f"retime: call {self._retime_index} is {function!r}, but the profile recorded {expected!r}; the code must perform the same operations")
        call = self._calls[self._retime_index]
        if self._accumulate:
            call.stop += (stop - start) / self._accumulate
        else:
            call.start, call.stop = start, stop
        self._retime_index += 1

    def _place(self, call: BackendCall) -> None:
        """Puts `call` into the tree under its calling frames, reusing the current path where it matches.

        A node stands for one function called from one line of its caller: consecutive calls from
        the same place share the node, whatever line of the function they come from.
        """
        keys = [(filename, function, call.site[i - 1][1] if i else None) for i, (filename, _, function) in enumerate(call.site)]
        depth = 0
        while depth < len(keys) and depth + 1 < len(self._path) and self._path[depth + 1].key == keys[depth]:
            depth += 1
        del self._path[depth + 1 :]
        for i in range(depth, len(keys)):
            function = call.site[i][2]
            caller = linecache.getline(call.site[i - 1][0], call.site[i - 1][1]).strip() if i else ""
            node = _Node(function, caller, key=keys[i])
            self._path[-1].children.append(node)
            self._path.append(node)
        self._path[-1].children.append(call)

    # ------------------------------------------------------------ output

    def print(self, min_duration: float = 0.0, code_col: int = 80, code_len: int = 50) -> None:
        """Prints the calls as a tree grouped by the calling code, with times; the backend calls a call
        made while it ran are indented below it.

        Args:
            min_duration: Hides entries that took less than this many seconds (default: show all).
            code_col: The column at which the calling code is shown.
            code_len: The longest code excerpt shown.
        """
        total = self.duration if self.duration is not None else perf_counter() - self._start
        hiding = f"; hiding entries under {1e3 * min_duration:.3g} ms" if min_duration > 0 else ""
        print(f"Profile: {total:.4f} s in total, {len(self._calls)} backend calls{hiding}")
        for message in self._messages:
            print(f"  {message}")
        if self._trace:
            for child in self._root.children:
                _print_tree(child, 0, min_duration, code_col, code_len)
        else:
            for call in self._calls:
                _print_call(call, 0, min_duration, code_col, code_len)

    def save(self, json_file: str) -> None:
        """Writes the profile in the trace-event format that Perfetto and chrome://tracing open."""
        names = [b.name for b in self._backends] or sorted({c.backend for c in self._calls})
        events: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "Python calls"}},
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Backend operations"}},
        ]
        events += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": i + 1, "args": {"name": n}} for i, n in enumerate(names)]
        for call in _with_children(self._calls):
            tid = names.index(call.backend) + 1 if call.backend in names else 0
            events.append(_event(f"{call.backend}.{call.function}", call.start - self._start, call.duration, 1, tid, {"arguments": call.arguments}))
        if self._trace:
            for child in self._root.children:
                if isinstance(child, _Node):
                    events += _frame_events(child, self._start)
        import json  # only here: `import bk` stays light

        with open(json_file, "w", encoding="utf-8") as file:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, file)

    @contextmanager
    def retime(self) -> Iterator[None]:
        """Runs the `with` block's code again without tracing and replaces the recorded times.

        Raises:
            RuntimeError: if the block does not perform the same backend calls as the profile.
        """
        with self._replaying(0):
            yield

    @contextmanager
    def _replaying(self, accumulate: int) -> Iterator[None]:
        self._retime_index, self._accumulate = 0, accumulate
        try:
            with _active(self):
                yield
            if self._retime_index != len(self._calls):
                raise RuntimeError(f"retime: {self._retime_index} backend calls, but the profile recorded {len(self._calls)}")
        finally:
            self._retime_index, self._accumulate = -1, 0


# ---------------------------------------------------------------- formatting helpers


def _with_children(calls: Sequence[BackendCall]) -> Iterator[BackendCall]:
    for call in calls:
        yield call
        yield from _with_children(call.children)


def _print_call(call: BackendCall, depth: int, min_duration: float, code_col: int, code_len: int) -> None:
    if call.duration < min_duration:
        return
    code = linecache.getline(call.site[-1][0], call.site[-1][1]).strip() if call.site else ""
    print(_line(f"{'  ' * depth}{call.backend}.{call.function}", code, call.duration, code_col, code_len) + f"  ({call.arguments[:code_len]})")
    for child in call.children:
        _print_call(child, depth + 1, min_duration, code_col, code_len)


def _print_tree(item: _Node | BackendCall, depth: int, min_duration: float, code_col: int, code_len: int) -> None:
    indent = "  " * depth
    if isinstance(item, BackendCall):
        _print_call(item, depth, min_duration, code_col, code_len)
        return
    duration = item.duration()
    if duration >= min_duration:
        print(_line(f"{indent}{item.name}", item.code, duration, code_col, code_len))
        for child in item.children:
            _print_tree(child, depth + 1, min_duration, code_col, code_len)


def _line(name: str, code: str, duration: float, code_col: int, code_len: int) -> str:
    code = code if len(code) <= code_len else code[: code_len - 3] + "..."
    return f"{name} ".ljust(code_col // 2) + code.ljust(code_col // 2) + f"{1e3 * duration:9.3f} ms"



def _event(name: str, start: float, duration: float, pid: int, tid: int, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": max(start, 0.0) * 1e6, "dur": max(duration, 0.0) * 1e6, "args": args or {}}


def _frame_events(node: _Node, origin: float) -> list[dict[str, Any]]:
    calls = list(node.calls())
    if not calls:
        return []
    start, stop = min(c.start for c in calls), max(c.stop for c in calls)
    events = [_event(f"{node.name}: {node.code}", start - origin, stop - start, 0, 0)]
    for child in node.children:
        if isinstance(child, _Node):
            events += _frame_events(child, origin)
    return events


def _summary(backend: Backend, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [_describe(backend, a) for a in args] + [f"{k}={_describe(backend, v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _describe(backend: Backend, value: Any) -> str:
    """Shape and dtype of tensors, short reprs of everything else; never whole tensors."""
    try:
        if backend.is_tensor(value, only_native=True):
            return f"{backend.dtype(value)}{list(backend.staticshape(value))}"
    except Exception:  # a summary must never break the profiled code
        pass
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}[{len(value)}]"
    text = repr(value) if isinstance(value, (int, float, bool, str, type(None))) else type(value).__name__
    return text[:40]


def _call_site(entry_depth: int) -> tuple[tuple[str, int, str], ...]:
    """The calling code's frames, outermost first, from the frame that started the profile."""
    frames = []
    frame: FrameType | None = sys._getframe(3)  # _record <- wrapper <- the caller of the backend method
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_OWN_FILES):
            frames.append((filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    frames.reverse()
    return tuple(frames[entry_depth:])


def _stack_depth() -> int:
    depth, frame = 0, cast(FrameType | None, sys._getframe(1))
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_OWN_FILES):
            depth += 1
        frame = frame.f_back
    return depth


# ---------------------------------------------------------------- instrumentation


class _Instrumentation:
    """Installs wrappers on the classes of profiled backends while any profile is active, in any thread.

    Wrapping the class, not the instance, leaves the backend objects untouched: once the last profile
    ends, their attribute lookups are exactly as fast as before.
    """

    def __init__(self) -> None:
        self.lock = _thread.allocate_lock()
        self.active = 0
        self.classes: dict[type, list[tuple[str, Any]]] = {}  # class -> (name, its own attribute or _ABSENT)

    def start(self, backends: Sequence[Backend]) -> None:
        with self.lock:
            self.active += 1
            _context.GLOBALS.profiling = True
            for backend in backends:
                if type(backend) not in self.classes:
                    self.classes[type(backend)] = _wrap(type(backend))

    def stop(self) -> None:
        with self.lock:
            self.active -= 1
            if self.active == 0:
                for cls, saved in reversed(list(self.classes.items())):
                    _unwrap(cls, saved)
                self.classes.clear()
                _context.GLOBALS.profiling = False


_INSTRUMENTATION: Final = _Instrumentation()


_ABSENT: Final = object()


def _wrap(cls: type) -> list[tuple[str, Any]]:
    """Wraps every catalogue method that `cls` has as a plain function; returns what to restore."""
    saved = []
    for name in Backend.features():
        if name in _SKIPPED:
            continue
        try:
            original = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        if not isinstance(original, FunctionType):
            wrapped = getattr(original, "__wrapped__", None)
            if isinstance(original, (staticmethod, classmethod)) or not isinstance(wrapped, FunctionType):
                continue  # static methods, builtins: not bound, not recorded
            original = wrapped  # a method with a fast path in C (bk-numpy's operators): its Python method is recorded
        saved.append((name, cls.__dict__.get(name, _ABSENT)))
        setattr(cls, name, _call_wrapper(original) if name == "call" else _wrapper(name, original))
    return saved


def _unwrap(cls: type, saved: list[tuple[str, Any]]) -> None:
    for name, original in saved:
        if original is _ABSENT:
            delattr(cls, name)
        else:
            setattr(cls, name, original)


def _wrapper(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def profiled(self: Backend, *args: Any, **kwargs: Any) -> Any:
        profile_ = _context.PROFILE.get()
        if profile_ is None or _DESCRIBING.get() or not profile_._covers(self):
            return original(self, *args, **kwargs)
        parent = _CHILDREN.get()
        children: list[BackendCall] = []
        token = _CHILDREN.set(children)
        try:
            start, traced_before = perf_counter(), profile_._trace_time
            result = original(self, *args, **kwargs)
        finally:
            _CHILDREN.reset(token)
        describing = _DESCRIBING.set(True)  # waiting and describing call the backend: not recorded
        try:
            self.block_until_ready(result)
            profile_._record(self, name, start, perf_counter(), traced_before, args, kwargs, children, parent)
        finally:
            _DESCRIBING.reset(describing)
        return result

    functools.update_wrapper(profiled, original)
    profiled.__bk_profiled__ = True  # type: ignore[attr-defined]
    return profiled


def _call_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    """`Backend.call(f, *args, name=...)` is recorded under `name` (or `f`'s name), not as `call`."""
    recorders: dict[str, Callable[..., Any]] = {}

    def profiled_call(self: Backend, f: Callable[..., Any], *args: Any, name: str | None = None) -> Any:
        label: str = name or str(getattr(f, "__name__", type(f).__name__))
        recorder = recorders.get(label)
        if recorder is None:
            recorder = recorders[label] = _wrapper(label, original)
        return recorder(self, f, *args, name=name)

    functools.update_wrapper(profiled_call, original)
    profiled_call.__bk_profiled__ = True  # type: ignore[attr-defined]
    return profiled_call


def _loaded_backends() -> list[Backend]:
    from ._plugins import REGISTRY

    return [e.backend for e in REGISTRY.entries.values() if e.backend is not None]


def _resolve(backends: Sequence[Backend | str] | None) -> list[Backend]:
    from ._choose import backend as by_name

    if backends is None:
        return _loaded_backends()
    return [by_name(b) if isinstance(b, str) else b for b in backends]


@contextmanager
def _active(prof: Profile) -> Iterator[None]:
    targets = list(prof._backends) or _loaded_backends()
    _INSTRUMENTATION.start(targets)
    token = _context.PROFILE.set(prof)
    try:
        yield
    finally:
        _context.PROFILE.reset(token)
        _INSTRUMENTATION.stop()


# ---------------------------------------------------------------- public API


@contextmanager
def profile(backends: Sequence[Backend | str] | None = None, trace: bool = True, subtract_trace_time: bool = True, save: str | None = None) -> Iterator[Profile]:
    """Records every backend call made inside the `with` block of this thread or task.

    Args:
        backends: Backends (or names) to profile; all loaded backends if `None`.
        trace: Record the calling code of each call, so that `Profile.print()` can group calls by it.
        subtract_trace_time: Remove the time spent recording call sites from the recorded times.
        save: A file to write the trace-event JSON to when the block ends (see `Profile.save`).

    Returns:
        The `Profile`, complete when the block ends.
    """
    prof = Profile(trace, _resolve(backends), subtract_trace_time)
    prof._entry_depth = max(_stack_depth() - 2, 0)  # keep the frame with the `with` statement; drop contextlib's
    with _active(prof):
        try:
            yield prof
        finally:
            prof._stop = perf_counter()
    if save is not None:
        prof.save(save)


def profile_function(
    fun: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    backends: Sequence[Backend | str] | None = None,
    trace: bool = True,
    subtract_trace_time: bool = True,
    retime: bool = True,
    warmup: int = 1,
    call_count: int = 1,
) -> Profile:
    """Profiles `fun(*args, **kwargs)`.

    Args:
        fun: The function; with `retime` or `call_count > 1` it must perform the same backend calls
            every time.
        args: Positional arguments.
        kwargs: Keyword arguments.
        backends: Backends (or names) to profile; all loaded backends if `None`.
        trace: Record the calling code of each call.
        subtract_trace_time: Remove the time spent recording call sites.
        retime: Call `fun` once more without recording call sites and keep those times.
        warmup: Calls before profiling, so that caches and compilation do not count.
        call_count: Calls whose times are averaged.

    Returns:
        The `Profile`.
    """
    kwargs = kwargs or {}
    for _ in range(warmup):
        fun(*args, **kwargs)
    with profile(backends, trace, subtract_trace_time) as prof:
        fun(*args, **kwargs)
    if call_count > 1:
        for call in prof._calls:
            call.stop = call.start + call.duration / call_count
        for _ in range(call_count - 1):
            with prof._replaying(call_count):
                fun(*args, **kwargs)
    elif retime:
        with prof.retime():
            fun(*args, **kwargs)
    return prof


def get_current_profile() -> Profile | None:
    """The profile of the innermost active `profile()` block of this thread or task, or `None`."""
    current: Profile | None = _context.PROFILE.get()
    return current
