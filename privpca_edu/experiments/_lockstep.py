"""Helpers of the dashboard twins that run many small problems in lock step (one numpy call per
step for the whole stack instead of one per problem), with the arithmetic of the one-problem code
kept bit for bit: a stacked ``matmul`` calls the same BLAS routine on every slice as it would on
one matrix, and a stacked ``eigh`` the same LAPACK routine."""

from __future__ import annotations

import numpy as np

__all__ = ["ddot_rows", "sin_theta_rows"]


def ddot_rows(D):
    """For each matrix of a stack, the dot product of its raveled entries with itself: one BLAS
    ``ddot`` each, as ``a @ a`` or ``numpy.linalg.norm(A)**2`` compute it for one matrix (an
    ``einsum`` would sum in another order)."""
    F = D.reshape(D.shape[0], -1)
    return np.matmul(F[:, None, :], F[:, :, None])[:, 0, 0]


def sin_theta_rows(Q, V):
    """``subspace.sin_theta(Q[b], V)`` (‖(I − VVᵀ)Q_b‖_F) for every basis of a stack Q (m, d, k)."""
    return np.sqrt(ddot_rows(Q - V @ (V.T @ Q)))
