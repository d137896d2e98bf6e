"""The light entry-point module of the narrow plugin (imports neither NumPy nor the backend)."""

import bk


@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="narrow", modules=("narrowarr",), load="narrow_backend:NarrowBackend", priority=10)]
