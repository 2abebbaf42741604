"""The book's figures as plain functions: parameters in, tidy data out, no plotting.

Every interactive figure of the book has a *twin* here: a pure, seeded function that returns
exactly the numbers the figure draws.  Widgets (:mod:`privpca_edu.widgets`) wire controls to a
twin and a drawing class of :mod:`privpca_edu.plotting`; tests and benchmarks call the twin
directly.  Work that does not depend on the fast-moving controls (data generation, noiseless
statistics, whole curves) is cached with :func:`functools.lru_cache`, so dragging a slider
only recomputes what the slider changes.

Adding a chapter is "a notebook plus a twin function": write the twin here, a drawing class
in :mod:`privpca_edu.plotting`, and three lines in :mod:`privpca_edu.widgets`.
"""

from . import auditing, dps_pca, europe, ldp, noisy_covariance, protocol, robust
from .accounting import DPS_PCA_SIGMA_TABLE, sensitivity_example, sigma_curves
from .attack import membership_accuracy_bound, membership_attack
from .subspaces import angle_distances, plane_distances

__all__ = [
    "membership_attack",
    "membership_accuracy_bound",
    "sigma_curves",
    "sensitivity_example",
    "DPS_PCA_SIGMA_TABLE",
    "plane_distances",
    "angle_distances",
    # one module per later chapter (their names would clash at this level)
    "noisy_covariance",
    "auditing",
    "dps_pca",
    "ldp",
    "europe",
    "robust",
    "protocol",
]
