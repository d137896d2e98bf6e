"""A fast reader of one entry-point group.

`importlib.metadata.entry_points()` parses every installed distribution's metadata and costs
tens of milliseconds in a large environment. bk only needs one group, so for the common case
(directories on `sys.path` holding `*.dist-info` / `*.egg-info` folders) it reads just the
`entry_points.txt` files; zip files and other path entries go through `importlib.metadata`.
The first distribution of a name on `sys.path` wins, as in `importlib.metadata`.
"""

from __future__ import annotations

import os
import re
import sys
from typing import NamedTuple

__all__ = ["PLUGIN_MODULES", "EntryPointInfo", "find_entry_points", "shared_scan"]

PLUGIN_MODULES: dict[str, tuple[str, ...]] = {}
"""The modules the plugin of each backend owns (its `BackendSpec.modules`), by backend name: filled by
`bk._plugins` as it gives each name to its plugin, read by `bk._backend` (which imports nothing above it)."""

_NORMALIZE = re.compile(r"[-_.]+")


class EntryPointInfo(NamedTuple):
    """One entry point of the group, with the distribution that declares it."""

    name: str
    value: str
    distribution: str
    version: str


def find_entry_points(group: str, path: list[str] | None = None) -> list[EntryPointInfo]:
    """All entry points of `group` on `path` (default `sys.path`), in path order."""
    seen: set[str] = set()
    found: list[EntryPointInfo] = []
    for entry in path if path is not None else sys.path:
        directory = entry or os.getcwd()
        if os.path.isdir(directory):
            _scan_directory(directory, group, seen, found)
        elif os.path.isfile(directory):
            _scan_other(directory, group, seen, found)
    return found


def _scan_directory(directory: str, group: str, seen: set[str], found: list[EntryPointInfo]) -> None:
    for key, folder, dist, version, text in _folders(directory):
        if key in seen:
            continue
        seen.add(key)
        entries = _parse_group(text, group) if text is not None else ()
        if entries:
            dist_name, dist_version = _name_and_version(os.path.join(directory, folder), dist, version)
            found.extend(EntryPointInfo(name, value, dist_name, dist_version) for name, value in entries)


# directory -> its distribution folders, while a `shared_scan()` block runs; else None
_SHARED: dict[str, list[tuple[str, str, str, str, str | None]]] | None = None


class shared_scan:  # noqa: N801  # used as a function: `with shared_scan():`
    """Within the block, each directory is read once for every group (discovery reads `bk.backends`,
    and a plugin's hook may read another group); outside, every call reads the files again."""

    def __enter__(self) -> None:
        global _SHARED
        self._outer = _SHARED is None
        if self._outer:
            _SHARED = {}

    def __exit__(self, *exc: object) -> None:
        global _SHARED
        if self._outer:
            _SHARED = None


def _folders(directory: str) -> list[tuple[str, str, str, str, str | None]]:
    """(normalized name, folder, name, version, text of entry_points.txt or None) of each distribution folder, by folder name."""
    shared = _SHARED
    folders = shared.get(directory) if shared is not None else None
    if folders is None:
        folders = _read_folders(directory)
        if shared is not None:
            shared[directory] = folders
    return folders


def _read_folders(directory: str) -> list[tuple[str, str, str, str, str | None]]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    folders = []
    for folder in names:
        if folder.endswith((".dist-info", ".egg-info")):
            dist, _, version = folder.rsplit(".", 1)[0].partition("-")
            text = _read_text(os.path.join(directory, folder, "entry_points.txt"))
            folders.append((_NORMALIZE.sub("-", dist).lower(), folder, dist, version, text))
    return folders


def _read_text(path: str) -> str | None:
    """The file's text, or None if it cannot be read: `os.read` costs less than a text-mode `open()`,
    which matters with hundreds of distributions installed."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def _name_and_version(folder: str, dist: str, version: str) -> tuple[str, str]:
    if version and not version.startswith("0.0.0"):
        return dist.replace("_", "-"), version.partition("-")[0]
    try:  # egg-info folders may carry no version in their name
        with open(os.path.join(folder, "PKG-INFO" if folder.endswith(".egg-info") else "METADATA"), encoding="utf-8") as f:
            head = f.read(2048)
    except OSError:
        return dist.replace("_", "-"), version
    match = re.search(r"^Version: *(\S+)", head, re.MULTILINE)
    return dist.replace("_", "-"), match.group(1) if match else version


def _parse_group(text: str, group: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            inside = line[1:-1].strip() == group
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            entries.append((name.strip(), value.strip()))
    return entries


def _scan_other(path_entry: str, group: str, seen: set[str], found: list[EntryPointInfo]) -> None:
    from importlib import metadata  # rare: zipped path entries

    for dist in metadata.distributions(path=[path_entry]):
        name = dist.metadata["Name"] or "unknown"
        key = _NORMALIZE.sub("-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        for ep in dist.entry_points:
            if ep.group == group:
                found.append(EntryPointInfo(ep.name, ep.value, name, dist.version))
