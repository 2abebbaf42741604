"""A fit copies the caller's X once, never mutates it, and refuses bad values whatever is skipped.

The private second-moment estimators validate X into their own float64 copy and clip its rows in
place: the memory a fit allocates (traced by :mod:`tracemalloc`, which NumPy reports to) stays
below 1.5 copies of X even when every row is clipped (a second copy would make it ≥ 2).
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn

import privpca_edu as pe
from privpca_edu._validation import clip_rows

SECOND_MOMENT = {
    "AnalyzeGauss": lambda: pe.AnalyzeGauss(2, random_state=0),
    "ModSuLQ": lambda: pe.ModSuLQ(2, random_state=0),
    "LocalGaussianPCA": lambda: pe.LocalGaussianPCA(2, random_state=0),
    "PrivateLocalPCA": lambda: pe.PrivateLocalPCA(2, n_sites=4, random_state=0),
    "PPCA": lambda: pe.PPCA(2, sampler="gibbs", n_iter=3, random_state=0),
    "DPSPCA": lambda: pe.DPSPCA(2, sparsity=5, n_iter=3, random_state=0),
}
OTHERS = {
    "KendallDPPCA": lambda: pe.KendallDPPCA(2, random_state=0),
    "NSGGD": lambda: pe.NSGGD(2, n_iter=3, random_state=0),
    "SGPCA": lambda: pe.SGPCA(2, spikes=(9, 4), random_state=0),
}


def _data(n=20_000, d=20):
    return np.random.default_rng(0).standard_normal((n, d))  # row norms ≈ √20 > data_norm = 1: all clipped


@pytest.mark.parametrize("name", sorted(SECOND_MOMENT))
def test_fit_allocates_less_than_two_copies_of_X(name):
    X = _data()
    make = SECOND_MOMENT[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make().fit(X[:50])  # first-call imports and caches are not the fit's allocations
        est = make()
        tracemalloc.start()
        try:
            est.fit(X)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert X.nbytes <= peak < 1.5 * X.nbytes, f"{name}: peak {peak / X.nbytes:.2f} copies of X"


@pytest.mark.parametrize("name", sorted({**SECOND_MOMENT, **OTHERS}))
def test_fit_never_mutates_or_keeps_the_callers_array(name):
    X = _data(2000, 10) * 3.0
    X[0] = 100.0  # clipped, and a row far from the others
    before = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = {**SECOND_MOMENT, **OTHERS}[name]().fit(X)
    np.testing.assert_array_equal(X, before)
    for value in vars(est).values():
        if isinstance(value, np.ndarray):
            assert not np.shares_memory(value, X)


def test_clip_rows_copies_once_or_not_at_all():
    X = _data(1000, 5) * 10.0
    before = X.copy()
    Y, n = clip_rows(X, 1.0)
    assert n == 1000 and not np.shares_memory(X, Y)
    np.testing.assert_array_equal(X, before)
    np.testing.assert_allclose(np.linalg.norm(Y, axis=1), 1.0, rtol=1e-14)
    Z, _ = clip_rows(Y, 0.5, copy=False)  # the caller's own copy: scaled in place
    assert Z is Y
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 0.5, rtol=1e-14)


def test_clip_rows_refuses_nan_and_inf_by_row():
    X = np.ones((5, 3))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"Input X contains NaN or infinity: rows \[3\]"):
        clip_rows(X, 1.0)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"rows \[3\]"):
        pe.AnalyzeGauss(1).fit(X)
    Y = np.ones((40, 3)) / 10
    Y[27, 0] = np.nan  # in the second of two sites: the row is named in the caller's numbering
    for est in (pe.DPSPCA(1), pe.PrivateLocalPCA(1, n_sites=2), pe.ModSuLQ(1)):
        with pytest.raises(ValueError, match=r"contains NaN or infinity: rows \[27\]"):
            est.fit(Y)


BAD_VALUES = [
    (pe.AnalyzeGauss, dict(epsilon=-1.0), "epsilon must be > 0"),
    (pe.AnalyzeGauss, dict(delta=1.5), r"delta must be in \(0, 1\)"),
    (pe.AnalyzeGauss, dict(data_norm=0.0), "data_norm must be > 0"),
    (pe.AnalyzeGauss, dict(n_components=7), r"n_components must be in \[1, 6\]"),
    (pe.AnalyzeGauss, dict(calibration="exact"), "calibration must be one of"),
    (pe.ModSuLQ, dict(epsilon=np.nan), "epsilon must be a number"),
    (pe.KendallDPPCA, dict(epsilon=0.0), "epsilon must be > 0"),
    (pe.PPCA, dict(data_norm=-2.0), "data_norm must be > 0"),
]


@pytest.mark.parametrize("cls, params, message", BAD_VALUES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_bad_values_are_refused_by_name_even_with_sklearns_check_skipped(cls, params, message):
    X = np.random.default_rng(3).standard_normal((30, 6)) / 10
    kwargs = {"n_components": 1, **params}
    with pytest.raises((ValueError, TypeError)):  # scikit-learn's constraint message
        cls(**kwargs).fit(X)
    with sklearn.config_context(skip_parameter_validation=True):
        with pytest.raises((ValueError, TypeError), match=message):  # the package's own value check
            cls(**kwargs).fit(X)
