"""One backend-agnostic program, run unchanged on every installed backend.

It diffuses a heat pulse on a periodic 1-D grid with an explicit finite-difference stencil and
reports the total heat (conserved) and the peak temperature. Only `bk` operations are used, so
the same code runs on NumPy, PyTorch, JAX, TensorFlow or any third-party backend.
"""

from __future__ import annotations

import time

import bk

NEEDED = ("linspace", "exp", "pad", "sum", "max", "mul", "add", "sub")


def diffuse(b: bk.Backend, steps: int = 200, n: int = 256) -> tuple[float, float]:
    """Total heat and peak temperature after `steps` explicit diffusion steps on backend `b`."""
    x = b.linspace(0.0, 1.0, n)
    u = b.exp(b.mul(b.mul(b.sub(x, 0.5), b.sub(x, 0.5)), -200.0))
    alpha = 0.25  # dt * diffusivity / dx², stable below 0.5
    for _ in range(steps):
        padded = b.pad(u, [(1, 1)], mode="periodic")
        laplace = b.sub(b.add(padded[2:], padded[:-2]), b.mul(u, 2.0))
        u = b.add(u, b.mul(laplace, alpha))
    return float(b.numpy(b.sum(u))), float(b.numpy(b.max(u)))


def main() -> None:
    print(f"\nbk {bk.__version__}: one program on every installed backend\n")
    print(f"{'backend':<10} {'total heat':>12} {'peak':>10} {'time':>9}")
    results = {}
    for name in bk.backends():
        try:
            backend = bk.backend(name)
        except Exception as error:
            print(f"{name:<10} cannot load: {error}")
            continue
        missing = [f for f in NEEDED if not backend.supports(f)]
        if missing:
            print(f"{name:<10} skipped: does not support {', '.join(missing)}")
            continue
        diffuse(backend, steps=2)  # warm-up (first calls may compile or allocate)
        start = time.perf_counter()
        total, peak = diffuse(backend)
        results[name] = (total, peak)
        print(f"{name:<10} {total:>12.6f} {peak:>10.6f} {1e3 * (time.perf_counter() - start):>7.1f} ms")
    if len(results) > 1:
        totals = [r[0] for r in results.values()]
        spread = max(totals) - min(totals)
        print(f"\nall backends agree to {spread:.2e} on the total heat")


if __name__ == "__main__":
    main()
