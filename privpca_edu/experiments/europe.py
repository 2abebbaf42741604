r"""The Europe-map chapter's twins: Procrustes alignment, similarity scores, private maps.

*Genes mirror geography* (Novembre et al. 2008): the first two principal components of
European genotypes, rotated, look like a map of Europe.  Kim & Jung (2025, §4.3) ask whether a
**private** estimate of those two directions still draws the map.  This module answers with
numbers (our proposal for quantifying Kim & Jung's Section 4.3 "resembles") and with the data the chapter's dashboard draws.

**Alignment and similarity.**  Two 2-D point clouds (n × 2 score matrices) can show the same map turned, mirrored or
stretched: principal components have arbitrary signs, and any rotation of a basis of the same
plane is as good as another.  :func:`procrustes` removes exactly that freedom — it finds the
translation, orthogonal map R (rotation or reflection) and scale s minimising
:math:`\lVert s\tilde S R - \tilde T\rVert_F` (tilde: column-centred) — and
:func:`procrustes_similarity` is the

.. math:: t_0(S, T) = \frac{\sum_i \sigma_i(\tilde S^\top\tilde T)}
                          {\lVert\tilde S\rVert_F\,\lVert\tilde T\rVert_F}\in[0, 1],

the correlation after that best alignment (Wang et al. 2012, used for the same POPRES map).
It equals 1 exactly when the two clouds agree up to translation, rotation, reflection and scale.

**Row scaling (what each method is given).**  The rows of X are one person's 20 PC coordinates.  A private mechanism that clips rows needs a
bound B on their norms that is **public**: fixed before anyone looks at the data, so that it
says nothing about it.  (By construction every row has norm at most :math:`\ell_1`, the top
smartpca eigenvalue, but ℓ₁ is computed from the very genotypes being protected: using it as B
would leak it, and it changes when one person is replaced.)  So:

* ``"Analyze Gauss"`` and ``"NSGGD"`` get X with the design constant
  ``data_norm =`` :data:`EUROPE_DATA_NORM` ``= 1``: the unit ball, fixed in advance as a
  deployment would fix it; any row above it is scaled down inside the mechanism (clipping is
  part of the mechanism, so the guarantee holds whatever the data).  A bound that is too large
  costs accuracy (AG's noise grows with B²), one that is too small biases the estimate; the
  chapter's exercise explores the trade-off.
* ``"Kendall (spherical)"`` needs no bound at all: the spatial sign has norm 1 whatever the data.
* ``"Kendall (winsorized)"`` uses the paper's radius rule r = √d = 4.47 unless ``radius`` is given;
  distances between two people here have median 0.46 (simulation) and 0.26 (real data), so
  r = √d never binds and buys only noise
  (σ ∝ r²).  A radius chosen by looking at the data would cost privacy budget; the twin
  accepts any public ``radius``.
* ``"Analyze Gauss (paper, not private)"`` is Kim & Jung's AG: centre at the sample mean and
  divide by the largest row norm (both read the private data: **not private**), Δ = 8/n.  It
  is what the reference numbers below were measured with.
* ``"SGPCA"`` needs the population spikes and noise level; Kim & Jung leave it out of the map
  for that reason.  Here they are the **sample** eigenvalues of the non-private covariance
  (an oracle: not private) — SGPCA's privacy on this data is nominal.

The projections are always of the full, unscaled X onto the estimated directions:
:math:`S = X\bar V`.  As the paper says, the scatter plot itself is not private (the scores are
the raw data); only the directions are.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy import linalg

from .._validation import check_delta, check_epsilon, check_int, check_option, check_positive
from ..datasets import EUROPE_SOURCES, europe, europe_data_dir, locate_novembre
from ..subspace import random_orthonormal, subspace_distance, top_eigenvectors

__all__ = [
    "METHODS",
    "EUROPE_DATA_NORM",
    "available_methods",
    "procrustes",
    "procrustes_similarity",
    "similarity_scores",
    "nonprivate_map",
    "europe_map",
    "similarity_table",
    "NOVEMBRE_SIMILARITY_TABLE",
    "NOVEMBRE_NONPRIVATE_VALUES",
]

#: The methods of the chapter, in picker order.
METHODS = (
    "Kendall (spherical)",
    "Kendall (winsorized)",
    "Analyze Gauss",
    "Analyze Gauss (paper, not private)",
    "NSGGD",
    "SGPCA",
)

#: The similarity table on the real data of Novembre et al. (2008), built as in Kim & Jung (2025,
#: §4.3): means over 20 releases (δ = 1e-5) by ε of (t₀ vs non-private, spherical Kendall;
#: t₀, Kim & Jung's Analyze Gauss; ‖sin Θ‖ (largest angle), spherical Kendall; ‖sin Θ‖, Analyze Gauss).
NOVEMBRE_SIMILARITY_TABLE = {
    0.1: (0.58, 0.49, 0.99, 0.99),
    0.5: (0.89, 0.60, 0.94, 0.99),
    1.0: (0.92, 0.64, 0.88, 0.98),
    2.0: (0.98, 0.73, 0.54, 0.98),
}
#: The noiseless values on the same real data: non-private spherical Kendall against covariance
#: PCA, both maps against (latitude, longitude), Kendall's top eigenvalues, and the spherical
#: Kendall noise scale σ at ε = 1, δ = 1e-5.
NOVEMBRE_NONPRIVATE_VALUES = {
    "sin_theta_kendall_vs_pca": 0.124,
    "t0_kendall_vs_pca": 0.999,
    "t0_pca_vs_geography": 0.737,
    "t0_kendall_vs_geography": 0.742,
    "kendall_top_eigenvalues": (0.2436, 0.0759, 0.0453, 0.0422, 0.0393),
    "sigma_sph_eps1": 0.01397,
}


# ---------------------------------------------------------------------------------------------
# Procrustes
# ---------------------------------------------------------------------------------------------
def _as_scores(S, name):
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] < 2:
        raise ValueError(f"{name} must be a 2-D array (n_points, n_dims) with n_points >= 2, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} must contain only finite values")
    return S


def procrustes(source, target, *, scale=True):
    r"""Align ``source`` to ``target`` by translation, an orthogonal map and (optionally) a scale.

    Solves :math:`\min_{R^\top R=I,\ s>0,\ c}\lVert sSR + \mathbf 1c^\top - T\rVert_F` (orthogonal
    Procrustes; Schönemann 1966, Gower 1975).  With the column-centred :math:`\tilde S,\tilde T`
    and the SVD :math:`\tilde S^\top\tilde T = U\Sigma W^\top`:

    .. math:: R = UW^\top,\quad s = \frac{\operatorname{tr}\Sigma}{\lVert\tilde S\rVert_F^2},\quad
              c = \bar t - s R^\top\bar s .

    R and tr Σ come from :func:`scipy.linalg.orthogonal_procrustes`.  R may be a reflection (det −1): principal components have arbitrary signs, so mirror
    images count as the same map.  ``scale=False`` keeps s = 1 (a rigid motion: the aligned
    cloud keeps the source's units).

    Parameters
    ----------
    source, target : array_like (n, p)
        Matched rows (the same people in the same order).
    scale : bool, default True
        Fit the scale s (``False``: s = 1, a rigid motion).

    Returns
    -------
    dict
        ``aligned`` (n, p), ``rotation`` R (p, p), ``scale`` s, ``translation`` c (p,),
        ``similarity`` :math:`t_0` (:func:`procrustes_similarity`).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.random.default_rng(0).normal(size=(50, 2))
    >>> c, s = np.cos(0.7), np.sin(0.7)
    >>> S = 3.0 * T @ np.array([[c, -s], [s, c]]) + 5.0          # turned, stretched, moved
    >>> fit = procrustes(S, T)
    >>> bool(np.allclose(fit["aligned"], T)), round(fit["scale"], 6), round(fit["similarity"], 12)
    (True, 0.333333, 1.0)
    """
    S = _as_scores(source, "source")
    T = _as_scores(target, "target")
    if S.shape != T.shape:
        raise ValueError(f"source and target must have the same shape, got {S.shape} and {T.shape}")
    s_mean, t_mean = S.mean(axis=0), T.mean(axis=0)
    Sc, Tc = S - s_mean, T - t_mean
    R, trace_sigma = linalg.orthogonal_procrustes(Sc, Tc)  # R = UWᵀ and tr Σ, from the SVD above
    norm_s, norm_t = np.linalg.norm(Sc), np.linalg.norm(Tc)
    s = float(trace_sigma / norm_s**2) if (scale and norm_s > 0) else 1.0
    aligned = s * Sc @ R + t_mean
    similarity = float(trace_sigma / (norm_s * norm_t)) if norm_s > 0 and norm_t > 0 else 0.0
    return {"aligned": aligned, "rotation": R, "scale": s, "translation": t_mean - s * s_mean @ R,
            "similarity": min(similarity, 1.0)}


def procrustes_similarity(S, T):
    r"""Compute the Procrustes similarity t₀(S, T).

    The Procrustes similarity
    :math:`t_0(S, T)=\sum_i\sigma_i(\tilde S^\top\tilde T)/(\lVert\tilde S\rVert_F\lVert\tilde T\rVert_F)`.

    The correlation of two matched point clouds after the best translation, rotation,
    reflection and scaling (see :func:`procrustes`); in [0, 1], symmetric in S and T.

    Parameters
    ----------
    S, T : array_like, shape (n, p)
        Matched rows (the same people in the same order).

    Returns
    -------
    float
        The similarity t₀, in [0, 1].
    """
    S = _as_scores(S, "S")
    T = _as_scores(T, "T")
    if S.shape[0] != T.shape[0]:
        raise ValueError(f"S and T must have the same number of rows, got {S.shape[0]} and {T.shape[0]}")
    Sc, Tc = S - S.mean(axis=0), T - T.mean(axis=0)
    denom = np.linalg.norm(Sc) * np.linalg.norm(Tc)
    if denom == 0:
        return 0.0
    return float(min(1.0, np.linalg.svd(Sc.T @ Tc, compute_uv=False).sum() / denom))


def _plane_columns(V, d, name):
    """A (2, d) basis (``components_``'s orientation) or a (d, 2) one, as (d, 2) columns.

    The orientation is read against d = X.shape[1], so a wrong shape raises instead of being
    transposed by a guess (at d = 2 both readings span the whole plane: the scores agree)."""
    V = np.asarray(V, dtype=np.float64)
    if V.shape == (2, d):
        return V.T
    if V.shape == (d, 2):
        return V
    raise ValueError(f"{name} must have shape (2, {d}) (like components_) or ({d}, 2), got {V.shape}")


def similarity_scores(components, X, nonprivate_components, coords):
    r"""The three similarity numbers for one estimate of the two leading directions.

    Parameters
    ----------
    components : array_like, shape (2, d) or (d, 2)
        The estimate :math:`\bar V` (e.g. ``est.components_``); d > 2, so the orientation is
        read from the shape.
    X : array_like, shape (n, d)
        The data.
    nonprivate_components : array_like, shape (2, d) or (d, 2)
        :math:`V_{\rm np}`, the non-private PCA directions (e.g. ``data.components``).
    coords : array_like, shape (n, 2)
        (latitude, longitude) of each row.

    Returns
    -------
    dict
        ``t0_nonprivate`` = :math:`t_0(X\bar V, XV_{\rm np})`, ``sin_theta`` =
        :math:`\lVert\sin\Theta(\bar V, V_{\rm np})\rVert_2` (sine of the largest principal angle,
        Kim & Jung's loss; ``subspace_distance(kind="max_angle")``), ``t0_geography`` =
        :math:`t_0(X\bar V,\ \text{(lat, long)})`.
    """
    X = np.asarray(X, dtype=np.float64)
    V = _plane_columns(components, X.shape[1], "components")
    V0 = _plane_columns(nonprivate_components, X.shape[1], "nonprivate_components")
    S = X @ V
    return {
        "t0_nonprivate": procrustes_similarity(S, X @ V0),
        "sin_theta": subspace_distance(V, V0, kind="max_angle"),
        "t0_geography": procrustes_similarity(S, coords),
    }


# ---------------------------------------------------------------------------------------------
# methods
# ---------------------------------------------------------------------------------------------
def _robust():
    try:
        from ..estimators import robust
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    return robust


def available_methods():
    """List the entries of :data:`METHODS` whose estimators can be imported here.

    Returns
    -------
    list of str
        The method names, in the order of :data:`METHODS`.
    """
    robust = _robust()
    out = []
    for name in METHODS:
        needs = {"Kendall (spherical)": "KendallDPPCA", "Kendall (winsorized)": "KendallDPPCA", "SGPCA": "SGPCA",
                 "NSGGD": "NSGGD", "Analyze Gauss (paper, not private)": "NonPrivateAnalyzeGaussReplication"}.get(name)
        if needs is None or (robust is not None and hasattr(robust, needs)):
            out.append(name)
    return tuple(out)


#: The public row-norm bound B of the Europe experiments: a design constant fixed before the
#: analysis (never computed from the data); see the module docstring.
EUROPE_DATA_NORM = 1.0


def _estimator(method, data, epsilon, delta, seed, calibration, radius):
    """The estimator for ``method`` on this data (see the module docstring for the scaling)."""
    check_option(method, "method", METHODS)
    if method == "Analyze Gauss":
        from ..estimators import AnalyzeGauss

        return AnalyzeGauss(2, epsilon=epsilon, delta=delta, data_norm=EUROPE_DATA_NORM, calibration=calibration,
                            random_state=seed)
    robust = _robust()
    name = {"Kendall (spherical)": "KendallDPPCA", "Kendall (winsorized)": "KendallDPPCA", "SGPCA": "SGPCA",
            "NSGGD": "NSGGD", "Analyze Gauss (paper, not private)": "NonPrivateAnalyzeGaussReplication"}[method]
    cls = getattr(robust, name, None) if robust is not None else None
    if cls is None:
        raise ValueError(f"method {method!r} is not available: privpca_edu.estimators.robust.{name} "
                         f"could not be imported; available: {', '.join(available_methods())}")
    if method.startswith("Kendall"):
        kind = "spherical" if "spherical" in method else "winsorized"
        return cls(2, epsilon=epsilon, delta=delta, transform_kind=kind,
                   radius=radius if kind == "winsorized" else None, calibration=calibration, random_state=seed)
    if method == "NSGGD":
        return cls(2, epsilon=epsilon, delta=delta, data_norm=EUROPE_DATA_NORM, random_state=seed)
    if method == "SGPCA":
        values = data.eigenvalues  # of the centred covariance: an oracle, not private
        bulk = float(np.mean(values[2:]))
        return cls(2, epsilon=epsilon, delta=delta, spikes=(values[0] - bulk, values[1] - bulk), noise_variance=bulk,
                   calibration=calibration, random_state=seed)
    return cls(2, epsilon=epsilon, delta=delta, calibration=calibration, random_state=seed)


# ---------------------------------------------------------------------------------------------
# cached non-private part
# ---------------------------------------------------------------------------------------------
def _data_key(source):
    check_option(source, "source", EUROPE_SOURCES)
    if source == "synthetic":
        return ("synthetic", None)
    try:
        folder = locate_novembre(cache_dir=None)
    except FileNotFoundError:
        raise ValueError(
            f"source='novembre' needs the real files on disk (looked in {europe_data_dir()}); call "
            "privpca_edu.datasets.europe(source='novembre') once with network access, set PRIVPCA_EDU_DATA, "
            "or use source='synthetic'"
        ) from None
    return ("novembre", str(folder))


@functools.lru_cache(maxsize=4)
def _cached_data(source, folder, random_state):
    if source == "synthetic":
        return europe("synthetic", random_state=random_state)
    return europe("novembre", data_dir=folder, download=False, random_state=random_state)


def _random_plane_level(data, V0, n_planes=200, seed=0):
    """Mean scores of Haar-random planes: the "no information" level of each score."""
    rng = np.random.default_rng(seed)
    rows = [similarity_scores(random_orthonormal(data.X.shape[1], 2, rng), data.X, V0, data.coords)
            for _ in range(n_planes)]
    return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}


def _centroids(points, labels, populations):
    return np.array([points[labels == p.label].mean(axis=0) for p in populations])


#: Folders shared with the dashboards' starting figures (privpca_edu/widgets/dashboard.py:
#: ``START_ENV``, ``SAVE_START_ENV``): scripts/live_book.sh's build saves the simulated map's
#: non-private part there, and its Live Code kernels read it instead of simulating again.
_SAVED_ENV, _SAVE_ENV = "PRIVPCA_LIVE_START", "PRIVPCA_LIVE_START_SAVE"


def _saved_path(folder, source, random_state):
    """The file of the simulated data's non-private part in ``folder``, named by a digest of
    the package's source (the simulation and this module) and the versions of NumPy and SciPy."""
    import hashlib
    from pathlib import Path

    import scipy

    from .._version import source_digest

    digest = hashlib.sha256(repr((source, random_state, np.__version__, scipy.__version__)).encode())
    digest.update(source_digest().encode())
    return Path(folder) / f"europe-nonprivate-{digest.hexdigest()[:24]}.pickle"


@functools.lru_cache(maxsize=4)
def _nonprivate(source, folder, random_state):
    """:func:`_nonprivate_parts`, for the simulated data read from the live build's folder when
    it saved them (a Live Code kernel then draws its first map without simulating the data)."""
    import os
    import pickle

    if source != "synthetic":
        return _nonprivate_parts(source, folder, random_state)
    read, save = (os.environ.get(name, "").strip() for name in (_SAVED_ENV, _SAVE_ENV))
    if read:
        try:
            with open(_saved_path(read, source, random_state), "rb") as stored:
                out = pickle.load(stored)  # (written by the build below: this user's own folder)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            out = None
        if isinstance(out, dict):
            for value in out.values():
                if isinstance(value, np.ndarray):
                    value.setflags(write=False)
            return out
    out = _nonprivate_parts(source, folder, random_state)
    if save:
        path = _saved_path(save, source, random_state)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}")
            partial.write_bytes(pickle.dumps(out))
            os.replace(partial, path)
        except OSError:
            pass
    return out


def _nonprivate_parts(source, folder, random_state):
    data = _cached_data(source, folder, random_state)
    V0 = data.components  # (2, d): one direction per row
    S0 = data.X @ V0.T
    geography = data.coords[:, ::-1]  # (longitude, latitude): x east, y north
    fit = procrustes(S0, geography, scale=False)  # a rigid turn: the map keeps PC units
    display = fit["aligned"] - fit["aligned"].mean(axis=0)
    out = {
        "data": data,
        "source": data.source,
        "components": V0,
        "display_rotation": fit["rotation"],
        "nonprivate": display,
        "nonprivate_centroids": _centroids(display, data.labels, data.populations),
        "t0_geography_nonprivate": fit["similarity"],
        "geography": geography,
        "geography_centroids": np.array([[p.longitude, p.latitude] for p in data.populations]),
        "codes": tuple(p.code for p in data.populations),
        "population_labels": tuple(p.label for p in data.populations),
        "population_sizes": tuple(int(np.sum(data.labels == p.label)) for p in data.populations),
        "colors": data.colors,
        "population_colors": tuple(data.colors[np.flatnonzero(data.labels == p.label)[0]] for p in data.populations),
        "random_plane": _random_plane_level(data, V0),
    }
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return out


def nonprivate_map(source="synthetic", random_state=0):
    """Return the non-private half of the chapter's figure (cached).

    Parameters
    ----------
    source : {"synthetic", "novembre"}, default "synthetic"
        The data (:func:`~privpca_edu.datasets.europe`); ``"novembre"`` needs the real files on
        disk.
    random_state : int, default 0
        The Haar rotation of the data.

    Returns
    -------
    dict
        ``data`` (:class:`~privpca_edu.datasets.EuropeData`), ``source`` (its label),
        ``components`` (2 × d, the non-private PCA directions as rows), ``nonprivate`` (n × 2: the
        scores :math:`XV_{\\rm np}`, centred and turned rigidly — rotation or reflection, no
        scaling — to line up with (longitude, latitude), in PC units; Novembre et al. turned
        theirs by −16°), ``nonprivate_centroids`` (one row per population), ``geography`` (n × 2
        longitude, latitude), ``geography_centroids``, ``t0_geography_nonprivate``, ``codes``,
        ``population_labels``, ``population_sizes``, ``colors`` (per row),
        ``population_colors``, ``random_plane`` (the three scores averaged over 200 Haar-random
        planes: what "no information" looks like — about 0.5 for t₀ vs the non-private map,
        because any plane catches part of PC1).  Arrays are read-only (shared by every call).
    """
    return _nonprivate(*_data_key(source), random_state)


# ---------------------------------------------------------------------------------------------
# the twin
# ---------------------------------------------------------------------------------------------
def _fit(method, data, epsilon, delta, seed, calibration, radius):
    est = _estimator(method, data, epsilon, delta, seed, calibration, radius)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(data.X)
    notes = []
    for w in caught:
        text = str(w.message)
        if text not in notes:
            notes.append(text)
    return est, notes


def europe_map(method="Kendall (spherical)", epsilon=1.0, delta=1e-5, seed=0, *, source="synthetic",
               calibration="classic", radius=None, random_state=0):
    r"""The chapter's dashboard twin: a private 2-D map, aligned to the non-private one, and its scores.

    Parameters
    ----------
    method : str
        One of :data:`METHODS` (see :func:`available_methods`).  A method whose estimator is
        missing raises ``ValueError`` (the dashboard writes it over the figure).
    epsilon, delta : float
        The privacy budget of the two directions (ε = ``numpy.inf``: no noise).
    seed : int
        The mechanism's noise seed.
    source : {"synthetic", "novembre"}
        ``"novembre"`` reads the real files from the cache / ``PRIVPCA_EDU_DATA`` (never downloads).
    calibration : {"classic", "analytic"}, default "classic"
        σ of the Gaussian mechanisms (classic: the papers' formula, proved for ε < 1; it warns
        above, and the warning is returned in ``notes``).  NSGGD uses exact zCDP either way.
    radius : float or None
        Winsorization radius for ``"Kendall (winsorized)"`` (public; None = √d).
    random_state : int
        The data's rotation Q (``datasets.europe``).

    Returns
    -------
    dict
        Everything of :func:`nonprivate_map` (except ``data``) plus ``method``, ``epsilon``,
        ``delta``, ``seed``, ``private`` (n × 2: :math:`X\bar V` Procrustes-aligned — translation,
        rotation/reflection and scale — to ``nonprivate``), ``private_centroids``,
        ``alignment_scale``, ``scores`` (:func:`similarity_scores`: ``t0_nonprivate``,
        ``sin_theta``, ``t0_geography``), ``noise_scale``, ``is_private`` (False for the
        non-private replications and for SGPCA), ``privacy_note``, ``notes`` (warnings raised
        while fitting, as text).

    Examples
    --------
    >>> r = europe_map("Kendall (spherical)", epsilon=1.0, seed=0)
    >>> r["private"].shape, r["source"], 0.0 <= r["scores"]["t0_nonprivate"] <= 1.0
    ((1387, 2), 'simulated', True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    seed = check_int(seed, "seed", low=0)
    check_option(calibration, "calibration", ("classic", "analytic"))
    if radius is not None:
        radius = check_positive(radius, "radius")
    random_state = check_int(random_state, "random_state", low=0)
    check_option(method, "method", METHODS)
    base = nonprivate_map(source, random_state)
    data = base["data"]
    est, notes = _fit(method, data, epsilon, delta, seed, calibration, radius)
    V = est.components_.T
    S = data.X @ V
    fit = procrustes(S, base["nonprivate"], scale=True)
    private = fit["aligned"]
    record = est.privacy_
    result = {k: v for k, v in base.items() if k != "data"}
    result["random_plane"] = dict(base["random_plane"])  # the caller's own copy
    result.update(
        method=method, epsilon=epsilon, delta=delta, seed=seed, calibration=calibration,
        private=private,
        private_centroids=_centroids(private, data.labels, data.populations),
        alignment_scale=fit["scale"],
        scores=similarity_scores(V, data.X, base["components"], data.coords),
        noise_scale=float(est.noise_scale_) if getattr(est, "noise_scale_", None) is not None else None,
        is_private=bool(record.is_private) and not math.isinf(epsilon),
        privacy_note=record.note,
        notes=notes,
    )
    return result


def similarity_table(methods=("Kendall (spherical)", "Analyze Gauss (paper, not private)"),
                     epsilons=(0.1, 0.5, 1.0, 2.0), delta=1e-5, n_draws=20, *, source="synthetic",
                     calibration="classic", random_state=0, seed=0):
    r"""The similarity table: mean and standard deviation over repeated releases of the three scores.

    For the noisy-matrix mechanisms (Analyze Gauss, both Kendalls, SGPCA) the noiseless
    statistic is computed once and ``n_draws`` releases are drawn in a batch
    (``sample_releases``: exactly the noise ``fit`` adds); NSGGD is refitted ``n_draws`` times.

    Parameters
    ----------
    methods : sequence of str, default=("Kendall (spherical)", "Analyze Gauss (paper, not private)")
        Entries of :data:`METHODS`.
    epsilons : sequence of float, default=(0.1, 0.5, 1.0, 2.0)
        The ε values.
    delta : float, default=1e-5
        Privacy parameter δ in (0, 1).
    n_draws : int, default=20
        Releases per method and ε.
    source : {"synthetic", "novembre"}, default="synthetic"
        The data: the synthetic stand-in, or the real files (which must be on disk).
    calibration : {"classic", "analytic"}, default="classic"
        The σ calibration of the Gaussian mechanisms.
    random_state : int, default=0
        Seed of the synthetic data.
    seed : int, default=0
        Seed of the releases.

    Returns
    -------
    dict
        ``methods``, ``epsilons`` (array), ``n_draws``, ``source``, and for each method a dict with arrays
        (len(epsilons),) ``t0_nonprivate``, ``sin_theta``, ``t0_geography`` (means) and
        ``*_sd`` (standard deviations over draws); ``random_plane`` (the scores of a Haar-random
        plane, :func:`nonprivate_map`); ``notes`` (warnings, as text).
    """
    n_draws = check_int(n_draws, "n_draws", low=1)
    delta = check_delta(delta)
    epsilons = np.array([check_epsilon(e) for e in np.atleast_1d(epsilons)], dtype=np.float64)
    base = nonprivate_map(source, random_state)
    data = base["data"]
    X, V0, coords = data.X, base["components"], data.coords
    rng = np.random.default_rng(seed)
    methods = tuple(methods)
    out = {"methods": methods, "epsilons": epsilons, "n_draws": n_draws, "source": base["source"], "delta": delta,
           "random_plane": dict(base["random_plane"])}
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for method in methods:
            rows = {key: np.empty((epsilons.size, n_draws)) for key in ("t0_nonprivate", "sin_theta", "t0_geography")}
            for i, eps in enumerate(epsilons):
                est = _estimator(method, data, eps, delta, rng, calibration, None)
                if hasattr(est, "sample_releases"):
                    releases = est.sample_releases(X, n_draws, random_state=rng)
                    bases = [top_eigenvectors(M, 2)[1] for M in releases]
                else:
                    bases = []
                    for _ in range(n_draws):
                        est.set_params(random_state=rng)
                        bases.append(est.fit(X).components_.T)
                for j, V in enumerate(bases):
                    scores = similarity_scores(V, X, V0, coords)
                    for key in rows:
                        rows[key][i, j] = scores[key]
            out[method] = {}
            for key, values in rows.items():
                out[method][key] = values.mean(axis=1)
                out[method][key + "_sd"] = values.std(axis=1, ddof=1) if n_draws > 1 else np.zeros(epsilons.size)
    for w in caught:
        if str(w.message) not in notes:
            notes.append(str(w.message))
    out["notes"] = notes
    return out
