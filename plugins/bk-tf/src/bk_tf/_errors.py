"""TensorFlow's exception types, for the core's error mapping (no message is ever read).

TensorFlow reports a caller's mistake as `tf.errors.InvalidArgumentError` (eager kernels), or as a
`ValueError` / `TypeError` raised while an operation is built. The core wraps every kernel of
`TFBackend` and asks the operation's spec what a failed call did wrong (`bk.explain_failure`);
what the spec accepts was a mistake in the data (`Backend.kernel_errors`). TensorFlow's
`NotFoundError` / `UnimplementedError` mean it has no kernel for a dtype the spec allows.
"""

from __future__ import annotations

from typing import Final

from ._framework import tf

__all__ = ["DATA_ERRORS", "NO_KERNEL"]

DATA_ERRORS: Final = (tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError, IndexError)
"""TensorFlow's exception types for bad data (an index out of range, a negative count)."""

NO_KERNEL: Final = (tf.errors.NotFoundError, tf.errors.UnimplementedError)
"""TensorFlow has no kernel for these operands' dtype on this device."""
