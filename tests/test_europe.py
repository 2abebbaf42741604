"""The Europe map: real-data loader (checksums, cache, download, offline), the simulation, the
Procrustes scores of spec g_dppca.md §10.3 and the chapter's twin and dashboard.

The real files of Novembre et al. (2008) have no licence and are never copied into this
repository: the tests read the shared copy at ``../shared/data/novembre2008`` (relative to the
repository root) and skip, saying why, when it is absent.  No test touches the network: the
download function is replaced by one that copies from the shared folder.
"""

import hashlib
import math
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
    SPEC_REFERENCE_VALUES,
    SPEC_SIMILARITY_TABLE,
    available_methods,
    europe_map,
    procrustes,
    procrustes_similarity,
    similarity_table,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
REAL_DIR = REPO_ROOT.parent / "shared" / "data" / "novembre2008"
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
    assert V.shape == (20, 2)
    np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-12)
    Xc = data.X - data.X.mean(0)
    w, U = np.linalg.eigh(Xc.T @ Xc)
    assert min(np.linalg.svd(U[:, -2:].T @ V, compute_uv=False)) > 1 - 1e-10
    np.testing.assert_allclose(data.nonprivate_pcs, data.X @ V)
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
    # Spec europe_synthetic.md: Procrustes correlation of (PC1, PC2) with (lat, long) above ~0.8.
    # With the defaults it is 0.90 (0.88-0.90 over simulation seeds 2000-2007: the sample is
    # fixed, so this is deterministic); the real data give 0.737.  The spec's 0.8 is above the
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
def test_real_data_construction_spec_10_1():
    data = europe("novembre", data_dir=REAL_DIR)
    assert data.X.shape == (1387, 20) and data.source == "Novembre et al. 2008"
    assert len(set(data.labels.tolist())) == 37 and data.coords.shape == (1387, 2)
    assert {p.label for p in data.populations} == {p.label for p in EUROPE_POPULATIONS}
    for p in EUROPE_POPULATIONS:  # the committed table is the design of the real sample
        rows = data.labels == p.label
        assert rows.sum() == p.size, p.label
        np.testing.assert_allclose(data.coords[rows], [[p.latitude, p.longitude]] * p.size, atol=0.006)
    # spec §11 item 14: column means ~1e-6 (4-decimal rounding), eigenvalues of XᵀX = ℓ² to 1e-3
    assert np.abs(data.X.mean(0)).max() < 1e-5
    ell = data.smartpca_eigenvalues
    np.testing.assert_allclose(ell[:3], [4.092735, 2.040098, 1.536794])
    np.testing.assert_allclose(np.linalg.eigvalsh(data.X.T @ data.X)[::-1], ell**2, rtol=1e-3)
    assert np.linalg.norm(data.X, axis=1).max() <= data.row_norm_bound == ell[0]
    assert len(data.info["popres_colors"]) == 1387


@needs_real
@needs_robust
def test_reference_values_spec_10_3():
    from privpca_edu.estimators.robust import KendallDPPCA

    data = europe("novembre", data_dir=REAL_DIR)
    ref = SPEC_REFERENCE_VALUES
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
def test_similarity_scores_reproduce_spec_10_3(monkeypatch):
    """Spec §10.3's table on the real data: sph-DPPCA and the paper's AG, δ = 1e-5.

    The spec's numbers are means of only 20 releases, so they carry Monte Carlo error: the
    per-release standard deviation sd of t₀ reaches 0.16 (sd/√20 = 0.036).  We average 400
    releases (our own error sd/√400) and accept |ours − spec| ≤ 3·sd/√20 + 3·sd/√400 + 0.005
    (the last term: the spec rounds to 2 decimals) — a 3-standard-error test of "the same
    expected value".  Measured differences are at most 2.0 spec standard errors (z = |ours − spec|/(sd/√20)).
    """
    monkeypatch.setenv(E.ENV_VAR, str(REAL_DIR.parent))
    n_draws = 400
    table = similarity_table(("Kendall (spherical)", "Analyze Gauss (paper, not private)"),
                             epsilons=sorted(SPEC_SIMILARITY_TABLE), n_draws=n_draws, source="novembre", seed=0)
    assert table["source"] == "Novembre et al. 2008"
    columns = [("Kendall (spherical)", "t0_nonprivate", 0), ("Analyze Gauss (paper, not private)", "t0_nonprivate", 1),
               ("Kendall (spherical)", "sin_theta", 2), ("Analyze Gauss (paper, not private)", "sin_theta", 3)]
    for i, eps in enumerate(sorted(SPEC_SIMILARITY_TABLE)):
        for method, key, col in columns:
            ours, sd = table[method][key][i], table[method][key + "_sd"][i]
            spec = SPEC_SIMILARITY_TABLE[eps][col]
            tol = 3 * sd / math.sqrt(20) + 3 * sd / math.sqrt(n_draws) + 0.005
            assert abs(ours - spec) <= tol, (method, key, eps, ours, spec, tol)
    # the paper's reading: g-DPPCA's map resembles the non-private one much more than AG's
    k, a = table["Kendall (spherical)"]["t0_nonprivate"], table["Analyze Gauss (paper, not private)"]["t0_nonprivate"]
    assert np.all(k > a) and k[2] > 0.85  # spec §11 item 14: > 0.85 at ε = 1


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
    fig = P.plot_similarity_table(table, reference=SPEC_SIMILARITY_TABLE)
    assert len(fig.axes) == 3  # two panels and the key


def test_methods_are_listed_in_picker_order():
    assert available_methods() == tuple(m for m in METHODS if m in available_methods())
    assert "Analyze Gauss" in available_methods()


# =============================================================================================
# Chapter 10's prose: the numbers it quotes, recomputed (20 releases each, as on the page)
# =============================================================================================
# the chapter's own call (its figure of t0 against ε): same methods, ε grid and releases
CHAPTER_10_METHODS = ("Kendall (spherical)", "Kendall (winsorized)", "Analyze Gauss",
                      "Analyze Gauss (paper, not private)", "NSGGD")
CHAPTER_10_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
CHAPTER_10_QUOTES = {
    # (method, ε): (mean t0 against the non-private map, its standard deviation), simulation
    ("Analyze Gauss", 1.0): (0.77, 0.07),
    ("Analyze Gauss", 5.0): (0.97, 0.02),
    ("Kendall (spherical)", 1.0): (0.92, 0.05),
}


def _chapter_table(source):
    methods = tuple(m for m in CHAPTER_10_METHODS if m in available_methods())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return similarity_table(methods, epsilons=CHAPTER_10_EPSILONS, n_draws=20, source=source)


def _check_quotes(table, quotes):
    for (method, eps), (mean, sd) in quotes.items():
        i = list(table["epsilons"]).index(eps)
        got = table[method]["t0_nonprivate"][i]
        assert abs(got - mean) <= 0.005, (method, eps, got, mean)  # the prose rounds to 2 decimals
        if sd is not None:
            assert abs(table[method]["t0_nonprivate_sd"][i] - sd) <= 0.005, (method, eps)


@needs_robust
def test_chapter_10_quoted_similarities_simulation():
    table = _chapter_table("synthetic")
    _check_quotes(table, CHAPTER_10_QUOTES)
    assert table["random_plane"]["t0_nonprivate"] == pytest.approx(0.47, abs=0.005)


@needs_real
@needs_robust
def test_chapter_10_quoted_similarities_real_data(monkeypatch):
    monkeypatch.setenv(E.ENV_VAR, str(REAL_DIR))
    table = _chapter_table("novembre")
    _check_quotes(table, {("Analyze Gauss", 1.0): (0.68, 0.12), ("Kendall (spherical)", 1.0): (0.92, 0.04)})
    assert table["random_plane"]["t0_nonprivate"] == pytest.approx(0.51, abs=0.005)


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
