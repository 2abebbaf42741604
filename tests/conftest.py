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
#: ``@pytest.mark.slow`` themselves.  Times: the README's "Tests" section.  Entries are file names,
#: wherever the file sits under tests/ (tests/test_layout.py checks that names are unique and
#: that every entry here names an existing file).
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

#: Single slow tests in otherwise quick modules (node-id prefixes; parametrized cases included):
#: long Monte-Carlo audits, long Gibbs chains, slider walks of the live figures, subprocess runs
#: of benchmarks, pip/repo2docker/Sphinx builds.  Each took ≥ 10 s on the loaded 2-core machine.
SLOW_TESTS = (
    "test_binder_config.py::",
    "test_book_launch.py::",
    "test_local.py::test_recipe_C_",
    "test_local.py::test_per_user_and_aggregated_paths_agree_in_distribution",
    "test_baselines.py::test_init_pitfall_",
    "test_ppca.py::test_gibbs_k1_long_chain_matches_the_moments",
    "test_bingham_gibbs.py::test_one_sweep_kernel_matches_the_original_implementation",
    "test_widgets.py::test_long_walks_compose_backgrounds_that_equal_a_full_render",
    "test_widgets.py::test_random_slider_walks_blit_what_a_full_render_draws",
    "test_chapter_experiments.py::test_benchmark_script_runs",
    "test_protocol.py::test_aggregation_order_and_process_pool_give_identical_results",
    "test_coursekit.py::test_every_solution_passes_and_answers_twice_the_tolerance_off_fail",
    "test_bounds.py::test_spectral_norm_matches_monte_carlo",
    "test_robust_experiments.py::test_bench_robust_quick_runs",
    "test_robust_experiments.py::test_dashboards_update_fast_and_quietly",
    "test_audit.py::test_recipe_E_gibbs_sampler_in_2d",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        node = f"{item.path.name}::{item.name}"
        if item.path.name in SLOW_MODULES or node.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def check_sklearn_contract():
    return _check_sklearn_contract
