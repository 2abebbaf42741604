"""The audit recipes A–E run on every mechanism of the foundation, and flag every mutant.

Each statistical assertion states its theory:
* C: μ̂ has standard error ≈ √(2/N) = 0.01 at N = 20 000; honest mechanisms must satisfy
  μ̂ ≤ μ + 4 SE, and a σ/2 mutant has true μ twice the claim, i.e. ≥ 10 SE above the threshold.
* B: the χ² variance statistic has z = (S/σ² − ν)/√(2ν); a factor-2 (or 4) variance error gives
  |z| > 30 at the sizes used.
* D: Clopper–Pearson bounds at 1 − 1e-3 give a valid lower bound on ε with that confidence.
* E: χ² goodness of fit at α = 1e-3 on 60 bins; Bonferroni z-tests for moments.
"""

import math

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import audit, privacy
from privpca_edu.audit import mutants
from privpca_edu.estimators._bingham import bingham_gibbs, sample_bingham_exact

N_DRAWS = 20_000


# ------------------------------------------------------------------------------ additive: A, B, C
ADDITIVE = [
    # (honest class, mutant class, kwargs, documented σ function of (Δ on released scale, n, d))
    (pp.AnalyzeGauss, mutants.HalfSigmaAnalyzeGauss, dict(epsilon=0.5, delta=1e-5),
     lambda sens, n, d: privacy.gaussian_sigma(sens, 0.5, 1e-5)),
    (pp.AnalyzeGauss, mutants.HalfSigmaAnalyzeGauss, dict(epsilon=2.0, delta=1e-5, calibration="analytic"),
     lambda sens, n, d: privacy.gaussian_sigma(sens, 2.0, 1e-5, method="analytic")),
    (pp.ModSuLQ, mutants.HalfSigmaModSuLQ, dict(epsilon=1.0, delta=0.1),
     lambda sens, n, d: privacy.mod_sulq_noise_scale(d, n, 1.0, 0.1)),
]
IDS = ["AG-classic", "AG-analytic", "MOD-SuLQ"]


@pytest.fixture(scope="module")
def pair():
    return audit.worst_case_pair(20, 3)


@pytest.mark.parametrize("honest,mutant,kwargs,documented_sigma", ADDITIVE, ids=IDS)
def test_recipe_A_sensitivity_is_attained_and_sigma_meets_condition(honest, mutant, kwargs, documented_sigma, pair):
    X, Xp = pair
    n, d = X.shape
    est = honest(1, **kwargs)
    parts = est.release_parts(X)
    # Documented replace-one sensitivity √2 B²/n, attained exactly by the worst-case pair.
    assert parts.sensitivity == pytest.approx(math.sqrt(2) / n, rel=1e-12)
    res = audit.audit_sensitivity(lambda Z: est.release_parts(Z).statistic, X, Xp, parts.sensitivity,
                                  tight_fraction=0.999)
    assert res.passed, res
    # σ satisfies the (exact) Gaussian condition for the claimed (ε, δ) ...
    eps, delta = kwargs["epsilon"], kwargs["delta"]
    assert audit.gaussian_condition_holds(parts.noise_scale, parts.sensitivity, eps, delta, "analytic")
    # ... and the AG σ/2 mutant does not.  MOD-SuLQ's β is ≈ (d+1)/√2 times what the Gaussian
    # mechanism needs for Δ = √2B²/n, so β/2 still meets the condition: its mutant is caught by
    # recipe C against the *documented* μ instead (test_recipe_C_gaussian_dp).
    m_sigma = mutant(1, **kwargs).release_parts(X).noise_scale
    assert m_sigma == pytest.approx(parts.noise_scale / 2)
    if honest is pp.AnalyzeGauss:
        assert not audit.gaussian_condition_holds(m_sigma, parts.sensitivity, eps, delta, "analytic")


def test_recipe_A_sensitivity_check_can_fail(pair):
    X, Xp = pair
    # Claiming the add/remove sensitivity B²/n for the replace-one statistic must be flagged.
    res = audit.audit_sensitivity(lambda Z: Z.T @ Z / len(Z), X, Xp, 1.0 / len(X))
    assert not res.passed
    assert res.values["ratio"] == pytest.approx(math.sqrt(2))


@pytest.mark.parametrize("honest,mutant,kwargs,documented_sigma", ADDITIVE, ids=IDS)
def test_recipe_B_noise_shape(honest, mutant, kwargs, documented_sigma, pair):
    X, _ = pair
    n, d = X.shape
    sigma = documented_sigma(math.sqrt(2) / n, n, d)
    for cls, should_pass in ((honest, True), (mutant, False)):
        est = cls(1, **kwargs)
        noise = est.sample_releases(X, 2000, random_state=5) - est.release_parts(X).statistic
        res = audit.audit_noise_shape(noise, sigma, "upper_iid")
        assert res.passed is should_pass, res
    # Wrong convention (Frobenius: σ²/2 off the diagonal) is flagged on honest noise: z > 30.
    est = honest(1, **kwargs)
    noise = est.sample_releases(X, 2000, random_state=6) - est.release_parts(X).statistic
    res = audit.audit_noise_shape(noise, sigma, "frobenius")
    assert not res.passed and res.values["off-diagonal"]["z"] > 30


@pytest.mark.parametrize("honest,mutant,kwargs,documented_sigma", ADDITIVE, ids=IDS)
def test_recipe_C_gaussian_dp(honest, mutant, kwargs, documented_sigma, pair):
    X, Xp = pair
    n, d = X.shape
    sens = math.sqrt(2) / n
    mu = sens / documented_sigma(sens, n, d)  # the documented claim, independent of the code
    res = audit.audit_release_gdp(honest(1, **kwargs), X, Xp, mu=mu, n_draws=N_DRAWS, random_state=11)
    assert res.passed, res
    assert abs(res.values["mu_hat"] - mu) < 4 * res.values["se"]  # and not wildly conservative
    bad = audit.audit_release_gdp(mutant(1, **kwargs), X, Xp, mu=mu, n_draws=N_DRAWS, random_state=11)
    assert not bad.passed, bad
    assert bad.values["mu_hat"] == pytest.approx(2 * mu, abs=5 * bad.values["se"])


def test_recipe_C_black_box_reading_of_epsilon_delta(pair):
    # Without a documented μ, the claim is the largest μ compatible with (ε, δ).  Analytic
    # calibration is exactly tight: μ = max_gdp_mu(ε, δ).
    X, Xp = pair
    ag = pp.AnalyzeGauss(1, epsilon=1.0, delta=1e-3, calibration="analytic")
    res = audit.audit_release_gdp(ag, X, Xp, n_draws=N_DRAWS, random_state=3)
    assert res.passed, res
    assert res.values["mu_claimed"] == pytest.approx(audit.max_gdp_mu(1.0, 1e-3))
    bad = audit.audit_release_gdp(mutants.HalfSigmaAnalyzeGauss(1, epsilon=1.0, delta=1e-3, calibration="analytic"),
                                  X, Xp, n_draws=N_DRAWS, random_state=3)
    assert not bad.passed, bad


def test_max_gdp_mu_matches_gdp_curve():
    mu = audit.max_gdp_mu(1.0, 1e-5)
    assert privacy.gdp_delta(mu, 1.0) == pytest.approx(1e-5, rel=1e-6)
    assert mu == pytest.approx(1 / 3.7306316, rel=1e-6)  # Balle & Wang (2018): analytic σ(1, 1e-5) = 3.7306


# ------------------------------------------------------------------------------ PPCA: D and E
PPCA_X = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
PPCA_XP = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
# Computed exactly (quadrature) when this pair was chosen: the best threshold event on
# |<v, e1>| spends ε ≈ 0.52 for the honest mechanism at ε = 1 and ≈ 1.28 for the doubled
# exponent, with event probabilities ≈ 0.03 / 0.10 — detectable with 10⁵ held-out draws.


def _ppca_outputs(cls, seed, n=200_000):
    est = cls(1, epsilon=1.0, sampler="exact")
    v = est.sample_components(PPCA_X, n, random_state=seed)
    vp = est.sample_components(PPCA_XP, n, random_state=seed + 1)
    return np.abs(v[:, 0]), np.abs(vp[:, 0])


def test_recipe_D_honest_ppca_passes_and_doubled_exponent_is_flagged():
    s, sp = _ppca_outputs(pp.PPCA, 0)
    res = audit.audit_output_epsilon(s, sp, epsilon=1.0, delta=1e-2)
    assert res.passed, res
    s, sp = _ppca_outputs(mutants.DoubleExponentPPCA, 0)
    bad = audit.audit_output_epsilon(s, sp, epsilon=1.0, delta=1e-2)
    assert not bad.passed, bad


def test_recipe_D_catches_the_library_acceptance_bug():
    s, sp = _ppca_outputs(mutants.DividedRatioPPCA, 4)
    assert not audit.audit_output_epsilon(s, sp, epsilon=1.0, delta=1e-2).passed


def test_clopper_pearson_covers():
    lo, hi = audit.clopper_pearson(30, 100, 0.05)
    assert lo == pytest.approx(0.2124, abs=1e-3) and hi == pytest.approx(0.3998, abs=1e-3)
    assert audit.clopper_pearson(0, 10, 0.05)[0] == 0.0 and audit.clopper_pearson(10, 10, 0.05)[1] == 1.0


@pytest.mark.parametrize(
    "cls,should_pass",
    [(pp.PPCA, True), (mutants.DoubleExponentPPCA, False), (mutants.AlwaysAcceptPPCA, False),
     (mutants.DividedRatioPPCA, False)],
    ids=["honest", "exponent-x2", "always-accept", "divided-ratio"],
)
def test_recipe_E_exact_density_2d(cls, should_pass):
    claimed = pp.PPCA(1, epsilon=1.0).bingham_parameter(PPCA_X)  # the law PPCA documents
    v = cls(1, epsilon=1.0, sampler="exact").sample_components(PPCA_X, 20_000, random_state=21)
    res = audit.audit_bingham_2d(v, claimed)
    assert res.passed is should_pass, res


def test_recipe_E_gibbs_sampler_in_2d():
    # In d = 2 one Gibbs scan redraws y₁² from its exact marginal and both signs uniformly, so
    # independent one-scan chains from a uniform start are exact draws.
    A = np.array([[2.0, 0.8], [0.8, -1.0]])
    rng = np.random.default_rng(9)
    v = np.array([bingham_gibbs(A, 1, 1, rng)[:, 0] for _ in range(6000)])
    assert audit.audit_bingham_2d(v, A, n_bins=30).passed
    assert not audit.audit_bingham_2d(v, 2 * A, n_bins=30).passed


def test_recipe_E_moments_d4_catch_the_library_bug():
    # Ψ = diag(0, 2, 5, 9), true E[x²] = (0.5787, 0.2511, 0.1107, 0.0595).
    A = -np.diag([0.0, 2.0, 5.0, 9.0])
    reference = (np.array([0.5787, 0.2511, 0.1107, 0.0595]), np.full(4, 5e-4))  # importance-sampling values, 4 digits
    good = sample_bingham_exact(A, 100_000, random_state=2)
    assert audit.audit_bingham_moments(good, A, reference=reference).passed
    for broken in (mutants.divided_log_ratio, mutants.always_accept_log_ratio):
        bad = sample_bingham_exact(A, 100_000, random_state=2, log_ratio=broken)
        assert not audit.audit_bingham_moments(bad, A, reference=reference).passed


def test_reference_moments_by_uniform_rejection_agree_with_importance_sampling():
    A = -np.diag([0.0, 2.0, 5.0, 9.0])
    m, se, _ = audit.bingham_reference_moments(A, n_samples=200_000, random_state=1)
    assert np.all(np.abs(m - [0.5787, 0.2511, 0.1107, 0.0595]) < 5 * se + 5e-4)


def test_recipe_E_worst_case_log_ratio():
    # The exponential mechanism's log-density ratio across neighbours must stay ≤ ε.
    honest = pp.PPCA(1, epsilon=1.0)
    r = audit.exponential_mechanism_log_ratio_2d(honest.bingham_parameter(PPCA_X), honest.bingham_parameter(PPCA_XP))
    assert r <= 1.0
    doubled = mutants.DoubleExponentPPCA(1, epsilon=1.0)
    r2 = audit.exponential_mechanism_log_ratio_2d(doubled.bingham_parameter(PPCA_X), doubled.bingham_parameter(PPCA_XP))
    assert r2 > 1.0
    # A concentrated pair (many rows on e1) pushes the honest ratio towards its ε bound.
    Xc, Xcp = audit.worst_case_pair(40, 2)
    rc = audit.exponential_mechanism_log_ratio_2d(honest.bingham_parameter(Xc), honest.bingham_parameter(Xcp))
    assert 0.9 < rc <= 1.0 + 1e-6


def test_audit_result_repr_says_verdict():
    r = audit.AuditResult("C", False, "x")
    assert "FLAGGED" in repr(r)
