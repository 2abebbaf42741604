r"""Chapter 3 twins: two subspaces, their principal angles and the book's three distances.

Every distance and angle comes from :mod:`privpca_edu.subspace`
(:func:`~privpca_edu.subspace.subspace_distance` with kinds ``"sin_theta"``, ``"projection"``,
``"max_angle"``; :func:`~privpca_edu.subspace.principal_angles`;
:func:`~privpca_edu.subspace.random_subspace_distance` for the "random guess" level).  These
functions only build the two subspaces from angles a student can turn.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int
from ..subspace import DISTANCE_KINDS, principal_angles, random_subspace_distance, subspace_distance

__all__ = ["plane_distances", "angle_distances", "rotation_3d"]


def _check_angle(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number of degrees, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of degrees, got {value}")
    return value


def rotation_3d(tilt_x, tilt_y):
    """Rotation matrix R = R_y(tilt_y) · R_x(tilt_x) (angles in degrees).

    Tilting the (x, y)-plane by ``tilt_x`` about the x-axis and then by ``tilt_y`` about the
    y-axis turns its normal e₃ into R e₃; the dihedral angle between the planes is
    arccos(cos(tilt_x)·cos(tilt_y)).
    """
    a = math.radians(_check_angle(tilt_x, "tilt_x"))
    b = math.radians(_check_angle(tilt_y, "tilt_y"))
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    return Ry @ Rx


def _distances(U, V):
    return {kind: subspace_distance(U, V, kind=kind) for kind in DISTANCE_KINDS}


def plane_distances(tilt_x=30.0, tilt_y=0.0, n_components=2):
    r"""A fixed subspace of R³ and a rotated copy: angles and distances.

    The reference subspace is span(e₁, e₂) (``n_components=2``, a plane) or the line through
    (e₁ + e₂)/√2 (``n_components=1``, the plane's diagonal, so both tilts move it); the other is
    its image under :func:`rotation_3d`.

    Parameters
    ----------
    tilt_x : float, default=30.0
        Rotation about the x₁ axis, in degrees.
    tilt_y : float, default=0.0
        Rotation about the x₂ axis, in degrees.
    n_components : {1, 2}, default=2
        Lines (1) or planes (2).

    Returns
    -------
    dict
        ``U``, ``V`` (3 × k orthonormal bases), ``angles_deg`` (principal angles, ascending),
        ``distances`` (dict kind → value), ``projection_frobenius`` (‖UUᵀ − VVᵀ‖_F, formed
        explicitly: 3 × 3 is small) and ``sqrt_sum_sin2`` (√Σ sin²θᵢ) for the identities,
        ``random_level`` (dict kind → distance of a uniformly random k-subspace),
        ``max_possible`` (√min(k, 3 − k)), ``normals`` (for planes: the two unit normals) and
        ``shared_line`` (for planes: a unit vector on their intersection line).

    Examples
    --------
    >>> r = plane_distances(90.0, 0.0, 2)
    >>> [round(a) for a in r["angles_deg"]], round(r["distances"]["sin_theta"], 12)
    ([0, 90], 1.0)
    """
    k = check_int(n_components, "n_components", low=1, high=2)
    R = rotation_3d(tilt_x, tilt_y)
    U = np.eye(3)[:, :2] if k == 2 else np.array([[1.0], [1.0], [0.0]]) / math.sqrt(2.0)
    V = R @ U
    angles = principal_angles(U, V)
    distances = _distances(U, V)
    out = {
        "tilt_x": float(tilt_x), "tilt_y": float(tilt_y), "n_components": k,
        "U": U, "V": V,
        "angles_deg": np.degrees(angles),
        "distances": distances,
        "projection_frobenius": float(np.linalg.norm(U @ U.T - V @ V.T)),
        "sqrt_sum_sin2": float(math.sqrt(np.sum(np.sin(angles) ** 2))),
        "random_level": {kind: random_subspace_distance(3, k, kind) for kind in DISTANCE_KINDS},
        "max_possible": math.sqrt(min(k, 3 - k)),
        "normals": None, "shared_line": None,
    }
    if k == 2:
        n_ref, n_rot = np.array([0.0, 0.0, 1.0]), R[:, 2]
        line = np.cross(n_ref, n_rot)
        norm = np.linalg.norm(line)
        out["normals"] = (n_ref, n_rot)
        out["shared_line"] = line / norm if norm > 1e-12 else None  # None: the planes coincide
    return out


def angle_distances(theta1=30.0, theta2=60.0, n_features=4):
    r"""Two planes in R^d (d ≥ 4) with *prescribed* principal angles θ₁, θ₂ (degrees).

    U = [e₁, e₂] and V = [cos θ₁ e₁ + sin θ₁ e₃, cos θ₂ e₂ + sin θ₂ e₄]: the pairs (e₁, e₃) and
    (e₂, e₄) rotate independently, so the principal angles are exactly θ₁ and θ₂.  In R³ two
    planes always share a line (one angle is 0); from d = 4 on both can be non-zero, and the
    three distances really differ:

    * ``sin_theta``  √(sin²θ₁ + sin²θ₂),
    * ``projection`` √2 times that,
    * ``max_angle``  max(sin θ₁, sin θ₂).

    Parameters
    ----------
    theta1 : float, default=30.0
        The first principal angle θ₁, in degrees (0–90).
    theta2 : float, default=60.0
        The second principal angle θ₂, in degrees (0–90).
    n_features : int, default=4
        The ambient dimension d >= 4.

    Returns
    -------
    dict
        ``U``, ``V`` (d × 2), ``angles_deg`` (from :func:`~privpca_edu.subspace.principal_angles`,
        ascending), ``distances``, ``random_level`` (dict kind → value for this d),
        ``max_possible`` (√2), the parameters.
    """
    d = check_int(n_features, "n_features", low=4)
    t1 = math.radians(_check_angle(theta1, "theta1"))
    t2 = math.radians(_check_angle(theta2, "theta2"))
    U = np.zeros((d, 2))
    U[0, 0] = U[1, 1] = 1.0
    V = np.zeros((d, 2))
    V[0, 0], V[2, 0] = math.cos(t1), math.sin(t1)
    V[1, 1], V[3, 1] = math.cos(t2), math.sin(t2)
    return {
        "theta1": float(theta1), "theta2": float(theta2), "n_features": d, "n_components": 2,
        "U": U, "V": V,
        "angles_deg": np.degrees(principal_angles(U, V)),
        "distances": _distances(U, V),
        "random_level": {kind: random_subspace_distance(d, 2, kind) for kind in DISTANCE_KINDS},
        "max_possible": math.sqrt(2.0),
    }

