"""Imports TensorFlow without its start-up noise; every other module gets `tf` from here.

TensorFlow's C++ runtime logs oneDNN, CPU-feature and CUDA messages to stderr while it loads, some
of them through absl before `TF_CPP_MIN_LOG_LEVEL` applies (even at level 3), and its Python
loggers (`tensorflow`, `absl`) print warnings such as tf.function retracing later on. When bk-tf
is the one importing TensorFlow:

- `TF_CPP_MIN_LOG_LEVEL` defaults to 3 (`os.environ.setdefault`: a level the user set wins); 3
  rather than 2 because some kernels log harmless messages at error level (oneDNN's "supports
  DT_INT32 only on platforms with AVX-512"), while real errors reach the user as exceptions;
- unless that level is 0 (the user asked to see everything), file descriptor 2 points at the null
  device while TensorFlow loads (an import error is still raised as usual), and the `tensorflow`
  and `absl` Python loggers are set to ERROR where nobody has set a level on them yet.

`TF_ENABLE_ONEDNN_OPTS` is left alone: it changes numerics and speed, not only what is printed.
If the user imported TensorFlow before loading the backend, nothing is changed.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

__all__ = ["tf"]

LEVEL_VARIABLE: Final = "TF_CPP_MIN_LOG_LEVEL"
QUIET_LEVEL: Final = "3"
_PYTHON_LOGGERS: Final = ("tensorflow", "absl")


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


def _quiet_python_loggers() -> None:
    for name in _PYTHON_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.ERROR)


def _import_tensorflow() -> Any:
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    level = os.environ.setdefault(LEVEL_VARIABLE, QUIET_LEVEL)
    if level.strip() == "0":
        import tensorflow

        return tensorflow
    with _silenced_stderr():
        import tensorflow
    _quiet_python_loggers()
    return tensorflow


tf = _import_tensorflow()
