"""Argument validation, input safety, clipping and random-state handling of every estimator."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privpca_edu import PCA, PPCA, AnalyzeGauss, ModSuLQ, PrivacyWarning, TruncatedPowerPCA
from privpca_edu._validation import as_generator, check_data, clip_rows, diagnostics

ESTIMATORS = {
    "PCA": (PCA, dict(n_components=2)),
    "TruncatedPowerPCA": (TruncatedPowerPCA, dict(n_components=2, random_state=0)),
    "AnalyzeGauss": (AnalyzeGauss, dict(n_components=2, epsilon=0.5, delta=1e-5, random_state=0)),
    "ModSuLQ": (ModSuLQ, dict(n_components=2, epsilon=0.5, delta=1e-5, random_state=0)),
    "PPCA": (PPCA, dict(n_components=2, epsilon=0.5, n_iter=3, random_state=0)),
}
ALL = sorted(ESTIMATORS)
PRIVATE = ["AnalyzeGauss", "ModSuLQ", "PPCA"]
WITH_DELTA = ["AnalyzeGauss", "ModSuLQ"]
RANDOMISED = ["TruncatedPowerPCA", "AnalyzeGauss", "ModSuLQ", "PPCA"]

N, D = 40, 5


def make(name, **overrides):
    cls, params = ESTIMATORS[name]
    return cls(**{**params, **overrides})


def valid_X(seed=0, n=N, d=D):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return 0.9 * X / np.linalg.norm(X, axis=1).max()  # every row within data_norm = 1


X_OK = valid_X()

# ---------------------------------------------------------------------------------------------
# Bad arguments (hypothesis)
# ---------------------------------------------------------------------------------------------
nan = st.just(float("nan"))
bad_epsilon = st.floats(max_value=0.0) | nan | st.integers(max_value=0)
bad_delta = st.floats(max_value=0.0) | st.floats(min_value=1.0) | nan | st.integers(max_value=0) | st.integers(min_value=1)
bad_positive = st.floats(max_value=0.0) | nan | st.just(float("inf")) | st.integers(max_value=0)
non_int = (
    st.floats(allow_nan=True)
    | st.text(max_size=3)
    | st.none()
    | st.booleans()
    | st.lists(st.integers(1, 3), max_size=2)
    | st.just(np.float64(2.0))
)
bad_random_state = (
    st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.lists(st.integers(0, 9), min_size=1, max_size=3)
    | st.builds(object)
)


@given(name=st.sampled_from(PRIVATE), epsilon=bad_epsilon)
def test_bad_epsilon(name, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        make(name, epsilon=epsilon).fit(X_OK)


@given(name=st.sampled_from(WITH_DELTA), delta=bad_delta)
def test_bad_delta(name, delta):
    with pytest.raises(ValueError, match="delta"):
        make(name, delta=delta).fit(X_OK)


@given(name=st.sampled_from(ALL), k=st.integers(min_value=D + 1, max_value=10**6) | st.integers(max_value=0))
def test_n_components_out_of_range(name, k):
    with pytest.raises(ValueError, match="n_components"):
        make(name, n_components=k).fit(X_OK)


@given(name=st.sampled_from(ALL), k=non_int)
def test_n_components_not_an_int(name, k):
    with pytest.raises(TypeError, match="n_components"):
        make(name, n_components=k).fit(X_OK)


def test_numpy_integer_n_components_is_fine():
    for name in ALL:
        assert make(name, n_components=np.int64(2)).fit(X_OK).components_.shape == (2, D)


@given(
    name=st.sampled_from(ALL),
    value=st.sampled_from([np.nan, np.inf, -np.inf]),
    cells=st.lists(st.tuples(st.integers(0, N - 1), st.integers(0, D - 1)), min_size=1, max_size=4),
)
def test_non_finite_rows(name, value, cells):
    X = X_OK.copy()
    for i, j in cells:
        X[i, j] = value
    with pytest.raises(ValueError, match="NaN|infinity"):
        make(name).fit(X)


@st.composite
def bad_shaped_X(draw):
    kind = draw(st.sampled_from(["1d", "empty", "3d", "no_features"]))
    if kind == "1d":
        shape = (draw(st.integers(0, 10)),)
    elif kind == "empty":
        shape = (0, draw(st.integers(1, 6)))
    elif kind == "3d":
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=3, max_size=3)))
    else:
        shape = (draw(st.integers(1, 6)), 0)
    return np.ones(shape) * 0.1


@given(name=st.sampled_from(ALL), X=bad_shaped_X())
def test_bad_X_shapes(name, X):
    # scikit-learn's wordings (what check_estimator expects)
    with pytest.raises(ValueError, match=r"Expected 2D array|dim 3|0 sample\(s\)|0 feature\(s\)"):
        make(name).fit(X)


def test_transform_validates_X_too():
    est = make("PCA").fit(X_OK)
    for bad in (np.ones(D), np.ones((0, D)), np.ones((2, D, 1)), np.full((3, D), np.nan)):
        with pytest.raises(ValueError):
            est.transform(bad)


@given(sampler=st.text(max_size=6).filter(lambda s: s not in ("gibbs", "exact")) | st.none() | st.integers())
def test_ppca_bad_sampler(sampler):
    with pytest.raises(ValueError, match="sampler"):
        make("PPCA", sampler=sampler).fit(X_OK)


@given(k=st.integers(2, D))
def test_ppca_exact_sampler_needs_k1(k):
    with pytest.raises(ValueError, match="sampler='exact'"):
        make("PPCA", sampler="exact", n_components=k).fit(X_OK)


@given(name=st.sampled_from(PRIVATE), data_norm=bad_positive)
def test_bad_data_norm(name, data_norm):
    with pytest.raises(ValueError, match="data_norm"):
        make(name, data_norm=data_norm).fit(X_OK)


@given(name=st.sampled_from(RANDOMISED), random_state=bad_random_state)
def test_bad_random_state_type(name, random_state):
    with pytest.raises(TypeError, match="random_state"):
        make(name, random_state=random_state).fit(X_OK)


@pytest.mark.parametrize("name", PRIVATE)
def test_bad_random_state_rejected_even_without_noise(name):
    # epsilon=inf is "the same code path with σ = 0": the argument is still validated
    with pytest.raises(TypeError, match="random_state"):
        make(name, epsilon=np.inf, random_state="seed").fit(X_OK)


@pytest.mark.parametrize("name", RANDOMISED)
def test_negative_seed_rejected(name):
    with pytest.raises(ValueError, match="random_state"):
        make(name, random_state=-1).fit(X_OK)


def test_error_messages_say_what_was_given_and_what_is_allowed():
    # scikit-learn's parameter-validation wording: the argument, the allowed range, the value
    with pytest.raises(ValueError, match=re.escape(
            "The 'epsilon' parameter of AnalyzeGauss must be a float in the range (0.0, inf]. Got -1.0 instead.")):
        make("AnalyzeGauss", epsilon=-1.0).fit(X_OK)
    with pytest.raises(ValueError, match=re.escape(
            "The 'delta' parameter of ModSuLQ must be a float in the range (0.0, 1.0). Got 1.5 instead.")):
        make("ModSuLQ", delta=1.5).fit(X_OK)
    with pytest.raises(ValueError, match=re.escape(f"n_components must be in [1, {D}], got 9")):
        make("PCA", n_components=9).fit(X_OK)


# ---------------------------------------------------------------------------------------------
# The caller's array is never modified
# ---------------------------------------------------------------------------------------------


def _big_rows_X():
    X = valid_X(seed=3)
    X[[1, 5, 7]] *= 4.0  # three rows above data_norm = 1: private estimators clip them
    return X


@pytest.mark.parametrize("name", ALL + ["PCA-centered"])
def test_input_array_never_modified(name):
    est = make("PCA", center=True) if name == "PCA-centered" else make(name)
    X = _big_rows_X()
    X0 = X.copy()
    X.flags.writeable = False  # a read-only input must work
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        est.fit(X)
        Z = est.transform(X)
        Z2 = make(name.split("-")[0], **({"center": True} if name == "PCA-centered" else {})).fit_transform(X)
        R = est.inverse_transform(Z)
    assert np.array_equal(X, X0)
    assert not X.flags.writeable
    for out in (Z, Z2, R, est.components_):
        assert not np.shares_memory(out, X)
    for attr in ("second_moment_", "released_matrix_"):
        if hasattr(est, attr):
            assert not np.shares_memory(getattr(est, attr), X)


def test_check_data_returns_a_copy_of_float_input():
    X = valid_X()
    out = check_data(X)
    assert out is not X and not np.shares_memory(out, X) and out.dtype == np.float64
    assert np.array_equal(out, X)
    assert check_data([[1, 2], [3, 4]]).dtype == np.float64  # array-likes and ints accepted


# ---------------------------------------------------------------------------------------------
# Clipping to data_norm
# ---------------------------------------------------------------------------------------------


def test_clip_rows_scales_only_rows_above_the_bound():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((23, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    target = np.where(np.arange(23) % 3 == 0, 3.5, 1.2)  # rows 0, 3, …, 21: 8 rows above 2.0
    target[1] = 2.0  # exactly at the bound: not clipped
    X *= target[:, None]
    X0 = X.copy()
    with pytest.warns(PrivacyWarning) as rec:
        Xc, n_clipped = clip_rows(X, 2.0, warn=True)  # the data holder's own call
    over = target > 2.0
    assert n_clipped == over.sum() == 8
    # the count depends on the private data: the message says clipping happened, not how often
    assert not re.search(r"\b8\b", str(rec[0].message)) and "not reported" in str(rec[0].message)
    assert np.array_equal(X, X0)  # input untouched
    np.testing.assert_allclose(np.linalg.norm(Xc[over], axis=1), 2.0, rtol=1e-14)
    np.testing.assert_allclose(Xc[over], X[over] * (2.0 / 3.5), rtol=1e-14)  # same direction
    assert np.array_equal(Xc[~over], X[~over])  # rows within the bound: bit for bit


def test_clip_rows_silent_when_nothing_to_clip():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Xc, n = clip_rows(valid_X(), 1.0)
    assert n == 0 and np.array_equal(Xc, valid_X())


@pytest.mark.parametrize("name", ["AnalyzeGauss", "ModSuLQ"])
def test_estimators_clip_without_releasing_the_count(name):
    X = valid_X(seed=8, n=31)
    X[[2, 3, 11, 17, 29]] *= 5.0  # 5 rows with norm > 1
    Xc = X.copy()
    norms = np.linalg.norm(Xc, axis=1)
    Xc[norms > 1] /= norms[norms > 1, None]
    with diagnostics(), pytest.warns(PrivacyWarning, match=r"some rows of X .* not reported") as rec:
        est = make(name, epsilon=np.inf).fit(X)  # ε = inf: the release is the statistic itself
    assert not any("5" in str(w.message) for w in rec) and not hasattr(est, "n_clipped_")
    np.testing.assert_allclose(est.released_matrix_, Xc.T @ Xc / 31, rtol=1e-13, atol=1e-16)
    assert est.privacy_.data_norm == 1.0


def test_ppca_clips_before_forming_the_bingham_parameter():
    X = valid_X(seed=8, n=31)
    X[[0, 4]] *= 10.0
    Xc = X.copy()
    norms = np.linalg.norm(Xc, axis=1)
    Xc[norms > 1] /= norms[norms > 1, None]
    est = make("PPCA", epsilon=0.8)
    with diagnostics(), pytest.warns(PrivacyWarning, match=r"some rows of X"):
        A = est.bingham_parameter(X)
    np.testing.assert_allclose(A, 0.8 / 2 * (Xc.T @ Xc), rtol=1e-13)


def test_data_norm_is_the_bound_used_not_estimated():
    X = valid_X() * 3  # rows up to 2.7
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        est = make("AnalyzeGauss", data_norm=3.0, epsilon=np.inf).fit(X)  # nothing above 3
    assert est.privacy_.data_norm == 3.0


@pytest.mark.parametrize("name", ["PCA", "TruncatedPowerPCA"])
def test_non_private_baselines_do_not_clip(name):
    X = _big_rows_X()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        est = make(name).set_params(**({"center": False} if name == "PCA" else {})).fit(X)
    np.testing.assert_allclose(est.second_moment_, X.T @ X / X.shape[0], rtol=1e-13)


# ---------------------------------------------------------------------------------------------
# Random state
# ---------------------------------------------------------------------------------------------


def test_as_generator_conversions():
    g = as_generator(3)
    assert isinstance(g, np.random.Generator)
    assert g.random() == np.random.default_rng(3).random()
    assert isinstance(as_generator(np.int32(3)), np.random.Generator)
    gen = np.random.default_rng(0)
    assert as_generator(gen) is gen  # passed through: the caller's stream advances
    a, b = as_generator(None), as_generator(None)
    assert isinstance(a, np.random.Generator) and a.random() != b.random()  # fresh entropy
    assert isinstance(as_generator(np.random.SeedSequence(1)), np.random.Generator)
    # a legacy RandomState (what scikit-learn passes) gives a Generator, reproducibly
    g1, g2 = as_generator(np.random.RandomState(5)), as_generator(np.random.RandomState(5))
    assert isinstance(g1, np.random.Generator) and g1.random() == g2.random()
    rs = np.random.RandomState(5)
    assert as_generator(rs).random() != as_generator(rs).random()  # the RandomState advances
    with pytest.raises(TypeError, match="random_state"):
        as_generator(1.5)


@pytest.mark.parametrize("name", RANDOMISED)
def test_random_state_instance_accepted_reproducibly(name):
    a = make(name, random_state=np.random.RandomState(3)).fit(X_OK).components_
    b = make(name, random_state=np.random.RandomState(3)).fit(X_OK).components_
    np.testing.assert_array_equal(a, b)


def _global_state():
    s = np.random.get_state()
    return (s[0], s[1].copy(), s[2], s[3], s[4])


@pytest.mark.parametrize("name", RANDOMISED)
@pytest.mark.parametrize("random_state", [None, 7, "generator"])
def test_fit_never_touches_global_numpy_state(name, random_state):
    rs = np.random.default_rng(1) if random_state == "generator" else random_state
    np.random.seed(12345)
    before = _global_state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        make(name, random_state=rs).fit(X_OK)
    after = _global_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]


@pytest.mark.parametrize("name", RANDOMISED)
def test_seeded_fits_reproduce_and_generators_advance(name):
    a = make(name, random_state=11).fit(X_OK).components_
    b = make(name, random_state=11).fit(X_OK).components_
    assert np.array_equal(a, b)
    if name == "TruncatedPowerPCA":
        return  # converges to the same subspace from any start; the seed only moves the start
    gen = np.random.default_rng(11)
    est = make(name, random_state=gen)
    c1 = est.fit(X_OK).components_.copy()
    c2 = est.fit(X_OK).components_
    assert np.array_equal(c1, a)  # a Generator seeded like the int gives the same first draw
    assert not np.array_equal(c1, c2)  # and its stream advanced


def test_no_name_shadows_scikit_learns_validation_functions():
    import privpca_edu._validation as v

    assert not hasattr(v, "check_array") and not hasattr(v, "check_random_state")
