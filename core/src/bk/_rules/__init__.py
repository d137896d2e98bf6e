"""The rules of docs/semantics.md that need the data or a framework call, written once for every plugin.

The operation specs (`bk._specs`) decide what a call's result dtype and shape are, and which
mistakes raise which bk error, from the arguments' templates alone. A few rules cannot be
decided from templates: a comparison of an integer tensor with a Python int beyond its range, the
bounds of `clip`, integer division by zero, reductions of empty tensors, the indices of
`gather`, `unravel_index` and `quantile`. Their decisions live in this package, one module per
family, as functions of bk `DType`s and Python values (no framework import), and their
composites as functions of catalogue operations. A plugin's kernel calls them instead of
carrying its own copy; the core's plans (`bk._dispatcher`) call the same ones.
"""
