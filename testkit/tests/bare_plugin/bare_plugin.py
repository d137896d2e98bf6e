"""The light entry-point module of the bare plugin (imports neither array-api-strict nor the backend)."""

import bk


@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="bare", modules=("array_api_strict",), load="bare_backend:BareBackend", priority=10)]
