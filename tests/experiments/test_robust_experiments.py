"""Issue 5: the robust chapter's experiments, dashboards, reconstructed bounds and benchmark.

The figure functions run at tiny sizes here (their statistics are tested in
tests/estimators/test_robust.py); what is tested is the plumbing: shapes, determinism, that the
shortcut "one statistic, noise scaled per ε" is exactly what the estimators release, caching, and
that dashboards update without leaking warnings.
"""

import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu.bounds import robust as B
from privpca_edu.datasets import elliptical
from privpca_edu.estimators.robust import KendallDPPCA, NonPrivateAnalyzeGaussReplication, kendall_tau_matrix
from privpca_edu.experiments import robust as ex


# ---------------------------------------------------------------------------------------------- figures
def test_method_losses_equal_the_estimators_own_release():
    # The figure functions reuse one statistic for every ε; with the same generator state the
    # release is the one fit() makes (σ·E₀ with E₀ the standard draw), so the losses agree.
    data = elliptical(400, 8, family="t", random_state=1)
    seeds = np.random.SeedSequence(5).spawn(len(ex.METHODS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        res = ex.method_losses(data.X, data.components, (0.5, 2.0), methods=("sph", "AG"), random_state=5)
        for j, eps in enumerate((0.5, 2.0)):
            sph = KendallDPPCA(2, epsilon=eps, random_state=np.random.default_rng(seeds[0])).fit(data.X)
            ag = NonPrivateAnalyzeGaussReplication(2, epsilon=eps, random_state=np.random.default_rng(seeds[2])).fit(data.X)
            assert res["sph"][j] == pytest.approx(pp.subspace_distance(sph.components_, data.components, "max_angle"),
                                                  abs=1e-10)
            assert res["AG"][j] == pytest.approx(pp.subspace_distance(ag.components_, data.components, "max_angle"),
                                                 abs=1e-10)


def test_error_vs_n_and_epsilon_shapes_and_determinism():
    kw = dict(n_samples=(200, 400), n_features=(6,), n_reps=2, progress=False, random_state=3)
    a = ex.error_vs_n("contaminated", **kw)
    b = ex.error_vs_n("contaminated", **kw)
    for m in ex.METHODS:
        assert a["mean"][m].shape == (1, 2) and a["losses"][m].shape == (1, 2, 2)
        np.testing.assert_array_equal(a["losses"][m], b["losses"][m])
        assert np.all((a["losses"][m] >= 0) & (a["losses"][m] <= 1))
    assert any("not private" in note for note in a["notes"])
    f5 = ex.error_vs_epsilon("t", epsilons=(0.5, 5.0), n_samples=300, n_features=6, n_reps=2, progress=False,
                             baselines="private")
    assert f5["mean"]["sph"].shape == (2,) and f5["settings"]["baselines"] == "private"
    # more budget, less error (common random numbers make this hold per data set for Kendall)
    assert np.all(f5["losses"]["sph"][1] <= f5["losses"]["sph"][0] + 1e-12)
    with pytest.raises(ValueError, match="scale"):
        ex.error_vs_n(scale="huge")
    with pytest.raises(ValueError, match="family"):
        ex.error_vs_n("cauchy")


def test_book_scale_figures_run_quickly_and_show_the_paper_ordering():
    # Book scale (4 data sets per point) must stay fast enough for the chapter; the ordering of
    # the paper's Fig. 4 (contaminated): g-DPPCA improves with n, AG stays broken.
    t0 = time.perf_counter()
    r = ex.error_vs_n("contaminated", scale="book", progress=False)
    assert time.perf_counter() - t0 < 20
    sph, ag = r["mean"]["sph"][0], r["mean"]["AG"][0]
    assert sph[-1] < sph[0] and sph[-1] < 0.3
    assert np.all(ag > 0.8)
    assert set(ex.SCALES["paper"]) == set(ex.SCALES["book"])


# ---------------------------------------------------------------------------------------------- twins
def test_heavy_tails_explorer_result_and_cache():
    r = ex.heavy_tails_explorer(contamination=0.05, df=1.0, epsilon=1.0, n_samples=300, n_features=6, n_reps=2)
    assert set(r["losses"]) == set(ex.METHODS) and all(len(v) == 2 for v in r["losses"].values())
    assert set(r["bound"]) == {"sph", "wins"} and all(0 < b <= 1 for b in r["bound"].values())
    assert r["scatter"]["outlier"].sum() == 15  # round(0.05 · 300)
    assert r["bound_terms"]["sph"]["contamination_bias"] > 0
    # deterministic, and an ε move reuses the cached data and statistics
    again = ex.heavy_tails_explorer(contamination=0.05, df=1.0, epsilon=1.0, n_samples=300, n_features=6, n_reps=2)
    for m in ex.METHODS:
        np.testing.assert_array_equal(r["losses"][m], again["losses"][m])
    hits = ex._explorer_statistics.cache_info().hits
    ex.heavy_tails_explorer(contamination=0.05, df=1.0, epsilon=3.0, n_samples=300, n_features=6, n_reps=2)
    assert ex._explorer_statistics.cache_info().hits >= hits + 2
    # coupled data: more outliers = the same rows plus new ones
    X1, _, _, m1 = ex._coupled_data(300, 6, 1.0, 0.05, 0)
    X2, _, _, m2 = ex._coupled_data(300, 6, 1.0, 0.10, 0)
    assert np.all(m2[m1]) and np.array_equal(X1[~m2], X2[~m2])
    with pytest.raises(ValueError, match="contamination"):
        ex.heavy_tails_explorer(contamination=1.5)


@pytest.mark.parametrize("contamination, df, epsilon, delta, baselines", [
    (0.0, math.inf, 1.0, 1e-5, "paper"),  # the book's defaults
    (0.05, 1.0, 5.0, 1e-3, "private"),
    (0.2, 3.0, math.inf, 1e-5, "paper"),
    (0.1, 2.0, 0.2, 1e-8, "private"),
])
def test_heavy_tails_explorer_nsggd_is_the_estimator_fit(contamination, df, epsilon, delta, baselines):
    # The twin runs NSGGD on all data sets at once with its ε-independent inputs (prepared rows,
    # Haar start, standard noise draws) cached; the result must be NSGGD(…).fit(X) on each, exactly.
    from privpca_edu.estimators.robust import NSGGD

    n, d = 300, 8
    r = ex.heavy_tails_explorer(contamination, df, epsilon, delta, n_samples=n, n_features=d, n_reps=3,
                                baselines=baselines)
    for rep in range(3):
        X, V, u, _ = ex._coupled_data(n, d, df, contamination, rep)
        seed = ex._explorer_statistics(n, d, df, contamination, rep, baselines, "classic")[2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = NSGGD(2, epsilon=epsilon, delta=delta, paper_normalization=baselines == "paper",
                        data_norm=math.sqrt(d), random_state=seed).fit(np.asarray(X))
        assert r["losses"]["NSGGD"][rep] == ex._loss(fit.components_.T, V)
        if rep == 0:
            assert np.array_equal(r["directions"]["NSGGD"], np.column_stack([V[:, 0], u]).T @ fit.components_.T)
        assert r["noise_scale"]["NSGGD"] == fit.noise_scale_


def test_heavy_tails_statistics_on_two_threads_are_the_serial_ones(monkeypatch):
    # The spherical Kendall matrix is computed on a second thread: the same statistics and the
    # same noise draws as one after the other.
    kw = dict(contamination=0.1, df=2.0, epsilon=0.7, n_samples=300, n_features=6, n_reps=2)
    ex.clear_caches()
    threaded = ex.heavy_tails_explorer(**kw)
    ex.clear_caches()
    monkeypatch.setenv("PRIVPCA_THREADS", "1")
    serial = ex.heavy_tails_explorer(**kw)
    for m in ex.METHODS:
        assert np.array_equal(threaded["losses"][m], serial["losses"][m])
        assert np.array_equal(threaded["directions"][m], serial["directions"][m])
    a = ex._explorer_statistics(300, 6, 2.0, 0.1, 0, "paper", "classic")[0]["sph"][1].statistic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = KendallDPPCA(2).release_parts(ex._coupled_data(300, 6, 2.0, 0.1, 0)[0]).statistic
    assert np.array_equal(a, b)


def test_breakdown_demo_covariance_breaks_kendall_holds():
    r = ex.breakdown_demo(fraction=0.05, distance=30.0)
    # 10 far outliers turn the covariance's first component; Kendall's τ barely moves
    assert r["loss"]["AG"] > 0.9 and r["loss"]["sph"] < 0.2
    assert r["n_outliers"] == 10 and r["covariance_breakdown"] == 1 / 200
    # the reconstructed Thm 3.3 guarantee is a positive fraction, below where Kendall actually breaks
    g = r["guaranteed_fraction"]
    assert 0.05 < g < 0.5
    broken = r["fractions"][np.argmax(r["curves"]["sph"] > 0.9)]
    assert broken > g
    eig = np.linalg.eigvalsh(kendall_tau_matrix(ex._breakdown_data(200, 9.0, 0, 0.0, 30.0)[0]))
    assert r["breakdown_lower_bound"] == pytest.approx(199 / 200 * (eig[1] - eig[0]) / 4)
    noisy = ex.breakdown_demo(fraction=0.05, distance=30.0, epsilon=1.0)
    assert noisy["loss"]["sph"] < 0.5


# ---------------------------------------------------------------------------------------------- dashboards
def test_dashboards_update_fast_and_quietly():
    from privpca_edu.widgets.robust import breakdown_dashboard, heavy_tails_dashboard

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak to a notebook's output
        d = heavy_tails_dashboard(n_samples=400, n_reps=2)
        assert d.last_error is None and d.png()[:4] == b"\x89PNG"
        d.controls["epsilon"].value = 2.0
        d.controls["contamination"].value = 0.1
        d.controls["df"].value = 1.0
        assert d.last_error is None and d.result["df"] == 1.0 and d.result["contamination"] == 0.1
        # the privacy caveats reach the figure as notes, not as warnings
        assert d.last_warnings == [] or all("Gaussian" in w or "private" in w for w in d.last_warnings)
        b = breakdown_dashboard()
        b.controls["fraction"].value = 0.3
        b.controls["epsilon"].value = 1.0
        b.controls["distance"].value = 100.0
        assert b.last_error is None and b.result["fraction"] == 0.3
    # an ε move at the default sizes is compute-light (data and statistics cached): measured
    # ≈ 35 ms on one core; allow for a shared CI machine
    d = heavy_tails_dashboard()
    d.controls["epsilon"].value = 0.5
    assert d.timings[-1]["compute"] < 0.5


# ---------------------------------------------------------------------------------------------- bounds
def test_population_eigenvalues():
    lam = np.r_[10.0, 5.0, np.ones(8)]
    sph = B.kendall_population_eigenvalues(lam, n_draws=200_000)
    assert sph.sum() == pytest.approx(1.0, abs=1e-12)
    assert sph[:3] == pytest.approx([0.3333, 0.2085, 0.0573], abs=3e-3)  # Monte-Carlo E[λ_j Z_j²/Σλ_l Z_l²]
    # r → ∞: winsorization never bites, K = E[(X − X̃)(X − X̃)ᵀ] = 2Σ (Gaussian)
    big = B.kendall_population_eigenvalues(lam, "winsorized", radius=1e6, n_draws=200_000)
    assert big == pytest.approx(2 * lam, rel=0.02)
    # r → 0: K ≈ r² K_sph (Kim & Jung, eq. 3.2)
    small = B.kendall_population_eigenvalues(lam, "winsorized", radius=1e-3, n_draws=200_000)
    assert small / 1e-6 == pytest.approx(sph, abs=3e-3)


def test_theorem_32_and_34_terms():
    lam_K = B.kendall_population_eigenvalues(np.r_[10.0, 5.0, np.ones(8)], n_draws=100_000)
    a = B.kendall_dppca_thm32(lam_K, 2, 1000, 10, 1.0, 1e-5)
    assert a["total"] == min(1.0, a["gap_ratio"] * (a["privacy"] + a["statistical"]))
    assert a["noise_scale"] == pytest.approx(4 * math.sqrt(2 * math.log(1.25e5)) / 1000)
    assert "Thm 3.2" in a["label"] and "unspecified" in a["label"] and a["C"] == 1.0
    # privacy term ∝ 1/(nε), statistical ∝ 1/√n
    b = B.kendall_dppca_thm32(lam_K, 2, 4000, 10, 2.0, 1e-5)
    assert b["privacy"] == pytest.approx(a["privacy"] / 8) and b["statistical"] == pytest.approx(a["statistical"] / 2)
    assert B.kendall_dppca_thm32(lam_K, 2, 1000, 10, np.inf, 1e-5)["privacy"] == 0
    # Thm 3.4 at η = 0 is Thm 3.2; the bias term 2η‖g‖²/λ₁ · n/(n − 1) does not shrink with n or ε
    c0 = B.kendall_dppca_thm34(lam_K, 2, 1000, 10, 1.0, 1e-5, 0.0)
    assert c0["raw"] == pytest.approx(a["raw"]) and c0["contamination_bias"] == 0
    c = B.kendall_dppca_thm34(lam_K, 2, 1000, 10, 1.0, 1e-5, 0.05)
    assert c["contamination_bias"] == pytest.approx(2 * 0.05 / lam_K.max() * 1000 / 999)
    big = B.kendall_dppca_thm34(lam_K, 2, 10**7, 10, 1e6, 1e-5, 0.05)
    assert big["raw"] > big["gap_ratio"] * big["contamination_bias"] * 0.999
    e = B.kendall_dppca_thm32(lam_K, 2, 1000, 10, 1.0, 1e-5, explicit=True)
    assert e["raw"] > a["raw"] and e["explicit"]
    with pytest.raises(ValueError, match="eigengap"):
        B.kendall_dppca_thm32([1.0, 0.5, 0.5], 2, 100, 3, 1.0, 1e-5)


def test_breakdown_bound_and_rates():
    lam = [0.75, 0.25]
    b = B.kendall_breakdown(lam, 1, 200, n_replaced=np.array([0, 10, 40]))
    assert b["breakdown_lower_bound"] == pytest.approx(199 / 200 * 0.5 / 4)
    rho = (200 - 10) * 189 / (200 * 199)
    assert b["perturbation"][1] == pytest.approx(1 - rho) and b["perturbation"][0] == 0
    assert b["sin_theta_bound"][1] == pytest.approx(2 * (1 - rho) / 0.5)
    m = b["guaranteed_replacements"]
    assert m / 200 >= b["breakdown_lower_bound"] - 1 / 200  # the exact ρ_m is never worse than 2m/(n − 1)
    eigs = np.r_[10.0, 5.0, np.ones(48)]
    for n in (1000, 10_000):
        assert B.analyze_gauss_rate(eigs, 2, n, 1.0, 1e-5)["raw"] >= B.kendall_sph_rate(eigs, 2, n, 1.0)["raw"]


# ---------------------------------------------------------------------------------------------- benchmark
def test_bench_robust_quick_runs():
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_robust.py"
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=str(script.parents[1]))
    proc = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600,
                          env=env, cwd=script.parents[1])
    assert proc.returncode == 0, proc.stderr
    for part in ("(a) K̂", "(b) vectorised-per-pair loop", "(c) K̂ at n", "ratio", "peak memory"):
        assert part in proc.stdout, proc.stdout
