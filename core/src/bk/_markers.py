"""The pluggy markers of the project `bk`."""

from __future__ import annotations

from typing import Final

import pluggy

PROJECT: Final = "bk"

hookspec: Final = pluggy.HookspecMarker(PROJECT)
"""Marks a hook specification (used in `bk.hookspecs`)."""

hookimpl: Final = pluggy.HookimplMarker(PROJECT)
"""Marks a plugin's implementation of a hook, such as `bk_backends`."""
