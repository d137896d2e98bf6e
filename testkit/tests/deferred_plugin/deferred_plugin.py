"""The light entry-point module of the deferred plugin (imports neither NumPy nor the backend)."""

import bk


@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="deferred", modules=("deferredarr",), load="deferred_backend:DeferredBackend", priority=10)]
