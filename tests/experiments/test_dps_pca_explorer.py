"""The DPS-PCA chapter's dashboard twin (:func:`dps_pca_explorer`): its fast path is the algorithm.

The twin runs every seed's iterations in lock step, with each seed's start and standard noise draws
cached across ε, δ, T-independent noiseless trajectories and N providers folded into one noise
scale.  These tests rebuild the trajectories the straightforward way — one
:func:`~privpca_edu.estimators.dps_pca.run_dps_pca` per seed, exactly as ``DPSPCA(random_state=seed)``
runs it, N providers' shares and all — and require the same numbers bit for bit.
"""

import math

import numpy as np
import pytest

from privpca_edu._validation import as_generator
from privpca_edu.estimators._power import initial_basis
from privpca_edu.estimators.dps_pca import run_dps_pca
from privpca_edu.experiments import dps_pca as ex
from privpca_edu.privacy import dps_pca_sigma
from privpca_edu.subspace import _sin_theta

pytestmark = pytest.mark.filterwarnings("ignore:per-step epsilon/T")

BOOK = dict(n_samples=20_000, n_features=200, n_components=5, support_size=10)


def _straightforward(epsilon, delta, sparsity, n_iter, n_providers, threshold_init, calibration, n_seeds):
    scatter, n, truth, _ = ex.model_scatter(BOOK["n_samples"], BOOK["n_features"], BOOK["n_components"],
                                            BOOK["support_size"], 0)
    columns = np.ascontiguousarray(truth.T)  # truth is (k, d); the iterates are (d, k)
    d, k = columns.shape
    sizes = np.full(n_providers, n // n_providers)
    sizes[: n - sizes.sum()] += 1

    def runs(sigma, providers, sizes):
        out = np.empty((n_seeds, n_iter + 1))
        for seed in range(n_seeds):
            rng = as_generator(seed)
            Q1 = initial_basis("random", d, k, sparsity, threshold_init, rng)
            history, _ = run_dps_pca([scatter / providers] * providers, sizes, Q1, sparsity, n_iter, sigma,
                                     random_state=rng, total_scatter=scatter)
            out[seed] = [_sin_theta(Q, columns) for Q in history]
        return out

    private = runs(dps_pca_sigma(epsilon, delta, n_iter, method=calibration), n_providers, sizes)
    nonprivate = ex.trajectories(scatter, n, truth, epsilon=math.inf, delta=0.5, sparsity=sparsity, n_iter=n_iter,
                                 seeds=range(n_seeds), threshold_init=threshold_init).mean(axis=0)
    return private, nonprivate


@pytest.mark.parametrize("epsilon, delta, sparsity, n_iter, n_providers, threshold_init, calibration", [
    (2.0, 1e-5, 20, 10, 1, False, "paper"),  # the book's defaults
    (5.0, 1e-3, 20, 4, 10, True, "analytic_exact"),
    (0.3, 0.3, 150, 6, 1, False, "classic"),  # ŝ > d/2: dense products throughout
    (2.0, 0.1, 200, 3, 2, False, "zcdp"),  # ŝ = d: no truncation
    (math.inf, 0.3, 12, 5, 1, True, "paper"),
])
def test_explorer_is_dps_pca_seed_by_seed(epsilon, delta, sparsity, n_iter, n_providers, threshold_init,
                                          calibration):
    ex.clear_caches()
    r = ex.dps_pca_explorer(epsilon, delta, sparsity, n_iter, n_providers, threshold_init, calibration, n_seeds=3)
    private, nonprivate = _straightforward(epsilon, delta, sparsity, n_iter, n_providers, threshold_init,
                                           calibration, 3)
    assert np.array_equal(r["runs"], private)
    assert np.array_equal(r["mean"], private.mean(axis=0))
    assert np.array_equal(r["nonprivate"], nonprivate)


def test_noiseless_trajectory_is_cached_across_T():
    # σ = 0: the first T steps do not depend on how many follow, so moving T down reuses a longer
    # run's prefix, and moving it up extends the cache — the same numbers either way.
    ex.clear_caches()
    first = ex.dps_pca_explorer(n_iter=7, n_seeds=3)["nonprivate"]
    longer = ex.dps_pca_explorer(n_iter=12, n_seeds=3)["nonprivate"]  # continues the cached run
    short = ex.dps_pca_explorer(n_iter=5, n_seeds=3)["nonprivate"]  # a prefix of it
    assert len(ex._NONPRIVATE) == 1 and ex._NONPRIVATE[next(iter(ex._NONPRIVATE))][0].shape == (3, 13)
    assert np.array_equal(longer, _straightforward(1.0, 0.3, 20, 12, 1, False, "paper", 3)[1])
    assert np.array_equal(short, _straightforward(1.0, 0.3, 20, 5, 1, False, "paper", 3)[1])
    assert np.array_equal(first, longer[:8])
