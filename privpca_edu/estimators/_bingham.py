r"""Samplers for the (matrix) Bingham law :math:`p(V) \propto \exp(\mathrm{tr}(V^\top A V))`.

* :func:`sample_bingham_exact` — k = 1, exact: Kent, Ganeiber & Mardia (2018) rejection
  sampler with an angular central Gaussian envelope, vectorised over a batch.
* :func:`bingham_gibbs` — any k: Hoff's (2009) column-wise Gibbs sampler (as in R
  ``rstiefel::rbing.matrix.gibbs``), with the vector Bingham Gibbs scan inside.

A warning that the auditing chapter turns into an exercise: IBM diffprivlib 0.6.6 and OpenDP
0.16 *divide* the KGM acceptance ratio by :math:`(x^\top\Omega x)^{d/2}` where it must be
multiplied.  They then sample :math:`\exp(-x^\top\Psi x)(1 + 2x^\top\Psi x/b)^{-d}`, not the
Bingham law their privacy proofs assume.  :func:`kgm_log_ratio` is the correct ratio; the
``log_ratio`` hook exists so that :mod:`privpca_edu.audit.mutants` can reproduce the bug.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg, optimize

from .._validation import check_int, check_random_state, check_symmetric, single_threaded_blas


def kgm_envelope(psi):
    """b, the ACG envelope's Ω eigenvalues and log M for Ψ-eigenvalues ``psi`` (min ψ = 0).

    b solves Σᵢ 1/(b + 2ψᵢ) = 1 on [1, d] (the left side decreases in b); Ω = I + 2Ψ/b;
    log M = −(d − b)/2 + (d/2) log(d/b).  The acceptance probability is 1/M.
    """
    psi = np.asarray(psi, dtype=np.float64)
    d = psi.size
    if np.all(psi <= 0):
        b = float(d)
    else:
        b = optimize.brentq(lambda b: np.sum(1.0 / (b + 2 * psi)) - 1.0, 1.0, float(d), xtol=1e-14)
    omega = 1.0 + 2.0 * psi / b
    log_M = -(d - b) / 2 + (d / 2) * math.log(d / b)
    return b, omega, log_M


def kgm_log_ratio(x, psi, omega, log_M):
    r"""Correct log acceptance ratio: :math:`-x^\top\Psi x + \tfrac d2\log(x^\top\Omega x) - \log M`.

    ``x`` is a batch (N, d) of unit vectors in Ψ's eigenbasis.  Target f*(x) = exp(−xᵀΨx);
    ACG envelope density ∝ (xᵀΩx)^{−d/2}; f*/(M·g) multiplies by (xᵀΩx)^{d/2}.
    """
    d = x.shape[1]
    x2 = x * x
    return -(x2 @ psi) + (d / 2) * np.log(x2 @ omega) - log_M


def sample_bingham_exact(A, size=None, random_state=None, *, log_ratio=kgm_log_ratio, return_rate=False):
    r"""Exact draws of a unit vector x with density ∝ exp(xᵀAx) on the sphere (k = 1).

    Kent, Ganeiber & Mardia (2018): rewrite the target as exp(−xᵀΨx) with
    Ψ = λ_max(A) I − A ⪰ 0 (a constant shift on the sphere), propose from the angular central
    Gaussian with Ω = I + 2Ψ/b, accept with probability f*(x)/(M g(x)).

    Parameters
    ----------
    A : (d, d) symmetric
    size : int or None
        Number of draws; ``None`` returns a single (d,) vector.
    random_state : None, int or Generator
    log_ratio : callable
        The acceptance log-ratio (default: the correct :func:`kgm_log_ratio`).  Audits swap in
        broken ones to show the tests catch them.
    return_rate : bool
        Also return the empirical acceptance rate.

    Returns
    -------
    x : (size, d) or (d,) array; the sign is arbitrary (the law is antipodally symmetric).
    """
    A = check_symmetric(A)
    d = A.shape[0]
    rng = check_random_state(random_state)
    n = 1 if size is None else check_int(size, "size", low=1)
    lam, W = linalg.eigh(A)
    psi = lam[-1] - lam  # ≥ 0, min 0
    b, omega, log_M = kgm_envelope(psi)
    out = np.empty((n, d))
    filled = 0
    proposed = 0
    accepted = 0
    # The acceptance rate is |Ω|^{1/2}·E_unif[exp(−xᵀΨx)]/M, not 1/M (1/M is only a lower bound
    # and underflows for concentrated laws): start with a modest batch and adapt to the rate seen.
    rate_guess = 0.5
    while filled < n:
        batch = int(min(max(64, 1.2 * (n - filled) / rate_guess), 2_000_000))
        y = rng.standard_normal((batch, d)) / np.sqrt(omega)
        x = y / np.linalg.norm(y, axis=1, keepdims=True)
        logu = np.log(rng.uniform(size=batch))
        ok = logu < log_ratio(x, psi, omega, log_M)
        acc = x[ok][: n - filled]
        out[filled : filled + len(acc)] = acc
        filled += len(acc)
        proposed += batch
        accepted += int(ok.sum())
        rate_guess = max(ok.mean(), 1e-4)
    x = out @ W.T  # back from Ψ's eigenbasis
    x = x[0] if size is None else x
    if return_rate:
        return x, accepted / proposed
    return x


# ---------------------------------------------------------------------------------------------
# Hoff's Gibbs sampler
# ---------------------------------------------------------------------------------------------
def _draw_theta(a, kappa, rng):
    """θ ∈ (0, 1) with density ∝ θ^{-1/2}(1 − θ)^{κ−1} e^{aθ}, by rejection from Beta(1/2, g).

    rstiefel's envelope, with the min{κ, ·} guard of the spec (matters only when m = 2).
    """
    if a <= 0:
        g, lmax = kappa, 0.0
    else:
        g = min(kappa, max(1.0 / (1.0 + math.log(2.0 + a)), kappa - a))
        lmax = a - kappa + g + ((kappa - g) * math.log((kappa - g) / a) if kappa > g else 0.0)
    # Proposals are drawn in batches and the first accepted one is returned: the same law as
    # one-at-a-time rejection (first success of an i.i.d. sequence), but when a ≫ κ, where the
    # envelope accepts only 1–5 % of proposals, it costs one vectorised call instead of ~50.
    batch = 8 if a <= kappa else 64
    while True:
        theta = rng.beta(0.5, g, size=batch)
        log_acc = a * theta - lmax
        if kappa != g:
            with np.errstate(divide="ignore"):
                log_acc += (kappa - g) * np.log1p(-theta)
        ok = (np.log(rng.uniform(size=batch)) <= log_acc) & (theta < 1.0)
        if ok.any():
            return float(theta[np.argmax(ok)])


def vector_bingham_scan(x, A, rng, *, eig=None):
    """One Gibbs scan for a unit vector x with target ∝ exp(xᵀAx) on the sphere (Hoff 2009).

    Coordinates are updated in the eigenbasis of A: for each i, θ = yᵢ² is redrawn from its
    full conditional (a tilted Beta), the other coordinates are rescaled, and yᵢ gets a fair
    random sign.  The rescaling of all other coordinates is kept as one running factor, so a
    scan costs O(m) plus the θ draws, not O(m²).
    """
    if eig is None:
        eig = linalg.eigh(A)
    lam, E = eig
    m = lam.size
    y = E.T @ x
    y /= np.linalg.norm(y)
    kappa = (m - 1) / 2.0
    scale = 1.0  # y_true = scale * w
    w = y.copy()
    S = float(np.dot(lam, y * y))  # Σ_j l_j y_j²
    for i in range(m):
        yi2 = (scale * w[i]) ** 2
        rest = 1.0 - yi2
        if rest <= 1e-300:
            continue
        a = lam[i] - (S - lam[i] * yi2) / rest
        theta = _draw_theta(a, kappa, rng)
        f2 = (1.0 - theta) / rest
        S = (S - lam[i] * yi2) * f2 + lam[i] * theta
        scale *= math.sqrt(f2)
        if scale < 1e-150 or scale > 1e150:  # renormalise the running factor
            w *= scale
            scale = 1.0
        sign = 1.0 if rng.uniform() < 0.5 else -1.0
        w[i] = sign * math.sqrt(theta) / scale
    y = scale * w
    z = E @ y
    return z / np.linalg.norm(z)


def bingham_gibbs(A, n_components, n_sweeps, random_state=None, *, V0=None, callback=None):
    r"""Hoff's (2009) Gibbs sampler for the matrix Bingham law ∝ etr(VᵀAV) on the Stiefel manifold.

    One sweep visits the k columns in random order.  For column r: N_r is an orthonormal basis
    of the complement of the other columns (last d − k + 1 columns of a full QR), and
    z = N_rᵀ v_r is updated by one :func:`vector_bingham_scan` targeting ∝ exp(zᵀ N_rᵀAN_r z);
    then v_r = N_r z.  Cost per sweep ≈ k eigendecompositions of size d − k + 1.

    Parameters
    ----------
    A : (d, d) symmetric
    n_components : int
    n_sweeps : int
        Number of sweeps (Chaudhuri et al. use 1000; DPS-PCA's timing table 100).  A finite
        chain only approximates the Bingham law, so the exponential mechanism's ε-DP holds
        only in the limit.
    V0 : (d, k) orthonormal, optional
        Start; default Haar-random (data-independent).
    callback : callable(sweep, V), optional
    """
    A = check_symmetric(A)
    d = A.shape[0]
    k = check_int(n_components, "n_components", low=1, high=d)
    n_sweeps = check_int(n_sweeps, "n_sweeps", low=0)
    rng = check_random_state(random_state)
    if V0 is None:
        Z = rng.standard_normal((d, k))
        V, _ = np.linalg.qr(Z)
    else:
        V = np.array(V0, dtype=np.float64, copy=True)
    with single_threaded_blas():
        _gibbs_sweeps(A, V, k, n_sweeps, rng, callback)
    return V


def _gibbs_sweeps(A, V, k, n_sweeps, rng, callback):
    if k == 1:
        eig = linalg.eigh(A)
    for sweep in range(n_sweeps):
        for r in rng.permutation(k):
            if k == 1:
                V[:, 0] = vector_bingham_scan(V[:, 0], A, rng, eig=eig)
                continue
            others = np.delete(V, r, axis=1)
            Qf, _ = linalg.qr(others, mode="full")
            N = Qf[:, k - 1 :]
            Ar = N.T @ A @ N
            z = vector_bingham_scan(N.T @ V[:, r], Ar, rng)
            V[:, r] = N @ z
        if callback is not None:
            callback(sweep, V)
