"""The fast reader of entry-point groups: what it finds, and reading each file once per discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from bk import _entrypoints
from bk._entrypoints import EntryPointInfo, find_entry_points, shared_scan


def _distribution(root: Path, folder: str, entry_points: str | None) -> None:
    info = root / folder
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: x\nVersion: 3.2\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def site(tmp_path: Path) -> list[str]:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    _distribution(first, "bk_one-1.0.dist-info", "[bk.backends]\none = bk_one.plugin\n\n[other]\nx = y\n")
    _distribution(first, "plain-2.0.dist-info", None)
    _distribution(first, "bk_two-0.0.0.dist-info", "# comment\r\n[bk.backends]\r\ntwo = bk_two.plugin:hooks\r\n")
    _distribution(second, "bk_one-9.0.dist-info", "[bk.backends]\nshadowed = nothing\n")  # the first on the path wins
    _distribution(second, "plain-1.0.dist-info", "[bk.backends]\nplain = plain_plugin\n")  # so it does without entry points
    return [str(first), str(second)]


def test_finds_the_group_in_path_order_first_distribution_wins(site: list[str]) -> None:
    assert find_entry_points("bk.backends", site) == [
        EntryPointInfo("one", "bk_one.plugin", "bk-one", "1.0"),
        EntryPointInfo("two", "bk_two.plugin:hooks", "bk-two", "3.2"),  # the version of METADATA when the folder has none
    ]
    assert find_entry_points("other", site) == [EntryPointInfo("x", "y", "bk-one", "1.0")]
    assert find_entry_points("missing", site) == []


def test_files_are_read_once_per_shared_scan_and_again_outside(site: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    read = _entrypoints._read_text
    monkeypatch.setattr(_entrypoints, "_read_text", lambda path: reads.append(path) or read(path))
    with shared_scan():
        with shared_scan():  # nested blocks share the outer one's reads
            backends = find_entry_points("bk.backends", site)
        other = find_entry_points("other", site)
    assert len(reads) == 5
    assert backends == find_entry_points("bk.backends", site) and other == [EntryPointInfo("x", "y", "bk-one", "1.0")]
    assert len(reads) == 10  # outside a block every call reads the files: a new installation is seen
