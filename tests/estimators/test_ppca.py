"""PPCA and the Bingham samplers (the exponential mechanism of Chaudhuri, Sarwate & Sinha 2013)."""

import math

import numpy as np
import pytest
from scipy import optimize

from privpca_edu import PCA, PPCA, subspace_distance
from privpca_edu.estimators._bingham import bingham_gibbs, sample_bingham_exact

# ---------------------------------------------------------------------------------------------
# Ground truth for the d = 4 test law: density ∝ exp(−xᵀΨx) on S³, Ψ = diag(0, 2, 5, 9)
# (equivalently exp(xᵀAx) with A = −Ψ).
# ---------------------------------------------------------------------------------------------
PSI = np.array([0.0, 2.0, 5.0, 9.0])
A_TEST = -np.diag(PSI)


def _sphere_quadrature(n=64):
    """Gauss–Legendre quadrature on S³ in hyperspherical coordinates (a, b ∈ [0, π], c ∈ [0, 2π],
    dS = sin²a sin b da db dc).  The integrand is smooth, so 64³ nodes give ~1e-12 accuracy
    (checked against 32³ in test_ground_truth)."""
    g, w = np.polynomial.legendre.leggauss(n)
    a, wa = (g + 1) * np.pi / 2, w * np.pi / 2
    c, wc = (g + 1) * np.pi, w * np.pi
    A, B, C = np.meshgrid(a, a, c, indexing="ij")
    W = np.einsum("i,j,k->ijk", wa, wa, wc) * np.sin(A) ** 2 * np.sin(B)
    x = np.stack([np.cos(A), np.sin(A) * np.cos(B), np.sin(A) * np.sin(B) * np.cos(C),
                  np.sin(A) * np.sin(B) * np.sin(C)], axis=-1)
    return x.reshape(-1, 4), W.ravel() / (2 * np.pi**2)  # weights of the uniform probability measure


def bingham_truth(psi=PSI, n=64):
    """E[x_i²], E[x_i⁴] under the Bingham law and E_unif[exp(−xᵀΨx)]."""
    x, w = _sphere_quadrature(n)
    f = np.exp(-(x**2) @ psi) * w
    Z = f.sum()
    return (f @ x**2) / Z, (f @ x**4) / Z, Z


M2, M4, E_UNIF = bingham_truth()


def test_ground_truth():
    m2_coarse, _, _ = bingham_truth(n=32)
    np.testing.assert_allclose(M2, m2_coarse, atol=1e-10)
    assert M2.sum() == pytest.approx(1.0, abs=1e-12)
    # importance-sampling values to 4 digits (0.5787, 0.2511, 0.1107, 0.0595); quadrature gives
    # (0.57831, 0.25117, 0.11101, 0.05951): the IS estimate is good to ~5e-4.
    np.testing.assert_allclose(M2, [0.5787, 0.2511, 0.1107, 0.0595], atol=1e-3)


def check_bingham_moments(means, standard_errors, truth=M2, n_se=5.0):
    """Assert every E[x_i²] estimate is within ``n_se`` standard errors of the truth.

    With independent draws the standard error is √(Var(x_i²)/N), Var from the quadrature;
    5 SE makes a false alarm (any of 4 coordinates) ~2e-6 under the CLT.
    """
    means, standard_errors = np.asarray(means), np.asarray(standard_errors)
    z = np.abs(means - truth) / standard_errors
    assert np.all(z <= n_se), f"moments {means.round(4)} vs truth {truth.round(4)}: |z| = {z.round(1)}"


def iid_standard_errors(N, m2=M2, m4=M4):
    return np.sqrt((m4 - m2**2) / N)


# ---------------------------------------------------------------------------------------------
# Exact (Kent–Ganeiber–Mardia) sampler, k = 1
# ---------------------------------------------------------------------------------------------
N_DRAWS = 200_000


def kgm_constants(psi=PSI):
    """b, |Ω|^{1/2} and M of the ACG envelope, computed here independently of the package."""
    d = psi.size
    b = optimize.brentq(lambda b: np.sum(1 / (b + 2 * psi)) - 1, 1.0, float(d), xtol=1e-14)
    det_sqrt = math.sqrt(np.prod(1 + 2 * psi / b))
    M = math.exp(-(d - b) / 2) * (d / b) ** (d / 2)
    return b, det_sqrt, M


def test_exact_sampler_moments_and_acceptance():
    x, rate = sample_bingham_exact(A_TEST, size=N_DRAWS, random_state=0, return_rate=True)
    assert x.shape == (N_DRAWS, 4)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-12)
    # 5 SE here is about (0.0033, 0.0029, 0.0017, 0.0009): tighter than a ±0.01 band
    check_bingham_moments((x**2).mean(axis=0), iid_standard_errors(N_DRAWS))

    # Acceptance.  The proposal is the ACG law g(x) = |Ω|^{1/2}(xᵀΩx)^{−d/2} (density w.r.t. the
    # uniform measure) and a proposal is accepted with probability f*(x)(xᵀΩx)^{d/2}/M, so
    #   P(accept) = E_g[f*(x)(xᵀΩx)^{d/2}]/M = |Ω|^{1/2} E_unif[exp(−xᵀΨx)] / M ≈ 0.718.
    # "About 0.50" would be 1/M = 0.480, which is only a lower bound on that.
    b, det_sqrt, M = kgm_constants()
    assert b == pytest.approx(1.4732, abs=1e-4) and 1 / M == pytest.approx(0.48, abs=1e-3)
    theory = det_sqrt * E_UNIF / M
    assert theory == pytest.approx(0.718, abs=1e-3)
    # ≥ N/0.72 ≈ 2.8e5 proposals, so the binomial SE is ≤ √(0.718·0.282/2.8e5) = 8.5e-4; allow 5 SE
    assert rate == pytest.approx(theory, abs=5 * 8.5e-4)
    assert rate > 1 / M + 0.2


def _divided_log_ratio(x, psi, omega, log_M):
    """The diffprivlib / OpenDP line: divides by (xᵀΩx)^{d/2} where KGM multiplies.

    Already ≤ 0 everywhere (xᵀΩx ≥ 1 and M ≥ 1), so no clipping is needed."""
    d = x.shape[1]
    x2 = x * x
    return -(x2 @ psi) - (d / 2) * np.log(x2 @ omega) - log_M


def test_divided_ratio_bug_is_caught_by_the_same_checker():
    # 20 000 draws suffice (the bug moves E[x₁²] by 0.31, ~150 SE) and keep this fast: the
    # broken ratio accepts only ~5 % of proposals.
    n = 20_000
    x, rate = sample_bingham_exact(A_TEST, size=n, random_state=0, log_ratio=_divided_log_ratio,
                                   return_rate=True)
    means = (x**2).mean(axis=0)
    assert means[0] == pytest.approx(0.889, abs=0.01)  # what the buggy samplers produce
    with pytest.raises(AssertionError, match="moments"):
        check_bingham_moments(means, iid_standard_errors(n))
    assert rate < 0.1  # and its acceptance rate is far off too (≈ 0.05)


def test_exact_sampler_single_draw_and_seed():
    v = sample_bingham_exact(A_TEST, random_state=3)
    assert v.shape == (4,) and np.linalg.norm(v) == pytest.approx(1.0)
    assert np.array_equal(v, sample_bingham_exact(A_TEST, random_state=3))


def test_exact_sampler_invariant_to_adding_identity():
    # exp(xᵀ(A + cI)x) = e^c exp(xᵀAx) on the sphere: same law, and the sampler shifts Ψ so
    # that min ψ = 0 — the same draws for the same seed.
    a = sample_bingham_exact(A_TEST, size=50, random_state=1)
    b = sample_bingham_exact(A_TEST + 7.0 * np.eye(4), size=50, random_state=1)
    np.testing.assert_allclose(np.abs(a), np.abs(b), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# PPCA's law end to end: concentration ε/(2B²)
# ---------------------------------------------------------------------------------------------


def _rows_with_gram(counts):
    """X whose rows are unit basis vectors, e_i repeated counts[i] times: XᵀX = diag(counts)."""
    return np.vstack([np.tile(np.eye(len(counts))[i], (c, 1)) for i, c in enumerate(counts) if c])


def test_ppca_samples_the_bingham_law_with_concentration_eps_over_2B2():
    # XᵀX = diag(18, 14, 8, 0) and ε = 1, B = 1: ε/(2B²)·XᵀX = diag(9, 7, 4, 0) = 9I − Ψ,
    # the test law above.  diffprivlib's ε/(4B²) would give Ψ/2, which the checker rejects.
    X = _rows_with_gram([18, 14, 8, 0])
    est = PPCA(n_components=1, epsilon=1.0, sampler="exact")
    np.testing.assert_allclose(est.bingham_parameter(X), np.diag([9.0, 7.0, 4.0, 0.0]))
    x = est.sample_components(X, N_DRAWS, random_state=1)
    check_bingham_moments((x**2).mean(axis=0), iid_standard_errors(N_DRAWS))
    half = sample_bingham_exact(0.25 * (X.T @ X), size=N_DRAWS, random_state=1)
    with pytest.raises(AssertionError, match="moments"):
        check_bingham_moments((half**2).mean(axis=0), iid_standard_errors(N_DRAWS))


# ---------------------------------------------------------------------------------------------
# Gibbs sampler
# ---------------------------------------------------------------------------------------------


def test_gibbs_k1_long_chain_matches_the_moments():
    # One chain of 40 000 sweeps, 1 000 discarded as burn-in, thinned by 2 → 19 500 draws.
    # They may be autocorrelated, so the standard error is estimated by batch means (50 batches
    # of 390): SE_i = sd(batch means)/√50.  Honest caveats: this SE is itself estimated from
    # the chain (≈ 10 % relative error with 50 batches), and it assumes the batches are long
    # compared with the autocorrelation time.  For this small, well-conditioned law one full
    # scan nearly decorrelates the state (measured lag-1 autocorrelation of x_i² ≈ −0.02), so
    # the implied effective sample size is close to the number of draws; we require ≥ 5 000,
    # which also makes the check sensitive (5 SE ≤ 0.012 on E[x₁²], like a ±0.01 band).
    sweeps, burn, thin, n_batches = 40_000, 1_000, 2, 50
    trace = np.empty((sweeps, 4))

    def record(sweep, V):
        trace[sweep] = V[:, 0] ** 2

    bingham_gibbs(A_TEST, 1, sweeps, random_state=2024, callback=record)
    draws = trace[burn::thin]
    draws = draws[: len(draws) // n_batches * n_batches]
    batch_means = draws.reshape(n_batches, -1, 4).mean(axis=1)
    se = batch_means.std(axis=0, ddof=1) / math.sqrt(n_batches)
    ess = (M4 - M2**2) / se**2
    assert np.all(ess >= 5000), ess
    assert 5 * se[0] <= 0.012
    check_bingham_moments(draws.mean(axis=0), se)


def test_gibbs_k2_stays_on_the_stiefel_manifold():
    rng = np.random.default_rng(5)
    Y = rng.standard_normal((50, 7)) * np.linspace(2, 0.2, 7)
    A = 3.0 * Y.T @ Y
    errors, states = [], []

    def check(sweep, V):
        errors.append(np.max(np.abs(V.T @ V - np.eye(2))))
        states.append(V.copy())

    V = bingham_gibbs(A, 2, 300, random_state=0, callback=check)
    assert len(errors) == 300
    assert max(errors) <= 1e-10
    assert V.shape == (7, 2)
    assert not np.allclose(states[0], states[-1])  # the chain moves


def test_gibbs_concentrates_on_the_top_subspace():
    # ε large: the Bingham law concentrates at the top-k eigenvectors; Gibbs must get there
    X = np.random.default_rng(6).standard_normal((200, 6)) * np.array([1.0, 0.8, 0.3, 0.2, 0.1, 0.05])
    X /= np.linalg.norm(X, axis=1).max()
    pca = PCA(2, center=False).fit(X)  # the Bingham law is built on XᵀX
    est = PPCA(2, epsilon=1e5, n_iter=100, random_state=0).fit(X)
    assert subspace_distance(est.components_, pca.components_) < 0.05


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


def unit_X(n=200, d=6, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d)) * np.linspace(2.0, 0.2, d)
    return X / np.linalg.norm(X, axis=1).max()


def test_contract(check_sklearn_contract):
    check_sklearn_contract(PPCA, dict(n_components=2, epsilon=0.5, n_iter=5, random_state=0), unit_X())
    check_sklearn_contract(PPCA, dict(n_components=1, epsilon=2.0, sampler="exact", random_state=1), unit_X())
    assert repr(PPCA(n_components=3, sampler="exact")) == "PPCA(n_components=3, sampler='exact')"
    assert "delta" not in PPCA().get_params()


def test_epsilon_inf_gives_pca_components():
    X = unit_X()
    pca = PCA(n_components=3, center=False).fit(X)
    est = PPCA(n_components=3, epsilon=np.inf).fit(X)
    # the same eigenproblem up to the factor 1/n (so equal to rounding, not bit for bit)
    np.testing.assert_allclose(est.components_, pca.components_, atol=1e-10)
    assert est.noise_scale_ == 0.0 and est.privacy_.is_private is False
    k1 = PPCA(n_components=1, epsilon=np.inf, sampler="exact").fit(X)
    np.testing.assert_allclose(k1.components_, pca.components_[:1], atol=1e-10)


def test_exact_sampler_fit_k1():
    X = unit_X()
    a = PPCA(n_components=1, epsilon=0.7, sampler="exact", random_state=4).fit(X)
    b = PPCA(n_components=1, epsilon=0.7, sampler="exact", random_state=4).fit(X)
    assert a.components_.shape == (1, 6)
    assert np.linalg.norm(a.components_) == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(a.components_, b.components_)


def test_privacy_record_is_pure_dp():
    est = PPCA(n_components=2, epsilon=0.5, data_norm=2.0, n_iter=3, random_state=0).fit(unit_X())
    assert est.delta == 0.0
    rec = est.privacy_
    assert rec.delta == 0 and rec.epsilon == 0.5
    assert rec.model == "central" and rec.neighbouring == "replace-one" and rec.data_norm == 2.0
    # an approximate sampler carries no proof: recorded not private, and the note says why
    assert rec.is_private is False and "Gibbs" in rec.note and "exact" in rec.note
    assert est.concentration_ == pytest.approx(0.5 / (2 * 4.0))
    assert est.noise_scale_ == pytest.approx(2 * 4.0 / 0.5)
    assert rec.sensitivity == 4.0  # Δq = B²
