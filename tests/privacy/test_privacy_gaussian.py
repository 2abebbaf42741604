"""The Gaussian mechanism (privpca_edu.privacy._gaussian): σ calibration, Gaussian DP, symmetric noise.

Reference values: Dwork & Roth (2014), Thm A.1; Balle & Wang (2018), Theorem 8; Dong, Roth & Su (2019).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from privpca_edu import PrivacyWarning
from privpca_edu import privacy as P

# ---------------------------------------------------------------------------------------------
# Single Gaussian mechanism
# ---------------------------------------------------------------------------------------------


def test_classic_sigma_reference_value():
    # Dwork & Roth, Thm A.1: Δ = 1, ε = 0.5, δ = 1e-5 → σ = √(2 ln(1.25e5))/0.5 = 9.6896
    sigma = P.gaussian_sigma(1.0, 0.5, 1e-5)
    assert sigma == pytest.approx(9.6896, abs=5e-5)
    assert sigma == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5, rel=1e-15)


@pytest.mark.parametrize(
    "epsilon, delta, expected",
    [(1.0, 1e-5, 3.7306), (0.5, 1e-5, 7.0318), (1.0, 0.3, 0.6902)],
)
def test_analytic_sigma_reference_values(epsilon, delta, expected):
    # Balle & Wang's analytic calibration, Δ = 1
    assert P.gaussian_sigma(1.0, epsilon, delta, method="analytic") == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 5.0])
def test_classic_warns_for_epsilon_at_least_one(epsilon):
    with pytest.warns(PrivacyWarning, match="epsilon < 1"):
        sigma = P.gaussian_sigma(1.0, epsilon, 1e-5)
    assert sigma == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / epsilon)


def test_classic_silent_below_one_and_analytic_never_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P.gaussian_sigma(1.0, 0.999, 1e-5)
        P.gaussian_sigma(1.0, 3.0, 1e-5, method="analytic")


def test_sigma_scales_linearly_with_sensitivity():
    for method in ("classic", "analytic"):
        s1 = P.gaussian_sigma(1.0, 0.7, 1e-6, method=method)
        s3 = P.gaussian_sigma(3.0, 0.7, 1e-6, method=method)
        assert s3 == pytest.approx(3 * s1, rel=1e-9)


@given(
    sensitivity=st.floats(0.01, 100.0),
    epsilon=st.floats(0.01, 0.99),
    delta=st.floats(1e-12, 0.5),
)
def test_analytic_never_exceeds_classic_and_is_tight(sensitivity, epsilon, delta):
    classic = P.gaussian_sigma(sensitivity, epsilon, delta, method="classic")
    analytic = P.gaussian_sigma(sensitivity, epsilon, delta, method="analytic")
    assert analytic <= classic
    # valid: the Balle–Wang δ at the returned σ is within budget ...
    assert P.analytic_gaussian_delta(analytic, sensitivity, epsilon) <= delta
    # ... and tight: 1e-6 less noise already violates it (δ(σ) is strictly decreasing)
    assert P.analytic_gaussian_delta(analytic * (1 - 1e-6), sensitivity, epsilon) > delta


def test_classic_sigma_is_valid_by_the_exact_criterion():
    # The classic σ must satisfy Balle–Wang's iff-condition whenever ε < 1 (Dwork–Roth Thm A.1).
    for eps in (0.1, 0.5, 0.9):
        for delta in (1e-8, 1e-5, 0.01):
            sigma = P.gaussian_sigma(1.0, eps, delta)
            assert P.analytic_gaussian_delta(sigma, 1.0, eps) <= delta


def test_analytic_delta_matches_direct_formula():
    # Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ), evaluated directly where there is no cancellation
    for sigma, sens, eps in [(1.0, 1.0, 0.5), (2.0, 1.5, 1.0), (0.7, 1.0, 0.1), (5.0, 2.0, 2.0)]:
        a = sens / (2 * sigma)
        b = eps * sigma / sens
        direct = stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)
        assert P.analytic_gaussian_delta(sigma, sens, eps) == pytest.approx(direct, rel=1e-10)


def test_epsilon_inf_means_no_noise():
    assert P.gaussian_sigma(1.0, np.inf, 1e-5) == 0.0
    assert P.gaussian_sigma(1.0, np.inf, 1e-5, method="analytic") == 0.0
    for method in P.ITERATIVE_CALIBRATIONS:
        assert P.iterative_gaussian_sigma(2.0, np.inf, 0.3, 10, method) == 0.0
    assert P.dps_pca_sigma(np.inf, 0.3, 10) == 0.0
    assert P.mod_sulq_noise_scale(1000, 10**5, np.inf, 0.3) == 0.0


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), -np.inf])
def test_gaussian_sigma_rejects_bad_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        P.gaussian_sigma(1.0, bad, 1e-5)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_gaussian_sigma_rejects_bad_delta(bad):
    with pytest.raises(ValueError, match="delta"):
        P.gaussian_sigma(1.0, 0.5, bad)


def test_gaussian_sigma_rejects_unknown_method():
    with pytest.raises(ValueError, match="method"):
        P.gaussian_sigma(1.0, 0.5, 1e-5, method="laplace")


# ---------------------------------------------------------------------------------------------
# Gaussian differential privacy
# ---------------------------------------------------------------------------------------------


@given(
    sensitivity=st.floats(0.05, 20.0),
    sigma=st.floats(0.05, 50.0),
    epsilon=st.floats(0.0, 5.0),
)
def test_gdp_delta_is_the_analytic_gaussian_curve(sensitivity, sigma, epsilon):
    assert P.gdp_delta(sensitivity / sigma, epsilon) == pytest.approx(
        P.analytic_gaussian_delta(sigma, sensitivity, epsilon), rel=1e-9, abs=1e-300
    )


@given(mu=st.floats(0.05, 5.0), delta=st.floats(1e-10, 0.5))
def test_gdp_epsilon_inverts_gdp_delta(mu, delta):
    eps = P.gdp_epsilon(mu, delta)
    assert eps >= 0
    if eps == 0:
        assert P.gdp_delta(mu, 0.0) <= delta
    else:
        assert P.gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-6)
        # smallest such ε: a bit less is over budget
        assert P.gdp_delta(mu, eps * (1 - 1e-5)) > delta


def test_gdp_closed_form_at_epsilon_zero():
    # δ(0) = Φ(μ/2) − Φ(−μ/2) = total variation between N(0,1) and N(μ,1)
    for mu in (0.1, 1.0, 3.0):
        assert P.gdp_delta(mu, 0.0) == pytest.approx(stats.norm.cdf(mu / 2) - stats.norm.cdf(-mu / 2), rel=1e-10)


# ---------------------------------------------------------------------------------------------
# Symmetric noise
# ---------------------------------------------------------------------------------------------
CHI2_ALPHA = 1e-3


def variance_consistent(samples, variance, alpha=CHI2_ALPHA):
    """Two-sided χ² test of H0: ``samples`` are i.i.d. N(0, variance).

    Under H0, S = Σ x²/variance ~ χ²_N exactly (mean known to be 0).  We accept when S lies in
    the central 1 − α interval [χ²_{α/2, N}, χ²_{1−α/2, N}].  For large N this is the
    tolerance |s²/variance − 1| ≤ z_{1−α/2}·√(2/N) with z = 3.29 at α = 1e-3; all uses below
    have N ≥ 4000, i.e. a relative tolerance of about ±7.4 % (exactly −7.2 %/+7.5 % from the χ²
    quantiles), so a factor-2 error in the variance (relative error +100 % or −50 %) is
    rejected with overwhelming certainty.
    """
    x = np.asarray(samples, dtype=float).ravel()
    N = x.size
    S = float(np.sum(x * x)) / variance
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], N)
    return bool(lo <= S <= hi)


def test_variance_checker_has_the_derived_tolerance():
    # The checker must reject a 2× variance on the sample sizes used below (N = 4000).
    x = np.random.default_rng(0).standard_normal(4000)
    assert variance_consistent(x, 1.0)
    assert not variance_consistent(x, 2.0)
    assert not variance_consistent(x, 0.5)
    lo, hi = stats.chi2.ppf([CHI2_ALPHA / 2, 1 - CHI2_ALPHA / 2], 4000) / 4000
    assert 1 - lo < 0.075 and hi - 1 < 0.076


@pytest.mark.parametrize("convention", ["upper_iid", "frobenius", "vecd"])
def test_symmetric_noise_is_exactly_symmetric_and_shaped(convention):
    E = P.symmetric_noise(6, 1.3, convention=convention, random_state=0)
    assert E.shape == (6, 6)
    assert np.array_equal(E, E.T)
    B = P.symmetric_noise(5, 0.7, convention=convention, size=3, random_state=1)
    assert B.shape == (3, 5, 5)
    assert np.array_equal(B, np.swapaxes(B, -1, -2))
    B = P.symmetric_noise(4, 0.7, convention=convention, size=(2, 3), random_state=1)
    assert B.shape == (2, 3, 4, 4)
    assert np.array_equal(B, np.swapaxes(B, -1, -2))


@pytest.mark.parametrize("size", [None, 3, (2, 2)])
def test_symmetric_noise_is_the_documented_draw(size):
    # The definition, written out: G ~ N(0, 1) of the batch shape from the same generator; "upper_iid"
    # keeps G on and above the diagonal and mirrors the strict upper triangle; "frobenius" scales the
    # off-diagonal entries by 1/√2; then σ·E.  Equal to the bit: the draw is G itself, rearranged.
    d, sigma = 7, 0.3
    shape = () if size is None else ((size,) if np.isscalar(size) else size)
    G = np.random.default_rng(11).standard_normal((*shape, d, d))
    i, j = np.triu_indices(d)
    upper = np.zeros_like(G)
    upper[..., i, j] = G[..., i, j]
    off = np.triu(upper, 1)
    expected = {"upper_iid": sigma * (upper + np.swapaxes(off, -1, -2)),
                "frobenius": sigma * ((off + np.swapaxes(off, -1, -2)) * (1 / math.sqrt(2)) + (upper - off))}
    for convention, want in expected.items():
        got = P.symmetric_noise(d, sigma, convention=convention, size=size, random_state=11)
        np.testing.assert_array_equal(got, want)


def test_symmetric_noise_reproducible_and_zero_sigma():
    a = P.symmetric_noise(5, 2.0, random_state=7)
    b = P.symmetric_noise(5, 2.0, random_state=7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, P.symmetric_noise(5, 2.0, random_state=8))
    assert np.array_equal(P.symmetric_noise(5, 0.0, random_state=7), np.zeros((5, 5)))
    # σ = 0 still advances the generator by the same amount (seeds stay aligned across ε)
    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    P.symmetric_noise(5, 0.0, random_state=g1)
    P.symmetric_noise(5, 1.0, random_state=g2)
    assert g1.random() == g2.random()


def test_symmetric_noise_rejects_bad_arguments():
    with pytest.raises(ValueError, match="convention"):
        P.symmetric_noise(3, 1.0, convention="lower")
    with pytest.raises(ValueError, match="sigma"):
        P.symmetric_noise(3, -1.0)
    with pytest.raises(ValueError, match="dim"):
        P.symmetric_noise(0, 1.0)


SIGMA = 1.7
N_MATRICES = 1000
DIM = 4  # per convention: N_MATRICES·DIM = 4000 diagonal and N_MATRICES·6 = 6000 off-diagonal draws


@pytest.mark.parametrize(
    "convention, off_diag_variance, wrong_off_diag_variance",
    [("upper_iid", SIGMA**2, SIGMA**2 / 2), ("frobenius", SIGMA**2 / 2, SIGMA**2)],
)
def test_symmetric_noise_variances(convention, off_diag_variance, wrong_off_diag_variance):
    E = P.symmetric_noise(DIM, SIGMA, convention=convention, size=N_MATRICES, random_state=12345)
    iu = np.triu_indices(DIM, 1)
    diag = E[:, np.arange(DIM), np.arange(DIM)]  # i.i.d. across matrices and positions
    off = E[:, iu[0], iu[1]]  # upper triangle only: the lower one is a mirror, not new draws
    assert diag.size == 4000 and off.size == 6000
    assert variance_consistent(diag, SIGMA**2)
    assert variance_consistent(off, off_diag_variance)
    # the other convention's off-diagonal variance (a factor-2 error) is rejected
    assert not variance_consistent(off, wrong_off_diag_variance)
    # and so is a factor-2 error on the diagonal
    assert not variance_consistent(diag, 2 * SIGMA**2)
    assert not variance_consistent(diag, SIGMA**2 / 2)


@given(d=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_vecd_is_an_isometry(d, seed):
    G = np.random.default_rng(seed).standard_normal((d, d)) * 3
    A = G + G.T
    v = P.symmetric_to_vector(A, convention="frobenius")
    assert v.shape == (d * (d + 1) // 2,)
    assert np.linalg.norm(v) == pytest.approx(np.linalg.norm(A, "fro"), rel=1e-12)
    # the upper-iid coordinates are each entry once: never longer than the Frobenius norm
    u = P.symmetric_to_vector(A, convention="upper_iid")
    assert np.linalg.norm(u) <= np.linalg.norm(A, "fro") * (1 + 1e-12)


def test_symmetric_to_vector_rejects_non_square():
    with pytest.raises(ValueError, match="square"):
        P.symmetric_to_vector(np.zeros((2, 3)))


@pytest.mark.parametrize("convention", ["frobenius", "upper_iid"])
def test_symmetric_noise_is_iid_in_its_coordinates(convention):
    # In symmetric_to_vector(·, convention) coordinates the noise must be ζ ~ N(0, σ² I):
    # every coordinate has variance σ² (χ² test above, N = 4000 each after pooling would hide
    # a single bad coordinate, so each coordinate is tested on its own 4000 draws), and
    # coordinates are uncorrelated: each sample correlation r is ≈ N(0, 1/N), so with
    # m(m−1)/2 = 45 pairs and a Bonferroni bound at family-wise level 1e-3 we allow
    # |r| ≤ z_{1 − 1e-3/90}/√N = 4.39/√4000 = 0.069.
    N, d = 4000, 4
    E = P.symmetric_noise(d, SIGMA, convention=convention, size=N, random_state=2024)
    Z = P.symmetric_to_vector(E, convention=convention)
    m = d * (d + 1) // 2
    assert Z.shape == (N, m)
    for j in range(m):
        assert variance_consistent(Z[:, j], SIGMA**2), j
    r = np.corrcoef(Z, rowvar=False)[np.triu_indices(m, 1)]
    bound = stats.norm.ppf(1 - 1e-3 / (2 * 45)) / math.sqrt(N)
    assert np.max(np.abs(r)) <= bound


def test_frobenius_coordinates_detect_wrong_convention():
    # Reading upper_iid noise in vecd coordinates gives off-diagonal variance 2σ²: detected.
    E = P.symmetric_noise(4, SIGMA, convention="upper_iid", size=4000, random_state=5)
    Z = P.symmetric_to_vector(E, convention="frobenius")
    assert not variance_consistent(Z[:, 4], SIGMA**2)  # first off-diagonal coordinate
    assert variance_consistent(Z[:, 4], 2 * SIGMA**2)


def test_remembered_verdicts_equal_fresh_ones_and_bad_input_is_still_refused():
    # check_gaussian_guarantee remembers verdicts by argument type and value: a repeat gives the
    # verdict a fresh check gives, an iterator is read once, and invalid input raises every time
    import math

    from privpca_edu.privacy import _gaussian
    check_gaussian_guarantee = P.check_gaussian_guarantee

    cases = [(0.5, 1e-5, [(1.0, 9.0)]), (0.5, 1e-5, [(1.0, 8.0)]), (1.0, 1e-6, [(2.0, 3.0, 10)]),
             (math.inf, 0.0, [(1.0, math.inf)]), (2.0, 1e-5, ((1.0, 0.0),))]
    for epsilon, delta, releases in cases:
        fresh = _gaussian._check_gaussian_guarantee(epsilon, delta, list(releases))
        assert check_gaussian_guarantee(epsilon, delta, releases) == fresh
        assert check_gaussian_guarantee(epsilon, delta, iter(releases)) == fresh
        assert check_gaussian_guarantee(epsilon, delta, releases) == fresh
    # the same values as another type are checked, not looked up: a count of True is refused
    assert check_gaussian_guarantee(0.5, 1e-5, [(1.0, 9.0, 1)]).holds
    for bad in ([(1.0, float("nan"))], [(-1.0, 9.0)], [(1.0, 9.0, 1.5)], [(1.0, 9.0, True)]):
        for _ in range(2):
            with pytest.raises((ValueError, TypeError)):
                check_gaussian_guarantee(0.5, 1e-5, bad)
    with pytest.raises(ValueError):
        check_gaussian_guarantee(float("nan"), 1e-5, [(1.0, 9.0)])
