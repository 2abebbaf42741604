r"""DPS-PCA's error bound: Theorem 4.3 of Ge, Wang, Wang & Liu (AISTATS 2018); re-exported by ``bounds``.

J. Ge, Z. Wang, M. Wang and H. Liu, "Minimax-optimal privacy-preserving sparse PCA in distributed
systems", Proceedings of AISTATS 2018, PMLR 84:1589–1598, §4 (Theorem 4.3 and the minimax remark
after it; Assumption B.1 is in Appendix B).

**What is computed.**  The three error terms of Theorem 4.3 (statistical, privacy, optimisation),
the contraction ρ, the success probability and the Vu–Lei minimax lower bound, each by name.  The
paper gives no values for the constants C₁ (upper bound) and C₂ (lower bound): they are keyword
arguments ``C1`` and ``C2`` defaulting to 1, so absolute levels carry no guarantee; shapes and
trends (in n, d, s, k, ε, δ, T) do.

**What the paper establishes, and what is this module's reading.**  Theorem 4.3 as published: under
Assumption 2.3 (i.i.d. records X = Σ^{1/2}Z with Z zero-mean, **bounded**, variance proxy below one
and identity covariance; integers 0 < k < s* < d; a row-s*-sparse top-k eigenspace; λ_k > λ_{k+1})
and Assumption B.1 of the appendix, with the success probability below, the iterates obey
:math:`\lVert Q^{(t)\top}Q^*_\perp\rVert_F \le \xi_{stat}+\xi_{priv}+\xi_{opt}(t)` for every
t = 1..T, where Q^{(1)} is the start.  ξ_stat, ξ_opt and the probability are as printed.  One
placement in ξ_priv is a reading of the displayed formula, not confirmed against a rendered copy:
the factor :math:`1/(1-\rho^{1/4})` is taken *outside* the square root, :math:`1/(\sqrt3\,(1-\rho^{1/4}))`,
because ξ_stat carries the same geometric-series factor.  Under the alternative reading,
:math:`1/\sqrt{3(1-\rho^{1/4})}`, ξ_priv is smaller by the factor :math:`\sqrt{1-\rho^{1/4}}`.

**Assumption B.1 and the start.**  Assumption B.1 (in the paper's appendix) constrains α, τ, n, d,
N, ŝ, s* and the quality of the start Q^{(1)}; its exact form is not reproduced here.  What can be
said: at t = 1 the theorem asserts that the start's error is at most
``start_condition`` = ξ_stat + ξ_priv + ξ_opt(1), with ξ_opt(1) ≤ ¼.  A random start has error
about :math:`\sqrt{k(d-k)/d}` (2.2 at k = 5, d = 200), so whenever ``start_condition`` is below that
a random start — the package's default — is **outside** the theorem's hypotheses.  ``valid``
checks only what can be checked without Assumption B.1 (ŝ ≥ s*, α < 1 − γ, i.e. ρ < 1, and a
positive success probability): a necessary check, not the theorem's hypotheses.  ``start_ok``
compares ``start_condition`` with the start's error (``start_error``, by default the random
start's :math:`\sqrt{k(d-k)/d}`), and ``start_reason`` says what that comparison means.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_delta, check_epsilon, check_int, check_positive
from ..privacy import dps_pca_sigma

__all__ = ["dps_pca", "dps_pca_thm43", "dps_pca_success_probability"]


def dps_pca_success_probability(n_iter, tau, n_samples, n_features):
    r"""Return the probability with which Theorem 4.3 of Ge et al. (2018) holds.

    .. math:: 1 - 2Te^{-\tau^2/2} - \frac{4}{n-1} - \frac1d - \frac{6\log n}{n} - \frac1n

    as printed after the theorem; it can be negative (then the theorem says nothing).

    Parameters
    ----------
    n_iter : int
        T, the number of iterations.
    tau : float
        The theorem's τ ≥ 0 (:func:`dps_pca` takes :math:`\sqrt{2\log(40T)}` by default).
    n_samples : float or ndarray
        Number of rows n > 1 (an array of them gives an array, as in
        :func:`~privpca_edu.experiments.dps_pca.privacy_for_free_map`).
    n_features : int
        Dimension d.

    Returns
    -------
    float or ndarray
        The lower bound on the success probability, for each n.

    Examples
    --------
    >>> round(float(dps_pca_success_probability(10, 4.0, 10_000, 1000)), 4)
    0.9863
    """
    n = n_samples
    return 1 - 2 * n_iter * math.exp(-tau**2 / 2) - 4 / (n - 1) - 1 / n_features - 6 * np.log(n) / n - 1 / n


def dps_pca(epsilon, delta, n_iter, n_samples, n_providers, n_features, n_components, support_size, sparsity,
            eigenvalues, *, tau=None, C1=1.0, C2=1.0, calibration="paper", data_norm=1.0,
            start_error=None):
    r"""Evaluate Ge et al. (2018), §4, Theorem 4.3: :math:`\lVert Q^{(t)\top}Q^*_\perp\rVert_F \le \xi_{stat} + \xi_{priv} + \xi_{opt}(t)`.

    .. math::
        \gamma = \frac{3\lambda_{k+1} + \lambda_k}{3\lambda_k + \lambda_{k+1}},\quad
        \alpha = \frac{2kN\sigma(\sqrt{\hat s} + \sqrt k + \tau)}{n\lambda_k},\quad
        \rho = \frac{\gamma}{1 - \alpha},

        \xi_{stat} = \frac{C_1\sqrt k}{1 - \rho^{1/4}}\,\frac{\sqrt{\lambda_1\lambda_{k+1}}}{\lambda_k - \lambda_{k+1}}
                     \sqrt{\frac{s^*(k + \log d)}{n}},\qquad
        \xi_{priv} = \frac{1}{\sqrt3(1 - \rho^{1/4})}\Big(1 + 2\sqrt{\frac{ks^*}{\hat s}}\Big)\frac{\alpha}{1 - \alpha},

        \xi_{opt}(t) = \rho^{(t-1)/4}\min\Big\{\frac{\rho^{1/2}\sqrt{1 - \rho^{1/2}}}{2}, \frac14\Big\},

    holding for all t = 1..T (Q^{(1)} is the start) with probability at least
    :math:`1 - 2Te^{-\tau^2/2} - 4/(n-1) - 1/d - 6\log n/n - 1/n`, for ŝ ≥ s*, where α and τ > 0 must satisfy
    :math:`2k(\sqrt{\hat s}+\sqrt k+\tau)/\alpha \le n\lambda_k/(N\sigma)` (this function takes
    the smallest such α).  The minimax lower bound quoted after the theorem (Vu & Lei 2013, over
    row-s*-sparse k-subspaces, under :math:`\lambda_k-\lambda_{k+1}>\kappa\lambda_{k+1}`) is
    :math:`C_2\frac{\sqrt{\lambda_1\lambda_{k+1}}}{\lambda_k-\lambda_{k+1}}\sqrt{s^*(k + \tfrac14\log d)/n}`.

    In words: the error after t rounds is a floor set by sampling (ξ_stat, the minimax rate up
    to 1/(1 − ρ^{1/4})), a floor set by the privacy noise (ξ_priv, growing with α ∝ Nσ/(nλ_k)),
    and a transient that shrinks by ρ^{1/4} per round.  See the module docstring for the reading
    of ξ_priv's radical (the alternative is smaller by :math:`\sqrt{1-\rho^{1/4}}`) and for
    Assumption B.1's start condition, which ``valid`` does not check.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε > 0 of the whole run (σ from ``privacy.dps_pca_sigma``).
    delta : float
        Privacy parameter δ in (0, 1) of the whole run.
    n_iter : int
        Number of iterations T.
    n_samples : int
        Number of rows n.
    n_providers : int
        Number of providers N.
    n_features : int
        Dimension d.
    n_components : int
        Number of components k.
    support_size : int
        Size s* of the true row support.
    sparsity : int
        Number ŝ >= s* of rows kept.
    eigenvalues : array_like
        Descending (at least k + 1 of them): λ₁ ≥ … ≥ λ_d of the covariance
        *of the rows the algorithm sees* (normalised rows have eigenvalues ~1/d of the raw ones).
    tau : float, optional
        Default solves 2Te^{−τ²/2} = 0.05, i.e. τ = √(2 log(40T)); α is then its smallest
        allowed value α_min(τ).
    C1, C2 : float
        The constants of the upper bound (ξ_stat) and of the minimax lower bound, which the paper
        leaves unnamed in value (default 1).
    calibration : str, default="paper"
        The σ calibration, one of ``privacy.ITERATIVE_CALIBRATIONS`` (as :class:`~privpca_edu.DPSPCA`).
    data_norm : float, default=1.0
        The public row-norm bound B that σ is calibrated to.
    start_error : float, optional
        Error :math:`\lVert Q^{(1)\top}Q^*_\perp\rVert_F` of the start, compared with
        ``start_condition``.  Default: :math:`\sqrt{k(d-k)/d}`, the error of a random start.

    Returns
    -------
    dict
        The keys ``gamma, sigma, alpha, rho, tau, xi_stat, xi_priv, xi_opt`` (array over t = 1..T),
        ``total`` (array over t), ``success_prob``, ``minimax_lower``, ``valid``, ``reason`` and
        ``vacuous``, and the start condition of Assumption B.1: ``start_condition`` (= ``total[0]``,
        the bound at t = 1), ``start_error``, ``start_ok`` (start_error ≤ start_condition) and
        ``start_reason``. Where the theorem says nothing (ρ ≥ 1, e.g. ε = 1e-6) the ξ terms and
        ``start_condition`` are NaN, ``start_ok`` is False, and ``total`` is the trivial bound
        :math:`\min(\sqrt k, \sqrt{d-k})` that holds for every k-dimensional Q (vacuous,
        ``vacuous=True``), never NaN.

    Examples
    --------
    >>> out = dps_pca(1.0, 0.3, 10, 10**5, 1, 1000, 5, 10, 50, [100] * 5 + [10] * 995)
    >>> round(out["gamma"], 5), out["valid"]
    (0.41935, True)
    >>> out["start_ok"], "random start" in out["start_reason"]
    (False, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    T = check_int(n_iter, "n_iter", low=1)
    n = check_int(n_samples, "n_samples", low=2)
    N = check_int(n_providers, "n_providers", low=1)
    d = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=d - 1)
    s_star = check_int(support_size, "support_size", low=k, high=d)
    s_hat = check_int(sparsity, "sparsity", low=k, high=d)
    lam = np.sort(np.asarray(eigenvalues, dtype=np.float64))[::-1]
    if lam.size < k + 1:
        raise ValueError(f"eigenvalues must contain at least n_components + 1 = {k + 1} values, got {lam.size}")
    lam1, lamk, lamk1 = float(lam[0]), float(lam[k - 1]), float(lam[k])
    if not lamk > lamk1:
        raise ValueError(f"the theorem needs an eigengap λ_k > λ_(k+1); got {lamk:g} and {lamk1:g}")
    C1 = check_positive(C1, "C1")
    C2 = check_positive(C2, "C2")
    if tau is None:
        tau = math.sqrt(2 * math.log(40 * T))
    tau = check_positive(tau, "tau", allow_zero=True)
    random_start = start_error is None
    start_error = (math.sqrt(k * (d - k) / d) if random_start
                   else check_positive(start_error, "start_error", allow_zero=True))
    start_name = (f"a random start (error ≈ √(k(d−k)/d) = {start_error:.3g})" if random_start
                  else f"the start (error {start_error:.3g})")

    sigma = dps_pca_sigma(epsilon, delta, T, data_norm=data_norm, method=calibration)
    gamma = (3 * lamk1 + lamk) / (3 * lamk + lamk1)
    alpha = 2 * k * N * sigma * (math.sqrt(s_hat) + math.sqrt(k) + tau) / (n * lamk)
    success = float(dps_pca_success_probability(T, tau, n, d))
    gap_factor = math.sqrt(lam1 * lamk1) / (lamk - lamk1)
    minimax = C2 * gap_factor * math.sqrt(s_star * (k + 0.25 * math.log(d)) / n)
    t = np.arange(1, T + 1)

    reasons = []
    if s_hat < s_star:
        reasons.append(f"ŝ = {s_hat} < s* = {s_star} (the theorem needs ŝ >= s*)")
    if alpha >= 1 - gamma:
        reasons.append(f"alpha = {alpha:.3g} >= 1 - gamma = {1 - gamma:.3g} (noise too large: rho >= 1)")
    if success <= 0:
        reasons.append(f"success probability {success:.3g} <= 0")
    valid = not reasons
    out = dict(gamma=gamma, sigma=sigma, alpha=alpha, tau=tau, success_prob=success, minimax_lower=minimax,
               valid=valid, reason="; ".join(reasons), C1=C1, C2=C2)
    if alpha >= 1 - gamma:
        nan = float("nan")
        trivial = math.sqrt(min(k, d - k))  # ‖Qᵀ Q*_⊥‖_F ≤ min(‖Q‖_F, ‖Q*_⊥‖_F) for any orthonormal Q
        out.update(rho=gamma / (1 - alpha) if alpha < 1 else float("inf"), xi_stat=nan, xi_priv=nan,
                   xi_opt=np.full(T, nan), total=np.full(T, trivial), vacuous=True, start_condition=nan,
                   start_error=start_error, start_ok=False,
                   start_reason="ρ ≥ 1: the theorem says nothing, whatever the start")
        return out
    rho = gamma / (1 - alpha)
    r4 = rho**0.25
    xi_stat = C1 * math.sqrt(k) / (1 - r4) * gap_factor * math.sqrt(s_star * (k + math.log(d)) / n)
    xi_priv = (1 + 2 * math.sqrt(k * s_star / s_hat)) * alpha / (1 - alpha) / (math.sqrt(3) * (1 - r4))
    xi_opt = rho ** ((t - 1) / 4) * min(math.sqrt(rho) * math.sqrt(1 - math.sqrt(rho)) / 2, 0.25)
    total = xi_stat + xi_priv + xi_opt
    start_condition = float(total[0])
    start_ok = bool(start_error <= start_condition)
    if start_ok:
        start_reason = (f"{start_name} meets the t = 1 case of the bound ({start_condition:.3g}); the rest of "
                        "Assumption B.1 (appendix) is not checked")
    else:
        start_reason = (f"{start_name} violates Assumption B.1: the theorem's t = 1 case needs the start's error "
                        f"≤ ξ_stat + ξ_priv + ξ_opt(1) = {start_condition:.3g}, so a run from it is outside the "
                        "theorem's hypotheses and `valid` is only a necessary check")
    out.update(rho=rho, xi_stat=xi_stat, xi_priv=xi_priv, xi_opt=xi_opt, total=total,
               start_condition=start_condition, start_error=start_error, start_ok=start_ok, start_reason=start_reason,
               vacuous=False)
    return out


#: Alias naming the theorem (Ge et al. 2018, Theorem 4.3).
dps_pca_thm43 = dps_pca
