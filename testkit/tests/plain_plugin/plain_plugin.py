"""The light entry-point module of the plain plugin (imports neither NumPy nor the backend)."""

import bk


@bk.hookimpl
def bk_backends():
    return [
        bk.BackendSpec(name="plain", modules=("plainarr",), load="plain_backend:PlainBackend", priority=10),
        bk.BackendSpec(name="plainliar", modules=(), load="plain_backend:LiarBackend", priority=5),
    ]
