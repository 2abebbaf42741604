"""The Fantope ADMM on a stack of m problems in lock step (behind ``local.fantope_admm_stack``).

Every problem runs the iterations of the reference :func:`~privpca_edu.estimators.local.fantope_admm`
(the same three updates, the Fantope projection of :func:`~privpca_edu.subspace.fantope_projection`
with its exact θ, its own ρ, residual balancing and stopping rule) and leaves the stack when its
rule holds.  What the stack shares is one stacked eigendecomposition per step (LAPACK on each
matrix) and one numpy call per step instead of m: at the chapter's dashboard sizes (14 problems,
d = 20) the Python overhead between small eigendecompositions is most of the cost of m separate
runs.  Agreement with the reference is tested to the tolerance the stopping rule implies
(tests/estimators/test_local.py), not bit for bit.
"""

from __future__ import annotations

import numpy as np

from .._validation import single_threaded_blas

__all__ = ["lockstep_fantope_admm"]


def _sq_norms(D):
    """‖D_b‖_F² for every matrix of a stack (one BLAS dot per matrix)."""
    F = D.reshape(D.shape[0], -1)
    return np.matmul(F[:, None, :], F[:, :, None])[:, 0, 0]


def _fantope_project_stack(M, k):
    """P_Fantope(M_b) for every symmetric matrix of a stack: Vu et al. (2013), Lemma 4.1, with θ
    found exactly on the piecewise-linear segment that brackets it (as subspace.fantope_projection)."""
    m, d, _ = M.shape
    last = 2 * d - 1
    gamma, W = np.linalg.eigh(M)
    breaks = np.sort(np.concatenate([gamma, gamma - 1.0], axis=1), axis=1)
    values = np.clip(gamma[:, None, :] - breaks[:, :, None], 0.0, 1.0).sum(axis=2)
    i = np.count_nonzero(values >= k, axis=1) - 1
    j = np.minimum(i + 1, last)
    rows = np.arange(m)
    vi, lo = values[rows, i], breaks[rows, i]
    with np.errstate(divide="ignore", invalid="ignore"):  # the unused branch of np.where
        theta = np.where((vi == k) | (i == last), lo,
                         lo + (vi - k) / (vi - values[rows, j]) * (breaks[rows, j] - lo))
    weights = np.clip(gamma - theta[:, None], 0.0, 1.0)
    first = np.count_nonzero(weights <= 0, axis=1)
    X = np.empty_like(M)
    for a in range(m):  # γ ascending: the positive weights are a suffix
        Wk = W[a][:, first[a]:]
        P = (Wk * weights[a, first[a]:]) @ Wk.T
        X[a] = (P + P.T) / 2
    return X


def lockstep_fantope_admm(S, k, lam, rho, adaptive_rho, tol, max_iter):
    """The ADMM of ``fantope_admm`` on S (m, d, d) with penalties lam (m,) and initial penalties
    rho (m,), all already validated.  Returns ``(Y, n_iter, converged, rho)``: the final sparse
    iterates (m, d, d), and per problem the iteration count, whether its rule held, its final ρ."""
    m, d, _ = S.shape
    rho = np.array(rho, dtype=np.float64)
    Y, U = np.zeros((m, d, d)), np.zeros((m, d, d))
    n_iter, converged = np.zeros(m, dtype=int), np.zeros(m, dtype=bool)
    threshold = k * tol**2
    active = np.arange(m)
    with single_threaded_blas():
        for it in range(1, max_iter + 1):
            Ya, Ua, ra = Y[active], U[active], rho[active]
            X = _fantope_project_stack(Ya - Ua + S[active] / ra[:, None, None], k)   # X ← P_F(Y − U + S/ρ)
            Z = X + Ua
            Yn = np.abs(Z)                                                       # Y ← S_{λ/ρ}(X + U)
            Yn -= (lam[active] / ra)[:, None, None]
            np.maximum(Yn, 0.0, out=Yn)
            np.copysign(Yn, Z, out=Yn)
            Un = Z - Yn                                                          # U ← U + X − Y
            r = np.sqrt(_sq_norms(X - Yn))
            s = ra * np.sqrt(_sq_norms(Yn - Ya))
            done = np.maximum(r * r, s * s) <= threshold
            if adaptive_rho:
                up = ~done & (r > 10 * s)
                down = ~done & ~up & (s > 10 * r)
                ra = np.where(up, ra * 2.0, np.where(down, ra / 2.0, ra))
                Un[up] /= 2.0
                Un[down] *= 2.0
            Y[active], U[active], rho[active] = Yn, Un, ra
            n_iter[active] = it
            converged[active[done]] = True
            active = active[~done]
            if active.size == 0:
                break
    return Y, n_iter, converged, rho
