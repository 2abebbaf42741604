"""PrivateLocalPCA: the Imtiaz & Sarwate chain baseline (Imtiaz & Sarwate 2018, as run by the DPDPCA paper)."""

import math
import warnings

import numpy as np
import pytest

from privpca_edu import PrivacyWarning
from privpca_edu.estimators.private_local import PrivateLocalPCA, local_summary
from privpca_edu.privacy import diagnostics, gaussian_sigma, symmetric_noise
from privpca_edu.protocol import PlaintextDPDPCA
from privpca_edu.subspace import top_eigenvectors


def unit_X(n=400, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(2.0, 0.2, d)
    return X / np.linalg.norm(X, axis=1).max()


def test_contract(check_sklearn_contract):
    check_sklearn_contract(PrivateLocalPCA, dict(n_components=2, epsilon=0.5, delta=1e-5, n_sites=4, random_state=0),
                           unit_X())
    check_sklearn_contract(PrivateLocalPCA, dict(n_components=3, epsilon=np.inf, delta=0.1), unit_X())


def test_chain_is_lossless_at_full_rank_without_noise():
    # K = M, every site full column rank → final P Pᵀ = Σ (X^l)ᵀX^l (prototype 1.2e-13).
    rng = np.random.default_rng(0)
    M = 6
    sites = [rng.normal(size=(10, M)) for _ in range(5)]
    est = PrivateLocalPCA(M, epsilon=np.inf, data_norm=100.0).fit(sites)
    P = est.summary_
    assert np.max(np.abs(P @ P.T - sum(S.T @ S for S in sites))) < 1e-8
    assert est.effective_rank_ == M and not est.privacy_.is_private


def test_chain_is_lossy_when_sites_hold_fewer_rows_than_features():
    rng = np.random.default_rng(1)
    M = 6
    sites = [rng.normal(size=(2, M)) for _ in range(5)]
    est = PrivateLocalPCA(M, epsilon=np.inf, data_norm=100.0).fit(sites)
    P = est.summary_
    assert np.linalg.norm(P @ P.T - sum(S.T @ S for S in sites)) > 1.0  # ≈ 4.3
    assert est.effective_rank_ == 2  # k' = max(k_l, rank P) never exceeds 2 here
    C = est.components_
    assert C.shape == (M, M)
    np.testing.assert_allclose(C @ C.T, np.eye(M), atol=1e-10)  # padded with orthogonal directions


def test_gaussian_noise_is_the_documented_symmetric_noise():
    # One site, K = M: P Pᵀ is the PSD part of XᵀX + E with E = symmetric_noise(M, σ) from the
    # same seed, σ = gaussian_sigma(√2 B², ε, δ) — the sampler and calibration audited elsewhere.
    X = unit_X(200, 4)
    eps, delta, B = 0.5, 1e-5, 1.0
    est = PrivateLocalPCA(4, epsilon=eps, delta=delta, random_state=3).fit(X)
    sigma = gaussian_sigma(math.sqrt(2) * B**2, eps, delta)
    assert est.noise_scale_ == pytest.approx(sigma)
    assert est.sensitivity_ == pytest.approx(math.sqrt(2))
    E = symmetric_noise(4, sigma, random_state=np.random.default_rng(3))
    w, V = np.linalg.eigh(X.T @ X + E)
    psd = (V * np.clip(w, 0, None)) @ V.T
    np.testing.assert_allclose(est.summary_ @ est.summary_.T, psd, atol=1e-9)
    assert est.privacy_.model == "distributed" and est.privacy_.is_private


def test_analytic_calibration():
    est = PrivateLocalPCA(1, epsilon=2.0, delta=1e-5, calibration="analytic", random_state=0).fit(unit_X())
    assert est.noise_scale_ == pytest.approx(gaussian_sigma(math.sqrt(2), 2.0, 1e-5, method="analytic"))


def test_wishart_option_warns_and_is_not_private():
    with pytest.warns(PrivacyWarning, match="retracted"):
        est = PrivateLocalPCA(2, epsilon=0.5, noise="wishart_retracted", n_sites=3, random_state=0).fit(unit_X())
    assert not est.privacy_.is_private and "not differentially private" in est.privacy_.note
    # the retracted noise is positive definite: every local matrix only grows (why it cannot be DP)
    C = unit_X(50).T @ unit_X(50)
    P, s = local_summary(C, 6)
    assert np.all(s >= 0)


def test_many_tiny_sites_capture_less_variance_than_dpdpca():
    # Small K, many tiny owners → the chain's captured variance
    # drops below DPDPCA's at the same (ε, δ).  Mean over 5 seeds; the gap is large (≈ 0.5 vs ≈ 1).
    rng = np.random.default_rng(0)
    n, d, K = 3000, 8, 2
    scales = np.r_[3.0, 2.0, np.full(d - 2, 0.3)]
    X = rng.normal(size=(n, d)) * scales
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc
    best = np.trace(top_eigenvectors(S, K)[1].T @ S @ top_eigenvectors(S, K)[1])

    def captured(U):
        return np.trace(U.T @ S @ U) / best

    sites = list(np.array_split(X, n // 2))  # 1500 sites with 2 rows each
    chain, dpd = [], []
    for seed in range(5):
        est = PrivateLocalPCA(K, epsilon=0.5, delta=1e-5, random_state=seed).fit(sites)
        chain.append(captured(est.components_.T))
        S_noisy = PlaintextDPDPCA(K, epsilon=0.5, delta=1e-5).release(sites, random_state=seed)
        dpd.append(captured(top_eigenvectors(S_noisy, K)[1]))
    assert np.mean(dpd) > 0.9
    assert np.mean(chain) < np.mean(dpd) - 0.2


def test_sites_from_list_or_split_and_determinism():
    X = unit_X()
    a = PrivateLocalPCA(2, epsilon=0.5, n_sites=4, random_state=5).fit(X)
    b = PrivateLocalPCA(2, epsilon=0.5, random_state=5).fit(list(np.array_split(X, 4)))
    np.testing.assert_array_equal(a.components_, b.components_)
    assert a.n_sites_ == 4 and a.site_sizes_.tolist() == [100, 100, 100, 100]
    assert len(a.site_seconds_) == 4 and a.chain_seconds_ >= 0


@pytest.mark.parametrize(
    "X,kwargs,err,match",
    [
        ([np.ones((3, 3)), np.ones((3, 2))], {}, ValueError, "same number of features"),
        ([np.ones((3, 3)), np.empty((0, 3))], {}, ValueError, r"X\[1\] must have at least 1 sample\(s\), got 0"),
        ([np.ones((3, 3)), np.full((2, 3), np.nan)], {}, ValueError, "NaN"),
        (np.ones((5, 3)), dict(noise="laplace"), ValueError, "noise"),
        (np.ones((5, 3)), dict(calibration="paper"), ValueError, "calibration"),
        (np.ones((5, 3)), dict(n_sites=6), ValueError, "n_sites"),
        (np.ones((5, 3)), dict(n_components=4), ValueError, "n_components"),
        (np.ones((5, 3)), dict(epsilon=0.0), ValueError, "epsilon"),
    ],
)
def test_bad_input(X, kwargs, err, match):
    params = dict(n_components=1, epsilon=0.5)
    params.update(kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        with pytest.raises(err, match=match):
            PrivateLocalPCA(**params).fit(X)


def test_clipping_warns_only_with_diagnostics():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)  # by default a private fit says nothing data-dependent
        assert PrivateLocalPCA(1, epsilon=0.5, random_state=0).fit(np.full((4, 3), 2.0)).privacy_.is_private
    with diagnostics(), pytest.warns(PrivacyWarning, match="scaled down"):
        est = PrivateLocalPCA(1, epsilon=0.5, random_state=0).fit(np.full((4, 3), 2.0))
    assert not est.privacy_.is_private


@pytest.mark.parametrize("noise", ["gaussian", "wishart_retracted"])
def test_fit_never_touches_global_numpy_state(noise):
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        a = PrivateLocalPCA(2, epsilon=0.5, noise=noise, n_sites=3, random_state=4).fit(unit_X())
        b = PrivateLocalPCA(2, epsilon=0.5, noise=noise, n_sites=3, random_state=4).fit(unit_X())
    assert np.array_equal(np.random.get_state()[1], before)
    np.testing.assert_array_equal(a.components_, b.components_)  # seeded fits reproduce
