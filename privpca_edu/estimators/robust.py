r"""Robust private PCA: g-DPPCA (Kim & Jung 2025) and the competitors of its experiments.

This module gathers the four estimators of Kim & Jung's experiments; each lives in the module of
its method, and every name keeps working from here.

==================================================  ============================================================
``KendallDPPCA`` (:mod:`.kendall`)                  Gaussian noise on a generalized multivariate Kendall's τ matrix
                                                    (spherical or winsorized spatial signs of pairwise differences)
``SGPCA`` (:mod:`.sgpca`)                           Cai, Xia & Zha (2024): Gaussian noise on the spectral projector
                                                    of the sample covariance, calibrated under the spiked model
``NSGGD`` (:mod:`.nsggd`)                           Maunu, Yu & Lerman (2022): noisy geodesic gradient descent for
                                                    the least-absolute-deviations subspace energy
``NonPrivateAnalyzeGaussReplication``               Analyze Gauss after the paper's *data-dependent* centring and
(:mod:`.replication`)                               max-norm scaling — **not private**, for reproducing its figures
==================================================  ============================================================

The sensitivities and noise scales (``kendall_sensitivity``, ``kendall_noise_scale``,
``sgpca_sensitivity``, ``nsggd_noise_scale``) live, with their derivations, in
:mod:`privpca_edu.privacy`.

References
----------
.. [KJ25] M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
   arXiv:2507.15232 (2025); Statistical Analysis and Data Mining 18(6), 2025.
"""

from . import kendall as _kendall, nsggd as _nsggd, replication as _replication, sgpca as _sgpca
from .kendall import (  # noqa: F401  (re-exported: __all__ below)
    KendallDPPCA,
    kendall_tau_matrix,
    kendall_tau_naive,
    spatial_sign,
)
from .kendall import KENDALL_WARN_SECONDS, kendall_cost_seconds  # noqa: F401  (kept importable from here)
from .nsggd import NSGGD, ggd_gradient, ggd_objective, grassmann_step  # noqa: F401
from .replication import NonPrivateAnalyzeGaussReplication  # noqa: F401
from .sgpca import SGPCA  # noqa: F401

__all__ = [*_kendall.__all__, *_sgpca.__all__, *_nsggd.__all__, *_replication.__all__]
