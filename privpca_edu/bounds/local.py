r"""Wang & Xu, Theorems 1–4: PCA under non-interactive local differential privacy.

D. Wang and J. Xu, "Principal component analysis in the local differential privacy model",
IJCAI 2019, pp. 4795–4801; journal version with full proofs in Theoretical Computer Science 809
(2020) 296–312.  Theorem numbers are those of the IJCAI version: 1 (dense minimax lower bound),
2 (upper bound of Algorithm 1), 3 (row-sparse minimax lower bound), 4 (upper bound of
Algorithm 2).  Re-exported from :mod:`privpca_edu.bounds`.  The conventions are those of that
module: each function returns a ``dict`` of named terms, and the universal constants that the
theorems leave unnamed (every :math:`O(\cdot)`, :math:`\Omega(\cdot)`) are the keyword argument
``constant`` defaulting to 1 — so a plotted bound shows the *rate*, not a number with a guarantee.

**As printed in the IJCAI version (Theorems 1–4; the journal version's numbering and displays were
not checked).**  The eigenvalue factors — σ_k² in the lower bounds, λ₁²/(λ_k − λ_{k+1})² in the
upper bounds — are the printed ones (the paper's remarks that Theorems 1 and 2 differ by
O(λ₁/λ_{k+1}) and Theorems 3 and 4 by O((λ₁/λ_{k+1}) s/k) pin the numerators).  The Theorem 3
display is :math:`s(k+\log p)/(n\varepsilon^2)`, which :func:`ldp_sparse_lower_bound` implements.
The same paper also states the row-sparse lower bound as :math:`ks\log p/(n\varepsilon^2)` (in
its list of contributions and in the gap remark after Theorem 4), as does the journal abstract:
the paper is internally inconsistent, and the displayed form, the smaller of the two once k ≥ 2
and log p ≥ 2, is the one computed.  Theorem 4 as printed has no :math:`\log(1/\delta)`,
although its noise carries :math:`\sqrt{\log(1/\delta)}` exactly as Theorem 2's does.

**Scale.**  The bounds are scale-free (ratios of eigenvalues), but the LDP noise is not: it is
fixed by the norm bound ‖x‖ ≤ 1, while the eigenvalues shrink with the data.  On data with
:math:`\lambda_1 \ll 1` (Wang & Xu's synthetic model has :math:`\lambda_1 = 1/(5p)`) Theorems 2
and 4 at constant 1 fall far *below* measured errors: the constant must absorb
:math:`1/\lambda_1^2` of the bounds as printed.  The upper bounds therefore
also return ``numerator_one``: the same rate with :math:`\lambda_1^2` replaced by 1 (its largest
possible value under ‖x‖ ≤ 1), i.e. the Davis–Kahan shape
:math:`k\,p\,\log(1/\delta)/((\lambda_k - \lambda_{k+1})^2 n\varepsilon^2)` that follows from
‖E‖₂ ≲ σ√p/√n with σ ∝ √log(1/δ)/ε.  Read every bound here as a *rate* (how it moves with n, p,
s, k, ε, δ), not as a value.

All four bound the **squared** distance :math:`\lVert\sin\Theta(\hat V, V)\rVert_F^2` ("squared
subspace distance" in the paper).  For comparison with the experiments (which report
:math:`\lVert\hat V\hat V^\top - VV^\top\rVert_F = \sqrt2\,\lVert\sin\Theta\rVert_F`) every result
also has ``projection_distance`` = :math:`\sqrt{2\cdot\text{bound}}`, capped at its largest
possible value :math:`\sqrt{2\min(k, p-k)}` (``vacuous=True`` when the cap binds).

Notation: :math:`\sigma_k^2 = \lambda_1\lambda_{k+1}/(\lambda_k - \lambda_{k+1})^2`, the "effective
noise variance" of the non-private minimax rates (Vu & Lei 2013; Cai, Ma & Wu 2013).

References
----------
.. [WX19] D. Wang and J. Xu, "Principal component analysis in the local differential privacy
   model", IJCAI 2019, 4795–4801; Theoretical Computer Science 809 (2020) 296–312.
.. [CMW13] T. T. Cai, Z. Ma and Y. Wu, "Sparse PCA: optimal rates and adaptive estimation",
   Annals of Statistics 41(6), 2013 (non-private rates).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_delta, check_epsilon, check_int, check_positive
from ..subspace import random_subspace_distance

__all__ = [
    "ldp_lower_bound",
    "local_gaussian_upper_bound",
    "ldp_sparse_lower_bound",
    "local_sparse_upper_bound",
    "effective_noise_variance",
]


def _spectrum(eigenvalues, k):
    lam = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if lam.size < k + 1:
        raise ValueError(f"eigenvalues must have at least n_components + 1 = {k + 1} entries, got {lam.size}")
    if not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("eigenvalues must be finite and >= 0")
    lam = np.sort(lam)[::-1]
    l1, lk, lk1 = float(lam[0]), float(lam[k - 1]), float(lam[k])
    if lk <= lk1:
        raise ValueError(f"eigenvalues need a gap: lambda_k = {lk:g} must be > lambda_(k+1) = {lk1:g}")
    return l1, lk, lk1


def effective_noise_variance(eigenvalues, n_components):
    r"""Compute :math:`\sigma_k^2 = \lambda_1\lambda_{k+1}/(\lambda_k - \lambda_{k+1})^2` (scale-free).

    The eigenvalue factor of the non-private minimax rates for PCA (Vu & Lei 2013; Cai, Ma & Wu
    2013), which Wang & Xu's lower bounds (Theorems 1 and 3) carry.

    Parameters
    ----------
    eigenvalues : array_like
        Eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    n_components : int
        Number of components k.

    Returns
    -------
    float
        The effective noise variance σ_k².

    Examples
    --------
    >>> effective_noise_variance([2.0, 2.0, 1.0, 1.0], 2)
    2.0
    """
    k = check_int(n_components, "n_components", low=1)
    l1, lk, lk1 = _spectrum(eigenvalues, k)
    return l1 * lk1 / (lk - lk1) ** 2


def _sizes(n_samples, n_features, n_components):
    n = check_int(n_samples, "n_samples", low=1)
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    return n, p, k


def _finish(out, bound, p, k):
    max_sq = float(min(k, p - k))
    out["squared_sin_theta"] = bound
    out["sin_theta"] = math.sqrt(min(bound, max_sq))
    out["projection_distance"] = math.sqrt(2.0 * min(bound, max_sq))
    out["max_projection_distance"] = math.sqrt(2.0 * max_sq)
    out["vacuous"] = bool(bound >= max_sq)
    out["random_guess"] = random_subspace_distance(p, k, kind="projection")
    return out


def ldp_lower_bound(n_samples, n_features, n_components, epsilon, eigenvalues, *, constant=1.0):
    r"""Theorem 1: minimax lower bound for k-PCA under ε non-interactive LDP.

    .. math:: \mathfrak M^{\rm Nint}_n \ \ge\ C\,\sigma_k^2\,\frac{kp}{n\varepsilon^2},
              \qquad \sigma_k^2 = \frac{\lambda_1\lambda_{k+1}}{(\lambda_k-\lambda_{k+1})^2},

    in squared sin Θ distance, under :math:`p/4 \le k \le 3p/4`, :math:`\varepsilon\in(0, 1/2]`
    and :math:`n \ge C\,\sigma_k^2\min(k, p-k)/\varepsilon^2`.  The non-private rate is
    :math:`\sigma_k^2 kp/n` (Cai, Ma & Wu): **LDP turns n samples into nε²** — the effective
    sample size.

    Parameters
    ----------
    n_samples, n_features, n_components : int
        Sizes n, p and k (1 ≤ k < p).
    epsilon : float
        Privacy parameter ε > 0.
    eigenvalues : array_like
        Population eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    constant : float
        The unspecified universal constant C (default 1).

    Returns
    -------
    dict
        ``squared_sin_theta`` (the bound), ``sin_theta``, ``projection_distance`` (capped),
        ``vacuous``, ``random_guess``, ``effective_noise_variance`` (σ_k²), ``rate``
        (kp/(nε²)), ``nonprivate_rate`` (σ_k² kp/n), ``effective_sample_size`` (nε²),
        ``conditions`` (dict of booleans) and ``conditions_hold``, ``constant``, ``label``.

    Examples
    --------
    >>> r = ldp_lower_bound(10_000, 10, 4, 0.5, [2, 2, 2, 2, 1, 1, 1, 1, 1, 1])
    >>> r["squared_sin_theta"], r["effective_sample_size"], r["conditions_hold"]
    (0.032, 2500.0, True)
    """
    n, p, k = _sizes(n_samples, n_features, n_components)
    eps = check_epsilon(epsilon)
    C = check_positive(constant, "constant")
    s2 = effective_noise_variance(eigenvalues, k)
    rate = k * p / (n * eps**2)
    bound = C * s2 * rate
    conditions = {
        "p/4 <= k <= 3p/4": p / 4 <= k <= 3 * p / 4,
        "epsilon <= 1/2": eps <= 0.5,
        "n >= C sigma_k^2 min(k, p-k) / epsilon^2": n >= C * s2 * min(k, p - k) / eps**2,
    }
    out = dict(effective_noise_variance=s2, rate=rate, nonprivate_rate=C * s2 * k * p / n,
               effective_sample_size=n * eps**2, conditions=conditions,
               conditions_hold=all(conditions.values()), constant=C,
               label="Wang & Xu 2019, Theorem 1 (LDP minimax lower bound; constant unspecified)")
    return _finish(out, bound, p, k)


def local_gaussian_upper_bound(n_samples, n_features, n_components, epsilon, delta, eigenvalues, *, constant=1.0):
    r"""Theorem 2: upper bound for Algorithm 1 (:class:`~privpca_edu.LocalGaussianPCA`).

    With probability at least :math:`1 - e^{-C_1} - p^{-C_2}`,

    .. math:: \lVert\sin\Theta(\hat V_k, V_k)\rVert_F^2 \ \le\
              C\,\frac{\lambda_1^2\,k\,p\,\log(1/\delta)}{(\lambda_k-\lambda_{k+1})^2\,n\,\varepsilon^2}.

    The numerator :math:`\lambda_1^2` is as printed in the IJCAI version (journal version not
    checked; its abstract gives the :math:`kp/(n\varepsilon^2)` rate).  Same
    :math:`kp/(n\varepsilon^2)` as Theorem 1; the ratio to it is
    :math:`\log(1/\delta)\,\lambda_1/\lambda_{k+1}` up to constants (``gap_to_lower``).

    Parameters
    ----------
    n_samples : int
        Number of users n.
    n_features : int
        Dimension p.
    n_components : int
        Number of components k, 1 <= k < p.
    epsilon : float
        Privacy parameter ε > 0 of each user's report.
    delta : float
        Privacy parameter δ in (0, 1) of each user's report.
    eigenvalues : array_like
        Population eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    constant : float, default=1.0
        The unspecified universal constant C.

    Returns
    -------
    dict
        As :func:`ldp_lower_bound` (no ``conditions``) plus ``signal_factor``
        (λ₁²/(λ_k − λ_{k+1})²), ``log_term`` (log(1/δ)), ``gap_to_lower`` (this bound
        divided by Theorem 1's at the same C), ``numerator_one`` (λ₁² replaced by 1, see the
        module docstring) and ``numerator_one_projection_distance``.

    Examples
    --------
    >>> r = local_gaussian_upper_bound(10_000, 10, 4, 0.5, 1e-4, [2, 2, 2, 2, 1, 1, 1, 1, 1, 1])
    >>> round(r["squared_sin_theta"], 4), round(r["gap_to_lower"], 4)
    (0.5895, 18.4207)
    """
    n, p, k = _sizes(n_samples, n_features, n_components)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    C = check_positive(constant, "constant")
    l1, lk, lk1 = _spectrum(eigenvalues, k)
    signal = l1**2 / (lk - lk1) ** 2
    log_term = math.log(1.0 / delta)
    rate = k * p / (n * eps**2)
    bound = C * signal * log_term * rate
    lower = C * (l1 * lk1 / (lk - lk1) ** 2) * rate
    unit = C * log_term * rate / (lk - lk1) ** 2
    out = dict(signal_factor=signal, log_term=log_term, rate=rate, effective_sample_size=n * eps**2,
               gap_to_lower=bound / lower if lower > 0 else math.inf, constant=C,
               numerator_one=unit, numerator_one_projection_distance=math.sqrt(2.0 * min(unit, min(k, p - k))),
               label="Wang & Xu 2019, Theorem 2 (Algorithm 1 upper bound; constant unspecified)")
    return _finish(out, bound, p, k)


def ldp_sparse_lower_bound(n_samples, n_features, n_components, support_size, epsilon, eigenvalues, *,
                           constant=1.0, sigma2=None):
    r"""Theorem 3: minimax lower bound for row-s-sparse k-PCA under ε-NI-LDP.

    .. math:: \mathfrak M^{\rm Nint}_n \ \ge\ C\,\sigma_k^2\,\frac{s\,(k + \log p)}{n\varepsilon^2}

    under :math:`\varepsilon\in(0,1/2]`, :math:`n \ge C(s-k)\sigma^2(k+\log p)/\varepsilon^2`,
    :math:`2k \le s-k \le p-k` and :math:`k \le p-4` (``sigma2`` is the class's σ² ≥ σ_k²;
    default σ_k²).  This is the Theorem 3 display of the IJCAI version.  The same paper (list of
    contributions, remark after Theorem 4) and the journal abstract state the lower bound as
    :math:`\Omega(ks\log p/(n\varepsilon^2))`, larger than the display by
    :math:`ks\log p/(s(k+\log p))` (returned as ``abstract_rate_ratio``); the paper is
    internally inconsistent, and this function keeps the displayed (smaller, safer) form.

    Parameters
    ----------
    n_samples : int
        Number of users n.
    n_features : int
        Dimension p.
    n_components : int
        Number of components k, 1 <= k < p.
    support_size : int
        Row sparsity s of the class.
    epsilon : float
        Privacy parameter ε > 0.
    eigenvalues : array_like
        Population eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    constant : float, default=1.0
        The unspecified universal constant C.
    sigma2 : float or None, default=None
        The class's σ² ≥ σ_k² (``None``: σ_k²).

    Returns
    -------
    dict
        ``squared_sin_theta`` (the bound), ``sin_theta`` and ``projection_distance`` (capped),
        ``max_projection_distance``, ``vacuous``, ``random_guess``, ``effective_noise_variance``, ``rate``, ``nonprivate_rate``,
        ``abstract_rate_ratio``, ``effective_sample_size``, ``conditions`` (dict of booleans),
        ``conditions_hold``, ``constant`` and ``label``.

    Examples
    --------
    >>> r = ldp_sparse_lower_bound(10_000, 400, 2, 10, 0.5, [2, 2] + [1] * 398)
    >>> round(r["squared_sin_theta"], 5), r["conditions_hold"]
    (0.06393, True)
    """
    n, p, k = _sizes(n_samples, n_features, n_components)
    s = check_int(support_size, "support_size", low=k, high=p)
    eps = check_epsilon(epsilon)
    C = check_positive(constant, "constant")
    s2 = effective_noise_variance(eigenvalues, k)
    sig2 = s2 if sigma2 is None else check_positive(sigma2, "sigma2")
    rate = s * (k + math.log(p)) / (n * eps**2)
    bound = C * s2 * rate
    conditions = {
        "epsilon <= 1/2": eps <= 0.5,
        "n >= C (s-k) sigma^2 (k + log p) / epsilon^2": n >= C * (s - k) * sig2 * (k + math.log(p)) / eps**2,
        "2k <= s-k <= p-k": 2 * k <= s - k <= p - k,
        "k <= p-4": k <= p - 4,
    }
    out = dict(effective_noise_variance=s2, rate=rate, nonprivate_rate=C * s2 * s * (k + math.log(p)) / n,
               abstract_rate_ratio=k * math.log(p) / (k + math.log(p)),
               effective_sample_size=n * eps**2, conditions=conditions,
               conditions_hold=all(conditions.values()), constant=C,
               label="Wang & Xu 2019, Theorem 3 (sparse LDP minimax lower bound; constant unspecified)")
    return _finish(out, bound, p, k)


def local_sparse_upper_bound(n_samples, n_features, n_components, support_size, epsilon, eigenvalues, *,
                             constant=1.0):
    r"""Theorem 4: upper bound for Algorithm 2 (:class:`~privpca_edu.LocalSparsePCA`).

    For :math:`0 < \varepsilon, \delta < 1` and λ of order :math:`\lambda_1\sqrt{\log p/(n\varepsilon^2)}`,
    with probability at least :math:`1 - 2p^{-2} - p^{-c}`,

    .. math:: \lVert\sin\Theta(\hat V_k, V_k)\rVert_F^2 \ \le\
              C\,\frac{\lambda_1^2}{(\lambda_k-\lambda_{k+1})^2}\cdot\frac{s^2\log p}{n\varepsilon^2}.

    As printed in the IJCAI version (journal version not checked; its abstract gives the
    :math:`s^2\log p/(n\varepsilon^2)` rate), with the penalty printed as
    :math:`\lambda \le O(\lambda_1\sqrt{\log p/(n\varepsilon^2)})`.  The printed bound has **no**
    :math:`\log(1/\delta)`, although the noise scale of Algorithm 2 carries
    :math:`\sqrt{\log(1/\delta)}` exactly as Theorem 2's, whose bound keeps it; this function
    evaluates the bound as printed.  The ratio to :func:`ldp_sparse_lower_bound` (``gap_to_lower``) is
    :math:`(\lambda_1/\lambda_{k+1})\,s\log p/(k+\log p)`; against the abstract's
    :math:`ks\log p` lower rate it would be :math:`(\lambda_1/\lambda_{k+1})(s/k)`.

    Parameters
    ----------
    n_samples : int
        Number of users n.
    n_features : int
        Dimension p.
    n_components : int
        Number of components k, 1 <= k < p.
    support_size : int
        Row sparsity s.
    epsilon : float
        Privacy parameter ε > 0 of each user's report.
    eigenvalues : array_like
        Population eigenvalues (any order; at least k + 1, with λ_k > λ_{k+1}).
    constant : float, default=1.0
        The unspecified universal constant C.

    Returns
    -------
    dict
        ``squared_sin_theta`` (the bound), ``sin_theta`` and ``projection_distance`` (capped),
        ``max_projection_distance``, ``vacuous``, ``random_guess``, ``signal_factor``, ``rate``, ``effective_sample_size``, ``gap_to_lower``,
        ``constant``, ``numerator_one``, ``numerator_one_projection_distance`` and ``label``.

    Examples
    --------
    >>> r = local_sparse_upper_bound(10_000, 400, 2, 10, 0.5, [2, 2] + [1] * 398)
    >>> round(r["squared_sin_theta"], 4), r["vacuous"]
    (0.9586, False)
    """
    n, p, k = _sizes(n_samples, n_features, n_components)
    s = check_int(support_size, "support_size", low=k, high=p)
    eps = check_epsilon(epsilon)
    C = check_positive(constant, "constant")
    l1, lk, lk1 = _spectrum(eigenvalues, k)
    signal = l1**2 / (lk - lk1) ** 2
    rate = s**2 * math.log(p) / (n * eps**2)
    bound = C * signal * rate
    lower = C * (l1 * lk1 / (lk - lk1) ** 2) * s * (k + math.log(p)) / (n * eps**2)
    unit = C * rate / (lk - lk1) ** 2
    out = dict(signal_factor=signal, rate=rate, effective_sample_size=n * eps**2,
               gap_to_lower=bound / lower if lower > 0 else math.inf, constant=C,
               numerator_one=unit, numerator_one_projection_distance=math.sqrt(2.0 * min(unit, min(k, p - k))),
               label="Wang & Xu 2019, Theorem 4 (Algorithm 2 upper bound; constant unspecified)")
    return _finish(out, bound, p, k)
