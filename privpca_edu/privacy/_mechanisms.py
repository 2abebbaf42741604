r"""Each mechanism's sensitivity, in one table, and the noise scales built on it.

Every mechanism of the package adds Gaussian noise to a statistic of the private data; its ℓ2
sensitivity Δ (replace-one neighbours, in the coordinates the noise is added in) is one function
here, with its derivation in the docstring, and :data:`SENSITIVITIES` lists them all.  The
noise scales σ are built on them with :func:`~privpca_edu.privacy.gaussian_sigma` (one release) or
:func:`~privpca_edu.privacy.iterative_gaussian_sigma` (T adaptive releases).

========================  ===============================  ===================================================
mechanism                 Δ (rows of norm ≤ B)             source
========================  ===============================  ===================================================
Analyze Gauss             √2·B²/n                          [DTTZ14]_ Algorithm 1 (replace-one constant)
MOD-SuLQ                  √2·B²/n (its β is the paper's)   [CSS13]_ Algorithm 1
PrivateLocal (per site)   √2·B²                            [IS16]_, as run in [WC18]_
Kendall / g-DPPCA         4‖g‖∞²/n (tight: 2√2‖g‖∞²/n)      [KJ25]_ Proposition 2.1(3), eq. (2.5)
SGPCA                     model-based (our choice)         [CXZ24]_ Algorithm 1, as run in [KJ25]_ App. C.2
NSGGD (per step)          2B/b                             [MYL22]_, as run in [KJ25]_ App. C.3
DPS-PCA (per step)        2B²                              [GWWL18]_ Algorithm 1, line 3
local (Wang & Xu)         √2·B² (per user)                 [WX19]_ Algorithm 1, Theorem 2 (corrected)
DPDPCA                    4B² (centred scatter)            [WC18]_ Algorithm 2 (corrected)
mask (DPDPCA's v′)        2B                               [WC18]_ Algorithms 1–2
========================  ===============================  ===================================================

References
----------
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   Theorem A.1 (classic Gaussian mechanism, ε < 1).
.. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising", ICML 2018, Theorem 8.
.. [DTTZ14] C. Dwork, K. Talwar, A. Thakurta and L. Zhang, "Analyze Gauss: optimal bounds for
   privacy-preserving principal component analysis", STOC 2014.
.. [CSS13] K. Chaudhuri, A. Sarwate and K. Sinha, "A near-optimal algorithm for differentially
   private principal components", JMLR 2013 (MOD-SuLQ).
.. [IS16] H. Imtiaz and A. D. Sarwate, "Symmetric matrix perturbation for differentially-private
   principal component analysis", ICASSP 2016.
.. [KJ25] M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
   arXiv:2507.15232 (2025).
.. [CXZ24] T. T. Cai, D. Xia and M. Zha, "Optimal differentially private PCA and estimation for
   spiked covariance matrices", arXiv:2401.03820 (2024).
.. [MYL22] T. Maunu, C. Yu and G. Lerman, "Stochastic and private nonconvex outlier-robust PCA",
   MSML 2022.
.. [GWWL18] J. Ge, Z. Wang, M. Wang and H. Liu, "Minimax-optimal privacy-preserving sparse PCA
   in distributed systems", AISTATS 2018 (DPS-PCA).
.. [WX19] D. Wang and J. Xu, "Principal component analysis in the local differential privacy
   model", IJCAI 2019.
.. [WC18] S. Wang and J. M. Chang, "Differentially private principal component analysis over
   horizontally partitioned data", IEEE DSC 2018.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    diagnostics,
    check_data_norm,
    check_delta,
    check_epsilon,
    check_int,
    check_option,
    check_positive,
)
from ._accounting import iterative_gaussian_sigma
from ._gaussian import check_gaussian_guarantee, gaussian_sigma
from ._record import make_record

__all__ = [
    "SENSITIVITIES",
    "analyze_gauss_sensitivity",
    "analyze_gauss_noise_scale",
    "mod_sulq_sensitivity",
    "mod_sulq_noise_scale",
    "private_local_sensitivity",
    "private_local_noise_scale",
    "KENDALL_SENSITIVITIES",
    "TRANSFORM_KINDS",
    "resolve_transform",
    "resolve_radius",
    "kendall_sensitivity",
    "kendall_noise_scale",
    "sgpca_sensitivity",
    "nsggd_sensitivity",
    "nsggd_noise_scale",
    "dps_pca_sensitivity",
    "dps_pca_sigma",
    "LOCAL_CALIBRATIONS",
    "local_sensitivity",
    "local_noise_scale",
    "DPDPCA_CALIBRATIONS",
    "dpdpca_sensitivity",
    "mask_sensitivity",
    "dpdpca_noise_scale",
]


# ---------------------------------------------------------------------------------------------
# Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014)
# ---------------------------------------------------------------------------------------------
def analyze_gauss_sensitivity(n_samples, data_norm=1.0):
    r"""Replace-one ℓ2 sensitivity of :math:`X^\top X/n` in the ``"upper_iid"`` coordinates: √2·B²/n.

    Replacing x by x′ (‖x‖, ‖x′‖ ≤ B) changes :math:`X^\top X/n` by :math:`(xx^\top - x'x'^\top)/n`,
    and :math:`\lVert xx^\top - x'x'^\top\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4 - 2(x^\top x')^2
    \le 2B^4`, attained by orthogonal x, x′ of norm B; the difference is then diagonal, so the
    vector of entries on and above the diagonal has the same norm (Dwork, Talwar, Thakurta & Zhang,
    STOC 2014, Algorithm 1, with the replace-one constant).  Also the Δ of MOD-SuLQ's audits and of
    the per-site releases of PrivateLocalPCA (with n = 1, :func:`private_local_sensitivity`).

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 1.
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = √2·B²/n.

    Examples
    --------
    >>> round(analyze_gauss_sensitivity(1000), 8)
    0.00141421
    """
    n = check_int(n_samples, "n_samples", low=1)
    data_norm = check_data_norm(data_norm)
    return math.sqrt(2.0) * data_norm**2 / n


def analyze_gauss_noise_scale(n_samples, epsilon, delta, data_norm=1.0, calibration="classic"):
    r"""The standard deviation σ of each noise entry of Analyze Gauss's release :math:`X^\top X/n + E`.

    Δ from :func:`analyze_gauss_sensitivity`; ``"classic"`` (the paper):
    :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` [DR14]_ Theorem A.1, proved for
    ε < 1 (warns otherwise); ``"analytic"``: Balle & Wang's exact σ [BW18]_, valid for every ε.

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 1.
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public row-norm bound B.
    calibration : {"classic", "analytic"}, default "classic"
        How σ is computed from Δ.

    Returns
    -------
    float
        The standard deviation σ of each noise entry.

    Examples
    --------
    >>> round(analyze_gauss_noise_scale(5000, 0.5, 1e-5) * 5000, 3)
    13.703
    """
    check_option(calibration, "calibration", ("classic", "analytic"))
    return gaussian_sigma(analyze_gauss_sensitivity(n_samples, data_norm), epsilon, delta, method=calibration)


# ---------------------------------------------------------------------------------------------
# MOD-SuLQ (Chaudhuri, Sarwate & Sinha 2013)
# ---------------------------------------------------------------------------------------------
def mod_sulq_sensitivity(n_samples, data_norm=1.0):
    r"""Replace-one ℓ2 sensitivity of MOD-SuLQ's :math:`A = X^\top X/n` in its noise coordinates: √2·B²/n.

    MOD-SuLQ (Chaudhuri, Sarwate & Sinha 2013, Algorithm 1) perturbs the same statistic as Analyze
    Gauss, the entries on and above the diagonal of :math:`A = X^\top X/n`, so its ℓ2 sensitivity
    is that of :func:`analyze_gauss_sensitivity`.  Its noise β (:func:`mod_sulq_noise_scale`) is
    *not* calibrated from this Δ: it comes from the paper's own density-ratio argument over the
    d(d+1)/2 noisy entries (the proof of its Theorem 4) and is about (d+1)/√2 times the σ this Δ
    would need.  The audits and the exact privacy check use this Δ.

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 1.
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = √2·B²/n.

    Examples
    --------
    >>> mod_sulq_sensitivity(1000) == analyze_gauss_sensitivity(1000)
    True
    """
    return analyze_gauss_sensitivity(n_samples, data_norm)


def mod_sulq_noise_scale(n_features, n_samples, epsilon, delta, data_norm=1.0):
    r"""MOD-SuLQ noise standard deviation β (Chaudhuri, Sarwate & Sinha 2013, Algorithm 1).

    .. math:: \beta = \frac{d+1}{n\varepsilon}\sqrt{2\log\frac{d^2+d}{2\sqrt{2\pi}\,\delta}}
              + \frac{1}{n\sqrt{\varepsilon}}

    times B² for rows of norm ≤ B.  β is a *standard deviation*, added i.i.d. to each entry on
    and above the diagonal of :math:`A = X^\top X/n`.  The constant comes from the paper's own
    density-ratio argument over the d(d+1)/2 noisy entries (replace-one neighbours).  For
    comparison, the ℓ2 sensitivity of the upper-triangle vector of A is only √2·B²/n, so β is
    about (d+1)/√2 times the classic Gaussian-mechanism σ: valid, but very conservative in
    high dimension, which is why MOD-SuLQ fails at d = 1000 (an exercise in the book).

    Parameters
    ----------
    n_features : int
        Dimension d ≥ 1.
    n_samples : int
        Number of records n ≥ 1.
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        The noise standard deviation β.

    Examples
    --------
    >>> round(mod_sulq_noise_scale(1000, 100_000, 1.0, 0.3), 6)
    0.051847
    """
    d = check_int(n_features, "n_features", low=1)
    n = check_int(n_samples, "n_samples", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    data_norm = check_data_norm(data_norm)
    if math.isinf(epsilon):
        return 0.0
    log_term = math.log((d * d + d) / (2 * math.sqrt(2 * math.pi) * delta))
    beta = (d + 1) / (n * epsilon) * math.sqrt(2 * log_term) + 1 / (n * math.sqrt(epsilon))
    return beta * data_norm**2


# ---------------------------------------------------------------------------------------------
# PrivateLocal (Imtiaz & Sarwate, as run in the DPDPCA paper)
# ---------------------------------------------------------------------------------------------
def private_local_sensitivity(data_norm=1.0):
    r"""Δ of one site's local covariance release in PrivateLocalPCA: √2·B².

    In Imtiaz & Sarwate's sequential chain (ICASSP 2016, as run in Wang & Chang, IEEE DSC 2018)
    each site releases the upper triangle of its own scatter :math:`\sum_{x} xx^\top` plus
    noise; replacing one of its records moves it by :math:`xx^\top - x'x'^\top`, of Frobenius norm
    at most √2·B² (see :func:`analyze_gauss_sensitivity`, here unnormalised: n = 1).  (The
    paper's Wishart noise has no sensitivity argument: it was retracted by its authors in 2017.)

    Parameters
    ----------
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = √2·B².
    """
    data_norm = check_data_norm(data_norm)
    return math.sqrt(2.0) * data_norm**2


def private_local_noise_scale(epsilon, delta, data_norm=1.0, calibration="classic"):
    r"""The standard deviation σ of each entry of a site's Gaussian noise :math:`E_l` in PrivateLocalPCA.

    :func:`gaussian_sigma` of :func:`private_local_sensitivity` (√2·B²), ``"classic"`` or
    ``"analytic"``; each site's release is then (ε, δ)-DP for its own records.  (The DPDPCA paper's
    Wishart noise of scale 1/ε has no stated sensitivity argument and is recorded as not private.)

    Parameters
    ----------
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public row-norm bound B.
    calibration : {"classic", "analytic"}, default "classic"
        How σ is computed from Δ.

    Returns
    -------
    float
        The standard deviation σ of each noise entry of one site.
    """
    return gaussian_sigma(private_local_sensitivity(data_norm), epsilon, delta, method=calibration)


# ---------------------------------------------------------------------------------------------
# Kendall's τ, g-DPPCA (Kim & Jung 2025)
# ---------------------------------------------------------------------------------------------
#: Replace-one Frobenius sensitivity of K̂_g, in units of ‖g‖∞²/n.
KENDALL_SENSITIVITIES = {
    "paper": 4.0,  # Kim & Jung, Prop. 2.1(3) / eq. (2.5): the default, so the paper's figures reproduce
    "tight": 2.0 * math.sqrt(2.0),  # the exact worst case (attained; audit recipe A)
    "legacy": 2.0,  # NOT PRIVATE: half the paper's σ, what the R package shipped before its 2026 fix
}


#: Accepted names of the two bounded transforms (aliases: the short names of Kim & Jung's figures).
TRANSFORM_KINDS = {"spherical": "spherical", "sph": "spherical", "winsorized": "winsorized", "wins": "winsorized"}


def resolve_transform(transform_kind):
    """Canonical transform name (``"spherical"`` or ``"winsorized"``) or ``ValueError``.

    Parameters
    ----------
    transform_kind : str
        ``"spherical"``, ``"winsorized"`` or an alias (:data:`TRANSFORM_KINDS`).

    Returns
    -------
    str
        ``"spherical"`` or ``"winsorized"``.
    """
    if not isinstance(transform_kind, str) or transform_kind not in TRANSFORM_KINDS:
        raise ValueError(
            f"transform_kind must be one of 'spherical', 'winsorized' (or 'sph', 'wins'), got {transform_kind!r}"
        )
    return TRANSFORM_KINDS[transform_kind]


def resolve_radius(radius, n_features, transform_kind):
    r"""The winsorization radius actually used: ``radius``, or :math:`\sqrt d` when ``None``.

    **Our reading** of Kim & Jung, Section 3.2 (eq. (3.2), condition (3.3)): the paper fixes one radius for all its experiments "assuming" a
    common normalisation; our reading is :math:`r = \sqrt d`, which suits variables on unit
    scale (λ_d(Σ) ≈ 1, tr Σ ≈ d) and meets the paper's condition (3.3) for the spiked-plus-identity
    model with θ = 1/2.  It depends only on the public dimension: a radius computed from the
    data would break the sensitivity argument, so none is offered.  For ``"spherical"`` the radius
    is irrelevant and 1.0 (= ‖g‖∞) is returned.

    Parameters
    ----------
    radius : float or None
        The public winsorization radius r, or None for √d.
    n_features : int
        Dimension d (used when ``radius`` is None).
    transform_kind : str
        The transform (see :func:`resolve_transform`).

    Returns
    -------
    float
        The radius used: ‖g‖∞ of the transform.
    """
    if resolve_transform(transform_kind) == "spherical":
        return 1.0
    if radius is None:
        return math.sqrt(n_features)
    return check_positive(radius, "radius")


def kendall_sensitivity(n_samples, transform_kind="spherical", radius=None, n_features=None, sensitivity="paper"):
    r"""Replace-one Frobenius sensitivity of :math:`\hat K_g`: c·‖g‖∞²/n.

    ``"paper"`` (c = 4, Kim & Jung 2025, Proposition 2.1(3) and eq. (2.5)): the n − 1 pair terms that contain the replaced
    record each change by at most ‖g‖² + ‖g′‖² ≤ 2‖g‖∞², and there are n − 1 of them with weight
    2/(n(n−1)).  ``"tight"`` (c = 2√2): :math:`\lVert aa^\top-bb^\top\rVert_F^2 = \lVert a\rVert^4
    + \lVert b\rVert^4 - 2(a^\top b)^2 \le 2s^4`, attained by moving a far point from the e₁ axis to
    the e₂ axis.  ``"legacy"`` (c = 2): **not a valid bound** (see :class:`KendallDPPCA`).
    ``radius``/``n_features`` resolve ‖g‖∞ for "winsorized" (r, default √d).

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 2.
    transform_kind : str, default "spherical"
        ``"spherical"`` or ``"winsorized"`` (or an alias).
    radius : float, optional
        Winsorization radius r (default √d: pass ``n_features``).
    n_features : int, optional
        Dimension d, to resolve ``radius=None``.
    sensitivity : {"paper", "tight", "legacy"}, default "paper"
        The constant c (:data:`KENDALL_SENSITIVITIES`).

    Returns
    -------
    float
        Δ = c·‖g‖∞²/n.
    """
    n = check_int(n_samples, "n_samples", low=2)
    check_option(sensitivity, "sensitivity", tuple(KENDALL_SENSITIVITIES))
    kind = resolve_transform(transform_kind)
    if n_features is not None:
        n_features = check_int(n_features, "n_features", low=1)
    if kind == "winsorized" and radius is None and n_features is None:
        raise ValueError("radius=None means √d: pass n_features to resolve it")
    r = resolve_radius(radius, n_features, kind)
    return KENDALL_SENSITIVITIES[sensitivity] * r * r / n


def kendall_noise_scale(n_samples, epsilon, delta, transform_kind="spherical", radius=None, n_features=None,
                        sensitivity="paper", calibration="classic"):
    r"""(Δ, σ) of g-DPPCA: Δ from :func:`kendall_sensitivity`, σ from :func:`privacy.gaussian_sigma`.

    With the defaults this is eq. (2.5) of Kim & Jung,
    :math:`\sigma = 4\lVert g\rVert_\infty^2\sqrt{2\log(1.25/\delta)}/(n\varepsilon)`; e.g. spherical,
    n = 1387, ε = 1, δ = 1e-5 gives σ = 0.0139720.

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 2.
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    transform_kind : str, default "spherical"
        ``"spherical"`` or ``"winsorized"`` (or an alias).
    radius : float, optional
        Winsorization radius r (default √d: pass ``n_features``).
    n_features : int, optional
        Dimension d, to resolve ``radius=None``.
    sensitivity : {"paper", "tight", "legacy"}, default "paper"
        The constant of :func:`kendall_sensitivity`.
    calibration : {"classic", "analytic"}, default "classic"
        How σ is computed from Δ.

    Returns
    -------
    tuple of float
        (Δ, σ).
    """
    check_option(calibration, "calibration", ("classic", "analytic"))
    sens = kendall_sensitivity(n_samples, transform_kind, radius, n_features, sensitivity)
    return sens, gaussian_sigma(sens, epsilon, delta, method=calibration)


# ---------------------------------------------------------------------------------------------
# SGPCA (Cai, Xia & Zha 2024)
# ---------------------------------------------------------------------------------------------
def sgpca_sensitivity(n_samples, n_features, spikes, noise_variance=1.0, *, sensitivity="surrogate",
                      sensitivity_constant=1.0):
    r"""Δ of the spectral projector :math:`\hat U\hat U^\top` under the spiked model (model-based).

    Cai, Xia & Zha (arXiv:2401.03820, Algorithm 1, as run in Kim & Jung's Appendix C.2) calibrate
    the noise on the spectral projector by a high-probability sensitivity under the spiked model;
    this package does not reproduce their exact constant and log factors.  Two forms are
    offered, with σ₀² = ``noise_variance``, λ_j = ``spikes`` (the eigenvalues of Σ are
    λ_j + σ₀²), r = len(spikes):

    ``"surrogate"`` (default, **our choice**)
        :math:`\Delta = C_\Delta\,\sqrt2\,\sigma_0\sqrt d\,\sqrt{\sum_j(\lambda_j+\sigma_0^2)}\,
        \sqrt{\log n}/(n\lambda_r)`, C_Δ = ``sensitivity_constant``.  It is about the largest
        change seen over random in-model replacements, so it does **not** bound the
        high-probability sensitivity; it reproduces the ordering of Kim & Jung's Figure 2.
        (1000, 10, spikes (9, 4), σ₀² = 1): 1.13807e-2.
    ``"hp_bound"`` (**our analysis**)
        :math:`\Delta_{hp} = \frac{2\sqrt2}{n}\sigma_0(\sqrt{d-r}+\sqrt{2\log n})\sqrt{2\log(2rn)}
        \sqrt{\sum_j(\lambda_j+\sigma_0^2)/\lambda_j^2}`: the first-order change of P̂ from two
        records with Gaussian tail factors; it covered every sampled replacement in our checks,
        but is still first-order and model-based.  (1000, 10): 4.97849e-2.

    Parameters
    ----------
    n_samples : int
        Number of records n ≥ 2.
    n_features : int
        Dimension d ≥ 1.
    spikes : array_like
        The spikes λ_1, …, λ_r > 0 of the model.
    noise_variance : float, default 1.0
        The noise variance σ₀² > 0.
    sensitivity : {"surrogate", "hp_bound"}, default "surrogate"
        Which form (see above).
    sensitivity_constant : float, default 1.0
        C_Δ > 0, a multiplier of either form.

    Returns
    -------
    float
        Δ of the spectral projector (model-based: not a worst-case bound).
    """
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=1)
    spikes = np.asarray(spikes, dtype=np.float64).ravel()
    if spikes.size < 1 or not np.all(np.isfinite(spikes)) or np.any(spikes <= 0):
        raise ValueError(f"spikes must be positive finite numbers, got {spikes.tolist()}")
    s0sq = check_positive(noise_variance, "noise_variance")
    check_option(sensitivity, "sensitivity", ("surrogate", "hp_bound"))
    C = check_positive(sensitivity_constant, "sensitivity_constant")
    s0 = math.sqrt(s0sq)
    r = spikes.size
    if sensitivity == "surrogate":
        return C * math.sqrt(2.0) * s0 * math.sqrt(d) * math.sqrt(float(np.sum(spikes + s0sq))) * math.sqrt(
            math.log(n)) / (n * float(np.min(spikes)))
    return C * (2 * math.sqrt(2.0) / n) * s0 * (math.sqrt(max(d - r, 0)) + math.sqrt(2 * math.log(n))) * math.sqrt(
        2 * math.log(2 * r * n)) * math.sqrt(float(np.sum((spikes + s0sq) / spikes**2)))


# ---------------------------------------------------------------------------------------------
# NSGGD (Maunu, Yu & Lerman 2022)
# ---------------------------------------------------------------------------------------------
def nsggd_sensitivity(batch_size, data_norm=1.0):
    r"""Replace-one ℓ2 sensitivity of one NSGGD step (the batch-mean gradient): 2B/b.

    Each step of noisy geodesic gradient descent (Maunu, Yu & Lerman, MSML 2022, as run in Kim &
    Jung's Appendix C.3) releases the mean over a batch of b records of the gradient terms of the
    least-absolute-deviations energy.  One record's term has Frobenius norm ‖Vᵀx‖ ≤ ‖x‖ ≤ B (the
    term is linear in x), so replacing one record moves the mean by at most (B + B)/b = 2B/b.  A record is counted as present in every batch (no subsampling
    amplification).

    Parameters
    ----------
    batch_size : int
        Batch size b ≥ 1.
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = 2B/b.

    Examples
    --------
    >>> nsggd_sensitivity(1000)
    0.002
    """
    b = check_int(batch_size, "batch_size", low=1)
    return 2.0 * check_data_norm(data_norm) / b


def nsggd_noise_scale(batch_size, epsilon, delta, n_iter, data_norm=1.0):
    r"""Per-step σ of NSGGD: T Gaussian steps of sensitivity 2B/b, composed exactly in zCDP.

    Each step releases the batch-mean gradient.  One record's term has Frobenius norm
    ‖Vᵀx‖ ≤ ‖x‖ ≤ B (``data_norm``; the term is linear in x), so replacing one record moves the
    mean by at most 2B/b: each step is ρ₁ = (2B/b)²/(2σ²)-zCDP, T steps give ρ = Tρ₁, and
    :math:`\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}`, i.e.
    :math:`\sigma = \frac{2B}{b}\sqrt{T/(2\rho)}`,
    :math:`\sqrt\rho = \sqrt{\log(1/\delta)+\varepsilon}-\sqrt{\log(1/\delta)}`
    (``privacy.iterative_gaussian_sigma(..., method="zcdp")``).  Valid for b < n too (the record is
    treated as present in every batch; no subsampling amplification).  **Our choice** of noise rule and accountant for
    Maunu, Yu & Lerman's NSGGD (MSML 2022, as run in Kim & Jung's Appendix C.3).

    n = b = 1000, T = 50, ε = 1, δ = 1e-5: σ = 6.930432e-2.

    Parameters
    ----------
    batch_size : int
        Batch size b ≥ 1.
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    n_iter : int
        Number of steps T ≥ 1.
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        The per-step σ.
    """
    T = check_int(n_iter, "n_iter", low=1)
    return iterative_gaussian_sigma(nsggd_sensitivity(batch_size, data_norm), epsilon, delta, T, method="zcdp")


# ---------------------------------------------------------------------------------------------
# DPS-PCA (Ge, Wang, Wang & Liu 2018)
# ---------------------------------------------------------------------------------------------
def dps_pca_sensitivity(data_norm=1.0):
    r"""Replace-one ℓ2 sensitivity of one DPS-PCA release :math:`\sum_x xx^\top Q`: 2B².

    Each of the T iterations of DPS-PCA (Ge et al. 2018, Algorithm 1, line 3) releases a
    provider's :math:`\sum_{x} x x^\top Q` plus Gaussian noise, Q with orthonormal columns.
    Replacing one record x → x′ (‖x‖, ‖x′‖ ≤ B) changes it by
    :math:`xx^\top Q - x'x'^\top Q`, of Frobenius norm at most
    :math:`\lVert x\rVert\,\lVert Q^\top x\rVert + \lVert x'\rVert\,\lVert Q^\top x'\rVert \le 2B^2`.

    Parameters
    ----------
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = 2B².

    Examples
    --------
    >>> dps_pca_sensitivity(0.5)
    0.5
    """
    return 2.0 * check_data_norm(data_norm) ** 2


def dps_pca_sigma(epsilon, delta, n_iter, data_norm=1.0, method="paper"):
    r"""Per-iteration noise σ of DPS-PCA (Ge et al. 2018, Algorithm 1 line 3).

    Sensitivity: replacing one record x → x′ (‖x‖, ‖x′‖ ≤ B) in a provider's data changes
    :math:`\sum_{x} x x^\top Q` by at most
    :math:`\lVert x\rVert\,\lVert Q^\top x\rVert + \lVert x'\rVert\,\lVert Q^\top x'\rVert \le 2B^2`
    in Frobenius norm (Q has orthonormal columns), so Δ = 2B².  The T releases compose
    adaptively; see :func:`iterative_gaussian_sigma` for the methods.

    Parameters
    ----------
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    n_iter : int
        Number of iterations T ≥ 1.
    data_norm : float, default 1.0
        Public row-norm bound B.
    method : str, default "paper"
        One of :data:`~privpca_edu.privacy.ITERATIVE_CALIBRATIONS`.

    Returns
    -------
    float
        The per-iteration σ.

    Examples
    --------
    >>> round(dps_pca_sigma(1.0, 0.01, 10), 3)
    77.979
    """
    sens = dps_pca_sensitivity(data_norm)
    n_iter = check_int(n_iter, "n_iter", low=1)  # named as the caller knows it (not "n_steps")
    return iterative_gaussian_sigma(sens, epsilon, delta, n_iter, method=method)


# ---------------------------------------------------------------------------------------------
# Local Gaussian PCA (Wang & Xu 2019)
# ---------------------------------------------------------------------------------------------
#: Calibrations of the per-user σ₁ (the book prints this table).
LOCAL_CALIBRATIONS = {
    "replacement": "Δ = √2·B² (any two records x, x′ of one user), classic σ₁ = Δ√(2 ln(1.25/δ))/ε — the default",
    "paper": "Δ = B² as printed in Wang & Xu (the central add/remove constant): σ √2 too small for the proof — "
             "reproduction only (not DP at the paper's ε = 2, δ = 1e-4)",
    "analytic": "Δ = √2·B², Balle & Wang's exact (analytic) σ₁: valid for every ε, smaller than classic",
}


def local_sensitivity(data_norm=1.0):
    r"""The ℓ2 sensitivity of one user's report in the local model (Wang & Xu): √2·B².

    Each user releases the d(d+1)/2 entries on and above the diagonal of :math:`xx^\top` plus
    i.i.d. Gaussian noise (Wang & Xu, IJCAI 2019, Algorithm 1).  In the local model the
    neighbouring inputs are *any two* records x, x′ of the domain ‖x‖ ≤ B, and

    .. math:: \lVert xx^\top - x'x'^\top\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4
              - 2(x^\top x')^2 \le 2B^4,

    attained by orthogonal x, x′ of norm B (the difference is then diagonal, so the
    upper-triangle vector has the same norm): Δ = √2·B².  The paper's
    :math:`\sigma_1^2 = 2\ln(1.25/\delta)/\varepsilon^2` (Algorithm 1 and Theorem 2) corresponds to
    Δ = 1, the add/remove constant of the central model: too small by a factor 2 in variance.

    Parameters
    ----------
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ = √2·B².

    Examples
    --------
    >>> round(local_sensitivity(), 6)
    1.414214
    """
    return math.sqrt(2.0) * check_data_norm(data_norm) ** 2


def local_noise_scale(epsilon, delta, data_norm=1.0, calibration="replacement", sensitivity=None):
    r"""Per-user noise σ₁ of the local Gaussian mechanism, and what it promises.

    Each user releases the d(d+1)/2 entries on and above the diagonal of :math:`xx^\top`
    plus i.i.d. N(0, σ₁²) noise, calibrated to Δ = √2·B² (:func:`local_sensitivity`: in the
    local model any two records of the domain are neighbours).  Wang & Xu's
    :math:`\sigma_1^2 = 2\ln(1.25/\delta)/\varepsilon^2` corresponds to Δ = 1 (the add/remove
    constant of the central model) and is too small by a factor 2 in variance (Wang & Xu,
    Algorithm 1 and Theorem 2, which use the central add/remove sensitivity).

    Parameters
    ----------
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ₁ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public row-norm bound B.
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        See :data:`LOCAL_CALIBRATIONS`.  ``"replacement"`` and ``"paper"`` use the classic
        Gaussian mechanism (proved for ε < 1: :func:`~privpca_edu.privacy.gaussian_sigma` warns
        for ε ≥ 1).
    sensitivity : float, optional
        Override Δ (in the upper-triangle coordinates).  A value below √2·B² is recorded as
        not private.

    Returns
    -------
    PrivacyRecord
        The record of one user's report (model ``"local"``), made by
        :func:`~privpca_edu.privacy.make_record`: ``noise_scale`` (σ₁), ``sensitivity`` (the Δ
        σ₁ was calibrated with), ``releases`` (one release of the *true* Δ = √2·B² with noise
        σ₁, the one the exact check uses), ``exact_delta`` (Balle & Wang's exact δ of σ₁ at this
        ε for the true Δ), ``is_private`` (the exact check holds *and* the Δ used is at least
        √2·B²: an under-calibrated σ₁ is never recorded as private), ``note``,
        ``calibration``.  It reads like a dict too: ``record["noise_scale"]``.  It is computed
        from public parameters only, so :func:`~privpca_edu.privacy.diagnostics` does not apply
        to it (a fit's own record, made inside that block, is not private).

    Notes
    -----
    The paper's σ₁ (√2 too small for the classic proof) is always recorded as not private.  The
    note adds the exact fact: the classic constant is loose, so at small ε that σ₁ happens to
    satisfy the exact condition (ε = 0.5, δ = 10⁻⁴: exact δ = 6.2·10⁻⁵) but not at the paper's
    ε = 2, δ = 10⁻⁴ (exact δ = 5.0·10⁻⁴), nor at ε = 0.5, δ = 10⁻⁵.  Conversely the *correct*
    classic constant stops being private for large ε (ε = 8, δ = 10⁻⁴: exact δ = 1.005·10⁻⁴),
    where only ``"analytic"`` is.

    Examples
    --------
    >>> round(local_noise_scale(0.5, 1e-4)["noise_scale"], 6)
    12.285591
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = local_noise_scale(0.5, 1e-4, calibration="paper")
    >>> round(r.noise_scale, 6), r.is_private, r.sensitivity < r.releases[0][0]
    (8.687225, False, True)
    """
    data_norm = check_data_norm(data_norm)
    check_option(calibration, "calibration", tuple(LOCAL_CALIBRATIONS))
    true_sens = local_sensitivity(data_norm)
    if sensitivity is None:
        sens = data_norm**2 if calibration == "paper" else true_sens
    else:
        sens = check_positive(sensitivity, "sensitivity")
    method = "analytic" if calibration == "analytic" else "classic"
    sigma = gaussian_sigma(sens, epsilon, delta, method=method)
    eps, dlt = float(epsilon), float(delta)
    record = dict(model="local", epsilon=eps, delta=dlt, neighbouring="replace-one: any two records x, x′ of one "
                  "user (local model)", data_norm=data_norm, mechanism="Gaussian mechanism on the upper triangle of "
                  "xxᵀ (one user's report)", calibration=calibration, sensitivity=sens, noise_scale=sigma,
                  releases=((true_sens, sigma, 1),))
    if math.isinf(eps):
        return make_record(**record)
    # The exact (Balle & Wang) δ this σ gives for the TRUE sensitivity, from the one shared check
    # (make_record runs it again on the record; it is a few Φ evaluations).
    verdict = check_gaussian_guarantee(eps, dlt, [(true_sens, sigma)])
    exact_delta, exact_ok = verdict.exact_delta, verdict.holds
    short = sens < true_sens * (1 - 1e-12)
    # An under-calibrated σ₁ carries no valid proof, so it is never recorded as private, even
    # where the exact condition happens to hold (the paper's constant at small ε).
    is_private = exact_ok and not short
    if short:
        why = ("calibration='paper' uses Wang & Xu's Δ = B² (the central add/remove constant), "
               if calibration == "paper" and sensitivity is None
               else f"sensitivity={sens:g} was given, ")
        why += (f"but in the local model any two records x, x′ are neighbours and ‖xxᵀ − x′x′ᵀ‖_F reaches "
                f"√2·B² = {true_sens:.6g}: σ₁ is {true_sens / sens:.4g}× smaller than the classic proof needs")
    elif method == "classic" and eps >= 1:
        why = f"the classic Gaussian-mechanism constant is proved only for epsilon < 1 (got {eps:g})"
    else:
        why = ""
    if short and exact_ok:
        note = (f"not differentially private as calibrated (reproduction only): {why}; the exact (analytic) "
                f"δ of this σ₁ at ε = {eps:g} happens to be {exact_delta:.3e} ≤ δ = {dlt:g}, "
                "a fact of this setting, not a guarantee of the calibration")
    elif not is_private:
        note = (f"not differentially private: {why}; the exact (analytic) δ of this σ₁ at ε = {eps:g} is "
                f"{exact_delta:.3e} > δ = {dlt:g}")
    elif why:
        note = (f"{why}; it is nevertheless ({eps:g}, {dlt:g})-DP by the exact (analytic) Gaussian "
                f"condition: δ(ε) = {exact_delta:.3e} ≤ δ")
    else:
        note = ""
    with diagnostics(False):  # a calibration from public parameters: nothing data-dependent to report
        return make_record(**record, is_private=is_private, note=note)


#: σ calibrations of the protocol: name → description.
DPDPCA_CALIBRATIONS = {
    "classic": "Δ = 4B² (centred scatter, corrected), classic σ = Δ√(2 ln(1.25/δ))/ε (ε < 1)",
    "analytic": "Δ = 4B² (centred scatter, corrected), analytic Gaussian mechanism (Balle & Wang 2018), any ε",
    "paper": "Δ = B² (the paper's Δ = 1): NOT differentially private for the centred scatter; reproduction only",
}


def dpdpca_sensitivity(data_norm=1.0, calibration="classic"):
    r"""The ℓ2 sensitivity of DPDPCA's centred scatter in the noise coordinates: 4B², or B² for "paper".

    The data user of DPDPCA (Wang & Chang, IEEE DSC 2018, Algorithm 2) receives the centred
    scatter :math:`S = \sum_i (x_i-\mu)(x_i-\mu)^\top` plus symmetric Gaussian noise.  N is
    public, so neighbours replace one record: with the N − 1 common rows of mean m, x → y and
    a = x − m, b = y − m, :math:`S_D - S_{D'} = \tfrac{N-1}{N}(aa^\top - bb^\top)`, whose Frobenius
    norm reaches :math:`\tfrac{N-1}{N}4B^2` (common rows at −Be₁, x = Be₁, y a common row; see
    :mod:`privpca_edu.protocol.mechanism` for the full argument).  Hence Δ = 4B².  The paper's
    Δ = 1 (B² here) is Analyze Gauss's add/remove value for the *uncentred* matrix: about 4 times
    too small for S, kept as ``calibration="paper"`` for reproduction only (not private).

    Parameters
    ----------
    data_norm : float, default 1.0
        Public row-norm bound B.
    calibration : {"classic", "analytic", "paper"}, default "classic"
        ``"paper"`` gives the paper's (too small) B².

    Returns
    -------
    float
        Δ = 4B² (B² for ``"paper"``).
    """
    data_norm = check_data_norm(data_norm)
    check_option(calibration, "calibration", tuple(DPDPCA_CALIBRATIONS))
    return (1.0 if calibration == "paper" else 4.0) * data_norm**2


def mask_sensitivity(data_norm=1.0):
    r"""The ℓ2 sensitivity of the column sum v = Σ xᵢ under replace-one: ‖x − y‖ ≤ 2B.

    DPDPCA's data user (Wang & Chang, IEEE DSC 2018, Algorithms 1–2) also receives the masked sum
    :math:`v' = v + b`, b ~ N(0, β²I): a Gaussian
    release of v.  Replacing x by y changes v by x − y, of norm at most ‖x‖ + ‖y‖ ≤ 2B (attained by
    y = −x), so Δ_v = 2B and the mask is a (2B/β)-GDP release (see :func:`dpdpca_noise_scale`).

    Parameters
    ----------
    data_norm : float, default 1.0
        Public row-norm bound B.

    Returns
    -------
    float
        Δ_v = 2B.
    """
    return 2.0 * check_data_norm(data_norm)


def dpdpca_noise_scale(epsilon, delta, data_norm=1.0, calibration="classic", *, mask_mu=0.0):
    r"""The standard deviation σ of each noise entry of G' (total over all parties), from :func:`privacy.gaussian_sigma`.

    ``"classic"`` and ``"paper"`` use the classic formula (which warns for ε ≥ 1); ``"analytic"``
    the exact one.  This function does not warn about ``"paper"``: the callers that release do.

    ``mask_mu``: the data user of the protocol also receives :math:`v' = v + b`, a second
    Gaussian release (of v, sensitivity 2B, noise β: :math:`\mu_b = 2B/\beta`).  With
    ``"analytic"`` the two together are calibrated *exactly*: μ-GDP mechanisms compose to
    :math:`\sqrt{\mu_S^2 + \mu_b^2}`-GDP (Dong, Roth & Su 2019, Cor. 3.3), so
    :math:`\sigma = \Delta/\sqrt{\mu_*^2 - \mu_b^2}` with :math:`\mu_* = 1/\sigma_{\mathrm{analytic}}(\Delta=1)`
    the largest μ that is (ε, δ)-DP (then stepped up to the first float passing
    :func:`~privpca_edu.privacy.check_gaussian_guarantee`).  A mask with :math:`\mu_b \ge \mu_*`
    alone spends more than (ε, δ): ``ValueError``.  ``"classic"`` keeps its formula (it has slack
    for ε < 1); the privacy record's exact check composes both releases either way.

    The value is computed in units of B² (Δ = 4, or 1 for "paper") and then scaled, so an
    extreme ``data_norm`` is refused by name instead of overflowing.

    Parameters
    ----------
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public row-norm bound B.
    calibration : {"classic", "analytic", "paper"}, default "classic"
        See :data:`DPDPCA_CALIBRATIONS`.
    mask_mu : float, default 0.0
        The GDP parameter μ_b = 2B/β of the masked sum released alongside (0: none).

    Returns
    -------
    float
        The standard deviation σ of each noise entry of G′.

    Examples
    --------
    >>> round(dpdpca_noise_scale(1.0, 1e-5, calibration="analytic"), 4)
    14.9225
    >>> round(dpdpca_noise_scale(0.5, 1e-4, calibration="paper"), 6)   # Algorithm 2's τ(0.5, 1e-4)
    8.687225
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    data_norm = check_positive(data_norm, "data_norm")
    check_option(calibration, "calibration", tuple(DPDPCA_CALIBRATIONS))
    mask_mu = check_positive(mask_mu, "mask_mu", allow_zero=True)
    sens = 1.0 if calibration == "paper" else 4.0
    if calibration != "analytic" or mask_mu == 0.0 or math.isinf(epsilon):
        sigma = gaussian_sigma(sens, epsilon, delta, method="analytic" if calibration == "analytic" else "classic")
    else:
        mu_star = 1.0 / gaussian_sigma(1.0, epsilon, delta, method="analytic")
        if mask_mu >= mu_star:
            raise ValueError(
                f"mask_scale is too small for (epsilon={epsilon:g}, delta={delta:g}): the masked sum v' = v + b is "
                f"itself a Gaussian release of v with mu = 2B/mask_scale = {mask_mu:.3g} >= {mu_star:.3g}, all that "
                f"(epsilon, delta) allows; use mask_scale > {2.0 / mu_star:.3g} * data_norm"
            )
        sigma = sens / math.sqrt(mu_star**2 - mask_mu**2)
        while not check_gaussian_guarantee(epsilon, delta, [(sens, sigma), (2.0, 2.0 / mask_mu)]).holds:
            sigma = math.nextafter(sigma, math.inf)
    scale = data_norm * data_norm
    if not (math.isfinite(sigma * scale) and scale > 0.0 and (sigma == 0.0 or sigma * scale > 0.0)):
        raise ValueError(f"data_norm={data_norm:g} is outside the range float64 can hold for σ = {sigma:g}·data_norm²")
    return sigma * scale


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------
#: Every mechanism's replace-one ℓ2 sensitivity function (the table of the module docstring).
SENSITIVITIES = {
    "Analyze Gauss": analyze_gauss_sensitivity,
    "MOD-SuLQ": mod_sulq_sensitivity,
    "PrivateLocal": private_local_sensitivity,
    "Kendall (g-DPPCA)": kendall_sensitivity,
    "SGPCA": sgpca_sensitivity,
    "NSGGD": nsggd_sensitivity,
    "DPS-PCA": dps_pca_sensitivity,
    "local (Wang & Xu)": local_sensitivity,
    "DPDPCA": dpdpca_sensitivity,
    "mask (DPDPCA)": mask_sensitivity,
}
