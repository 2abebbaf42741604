"""scikit-learn's own estimator checks over every public estimator.

Every class exported by :mod:`privpca_edu.estimators` that can be fitted is listed (the list is
built from the module, so a new estimator cannot be forgotten).  The instances use small
iteration counts so the whole run takes seconds.  A check an estimator legitimately cannot
pass is listed in ``EXPECTED_FAILURES`` with the reason.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import privpca_edu.estimators as E
from privpca_edu._validation import PrivacyWarning
from privpca_edu.estimators._base import PCABase

ABSTRACT = {"PCABase", "PrivateEstimator", "NoisyMatrixMechanism"}
PUBLIC = sorted(
    name for name in E.__all__
    if inspect.isclass(getattr(E, name)) and issubclass(getattr(E, name), PCABase) and name not in ABSTRACT
)

# Small settings for speed; everything else is the default.  SGPCA needs its spikes.
SETTINGS = {
    "PPCA": dict(n_iter=3),
    "NSGGD": dict(n_iter=3),
    "DPSPCA": dict(n_iter=3),
    "TruncatedPowerPCA": dict(max_iter=50),
    "LocalSparsePCA": dict(max_iter=50),
    "SGPCA": dict(n_components=1, spikes=(1.0,)),
}


def _instances():
    out = []
    for name in PUBLIC:
        params = {"n_components": 1, **SETTINGS.get(name, {})}
        out.append(getattr(E, name)(**params))
    return out


#: {estimator name: {check name: reason}} — empty: every estimator passes every check (with a
#: fixed random_state the private estimators are deterministic, as the checks require).
EXPECTED_FAILURES: dict = {}


def test_every_public_estimator_is_checked():
    assert len(PUBLIC) == 13, PUBLIC


@parametrize_with_checks(_instances(), expected_failed_checks=lambda est: EXPECTED_FAILURES.get(type(est).__name__, {}))
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # clipping, ε ≥ 1 with the classic constant, ADMM caps: expected on the checks' data
        warnings.simplefilter("ignore", PrivacyWarning)
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_readme_pipeline():
    # the README's example: a public per-row transform, then a private PCA
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    from privpca_edu import AnalyzeGauss

    X = np.random.default_rng(0).normal(size=(5000, 8)) * np.linspace(2.0, 0.2, 8)
    pipe = Pipeline([("scale", Normalizer()),
                     ("pca", AnalyzeGauss(n_components=2, epsilon=0.5, delta=1e-5, data_norm=1.0, random_state=0))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)  # rows of norm 1: nothing is clipped
        Z = pipe.fit_transform(X)
    assert Z.shape == (5000, 2) and pipe[-1].privacy_.is_private
    np.testing.assert_allclose(Z, Normalizer().fit_transform(X) @ pipe[-1].components_.T)
    assert list(pipe.get_feature_names_out()) == ["analyzegauss0", "analyzegauss1"]
    Z2 = clone(pipe).fit_transform(X)  # same seed, same release
    np.testing.assert_array_equal(Z, Z2)


@pytest.mark.parametrize("est", _instances(), ids=lambda e: type(e).__name__)
def test_refit_revalidates_changed_parameters(est):
    # a refit with unchanged parameters skips the constraint check; a changed one is checked again
    X = np.random.default_rng(1).standard_normal((30, 4)) / 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
        est.fit(X)
        est.set_params(n_components=0)
        with pytest.raises(ValueError, match="'n_components' parameter"):
            est.fit(X)


def test_accepted_parameter_sets_are_remembered_per_class_by_value():
    # a fresh estimator with parameters its class has accepted before skips scikit-learn's
    # constraint check (a loop of fits); any other value, or another class, is checked
    from unittest import mock

    from sklearn.base import BaseEstimator

    from privpca_edu import AnalyzeGauss, ModSuLQ

    X = np.random.default_rng(2).standard_normal((40, 4)) / 10
    AnalyzeGauss(2, epsilon=0.7, random_state=np.random.default_rng(0)).fit(X)
    with mock.patch.object(BaseEstimator, "_validate_params", autospec=True) as check:
        AnalyzeGauss(2, epsilon=0.7, random_state=np.random.default_rng(5)).fit(X)  # same values, another generator
        assert check.call_count == 0
        AnalyzeGauss(2, epsilon=0.8, random_state=np.random.default_rng(5)).fit(X)
        ModSuLQ(2, epsilon=0.7, random_state=np.random.default_rng(5)).fit(X)
        AnalyzeGauss(2, epsilon=0.7, random_state=0).fit(X)  # an int seed is another type
        assert check.call_count == 3
    for bad in (0.0, -1.0, np.nan, "1"):
        with pytest.raises((ValueError, TypeError), match="epsilon"):
            AnalyzeGauss(2, epsilon=bad).fit(X)


def test_parameter_check_runs_at_most_once_per_fit_and_honours_sklearns_switch():
    # scikit-learn's constraint check runs at most once per fit (also with an accountant, which is
    # mutable and so checked every time, and for Kendall, which checks before its cost estimate),
    # and not at all inside scikit-learn's public skip_parameter_validation switch
    from unittest import mock

    import sklearn
    from sklearn.base import BaseEstimator

    from privpca_edu import AnalyzeGauss, KendallDPPCA
    from privpca_edu.privacy import BudgetAccountant

    X = np.random.default_rng(2).standard_normal((40, 4)) / 10
    with mock.patch.object(BaseEstimator, "_validate_params", autospec=True) as check:
        AnalyzeGauss(2, epsilon=0.7, random_state=0, accountant=BudgetAccountant(10.0, 1e-3)).fit(X)
        assert check.call_count == 1
        KendallDPPCA(2, epsilon=0.61803, random_state=0).fit(X)  # a value set no other test uses
        assert check.call_count == 2
        with sklearn.config_context(skip_parameter_validation=True):
            AnalyzeGauss(2, epsilon=0.7, random_state=0, accountant=BudgetAccountant(10.0, 1e-3)).fit(X)
            KendallDPPCA(2, epsilon=0.271828, random_state=0).fit(X)
        assert check.call_count == 2
