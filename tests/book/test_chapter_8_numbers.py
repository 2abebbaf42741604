"""Chapter 8's prose: every number it quotes, recomputed, and found verbatim in the notebook.

Each check formats the recomputed value the way the prose writes it (statistical numbers as
"mean ± sd" over the seeds the chapter names, sd with ddof = 1) and requires that exact string in
the chapter's markdown, so the prose and the computation cannot drift apart: a changed algorithm,
default or seed set that moves a quoted number by more than its last digit fails here.  The seeds
are fixed, so the recomputation is exact (no tolerance to tune); the spread the prose quotes is the
one these seeds give.  The last test lists every decimal number in the prose and requires each to
be one of the recomputed strings or a value cited from the paper (its settings and figures).

The paper-scale tables are the report of ``python -m privpca_edu.reproduce dps-pca --scale paper``:
PAPER holds its numbers, the prose must show them, and every repetition behind them is recomputed
here with the command's own seeds and must give the report's mean and sd to the last bit.

Cost: one paper-scale data draw (n = 10⁵, d = 1000; about 8 s of one core) and its 240 trajectories
(about 1 s), the rest at book scale.
"""

import inspect
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from privpca_edu import bounds
from privpca_edu.experiments import dps_pca as ex
from privpca_edu.privacy import dps_pca_sigma
from privpca_edu.reproduce import paper_tasks
from privpca_edu.reproduce._engine import run_task
from privpca_edu.widgets.dps_pca import dps_pca_dashboard

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "08_dps_pca.ipynb"
PROSE = "\n".join("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
                  if c["cell_type"] == "markdown")
FLAT = " ".join(PROSE.split())  # line breaks of the markdown source are not part of a quote

pytestmark = pytest.mark.filterwarnings("ignore:per-step epsilon/T")


def ms(values, digits):
    """'mean ± sd' of ``values`` (sd with ddof = 1), as the chapter writes it."""
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.{digits}f} ± {values.std(ddof=1):.{digits}f}"


class Quotes:
    """Collects the strings the checks found in the prose."""

    def __init__(self):
        self.found = []

    def __call__(self, text):
        text = " ".join(text.split())
        assert text in FLAT, f"chapter 8 should quote {text!r} (recomputed), but its prose does not"
        self.found.append(text)
        return text


@pytest.fixture(scope="module")
def quoted():
    return Quotes()


# ---------------------------------------------------------------------------------------------
# Deterministic values: σ, ratios, probabilities, the theorem's constants
# ---------------------------------------------------------------------------------------------
def test_sigma_and_accounting_ratios(quoted):
    sigma_safe, sigma_paper = dps_pca_sigma(1.0, 1e-5, 10), dps_pca_sigma(1.0, ex.PAPER_DELTA, 10)
    quoted(f"σ = {sigma_safe:.1f} for the book's δ = 10⁻⁵")
    quoted(f"σ = {sigma_paper:.2f} for the paper's δ = 0.3")
    safe = sigma_safe / dps_pca_sigma(1.0, 1e-5, 10, method="analytic_exact")
    paper = sigma_paper / dps_pca_sigma(1.0, ex.PAPER_DELTA, 10, method="analytic_exact")
    quoted(f"{safe:.1f} times larger than the exact accounting at δ = 10⁻⁵")
    quoted(f"{paper:.0f} times larger at the paper's δ = 0.3")
    quoted(f"{safe:.1f} times the exact accounting's σ")  # the summary
    quoted(f"at ε = 1 ({safe:.1f})")  # Solution 8.5


def test_theorem_constants_and_the_raw_spectrum(quoted):
    T = 10
    tau = bounds.dps_pca(1.0, 0.3, T, 10**5, 1, 1000, 5, 10, 50, [100.0] * 5 + [10.0] * 995)["tau"]
    assert tau == pytest.approx(math.sqrt(2 * math.log(40 * T)))
    quoted(f"2Te^{{-\\tau^2/2}} = {2 * T * math.exp(-tau**2 / 2):.2f}")
    b = bounds.dps_pca(1.0, ex.PAPER_DELTA, 10, 100_000, 1, 1000, 5, 10, 50, np.r_[[100.0] * 5, [10.0] * 995])
    mantissa, exponent = f"{b['alpha']:.0e}".split("e")
    quoted(f"\\alpha\\approx {mantissa}\\times10^{{{int(exponent)}}}")
    quoted(f"norm about {math.sqrt(5 * 100 + 995 * 10 / 2):.0f}")  # E‖x‖² = Σλ, tail uniform on [0, 10]
    quoted(f"\\sqrt5\\approx{math.sqrt(5):.2f}")
    quoted(f"\\sqrt{{10}}\\approx{math.sqrt(10):.2f}")
    quoted(f"{(1 - 50 / 1000) ** 10:.0%} for $d = 1000$, $\\hat s = 50$, $s^* = 10$")


def test_exercise_solutions(quoted):
    quoted(f"\\sqrt{{{2 * math.log(2000):.2f}}} = {dps_pca_sigma(2.0, 0.01, 10):.2f}")  # 8.1
    quoted(f"ε/T = {2.0 / 10:g} is below 1")
    quoted(f"$\\sqrt{{100}}\\,\\sigma/n = {math.isqrt(100)}\\,\\sigma/n$")  # 8.2
    quoted(f"0.8^{{10}} = {0.8**10:.3f}$, against $0.9^{{10}} = {0.9**10:.3f}$")  # 8.4


def _threshold(calibration, n_samples=20_000):
    """Smallest ε at which Theorem 4.3 applies at the dashboard's defaults (α = 1 − γ)."""
    lam = ex._book_spectrum(20_000, 200, 5, 10, 0)

    def excess(eps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = bounds.dps_pca(eps, 1e-5, 10, n_samples, 1, 200, 5, 10, 20, lam, calibration=calibration)
        return b["alpha"] - (1 - b["gamma"])

    return brentq(excess, 0.05, 1000, xtol=1e-10)


def test_exercise_8_5_thresholds_and_the_map(quoted):
    paper, exact = _threshold("paper"), _threshold("analytic_exact")
    quoted(f"gives {paper:.1f} and {exact:.2f}")
    quoted(f"near ε ≈ {paper:.0f} with the paper's σ and near ε ≈ {exact:.1f}")
    quoted(f"by a factor {paper / exact:.1f}")
    # what a student reads off panel (b): the grey region ends between the grid points around it
    fmap = ex._cached_map(1e-5, 10, 1, 200, 5, 10, 20, "paper", 20_000, 0)
    j = int(np.argmin(np.abs(fmap["n_samples"] - 20_000)))
    assert abs(fmap["n_samples"][j] - 20_000) / 20_000 < 0.15
    first = fmap["epsilon"][np.argmax(fmap["valid"][:, j])]
    assert fmap["valid"][:, j].any() and paper / 1.3 < first < paper * 1.3


# ---------------------------------------------------------------------------------------------
# Statistical values at book scale: the dashboard's twin, its 8 seeds
# ---------------------------------------------------------------------------------------------
def test_the_live_figure_defaults_and_its_caption(quoted):
    params = inspect.signature(dps_pca_dashboard).parameters
    assert params["epsilon"].default == 2.0 and params["delta"].default == 1e-5
    assert inspect.signature(ex.dps_pca_explorer).parameters["delta"].default == 1e-5
    r = ex.dps_pca_explorer()
    quoted(f"levels off at {ms(r['runs'][:, -1], 3)} (mean ± sd over the 8 seeds)")
    scatter, n, truth, _ = ex.model_scatter(20_000, 200, 5, 10, 0)
    free = ex.trajectories(scatter, n, truth, epsilon=math.inf, delta=1e-5, sparsity=20, n_iter=10,
                           seeds=range(8))
    np.testing.assert_allclose(free.mean(axis=0), r["nonprivate"], rtol=0, atol=1e-12)
    assert free[:, -1].std(ddof=1) < 5e-5  # every seed's noise-free run ends at the same place
    quoted(f"noise-free run's {free[:, -1].mean():.4f} (the same for every seed to four decimals)")
    paper = ex.dps_pca_explorer(delta=ex.PAPER_DELTA)
    quoted(f"lowers the floor to {ms(paper['runs'][:, -1], 3)}")


def test_theorem_against_measurement(quoted):
    r = ex.dps_pca_explorer(epsilon=10.0, calibration="analytic_exact")
    assert r["bound"]["valid"]
    quoted(f"at ε = 10 the error of $Q^{{(T)}}$ is {ms(r['runs'][:, -2], 3)} (mean ± sd over 8")
    quoted(f"the bound is {r['bound']['total'][-1]:.2f}")


def test_exercise_8_3_more_iterations(quoted):
    finals = {T: ex.dps_pca_explorer(epsilon=3.0, n_iter=T)["runs"][:, -1] for T in (2, 4, 30)}
    quoted(f"$T = 2$ gives {ms(finals[2], 3)}")
    quoted(f"$T = 4$ gives {ms(finals[4], 3)}")
    quoted(f"$T = 30$ gives {ms(finals[30], 3)}")
    assert finals[4].mean() < finals[2].mean() < finals[30].mean()


# ---------------------------------------------------------------------------------------------
# The paper's scale (n = 10⁵, d = 1000): the report of `python -m privpca_edu.reproduce dps-pca
# --scale paper`, 20 repetitions per setting, each drawing from its own task seed
# ---------------------------------------------------------------------------------------------
#: report.md of `python -m privpca_edu.reproduce dps-pca --scale paper` (full precision from its
#: fig3a.csv and fig3b.csv): (figure, ε, δ, iteration t) → (mean, sd over the 20 repetitions) of
#: ‖sin Θ(Q^(t), Q*)‖_F, for every cell the prose quotes.
PAPER = {
    ('fig3a', 0.5, 0.3, 0): (2.230468882320282, 0.001521924378128833),
    ('fig3a', 0.5, 0.3, 4): (2.2192579888928003, 0.017177410890753878),
    ('fig3a', 0.5, 0.3, 10): (2.1416366996298466, 0.07555317104166467),
    ('fig3a', 1.0, 0.3, 0): (2.230964493422278, 0.001343199565390679),
    ('fig3a', 1.0, 0.3, 4): (1.871608174569333, 0.2082541940739812),
    ('fig3a', 1.0, 0.3, 10): (1.00057845175491, 0.19166156219747793),
    ('fig3a', 1.5, 0.3, 0): (2.23028127256158, 0.001377782766171266),
    ('fig3a', 1.5, 0.3, 4): (1.2528889003350343, 0.340855634887511),
    ('fig3a', 1.5, 0.3, 10): (0.5521800597929476, 0.0263348643167321),
    ('fig3a', 2.0, 0.3, 0): (2.230683690760941, 0.0017666450630708028),
    ('fig3a', 2.0, 0.3, 4): (0.7974122784056064, 0.3059078980177521),
    ('fig3a', 2.0, 0.3, 10): (0.41127576107111735, 0.015095008066348252),
    ('fig3b', 1.0, 0.01, 10): (1.5836125530555856, 0.26519625068596003),
    ('fig3b', 1.0, 0.05, 10): (1.4045024518696096, 0.33576651494720305),
    ('fig3b', 1.0, 0.1, 10): (1.211600388453014, 0.2639283657151679),
    ('fig3b', 1.0, 0.5, 10): (0.8639063409053953, 0.15122032401166063),
    ('fig3b', 2.0, 0.01, 10): (0.5866902437678042, 0.11774423858022806),
    ('fig3b', 2.0, 0.05, 10): (0.4891875667696775, 0.009626327592186547),
    ('fig3b', 2.0, 0.1, 10): (0.4589885908643666, 0.011824921975634799),
    ('fig3b', 2.0, 0.5, 10): (0.382888561236192, 0.010102921896423946),
}


def _c(figure, eps, delta, t):
    """A quoted cell as the prose writes it: mean ± sd to two decimals."""
    mean, sd = PAPER[figure, eps, delta, t]
    return f"{mean:.2f} ± {sd:.2f}"


def test_paper_scale_tables_are_the_reports(quoted):
    quoted("`python -m privpca_edu.reproduce dps-pca --scale paper` reruns the paper's experiments at that "
           "scale, 20 repetitions of each setting")
    quoted("the [instructors' page](../book/instructors.md) gives its run time")
    epsilons, deltas = (0.5, 1.0, 1.5, 2.0), (0.01, 0.05, 0.1, 0.5)
    starts = {_c("fig3a", eps, 0.3, 0) for eps in epsilons}
    assert len(starts) == 1  # every ε's 20 runs start at the same mean ± sd, to two decimals
    quoted(f"all runs starting at {starts.pop()}")
    for eps in epsilons:
        quoted(f"| {eps:.1f} | {_c('fig3a', eps, 0.3, 4)} | {_c('fig3a', eps, 0.3, 10)} |")
    quoted(f"error of {_c('fig3a', 1.0, 0.3, 10)} there (mean ± sd over 20 repetitions")
    # "slower descent and a higher floor for smaller ε"; the lowest curve ends below the paper's 0.6
    for t in (4, 10):
        means = [PAPER["fig3a", eps, 0.3, t][0] for eps in epsilons]
        assert means == sorted(means, reverse=True), t
    assert min(PAPER["fig3a", eps, 0.3, 10][0] for eps in epsilons) == PAPER["fig3a", 2.0, 0.3, 10][0] < 0.6
    quoted(f"higher than the {_c('fig3a', 2.0, 0.3, 10)} here")
    for delta in deltas:
        quoted(f"| {delta:g} | {_c('fig3b', 1.0, delta, 10)} | {_c('fig3b', 2.0, delta, 10)} |")
    quoted("The same report gives the final errors at paper scale (mean ± sd over 20 repetitions)")


def test_paper_scale_cells_recomputed_in_full():
    """All 20 repetitions of every quoted setting of Figs 3(a) and 3(b), with the command's own seeds.

    A trajectory task takes about 5 ms once the paper-scale scatter matrix is drawn (about 8 s, once per
    process), so all 240 are recomputed.  Each task draws from child ``index`` of
    ``SeedSequence(0).spawn(423)`` and runs with one BLAS thread, exactly as in the command's workers,
    and the mean and sd are formed as ``reproduce.dps_pca.write`` forms them: the report's numbers
    come back to the last bit (1e-12 relative allows only for a different summation order).
    """
    cfg, tasks = paper_tasks("dps-pca", "paper")
    assert (cfg["fig3_reps"], cfg["n_iter"], cfg["data"]["n_samples"], cfg["data"]["n_features"]) == (20, 10, 10**5,
                                                                                                      1000)
    groups = {}
    for index, task in enumerate(tasks):
        if task.experiment in ("fig3a", "fig3b"):
            groups.setdefault((task.experiment, task.point["epsilon"], task.point["delta"]), []).append(index)
    assert {(f, e, d) for f, e, d, _ in PAPER} <= set(groups)
    checked = 0
    for key, indices in groups.items():
        if not any(k[:3] == key for k in PAPER):
            continue
        runs = np.array([run_task(tasks, i) for i in indices])
        assert runs.shape == (20, 11)
        mean, sd = runs.mean(axis=0), runs.std(axis=0, ddof=1)
        for t in range(runs.shape[1]):
            if key + (t,) in PAPER:
                qm, qs = PAPER[key + (t,)]
                assert mean[t] == pytest.approx(qm, rel=1e-12, abs=0), (key, t)
                assert sd[t] == pytest.approx(qs, rel=1e-12, abs=0), (key, t)
                checked += 1
    assert checked == len(PAPER)


# ---------------------------------------------------------------------------------------------
# Nothing else: every decimal number of the prose is recomputed above or cited from the paper
# ---------------------------------------------------------------------------------------------
# What the theorems establish, and the errors a student would hit
# ---------------------------------------------------------------------------------------------
def _code_cell(marker):
    cells = [c for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, marker
    return "".join(cells[0]["source"])


def test_the_papers_model_in_the_code_is_the_one_the_prose_describes(quoted):
    """The text says the tail eigenvalues are uniform on [0, 10] and that unit rows have trace 1: the
    cell's spectra must be exactly that (the theorem needs only λ₁, λ_k, λ_{k+1})."""
    source = _code_cell("lam_unit")
    namespace = {"np": np}
    exec("\n".join(line for line in source.splitlines() if line.startswith(("lam_raw", "lam_unit"))), namespace)
    lam_raw, lam_unit = namespace["lam_raw"], namespace["lam_unit"]
    assert lam_raw.shape == lam_unit.shape == (1000,)
    tail = lam_raw[5:]
    assert np.all(lam_raw[:5] == 100.0) and tail.max() == 10.0 and tail.min() == 0.0
    np.testing.assert_allclose(np.diff(tail), np.diff(tail)[0])  # evenly spread: uniform on [0, 10]
    assert tail.mean() == pytest.approx(5.0)  # E‖x‖² = 5·100 + 995·5, the prose's norm about 74
    quoted("the tail eigenvalues are uniform on $[0, 10]$")
    assert lam_unit.sum() == pytest.approx(1.0, rel=1e-12)  # rows of norm 1
    quoted("eigenvalues that sum to $\\mathbb E\\lVert x\\rVert^2 = 1$")
    raw = bounds.dps_pca(1.0, ex.PAPER_DELTA, 10, 100_000, 1, 1000, 5, 10, 50, lam_raw)
    unit = bounds.dps_pca(1.0, ex.PAPER_DELTA, 10, 100_000, 1, 1000, 5, 10, 50, lam_unit)
    assert raw["valid"] and not unit["valid"]  # "with unit rows the bound is vacuous at ε = 1"
    flat = bounds.dps_pca(1.0, ex.PAPER_DELTA, 10, 100_000, 1, 1000, 5, 10, 50, np.r_[[100.0] * 5, [10.0] * 995])
    assert raw["alpha"] == flat["alpha"] and raw["xi_stat"] == flat["xi_stat"]


def test_figure_8_2_optimisation_term_against_the_other_two(quoted):
    """Figure 8.2: ξ_opt(T) lies below ξ_stat everywhere and above ξ_priv from the crossing on."""
    f = ex.figure2_theory(delta=0.01)
    assert f["valid"].all()
    assert np.all(f["xi_priv"] < f["xi_stat"]) and np.all(f["xi_opt_final"] < f["xi_stat"])
    lam = np.r_[[100.0] * 5, [10.0] * 995]

    def excess(eps):
        b = bounds.dps_pca(eps, 0.01, 10, 10**5, 1, 1000, 5, 10, 50, lam)
        return b["xi_opt"][-1] - b["xi_priv"]

    cross = brentq(excess, 0.2, 2.0, xtol=1e-10)
    above = f["xi_opt_final"] > f["xi_priv"]
    np.testing.assert_array_equal(above, f["epsilon"] > cross)
    quoted(f"lies above the privacy term for every ε above {cross:.2f}")
    assert "smaller still" not in FLAT


def test_theorem_4_1_hypotheses_and_the_books_analysis(quoted):
    quoted("If $0<\\varepsilon<1$ and $0<\\delta<1/2$, the output of Algorithm 1")
    quoted("the whole sequence of messages $(H_i^{(1)},\\dots,H_i^{(T)})$ that the server collects from provider $i$")
    quoted("**Sensitivity** (the book's analysis)")
    quoted("**Composition** (the book's analysis)")
    quoted("By this analysis the calibration is valid while $\\varepsilon/T < 1$")
    quoted("0.5 (orange, triangles, dashed; **outside** Theorem 4.1, which needs δ < 1/2")
    assert "sub-Gaussian" not in FLAT
    quoted("**bounded**, with variance proxy below one; integers $0<k<s^*<d$")
    # N is defined before its first use
    assert FLAT.index("With $N$ providers") < FLAT.index("\\sqrt N")


def test_the_start_condition_and_the_radical_reading(quoted):
    quoted(f"$\\sqrt{{k(d-k)/d}}$, {math.sqrt(5 * 195 / 200):.2f} at $k = 5$")
    raw = bounds.dps_pca(1.0, 0.01, 10, 10**5, 1, 1000, 5, 10, 50, np.r_[[100.0] * 5, [10.0] * 995])
    assert not raw["start_ok"] and "violates Assumption B.1" in raw["start_reason"]
    assert raw["start_condition"] == pytest.approx(raw["total"][0])
    quoted(f"at ε = 1, the bound at $t = 1$ is {raw['start_condition']:.2f}")
    b = ex.dps_pca_explorer(epsilon=10.0, calibration="analytic_exact")["bound"]
    alternative = b["xi_stat"] + b["xi_priv"] * math.sqrt(1 - b["rho"] ** 0.25) + b["xi_opt"][-1]
    quoted(f"ε = 10 would be {alternative:.2f} instead of {b['total'][-1]:.2f}")
    assert alternative > math.sqrt(5)  # "still above √5"


# ---------------------------------------------------------------------------------------------
#: Decimals the prose cites rather than computes: the paper's settings (ε, δ and the axis range
#: 0.8–2.0 of its Fig. 4(a)), the 3.0 top of that axis, the 0.6 its Fig. 3(a)'s lowest curve ends
#: above, and its Table 1 timings (seconds).
CITED = {"0.3", "0.01", "0.05", "0.1", "0.5", "1.0", "1.5", "2.0", "0.8", "3.0", "0.6", "9.82", "37.46",
         "173.78"}


def test_every_decimal_in_the_prose_is_recomputed_or_cited(quoted):
    # run last in this module (pytest keeps file order): the checks above filled `quoted`
    if len(quoted.found) < 30:
        pytest.skip("run the whole module: the other tests collect the recomputed quotes")
    recomputed = set()
    for text in quoted.found:
        recomputed |= set(re.findall(r"\d+\.\d+", text))
    numbered = re.sub(r"(§|Exercise |Solution |Figure |Fig\. |Theorems? |Assumption )\d+(\.\d+)*", "", PROSE)
    decimals = set(re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", numbered))
    unexplained = sorted(decimals - recomputed - CITED)
    assert not unexplained, f"numbers in chapter 8's prose that no test recomputes: {unexplained}"
