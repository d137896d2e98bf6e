"""A backend as a third party writes it from docs/write-a-plugin.md, for a framework narrower than NumPy: kernels only.

Every kernel is a bare call of `narrowarr`, a framework without complex128 that cannot order complex values
(its comparisons, `maximum`, `max`, `argmax`, `sort`, `searchsorted`, ... refuse them). The class declares both
gaps once (`unsupported_dtypes`, `complex_unordered`); the core orders complex values from their real and
imaginary parts, and the testkit skips what needs complex128. It certifies with 0 failed.
"""
import narrowarr
import numpy as np
from narrowarr import wrap

import bk

W = wrap


class NarrowBackend(bk.Backend):
    # what the framework lacks, declared once (docs/write-a-plugin.md, "What your framework lacks"):
    # the core fills the complex order from real and imaginary parts; cases that need complex128 are skipped
    unsupported_dtypes = frozenset({bk.DType(complex, 128)})
    complex_unordered = bk.rules.ORDERING
    nan_unordered = frozenset({"sort", "argsort", "searchsorted"})  # its sort of bfloat16 puts NaN anywhere
    lacking_kernels = {"matmul": frozenset({int, bool})}  # no integer matmul: computed in float64, cast back

    def __init__(self, name="narrow"):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "narrowarr", "cpu")
        super().__init__(name, [cpu], cpu)

    # required set
    def is_tensor(self, x, only_native=False):
        if isinstance(x, narrowarr.NarrowArray):
            return True
        return not only_native and isinstance(x, (bool, int, float, complex, np.ndarray, np.generic, list, tuple))

    def as_tensor(self, x, convert_external=True):
        if isinstance(x, narrowarr.NarrowArray):
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
    def maximum(self, a, b): return narrowarr.maximum(a, b)
    def minimum(self, a, b): return narrowarr.minimum(a, b)
    def equal(self, x, y): return W(np.equal(x, y))
    def not_equal(self, x, y): return W(np.not_equal(x, y))
    def greater_than(self, x, y): return narrowarr.greater(x, y)
    def greater_or_equal(self, x, y): return narrowarr.greater_equal(x, y)
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
    def max(self, x, axis=None, keepdims=False): return narrowarr.amax(x, axis=axis, keepdims=keepdims)
    def min(self, x, axis=None, keepdims=False): return narrowarr.amin(x, axis=axis, keepdims=keepdims)
    def any(self, boolean_tensor, axis=None, keepdims=False): return W(np.any(boolean_tensor, axis=axis, keepdims=keepdims))
    def all(self, boolean_tensor, axis=None, keepdims=False): return W(np.all(boolean_tensor, axis=axis, keepdims=keepdims))
    def reshape(self, value, shape): return W(np.reshape(value, shape))
    def transpose(self, tensor, axes): return W(np.transpose(tensor, axes))
    def concat(self, values, axis): return W(np.concatenate(values, axis))
    def stack(self, values, axis=0): return W(np.stack(values, axis))
    def zeros(self, shape, dtype=None): return W(np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def ones(self, shape, dtype=None): return W(np.ones(shape, bk.to_numpy_dtype(dtype or self.float_type)))
    def tensordot(self, a, a_axes, b, b_axes): return W(np.tensordot(a, b, (tuple(a_axes), tuple(b_axes))))
    def real(self, x): return W(np.real(x))
    def imag(self, x): return W(np.imag(x))
    def clip(self, x, minimum, maximum): return narrowarr.clip(x, minimum, maximum)
    def argmax(self, x, axis, keepdims=False): return narrowarr.argmax(x, axis=axis, keepdims=keepdims)
    def argmin(self, x, axis, keepdims=False): return narrowarr.argmin(x, axis=axis, keepdims=keepdims)
    def sort(self, x, axis=-1): return narrowarr.sort(x, axis=axis, kind="stable")
    def argsort(self, x, axis=-1): return narrowarr.argsort(x, axis=axis, kind="stable")
    def searchsorted(self, sorted_sequence, search_values, side, dtype=bk.DType(int, 32)):
        result = np.zeros(np.shape(search_values), bk.to_numpy_dtype(dtype))
        for row in np.ndindex(*np.shape(search_values)[:-1]):
            sequence = sorted_sequence if np.ndim(sorted_sequence) == 1 else sorted_sequence[row]
            result[row] = narrowarr.searchsorted(sequence, search_values[row], side)
        return W(result)
    def matmul(self, x1, x2): return narrowarr.matmul(x1, x2)
    def cumsum(self, x, axis): return W(np.cumsum(x, axis))
    def take_along_axis(self, x, indices, axis=-1): return W(np.take_along_axis(x, indices, axis))
    def fftn(self, x, s=None, axes=None, norm="backward"): return W(np.fft.fftn(x, s, axes, norm).astype(np.complex64))  # its only complex type
