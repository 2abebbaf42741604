"""Twins, figures and dashboards of chapters 4 (noisy covariance) and 5 (auditing).

Theory behind the tolerances:
* First-order perturbation (k = 1): a symmetric perturbation E of A with i.i.d. N(0, σ²)
  entries tilts the top eigenvector by w_i ≈ E_{i1}/(λ₁ − λ_i), so
  E‖sin Θ‖² ≈ σ² Σ_{i>1} (λ₁ − λ_i)⁻².  For the Bingham law ∝ exp(c vᵀCv), concentrated, the
  same coordinates are Gaussian with variance 1/(2c(μ₁ − μ_i)).  With 40 runs and d = 30 the
  mean error's relative standard error is ≈ √(2/(d − 1))/(2√40) ≈ 0.02; higher-order terms
  are O(σ/gap) ≈ 0.05 at the ε used, so a 20 % tolerance is > 4 SE.
* Recipe C: μ̂ has SE ≈ √(2/N) (audit.audit_gaussian_dp); honest mechanisms are within 4 SE of
  their true μ, a σ/2 mutant has twice the claim.
"""

import math

import matplotlib
import numpy as np
import pytest
from scipy.integrate import trapezoid

import privpca_edu as pp
from privpca_edu import audit
from privpca_edu.plotting import auditing as plotting_auditing
from privpca_edu.plotting import noisy_covariance as plotting_noisy_covariance
from privpca_edu.audit import mutants
from privpca_edu.experiments import auditing as au
from privpca_edu.experiments import noisy_covariance as nc
from privpca_edu.subspace import subspace_distance, top_eigenvectors

matplotlib.use("Agg")


# ====================================================================== chapter 4: noisy covariance
def test_cached_statistics_are_the_estimators():
    data = nc.spiked_data(500, 12, 2, 3)
    X = np.asarray(data.X)
    statistic = pp.AnalyzeGauss(2, epsilon=1.0, calibration="analytic").release_parts(X).statistic
    np.testing.assert_array_equal(data.second_moment, statistic)
    np.testing.assert_array_equal(data.gram, X.T @ X)
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0)  # rows of unit norm: data_norm = 1 holds
    with pytest.raises(ValueError):
        data.X[0, 0] = 1.0  # cached arrays are read-only


@pytest.mark.parametrize("k", [1, 2])
def test_fast_path_equals_the_estimators(k):
    # The experiment draws releases without re-validating X (speed); it must give *the same
    # numbers* as the estimators' own batch samplers with the same generators.
    eps, delta, seed, n_seeds = 0.7, 1e-5, 4, 3
    r = nc.noisy_covariance_errors(eps, delta, 12, 500, k, seed, n_seeds=n_seeds, ppca_sweeps=2)
    data = nc.spiked_data(500, 12, k, seed)
    X = np.asarray(data.X)

    def dist(V):
        return subspace_distance(V, data.pca_basis)

    for cls, kw, stream in ((pp.AnalyzeGauss, dict(calibration="analytic"), 1), (pp.ModSuLQ, {}, 2)):
        rng = np.random.default_rng((seed, stream))
        releases = cls(k, epsilon=eps, delta=delta, **kw).sample_releases(X, n_seeds, random_state=rng)
        expected = [dist(top_eigenvectors(R, k)[1]) for R in releases]
        np.testing.assert_allclose(r["errors"][cls.__name__], expected, rtol=0, atol=1e-12)
    rng = np.random.default_rng((seed, 3))
    if k == 1:
        v = pp.PPCA(1, epsilon=eps, sampler="exact").sample_components(X, n_seeds, random_state=rng)
        expected = [dist(row[:, None]) for row in v]
    else:
        expected = [dist(pp.PPCA(k, epsilon=eps, sampler="gibbs", n_iter=2, random_state=rng).fit(X).components_)
                    for _ in range(n_seeds)]
    np.testing.assert_allclose(r["errors"]["PPCA"], expected, rtol=0, atol=1e-12)


def test_errors_match_first_order_theory():
    n, d, seed = 2000, 30, 0
    data = nc.spiked_data(n, d, 1, seed)
    lam = np.asarray(data.eigenvalues)
    r = nc.noisy_covariance_errors(1.0, 1e-5, d, n, 1, seed, n_seeds=40)
    sigma = r["noise_scale"]["AnalyzeGauss"]
    predicted = sigma * math.sqrt(np.sum((lam[0] - lam[1:]) ** -2.0))
    assert np.mean(r["errors"]["AnalyzeGauss"]) == pytest.approx(predicted, rel=0.2)
    # PPCA: c = ε/2 on C = XᵀX = n·A, so Var(w_i) = 1/(2c·n(λ₁ − λ_i)) = 1/(ε n (λ₁ − λ_i)).
    r3 = nc.noisy_covariance_errors(3.0, 1e-5, d, n, 1, seed, n_seeds=40)
    predicted_ppca = math.sqrt(np.sum(1.0 / (3.0 * n * (lam[0] - lam[1:]))))
    assert np.mean(r3["errors"]["PPCA"]) == pytest.approx(predicted_ppca, rel=0.2)
    # MOD-SuLQ at d = 30, ε = 1: ‖E‖₂ ≈ 2√d β ≈ 0.5 > eigengap ≈ 0.24 → essentially random
    assert np.mean(r["errors"]["ModSuLQ"]) > 0.8 * r["random_guess"]
    assert r["bounds"]["ModSuLQ"]["vacuous"] and not r["bounds"]["AnalyzeGauss"]["vacuous"]


def test_result_fields_levels_and_no_noise_limit():
    r = nc.noisy_covariance_errors(np.inf, 1e-5, 20, 1000, 2, 1, n_seeds=3)
    for name in nc.METHODS:
        np.testing.assert_allclose(r["errors"][name], 0.0, atol=1e-10)
    r = nc.noisy_covariance_errors(0.5, 1e-5, 20, 1000, 2, 1, n_seeds=3)
    assert r["random_guess"] == pytest.approx(math.sqrt(2 * 18 / 20))
    assert r["max_distance"] == pytest.approx(math.sqrt(2))
    for name in nc.METHODS:
        assert np.all((0 <= r["errors"][name]) & (r["errors"][name] <= r["max_distance"] + 1e-12))
    assert np.all(np.isnan(r["sweep_mean"]["PPCA"]))  # k > 1: PPCA drawn at the live ε only
    assert any("Gibbs" in note for note in r["notes"])
    assert r["sweep_mean"]["AnalyzeGauss"].shape == r["epsilon_grid"].shape
    rows = nc.summary_rows(r)
    assert [row["method"] for row in rows] == list(nc.METHODS) and rows[2]["davis_kahan"] is None


def test_epsilon_moves_reuse_the_cached_sweep():
    nc.clear_caches()
    nc.noisy_covariance_errors(1.0, 1e-5, 15, 500, 1, 7, n_seeds=2)
    before = nc._noisy_matrix_sweep.cache_info().misses, nc._ppca_sweep.cache_info().misses
    nc.noisy_covariance_errors(2.5, 1e-5, 15, 500, 1, 7, n_seeds=2)
    nc.noisy_covariance_errors(2.5, 1e-3, 15, 500, 1, 7, n_seeds=2)  # δ: PPCA sweep reused too
    after = nc._noisy_matrix_sweep.cache_info().misses, nc._ppca_sweep.cache_info().misses
    assert after == (before[0] + 1, before[1])


@pytest.mark.parametrize("kwargs,match", [
    (dict(epsilon=-1.0), "epsilon must be > 0"),
    (dict(delta=1.5), r"delta must be in \(0, 1\)"),
    (dict(n_features=1), "n_features must be in"),
    (dict(n_features=200), "n_features must be in"),
    (dict(n_samples=5), "n_samples must be in"),
    (dict(n_features=3, n_components=3), r"n_components must be at most min\(3, n_features − 1\) = 2"),
    (dict(n_seeds=0), "n_seeds must be in"),
    (dict(calibration="paper"), "calibration must be one of"),
    (dict(epsilon_grid=()), "epsilon_grid must contain"),
])
def test_noisy_covariance_rejects_bad_input(kwargs, match):
    args = dict(epsilon=1.0, delta=1e-5, n_features=10, n_samples=300, n_components=1, seed=0, n_seeds=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        nc.noisy_covariance_errors(**args)


def test_bingham_2d_draws_follow_the_exact_density():
    r = nc.bingham_2d(epsilons=(0.25, 1.0, 4.0), n_draws=20_000)
    for eps in r["epsilons"]:
        assert r["chi2"][eps].passed, r["chi2"][eps]
        assert trapezoid(r["density"][eps], r["theta_grid"]) == pytest.approx(1.0, abs=1e-3)
    X = np.asarray(r["X"])
    _, top = top_eigenvectors(X.T @ X, 1)
    assert r["principal_angle"] == pytest.approx(np.mod(np.arctan2(top[1, 0], top[0, 0]), np.pi))
    # concentration grows with ε: the mean |angle − axis| shrinks
    spread = [np.mean(np.abs(np.sin(r["samples"][e] - r["principal_angle"]))) for e in r["epsilons"]]
    assert spread[0] > spread[1] > spread[2]
    # a law too concentrated for a 60-bin χ² test is reported as None, not as a NaN verdict
    assert nc.bingham_2d(epsilons=(40.0,), n_draws=500)["chi2"][40.0] is None


def test_gibbs_mixing_starts_worst_and_settles():
    r = nc.gibbs_mixing(n_features=20, n_components=2, n_sweeps=6, n_chains=3, reference_sweeps=20)
    assert np.allclose(r["distance"][:, 0], math.sqrt(2))  # start orthogonal to the top-2 subspace
    assert np.all(np.abs(r["distance"][:, -1] - r["exact_level"]) < 0.5 * r["exact_level"] + 0.05)


def test_mod_sulq_at_scale_is_a_random_guess():
    r = nc.mod_sulq_at_scale(n_mc=2000)
    assert r["beta"] == pytest.approx(0.051847, abs=1e-6)
    assert r["expected_spectral_norm"] == pytest.approx(3.28, abs=0.01)
    # one 1000×1000 draw: within a few Tracy–Widom units (β·1000^{-1/6} ≈ 0.016) of 2√d β
    assert abs(r["measured_spectral_norm"] - r["expected_spectral_norm"]) < 5 * r["beta"] * 1000 ** (-1 / 6)
    assert r["lambda_k"] == pytest.approx(0.0173, abs=0.002)  # normalised top eigenvalues ≈ 0.0173 (Ge et al. 2018, §5.1 model)
    assert r["vacuous"] and r["noise_to_gap"] > 100
    assert r["mod_sulq_population_error"] > 0.95 * r["random_guess"]
    assert r["analyze_gauss_population_error"] < 0.2
    m, _ = nc.normalised_spiked_eigenvalues(np.array([3.0, 1.0, 1.0]), 500)
    assert m.sum() == pytest.approx(1.0)  # each draw's weights sum to one


# ============================================================================= chapter 5: audits
def test_gdp_audit_honest_passes_mutant_flagged():
    ok = au.gdp_audit("Analyze Gauss (analytic σ)", n_draws=20_000)
    assert ok["passed"] and abs(ok["mu_hat"] - ok["mu_true"]) < 4 * ok["se"]
    assert ok["mu_true"] == pytest.approx(ok["mu_claimed"])  # analytic calibration is exactly tight
    assert ok["se"] == pytest.approx(math.sqrt(2 / 20_000), rel=0.05)
    # the claimed curve passes through the advertised point: δ(ε_claim) = δ_claim
    i = int(np.argmin(np.abs(ok["curve_epsilon"] - ok["epsilon"])))
    assert ok["curve_epsilon"][i] == ok["epsilon"] and ok["delta_claimed"][i] == pytest.approx(ok["delta"], rel=1e-6)
    bad = au.gdp_audit("mutant: Analyze Gauss with σ/2", n_draws=20_000)
    assert not bad["passed"] and bad["mu_true"] == pytest.approx(2 * bad["mu_claimed"])
    assert bad["epsilon_lower"] > bad["epsilon"]  # certified: it spends more than it claims
    assert any("NOT" in n and "exact check" in n for n in bad["notes"])
    # the multiplier reproduces the mutant exactly (same class of bug, same μ)
    half = au.gdp_audit("Analyze Gauss (analytic σ)", sigma_multiplier=0.5, n_draws=20_000)
    assert half["mu_true"] == pytest.approx(bad["mu_true"]) and not half["passed"]


def test_gdp_audit_mod_sulq_is_conservative_and_warnings_become_notes():
    ms = au.gdp_audit("MOD-SuLQ", n_draws=5000)
    assert ms["passed"] and ms["mu_true"] < 0.5 * ms["mu_claimed"]
    # black box: β/2 still meets the (ε, δ) claim, since β is ≈ (d+1)/√2 times what is needed
    r = au.gdp_audit("mutant: MOD-SuLQ with β/2 (still private)", n_draws=5000)
    assert r["passed"] and r["claim_holds"] and not r["honest"]
    assert all("NOT" not in note for note in r["notes"])  # it is not labelled non-private: it is not
    bad = au.gdp_audit("mutant: Analyze Gauss with σ/2", n_draws=5000)
    assert not bad["claim_holds"] and any("NOT" in note for note in bad["notes"])
    classic = au.gdp_audit("Analyze Gauss (classic σ)", epsilon=1.0, n_draws=2000)  # no warning escapes
    assert any("epsilon < 1" in n for n in classic["notes"])


@pytest.mark.parametrize("kwargs,match", [
    (dict(mechanism="Laplace"), "mechanism must be one of"),
    (dict(sigma_multiplier=0.0), "sigma_multiplier must be > 0"),
    (dict(n_draws=10), "n_draws must be in"),
    (dict(epsilon=np.inf), "epsilon must be a finite number"),
    (dict(delta=0.0), "delta must be in"),
    (dict(n_samples=1), "n_samples must be in"),
])
def test_gdp_audit_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        au.gdp_audit(**kwargs)


def test_with_noise_multiplier():
    assert au.with_noise_multiplier(pp.AnalyzeGauss, 1.0) is pp.AnalyzeGauss
    cls = au.with_noise_multiplier(pp.ModSuLQ, 0.5)
    assert cls is au.with_noise_multiplier(pp.ModSuLQ, 0.5) and issubclass(cls, pp.ModSuLQ)
    X, _ = audit.worst_case_pair(10, 3)
    assert cls(1, epsilon=1.0, delta=0.1).release_parts(X).noise_scale == pytest.approx(
        mutants.HalfSigmaModSuLQ(1, epsilon=1.0, delta=0.1).release_parts(X).noise_scale)


def test_output_epsilon_demo():
    assert au.output_epsilon_demo("PPCA", n_draws=100_000)["passed"]
    bad = au.output_epsilon_demo("mutant: PPCA with doubled exponent", n_draws=200_000)
    assert not bad["passed"] and bad["epsilon_lb"] > 1.0
    assert bad["hist"].sum() == pytest.approx(1.0) and bad["threshold"] is not None


def test_sampler_density_demo_and_case_study():
    r = au.sampler_density_demo(n_draws=20_000)
    correct, buggy, always = au.SAMPLERS
    assert r["exact_moment"] == pytest.approx(0.8825, abs=5e-5)  # auditing.md: true E[y₁²] = 0.8825
    assert r["chi2"][correct].passed and not r["chi2"][buggy].passed and not r["chi2"][always].passed
    cs = au.library_sampler_case_study(n_draws=50_000, reference_draws=200_000)
    row_ok, row_bug = cs["rows"][correct], cs["rows"][buggy]
    se = math.sqrt(0.8825 * 0.12 / 50_000)  # sd of y₁² is ≤ √(E y⁴ − (E y²)²) < √(0.8825·0.12)
    assert abs(row_ok["d2_moment"] - 0.8825) < 5 * se
    assert row_bug["d2_moment"] == pytest.approx(0.965, abs=0.005)  # the libraries' measured value
    assert row_ok["d4_passed"] and not row_bug["d4_passed"]
    assert row_bug["d4_moments"][0] == pytest.approx(0.889, abs=0.01)
    assert row_ok["d4_moments"][0] == pytest.approx(0.578, abs=0.01)
    with pytest.raises(ValueError, match="psi must be"):
        au.sampler_density_demo(psi=(1.0, -2.0))


def test_cheater_lineup_and_answer_check(capsys):
    lineup = au.cheater_lineup()
    assert list(lineup) == ["A", "B", "C"]
    cheaters = [label for label, m in lineup.items() if isinstance(m._hidden, mutants.HalfSigmaAnalyzeGauss)]
    assert len(cheaters) == 1
    for label in lineup:
        assert au.check_cheater(label) is (label == cheaters[0])
    assert au.check_cheater(cheaters[0].lower()) is True
    assert au.check_cheater(None) is None and au.check_cheater("D") is False
    assert "not answered yet" in capsys.readouterr().out
    # the exercise is solvable with recipe C alone: exactly the cheater is flagged
    X, Xp = audit.worst_case_pair(20, 3)
    flagged = [label for label, m in lineup.items()
               if not audit.audit_release_gdp(m, X, Xp, n_draws=20_000, random_state=1).passed]
    assert flagged == cheaters
    # the black box hides σ but still fits and releases
    m = lineup["A"]
    assert math.isnan(m.release_parts(X).noise_scale)
    assert m.fit(X).released_matrix_.shape == (3, 3) and "claims (1, 1e-05)-DP" in repr(m)


# ============================================================================ figures and widgets
def test_static_figures_have_labels():
    figs = [
        plotting_noisy_covariance.plot_noisy_covariance(nc.noisy_covariance_errors(n_features=10, n_samples=300, n_seeds=2)),
        plotting_noisy_covariance.plot_bingham_2d(nc.bingham_2d(n_draws=500)),
        plotting_noisy_covariance.plot_gibbs_mixing(nc.gibbs_mixing(n_features=8, n_sweeps=2, n_chains=2, reference_sweeps=3)),
        plotting_auditing.plot_gdp_audit(au.gdp_audit(n_draws=1000)),
        plotting_auditing.plot_output_epsilon(au.output_epsilon_demo(n_draws=2000)),
        plotting_auditing.plot_sampler_density(au.sampler_density_demo(n_draws=1000)),
    ]
    for fig in figs:
        for ax in fig.axes:
            if ax.get_visible() and ax.get_xlabel():  # every drawn panel says what its axes are
                assert ax.get_ylabel() or not ax.get_yticks().size


def test_noisy_covariance_dashboard_shows_errors_in_the_figure():
    from privpca_edu.widgets.noisy_covariance import noisy_covariance_dashboard

    dash = noisy_covariance_dashboard(n_features=10, n_samples=500)
    assert dash.last_error is None and dash.png()[:8] == b"\x89PNG\r\n\x1a\n"
    before = dash.png()
    dash.controls["epsilon"].value = 0.3  # only ε moves: the picture must change (no stale cache)
    assert dash.png() != before
    dash.refresh(n_features=2, n_components=3)  # k ≥ d: not computable
    assert isinstance(dash.last_error, ValueError) and "n_components" in dash.figure.error
    assert dash.figure._error.get_visible()
    dash.controls["epsilon"].value = 2.0  # the next valid setting clears the message
    assert dash.last_error is None and not dash.figure._error.get_visible()
    assert dash.result["epsilon"] == pytest.approx(2.0)


def test_gdp_audit_dashboard_error_and_notes():
    from privpca_edu.widgets.auditing import gdp_audit_dashboard

    dash = gdp_audit_dashboard(n_draws=2000)
    assert dash.result["passed"]
    dash.controls["mechanism"].value = "mutant: Analyze Gauss with σ/2"
    assert not dash.result["passed"]
    dash.refresh(n_draws=10)
    assert isinstance(dash.last_error, ValueError) and "n_draws" in dash.figure.error
    dash.controls["mechanism"].value = "Analyze Gauss (classic σ)"  # ε = 1: a PrivacyWarning, shown as a note
    assert dash.last_error is None and "epsilon < 1" in dash.figure._note.get_text()


def test_benchmark_script_runs():
    # guards benchmarks/bench_chapters_4_5.py against rotting (no timing assertion)
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_chapters_4_5.py"
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600,
                          env=env, cwd=script.parent.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("compute  p50") == 2, proc.stdout
