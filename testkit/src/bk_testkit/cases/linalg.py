"""Linear algebra, FFT, convolution and grid sampling."""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy import ndimage, signal

from bk import DType

from .._case import SkipCase, Trial, case


def _float(t: Trial) -> str:
    return "float64" if t.float64 else "float32"


@case("tensordot")
def _tensordot(t: Trial) -> None:
    """Contracts the given axes, including none (outer product)."""
    a, b = t.uniform((2, 3, 4)).astype(np.float32), t.uniform((4, 3, 5)).astype(np.float32)
    for a_axes, b_axes in (((2,), (0,)), ((1, 2), (1, 0)), ((), ())):
        got = t.b.tensordot(t.tensor(a), a_axes, t.tensor(b), b_axes)
        t.check(got, np.tensordot(a.astype(np.float64), b.astype(np.float64), (a_axes, b_axes)), f"tensordot({a_axes}, {b_axes})", dtype=DType(float, 32), scale=10)


@case("einsum")
def _einsum(t: Trial) -> None:
    """Matrix product, batch product, trace and transpose equations."""
    a, b = t.uniform((2, 3, 4)), t.uniform((2, 4, 5))
    for eq, ops in (("bij,bjk->bik", (a, b)), ("bii->b", (a[:, :, :3],)), ("bij->jib", (a,)), ("bij,bij->", (a, a))):
        got = t.b.einsum(eq, *[t.tensor(o.astype(np.float32)) for o in ops])
        t.check(got, np.einsum(eq, *ops), f"einsum({eq!r})", dtype=DType(float, 32), scale=10)


@case("mul_matrix_batched_vector")
def _mul_matrix_batched_vector(t: Trial) -> None:
    """(rows, cols) matrix times (batch, cols) vectors."""
    a, b = t.uniform((3, 4)).astype(np.float32), t.uniform((2, 4)).astype(np.float32)
    t.check(t.b.mul_matrix_batched_vector(t.tensor(a), t.tensor(b)), b.astype(np.float64) @ a.T.astype(np.float64), "mul_matrix_batched_vector", dtype=DType(float, 32), scale=10)


@case("linear")
def _linear(t: Trial) -> None:
    """A dense matrix and a function as linear operators."""
    a, b = t.uniform((3, 3)).astype(np.float32), t.uniform((2, 3)).astype(np.float32)
    t.check(t.b.linear(t.tensor(a), t.tensor(b)), b.astype(np.float64) @ a.T, "linear(matrix, (2, 3))", scale=10)


@case("matrix_solve_least_squares")
def _lstsq(t: Trial) -> None:
    """Square and overdetermined systems against scipy.linalg.lstsq."""
    dtype = _float(t)
    for rows in (3, 5):
        m, rhs = t.uniform((2, rows, 3)).astype(dtype), t.uniform((2, rows, 2)).astype(dtype)
        got = t.b.matrix_solve_least_squares(t.tensor(m), t.tensor(rhs))
        expected = np.stack([sla.lstsq(m[i], rhs[i])[0] for i in range(2)])
        t.check(got[0], expected, f"matrix_solve_least_squares(({rows}, 3))", dtype=DType(float, int(dtype[-2:])), scale=1000, inputs={"matrix": m})


def _triangular(t: Trial, feature: str) -> None:
    dtype = _float(t)
    m = np.tril(t.uniform((2, 3, 3))) + 3 * np.eye(3)
    rhs = t.uniform((2, 3))
    for lower in (True, False):
        for unit in (False, True):
            mat = (m if lower else np.swapaxes(m, 1, 2)).astype(dtype)
            got = getattr(t.b, feature)(t.tensor(mat), t.tensor(rhs.astype(dtype)), lower, unit)
            expected = np.stack([sla.solve_triangular(mat[i], rhs[i], lower=lower, unit_diagonal=unit) for i in range(2)])
            t.check(got, expected, f"{feature}(lower={lower}, unit_diagonal={unit})", dtype=float, scale=1000)


@case("solve_triangular_dense")
def _solve_triangular_dense(t: Trial) -> None:
    """Lower/upper, unit diagonal or not, batched."""
    _triangular(t, "solve_triangular_dense")


@case("solve_triangular")
def _solve_triangular(t: Trial) -> None:
    """Dispatch for dense matrices."""
    _triangular(t, "solve_triangular")


@case("matrix_rank_dense")
def _matrix_rank(t: Trial) -> None:
    """Full and deficient ranks."""
    m = np.stack([np.eye(3), np.outer([1.0, 2, 3], [1.0, 0, 1]), np.diag([1.0, 1, 0])]).astype(_float(t))
    t.check(t.b.matrix_rank_dense(t.tensor(m)), np.linalg.matrix_rank(m), "matrix_rank_dense", dtype=int)


@case("eigvals")
def _eigvals(t: Trial) -> None:
    """Eigenvalues of symmetric matrices (real), compared as sorted values."""
    a = t.uniform((2, 3, 3))
    m = (a + np.swapaxes(a, 1, 2)).astype(_float(t))
    got = np.sort(np.real(t.to_numpy(t.b.eigvals(t.tensor(m)))), -1)
    t.compare(got, np.sort(np.linalg.eigvalsh(m.astype(np.float64)), -1), "eigvals(symmetric (2, 3, 3))", DType(float, 32), scale=100)


@case("eig")
def _eig(t: Trial) -> None:
    """A v = lambda v for every returned pair."""
    a = t.uniform((2, 3, 3))
    m = (a + np.swapaxes(a, 1, 2)).astype(_float(t))
    values, vectors = t.b.eig(t.tensor(m))
    lam, vec = t.to_numpy(values), t.to_numpy(vectors)
    residual = np.einsum("bij,bjk->bik", m, vec) - vec * lam[:, None, :]
    t.compare(np.abs(residual), np.zeros(residual.shape), "eig: A v - lambda v", DType(float, 32), scale=100)


@case("svd")
def _svd(t: Trial) -> None:
    """U S Vh reconstructs the matrix; singular values match NumPy."""
    m = t.uniform((2, 4, 3)).astype(_float(t))
    for full in (True, False):
        u, s, vh = (t.to_numpy(r) for r in t.b.svd(t.tensor(m), full))
        t.compare(s, np.linalg.svd(m, compute_uv=False), f"svd(full_matrices={full}) singular values", DType(float, 32), 100)
        k = s.shape[-1]
        rebuilt = np.einsum("bik,bk,bkj->bij", u[..., :k], s, vh[..., :k, :])
        t.compare(rebuilt, m, f"svd(full_matrices={full}) U S Vh", DType(float, 32), 100)
        t.expect(u.shape == ((2, 4, 4) if full else (2, 4, 3)), "svd", f"U has shape {u.shape}")


@case("fft")
def _fft(t: Trial) -> None:
    """1-D and 2-D FFT of real and complex inputs over chosen axes."""
    x = t.uniform((2, 4, 6, 1))
    for axes in ((1,), (1, 2)):
        for dtype in (_float(t), "complex64"):
            xs = (x + (0.5j * x if dtype.startswith("complex") else 0)).astype(dtype)
            got = t.b.fft(t.tensor(xs), axes)
            t.check(got, np.fft.fftn(xs, axes=axes), f"fft({dtype} (2, 4, 6, 1), axes={axes})", dtype=complex, scale=100)


@case("ifft")
def _ifft(t: Trial) -> None:
    """Inverse FFT; ifft(fft(x)) == x."""
    k = (t.uniform((2, 4, 6)) + 1j * t.uniform((2, 4, 6))).astype("complex64")
    for axes in ((1,), (1, 2)):
        t.check(t.b.ifft(t.tensor(k), axes), np.fft.ifftn(k, axes=axes), f"ifft(complex64, axes={axes})", dtype=complex, scale=100)


def _conv_ref(value: np.ndarray, kernel: np.ndarray, same: bool) -> np.ndarray:
    batch = value.shape[0]
    out = []
    for b in range(batch):
        kb = kernel[min(b, kernel.shape[0] - 1)]
        out.append(np.stack([sum(signal.correlate(value[b, i], kb[o, i], mode="same" if same else "valid") for i in range(value.shape[1])) for o in range(kb.shape[0])]))
    return np.stack(out)


@case("conv")
def _conv(t: Trial) -> None:
    """1-D and 2-D cross-correlation, 'same' and 'valid', with shared or batched kernels."""
    for spatial, kshape in (((7,), (3,)), ((5, 6), (3, 3))):
        value = t.uniform((2, 2, *spatial)).astype(np.float32)
        for kbatch in (1, 2):
            kernel = t.uniform((kbatch, 3, 2, *kshape)).astype(np.float32)
            for same in (True, False):
                got = t.b.conv(t.tensor(value), t.tensor(kernel), same)
                t.check(got, _conv_ref(value.astype(np.float64), kernel.astype(np.float64), same), f"conv({value.shape}, {kernel.shape}, zero_padding={same})", dtype=DType(float, 32), scale=20)


_EXTRAPOLATION = {"zeros": ("grid-constant", 0.0), "boundary": ("nearest", 0.0), "periodic": ("grid-wrap", 0.0), "symmetric": ("reflect", 0.0), "reflect": ("mirror", 0.0)}


def _grid_sample_mode(mode: str) -> None:
    @case("grid_sample", name=mode)
    def run(t: Trial) -> None:
        grid = t.uniform((1, 4, 5, 2)).astype(np.float32)
        coords = np.array([[[0.0, 0.0], [1.5, 2.25], [3.0, 4.0], [2.7, 0.3]]], np.float32)
        if mode != "undefined":
            coords = np.concatenate([coords, np.array([[[-0.5, 1.0], [4.5, 5.5]]], np.float32)], 1)
        result = t.b.grid_sample(t.tensor(grid), t.tensor(coords), mode)
        if result is NotImplemented and mode not in ("undefined", "zeros"):
            raise SkipCase(f"grid_sample extrapolation {mode!r} returned NotImplemented (allowed by the reference)")
        result = t.implemented(result)
        scipy_mode = _EXTRAPOLATION.get(mode, ("nearest", 0.0))[0]
        expected = np.stack([ndimage.map_coordinates(grid[0, ..., c].astype(np.float64), coords[0].T, order=1, mode=scipy_mode) for c in range(2)], -1)[None]
        t.check(result, expected, f"grid_sample(extrapolation={mode!r})", dtype=DType(float, 32), inputs={"coordinates": coords}, scale=10)


for _mode in ("undefined", *_EXTRAPOLATION):
    _grid_sample_mode(_mode)
