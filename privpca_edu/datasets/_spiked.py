"""The spiked sparse covariance model of Ge, Wang, Wang & Liu (2018), §5.1."""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_option, check_positive, as_generator
from ..subspace import thin_qr
from ._base import SyntheticData

_SCALINGS = ("none", "unit", "max_norm")


def spiked_sparse(
    n_samples=100_000,
    n_features=1000,
    n_components=5,
    support_size=10,
    *,
    spike=100.0,
    noise_high=10.0,
    scaling="none",
    permute=False,
    random_state=None,
):
    r"""Mean-zero Gaussian data whose leading k-eigenspace has ``support_size`` nonzero rows.

    The model of DPS-PCA's experiments (Ge et al. 2018, Section 5):

    1. eigenvalues :math:`\lambda_i` = ``spike`` for i ≤ k, i.i.d. Uniform[0, ``noise_high``]
       for i > k;
    2. :math:`Q^* = [L; 0]` with L the thin-QR basis of an s*×k standard Gaussian matrix
       (support = the first s* coordinates, or a random set with ``permute=True``);
    3. :math:`Q^*_\perp` = orthonormalised :math:`(I - Q^*Q^{*\top})R`, R a d×(d−k) Gaussian matrix;
    4. :math:`\Sigma = U\Lambda U^\top`, :math:`U = [Q^*\ Q^*_\perp]`;
    5. rows :math:`x = U\Lambda^{1/2}z`, z ~ N(0, I_d), generated in chunks.

    Parameters
    ----------
    n_samples, n_features, n_components, support_size : int
        Number of rows n, dimension d, number of components k and support size s* (k ≤ s* ≤ d).  Paper defaults: 10⁵, 1000, 5, 10 (X is then 800 MB).
    spike, noise_high : float
        Leading eigenvalue and the upper end of the uniform tail.
    scaling : {"none", "unit", "max_norm"}
        ``"none"`` returns the raw rows (norm ≈ √(k·spike + …) ≈ 75 at paper defaults).
        ``"unit"`` divides each row by its own norm: a per-record map, so it costs no privacy,
        keeps the eigenvectors and their order for this elliptical law, and makes the rows
        satisfy ``data_norm=1`` (the reproduction default; the paper does not normalise).  ``"max_norm"`` divides
        all rows by the largest row norm: that bound comes from the data, so a private
        estimator run on it is **not** private; for illustration only.
    permute : bool
        Place the support at random coordinates instead of the first s*.
    random_state : None, int or Generator
        Seed or generator for every random draw (population and samples).

    Returns
    -------
    SyntheticData
        ``X``, ``components`` (= Q*ᵀ, shape (k, d): one true direction per row, like an
        estimator's ``components_``), ``covariance`` (= Σ), ``eigenvalues`` (= λ, leading
        first), ``support`` (the nonzero columns of ``components``).

    Examples
    --------
    >>> data = spiked_sparse(200, 30, 2, 5, random_state=0)
    >>> data.X.shape, data.components.shape, data.support.tolist()
    ((200, 30), (2, 30), [0, 1, 2, 3, 4])
    """
    model = _spiked_model(n_samples, n_features, n_components, support_size, spike, noise_high, scaling,
                          permute, random_state)
    n, d = model["n"], model["d"]
    X = np.empty((n, d))
    for start, block in _spiked_blocks(model):
        X[start : start + len(block)] = block
    if scaling == "max_norm":
        X /= np.linalg.norm(X, axis=1).max()
    return _as_data(model, X)


def _spiked_model(n_samples, n_features, n_components, support_size, spike, noise_high, scaling, permute,
                  random_state):
    """Validate and draw the population (eigenvalues, Q*, Q*_⊥); samples come from _spiked_blocks."""
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=d - 1)
    s = check_int(support_size, "support_size", low=k, high=d)
    spike = check_positive(spike, "spike")
    noise_high = check_positive(noise_high, "noise_high", allow_zero=True)
    if not spike > noise_high:
        # λ_{k+1..d} ~ U[0, noise_high] could then exceed the spike: `components` would not be the
        # leading eigenspace of `covariance`, which every experiment scores against.
        raise ValueError(f"spike must be > noise_high so that components is the leading k-dimensional eigenspace "
                         f"of covariance; got spike={spike:g}, noise_high={noise_high:g}")
    check_option(scaling, "scaling", _SCALINGS)
    rng = as_generator(random_state)

    eigenvalues = np.concatenate([np.full(k, spike), rng.uniform(0.0, noise_high, size=d - k)])
    L, _ = thin_qr(rng.standard_normal((s, k)))
    Q_star = np.zeros((d, k))
    Q_star[:s] = L
    R = rng.standard_normal((d, d - k))
    R -= Q_star @ (Q_star.T @ R)
    Q_perp, _ = thin_qr(R)
    U = np.hstack([Q_star, Q_perp])
    support = np.arange(s)
    if permute:
        perm = rng.permutation(d)
        U = U[perm]
        support = np.sort(np.argsort(perm)[:s])
    return dict(n=n, d=d, k=k, s=s, spike=spike, noise_high=noise_high, scaling=scaling, rng=rng, U=U,
                eigenvalues=eigenvalues, support=support, covariance=(U * eigenvalues) @ U.T,
                mixing=(U * np.sqrt(eigenvalues)).T)  # x = z @ mixing  <=>  x = U Λ^{1/2} z


def _spiked_blocks(model):
    """Yield (start, rows) blocks of samples; "unit" scaling is applied per row here."""
    n, d, rng = model["n"], model["d"], model["rng"]
    chunk = max(1, min(n, 2_000_000 // d))
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        block = rng.standard_normal((stop - start, d)) @ model["mixing"]
        if model["scaling"] == "unit":
            norms = np.linalg.norm(block, axis=1)
            block /= np.where(norms > 0, norms, 1.0)[:, None]
        yield start, block


def spiked_sparse_scatter(n_samples=100_000, n_features=1000, n_components=5, support_size=10, *, spike=100.0,
                          noise_high=10.0, scaling="unit", permute=False, random_state=None):
    """Return the scatter matrix XᵀX of :func:`spiked_sparse` data, accumulated block by block.

    Same arguments and the same random stream as :func:`spiked_sparse` (so ``scatter`` equals
    ``X.T @ X`` of the data that call would return, up to rounding), but X is never held in
    memory: the paper-scale model (n = 10⁵, d = 1000, 800 MB) needs only d² numbers.  For
    experiments that rerun an algorithm many times on one data set.  ``scaling="max_norm"`` is
    not supported here (it needs every row first).

    Parameters
    ----------
    n_samples, n_features, n_components, support_size : int
        Number of rows n, dimension d, number of components k and support size s*, as for
        :func:`spiked_sparse`.
    spike, noise_high : float
        Leading eigenvalue and the upper end of the uniform tail.
    scaling : {"unit", "none"}
        Per-row scaling, as for :func:`spiked_sparse` (``"max_norm"`` is refused).
    permute : bool
        Place the support at random coordinates instead of the first s*.
    random_state : None, int or Generator
        Seed or generator; the same value gives the same data as :func:`spiked_sparse`.

    Returns
    -------
    SyntheticData
        ``X=None``, ``info["scatter"]`` = XᵀX, ``info["n_samples"]`` = n, and the ground truth
        as :func:`spiked_sparse` returns it (``components`` of shape (k, d)).

    Examples
    --------
    >>> small = spiked_sparse_scatter(200, 30, 2, 5, random_state=0)
    >>> small.info["scatter"].shape, small.components.shape
    ((30, 30), (2, 30))
    """
    if scaling == "max_norm":
        raise ValueError("scaling='max_norm' is not supported by spiked_sparse_scatter; use 'none' or 'unit'")
    model = _spiked_model(n_samples, n_features, n_components, support_size, spike, noise_high, scaling,
                          permute, random_state)
    scatter = np.zeros((model["d"], model["d"]))
    for _, block in _spiked_blocks(model):
        scatter += block.T @ block
    return _as_data(model, None, scatter=scatter)


def _as_data(model, X, **extra_info):
    k = model["k"]
    info = dict(model="spiked_sparse", n_samples=model["n"], n_features=model["d"], n_components=k,
                support_size=model["s"], spike=model["spike"], noise_high=model["noise_high"],
                scaling=model["scaling"], **extra_info)
    return SyntheticData(X=X, components=model["U"][:, :k].T.copy(), covariance=model["covariance"],
                         eigenvalues=model["eigenvalues"], support=model["support"], info=info)
