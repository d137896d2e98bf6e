"""The operation catalogue of `Backend`: the required set and the operations on data, by topic, each as
a signature with its docstring.

Each public function is an operation: the registry (`bk._operations`) collects it and `Backend` gets it
as its method (see `_backend.py` for the class machinery and `supports()`). Each is a feature (see
`_features.py`): the required set is abstract (`@required`), every backend implements it; the
`@optional` operations raise `NotImplementedError` (or return `NotImplemented` where the reference says
so) and are supported only when a backend overrides them. The algorithms' operations (linear algebra to
control flow) continue the topics in `_catalogue_algorithms.py`. The operations that have a generic
default, built from other catalogue operations, are in `_defaults.py` and `_defaults_algorithms.py`
under the same topics; the Array API standard's operations in `_catalogue_standard.py`,
`_catalogue_shapes.py`, `_catalogue_dtypes.py` and `_catalogue_linalg.py`; the rule of each operation
(result dtype, shape, errors) in its spec, `bk._specs`.

The topic banners here and in `_catalogue_algorithms.py` are the catalogue's reading order (the
feature matrix of the docs and the TODO list of `testkit new` follow it): a topic whose operations
all have generic defaults has its banner too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._device import ComputeDevice
from ._dtype import DType
from ._features import optional, required

if TYPE_CHECKING:
    from ._backend import Backend

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any


# ------------------------------------------------------------ required set


@required
def is_tensor(self: Backend, x: Any, only_native: bool = False) -> bool:
    """Whether this backend accepts `x` as a tensor.

    Args:
        x: Any object.
        only_native: If True, accept only the framework's own tensor types, not Python numbers,
            lists or NumPy arrays that `as_tensor` would convert.
    """
    raise NotImplementedError(f"{type(self).__name__} must implement is_tensor, an operation of the required set")


@required
def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Tensor:
    """Converts a tensor-like object (number, list, NumPy array, native tensor) to a native tensor.

    Float values are converted to the current precision when one is set.

    Args:
        x: Tensor-like value.
        convert_external: If False, Python numbers this backend understands are returned as-is.
    """
    raise NotImplementedError(f"{type(self).__name__} must implement as_tensor, an operation of the required set")


@required
def is_available(self: Backend, tensor: Tensor) -> bool:
    """Whether the value of `tensor` is known now (False for tracers and graph nodes)."""
    raise NotImplementedError(f"{type(self).__name__} must implement is_available, an operation of the required set")


@required
def numpy(self: Backend, tensor: Tensor) -> np.ndarray:
    """The value of `tensor` as a NumPy array (or SciPy sparse matrix for sparse tensors)."""
    raise NotImplementedError(f"{type(self).__name__} must implement numpy, an operation of the required set")


@required
def dtype(self: Backend, array: Tensor) -> DType:
    """The `DType` of a tensor or Python number (`int` is int32, `float` float64)."""
    raise NotImplementedError(f"{type(self).__name__} must implement dtype, an operation of the required set")


@required
def staticshape(self: Backend, tensor: Tensor) -> tuple[int | None, ...]:
    """The shape as a tuple; unknown sizes under tracing are `None`."""
    raise NotImplementedError(f"{type(self).__name__} must implement staticshape, an operation of the required set")


@required
def cast(self: Backend, x: Tensor, dtype: DType) -> Tensor:
    """`x` converted to `dtype`; returns `x` itself when it already has that type."""
    raise NotImplementedError(f"{type(self).__name__} must implement cast, an operation of the required set")


# ------------------------------------------------------------ types and precision

# generic defaults only: see `bk._defaults`

# ------------------------------------------------------------ devices and memory


@optional
def allocate_on_device(self: Backend, tensor: Tensor, device: ComputeDevice) -> Tensor:
    """`tensor` moved (or copied) to `device`."""
    raise NotImplementedError(f"{self.name} cannot move tensors between devices")


@optional
def copy(self: Backend, tensor: Tensor, only_mutable: bool = False) -> Tensor:
    """A copy of `tensor`; with `only_mutable=True` immutable tensors may be returned as they are."""
    raise NotImplementedError(f"{self.name} does not implement copy")


@optional
def deallocate(self: Backend, tensor: Tensor) -> bool:
    """Frees the memory of `tensor` now instead of when it is garbage-collected (Nx's `backend_deallocate`).

    Only frameworks that can free a buffer explicitly provide it. Afterwards `tensor` (and every
    view sharing its memory) must not be used: using it raises the framework's error.

    Returns:
        True when memory was freed, False when it had been freed already.
    """
    raise NotImplementedError(f"{self.name} cannot free a tensor's memory explicitly; drop every reference to it instead")


@optional
def nn_library(self: Backend) -> Any:
    """The neural network module of this backend."""
    raise NotImplementedError(f"{self.name} has no neural network library")


@optional
def seed(self: Backend, seed: int) -> None:
    """Seeds the random number generator of this backend."""
    raise NotImplementedError(f"{self.name} does not implement seed")


# ------------------------------------------------------------ tensor metadata

# generic defaults only: see `bk._defaults`

# ------------------------------------------------------------ conversion


@optional
def to_dlpack(self: Backend, tensor: Tensor) -> Any:
    """An object implementing the DLPack protocol (`__dlpack__`) that shares `tensor`'s memory."""
    raise NotImplementedError(f"{self.name} does not implement DLPack")


@optional
def from_dlpack(self: Backend, capsule: Any) -> Tensor:
    """A native tensor sharing the memory of a DLPack object or capsule."""
    raise NotImplementedError(f"{self.name} does not implement DLPack")


# ------------------------------------------------------------ creation


@optional
def zeros(self: Backend, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
    """A tensor of zeros; `dtype` defaults to the float type of the current precision."""
    raise NotImplementedError(f"{self.name} does not implement zeros")


@optional
def zeros_like(self: Backend, tensor: Tensor) -> Tensor:
    """Zeros of the shape and dtype of `tensor`."""
    raise NotImplementedError(f"{self.name} does not implement zeros_like")


@optional
def ones(self: Backend, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
    """A tensor of ones; `dtype` defaults to the float type of the current precision."""
    raise NotImplementedError(f"{self.name} does not implement ones")


@optional
def ones_like(self: Backend, tensor: Tensor) -> Tensor:
    """Ones of the shape and dtype of `tensor`."""
    raise NotImplementedError(f"{self.name} does not implement ones_like")


@optional
def range(self: Backend, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
    """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
    raise NotImplementedError(f"{self.name} does not implement range")


@optional
def linspace(self: Backend, start: Any, stop: Any, number: int) -> Tensor:
    """`number` evenly spaced floats from `start` to `stop`, both included."""
    raise NotImplementedError(f"{self.name} does not implement linspace")


@optional
def meshgrid(self: Backend, *coordinates: Tensor) -> list[Tensor]:
    """Coordinate grids with matrix ('ij') indexing."""
    raise NotImplementedError(f"{self.name} does not implement meshgrid")


@optional
def random_uniform(self: Backend, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
    """Uniform random values in `[low, high)`; ints for int dtypes, the current float type by default."""
    raise NotImplementedError(f"{self.name} does not implement random_uniform")


@optional
def random_normal(self: Backend, shape: Sequence[int], dtype: DType | None) -> Tensor:
    """Standard normal random values of the current float type by default."""
    raise NotImplementedError(f"{self.name} does not implement random_normal")


@optional
def variable(self: Backend, value: Tensor) -> Any:
    """A mutable, trainable variable holding `value`; `NotImplemented` where the framework has none."""
    return NotImplemented


# ------------------------------------------------------------ shape manipulation


@optional
def reshape(self: Backend, value: Tensor, shape: Sequence[int]) -> Tensor:
    """`value` with a new shape; -1 infers one size."""
    raise NotImplementedError(f"{self.name} does not implement reshape")


@optional
def transpose(self: Backend, tensor: Tensor, axes: Sequence[int]) -> Tensor:
    """`tensor` with its dimensions permuted to `axes`."""
    raise NotImplementedError(f"{self.name} does not implement transpose")


@optional
def expand_dims(self: Backend, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
    """`a` with `number` new dimensions of size 1 inserted at `axis`."""
    raise NotImplementedError(f"{self.name} does not implement expand_dims")


@optional
def stack(self: Backend, values: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Stacks equally shaped tensors along a new axis."""
    raise NotImplementedError(f"{self.name} does not implement stack")


@optional
def concat(self: Backend, values: Sequence[Tensor], axis: int) -> Tensor:
    """Concatenates tensors along an existing axis."""
    raise NotImplementedError(f"{self.name} does not implement concat")


@optional
def tile(self: Backend, value: Tensor, multiples: Sequence[int]) -> Tensor:
    """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes."""
    raise NotImplementedError(f"{self.name} does not implement tile")


@optional
def repeat(self: Backend, x: Tensor, repeats: Any, axis: int, new_length: int | None = None) -> Tensor:
    """Repeats each element along `axis` `repeats[i]` times; `new_length` fixes the output size."""
    raise NotImplementedError(f"{self.name} does not implement repeat")


@optional
def pad(
    self: Backend, value: Tensor, pad_width: Sequence[Sequence[int]], mode: str = "constant", constant_values: Any = 0
) -> Tensor:
    """Pads every axis by `pad_width[i] = (lower, upper)`.

    Args:
        value: Tensor to pad.
        pad_width: One `(lower, upper)` pair for every axis.
        mode: `'constant'`, `'boundary'`, `'periodic'` (also by PyTorch's name `'circular'`),
            `'symmetric'` or `'reflect'`.
        constant_values: The fill value of mode `'constant'`.

    Returns:
        The padded tensor. A kernel may return `NotImplemented` for a mode its framework does not
        support: the core then pads with its composite of `gather` (or `full` and `concat` for
        `'constant'`), so callers always get the padded tensor (`NotImplementedError` only where
        the backend lacks those operations too).
    """
    raise NotImplementedError(f"{self.name} does not implement pad")


@optional
def get_diagonal(self: Backend, matrices: Tensor, offset: int = 0) -> Tensor:
    """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
    raise NotImplementedError(f"{self.name} does not implement get_diagonal")


# ------------------------------------------------------------ elementwise maths


@optional
def abs(self: Backend, x: Tensor) -> Tensor:
    """Absolute value (magnitude for complex values)."""
    raise NotImplementedError(f"{self.name} does not implement abs")


@optional
def sign(self: Backend, x: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of `x`."""
    raise NotImplementedError(f"{self.name} does not implement sign")


@optional
def round(self: Backend, x: Tensor) -> Tensor:
    """Rounds to the nearest integer, halves to even."""
    raise NotImplementedError(f"{self.name} does not implement round")


@optional
def ceil(self: Backend, x: Tensor) -> Tensor:
    """Smallest integer not below `x`."""
    raise NotImplementedError(f"{self.name} does not implement ceil")


@optional
def floor(self: Backend, x: Tensor) -> Tensor:
    """Largest integer not above `x`."""
    raise NotImplementedError(f"{self.name} does not implement floor")


@optional
def maximum(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """Elementwise maximum; NaN propagates."""
    raise NotImplementedError(f"{self.name} does not implement maximum")


@optional
def minimum(self: Backend, a: Tensor, b: Tensor) -> Tensor:
    """Elementwise minimum; NaN propagates."""
    raise NotImplementedError(f"{self.name} does not implement minimum")


@optional
def clip(self: Backend, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
    """`x` limited to `[minimum, maximum]`."""
    raise NotImplementedError(f"{self.name} does not implement clip")


@optional
def sqrt(self: Backend, x: Tensor) -> Tensor:
    """Square root."""
    raise NotImplementedError(f"{self.name} does not implement sqrt")


@optional
def exp(self: Backend, x: Tensor) -> Tensor:
    """Natural exponential."""
    raise NotImplementedError(f"{self.name} does not implement exp")


@optional
def erf(self: Backend, x: Tensor) -> Tensor:
    """The error function."""
    raise NotImplementedError(f"{self.name} does not implement erf")


@optional
def softplus(self: Backend, x: Tensor) -> Tensor:
    """`log(1 + exp(x))`, computed without overflow."""
    raise NotImplementedError(f"{self.name} does not implement softplus")


@optional
def log_gamma(self: Backend, x: Tensor) -> Tensor:
    """Natural logarithm of the absolute value of the gamma function, as floats."""
    raise NotImplementedError(f"{self.name} does not implement log_gamma")


@optional
def gamma_inc_l(self: Backend, a: Tensor, x: Tensor) -> Tensor:
    """Regularized lower incomplete gamma function P(a, x)."""
    raise NotImplementedError(f"{self.name} does not implement gamma_inc_l")


@optional
def gamma_inc_u(self: Backend, a: Tensor, x: Tensor) -> Tensor:
    """Regularized upper incomplete gamma function Q(a, x)."""
    raise NotImplementedError(f"{self.name} does not implement gamma_inc_u")


@optional
def sin(self: Backend, x: Tensor) -> Tensor:
    """Sine."""
    raise NotImplementedError(f"{self.name} does not implement sin")


@optional
def arcsin(self: Backend, x: Tensor) -> Tensor:
    """Inverse sine."""
    raise NotImplementedError(f"{self.name} does not implement arcsin")


@optional
def cos(self: Backend, x: Tensor) -> Tensor:
    """Cosine."""
    raise NotImplementedError(f"{self.name} does not implement cos")


@optional
def arccos(self: Backend, x: Tensor) -> Tensor:
    """Inverse cosine."""
    raise NotImplementedError(f"{self.name} does not implement arccos")


@optional
def tan(self: Backend, x: Tensor) -> Tensor:
    """Tangent."""
    raise NotImplementedError(f"{self.name} does not implement tan")


@optional
def arctan(self: Backend, x: Tensor) -> Tensor:
    """Inverse tangent."""
    raise NotImplementedError(f"{self.name} does not implement arctan")


@optional
def arctan2(self: Backend, y: Tensor, x: Tensor) -> Tensor:
    """The angle of the point `(x, y)`."""
    raise NotImplementedError(f"{self.name} does not implement arctan2")


@optional
def sinh(self: Backend, x: Tensor) -> Tensor:
    """Hyperbolic sine."""
    raise NotImplementedError(f"{self.name} does not implement sinh")


@optional
def arcsinh(self: Backend, x: Tensor) -> Tensor:
    """Inverse hyperbolic sine."""
    raise NotImplementedError(f"{self.name} does not implement arcsinh")


@optional
def cosh(self: Backend, x: Tensor) -> Tensor:
    """Hyperbolic cosine."""
    raise NotImplementedError(f"{self.name} does not implement cosh")


@optional
def arccosh(self: Backend, x: Tensor) -> Tensor:
    """Inverse hyperbolic cosine."""
    raise NotImplementedError(f"{self.name} does not implement arccosh")


@optional
def tanh(self: Backend, x: Tensor) -> Tensor:
    """Hyperbolic tangent."""
    raise NotImplementedError(f"{self.name} does not implement tanh")


@optional
def arctanh(self: Backend, x: Tensor) -> Tensor:
    """Inverse hyperbolic tangent."""
    raise NotImplementedError(f"{self.name} does not implement arctanh")


@optional
def log(self: Backend, x: Tensor) -> Tensor:
    """Natural logarithm."""
    raise NotImplementedError(f"{self.name} does not implement log")


@optional
def log2(self: Backend, x: Tensor) -> Tensor:
    """Base-2 logarithm."""
    raise NotImplementedError(f"{self.name} does not implement log2")


@optional
def log10(self: Backend, x: Tensor) -> Tensor:
    """Base-10 logarithm."""
    raise NotImplementedError(f"{self.name} does not implement log10")


@optional
def isfinite(self: Backend, x: Tensor) -> Tensor:
    """True where `x` is neither infinite nor NaN."""
    raise NotImplementedError(f"{self.name} does not implement isfinite")


@optional
def isnan(self: Backend, x: Tensor) -> Tensor:
    """True where `x` is NaN."""
    raise NotImplementedError(f"{self.name} does not implement isnan")


@optional
def isinf(self: Backend, x: Tensor) -> Tensor:
    """True where `x` is infinite."""
    raise NotImplementedError(f"{self.name} does not implement isinf")


@optional
def real(self: Backend, x: Tensor) -> Tensor:
    """Real part."""
    raise NotImplementedError(f"{self.name} does not implement real")


@optional
def imag(self: Backend, x: Tensor) -> Tensor:
    """Imaginary part (zeros for real values)."""
    raise NotImplementedError(f"{self.name} does not implement imag")


@optional
def conj(self: Backend, x: Tensor) -> Tensor:
    """Complex conjugate."""
    raise NotImplementedError(f"{self.name} does not implement conj")


@optional
def divide_no_nan(self: Backend, x: Tensor, y: Tensor) -> Tensor:
    """`x / y`, and 0 where `y` is 0."""
    raise NotImplementedError(f"{self.name} does not implement divide_no_nan")


@optional
def where(self: Backend, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
    """`x` where `condition` holds, else `y`; without `x` and `y` the indices of true elements."""
    raise NotImplementedError(f"{self.name} does not implement where")


# ------------------------------------------------------------ operators


@optional
def equal(self: Backend, x: Tensor, y: Tensor) -> Tensor:
    """Elementwise `x == y`."""
    raise NotImplementedError(f"{self.name} does not implement equal")


# ------------------------------------------------------------ reductions


@optional
def sum(self: Backend, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Sum over `axis` (an int, a tuple, or None for all)."""
    raise NotImplementedError(f"{self.name} does not implement sum")


@optional
def prod(self: Backend, value: Tensor, axis: Any = None) -> Tensor:
    """Product over `axis`."""
    raise NotImplementedError(f"{self.name} does not implement prod")


@optional
def mean(self: Backend, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Mean over `axis`."""
    raise NotImplementedError(f"{self.name} does not implement mean")


@optional
def std(self: Backend, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Population standard deviation over `axis`."""
    raise NotImplementedError(f"{self.name} does not implement std")


@optional
def max(self: Backend, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Maximum over `axis`; NaN propagates."""
    raise NotImplementedError(f"{self.name} does not implement max")


@optional
def min(self: Backend, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Minimum over `axis`; NaN propagates."""
    raise NotImplementedError(f"{self.name} does not implement min")


@optional
def any(self: Backend, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Whether any element along `axis` is true."""
    raise NotImplementedError(f"{self.name} does not implement any")


@optional
def all(self: Backend, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Whether all elements along `axis` are true."""
    raise NotImplementedError(f"{self.name} does not implement all")


@optional
def argmax(self: Backend, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
    """Index of the first maximum along `axis`."""
    raise NotImplementedError(f"{self.name} does not implement argmax")


@optional
def argmin(self: Backend, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
    """Index of the first minimum along `axis`."""
    raise NotImplementedError(f"{self.name} does not implement argmin")


@optional
def cumsum(self: Backend, x: Tensor, axis: int) -> Tensor:
    """Cumulative sum along `axis`."""
    raise NotImplementedError(f"{self.name} does not implement cumsum")


@optional
def quantile(self: Backend, x: Tensor, quantiles: Any) -> Tensor:
    """Quantiles (linear interpolation) of the last axis, shaped `(quantiles, *x.shape[:-1])`."""
    raise NotImplementedError(f"{self.name} does not implement quantile")


# ------------------------------------------------------------ sorting, searching, counting


@optional
def sort(self: Backend, x: Tensor, axis: int = -1) -> Tensor:
    """`x` sorted ascending along `axis`."""
    raise NotImplementedError(f"{self.name} does not implement sort")


@optional
def argsort(self: Backend, x: Tensor, axis: int = -1) -> Tensor:
    """Indices that sort `x` along `axis` (stable)."""
    raise NotImplementedError(f"{self.name} does not implement argsort")


@optional
def searchsorted(
    self: Backend, sorted_sequence: Tensor, search_values: Tensor, side: str, dtype: DType = DType(int, 32)
) -> Tensor:
    """Insertion indices of `search_values` into the last axis of `sorted_sequence`; `side` is 'left' or 'right'."""
    raise NotImplementedError(f"{self.name} does not implement searchsorted")


@optional
def nonzero(self: Backend, values: Tensor, length: int | None = None, fill_value: int = -1) -> Tensor:
    """Multi-indices of the non-zero elements, shape `(nnz, ndims)`; padded with `fill_value` or
    cut to `length` if given."""
    raise NotImplementedError(f"{self.name} does not implement nonzero")


@optional
def boolean_mask(
    self: Backend, x: Tensor, mask: Tensor, axis: int = 0, new_length: int | None = None, fill_value: Any = 0
) -> Tensor:
    """Slices of `x` along `axis` where the 1-D `mask` is true; padded with `fill_value` to `new_length`."""
    raise NotImplementedError(f"{self.name} does not implement boolean_mask")


@optional
def unique(self: Backend, x: Tensor, return_inverse: bool, return_counts: bool, axis: int) -> tuple[Tensor, ...]:
    """Sorted unique slices along `axis`, and optionally the inverse indices and the counts."""
    raise NotImplementedError(f"{self.name} does not implement unique")


@optional
def histogram1d(self: Backend, values: Tensor, weights: Tensor, bin_edges: Tensor) -> Tensor:
    """Batched weighted histograms: `(batch, values)` into `(batch, edges)` bins, shape `(batch, edges - 1)`."""
    raise NotImplementedError(f"{self.name} does not implement histogram1d")


@optional
def bincount(self: Backend, x: Tensor, weights: Tensor | None, bins: int, x_sorted: bool = False) -> Tensor:
    """Counts (or sums `weights`) of each integer in `[0, bins)` in the 1-D `x`."""
    raise NotImplementedError(f"{self.name} does not implement bincount")


# ------------------------------------------------------------ indices

# generic defaults only: see `bk._defaults`

# ------------------------------------------------------------ gather and scatter


@optional
def gather(self: Backend, values: Tensor, indices: Tensor, axis: int) -> Tensor:
    """The slices of `values` at the 1-D `indices` along `axis`."""
    raise NotImplementedError(f"{self.name} does not implement gather")


@optional
def batched_gather_nd(self: Backend, values: Tensor, indices: Tensor) -> Tensor:
    """Batched gather: `(batch, spatial..., channel)` at `(batch, any..., ndims)` indices gives
    `(batch, any..., channel)`; batch sizes may be 1 on either side."""
    raise NotImplementedError(f"{self.name} does not implement batched_gather_nd")


@optional
def scatter(self: Backend, base_grid: Tensor, indices: Tensor, values: Tensor, mode: str) -> Tensor:
    """Batched n-dimensional scatter into a copy of `base_grid`.

    Args:
        base_grid: `(batch, spatial..., channels)`.
        indices: `(batch or 1, updates, ndims)` integer indices.
        values: `(batch or 1, updates or 1, channels or 1)`.
        mode: `'update'`, `'add'`, `'max'` or `'min'`.
    """
    raise NotImplementedError(f"{self.name} does not implement scatter")


@optional
def indexed_segment_sum(self: Backend, x: Tensor, indices: Tensor, axis: int) -> Tensor:
    """Sums of contiguous segments of `x` along `axis` starting at `indices`; `(batch, ...)` and
    `(batch, segments)`."""
    raise NotImplementedError(f"{self.name} does not implement indexed_segment_sum")
