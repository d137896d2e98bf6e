"""A framework that evaluates lazily: an operation records what to compute, and a value is computed when it
is read (`Deferred.evaluate`). Errors of a computation are raised there, as `EvaluationError`: a singular
`solve` fails when its solution is read, not when `solve` is called."""
import numpy as np


class EvaluationError(RuntimeError):
    """A computation failed when its value was read."""


class OutOfRangeError(EvaluationError):
    """An index of a computation was out of range, found when its value was read."""


class Deferred:
    """A value not computed yet: its dtype and shape are known, its values are computed on first read."""

    __slots__ = ("__weakref__", "_thunk", "_value", "dtype", "shape")

    def __init__(self, thunk, dtype, shape):
        self._thunk, self._value, self.dtype, self.shape = thunk, None, np.dtype(dtype), tuple(shape)

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, item):
        parts = item if isinstance(item, tuple) else (item,)
        if any(isinstance(p, Deferred) and p.dtype == bool for p in parts):  # a mask: the shape needs its values
            return constant(self.evaluate()[tuple(_value(p) for p in parts) if isinstance(item, tuple) else _value(item)])
        arrays = [p for p in parts if isinstance(p, Deferred)]

        def index(a, *values):
            given = iter(values)
            key = tuple(next(given) if isinstance(p, Deferred) else p for p in parts)
            return a[key if isinstance(item, tuple) else key[0]]

        return apply(index, self, *arrays)

    def __neg__(self):
        return apply(np.negative, self)

    def __add__(self, other):
        return apply(np.add, self, other)

    def __radd__(self, other):
        return apply(np.add, other, self)

    def __sub__(self, other):
        return apply(np.subtract, self, other)

    def __rsub__(self, other):
        return apply(np.subtract, other, self)

    def __mul__(self, other):
        return apply(np.multiply, self, other)

    def __rmul__(self, other):
        return apply(np.multiply, other, self)

    def __truediv__(self, other):
        return apply(np.true_divide, self, other)

    def __pow__(self, other):
        return apply(np.power, self, other)

    def evaluate(self):
        """The values, computed now (once); `EvaluationError` when the computation fails."""
        if self._value is None:
            try:
                with np.errstate(all="ignore"):
                    self._value = np.asarray(self._thunk())
            except IndexError as error:
                raise OutOfRangeError(f"evaluation failed: {error}") from error
            except Exception as error:
                raise EvaluationError(f"evaluation failed: {error}") from error
        return self._value


def constant(value):
    array = np.asarray(value)
    return Deferred(lambda: array, array.dtype, array.shape)


def _value(x):
    return x.evaluate() if isinstance(x, Deferred) else x


def _stand_in(x, identity):
    """A value of the dtype and shape of `x` to find a result's dtype and shape without computing `x`:
    identity matrices (a solve of them succeeds) or zeros (an index of 0 is in range)."""
    if not isinstance(x, Deferred):
        return x
    if identity and x.ndim >= 2:
        return np.broadcast_to(np.eye(x.shape[-2], x.shape[-1], dtype=x.dtype), x.shape).copy()
    return np.zeros(x.shape, x.dtype)


def _template(function, args, kwargs):
    """The result of `function` of stand-ins (identity matrices, else zeros), or of the values themselves
    where neither can stand in (the framework's eager fallback: its errors are raised now)."""
    with np.errstate(all="ignore"):
        for identity in (True, False):
            try:
                return np.asarray(function(*[_stand_in(a, identity) for a in args], **kwargs))
            except Exception:
                continue
        return np.asarray(function(*[_value(a) for a in args], **kwargs))


def apply(function, *args, **kwargs):
    """`function` of the values of `args`, deferred: computed when the result is read."""
    template = _template(function, args, kwargs)
    return Deferred(lambda: function(*[_value(a) for a in args], **kwargs), template.dtype, template.shape)


def apply_each(function, values, *args):
    """`function` of a sequence of values (concatenate, stack), deferred."""
    template = _template(lambda *given: function(list(given), *args), values, {})
    return Deferred(lambda: function([_value(v) for v in values], *args), template.dtype, template.shape)
