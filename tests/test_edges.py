"""Legal extreme inputs give the right answer or a clear refusal; the last side channels are closed.

One test per reproducer of a reliability and privacy review (each failed on the code before
the fix): tiny, subnormal and huge data at ε = ∞, ε = 1e300, a subnormal δ, scale equivariance,
one-row sites, composition beyond δ = 1, Theorem 4.3 at tiny ε, the reproduce CLI's paths,
Kendall's cost refusal, argument checks of the free functions, and the data-dependent side
outputs (clipping warnings, NSGGD's objective, the owners' warnings and refusals).
"""

import math
import os
import warnings

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import audit, bounds, datasets, privacy
from privpca_edu.audit import mutants
from privpca_edu.estimators import kendall as kendall_module
from privpca_edu.estimators.kendall import kendall_tau_matrix, kendall_tau_naive, spatial_sign
from privpca_edu.estimators.private_local import ChainRankWarning
from privpca_edu.subspace import subspace_distance, top_eigenvectors

# the eight estimators that returned a random subspace on X·1e-200 at ε = ∞, plus the others
NO_NOISE = {
    "PCA": lambda: pp.PCA(2),
    "TruncatedPowerPCA": lambda: pp.TruncatedPowerPCA(2, random_state=0),
    "AnalyzeGauss": lambda: pp.AnalyzeGauss(2, epsilon=np.inf),
    "ModSuLQ": lambda: pp.ModSuLQ(2, epsilon=np.inf),
    "PPCA": lambda: pp.PPCA(2, epsilon=np.inf),
    "DPSPCA": lambda: pp.DPSPCA(2, epsilon=np.inf, random_state=0),
    "LocalGaussianPCA": lambda: pp.LocalGaussianPCA(2, epsilon=np.inf),
    "LocalSparsePCA": lambda: pp.LocalSparsePCA(2, epsilon=np.inf),
    "KendallDPPCA": lambda: pp.KendallDPPCA(2, epsilon=np.inf),
}


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((200, 6)) * np.array([3, 2, 1, 0.5, 0.5, 0.5])
    return Z / np.linalg.norm(Z, axis=1).max()


def _truth(X):
    return top_eigenvectors(X.T @ X, 2)[1]


@pytest.mark.parametrize("scale", [1e-200, 1e-310])
@pytest.mark.parametrize("name", sorted(NO_NOISE))
def test_no_noise_fits_are_scale_free(name, scale, X):
    # XᵀX underflowed to 0 (1e-200: eigh of 0 returned a random basis, 1.34–1.41 from the truth;
    # 1e-310: X·(1/c) overflowed, PCA returned no components, Kendall said "NaN or infinity")
    ref = NO_NOISE[name]().fit(X).components_.T
    got = NO_NOISE[name]().fit(X * scale).components_.T
    assert subspace_distance(got, ref) < 1e-6


def test_no_noise_explained_variance_is_in_the_units_of_x(X):
    ag = pp.AnalyzeGauss(2, epsilon=np.inf).fit(X * 1e-150)
    ref = pp.AnalyzeGauss(2, epsilon=np.inf).fit(X)
    np.testing.assert_allclose(ag.explained_variance_, ref.explained_variance_ * 1e-300, rtol=1e-12)
    np.testing.assert_allclose(ag.released_matrix_, ref.released_matrix_ * 1e-300, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["AnalyzeGauss", "ModSuLQ", "PPCA", "DPSPCA", "LocalGaussianPCA", "LocalSparsePCA",
                                  "KendallDPPCA", "NSGGD", "PrivateLocalPCA"])
def test_epsilon_1e300_is_answered_not_an_overflow(name, X):
    # (Δ/σ)² overflowed in check_gaussian_guarantee: a bare OverflowError from 8 estimators
    est = getattr(pp, name)(2, epsilon=1e300)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        est.fit(X)
    assert est.components_.shape == (2, 6)
    assert subspace_distance(est.components_.T, _truth(X)) < 0.1 or name in ("KendallDPPCA", "NSGGD")
    g = privacy.check_gaussian_guarantee(1e300, 1e-5, [(1.0, 1e-300)])
    assert g.mu == pytest.approx(1e300) and not g.holds


def test_subnormal_delta_is_not_blamed_on_epsilon(X):
    # 1.25/δ overflowed for δ = 5e-324: "epsilon=1 is too small"
    est = pp.AnalyzeGauss(2, epsilon=1.0, delta=5e-324, random_state=0).fit(X)
    L = math.log(1.25) - math.log(5e-324)
    assert est.noise_scale_ == pytest.approx(math.sqrt(2) / 200 * math.sqrt(2 * L), rel=1e-12)
    assert privacy.iterative_gaussian_sigma(1.0, 1.0, 5e-324, 3, method="zcdp") > 0


def test_zcdp_sigma_at_the_smallest_epsilon_is_a_clear_refusal(X):
    # √ρ underflowed to 0: ZeroDivisionError from NSGGD
    with pytest.raises(ValueError, match="epsilon=.* is too small"):
        pp.NSGGD(2, epsilon=5e-324).fit(X)


@pytest.mark.parametrize("c", [1e-9, 1.0, 1e9])
def test_nsggd_is_scale_equivariant_with_data_norm(c, X):
    # data_norm = 1e-9 on X·1e-9 gave 1.34 from the truth (0.12 at scale 1): the step did not scale
    for eps in (np.inf, 0.5):
        ref = pp.NSGGD(2, epsilon=eps, random_state=3).fit(X)
        got = pp.NSGGD(2, epsilon=eps, data_norm=c, random_state=3).fit(X * c)
        assert subspace_distance(got.components_.T, ref.components_.T) < 1e-9
        assert got.noise_scale_ == pytest.approx(ref.noise_scale_ * c, rel=1e-12)


def test_private_local_pca_says_when_the_chain_keeps_too_few_directions(X):
    # one-row sites: the merged rank never grows past 1 (0.66–0.98 from pooled PCA), silently
    with pytest.warns(ChainRankWarning, match="kept only 1 of n_components=2 .* fewer than 2 rows"):
        est = pp.PrivateLocalPCA(2, epsilon=np.inf, n_sites=200).fit(X)
    assert est.effective_rank_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ChainRankWarning)
        assert pp.PrivateLocalPCA(2, epsilon=np.inf, n_sites=50).fit(X).effective_rank_ == 2


def test_composition_caps_delta_at_one():
    assert privacy.compose_basic(0.1, 0.5, 3) == pytest.approx((0.3, 1.0))
    eps, delta = privacy.compose_advanced(0.1, 0.999999, 10, 1e-6)
    assert delta == 1.0 and eps > 0
    assert privacy.compose_basic(0.1, 0.01, 3)[1] == pytest.approx(0.03)


def test_theorem_43_is_vacuous_not_nan_where_it_says_nothing():
    out = bounds.distributed.dps_pca_thm43(1e-6, 0.3, 10, 10**5, 1, 1000, 5, 10, 50, [100] * 5 + [10] * 995)
    assert not out["valid"] and out["vacuous"] and math.isnan(out["xi_priv"])
    np.testing.assert_array_equal(out["total"], np.full(10, math.sqrt(5)))
    ok = bounds.distributed.dps_pca_thm43(1.0, 0.3, 10, 10**5, 1, 1000, 5, 10, 50, [100] * 5 + [10] * 995)
    assert ok["valid"] and not ok["vacuous"] and np.all(ok["total"] < math.sqrt(5))


@pytest.mark.parametrize("args,match", [
    (["--out", "{file}/sub"], "a part of the path is a file"),
    (["--out", "/proc/x"], "cannot be used as the output folder"),
    (["--out", "/dev/null"], "exists and is not a folder"),
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--out", ""], "--out must be a folder path"),
])
def test_reproduce_cli_refuses_bad_paths_and_seeds_by_name(args, match, tmp_path, monkeypatch, capsys):
    from privpca_edu.reproduce.__main__ import main

    f = tmp_path / "a_file"
    f.write_text("")
    args = [a.replace("{file}", str(f)) for a in args]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:  # argparse's error: usage, message, status 2
        main(["dps-pca", "--scale", "quick", "--no-progress", "--no-figures", *args])
    assert exit_.value.code == 2
    assert match in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "reproduce-results")  # nothing ran
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        from privpca_edu.reproduce import run

        run("dps-pca", "quick", seed=-1, out=str(tmp_path / "o"))


def test_kendall_refuses_a_fit_of_hours_with_the_estimate_and_the_options(monkeypatch):
    # n = 10⁶, d = 50 ran for hours without a word; the refusal uses the public n and d only
    X = np.zeros((10**6, 50))
    with pytest.raises(ValueError, match=r"n = 1,000,000 and d = 50 .* about 75 min .* subsample .* "
                                         r"KENDALL_FIT_LIMIT_SECONDS"):
        pp.KendallDPPCA(2).fit(X)
    monkeypatch.setattr(kendall_module, "KENDALL_FIT_LIMIT_SECONDS", 1e-9)
    with pytest.raises(ValueError, match="subsample"):
        pp.KendallDPPCA(2).fit(np.eye(3))


def test_kendall_with_one_huge_row_and_subnormal_data():
    # one row ×1e200 gave 0.997 from the truth (its squared norm overflowed, the others underflowed)
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((120, 5)) * [3, 2, 1, 0.5, 0.5]
    Y = Z.copy()
    Y[0] *= 1e200
    # by the definition: the pairs with row 0 have the sign of x₀, the others are unchanged
    g0 = Y[0] / np.abs(Y[0]).max()
    g0 /= np.linalg.norm(g0)
    K_ref = kendall_tau_naive(Z[1:]) * (119 * 118) / (120 * 119) + 2 / 120 * np.outer(g0, g0)
    K = kendall_tau_matrix(Y)
    np.testing.assert_allclose(K, K_ref, atol=1e-12)
    est = pp.KendallDPPCA(2, epsilon=np.inf).fit(Y)
    assert subspace_distance(est.components_.T, top_eigenvectors(K_ref, 2)[1]) < 1e-8
    est = pp.KendallDPPCA(2, epsilon=np.inf).fit(Z * 1e-310)
    assert subspace_distance(est.components_.T, top_eigenvectors(kendall_tau_matrix(Z), 2)[1]) < 1e-6


def test_spatial_sign_is_exact_at_the_ends_of_the_float_range():
    G = spatial_sign(np.array([[1e-320, 0.0], [1e308, 1e308], [3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(G, [[1, 0], [math.sqrt(0.5), math.sqrt(0.5)], [0.6, 0.8], [0, 0]], rtol=1e-15)
    W = spatial_sign(np.array([[1e308, 1e308]]), "winsorized", 2.0)
    np.testing.assert_allclose(W, [[math.sqrt(2), math.sqrt(2)]], rtol=1e-15)


# ---------------------------------------------------------------------------------------------
# The free functions validate like the estimators
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,err,match", [
    (dict(family="contaminated", contamination=1.5), ValueError, r"contamination must be in \[0, 1\], got 1.5"),
    (dict(contamination=-0.1), ValueError, "contamination must be in"),
    (dict(contamination=float("nan")), ValueError, "contamination must be in"),
    (dict(contamination=None), TypeError, "contamination must be a real number"),
    (dict(family="gaussian", df=-1), ValueError, "df must be > 0"),
    (dict(df=float("nan")), ValueError, "df must be a number"),
    (dict(df="x"), TypeError, "df must be a real number"),
])
def test_elliptical_checks_every_argument_whatever_the_family(kwargs, err, match):
    with pytest.raises(err, match=match):
        datasets.elliptical(50, 4, **kwargs)


@pytest.mark.parametrize("call,err,match", [
    (lambda: privacy.analyze_gauss_sensitivity(10, data_norm=-1), ValueError, "data_norm must be > 0"),
    (lambda: privacy.private_local_sensitivity(data_norm=0), ValueError, "data_norm must be > 0"),
    (lambda: top_eigenvectors(np.full((3, 3), np.nan), 1), ValueError, "A must contain only finite values"),
    (lambda: top_eigenvectors(np.ones((3, 2)), 1), ValueError, "A must be a square"),
    (lambda: audit.clopper_pearson(11, 10, 0.05), ValueError, r"successes must be in \[0, 10\], got 11"),
    (lambda: audit.clopper_pearson(1, 10, 1.5), ValueError, "alpha must be in"),
    (lambda: audit.clopper_pearson(1, 0, 0.05), ValueError, "trials must be in"),
    (lambda: privacy.dps_pca_sigma(1.0, 1e-5, 0), ValueError, "n_iter must be in"),
    (lambda: bounds.robust.kendall_sph_rate([1.0, np.nan, 0.5], 1, 100, 1.0), ValueError, "eigenvalues must be finite"),
    (lambda: pp.NSGGD(2, step_size=1e308).fit(np.eye(3)), ValueError, r"step_size must be in \(0, 1e6\]"),
])
def test_free_functions_name_the_argument_and_the_range(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_dataframe_like_providers_are_providers():
    class Frame:  # what a pandas DataFrame offers: ndim, shape and __array__
        def __init__(self, a):
            self.a, self.shape, self.ndim = a, a.shape, 2

        def __array__(self, dtype=None, copy=None):
            return np.asarray(self.a, dtype=dtype)

        def __len__(self):
            return len(self.a)

    X = np.random.default_rng(1).standard_normal((40, 4)) / 3
    assert pp.DPSPCA(2, random_state=0).fit([Frame(X[:20]), Frame(X[20:])]).n_providers_ == 2
    assert pp.PrivateLocalPCA(2, random_state=0).fit([Frame(X[:20]), Frame(X[20:])]).n_sites_ == 2


# ---------------------------------------------------------------------------------------------
# Side channels
# ---------------------------------------------------------------------------------------------
PRIVATE = {
    "AnalyzeGauss": lambda: pp.AnalyzeGauss(2, epsilon=0.5, random_state=0),
    "ModSuLQ": lambda: pp.ModSuLQ(2, epsilon=0.5, random_state=0),
    "PPCA": lambda: pp.PPCA(1, epsilon=0.5, sampler="exact", random_state=0),
    "DPSPCA": lambda: pp.DPSPCA(2, epsilon=0.5, delta=0.01, random_state=0),
    "LocalGaussianPCA": lambda: pp.LocalGaussianPCA(2, epsilon=0.5, random_state=0),
    "KendallDPPCA": lambda: pp.KendallDPPCA(2, epsilon=0.5, random_state=0),
    "NSGGD": lambda: pp.NSGGD(2, epsilon=0.5, random_state=0),
    "PrivateLocalPCA": lambda: pp.PrivateLocalPCA(2, epsilon=0.5, random_state=0),
}


@pytest.mark.parametrize("name", sorted(PRIVATE))
def test_a_private_fit_says_nothing_that_tells_neighbours_apart(name, X):
    # the clipping warning appeared in 0/200 fits on D and 200/200 on D′ (one row over the bound)
    X_prime = X.copy()
    X_prime[0] *= 5.0 / np.linalg.norm(X[0])  # one row over the bound B = 1
    for data in (X, X_prime):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = PRIVATE[name]().fit(data)
        data_dependent = [w for w in caught if "scaled down" in str(w.message)]
        assert not data_dependent, name
        assert not hasattr(est, "objective_") and not hasattr(est, "n_clipped_")
    if name == "KendallDPPCA":  # no norm bound to clip to: its transform bounds every pair
        with privacy.diagnostics():
            est = PRIVATE[name]().fit(X_prime)
    else:
        with privacy.diagnostics(), pytest.warns(pp.PrivacyWarning, match="scaled down"):
            est = PRIVATE[name]().fit(X_prime)
    assert est.privacy_.is_private is False and "diagnostics" in est.privacy_.note


def test_nsggd_objective_only_without_privacy_or_with_diagnostics(X):
    # objective_ gave a target's residual norm exactly (error 1.4e-14) at ε = 0.5, is_private=True
    assert not hasattr(pp.NSGGD(2, epsilon=0.5, random_state=0).fit(X), "objective_")
    assert pp.NSGGD(2, epsilon=np.inf, random_state=0).fit(X).objective_.shape == (51,)
    with privacy.diagnostics():
        est = pp.NSGGD(2, epsilon=0.5, random_state=0).fit(X)
    assert est.objective_.shape == (51,) and not est.privacy_.is_private
    # the components do not depend on whether F was tracked
    plain = pp.NSGGD(2, epsilon=0.5, random_state=0).fit(X)
    np.testing.assert_array_equal(plain.components_, est.components_)


def test_diagnostics_switch_is_scoped_and_checked():
    assert not privacy.diagnostics_enabled()
    with privacy.diagnostics():
        assert privacy.diagnostics_enabled()
        with privacy.diagnostics(False):
            assert not privacy.diagnostics_enabled()
    assert not privacy.diagnostics_enabled()
    with pytest.raises(TypeError, match="enabled must be True or False"):
        with privacy.diagnostics("yes"):
            pass


def test_protocol_owners_neither_warn_nor_abort_on_their_data():
    pytest.importorskip("phe")
    from privpca_edu.protocol import run_dpdpca

    rng = np.random.default_rng(0)
    owners = [rng.standard_normal((4, 3)) / 3, rng.standard_normal((4, 3)) * 1e-12]
    owners[0][0] *= 10  # one row over the bound
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = run_dpdpca(owners, 1, 0.5, 1e-5, key_length=1024, random_state=0)  # 1e-12 rows: no abort
    assert not [w for w in caught if "scaled down" in str(w.message)]
    assert res.components_.shape == (1, 3)
    res = run_dpdpca(owners, 1, np.inf, 1e-5, key_length=1024, random_state=0)
    assert res.privacy_.note.startswith("epsilon=inf: no noise")


def test_nsggd_noise_scale_documents_the_sensitivity_it_uses():
    assert "sensitivity 2B/b" in privacy.nsggd_noise_scale.__doc__.splitlines()[0]
    assert "how many" not in pp.LocalGaussianPCA.__doc__.split("calibration :")[0].split("data_norm :")[1]


# ---------------------------------------------------------------------------------------------
# Mutants: the computed range where each breaks its claim, at every (ε, δ) the book uses
# ---------------------------------------------------------------------------------------------
BOOK_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 10.0)
BOOK_DELTAS = (1e-5, 1e-4, 1e-2, 0.3)


def _independent_breaks(mu, epsilon, delta):
    # Balle & Wang's exact δ of μ-GDP, written out here (not the package's function)
    from scipy.stats import norm

    exact = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)
    return bool(exact > delta * (1 + 1e-9))


@pytest.mark.parametrize("make,mu_of", [
    # classic σ = Δ_cal√(2 ln(1.25/δ))/ε halved; μ = Δ_true/σ
    (lambda e, d: mutants.HalfSigmaAnalyzeGauss(1, epsilon=e, delta=d),
     lambda e, d: 2 * e / math.sqrt(2 * math.log(1.25 / d))),
    (lambda e, d: mutants.HalfSigmaKendallDPPCA(2, epsilon=e, delta=d),  # Δ_cal = 4/n, Δ_true = 2√2/n
     lambda e, d: 2 * e * (2 * math.sqrt(2)) / (4 * math.sqrt(2 * math.log(1.25 / d)))),
    (lambda e, d: mutants.HalfSigmaAnalyzeGauss(1, epsilon=e, delta=d, calibration="analytic"),
     lambda e, d: 2 / privacy.gaussian_sigma(1.0, e, d, method="analytic")),
])
def test_mutant_labels_give_the_range_where_the_claim_breaks(make, mu_of):
    for d in BOOK_DELTAS:
        top = make(1.0, d).private_up_to()
        for e in BOOK_EPSILONS:
            m = make(e, d)
            expected = _independent_breaks(mu_of(e, d), e, d)
            assert m.breaks_claim() is expected, (type(m).__name__, e, d)
            assert expected is (e > top * (1 + 1e-6)), (type(m).__name__, e, d, top)
    # the settings the book runs them at break their claim, and the label says where
    assert mutants.HalfSigmaAnalyzeGauss(1, epsilon=1.0, delta=1e-5).breaks_claim()
    label = mutants.HalfSigmaKendallDPPCA(2, epsilon=0.5).label()
    assert "NOT PRIVATE for ε > 0.365 at δ = 1e-05" in label and "at ε = 0.5 it breaks its claim" in label
    assert mutants.HalfSigmaAnalyzeGauss(1, epsilon=0.1, delta=1e-3).breaks_claim() is False  # (0.1, 1e-3)-DP


def test_always_accept_ppca_breaks_its_claim_where_its_label_says():
    # spends at most 0.72 for d <= 10 on the worst-case pairs at ε = 1, but 1.13 > ε at d = 20, n = 20
    m = mutants.AlwaysAcceptPPCA(1, epsilon=1.0, sampler="exact")
    for d, n in ((5, 5), (10, 5), (10, 20)):
        assert m.privacy_loss(*audit.worst_case_pair(n, d)) < 0.75
    loss = m.privacy_loss(*audit.worst_case_pair(20, 20))
    assert loss == pytest.approx(1.132, abs=5e-3) and loss > 1.0  # a lower bound: the claim is broken


def test_ppca_beyond_float64_names_epsilon(X):
    # c·XᵀX overflowed: the sampler's internal "A must contain only finite values"
    for sampler, k in (("exact", 1), ("gibbs", 2)):
        with pytest.raises(ValueError, match=r"epsilon=1\.7e\+308 is too large for the Bingham sampler"):
            pp.PPCA(k, epsilon=1.7e308, sampler=sampler, random_state=0).fit(X)
    with pytest.raises(ValueError, match="delta"):
        bounds.robust.kendall_sph_rate([5.0, 4.0, 1.0], 1, 100, 1.0, delta=1.5)
