"""The pair-once speed layer of the Kendall's τ matrix against the reference that reads like the definition.

Tolerance: 1e-12 relative to max|K̂|.  Both compute the same sum of n(n−1)/2 terms of size ≤ ‖g‖∞²
in double precision; the Laplacian form subtracts quantities of size ~n·‖g‖∞²·max‖x‖² per row, so
its rounding error is a few ulps of those, ~1e-15 relative at these sizes (measured ≤ 1e-14),
far inside 1e-12.  A missing or doubled pair moves an entry by ≥ 2/(n(n−1))·min‖g‖² ≫ 1e-12.
"""

import numpy as np
import pytest

from privpca_edu.estimators import _kendall_pairs
from privpca_edu.estimators.kendall import kendall_tau_matrix, kendall_tau_naive, spatial_sign

RTOL = 1e-12


def _rel(K, ref):
    return np.max(np.abs(K - ref)) / np.max(np.abs(ref))


@pytest.mark.parametrize("kind", ["spherical", "winsorized"])
@pytest.mark.parametrize(("n", "d", "block_size"), [(2, 3, None), (97, 4, None), (300, 6, None), (300, 6, 7),
                                                     (301, 2, 64), (150, 12, 150)])
def test_pair_once_equals_the_definition(kind, n, d, block_size):
    X = np.random.default_rng(n + d).standard_t(2.0, size=(n, d)) * np.linspace(3, 0.5, d) + 5.0
    ref = kendall_tau_naive(X, kind, radius=1.5)
    K = kendall_tau_matrix(X, kind, radius=1.5, block_size=block_size)
    assert _rel(K, ref) <= RTOL
    np.testing.assert_array_equal(K, K.T)


def test_each_pair_counted_once_with_multiplicities_and_near_duplicates():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 5))
    X = np.vstack([X, X[:10], X[5:7] + 1e-9, np.tile(X[30], (3, 1))])
    ref = kendall_tau_naive(X, "winsorized", radius=1.0, method="pair_loop")
    for block_size in (None, 1, 5, 64):
        assert _rel(kendall_tau_matrix(X, "winsorized", radius=1.0, block_size=block_size), ref) <= RTOL


def test_the_raw_pair_sum_is_the_sum_over_unordered_pairs():
    # without normalisation: Σ_{i<j} g gᵀ, so a doubled pair would show as a factor 2
    X = np.random.default_rng(5).standard_normal((40, 3))
    L = _kendall_pairs.pair_sum(X, None, "spherical", 1.0, 8, block_entries=1 << 22, near_rtol=1e-6,
                                sign=spatial_sign)
    n = len(X)
    direct = sum(np.outer(g, g) for i in range(n) for g in spatial_sign(X[i] - X[i + 1:], "spherical", 1.0))
    assert _rel(L, direct) <= RTOL
    assert _kendall_pairs.default_block_rows(4000, 1 << 22) == 500   # ≥ 8 blocks: the waste stays ≤ 1/16
    assert _kendall_pairs.default_block_rows(20_000, 1 << 22) == 209  # ≤ 2²² numbers per block
