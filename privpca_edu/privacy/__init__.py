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
from ._accounting import (
    COMPOSITIONS,
    ITERATIVE_CALIBRATIONS,
    BudgetAccountant,
    BudgetExceededError,
    Spend,
    compose_advanced,
    compose_basic,
    iterative_gaussian_sigma,
    pld_epsilon,
    zcdp_rho,
    zcdp_to_dp,
)
from ._gaussian import (
    EXACT_DELTA_RTOL,
    MU_RESOLVABLE,
    SYMMETRIC_CONVENTIONS,
    GaussianGuarantee,
    analytic_gaussian_delta,
    check_gaussian_guarantee,
    gaussian_mu_bound,
    gaussian_sigma,
    gdp_delta,
    gdp_epsilon,
    symmetric_noise,
    symmetric_to_vector,
)
from ._mechanisms import (
    DPDPCA_CALIBRATIONS,
    KENDALL_SENSITIVITIES,
    LOCAL_CALIBRATIONS,
    SENSITIVITIES,
    TRANSFORM_KINDS,
    analyze_gauss_noise_scale,
    analyze_gauss_sensitivity,
    dpdpca_noise_scale,
    dpdpca_sensitivity,
    dps_pca_sensitivity,
    dps_pca_sigma,
    kendall_noise_scale,
    kendall_sensitivity,
    local_noise_scale,
    local_sensitivity,
    mask_sensitivity,
    mod_sulq_noise_scale,
    mod_sulq_sensitivity,
    nsggd_noise_scale,
    nsggd_sensitivity,
    private_local_noise_scale,
    private_local_sensitivity,
    resolve_radius,
    resolve_transform,
    sgpca_sensitivity,
)
from ._record import PrivacyRecord, make_record

__all__ = [
    # the Gaussian mechanism
    "gaussian_sigma",
    "analytic_gaussian_delta",
    "GaussianGuarantee",
    "check_gaussian_guarantee",
    "gdp_delta",
    "gdp_epsilon",
    "gaussian_mu_bound",
    "symmetric_noise",
    "symmetric_to_vector",
    "SYMMETRIC_CONVENTIONS",
    "EXACT_DELTA_RTOL",
    "MU_RESOLVABLE",
    # composition and accounting
    "compose_basic",
    "compose_advanced",
    "zcdp_rho",
    "zcdp_to_dp",
    "iterative_gaussian_sigma",
    "ITERATIVE_CALIBRATIONS",
    "BudgetAccountant",
    "BudgetExceededError",
    "Spend",
    "COMPOSITIONS",
    "pld_epsilon",
    # sensitivities and the methods' noise scales
    "SENSITIVITIES",
    "analyze_gauss_sensitivity",
    "analyze_gauss_noise_scale",
    "mod_sulq_sensitivity",
    "mod_sulq_noise_scale",
    "private_local_sensitivity",
    "private_local_noise_scale",
    "KENDALL_SENSITIVITIES",
    "TRANSFORM_KINDS",
    "resolve_transform",
    "resolve_radius",
    "kendall_sensitivity",
    "kendall_noise_scale",
    "sgpca_sensitivity",
    "nsggd_sensitivity",
    "nsggd_noise_scale",
    "dps_pca_sensitivity",
    "dps_pca_sigma",
    "LOCAL_CALIBRATIONS",
    "local_sensitivity",
    "local_noise_scale",
    "DPDPCA_CALIBRATIONS",
    "dpdpca_sensitivity",
    "mask_sensitivity",
    "dpdpca_noise_scale",
    # the privacy record
    "PrivacyRecord",
    "make_record",
    # diagnostics
    "diagnostics",
    "diagnostics_enabled",
]
