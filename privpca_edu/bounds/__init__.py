r"""The theorems the book plots, one function each, every term returned by name.

Conventions shared by every function here:

* **Terms by name.**  Each bound returns a ``dict``: the final value *and* the pieces it is made
  of (noise scale, noise norm, eigengap, which term binds, …), so a figure can draw the pieces
  and a student can see where a number comes from.  Keys are plain words
  (``noise_scale``, ``expected_spectral_norm``, ``sin_theta_bound``, ``vacuous``); a ``label``
  says which theorem the number comes from.
* **Unspecified constants are arguments defaulting to 1.**  Where a paper states a bound only up
  to "a universal constant" (``O(·)``), that constant is a keyword argument with default 1, and
  the book says so next to every plot of it.  Bounds whose constants are explicit (Davis–Kahan
  in the Yu–Wang–Samworth form, the semicircle edge 2√d) carry no such argument.
* **One source of truth.**  Noise scales are never recomputed here: they come from
  :mod:`privpca_edu.privacy` (the same calls the estimators make), and the "random guess"
  level from :func:`privpca_edu.subspace.random_subspace_distance`.
* Each paper's theorems live in their own private module and are re-exported here with their
  ``__all__``: :mod:`.distributed` (DPS-PCA Thm 4.3: :func:`dps_pca_thm43`), :mod:`.local`
  (Wang & Xu, local DP), :mod:`.robust` (Kim & Jung, g-DPPCA).  This module itself holds
  the noisy-covariance baselines (Analyze Gauss, MOD-SuLQ) and the shared pieces.
* Distances are :math:`\lVert\sin\Theta\rVert_F` (``subspace_distance(kind="sin_theta")``),
  whose largest possible value is :math:`\sqrt{\min(k, d-k)}`.  A bound at or above that value
  says nothing; it is returned capped, with ``vacuous=True``.

References
----------
.. [YWS15] Y. Yu, T. Wang and R. J. Samworth, "A useful variant of the Davis–Kahan theorem for
   statisticians", Biometrika 102(2), 2015, 315–323, Theorem 2.
.. [DTTZ14] C. Dwork, K. Talwar, A. Thakurta and L. Zhang, "Analyze Gauss: optimal bounds for
   privacy-preserving principal component analysis", STOC 2014.
.. [CSS13] K. Chaudhuri, A. Sarwate and K. Sinha, "A near-optimal algorithm for differentially
   private principal components", JMLR 14, 2013 (MOD-SuLQ).
.. [BvH16] A. S. Bandeira and R. van Handel, "Sharp nonasymptotic bounds on the norm of random
   matrices with independent entries", Annals of Probability 44(4), 2016.
.. [TW96] C. Tracy and H. Widom, "On orthogonal and symplectic matrix ensembles", Comm. Math.
   Phys. 177, 1996 (fluctuations of the largest eigenvalue at scale d^{-1/6}).
"""

from __future__ import annotations

import math

from . import distributed, local, robust
from .distributed import *  # noqa: F401,F403  DPS-PCA Theorem 4.3
from .local import *  # noqa: F401,F403  Wang & Xu, Theorems 1–4 (local DP)
from .robust import *  # noqa: F401,F403  Kim & Jung, g-DPPCA
from .._validation import check_delta, check_epsilon, check_int, check_option, check_positive
from ..privacy import (
    SYMMETRIC_CONVENTIONS,
    analyze_gauss_noise_scale,
    analyze_gauss_sensitivity,
    mod_sulq_noise_scale,
)
from ..subspace import random_subspace_distance

__all__ = [
    "gaussian_noise_spectral_norm",
    "davis_kahan",
    "analyze_gauss_bound",
    "mod_sulq_bound",
    "DAVIS_KAHAN_LABEL",
    *distributed.__all__,
    *local.__all__,
    *robust.__all__,
]

#: Label every Davis–Kahan number carries: it is a computable teaching substitute for the O(·)
#: utility theorem of Dwork, Talwar, Thakurta & Zhang (2014), not that theorem.
DAVIS_KAHAN_LABEL = "Davis–Kahan (Yu–Wang–Samworth form), not DTTZ's constant"

#: Leading constant c in ‖E‖₂ ≈ c·√d·σ for each noise convention of privacy.symmetric_noise.
_LEADING_CONSTANT = {"upper_iid": 2.0, "frobenius": math.sqrt(2.0)}
#: Standard deviation of an off-diagonal entry, in units of σ.
_OFF_DIAGONAL_SD = {"upper_iid": 1.0, "frobenius": 1.0 / math.sqrt(2.0)}


def gaussian_noise_spectral_norm(n_features, sigma, convention="upper_iid"):
    r"""Typical spectral norm of the symmetric Gaussian noise matrix of ``privacy.symmetric_noise``.

    For a d×d symmetric matrix with independent centred Gaussian entries on and above the
    diagonal, off-diagonal standard deviation s, the eigenvalues fill Wigner's semicircle on
    :math:`[-2\sqrt d\,s, 2\sqrt d\,s]`, so

    .. math:: \lVert E\rVert_2 \approx 2\sqrt d\, s .

    With the package's conventions: ``"upper_iid"`` (Analyze Gauss, MOD-SuLQ: s = σ) gives
    :math:`2\sqrt d\,\sigma`; ``"frobenius"`` (vecd: s = σ/√2) gives :math:`\sqrt{2d}\,\sigma`.

    Parameters
    ----------
    n_features : int
        Dimension d ≥ 1.
    sigma : float
        The noise scale σ ≥ 0 passed to ``symmetric_noise`` (0 gives zeros).
    convention : {"upper_iid", "frobenius"}

    Returns
    -------
    dict
        ``spectral_norm``  the leading-order value c·√d·σ;
        ``leading_constant``  c (2 or √2);
        ``off_diagonal_sd``  s;
        ``frobenius_norm``  :math:`\sqrt{\mathbb E\lVert E\rVert_F^2}` exactly
        (dσ for ``"upper_iid"``, :math:`\sigma\sqrt{d(d+1)/2}` for ``"frobenius"``);
        ``edge_fluctuation``  :math:`s\,d^{-1/6}`, the Tracy–Widom scale of the edge: the
        mean of ‖E‖₂ lies within about one of these below ``spectral_norm`` and its standard
        deviation is about one of these [TW96]_ (relative error O(d^{-2/3}));
        ``convention``.

    Notes
    -----
    Leading order is also an upper bound up to lower-order terms:
    :math:`\mathbb E\lVert E\rVert_2 \le 2\sqrt d\,s + C\sigma\sqrt{\log d}` [BvH16]_, and
    ‖E‖₂ concentrates around its mean with Gaussian tails at scale σ (it is a √2σ-Lipschitz
    function of the i.i.d. coordinates).

    Examples
    --------
    >>> r = gaussian_noise_spectral_norm(100, 0.5)
    >>> r["spectral_norm"], r["leading_constant"], r["frobenius_norm"]
    (10.0, 2.0, 50.0)
    >>> round(gaussian_noise_spectral_norm(100, 0.5, "frobenius")["spectral_norm"], 4)
    7.0711
    """
    d = check_int(n_features, "n_features", low=1)
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    if convention == "vecd":
        convention = "frobenius"
    check_option(convention, "convention", tuple(SYMMETRIC_CONVENTIONS))
    c = _LEADING_CONSTANT[convention]
    s = _OFF_DIAGONAL_SD[convention] * sigma
    # E‖E‖_F² = d·σ² (diagonal) + d(d−1)·s² (off-diagonal, both triangles).
    # (factored: σ² overflows for σ ≈ 1e300, the bound at ε = 1e-300)
    frob = sigma * math.sqrt(d + d * (d - 1) * (_OFF_DIAGONAL_SD[convention]) ** 2)
    return dict(
        spectral_norm=c * math.sqrt(d) * sigma,
        leading_constant=c,
        off_diagonal_sd=s,
        frobenius_norm=frob,
        edge_fluctuation=s * d ** (-1.0 / 6.0),
        convention=convention,
    )


def davis_kahan(noise_norm_2, noise_norm_F, eigengap, n_components):
    r"""Davis–Kahan sin Θ bound in the Yu–Wang–Samworth form [YWS15]_ (§2, Theorem 2).

    Theorem 2 of [YWS15]: let Σ, Σ̂ be symmetric p×p with eigenvalues λ₁ ≥ … ≥ λ_p and
    λ̂₁ ≥ … ≥ λ̂_p; fix 1 ≤ r ≤ s ≤ p, let d = s − r + 1 and V = (v_r, …, v_s),
    V̂ = (v̂_r, …, v̂_s) hold orthonormal eigenvectors; with λ₀ = ∞ and λ_{p+1} = −∞ assume
    :math:`\min(\lambda_{r-1}-\lambda_r,\ \lambda_s-\lambda_{s+1}) > 0`.  Then

    .. math:: \lVert\sin\Theta(\hat V, V)\rVert_F \le
              \frac{2\min(d^{1/2}\lVert\hat\Sigma-\Sigma\rVert_{\rm op},\ \lVert\hat\Sigma-\Sigma\rVert_F)}
                   {\min(\lambda_{r-1}-\lambda_r,\ \lambda_s-\lambda_{s+1})} .

    Here r = 1, s = k (the top-k subspace), so d = k, the gap is
    :math:`g = \lambda_k(\Sigma) - \lambda_{k+1}(\Sigma)` and, with :math:`E = \hat\Sigma - \Sigma`,

    .. math:: \lVert\sin\Theta(\hat V, V)\rVert_F \le
              \frac{2\min(\sqrt k\,\lVert E\rVert_2,\ \lVert E\rVert_F)}{g} .

    Deterministic: it holds for every E, with the constant 2 explicit, and only the *population*
    gap is needed (no condition on the eigenvalues of Σ̂).  Labelled
    "Davis–Kahan, not DTTZ's constant": Dwork et al. state their utility only with O(·).

    Parameters
    ----------
    noise_norm_2, noise_norm_F : float
        ‖E‖₂ and ‖E‖_F (≥ 0): measured, or typical values from
        :func:`gaussian_noise_spectral_norm`.
    eigengap : float
        Eigengap g > 0, the gap of the *unperturbed* matrix between eigenvalues k and k + 1.
    n_components : int
        Number of components k ≥ 1.

    Returns
    -------
    dict
        ``sin_theta_bound`` (not capped: it can exceed the largest possible distance),
        ``spectral_term`` = 2√k‖E‖₂/g, ``frobenius_term`` = 2‖E‖_F/g,
        ``binding`` ("spectral" or "frobenius": the smaller one), ``eigengap``, ``label``.

    Examples
    --------
    >>> r = davis_kahan(0.1, 0.5, 1.0, 4)
    >>> round(r["sin_theta_bound"], 12), r["binding"]
    (0.4, 'spectral')
    """
    norm_2 = check_positive(noise_norm_2, "noise_norm_2", allow_zero=True)
    norm_F = check_positive(noise_norm_F, "noise_norm_F", allow_zero=True)
    gap = check_positive(eigengap, "eigengap")
    k = check_int(n_components, "n_components", low=1)
    spectral = 2.0 * math.sqrt(k) * norm_2 / gap
    frobenius = 2.0 * norm_F / gap
    return dict(
        sin_theta_bound=min(spectral, frobenius),
        spectral_term=spectral,
        frobenius_term=frobenius,
        binding="spectral" if spectral <= frobenius else "frobenius",
        eigengap=gap,
        label=DAVIS_KAHAN_LABEL,
    )


def _noisy_covariance_bound(mechanism, noise_scale, sensitivity, n, d, k, eigengap):
    """Shared tail of the Analyze Gauss / MOD-SuLQ bounds (both use upper-iid noise)."""
    norms = gaussian_noise_spectral_norm(d, noise_scale, "upper_iid")
    dk = davis_kahan(norms["spectral_norm"], norms["frobenius_norm"], eigengap, k)
    max_distance = math.sqrt(min(k, d - k))
    raw = dk["sin_theta_bound"]
    return dict(
        mechanism=mechanism,
        noise_scale=noise_scale,
        sensitivity=sensitivity,
        expected_spectral_norm=norms["spectral_norm"],
        expected_frobenius_norm=norms["frobenius_norm"],
        eigengap=float(eigengap),
        noise_to_gap=norms["spectral_norm"] / eigengap,
        davis_kahan=raw,
        binding=dk["binding"],
        sin_theta_bound=min(raw, max_distance),
        max_distance=max_distance,
        vacuous=bool(raw >= max_distance),
        random_guess=random_subspace_distance(d, k),
        label=DAVIS_KAHAN_LABEL,
    )


def _check_sizes(n_samples, n_features, n_components):
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=d - 1)
    return n, d, k


def analyze_gauss_bound(n_samples, n_features, n_components, epsilon, delta, eigengap, data_norm=1.0,
                        calibration="classic"):
    r"""Typical error of Analyze Gauss, by Davis–Kahan with the noise's typical norms.

    Analyze Gauss releases :math:`X^\top X/n + E` with E symmetric, upper triangle i.i.d.
    N(0, σ²), σ = ``privacy.gaussian_sigma(√2 B²/n, ε, δ, calibration)`` (replace-one
    sensitivity √2B²/n, exactly what :class:`privpca_edu.AnalyzeGauss` uses).  Plugging
    ‖E‖₂ ≈ 2√d σ and ‖E‖_F ≈ dσ into :func:`davis_kahan` bounds the distance between the
    private top-k subspace and the **non-private** top-k subspace of the same data.

    Parameters
    ----------
    n_samples, n_features, n_components : int
        Sizes n ≥ 1, d ≥ 2 and 1 ≤ k < d.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no noise, bound 0).
    delta : float
        Privacy parameter δ in (0, 1).
    eigengap : float
        :math:`\lambda_k - \lambda_{k+1}` of :math:`X^\top X/n` (data scaled to ‖x‖ ≤ B).
    data_norm : float
        The public row-norm bound B.
    calibration : {"classic", "analytic"}
        Passed to ``privacy.gaussian_sigma``; ``"classic"`` warns for ε ≥ 1 (its proof needs
        ε < 1), exactly as the estimator does.

    Returns
    -------
    dict
        ``noise_scale`` (σ of each entry, on the X^T X/n scale), ``sensitivity``,
        ``expected_spectral_norm`` (2√d σ), ``expected_frobenius_norm`` (dσ), ``eigengap``,
        ``noise_to_gap``, ``davis_kahan`` (uncapped), ``binding``, ``sin_theta_bound`` (capped
        at ``max_distance`` = √min(k, d − k)), ``vacuous`` (the uncapped bound reaches the cap),
        ``random_guess`` (√(k(d − k)/d)), ``calibration``, ``mechanism``, ``label``.

    Notes
    -----
    The norms are typical values, not worst cases: the bound holds for draws whose ‖E‖₂ does
    not exceed 2√dσ (fluctuations are O(σ d^{-1/6})), and Davis–Kahan's factor 2 leaves ample
    room in practice.  DTTZ's own utility theorem is only stated with O(·).

    Examples
    --------
    >>> r = analyze_gauss_bound(4000, 30, 1, 0.5, 1e-5, eigengap=0.4)
    >>> round(r["noise_scale"], 6), round(r["sin_theta_bound"], 4), r["vacuous"]
    (0.003426, 0.1876, False)
    """
    n, d, k = _check_sizes(n_samples, n_features, n_components)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    eigengap = check_positive(eigengap, "eigengap")
    data_norm = check_positive(data_norm, "data_norm")
    check_option(calibration, "calibration", ("classic", "analytic"))
    sigma = analyze_gauss_noise_scale(n, epsilon, delta, data_norm, calibration)
    out = _noisy_covariance_bound("AnalyzeGauss", sigma, analyze_gauss_sensitivity(n, data_norm), n, d, k, eigengap)
    out["calibration"] = calibration
    return out


def mod_sulq_bound(n_samples, n_features, n_components, epsilon, delta, eigengap, data_norm=1.0):
    r"""Typical error of MOD-SuLQ, by Davis–Kahan with the noise's typical norms.

    MOD-SuLQ releases :math:`X^\top X/n + E`, upper triangle of E i.i.d. N(0, β²) with β from
    ``privacy.mod_sulq_noise_scale`` (Chaudhuri, Sarwate & Sinha 2013).  β grows like d/(nε),
    so ‖E‖₂ ≈ 2√d β grows like :math:`d^{3/2}`: at d = 1000, n = 10⁵, ε = 1, δ = 0.3,
    β = 0.0518 and ‖E‖₂ ≈ 3.3, far above the normalised spiked model's eigengap (≈ 0.015),
    so the bound is vacuous and MOD-SuLQ returns a random subspace (the setting of
    Ge et al. 2018, §5, Fig. 4(a)).

    Parameters and returned keys as :func:`analyze_gauss_bound` (no ``calibration``: MOD-SuLQ
    has one, the paper's).  ``sensitivity`` is the upper-triangle ℓ2 sensitivity √2B²/n, for
    comparison with Analyze Gauss.

    Parameters
    ----------
    n_samples, n_features, n_components : int
        Sizes n ≥ 1, d ≥ 2 and 1 ≤ k < d.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no noise, bound 0).
    delta : float
        Privacy parameter δ in (0, 1).
    eigengap : float
        :math:`\lambda_k - \lambda_{k+1}` of :math:`X^\top X/n` (data scaled to ‖x‖ ≤ B).
    data_norm : float, default=1.0
        The public row-norm bound B.

    Returns
    -------
    dict
        The keys of :func:`analyze_gauss_bound`.

    Examples
    --------
    >>> r = mod_sulq_bound(100_000, 1000, 5, 1.0, 0.3, eigengap=0.0155)
    >>> round(r["noise_scale"], 6), round(r["expected_spectral_norm"], 2), r["vacuous"]
    (0.051847, 3.28, True)
    """
    n, d, k = _check_sizes(n_samples, n_features, n_components)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    eigengap = check_positive(eigengap, "eigengap")
    data_norm = check_positive(data_norm, "data_norm")
    beta = mod_sulq_noise_scale(d, n, epsilon, delta, data_norm=data_norm)
    out = _noisy_covariance_bound("ModSuLQ", beta, analyze_gauss_sensitivity(n, data_norm), n, d, k, eigengap)
    out["calibration"] = "paper"
    return out
