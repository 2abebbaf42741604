"""Chapter 2's prose: every number it quotes, recomputed with the package and found in the chapter.

Chapter 2 is deterministic (formulas and exact accountings, no sampling), so each quoted value is
recomputed here and the string the chapter prints is looked up in its markdown (solutions
included): if the package or the prose changes, the two cannot silently disagree.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import experiments, privacy

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "notebooks" / "02_dp_in_one_sitting.ipynb"


@pytest.fixture(scope="module")
def text():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def quoted(text, *snippets):
    for s in snippets:
        assert s in text, f"chapter 2 no longer says {s!r}"


def test_what_a_large_delta_allows(text):
    # publishing each record independently with probability delta is (0, delta)-DP
    quoted(text, f"At δ = 0.3 that mechanism publishes {round(100 * 0.3)} % of the data")


def test_calibration_reference_values(text):
    classic = privacy.gaussian_sigma(1.0, 0.5, 1e-5, method="classic")
    a05 = privacy.gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
    a1 = privacy.gaussian_sigma(1.0, 1.0, 1e-5, method="analytic")
    quoted(text, f"classic σ = {classic:.4f} at ε = 0.5", f"analytic σ = {a05:.4f} at ε = 0.5 and {a1:.4f} at ε = 1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)  # the classic formula at ε ≥ 1, on purpose
        sigma10 = privacy.gaussian_sigma(1.0, 10.0, 1e-5, method="classic")
    exact = privacy.analytic_gaussian_delta(sigma10, 1.0, 10.0)
    quoted(text, f"its σ has exact δ ≈ {exact * 1e5:.1f}·10⁻⁵")


def test_laplace_against_gaussian_on_xtx(text):
    gauss = privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5, method="analytic")
    ratio = {d: math.sqrt(2) * d / gauss for d in (10, 100, 1000)}  # Laplace sd >= sqrt(2) d B^2 / eps
    quoted(text, f"at least {ratio[10]:.1f} times the Gaussian at $d = 10$", f"{ratio[100]:.1f} times at $d = 100$",
           f"{ratio[1000]:.0f} times at $d = 1000$")
    # the pair of records of the text: l1 distance d B^2 (d even), under the bound 2 d B^2
    for d in (2, 10, 100):
        x = np.full(d, 1 / math.sqrt(d))
        x_alt = x * np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
        assert np.abs(np.outer(x, x) - np.outer(x_alt, x_alt)).sum() == pytest.approx(d)


def test_group_privacy_numbers(text):
    sigma_1 = privacy.gaussian_sigma(1.0, 1.0, 1e-5, method="analytic")
    generic = {k: k * math.exp(k - 1) * 1e-5 for k in (4, 10)}
    exact = {k: privacy.analytic_gaussian_delta(sigma_1, float(k), float(k)) for k in (4, 10)}
    eps4 = privacy.gdp_epsilon(4 / sigma_1, 1e-5)
    quoted(text, f"$(4,\\;{generic[4] * 1e4:.1f}\\cdot10^{{-4}})$-DP",
           f"$(4,\\;{exact[4] * 1e4:.1f}\\cdot10^{{-4}})$", f"ε = {eps4:.2f} at δ = 10⁻⁵",
           f"the generic δ, {generic[10]:.2f}, is no", f"the exact one is {exact[10]:.2g}")
    # the chain's exact sum is below the quoted simpler bound
    for k in (2, 4, 10):
        assert 1e-5 * sum(math.exp(j) for j in range(k)) <= k * math.exp(k - 1) * 1e-5


def _certificates(T, delta=1e-5):
    sigma = privacy.iterative_gaussian_sigma(1.0, 1.0, delta, T, method="analytic_exact")
    mu = 1.0 / sigma
    basic = privacy.compose_basic(privacy.gdp_epsilon(mu, delta / T), delta / T, T)[0]
    advanced = privacy.compose_advanced(privacy.gdp_epsilon(mu, delta / (2 * T)), delta / (2 * T), T, delta / 2)[0]
    zcdp = privacy.zcdp_to_dp(privacy.zcdp_rho(1.0, sigma, T), delta)
    exact = privacy.gdp_epsilon(math.sqrt(T) * mu, delta)
    return basic, advanced, zcdp, exact


def test_composition_numbers(text):
    b10, a10, z10, e10 = _certificates(10)
    b1000, a1000, _, e1000 = _certificates(1000)
    quoted(text, f"basic composition certifies ε = {b10:.2f} and advanced\ncomposition {a10:.2f}",
           f"zCDP {z10:.2f} and the exact accounting\n{e10:.2f}",
           f"advanced composition ({a1000:.2f}) is far below basic ({b1000:.2f}), and still {a1000 / e1000:.1f} times")
    assert a10 > b10 and a1000 < b1000  # the rule: advanced beats basic only beyond ~24 steps
    threshold = 2 * math.log(1 / 5e-6)
    quoted(text, f"more than {math.floor(threshold)} steps at $\\delta' = 5\\cdot10^{{-6}}$",
           f"as the rule predicts below {math.floor(threshold)} steps")


def test_dashboard_numbers(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        safe = experiments.sigma_curves(1.0, 1e-5, 10, 2.0)["sigma_at"]
        paper = experiments.sigma_curves(1.0, 0.3, 10, 2.0)["sigma_at"]
    quoted(text, f"asks for {safe['paper'] / safe['analytic_exact']:.1f} times\nthe noise of the exact accounting",
           f"with σ = {safe['advanced']:.0f} per step",
           f"DPS-PCA's σ is then {paper['paper'] / paper['analytic_exact']:.0f} times the exact one instead of "
           f"{safe['paper'] / safe['analytic_exact']:.1f}",
           f"differ by a factor\n  of {max(safe.values()) / min(safe.values()):.0f} at δ = 10⁻⁵ "
           f"({max(paper.values()) / min(paper.values()):.0f} at the DPS-PCA paper's δ = 0.3)",
           f"asks for {safe['paper'] / safe['analytic_exact']:.1f} times less noise than DPS-PCA's")
    assert safe["advanced"] == max(safe.values())  # "the worst of the six at T = 10"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at50 = experiments.sigma_curves(1.0, 1e-5, 50, 2.0)["sigma_at"]
    assert at50["advanced"] < min(at50[m] for m in ("paper", "classic", "analytic_basic"))


def test_solutions_numbers(text):
    s21 = privacy.iterative_gaussian_sigma(2.0, 1.0, 1e-6, 10)
    s22 = privacy.gaussian_sigma(2 * math.sqrt(10), 1.0, 1e-6, method="analytic")
    assert s22 == pytest.approx(privacy.iterative_gaussian_sigma(2.0, 1.0, 1e-6, 10, method="analytic_exact"))
    quoted(text, f"= 20\\cdot {math.sqrt(2 * math.log(2e7)):.4f}", f"&= {s21:.2f} ;", f"returns {s21:.3f}",
           f"\\approx {math.sqrt(math.log(2e7) / math.log(2000)):.2f}", f'method="analytic")` = {s22:.2f}',
           f"That is {s21 / s22:.1f} times\nless noise than the paper's {s21:.2f}")
    # 2.7: a histogram, replace-one: Delta_1 = 2, Delta_2 = sqrt(2)
    lap = math.sqrt(2) * 2 / 1.0
    gauss = privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5, method="analytic")
    quoted(text, f"$2\\sqrt2 = {lap:.2f}$", f'method="analytic")` = {gauss:.2f} (the value of the',
           f"Ratio {gauss / lap:.2f}:")
    # 2.8: a household of 5 at (0.5, 1e-6)
    generic = 5 * math.exp(2.0) * 1e-6
    chain = 1e-6 * sum(math.exp(0.5 * j) for j in range(5))
    sigma = privacy.gaussian_sigma(1.0, 0.5, 1e-6, method="analytic")
    quoted(text, f"= {generic * 1e5:.2f}\\cdot10^{{-5}}$", f"gives ${chain * 1e5:.2f}\\cdot10^{{-5}}$",
           f'method="analytic")` = {sigma:.2f}', f"μ = 5/σ = {5 / sigma:.2f}",
           f"`privacy.gdp_epsilon(5 / sigma, 1e-6)` = {privacy.gdp_epsilon(5 / sigma, 1e-6):.2f}")
    # 2.9: 50 steps of sigma = 20, sensitivity 1, total delta 1e-5
    e0 = privacy.gdp_epsilon(1 / 20, 1e-5 / 50)
    basic = privacy.compose_basic(e0, 1e-5 / 50, 50)[0]
    exact = privacy.gdp_epsilon(math.sqrt(50) / 20, 1e-5)
    e0a = privacy.gdp_epsilon(1 / 20, 1e-5 / 100)
    advanced = privacy.compose_advanced(e0a, 1e-7, 50, 5e-6)[0]
    assert privacy.compose_advanced(round(e0a, 3), 1e-7, 50, 5e-6)[0] == pytest.approx(advanced, abs=0.01)
    lhs, rhs = math.sqrt(2 * math.log(2e5) / 50), 2 - math.exp(e0a)
    assert lhs < rhs and advanced < basic
    quoted(text, f"$({e0:.3f},\\ 2\\cdot10^{{-7}})$-DP", f"ε = {basic:.2f}.", f"μ = √50/20 = {math.sqrt(50) / 20:.3f}",
           f"`privacy.gdp_epsilon(math.sqrt(50) / 20, 1e-5)` = {exact:.2f}, almost eight times less",
           f"$({e0a:.3f},\\ 10^{{-7}})$-DP", f"= {lhs:.3f}$ is below $2 - e^{{{e0a:.3f}}} = {rhs:.3f}$",
           f"gives {advanced:.2f} against {basic:.2f}")
    assert 7.5 <= basic / exact < 8  # "almost eight times"


def test_session_budget_numbers(text):
    # the accountant section: releases admitted under each composition, recomputed as the chapter does
    from privpca_edu.privacy import BudgetAccountant, BudgetExceededError

    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 5)) * [1.0, 0.5, 0.3, 0.2, 0.1]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    admitted, spent = {}, {}
    for composition in ("basic", "advanced", "gdp"):
        budget = BudgetAccountant(epsilon=1.0, delta=1e-5, composition=composition)
        with pytest.raises(BudgetExceededError):
            for seed in range(100):
                pp.AnalyzeGauss(2, epsilon=0.25, delta=2.5e-6, calibration="analytic", random_state=seed,
                                accountant=budget).fit(X)
        admitted[composition], spent[composition] = len(budget.history), budget.total()[0]
    assert admitted["basic"] == admitted["advanced"] == 4
    # the exact count: the largest k with √k μ₀ still (1, 1e-5)-DP
    mu0 = 1.0 / privacy.gaussian_sigma(1.0, 0.25, 2.5e-6, method="analytic")
    k = max(k for k in range(1, 100) if privacy.gdp_delta(math.sqrt(k) * mu0, 1.0) <= 1e-5)
    assert admitted["gdp"] == k
    quoted(text, f"Basic composition stops after {admitted['basic']} releases",
           f"advanced composition after {admitted['advanced']}",
           f"The exact accounting admits {k} releases",
           f"spend ε = {spent['gdp']:.3f} at δ = 10⁻⁵: {k} Gaussian releases at μ₀ each are one release\nat √{k}·μ₀",
           f"admitted {k} releases where basic composition admitted {admitted['basic']}")
