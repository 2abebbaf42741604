r"""The synthetic model of Wang & Xu (2019), §5 (dense) and §5 high-dimensional (row-sparse)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int, check_positive, as_generator
from ..subspace import thin_qr
from ._base import SyntheticData

__all__ = ["ldp_spiked", "ldp_spiked_model", "ldp_spiked_covariance"]


def ldp_spiked_covariance(n_features, components, gap):
    r"""Return Σ = Δ/(5p(Δ+1))·VVᵀ + 1/(5p(Δ+1))·I and its eigenvalues (leading first).

    λ₁ = … = λ_k = 1/(5p) and λ_{k+1} = … = λ_p = 1/(5p(Δ+1)), so tr Σ ≤ 1/5.

    Parameters
    ----------
    n_features : int
        p ≥ 2.
    components : array_like, shape (k, p)
        Orthonormal rows: Vᵀ, the true directions (as ``components`` of :func:`ldp_spiked`).
    gap : float
        Δ > 0.

    Returns
    -------
    covariance : ndarray, shape (p, p)
        Σ.
    eigenvalues : ndarray, shape (p,)
        Its eigenvalues, leading first.
    """
    p = check_int(n_features, "n_features", low=2)
    gap = check_positive(gap, "gap")
    Vt = np.asarray(components, dtype=np.float64)
    if Vt.ndim != 2 or Vt.shape[1] != p or Vt.shape[0] >= p:
        raise ValueError(f"components must be a (k, n_features) = (k, {p}) array with k < {p}, got shape {Vt.shape}")
    V = Vt.T
    k = V.shape[1]
    base = 1.0 / (5 * p * (gap + 1))
    covariance = gap * base * (V @ V.T) + base * np.eye(p)
    eigenvalues = np.concatenate([np.full(k, (gap + 1) * base), np.full(p - k, base)])
    return covariance, eigenvalues


def ldp_spiked_model(n_features, n_components, *, gap=10.0, support_size=None, random_state=None):
    """Return the population of :func:`ldp_spiked` without data: ``(components, Σ, eigenvalues, support)``.

    Draws V exactly as :func:`ldp_spiked` does with the same ``random_state`` (V is drawn
    first), so experiments can pair a model with a second moment drawn some other way.

    Parameters
    ----------
    n_features, n_components : int
        Dimension p and number of components k (1 ≤ k < p).
    gap : float, default 10.0
        Δ > 0.
    support_size : int, optional
        Support size s with k ≤ s ≤ p for the row-sparse variant.
    random_state : None, int or Generator
        Seed or generator; the same value draws the same V as :func:`ldp_spiked`.

    Returns
    -------
    components : ndarray, shape (k, p)
        Vᵀ: the true directions as orthonormal rows (the orientation of ``components_``).
    covariance : ndarray, shape (p, p)
        Σ.
    eigenvalues : ndarray, shape (p,)
        Eigenvalues of Σ, leading first.
    support : ndarray or None
        The s coordinates where V is nonzero (row-sparse variant only).
    """
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    gap = check_positive(gap, "gap")
    rng = as_generator(random_state)
    if support_size is None:
        V, _ = thin_qr(rng.standard_normal((p, k)))
        support = None
    else:
        s = check_int(support_size, "support_size", low=k, high=p)
        block, _ = thin_qr(rng.standard_normal((s, k)))
        V = np.zeros((p, k))
        V[:s] = block
        perm = rng.permutation(p)
        V = V[np.argsort(perm)]  # row j of the stacked matrix moves to position perm[j]
        support = np.sort(perm[:s])
    covariance, eigenvalues = ldp_spiked_covariance(p, V.T, gap)
    return V.T.copy(), covariance, eigenvalues, support


def ldp_spiked(
    n_samples=100_000,
    n_features=10,
    n_components=2,
    *,
    gap=10.0,
    support_size=None,
    clip=True,
    random_state=None,
):
    r"""Gaussian data from Wang & Xu's synthetic model (dense, or row-sparse with ``support_size``).

    .. math:: x_i \sim \mathcal N(0, \Sigma), \qquad
              \Sigma = \frac{\Delta}{5p(\Delta+1)}VV^\top + \frac{1}{5p(\Delta+1)}I_p,

    so :math:`\lambda_1 = \dots = \lambda_k = 1/(5p)`, :math:`\lambda_{k+1} = \dots = 1/(5p(\Delta+1))`,
    the eigengap is :math:`\Delta/(5p(\Delta+1))` and :math:`\mathrm{tr}\,\Sigma \le 1/5`: rows have
    norm ≤ 1 with overwhelming probability (the privacy proof needs it; see ``clip``).

    * **Dense** (``support_size=None``, Algorithm 1's experiments): V is the Q factor of a p×k
      standard Gaussian matrix, signs fixed by sign(diag R) (uniform on the Stiefel manifold).
    * **Row-sparse** (``support_size=s``, Algorithm 2's): a random orthonormal s×k block (QR
      of an s×k Gaussian), p − s zero rows stacked beneath it, then a uniformly random row
      permutation.  ``support`` gives the s nonzero rows of V (the nonzero columns of ``components``).

    Parameters
    ----------
    n_samples, n_features, n_components : int
        Number of rows n, dimension p and number of components k (1 ≤ k < p).  The **defaults are the book's small setting** where the trends
        are visible (p = 10, k = 2, Δ = 10, n = 10⁵).  The paper's
        dense setting is p = 40, k ∈ {5, 10, 15, 20}, Δ = 1, n = 10⁵; its
        sparse setting p = 400, k = 10, s ∈ {15, 20, 40, 80}, Δ = 1, n = 2000.  At the paper's
        scale the LDP noise swamps the eigengap and every error sits at the random-guess level.
    gap : float
        Δ > 0, the signal/gap parameter of Wang & Xu's Section 6.
    support_size : int, optional
        Support size s with k ≤ s ≤ p for the row-sparse variant.
    clip : bool
        Scale any row of norm > 1 down to norm 1 (a per-record map: it costs no privacy, and
        matches what the estimators do with ``data_norm=1``); the count is ``info["n_clipped"]``
        (essentially always 0 under this model).
    random_state : None, int or Generator
        Seed or generator for the model and the samples.

    Returns
    -------
    SyntheticData
        ``X`` (n, p), ``components`` (Vᵀ, (k, p): one direction per row), ``covariance`` (Σ), ``eigenvalues``
        (leading first), ``support`` (row-sparse only), ``info``.

    Examples
    --------
    >>> data = ldp_spiked(1000, 10, 2, random_state=0)
    >>> data.X.shape, data.eigenvalues[:3].round(5).tolist()
    ((1000, 10), [0.02, 0.02, 0.00182])
    >>> sparse = ldp_spiked(500, 40, 3, support_size=6, random_state=0)
    >>> len(sparse.support), int(np.count_nonzero(np.linalg.norm(sparse.components, axis=0)))
    (6, 6)
    """
    n = check_int(n_samples, "n_samples", low=1)
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    gap = check_positive(gap, "gap")
    if support_size is not None:
        check_int(support_size, "support_size", low=k, high=p)
    if not isinstance(clip, (bool, np.bool_)):
        raise TypeError(f"clip must be True or False, got {clip!r}")
    rng = as_generator(random_state)

    components, covariance, eigenvalues, support = ldp_spiked_model(p, k, gap=gap, support_size=support_size,
                                                                    random_state=rng)

    # x = a·V g + b·z with g ~ N(0, I_k), z ~ N(0, I_p): Cov = a²VVᵀ + b²I = Σ.  O(npk), no p×p root.
    base = 1.0 / (5 * p * (gap + 1))
    a, b = math.sqrt(gap * base), math.sqrt(base)
    X = a * (rng.standard_normal((n, k)) @ components) + b * rng.standard_normal((n, p))
    n_clipped = 0
    if clip:
        norms = np.linalg.norm(X, axis=1)
        over = norms > 1.0
        n_clipped = int(over.sum())
        X[over] /= norms[over, None]
    info = dict(model="Wang & Xu (2019) synthetic", n_samples=n, n_features=p, n_components=k, gap=gap,
                support_size=support_size, eigengap=gap * base, n_clipped=n_clipped)
    return SyntheticData(X=X, components=components, covariance=covariance, eigenvalues=eigenvalues, support=support,
                         info=info)
