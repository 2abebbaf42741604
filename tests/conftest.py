"""Shared test settings: deterministic Hypothesis and the scikit-learn contract check."""

import os
import tempfile

import numpy as np
import pytest
from hypothesis import settings
from sklearn.exceptions import NotFittedError

# Hypothesis writes caches and failure patches into ./.hypothesis; keep the repo clean.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "privpca_edu_hypothesis"))

# Hypothesis runs are part of a seeded suite: derandomize (same examples every run), keep no
# example database on disk (nothing written into the repo) and no per-example deadline (fits
# on a shared 2-core machine have noisy timings).
settings.register_profile("privpca", derandomize=True, database=None, deadline=None, max_examples=40)
settings.load_profile("privpca")


def _check_sklearn_contract(make, params, X):
    """Assert the API.md estimator contract for ``make(**params)`` on data ``X``."""
    est = make(**params)
    # constructor stores its arguments unchanged (same objects, not copies or coercions)
    for name, value in params.items():
        assert getattr(est, name) is value, name
    got = est.get_params()
    assert set(params) <= set(got)
    for name, value in params.items():
        assert got[name] is value
    # a clone from get_params has the same parameters
    assert type(est)(**got).get_params() == got
    # set_params returns self and stores the value; unknown names are rejected
    assert est.set_params(n_components=params["n_components"]) is est
    with pytest.raises(ValueError, match="(?i)invalid parameter"):
        est.set_params(no_such_parameter=1)
    # repr is the class name and the arguments (exact strings are checked per estimator)
    assert repr(est).startswith(type(est).__name__ + "(") and repr(est).endswith(")")
    # transform before fit is an error, not a silent garbage result
    with pytest.raises(NotFittedError, match="not fitted"):
        est.transform(X)
    assert est.fit(X) is est
    k, d = params["n_components"], X.shape[1]
    C = est.components_
    assert C.shape == (k, d)
    np.testing.assert_allclose(C @ C.T, np.eye(k), atol=1e-10)
    Z = est.transform(X)
    assert Z.shape == (X.shape[0], k)
    np.testing.assert_allclose(Z, (X - getattr(est, "mean_", 0.0)) @ C.T, atol=1e-12)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :-1])
    # fit_transform = fit then transform (same seed, same result)
    Z2 = make(**params).fit_transform(X)
    assert Z2.shape == (X.shape[0], k)
    np.testing.assert_allclose(Z2, Z, atol=1e-12)
    return est


#: Test modules that are slow as a whole (seconds to minutes each on 2 cores): the chapters'
#: recomputed numbers, paper-scale experiments, the reproduce command, course-kit builds.  They
#: are marked ``slow`` here, in one place, so the fast tier (``run_tests.sh --fast``, i.e.
#: ``-m "not slow and not browser"``) leaves them out; single slow tests elsewhere carry
#: ``@pytest.mark.slow`` themselves.  Times: the README's "Tests" section.
SLOW_MODULES = {
    "test_benchmarks_smoke.py",
    "test_chapter_2_numbers.py",
    "test_chapter_6_numbers.py",
    "test_chapter_7_numbers.py",
    "test_chapter_8_numbers.py",
    "test_chapter_9_numbers.py",
    "test_coursekit_assignments.py",
    "test_dps_pca_experiments.py",
    "test_europe.py",
    "test_bench_protocol_smoke.py",
    "test_protocol_experiments.py",
    "test_reproduce.py",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def check_sklearn_contract():
    return _check_sklearn_contract
