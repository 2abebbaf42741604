"""The rank-one compression step under the Gibbs sampler: LAPACK's secular-equation solver
(dlaed9) with ρ → ∞ gives the eigenpairs of a diagonal matrix compressed to z⊥."""

import numpy as np
import pytest
from scipy import linalg

from privpca_edu.estimators import _compression

needs_dlaed9 = pytest.mark.skipif(_compression.DLAED9 is None, reason="LAPACK dlaed9 not reachable through SciPy")


def test_dlaed9_is_reachable_through_scipy():
    # Not a skip: the fallback (one dense eigendecomposition per column) is correct but 1.6x slower
    # at d = 200 and 1.9x at d = 400 (PPCA, k = 5), so a SciPy that stops exposing dlaed9 in
    # scipy.linalg.cython_lapack must be noticed here, not by a slower book.
    assert _compression.DLAED9 is not None


def _dense_compression(poles, z):
    N = linalg.null_space(z[None, :])
    lam, U = linalg.eigh(N.T @ np.diag(poles) @ N)
    return lam, N @ U


@needs_dlaed9
@pytest.mark.parametrize("K", [1, 2, 3, 10, 150])
@pytest.mark.parametrize("zeros", [0, 1, 5])
def test_compression_step_matches_a_dense_eigendecomposition(K, zeros):
    rng = np.random.default_rng(K + 100 * zeros)
    poles = np.sort(rng.standard_normal(K)) * 10.0
    z = rng.standard_normal(K)
    z[rng.permutation(K)[: min(zeros, K - 1)]] = 0.0  # deflated coordinates: z_i = 0
    z /= np.linalg.norm(z)
    lam, step = _compression.compress(poles, z)
    F = step.to_old(np.eye(K - 1))  # the new basis in the old coordinates
    ref, _ = _dense_compression(poles, z)
    assert lam.shape == (K - 1,) and np.all(np.diff(lam) >= 0)
    np.testing.assert_allclose(lam, ref, atol=1e-11)
    np.testing.assert_allclose(F.T @ F, np.eye(K - 1), atol=1e-13)  # orthonormal,
    np.testing.assert_allclose(F.T @ z, 0.0, atol=1e-14)  # in z⊥,
    np.testing.assert_allclose(F.T @ np.diag(poles) @ F, np.diag(lam), atol=1e-11)  # diagonalising
    x = rng.standard_normal((K, 2))
    np.testing.assert_allclose(step.to_new(x), F.T @ x, atol=1e-13)


@needs_dlaed9
def test_compression_step_refuses_repeated_poles():
    poles = np.array([0.0, 1.0, 1.0, 3.0])
    assert _compression.compress(poles, np.full(4, 0.5)) is None
    # unless z does not touch one of them (then it is deflated and the rest is fine)
    lam, _ = _compression.compress(poles, np.array([0.6, 0.0, 0.64, 0.48]))
    np.testing.assert_allclose(lam, _dense_compression(poles, np.array([0.6, 0.0, 0.64, 0.48]))[0], atol=1e-13)


@needs_dlaed9
def test_compression_step_with_poles_that_differ_only_by_rounding():
    # A rank-deficient A (n < d rows of data) has a cluster of eigenvalues ≈ 0 that differ only
    # by rounding (gaps down to 1e-19 here).  They are distinct, so LAPACK's root finder and
    # Gu–Eisenstat's eigenvectors apply: the basis stays orthonormal and diagonalising.
    rng = np.random.default_rng(7)
    poles = np.sort(np.concatenate([1e-16 * rng.standard_normal(60), [1.0, 4.0, 9.0]]))
    assert np.diff(poles).min() < 1e-18
    z = rng.standard_normal(poles.size)
    z /= np.linalg.norm(z)
    lam, step = _compression.compress(poles, z)
    F = step.to_old(np.eye(poles.size - 1))
    np.testing.assert_allclose(F.T @ F, np.eye(poles.size - 1), atol=1e-12)
    np.testing.assert_allclose(F.T @ z, 0.0, atol=1e-14)
    np.testing.assert_allclose(F.T @ np.diag(poles) @ F, np.diag(lam), atol=1e-14)
    np.testing.assert_allclose(lam, _dense_compression(poles, z)[0], atol=1e-14)
