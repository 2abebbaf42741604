"""The mechanisms' sensitivities and noise scales (privpca_edu.privacy._mechanisms).

Every sensitivity and σ formula is a public function of privpca_edu.privacy (its one home), listed in
the table SENSITIVITIES, and the estimators and experiments use them.
"""

import math
import pathlib
import re

import numpy as np
import pytest

import privpca_edu
from privpca_edu import privacy

PACKAGE = pathlib.Path(privpca_edu.__file__).parent

CALIBRATIONS = [
    "analyze_gauss_sensitivity", "analyze_gauss_noise_scale", "mod_sulq_noise_scale", "kendall_sensitivity",
    "kendall_noise_scale", "sgpca_sensitivity", "nsggd_noise_scale", "local_noise_scale",
    "private_local_sensitivity", "private_local_noise_scale", "dpdpca_sensitivity", "dpdpca_noise_scale",
    "mask_sensitivity", "dps_pca_sigma", "iterative_gaussian_sigma", "gaussian_sigma", "mod_sulq_sensitivity",
    "nsggd_sensitivity", "dps_pca_sensitivity", "local_sensitivity",
]


@pytest.mark.parametrize("name", CALIBRATIONS)
def test_calibration_is_public_and_documented(name):
    fn = getattr(privacy, name)
    assert name in privacy.__all__
    assert fn.__module__.startswith("privpca_edu.privacy.")  # a private module of the package
    assert fn.__doc__ and len(fn.__doc__.strip()) > 80, f"{name} needs its derivation in the docstring"


def test_privacy_names_have_one_home():
    # the calibrations are imported from privpca_edu.privacy, never re-exported by an estimator or the protocol
    import importlib
    import pkgutil

    names = set(privacy.__all__)
    offenders = []
    for info in pkgutil.walk_packages(privpca_edu.__path__, prefix="privpca_edu."):
        private = any(part.startswith("_") for part in info.name.split("."))  # _validation defines diagnostics
        if info.name.startswith("privpca_edu.privacy") or private:
            continue
        module = importlib.import_module(info.name)
        offenders += [f"{info.name}.{n}" for n in getattr(module, "__all__", ()) if n in names]
    assert not offenders, offenders
    assert not hasattr(privpca_edu.estimators, "PrivacyRecord")
    assert privpca_edu.PrivacyRecord is privacy.PrivacyRecord


def test_sensitivity_table_lists_every_sensitivity_function():
    listed = set(privacy.SENSITIVITIES.values())
    public = {getattr(privacy, n) for n in privacy.__all__ if n.endswith("_sensitivity")}
    assert listed == public
    for name, fn in privacy.SENSITIVITIES.items():
        assert fn.__name__ in privacy.__all__, name
        doc = fn.__doc__
        # a derivation that cites the paper (year, or its algorithm / proposition / theorem)
        assert re.search(r"(19|20)\d\d|Algorithm|Proposition|Theorem", doc), name
        assert "spec" not in doc.lower().split(), name


def test_local_sensitivity_is_the_worst_case_of_two_records():
    rng = np.random.default_rng(0)
    B = 1.7
    worst = 0.0
    for _ in range(2000):
        x, y = rng.normal(size=(2, 4))
        x *= B / np.linalg.norm(x) * rng.uniform() ** 0.25
        y *= B / np.linalg.norm(y) * rng.uniform() ** 0.25
        worst = max(worst, np.linalg.norm(np.outer(x, x) - np.outer(y, y)))
    assert worst <= privacy.local_sensitivity(B) * (1 + 1e-12)
    e1, e2 = B * np.eye(4)[:2]  # orthogonal records of norm B attain it
    assert np.linalg.norm(np.outer(e1, e1) - np.outer(e2, e2)) == pytest.approx(privacy.local_sensitivity(B), rel=1e-14)
    assert privacy.local_noise_scale(0.5, 1e-4, data_norm=B).releases[0][0] == privacy.local_sensitivity(B)


def test_dps_pca_and_nsggd_sensitivities_bound_random_replacements():
    rng = np.random.default_rng(1)
    B, d, k, b = 2.0, 6, 2, 50
    Q = np.linalg.qr(rng.normal(size=(d, k)))[0]
    for _ in range(500):
        x, y = rng.normal(size=(2, d))
        x *= B / np.linalg.norm(x)
        y *= B / np.linalg.norm(y)
        assert np.linalg.norm(np.outer(x, x) @ Q - np.outer(y, y) @ Q) <= privacy.dps_pca_sensitivity(B) * (1 + 1e-12)
        # one record's term of the batch mean has norm at most ‖x‖ ≤ B
        assert np.linalg.norm(x - y) / b <= privacy.nsggd_sensitivity(b, B) * (1 + 1e-12)
    assert privacy.dps_pca_sigma(1.0, 0.3, 10) == privacy.iterative_gaussian_sigma(
        privacy.dps_pca_sensitivity(), 1.0, 0.3, 10, method="paper")
    assert privacy.nsggd_noise_scale(b, 1.0, 1e-5, 50) == privacy.iterative_gaussian_sigma(
        privacy.nsggd_sensitivity(b), 1.0, 1e-5, 50, method="zcdp")
    assert privacy.mod_sulq_sensitivity(300, B) == privacy.analyze_gauss_sensitivity(300, B)


def test_experiments_call_no_private_estimator_method():
    # auditing.py overrides _noise_scale on purpose (the mutants' hook); it never *calls* it on an estimator.
    call = re.compile(r"\b(?!self\b|cls\b|super\(\))\w+\._(noise_scale|sensitivity|calibrate|validate_privacy)\(")
    offenders = []
    for path in sorted((PACKAGE / "experiments").rglob("*.py")):  # experiments/ldp/ included
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if call.search(line):
                offenders.append(f"{path.name}:{lineno}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_estimators_use_the_public_calibrations():
    from privpca_edu import AnalyzeGauss
    from privpca_edu.estimators.robust import KendallDPPCA

    X = np.random.default_rng(0).normal(size=(300, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    ag = AnalyzeGauss(1, epsilon=0.5, delta=1e-5, random_state=0).fit(X)
    assert ag.sensitivity_ == privacy.analyze_gauss_sensitivity(300)
    assert ag.noise_scale_ == privacy.analyze_gauss_noise_scale(300, 0.5, 1e-5)
    kd = KendallDPPCA(1, epsilon=0.5, delta=1e-5, random_state=0).fit(X)
    assert (kd.sensitivity_, kd.noise_scale_) == privacy.kendall_noise_scale(300, 0.5, 1e-5)


def test_admm_result_is_a_scipy_optimize_result():
    from scipy.optimize import OptimizeResult

    from privpca_edu.estimators.local import fantope_admm

    res = fantope_admm(np.diag([3.0, 2.0, 1.0, 0.5]), 1, 0.1)
    assert isinstance(res, OptimizeResult)
    assert res.n_iter == res["n_iter"] and res.Y.shape == (4, 4)
    assert not hasattr(res, "no_such_key")  # AttributeError, not KeyError


# ---------------------------------------------------------------------------------------------
# MOD-SuLQ
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "d, n, epsilon, delta, expected",
    [(1000, 10**5, 1.0, 0.3, 0.051847), (40, 10**5, 1.0, 0.1, 0.0016595), (160, 10**5, 1.0, 0.1, 0.0075089)],
)
def test_mod_sulq_reference_values(d, n, epsilon, delta, expected):
    # Chaudhuri, Sarwate & Sinha (2013), Algorithm 1's β; the expected values are printed to 5 significant digits
    assert privacy.mod_sulq_noise_scale(d, n, epsilon, delta) == pytest.approx(expected, rel=5e-5)


def test_mod_sulq_scales_with_data_norm_squared():
    base = privacy.mod_sulq_noise_scale(100, 5000, 0.5, 1e-3)
    for B in (0.5, 2.0, 7.0):
        assert privacy.mod_sulq_noise_scale(100, 5000, 0.5, 1e-3, data_norm=B) == pytest.approx(B**2 * base, rel=1e-14)


def test_dps_pca_sigma_paper_values():
    # Ge et al. (2018), Algorithm 1, line 3
    assert privacy.dps_pca_sigma(1.0, 0.3, 10) == pytest.approx(57.963, abs=5e-4)
    assert privacy.dps_pca_sigma(1.0, 0.01, 10) == pytest.approx(77.979, abs=5e-4)
    # boxed formula σ = 2T/ε √(2 log(2T/δ)) and Δ = 2B² scaling
    assert privacy.dps_pca_sigma(1.0, 0.3, 10) == pytest.approx(20 * math.sqrt(2 * math.log(20 / 0.3)), rel=1e-14)
    assert privacy.dps_pca_sigma(1.0, 0.3, 10, data_norm=3.0) == pytest.approx(9 * privacy.dps_pca_sigma(1.0, 0.3, 10))


def test_local_calibration_record_is_one_privacy_record_and_ignores_diagnostics():
    rec = privacy.local_noise_scale(0.5, 1e-4)
    assert isinstance(rec, privacy.PrivacyRecord) and rec.model == "local" and rec.is_private
    assert dict(rec)["noise_scale"] == rec["noise_scale"] == rec.noise_scale
    with privacy.diagnostics():  # public parameters only: the calibration is the same record
        assert privacy.local_noise_scale(0.5, 1e-4) == rec
        X = np.eye(3) * 0.5
        fitted = privpca_edu.LocalGaussianPCA(1, epsilon=0.5, delta=1e-4, random_state=0).fit(X)
    assert not fitted.privacy_.is_private and fitted.privacy_.note.count("diagnostics on") == 1
