"""A backend as a third party writes it from docs/write-a-plugin.md, for a framework that evaluates lazily: kernels only.

Every kernel records a bare NumPy call in a `deferredarr.Deferred` (values computed when read); the
framework raises its errors (`EvaluationError`) when a value is read, which the core maps as kernel errors
because the class says it evaluates lazily (`evaluates_lazily`, `kernel_errors`). Its float64 transcendental
functions compute at float32 accuracy, declared in `precision_deficits`. It certifies with 0 failed.
"""
import deferredarr
import numpy as np
from deferredarr import Deferred, apply

import bk

A = apply
_F32, _F64 = bk.DType(float, 32), bk.DType(float, 64)


def _single(function):
    """`function` of float64 values computed in float32, the framework's only transcendental accuracy."""

    def computed(x):
        x = np.asarray(x)
        return function(x.astype(np.float32)).astype(np.float64) if x.dtype == np.float64 else function(x)

    return computed


class DeferredBackend(bk.Backend):
    # what the framework does differently, declared once (docs/write-a-plugin.md, "What your framework lacks")
    evaluates_lazily = True  # errors are raised when values are read (numpy()): the core maps them there
    kernel_errors = (deferredarr.EvaluationError, IndexError)
    framework_errors = {deferredarr.OutOfRangeError: bk.IndexOutOfRangeError}  # whichever operation made the value
    precision_deficits = {op: {_F64: _F32} for op in ("sin", "cos", "exp", "log", "tanh")}
    lacking_kernels = dict.fromkeys(("solve", "inv"), frozenset({bk.DType(float, 16), bk.DType(float, 16, brain=True)}))  # no half-precision linear algebra

    def __init__(self, name="deferred"):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "deferredarr", "cpu")
        super().__init__(name, [cpu], cpu)

    # required set
    def is_tensor(self, x, only_native=False):
        if isinstance(x, Deferred):
            return True
        return not only_native and isinstance(x, (bool, int, float, complex, np.ndarray, np.generic, list, tuple))

    def as_tensor(self, x, convert_external=True):
        if isinstance(x, Deferred):
            return x
        if type(x) is float:
            return deferredarr.constant(np.asarray(x, bk.to_numpy_dtype(self.float_type)))
        if type(x) is complex:
            return deferredarr.constant(np.asarray(x, bk.to_numpy_dtype(self.complex_type)))
        return deferredarr.constant(x)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return tensor.evaluate() if isinstance(tensor, Deferred) else np.asarray(tensor)

    def dtype(self, array):
        if isinstance(array, (bool, int, float, complex)):
            return bk.DType.as_dtype(type(array))
        return bk.from_numpy_dtype(array.dtype if isinstance(array, Deferred) else np.asarray(array).dtype)

    def staticshape(self, tensor):
        return tensor.shape if isinstance(tensor, Deferred) else np.shape(tensor)

    def cast(self, x, dtype):  # never through as_tensor, which casts under a set precision
        return A(lambda a: np.asarray(a).astype(bk.to_numpy_dtype(dtype)), x if isinstance(x, Deferred) else deferredarr.constant(x))

    # kernels
    def add(self, a, b): return A(np.add, a, b)
    def sub(self, a, b): return A(np.subtract, a, b)
    def mul(self, a, b): return A(np.multiply, a, b)
    def div(self, numerator, denominator): return A(np.true_divide, numerator, denominator)
    def floordiv(self, a, b): return A(np.floor_divide, a, b)
    def mod(self, dividend, divisor): return A(np.mod, dividend, divisor)
    def pow(self, base, exp): return A(np.power, base, exp)
    def maximum(self, a, b): return A(np.maximum, a, b)
    def minimum(self, a, b): return A(np.minimum, a, b)
    def equal(self, x, y): return A(np.equal, x, y)
    def not_equal(self, x, y): return A(np.not_equal, x, y)
    def greater_than(self, x, y): return A(np.greater, x, y)
    def greater_or_equal(self, x, y): return A(np.greater_equal, x, y)
    def sqrt(self, x): return A(np.sqrt, x)
    def exp(self, x): return A(_single(np.exp), x)
    def log(self, x): return A(_single(np.log), x)
    def sin(self, x): return A(_single(np.sin), x)
    def cos(self, x): return A(_single(np.cos), x)
    def tanh(self, x): return A(_single(np.tanh), x)
    def abs(self, x): return A(np.abs, x)
    def floor(self, x): return A(np.floor, x)
    def ceil(self, x): return A(np.ceil, x)
    def isfinite(self, x): return A(np.isfinite, x)
    def isnan(self, x): return A(np.isnan, x)
    def real(self, x): return A(np.real, x)
    def imag(self, x): return A(np.imag, x)
    def where(self, condition, x, y): return A(np.where, condition, x, y)
    def sum(self, value, axis=None, keepdims=False): return A(np.sum, value, axis=axis, keepdims=keepdims)
    def prod(self, value, axis=None): return A(np.prod, value, axis=axis)
    def mean(self, value, axis=None, keepdims=False): return A(np.mean, value, axis=axis, keepdims=keepdims)
    def max(self, x, axis=None, keepdims=False): return A(np.max, x, axis=axis, keepdims=keepdims)
    def min(self, x, axis=None, keepdims=False): return A(np.min, x, axis=axis, keepdims=keepdims)
    def any(self, boolean_tensor, axis=None, keepdims=False): return A(np.any, boolean_tensor, axis=axis, keepdims=keepdims)
    def all(self, boolean_tensor, axis=None, keepdims=False): return A(np.all, boolean_tensor, axis=axis, keepdims=keepdims)
    def reshape(self, value, shape): return A(np.reshape, value, shape)
    def transpose(self, tensor, axes): return A(np.transpose, tensor, axes)
    def concat(self, values, axis): return deferredarr.apply_each(np.concatenate, values, axis)
    def stack(self, values, axis=0): return deferredarr.apply_each(np.stack, values, axis)
    def zeros(self, shape, dtype=None): return deferredarr.constant(np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def ones(self, shape, dtype=None): return deferredarr.constant(np.ones(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def tensordot(self, a, a_axes, b, b_axes): return A(lambda x, y: np.tensordot(x, y, (tuple(a_axes), tuple(b_axes))), a, b)
    def matmul(self, x1, x2): return A(np.matmul, x1, x2)
    def solve(self, x1, x2): return A(lambda a, b: np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == 1 else np.linalg.solve(a, b), x1, x2)
    def inv(self, x): return A(np.linalg.inv, x)
