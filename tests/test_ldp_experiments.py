"""Local-DP chapter: the data model, Theorems 1–4, the experiment twins and the dashboard (small sizes).

Statistical tolerances, with the theory behind each:
* E[S] = Σ: each entry of S = XᵀX/n has variance (Σ_aa Σ_bb + Σ_ab²)/n, so |S − Σ|_ab ≤ 5 s.d. entrywise
  (over ≤ 210 entries the chance of any 5-s.d. excursion is < 1e-4).
* Monotone trends: a mean over R runs has s.e. sd/√R; consecutive grid points may
  only *rise* by 3 combined s.e.  The means move by ≥ 10 s.e. between the points tested, so a
  broken trend (e.g. noise not shrinking with n) fails.
"""

import math
import sys

import numpy as np
import pytest

from privpca_edu.bounds import local as B
from privpca_edu.datasets._ldp import ldp_spiked, ldp_spiked_model
from privpca_edu.experiments import ldp as L
from privpca_edu.subspace import random_subspace_distance

pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


# ------------------------------------------------------------------------- data
def test_ldp_spiked_dense_model():
    data = ldp_spiked(20_000, 10, 2, gap=10.0, random_state=0)
    p, k, gap = 10, 2, 10.0
    base = 1 / (5 * p * (gap + 1))
    np.testing.assert_allclose(data.eigenvalues, [1 / (5 * p)] * k + [base] * (p - k), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.eigvalsh(data.covariance)[::-1], data.eigenvalues, atol=1e-15)
    np.testing.assert_allclose(data.components.T @ data.components, np.eye(k), atol=1e-12)
    assert np.trace(data.covariance) <= 0.2 + 1e-15
    assert np.linalg.norm(data.X, axis=1).max() <= 1 + 1e-12 and data.info["n_clipped"] == 0
    S = data.X.T @ data.X / 20_000
    sd = np.sqrt((np.outer(np.diag(data.covariance), np.diag(data.covariance)) + data.covariance**2) / 20_000)
    assert np.max(np.abs(S - data.covariance) / sd) < 5
    assert data.support is None and data.info["eigengap"] == pytest.approx(gap * base)


def test_ldp_spiked_sparse_model_and_reproducibility():
    data = ldp_spiked(100, 40, 3, gap=1.0, support_size=6, random_state=1)
    nonzero = np.flatnonzero(np.linalg.norm(data.components, axis=1) > 0)
    np.testing.assert_array_equal(nonzero, data.support)
    assert len(data.support) == 6 and not np.array_equal(data.support, np.arange(6))  # permuted
    V, Sigma, eig, support = ldp_spiked_model(40, 3, gap=1.0, support_size=6, random_state=1)
    np.testing.assert_array_equal(V, data.components)  # the model is drawn first, from the same stream
    again = ldp_spiked(100, 40, 3, gap=1.0, support_size=6, random_state=1)
    np.testing.assert_array_equal(again.X, data.X)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_components=10), "n_components"), (dict(n_components=0), "n_components"),
    (dict(support_size=1), "support_size"), (dict(support_size=11), "support_size"),
    (dict(gap=0.0), "gap"), (dict(gap=-1.0), "gap")])
def test_ldp_spiked_bad_input(kwargs, match):
    args = dict(n_samples=10, n_features=10, n_components=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ldp_spiked(**args)


# ------------------------------------------------------------------------- bounds
EIG = [2.0, 2.0, 2.0, 2.0] + [1.0] * 6


def test_theorem_1_and_2():
    lo = B.ldp_lower_bound(10_000, 10, 4, 0.5, EIG)
    assert lo["effective_noise_variance"] == pytest.approx(2.0)
    assert lo["squared_sin_theta"] == pytest.approx(2.0 * 4 * 10 / (10_000 * 0.25))
    assert lo["nonprivate_rate"] / lo["squared_sin_theta"] == pytest.approx(0.25)  # n → nε²
    assert lo["conditions_hold"] and lo["effective_sample_size"] == 2500
    assert lo["projection_distance"] == pytest.approx(math.sqrt(2 * lo["squared_sin_theta"]))
    # halving ε quadruples the bound; a constant scales it
    assert B.ldp_lower_bound(10_000, 10, 4, 0.25, EIG)["squared_sin_theta"] == pytest.approx(4 * lo["squared_sin_theta"])
    assert B.ldp_lower_bound(10_000, 10, 4, 0.5, EIG, constant=3)["squared_sin_theta"] == pytest.approx(
        3 * lo["squared_sin_theta"])
    assert not B.ldp_lower_bound(10_000, 10, 1, 0.5, EIG[:1] + [1.0] * 9)["conditions"]["p/4 <= k <= 3p/4"]
    up = B.local_gaussian_upper_bound(10_000, 10, 4, 0.5, 1e-4, EIG)
    assert up["squared_sin_theta"] == pytest.approx(4 * 4 * 10 * math.log(1e4) / (10_000 * 0.25))
    assert up["gap_to_lower"] == pytest.approx(math.log(1e4) * 2.0)  # log(1/δ)·λ₁/λ_{k+1}
    assert up["numerator_one"] == pytest.approx(up["squared_sin_theta"] / 4)
    tiny = B.local_gaussian_upper_bound(10, 10, 4, 0.1, 1e-4, EIG)
    assert tiny["vacuous"] and tiny["projection_distance"] == pytest.approx(math.sqrt(8))


def test_theorems_3_and_4_and_bad_input():
    eig = [2.0, 2.0] + [1.0] * 398
    lo = B.ldp_sparse_lower_bound(10_000, 400, 2, 10, 0.5, eig)
    assert lo["squared_sin_theta"] == pytest.approx(2.0 * 10 * (2 + math.log(400)) / 2500)
    assert lo["conditions_hold"]
    assert not B.ldp_sparse_lower_bound(10_000, 400, 2, 5, 0.5, eig)["conditions"]["2k <= s-k <= p-k"]
    up = B.local_sparse_upper_bound(10_000, 400, 2, 10, 0.5, eig)
    assert up["squared_sin_theta"] == pytest.approx(4.0 * 100 * math.log(400) / 2500)
    for fn, args in ((B.ldp_sparse_lower_bound, (100, 40, 3, 2, 0.5, EIG * 4)),
                     (B.local_sparse_upper_bound, (100, 40, 3, 41, 0.5, EIG * 4))):
        with pytest.raises(ValueError, match="support_size"):
            fn(*args)
    with pytest.raises(ValueError, match="gap"):
        B.ldp_lower_bound(100, 10, 2, 0.5, [1.0] * 10)
    with pytest.raises(ValueError, match="n_components"):
        B.ldp_lower_bound(100, 10, 10, 0.5, EIG)
    with pytest.raises(ValueError, match="epsilon"):
        B.local_gaussian_upper_bound(100, 10, 4, 0.0, 1e-4, EIG)


# ------------------------------------------------------------------------- second moments
def test_wishart_and_data_second_moments_have_the_same_law():
    # Both are unbiased for Σ, with entrywise s.d. √((Σ_aa Σ_bb + Σ_ab²)/n): 5-s.d. band (docstring).
    n, p, k = 5000, 8, 2
    for method in ("wishart", "data"):
        out = L.second_moment(n, p, k, gap=10.0, random_state=3, method=method)
        S, Sig = np.asarray(out["second_moment"]), np.asarray(out["covariance"])
        sd = np.sqrt((np.outer(np.diag(Sig), np.diag(Sig)) + Sig**2) / n)
        assert out["method"] == method and np.max(np.abs(S - Sig) / sd) < 5
        assert not out["second_moment"].flags.writeable
    # across 200 seeds the spread of S_00/Σ_00 matches the theory √(2/n) for both methods (±20 %:
    # the sample s.d. of 200 values has relative s.e. 1/√400 = 5 %, so 20 % is 4 s.e.)
    for method in ("wishart", "data"):
        ratios = []
        for seed in range(200):
            out = L.second_moment(400, 4, 1, gap=1.0, random_state=seed, method=method)
            ratios.append(out["second_moment"][0, 0] / out["covariance"][0, 0])
        assert np.mean(ratios) == pytest.approx(1.0, abs=4 * math.sqrt(2 / 400 / 200)), method
        assert np.std(ratios) == pytest.approx(math.sqrt(2 / 400), rel=0.2), method
    with pytest.raises(ValueError, match="wishart"):
        L.second_moment(5, 8, 2, method="wishart")


# ------------------------------------------------------------------------- curves and trends
def test_error_curves_shapes_and_monotone_trends():
    # in the demo regime (p = 10, k = 2, Δ = 10): non-increasing in n and in ε.
    res = L.ldp_error_curves("dense", "n", (10_000, 1_000_000, 10_000_000), "epsilon", (2.0, 8.0), n_repeats=10,
                             random_state=0)
    assert res["mean"].shape == res["se"].shape == res["nonprivate"].shape == (2, 3)
    slack = 3 * np.sqrt(res["se"][:, 1:] ** 2 + res["se"][:, :-1] ** 2)
    assert np.all(np.diff(res["mean"], axis=1) <= slack)  # falls with n
    slack_eps = 3 * np.sqrt(res["se"][0] ** 2 + res["se"][1] ** 2)
    assert np.all(res["mean"][1] - res["mean"][0] <= slack_eps)  # falls with ε
    assert res["mean"][1, -1] < res["mean"][1, 0] - 10 * res["se"][1, 0]  # and really moves
    assert np.all(res["mean"] >= res["nonprivate"])  # private is never better than non-private
    assert np.allclose(res["random_level"], random_subspace_distance(10, 2, kind="projection"))
    assert any("ε ≥ 1" in n for n in res["notes"])
    with pytest.raises(ValueError, match="x and curve must differ"):
        L.ldp_error_curves("dense", "n", (10_000,), "n", (10_000,))
    with pytest.raises(ValueError, match="algorithm"):
        L.ldp_error_curves("fancy")


def test_paper_figure_book_scale_and_progress():
    calls = []
    res = L.paper_figure(2, "support_size", n_repeats=1, progress=lambda done, total: calls.append((done, total)))
    assert res["algorithm"] == "sparse" and res["figure"] == 2 and res["scale"] == "book"
    assert res["mean"].shape == (3, 7) and calls[-1] == (21, 21)
    assert np.all(res["iterations"] >= 1)
    with pytest.raises(ValueError, match="panel"):
        L.paper_figure(1, "support_size")


def test_effective_sample_size_noise_scales_exactly():
    res = L.effective_sample_size(epsilons=(0.5, 2.0), n_values=(1000, 100_000), n_repeats=2)
    n, eps = res["n"], res["epsilons"][:, None]
    # local noise sd ∝ 1/(ε√n): depends on nε² only; central ∝ 1/(nε): on nε only (same constant)
    local_const = res["local_noise_sd"] * eps * np.sqrt(n)
    central_const = res["central_noise_sd"] * eps * n
    np.testing.assert_allclose(local_const, local_const[0, 0], rtol=1e-12)
    np.testing.assert_allclose(central_const, local_const[0, 0], rtol=1e-12)  # central at √n users = local at n
    assert res["local"].shape == res["central"].shape == (2, 2)
    # at n = 10⁵ the central error is small and the local one still near the random level
    assert np.all(res["local"][:, -1] > res["central"][:, -1] + 0.5)
    assert L._matching_n([10, 100, 1000], [1.0, 0.5, 0.1], 0.5) == pytest.approx(100)
    assert L._matching_n([10, 100], [1.0, 0.9], 0.1) == math.inf


# ------------------------------------------------------------------------- dashboard twin
def test_dashboard_data():
    r = L.ldp_dashboard_data()
    assert set(r["errors"]) == {"dense", "sparse", "central", "nonprivate"}
    assert r["errors"]["central"] < r["errors"]["dense"] and r["errors"]["sparse"] < r["errors"]["dense"]
    assert r["user"]["report"].shape == (20, 20) and r["user"]["noise_scale"] == pytest.approx(r["noise_scale"])
    np.testing.assert_allclose(r["user"]["outer"], np.outer(r["user"]["record"], r["user"]["record"]))
    assert r["user"]["signal_to_noise"] < 0.05  # one report is almost pure noise
    assert r["aggregate_noise_scale"] == pytest.approx(r["noise_scale"] / 1000)
    assert 100 < r["matching_central_n"] < r["sqrt_n"] * 10
    assert r["theorem"]["lower_dense"]["squared_sin_theta"] <= r["theorem"]["upper_dense"]["squared_sin_theta"]
    assert r["curves"]["dense"].shape == (7,) and not r["curves"]["dense"].flags.writeable
    again = L.ldp_dashboard_data()
    assert again["errors"] == r["errors"]  # deterministic
    with pytest.raises(ValueError, match="support_size"):
        L.ldp_dashboard_data(support_size=1)
    with pytest.raises(ValueError, match="n_samples must be >= n_features"):
        L.ldp_dashboard_data(n_samples=10)
    paper = L.ldp_dashboard_data(epsilon=2.0, calibration="paper")
    assert any("NOT (ε, δ)-DP" in n for n in paper["notes"])


@pytest.mark.parametrize("kw", [dict(epsilon=2.0, calibration="paper", n_features=12, support_size=5),
                                dict(epsilon=3.0, n_features=9, support_size=3, n_components=1)])
def test_dashboard_curves_on_two_threads_are_the_serial_ones(monkeypatch, kw):
    # Algorithm 2 at the seven n runs on two threads: the same numbers and the same notes (the
    # warnings each fit raises are collected per thread) as computed one by one.  The dashboard
    # threads only from p = PARALLEL_MIN_FEATURES on; lowered here so small p exercises that path.
    monkeypatch.setattr(L, "PARALLEL_MIN_FEATURES", 1)
    L.clear_caches()
    threaded = L.ldp_dashboard_data(**kw)
    L.clear_caches()
    monkeypatch.setenv("PRIVPCA_THREADS", "1")
    serial = L.ldp_dashboard_data(**kw)
    assert threaded["notes"] == serial["notes"] and threaded["notes"]
    for key in ("dense", "sparse", "central", "nonprivate"):
        assert np.array_equal(threaded["curves"][key], serial["curves"][key])
    assert threaded["errors"] == serial["errors"]


def _reference_errors(kind, ns, *rest):
    """The straightforward computation: one estimator fit per noise draw, notes as _Notes records them."""
    out = []
    for n in ns:
        with L._Notes() as notes:
            errors, iters = L._errors_now(kind, n, *rest)
        out.append((errors, iters, tuple(notes.messages)))
    return out


@pytest.mark.parametrize("kind", ["dense", "sparse", "central", "nonprivate"])
@pytest.mark.parametrize("eps, p, k, s, calibration", [(4.0, 20, 2, 4, "replacement"), (0.5, 12, 2, 5, "paper"),
                                                       (2.0, 12, 2, 5, "paper"), (3.0, 9, 1, 3, "analytic"),
                                                       (8.0, 31, 3, 8, "replacement")])
def test_dashboard_batch_is_one_fit_at_a_time(kind, eps, p, k, s, calibration):
    # The dashboard computes each method at all n at once (cached standard noise rescaled by σ(ε),
    # one calibration per ε, the ADMMs in lock step; from p = 30 on, on two threads): the errors,
    # ADMM iteration counts and notes must be those of fitting the estimators one by one, exactly.
    if kind == "central":
        calibration = "analytic" if calibration == "analytic" else "classic"
    ns = tuple(max(n, p) for n in (L.DASHBOARD_N_CENTRAL if kind == "central" else L.DASHBOARD_N))
    rest = (p, k, s, 10.0, eps, 1e-4, calibration, 2, 0)
    fast = L._errors_batch(kind, ns, *rest)
    for (e, it, notes), (e0, it0, notes0) in zip(fast, _reference_errors(kind, ns, *rest)):
        assert np.array_equal(e, e0)
        assert (it is None and it0 is None) or np.array_equal(it, it0)
        assert notes == notes0


def test_dashboard_batch_rerun_of_an_unconverged_admm(monkeypatch):
    # An ADMM that reaches max_iter is rerun by fantope_admm itself, so its ConvergenceWarning
    # reaches the notes as the one-by-one fits raise it.
    monkeypatch.setattr(L, "DASHBOARD_SOLVER", (("adaptive_rho", True), ("max_iter", 8)))
    ns = (10_000, 1_000_000)
    rest = (20, 2, 4, 10.0, 4.0, 1e-4, "replacement", 2, 0)
    fast = L._errors_batch("sparse", ns, *rest)
    ref = _reference_errors("sparse", ns, *rest)
    assert any("max_iter=8" in m for _, _, notes in fast for m in notes)
    for (e, it, notes), (e0, it0, notes0) in zip(fast, ref):
        assert np.array_equal(e, e0) and np.array_equal(it, it0) and notes == notes0


@pytest.mark.parametrize("adaptive_rho, max_iter", [(True, 1000), (False, 1000), (True, 5)])
def test_fantope_admm_batch_is_fantope_admm(adaptive_rho, max_iter):
    import warnings

    from privpca_edu.estimators.local import fantope_admm

    rng = np.random.default_rng(3)
    d, k = 9, 2
    A = rng.standard_normal((6, d, d)) / 4
    A = (A + A.transpose(0, 2, 1)) / 2 + np.diag(np.r_[2.0, 1.5, np.zeros(d - 2)])
    A[5] = 0.0  # ρ₀ = 1 when S = 0
    lams = np.array([0.0, 0.01, 0.05, 0.1, 0.3, 0.05])
    Y, n_iter, converged = L._fantope_admm_batch(A, k, lams, adaptive_rho=adaptive_rho, max_iter=max_iter)
    for i in range(len(A)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = fantope_admm(A[i], k, lams[i], adaptive_rho=adaptive_rho, max_iter=max_iter)
        assert np.array_equal(Y[i], ref.Y) and n_iter[i] == ref.n_iter and converged[i] == ref.converged
    assert converged.all() == (max_iter == 1000)


def test_map_with_warnings_keeps_each_items_warnings():
    import warnings

    from privpca_edu.experiments._threads import in_parallel, map_with_warnings

    def work(i):
        warnings.warn(f"item {i}", UserWarning)
        if i % 2:
            warnings.warn(f"odd {i}", RuntimeWarning)
        return np.linalg.eigh(np.eye(20) * i)[0].sum()

    out = map_with_warnings(work, range(6))
    assert [r for r, _ in out] == [20.0 * i for i in range(6)]
    assert [m for _, m in out] == [[f"item {i}"] + ([f"odd {i}"] if i % 2 else []) for i in range(6)]
    assert in_parallel(lambda: 1, lambda: 2) == (1, 2)


def test_dashboard_widget_and_static_figures():
    pytest.importorskip("ipywidgets")
    from privpca_edu.plotting import ldp as plotting_ldp
    from privpca_edu.widgets.ldp import ldp_dashboard

    dash = ldp_dashboard()
    assert dash.last_error is None and dash.png()[:4] == b"\x89PNG"
    dash.controls["epsilon"].value = 1.0
    assert dash.last_error is None
    dash.controls["n_components"].value = 4
    assert dash.controls["support_size"].value >= 4 and dash.last_error is None  # k ≤ s kept on the sliders
    dash.controls["n_features"].value = 6
    assert dash.controls["support_size"].value <= 6 and dash.controls["n_components"].value <= 5
    fig = plotting_ldp.plot_error_curves(L.ldp_error_curves("dense", "n", (10_000, 100_000), "epsilon", (4.0,),
                                                            n_repeats=2))
    assert fig.axes[0].get_xlabel().startswith("n")
    eff = L.effective_sample_size(epsilons=(1.0, 4.0), n_values=(1000, 100_000), n_repeats=1)
    assert len(plotting_ldp.plot_effective_sample_size(eff).axes) == 3


# ------------------------------------------------------------------------- real data
def test_real_data_table_shape():
    pytest.importorskip("sklearn")
    res = L.real_data_table(datasets=("wine",), sparsity_levels=(3, 5, 20), n_components=5, n_repeats=2)
    row = res["rows"][0]
    assert row["dataset"] == "wine" and row["size"] == (178, 13)
    assert math.isnan(row["sparse"][0]) and all(0 <= v <= row["max_error"] + 1e-12 for v in row["sparse"][1:])
    from privpca_edu.plotting.ldp import format_real_data_table

    text = format_real_data_table(res)
    assert "wine" in text and "(178, 13)" in text and "—" in text


def test_real_data_table_needs_scikit_learn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        L.real_data_table(datasets=("wine",), n_repeats=1)
