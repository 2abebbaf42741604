r"""Elliptical and contaminated data with a two-spike dispersion (Kim & Jung 2025, Section 4)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int, check_option, check_positive, as_generator
from ._base import SyntheticData

__all__ = ["elliptical", "spike_directions", "outlier_direction", "ELLIPTICAL_FAMILIES"]

ELLIPTICAL_FAMILIES = ("gaussian", "t", "contaminated")


def spike_directions(n_features, n_spikes=2):
    r"""Return the default spike directions: indicator vectors of consecutive blocks, normalised.

    Block j covers coordinates ⌊jd/k⌋ … ⌊(j+1)d/k⌋ − 1; for k = 2 this is Kim & Jung's (Section 4.1)
    :math:`v_1 = \mathbf 1_{\lfloor d/2\rfloor}/\sqrt{\lfloor d/2\rfloor}` on the first half and
    :math:`v_2` on the rest: dense, non-coordinate directions.

    Parameters
    ----------
    n_features : int
        The dimension d ≥ 1.
    n_spikes : int, default 2
        The number k of spikes, 1 ≤ k ≤ d.

    Returns
    -------
    ndarray, shape (k, d)
        Orthonormal rows v₁, …, v_k (the orientation of ``components_``).

    Examples
    --------
    >>> spike_directions(4).round(4).tolist()
    [[0.7071, 0.7071, 0.0, 0.0], [0.0, 0.0, 0.7071, 0.7071]]
    """
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_spikes, "n_spikes", low=1, high=d)
    V = np.zeros((k, d))
    edges = [(j * d) // k for j in range(k + 1)]
    for j in range(k):
        lo, hi = edges[j], edges[j + 1]
        V[j, lo:hi] = 1.0 / math.sqrt(hi - lo)
    return V


def outlier_direction(components):
    r"""Return a fixed unit vector orthogonal to the spike directions.

    u = (e₁ − e₂)/√2 projected onto span(v₁, …, v_k)^⊥ and normalised (exactly (e₁ − e₂)/√2 for
    the default directions of :func:`spike_directions` when ⌊d/2⌋ ≥ 2); if that projection
    vanishes, the first coordinate vector with a non-zero projection.

    Parameters
    ----------
    components : array_like, shape (k, d)
        Orthonormal rows v₁, …, v_k, e.g. :func:`spike_directions` or ``data.components``.

    Returns
    -------
    ndarray, shape (d,)
        The unit vector u.

    Raises
    ------
    ValueError
        If ``components`` is not 2-D with k < d rows (then no direction is orthogonal to them).

    Examples
    --------
    >>> outlier_direction(spike_directions(4)).round(4).tolist()
    [0.7071, -0.7071, 0.0, 0.0]
    """
    V = np.asarray(components, dtype=np.float64)
    if V.ndim != 2 or V.shape[0] >= V.shape[1]:
        raise ValueError(f"components must be a (k, d) array of k < d orthonormal rows, got shape {V.shape}")
    V = V.T  # (d, k): columns, for the projection below
    d = V.shape[0]
    candidates = []
    if d >= 2:
        c = np.zeros(d)
        c[0], c[1] = 1 / math.sqrt(2), -1 / math.sqrt(2)
        candidates.append(c)
    candidates += list(np.eye(d))
    for c in candidates:
        u = c - V @ (V.T @ c)
        norm = np.linalg.norm(u)
        if norm > 1e-8:
            return u / norm
    raise ValueError(f"no direction orthogonal to the {V.shape[1]} spikes exists in d = {d}")


def _t_row_scales(rng, nu, n):
    r"""Draws of :math:`\sqrt{\nu/U}`, U ~ χ²_ν, computed in log space so small ν stays exact.

    For small ν, χ²_ν underflows to 0 (or to subnormals) with visible probability.  Such draws
    (U < t = 1e-300) are replaced by draws of the conditional law U | U < t, which near 0 is
    :math:`t\,V^{2/\nu}` (the χ²_ν density is ∝ u^{ν/2 − 1} there, exact to a relative O(t)),
    V ~ Uniform(0, 1), taken as a logarithm.  The other draws (and the random stream, when no
    draw underflows) are those of ``rng.chisquare``.  A scale beyond the floats comes out inf.
    """
    U = rng.chisquare(nu, size=n)
    log_u = np.log(np.maximum(U, 1e-300))
    low = U < 1e-300
    if low.any():
        log_u[low] = math.log(1e-300) + (2.0 / nu) * np.log(rng.uniform(size=int(low.sum())))
    with np.errstate(over="ignore"):
        return np.exp(0.5 * (math.log(nu) - log_u))


def elliptical(n_samples=1000, n_features=10, *, family="gaussian", df=1.0, contamination=0.05,
               eigenvalues=(10.0, 5.0), outlier_scale=None, random_state=None):
    r"""Elliptical data with dispersion :math:`\Sigma = I_d + \sum_j(\lambda_j-1)v_jv_j^\top`, optionally contaminated.

    The model of Kim & Jung's simulations (Section 4.1; the spike values, directions and the outlier
    law are **our** defaults):

    * ``"gaussian"``: :math:`x \sim N_d(0, \Sigma)`;
    * ``"t"``: multivariate t with ν = ``df`` degrees of freedom (any ν > 0),
      :math:`x = \Sigma^{1/2}W/\sqrt{U/\nu}`, W ~ N(0, I), U ~ χ²_ν.  ν = 1 is the multivariate
      Cauchy: no mean, no covariance — but Σ still has a meaning (the dispersion) and its leading
      eigenvectors are still the target;
    * ``"contaminated"``: n Gaussian rows, then a uniformly random ``round(contamination·n)`` of
      them **replaced** by outliers :math:`N_d(0, I + (\kappa-1)uu^\top)`, κ = ``outlier_scale``
      (default 10λ₁), u a unit vector orthogonal to every spike (:func:`outlier_direction`).  The
      outliers' variance along u (κ = 100 by default) dwarfs λ₁ = 10, so the covariance of the
      mixture, (1 − η)Σ + η(I + (κ−1)uuᵀ), ranks u above v₂ once ηκ + (1 − η) > (1 − η)λ₂ + η
      (η > 3.9 % with the defaults) and above v₁ once η > 8.3 %: at the default η = 5 % the
      top-2 covariance subspace already has a largest principal angle of 90° to the target.

    Parameters
    ----------
    n_samples, n_features : int
        Number of rows n ≥ 1 and dimension d ≥ number of spikes (d ≥ k + 1 for "contaminated", so u exists).
    family : {"gaussian", "t", "contaminated"}, default "gaussian"
        The law of the rows (see above).
    df : float, default 1.0
        Degrees of freedom ν > 0 for ``family="t"`` (``numpy.inf`` gives the Gaussian).
    contamination : float in [0, 1], default 0.05
        Fraction replaced by outliers for ``family="contaminated"``.
    eigenvalues : sequence of float, default (10, 5)
        Spike eigenvalues λ₁ ≥ λ₂ ≥ … > 1 of Σ; the bulk is 1.  Their number k is the number of
        true components.
    outlier_scale : float, optional
        The outliers' variance κ along u (default 10λ₁).
    random_state : None, int or Generator, default None
        Seed or generator for every random draw.

    Returns
    -------
    SyntheticData
        ``X``; ``components`` = (v₁, …, v_k) as rows (k × d, the target); ``eigenvalues`` = eigenvalues of
        the **dispersion** Σ (λ₁, …, λ_k, 1, …, 1); ``covariance`` = the covariance of the generating
        law where it exists (Σ for Gaussian, ν/(ν−2)Σ for t with ν > 2, the mixture covariance
        (1 − η)Σ + η(I + (κ−1)uuᵀ) for contaminated; ``None`` for t with ν ≤ 2); ``info`` has
        ``dispersion`` (Σ), ``family``, ``df``, ``contamination``, ``outlier_direction`` (u) and
        ``outliers`` (indices of the replaced rows).

    Examples
    --------
    >>> data = elliptical(500, 10, family="contaminated", contamination=0.1, random_state=0)
    >>> data.X.shape, data.components.shape, len(data.info["outliers"])
    ((500, 10), (2, 10), 50)
    >>> elliptical(5, 4, family="t", df=1.0, random_state=0).covariance is None
    True
    """
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=1)
    check_option(family, "family", ELLIPTICAL_FAMILIES)
    lam = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if lam.size < 1 or not np.all(np.isfinite(lam)) or np.any(lam <= 1.0):
        raise ValueError(f"eigenvalues must be finite spikes > 1 (the bulk is 1), got {lam.tolist()}")
    if np.any(np.diff(lam) > 0):
        raise ValueError(f"eigenvalues must be non-increasing, got {lam.tolist()}")
    k = lam.size
    if k > d:
        raise ValueError(f"n_features must be >= the number of spikes {k}, got {d}")
    # df and contamination are validated whatever the family (a bad value is never silently ignored)
    nu = check_positive(df, "df", allow_inf=True)
    if family != "t":
        nu = math.inf
    if not isinstance(contamination, (int, float, np.floating, np.integer)) or isinstance(contamination, bool):
        raise TypeError(f"contamination must be a real number in [0, 1], got {type(contamination).__name__}")
    if not (0.0 <= float(contamination) <= 1.0):
        raise ValueError(f"contamination must be in [0, 1], got {contamination}")
    eta = 0.0
    if family == "contaminated":
        eta = float(contamination)
        if d <= k:
            raise ValueError(f"family='contaminated' needs n_features > number of spikes ({k}), got {d}")
    kappa = 10.0 * float(lam[0]) if outlier_scale is None else check_positive(outlier_scale, "outlier_scale")
    rng = as_generator(random_state)

    V = spike_directions(d, k).T  # (d, k): the spikes as columns
    root = np.sqrt(lam) - 1.0  # Σ^{1/2} = I + V diag(√λ − 1) Vᵀ
    W = rng.standard_normal((n, d))
    X = W + ((W @ V) * root) @ V.T
    if family == "t" and not math.isinf(nu):
        X *= _t_row_scales(rng, nu, n)[:, None]
        if not np.all(np.isfinite(X)):
            raise ValueError(f"df={nu:g} is too heavy-tailed for float64: some draws of the multivariate t exceed "
                             "the largest float (about 1.8e308); use a larger df")
    dispersion = np.eye(d) + (V * (lam - 1.0)) @ V.T
    info = dict(family=family, df=nu if family == "t" else None, contamination=eta if family == "contaminated" else 0.0,
                dispersion=dispersion, eigenvalues_spikes=tuple(lam.tolist()), outlier_scale=kappa)
    outliers = np.arange(0)
    u = None
    covariance = dispersion.copy()
    if family == "t":
        covariance = dispersion * (nu / (nu - 2.0)) if nu > 2 else None
        if math.isinf(nu):
            covariance = dispersion.copy()
    if family == "contaminated":
        u = outlier_direction(V.T)
        m = int(round(eta * n))
        outliers = np.sort(rng.choice(n, size=m, replace=False)) if m else np.arange(0)
        Z = rng.standard_normal((m, d))
        X[outliers] = Z + np.outer(Z @ u * (math.sqrt(kappa) - 1.0), u)
        covariance = (1 - eta) * dispersion + eta * (np.eye(d) + (kappa - 1.0) * np.outer(u, u))
    info.update(outlier_direction=u, outliers=outliers)
    eigs = np.concatenate([lam, np.ones(d - k)])
    return SyntheticData(X=X, components=V.T.copy(), covariance=covariance, eigenvalues=eigs, info=info)
