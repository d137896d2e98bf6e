"""A second third-party backend, written from docs/write-a-plugin.md: kernels only, over array-api-strict.

Every kernel is one bare call of the strict namespace: it computes in whatever dtype it is given and
checks nothing (array-api-strict itself refuses mixed dtypes, Python numbers beside arrays of another
kind, `mean` of integers, and more, with its own `TypeError`s). Every rule of docs/semantics.md comes
from the core's one call path (`bk._dispatcher`): casts to the dtype an operation computes in, Python
numbers and lists made tensors, result casts, the composites and the spec's errors.
"""
import array_api_strict as xp
import numpy as np

import bk

_DTYPES = {
    xp.bool: bk.DType(bool),
    **{getattr(xp, f"int{b}"): bk.DType(int, b) for b in (8, 16, 32, 64)},
    **{getattr(xp, f"uint{b}"): bk.DType(int, b, signed=False) for b in (8, 16, 32, 64)},
    xp.float32: bk.DType(float, 32),
    xp.float64: bk.DType(float, 64),
    xp.complex64: bk.DType(complex, 64),
    xp.complex128: bk.DType(complex, 128),
}
_NATIVE = {d: n for n, d in _DTYPES.items()}
_ARRAY = type(xp.asarray(0))


_NO_BOOL = frozenset({bk.DType(bool)})


class BareBackend(bk.Backend):
    # the framework's facts, declared once: the core does the rest
    unsupported_dtypes = frozenset({bk.DType(float, 16), bk.DType.parse("bfloat16")})  # array-api-strict has neither
    complex_unordered = bk.rules.ORDERING  # array-api-strict orders no complex values
    lacking_kernels = dict.fromkeys(  # array-api-strict computes these for numbers only, not for bools
        ("abs", "floor", "ceil", "isfinite", "isnan", "mul", "max", "min", "maximum", "minimum", "greater_than", "greater_or_equal", "sort", "argmax", "prod", "cumsum", "var"),
        _NO_BOOL,
    )

    def __init__(self):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "array-api-strict", "cpu")
        super().__init__("bare", [cpu], cpu)

    # required set
    def is_tensor(self, x, only_native=False):
        if isinstance(x, _ARRAY):
            return True
        return not only_native and isinstance(x, (bool, int, float, complex, np.ndarray, np.generic, list, tuple))

    def as_tensor(self, x, convert_external=True):
        if isinstance(x, _ARRAY):
            return x
        if isinstance(x, (np.ndarray, np.generic)):
            x = np.asarray(x, dtype=x.dtype.newbyteorder("="))  # array-api-strict takes native byte order only
        return xp.asarray(x)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return np.asarray(tensor)

    def dtype(self, array):
        return _DTYPES[array.dtype]

    def staticshape(self, tensor):
        return tuple(tensor.shape)

    def cast(self, x, dtype):
        if x.dtype in (xp.complex64, xp.complex128) and dtype.kind is not complex:  # array-api-strict casts no complex value to real
            x = xp.not_equal(x, 0) if dtype.kind is bool else xp.real(x)
        return xp.astype(x, _NATIVE[dtype])

    # kernels: one bare call each
    def add(self, a, b): return xp.add(a, b)
    def sub(self, a, b): return xp.subtract(a, b)
    def mul(self, a, b): return xp.multiply(a, b)
    def div(self, numerator, denominator): return xp.divide(numerator, denominator)
    def floordiv(self, a, b): return xp.floor_divide(a, b)
    def mod(self, dividend, divisor): return xp.remainder(dividend, divisor)
    def pow(self, base, exp): return xp.pow(base, exp)
    def maximum(self, a, b): return xp.maximum(a, b)
    def minimum(self, a, b): return xp.minimum(a, b)
    def equal(self, x, y): return xp.equal(x, y)
    def not_equal(self, x, y): return xp.not_equal(x, y)
    def greater_than(self, x, y): return xp.greater(x, y)
    def greater_or_equal(self, x, y): return xp.greater_equal(x, y)
    def sqrt(self, x): return xp.sqrt(x)
    def exp(self, x): return xp.exp(x)
    def log(self, x): return xp.log(x)
    def sin(self, x): return xp.sin(x)
    def cos(self, x): return xp.cos(x)
    def tanh(self, x): return xp.tanh(x)
    def abs(self, x): return xp.abs(x)
    def floor(self, x): return xp.floor(x)
    def ceil(self, x): return xp.ceil(x)
    def isfinite(self, x): return xp.isfinite(x)
    def isnan(self, x): return xp.isnan(x)
    def where(self, condition, x, y): return xp.where(condition, x, y)
    def sum(self, value, axis=None, keepdims=False): return xp.sum(value, axis=axis, keepdims=keepdims)
    def prod(self, value, axis=None): return xp.prod(value, axis=axis)
    def mean(self, value, axis=None, keepdims=False): return xp.mean(value, axis=axis, keepdims=keepdims)
    def max(self, x, axis=None, keepdims=False): return xp.max(x, axis=axis, keepdims=keepdims)
    def min(self, x, axis=None, keepdims=False): return xp.min(x, axis=axis, keepdims=keepdims)
    def any(self, boolean_tensor, axis=None, keepdims=False): return xp.any(boolean_tensor, axis=axis, keepdims=keepdims)
    def all(self, boolean_tensor, axis=None, keepdims=False): return xp.all(boolean_tensor, axis=axis, keepdims=keepdims)
    def reshape(self, value, shape): return xp.reshape(value, tuple(shape))
    def transpose(self, tensor, axes): return xp.permute_dims(tensor, tuple(axes))
    def concat(self, values, axis): return xp.concat(list(values), axis=axis)
    def stack(self, values, axis=0): return xp.stack(list(values), axis=axis)
    def zeros(self, shape, dtype=None): return xp.zeros(shape, dtype=_NATIVE[dtype or self.float_type])
    def ones(self, shape, dtype=None): return xp.ones(shape, dtype=_NATIVE[dtype or self.float_type])
    def matmul(self, x1, x2): return xp.matmul(x1, x2)
    def tensordot(self, a, a_axes, b, b_axes): return xp.tensordot(a, b, axes=(tuple(a_axes), tuple(b_axes)))
    def sort(self, x, axis=-1): return xp.sort(x, axis=axis)
    def argmax(self, x, axis, keepdims=False): return xp.argmax(x, axis=axis, keepdims=keepdims)
    def var(self, x, axis=None, keepdims=False):
        if x.dtype in (xp.complex64, xp.complex128):  # array-api-strict's var takes real floats only
            return xp.var(xp.real(x), axis=axis, keepdims=keepdims) + xp.var(xp.imag(x), axis=axis, keepdims=keepdims)
        return xp.var(x, axis=axis, keepdims=keepdims)
    def cumsum(self, x, axis): return xp.cumulative_sum(x, axis=axis)
