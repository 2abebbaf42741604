"""The Europe map: real-data loader (checksums, cache, download, offline), the simulation, the
Procrustes scores of Kim & Jung's Europe map (their §4.3) and the chapter's twin and dashboard.

The real files of Novembre et al. (2008) have no licence and are never copied into this
repository: the tests read the shared copy at ``../shared/data/novembre2008`` (relative to the
repository root; for a git worktree at ``…/wt/<name>``, ``../../shared/data/novembre2008``) and
skip, saying why, when it is absent.  No test touches the network: the
download function is replaced by one that copies from the shared folder.
"""

import functools
import hashlib
import json
import math
import re
import shutil
import time
import urllib.error
import warnings
from pathlib import Path

import numpy as np
import pytest

from privpca_edu.datasets import _europe as E
from privpca_edu.datasets._europe import EUROPE_POPULATIONS, NOVEMBRE_FILES, ChecksumError, europe
from privpca_edu.experiments import europe as X_
from privpca_edu.experiments.europe import (
    METHODS,
    NOVEMBRE_NONPRIVATE_VALUES,
    NOVEMBRE_SIMILARITY_TABLE,
    available_methods,
    europe_map,
    procrustes,
    procrustes_similarity,
    similarity_table,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
# the shared copy sits next to the repository (…/shared/data) or, for a git worktree under
# …/wt/<name>, one level further up; the first folder that exists is used
REAL_DIR = next((root / "shared" / "data" / "novembre2008" for root in REPO_ROOT.parents[:2]
                 if (root / "shared" / "data" / "novembre2008").is_dir()),
                REPO_ROOT.parent / "shared" / "data" / "novembre2008")
needs_real = pytest.mark.skipif(
    not all((REAL_DIR / name).is_file() for name in NOVEMBRE_FILES),
    reason=f"the Novembre et al. (2008) files are not at {REAL_DIR} (they are not redistributable, so they are "
           "not in this repository; put a copy there to run the real-data tests)",
)
needs_robust = pytest.mark.skipif(
    "Kendall (spherical)" not in available_methods(),
    reason="privpca_edu.estimators.robust (KendallDPPCA, NonPrivateAnalyzeGaussReplication) is not importable",
)


def _rot(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """A fresh cache directory and no PRIVPCA_EDU_DATA from the environment."""
    monkeypatch.delenv(E.ENV_VAR, raising=False)
    return tmp_path / "cache"


@pytest.fixture
def copy_download(monkeypatch):
    """Replace the network download by a copy from the shared folder; record the URLs asked for."""
    calls = []

    def fake(url, destination):
        assert url.startswith(E.NOVEMBRE_BASE_URL)
        calls.append(url)
        shutil.copyfile(REAL_DIR / url[len(E.NOVEMBRE_BASE_URL):], destination)

    monkeypatch.setattr(E, "_download", fake)
    return calls


# =============================================================================================
# Procrustes
# =============================================================================================
def test_procrustes_recovers_a_known_similarity_transform():
    rng = np.random.default_rng(0)
    T = rng.normal(size=(200, 2))
    mirror = np.diag([1.0, -1.0])
    S = 2.5 * T @ _rot(1.1) @ mirror + np.array([3.0, -7.0])  # turned, mirrored, stretched, moved
    fit = procrustes(S, T)
    np.testing.assert_allclose(fit["aligned"], T, atol=1e-12)
    assert fit["scale"] == pytest.approx(1 / 2.5, rel=1e-12)
    assert fit["similarity"] == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(fit["rotation"] @ fit["rotation"].T, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(fit["scale"] * S @ fit["rotation"] + fit["translation"], T, atol=1e-12)
    rigid = procrustes(S, T, scale=False)
    assert rigid["scale"] == 1.0
    # a rigid fit keeps the source's spread
    assert np.linalg.norm(rigid["aligned"] - rigid["aligned"].mean(0)) == pytest.approx(
        np.linalg.norm(S - S.mean(0)), rel=1e-12)


def test_procrustes_similarity_definition_and_invariances():
    rng = np.random.default_rng(1)
    S, T = rng.normal(size=(300, 2)), rng.normal(size=(300, 2))
    T = 0.8 * S + 0.6 * T  # correlated
    Sc, Tc = S - S.mean(0), T - T.mean(0)
    direct = np.linalg.svd(Sc.T @ Tc, compute_uv=False).sum() / (np.linalg.norm(Sc) * np.linalg.norm(Tc))
    t0 = procrustes_similarity(S, T)
    assert t0 == pytest.approx(direct, rel=1e-12)
    assert 0.0 < t0 < 1.0
    assert procrustes_similarity(T, S) == pytest.approx(t0, rel=1e-12)  # symmetric
    moved = -3.0 * S @ _rot(0.4) @ np.diag([1, -1]) + 11.0
    assert procrustes_similarity(moved, T) == pytest.approx(t0, rel=1e-12)  # invariant
    assert procrustes(S, T)["similarity"] == pytest.approx(t0, rel=1e-12)
    # independent clouds: t₀ is the mean singular value of a 2×2 correlation of n = 300 points, ~ 1/√n
    assert procrustes_similarity(rng.normal(size=(300, 2)), rng.normal(size=(300, 2))) < 0.2


def test_procrustes_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        procrustes(np.zeros((5, 2)), np.zeros((6, 2)))
    with pytest.raises(ValueError, match="finite"):
        procrustes(np.full((5, 2), np.nan), np.zeros((5, 2)))
    with pytest.raises(ValueError, match="2-D"):
        procrustes_similarity(np.zeros(5), np.zeros((5, 2)))
    assert procrustes_similarity(np.ones((4, 2)), np.arange(8.0).reshape(4, 2)) == 0.0  # a single point


# =============================================================================================
# The simulation
# =============================================================================================
def test_synthetic_shapes_labels_coordinates():
    data = europe()
    n = sum(p.size for p in EUROPE_POPULATIONS)
    assert n == 1387 and len(EUROPE_POPULATIONS) == 37
    assert data.X.shape == (1387, 20) and data.source == "simulated"
    assert data.labels.shape == (1387,) and data.coords.shape == (1387, 2) and data.codes.shape == (1387,)
    assert len(set(data.labels.tolist())) == 37 and len(data.populations) == 37
    assert len({p.code for p in EUROPE_POPULATIONS}) == 37  # display codes are unique
    for p in EUROPE_POPULATIONS:
        rows = data.labels == p.label
        assert rows.sum() == p.size
        np.testing.assert_array_equal(data.coords[rows], [[p.latitude, p.longitude]] * p.size)
        assert set(data.codes[rows]) == {p.code}
    # components: the top-2 principal axes of X, orthonormal, and the scores use them
    V = data.components
    assert V.shape == (2, 20)  # (k, d): one axis per row, like components_
    np.testing.assert_allclose(V @ V.T, np.eye(2), atol=1e-12)
    Xc = data.X - data.X.mean(0)
    w, U = np.linalg.eigh(Xc.T @ Xc)
    assert min(np.linalg.svd(U[:, -2:].T @ V.T, compute_uv=False)) > 1 - 1e-10
    np.testing.assert_allclose(data.nonprivate_pcs, data.X @ V.T)
    # the construction X = V_ev diag(ℓ) Q: eigenvalues of XᵀX are ℓ², rows bounded by ℓ₁
    np.testing.assert_allclose(np.linalg.eigvalsh(data.X.T @ data.X)[::-1], data.smartpca_eigenvalues**2, rtol=1e-9)
    assert np.abs(data.X.mean(0)).max() < 1e-12
    assert np.linalg.norm(data.X, axis=1).max() <= data.row_norm_bound
    assert data.row_norm_bound == data.smartpca_eigenvalues[0]
    # smartpca's normalisation: ℓ are GRM eigenvalues scaled to sum n − 1 over all components
    assert 1 < data.smartpca_eigenvalues[-1] < data.smartpca_eigenvalues[1] < data.smartpca_eigenvalues[0] < 1386
    assert all(c.startswith("#") and len(c) == 7 for c in set(data.colors))
    assert "simulated" in repr(data)


def test_synthetic_is_deterministic_and_random_state_only_rotates():
    a, b, c = europe(), europe(random_state=0), europe(random_state=1)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.allclose(a.X, c.X)
    # the same people in a different orthonormal frame: Gram matrices agree
    np.testing.assert_allclose(a.X @ a.X.T, c.X @ c.X.T, atol=1e-12)
    # the returned arrays are the caller's own: editing them does not change the next call
    a.X[:] = 0.0
    a.labels[0] = "Atlantis"
    fresh = europe()
    np.testing.assert_array_equal(fresh.X, b.X)
    assert fresh.labels[0] == b.labels[0]


def test_synthetic_plain_pca_draws_a_map():
    # Requirement: Procrustes correlation of (PC1, PC2) with (lat, long) above ~0.8.
    # With the defaults it is 0.90 (0.88-0.90 over simulation seeds 2000-2007: the sample is
    # fixed, so this is deterministic); the real data give 0.737.  The bound 0.8 is above the
    # real data's value (the simulation must draw a map at least as clearly), leaves a margin of
    # more than 10 seed-to-seed standard deviations (sd ≈ 0.008) for platform-dependent rounding,
    # and still fails if the geography is lost (without isolation by distance, amplitude=0, t₀
    # is 0.02: checked below).
    data = europe()
    t0 = procrustes_similarity(data.nonprivate_pcs, data.coords)
    assert t0 > 0.8
    # and the two leading eigenvalues stand out of a flat bulk, as in the real data
    ell2 = data.smartpca_eigenvalues**2
    assert ell2[0] / ell2[-1] > 3 and ell2[1] / ell2[-1] > 2 and ell2[2] / ell2[-1] < 1.5
    flat = europe(amplitude=0.0, n_loci=400)
    assert procrustes_similarity(flat.nonprivate_pcs, flat.coords) < 0.3


def test_synthetic_generation_is_fast():
    from privpca_edu._validation import single_threaded_blas

    E._simulate.cache_clear()
    with single_threaded_blas():
        t = time.process_time()  # CPU time: robust to a busy shared machine
        europe()
        elapsed = time.process_time() - t
    assert elapsed < 2.0, f"simulation took {elapsed:.2f} s of CPU"
    t = time.perf_counter()
    europe(random_state=3)  # cached: only the rotation
    assert time.perf_counter() - t < 0.1


def test_europe_bad_input(empty_cache):
    with pytest.raises(ValueError, match="source must be one of 'synthetic', 'novembre'"):
        europe("popres")
    with pytest.raises(ValueError, match="unknown simulation argument"):
        europe(n_people=10)
    with pytest.raises(ValueError, match="only to source='synthetic'"):
        europe("novembre", n_loci=10, cache_dir=empty_cache)
    with pytest.raises(ValueError, match="only to source='novembre'"):
        europe(cache_dir=empty_cache)
    with pytest.raises(ValueError, match="n_loci must be in"):
        europe(n_loci=3)
    with pytest.raises(ValueError, match="length_scale_km must be > 0"):
        europe(length_scale_km=0.0)


# =============================================================================================
# The real files: location, checksums, download, offline
# =============================================================================================
def test_missing_files_offline_give_clear_errors(empty_cache, tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="download=False"):
        europe("novembre", cache_dir=empty_cache, download=False)
    with pytest.raises(FileNotFoundError, match="data_dir must hold the files"):
        europe("novembre", data_dir=tmp_path)
    assert not E.novembre_available(cache_dir=empty_cache)

    def offline(url, destination):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(E, "_download", offline)
    with pytest.raises(ConnectionError, match="offline.*source='synthetic' works offline"):
        europe("novembre", cache_dir=empty_cache)
    folder = empty_cache / "novembre2008"
    assert [p.name for p in folder.iterdir()] == []  # no partial file left behind


@needs_real
def test_pinned_checksums_match_the_shared_copy():
    for name, expected in NOVEMBRE_FILES.items():
        assert hashlib.sha256((REAL_DIR / name).read_bytes()).hexdigest() == expected, name


@needs_real
def test_download_into_the_cache_then_reuse(empty_cache, copy_download, monkeypatch):
    data = europe("novembre", cache_dir=empty_cache)
    assert sorted(u.rsplit("/", 1)[1] for u in copy_download) == sorted(NOVEMBRE_FILES)
    folder = empty_cache / "novembre2008"
    assert sorted(p.name for p in folder.iterdir()) == sorted(NOVEMBRE_FILES)  # no temporary files
    assert E.novembre_available(cache_dir=empty_cache)
    assert data.X.shape == (1387, 20)
    # second call: read from the cache, no download; PRIVPCA_EDU_DATA selects the same cache
    monkeypatch.setenv(E.ENV_VAR, str(empty_cache))
    again = europe("novembre", download=False)
    assert len(copy_download) == len(NOVEMBRE_FILES)
    np.testing.assert_array_equal(again.X, data.X)
    assert E.europe_data_dir() == folder


@needs_real
def test_a_download_with_the_wrong_checksum_is_not_kept(empty_cache, monkeypatch):
    def tampered(url, destination):
        Path(destination).write_bytes((REAL_DIR / url.rsplit("/", 1)[1]).read_bytes() + b"\n")

    monkeypatch.setattr(E, "_download", tampered)
    with pytest.raises(ChecksumError, match="expected .* it was not saved"):
        europe("novembre", cache_dir=empty_cache)
    assert list((empty_cache / "novembre2008").iterdir()) == []


@needs_real
def test_a_corrupted_copy_is_refused(tmp_path):
    for name in NOVEMBRE_FILES:
        shutil.copyfile(REAL_DIR / name, tmp_path / name)
    europe("novembre", data_dir=tmp_path)  # the intact copy is accepted
    path = tmp_path / E._EIGS
    raw = bytearray(path.read_bytes())
    i = raw.index(b"0.0111")
    raw[i:i + 6] = b"0.0112"  # one digit of one person's PC1
    path.write_bytes(bytes(raw))
    with pytest.raises(ChecksumError, match=r"PCA\.eigs has SHA-256 .* corrupted"):
        europe("novembre", data_dir=tmp_path)


@needs_real
def test_real_data_construction():
    data = europe("novembre", data_dir=REAL_DIR)
    assert data.X.shape == (1387, 20) and data.source == "Novembre et al. 2008"
    assert len(set(data.labels.tolist())) == 37 and data.coords.shape == (1387, 2)
    assert {p.label for p in data.populations} == {p.label for p in EUROPE_POPULATIONS}
    for p in EUROPE_POPULATIONS:  # the committed table is the design of the real sample
        rows = data.labels == p.label
        assert rows.sum() == p.size, p.label
        np.testing.assert_allclose(data.coords[rows], [[p.latitude, p.longitude]] * p.size, atol=0.006)
    # column means ~1e-6 (4-decimal rounding), eigenvalues of XᵀX = ℓ² to 1e-3
    assert np.abs(data.X.mean(0)).max() < 1e-5
    ell = data.smartpca_eigenvalues
    np.testing.assert_allclose(ell[:3], [4.092735, 2.040098, 1.536794])
    np.testing.assert_allclose(np.linalg.eigvalsh(data.X.T @ data.X)[::-1], ell**2, rtol=1e-3)
    assert np.linalg.norm(data.X, axis=1).max() <= data.row_norm_bound == ell[0]
    assert len(data.info["popres_colors"]) == 1387


@needs_real
@needs_robust
def test_reference_values_on_the_real_data():
    from privpca_edu.estimators.robust import KendallDPPCA

    data = europe("novembre", data_dir=REAL_DIR)
    ref = NOVEMBRE_NONPRIVATE_VALUES
    est = KendallDPPCA(2, epsilon=np.inf).fit(data.X)
    scores = X_.similarity_scores(est.components_, data.X, data.components, data.coords)
    assert scores["sin_theta"] == pytest.approx(ref["sin_theta_kendall_vs_pca"], abs=5e-4)
    assert scores["t0_nonprivate"] == pytest.approx(ref["t0_kendall_vs_pca"], abs=5e-4)
    assert scores["t0_geography"] == pytest.approx(ref["t0_kendall_vs_geography"], abs=5e-4)
    assert procrustes_similarity(data.nonprivate_pcs, data.coords) == pytest.approx(ref["t0_pca_vs_geography"],
                                                                                     abs=5e-4)
    K = est.release_parts(data.X).statistic
    np.testing.assert_allclose(np.linalg.eigvalsh(K)[::-1][:5], ref["kendall_top_eigenvalues"], atol=5e-5)
    with pytest.warns(UserWarning, match="epsilon < 1"):
        sigma = KendallDPPCA(2, epsilon=1.0, delta=1e-5).fit(data.X).noise_scale_
    assert sigma == pytest.approx(ref["sigma_sph_eps1"], abs=5e-6)


@needs_real
@needs_robust
def test_similarity_scores_reproduce_the_reference_table(monkeypatch):
    """The reference table on the real data: sph-DPPCA and the paper's AG, δ = 1e-5.

    The reference numbers are means of only 20 releases, so they carry Monte Carlo error: the
    per-release standard deviation sd of t₀ reaches 0.16 (sd/√20 = 0.036).  We average 400
    releases (our own error sd/√400) and accept |ours − ref| ≤ 3·sd/√20 + 3·sd/√400 + 0.005
    (the last term: the table rounds to 2 decimals) — a 3-standard-error test of "the same
    expected value".  Measured differences are at most 2.0 reference standard errors (z = |ours − ref|/(sd/√20)).
    """
    monkeypatch.setenv(E.ENV_VAR, str(REAL_DIR.parent))
    n_draws = 400
    table = similarity_table(("Kendall (spherical)", "Analyze Gauss (paper, not private)"),
                             epsilons=sorted(NOVEMBRE_SIMILARITY_TABLE), n_draws=n_draws, source="novembre", seed=0)
    assert table["source"] == "Novembre et al. 2008"
    columns = [("Kendall (spherical)", "t0_nonprivate", 0), ("Analyze Gauss (paper, not private)", "t0_nonprivate", 1),
               ("Kendall (spherical)", "sin_theta", 2), ("Analyze Gauss (paper, not private)", "sin_theta", 3)]
    for i, eps in enumerate(sorted(NOVEMBRE_SIMILARITY_TABLE)):
        for method, key, col in columns:
            ours, sd = table[method][key][i], table[method][key + "_sd"][i]
            ref = NOVEMBRE_SIMILARITY_TABLE[eps][col]
            tol = 3 * sd / math.sqrt(20) + 3 * sd / math.sqrt(n_draws) + 0.005
            assert abs(ours - ref) <= tol, (method, key, eps, ours, ref, tol)
    # the paper's reading: g-DPPCA's map resembles the non-private one much more than AG's
    k, a = table["Kendall (spherical)"]["t0_nonprivate"], table["Analyze Gauss (paper, not private)"]["t0_nonprivate"]
    assert np.all(k > a) and k[2] > 0.85  # > 0.85 at ε = 1


# =============================================================================================
# The twin, the table and the dashboard
# =============================================================================================
@pytest.mark.parametrize("method", available_methods())
def test_twin_outputs(method):
    r = europe_map(method, epsilon=1.0, delta=1e-5, seed=0)
    n, n_pop = 1387, 37
    assert r["method"] == method and r["source"] == "simulated"
    for key in ("private", "nonprivate", "geography"):
        assert r[key].shape == (n, 2) and np.all(np.isfinite(r[key]))
    for key in ("private_centroids", "nonprivate_centroids", "geography_centroids"):
        assert r[key].shape == (n_pop, 2)
    assert len(r["codes"]) == len(r["population_colors"]) == len(r["population_sizes"]) == n_pop
    assert set(r["scores"]) == {"t0_nonprivate", "sin_theta", "t0_geography"}
    assert all(0.0 <= v <= 1.0 for v in r["scores"].values())
    # the private map is already aligned: aligning it again to the non-private map changes nothing
    again = procrustes(r["private"], r["nonprivate"])
    assert again["scale"] == pytest.approx(1.0, rel=1e-9)
    np.testing.assert_allclose(again["rotation"], np.eye(2), atol=1e-9)
    assert procrustes_similarity(r["private"], r["nonprivate"]) == pytest.approx(r["scores"]["t0_nonprivate"],
                                                                                  rel=1e-9)
    # a centroid is the mean of its population's points
    first = r["codes"].index("IT")
    data = X_.nonprivate_map()["data"]
    np.testing.assert_allclose(r["private_centroids"][first], r["private"][data.labels == "Italy"].mean(0))
    non_private = {"Analyze Gauss (paper, not private)", "SGPCA"}
    assert r["is_private"] is (method not in non_private)
    if method in non_private:
        assert r["privacy_note"]


def test_twin_without_noise_and_with_seeds():
    base = X_.nonprivate_map()
    # the non-private map is rigidly turned towards (longitude, latitude): t₀ is unchanged by that
    assert base["t0_geography_nonprivate"] == pytest.approx(
        procrustes_similarity(base["data"].nonprivate_pcs, base["data"].coords), rel=1e-12)
    # a Haar-random plane: t₀ ≈ 0.5 (any plane catches part of PC1), sin Θ ≈ 1
    level = base["random_plane"]
    assert 0.3 < level["t0_nonprivate"] < 0.7 and level["sin_theta"] > 0.95
    # Analyze Gauss with ε = ∞ is PCA of the second moment; the simulated X has mean 0 exactly
    r = europe_map("Analyze Gauss", epsilon=np.inf)
    assert r["scores"]["t0_nonprivate"] == pytest.approx(1.0, abs=1e-9)
    assert r["scores"]["sin_theta"] < 1e-6 and r["noise_scale"] == 0.0 and not r["is_private"]
    np.testing.assert_allclose(r["private"], r["nonprivate"], atol=1e-9)
    a, b = europe_map(epsilon=0.5, seed=3), europe_map(epsilon=0.5, seed=3)
    np.testing.assert_array_equal(a["private"], b["private"])
    assert not np.allclose(a["private"], europe_map(epsilon=0.5, seed=4)["private"])


def test_twin_reports_warnings_as_notes():
    r = europe_map("Analyze Gauss", epsilon=2.0)
    assert any("epsilon < 1" in note for note in r["notes"])
    assert europe_map("Analyze Gauss", epsilon=2.0, calibration="analytic")["notes"] == []
    if "Analyze Gauss (paper, not private)" in available_methods():
        notes = europe_map("Analyze Gauss (paper, not private)", epsilon=0.5)["notes"]
        assert any("NOT differentially private" in note for note in notes)


def test_twin_bad_input(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match="method must be one of"):
        europe_map("PCA")
    with pytest.raises(ValueError, match="epsilon must be"):
        europe_map(epsilon=-1.0)
    with pytest.raises(ValueError, match="delta must be in"):
        europe_map(delta=1.5)
    with pytest.raises(ValueError, match="source must be one of"):
        europe_map(source="europe")
    monkeypatch.setenv(E.ENV_VAR, str(tmp_path))
    with pytest.raises(ValueError, match="needs the real files on disk"):
        europe_map(source="novembre")
    # a method whose estimator is missing: a clear ValueError (the dashboard shows it)
    monkeypatch.setattr(X_, "_robust", lambda: None)
    assert available_methods() == ("Analyze Gauss",)
    with pytest.raises(ValueError, match="'NSGGD' is not available.*available: Analyze Gauss"):
        europe_map("NSGGD")


@needs_robust
def test_similarity_table_on_the_simulation():
    table = similarity_table(("Kendall (spherical)", "Analyze Gauss", "NSGGD"), epsilons=(0.3, 3.0), n_draws=8)
    assert set(table["epsilons"]) == {0.3, 3.0} and table["n_draws"] == 8
    assert table["methods"] == ("Kendall (spherical)", "Analyze Gauss", "NSGGD")
    assert table["random_plane"] == X_.nonprivate_map()["random_plane"]
    for method in ("Kendall (spherical)", "Analyze Gauss", "NSGGD"):
        assert table[method]["t0_nonprivate"].shape == (2,)
    k, ag = table["Kendall (spherical)"], table["Analyze Gauss"]
    # more budget, better map; and with the construction's public bound AG is far behind Kendall
    assert k["t0_nonprivate"][1] > k["t0_nonprivate"][0]
    assert k["t0_nonprivate"][1] > 0.95 > ag["t0_nonprivate"][1]
    assert any("epsilon < 1" in note for note in table["notes"])


def _cpu_ms(dashboard, control, values):
    out = []
    for value in values:
        t = time.process_time()
        control.value = value
        out.append(1e3 * (time.process_time() - t))
    return out


def test_dashboard_moves_and_stays_fast():
    import ipywidgets as W

    from privpca_edu.widgets.europe import europe_dashboard

    dash = europe_dashboard()
    assert isinstance(dash, W.Widget) and dash.last_error is None
    assert dash.png().startswith(b"\x89PNG")
    eps = dash.controls["epsilon"]
    assert eps.continuous_update is False and math.isclose(eps.value, 1.0)
    before = dash.png()
    times = _cpu_ms(dash, eps, [0.1, 0.3, 2.0, 5.0, 20.0, 0.05])
    assert dash.png() != before and dash.last_error is None
    # one slider move = fit + Procrustes + redraw of one panel + PNG: well under 100 ms of CPU
    # (median; measured ~35 ms); the text of the animated title is the largest single cost
    assert np.median(times) < 100, times
    dash.controls["method"].value = "Analyze Gauss"
    assert dash.last_error is None and dash.result["method"] == "Analyze Gauss"
    assert dash.figure.error is None


def test_dashboard_and_twin_default_to_delta_1e_5():
    """Safe defaults: δ = 1e-5 in the dashboard, its twin, the table and the chapter's own call."""
    import inspect

    from privpca_edu.widgets.europe import europe_dashboard

    for function in (europe_dashboard, europe_map, similarity_table):
        assert inspect.signature(function).parameters["delta"].default == 1e-5, function.__name__
    dash = europe_dashboard()
    assert dash.controls["delta"].value == pytest.approx(1e-5, rel=1e-12)
    assert dash.result["delta"] == pytest.approx(1e-5, rel=1e-12)
    cells = json.loads(CHAPTER_10.read_text(encoding="utf-8"))["cells"]
    calls = [src for src in ("".join(c["source"]) for c in cells) if "europe_dashboard(" in src and "import" not in src]
    assert calls and all("delta=1e-5" in src for src in calls)


def test_dashboard_shows_a_missing_method(monkeypatch):
    from privpca_edu.widgets.europe import europe_dashboard

    monkeypatch.setattr(X_, "_robust", lambda: None)
    dash = europe_dashboard(method="NSGGD")
    assert isinstance(dash.last_error, ValueError) and "not available" in dash.figure.error
    assert dash.png().startswith(b"\x89PNG")


def test_static_figures():
    from privpca_edu.plotting import europe as P

    fig = P.plot_europe_map(europe_map("Analyze Gauss", epsilon=10.0, calibration="analytic"))
    assert len(fig.axes) == 4  # three maps and the panel of scores
    assert "SIMULATED" in fig.get_suptitle()
    table = similarity_table(("Analyze Gauss",), epsilons=(1.0, 10.0), n_draws=3, calibration="analytic")
    fig = P.plot_similarity_table(table, reference=NOVEMBRE_SIMILARITY_TABLE)
    assert len(fig.axes) == 3  # two panels and the key


def test_methods_are_listed_in_picker_order():
    assert available_methods() == tuple(m for m in METHODS if m in available_methods())
    assert "Analyze Gauss" in available_methods()


# =============================================================================================
# Chapter 10's prose: every number it quotes, recomputed
# =============================================================================================
# The chapter's figure of t₀ against ε: same methods, ε grid and 20 releases.
CHAPTER_10_METHODS = ("Kendall (spherical)", "Kendall (winsorized)", "Analyze Gauss",
                      "Analyze Gauss (paper, not private)", "NSGGD")
CHAPTER_10_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
CHAPTER_10_THEOREM_EPSILONS = (1.0, 2.0, 5.0, 10.0, 20.0)  # the Davis–Kahan cell
CHAPTER_10 = REPO_ROOT / "notebooks" / "10_europe_map.ipynb"
SPH, WINS, AG, AG_PAPER = "Kendall (spherical)", "Kendall (winsorized)", "Analyze Gauss", "Analyze Gauss (paper, not private)"


class MeanSD(tuple):
    """(mean, standard deviation) over ``n`` releases, seeds or random planes."""

    @classmethod
    def of(cls, samples):
        samples = np.asarray(samples, dtype=np.float64)
        return cls.summary(samples.mean(), samples.std(ddof=1), samples.size)

    @classmethod
    def summary(cls, mean, sd, n):
        out = tuple.__new__(cls, (float(mean), float(sd)))
        out.n = int(n)
        return out


def _mean_sd_leaves(value):
    if isinstance(value, MeanSD):
        return [value]
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _mean_sd_leaves(v)]
    return []


# Every number the chapter's prose quotes: (the text exactly as the notebook's markdown has it,
# whitespace aside; the data it describes; the name of the computed value).  The decimal numbers
# of the text, in order, must equal the computed value(s) to the digits printed (a mean ± sd
# gives two numbers).  "any": the same on both data sets (computed on the simulation).  A number
# the chapter prints that is not here (or in CHAPTER_10_INPUTS) fails
# test_chapter_10_every_decimal_in_the_prose_is_registered.
CHAPTER_10_QUOTES = (
    # measuring "looks like the map"
    ("with $t_0 = 0.737$", "novembre", "t0_geography_pca"),
    ("matches it better: $t_0 = 0.899$", "synthetic", "t0_geography_pca"),
    ("(0.891 ± 0.008, mean ± sd over the simulation seeds 2000–2009)", "synthetic", "t0_geography_simulation_seeds"),
    ("100 points score 0.11 ± 0.04 (1000 pairs).", "any", "t0_unrelated_clouds"),
    ("$t_0$ = 0.47 ± 0.15 against the non-private map on the simulation", "synthetic", "random_plane_t0"),
    ("0.51 ± 0.17 on the real data (mean ± sd over 200 random planes)", "novembre", "random_plane_t0"),
    ("random-plane level (about 0.5, no", "synthetic", "random_plane_t0_mean"),
    ("random-plane level (about 0.5, no", "novembre", "random_plane_t0_mean"),
    ("random-plane level (about 0.5) to 1", "synthetic", "random_plane_t0_mean"),
    # Figure 10.1
    ("is 0.92 ± 0.05 on the simulation and", "synthetic", ("t0", SPH, 1.0)),
    ("and 0.92 ± 0.04 on the real data (mean ± sd)", "novembre", ("t0", SPH, 1.0)),
    ("$\\lVert\\sin\\Theta\\rVert_2$ = 0.79 ± 0.14 on the simulation", "synthetic", ("sin", SPH, 1.0)),
    ("0.89 ± 0.10 on the real data.", "novembre", ("sin", SPH, 1.0)),
    # Figure 10.2
    ("at ε = 1 is 0.96 ± 0.04 on the simulation", "synthetic", ("sin", AG, 1.0)),
    ("(0.98 ± 0.02 on the real data)", "novembre", ("sin", AG, 1.0)),
    ("non-private map is 0.77 ± 0.07 on the simulation", "synthetic", ("t0", AG, 1.0)),
    ("and 0.68 ± 0.12 on the real data — against", "novembre", ("t0", AG, 1.0)),
    ("against 0.92 ± 0.05 and", "synthetic", ("t0", SPH, 1.0)),
    ("and 0.92 ± 0.04 for spherical Kendall at the same budget", "novembre", ("t0", SPH, 1.0)),
    # Figure 10.3
    ("between ε = 0.5 (0.86 ± 0.05) and ε = 1 (0.92 ± 0.05);", "synthetic", (("t0", SPH, 0.5), ("t0", SPH, 1.0))),
    ("simulation 0.87 ± 0.05 at ε = 2 and 0.97 ± 0.02 at ε = 5;", "synthetic", (("t0", AG, 2.0), ("t0", AG, 5.0))),
    ("stays at or below 0.65)", "synthetic", "winsorized_t0_max"),
    # why the picture is good before the directions are
    ("$\\hat\\lambda_1-\\hat\\lambda_2 = 0.111$ and $\\hat\\lambda_2-\\hat\\lambda_3 = 0.052$", "synthetic", "kendall_gaps"),
    ("Novembre et al. data $0.168$ and $0.031$.", "novembre", "kendall_gaps"),
    ("$\\sigma = 0.01397$, so $\\sqrt{2d}\\,\\sigma = 0.088$", "any", "kendall_sigma_and_norm"),
    ("$\\lVert E\\rVert_2$ = 0.085 ± 0.006)", "any", "kendall_noise_norm"),
    ("0.17–0.18 times the bound on the simulation", "synthetic", "theorem_ratio_range"),
    ("0.11–0.15 times on the real data", "novembre", "theorem_ratio_range"),
    ("it is 4.7 ± 0.3 on the simulation", "synthetic", ("bound2", 1.0)),
    ("and 7.9 ± 0.5 on the real data,", "novembre", ("bound2", 1.0)),
    ("at ε = 5 on the simulation (0.94 ± 0.06)", "synthetic", ("bound2", 5.0)),
    ("ε = 10 on the real data (0.79 ± 0.05)", "novembre", ("bound2", 10.0)),
    ("its sine is 0.28 ± 0.05 on the simulation", "synthetic", ("first_direction", 1.0)),
    ("and 0.22 ± 0.04 on the real data.", "novembre", ("first_direction", 1.0)),
    # why Analyze Gauss needs so much more budget
    ("$2\\sqrt d\\,\\sigma = 0.044$", "any", "ag_noise_norm"),
    ("(0.028 on the simulation,", "synthetic", "ag_top_eigenvalue"),
    ("0.012 on the real data)", "novembre", "ag_top_eigenvalue"),
    ("the first two (0.017 and", "synthetic", "ag_gap"),
    ("and 0.009). At the same ε", "novembre", "ag_gap"),
    ("spherical Kendall's noise (0.088)", "any", "kendall_noise_formula"),
    ("its first gap (0.111 and", "synthetic", "kendall_gap1"),
    ("and 0.168). So Analyze", "novembre", "kendall_gap1"),
    ("$r=\\sqrt d = 4.47$", "any", "sqrt_d"),
    ("(median 0.46 on the simulation", "synthetic", "distance_median"),
    ("and 0.26 on the real data; largest", "novembre", "distance_median"),
    ("largest 0.89 and", "synthetic", "distance_max"),
    ("and 0.75), so the cap", "novembre", "distance_max"),
    # solutions
    ("&=\\frac{4\\cdot4.8448}{693.5}=0.02794,", "any", "exercise_10_1"),
    ("$\\sqrt{40}\\cdot0.02794 = 0.177$", "any", "exercise_10_3"),
    ("(0.052 on the simulation,", "synthetic", "kendall_gap2"),
    ("0.031 on the real data) and above", "novembre", "kendall_gap2"),
    ("already 0.86 ± 0.05 on the simulation", "synthetic", ("t0", SPH, 0.5)),
    ("and 0.89 ± 0.03 on the real data (Figure 10.3)", "novembre", ("t0", SPH, 0.5)),
    ("is 0.14 on the simulation", "synthetic", "distance_min"),
    ("and 0.076 on the real data. When", "novembre", "distance_min"),
    ("$0.111/(2\\cdot0.017) = 3.2$", "synthetic", "exercise_10_5"),
    ("ε = 1 (0.92 ± 0.05) lies between", "synthetic", ("t0", SPH, 1.0)),
    ("at ε = 2 (0.87 ± 0.05) and ε = 5 (0.97 ± 0.02).", "synthetic", (("t0", AG, 2.0), ("t0", AG, 5.0))),
    ("$0.168/(2\\cdot0.009) = 9.2$", "novembre", "exercise_10_5"),
    ("still 0.88 ± 0.03 at ε = 5.", "novembre", ("t0", AG, 5.0)),
    ("$t_0$ = 0.991 ± 0.004 and $\\lVert\\sin\\Theta\\rVert_2$ = 0.37 ± 0.07;", "synthetic", ("clip", 0.25)),
    ("with $B = 1$, 0.76 ± 0.09 and 0.97 ± 0.04;", "synthetic", ("clip", 1.0)),
    ("$B=\\ell_1$, 0.47 ± 0.13 and 0.99 ± 0.01,", "synthetic", ("clip", "l1")),
    ("row norm is 0.33)", "synthetic", "row_norm_median"),
    # summary
    ("keeps $t_0$ = 0.92 ± 0.05 on the simulation", "synthetic", ("t0", SPH, 1.0)),
)

# Decimal numbers in the prose that are settings, not results (in formulas and code, a threshold);
# "ε = 0.5" and the like are recognised by _SETTING.
CHAPTER_10_INPUTS = ("1.25/\\delta", "1.25\\cdot10^5", "{1387\\cdot0.5}", "epsilon=1.0", "radius=0.05",
                     "passes 0.9")
# Section, figure and exercise numbers ("§4.3", "Figure 10.2", "Prop. 2.1") are not quantities.
_CITATION = re.compile(r"(§|Prop\.|eq\.|Theorem|Figure|Exercise|Solution|chapter|Chapter)\s*\(?\d+(\.\d+)+")
_DECIMAL = re.compile(r"\d+\.\d+")
# Settings named in the prose ("ε = 0.5", "$B$ = 0.25") are inputs, not quoted results.
_SETTING = re.compile(r"(ε|δ|\$B\$|\bB) = \d+(\.\d+)?")


def _squash(text):
    return re.sub(r"\s+", " ", text)


@functools.lru_cache(maxsize=1)
def _chapter_10_prose():
    """The chapter's markdown before its references, whitespace squashed."""
    cells = json.loads(CHAPTER_10.read_text(encoding="utf-8"))["cells"]
    texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    texts = [t for t in texts if not t.lstrip().startswith("## References")]
    return _squash("\n\n".join(texts))


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    return [float(value)]


@functools.lru_cache(maxsize=4)
def _chapter_10_numbers(source, seed=0):
    """What chapter 10 quotes, computed as its cells compute it (``seed=0``) or with fresh noise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _compute_chapter_10_numbers(source, seed)


def _compute_chapter_10_numbers(source, seed):
    import privpca_edu as pp
    from privpca_edu.estimators.robust import KendallDPPCA
    from privpca_edu.privacy import kendall_noise_scale
    from privpca_edu.subspace import random_orthonormal, subspace_distance, top_eigenvectors

    base = X_.nonprivate_map(source)
    data = base["data"]
    X, V0 = data.X, base["components"]
    n, d = X.shape
    out = {}
    # Figure 10.3's table (20 releases per method and ε)
    methods = tuple(m for m in CHAPTER_10_METHODS if m in available_methods())
    table = similarity_table(methods, epsilons=CHAPTER_10_EPSILONS, n_draws=20, source=source, seed=seed)
    for m in methods:
        for i, eps in enumerate(CHAPTER_10_EPSILONS):
            for key, name in (("t0_nonprivate", "t0"), ("sin_theta", "sin")):
                out[(name, m, eps)] = MeanSD.summary(table[m][key][i], table[m][key + "_sd"][i], 20)
    out["winsorized_t0_max"] = float(table[WINS]["t0_nonprivate"].max()) if WINS in methods else None
    # reference levels: 200 Haar-random planes (the package's own level uses seed 0), unrelated clouds
    rng = np.random.default_rng(seed)
    planes = [X_.similarity_scores(random_orthonormal(d, 2, rng), X, V0, data.coords)["t0_nonprivate"] for _ in range(200)]
    out["random_plane_t0"] = MeanSD.of(planes)
    out["random_plane_t0_mean"] = float(np.mean(planes))
    clouds = np.random.default_rng(1 + seed).normal(size=(1000, 2, 100, 2))
    out["t0_unrelated_clouds"] = MeanSD.of([procrustes_similarity(a, b) for a, b in clouds])
    out["t0_geography_pca"] = procrustes_similarity(data.nonprivate_pcs, data.coords)
    if source == "synthetic" and seed == 0:
        out["t0_geography_simulation_seeds"] = MeanSD.of([
            procrustes_similarity(sim.nonprivate_pcs, sim.coords)
            for sim in (europe(simulation_seed=s) for s in range(2000, 2010))])
    # the noiseless Kendall matrix, its gaps and the noise
    K = KendallDPPCA(2, epsilon=np.inf).release_parts(X).statistic
    lam, VK = np.linalg.eigh(K)
    lam, VK = lam[::-1], VK[:, ::-1]
    out["kendall_gaps"] = (lam[0] - lam[1], lam[1] - lam[2])
    out["kendall_gap1"], out["kendall_gap2"] = out["kendall_gaps"]
    sigma = kendall_noise_scale(n, 1.0, 1e-5)[1]
    out["kendall_sigma_and_norm"] = (sigma, math.sqrt(2 * d) * sigma)
    out["kendall_noise_formula"] = math.sqrt(2 * d) * sigma
    releases = KendallDPPCA(2, epsilon=1.0, delta=1e-5).sample_releases(X, 200, random_state=seed)
    out["kendall_noise_norm"] = MeanSD.of([np.linalg.norm(R - K, 2) for R in releases])
    # Davis–Kahan (Yu, Wang & Samworth 2015, Thm 2) next to the measured errors, 20 releases per ε
    ratios, below_one = [], []
    for eps in CHAPTER_10_THEOREM_EPSILONS:
        rows = []
        for R in KendallDPPCA(2, epsilon=eps, delta=1e-5).sample_releases(X, 20, random_state=seed):
            E = R - K
            norm2, normF = np.linalg.norm(E, 2), np.linalg.norm(E)
            W = top_eigenvectors(R, 2)[1]
            rows.append((2 * min(math.sqrt(2) * norm2, normF) / (lam[1] - lam[2]),
                         subspace_distance(W, VK[:, :2], kind="sin_theta"),
                         2 * min(norm2, normF) / (lam[0] - lam[1]),
                         subspace_distance(W[:, :1], VK[:, :1], kind="sin_theta")))
        rows = np.array(rows)
        assert np.all(rows[:, 1] <= rows[:, 0]) and np.all(rows[:, 3] <= rows[:, 2]), eps  # the theorem
        out[("bound2", eps)] = MeanSD.of(rows[:, 0])
        out[("first_direction", eps)] = MeanSD.of(rows[:, 3])
        ratios.append(rows[:, 1].mean() / rows[:, 0].mean())
        below_one.append(rows[:, 0].mean() < 1)
    out["theorem_ratio_range"] = (min(ratios), max(ratios))
    out["theorem_first_eps_below_one"] = CHAPTER_10_THEOREM_EPSILONS[below_one.index(True)]
    # Analyze Gauss: its signal and noise, and the public bound (Exercise 10.7)
    mu = data.eigenvalues
    sigma_ag = math.sqrt(2) / n * math.sqrt(2 * math.log(1.25 / 1e-5))
    out["ag_noise_norm"] = 2 * math.sqrt(d) * sigma_ag
    out["ag_top_eigenvalue"] = mu[0]
    out["ag_gap"] = mu[0] - mu[1]
    out["exercise_10_5"] = (lam[0] - lam[1], mu[0] - mu[1], (lam[0] - lam[1]) / (2 * (mu[0] - mu[1])))
    for B in (0.25, 1.0, "l1"):
        scores = [X_.similarity_scores(pp.AnalyzeGauss(2, epsilon=1.0, data_norm=data.row_norm_bound if B == "l1" else B,
                                                    random_state=s).fit(X).components_, X, V0, data.coords)
                  for s in range(50 * seed, 50 * seed + 50)]
        out[("clip", B)] = (MeanSD.of([sc["t0_nonprivate"] for sc in scores]), MeanSD.of([sc["sin_theta"] for sc in scores]))
    norms = np.linalg.norm(X, axis=1)
    out["row_norm_median"] = float(np.median(norms))
    # distances between two people (the winsorizing radius)
    sq = np.einsum("ij,ij->i", X, X)
    dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))[np.triu_indices(n, 1)]
    out["distance_median"], out["distance_max"], out["distance_min"] = np.median(dist), dist.max(), dist.min()
    # data-independent numbers: r = √d and the exercises' σ
    out["sqrt_d"] = math.sqrt(d)
    sigma_half = kendall_noise_scale(n, 0.5, 1e-5)[1]
    out["exercise_10_1"] = (math.sqrt(2 * math.log(1.25e5)), n * 0.5, sigma_half)
    out["exercise_10_3"] = (sigma_half, math.sqrt(2 * d) * sigma_half)
    out["table"] = table
    return out


def _decimals(text):
    return [m.group(0) for m in _DECIMAL.finditer(text)]


def _check_chapter_10_quotes(source):
    numbers = _chapter_10_numbers(source)
    fresh = _chapter_10_numbers(source, seed=1)
    checked = 0
    for text, where, name in CHAPTER_10_QUOTES:
        if where != source and not (where == "any" and source == "synthetic"):
            continue
        names = name if isinstance(name, tuple) and isinstance(name[0], tuple) else (name,)
        values = [numbers[nm] for nm in names]
        printed = _decimals(_SETTING.sub("§", _CITATION.sub("§", text)))
        computed = _flat(values)
        assert len(printed) == len(computed), (text, computed)
        for token, value in zip(printed, computed):
            # the prose rounds to the digits it prints: the same seeds must give the same digits
            half_unit = 0.5 * 10.0 ** -len(token.split(".")[1])
            assert abs(value - float(token)) <= half_unit + 1e-9, (text, token, value)
        # and no quoted mean is a lucky draw: fresh noise (other seeds) gives the same mean within 3
        # standard errors of the difference (the simulation seeds, a property of the data design, excepted)
        for nm in names:
            if nm in fresh:
                for a, b in zip(_mean_sd_leaves(numbers[nm]), _mean_sd_leaves(fresh[nm])):
                    se = math.sqrt((a[1] ** 2 + b[1] ** 2) / a.n)
                    assert abs(a[0] - b[0]) <= 3 * se, (text, nm, a, b)
        checked += 1
    return numbers, checked


def test_chapter_10_quotes_appear_in_the_notebook():
    prose = _chapter_10_prose()
    missing = [text for text, _, _ in CHAPTER_10_QUOTES + tuple((t, None, None) for t in CHAPTER_10_INPUTS)
               if _squash(text) not in prose]
    assert not missing, missing


def test_chapter_10_every_decimal_in_the_prose_is_registered():
    """A number added to the prose without its computation here fails (so prose and test cannot drift)."""
    def hide_citations(text):
        text = _CITATION.sub(lambda m: "§" * len(m.group(0)), text)
        return _SETTING.sub(lambda m: "§" * len(m.group(0)), text)

    prose = hide_citations(_chapter_10_prose())
    covered = np.zeros(len(prose), dtype=bool)
    for text in [q[0] for q in CHAPTER_10_QUOTES] + list(CHAPTER_10_INPUTS):
        for m in re.finditer(re.escape(hide_citations(_squash(text))), prose):
            covered[m.start():m.end()] = True
    loose = [prose[max(0, m.start() - 40):m.end() + 20] for m in _DECIMAL.finditer(prose)
             if not covered[m.start():m.end()].all()]
    assert not loose, loose


@needs_robust
def test_chapter_10_quoted_numbers_simulation():
    numbers, checked = _check_chapter_10_quotes("synthetic")
    assert checked == sum(where in ("synthetic", "any") for _, where, _ in CHAPTER_10_QUOTES)
    _check_chapter_10_claims(numbers, "synthetic")


@needs_real
@needs_robust
def test_chapter_10_quoted_numbers_real_data(monkeypatch):
    monkeypatch.setenv(E.ENV_VAR, str(REAL_DIR))
    numbers, checked = _check_chapter_10_quotes("novembre")
    assert checked == sum(where == "novembre" for _, where, _ in CHAPTER_10_QUOTES)
    _check_chapter_10_claims(numbers, "novembre")


def _check_chapter_10_claims(numbers, source):
    """The chapter's sentences that compare numbers rather than print them."""
    t0 = lambda m, e: numbers[("t0", m, e)]  # noqa: E731
    # Figure 10.3: spherical Kendall's mean t₀ passes 0.9 between ε = 0.5 and 1 (both data sets)
    assert t0(SPH, 0.5)[0] < 0.9 <= t0(SPH, 1.0)[0]
    # "the paper's non-private max-norm scaling does no better" than AG with the public bound:
    # never better by more than 2 standard errors of the difference
    for eps in CHAPTER_10_EPSILONS:
        a, p = t0(AG, eps), t0(AG_PAPER, eps)
        assert p[0] <= a[0] + 2 * math.sqrt((a[1] ** 2 + p[1] ** 2) / 20), eps
    # winsorized Kendall "never gets far from the random-plane level": at or below 0.65 on either data set
    assert numbers["winsorized_t0_max"] <= 0.655
    # Davis–Kahan: the plane's bound first drops below 1 at ε = 5 (simulation), 10 (real data)
    assert numbers["theorem_first_eps_below_one"] == {"synthetic": 5.0, "novembre": 10.0}[source]
    # "The noise is larger than the second gap on both data sets, and of the order of the first";
    # spherical Kendall's noise is below its first gap, Analyze Gauss's above its whole top eigenvalue
    noise, (gap1, gap2) = numbers["kendall_noise_formula"], numbers["kendall_gaps"]
    assert gap2 < noise < gap1 < 2 * noise
    assert numbers["ag_noise_norm"] > numbers["ag_top_eigenvalue"]
    # Exercise 10.3: √(2d)σ at ε = 0.5 is above both gaps of both data sets
    assert numbers["exercise_10_3"][1] > gap1 > gap2
    if source == "synthetic":
        # Exercise 10.5: Kendall's t₀ at ε = 1 lies between AG's at ε = 2 and ε = 5
        assert t0(AG, 2.0)[0] < t0(SPH, 1.0)[0] < t0(AG, 5.0)[0]
        # Exercise 10.7: the small bound wins; it clips most rows
        (t_small, s_small), (t_one, s_one) = numbers[("clip", 0.25)], numbers[("clip", 1.0)]
        assert t_small[0] > t_one[0] and s_small[0] < s_one[0] and numbers["row_norm_median"] > 0.25
    # Exercise 10.4: a radius below every distance gives the spherical release, to many digits
    assert numbers["distance_min"] > 0.05
    a = europe_map("Kendall (winsorized)", epsilon=1.0, radius=0.05, source=source)["scores"]
    b = europe_map("Kendall (spherical)", epsilon=1.0, source=source)["scores"]
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-9), key


def test_europe_experiments_use_a_public_bound_not_the_datas_own():
    from privpca_edu.experiments.europe import EUROPE_DATA_NORM, _estimator

    data = europe()
    for method in ("Analyze Gauss", "NSGGD"):
        if method not in available_methods():
            continue
        est = _estimator(method, data, 1.0, 1e-5, 0, "classic", None)
        assert est.data_norm == EUROPE_DATA_NORM == 1.0 != data.row_norm_bound


def test_procrustes_matches_the_svd_formula_to_rounding():
    # R = UWᵀ and s = tr Σ/‖S̃‖²_F from the SVD S̃ᵀT̃ = UΣWᵀ (the formula of the docstring).
    from privpca_edu.experiments.europe import procrustes

    rng = np.random.default_rng(3)
    for p in (2, 3, 5):
        S, T = rng.normal(size=(40, p)), rng.normal(size=(40, p))
        Sc, Tc = S - S.mean(axis=0), T - T.mean(axis=0)
        U, sv, Wt = np.linalg.svd(Sc.T @ Tc)
        fit = procrustes(S, T)
        np.testing.assert_allclose(fit["rotation"], U @ Wt, rtol=0, atol=1e-12)
        assert abs(fit["scale"] - sv.sum() / np.linalg.norm(Sc) ** 2) < 1e-12
        assert abs(fit["similarity"] - sv.sum() / (np.linalg.norm(Sc) * np.linalg.norm(Tc))) < 1e-12
