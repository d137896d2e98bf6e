"""Creation: zeros/ones, ranges, grids, random numbers, variables, copies."""

from __future__ import annotations

import numpy as np

from bk import DType

from .._case import Trial, case


def _default_float(t: Trial) -> DType:
    return t.b.float_type if t.float64 or t.b.float_type.bits != 64 else DType(float, 32)


def _fill(name: str, value: float) -> None:
    @case(name, name=f"{name}-dtypes")
    def run(t: Trial) -> None:
        for shape in ((), (0,), (2, 3)):
            for dtype in (None, DType(int, 32), DType(int, 64), DType(bool), *t.floats()[:1], DType(complex, 64)):
                got = getattr(t.b, name)(shape, dtype)
                want = dtype or t.b.float_type
                t.check(got, np.full(shape, value), f"{name}({shape}, {dtype})", dtype=want)
        for p in t.precisions:
            with t.precision(p):
                t.check(getattr(t.b, name)((2,)), np.full(2, value), f"{name}((2,)) under precision({p})", dtype=_default_float(t))


def _fill_like(name: str, value: float) -> None:
    @case(name, name=f"{name}-dtypes")
    def run(t: Trial) -> None:
        for array in (np.zeros((2, 3), np.float32), np.zeros((), np.int64), np.zeros((0, 2), bool), np.zeros(2, np.complex64)):
            got = getattr(t.b, name)(t.tensor(array))
            t.check(got, np.full(array.shape, value).astype(array.dtype), f"{name}({array.dtype} {array.shape})", dtype=t.b.dtype(t.tensor(array)))


for _name, _value in (("zeros", 0.0), ("ones", 1.0)):
    _fill(_name, _value)
    _fill_like(f"{_name}_like", _value)


@case("range")
def _range(t: Trial) -> None:
    """`range(n)`, start/limit/delta, negative steps, empty ranges, dtype."""
    for args, dtype in (((5,), None), ((2, 9, 3), None), ((5, 0, -2), DType(int, 64)), ((3, 3), None), ((0,), DType(int, 64))):
        got = t.b.range(*args) if dtype is None else t.b.range(*args, dtype=dtype)
        t.check(got, np.arange(*args), f"range{args}", dtype=dtype or DType(int, 32))


@case("linspace")
def _linspace(t: Trial) -> None:
    """Both ends included, one point, and the float type of the precision."""
    for p in t.precisions:
        with t.precision(p):
            for start, stop, number in ((0.0, 1.0, 5), (-2.0, 3.0, 1), (1.0, -1.0, 4)):
                got = t.b.linspace(start, stop, number)
                t.check(got, np.linspace(start, stop, number), f"linspace({start}, {stop}, {number}) under precision({p})", dtype=_default_float(t))


@case("linspace_without_last")
def _linspace_without_last(t: Trial) -> None:
    """`number` points, `stop` excluded."""
    got = t.b.linspace_without_last(0.0, 1.0, 4)
    t.check(got, np.linspace(0.0, 1.0, 5)[:-1], "linspace_without_last(0, 1, 4)", dtype=float)


@case("meshgrid")
def _meshgrid(t: Trial) -> None:
    """Matrix ('ij') indexing for 1, 2 and 3 coordinate vectors."""
    coords = [np.arange(2, dtype=np.float32), np.arange(3, dtype=np.float32) * 2, np.arange(4, dtype=np.float32) - 1]
    for n in (1, 2, 3):
        got = t.b.meshgrid(*[t.tensor(c) for c in coords[:n]])
        expected = np.meshgrid(*coords[:n], indexing="ij")
        t.expect(len(got) == n, "meshgrid", f"{len(got)} grids, expected {n}")
        for g, e in zip(got, expected, strict=True):
            t.check(g, e, f"meshgrid of {n} vectors")


@case("random_uniform")
def _random_uniform(t: Trial) -> None:
    """Shape, dtype and range [low, high) for floats and ints; values are not all equal."""
    for p in t.precisions:
        with t.precision(p):
            got = t.to_numpy(t.b.random_uniform((400,), -2.0, 3.0, None))
            t.expect(got.shape == (400,), "random_uniform", f"shape {got.shape}")
            t.expect(bool(np.all((got >= -2) & (got < 3))), "random_uniform(-2, 3)", f"values outside [-2, 3): {got.min()}..{got.max()}")
            t.expect(abs(got.mean() - 0.5) < 0.5 and got.std() > 0.5, "random_uniform(-2, 3)", f"mean {got.mean():.3f}, std {got.std():.3f} are not those of U(-2, 3)")
            t.expect(t.b.dtype(t.b.random_uniform((2,), 0, 1, None)) == _default_float(t), f"random_uniform dtype under precision({p})", str(t.b.dtype(t.b.random_uniform((2,), 0, 1, None))))
    ints = t.b.random_uniform((200,), 0, 4, DType(int, 32))
    values = t.check(ints, t.to_numpy(ints), "random_uniform int32", dtype=DType(int, 32))
    t.expect(set(np.unique(values)) <= {0, 1, 2, 3} and len(np.unique(values)) > 1, "random_uniform(0, 4, int32)", f"values {np.unique(values)}")


@case("random_normal")
def _random_normal(t: Trial) -> None:
    """Shape, dtype and plausible mean and standard deviation."""
    got = t.b.random_normal((2000,), None)
    values = t.to_numpy(got)
    t.expect(values.shape == (2000,), "random_normal", f"shape {values.shape}")
    t.expect(t.b.dtype(got) == _default_float(t), "random_normal dtype", str(t.b.dtype(got)))
    t.expect(abs(values.mean()) < 0.15 and 0.85 < values.std() < 1.15, "random_normal", f"mean {values.mean():.3f}, std {values.std():.3f} are not those of N(0, 1)")
    t.expect(t.b.dtype(t.b.random_normal((2,), DType(float, 32))) == DType(float, 32), "random_normal(float32)", "wrong dtype")


@case("seed")
def _seed(t: Trial) -> None:
    """Seeding twice gives the same random numbers (uses random_uniform)."""
    t.b.seed(7)
    first = t.to_numpy(t.b.random_uniform((5,), 0.0, 1.0, None))
    t.b.seed(7)
    second = t.to_numpy(t.b.random_uniform((5,), 0.0, 1.0, None))
    t.expect(np.array_equal(first, second), "seed(7) twice", f"different values {first} and {second}")


@case("variable")
def _variable(t: Trial) -> None:
    """A variable holding the value (NotImplemented where the framework has none)."""
    x = np.array([1.0, 2.0], np.float32)
    var = t.implemented(t.b.variable(t.tensor(x)))
    t.compare(np.asarray(t.b.numpy(var)), x, "variable([1, 2])", DType(float, 32))


@case("copy")
def _copy(t: Trial) -> None:
    """Same values and dtype; for mutable arrays a new buffer."""
    for x in (np.arange(4, dtype=np.float32), np.array(3, np.int64), np.zeros((0, 2), bool)):
        original = t.tensor(x)
        t.check(t.b.copy(original), x, f"copy({x.dtype} {x.shape})", dtype=t.b.dtype(original))


@case("copy_leaves")
def _copy_leaves(t: Trial) -> None:
    """Copies every tensor of a tree."""
    x = np.arange(3, dtype=np.float32)
    tree = t.b.copy_leaves({"a": [t.tensor(x)], "b": (t.tensor(x * 2),)})
    t.check(tree["a"][0], x, "copy_leaves(...)['a'][0]")
    t.check(tree["b"][0], x * 2, "copy_leaves(...)['b'][0]")
