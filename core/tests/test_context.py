"""Context state: precision and default backend per thread and per asyncio task."""

from __future__ import annotations

import asyncio
import threading

import pytest

import bk
from bk import _context


@pytest.fixture(autouse=True)
def _reset_precision():
    yield
    bk.set_global_precision(None)


def test_precision_defaults_to_none():
    assert bk.get_precision() is None


@pytest.mark.parametrize("bits", [16, 32, 64, None])
def test_set_global_precision(bits):
    bk.set_global_precision(bits)
    assert bk.get_precision() == bits


@pytest.mark.parametrize("bad", [8, 128, "32", 32.0, True])
def test_invalid_precision_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="precision must be 16, 32, 64 or None"):
        bk.set_global_precision(bad)
    with pytest.raises(ValueError, match="precision must be 16, 32, 64 or None"), bk.precision(bad):
        pass


def test_precision_blocks_nest_and_restore():
    bk.set_global_precision(32)
    with bk.precision(64):
        assert bk.get_precision() == 64
        with bk.precision(16):
            assert bk.get_precision() == 16
        assert bk.get_precision() == 64
    assert bk.get_precision() == 32


class _Dummy(bk.Backend):
    """A backend that only needs to exist for `with backend:` blocks."""

    def __init__(self, name: str) -> None:
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "", name)
        super().__init__(name, [cpu], cpu)

    def is_tensor(self, x, only_native=False):
        return False

    def as_tensor(self, x, convert_external=True):
        return x

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        raise NotImplementedError

    def dtype(self, array):
        return bk.DType(float)

    def staticshape(self, tensor):
        return ()

    def cast(self, x, dtype):
        return x


def test_threads_see_only_their_own_with_blocks():
    backends = [_Dummy(f"b{i}") for i in range(4)]
    barrier = threading.Barrier(len(backends))
    seen: dict[int, list[object]] = {}

    def work(i: int) -> None:
        with backends[i], bk.precision((16, 32, 64, 64)[i]):
            barrier.wait()  # every thread is inside its own blocks at the same time
            seen[i] = [bk.context_backend(), bk.get_precision()]
            barrier.wait()
        seen[i].append(bk.context_backend())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(backends))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, backend in enumerate(backends):
        assert seen[i] == [backend, (16, 32, 64, 64)[i], None]
    assert bk.context_backend() is None


def test_asyncio_tasks_see_only_their_own_with_blocks():
    backends = [_Dummy(f"t{i}") for i in range(3)]

    async def task(i: int) -> tuple[object, object]:
        with backends[i], bk.precision((16, 32, 64)[i]):
            await asyncio.sleep(0.01)  # let the other tasks enter their blocks
            return bk.context_backend(), bk.get_precision()

    async def main() -> list[tuple[object, object]]:
        return await asyncio.gather(*(task(i) for i in range(3)))

    assert asyncio.run(main()) == [(backends[i], (16, 32, 64)[i]) for i in range(3)]


def test_with_blocks_must_exit_in_order():
    a, b = _Dummy("a"), _Dummy("b")
    a.__enter__()
    b.__enter__()
    with pytest.raises(RuntimeError, match="exited in the order"):
        a.__exit__(None, None, None)
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)
    assert _context.BACKEND_STACK.get() == ()


def test_backend_float_type_follows_precision():
    backend = _Dummy("p")
    assert backend.float_type == bk.DType(float, 32)
    assert backend.complex_type == bk.DType(complex, 64)
    with bk.precision(64):
        assert backend.float_type == bk.DType(float, 64)
        assert backend.complex_type == bk.DType(complex, 128)
    with bk.precision(16):
        assert backend.combine_types(bk.DType(float, 64), bk.DType(int, 32)) == bk.DType(float, 16)
