"""Composition and accounting (privpca_edu.privacy._accounting): the iterative calibrations, zCDP and
composition theorems, and the budget accountant (totals, the exact GDP path against dp-accounting,
refusals before noise).

Reference values: Ge et al. (2018), Algorithm 1; Bun & Steinke (2016); Dwork, Rothblum & Vadhan (2010).
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

import privpca_edu as pp
from privpca_edu import PrivacyWarning, privacy
from privpca_edu.privacy import BudgetAccountant, BudgetExceededError, gaussian_mu_bound


def unit_rows(n=400, d=5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d)) * np.linspace(2.0, 0.5, d)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# ---------------------------------------------------------------------------------------------
# The per-step σ of T = 10 iterations with Δ = 2, to 2 decimals (the table chapter 8 prints)
# ---------------------------------------------------------------------------------------------
SIGMA_TABLE = [
    # ε,   δ,    paper,  classic, analytic_basic, zcdp, analytic_exact
    (0.5, 0.3, 115.93, 109.25, 15.83, 21.49, 5.48),
    (1.0, 0.3, 57.96, 54.62, 11.90, 11.55, 4.37),
    (1.5, 0.3, 38.64, 36.42, 9.73, 8.17, 3.72),
    (2.0, 0.3, 28.98, 27.31, 8.32, 6.46, 3.29),
    (1.0, 0.01, 77.98, 75.53, 34.81, 20.18, 11.88),
    (1.0, 0.05, 69.23, 66.46, 23.88, 16.68, 8.43),
    (1.0, 0.1, 65.10, 62.15, 19.08, 14.91, 6.87),
    (1.0, 0.5, 54.32, 50.75, 8.97, 9.54, 3.21),
    (2.0, 0.01, 38.99, 37.76, 19.80, 10.55, 7.06),
    (2.0, 0.5, 27.16, 25.37, 6.65, 5.53, 2.60),
]
TABLE_METHODS = ("paper", "classic", "analytic_basic", "zcdp", "analytic_exact")


@pytest.mark.parametrize("row", SIGMA_TABLE, ids=lambda r: f"eps={r[0]},delta={r[1]}")
def test_sigma_table_of_ten_steps(row):
    epsilon, delta, *expected = row
    with warnings.catch_warnings():
        # ε/T ≤ 0.2 < 1 in every row: the classic-based methods must not warn here
        warnings.simplefilter("error", PrivacyWarning)
        got = [privacy.iterative_gaussian_sigma(2.0, epsilon, delta, 10, m) for m in TABLE_METHODS]
    # the table prints 2 decimals, so a correct value is within 0.005 of it
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-2)


def test_paper_calibration_warns_when_per_step_epsilon_reaches_one():
    with pytest.warns(PrivacyWarning, match="epsilon/T"):
        privacy.iterative_gaussian_sigma(2.0, 10.0, 0.3, 10, "paper")


def test_every_iterative_calibration_is_valid_by_exact_gdp_accounting():
    # T Gaussian steps with the same Δ/σ are exactly μ-GDP with μ = √T Δ/σ; every valid
    # calibration must therefore spend at most ε at δ by the exact curve.  The "analytic_exact"
    # method sits on the curve itself.
    for epsilon, delta, *_ in SIGMA_TABLE:
        for method in privacy.ITERATIVE_CALIBRATIONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)
                sigma = privacy.iterative_gaussian_sigma(2.0, epsilon, delta, 10, method)
            mu = math.sqrt(10) * 2.0 / sigma
            assert privacy.gdp_delta(mu, epsilon) <= delta * (1 + 1e-9), method
        sigma = privacy.iterative_gaussian_sigma(2.0, epsilon, delta, 10, "analytic_exact")
        assert privacy.gdp_epsilon(math.sqrt(10) * 2.0 / sigma, delta) == pytest.approx(epsilon, rel=1e-6)




# ---------------------------------------------------------------------------------------------
# zCDP, composition, GDP
# ---------------------------------------------------------------------------------------------


def test_zcdp_example_paper_sigma_is_conservative():
    # the DPS-PCA paper's σ at ε = 1, δ = 0.3, T = 10 buys only ε ≈ 0.175 under zCDP
    sigma = privacy.iterative_gaussian_sigma(2.0, 1.0, 0.3, 10, "paper")
    rho = privacy.zcdp_rho(2.0, sigma, n_steps=10)
    assert rho == pytest.approx(10 * 4 / (2 * sigma**2), rel=1e-14)
    assert privacy.zcdp_to_dp(rho, 0.3) == pytest.approx(0.175, abs=1e-3)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 0.3), (1.0, 0.01), (2.0, 1e-5)])
def test_zcdp_calibration_inverts_conversion(epsilon, delta):
    sigma = privacy.iterative_gaussian_sigma(2.0, epsilon, delta, 10, "zcdp")
    assert privacy.zcdp_to_dp(privacy.zcdp_rho(2.0, sigma, 10), delta) == pytest.approx(epsilon, rel=1e-12)


def test_zcdp_formulas():
    assert privacy.zcdp_rho(1.0, 2.0) == pytest.approx(1 / 8)
    assert privacy.zcdp_rho(3.0, 2.0, n_steps=4) == pytest.approx(4 * 9 / 8)
    assert privacy.zcdp_to_dp(0.5, 1e-5) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    assert privacy.zcdp_to_dp(0.0, 0.1) == 0.0


def test_compose_basic():
    assert privacy.compose_basic(0.1, 1e-6, 10) == pytest.approx((1.0, 1e-5))
    assert privacy.compose_basic(0.3, 0.0, 1) == (0.3, 0.0)
    with pytest.raises(ValueError, match="n_steps"):
        privacy.compose_basic(0.1, 1e-6, 0)


@pytest.mark.parametrize("eps0, delta0, T, slack", [(0.1, 1e-6, 10, 1e-5), (0.01, 0.0, 1000, 1e-6), (0.5, 1e-8, 3, 0.01)])
def test_compose_advanced_formula(eps0, delta0, T, slack):
    eps, delta = privacy.compose_advanced(eps0, delta0, T, slack)
    expected = eps0 * math.sqrt(2 * T * math.log(1 / slack)) + T * eps0 * (math.exp(eps0) - 1)
    assert eps == pytest.approx(expected, rel=1e-12)
    assert delta == pytest.approx(T * delta0 + slack, rel=1e-12)


def test_compose_advanced_beats_basic_for_many_small_steps():
    adv, _ = privacy.compose_advanced(0.01, 0.0, 1000, 1e-6)
    basic, _ = privacy.compose_basic(0.01, 0.0, 1000)
    assert adv < basic / 5


# ---------------------------------------------------------------------------------------------
# composition totals
# ---------------------------------------------------------------------------------------------
def test_basic_composition_adds_and_remaining_is_the_rest():
    acc = BudgetAccountant(1.0, 1e-5, composition="basic")
    acc.spend(0.25, 2e-6, label="a")
    acc.spend(0.5, 3e-6, label="b")
    assert acc.total() == pytest.approx((0.75, 5e-6))
    assert acc.remaining() == pytest.approx((0.25, 5e-6))
    assert [s.label for s in acc.history] == ["a", "b"]


def test_advanced_composition_matches_the_package_formula_for_equal_steps():
    # T equal (ε₀, 0) steps: the accountant's advanced total is privacy.compose_advanced's
    eps0, T, delta = 0.05, 100, 1e-5
    acc = BudgetAccountant(10.0, delta, composition="advanced")
    for _ in range(T):
        acc.spend(eps0, 0.0)
    expected, _ = privacy.compose_advanced(eps0, 0.0, T, delta)
    assert expected < T * eps0  # the regime where advanced composition helps
    assert acc.total() == pytest.approx((expected, delta), rel=1e-12)
    basic = BudgetAccountant(10.0, delta, composition="basic")
    for _ in range(T):
        basic.spend(eps0, 0.0)
    assert basic.total()[0] == pytest.approx(T * eps0)


def test_gdp_total_is_the_exact_curve():
    mus = [0.3, 0.4, 1.2]
    acc = BudgetAccountant(10.0, 1e-5)
    for mu in mus:
        acc.spend(1.0, 1e-6, mu=mu)
    mu = math.sqrt(sum(m * m for m in mus))
    eps, delta = acc.total()
    assert delta == 1e-5 and eps == pytest.approx(privacy.gdp_epsilon(mu, 1e-5), rel=1e-12)
    assert privacy.gdp_delta(mu, eps) == pytest.approx(1e-5, rel=1e-6)


@pytest.mark.parametrize("noise", [[2.0], [4.0, 4.0, 4.0, 4.0], [1.5, 3.0, 6.0, 12.0, 20.0]])
def test_gaussian_totals_match_dp_accounting(noise):
    """Our exact GDP total equals Google's PLD accountant for Gaussian mechanisms (and is below its RDP bound)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    delta = 1e-5
    pld = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    rdp = rdp_privacy_accountant.RdpAccountant()
    acc = BudgetAccountant(100.0, delta)
    for sigma in noise:  # a Gaussian mechanism of sensitivity 1 and noise σ: μ = 1/σ
        pld.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma))
        rdp.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma))
        acc.spend(1.0, delta, mu=1.0 / sigma)
    ours = acc.total()[0]
    # PLD is tight up to its discretisation (pessimistic by a little), RDP is a looser upper bound
    assert ours == pytest.approx(pld.get_epsilon(delta), rel=2e-3, abs=2e-3)
    assert ours <= pld.get_epsilon(delta) + 1e-9
    assert ours < rdp.get_epsilon(delta)
    # and the accountant's own PLD mode agrees
    assert BudgetAccountant(100.0, delta, composition="pld")._gaussian_epsilon(
        acc.history, math.sqrt(sum(s.mu**2 for s in acc.history)), delta) == pytest.approx(ours, rel=2e-3, abs=2e-3)


def test_estimator_records_are_charged_their_exact_mu():
    X = unit_rows()
    acc = BudgetAccountant(5.0, 1e-5)
    est = pp.AnalyzeGauss(2, epsilon=0.5, accountant=acc, random_state=0).fit(X)
    (entry,) = acc.history
    assert entry.record is est.privacy_ and entry.label == "AnalyzeGauss"
    assert entry.mu == pytest.approx(est.sensitivity_ / est.noise_scale_)
    # the classic σ is conservative: exactly, it spends less ε than it was asked for
    assert acc.total()[0] < 0.5
    assert entry.mu <= gaussian_mu_bound(0.5, 1e-5)


# ---------------------------------------------------------------------------------------------
# refusals
# ---------------------------------------------------------------------------------------------
def test_refusal_happens_before_any_noise_is_drawn():
    X = unit_rows()
    acc = BudgetAccountant(1.0, 2e-5, composition="basic")
    rng = np.random.default_rng(7)
    pp.AnalyzeGauss(2, epsilon=0.6, accountant=acc, random_state=rng).fit(X)
    state = rng.bit_generator.state
    est = pp.AnalyzeGauss(2, epsilon=0.6, accountant=acc, random_state=rng)
    with pytest.raises(BudgetExceededError, match="would exceed the privacy budget"):
        est.fit(X)
    assert rng.bit_generator.state == state  # not one random number drawn
    assert not hasattr(est, "components_") and not hasattr(est, "privacy_")
    assert len(acc.history) == 1 and acc.total() == pytest.approx((0.6, 1e-5))
    assert acc.remaining() == pytest.approx((0.4, 1e-5))
    pp.AnalyzeGauss(2, epsilon=0.4, accountant=acc, random_state=rng).fit(X)  # what is left still fits
    assert acc.remaining() == pytest.approx((0.0, 0.0), abs=1e-12)


@pytest.mark.parametrize("make", [
    lambda acc: pp.ModSuLQ(2, epsilon=0.5, accountant=acc),
    lambda acc: pp.PPCA(1, epsilon=0.5, accountant=acc),
    lambda acc: pp.DPSPCA(2, epsilon=0.5, n_iter=3, accountant=acc),
    lambda acc: pp.LocalGaussianPCA(2, epsilon=0.5, accountant=acc),
    lambda acc: pp.KendallDPPCA(2, epsilon=0.5, accountant=acc),
    lambda acc: pp.NSGGD(2, epsilon=0.5, n_iter=5, accountant=acc),
    lambda acc: pp.PrivateLocalPCA(2, epsilon=0.5, accountant=acc),
    lambda acc: pp.LocalSparsePCA(2, epsilon=0.5, max_iter=20, accountant=acc),
])
def test_every_private_estimator_spends_and_is_refused(make):
    X = unit_rows()
    acc = BudgetAccountant(0.7, 1e-5, composition="basic")
    make(acc).set_params(random_state=0).fit(X)
    assert len(acc.history) == 1 and acc.history[0].epsilon == 0.5
    with pytest.raises(BudgetExceededError):
        make(acc).fit(X)
    assert len(acc.history) == 1


def test_epsilon_inf_is_refused_and_no_accountant_changes_nothing():
    X = unit_rows()
    with pytest.raises(BudgetExceededError, match="epsilon=inf"):
        pp.AnalyzeGauss(2, epsilon=np.inf, accountant=BudgetAccountant(10.0, 1e-5)).fit(X)
    a = pp.AnalyzeGauss(2, random_state=3).fit(X)
    b = pp.AnalyzeGauss(2, random_state=3, accountant=BudgetAccountant(10.0, 1e-5)).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


def test_clones_share_the_ledger():
    # GridSearchCV clones the estimator (deep-copying parameters): every clone must spend from the same budget
    X = unit_rows(n=600)
    acc = BudgetAccountant(100.0, 1e-3, composition="basic")
    GridSearchCV(pp.AnalyzeGauss(epsilon=0.5, accountant=acc, random_state=0), {"n_components": [1, 2]}, cv=3).fit(X)
    assert len(acc.history) == 2 * 3 + 1  # 2 settings × 3 folds, then the refit
    assert acc.total()[0] == pytest.approx(0.5 * 7)


def test_bad_arguments():
    with pytest.raises(ValueError, match="composition"):
        BudgetAccountant(1.0, 1e-5, composition="rdp")
    with pytest.raises(ValueError, match="epsilon"):
        BudgetAccountant(-1.0)
    with pytest.raises(ValueError, match="delta"):
        BudgetAccountant(1.0, 1.5)
    with pytest.raises(ValueError, match="accountant"):
        pp.AnalyzeGauss(2, accountant="budget").fit(unit_rows())


# ---------------------------------------------------------------------------------------------
# quiet defaults and scikit-learn parity (issue: a default fit must not warn)
# ---------------------------------------------------------------------------------------------
def test_default_analyze_gauss_is_private_and_silent_inside_the_unit_ball():
    X = 0.99 * unit_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = pp.AnalyzeGauss(2).fit(X)
    assert est.privacy_.is_private


@pytest.mark.parametrize("cls", [pp.AnalyzeGauss, pp.ModSuLQ, pp.PPCA, pp.DPSPCA, pp.LocalGaussianPCA,
                                 pp.LocalSparsePCA, pp.KendallDPPCA, pp.NSGGD, pp.PrivateLocalPCA])
def test_every_default_construction_is_private_and_silent(cls):
    # Defaults except the seed: the noise draw is fixed so that the test is deterministic.  With
    # random_state=None the iterative solvers would see a different S̃ on every run, and about
    # one draw in 200 needs more than LocalSparsePCA's default max_iter = 1000 ADMM steps (its
    # ConvergenceWarning then says so truthfully; tested in tests/estimators/test_local.py).
    X = 0.99 * unit_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(random_state=0).fit(X)
    assert est.privacy_.is_private, est.privacy_.note


def test_grid_search_over_n_components_needs_no_scorer():
    X = unit_rows(n=1500)
    search = GridSearchCV(pp.AnalyzeGauss(epsilon=0.5, random_state=0), {"n_components": [1, 2]}).fit(X)
    assert search.best_params_["n_components"] in (1, 2)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_pca_matches_scikit_learn():
    from sklearn.decomposition import PCA as SkPCA

    X = np.random.default_rng(1).normal(size=(300, 6)) * [3.0, 2.0, 1.0, 0.5, 0.3, 0.1] + 5.0  # uncentred data
    ours, theirs = pp.PCA(2).fit(X), SkPCA(2).fit(X)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(ours.noise_variance_, theirs.noise_variance_, rtol=1e-10)
    np.testing.assert_allclose(ours.mean_, theirs.mean_, rtol=1e-12)
    assert ours.score(X) == pytest.approx(theirs.score(X), rel=1e-10)
    np.testing.assert_allclose(np.abs(ours.transform(X)), np.abs(theirs.transform(X)), atol=1e-9)


def test_a_record_with_a_huge_mu_is_charged_without_overflow():
    # (Δ/σ)² overflows a float for Δ/σ = 1e160; the accountant shares the exact check's μ (hypot)
    record = privacy.make_record(model="central", epsilon=1.0, delta=1e-5, neighbouring="replace-one", data_norm=1.0,
                                 mechanism="Gaussian mechanism", calibration="far too little noise",
                                 sensitivity=1e160, noise_scale=1.0)
    assert not record.is_private and record.exact_delta == 1.0
    acc = BudgetAccountant(1.0, 1e-5)
    entry = acc.spend_record(record, label="huge")
    assert entry.mu == 1e160 and entry.delta == 1.0
    with pytest.raises(BudgetExceededError):
        acc.spend(0.1, 0.0)
