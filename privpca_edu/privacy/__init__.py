r"""Privacy: noise calibration, composition and accounting, sensitivities, the privacy record.

This is the one place where a noise scale is computed and a privacy claim is checked: every
estimator, the protocol, the experiments and the notebooks import these names from
``privpca_edu.privacy``.  Neighbouring data sets differ by **replacing one record** unless a
docstring says otherwise; ``epsilon = numpy.inf`` means "no privacy" (every σ is 0).

The Gaussian mechanism
    :func:`gaussian_sigma` (classic and analytic σ), :func:`analytic_gaussian_delta`,
    :func:`check_gaussian_guarantee` and its verdict :class:`GaussianGuarantee` (the exact
    condition every record is checked with), Gaussian DP (:func:`gdp_delta`, :func:`gdp_epsilon`,
    :func:`gaussian_mu_bound`), the symmetric noise matrices (:func:`symmetric_noise`,
    :func:`symmetric_to_vector`, :data:`SYMMETRIC_CONVENTIONS`), :data:`EXACT_DELTA_RTOL`,
    :data:`MU_RESOLVABLE`.
Composition and accounting
    :func:`compose_basic`, :func:`compose_advanced`, :func:`zcdp_rho`, :func:`zcdp_to_dp`, the
    per-step σ of T adaptive steps (:func:`iterative_gaussian_sigma`,
    :data:`ITERATIVE_CALIBRATIONS`), and a budget over many releases: :class:`BudgetAccountant`,
    :class:`BudgetExceededError`, :class:`Spend`, :data:`COMPOSITIONS`, :func:`pld_epsilon`.
Sensitivities and the methods' noise scales
    :data:`SENSITIVITIES` (one table: every mechanism's sensitivity function, each with its
    derivation) and the noise scales built on them: Analyze Gauss
    (:func:`analyze_gauss_sensitivity`, :func:`analyze_gauss_noise_scale`), MOD-SuLQ
    (:func:`mod_sulq_sensitivity`, :func:`mod_sulq_noise_scale`), PrivateLocal
    (:func:`private_local_sensitivity`, :func:`private_local_noise_scale`), Kendall's τ
    (:func:`kendall_sensitivity`, :func:`kendall_noise_scale`, :data:`KENDALL_SENSITIVITIES`,
    :data:`TRANSFORM_KINDS`, :func:`resolve_transform`, :func:`resolve_radius`), SGPCA
    (:func:`sgpca_sensitivity`), NSGGD (:func:`nsggd_sensitivity`, :func:`nsggd_noise_scale`),
    DPS-PCA (:func:`dps_pca_sensitivity`, :func:`dps_pca_sigma`), local Gaussian PCA
    (:func:`local_sensitivity`, :func:`local_noise_scale`, :data:`LOCAL_CALIBRATIONS`), DPDPCA
    (:func:`dpdpca_sensitivity`, :func:`mask_sensitivity`, :func:`dpdpca_noise_scale`,
    :data:`DPDPCA_CALIBRATIONS`).
The privacy record
    :class:`PrivacyRecord`, the one result type of every privacy claim, and its one
    constructor :func:`make_record`.
Diagnostics
    :func:`diagnostics` (a context in which fits may report data-dependent information, and are
    then recorded as not private) and :func:`diagnostics_enabled`.

The code lives in private modules (``_gaussian``, ``_accounting``, ``_mechanisms``, ``_record``);
import from ``privpca_edu.privacy``.
"""

from .._validation import diagnostics, diagnostics_enabled
from . import _accounting, _gaussian, _mechanisms, _record
from ._accounting import *  # noqa: F401,F403 (each module's __all__: the names listed above)
from ._gaussian import *  # noqa: F401,F403
from ._mechanisms import *  # noqa: F401,F403
from ._record import *  # noqa: F401,F403

# The Gaussian mechanism, composition and accounting, the sensitivities and the methods' noise
# scales, the privacy record, then the diagnostics switch (one list per private module).
__all__ = [*_gaussian.__all__, *_accounting.__all__, *_mechanisms.__all__, *_record.__all__,
           "diagnostics", "diagnostics_enabled"]
