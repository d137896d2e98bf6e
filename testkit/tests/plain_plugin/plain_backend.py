"""A backend as a third party writes it from docs/write-a-plugin.md: kernels only.

Every kernel is a bare NumPy call that raises NumPy's own errors; nothing here knows a rule of
docs/semantics.md (promotion, precision, integer division by zero, error classes): the core applies
them around the kernels (the one call path, `bk._dispatcher`). `LiarBackend` returns wrong values for `sum` and
`cos` and must fail on exactly those.
"""
import numpy as np
import plainarr
from plainarr import wrap

import bk

W = wrap


class PlainBackend(bk.Backend):
    def __init__(self, name="plain"):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "numpy", "cpu")
        super().__init__(name, [cpu], cpu)

    # required set
    def is_tensor(self, x, only_native=False):
        if isinstance(x, plainarr.PlainArray):
            return True
        return not only_native and isinstance(x, (bool, int, float, complex, np.ndarray, np.generic, list, tuple))

    def as_tensor(self, x, convert_external=True):
        if isinstance(x, plainarr.PlainArray):
            return x
        if type(x) is float:
            return W(np.asarray(x, bk.to_numpy_dtype(self.float_type)))
        if type(x) is complex:
            return W(np.asarray(x, bk.to_numpy_dtype(self.complex_type)))
        return W(x)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return np.asarray(tensor).view(np.ndarray)

    def dtype(self, array):
        return bk.from_numpy_dtype(np.asarray(array).dtype) if not isinstance(array, (bool, int, float, complex)) else bk.DType.as_dtype(type(array))

    def staticshape(self, tensor):
        return np.shape(tensor)

    def cast(self, x, dtype):
        return W(np.asarray(x).astype(bk.to_numpy_dtype(dtype)))

    # kernels
    def add(self, a, b): return W(np.add(a, b))
    def sub(self, a, b): return W(np.subtract(a, b))
    def mul(self, a, b): return W(np.multiply(a, b))
    def div(self, numerator, denominator): return W(np.true_divide(numerator, denominator))
    def floordiv(self, a, b): return W(np.floor_divide(a, b))
    def mod(self, dividend, divisor): return W(np.mod(dividend, divisor))
    def pow(self, base, exp): return W(np.power(base, exp))
    def maximum(self, a, b): return W(np.maximum(a, b))
    def minimum(self, a, b): return W(np.minimum(a, b))
    def equal(self, x, y): return W(np.equal(x, y))
    def not_equal(self, x, y): return W(np.not_equal(x, y))
    def greater_than(self, x, y): return W(np.greater(x, y))
    def greater_or_equal(self, x, y): return W(np.greater_equal(x, y))
    def sqrt(self, x): return W(np.sqrt(x))
    def exp(self, x): return W(np.exp(x))
    def log(self, x): return W(np.log(x))
    def sin(self, x): return W(np.sin(x))
    def cos(self, x): return W(np.cos(x))
    def tanh(self, x): return W(np.tanh(x))
    def abs(self, x): return W(np.abs(x))
    def floor(self, x): return W(np.floor(x))
    def ceil(self, x): return W(np.ceil(x))
    def isfinite(self, x): return W(np.isfinite(x))
    def isnan(self, x): return W(np.isnan(x))
    def where(self, condition, x, y): return W(np.where(condition, x, y))
    def sum(self, value, axis=None, keepdims=False): return W(np.sum(value, axis=axis, keepdims=keepdims))
    def prod(self, value, axis=None): return W(np.prod(value, axis=axis))
    def mean(self, value, axis=None, keepdims=False): return W(np.mean(value, axis=axis, keepdims=keepdims))
    def max(self, x, axis=None, keepdims=False): return W(np.max(x, axis=axis, keepdims=keepdims))
    def min(self, x, axis=None, keepdims=False): return W(np.min(x, axis=axis, keepdims=keepdims))
    def any(self, boolean_tensor, axis=None, keepdims=False): return W(np.any(boolean_tensor, axis=axis, keepdims=keepdims))
    def all(self, boolean_tensor, axis=None, keepdims=False): return W(np.all(boolean_tensor, axis=axis, keepdims=keepdims))
    def reshape(self, value, shape): return W(np.reshape(value, shape))
    def transpose(self, tensor, axes): return W(np.transpose(tensor, axes))
    def concat(self, values, axis): return W(np.concatenate(values, axis))
    def stack(self, values, axis=0): return W(np.stack(values, axis))
    def zeros(self, shape, dtype=None): return W(np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def ones(self, shape, dtype=None): return W(np.ones(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def tensordot(self, a, a_axes, b, b_axes): return W(np.tensordot(a, b, (tuple(a_axes), tuple(b_axes))))


class LiarBackend(PlainBackend):
    def __init__(self):
        super().__init__("plainliar")

    def sum(self, value, axis=None, keepdims=False):
        return W(np.sum(value, axis=axis, keepdims=keepdims) + 1)

    def cos(self, x):
        return W(np.sin(x))
