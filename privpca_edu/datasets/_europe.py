r"""The Europe map of Kim & Jung (2025, §4.3): 1387 Europeans × 20 genetic principal components.

Two sources, one container (:class:`EuropeData`):

``source="synthetic"`` (default; bundled, offline, deterministic)
    A population-genetics simulation of the POPRES design: the 37 populations of Novembre et
    al. (2008) at their coordinates and sample sizes (the table :data:`EUROPE_POPULATIONS` is a
    fact about the study design, not individual data), allele frequencies that vary smoothly
    over the map (isolation by distance), genotypes, and the top-20 principal components of
    the standardised genotypes, scaled as in the real data.  Plain PCA of it draws a map of
    Europe.  It is **simulated**: every figure that uses it says so.

``source="novembre"``
    The real thing, rebuilt from the public smartpca summary files of Novembre et al. (2008)
    (GitHub ``NovembreLab/Novembre_etal_2008_misc``, directory ``files/``).  The files carry no
    licence, so they are **not** shipped: :func:`europe` downloads them on first use into a cache
    directory and checks their pinned SHA-256 checksums, or reads them from ``data_dir``.

Both are built as in Kim & Jung's Section 4.3 (the construction of CoinPress, Biswas et al. 2020,
without its factor 20, which is what the paper's authors ship in the R package ``dppca``):

.. math:: X = V_{\rm ev}\,\operatorname{diag}(\ell_1,\dots,\ell_{20})\,Q,

where :math:`V_{\rm ev}` (n × 20) holds the first 20 smartpca eigenvectors (orthonormal,
mean-zero columns), :math:`\ell_j` the smartpca eigenvalues (normalised to sum to n − 1 over all
n components) and Q a Haar-random 20 × 20 rotation drawn from ``random_state``.  So the
eigenvalues of :math:`X^\top X` are :math:`\ell_j^2` and its eigenvectors are the rows of Q.

A bound on the rows that follows from the construction: :math:`V_{\rm ev}` has orthonormal
columns, so each of its rows has norm ≤ 1 (a leverage), and therefore
:math:`\lVert x_i\rVert \le \ell_1` for every person.  :attr:`EuropeData.row_norm_bound` is
this :math:`\ell_1` (4.093 for the real data).  It is computed from the genotypes themselves,
so it is **not** a public bound: a private mechanism must not use it as ``data_norm`` (it
would leak ℓ₁, which changes when one person is replaced).  The experiments use the design
constant ``experiments.europe.EUROPE_DATA_NORM`` instead.
"""

from __future__ import annotations

import colorsys
import functools
import hashlib
import math
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.sparse.linalg import eigsh

from .._validation import check_int, check_option, check_positive, as_generator
from ..subspace import top_eigenvectors
from ._base import SyntheticData

__all__ = [
    "europe",
    "EuropeData",
    "Population",
    "EUROPE_POPULATIONS",
    "NOVEMBRE_FILES",
    "NOVEMBRE_BASE_URL",
    "ChecksumError",
    "EUROPE_SOURCES",
    "europe_data_dir",
    "locate_novembre",
    "novembre_available",
    "population_colors",
]

#: The values of :func:`europe`'s ``source``: the bundled simulation and the real files.
EUROPE_SOURCES = ("synthetic", "novembre")
SOURCE_LABELS = {"synthetic": "simulated", "novembre": "Novembre et al. 2008"}


class Population(NamedTuple):
    """One POPRES population of Novembre et al. (2008): a study-design fact, safe to publish."""

    label: str  #: the ``plabels`` name used in the public files
    code: str  #: a short unique display code (the three Swiss groups get CH-F / CH-G / CH-I)
    latitude: float  #: degrees north
    longitude: float  #: degrees east
    size: int  #: individuals in the 1387-person sample


#: The 37 population labels, their coordinates and sample sizes (Novembre et al. 2008).
#: Ordered by sample size.
EUROPE_POPULATIONS = tuple(Population(*row) for row in (
    ("Italy", "IT", 42.00, 12.50, 219),
    ("United Kingdom", "UK", 53.54, -2.33, 200),
    ("Spain", "ES", 40.33, -3.57, 136),
    ("Portugal", "PT", 39.59, -8.02, 128),
    ("Swiss-French", "CH-F", 46.20, 6.15, 125),
    ("France", "FR", 46.61, 2.39, 91),
    ("Swiss-German", "CH-G", 47.36, 8.55, 84),
    ("Germany", "DE", 51.08, 10.36, 71),
    ("Ireland", "IE", 53.20, -8.18, 61),
    ("Serbia and Montenegro", "YG", 43.95, 20.62, 44),
    ("Belgium", "BE", 50.66, 4.61, 43),
    ("Poland", "PL", 52.14, 19.39, 22),
    ("Hungary", "HU", 47.18, 19.37, 19),
    ("Netherlands", "NL", 52.27, 5.67, 17),
    ("Romania", "RO", 45.89, 24.98, 14),
    ("Austria", "AT", 47.59, 14.12, 14),
    ("Swiss-Italian", "CH-I", 46.00, 8.95, 13),
    ("Czech Republic", "CZ", 49.74, 15.38, 11),
    ("Sweden", "SE", 59.35, 18.00, 10),
    ("Bosnia and Herzegovina", "BA", 44.18, 17.86, 9),
    ("Croatia", "HR", 45.32, 16.10, 8),
    ("Greece", "GR", 40.03, 22.71, 8),
    ("Russian Federation", "RU", 55.75, 37.50, 6),
    ("Scotland", "Sct", 55.95, -3.20, 5),
    ("Macedonia, The Former Yugoslav Republic Of", "MK", 41.67, 21.69, 4),
    ("Cyprus", "CY", 35.10, 33.20, 4),
    ("Turkey", "TR", 39.06, 35.41, 4),
    ("Albania", "AL", 41.20, 20.07, 3),
    ("Norway", "NO", 59.93, 10.68, 3),
    ("Bulgaria", "BG", 42.82, 25.22, 2),
    ("Slovenia", "SI", 46.12, 14.77, 2),
    ("Kosovo", "KS", 42.70, 21.10, 2),
    ("Slovakia", "SK", 48.71, 19.52, 1),
    ("Ukraine", "UA", 49.06, 31.39, 1),
    ("Latvia", "LV", 56.91, 24.86, 1),
    ("Denmark", "DK", 56.06, 9.25, 1),
    ("Finland", "FI", 60.17, 24.93, 1),
))
_BY_LABEL = {p.label: p for p in EUROPE_POPULATIONS}

# -- the real data: where it lives and what it must hash to ------------------------------------
#: Raw-file address of the public repository (branch ``master``, directory ``files/``).
NOVEMBRE_BASE_URL = "https://raw.githubusercontent.com/NovembreLab/Novembre_etal_2008_misc/master/files/"
_EIGS = "POPRES_08_24_01.EuroThinFinal.LD_0.8.exLD.out0-PCA.eigs"
_EVAL = "POPRES_08_24_01.EuroThinFinal.LD_0.8.exLD.out0-PCA.eval"
_TABLE = "PCA.txt"
_COLORS = "POPRESID_Color.txt"
#: file name → SHA-256 of the copy read for this package (snapshot of 2014; see PROVENANCE).
NOVEMBRE_FILES = {
    _EIGS: "dc1bcb2c1fd4c7a4bf9972f34a8dbf82e2fff845d81fbaa8257837e85c6c754a",
    _EVAL: "bd0b6c692a9aa0f5dca180efef43a8326b00159a077544cd38630f6eaacf2ffd",
    _TABLE: "5715aa26e23125c6fbcb4521d81b527bad3a18f877b342c6b07bf2806078ec8f",
    _COLORS: "62f826adc2c5ed6b8acc01c9453deda43f59874a2e7fbe6d5f4f91b4ef493638",
}
_SUBDIR = "novembre2008"
ENV_VAR = "PRIVPCA_EDU_DATA"

_SYNTHETIC_DEFAULTS = dict(n_loci=4000, length_scale_km=2000.0, amplitude=0.3, jitter_km=150.0, n_features_rff=128,
                           simulation_seed=2008)
_EARTH_RADIUS_KM = 6371.0


class ChecksumError(ValueError):
    """A data file does not have the pinned SHA-256: corrupted, truncated or a different version."""


@dataclass(repr=False)
class EuropeData(SyntheticData):
    """The Europe data: X (n, 20) plus who each row is and where they come from.

    Parameters
    ----------
    X : ndarray (n, 20)
        :math:`V_{\\rm ev}\\operatorname{diag}(\\ell)Q` (module docstring).  One row = one person's
        20 principal-component coordinates, the privacy unit of the chapter.
    components : ndarray (2, 20)
        The two leading principal axes of X as rows (top-2 eigenvectors of its centred
        covariance, signs fixed by :func:`privpca_edu.subspace.fix_signs`; the orientation of an
        estimator's ``components_``): the **non-private** target the private estimators are
        compared with.  Equal to the first two rows of Q (up to sign; to 1e-4 for the real data,
        whose eigenvector entries are rounded).
    covariance : None
        Not defined for this data.
    eigenvalues : ndarray (20,)
        Eigenvalues of the centred second moment :math:`\\tilde X^\\top\\tilde X/n`, descending
        (≈ ℓ_j²/n).
    support : None
        Not a sparse model.
    info : dict
        ``source`` and, for the simulation, its parameters; for the real data the folder and
        the files' own colour names (``popres_colors``).
    labels : ndarray of str (n,)
        Population label of each person (the ``plabels`` of the files; 37 distinct).
    codes : ndarray of str (n,)
        The short display code of each person's population (:data:`EUROPE_POPULATIONS`).
    coords : ndarray (n, 2)
        (latitude, longitude) in degrees of each person's population (as in the real files:
        one point per population).
    colors : ndarray of str (n,)
        A hex colour per person that encodes *where the population lives* (hue = direction from
        the centre of the sample, saturation = distance; :func:`population_colors`), the same for
        both sources.  The real files' own R colour names are in ``info["popres_colors"]``.
    nonprivate_pcs : ndarray (n, 2)
        Scores on the two non-private axes, ``X @ components.T`` (PC units).
    smartpca_eigenvalues : ndarray (20,)
        The eigenvalues ℓ_1 … ℓ_20 (the real files' ``.eval``; the simulation's, normalised the same way).
    row_norm_bound : float
        The bound ℓ_1: every row has norm ≤ ℓ_1 by construction (module docstring).  Computed from the
        data, so **not** a public bound: never pass it as a private estimator's ``data_norm``.
    source : str
        ``"simulated"`` or ``"Novembre et al. 2008"`` — show it next to every figure.
    populations : tuple of Population
        The populations present, in table order.
    """

    labels: np.ndarray | None = None
    codes: np.ndarray | None = None
    coords: np.ndarray | None = None
    colors: np.ndarray | None = None
    nonprivate_pcs: np.ndarray | None = None
    smartpca_eigenvalues: np.ndarray | None = None
    row_norm_bound: float = float("nan")
    source: str = ""
    populations: tuple = field(default_factory=tuple)

    @property
    def latitude(self):
        """The latitude in degrees of each person's population, shape (n,) (``coords[:, 0]``)."""
        return self.coords[:, 0]

    @property
    def longitude(self):
        """The longitude in degrees of each person's population, shape (n,) (``coords[:, 1]``)."""
        return self.coords[:, 1]

    def __repr__(self):
        return (f"EuropeData(source={self.source!r}, X: {self.X.shape}, "
                f"{len(self.populations)} populations, row_norm_bound={self.row_norm_bound:.4g})")


# ---------------------------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------------------------
def europe(source="synthetic", *, cache_dir=None, data_dir=None, download=True, random_state=0, **simulation):
    r"""The Europe map data: 1387 people × 20 genetic principal components, labels, coordinates.

    Parameters
    ----------
    source : {"synthetic", "novembre"}
        ``"synthetic"`` (default): the bundled simulation (offline, about half a second the
        first time, then cached).  ``"novembre"``: the real summary files of Novembre et al.
        (2008), downloaded on first use (see below).
    cache_dir : str or Path, optional
        ``source="novembre"``: where downloaded files are kept, in a ``novembre2008/``
        sub-folder.  Default: the environment variable ``PRIVPCA_EDU_DATA`` if set, else
        ``~/.cache/privpca_edu``.
    data_dir : str or Path, optional
        ``source="novembre"``: read the files from this folder instead (never downloads, never
        writes).  The folder holds the files themselves, or a ``novembre2008/`` sub-folder.
    download : bool, default True
        ``source="novembre"``: fetch missing files from :data:`NOVEMBRE_BASE_URL`.  With
        ``False`` a missing file raises :class:`FileNotFoundError` (what the book does: it has no
        network).
    random_state : None, int or Generator, default 0
        Draws the Haar rotation Q (both sources).  The simulated *population sample* does not
        depend on it (it is fixed, like the real study; see ``simulation_seed``).
    **simulation
        ``source="synthetic"`` only, for experiments with the model: ``n_loci`` (4000),
        ``length_scale_km`` (2000), ``amplitude`` (0.3), ``jitter_km`` (150),
        ``n_features_rff`` (128), ``simulation_seed`` (2008).  See Notes.

    Returns
    -------
    EuropeData
        The 1387 × 20 matrix ``X`` with its labels, codes, coordinates, colours, non-private
        scores, eigenvalues and ``source`` (the fields are described in :class:`EuropeData`).

    Raises
    ------
    ValueError
        Unknown ``source`` or simulation argument.
    FileNotFoundError
        ``source="novembre"``: a file is missing and ``download=False`` or ``data_dir`` is given.
    ConnectionError
        ``source="novembre"``: the download failed (offline?); the message says what to do.
    ChecksumError
        ``source="novembre"``: a file's SHA-256 differs from the pinned one.

    Notes
    -----
    **The simulation** (all parameters are ours):

    1. *People.*  Each of the 37 POPRES populations contributes its real sample size; a person
       lives at the population's coordinates plus an isotropic Gaussian displacement of
       ``jitter_km`` (150 km) per axis (people do not all live at the centroid).
    2. *Isolation by distance.*  Each of L = ``n_loci`` independent loci has an allele-frequency
       surface :math:`p_l(x)=\operatorname{expit}(\operatorname{logit}\bar p_l + a f_l(x))` with a
       base frequency :math:`\bar p_l\sim U(0.05, 0.95)`, amplitude a = ``amplitude`` and
       :math:`f_l` a unit-variance Gaussian process over Europe with the squared-exponential
       kernel :math:`\exp(-\lVert x-x'\rVert^2/2s^2)` on the chordal (≈ great-circle) distance
       between points of the sphere, s = ``length_scale_km``.  :math:`f_l` is sampled with 128
       random Fourier features (Rahimi & Recht 2007), so all loci cost one matrix product.
       Nearby people therefore have similar allele frequencies; the first two principal
       components of such data are smooth gradients across the map (Novembre & Stephens 2008).
    3. *Genotypes* :math:`g_{il}\sim\text{Binomial}(2, p_l(x_i))`.
    4. *smartpca.*  Standardise each locus, :math:`(g-2\hat p)/\sqrt{2\hat p(1-\hat p)}` with
       the sample frequency :math:`\hat p` (Patterson et al. 2006), drop monomorphic loci,
       take the top-20 eigenvectors :math:`V_{\rm ev}` of the n × n genetic relationship
       matrix and its eigenvalues normalised to sum to n − 1 (as smartpca's ``.eval``).
    5. :math:`X = V_{\rm ev}\operatorname{diag}(\ell_{1:20})Q`, exactly as for the real data.

    With the defaults the spectrum has the real data's shape (two leading eigenvalues of
    :math:`X^\top X` at 7.2 and 2.8 times the smallest of the 20, the third at 1.15; real: 9.6,
    2.4, 1.4), and plain PCA's (PC1, PC2) match (latitude, longitude) with Procrustes
    correlation 0.90 (0.88–0.90 over simulation seeds 2000–2007; the real data: 0.74 — real
    populations carry more structure than isolation by distance alone).  The parameters were
    chosen for that: a shorter length scale spreads the variation over more than two strong
    gradients; a smaller amplitude or a longer length scale sinks the map into the sampling
    noise of L = 4000 loci
    (whose Marchenko–Pastur bulk sits near 2.3, higher than the real data's 1.3, which come from
    ~200 000 SNPs; generating those would take minutes, not half a second).

    **The real data** (Novembre et al. 2008, as used in Kim & Jung's Section 4.3): columns 2–21 of the ``.eigs`` file (after its
    ``#eigvals`` header line), the first 20 lines of the ``.eval`` file, labels and coordinates
    from ``PCA.txt`` (same row order, checked).  Column means are ~1e-6 (the entries are rounded
    to 4 decimals).  The privacy caveat: these PCs were computed from everyone's genotypes —
    see the chapter *Genes mirror geography, privately*.

    Examples
    --------
    >>> data = europe()                      # the simulation: offline and deterministic
    >>> data.X.shape, data.source, len(data.populations)
    ((1387, 20), 'simulated', 37)
    """
    check_option(source, "source", EUROPE_SOURCES)
    if source == "synthetic":
        if cache_dir is not None or data_dir is not None:
            raise ValueError("cache_dir and data_dir apply only to source='novembre'")
        params = dict(_SYNTHETIC_DEFAULTS)
        unknown = set(simulation) - set(params)
        if unknown:
            raise ValueError(f"unknown simulation argument(s) {sorted(unknown)}; allowed: {sorted(params)}")
        params.update(simulation)
        params = _check_simulation(**params)
        parsed = _simulate(**params)
        info = {"source": "synthetic", **params}
    else:
        if simulation:
            raise ValueError(f"simulation arguments {sorted(simulation)} apply only to source='synthetic'")
        folder = _novembre_folder(cache_dir=cache_dir, data_dir=data_dir, download=download)
        digests = _verify(folder)
        parsed = _parse_novembre(str(folder), tuple(digests[name] for name in NOVEMBRE_FILES))
        info = {"source": "novembre", "folder": str(folder), "popres_colors": parsed["popres_colors"]}
    return _assemble(parsed, source, random_state, info)


def europe_data_dir(cache_dir=None):
    """Return the folder the real files are downloaded to: ``<cache_dir>/novembre2008``.

    Parameters
    ----------
    cache_dir : str or Path, optional
        Defaults to ``$PRIVPCA_EDU_DATA``, else ``~/.cache/privpca_edu``.

    Returns
    -------
    Path
        The folder (it need not exist).

    Examples
    --------
    >>> europe_data_dir("/tmp/cache").as_posix()
    '/tmp/cache/novembre2008'
    """
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_VAR) or os.path.join(os.path.expanduser("~"), ".cache", "privpca_edu")
    return Path(cache_dir).expanduser() / _SUBDIR


def novembre_available(*, cache_dir=None, data_dir=None):
    """Tell whether all real files are already on disk (cache or ``data_dir``), without download or hashing.

    The book uses it to decide, offline, whether it can show the real map.

    Parameters
    ----------
    cache_dir, data_dir : str or Path, optional
        Where to look, as for :func:`europe`.

    Returns
    -------
    bool
        True if :func:`locate_novembre` finds every file.
    """
    try:
        locate_novembre(cache_dir=cache_dir, data_dir=data_dir)
    except FileNotFoundError:
        return False
    return True


def population_colors(populations=EUROPE_POPULATIONS):
    """A hex colour per population that encodes its position on the map.

    Hue = compass direction from the centre of the sample (46.5°N, 12°E), saturation grows with
    the distance from it, so neighbours get similar colours and a correct PCA map shows a smooth
    colour wheel, a scrambled one a mess.  Depends only on the public population table.
    """
    out = {}
    for p in populations:
        dx = (p.longitude - 12.0) * math.cos(math.radians(46.5))
        dy = p.latitude - 46.5
        hue = (math.atan2(dy, dx) / (2 * math.pi)) % 1.0
        sat = 0.3 + 0.7 * min(1.0, math.hypot(dx, dy) / 12.0)
        val = 0.88 - 0.25 * min(1.0, math.hypot(dx, dy) / 20.0)
        r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
        out[p.label] = f"#{int(255 * r):02x}{int(255 * g):02x}{int(255 * b):02x}"
    return out


# ---------------------------------------------------------------------------------------------
# common assembly
# ---------------------------------------------------------------------------------------------
def _haar_rotation(d, random_state):
    rng = as_generator(random_state)
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    return Q * np.sign(np.diag(R))  # sign fix: Haar distributed (Mezzadri 2007)


def _assemble(parsed, source, random_state, info):
    V, ell = parsed["eigenvectors"], parsed["eigenvalues"]
    d = V.shape[1]
    Q = _haar_rotation(d, random_state)
    X = (V * ell) @ Q
    labels = parsed["labels"]
    present = set(labels.tolist())
    populations = tuple(p for p in EUROPE_POPULATIONS if p.label in present)
    palette = population_colors(populations)
    codes = np.array([_BY_LABEL[lab].code for lab in labels])
    colors = np.array([palette[lab] for lab in labels])
    Xc = X - X.mean(axis=0)
    values, components = top_eigenvectors(Xc.T @ Xc / X.shape[0], 2)
    all_values = np.linalg.eigvalsh(Xc.T @ Xc / X.shape[0])[::-1]
    return EuropeData(
        X=X, components=components.T.copy(), eigenvalues=all_values, labels=labels.copy(), codes=codes,
        coords=parsed["coords"].copy(), colors=colors, nonprivate_pcs=X @ components,
        smartpca_eigenvalues=ell.copy(), row_norm_bound=float(ell[0]), source=SOURCE_LABELS[source],
        populations=populations, info=info,
    )


# ---------------------------------------------------------------------------------------------
# the simulation
# ---------------------------------------------------------------------------------------------
def _check_simulation(n_loci, length_scale_km, amplitude, jitter_km, n_features_rff, simulation_seed):
    return dict(
        n_loci=check_int(n_loci, "n_loci", low=50),
        length_scale_km=check_positive(length_scale_km, "length_scale_km"),
        amplitude=check_positive(amplitude, "amplitude", allow_zero=True),
        jitter_km=check_positive(jitter_km, "jitter_km", allow_zero=True),
        n_features_rff=check_int(n_features_rff, "n_features_rff", low=1),
        simulation_seed=check_int(simulation_seed, "simulation_seed", low=0),
    )


def _sphere_points(latitude, longitude):
    lat, lon = np.radians(latitude), np.radians(longitude)
    return _EARTH_RADIUS_KM * np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


@functools.lru_cache(maxsize=4)
def _simulate(n_loci, length_scale_km, amplitude, jitter_km, n_features_rff, simulation_seed):
    """Steps 1–4 of :func:`europe`'s Notes; returns read-only arrays (cached)."""
    rng = np.random.default_rng(simulation_seed)
    sizes = np.array([p.size for p in EUROPE_POPULATIONS])
    labels = np.repeat(np.array([p.label for p in EUROPE_POPULATIONS]), sizes)
    coords = np.repeat(np.array([[p.latitude, p.longitude] for p in EUROPE_POPULATIONS]), sizes, axis=0)
    n = labels.size
    # 1. where people live (3-D points on the sphere, km), jittered
    points = _sphere_points(coords[:, 0], coords[:, 1]) + rng.normal(scale=jitter_km, size=(n, 3)) if jitter_km \
        else _sphere_points(coords[:, 0], coords[:, 1])
    # 2. allele-frequency surfaces: random Fourier features of the squared-exponential kernel
    m = n_features_rff
    omega = rng.normal(scale=1.0 / length_scale_km, size=(3, m))
    phase = rng.uniform(0.0, 2 * np.pi, size=m)
    # float32 from here on: exp and the comparisons are SIMD-fast, and 1e-7 relative error in an
    # allele frequency is far below anything the model means (the result is the same on one machine)
    features = (math.sqrt(2.0 / m) * np.cos(points @ omega + phase)).astype(np.float32)  # E[f f'] ≈ kernel
    weights = rng.standard_normal((m, n_loci), dtype=np.float32)
    base = rng.uniform(0.05, 0.95, size=n_loci)
    eta = features @ weights
    eta *= -amplitude
    eta -= np.log(base / (1.0 - base)).astype(np.float32)
    np.exp(eta, out=eta)
    eta += 1.0
    p = np.reciprocal(eta, out=eta)  # expit(logit(base) + amplitude · f), in place
    # 3. genotypes: two independent allele copies per locus
    genotypes = (rng.random((n, n_loci), dtype=np.float32) < p).astype(np.float32)
    genotypes += rng.random((n, n_loci), dtype=np.float32) < p
    # 4. smartpca: standardise, drop monomorphic loci, top-20 eigenvectors of the GRM
    freq = genotypes.mean(axis=0, dtype=np.float64) / 2.0
    keep = (freq > 0) & (freq < 1)
    Z = genotypes[:, keep]
    Z -= (2 * freq[keep]).astype(np.float32)
    Z /= np.sqrt(2 * freq[keep] * (1 - freq[keep])).astype(np.float32)
    grm = (Z @ Z.T).astype(np.float64)  # float32 product: 2× faster, 1e-6 relative error
    grm = (grm + grm.T) / 2
    d = 20
    # Lanczos (ARPACK) for the 20 largest eigenpairs, from a fixed start vector: ~4× faster than
    # LAPACK's partial eigh at n = 1387 and agrees with it to 1e-14 (relative eigenvalues)
    start = np.cos(np.arange(n) * 0.7) + 1.5
    values, vectors = eigsh(grm, k=d, which="LA", v0=start / np.linalg.norm(start), tol=1e-13)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    values = values * (n - 1) / np.trace(grm)  # smartpca: eigenvalues sum to n − 1
    vectors = vectors - vectors.mean(axis=0)  # exactly mean zero (the GRM annihilates 1)
    vectors, _ = np.linalg.qr(vectors)
    vectors *= np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(d)])
    out = {"eigenvectors": vectors, "eigenvalues": values, "labels": labels, "coords": coords,
           "n_loci_kept": int(keep.sum())}
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return out


# ---------------------------------------------------------------------------------------------
# the real files: locate, download, verify, parse
# ---------------------------------------------------------------------------------------------
def locate_novembre(*, cache_dir=None, data_dir=None):
    """Return the folder that holds all the real files of Novembre et al. (2008), without downloading.

    Parameters
    ----------
    cache_dir : str or Path, optional
        Look in ``europe_data_dir(cache_dir)`` (and its parent: ``$PRIVPCA_EDU_DATA`` may point
        at the files themselves).  Ignored when ``data_dir`` is given.
    data_dir : str or Path, optional
        Look in this folder or its ``novembre2008/`` sub-folder instead.

    Returns
    -------
    Path
        The first candidate folder that holds every file of :data:`NOVEMBRE_FILES` (their
        checksums are not checked here; :func:`europe` checks them).

    Raises
    ------
    FileNotFoundError
        If no candidate holds every file; the message names what is missing where.
    """
    if data_dir is not None:
        base = Path(data_dir).expanduser()
        candidates = [base, base / _SUBDIR]
    else:
        folder = europe_data_dir(cache_dir)
        candidates = [folder, folder.parent]  # $PRIVPCA_EDU_DATA may point at the files themselves
    for folder in candidates:
        if all((folder / name).is_file() for name in NOVEMBRE_FILES):
            return folder
    missing = [name for name in NOVEMBRE_FILES if not (candidates[0] / name).is_file()]
    raise FileNotFoundError(
        f"the Novembre et al. (2008) files {missing} are not in {candidates[0]}"
    )


def _download(url, destination):
    """Fetch ``url`` into the file ``destination`` (tests replace this function)."""
    with urllib.request.urlopen(url, timeout=30) as response, open(destination, "wb") as out:
        shutil.copyfileobj(response, out)


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _novembre_folder(*, cache_dir, data_dir, download):
    if data_dir is not None:
        try:
            return locate_novembre(data_dir=data_dir)
        except FileNotFoundError as exc:
            raise FileNotFoundError(
                f"{exc}. data_dir must hold the files {sorted(NOVEMBRE_FILES)} (from {NOVEMBRE_BASE_URL}); "
                "omit data_dir to download them into the cache instead"
            ) from None
    try:
        return locate_novembre(cache_dir=cache_dir)
    except FileNotFoundError as exc:
        folder = europe_data_dir(cache_dir)
        if not download:
            raise FileNotFoundError(
                f"{exc}, and download=False. Call europe(source='novembre') once with network access, "
                f"or put the files there, or set {ENV_VAR} to a folder that holds them"
            ) from None
    folder.mkdir(parents=True, exist_ok=True)
    for name, expected in NOVEMBRE_FILES.items():
        target = folder / name
        if target.is_file():
            continue
        url = NOVEMBRE_BASE_URL + name
        fd, tmp = tempfile.mkstemp(prefix=name + ".", suffix=".part", dir=folder)
        os.close(fd)
        try:
            try:
                _download(url, tmp)
            except (urllib.error.URLError, OSError, TimeoutError) as exc:
                raise ConnectionError(
                    f"could not download {url} ({exc}). Are you offline? Download the files "
                    f"{sorted(NOVEMBRE_FILES)} from {NOVEMBRE_BASE_URL} by hand into {folder}, or pass "
                    "data_dir=<folder with the files>; source='synthetic' works offline"
                ) from None
            got = _sha256(tmp)
            if got != expected:
                raise ChecksumError(
                    f"downloaded {name} has SHA-256 {got}, expected {expected}: the file at {url} is not "
                    "the version this package was checked against; it was not saved"
                )
            os.replace(tmp, target)  # only a verified, complete file ever gets the real name
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return folder


def _verify(folder):
    digests = {}
    for name, expected in NOVEMBRE_FILES.items():
        got = _sha256(folder / name)
        if got != expected:
            raise ChecksumError(
                f"{folder / name} has SHA-256 {got}, expected {expected}: the file is corrupted or a "
                "different version. Delete it (a cached copy is downloaded again on the next call) or "
                f"replace it with the file from {NOVEMBRE_BASE_URL}"
            )
        digests[name] = got
    return digests


@functools.lru_cache(maxsize=2)
def _parse_novembre(folder, digests):
    """Parse the verified files (cached by folder and checksums; arrays read-only)."""
    folder = Path(folder)
    with open(folder / _EIGS) as f:
        header = f.readline().split()
        rows = [line.split() for line in f if line.strip()]
    if not header or header[0] != "#eigvals":
        raise ValueError(f"{_EIGS}: expected a '#eigvals' header line")
    ids = [r[0] for r in rows]
    vectors = np.array([[float(v) for v in r[2:22]] for r in rows])
    ell = np.loadtxt(folder / _EVAL, max_rows=20)
    with open(folder / _TABLE) as f:
        head = f.readline().rstrip("\n").split("\t")
        table = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    col = {name: i for i, name in enumerate(head)}
    if [r[col["ID"]] for r in table] != ids:
        raise ValueError(f"{_TABLE} and {_EIGS} list different individuals or orders")
    labels = np.array([r[col["plabels"]] for r in table])
    unknown = sorted(set(labels.tolist()) - set(_BY_LABEL))
    if unknown:
        raise ValueError(f"{_TABLE}: population labels {unknown} are not in EUROPE_POPULATIONS")
    coords = np.array([[float(r[col["latitude"]]), float(r[col["longitude"]])] for r in table])
    with open(folder / _COLORS) as f:
        color_rows = [line.split() for line in f if line.strip()]
    if [r[0] for r in color_rows] != ids:
        raise ValueError(f"{_COLORS} and {_EIGS} list different individuals or orders")
    out = {"eigenvectors": vectors, "eigenvalues": ell, "labels": labels, "coords": coords,
           "popres_colors": tuple(r[1] for r in color_rows)}
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return out
