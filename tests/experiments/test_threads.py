"""experiments._threads: the two-thread helpers keep each item's warnings with the item."""

import warnings

import numpy as np

from privpca_edu.experiments._threads import in_parallel, map_with_warnings


def test_map_with_warnings_keeps_each_items_warnings():
    def work(i):
        warnings.warn(f"item {i}", UserWarning)
        if i % 2:
            warnings.warn(f"odd {i}", RuntimeWarning)
        return np.linalg.eigh(np.eye(20) * i)[0].sum()

    out = map_with_warnings(work, range(6))
    assert [r for r, _ in out] == [20.0 * i for i in range(6)]
    assert [m for _, m in out] == [[f"item {i}"] + ([f"odd {i}"] if i % 2 else []) for i in range(6)]
    assert in_parallel(lambda: 1, lambda: 2) == (1, 2)
