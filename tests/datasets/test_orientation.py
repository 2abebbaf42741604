"""Every true basis is (k, d), like an estimator's ``components_``, and a forgotten transpose raises.

The generators return ``components`` with one direction per row (scikit-learn's orientation).
Functions that read a basis in one orientation only refuse the other one by its shape instead of
computing a wrong number (``sin_theta`` on (k, d) rows would silently return 0).
"""

import numpy as np
import pytest

from privpca_edu import datasets, subspace_distance
from privpca_edu.datasets._ldp import ldp_spiked_covariance
from privpca_edu.experiments import dps_pca as dps_experiments
from privpca_edu.experiments import robust as robust_experiments
from privpca_edu.experiments.europe import similarity_scores
from privpca_edu.subspace import sin_theta

D, K = 12, 3

GENERATORS = {
    "spiked_sparse": lambda: datasets.spiked_sparse(200, D, K, 5, random_state=0),
    "spiked_sparse permuted": lambda: datasets.spiked_sparse(200, D, K, 5, permute=True, random_state=0),
    "spiked_sparse_scatter": lambda: datasets.spiked_sparse_scatter(200, D, K, 5, random_state=0),
    "ldp_spiked": lambda: datasets.ldp_spiked(200, D, K, random_state=0),
    "ldp_spiked sparse": lambda: datasets.ldp_spiked(200, D, K, support_size=5, random_state=0),
    "elliptical": lambda: datasets.elliptical(200, D, eigenvalues=(9.0, 5.0, 3.0), random_state=0),
    "elliptical contaminated": lambda: datasets.elliptical(200, D, family="contaminated",
                                                           eigenvalues=(9.0, 5.0, 3.0), random_state=0),
}


@pytest.mark.parametrize("name", GENERATORS)
def test_true_components_are_orthonormal_rows(name):
    data = GENERATORS[name]()
    V = data.components
    assert V.shape == (K, D) and data.n_components == K
    np.testing.assert_allclose(V @ V.T, np.eye(K), atol=1e-12)
    if data.covariance is not None and name.startswith(("spiked", "ldp")):
        # the rows are eigenvectors of Σ with the K leading eigenvalues
        np.testing.assert_allclose(data.covariance @ V.T, V.T * data.eigenvalues[:K], atol=1e-10)
    if data.support is not None:
        assert np.array_equal(np.flatnonzero(np.any(V != 0, axis=0)), data.support)


def test_ldp_spiked_model_matches_ldp_spiked():
    components, covariance, eigenvalues, support = datasets.ldp_spiked_model(D, K, support_size=5, random_state=4)
    data = datasets.ldp_spiked(50, D, K, support_size=5, random_state=4)
    assert components.shape == (K, D)
    np.testing.assert_array_equal(components, data.components)  # V is drawn first, from the same stream
    np.testing.assert_array_equal(covariance, data.covariance)
    np.testing.assert_array_equal(support, data.support)


def test_elliptical_helpers_are_rows():
    V = datasets.spike_directions(D, K)
    assert V.shape == (K, D)
    np.testing.assert_allclose(V @ V.T, np.eye(K), atol=1e-15)
    u = datasets.outlier_direction(V)
    assert u.shape == (D,) and np.linalg.norm(u) == pytest.approx(1.0)
    np.testing.assert_allclose(V @ u, 0.0, atol=1e-15)
    assert np.array_equal(datasets.elliptical(5, D, eigenvalues=(9.0, 5.0, 3.0), random_state=0).components, V)


def test_europe_components_are_rows():
    data = datasets.europe()
    assert data.components.shape == (2, 20)
    np.testing.assert_allclose(data.nonprivate_pcs, data.X @ data.components.T)


# ---------------------------------------------------------------------------------- wrong orientation
def test_a_forgotten_transpose_raises():
    data = datasets.spiked_sparse(200, D, K, 5, random_state=0)
    rows, columns = data.components, data.components.T
    with pytest.raises(ValueError, match="column bases"):
        sin_theta(rows, rows)  # the bare formula would return 0 for any two (k, d) bases
    assert sin_theta(columns, columns) == pytest.approx(0.0, abs=1e-14)
    with pytest.raises(ValueError, match=r"\(k, d\)"):
        datasets.outlier_direction(columns)
    with pytest.raises(ValueError, match="components must be a"):
        ldp_spiked_covariance(D, columns, 1.0)
    scatter = data.X.T @ data.X
    with pytest.raises(ValueError, match="one direction per row"):
        dps_experiments.trajectories(scatter, 200, columns, epsilon=1.0, delta=0.1, sparsity=5, n_iter=2, seeds=[0])
    with pytest.raises(ValueError, match="one direction per row"):
        robust_experiments.method_losses(data.X, columns, methods=("AG",))
    with pytest.raises(ValueError, match=r"shape \(2, 12\)"):
        similarity_scores(rows[:2].T[:5], data.X, rows[:2], np.zeros((200, 2)))


def test_square_bases_are_not_ambiguous():
    # k = d: either reading spans R^d, so every distance is 0 and nothing depends on orientation
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    for kind in ("sin_theta", "projection", "max_angle"):
        assert subspace_distance(Q, Q.T, kind=kind) == pytest.approx(0.0, abs=1e-12)
    assert sin_theta(Q, Q.T) == pytest.approx(0.0, abs=1e-12)
    # non-square: both orientations of the same basis are read as the same subspace
    V = datasets.spiked_sparse(50, D, K, 5, random_state=1).components
    assert subspace_distance(V, V.T) == pytest.approx(0.0, abs=1e-12)
    assert subspace_distance(V, datasets.spike_directions(D, K)) > 0.5
