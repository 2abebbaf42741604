r"""g-DPPCA's theory (Kim & Jung 2025, §2–§3); re-exported by :mod:`privpca_edu.bounds`.

M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
arXiv:2507.15232 (2025); published as "Robust and differentially private principal component
analysis", Statistical Analysis and Data Mining 18(6), 2025, doi:10.1002/sam.70053.

**Settled.**  Proposition 2.1(3): the Frobenius sensitivity of the generalized Kendall matrix
:math:`\hat K_g` is at most :math:`4\lVert g\rVert_\infty^2/n`, and eq. (2.5) calibrates
:math:`\sigma_{\varepsilon,\delta} = 4\lVert g\rVert_\infty^2\sqrt{2\log(1.25/\delta)}/(n\varepsilon)`
(the same constant is in the authors' R package ``dppca``); every function below uses that σ.
Proposition 3.1 (K_g has Σ's eigenvectors, in the same order, under ellipticity) is what lets the
bounds speak of Σ's subspace.

**Theorems 3.2–3.4, Proposition 3.5 and Remark 3.1: what the paper states, what is derived here.**
The paper states the structure: Theorem 3.2 bounds :math:`\lVert\sin\Theta\rVert_2` under an
elliptical model, above a sample size, with a probability over data and noise, by an eigengap
ratio (a Davis–Kahan variant) times a privacy term plus a sampling term of :math:`\hat K_g`,
depending on g only through two quantities, with an absolute constant it does not give; Theorem 3.4
adds an η-fraction of corrupted records and a bias term that stays positive for fixed η; Theorem
3.3 bounds the breakdown point below by an expression in the eigenvalues of :math:`\hat K_g(S)`
that has a positive limit as n → ∞.  The explicit displays evaluated here (every term of
:func:`kendall_dppca_thm32` and :func:`kendall_dppca_thm34`, and c = (n − 1)/(4n) in
:func:`kendall_breakdown`) are this package's derivation along the paper's proof outline — matrix
Bernstein for U-statistics [HL18, Thm B.2], the norm bound of a sub-Gaussian symmetric noise
matrix (Vershynin 2018, Cor. 4.4.8) and the Davis–Kahan variant [YWS15] — not the paper's printed
displays, whose log factors and constants could not be checked.  The functions take ``C``
(default 1) as an argument, so their numbers are rates: how the error moves with n, d, ε, δ, η and
the eigenvalues, not certified values.  The ``explicit=True`` variants evaluate a complete proof along the same route
with every constant written out (Davis–Kahan factor 2 [YWS15], matrix Bernstein for U-statistics
[HL18], the √(2d)σ edge of the vecd noise), which gives a number that can actually be computed.

Notation: ``lam_K`` are the eigenvalues :math:`\lambda_1(K_g) \ge \dots` of the **population**
Kendall matrix (:func:`kendall_population_eigenvalues` computes them by Monte Carlo), ``g_sup2`` is
:math:`\lVert g\rVert_\infty^2` (1 spherical, r² winsorized).  The distance is the paper's, the spectral norm
:math:`\lVert\sin\Theta\rVert_2 = \sin\theta_{\max} = \lVert\hat V\hat V^\top - VV^\top\rVert_2 \in [0, 1]`
(``subspace_distance(kind="max_angle")``): the norm in which Davis–Kahan bounds the error by
:math:`2\lVert E\rVert_2/(\lambda_k-\lambda_{k+1})` with no factor :math:`\sqrt k`.

References
----------
.. [YWS15] Y. Yu, T. Wang and R. J. Samworth, Biometrika 102(2), 2015, Theorem 2.
.. [HL18] F. Han and H. Liu, "ECA: high-dimensional elliptical component analysis in non-Gaussian
   distributions", JASA 113(521), 2018 (Theorem 3.1, Corollary 3.1; matrix Bernstein for
   U-statistics).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import PrivacyWarning, check_delta, check_epsilon, check_int, check_option, check_positive, as_generator
from ..privacy import KENDALL_SENSITIVITIES, gaussian_sigma

__all__ = [
    "kendall_population_eigenvalues",
    "kendall_dppca_thm32",
    "kendall_dppca_thm34",
    "kendall_breakdown",
    "kendall_sph_rate",
    "analyze_gauss_rate",
    "ROBUST_LABELS",
]

#: Label carried by every number of this module.
ROBUST_LABELS = {
    "thm32": "Kim & Jung 2025, Thm 3.2 (terms derived along the paper's proof; constant C unspecified, "
             "evaluated at C = 1)",
    "thm34": "Kim & Jung 2025, Thm 3.4 (terms derived along the paper's proof; constant C unspecified, "
             "evaluated at C = 1)",
    "thm33": "Kim & Jung 2025, Thm 3.3 (breakdown; the paper's explicit expression was not available: "
             "c = (n − 1)/(4n) from the replacement argument)",
    "prop35": "Kim & Jung 2025, Prop. 3.5 / eq. (3.1) (rate up to log factors; constant C unspecified)",
    "remark31": "Analyze Gauss rate (Liu et al. 2022, eq. 3) as compared in Kim & Jung 2025, Remark 3.1",
    "explicit": "Kim & Jung 2025, Thm 3.2 route with explicit constants (Davis–Kahan + matrix Bernstein)",
}


def _eigs(lam_K, k, name="lam_K"):
    lam = np.sort(np.asarray(lam_K, dtype=np.float64).ravel())[::-1]
    if lam.size < k + 1:
        raise ValueError(f"{name} needs at least n_components + 1 = {k + 1} eigenvalues, got {lam.size}")
    if not np.all(np.isfinite(lam)) or lam[0] <= 0:
        raise ValueError(f"{name} must be finite with a positive largest eigenvalue, got {lam.tolist()[:8]}")
    gap = lam[k - 1] - lam[k]
    if gap <= 0:
        raise ValueError(f"eigengap λ_k − λ_(k+1) must be > 0, got {gap:g}")
    return lam, gap


def kendall_population_eigenvalues(eigenvalues, transform_kind="spherical", radius=None, *, family="gaussian",
                                   df=1.0, n_draws=400_000, random_state=0, pair_scale="none"):
    r"""Compute the eigenvalues :math:`\lambda_j(K_g)` of the population Kendall matrix, by Monte Carlo.

    Under an elliptical law with dispersion eigenvalues λ (``eigenvalues``), K_g is diagonal in
    Σ's eigenbasis (Prop. 3.1), with :math:`\lambda_j(K_g) = \mathbb E[\xi(\lVert t\rVert)^2 t_j^2/\lVert t\rVert^2]`
    for t = X − X̃ written in that basis.  For ``"spherical"`` this is
    :math:`\mathbb E[\lambda_jZ_j^2/\sum_l\lambda_lZ_l^2]` whatever the law (Croux et al. 2002;
    Han & Liu 2018); for
    ``"winsorized"`` the law matters (``family`` = "gaussian" or "t" with ``df``).  Returned in the
    order of ``eigenvalues``; they sum to 1 (spherical).  Standard error ≤ ‖g‖∞²/(2√n_draws).

    ``pair_scale="sqrt2"`` uses t = (X − X̃)/√2, the definition
    :math:`K_g = \mathbb E[g((X-X')/\sqrt2)\,g((X-X')/\sqrt2)^\top]` of Kim & Jung (the same option
    as :class:`~privpca_edu.KendallDPPCA`'s); it changes nothing for ``"spherical"``, and for
    ``"winsorized"`` radius r with it equals ½ × (radius √2·r without it).

    Parameters
    ----------
    eigenvalues : array_like
        The dispersion Σ's eigenvalues λ (positive).
    transform_kind : {"spherical", "winsorized"}, default="spherical"
        The transform g (``"sph"``/``"wins"`` also accepted).
    radius : float or None, default=None
        The winsorization radius r (``None``: √d).
    family : {"gaussian", "t"}, default="gaussian"
        The elliptical law (matters for ``"winsorized"`` only).
    df : float, default=1.0
        Degrees of freedom of the t law.
    n_draws : int, default=400000
        Monte Carlo pairs.
    random_state : None, int or numpy.random.Generator, default=0
        Seed or generator.
    pair_scale : {"none", "sqrt2"}, default="none"
        Use t = (X − X̃)/√2 (``"sqrt2"``), as :class:`~privpca_edu.KendallDPPCA`'s option.

    Returns
    -------
    ndarray
        The eigenvalues λ_j(K_g), in the order of ``eigenvalues``.
    """
    lam = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if lam.size < 1 or np.any(~np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError("eigenvalues must be positive and finite")
    kind = {"sph": "spherical", "wins": "winsorized"}.get(transform_kind, transform_kind)
    check_option(kind, "transform_kind", ("spherical", "winsorized"))
    check_option(family, "family", ("gaussian", "t"))
    r = 1.0 if kind == "spherical" else (math.sqrt(lam.size) if radius is None else check_positive(radius, "radius"))
    n_draws = check_int(n_draws, "n_draws", low=1000)
    check_option(pair_scale, "pair_scale", ("none", "sqrt2"))
    pair_factor = 0.5 if pair_scale == "sqrt2" else 1.0  # ‖t/√2‖² = ‖t‖²/2
    rng = as_generator(random_state)
    acc = np.zeros(lam.size)
    done = 0
    root = np.sqrt(lam)
    while done < n_draws:
        m = min(100_000, n_draws - done)
        A = rng.standard_normal((m, lam.size))
        B = rng.standard_normal((m, lam.size))
        if family == "t" and not math.isinf(df):
            nu = check_positive(df, "df", allow_inf=True)
            A /= np.sqrt(rng.chisquare(nu, m) / nu)[:, None]
            B /= np.sqrt(rng.chisquare(nu, m) / nu)[:, None]
        T2 = pair_factor * ((A - B) * root) ** 2
        s2 = T2.sum(axis=1)
        w = 1.0 / s2 if kind == "spherical" else np.minimum(1.0, r * r / s2)
        acc += (T2 * w[:, None]).sum(axis=0)
        done += m
    return acc / n_draws


def kendall_dppca_thm32(lam_K, n_components, n_samples, n_features, epsilon, delta, *, g_sup2=1.0, alpha=0.05,
                        C=1.0, explicit=False):
    r"""Evaluate Kim & Jung (2025), §3, Theorem 3.2: error of g-DPPCA under an elliptical model.

    The display below is derived along the paper's proof outline (Appendix A: matrix Bernstein for
    U-statistics, Han & Liu 2018 Thm B.2, with a large-n condition; the norm bound of the
    sub-Gaussian symmetric noise, Vershynin 2018 Cor. 4.4.8; the Davis–Kahan variant of Yu, Wang &
    Samworth 2015); the paper states the same structure and assumptions, and the display reduces to
    Han & Liu's rate at ε = ∞, but its own log factors and constants were not checked.

    Assumptions: :math:`x_1,\dots,x_n` i.i.d. elliptical with dispersion Σ; g bounded with
    :math:`\xi(s)/s` non-increasing (so K_g has Σ's eigenvectors in Σ's order, Prop. 3.1);
    :math:`\lambda_k(K_g) > \lambda_{k+1}(K_g)`; :math:`\bar V` is g-DPPCA with σ of eq. (2.5).
    Fix α ∈ (0, 1).  If :math:`n \ge C'\lVert g\rVert_\infty^2\log(d/\alpha)/\lambda_1(K_g)`, then with
    probability at least 1 − α over the data and the noise

    .. math:: \lVert\sin\Theta(\bar V, V)\rVert_2 \le C\,\frac{\lambda_1(K_g)}{\lambda_k(K_g)-\lambda_{k+1}(K_g)}
              \Big(\underbrace{\frac{\lVert g\rVert_\infty^2}{\lambda_1(K_g)}
              \frac{(\sqrt d+\sqrt{\log(1/\alpha)})\sqrt{\log(1.25/\delta)}}{n\varepsilon}}_{\text{privacy}}
              + \underbrace{\sqrt{\frac{\lVert g\rVert_\infty^2\log(d/\alpha)}{n\lambda_1(K_g)}}}_{\text{statistical}}\Big).

    The paper leaves its absolute constant unnamed (C, C′ here); this function evaluates the right side with ``C`` (default 1)
    and reports in ``condition`` whether the sample-size condition holds with C′ = 1.  The error
    depends on g only through ‖g‖∞ and λ₁(K_g).  ``explicit=True`` instead evaluates a complete
    proof with its constants:
    :math:`2(\lVert\hat K-K\rVert_2 + \lVert E\rVert_2)/(\lambda_k-\lambda_{k+1})` with
    :math:`\lVert\hat K-K\rVert_2 \le \sqrt{2\lVert g\rVert_\infty^2\lambda_1L/m} + 4\lVert g\rVert_\infty^2L/(3m)`
    (matrix Bernstein via Hoeffding's decoupling, m = ⌊n/2⌋, L = log(4d/α)) and
    :math:`\lVert E\rVert_2 \approx \sqrt{2d}\,\sigma + \sigma\sqrt{2\log(2/\alpha)}` (GOE edge of
    the vecd noise plus Gaussian concentration; σ = eq. (2.5)).  The edge term is the
    large-d value, not a strict bound.

    Parameters
    ----------
    lam_K : array_like
        Eigenvalues of the population Kendall matrix K_g (any order; at least k + 1).
    n_components : int
        Number of components k >= 1.
    n_samples : int
        Number of rows n >= 2.
    n_features : int
        Dimension d.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no privacy term).
    delta : float
        Privacy parameter δ in (0, 1).
    g_sup2 : float, default=1.0
        ‖g‖∞² (1 for the spherical transform, r² for the winsorized one).
    alpha : float, default=0.05
        The bound holds with probability at least 1 − α.
    C : float, default=1.0
        The unnamed absolute constant.
    explicit : bool, default=False
        Evaluate the proof's explicit constants instead.

    Returns
    -------
    dict
        The keys ``gap_ratio``, ``privacy``, ``statistical`` (the Δ terms, before the gap ratio),
        ``total`` (capped at 1, the largest possible max-angle loss), ``raw`` (uncapped),
        ``condition`` (the sample-size condition with constant 1 holds), ``noise_scale`` (σ of eq. 2.5),
        ``explicit``, ``label``.
    """
    k = check_int(n_components, "n_components", low=1)
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=k + 1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    g2 = check_positive(g_sup2, "g_sup2")
    alpha = check_delta(alpha, "alpha")
    C = check_positive(C, "C")
    lam, gap = _eigs(lam_K, k)
    lam1 = lam[0]
    with warnings.catch_warnings():  # eq. (2.5) is evaluated as the paper states it, also for ε ≥ 1
        warnings.simplefilter("ignore", PrivacyWarning)
        sigma = gaussian_sigma(KENDALL_SENSITIVITIES["paper"] * g2 / n, epsilon, delta)
    condition = n >= g2 * math.log(d / alpha) / lam1
    if not explicit:
        gap_ratio = lam1 / gap
        privacy = 0.0 if math.isinf(epsilon) else (
            g2 / lam1 * (math.sqrt(d) + math.sqrt(math.log(1 / alpha))) * math.sqrt(math.log(1.25 / delta)) / (n * epsilon))
        statistical = math.sqrt(g2 * math.log(d / alpha) / (n * lam1))
        raw = C * gap_ratio * (privacy + statistical)
    else:
        m = n // 2
        L = math.log(4 * d / alpha)
        sampling = math.sqrt(2 * g2 * lam1 * L / m) + 4 * g2 * L / (3 * m)
        noise = sigma * (math.sqrt(2 * d) + math.sqrt(2 * math.log(2 / alpha)))
        gap_ratio = 2.0 / gap  # the Davis–Kahan factor 2/gap multiplies the norms directly
        privacy, statistical = noise, sampling
        raw = gap_ratio * (noise + sampling)
    return dict(gap_ratio=gap_ratio, privacy=privacy, statistical=statistical, raw=raw, total=min(1.0, raw),
                condition=bool(condition), noise_scale=sigma, explicit=bool(explicit), C=C,
                label=ROBUST_LABELS["explicit" if explicit else "thm32"])


def kendall_dppca_thm34(lam_K, n_components, n_samples, n_features, epsilon, delta, contamination, *, g_sup2=1.0,
                        alpha=0.05, C=1.0, explicit=False):
    r"""Evaluate Kim & Jung (2025), §3, Theorem 3.4: g-DPPCA when a fraction η of the records is replaced.

    Derived along the paper's proof outline like :func:`kendall_dppca_thm32` (the noise by its norm
    bound, the clean records by matrix Bernstein for U-statistics, the corrupted pairs by the
    boundedness of g); the paper states the structure — C·(eigengap ratio)·(Δ₁ + Δ₂ + Δ₃), Δ₁ the
    privacy term of Theorem 3.2, Δ₃ = 0 when η = 0 and positive for fixed η as n, ε → ∞ — and
    leaves C unnamed; the explicit Δ₂, Δ₃ below are this package's derivation.

    Assumptions: as :func:`kendall_dppca_thm32`, except that m = ⌊ηn⌋ of the n records are replaced
    by arbitrary points (the rest stay i.i.d. elliptical).  If
    :math:`(1-\eta)n \ge C'\lVert g\rVert_\infty^2\log(d/\alpha)/\lambda_1(K_g)`, then with probability
    at least 1 − α

    .. math:: \lVert\sin\Theta(\bar V, V)\rVert_2 \le C\,\frac{\lambda_1(K_g)}{\lambda_k(K_g)-\lambda_{k+1}(K_g)}
              (\Delta_1+\Delta_2+\Delta_3),

    Δ₁ = Thm 3.2's privacy term (all n records; independent of η);
    :math:`\Delta_2 = \sqrt{\lVert g\rVert_\infty^2\log(d/\alpha)/((1-\eta)n\lambda_1(K_g))}` (Thm 3.2's
    statistical term on the clean part); :math:`\Delta_3 = \frac{2\eta\lVert g\rVert_\infty^2}{\lambda_1(K_g)}\frac{n}{n-1}`
    (bias of the corrupted pairs: they make up a share
    :math:`1-\rho_m = m(2n-m-1)/(n(n-1)) \le 2\eta n/(n-1)` of all pairs and each is bounded by ‖g‖∞²,
    so :math:`\lVert\hat K_g(\tilde S)-K_g\rVert_2 \le \lVert\hat K_{\rm clean}-K_g\rVert_2 + (1-\rho_m)\lVert g\rVert_\infty^2`).
    The paper leaves C unnamed (``C`` defaults to 1; ``condition`` uses C′ = 1).  Δ₃ does not
    vanish as n, ε → ∞ for fixed η > 0: robustness is a bounded bias, not consistency.
    ``explicit=True``: the proof's constants as in :func:`kendall_dppca_thm32`, with the exact
    corrupted share 1 − ρ_m and the exact clean sample size n − m.

    Parameters
    ----------
    lam_K : array_like
        Eigenvalues of the population Kendall matrix K_g (any order; at least k + 1).
    n_components : int
        Number of components k >= 1.
    n_samples : int
        Number of rows n >= 2.
    n_features : int
        Dimension d.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no privacy term).
    delta : float
        Privacy parameter δ in (0, 1).
    contamination : float
        The replaced fraction η, 0 ≤ η < 1 (m = ⌊ηn⌋ records are replaced).
    g_sup2 : float, default=1.0
        ‖g‖∞² (1 for the spherical transform, r² for the winsorized one).
    alpha : float, default=0.05
        The bound holds with probability at least 1 − α.
    C : float, default=1.0
        The unnamed absolute constant.
    explicit : bool, default=False
        Evaluate the proof's explicit constants instead.

    Returns
    -------
    dict
        The keys ``gap_ratio``, ``privacy`` (Δ₁), ``statistical`` (Δ₂), ``contamination_bias`` (Δ₃),
        ``raw``, ``total`` (capped at 1), ``n_replaced`` (m),
        ``corrupted_pair_share`` (1 − ρ_m), ``noise_scale``, ``condition``, ``explicit``, ``C`` and
        ``label``.
    """
    k = check_int(n_components, "n_components", low=1)
    n = check_int(n_samples, "n_samples", low=2)
    if not isinstance(contamination, (int, float, np.floating, np.integer)) or not (0 <= contamination < 1):
        raise ValueError(f"contamination must be in [0, 1), got {contamination!r}")
    eta = float(contamination)
    m = int(math.floor(eta * n))
    n_clean = max(n - m, 2)
    g2 = check_positive(g_sup2, "g_sup2")
    lam, gap = _eigs(lam_K, k)
    lam1 = lam[0]
    base = kendall_dppca_thm32(lam_K, k, n, n_features, epsilon, delta, g_sup2=g2, alpha=alpha, C=C, explicit=explicit)
    rho = (n - m) * (n - m - 1) / (n * (n - 1))
    d = int(n_features)
    if not explicit:
        # Δ₂ on the (1 − η)n clean records, as stated (not the integer n − ⌊ηn⌋, which can be larger)
        n_clean_stated = (1.0 - eta) * n
        statistical = math.sqrt(g2 * math.log(d / alpha) / (n_clean_stated * lam1))
        condition = n_clean_stated >= g2 * math.log(d / alpha) / lam1
        bias = 2 * eta * g2 / lam1 * n / (n - 1)
        raw = C * base["gap_ratio"] * (base["privacy"] + statistical + bias)
    else:
        clean = kendall_dppca_thm32(lam_K, k, n_clean, n_features, epsilon, delta, g_sup2=g2, alpha=alpha, C=C,
                                    explicit=True)
        statistical, condition = clean["statistical"], clean["condition"]
        bias = (1 - rho) * g2
        raw = base["gap_ratio"] * (base["privacy"] + statistical + bias)
    return dict(gap_ratio=base["gap_ratio"], privacy=base["privacy"], statistical=statistical,
                contamination_bias=bias, raw=raw, total=min(1.0, raw), n_replaced=m, corrupted_pair_share=1 - rho,
                noise_scale=base["noise_scale"], condition=bool(condition), explicit=bool(explicit), C=C,
                label=ROBUST_LABELS["thm34"] + (" — explicit constants" if explicit else ""))


def kendall_breakdown(eigenvalues_hat, n_components, n_samples, n_replaced=None, *, g_sup2=1.0):
    r"""Evaluate Kim & Jung (2025), §3, Theorem 3.3 with explicit constants: how many replaced records K̂_g withstands.

    Definition 3.1: the breakdown point :math:`\varepsilon^*(\mathcal V; S)` of a subspace-valued
    statistic is the smallest fraction m/n of records whose replacement by arbitrary points can make
    :math:`\lVert\sin\Theta(\mathcal V(\tilde S_m), \mathcal V(S))\rVert_2 = 1`.  Theorem 3.3: for the
    top-k eigenvectors :math:`\mathcal V_g` of :math:`\hat K_g` (no noise) and every data set S with
    :math:`\hat\lambda_k > \hat\lambda_{k+1}` (eigenvalues of :math:`\hat K_g(S)`),
    :math:`\varepsilon^*(\mathcal V_g; S) \ge c(\hat\lambda_k-\hat\lambda_{k+1})/\lVert g\rVert_\infty^2`
    — deterministic, no probability.  The paper's explicit expression was not available; the
    replacement argument below (the same route as the paper's proof: triangle inequality on the
    changed pairs, the Davis–Kahan variant, the definition of breakdown) proves it with
    c = (n − 1)/(4n).

    Replacing m records changes only the pairs that touch them:
    :math:`\hat K_g(\tilde S)-\hat K_g(S) = (1-\rho_m)(\tilde B-B)`, :math:`\rho_m = \frac{(n-m)(n-m-1)}{n(n-1)}`,
    with B, B̃ PSD averages of ggᵀ of norm ≤ ‖g‖∞², so

    .. math:: \lVert\hat K_g(\tilde S)-\hat K_g(S)\rVert_2 \le (1-\rho_m)\lVert g\rVert_\infty^2, \qquad
              \lVert\sin\Theta\rVert_2 \le \frac{2(1-\rho_m)\lVert g\rVert_\infty^2}{\hat\lambda_k-\hat\lambda_{k+1}},

    and breakdown (sin Θ = 1) needs the right side to reach 1; since 1 − ρ_m ≤ 2m/(n − 1),

    .. math:: \varepsilon^*(\mathcal V_g; S) \ge \frac{n-1}{n}\cdot\frac{\hat\lambda_k-\hat\lambda_{k+1}}{4\lVert g\rVert_\infty^2},

    a positive constant as n → ∞ (the sample covariance has ε* = 1/n).

    Parameters
    ----------
    eigenvalues_hat : array_like
        Eigenvalues of K̂_g(S) (any order; at least k + 1).
    n_components : int
        Number of components k.
    n_samples : int
        Number of records n.
    n_replaced : int or array_like of int, optional
        Replaced records m, for the perturbation and sin Θ bounds.
    g_sup2 : float, default=1.0
        ‖g‖∞².

    Returns
    -------
    dict
        The keys ``breakdown_lower_bound`` (the fraction above), ``guaranteed_replacements`` (largest m whose
        sin Θ bound stays < 1, computed with the exact ρ_m), ``eigengap``; with ``n_replaced``:
        ``rho``, ``perturbation`` ((1 − ρ_m)‖g‖∞²) and ``sin_theta_bound`` (uncapped).
    """
    k = check_int(n_components, "n_components", low=1)
    n = check_int(n_samples, "n_samples", low=2)
    g2 = check_positive(g_sup2, "g_sup2")
    lam = np.sort(np.asarray(eigenvalues_hat, dtype=np.float64).ravel())[::-1]
    if lam.size < k + 1:
        raise ValueError(f"eigenvalues_hat needs at least {k + 1} values, got {lam.size}")
    gap = float(lam[k - 1] - lam[k])
    ms = np.arange(n + 1)
    rho_all = (n - ms) * (n - ms - 1) / (n * (n - 1))
    ok = 2 * (1 - rho_all) * g2 < gap
    out = dict(breakdown_lower_bound=(n - 1) / n * gap / (4 * g2) if gap > 0 else 0.0,
               guaranteed_replacements=int(ms[ok].max()) if ok.any() else 0, eigengap=gap,
               label=ROBUST_LABELS["thm33"])
    if n_replaced is not None:
        m = np.asarray(n_replaced)
        if np.any(m < 0) or np.any(m > n):
            raise ValueError(f"n_replaced must be in [0, {n}], got {n_replaced!r}")
        rho = (n - m) * (n - m - 1) / (n * (n - 1))
        pert = (1 - rho) * g2
        with np.errstate(divide="ignore"):
            sin_bound = np.where(gap > 0, 2 * pert / gap if gap > 0 else np.inf, np.inf)
        scalar = np.ndim(m) == 0
        out.update(rho=float(rho) if scalar else rho, perturbation=float(pert) if scalar else pert,
                   sin_theta_bound=float(sin_bound) if scalar else sin_bound)
    return out


def kendall_sph_rate(eigenvalues, n_components, n_samples, epsilon, delta=1e-5, *, C=1.0):
    r"""Evaluate Kim & Jung (2025), §3, Prop. 3.5 / eq. (3.1) (rate, log factors dropped): spherical g-DPPCA.

    .. math:: \lVert\sin\Theta\rVert_2 \lesssim \frac{\lambda_1}{\lambda_k-\lambda_{k+1}}
              \Big(\frac{r(\Sigma)\sqrt d}{n\varepsilon} + \sqrt{\frac{r(\Sigma)}{n}}\Big),\quad
              r(\Sigma) = \mathrm{tr}\,\Sigma/\lVert\Sigma\rVert_2,

    under Han & Liu's condition :math:`\lVert\Sigma\rVert_F\log d/\mathrm{tr}\,\Sigma \to 0`
    (``condition_ratio`` reports it).  ``eigenvalues`` are those of the dispersion Σ.

    Parameters
    ----------
    eigenvalues : array_like
        The dispersion Σ's eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    n_components : int
        Number of components k >= 1.
    n_samples : int
        Number of rows n >= 2.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no privacy term).
    delta : float, default=1e-5
        Privacy parameter δ in (0, 1). Checked, but the rate drops its log factor.
    C : float, default=1.0
        The unnamed absolute constant.

    Returns
    -------
    dict
        The keys ``gap_ratio`` (λ₁/(λ_k − λ_{k+1})), ``privacy`` and ``statistical`` (the two terms,
        before the gap ratio), ``raw`` (uncapped), ``total`` (capped at 1), ``C`` and ``label``, plus ``effective_rank`` r(Σ) and ``condition_ratio`` (Han & Liu's condition).
    """
    lam, gap = _eigs(eigenvalues, check_int(n_components, "n_components", low=1), "eigenvalues")
    n = check_int(n_samples, "n_samples", low=2)
    epsilon = check_epsilon(epsilon)
    check_delta(delta)  # the rate drops δ's log factor, but a δ outside (0, 1) is still an error
    C = check_positive(C, "C")
    d = lam.size
    eff = lam.sum() / lam[0]
    privacy = 0.0 if math.isinf(epsilon) else eff * math.sqrt(d) / (n * epsilon)
    statistical = math.sqrt(eff / n)
    raw = C * lam[0] / gap * (privacy + statistical)
    return dict(gap_ratio=lam[0] / gap, effective_rank=eff, privacy=privacy, statistical=statistical, raw=raw,
                total=min(1.0, raw), condition_ratio=math.sqrt(np.sum(lam**2)) * math.log(max(d, 2)) / lam.sum(),
                C=C, label=ROBUST_LABELS["prop35"])


def analyze_gauss_rate(eigenvalues, n_components, n_samples, epsilon, delta, *, C=1.0):
    r"""Evaluate Kim & Jung (2025), Remark 3.1: the Analyze Gauss rate for Gaussian data (Liu et al. 2022, eq. 3).

    .. math:: \lVert\sin\Theta\rVert_2 \lesssim \frac{\lambda_1}{\lambda_k-\lambda_{k+1}}
              \Big(\sqrt{\frac dn} + \frac{d^{3/2}\sqrt{\log(1/\delta)}}{n\varepsilon}\Big).

    Since r(Σ) ≤ d, eq. (3.1) is never worse.

    Parameters
    ----------
    eigenvalues : array_like
        The dispersion Σ's eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    n_components : int
        Number of components k >= 1.
    n_samples : int
        Number of rows n >= 2.
    epsilon : float
        Privacy parameter ε > 0 (``numpy.inf``: no privacy term).
    delta : float
        Privacy parameter δ in (0, 1).
    C : float, default=1.0
        The unnamed absolute constant.

    Returns
    -------
    dict
        The keys ``gap_ratio`` (λ₁/(λ_k − λ_{k+1})), ``privacy`` and ``statistical`` (the two terms,
        before the gap ratio), ``raw`` (uncapped), ``total`` (capped at 1), ``C`` and ``label``.
    """
    lam, gap = _eigs(eigenvalues, check_int(n_components, "n_components", low=1), "eigenvalues")
    n = check_int(n_samples, "n_samples", low=2)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    C = check_positive(C, "C")
    d = lam.size
    privacy = 0.0 if math.isinf(epsilon) else d**1.5 * math.sqrt(math.log(1 / delta)) / (n * epsilon)
    statistical = math.sqrt(d / n)
    raw = C * lam[0] / gap * (privacy + statistical)
    return dict(gap_ratio=lam[0] / gap, privacy=privacy, statistical=statistical, raw=raw, total=min(1.0, raw), C=C,
                label=ROBUST_LABELS["remark31"])

