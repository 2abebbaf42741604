"""Extreme but legal input gets a right answer or a refusal saying why (never a silent wrong number).

Each test reproduces a failure of the earlier code (overflow, underflow, a misleading message).
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import privpca_edu as pe
from privpca_edu import privacy as P
from privpca_edu.datasets import elliptical, spiked_sparse
from privpca_edu.estimators import NonPrivateAnalyzeGaussReplication
from privpca_edu.estimators.local import SlowFitWarning, _warn_if_slow
from privpca_edu.estimators.robust import kendall_tau_matrix

X4 = np.random.default_rng(0).standard_normal((40, 4)) * [3.0, 2.0, 1.0, 0.5]


# -- row clipping and scale ----------------------------------------------------------------------
def test_clipping_a_huge_row_keeps_its_direction():
    # ‖x‖² = 1e400 overflowed to inf, so the row was scaled by B/inf = 0 (and the warning said "scaled down")
    X = np.array([[1e200, 0.0], [0.0, 0.5], [0.0, 0.5]])
    with pe.privacy.diagnostics(), pytest.warns(pe.PrivacyWarning, match="scaled down"):
        est = pe.AnalyzeGauss(1, epsilon=np.inf).fit(X)
    np.testing.assert_allclose(np.abs(est.components_), [[1.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(est.released_matrix_, [[1 / 3, 0], [0, 0.5 / 3]], rtol=1e-12)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_eigen_solvers_are_scale_free(scale):
    # XᵀX overflowed (or underflowed) and the eigensolver, finiteness checks off, returned no components
    for make in (lambda: pe.PCA(2), lambda: pe.PCA(2, center=True), lambda: pe.TruncatedPowerPCA(2, random_state=0),
                 lambda: pe.KendallDPPCA(2, epsilon=np.inf), lambda: pe.SGPCA(2, epsilon=np.inf, spikes=(9, 4))):
        ref = make().fit(X4).components_
        got = make().fit(X4 * scale).components_
        assert got.shape == (2, 4)
        np.testing.assert_allclose(got.T @ got, ref.T @ ref, atol=1e-8)  # the same subspace


def test_winsorized_kendall_scale_equivariant():
    K = kendall_tau_matrix(X4, "winsorized", radius=1.0)
    est = pe.KendallDPPCA(2, epsilon=np.inf, transform_kind="winsorized", radius=1e100).fit(X4 * 1e100)
    _, V = np.linalg.eigh(K)
    np.testing.assert_allclose(np.abs(est.components_ @ V[:, ::-1][:, :2]), np.eye(2), atol=1e-8)
    with pytest.raises(ValueError, match="radius"):  # ‖g‖∞² (the sensitivity) must be a finite float
        pe.KendallDPPCA(2, transform_kind="winsorized", radius=1e200).fit(X4)


def test_pca_explained_variance_of_huge_data_is_inf_not_zero():
    est = pe.PCA(1, center=False).fit(X4 * 1e200)
    assert np.isinf(est.explained_variance_[0])
    np.testing.assert_allclose(est.explained_variance_ratio_, pe.PCA(1, center=False).fit(X4).explained_variance_ratio_)


# -- data sets -----------------------------------------------------------------------------------
def test_t_with_tiny_df_never_emits_inf():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no divide-by-zero RuntimeWarning either
        X = elliptical(300, 3, family="t", df=0.01, random_state=0).X  # χ²_ν underflows to 0 here
        assert np.all(np.isfinite(X))
        with pytest.raises(ValueError, match="df=0.001 is too heavy-tailed"):
            elliptical(300, 3, family="t", df=1e-3, random_state=0)


def test_spiked_sparse_refuses_spike_below_noise():
    with pytest.raises(ValueError, match="spike must be > noise_high"):
        spiked_sparse(50, 10, 2, 5, spike=1.0, noise_high=10.0, random_state=0)
    data = spiked_sparse(50, 10, 2, 5, spike=11.0, noise_high=10.0, random_state=0)
    w, V = np.linalg.eigh(data.covariance)
    P_true = data.components.T @ data.components  # components: (k, d)
    np.testing.assert_allclose(V[:, -2:] @ V[:, -2:].T, P_true, atol=1e-10)


# -- extreme data_norm ---------------------------------------------------------------------------
@pytest.mark.parametrize("B", [1e200, 1e-200])
def test_extreme_data_norm_is_refused_naming_it(B):
    for est in (pe.AnalyzeGauss(1, data_norm=B), pe.DPSPCA(1, data_norm=B), pe.PPCA(1, data_norm=B),
                pe.LocalGaussianPCA(1, data_norm=B), pe.NSGGD(1, data_norm=B), pe.PrivateLocalPCA(1, data_norm=B)):
        with pytest.raises(ValueError, match="data_norm"):
            est.fit(X4)
    for call in (lambda: P.dps_pca_sigma(1.0, 1e-5, 10, data_norm=B),
                 lambda: P.mod_sulq_noise_scale(4, 100, 1.0, 1e-5, data_norm=B),
                 lambda: pe.privacy.local_noise_scale(0.5, 1e-5, data_norm=B)):
        with pytest.raises(ValueError, match=r"data_norm must be in \[1e-100, 1e\+100\]"):
            call()


# -- calibrations --------------------------------------------------------------------------------
def test_advanced_calibration_for_tiny_epsilon():
    s_small = P.iterative_gaussian_sigma(1.0, 1e-8, 1e-5, 10, method="advanced")
    for eps in (1e-13, 1e-300):
        s = P.iterative_gaussian_sigma(1.0, eps, 1e-5, 10, method="advanced")
        assert math.isfinite(s) and s >= s_small
    est = pe.DPSPCA(1, epsilon=1e-13, delta=1e-5, calibration="advanced", n_iter=2, random_state=0).fit(X4 / 10)
    assert est.privacy_.is_private
    # the huge-ε side: the root ε₀ is found, not an overflow
    assert 0 < P.iterative_gaussian_sigma(1.0, 1e300, 1e-5, 10, method="advanced") < 1


def test_compositions_do_not_overflow():
    assert P.compose_advanced(1000.0, 0.0, 10, 0.1) == (math.inf, 0.1)
    assert math.isfinite(P.iterative_gaussian_sigma(1.0, 1e-300, 1e-5, 10, method="zcdp"))
    with pytest.raises(ValueError, match="epsilon=.* is too small"):
        P.gaussian_sigma(1.0, 1e-320, 1e-5)
    with pytest.raises(ValueError, match="epsilon=.* is too small"):
        P.iterative_gaussian_sigma(1.0, 1e-320, 1e-5, 10, method="paper")


def test_gdp_epsilon_blames_mu_or_answers():
    with pytest.raises(ValueError, match="mu"):
        P.gdp_epsilon(-1.0, 0.1)
    assert P.gdp_epsilon(1e300, 0.1) == math.inf


def test_analytic_delta_at_huge_epsilon_is_zero():
    assert P.analytic_gaussian_delta(1.0, 1.0, 1e300) == 0.0
    assert P.gdp_delta(1.0, 1e300) == 0.0


def test_compose_basic_validates_delta():
    with pytest.raises(ValueError, match=r"delta_step must be in \[0, 1\)"):
        P.compose_basic(1.0, 2.0, 3)


# -- the estimator API ---------------------------------------------------------------------------
def test_inverse_transform_checks_width_and_values():
    est = pe.PCA(2, center=False).fit(X4)
    with pytest.raises(ValueError, match="expecting 2"):
        est.inverse_transform(np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        est.inverse_transform(np.full((3, 2), np.nan))
    np.testing.assert_allclose(est.inverse_transform(est.transform(X4)), X4 @ est.components_.T @ est.components_)


def test_refit_forgets_the_previous_fit():
    est = pe.DPSPCA(1, n_iter=2, record_messages=True, random_state=0).fit(X4 / 10)
    assert hasattr(est, "messages_")
    est.set_params(record_messages=False).fit(X4 / 10)
    assert not hasattr(est, "messages_")
    tp = pe.TruncatedPowerPCA(1, random_state=0).fit(X4)
    assert hasattr(tp, "history_")
    tp.set_params(method="deflation").fit(X4)
    assert not hasattr(tp, "history_")


def test_truncated_power_on_rank_deficient_data_says_why():
    X = np.outer(np.arange(1.0, 9.0), [1.0, 2.0, 0.0, 0.0])  # rank 1
    with pytest.raises(ValueError, match="lost rank.*n_components=2"):
        pe.TruncatedPowerPCA(2, random_state=0).fit(X)


def test_input_kinds():
    with pytest.raises(ValueError, match="Complex data not supported"):
        pe.AnalyzeGauss(1).fit(X4 + 1j)
    with pytest.raises(TypeError, match="[Ss]parse"):
        pe.PCA(1).fit(sp.csr_matrix(X4))
    rows = (X4 / 10).tolist()  # a list of lists is one data set, not 40 providers
    assert pe.DPSPCA(1, n_iter=2, random_state=0).fit(rows).n_providers_ == 1
    assert pe.PrivateLocalPCA(1, random_state=0).fit(rows).n_sites_ == 1
    assert pe.DPSPCA(1, n_iter=2, random_state=0).fit([X4[:20] / 10, X4[20:] / 10]).n_providers_ == 2


def test_nonprivate_replication_huge_rows():
    est = NonPrivateAnalyzeGaussReplication(1, epsilon=np.inf)
    with pytest.warns(pe.PrivacyWarning):
        got = est.fit(X4 * 1e200).components_
    with pytest.warns(pe.PrivacyWarning):
        ref = NonPrivateAnalyzeGaussReplication(1, epsilon=np.inf).fit(X4).components_
    np.testing.assert_allclose(np.abs(got @ ref.T), [[1.0]], atol=1e-8)


# -- known-slow settings -------------------------------------------------------------------------
def test_local_sparse_pca_warns_before_a_long_fit(monkeypatch):
    with pytest.warns(SlowFitWarning, match=r"d = 2000: .* may take about"):
        _warn_if_slow(2000, 1000)
    # the warning comes before the ADMM starts
    import privpca_edu.estimators.local as local

    def boom(*args, **kwargs):
        raise RuntimeError("ADMM started")

    monkeypatch.setattr(local, "fantope_admm", boom)
    X = np.random.default_rng(0).standard_normal((20, 2000)) * 1e-3
    with pytest.warns(SlowFitWarning), pytest.raises(RuntimeError, match="ADMM started"):
        pe.LocalSparsePCA(1, epsilon=np.inf, lam=0.01).fit(X)
