"""Local DP PCA (Wang & Xu 2019): validation targets, audits A–C, calibration, bad input.

Statistical tolerances, with the theory behind each:
* B (noise shape): χ² variance test at α = 1e-3 (audit.audit_noise_shape); a factor-2 (σ/2 → 4)
  variance error on 2000 draws × 6 off-diagonal entries gives z ≈ √(ν/2)·(1 − 1/4) > 50.
* C (Gaussian DP): μ̂ has standard error ≈ √(2/N) = 0.01 at N = 20 000; honest reports must give
  μ̂ ≤ μ + 4 SE; the σ/2 mutant has true μ = 2μ, the "paper" constant √2·μ, both ≥ 10 SE above.
* fantope_admm_stack vs fantope_admm (the reference): the same iterations, so the same Y up to
  rounding, except that rounding may move a problem's stop by one iteration.  On the step where
  the rule max(r², s²) ≤ k·tol² holds, s = ρ‖Y_t − Y_{t−1}‖_F ≤ √k·tol, so the two final Y
  differ by at most √k·tol/ρ (ρ the final penalty) in Frobenius norm; iteration counts by ≤ 1.
  A stack that skipped the soft-threshold (λ ignored) or projected with the wrong θ misses this
  by orders of magnitude (tested with such mutants).
* Per-user vs aggregated: entries of S̃ − S are i.i.d. N(0, σ₁²/n) in both modes.  With ν pooled
  entries the sample variance has relative s.e. √(2/ν) (= 1 % at ν = 20 000): 5 % is 5 s.e.; the
  ratio of the two variances has s.e. √(4/ν) = 1.4 %: 7 % is 5 s.e.  A wrong aggregate scale
  (σ₁/n instead of σ₁/√n, or a missing √2) is off by ≥ 40 % and must fail the same checks.
"""

import inspect
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from privpca_edu import audit, privacy
from privpca_edu._validation import PrivacyWarning, diagnostics
from privpca_edu.estimators import local as local_module
from privpca_edu.estimators.local import (
    ConvergenceWarning,
    LocalGaussianPCA,
    LocalSparsePCA,
    default_sparse_penalty,
    fantope_admm,
    fantope_admm_stack,
    local_gaussian_report,
    soft_threshold,
)
from privpca_edu.privacy import local_noise_scale
from privpca_edu.subspace import fantope_projection, random_orthonormal, subspace_distance, top_eigenvectors

# The classic-constant warning for ε ≥ 1 is privpca_edu.privacy's (tested there and, where it matters here,
# with pytest.warns, which records it regardless of this filter).
pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


class HalfSigmaLocalGaussianPCA(LocalGaussianPCA):
    """NOT PRIVATE mutant: each user adds half the documented noise (claims the same ε, δ)."""

    def _calibrate(self, warn=True):
        epsilon, delta, data_norm, cal = super()._calibrate(warn)
        cal = dict(cal, noise_scale=cal["noise_scale"] / 2)
        return epsilon, delta, data_norm, cal


def _quiet(fn, *args, **kwargs):
    """Call with the classic-constant ε ≥ 1 PrivacyWarning silenced (tested separately)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="the classic Gaussian mechanism", category=PrivacyWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def spiked():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6)) * np.array([0.5, 0.3, 0.05, 0.05, 0.05, 0.05])
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))


# ------------------------------------------------------------------------- §8.2 calibration
@pytest.mark.parametrize("eps,delta,paper,replacement", [
    (1.0, 1e-4, 4.343612, 6.142795), (0.5, 1e-4, 8.687225, 12.285591),
    (2.0, 1e-4, 2.171806, 3.071398), (1.0, 1e-5, 4.844805, 6.851589)])
def test_calibration_values_match_spec_table(eps, delta, paper, replacement):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        p = local_noise_scale(eps, delta, calibration="paper")
        r = local_noise_scale(eps, delta, calibration="replacement")
    assert p["noise_scale"] == pytest.approx(paper, abs=1e-6)
    assert r["noise_scale"] == pytest.approx(replacement, abs=1e-6)
    assert r["noise_scale"] / p["noise_scale"] == pytest.approx(math.sqrt(2), rel=1e-14)
    assert r["is_private"] and p.sensitivity < p.releases[0][0] and r.sensitivity == r.releases[0][0] == math.sqrt(2)
    assert p["noise_scale"] ** 2 == pytest.approx(2 * math.log(1.25 / delta) / eps**2, rel=1e-12)


@pytest.mark.parametrize("eps,delta,private", [(2.0, 1e-4, False), (0.5, 1e-5, False), (0.5, 1e-4, True)])
def test_paper_constant_is_recorded_not_private_with_the_exact_fact(eps, delta, private):
    # The paper's σ₁ is √2 too small for the classic proof with Δ = √2; whether it is (ε, δ)-DP
    # anyway is decided by the exact (Balle & Wang) δ of that σ₁: see the docstring's derivation.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        p = local_noise_scale(eps, delta, calibration="paper")
    assert p["exact_delta"] == pytest.approx(privacy.analytic_gaussian_delta(p["noise_scale"], math.sqrt(2), eps))
    assert (p["exact_delta"] <= delta) is private
    # ... but an under-calibrated constant is never *recorded* as private (no valid proof)
    assert p["is_private"] is False and p["note"].startswith("not differentially private")
    assert ("happens to be" in p["note"]) is private
    assert "√2·B²" in p["note"]


def test_classic_constant_stops_being_private_at_large_epsilon():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        assert local_noise_scale(6.0, 1e-4)["is_private"]
        r = local_noise_scale(8.0, 1e-4)
    assert not r["is_private"] and r["exact_delta"] == pytest.approx(1.0048e-4, rel=1e-3)
    assert local_noise_scale(8.0, 1e-4, calibration="analytic")["is_private"]


def test_analytic_calibration_is_valid_and_smaller():
    r = local_noise_scale(0.5, 1e-4, calibration="analytic")
    assert r["sensitivity"] == pytest.approx(math.sqrt(2))
    assert audit.gaussian_condition_holds(r["noise_scale"], math.sqrt(2), 0.5, 1e-4, "analytic")
    assert r["noise_scale"] < local_noise_scale(0.5, 1e-4)["noise_scale"]
    # valid for ε ≥ 1 too, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = local_noise_scale(4.0, 1e-4, calibration="analytic")
    assert audit.gaussian_condition_holds(big["noise_scale"], math.sqrt(2), 4.0, 1e-4, "analytic")


def test_data_norm_and_sensitivity_override():
    base = local_noise_scale(0.5, 1e-4)["noise_scale"]
    assert local_noise_scale(0.5, 1e-4, data_norm=2.0)["noise_scale"] == pytest.approx(4 * base)
    over = local_noise_scale(0.5, 1e-4, sensitivity=2.0)
    assert over["is_private"] and over["noise_scale"] == pytest.approx(base * math.sqrt(2))
    under = local_noise_scale(0.5, 1e-4, sensitivity=0.5)
    assert not under["is_private"] and under.sensitivity < under.releases[0][0] and "sensitivity=0.5" in under["note"]


# ------------------------------------------------------------------------- §8.3 sensitivity
def test_sensitivity_facts():
    rng = np.random.default_rng(1)
    d = 5
    e = np.eye(d)
    D = np.outer(e[0], e[0]) - np.outer(e[1], e[1])
    assert np.linalg.norm(privacy.symmetric_to_vector(D)) == pytest.approx(math.sqrt(2), abs=1e-15)
    x = rng.normal(size=d)
    assert np.linalg.norm(np.outer(x, x)) == pytest.approx(np.dot(x, x), rel=1e-14)
    # random search over the unit ball never beats √2 (orthogonal unit vectors attain it)
    U = rng.normal(size=(20_000, d)) * rng.uniform(0, 1, size=(20_000, 1)) ** (1 / d)
    U /= np.maximum(1.0, np.linalg.norm(U, axis=1, keepdims=True))
    W = np.roll(U, 1, axis=0)
    diffs = np.einsum("ni,nj->nij", U, U) - np.einsum("ni,nj->nij", W, W)
    assert np.max(np.linalg.norm(privacy.symmetric_to_vector(diffs), axis=1)) <= math.sqrt(2) + 1e-12
    assert np.max(np.linalg.norm(diffs, axis=(1, 2))) <= math.sqrt(2) + 1e-12


# ------------------------------------------------------------------------- audits A, B, C (per user)
def test_recipe_A_per_user_release():
    X1, X1p = audit.worst_case_pair(1, 4)
    est = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4)
    parts = est.user_release_parts(X1[0])
    assert parts.sensitivity == pytest.approx(math.sqrt(2))
    res = audit.audit_sensitivity(lambda Z: est.user_release_parts(Z[0]).statistic, X1, X1p, parts.sensitivity,
                                  tight_fraction=0.999)
    assert res.passed, res
    assert audit.gaussian_condition_holds(parts.noise_scale, math.sqrt(2), 0.5, 1e-4, "classic")
    # the paper's constant and the σ/2 mutant fail the Gaussian condition for the true Δ = √2
    assert not audit.gaussian_condition_holds(parts.noise_scale / math.sqrt(2), math.sqrt(2), 0.5, 1e-4, "classic")
    # the paper's constant and the σ/2 mutant fail the exact Gaussian condition for the true Δ = √2
    # (at δ = 1e-5; at δ = 1e-4 the loose classic constant leaves the paper's σ just enough)
    with pytest.warns(PrivacyWarning, match="not differentially private"):
        paper_sigma = LocalGaussianPCA(1, epsilon=0.5, delta=1e-5, calibration="paper").user_release_parts(
            X1[0]).noise_scale
    assert not audit.gaussian_condition_holds(paper_sigma, math.sqrt(2), 0.5, 1e-5, "analytic")
    half = HalfSigmaLocalGaussianPCA(1, epsilon=0.5, delta=1e-4).user_release_parts(X1[0]).noise_scale
    assert not audit.gaussian_condition_holds(half, math.sqrt(2), 0.5, 1e-4, "analytic")
    # and the add/remove Δ = 1 is flagged by recipe A itself
    assert not audit.audit_sensitivity(lambda Z: np.outer(Z[0], Z[0]), X1, X1p, 1.0).passed


def test_recipe_B_noise_shape_of_user_reports():
    x = np.array([0.6, 0.0, 0.8, 0.0])
    sigma = privacy.gaussian_sigma(math.sqrt(2), 0.5, 1e-4)  # documented σ₁, independent of the code
    for cls, should_pass in ((LocalGaussianPCA, True), (HalfSigmaLocalGaussianPCA, False)):
        est = cls(1, epsilon=0.5, delta=1e-4)
        noise = est.sample_user_reports(x, 2000, random_state=3) - np.outer(x, x)
        res = audit.audit_noise_shape(noise, sigma, "upper_iid")
        assert res.passed is should_pass, res
    # same variance on and off the diagonal — the Frobenius (GOE-like) convention is rejected
    noise = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4).sample_user_reports(x, 2000, random_state=4) - np.outer(x, x)
    bad = audit.audit_noise_shape(noise, sigma, "frobenius")
    assert not bad.passed and bad.values["off-diagonal"]["z"] > 30
    # §8.1 pooled: relative variance error < 2 % over 2000 × 10 = 20 000 entries (s.e. 1 %)
    pooled = privacy.symmetric_to_vector(noise)
    assert abs(pooled.var() / sigma**2 - 1) < 0.03 and abs(pooled.mean()) < 4 * sigma / math.sqrt(pooled.size)


@pytest.mark.parametrize("calibration,mutant,should_pass", [
    ("replacement", False, True), ("replacement", True, False), ("paper", False, False)])
def test_recipe_C_gaussian_dp_on_user_reports(calibration, mutant, should_pass):
    X1, X1p = audit.worst_case_pair(1, 3)
    eps, delta = 0.9, 1e-2
    mu = math.sqrt(2) / privacy.gaussian_sigma(math.sqrt(2), eps, delta)  # documented claim
    cls = HalfSigmaLocalGaussianPCA if mutant else LocalGaussianPCA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        est = cls(1, epsilon=eps, delta=delta, calibration=calibration)
        R = est.sample_user_reports(X1[0], 20_000, random_state=7)
        Rp = est.sample_user_reports(X1p[0], 20_000, random_state=8)
    vec = privacy.symmetric_to_vector
    res = audit.audit_gaussian_dp(vec(R), vec(Rp), vec(np.outer(X1[0], X1[0])), vec(np.outer(X1p[0], X1p[0])), mu)
    assert res.passed is should_pass, res
    factor = 2.0 if mutant else (math.sqrt(2) if calibration == "paper" else 1.0)
    assert res.values["mu_hat"] == pytest.approx(factor * mu, abs=5 * res.values["se"])


def test_recipe_C_server_release_with_one_user_is_the_user_report():
    # With n = 1 the server's matrix is exactly one report: audit_release_gdp runs on the estimator.
    X1, X1p = audit.worst_case_pair(1, 3)
    est = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4)
    mu = math.sqrt(2) / privacy.gaussian_sigma(math.sqrt(2), 0.5, 1e-4)
    assert est.release_parts(X1).noise_scale == pytest.approx(est.user_release_parts(X1[0]).noise_scale)
    assert audit.audit_release_gdp(est, X1, X1p, mu=mu, n_draws=20_000, random_state=1).passed
    bad = audit.audit_release_gdp(HalfSigmaLocalGaussianPCA(1, epsilon=0.5, delta=1e-4), X1, X1p, mu=mu,
                                  n_draws=20_000, random_state=1)
    assert not bad.passed


# ------------------------------------------------------------------------- calibration="paper"
@pytest.mark.parametrize("cls", [LocalGaussianPCA, LocalSparsePCA])
def test_paper_calibration_warns_and_records_not_private(spiked, cls):
    # The paper's Table 1 setting ε = 2, δ = 1e-4 (and ε = 0.5, δ = 1e-5).
    for eps, delta in ((2.0, 1e-4), (0.5, 1e-5)):
        with pytest.warns(PrivacyWarning, match="not differentially private"):
            est = cls(2, epsilon=eps, delta=delta, calibration="paper", random_state=0).fit(spiked)
        rec = est.privacy_
        assert rec.is_private is False and rec.note.startswith("not differentially private")
        assert rec.calibration == "paper" and rec.sensitivity == 1.0 and rec.model == "local"
        honest = cls(2, epsilon=0.5, delta=delta, random_state=0).fit(spiked)
        assert honest.privacy_.is_private and honest.privacy_.note == ""
    # where the loose classic constant happens to cover it, it still warns and records not
    # private (the calibration carries no proof), stating the exact fact
    with pytest.warns(PrivacyWarning, match="happens to be"):
        ok = cls(2, epsilon=0.5, delta=1e-4, calibration="paper", random_state=0).fit(spiked)
    assert ok.privacy_.is_private is False and "reproduction only" in ok.privacy_.note


def test_privacy_record_and_noise_scales(spiked):
    est = LocalGaussianPCA(2, epsilon=0.5, delta=1e-4, random_state=0).fit(spiked)
    rec = est.privacy_
    assert (rec.model, rec.epsilon, rec.delta, rec.data_norm) == ("local", 0.5, 1e-4, 1.0)
    assert rec.sensitivity == pytest.approx(math.sqrt(2)) and rec.noise_scale == est.noise_scale_
    assert est.aggregate_noise_scale_ == pytest.approx(est.noise_scale_ / math.sqrt(len(spiked)))
    assert est.released_matrix_.shape == (6, 6) and np.array_equal(est.released_matrix_, est.released_matrix_.T)
    # ε ≥ 1 with the classic constant: a warning from privacy.gaussian_sigma and a note in the record
    with pytest.warns(PrivacyWarning, match="proved only for epsilon < 1"):
        big = LocalGaussianPCA(2, epsilon=2.0, delta=1e-4).fit(spiked)
    assert big.privacy_.is_private and "epsilon < 1" in big.privacy_.note and "nevertheless" in big.privacy_.note
    with pytest.warns(PrivacyWarning, match="not differentially private"):
        huge = LocalGaussianPCA(2, epsilon=8.0, delta=1e-4).fit(spiked)
    assert not huge.privacy_.is_private


@pytest.mark.parametrize("cls", [LocalGaussianPCA, LocalSparsePCA])
def test_sklearn_contract(cls, spiked, check_sklearn_contract):
    est = check_sklearn_contract(cls, dict(n_components=2, epsilon=0.5, delta=1e-4, random_state=0), spiked)
    assert repr(cls(2, epsilon=0.25)) == f"{cls.__name__}(epsilon=0.25)"
    assert est.privacy_.model == "local"


# ------------------------------------------------------------------------- §8.5, §8.13 exactness
@pytest.mark.parametrize("per_user", [False, True])
def test_no_noise_equals_exact_pca(spiked, per_user):
    X = spiked[:500]
    _, exact = top_eigenvectors(X.T @ X / len(X), 2)
    for cls in (LocalGaussianPCA, LocalSparsePCA):
        est = cls(2, epsilon=np.inf, per_user=per_user, random_state=0).fit(X)
        assert est.noise_scale_ == 0.0 and not est.privacy_.is_private
        assert subspace_distance(est.components_, exact, kind="projection") < 1e-10
    assert LocalSparsePCA(2, epsilon=np.inf).fit(X).lam_ == 0.0


def test_algebraically_largest_eigenvalues_are_taken():
    # S̃ = diag(−5, 1, 0.5): the largest |eigenvalue| is −5 (e₁), the algebraically largest is 1 (e₂).
    S = np.diag([-5.0, 1.0, 0.5])
    est = LocalGaussianPCA(1, epsilon=np.inf).fit_second_moment(S, 10)
    np.testing.assert_allclose(np.abs(est.components_[0]), [0, 1, 0], atol=1e-12)
    assert est.explained_variance_[0] == pytest.approx(1.0)


# ------------------------------------------------------------------------- §8.6 the two paths
def _noise_entries(est, X, per_user, n_draws, seed):
    R = est.sample_releases(X, n_draws, random_state=seed, per_user=per_user)
    return privacy.symmetric_to_vector(R - X.T @ X / len(X)).ravel()


def _agree(a, b, target_var):
    """The checks of the module docstring: each variance within 5 % of σ₁²/n, ratio within 7 %,
    two-sample Kolmogorov–Smirnov p > 1e-3."""
    return (abs(a.var() / target_var - 1) < 0.05 and abs(b.var() / target_var - 1) < 0.05
            and abs(a.var() / b.var() - 1) < 0.07 and stats.ks_2samp(a, b).pvalue > 1e-3)


def test_per_user_and_aggregated_paths_agree_in_distribution():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(10, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.5
    est = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4)
    target = est.noise_scale_ ** 2 / 10 if hasattr(est, "noise_scale_") else local_noise_scale(0.5, 1e-4)[
        "noise_scale"] ** 2 / 10
    per_user = _noise_entries(est, X, True, 2000, 1)
    aggregated = _noise_entries(est, X, False, 2000, 2)
    assert per_user.size == aggregated.size == 20_000
    assert _agree(per_user, aggregated, target)
    # the check can fail: an aggregate drawn with σ₁/n (a classic slip) or σ₁/√(2n) is rejected
    for wrong in (aggregated * math.sqrt(10) / 10, aggregated / math.sqrt(2)):
        assert not _agree(per_user, wrong, target)
    # fit itself uses the same two paths: on the same seed the released matrices differ, the law does not
    a = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4, per_user=True, random_state=0).fit(X)
    b = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4, per_user=False, random_state=0).fit(X)
    assert a.path_ == "per_user" and b.path_ == "aggregated"
    assert not np.allclose(a.released_matrix_, b.released_matrix_)


def test_per_user_report_sees_only_its_own_record(monkeypatch):
    # the report is a function of one record and the user's own generator.
    assert list(inspect.signature(local_gaussian_report).parameters) == ["x", "noise_scale", "random_state"]
    calls = []
    real = local_module.local_gaussian_report

    def spy(x, noise_scale, random_state=None):
        calls.append((np.array(x, copy=True), random_state))
        return real(x, noise_scale, random_state)

    monkeypatch.setattr(local_module, "local_gaussian_report", spy)
    X = np.random.default_rng(2).normal(size=(5, 3)) * 0.3
    LocalGaussianPCA(1, epsilon=0.5, delta=1e-4, per_user=True, random_state=0).fit(X)
    assert len(calls) == 5
    for (x, rng), row in zip(calls, X):
        assert x.shape == (3,) and np.array_equal(x, row)
    assert len({id(rng) for _, rng in calls}) == 5  # every user has their own generator


def test_user_report_is_outer_product_plus_symmetric_noise():
    est = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4)
    x = np.array([0.6, 0.8, 0.0])
    R = est.user_report(x, random_state=0)
    assert np.array_equal(R, R.T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        no_noise = LocalGaussianPCA(1, epsilon=np.inf).user_report(x, random_state=0)
    np.testing.assert_allclose(no_noise, np.outer(x, x), atol=1e-15)
    with pytest.warns(PrivacyWarning, match="some rows of x"):
        clipped = LocalGaussianPCA(1, epsilon=np.inf).user_report(np.array([3.0, 4.0, 0.0]))
    np.testing.assert_allclose(clipped, np.outer([0.6, 0.8, 0.0], [0.6, 0.8, 0.0]), atol=1e-15)


# ------------------------------------------------------------------------- §8.8 Fantope projection
def test_fantope_projection_properties():
    rng = np.random.default_rng(3)
    for d, k in ((6, 1), (10, 3), (25, 5)):
        G = rng.normal(size=(d, d))
        A = (G + G.T) * rng.uniform(0.1, 3)
        P = fantope_projection(A, k)
        w = np.linalg.eigvalsh(P)
        assert np.array_equal(P, P.T)
        assert abs(np.trace(P) - k) < 1e-8
        assert w.min() >= -1e-10 and w.max() <= 1 + 1e-10
        np.testing.assert_allclose(fantope_projection(P, k), P, atol=1e-10)  # idempotent
        W = random_orthonormal(d, k, rng)
        np.testing.assert_allclose(fantope_projection(W @ W.T, k), W @ W.T, atol=1e-10)  # projector is fixed
        for _ in range(20):  # variational inequality of a projection onto a convex set
            Q = random_orthonormal(d, k, rng)
            assert np.sum((A - P) * (Q @ Q.T - P)) <= 1e-8
    # a gap γ_k − γ_{k+1} ≥ 1 gives exactly the rank-k eigenprojector
    U = random_orthonormal(8, 8, rng)
    A = U @ np.diag([5.0, 4.2, 3.0, 1.9, 1.0, 0.5, 0.0, -1.0]) @ U.T
    np.testing.assert_allclose(fantope_projection(A, 3), U[:, :3] @ U[:, :3].T, atol=1e-12)
    with pytest.raises(ValueError, match="n_components"):
        fantope_projection(A, 9)
    with pytest.raises(ValueError, match="square"):
        fantope_projection(A[:3], 1)


def test_fantope_projection_with_tied_eigenvalues_matches_bisection():
    # Repeated eigenvalues repeat breakpoints γ_j and γ_j − 1; the exact θ must still be the root
    # of Σ_j min(max(γ_j − θ, 0), 1) = k (checked against a bisection, which cannot be fooled by ties).
    rng = np.random.default_rng(11)
    np.testing.assert_allclose(fantope_projection(3.0 * np.eye(5), 2), 0.4 * np.eye(5), atol=1e-14)
    for spectrum, k in (([2.0, 2.0, 2.0, 1.0, 1.0, 0.0], 2), ([1.5, 1.5, 0.5, 0.5, 0.5], 3), ([4.0, 3.0, 3.0, 2.0], 1)):
        d = len(spectrum)
        U = random_orthonormal(d, d, rng)
        A = U @ np.diag(spectrum) @ U.T
        P, (theta, weights, _) = fantope_projection(A, k, return_eigen=True)
        gamma = np.linalg.eigvalsh(A)
        lo, hi = gamma.min() - 1.0, gamma.max()
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.clip(gamma - mid, 0, 1).sum() > k else (lo, mid)
        np.testing.assert_allclose(np.clip(gamma - theta, 0, 1).sum(), k, atol=1e-12)
        np.testing.assert_allclose(np.sort(weights), np.sort(np.clip(gamma - lo, 0, 1)), atol=1e-9)
        assert abs(np.trace(P) - k) < 1e-12


# ------------------------------------------------------------------------- §8.9, §8.10 ADMM
def test_admm_without_penalty_is_the_eigenprojector():
    rng = np.random.default_rng(4)
    U = random_orthonormal(12, 12, rng)
    S = U @ np.diag(np.linspace(1.0, 0.0, 12) ** 2) @ U.T
    res = fantope_admm(S, 3, 0.0)
    assert res.converged and res.n_iter <= 10
    np.testing.assert_allclose(res.Y, U[:, :3] @ U[:, :3].T, atol=1e-12)
    assert res.objective == pytest.approx(np.sum(np.linalg.eigvalsh(S)[-3:]), rel=1e-12)


def test_admm_convergence_trace_and_residuals():
    rng = np.random.default_rng(5)
    G = rng.normal(size=(15, 15))
    S = G @ G.T / 15
    for adaptive in (False, True):
        res = fantope_admm(S, 2, 0.3, adaptive_rho=adaptive)
        assert res.converged
        assert abs(np.trace(res.X) - 2) < 1e-8
        assert res.primal_residuals[-1] <= math.sqrt(2) * 1e-4 and res.dual_residuals[-1] <= math.sqrt(2) * 1e-4
        assert res.primal_residuals.size == res.n_iter
    fixed, adaptive = fantope_admm(S, 2, 0.3), fantope_admm(S, 2, 0.3, adaptive_rho=True)
    assert fixed.objective == pytest.approx(adaptive.objective, rel=1e-3)
    # ... and the objective is optimal among nearby feasible points (convexity check, no CVXPY here)
    for _ in range(20):
        W = random_orthonormal(15, 2, rng)
        other = fantope_projection(fixed.Y + 0.05 * (W @ W.T - fixed.Y), 2)
        assert np.sum(S * other) - 0.3 * np.abs(other).sum() <= fixed.objective + 1e-3
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        assert not fantope_admm(S, 2, 0.3, max_iter=2).converged
    bad = S.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        fantope_admm(bad, 2, 0.3)
    with pytest.raises(ValueError, match="square"):
        fantope_admm(S[:3], 2, 0.3)


def _stack_problems():
    rng = np.random.default_rng(3)
    d = 9
    A = rng.standard_normal((7, d, d)) / 4
    A = (A + A.transpose(0, 2, 1)) / 2 + np.diag(np.r_[2.0, 1.5, np.zeros(d - 2)])
    A[5] = 0.0  # ρ₀ = 1 when S = 0
    A[6] *= 40.0  # a large ρ₀
    return A, np.array([0.0, 0.01, 0.05, 0.1, 0.3, 0.05, 2.0])


def _assert_stack_matches_reference(res, A, k, lams, tol, **kwargs):
    for i in range(len(A)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ref = fantope_admm(A[i], k, lams[i], tol=tol, **kwargs)
        bound = math.sqrt(k) * tol / ref.rho  # one ADMM step at the stopping rule (docstring)
        assert np.linalg.norm(res.Y[i] - ref.Y) <= bound, (i, np.linalg.norm(res.Y[i] - ref.Y), bound)
        assert abs(int(res.n_iter[i]) - ref.n_iter) <= 1 and res.converged[i] == ref.converged
        assert res.rho[i] == pytest.approx(ref.rho, rel=1e-12) or abs(int(res.n_iter[i]) - ref.n_iter) == 1


@pytest.mark.parametrize("adaptive_rho, max_iter, tol", [(True, 1000, 1e-4), (False, 1000, 1e-4), (True, 5, 1e-4),
                                                         (False, 1000, 1e-6)])
def test_fantope_admm_stack_matches_the_reference(adaptive_rho, max_iter, tol):
    A, lams = _stack_problems()
    k = 2
    res = fantope_admm_stack(A, k, lams, adaptive_rho=adaptive_rho, max_iter=max_iter, tol=tol)
    assert res.Y.shape == A.shape and res.n_iter.shape == res.converged.shape == res.rho.shape == (len(A),)
    _assert_stack_matches_reference(res, A, k, lams, tol, adaptive_rho=adaptive_rho, max_iter=max_iter)
    assert res.converged.all() == (max_iter == 1000)
    # a given ρ and one λ for all; a stack of one
    res = fantope_admm_stack(A[:3], k, 0.05, rho=0.7)
    _assert_stack_matches_reference(res, A[:3], k, [0.05] * 3, 1e-4, rho=0.7)
    one = fantope_admm_stack(A[1:2], 1, [0.01])
    _assert_stack_matches_reference(one, A[1:2], 1, [0.01], 1e-4)


@pytest.mark.parametrize("mutant", ["no_threshold", "wrong_theta"])
def test_fantope_admm_stack_tolerance_catches_a_wrong_stack(monkeypatch, mutant):
    # the comparison above can fail: a stack that ignores λ, or shifts θ, is far outside the bound
    from privpca_edu.estimators import _admm

    A, lams = _stack_problems()
    if mutant == "no_threshold":
        Y = fantope_admm_stack(A, 2, np.zeros_like(lams)).Y
    else:
        real = _admm._fantope_project_stack
        monkeypatch.setattr(_admm, "_fantope_project_stack", lambda M, k: real(M + 0.05 * np.eye(M.shape[1]), k) * 0.98)
        Y = fantope_admm_stack(A, 2, lams).Y
    refs = [fantope_admm(A[i], 2, lams[i]) for i in range(len(A))]
    worst = max(np.linalg.norm(Y[i] - ref.Y) / (math.sqrt(2) * 1e-4 / ref.rho)
                for i, ref in enumerate(refs) if lams[i] > 0.01)
    assert worst > 10


def test_fantope_admm_stack_bad_input():
    A, lams = _stack_problems()
    with pytest.raises(ValueError, match="shape"):
        fantope_admm_stack(A[0], 2, 0.1)
    with pytest.raises(ValueError, match="lam"):
        fantope_admm_stack(A, 2, lams[:3])
    with pytest.raises(ValueError, match="lam"):
        fantope_admm_stack(A, 2, -lams)
    with pytest.raises(ValueError, match="n_components"):
        fantope_admm_stack(A, 10, lams)
    bad = A.copy()
    bad[2, 0, 1] = np.inf
    with pytest.raises(ValueError, match="finite"):
        fantope_admm_stack(bad, 2, lams)


def test_sparsity_behaviour_non_private():
    # Σ = 5VVᵀ + I, p = 30, k = 3, s = 6, n = 400; a moderate λ shrinks the support
    # from p towards s and is no worse than plain PCA.
    rng = np.random.default_rng(0)
    p, k, s = 30, 3, 6
    V = np.zeros((p, k))
    V[:s] = random_orthonormal(s, k, rng)
    X = rng.multivariate_normal(np.zeros(p), 5 * V @ V.T + np.eye(p), size=400)
    S = X.T @ X / 400
    _, pca = top_eigenvectors(S, k)
    pca_err = subspace_distance(pca, V, kind="projection")
    for lam in (0.1, 0.3):
        res = fantope_admm(S, k, lam)
        support = np.flatnonzero(np.diag(res.Y) > 0)
        _, B = top_eigenvectors(res.Y, k)
        assert s <= support.size < p
        assert subspace_distance(B, V, kind="projection") <= pca_err
    assert np.flatnonzero(np.diag(fantope_admm(S, k, 0.3).Y) > 0).size <= 2 * s
    assert np.flatnonzero(np.diag(fantope_admm(S, k, 0.0).Y) > 0).size == p


def test_sparse_estimator_reports_solver_state(spiked):
    est = LocalSparsePCA(2, epsilon=0.5, delta=1e-4, random_state=0).fit(spiked)
    sigma1 = local_noise_scale(0.5, 1e-4)["noise_scale"]
    assert est.lam_ == pytest.approx(sigma1 * math.sqrt(2 * math.log(6 * 7) / len(spiked)))
    assert est.lam_ == pytest.approx(default_sparse_penalty(sigma1, len(spiked), 6))
    assert est.converged_ and est.n_iter_ == est.primal_residuals_.size
    assert est.solution_.shape == (6, 6)
    assert set(est.support_) <= set(range(6))
    half = LocalSparsePCA(2, epsilon=0.5, delta=1e-4, lam_scale=0.5, random_state=0).fit(spiked)
    assert half.lam_ == pytest.approx(est.lam_ / 2)
    np.testing.assert_array_equal(soft_threshold(np.array([-2.0, 0.5, 3.0]), 1.0), [-1.0, 0.0, 2.0])


# ------------------------------------------------------------------------- bad input
def test_bad_input(spiked):
    X = spiked[:200]
    with pytest.raises(ValueError, match=r"'lam' parameter of LocalSparsePCA must be None or a float in the range \[0.0, inf\)"):
        LocalSparsePCA(2, lam=-0.1).fit(X)
    with pytest.raises(ValueError, match="lam_scale"):
        LocalSparsePCA(2, lam_scale=-1.0).fit(X)
    for k in (0, 7):
        with pytest.raises(ValueError, match="n_components"):
            LocalGaussianPCA(k).fit(X)
        with pytest.raises(ValueError, match="n_components"):
            LocalSparsePCA(k).fit(X)
    with pytest.raises(ValueError, match="'calibration' parameter .* must be a str among"):
        LocalGaussianPCA(2, calibration="central").fit(X)
    with pytest.raises(ValueError, match="'epsilon' parameter .* range \\(0.0, inf\\]"):
        LocalGaussianPCA(2, epsilon=-1.0).fit(X)
    with pytest.raises(ValueError, match="'delta' parameter .* range \\(0.0, 1.0\\)"):
        LocalGaussianPCA(2, delta=1.5).fit(X)
    with pytest.raises(TypeError, match="per_user"):
        LocalGaussianPCA(2, per_user="yes").fit(X)
    with pytest.raises(ValueError, match="'tol' parameter"):
        LocalSparsePCA(2, tol=0.0).fit(X)
    with pytest.raises(ValueError, match="'max_iter' parameter"):
        LocalSparsePCA(2, max_iter=0).fit(X)
    with pytest.raises(ValueError, match="'rho' parameter"):
        LocalSparsePCA(2, rho=-1.0).fit(X)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="rows \\[3\\]"):
        LocalGaussianPCA(2).fit(bad)
    with pytest.raises(ValueError, match="2-D|2D"):
        LocalGaussianPCA(2).fit(X[0])
    with pytest.raises(ValueError, match="single record"):
        LocalGaussianPCA(2).user_report(X[:2])
    with pytest.raises(ValueError, match="features"):
        LocalGaussianPCA(2, epsilon=0.5, random_state=0).fit(X).transform(X[:, :4])
    with pytest.raises(ValueError, match="second_moment"):
        LocalGaussianPCA(2).fit_second_moment(np.ones((3, 4)), 10)


def test_rows_above_the_norm_bound_are_clipped_with_a_warning(spiked):
    X = spiked[:100].copy()
    X[:7] *= 10.0 / np.linalg.norm(X[:7], axis=1, keepdims=True)
    with diagnostics(), pytest.warns(PrivacyWarning, match="some rows of X"):
        est = LocalGaussianPCA(2, epsilon=np.inf).fit(X)
    assert not hasattr(est, "n_clipped_")  # a count of clipped rows is never released
    Xc = X.copy()
    Xc[:7] /= 10.0
    _, exact = top_eigenvectors(Xc.T @ Xc / 100, 2)  # the clipped rows have norm exactly 1
    assert subspace_distance(est.components_, exact, kind="projection") < 1e-10
    assert np.linalg.norm(X[:7], axis=1).min() == pytest.approx(10.0)  # caller's array untouched
    with diagnostics(), pytest.warns(PrivacyWarning, match="some rows of X"):
        assert not hasattr(LocalSparsePCA(2, epsilon=np.inf).fit(X), "n_clipped_")
