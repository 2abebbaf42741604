"""Every sensitivity and σ formula is a public function of privpca_edu.privacy, and experiments use them."""

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
    "mask_sensitivity", "dps_pca_sigma", "iterative_gaussian_sigma", "gaussian_sigma",
]


@pytest.mark.parametrize("name", CALIBRATIONS)
def test_calibration_is_public_and_documented(name):
    fn = getattr(privacy, name)
    assert name in privacy.__all__
    assert fn.__module__ == "privpca_edu.privacy"
    assert fn.__doc__ and len(fn.__doc__.strip()) > 80, f"{name} needs its derivation in the docstring"


def test_old_import_paths_are_the_same_functions():
    from privpca_edu.estimators import local, robust
    from privpca_edu.protocol import mechanism

    assert robust.kendall_noise_scale is privacy.kendall_noise_scale
    assert robust.kendall_sensitivity is privacy.kendall_sensitivity
    assert robust.sgpca_sensitivity is privacy.sgpca_sensitivity
    assert robust.nsggd_noise_scale is privacy.nsggd_noise_scale
    assert local.local_noise_scale is privacy.local_noise_scale
    assert mechanism.dpdpca_noise_scale is privacy.dpdpca_noise_scale
    assert mechanism.CALIBRATIONS is privacy.DPDPCA_CALIBRATIONS


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
