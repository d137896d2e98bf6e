"""Imports TensorFlow without its start-up noise; every other module gets `tf` from here.

TensorFlow's C++ runtime logs oneDNN, CPU-feature and CUDA messages to stderr while it loads, some
of them before its own log level applies. Unless the user chose a level by setting
`TF_CPP_MIN_LOG_LEVEL` (which turns this off), the level is set to 2 (warnings and errors that
come later still show as errors) and stderr is redirected to the null device while TensorFlow
loads. An import error is still raised as usual; only what the runtime prints is hidden.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["tf"]

_LEVEL_VARIABLE = "TF_CPP_MIN_LOG_LEVEL"


@contextmanager
def _silenced_stderr() -> Iterator[None]:
    """Points file descriptor 2 at the null device; C++ code writes there, not to `sys.stderr`."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no real stderr (embedded interpreters): nothing to hide
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _import_tensorflow() -> Any:
    if "tensorflow" in sys.modules or _LEVEL_VARIABLE in os.environ:
        import tensorflow

        return tensorflow
    os.environ[_LEVEL_VARIABLE] = "2"
    with _silenced_stderr():
        import tensorflow
    return tensorflow


tf = _import_tensorflow()
