"""experiments.ldp.dashboard and user_report: the chapter's live dashboard twin (small sizes).

The dashboard's batch (:func:`_errors_batch`) against one estimator fit at a time
(:func:`_errors_now`), with the tolerances that follow from what differs:
* dense, central, non-private: the same draws (σ·Z, the fit's own noise scaled last) and the same
  eigendecompositions, so the errors agree to rounding: 1e-12 (eigenvector rounding is about
  machine-ε·‖S̃‖/gap < 1e-14 here).
* sparse: the ADMMs run as one stack (estimators.local.fantope_admm_stack), which may stop one
  iteration from the reference (iterations within 1); the final Y then differ by at most
  √k·tol/ρ in Frobenius norm (the dual residual at the stopping rule), and by Davis–Kahan
  (Yu, Wang & Samworth 2015, Theorem 2) the projection distances of their top-k eigenvectors by
  at most 2√2·√k·tol/(ρ·g), g the k-th eigengap of the reference Y.
"""

import math

import numpy as np
import pytest

from privpca_edu.experiments import ldp as L
from privpca_edu.experiments.ldp import _shared
from privpca_edu.experiments.ldp import dashboard as D

pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


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
    monkeypatch.setattr(D, "PARALLEL_MIN_FEATURES", 1)
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
        with _shared._Notes() as notes:
            errors, iters = D._errors_now(kind, n, *rest)
        out.append((errors, iters, tuple(notes.messages)))
    return out


def _sparse_error_tolerance(n, p, k, s, gap, eps, delta, calibration, n_repeats, seed, solver):
    """2√2·√k·tol/(ρ·g) for each repeat (module docstring), from the reference fits' own ρ and Y."""
    S = np.asarray(L.second_moment(n, p, k, gap=gap, support_size=s, random_state=seed)["second_moment"])
    out = []
    for r in range(n_repeats):
        est = _shared._ldp_estimator("sparse", k, eps, delta, calibration, _shared._stream(seed, "ldp", "sparse", r),
                                     dict(solver))
        with _shared._Notes():
            est.fit_second_moment(S, n)
        values = np.linalg.eigvalsh(est.solution_)[::-1]
        out.append(2 * math.sqrt(2) * math.sqrt(k) * est.tol / (est.rho_ * (values[k - 1] - values[k])))
    return np.array(out)


def _assert_batch_matches(fast, ref, kind, ns, rest):
    for n, (e, it, notes), (e0, it0, notes0) in zip(ns, fast, ref):
        assert notes == notes0
        if kind == "sparse":
            assert np.all(np.abs(np.asarray(it) - it0) <= 1)
            bound = _sparse_error_tolerance(n, *rest, D.DASHBOARD_SOLVER)
            assert np.all(np.abs(e - e0) <= bound), (n, e - e0, bound)
        else:
            assert (it is None and it0 is None) or np.array_equal(it, it0)
            np.testing.assert_allclose(e, e0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "sparse", "central", "nonprivate"])
@pytest.mark.parametrize("eps, p, k, s, calibration", [(4.0, 20, 2, 4, "replacement"), (0.5, 12, 2, 5, "paper"),
                                                       (2.0, 12, 2, 5, "paper"), (3.0, 9, 1, 3, "analytic"),
                                                       (8.0, 31, 3, 8, "replacement")])
def test_dashboard_batch_is_one_fit_at_a_time(kind, eps, p, k, s, calibration):
    # The dashboard computes each method at all n at once (cached standard noise rescaled by σ(ε),
    # one calibration per ε, the ADMMs as one stack; from p = 30 on, on two threads): the errors,
    # ADMM iteration counts and notes must be those of fitting the estimators one by one, to the
    # tolerances of the module docstring.
    if kind == "central":
        calibration = "analytic" if calibration == "analytic" else "classic"
    ns = tuple(max(n, p) for n in (D.DASHBOARD_N_CENTRAL if kind == "central" else D.DASHBOARD_N))
    rest = (p, k, s, 10.0, eps, 1e-4, calibration, 2, 0)
    _assert_batch_matches(D._errors_batch(kind, ns, *rest), _reference_errors(kind, ns, *rest), kind, ns, rest)


def test_dashboard_batch_tolerance_can_fail(monkeypatch):
    # the sparse comparison above fails when the stack solves another problem (λ halved)
    ns, rest = (10_000, 1_000_000), (20, 2, 4, 10.0, 4.0, 1e-4, "replacement", 2, 0)
    real = D.fantope_admm_stack
    monkeypatch.setattr(D, "fantope_admm_stack", lambda S, k, lam, **kw: real(S, k, np.asarray(lam) / 2, **kw))
    with pytest.raises(AssertionError):
        _assert_batch_matches(D._errors_batch("sparse", ns, *rest), _reference_errors("sparse", ns, *rest),
                              "sparse", ns, rest)


def test_dashboard_batch_rerun_of_an_unconverged_admm(monkeypatch):
    # An ADMM that reaches max_iter is rerun by fantope_admm itself, so its ConvergenceWarning
    # reaches the notes as the one-by-one fits raise it.
    monkeypatch.setattr(D, "DASHBOARD_SOLVER", (("adaptive_rho", True), ("max_iter", 8)))
    ns = (10_000, 1_000_000)
    rest = (20, 2, 4, 10.0, 4.0, 1e-4, "replacement", 2, 0)
    fast = D._errors_batch("sparse", ns, *rest)
    ref = _reference_errors("sparse", ns, *rest)
    assert any("max_iter=8" in m for _, _, notes in fast for m in notes)
    for (e, it, notes), (e0, it0, notes0) in zip(fast, ref):
        # the rerun is the reference itself, and at the cap both ran exactly max_iter iterations
        np.testing.assert_allclose(e, e0, rtol=0, atol=1e-12)
        assert np.array_equal(it, it0) and notes == notes0


def test_matching_n():
    assert D._matching_n([10, 100, 1000], [1.0, 0.5, 0.1], 0.5) == pytest.approx(100)
    assert D._matching_n([10, 100], [1.0, 0.9], 0.1) == math.inf
    assert D._matching_n([10, 100], [0.05, 0.01], 0.1) == 10.0


def test_user_report_example():
    u = L.user_report_example(4.0, 10, 2)
    assert u["record"].shape == (10,) and np.linalg.norm(u["record"]) <= 1 + 1e-12
    np.testing.assert_allclose(u["outer"], np.outer(u["record"], u["record"]))
    assert np.array_equal(u["report"], u["report"].T)
    noise = u["report"] - u["outer"]
    # the upper triangle's 55 entries are N(0, σ₁²): their sample sd is within 30 % of σ₁ (s.e. ≈ 10 %)
    assert np.std(noise[np.triu_indices(10)]) == pytest.approx(u["noise_scale"], rel=0.3)
    assert u["signal_to_noise"] == pytest.approx(np.linalg.norm(u["outer"]) / np.linalg.norm(noise))
    again = L.user_report_example(4.0, 10, 2)
    assert np.array_equal(again["report"], u["report"])  # seeded


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
