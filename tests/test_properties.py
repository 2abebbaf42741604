"""Property-based tests (Hypothesis) over the legal domain of the public functions.

Scale equivariance, extreme ε and δ, subnormal and huge values, tiny n: each property either
holds or the function refuses with a ``ValueError`` naming its argument — never another
exception, a NaN, or a silent wrong number.

Time budget: the whole module runs in about 25 s on one core of the CI machine (measured; the
``privpca`` profile of conftest.py is derandomized, and each test caps its own examples).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privpca_edu as pp
from privpca_edu import audit, bounds, datasets, privacy
from privpca_edu.subspace import subspace_distance, top_eigenvectors

FAST = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])

epsilons = st.one_of(st.floats(min_value=5e-324, max_value=1e300, allow_nan=False, allow_infinity=False),
                     st.sampled_from([5e-324, 1e-300, 1e-6, 0.1, 1.0, 10.0, 1e12, 1e300, math.inf]))
deltas = st.one_of(st.floats(min_value=5e-324, max_value=0.999999, exclude_min=False),
                   st.sampled_from([5e-324, 1e-300, 1e-10, 1e-5, 0.1, 0.5, 0.999999]))
powers_of_two = st.integers(min_value=-330, max_value=330).map(lambda k: 2.0**k)


def _data(seed, n=40, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(2.0, 0.3, d)
    return X / (1.01 * np.linalg.norm(X, axis=1).max())


@FAST
@given(epsilon=epsilons, delta=deltas, method=st.sampled_from(["classic", "analytic"]))
def test_gaussian_sigma_is_a_number_or_a_named_refusal(epsilon, delta, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        try:
            sigma = privacy.gaussian_sigma(1.0, epsilon, delta, method=method)
        except ValueError as exc:
            assert "epsilon=" in str(exc) and ("too small" in str(exc) or "too large" in str(exc))
            return
    assert sigma >= 0 and math.isfinite(sigma)
    g = privacy.check_gaussian_guarantee(epsilon, delta, [(1.0, sigma)])
    assert 0.0 <= g.exact_delta <= 1.0 and not math.isnan(g.mu)
    if method == "analytic" and not math.isinf(epsilon):
        assert g.holds  # the analytic σ is exact: always private (it refuses where float64 cannot tell)


@FAST
@given(epsilon=epsilons, delta=deltas, n_steps=st.integers(1, 10**6),
       method=st.sampled_from(sorted(privacy.ITERATIVE_CALIBRATIONS)))
def test_iterative_sigma_is_private_or_refused(epsilon, delta, n_steps, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        try:
            sigma = privacy.iterative_gaussian_sigma(1.0, epsilon, delta, n_steps, method=method)
        except ValueError as exc:
            assert "epsilon" in str(exc) or "delta" in str(exc)
            return
    assert sigma >= 0 and math.isfinite(sigma)
    if method not in ("paper", "classic") and not math.isinf(epsilon):
        g = privacy.check_gaussian_guarantee(epsilon, delta, [(1.0, sigma, n_steps)])
        # valid calibrations: private, or (ε ≳ 1e23, μ beyond float64's resolution) not claimed at all
        assert g.holds or (g.mu > privacy.MU_RESOLVABLE and "not verified" in g.note)


@FAST
@given(e0=st.floats(1e-12, 1e3), d0=st.floats(0.0, 0.999999), t=st.integers(1, 10**6), slack=st.floats(1e-300, 0.5))
def test_composition_returns_a_probability(e0, d0, t, slack):
    eps, delta = privacy.compose_basic(e0, d0, t)
    assert eps == pytest.approx(t * e0) and 0.0 <= delta <= 1.0
    eps, delta = privacy.compose_advanced(e0, d0, t, slack)
    assert eps >= e0 and 0.0 <= delta <= 1.0


@FAST
@given(k=st.integers(0, 400), n=st.integers(1, 400), alpha=st.floats(1e-9, 0.999))
def test_clopper_pearson_brackets_the_proportion(k, n, alpha):
    if k > n:
        with pytest.raises(ValueError, match="successes"):
            audit.clopper_pearson(k, n, alpha)
        return
    lo, hi = audit.clopper_pearson(k, n, alpha)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@FAST
@given(seed=st.integers(0, 2**16), c=powers_of_two, k=st.integers(1, 4))
def test_top_eigenvectors_and_pca_are_scale_free(seed, c, k):
    X = _data(seed)
    ref = top_eigenvectors(X.T @ X, k)[1]
    assert subspace_distance(pp.PCA(k, center=False).fit(X * c).components_.T, ref) < 1e-8
    assert subspace_distance(pp.PCA(k, center=True).fit(X * c).components_.T,
                             pp.PCA(k, center=True).fit(X).components_.T) < 1e-8


# ε = ∞ and finite ε: X → cX with B → cB (c a power of two: exact) gives the same release up to c²
EQUIVARIANT = {
    "AnalyzeGauss": lambda e, B: pp.AnalyzeGauss(2, epsilon=e, data_norm=B, calibration="analytic", random_state=1),
    "ModSuLQ": lambda e, B: pp.ModSuLQ(2, epsilon=e, data_norm=B, random_state=1),
    "LocalGaussianPCA": lambda e, B: pp.LocalGaussianPCA(2, epsilon=e, data_norm=B, per_user=False,
                                                          random_state=1),
    "NSGGD": lambda e, B: pp.NSGGD(2, epsilon=e, data_norm=B, n_iter=10, random_state=1),
    "DPSPCA": lambda e, B: pp.DPSPCA(2, epsilon=e, delta=0.01, data_norm=B, n_iter=5, random_state=1),
    "PrivateLocalPCA": lambda e, B: pp.PrivateLocalPCA(2, epsilon=e, data_norm=B, random_state=1),
    "PPCA": lambda e, B: pp.PPCA(1, epsilon=e, data_norm=B, sampler="exact", random_state=1),
}


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(EQUIVARIANT)), seed=st.integers(0, 2**16),
       k=st.integers(-320, 320), epsilon=st.sampled_from([0.3, 2.0, math.inf]))
def test_estimators_are_scale_equivariant(name, seed, k, epsilon):
    c = 2.0**k
    B = min(max(c, 1e-100), 1e100)
    X = _data(seed) * (B / c if c != B else 1.0)  # rows within B/c·‖·‖, so X·c lies inside B
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        ref = EQUIVARIANT[name](epsilon, B / c).fit(X) if 1e-100 <= B / c <= 1e100 else None
        got = EQUIVARIANT[name](epsilon, B).fit(X * c)
    if ref is not None:
        assert subspace_distance(got.components_.T, ref.components_.T) < 1e-6, name
    assert np.all(np.isfinite(got.components_))


# tiny n, subnormal and huge values: every estimator fits or refuses with a ValueError
ALL = {
    "PCA": lambda: pp.PCA(1),
    "TruncatedPowerPCA": lambda: pp.TruncatedPowerPCA(1, random_state=0),
    "AnalyzeGauss": lambda: pp.AnalyzeGauss(1, random_state=0),
    "ModSuLQ": lambda: pp.ModSuLQ(1, random_state=0),
    "PPCA": lambda: pp.PPCA(1, random_state=0),
    "DPSPCA": lambda: pp.DPSPCA(1, delta=0.1, n_iter=3, random_state=0),
    "LocalGaussianPCA": lambda: pp.LocalGaussianPCA(1, random_state=0),
    "LocalSparsePCA": lambda: pp.LocalSparsePCA(1, random_state=0, max_iter=50),
    "KendallDPPCA": lambda: pp.KendallDPPCA(1, random_state=0),
    "NSGGD": lambda: pp.NSGGD(1, n_iter=5, random_state=0),
    "PrivateLocalPCA": lambda: pp.PrivateLocalPCA(1, random_state=0),
}


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(ALL)), n=st.integers(1, 4), d=st.integers(1, 4),
       scale=st.sampled_from([0.0, 5e-324, 1e-310, 1e-200, 1.0, 1e150, 1e300]), seed=st.integers(0, 99),
       epsilon=st.sampled_from([1e-300, 0.5, 1e300, math.inf]))
def test_tiny_and_extreme_inputs_fit_or_refuse_by_name(name, n, d, scale, seed, epsilon):
    X = np.random.default_rng(seed).standard_normal((n, d)) * scale
    X0 = X.copy()
    est = ALL[name]()
    if "epsilon" in est.get_params():
        est.set_params(epsilon=epsilon)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est.fit(X)
        except ValueError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            return
    assert np.array_equal(X, X0)  # the caller's array is never modified
    assert est.components_.shape == (1, d) and np.all(np.isfinite(est.components_))
    np.testing.assert_allclose(np.linalg.norm(est.components_, axis=1), 1.0, rtol=1e-9)
    if hasattr(est, "privacy_"):
        assert est.privacy_.is_private is False or math.isfinite(est.privacy_.epsilon)


@FAST
@given(n=st.integers(1, 60), d=st.integers(1, 8), family=st.sampled_from(["gaussian", "t", "contaminated"]),
       df=st.floats(0.5, 50.0), eta=st.floats(0.0, 1.0), seed=st.integers(0, 99))
def test_elliptical_returns_finite_data_of_the_asked_shape(n, d, family, df, eta, seed):
    k = 1
    if family == "contaminated" and d < 2:
        with pytest.raises(ValueError, match="n_features"):
            datasets.elliptical(n, d, family=family, eigenvalues=(4.0,), contamination=eta, random_state=seed)
        return
    data = datasets.elliptical(n, d, family=family, df=df, contamination=eta, eigenvalues=(4.0,) * k,
                               random_state=seed)
    assert data.X.shape == (n, d) and np.all(np.isfinite(data.X))


@FAST
@given(n=st.integers(2, 10**9), d=st.integers(2, 5000), epsilon=epsilons, delta=deltas, gap=st.floats(1e-12, 1e6))
def test_analyze_gauss_bound_is_a_number_or_a_refusal(n, d, epsilon, delta, gap):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        try:
            out = bounds.analyze_gauss_bound(n, d, 1, epsilon, delta, gap)
        except ValueError as exc:
            assert "epsilon" in str(exc) or "delta" in str(exc)
            return
    values = out.values() if isinstance(out, dict) else [out]
    for v in values:
        if isinstance(v, float):
            assert not math.isnan(v)


@FAST
@given(d=st.integers(2, 12), seed=st.integers(0, 999))
def test_subspace_distance_is_a_metric_in_its_range(d, seed):
    k = max(1, d // 3)
    U = pp.subspace.random_orthonormal(d, k, seed)
    V = pp.subspace.random_orthonormal(d, k, seed + 1)
    a, b = subspace_distance(U, V), subspace_distance(V, U)
    assert a == pytest.approx(b, abs=1e-12) and 0.0 <= a <= math.sqrt(k) + 1e-12
    assert subspace_distance(U, U) < 1e-7
