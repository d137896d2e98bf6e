"""Loops of gathers and `where` on lazy arrays build graphs that grow linearly in the number of calls
(each step adds the same nodes, whatever came before), and compute to NumPy's answer."""

from __future__ import annotations

from typing import Any

import numpy as np

import bk


def _nodes(root: Any) -> int:
    """Distinct nodes of the graph of `root` (shared nodes counted once)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(node.deps)
    return len(seen)


def test_a_loop_of_gathers_and_where_adds_the_same_nodes_each_step() -> None:
    xp = bk.array_namespace("lazy")
    values = np.sort(np.random.default_rng(0).uniform(0, 1, (4, 50)), axis=-1)
    x = xp.asarray(values)
    picks = xp.asarray(np.zeros((4, 5), np.int64))
    counts = []
    for _ in range(16):
        found = xp.take_along_axis(x, picks, axis=-1)
        picks = xp.where(found < 0.5, (picks + 1) % 50, picks)
        counts.append(_nodes(picks))
    steps = np.diff(counts)
    assert steps.min() == steps.max() > 0, f"nodes added per step: {steps.tolist()}"
    expected = np.zeros((4, 5), np.int64)
    for _ in range(16):
        expected = np.where(np.take_along_axis(values, expected, axis=-1) < 0.5, (expected + 1) % 50, expected)
    np.testing.assert_array_equal(np.asarray(bk.backend("lazy").numpy(picks)), expected)


def test_a_binary_search_grows_with_its_rounds_only() -> None:
    """array-api-extra's batched searchsorted (log2(n) rounds of take_along_axis and where): the
    nodes per round are the same for n = 64 and n = 4096."""
    xp = bk.array_namespace("lazy")
    per_round = {}
    for n in (64, 4096):
        rng = np.random.default_rng(n)
        sorted_rows = np.sort(rng.uniform(0, 1, (3, n)), axis=-1)
        targets = rng.uniform(0, 1, (3, 5))
        x1, x2 = xp.asarray(sorted_rows), xp.asarray(targets)
        a = xp.zeros((3, 5), dtype=xp.int64)
        b = xp.full((3, 5), n, dtype=xp.int64)
        rounds = int(np.log2(n)) + 1
        start = _nodes(b) + _nodes(a)
        for _ in range(rounds):
            c = (a + b) // 2
            j = x2 <= xp.take_along_axis(x1, xp.minimum(c, n - 1), axis=-1)
            b = xp.where(j, c, b)
            a = xp.where(j, a, c)
        per_round[n] = (_nodes(b) - start) / rounds
        expected = np.stack([np.searchsorted(row, t) for row, t in zip(sorted_rows, targets, strict=True)])
        np.testing.assert_array_equal(np.asarray(bk.backend("lazy").numpy(b)), expected)
    assert per_round[4096] <= per_round[64] + 1, per_round
