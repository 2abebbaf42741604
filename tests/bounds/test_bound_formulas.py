"""Every theorem function of ``privpca_edu.bounds`` against a hand computation of its stated formula.

For each bound: one setting computed by hand from the displayed formula (written out again here,
independently of the module), then its scaling in each parameter it depends on (n, d or p, s, k,
ε, δ, T).  Scalings are exact identities of the formulas, so the tolerances are rounding only.
A last test keeps the docstrings and labels free of words about how the formulas were obtained.
"""

import inspect
import math
import warnings

import numpy as np
import pytest

from privpca_edu import bounds
from privpca_edu.bounds import distributed as _bounds_dps
from privpca_edu.bounds import local as _bounds_ldp
from privpca_edu.bounds import robust as _bounds_robust
from privpca_edu.privacy import dps_pca_sigma

REL = 1e-12


# ---------------------------------------------------------------------------------- Davis–Kahan
def test_davis_kahan_hand_value_and_scaling():
    # YWS Thm 2 with r = 1, s = k: 2 min(√k‖E‖₂, ‖E‖_F) / (λ_k − λ_{k+1})
    r = bounds.davis_kahan(0.3, 2.0, 0.5, 9)
    assert r["sin_theta_bound"] == pytest.approx(2 * min(3 * 0.3, 2.0) / 0.5, rel=REL)  # = 3.6
    assert r["binding"] == "spectral"
    # linear in the noise, inverse in the gap, √k while the spectral term binds
    assert bounds.davis_kahan(0.6, 4.0, 0.5, 9)["sin_theta_bound"] == pytest.approx(2 * r["sin_theta_bound"], rel=REL)
    assert bounds.davis_kahan(0.3, 2.0, 1.0, 9)["sin_theta_bound"] == pytest.approx(r["sin_theta_bound"] / 2, rel=REL)
    assert bounds.davis_kahan(0.3, 9.0, 0.5, 36)["spectral_term"] == pytest.approx(2 * r["spectral_term"], rel=REL)


# -------------------------------------------------------------------- Analyze Gauss / MOD-SuLQ
def test_analyze_gauss_bound_hand_value_and_scaling():
    n, d, k, eps, delta, gap = 5000, 40, 2, 0.5, 1e-6, 0.3
    sigma = math.sqrt(2) / n * math.sqrt(2 * math.log(1.25 / delta)) / eps  # classic, B = 1
    spectral, frob = 2 * math.sqrt(d) * sigma, d * sigma
    r = bounds.analyze_gauss_bound(n, d, k, eps, delta, gap)
    assert r["noise_scale"] == pytest.approx(sigma, rel=REL)
    assert r["davis_kahan"] == pytest.approx(2 * min(math.sqrt(k) * spectral, frob) / gap, rel=REL)
    # n: 1/n; ε: 1/ε (classic σ); d: √d (spectral term binds); k: √k; δ: √log(1.25/δ)
    assert bounds.analyze_gauss_bound(2 * n, d, k, eps, delta, gap)["davis_kahan"] == pytest.approx(r["davis_kahan"] / 2)
    assert bounds.analyze_gauss_bound(n, d, k, eps / 2, delta, gap)["davis_kahan"] == pytest.approx(2 * r["davis_kahan"])
    assert bounds.analyze_gauss_bound(n, 4 * d, k, eps, delta, gap)["davis_kahan"] == pytest.approx(2 * r["davis_kahan"])
    assert bounds.analyze_gauss_bound(n, d, 8, eps, delta, gap)["davis_kahan"] == pytest.approx(2 * r["davis_kahan"])
    ratio = math.sqrt(math.log(1.25 / 1e-3) / math.log(1.25 / delta))
    assert bounds.analyze_gauss_bound(n, d, k, eps, 1e-3, gap)["davis_kahan"] == pytest.approx(ratio * r["davis_kahan"])


def test_mod_sulq_bound_hand_value():
    n, d, k, eps, delta, gap = 10_000, 50, 1, 2.0, 0.1, 0.5
    beta = (d + 1) / (n * eps) * math.sqrt(2 * math.log((d * d + d) / (2 * math.sqrt(2 * math.pi) * delta))) \
        + 1 / (n * math.sqrt(eps))
    r = bounds.mod_sulq_bound(n, d, k, eps, delta, gap)
    assert r["noise_scale"] == pytest.approx(beta, rel=REL)
    assert r["davis_kahan"] == pytest.approx(2 * min(2 * math.sqrt(d) * beta, d * beta) / gap, rel=REL)


# ------------------------------------------------------------------------ DPS-PCA, Theorem 4.3
LAM = [100.0] * 5 + [10.0] * 995  # the §5.1 spectrum of Ge et al.: λ_k = 100, λ_{k+1} = 10


def _thm43_by_hand(eps, delta, T, n, N, d, k, s_star, s_hat, lam1, lamk, lamk1, tau, C1=1.0, C2=1.0):
    sigma = 2 * T * math.sqrt(2 * math.log(2 * T / delta)) / eps if math.isfinite(eps) else 0.0
    gamma = (3 * lamk1 + lamk) / (3 * lamk + lamk1)
    alpha = 2 * k * N * sigma * (math.sqrt(s_hat) + math.sqrt(k) + tau) / (n * lamk)
    rho = gamma / (1 - alpha)
    g = math.sqrt(lam1 * lamk1) / (lamk - lamk1)
    xi_stat = C1 * math.sqrt(k) / (1 - rho**0.25) * g * math.sqrt(s_star * (k + math.log(d)) / n)
    xi_priv = (1 + 2 * math.sqrt(k * s_star / s_hat)) * alpha / (1 - alpha) / (math.sqrt(3) * (1 - rho**0.25))
    xi_opt = [rho ** ((t - 1) / 4) * min(math.sqrt(rho * (1 - math.sqrt(rho))) / 2, 0.25) for t in range(1, T + 1)]
    success = 1 - 2 * T * math.exp(-tau**2 / 2) - 4 / (n - 1) - 1 / d - 6 * math.log(n) / n - 1 / n
    lower = C2 * g * math.sqrt(s_star * (k + math.log(d) / 4) / n)
    return dict(sigma=sigma, gamma=gamma, alpha=alpha, rho=rho, xi_stat=xi_stat, xi_priv=xi_priv,
                xi_opt=np.array(xi_opt), success_prob=success, minimax_lower=lower)


def test_dps_pca_theorem_hand_value():
    args = (1.5, 0.3, 10, 10**5, 1, 1000, 5, 10, 50)
    tau = math.sqrt(2 * math.log(40 * 10))
    out = _bounds_dps.dps_pca(*args, LAM, C1=2.0, C2=3.0)
    hand = _thm43_by_hand(*args, 100.0, 100.0, 10.0, tau, C1=2.0, C2=3.0)
    assert out["tau"] == pytest.approx(tau, rel=REL)
    for key in ("sigma", "gamma", "alpha", "rho", "xi_stat", "xi_priv", "success_prob", "minimax_lower"):
        assert out[key] == pytest.approx(hand[key], rel=1e-10), key
    np.testing.assert_allclose(out["xi_opt"], hand["xi_opt"], rtol=1e-10)
    np.testing.assert_allclose(out["total"], hand["xi_stat"] + hand["xi_priv"] + hand["xi_opt"], rtol=1e-10)
    assert out["valid"] and out["sigma"] == pytest.approx(dps_pca_sigma(1.5, 0.3, 10), rel=REL)


def test_dps_pca_theorem_scaling():
    base = dict(epsilon=np.inf, delta=0.3, n_iter=10, n_samples=10**5, n_providers=1, n_features=1000,
                n_components=5, support_size=10, sparsity=50, eigenvalues=LAM)
    b = _bounds_dps.dps_pca(**base)
    assert b["alpha"] == 0 and b["xi_priv"] == 0 and b["rho"] == pytest.approx(b["gamma"])
    # without noise: ξ_stat and the lower bound ∝ n^{-1/2} and ∝ √s*; ξ_stat ∝ √(k + log d)
    q = _bounds_dps.dps_pca(**{**base, "n_samples": 4 * 10**5})
    assert q["xi_stat"] == pytest.approx(b["xi_stat"] / 2) and q["minimax_lower"] == pytest.approx(b["minimax_lower"] / 2)
    s = _bounds_dps.dps_pca(**{**base, "support_size": 40})
    assert s["xi_stat"] == pytest.approx(2 * b["xi_stat"]) and s["minimax_lower"] == pytest.approx(2 * b["minimax_lower"])
    d2 = _bounds_dps.dps_pca(**{**base, "n_features": 2000, "eigenvalues": [100.0] * 5 + [10.0] * 1995})
    assert d2["xi_stat"] / b["xi_stat"] == pytest.approx(math.sqrt((5 + math.log(2000)) / (5 + math.log(1000))))
    assert d2["minimax_lower"] / b["minimax_lower"] == pytest.approx(
        math.sqrt((5 + math.log(2000) / 4) / (5 + math.log(1000) / 4)))
    k3 = _bounds_dps.dps_pca(**{**base, "n_components": 3, "eigenvalues": [100.0] * 3 + [10.0] * 997})
    assert k3["xi_stat"] / b["xi_stat"] == pytest.approx(math.sqrt(3 / 5) * math.sqrt((3 + math.log(1000)) / (5 + math.log(1000))))
    # with noise: α ∝ σ ∝ 1/ε, α ∝ N, α ∝ 1/n; σ ∝ √log(2T/δ) in δ; ξ_opt contracts by ρ^{1/4}
    noisy = {**base, "epsilon": 2.0, "n_samples": 10**7, "tau": 2.0}
    a = _bounds_dps.dps_pca(**noisy)
    assert _bounds_dps.dps_pca(**{**noisy, "epsilon": 4.0})["alpha"] == pytest.approx(a["alpha"] / 2)
    assert _bounds_dps.dps_pca(**{**noisy, "n_providers": 3})["alpha"] == pytest.approx(3 * a["alpha"])
    assert _bounds_dps.dps_pca(**{**noisy, "n_samples": 2 * 10**7})["alpha"] == pytest.approx(a["alpha"] / 2)
    assert _bounds_dps.dps_pca(**{**noisy, "delta": 0.01})["alpha"] / a["alpha"] == pytest.approx(
        math.sqrt(math.log(2 * 10 / 0.01) / math.log(2 * 10 / 0.3)))
    np.testing.assert_allclose(a["xi_opt"][1:] / a["xi_opt"][:-1], a["rho"] ** 0.25)
    # T: σ ∝ T√log(2T/δ) and the failure probability 2Te^{-τ²/2} grows with T
    t20 = _bounds_dps.dps_pca(**{**noisy, "n_iter": 20})
    assert t20["sigma"] / a["sigma"] == pytest.approx(2 * math.sqrt(math.log(40 / 0.3) / math.log(20 / 0.3)))
    assert a["success_prob"] - t20["success_prob"] == pytest.approx(20 * math.exp(-2.0))


def test_dps_pca_theorem_needs_s_hat_at_least_s_star():
    # Algorithm 1 keeps ŝ rows; the theorem is stated for ŝ ≥ s* (it cannot keep a support it drops).
    ok = _bounds_dps.dps_pca(1.0, 0.3, 10, 10**5, 1, 1000, 5, 10, 10, LAM)
    low = _bounds_dps.dps_pca(1.0, 0.3, 10, 10**5, 1, 1000, 5, 10, 9, LAM)
    assert ok["valid"] and not low["valid"] and "ŝ = 9 < s* = 10" in low["reason"]


@pytest.mark.parametrize("sparsity", [5, 20])
def test_privacy_for_free_map_agrees_with_the_theorem_point_by_point(sparsity):
    from privpca_edu.experiments.dps_pca import privacy_for_free_map

    lam = np.r_[[0.06] * 5, [0.007] * 195]
    eps, ns = np.array([0.5, 5.0, 20.0, 80.0]), np.array([1000, 20_000, 10**6])
    m = privacy_for_free_map(delta=1e-5, n_iter=10, n_providers=1, n_features=200, n_components=5,
                             support_size=10, sparsity=sparsity, eigenvalues=lam, epsilons=eps, n_samples=ns)
    assert m["valid"].any() == (sparsity >= 10)
    for i, e in enumerate(eps):
        for j, n in enumerate(ns):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ε/T ≥ 1: the paper's σ outside its proof (theory only)
                b = _bounds_dps.dps_pca(e, 1e-5, 10, int(n), 1, 200, 5, 10, sparsity, lam)
            assert m["valid"][i, j] == b["valid"], (e, n)
            if b["valid"]:
                assert m["ratio"][i, j] == pytest.approx(b["xi_priv"] / b["xi_stat"], rel=1e-10)


# ------------------------------------------------------------------ Wang & Xu, Theorems 1–4
def _spikes(p, k, top=2.0, rest=1.0):
    return [top] * k + [rest] * (p - k)  # σ_k² = top·rest/(top − rest)² = 2 for all k, p


def test_ldp_dense_bounds_hand_values():
    n, p, k, eps, delta = 20_000, 12, 4, 0.4, 1e-3
    lam = _spikes(p, k, 3.0, 1.0)  # λ₁ = 3, λ_k = 3, λ_{k+1} = 1
    lower = _bounds_ldp.ldp_lower_bound(n, p, k, eps, lam, constant=2.5)
    assert lower["squared_sin_theta"] == pytest.approx(2.5 * (3 * 1 / 2**2) * k * p / (n * eps**2), rel=REL)
    upper = _bounds_ldp.local_gaussian_upper_bound(n, p, k, eps, delta, lam, constant=2.5)
    assert upper["squared_sin_theta"] == pytest.approx(2.5 * 9 / 4 * k * p * math.log(1 / delta) / (n * eps**2), rel=REL)
    assert upper["numerator_one"] == pytest.approx(2.5 / 4 * k * p * math.log(1 / delta) / (n * eps**2), rel=REL)
    assert upper["projection_distance"] == pytest.approx(math.sqrt(2 * upper["squared_sin_theta"]), rel=REL)


def test_ldp_sparse_bounds_hand_values():
    n, p, k, s, eps = 50_000, 300, 2, 12, 0.5
    lam = _spikes(p, k, 3.0, 1.0)
    lower = _bounds_ldp.ldp_sparse_lower_bound(n, p, k, s, eps, lam)
    assert lower["squared_sin_theta"] == pytest.approx(0.75 * s * (k + math.log(p)) / (n * eps**2), rel=REL)
    assert lower["abstract_rate_ratio"] == pytest.approx(k * s * math.log(p) / (s * (k + math.log(p))), rel=REL)
    upper = _bounds_ldp.local_sparse_upper_bound(n, p, k, s, eps, lam)
    assert upper["squared_sin_theta"] == pytest.approx(9 / 4 * s**2 * math.log(p) / (n * eps**2), rel=REL)
    assert upper["gap_to_lower"] == pytest.approx((3 / 1) * s * math.log(p) / (k + math.log(p)), rel=REL)


@pytest.mark.parametrize("name", ["ldp_lower_bound", "local_gaussian_upper_bound",
                                  "ldp_sparse_lower_bound", "local_sparse_upper_bound"])
def test_ldp_bounds_scaling(name):
    fn = getattr(_bounds_ldp, name)
    sparse = "sparse" in name
    dense_upper = name == "local_gaussian_upper_bound"

    def b(n=10**6, p=400, k=2, s=10, eps=0.5, delta=1e-4):
        args = [n, p, k] + ([s] if sparse else []) + [eps] + ([delta] if dense_upper else [])
        return fn(*args, _spikes(p, k))["squared_sin_theta"]

    ref = b()
    assert b(n=2 * 10**6) == pytest.approx(ref / 2)                 # 1/n
    assert b(eps=0.25) == pytest.approx(4 * ref)                    # 1/ε²
    p_factor = {"ldp_lower_bound": 2, "local_gaussian_upper_bound": 2,
                "ldp_sparse_lower_bound": (2 + math.log(800)) / (2 + math.log(400)),
                "local_sparse_upper_bound": math.log(800) / math.log(400)}[name]
    assert b(p=800) == pytest.approx(p_factor * ref)                # p, log p or k + log p
    k_factor = {"ldp_lower_bound": 2, "local_gaussian_upper_bound": 2,
                "ldp_sparse_lower_bound": (4 + math.log(400)) / (2 + math.log(400)),
                "local_sparse_upper_bound": 1.0}[name]
    assert b(k=4) == pytest.approx(k_factor * ref)                  # k (σ_k² held fixed)
    if sparse:
        assert b(s=20) == pytest.approx((4 if "upper" in name else 2) * ref)   # s² or s
    if dense_upper:
        assert b(delta=1e-8) == pytest.approx(2 * ref)              # log(1/δ)
    else:
        assert b(delta=1e-8) == ref                                 # no δ in the others


# ----------------------------------------------------------------- Kim & Jung, §2–§3 bounds
LAM_K = np.array([0.4, 0.3, 0.1, 0.1, 0.1])


def test_prop_21_noise_scale_is_eq_25():
    for g2, n, eps, delta in ((1.0, 500, 1.0, 1e-5), (9.0, 2000, 0.3, 1e-3)):
        r = _bounds_robust.kendall_dppca_thm32(LAM_K, 2, n, 5, eps, delta, g_sup2=g2)
        assert r["noise_scale"] == pytest.approx(4 * g2 * math.sqrt(2 * math.log(1.25 / delta)) / (n * eps), rel=REL)


def test_population_kendall_pair_scale_matches_the_papers_definition():
    lam = [4.0, 2.0, 1.0, 1.0]
    kw = dict(n_draws=20_000, random_state=3)
    sph = _bounds_robust.kendall_population_eigenvalues(lam, **kw)
    np.testing.assert_allclose(_bounds_robust.kendall_population_eigenvalues(lam, pair_scale="sqrt2", **kw), sph)
    # g((x − x')/√2) at radius r  ==  ½ · g(x − x') at radius √2 r   (same draws: exact)
    a = _bounds_robust.kendall_population_eigenvalues(lam, "winsorized", 1.5, pair_scale="sqrt2", **kw)
    b = _bounds_robust.kendall_population_eigenvalues(lam, "winsorized", 1.5 * math.sqrt(2), **kw)
    np.testing.assert_allclose(a, b / 2, rtol=1e-12)
    with pytest.raises(ValueError, match="pair_scale"):
        _bounds_robust.kendall_population_eigenvalues(lam, pair_scale="half", **kw)


def test_kendall_thm32_hand_value_and_scaling():
    n, d, k, eps, delta, alpha, g2, C = 800, 5, 2, 0.7, 1e-4, 0.1, 1.0, 1.5
    gap_ratio = 0.4 / (0.3 - 0.1)
    privacy = g2 / 0.4 * (math.sqrt(d) + math.sqrt(math.log(1 / alpha))) * math.sqrt(math.log(1.25 / delta)) / (n * eps)
    statistical = math.sqrt(g2 * math.log(d / alpha) / (n * 0.4))
    r = _bounds_robust.kendall_dppca_thm32(LAM_K, k, n, d, eps, delta, alpha=alpha, C=C)
    assert r["privacy"] == pytest.approx(privacy, rel=REL) and r["statistical"] == pytest.approx(statistical, rel=REL)
    assert r["raw"] == pytest.approx(C * gap_ratio * (privacy + statistical), rel=REL)

    def f(**kw):
        args = dict(lam_K=LAM_K, n_components=k, n_samples=n, n_features=d, epsilon=eps, delta=delta, alpha=alpha)
        args.update(kw)
        return _bounds_robust.kendall_dppca_thm32(**args)

    assert f(n_samples=4 * n)["privacy"] == pytest.approx(privacy / 4)           # 1/n
    assert f(n_samples=4 * n)["statistical"] == pytest.approx(statistical / 2)   # 1/√n
    assert f(epsilon=2 * eps)["privacy"] == pytest.approx(privacy / 2)           # 1/ε
    assert f(epsilon=2 * eps)["statistical"] == pytest.approx(statistical)
    assert f(delta=1e-8)["privacy"] / privacy == pytest.approx(math.sqrt(math.log(1.25e8) / math.log(1.25e4)))
    r20 = f(n_features=20)                                                        # √d + √log(1/α); log(d/α)
    assert r20["privacy"] / privacy == pytest.approx((math.sqrt(20) + math.sqrt(math.log(10))) / (math.sqrt(5) + math.sqrt(math.log(10))))
    assert r20["statistical"] / statistical == pytest.approx(math.sqrt(math.log(200) / math.log(50)))
    # k enters only through the eigen-gap λ_k − λ_{k+1}
    assert f(n_components=1)["gap_ratio"] == pytest.approx(0.4 / 0.1)


def test_kendall_thm34_hand_value_and_scaling():
    n, d, eta = 1000, 5, 0.05
    r = _bounds_robust.kendall_dppca_thm34(LAM_K, 2, n, d, 1.0, 1e-5, eta, alpha=0.05)
    clean = _bounds_robust.kendall_dppca_thm32(LAM_K, 2, n - 50, d, 1.0, 1e-5, alpha=0.05)
    base = _bounds_robust.kendall_dppca_thm32(LAM_K, 2, n, d, 1.0, 1e-5, alpha=0.05)
    bias = 2 * eta * 1.0 / 0.4 * n / (n - 1)
    assert r["contamination_bias"] == pytest.approx(bias, rel=REL)
    assert r["raw"] == pytest.approx(2.0 * (base["privacy"] + clean["statistical"] + bias), rel=REL)
    # Δ₃ ∝ η and does not shrink with ε
    r2 = _bounds_robust.kendall_dppca_thm34(LAM_K, 2, n, d, 50.0, 1e-5, 2 * eta, alpha=0.05)
    assert r2["contamination_bias"] == pytest.approx(2 * bias, rel=REL)


def test_kendall_thm34_statistical_term_uses_the_stated_clean_size():
    # Δ₂ = √(‖g‖² log(d/α) / ((1 − η) n λ₁)): the stated (1 − η)n, not the integer n − ⌊ηn⌋ (951 here)
    n, d, eta, alpha = 1001, 5, 0.05, 0.05
    r = _bounds_robust.kendall_dppca_thm34(LAM_K, 2, n, d, 1.0, 1e-5, eta, alpha=alpha)
    assert r["n_replaced"] == 50
    assert r["statistical"] == pytest.approx(math.sqrt(math.log(d / alpha) / ((1 - eta) * n * 0.4)), rel=REL)
    assert r["condition"] == ((1 - eta) * n >= math.log(d / alpha) / 0.4)
    # the explicit variant keeps the exact clean count n − m
    e = _bounds_robust.kendall_dppca_thm34(LAM_K, 2, n, d, 1.0, 1e-5, eta, alpha=alpha, explicit=True)
    clean = _bounds_robust.kendall_dppca_thm32(LAM_K, 2, n - 50, d, 1.0, 1e-5, alpha=alpha, explicit=True)
    assert e["statistical"] == pytest.approx(clean["statistical"], rel=REL)


def test_kendall_breakdown_hand_value_and_scaling():
    lam_hat, n = [0.6, 0.25, 0.15], 101
    r = _bounds_robust.kendall_breakdown(lam_hat, 1, n, n_replaced=10, g_sup2=1.0)
    rho = (n - 10) * (n - 11) / (n * (n - 1))
    assert r["breakdown_lower_bound"] == pytest.approx((n - 1) / n * 0.35 / 4, rel=REL)
    assert r["perturbation"] == pytest.approx(1 - rho, rel=REL)
    assert r["sin_theta_bound"] == pytest.approx(2 * (1 - rho) / 0.35, rel=REL)
    # the largest m with 2(1 − ρ_m)‖g‖² < gap, by direct search
    m_star = max(m for m in range(n + 1) if 2 * (1 - (n - m) * (n - m - 1) / (n * (n - 1))) < 0.35)
    assert r["guaranteed_replacements"] == m_star
    # ∝ 1/‖g‖∞² and ∝ the eigengap
    assert _bounds_robust.kendall_breakdown(lam_hat, 1, n, g_sup2=2.0)["breakdown_lower_bound"] == pytest.approx(
        r["breakdown_lower_bound"] / 2)


def test_sph_rate_and_analyze_gauss_rate_hand_values_and_scaling():
    lam = np.array([5.0, 2.0] + [1.0] * 18)  # d = 20, r(Σ) = 25/5 = 5
    n, eps, delta = 4000, 0.8, 1e-5
    sph = _bounds_robust.kendall_sph_rate(lam, 1, n, eps, delta)
    assert sph["effective_rank"] == pytest.approx(5.0)
    assert sph["raw"] == pytest.approx(5 / 3 * (5 * math.sqrt(20) / (n * eps) + math.sqrt(5 / n)), rel=REL)
    ag = _bounds_robust.analyze_gauss_rate(lam, 1, n, eps, delta)
    assert ag["raw"] == pytest.approx(
        5 / 3 * (math.sqrt(20 / n) + 20**1.5 * math.sqrt(math.log(1 / delta)) / (n * eps)), rel=REL)
    assert sph["raw"] <= ag["raw"]  # r(Σ) ≤ d: eq. (3.1) is never worse than Remark 3.1's AG rate
    assert _bounds_robust.kendall_sph_rate(lam, 1, 4 * n, eps)["statistical"] == pytest.approx(sph["statistical"] / 2)
    assert _bounds_robust.kendall_sph_rate(lam, 1, n, 2 * eps)["privacy"] == pytest.approx(sph["privacy"] / 2)
    assert _bounds_robust.analyze_gauss_rate(lam, 1, n, 2 * eps, delta)["privacy"] == pytest.approx(ag["privacy"] / 2)


# ------------------------------------------------------------------- statements speak of the subject
FORBIDDEN = ("spec ", "spec§", "spec.md", "_pca.md", "our copy", "garbled", "lost in", "reconstruct",
             "reachable", "workplace", "the text we had")


def _texts():
    for mod in (bounds, _bounds_dps, _bounds_ldp, _bounds_robust):
        yield mod.__name__, mod.__doc__ or ""
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj):
                yield f"{mod.__name__}.{name}", inspect.getdoc(obj) or ""
    yield "DAVIS_KAHAN_LABEL", bounds.DAVIS_KAHAN_LABEL
    for key, label in _bounds_robust.ROBUST_LABELS.items():
        yield f"ROBUST_LABELS[{key}]", label


def test_docstrings_and_labels_speak_only_of_the_subject():
    for where, text in _texts():
        lowered = text.lower()
        for word in FORBIDDEN:
            assert word not in lowered, f"{where} contains {word!r}"


def test_dps_pca_reports_assumption_b1s_start_condition():
    """Theorem 4.3 at t = 1 bounds the start's own error: a random start (≈ √(k(d−k)/d)) violates it
    wherever the bound is small, and the result says so without changing ``valid``."""
    raw = [100.0] * 5 + [10.0] * 995
    b = _bounds_dps.dps_pca(1.0, 0.01, 10, 10**5, 1, 1000, 5, 10, 50, raw)
    assert b["valid"] and b["start_condition"] == pytest.approx(b["total"][0], rel=1e-12)
    assert b["start_condition"] == pytest.approx(b["xi_stat"] + b["xi_priv"] + b["xi_opt"][0], rel=1e-12)
    assert b["xi_opt"][0] <= 0.25
    assert b["start_error"] == pytest.approx(math.sqrt(5 * 995 / 1000), rel=1e-12)
    assert not b["start_ok"] and "random start" in b["start_reason"] and "violates Assumption B.1" in b["start_reason"]
    good = _bounds_dps.dps_pca(1.0, 0.01, 10, 10**5, 1, 1000, 5, 10, 50, raw, start_error=0.1)
    assert good["start_ok"] and "meets the t = 1 case" in good["start_reason"]
    np.testing.assert_array_equal(good["total"], b["total"])  # the start does not move the bound
    silent = _bounds_dps.dps_pca(1.0, 1e-5, 10, 20_000, 1, 200, 5, 10, 20, [0.02] * 5 + [0.004] * 195)
    assert not silent["valid"] and math.isnan(silent["start_condition"]) and not silent["start_ok"]
    with pytest.raises(ValueError, match="start_error"):
        _bounds_dps.dps_pca(1.0, 0.01, 10, 10**5, 1, 1000, 5, 10, 50, raw, start_error=-1.0)
