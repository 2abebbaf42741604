"""Every number the prose of chapter 7 quotes, recomputed with the calls its cells make.

Each check names the exact string the chapter prints, asserts that it is in the notebook's
markdown (whitespace collapsed, so a line break inside a phrase does not matter) and recomputes
the number.  Tolerances come from the spread, never from the value wanted:

* a mean over m seeds, quoted "M ± S": M within the standard error S/√m of the recomputed mean,
  S within the standard error of a sample standard deviation, sd/√(2(m−1)), each plus half a
  unit of the last quoted digit (the rounding);
* a deterministic number: within half a unit of its last quoted digit.

The experiment functions report the population sd over seeds (the figures' bands), so that is
the sd the prose quotes and this file recomputes.  Timings are not quoted: the chapter points to
its printouts for them.  ``test_every_mean_and_spread_of_the_prose_is_checked`` fails when the
chapter quotes a "mean ± spread" that this file does not check.  Runs in seconds (one core):
Figure 7.3's sweep (plaintext twin) and Figure 7.4's SVM over 5 seeds.
"""

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from chapter_prose import assert_said, half_unit, markdown_prose

from privpca_edu._validation import PrivacyWarning
from privpca_edu.experiments import protocol as ex
from privpca_edu.privacy import analyze_gauss_noise_scale
from privpca_edu.privacy import dpdpca_noise_scale

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_encrypted_distributed.ipynb"
N_SEEDS = 5          # Figures 7.3 and 7.4: "over 5 seeds"

# Every "mean ± spread" the chapter prints; each is checked by a test below.
MEAN_SPREAD_QUOTES = {
    "0.982 ± 0.005", "0.958 ± 0.005",   # Figure 7.3, noisy-eigenvalue ratio at ε = 0.1, 0.9
    "0.52 ± 0.02", "0.70 ± 0.01",       # Figure 7.3, true captured variance at ε = 0.1, 0.9
    "0.31 ± 0.04",                      # Figure 7.4, the chain with 2 samples per owner
    "0.961 ± 0.004",                    # Figure 7.4, DPDPCA
}


# ------------------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module")
def prose():
    return markdown_prose(NOTEBOOK)


def _said(prose, text):
    assert_said(prose, text, 7)


def check_value(prose, text, value, number=None):
    """`text` is in the chapter and states `value` as `number` (default: the whole text) to its printed precision."""
    _said(prose, text)
    number = text if number is None else number
    assert number in text, (text, number)
    assert abs(value - float(number)) <= half_unit(number) * (1 + 1e-9), (text, value)


def check_mean_spread(prose, text, mean, sd, m=N_SEEDS):
    """`text` ("M ± S") is in the chapter and is the recomputed mean ± sd over m seeds."""
    assert text in MEAN_SPREAD_QUOTES, f"add {text!r} to MEAN_SPREAD_QUOTES"
    _said(prose, text)
    mean_text, sd_text = (t.strip() for t in text.split("±"))
    assert abs(float(mean_text) - mean) <= sd / math.sqrt(m) + half_unit(mean_text), (text, mean, sd)
    assert abs(float(sd_text) - sd) <= sd / math.sqrt(2 * (m - 1)) + half_unit(sd_text), (text, mean, sd)


def test_every_mean_and_spread_of_the_prose_is_checked(prose):
    found = set(re.findall(r"\d[\d.]* ± \d[\d.]*", prose))
    assert found == MEAN_SPREAD_QUOTES, (sorted(found - MEAN_SPREAD_QUOTES), sorted(MEAN_SPREAD_QUOTES - found))


# ----------------------------------------------------------------------------- Figure 7.3
def test_figure_7_3_captured_variance(prose):
    cv = ex.captured_variance_vs_epsilon("digits", n_seeds=N_SEEDS, n_owners=10)   # the cell's call
    assert cv["epsilons"][0] == 0.1 and cv["epsilons"][-1] == 0.9
    _said(prose, "$K = 28$, the number of components holding 90% of the variance")
    assert cv["K"] == 28
    noisy_mean, noisy_sd = cv["curves"]["classic"]["noisy_eigen_ratio"]
    true_mean, true_sd = cv["curves"]["classic"]["true_variance"]
    check_mean_spread(prose, "0.982 ± 0.005", noisy_mean[0], noisy_sd[0])
    check_mean_spread(prose, "0.958 ± 0.005", noisy_mean[-1], noisy_sd[-1])
    check_mean_spread(prose, "0.52 ± 0.02", true_mean[0], true_sd[0])
    check_mean_spread(prose, "0.70 ± 0.01", true_mean[-1], true_sd[-1])
    # "adds a quarter of the noise that privacy requires"
    _said(prose, "adds a quarter of the noise")
    np.testing.assert_allclose(cv["curves"]["paper"]["sigma"], cv["curves"]["classic"]["sigma"] / 4)


# ----------------------------------------------------------------------------- Figure 7.4
def test_figure_7_4_f1(prose):
    f1 = ex.f1_vs_samples_per_owner("digits", samples_per_owner=(2, 5, 10, 20, 100), n_seeds=N_SEEDS,
                                    epsilon=0.5)                                     # the cell's call
    _said(prose, "(train 1438, test 359)")
    assert (f1["n_train"], f1["n_test"]) == (1438, 359)
    _said(prose, "$K = 17$ components holding 80% of the training variance")
    assert f1["K"] == 17
    _said(prose, "with 2 records per owner it ends with 2 directions instead of $K = 17$")
    assert f1["samples_per_owner"][0] == 2 and f1["chain_effective_rank"][0] == 2
    chain_mean, chain_sd = f1["methods"]["PrivateLocalPCA (Gaussian)"]
    check_mean_spread(prose, "0.31 ± 0.04", chain_mean[0], chain_sd[0])
    dpd_mean, dpd_sd = f1["methods"]["DPDPCA"]
    assert np.ptp(dpd_mean) == 0                                                     # flat by construction
    check_mean_spread(prose, "0.961 ± 0.004", dpd_mean[0], dpd_sd[0])
    pca_mean, pca_sd = f1["methods"]["PCA (non-private)"]
    assert np.all(pca_sd == 0)                                                       # deterministic
    check_value(prose, "0.961 ± 0.004 against 0.995", pca_mean[0], "0.995")


# ----------------------------------------------------------------------------- deterministic
def test_exercises_and_counts(prose):
    check_value(prose, "66 for $M = 10$", 10 * 11 // 2 + 10 + 1, "66")
    check_value(prose, "$M(M+1)/2 + M + 1 = 210 + 20 + 1 = 231$", 20 * 21 // 2 + 20 + 1, "231")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        corrected = dpdpca_noise_scale(0.5, 1e-6)
        paper = dpdpca_noise_scale(0.5, 1e-6, calibration="paper")
        check_value(prose, "σ = 4 · 5.2988 / 0.5 = 42.39", corrected, "42.39")
        check_value(prose, "10.60 with the paper's", paper, "10.60")
        check_value(prose, "costs only 9 % more noise", 100 * (corrected / dpdpca_noise_scale(0.5, 1e-5) - 1), "9")
        # Solution 7.4: the ε at which DPDPCA's σ equals Analyze Gauss's at ε = 0.5 (N = 569)
        from scipy.optimize import brentq
        for calibration, quoted in (("classic", "1.41"), ("analytic", "1.56")):
            target = analyze_gauss_noise_scale(569, 0.5, 1e-5, calibration=calibration) * 569
            eps = brentq(lambda e: dpdpca_noise_scale(e, 1e-5, calibration=calibration) - target, 0.5, 5)
            check_value(prose, {"classic": "ε = 0.5 · 2.8 = 1.41",
                                "analytic": "equals Analyze Gauss's at ε = 1.56"}[calibration], eps, quoted)
    _said(prose, "costs a sensitivity of 4 instead of √2, almost three times the noise")
    assert 2.5 < 4 / math.sqrt(2) < 3
