"""privpca_edu.bounds: the noisy-covariance bounds, checked against simulation.

Theory behind the tolerances:
* Spectral norm of symmetric Gaussian noise (off-diagonal sd s): ‖E‖₂ = 2√d s + s d^{-1/6}·W with
  W of order one (Tracy–Widom: the largest eigenvalue has mean −1.21 and sd 1.27 in these
  units, and ‖E‖₂ is the larger of two nearly independent edges, so its mean lies in
  [−1.21, 0]).  Hence |E‖E‖₂ − 2√d s| ≤ 1.5 fluct and the Monte-Carlo mean of N draws has
  standard error ≈ 1.3 fluct/√N, fluct = s d^{-1/6} (``edge_fluctuation``).
* ‖E‖_F² is a weighted sum of χ²₁ variables with exactly known mean (``frobenius_norm``²).
* Davis–Kahan (Yu–Wang–Samworth) is deterministic given E; with the *typical* norm 2√d σ in
  place of the realised one it can fail only when the realised norm is well above typical
  (Gaussian tails at scale σ) *and* the factor 2 of the theorem is used up; we require it to
  hold in ≥ 99 % of 200 draws, the acceptance criterion of the brief.
"""

import math
import warnings

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import bounds, privacy
from privpca_edu._validation import PrivacyWarning
from privpca_edu.experiments.noisy_covariance import spiked_data
from privpca_edu.subspace import random_subspace_distance, subspace_distance, top_eigenvectors


# ------------------------------------------------------------------------ spectral norm of noise
def test_spectral_norm_formula_and_constants():
    r = bounds.gaussian_noise_spectral_norm(100, 0.5)
    assert r["leading_constant"] == 2.0 and r["spectral_norm"] == pytest.approx(10.0)
    assert r["frobenius_norm"] == pytest.approx(50.0)  # √(d² σ²): every entry has variance σ²
    f = bounds.gaussian_noise_spectral_norm(100, 0.5, "frobenius")
    assert f["leading_constant"] == pytest.approx(math.sqrt(2))
    assert f["spectral_norm"] == pytest.approx(math.sqrt(2 * 100) * 0.5)
    # vecd is an isometry: E‖ζ‖² = σ² d(d+1)/2
    assert f["frobenius_norm"] == pytest.approx(0.5 * math.sqrt(100 * 101 / 2))
    assert bounds.gaussian_noise_spectral_norm(100, 0.5, "vecd") == f
    # linear in σ, ∝ √d
    assert bounds.gaussian_noise_spectral_norm(400, 1.0)["spectral_norm"] == pytest.approx(
        2 * bounds.gaussian_noise_spectral_norm(100, 1.0)["spectral_norm"])
    assert bounds.gaussian_noise_spectral_norm(30, 0.0)["spectral_norm"] == 0.0


@pytest.mark.parametrize("convention", ["upper_iid", "frobenius"])
@pytest.mark.parametrize("d", [60, 200])
def test_spectral_norm_matches_monte_carlo(convention, d):
    sigma, N = 0.3, 200
    r = bounds.gaussian_noise_spectral_norm(d, sigma, convention)
    E = privacy.symmetric_noise(d, sigma, convention=convention, size=N, random_state=d)
    norms = np.max(np.abs(np.linalg.eigvalsh(E)), axis=1)
    fluct = r["edge_fluctuation"]
    tolerance = 1.5 * fluct + 4 * 1.3 * fluct / math.sqrt(N)  # Tracy–Widom bias + Monte-Carlo error
    assert abs(norms.mean() - r["spectral_norm"]) <= tolerance
    assert norms.std() < 2.0 * fluct  # fluctuations live on the d^{-1/6} scale
    # Frobenius: exact expectation of ‖E‖_F²; relative sd of one draw ≤ √(2/(d(d+1)/2)), so 5 SE of the mean
    fro2 = np.sum(E**2, axis=(1, 2))
    rel_sd = math.sqrt(2 / (d * (d + 1) / 2)) * (2 if convention == "upper_iid" else 1)
    assert fro2.mean() == pytest.approx(r["frobenius_norm"] ** 2, rel=5 * rel_sd / math.sqrt(N))


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_features=0, sigma=1.0), "n_features must be in"),
    (dict(n_features=5, sigma=-1.0), "sigma must be >= 0"),
    (dict(n_features=5, sigma=1.0, convention="gaussian"), "convention must be one of"),
])
def test_spectral_norm_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bounds.gaussian_noise_spectral_norm(**kwargs)


# ------------------------------------------------------------------------------- Davis–Kahan
def test_davis_kahan_formula_and_label():
    r = bounds.davis_kahan(0.1, 0.5, 1.0, 4)
    assert r["spectral_term"] == pytest.approx(2 * 2 * 0.1) and r["frobenius_term"] == pytest.approx(1.0)
    assert r["sin_theta_bound"] == pytest.approx(0.4) and r["binding"] == "spectral"
    assert bounds.davis_kahan(0.4, 0.5, 1.0, 4)["binding"] == "frobenius"
    assert "not DTTZ" in r["label"]
    with pytest.raises(ValueError, match="eigengap must be > 0"):
        bounds.davis_kahan(0.1, 0.5, 0.0, 1)
    with pytest.raises(ValueError, match="n_components"):
        bounds.davis_kahan(0.1, 0.5, 1.0, 0)


def test_davis_kahan_holds_for_every_perturbation():
    # Deterministic theorem: with the realised norms it must hold for every draw, exactly.
    rng = np.random.default_rng(0)
    for trial in range(200):
        d, k = int(rng.integers(3, 12)), int(rng.integers(1, 3))
        lam = np.sort(rng.uniform(0, 1, d))[::-1]
        lam[:k] += rng.uniform(0.05, 1.0)
        Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        S = (Q * lam) @ Q.T
        E = privacy.symmetric_noise(d, float(rng.uniform(0.001, 0.3)), random_state=rng)
        _, V = top_eigenvectors(S, k)
        _, V_hat = top_eigenvectors(S + E, k)
        r = bounds.davis_kahan(np.linalg.norm(E, 2), np.linalg.norm(E), lam[k - 1] - lam[k], k)
        assert subspace_distance(V_hat, V) <= r["sin_theta_bound"] * (1 + 1e-9) + 1e-12, trial


# ----------------------------------------------------------------- Analyze Gauss and MOD-SuLQ
@pytest.fixture(scope="module")
def data():
    return spiked_data(2000, 30, 1, 0)


@pytest.mark.parametrize("calibration,epsilon", [("classic", 0.5), ("analytic", 0.5), ("analytic", 3.0)])
def test_analyze_gauss_noise_scale_is_the_estimators(calibration, epsilon, data):
    X = np.asarray(data.X)
    est = pp.AnalyzeGauss(1, epsilon=epsilon, delta=1e-5, calibration=calibration, random_state=0).fit(X)
    r = bounds.analyze_gauss_bound(2000, 30, 1, epsilon, 1e-5, data.eigengap, calibration=calibration)
    assert r["noise_scale"] == est.noise_scale_  # one source of truth: privacy.gaussian_sigma
    assert r["sensitivity"] == est.sensitivity_
    assert r["expected_spectral_norm"] == pytest.approx(2 * math.sqrt(30) * est.noise_scale_)
    assert r["random_guess"] == random_subspace_distance(30, 1)
    assert r["calibration"] == calibration and "not DTTZ" in r["label"]


def test_mod_sulq_noise_scale_is_the_estimators_and_paper_setting_values(data):
    X = np.asarray(data.X)
    est = pp.ModSuLQ(1, epsilon=1.0, delta=1e-5, random_state=0).fit(X)
    assert bounds.mod_sulq_bound(2000, 30, 1, 1.0, 1e-5, data.eigengap)["noise_scale"] == est.noise_scale_
    # Ge et al. (2018, §5, Fig. 4(a)) setting: β = 0.0518, ‖E‖₂ ≈ 2√d β ≈ 3.3 ≫ the eigengap: vacuous
    r = bounds.mod_sulq_bound(100_000, 1000, 5, 1.0, 0.3, eigengap=0.0155)
    assert r["noise_scale"] == pytest.approx(0.051847, abs=1e-6)
    assert r["expected_spectral_norm"] == pytest.approx(3.28, abs=0.01)
    assert r["vacuous"] and r["sin_theta_bound"] == r["max_distance"] == pytest.approx(math.sqrt(5))
    assert r["random_guess"] == pytest.approx(2.2305, abs=1e-4)


def _measured(est, data, n_draws, seed):
    k = data.pca_basis.shape[1]
    releases = est.sample_releases(np.asarray(data.X), n_draws, random_state=seed)
    return np.array([subspace_distance(top_eigenvectors(R, k)[1], data.pca_basis) for R in releases])


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 3.0, 10.0])
def test_analyze_gauss_bound_holds_on_simulated_draws(epsilon, data):
    r = bounds.analyze_gauss_bound(2000, 30, 1, epsilon, 1e-5, data.eigengap, calibration="analytic")
    measured = _measured(pp.AnalyzeGauss(1, epsilon=epsilon, delta=1e-5, calibration="analytic"), data, 200, 1)
    assert np.mean(measured <= r["sin_theta_bound"]) >= 0.99
    if not r["vacuous"]:  # informative, not only true: within a factor 10 of the typical error
        assert r["sin_theta_bound"] < 10 * np.median(measured)


@pytest.mark.parametrize("epsilon", [10.0, 30.0, 100.0])
def test_mod_sulq_bound_holds_on_simulated_draws(epsilon, data):
    r = bounds.mod_sulq_bound(2000, 30, 1, epsilon, 1e-5, data.eigengap)
    measured = _measured(pp.ModSuLQ(1, epsilon=epsilon, delta=1e-5), data, 200, 2)
    assert np.mean(measured <= r["sin_theta_bound"]) >= 0.99


def test_bound_holds_for_two_components():
    data2 = spiked_data(2000, 20, 2, 1)
    for epsilon in (1.0, 5.0):
        r = bounds.analyze_gauss_bound(2000, 20, 2, epsilon, 1e-5, data2.eigengap, calibration="analytic")
        measured = _measured(pp.AnalyzeGauss(2, epsilon=epsilon, delta=1e-5, calibration="analytic"), data2, 200, 3)
        assert np.mean(measured <= r["sin_theta_bound"]) >= 0.99


def test_bounds_monotone_in_epsilon_and_vacuous_flag(data):
    grid = np.logspace(-2, 2, 30)
    for fn, kw in ((bounds.analyze_gauss_bound, dict(calibration="analytic")), (bounds.mod_sulq_bound, {})):
        rs = [fn(2000, 30, 1, e, 1e-5, data.eigengap, **kw) for e in grid]
        raw = np.array([r["davis_kahan"] for r in rs])
        capped = np.array([r["sin_theta_bound"] for r in rs])
        assert np.all(np.diff(raw) < 0) and np.all(np.diff(capped) <= 0)
        for r in rs:
            assert r["vacuous"] == (r["davis_kahan"] >= r["max_distance"])
            assert r["sin_theta_bound"] == (r["max_distance"] if r["vacuous"] else r["davis_kahan"])
        assert rs[0]["vacuous"] and not rs[-1]["vacuous"]
    # more data, less noise; larger δ, less noise
    a = bounds.analyze_gauss_bound(1000, 30, 1, 1.0, 1e-5, 0.2, calibration="analytic")
    b = bounds.analyze_gauss_bound(4000, 30, 1, 1.0, 1e-5, 0.2, calibration="analytic")
    assert b["davis_kahan"] == pytest.approx(a["davis_kahan"] / 4)
    assert bounds.mod_sulq_bound(1000, 30, 1, 1.0, 1e-2, 0.2)["davis_kahan"] < \
        bounds.mod_sulq_bound(1000, 30, 1, 1.0, 1e-6, 0.2)["davis_kahan"]


def test_infinite_epsilon_and_warnings(data):
    r = bounds.analyze_gauss_bound(2000, 30, 1, np.inf, 1e-5, data.eigengap)
    assert r["noise_scale"] == 0.0 and r["sin_theta_bound"] == 0.0 and not r["vacuous"]
    assert bounds.mod_sulq_bound(2000, 30, 1, np.inf, 1e-5, data.eigengap)["sin_theta_bound"] == 0.0
    with pytest.warns(PrivacyWarning, match="epsilon < 1"):  # classic σ is proved only for ε < 1
        bounds.analyze_gauss_bound(2000, 30, 1, 2.0, 1e-5, data.eigengap, calibration="classic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bounds.analyze_gauss_bound(2000, 30, 1, 2.0, 1e-5, data.eigengap, calibration="analytic")


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_components=30), "n_components must be in"),
    (dict(eigengap=0.0), "eigengap must be > 0"),
    (dict(epsilon=-1.0), "epsilon must be > 0"),
    (dict(delta=1.0), "delta must be in"),
    (dict(n_samples=0), "n_samples must be in"),
    (dict(data_norm=0.0), "data_norm must be > 0"),
])
def test_bounds_reject_bad_input(kwargs, match):
    args = dict(n_samples=100, n_features=30, n_components=1, epsilon=0.5, delta=1e-5, eigengap=0.1)
    args.update(kwargs)
    for fn in (bounds.analyze_gauss_bound, bounds.mod_sulq_bound):
        with pytest.raises(ValueError, match=match):
            fn(**args)
    with pytest.raises(ValueError, match="calibration must be one of"):
        bounds.analyze_gauss_bound(100, 30, 1, 0.5, 1e-5, 0.1, calibration="paper")


def test_data_norm_scales_noise_like_b_squared():
    a = bounds.analyze_gauss_bound(500, 10, 1, 0.5, 1e-5, 0.1)
    b = bounds.analyze_gauss_bound(500, 10, 1, 0.5, 1e-5, 0.1, data_norm=2.0)
    assert b["noise_scale"] == pytest.approx(4 * a["noise_scale"])
    c = bounds.mod_sulq_bound(500, 10, 1, 0.5, 1e-5, 0.1, data_norm=2.0)
    assert c["noise_scale"] == pytest.approx(4 * bounds.mod_sulq_bound(500, 10, 1, 0.5, 1e-5, 0.1)["noise_scale"])


def test_dps_pca_theorem_is_reexported():
    assert callable(bounds.dps_pca_thm43) and "dps_pca_thm43" in bounds.__all__
