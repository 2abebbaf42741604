"""DPS-PCA (Ge et al. 2018): algebraic checks of Algorithms 1–3 and its privacy release."""

import math
import warnings

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import audit, privacy
from privpca_edu.datasets import spiked_sparse


@pytest.fixture(scope="module")
def data():
    return spiked_sparse(4000, 60, 3, 8, scaling="unit", random_state=0)


def test_sigma_zero_reproduces_truncated_power_method(data):
    # §8 item 5: with no noise the same code path is the truncated power method, bit for bit
    # up to the order of floating-point operations.
    dps = pp.DPSPCA(3, epsilon=np.inf, sparsity=10, n_iter=12, random_state=4).fit(data.X)
    tpm = pp.TruncatedPowerPCA(3, sparsity=10, n_iter=12, random_state=4).fit(data.X)
    assert len(dps.history_) == len(tpm.history_) == 13
    for Qd, Qt in zip(dps.history_, tpm.history_):
        np.testing.assert_allclose(Qd, Qt, atol=1e-12)
    assert dps.noise_scale_ == 0.0 and not dps.privacy_.is_private


def test_distributed_equals_pooled_without_noise(data):
    # §8 item 6: the n_i weights make the aggregate Σ̂Q whatever the split.
    X = data.X
    parts = [X[:100], X[100:1700], X[1700:1703], X[1703:]]
    pooled = pp.DPSPCA(3, epsilon=np.inf, sparsity=10, random_state=1).fit(X)
    split = pp.DPSPCA(3, epsilon=np.inf, sparsity=10, random_state=1).fit(parts)
    assert split.n_providers_ == 4 and split.provider_sizes_.tolist() == [100, 1600, 3, 2297]
    for a, b in zip(pooled.history_, split.history_):
        np.testing.assert_allclose(a, b, atol=1e-11)


@pytest.mark.parametrize("noise,factor", [("independent", lambda N: math.sqrt(N)), ("shared", lambda N: N)])
def test_aggregate_noise_scale(data, noise, factor):
    # §8 item 6: Σ_i n_i H_i − Σ_i n_i Σ̂_i Q = Σ_i G_i has per-entry sd √N σ (independent) or
    # N σ (shared).  With 4 providers × 10 iterations × d·k = 180 entries, 7200 values: the
    # sample sd has relative standard error 1/√(2·7200) ≈ 0.8 %; tolerance 5 %.
    X = data.X
    parts = np.array_split(X, 4)
    est = pp.DPSPCA(3, epsilon=1.0, delta=0.1, sparsity=10, noise=noise, record_messages=True,
                    random_state=2).fit(parts)
    resid = []
    for t, msgs in enumerate(est.messages_):
        Q = est.history_[t]
        total = sum(len(P) * H for P, H in zip(parts, msgs))
        exact = sum(P.T @ P @ Q for P in parts)
        resid.append(total - exact)
    sd = np.std(np.concatenate([r.ravel() for r in resid]))
    assert sd == pytest.approx(factor(4) * est.noise_scale_, rel=0.05)


def test_noise_scale_and_privacy_record(data):
    est = pp.DPSPCA(3, epsilon=1.0, delta=0.3, sparsity=10, random_state=0).fit(data.X)
    assert est.noise_scale_ == pytest.approx(57.963, abs=1e-3)  # §8 item 1
    rec = est.privacy_
    assert (rec.model, rec.neighbouring, rec.data_norm, rec.sensitivity) == ("distributed", "replace-one", 1.0, 2.0)
    assert "weak" in rec.note  # δ > 1/n
    exact = pp.DPSPCA(3, epsilon=1.0, delta=0.3, sparsity=10, calibration="analytic_exact").fit(data.X)
    assert exact.noise_scale_ == pytest.approx(privacy.iterative_gaussian_sigma(2.0, 1.0, 0.3, 10, "analytic_exact"))
    # data_norm B scales the sensitivity (and σ) by B²
    big = pp.DPSPCA(3, epsilon=1.0, delta=0.3, sparsity=10, data_norm=2.0).fit(data.X)
    assert big.noise_scale_ == pytest.approx(4 * est.noise_scale_)


def test_components_are_sparse_and_orthonormal(data):
    est = pp.DPSPCA(3, epsilon=2.0, delta=0.3, sparsity=10, random_state=0).fit(data.X)
    V = est.components_
    np.testing.assert_allclose(V @ V.T, np.eye(3), atol=1e-12)
    assert np.count_nonzero(np.linalg.norm(V, axis=0)) == 10
    assert est.transform(data.X).shape == (4000, 3)


def test_error_decreases_with_epsilon_on_average():
    # §8 item 9 (shape): mean final error over 10 seeds is non-increasing in ε.  Between
    # neighbouring ε values the means differ by ≫ their standard errors at these sizes.
    data = spiked_sparse(20000, 200, 5, 10, scaling="unit", random_state=0)
    means = []
    for eps in (0.5, 1.0, 2.0, np.inf):
        errs = [pp.subspace_distance(pp.DPSPCA(5, epsilon=eps, delta=0.3, sparsity=20, random_state=s)
                                     .fit(data.X).components_, data.components) for s in range(10)]
        means.append(np.mean(errs))
    assert all(a > b for a, b in zip(means, means[1:])), means
    assert means[0] > 1.0 > 0.1 > means[-1]


def test_clipping_warns_once_without_the_count(data):
    X = data.X.copy()
    X[:7] *= 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", pp.PrivacyWarning)  # by default: nothing data-dependent is said
        pp.DPSPCA(3, epsilon=1.0, delta=0.1, sparsity=10).fit([X[:2000], X[2000:]])
    with pp.privacy.diagnostics(), pytest.warns(pp.PrivacyWarning, match=r"some rows .* not reported") as rec:
        est = pp.DPSPCA(3, epsilon=1.0, delta=0.1, sparsity=10).fit([X[:2000], X[2000:]])
    assert not est.privacy_.is_private and "diagnostics" in est.privacy_.note
    assert len([w for w in rec if issubclass(w.category, pp.PrivacyWarning)]) == 1
    # the count of clipped rows changes under replace-one: it is in neither the warning nor the estimator
    assert "7" not in str(rec[0].message) and not hasattr(est, "n_clipped_")
    assert np.all(np.isclose(np.linalg.norm(data.X[:7], axis=1), 1.0))  # caller's data untouched


@pytest.mark.parametrize(
    "kwargs,X_kind,match",
    [
        (dict(sparsity=2), "array", "sparsity"),  # ŝ < k
        (dict(sparsity=61), "array", "sparsity"),  # ŝ > d
        (dict(n_iter=0), "array", "n_iter"),
        (dict(calibration="bogus"), "array", "calibration"),
        (dict(noise="bogus"), "array", "noise"),
        (dict(epsilon=0.0), "array", "epsilon"),
        (dict(delta=1.0), "array", "delta"),
        (dict(), "empty", "at least one provider"),
        (dict(), "ragged", "same number of features"),
        (dict(), "nan", "NaN"),
    ],
)
def test_bad_input(data, kwargs, X_kind, match):
    X = {
        "array": data.X,
        "empty": [],
        "ragged": [data.X[:10], data.X[10:20, :50]],
        "nan": [data.X[:10], np.full((3, 60), np.nan)],
    }[X_kind]
    with pytest.raises(ValueError, match=match):
        pp.DPSPCA(3, **kwargs).fit(X)


def test_per_iteration_release_audits():
    # Recipes A and C on one provider's message n_i H_i = Σ xxᵀ Q + G for a fixed Q, drawn by
    # the estimator itself (sample_messages shares its noise code with fit).
    d, k, n = 4, 2, 30
    X, Xp = audit.worst_case_pair(n, d)
    Q = np.eye(d)[:, :k]  # the worst case needs Q to capture both e1 and e2
    # Recipe A.  ‖xxᵀQ − x′x′ᵀQ‖²_F = ‖Qᵀx‖² + ‖Qᵀx′‖² − 2(xᵀx′)(xᵀQQᵀx′) ≤ 2 for unit rows in
    # span Q, so the true sensitivity is √2, attained by orthogonal rows; the paper's Δ = 2 is
    # the triangle inequality (conservative).  Measured must not exceed the documented 2.
    res = audit.audit_sensitivity(lambda Z: Z.T @ Z @ Q, X, Xp, 2.0, convention="flat")
    assert res.passed and res.values["measured"] == pytest.approx(math.sqrt(2))
    # Recipe C against the documented claim μ = (realised shift √2) / σ_paper.  T = 1 so the
    # per-message μ ≈ 0.14 is large enough that a σ/2 mutant (μ ≈ 0.29) lies > 10 SE beyond
    # the flag threshold (at T = 10, μ ≈ 0.02 and a mutant would hide inside 4 SE ≈ 0.04).
    est = pp.DPSPCA(k, epsilon=0.5, delta=0.1, n_iter=1)
    sigma = privacy.dps_pca_sigma(0.5, 0.1, 1)
    f0, f1 = (X.T @ X @ Q).ravel(), (Xp.T @ Xp @ Q).ravel()
    N = 20_000
    R = est.sample_messages(X, Q, N, random_state=1).reshape(N, -1)
    Rp = est.sample_messages(Xp, Q, N, random_state=2).reshape(N, -1)
    assert audit.audit_gaussian_dp(R, Rp, f0, f1, math.sqrt(2) / sigma).passed
    # The same release with σ/2 (a mutant calibration) is flagged.
    R_bad = f0 + (R - f0) / 2
    Rp_bad = f1 + (Rp - f1) / 2
    assert not audit.audit_gaussian_dp(R_bad, Rp_bad, f0, f1, math.sqrt(2) / sigma).passed


def test_init_array_is_thresholded_by_default(data):
    init = np.random.default_rng(3).standard_normal((60, 3))
    est = pp.DPSPCA(3, epsilon=np.inf, sparsity=10, init=init, n_iter=1).fit(data.X)
    assert np.count_nonzero(np.linalg.norm(est.history_[0], axis=1)) == 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est2 = pp.DPSPCA(3, epsilon=np.inf, sparsity=10, init=init, threshold_init=False, n_iter=1).fit(data.X)
    assert np.count_nonzero(np.linalg.norm(est2.history_[0], axis=1)) == 60
