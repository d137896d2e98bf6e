"""Devices of `bk.array_namespace` on every installed backend: the namespace lists, reports and accepts
each device as the namespace's own arrays spell it (issue 32)."""

from __future__ import annotations

import numpy as np
import pytest

import bk

CREATION = {
    "asarray": lambda xp, d: xp.asarray([1.0, 2.0], device=d),
    "zeros": lambda xp, d: xp.zeros((2,), device=d),
    "ones": lambda xp, d: xp.ones(2, device=d),
    "empty": lambda xp, d: xp.empty(2, device=d),
    "full": lambda xp, d: xp.full(2, 3.0, device=d),
    "arange": lambda xp, d: xp.arange(3, dtype=xp.int32, device=d),  # strict has a device without 64-bit types
    "linspace": lambda xp, d: xp.linspace(0.0, 1.0, 3, device=d),
    "eye": lambda xp, d: xp.eye(2, device=d),
    "zeros_like": lambda xp, d: xp.zeros_like(xp.ones(2), device=d),
    "ones_like": lambda xp, d: xp.ones_like(xp.ones(2), dtype=xp.int32, device=d),
    "full_like": lambda xp, d: xp.full_like(xp.ones(2), 1.0, device=d),
    "empty_like": lambda xp, d: xp.empty_like(xp.ones(2), device=d),
    "astype": lambda xp, d: xp.astype(xp.ones(2), xp.int32, device=d),
}


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def test_devices_and_default_are_what_arrays_report(xp) -> None:
    info = xp.__array_namespace_info__()
    reported = xp.device(xp.asarray([1.0, 2.0]))
    assert _same(info.default_device(), reported)
    assert any(_same(reported, d) for d in info.devices())
    assert _same(xp.device(xp.zeros(3)), reported)
    native = getattr(xp.asarray([1.0]), "device", None)
    if native is not None:  # arrays that carry their device agree with device(x)
        assert _same(native, reported)


@pytest.mark.parametrize("function", sorted(CREATION))
def test_every_device_argument_takes_every_listed_device(xp, function: str) -> None:
    for device in xp.__array_namespace_info__().devices():
        result = CREATION[function](xp, device)
        assert _same(xp.device(result), device)


def test_an_arrays_own_device_is_accepted(xp) -> None:
    x = xp.asarray([1.0, 2.0])
    for device in (xp.device(x), getattr(x, "device", None)):
        if device is None:
            continue
        y = xp.asarray(x, device=device)
        assert y is x  # already there: no copy
        assert _same(xp.device(xp.zeros_like(x, device=device)), xp.device(x))
        info = xp.__array_namespace_info__()
        assert info.dtypes(device=device) == info.dtypes() and info.default_dtypes(device=device) == info.default_dtypes()


def test_to_device_of_its_own_device_is_a_no_op(xp) -> None:
    x = xp.asarray([1.0, 2.0])
    assert xp.to_device(x, xp.device(x)) is x
    for device in xp.__array_namespace_info__().devices():
        assert _same(xp.device(xp.to_device(x, device)), device)
    with pytest.raises(ValueError, match="to_device"):
        xp.to_device(x, xp.device(x), stream=1)


def test_other_devices_are_refused_with_the_function_named(xp) -> None:
    with pytest.raises(ValueError, match=r"^zeros: 'nowhere' is not a device of the .* namespace; its devices are"):
        xp.zeros(2, device="nowhere")
    with pytest.raises(ValueError, match=r"^asarray: "):
        xp.asarray([1.0], device="gpu:99")
    with pytest.raises(ValueError, match=r"^dtypes: "):
        xp.__array_namespace_info__().dtypes(device="nowhere")
    with pytest.raises(TypeError, match=r"^device: expected an array"):
        xp.device([1.0, 2.0])


def test_tensorflow_takes_each_spelling_of_its_devices() -> None:
    if "tf" not in bk.backends():
        pytest.skip("bk-tf is not installed")
    import tensorflow as tf

    xp = bk.array_namespace("tf")
    x = tf.constant([1.0, 2.0])
    assert xp.device(x) == x.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    for spelling in (x.device, "/device:CPU:0", "/CPU:0", "CPU:0", "cpu:0", "/cpu:0", "CPU", tf.DeviceSpec(device_type="CPU")):
        y = xp.asarray(x, device=spelling)
        assert y is x and xp.device(xp.ones(2, device=spelling)) == x.device
    with pytest.raises(ValueError, match="is not a device"):
        xp.ones(2, device="/job:worker/replica:0/task:1/device:CPU:0")  # another job's device


def test_torch_takes_each_spelling_of_its_devices() -> None:
    if "torch" not in bk.backends():
        pytest.skip("bk-torch is not installed")
    import torch

    xp = bk.array_namespace("torch")
    x = torch.ones(2)
    for spelling in (torch.device("cpu"), "cpu"):
        assert xp.asarray(x, device=spelling) is x and xp.zeros(2, device=spelling).device == torch.device("cpu")


@pytest.fixture(scope="session")
def dask_client():
    """One small LocalCluster (threads, no worker processes) for the tests that need a client."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def test_dask_follows_what_array_api_compat_says_of_its_arrays(dask_client) -> None:
    if "dask" not in bk.backends():
        pytest.skip("bk-dask is not installed")
    import array_api_compat
    import dask.array as da

    xp = bk.array_namespace("dask")
    x = da.ones(3, chunks=2)
    assert xp.device(x) == array_api_compat.device(x) == "cpu"
    assert xp.asarray(x, device="cpu") is x and xp.to_device(x, "cpu") is x
    with dask_client.as_current():  # with workers the arrays still say 'cpu': so does the namespace
        info = xp.__array_namespace_info__()
        assert info.devices() == ["cpu"] and info.default_device() == "cpu"
        y = xp.ones(2, device="cpu")
        np.testing.assert_array_equal(np.asarray(y), [1.0, 1.0])


def test_jax_under_jit_reports_and_takes_the_default_device() -> None:
    if "jax" not in bk.backends():
        pytest.skip("bk-jax is not installed")
    import jax

    xp = bk.array_namespace("jax")
    default = xp.__array_namespace_info__().default_device()
    seen = []

    @jax.jit
    def f(x):
        seen.append(xp.device(x))  # a tracer has no device of its own: the default one
        return xp.add(x, xp.ones(2, device=xp.device(x)))

    np.testing.assert_array_equal(np.asarray(f(jax.numpy.zeros(2))), [1.0, 1.0])
    assert seen == [default]
