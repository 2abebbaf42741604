"""The twins of the interactive figures (privpca_edu.experiments) return the right data.

Every number a figure draws is checked against the package function that owns it (privpca_edu.privacy,
subspace.py, AnalyzeGauss) or against the theory it illustrates.  Statistical assertions state
their tolerance: an attack accuracy estimated from m test decisions has standard error at most
√(1/(4m)); with the default n_pairs = 200 the attacker is scored on m = 200 decisions, SE ≤ 0.0354.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import privpca_edu as pp
from privpca_edu import experiments, privacy, subspace
from privpca_edu.experiments import accounting, attack

SE = math.sqrt(1 / (4 * 200))  # standard error bound of one accuracy estimate (200 decisions)


# --------------------------------------------------------------------------------- chapter 1
def test_accuracy_bound_values():
    b = experiments.membership_accuracy_bound(1.0, 0.0, mu=1.0)
    assert b["dp"] == pytest.approx(math.e / (1 + math.e))
    assert b["gdp"] == pytest.approx(0.691462461274013)  # Φ(1/2)
    assert experiments.membership_accuracy_bound(np.inf, 1e-5, mu=np.inf) == {"dp": 1.0, "gdp": 1.0}
    assert experiments.membership_accuracy_bound(0.5, 1e-5)["gdp"] is None
    # the generic (ε, δ) bound dominates the Gaussian one for the mechanism's own μ
    for eps in (0.1, 1.0, 5.0):
        r = experiments.membership_attack(eps, 20, n_pairs=40)
        assert r["bound"]["gdp"] <= r["bound"]["dp"] + 1e-12


def test_nonprivate_release_leaks_alice():
    r = experiments.membership_attack(np.inf, 20)
    assert r["noise_scale"] == 0.0
    assert r["cosine"] > 0.99 and r["cosine_nonprivate"] > 0.99  # reconstruction
    assert r["accuracy"]["matrix"] == 1.0  # deterministic shift (‖a‖⁴ − (aᵀb)²)/n > 0
    assert r["accuracy"]["components"] >= 0.95
    assert r["utility"] < 1e-8  # no noise: the same components
    # the twin's "non-private component" is what the package's PCA releases
    X = r["data_in"]
    np.testing.assert_allclose(np.linalg.norm(X[-1]), 1.0)
    np.testing.assert_allclose(X[-1], r["alice"])
    top = pp.PCA(n_components=1, center=False).fit(X).components_[0]  # the twin releases XᵀX
    assert abs(top @ r["nonprivate_component"]) == pytest.approx(1.0, abs=1e-10)


def test_matrix_attack_does_not_weaken_with_n_without_noise():
    for n in (1000, 100_000):
        r = experiments.membership_attack(np.inf, n, n_pairs=60)
        assert r["accuracy"]["matrix"] == 1.0
        assert r["cosine"] < 0.5  # Alice no longer owns the top component


def test_statistics_are_analyze_gauss_statistics():
    n, d, P, seed = 30, 6, 8, 3
    pop = attack._population(n, d, P, seed)
    mech = pp.AnalyzeGauss(n_components=1, epsilon=np.inf, delta=1e-5)
    X_in = np.asarray(pop["X_in"])
    np.testing.assert_allclose(pop["statistics"][0], mech.release_parts(X_in).statistic, atol=1e-15)
    for t in (0, P - 1):  # the replace-one identity used for the "out" statistics
        X_out = X_in.copy()
        X_out[-1] = pop["replacements"][t]
        np.testing.assert_allclose(pop["statistics"][P + t], mech.release_parts(X_out).statistic, atol=1e-15)
    assert pop["sensitivity"] == pytest.approx(math.sqrt(2) / n)


@pytest.mark.parametrize("epsilon", [0.3, 2.0, 30.0])
def test_release_is_analyze_gauss(epsilon):
    """The released component and σ are exactly AnalyzeGauss's on the "in" data, same seed."""
    seed, n, d, k = 4, 25, 7, 2
    r = experiments.membership_attack(epsilon, n, n_features=d, n_components=k, random_state=seed, n_pairs=20)
    est = pp.AnalyzeGauss(n_components=k, epsilon=epsilon, delta=1e-5, calibration="analytic",
                          random_state=seed + 1).fit(np.asarray(r["data_in"]))
    assert r["noise_scale"] == pytest.approx(est.noise_scale_, rel=1e-12)
    assert r["sensitivity"] == pytest.approx(est.sensitivity_, rel=1e-12)
    assert r["mu"] == pytest.approx(est.sensitivity_ / est.noise_scale_)
    assert abs(r["released_component"] @ est.components_[0]) == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(r["curve"]["noise_scale"][6],
                               privacy.gaussian_sigma(est.sensitivity_, attack.EPSILON_GRID[6], 1e-5, "analytic"))


def test_attack_drops_to_chance_at_small_epsilon_over_seeds():
    # μ = Δ/σ at ε = 0.02 is ~0.005: the best possible accuracy Φ(μ/2) is 0.501.  The mean of
    # 5 independent estimates has SE ≤ 0.0354/√5 = 0.016; allow 4 SE either side.
    accs = [experiments.membership_attack(0.02, 20, random_state=s) for s in range(5)]
    bound = accs[0]["bound"]["gdp"]
    assert bound < 0.502
    for kind in ("matrix", "components"):
        mean = np.mean([a["accuracy"][kind] for a in accs])
        assert 0.5 - 4 * SE / math.sqrt(5) <= mean <= bound + 4 * SE / math.sqrt(5), (kind, mean)


def test_attack_never_beats_the_bound_on_the_curve():
    # each point is one estimate with SE ≤ 0.0354; one-sided 4 SE margin
    for seed in (0, 1):
        curve = experiments.membership_attack(1.0, 50, random_state=seed)["curve"]
        assert np.all(curve["accuracy_matrix"] <= curve["bound_gdp"] + 4 * SE)
        for eps in curve["epsilon"][::3]:  # the components attack is computed at the chosen ε
            r = experiments.membership_attack(float(eps), 50, random_state=seed)
            assert r["accuracy"]["components"] <= r["bound"]["gdp"] + 4 * SE, eps
        assert np.all(curve["bound_gdp"] <= curve["bound_dp"] + 1e-12)
        assert np.all(np.diff(curve["bound_gdp"]) >= -1e-12)  # more budget, weaker bound
    # and the attack does succeed once the bound allows it (ε = 100: Φ(μ/2) ≈ 1)
    assert curve["accuracy_matrix"][-1] > 0.9


def test_utility_improves_with_n_and_epsilon():
    small = experiments.membership_attack(1.0, 20)
    large = experiments.membership_attack(1.0, 20_000)
    assert small["utility"] > 0.8 * small["random_level"]  # n = 20 cannot afford private PCA
    assert large["utility"] < 0.1
    assert small["random_level"] == pytest.approx(subspace.random_subspace_distance(10, 1))
    # privacy guarantee (the bound) is the same for both n
    assert small["bound"]["gdp"] == pytest.approx(large["bound"]["gdp"])
    u = large["curve"]["utility"]
    assert u[0] > u[-1] and u[-1] < 0.01


def test_attack_cache_is_hit_for_slider_moves():
    attack.clear_caches()
    experiments.membership_attack(1.0, 20, n_pairs=30)
    before = attack.cache_info()
    experiments.membership_attack(3.0, 20, n_pairs=30)  # only ε moved
    after = attack.cache_info()
    assert after["curve"].misses == before["curve"].misses
    assert after["curve"].hits == before["curve"].hits + 1
    assert after["population"].misses == before["population"].misses


def test_attack_results_are_deterministic_and_readonly():
    a = experiments.membership_attack(0.7, 20, n_pairs=30, random_state=2)
    b = experiments.membership_attack(0.7, 20, n_pairs=30, random_state=2)
    assert a["accuracy"] == b["accuracy"] and a["utility"] == b["utility"]
    with pytest.raises(ValueError):
        a["curve"]["accuracy_matrix"][0] = 1.0  # cached arrays cannot be corrupted by a caller
    a["alice"][0] = 99.0  # returned copies may be modified freely
    assert experiments.membership_attack(0.7, 20, n_pairs=30, random_state=2)["alice"][0] != 99.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=1.0, n_samples=20, n_features=3, n_components=5), "n_components"),
        (dict(epsilon=0.0, n_samples=20), "epsilon"),
        (dict(epsilon=1.0, n_samples=1), "n_samples"),
        (dict(epsilon=1.0, n_samples=20, delta=1.0), "delta"),
        (dict(epsilon=1.0, n_samples=20, n_features=1), "n_features"),
    ],
)
def test_attack_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        experiments.membership_attack(**kwargs)


# --------------------------------------------------------------------------------- chapter 2
def test_sigma_curves_match_privacy_module():
    r = experiments.sigma_curves(0.7, 1e-5, 7, math.sqrt(2))
    for m in privacy.ITERATIVE_CALIBRATIONS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pp.PrivacyWarning)
            expected_at = privacy.iterative_gaussian_sigma(math.sqrt(2), 0.7, 1e-5, 7, method=m)
            expected_grid = [privacy.iterative_gaussian_sigma(math.sqrt(2), e, 1e-5, 7, method=m)
                             for e in r["epsilons"][::8]]
        assert r["sigma_at"][m] == pytest.approx(expected_at, rel=1e-12)
        np.testing.assert_allclose(r["sigma"][m][::8], expected_grid, rtol=1e-12)


def test_sigma_curves_reproduce_the_sigma_table():
    table = experiments.DPS_PCA_SIGMA_TABLE
    for eps, delta, *values in table["rows"]:
        r = experiments.sigma_curves(eps, delta, 10, 2.0)
        for m, v in zip(table["methods"], values):
            assert r["sigma_at"][m] == pytest.approx(v, abs=0.01), (eps, delta, m)
            assert r["reference_at"][m] == v
        assert {row["method"] for row in r["reference"]} == set(table["methods"])
    # away from the table's setting there are no reference marks
    assert experiments.sigma_curves(1.0, 1e-5, 10, 2.0)["reference"] == []
    assert experiments.sigma_curves(1.0, 0.3, 9, 2.0)["reference"] == []
    assert experiments.sigma_curves(1.1, 0.3, 10, 2.0)["reference_at"] == {}


def test_sigma_validity_follows_the_package_warning():
    # classic proofs need a per-step ε/T < 1: exactly where privpca_edu.privacy warns
    T = 5
    r = experiments.sigma_curves(1.0, 1e-5, T, 1.0)
    eps = r["epsilons"]
    for m in ("paper", "classic"):
        np.testing.assert_array_equal(r["valid"][m], eps / T < 1)
    for m in ("analytic_basic", "advanced", "zcdp", "analytic_exact"):
        assert r["valid"][m].all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may escape to stderr
        high = experiments.sigma_curves(20.0, 1e-5, T, 1.0)
    assert not high["valid_at"]["paper"] and "paper" in high["warnings_at"]
    assert any("does not hold" in n for n in high["notes"])
    assert high["proof_limit"] == T


def test_single_step_is_classic_and_analytic_gaussian_mechanism():
    r = experiments.sigma_curves(0.5, 1e-5, 1, 1.0)
    assert r["sigma_at"]["classic"] == pytest.approx(9.6896, abs=1e-4)  # Dwork & Roth, Thm A.1
    assert r["sigma_at"]["analytic_exact"] == pytest.approx(7.0318, abs=1e-4)  # Balle & Wang (2018)
    assert r["sigma_at"]["analytic_basic"] == pytest.approx(r["sigma_at"]["analytic_exact"])


def test_sigma_curves_cache_and_validation():
    accounting.clear_caches()
    experiments.sigma_curves(1.0, 1e-5, 10, 2.0)
    experiments.sigma_curves(2.0, 1e-5, 10, 2.0)
    info = accounting.cache_info()["curves"]
    assert info.misses == 1 and info.hits == 1
    with pytest.raises(ValueError, match="delta"):
        experiments.sigma_curves(1.0, 1.0, 10, 2.0)
    with pytest.raises(ValueError, match="methods"):
        experiments.sigma_curves(1.0, 0.1, 10, 2.0, methods=["nope"])
    with pytest.raises(ValueError, match="n_steps"):
        experiments.sigma_curves(1.0, 0.1, 0, 2.0)


@pytest.mark.parametrize("B", [0.5, 1.0, 2.0])
def test_sensitivity_example(B):
    ex = experiments.sensitivity_example(B)
    assert ex["replace_one"] == pytest.approx(math.sqrt(2) * B**2)
    assert ex["add_remove"] == pytest.approx(B**2)
    assert ex["analyze_gauss"] == pytest.approx(ex["replace_one"])  # the worst case is attained
    assert ex["upper_triangle"] <= ex["replace_one"] + 1e-12


# --------------------------------------------------------------------------------- chapter 3
angles_deg = st.floats(min_value=-90, max_value=90, allow_nan=False)


@given(angles_deg, angles_deg, st.sampled_from([1, 2]))
def test_plane_distance_identities(tilt_x, tilt_y, k):
    r = experiments.plane_distances(tilt_x, tilt_y, k)
    D = r["distances"]
    assert D["sin_theta"] == pytest.approx(r["projection_frobenius"] / math.sqrt(2), abs=1e-12)
    assert D["sin_theta"] == pytest.approx(r["sqrt_sum_sin2"], abs=1e-7)
    assert D["projection"] == pytest.approx(math.sqrt(2) * D["sin_theta"], abs=1e-12)
    assert D["max_angle"] == pytest.approx(math.sin(math.radians(r["angles_deg"][-1])), abs=1e-7)
    assert 0 <= D["sin_theta"] <= r["max_possible"] + 1e-12
    np.testing.assert_allclose(r["V"].T @ r["V"], np.eye(k), atol=1e-12)
    if k == 2:
        # planes in R³ share a line; the other angle is the angle between the normals
        assert r["angles_deg"][0] == pytest.approx(0.0, abs=1e-6)
        dihedral = math.degrees(math.acos(min(1.0, abs(math.cos(math.radians(tilt_x)) * math.cos(math.radians(tilt_y))))))
        assert r["angles_deg"][1] == pytest.approx(dihedral, abs=1e-5)
        assert D["max_angle"] == pytest.approx(D["sin_theta"], abs=1e-7)


def test_plane_distances_special_cases():
    assert experiments.plane_distances(0.0, 0.0)["distances"]["sin_theta"] == 0.0
    assert experiments.plane_distances(0.0, 0.0)["shared_line"] is None  # identical planes
    r = experiments.plane_distances(90.0, 0.0)
    assert r["distances"]["sin_theta"] == pytest.approx(1.0)
    np.testing.assert_allclose(np.abs(r["shared_line"]), [1.0, 0.0, 0.0], atol=1e-12)
    assert r["random_level"]["sin_theta"] == pytest.approx(subspace.random_subspace_distance(3, 2))
    with pytest.raises(ValueError, match="n_components"):
        experiments.plane_distances(10, 10, 3)
    with pytest.raises(ValueError, match="tilt_x"):
        experiments.plane_distances(float("nan"), 0.0)


@given(st.floats(0, 90), st.floats(0, 90), st.sampled_from([4, 5, 50]))
def test_angle_distances_recover_angles(t1, t2, d):
    r = experiments.angle_distances(t1, t2, d)
    np.testing.assert_allclose(r["angles_deg"], sorted([t1, t2]), atol=1e-5)
    s1, s2 = math.sin(math.radians(t1)), math.sin(math.radians(t2))
    assert r["distances"]["sin_theta"] == pytest.approx(math.hypot(s1, s2), abs=1e-9)
    assert r["distances"]["max_angle"] == pytest.approx(max(s1, s2), abs=1e-7)
    assert r["distances"]["projection"] == pytest.approx(math.sqrt(2) * math.hypot(s1, s2), abs=1e-9)
    assert r["random_level"]["sin_theta"] == pytest.approx(math.sqrt(2 * (d - 2) / d))


def test_angle_distances_validation():
    with pytest.raises(ValueError, match="n_features"):
        experiments.angle_distances(10, 20, 3)
    with pytest.raises(TypeError, match="theta1"):
        experiments.angle_distances("ten", 20, 4)
