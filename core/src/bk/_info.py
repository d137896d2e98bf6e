"""`bk.info()` and `python -m bk info`: what a bug report needs."""

from __future__ import annotations

import contextlib
import copy
import json
import platform
import sys
from typing import Any

from ._plugins import REGISTRY, Entry
from ._version import __version__

__all__ = ["Info", "format_info", "info"]


class Info(dict[str, Any]):
    """The report of `bk.info()`: prints (and shows at the prompt) as `python -m bk info` does, and is the data too.

    It is a dict with the keys `core`, `python`, `platform`, `backends` and `problems` (so
    `bk.info()["backends"]` and `json.dumps(bk.info())` work); `str()` gives the readable text.
    """

    def __str__(self) -> str:
        return format_info(self)

    def __repr__(self) -> str:  # the interactive prompt shows the same readable report
        return format_info(self)

    def to_dict(self) -> dict[str, Any]:
        """A plain, independent copy of the data."""
        return copy.deepcopy(dict(self))

    def to_json(self, indent: int | None = 2) -> str:
        """The data as JSON text, as `python -m bk info --json` prints it."""
        return json.dumps(self.to_dict(), indent=indent)


def info(load: bool = False) -> Info:
    """A report of the core, every discovered backend, and every plugin problem.

    `print(bk.info())` shows it as `python -m bk info` does; the result is also a dict of the data
    (see `Info`), with `to_dict()` and `to_json()`.

    Args:
        load: Also load every backend (importing its framework) to report framework versions and devices.
            Without it, only already loaded backends report devices.

    Returns:
        An `Info`: a JSON-serialisable dict with `core`, `python`, `platform`, `backends` and `problems`.
    """
    REGISTRY.ensure()
    backends = []
    for name in sorted(REGISTRY.entries):
        entry = REGISTRY.entries[name]
        if load and entry.backend is None and entry.error is None:
            with contextlib.suppress(Exception):  # the failure is recorded in entry.error
                REGISTRY.load(name)
        backends.append(_describe(entry))
    return Info(
        core=__version__,
        python=sys.version.split()[0],
        platform=platform.platform(),
        backends=backends,
        problems=[{"distribution": p.distribution, "entry_point": p.entry_point, "reason": p.reason} for p in REGISTRY.problems],
    )


def _describe(entry: Entry) -> dict[str, Any]:
    backend = entry.backend
    return {
        "name": entry.spec.name,
        "distribution": entry.distribution,
        "version": entry.version,
        "framework": entry.spec.framework or (entry.spec.modules[0] if entry.spec.modules else None),
        "framework_version": _framework_version(entry),
        "description": entry.spec.description,
        "priority": entry.spec.priority,
        "loaded": backend is not None,
        "error": entry.error,
        "devices": [d.to_dict() for d in backend.list_devices()] if backend is not None else None,
    }


def _framework_version(entry: Entry) -> str | None:
    for module_name in entry.spec.modules:
        module = sys.modules.get(module_name)
        if module is not None and isinstance(getattr(module, "__version__", None), str):
            return module.__version__  # type: ignore[no-any-return]
    from importlib import metadata

    if entry.spec.framework:
        try:
            return metadata.version(entry.spec.framework)
        except metadata.PackageNotFoundError:
            pass
    # the distribution that provides the framework's module, e.g. tensorflow-cpu for `tensorflow`
    primary = entry.spec.framework or (entry.spec.modules[0] if entry.spec.modules else None)
    for distribution in metadata.packages_distributions().get(primary or "", []):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return None


def format_info(report: dict[str, Any]) -> str:
    """`report` as readable text."""
    lines = [f"bk-core {report['core']} on Python {report['python']} ({report['platform']})", ""]
    if not report["backends"]:
        lines.append("No backends installed. Install one, e.g. pip install bk-numpy")
    for b in report["backends"]:
        state = "loaded" if b["loaded"] else ("FAILED" if b["error"] else "not loaded")
        framework = f"{b['framework']} {b['framework_version'] or '?'}"
        plugin = f"{b['distribution']} {b['version']}"
        lines.append(f"{b['name']:<10} {plugin:<22} {framework:<24} {state}")
        if b["error"]:
            lines.append(f"           error: {b['error']}")
        for device in b["devices"] or ():
            memory = f"{device['memory'] / 2**30:.1f} GiB" if device["memory"] > 0 else "memory n/a"
            count = device["processor_count"]  # -1: unknown (a graph device, a remote cluster)
            processors = f"{count} processors" if count > 0 else "processors n/a"
            lines.append(f"           {device['type']} {device['name']}: {memory}, {processors}")
    if report["problems"]:
        lines += ["", "Plugin problems:"]
        lines += [f"  {p['distribution']} ({p['entry_point']}): {p['reason']}" for p in report["problems"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m bk info [--json] [--no-load]` and `python -m bk --version`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bk", description="bk: one array API, many backends")
    parser.add_argument("--version", action="version", version=f"bk-core {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    info_parser = sub.add_parser("info", help="print the core version, backends, devices and plugin problems")
    info_parser.add_argument("--json", action="store_true", help="print JSON for machines")
    info_parser.add_argument("--no-load", action="store_true", help="do not load backends (no framework import)")
    args = parser.parse_args(argv)
    report = info(load=not args.no_load)
    print(report.to_json() if args.json else report)
    return 0
