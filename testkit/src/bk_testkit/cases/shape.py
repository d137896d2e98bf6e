"""Shape manipulation: reshape, transpose, stacking, tiling, padding, slicing, unstacking."""

from __future__ import annotations

import numpy as np

from bk import DType

from .._case import Trial, add_case, case, label

_DTYPES = ("float32", "int64", "bool")


def _arr(t: Trial, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return (np.arange(int(np.prod(shape))).reshape(shape) % 3 if dtype == "bool" else np.arange(int(np.prod(shape))).reshape(shape)).astype(dtype)


def _same(dtype: str) -> DType:
    from bk import from_numpy_dtype

    return from_numpy_dtype(np.dtype(dtype))


@case("reshape")
def _reshape(t: Trial) -> None:
    """Reshapes with -1, to 0-d and from empty, keeping the dtype."""
    for dtype in _DTYPES:
        x = _arr(t, (2, 3, 4), dtype)
        for shape in ((6, 4), (-1,), (4, -1, 2), (24,)):
            t.check(t.b.reshape(t.tensor(x), shape), x.reshape(shape), f"reshape({dtype} (2, 3, 4), {shape})", dtype=_same(dtype))
    t.check(t.b.reshape(t.tensor(np.array([5.0], np.float32)), ()), np.float32(5.0), "reshape((1,), ())", dtype=DType(float, 32))
    t.check(t.b.reshape(t.tensor(np.zeros((0, 3), np.float32)), (3, 0)), np.zeros((3, 0)), "reshape((0, 3), (3, 0))")


@case("flatten")
def _flatten(t: Trial) -> None:
    """Flattens in C order; 0-d gives (1,)."""
    for x in (_arr(t, (2, 3), "float32"), np.float32(4.0), np.zeros((0, 2), np.int32)):
        x = np.asarray(x)
        t.check(t.b.flatten(t.tensor(x)), x.reshape(-1), label("flatten", x), dtype=_same(str(x.dtype)))


@case("transpose")
def _transpose(t: Trial) -> None:
    """Permutes axes; the identity permutation; empty tensors."""
    for dtype in _DTYPES:
        x = _arr(t, (2, 3, 4), dtype)
        for axes in ((2, 0, 1), (0, 1, 2), (1, 0, 2)):
            t.check(t.b.transpose(t.tensor(x), axes), x.transpose(axes), f"transpose({dtype} (2, 3, 4), {axes})", dtype=_same(dtype))
    empty = np.zeros((0, 2), np.float32)
    t.check(t.b.transpose(t.tensor(empty), (1, 0)), empty.T, "transpose((0, 2))")


@case("expand_dims")
def _expand_dims(t: Trial) -> None:
    """Inserts `number` axes at `axis`, negative axes counting from the end of the result."""
    x = _arr(t, (2, 3), "float32")
    for axis, number, shape in ((0, 1, (1, 2, 3)), (1, 2, (2, 1, 1, 3)), (-1, 1, (2, 3, 1)), (2, 1, (2, 3, 1))):
        t.check(t.b.expand_dims(t.tensor(x), axis, number), x.reshape(shape), f"expand_dims((2, 3), axis={axis}, number={number})")
    t.check(t.b.expand_dims(t.tensor(np.float32(1)), 0), np.ones(1), "expand_dims(0-d)")


@case("stack")
def _stack(t: Trial) -> None:
    """Stacks along new first, middle and negative axes."""
    a, b = _arr(t, (2, 3), "float32"), -_arr(t, (2, 3), "float32")
    for axis in (0, 1, -1):
        t.check(t.b.stack([t.tensor(a), t.tensor(b)], axis), np.stack([a, b], axis), f"stack(2 x (2, 3), axis={axis})", dtype=DType(float, 32))
    s = [np.int64(1), np.int64(2)]
    t.check(t.b.stack([t.tensor(v) for v in s], 0), np.stack(s), "stack(0-d ints)", dtype=DType(int, 64))


@case("concat")
def _concat(t: Trial) -> None:
    """Concatenates along every axis, including empty parts."""
    a, b = _arr(t, (2, 3), "int32"), _arr(t, (2, 3), "int32") + 10
    for axis in (0, 1, -1):
        t.check(t.b.concat([t.tensor(a), t.tensor(b)], axis), np.concatenate([a, b], axis), f"concat(axis={axis})", dtype=DType(int, 32))
    e = np.zeros((0, 3), np.int32)
    t.check(t.b.concat([t.tensor(a), t.tensor(e)], 0), a, "concat with an empty part")


@case("tile")
def _tile(t: Trial) -> None:
    """Repeats the whole tensor; extra multiples add outer axes."""
    x = _arr(t, (2, 3), "float32")
    for multiples in ((1, 1), (2, 1), (2, 3), (2, 1, 1)):
        t.check(t.b.tile(t.tensor(x), multiples), np.tile(x, multiples), f"tile((2, 3), {multiples})")


@case("tile_to")
def _tile_to(t: Trial) -> None:
    """Tiles along one axis to a multiple of its size."""
    x = _arr(t, (1, 3), "float32")
    t.check(t.b.tile_to(t.tensor(x), 0, 4), np.tile(x, (4, 1)), "tile_to((1, 3), axis=0, size=4)")
    t.check(t.b.tile_to(t.tensor(x), 1, 3), x, "tile_to with the current size")


@case("repeat")
def _repeat(t: Trial) -> None:
    """Repeats each element `repeats[i]` times (or a scalar number), along an axis."""
    x = _arr(t, (2, 3), "float32")
    t.check(t.b.repeat(t.tensor(x), 2, 1), np.repeat(x, 2, axis=1), "repeat((2, 3), 2, axis=1)")
    reps = np.array([1, 0, 2], np.int32)
    t.check(t.b.repeat(t.tensor(x), t.tensor(reps), 1), np.repeat(x, reps, axis=1), "repeat((2, 3), [1, 0, 2], axis=1)")
    for counts, length in (([1, 2], 5), ([2, 2], 3)):  # padded with the last value, or cut (as jnp.repeat)
        t.check(t.b.repeat(t.tensor(x), t.tensor(np.array(counts, np.int32)), 0, new_length=length), _repeat_to(x, counts, length), f"repeat({counts}, axis=0, new_length={length})")


def _repeat_to(x: np.ndarray, counts: list[int], length: int) -> np.ndarray:
    """`np.repeat` along axis 0 to exactly `length` rows: cut, or padded by repeating the last row."""
    repeated = np.repeat(x, counts, axis=0)
    if len(repeated) >= length:
        return repeated[:length]
    return np.concatenate([repeated, np.repeat(repeated[-1:], length - len(repeated), axis=0)])


_PAD_MODES = {"constant": "constant", "boundary": "edge", "periodic": "wrap", "circular": "wrap", "symmetric": "symmetric", "reflect": "reflect"}


def _pad_mode(mode: str) -> None:
    def run(t: Trial) -> None:
        x = _arr(t, (3, 4), "float32") + 1
        widths = ((1, 2), (2, 0))
        kwargs = {"constant_values": 7.0} if mode == "constant" else {}
        got = t.b.pad(t.tensor(x), widths, mode, **({"constant_values": 7.0} if mode == "constant" else {}))
        if got is NotImplemented:
            if mode == "constant":
                t.implemented(got)
            from .._case import SkipCase

            raise SkipCase(f"pad mode {mode!r} returned NotImplemented (the reference allows this for unsupported modes)")
        t.check(got, np.pad(x, widths, _PAD_MODES[mode], **kwargs), f"pad((3, 4), {widths}, {mode!r})", dtype=DType(float, 32), inputs={"x": x})

    add_case("pad", mode, run, f"mode {mode!r} against numpy.pad({_PAD_MODES[mode]!r})")


for _mode in _PAD_MODES:
    _pad_mode(_mode)


@case("pad_to")
def _pad_to(t: Trial) -> None:
    """Pads with a fill value or crops along one axis."""
    x = _arr(t, (2, 3), "float32")
    t.check(t.b.pad_to(t.tensor(x), 1, 5, -1.0), np.pad(x, ((0, 0), (0, 2)), constant_values=-1.0), "pad_to((2, 3), axis=1, 5)")
    t.check(t.b.pad_to(t.tensor(x), 1, 2, -1.0), x[:, :2], "pad_to((2, 3), axis=1, 2) crops")


@case("flip")
def _flip(t: Trial) -> None:
    """Reverses along one, several, or negative axes."""
    x = _arr(t, (2, 3, 2), "int32")
    for axes in ((0,), (1, 2), (-1,)):
        t.check(t.b.flip(t.tensor(x), axes), np.flip(x, axes), f"flip((2, 3, 2), {axes})", dtype=DType(int, 32))


@case("unstack")
def _unstack(t: Trial) -> None:
    """Slices along an axis, with and without keepdims."""
    x = _arr(t, (2, 3), "float32")
    for axis in (0, 1, -1):
        for keep in (False, True):
            parts = t.b.unstack(t.tensor(x), axis, keep)
            expected = [np.take(x, [i], axis) if keep else np.take(x, i, axis) for i in range(x.shape[axis])]
            t.expect(len(parts) == len(expected), "unstack", f"{len(parts)} parts, expected {len(expected)}")
            for part, want in zip(parts, expected, strict=True):
                t.check(part, want, f"unstack((2, 3), axis={axis}, keepdims={keep})")


@case("multi_slice")
def _multi_slice(t: Trial) -> None:
    """Slices, ints and steps in one tuple."""
    x = _arr(t, (4, 5), "float32")
    for slices in ((slice(1, 3), 2), (slice(None, None, 2), slice(None)), (0, slice(-2, None))):
        t.check(t.b.multi_slice(t.tensor(x), slices), x[slices], f"multi_slice((4, 5), {slices})")


@case("batch_gather")
def _batch_gather(t: Trial) -> None:
    """Entries of the first dimension by an int or a list."""
    x = _arr(t, (3, 2), "float32")
    t.check(t.b.batch_gather(t.tensor(x), 1), x[[1]], "batch_gather(x, 1)")
    t.check(t.b.batch_gather(t.tensor(x), [2, 0]), x[[2, 0]], "batch_gather(x, [2, 0])")


@case("get_diagonal")
def _get_diagonal(t: Trial) -> None:
    """Diagonals of (batch, rows, cols, channels) matrices, with offsets."""
    m = _arr(t, (2, 3, 3, 2), "float32")
    for offset in (0, 1, -1):
        expected = np.stack([np.diagonal(m[b], offset, 0, 1).T for b in range(2)])
        t.check(t.b.get_diagonal(t.tensor(m), offset), expected, f"get_diagonal((2, 3, 3, 2), offset={offset})")


@case("stack_leaves")
def _stack_leaves(t: Trial) -> None:
    """Stacks matching leaves of tuples and dicts."""
    a, b = np.ones(2, np.float32), np.zeros(2, np.float32)
    trees = [{"x": (t.tensor(a), t.tensor(b))}, {"x": (t.tensor(b), t.tensor(a))}]
    result = t.b.stack_leaves(trees)
    t.check(result["x"][0], np.stack([a, b]), "stack_leaves(...)['x'][0]")
    t.check(result["x"][1], np.stack([b, a]), "stack_leaves(...)['x'][1]")


@case("ndims")
def _ndims(t: Trial) -> None:
    """Number of dimensions, 0 for scalars."""
    for shape in ((), (0,), (2, 3, 1)):
        got = t.b.ndims(t.tensor(np.zeros(shape, np.float32)))
        t.expect(got == len(shape), f"ndims(shape {shape})", f"got {got}")


@case("shape", "staticshape")
def _shapes(t: Trial) -> None:
    """Shape as a tuple of ints, for 0-d, empty and n-d tensors."""
    for shape in ((), (0,), (2, 3, 1)):
        tensor = t.tensor(np.zeros(shape, np.float32))
        for name in ("shape", "staticshape"):
            got = tuple(int(s) for s in getattr(t.b, name)(tensor))
            t.expect(got == shape, f"{name}(zeros {shape})", f"got {got}")


@case("size")
def _size(t: Trial) -> None:
    """Number of elements."""
    for shape in ((), (0, 4), (2, 3)):
        got = t.b.size(t.tensor(np.zeros(shape, np.float32)))
        t.expect(int(got) == int(np.prod(shape)), f"size(zeros {shape})", f"got {got}")


@case("sizeof")
def _sizeof(t: Trial) -> None:
    """Bytes of the elements: size times the item size of the dtype."""
    for shape, dtype in (((), "float32"), ((0, 4), "float64"), ((2, 3), "int16"), ((5,), "bool"), ((2, 2), "complex64")):
        array = np.zeros(shape, dtype)
        if dtype == "float64":
            t.need_float64()
        got = t.b.sizeof(t.tensor(array))
        t.expect(got == array.nbytes, f"sizeof(zeros {shape} {dtype})", f"got {got}, expected {array.nbytes}")
