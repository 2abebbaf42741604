r"""Figures and exercises of the chapter *Auditing privacy claims*, as data.

Every audit is a call into :mod:`privpca_edu.audit` (its recipes A–E),
every broken mechanism comes from :mod:`privpca_edu.audit.mutants`.  This module only chooses
the neighbouring data sets, runs the recipes and collects what the chapter's figures draw.

=================================  ============================================================
:func:`gdp_audit`                   recipe C on a chosen mechanism (honest or mutant), with an
                                    optional σ multiplier: μ̂ ± 4 SE against the claimed μ and
                                    the implied (ε, δ) curve (the live dashboard's twin)
:func:`output_epsilon_demo`         recipe D on PPCA and the doubled-exponent mutant
:func:`sampler_density_demo`        recipe E in d = 2: angles of a sampler's draws against the
                                    exact Bingham density (honest, always-accept, divided ratio)
:func:`library_sampler_case_study`  the diffprivlib / OpenDP acceptance-ratio defect, reproduced
                                    with :func:`privpca_edu.audit.mutants.divided_log_ratio`
:func:`cheater_lineup`              three anonymous mechanisms, one mis-calibrated
:func:`check_cheater`               checks an answer against a stored hash
=================================  ============================================================
"""

from __future__ import annotations

import hashlib
import math
import warnings
from functools import lru_cache

import numpy as np
from scipy.integrate import trapezoid

from .. import audit
from .._validation import PrivacyWarning, check_delta, check_int, check_option, check_positive
from ..audit import mutants
from ..estimators import PPCA, AnalyzeGauss, ModSuLQ
from ..estimators.ppca import sample_bingham_exact
from ..estimators.covariance import ReleaseParts
from ..privacy import check_gaussian_guarantee, gdp_delta, gdp_epsilon
from .noisy_covariance import one_blas_thread

__all__ = [
    "AUDITED_MECHANISMS",
    "gdp_audit",
    "with_noise_multiplier",
    "output_epsilon_demo",
    "sampler_density_demo",
    "SAMPLERS",
    "library_sampler_case_study",
    "STORED_LIBRARY_NUMBERS",
    "diffprivlib_bingham_check",
    "AnonymousMechanism",
    "cheater_lineup",
    "check_cheater",
    "CHEATER_CLAIM",
]

# ---------------------------------------------------------------------------------------------
# Recipe C, live
# ---------------------------------------------------------------------------------------------
#: Mechanisms of the recipe-C dashboard: label → (class, extra constructor arguments, adds the
#: noise it documents).  Whether the noise meets the (ε, δ) claim is not a label: ``gdp_audit``
#: computes it exactly for the setting chosen (``claim_holds``).
AUDITED_MECHANISMS = {
    "Analyze Gauss (analytic σ)": (AnalyzeGauss, dict(calibration="analytic"), True),
    "Analyze Gauss (classic σ)": (AnalyzeGauss, dict(calibration="classic"), True),
    "MOD-SuLQ": (ModSuLQ, {}, True),
    "mutant: Analyze Gauss with σ/2": (mutants.HalfSigmaAnalyzeGauss, dict(calibration="analytic"), False),
    "mutant: MOD-SuLQ with β/2 (still private)": (mutants.HalfSigmaModSuLQ, {}, False),
}

#: ε values of the implied (ε, δ) curves.
CURVE_EPSILONS = np.linspace(0.0, 6.0, 61)


@lru_cache(maxsize=None)
def with_noise_multiplier(cls, multiplier):
    """Build a subclass of a noisy-matrix estimator whose noise is ``multiplier`` × the documented σ.

    ``multiplier < 1`` is a cheater (less noise than the claim needs), ``> 1`` a conservative
    implementation.  Built the way :mod:`privpca_edu.audit.mutants` builds ``HalfSigma…``:
    it overrides only the noise-scale hook, so the privacy claim (ε, δ) stays the parent's.
    ``multiplier = 1`` returns ``cls`` itself.

    ``NoisyMatrixMechanism._noise_scale`` is the mutants' override point, on purpose: it is the
    one method through which ``fit``, ``release_parts`` and ``sample_releases`` obtain σ (each
    estimator's returns a public calibration of :mod:`privpca_edu.privacy`), so scaling it breaks
    the mechanism while leaving everything else, including the claim, untouched.

    Parameters
    ----------
    multiplier : float
        The factor on σ, > 0 (``cls``, the first argument, is the estimator class).

    Returns
    -------
    type
        The subclass (``cls`` itself when ``multiplier = 1``).
    """
    multiplier = check_positive(multiplier, "sigma_multiplier")
    if multiplier == 1.0:
        return cls

    def _noise_scale(self, *args):
        return cls._noise_scale(self, *args) * multiplier

    name = f"{cls.__name__}x{multiplier:g}"
    return type(name, (cls,), {"_noise_scale": _noise_scale,
                               "__doc__": f"{cls.__name__} with {multiplier:g} × its documented noise."})


def _capture_privacy_warnings(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyWarning)
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)]


@one_blas_thread
def gdp_audit(mechanism="Analyze Gauss (analytic σ)", sigma_multiplier=1.0, n_draws=20_000, epsilon=1.0,
              delta=1e-5, n_samples=20, n_features=3, seed=0):
    r"""Recipe C (Gaussian DP along the worst direction) on one mechanism.

    Builds the replace-one worst-case pair (:func:`privpca_edu.audit.worst_case_pair`), draws
    ``n_draws`` releases on each data set and estimates μ̂ with
    :func:`privpca_edu.audit.audit_release_gdp`.  The claim is the black-box reading of the
    advertised (ε, δ): the largest μ compatible with it (:func:`privpca_edu.audit.max_gdp_mu`);
    the mechanism's own σ is never trusted.  The audit flags the mechanism when
    μ̂ > μ_claimed + 4 SE.

    Parameters
    ----------
    mechanism : str
        A key of :data:`AUDITED_MECHANISMS`.
    sigma_multiplier : float
        Multiply the mechanism's documented noise by this (> 0; 1 leaves it alone).
    n_draws : int
        Releases per data set (200 … 10⁶); SE ≈ √(2/N).
    epsilon, delta : float
        The advertised guarantee (ε > 0 finite, δ in (0, 1)).
    n_samples, n_features : int
        Size of the neighbouring data sets (n ≥ 2, d ≥ 2).
    seed : int
        Seed of the random draws.

    Returns
    -------
    dict
        ``mu_hat``, ``se``, ``mu_claimed``, ``threshold`` (μ_claimed + 4 SE), ``passed``;
        ``mu_true`` (Δ/σ of the mechanism as built, known here because we built it);
        ``epsilon_hat`` (the ε that μ̂-GDP implies at the advertised δ) and
        ``epsilon_lower`` (the same for μ̂ − 4 SE: with high confidence the mechanism spends
        at least this much);
        ``curve_epsilon`` and the δ(ε) curves ``delta_claimed``, ``delta_hat``,
        ``delta_low``/``delta_high`` (μ̂ ∓ 4 SE), ``delta_true``; ``summary`` (the audit's
        sentence); ``honest`` (whether the chosen mechanism, before the multiplier, adds the
        noise it documents); ``claim_holds`` (whether the noise actually used meets the
        advertised (ε, δ), by the exact check
        :func:`privpca_edu.privacy.check_gaussian_guarantee`); the arguments; ``notes``.

    Examples
    --------
    >>> r = gdp_audit("mutant: Analyze Gauss with σ/2", n_draws=5000)
    >>> r["passed"], round(r["mu_true"] / r["mu_claimed"], 6)
    (False, 2.0)
    """
    check_option(mechanism, "mechanism", tuple(AUDITED_MECHANISMS))
    multiplier = check_positive(sigma_multiplier, "sigma_multiplier")
    n_draws = check_int(n_draws, "n_draws", low=200, high=1_000_000)
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=2, high=20)
    seed = check_int(seed, "seed", low=0)
    base, kwargs, honest = AUDITED_MECHANISMS[mechanism]
    est = with_noise_multiplier(base, multiplier)(1, epsilon=epsilon, delta=delta, **kwargs)
    X, X_prime = audit.worst_case_pair(n, d)
    (res, parts), messages = _capture_privacy_warnings(
        lambda: (audit.audit_release_gdp(est, X, X_prime, epsilon=epsilon, delta=delta, n_draws=n_draws,
                                         random_state=np.random.default_rng((seed, 31))),
                 est.release_parts(X)))
    v = res.values
    mu_hat, se, mu_claimed = v["mu_hat"], v["se"], v["mu_claimed"]
    mu_true = parts.sensitivity / parts.noise_scale
    lo, hi = max(mu_hat - 4 * se, 0.0), max(mu_hat + 4 * se, 0.0)
    grid = CURVE_EPSILONS

    def curve(mu):
        return np.array([gdp_delta(mu, e) for e in grid])

    # The truth, computed exactly from the noise actually used (not from the label).
    claim_holds = check_gaussian_guarantee(epsilon, delta, [(parts.sensitivity, parts.noise_scale)]).holds
    notes = []
    if messages:
        notes.append(messages[0])
    if not claim_holds:
        notes.append(f"the noise used is NOT ({epsilon:g}, {delta:g})-DP (exact check)")
    elif not honest:
        notes.append("a mutant with less noise than documented, yet still within the (ε, δ) claim here")
    if multiplier != 1.0:
        notes.append(f"noise multiplied by {multiplier:g}")
    return dict(
        mechanism=mechanism, sigma_multiplier=multiplier, n_draws=n_draws, epsilon=epsilon, delta=delta,
        n_samples=n, n_features=d, seed=seed, honest=honest, claim_holds=bool(claim_holds),
        mu_hat=mu_hat, se=se, mu_claimed=mu_claimed, threshold=v["threshold"], passed=bool(res.passed),
        mu_true=mu_true, summary=res.summary,
        epsilon_hat=gdp_epsilon(max(mu_hat, 0.0), delta), epsilon_lower=gdp_epsilon(lo, delta),
        epsilon_true=gdp_epsilon(mu_true, delta),
        curve_epsilon=grid, delta_claimed=curve(mu_claimed), delta_hat=curve(max(mu_hat, 0.0)),
        delta_low=curve(lo), delta_high=curve(hi), delta_true=curve(mu_true),
        notes=notes,
    )


# ---------------------------------------------------------------------------------------------
# Recipe D
# ---------------------------------------------------------------------------------------------
#: The d = 2 neighbouring pair of recipes D and E (as in tests/audit/test_audit.py): three rows on e₁,
#: and the same with the last row moved to e₂.
PPCA_PAIR = (np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))

_OUTPUT_MECHANISMS = {"PPCA": PPCA, "mutant: PPCA with doubled exponent": mutants.DoubleExponentPPCA,
                      "mutant: PPCA with the libraries' divided ratio": mutants.DividedRatioPPCA}


@one_blas_thread
def output_epsilon_demo(mechanism="PPCA", epsilon=1.0, n_draws=200_000, seed=0, delta=1e-2):
    r"""Run recipe D: a Clopper–Pearson lower bound on the ε an eigenvector release spends.

    ``n_draws`` outputs of the mechanism (exact sampler, k = 1) on each data set of
    :data:`PPCA_PAIR`; the statistic is s = |⟨v̂, e₁⟩|.  :func:`privpca_edu.audit.audit_output_epsilon`
    picks a threshold event on one half and certifies
    :math:`\varepsilon_{lb} = \ln((p_{lo}(D) - \delta)/p_{hi}(D'))` on the other (confidence
    1 − 10⁻³).  Returns the statistics, histograms for the figure and the audit result.

    Parameters
    ----------
    mechanism : str, default="PPCA"
        The eigenvector release audited (a key of the module's output mechanisms).
    epsilon : float, default=1.0
        Its claimed ε.
    n_draws : int, default=200000
        Outputs per data set.
    seed : int, default=0
        Seed.
    delta : float, default=0.01
        The δ of the audit's bound.

    Returns
    -------
    dict
        The statistics, histograms for the figure and the audit result.
    """
    check_option(mechanism, "mechanism", tuple(_OUTPUT_MECHANISMS))
    epsilon = check_positive(epsilon, "epsilon")
    n_draws = check_int(n_draws, "n_draws", low=1000)
    seed = check_int(seed, "seed", low=0)
    delta = check_delta(delta)
    est = _OUTPUT_MECHANISMS[mechanism](1, epsilon=epsilon, sampler="exact")
    X, X_prime = PPCA_PAIR
    s = np.abs(est.sample_components(X, n_draws, random_state=np.random.default_rng((seed, 41)))[:, 0])
    s_prime = np.abs(est.sample_components(X_prime, n_draws, random_state=np.random.default_rng((seed, 42)))[:, 0])
    res = audit.audit_output_epsilon(s, s_prime, epsilon=epsilon, delta=delta)
    edges = np.linspace(0.0, 1.0, 51)
    return dict(
        mechanism=mechanism, epsilon=epsilon, delta=delta, n_draws=n_draws,
        statistic=s, statistic_prime=s_prime, edges=edges,
        hist=np.histogram(s, edges)[0] / n_draws, hist_prime=np.histogram(s_prime, edges)[0] / n_draws,
        result=res, epsilon_lb=res.values["epsilon_lb"], passed=bool(res.passed),
        threshold=float(res.values["event"].split()[2]) if "event" in res.values else None,
        notes=[],
    )


# ---------------------------------------------------------------------------------------------
# Recipe E and the library case study
# ---------------------------------------------------------------------------------------------
#: The exact (k = 1) sampler with three acceptance rules.
SAMPLERS = {
    "correct (Kent–Ganeiber–Mardia)": None,  # the package's default kgm_log_ratio
    "libraries' bug: ratio divided by (xᵀΩx)^{d/2}": mutants.divided_log_ratio,
    "always accept (no rejection step)": mutants.always_accept_log_ratio,
}


def _draw(A, n, rng, log_ratio, return_rate=False):
    kwargs = {} if log_ratio is None else dict(log_ratio=log_ratio)
    return sample_bingham_exact(A, size=n, random_state=rng, return_rate=return_rate, **kwargs)


@one_blas_thread
def sampler_density_demo(psi=(0.0, 5.0), n_draws=20_000, seed=0, samplers=None):
    r"""Run recipe E in d = 2: the angle of a sampler's draws against the exact Bingham density.

    Target :math:`p(x) \propto \exp(-x^\top\Psi x)` with Ψ = diag(``psi``) (the case study's
    A = diag(0, 5) by default), i.e. ``sample_bingham_exact(−Ψ)``.  For each sampler of
    :data:`SAMPLERS`: θ of the draws, E[x₁²], the acceptance rate and recipe E's χ² test
    (:func:`privpca_edu.audit.audit_bingham_2d`, 60 bins).

    Parameters
    ----------
    psi : sequence of float, default=(0.0, 5.0)
        The diagonal of Ψ.
    n_draws : int, default=20000
        Draws per sampler.
    seed : int, default=0
        Seed.
    samplers : sequence of str or None, default=None
        Keys of :data:`SAMPLERS` (``None``: all).

    Returns
    -------
    dict
        Per sampler: θ of the draws, E[x₁²] and its standard error, the acceptance rate and the χ² test.
    """
    psi = np.asarray(psi, dtype=np.float64)
    if psi.shape != (2,) or not np.all(np.isfinite(psi)) or np.any(psi < 0):
        raise ValueError(f"psi must be two finite numbers >= 0 (the diagonal of Ψ), got {psi.tolist()}")
    n_draws = check_int(n_draws, "n_draws", low=100)
    seed = check_int(seed, "seed", low=0)
    names = tuple(SAMPLERS) if samplers is None else tuple(samplers)
    for name in names:
        check_option(name, "samplers entries", tuple(SAMPLERS))
    A = -np.diag(psi)
    grid = np.linspace(0.0, np.pi, 721)
    density = audit.bingham_density_2d(grid, A)
    exact_m1 = float(trapezoid(density * np.cos(grid) ** 2, grid))
    out = dict(psi=psi, A=A, theta_grid=grid, density=density, exact_moment=exact_m1, n_draws=n_draws,
               samplers=names, theta={}, moment={}, moment_se={}, acceptance={}, chi2={}, notes=[])
    for j, name in enumerate(names):
        x, rate = _draw(A, n_draws, np.random.default_rng((seed, 50 + j)), SAMPLERS[name], return_rate=True)
        y1 = x[:, 0] ** 2
        out["theta"][name] = np.mod(np.arctan2(x[:, 1], x[:, 0]), np.pi)
        out["moment"][name] = float(y1.mean())
        out["moment_se"][name] = float(y1.std(ddof=1) / math.sqrt(n_draws))
        out["acceptance"][name] = rate
        out["chi2"][name] = audit.audit_bingham_2d(x, A)
    return out


#: The numbers measured against the real libraries (≥ 10⁵
#: draws): IBM diffprivlib 0.6.6 ``mechanisms.Bingham`` and OpenDP 0.16's eigenvector sampler.
STORED_LIBRARY_NUMBERS = {
    "d2_true_moment": 0.8825, "d2_library_moment": 0.965, "d2_correct_moment": 0.883, "d2_z": "> 400",
    "d4_true_moment": 0.578, "d4_library_moment": 0.889, "d4_correct_moment": 0.578,
    "d2_chi2_library": "≈ 45 000 – 91 000", "d2_chi2_correct": 72, "d2_chi2_dof": 59,
    "log_ratio_library": "0.60 – 0.89 (d ≥ 5, ε = 1, one added row)", "log_ratio_correct": "≤ 0.25",
    "acceptance_d10_correct": 0.86, "acceptance_d10_library": 6e-4,
}


@one_blas_thread
def library_sampler_case_study(n_draws=100_000, seed=0, reference_draws=400_000):
    r"""Reproduce the diffprivlib / OpenDP defect with the package's own sampler and mutant.

    Both libraries implement Kent, Ganeiber & Mardia's rejection sampler but divide the
    acceptance ratio by :math:`(x^\top\Omega x)^{d/2}` where it must be multiplied
    (:func:`privpca_edu.audit.mutants.divided_log_ratio`).  Measured here:

    * d = 2, Ψ = diag(0, 5): exact E[y₁²] by quadrature, the correct and the divided sampler's
      E[y₁²] with z-scores, recipe E's χ² on θ (60 bins, 59 degrees of freedom);
    * d = 4, Ψ = diag(0, 2, 5, 9): E[yᵢ²] by exact rejection from the uniform sphere
      (:func:`privpca_edu.audit.bingham_reference_moments`) against both samplers, and recipe E's
      moment test;
    * the acceptance rates.

    Returns a dict; :data:`STORED_LIBRARY_NUMBERS` holds the measurements on the real libraries.

    Parameters
    ----------
    n_draws : int, default=100000
        Draws per sampler.
    seed : int, default=0
        Seed.
    reference_draws : int, default=400000
        Draws of the exact reference moments (d = 4), >= 1000.

    Returns
    -------
    dict
        The measurements listed above (``d2_exact_moment``, ``d4_reference``, ``rows``, …).
    """
    n_draws = check_int(n_draws, "n_draws", low=1000)
    seed = check_int(seed, "seed", low=0)
    reference_draws = check_int(reference_draws, "reference_draws", low=1000)
    rows = {}
    demo2 = sampler_density_demo((0.0, 5.0), n_draws, seed, samplers=tuple(SAMPLERS)[:2])
    correct, buggy = tuple(SAMPLERS)[:2]
    for name in (correct, buggy):
        m, se = demo2["moment"][name], demo2["moment_se"][name]
        rows[name] = dict(d2_moment=m, d2_z=(m - demo2["exact_moment"]) / se,
                          d2_chi2=demo2["chi2"][name].values["chi2"], d2_acceptance=demo2["acceptance"][name])
    A4 = -np.diag([0.0, 2.0, 5.0, 9.0])
    ref, ref_se, _ = audit.bingham_reference_moments(A4, n_samples=reference_draws, random_state=seed)
    for j, name in enumerate((correct, buggy)):
        x, rate = _draw(A4, n_draws, np.random.default_rng((seed, 60 + j)), SAMPLERS[name], return_rate=True)
        res = audit.audit_bingham_moments(x, A4, reference=(ref, ref_se))
        rows[name].update(d4_moments=res.values["moments"], d4_max_z=float(np.max(np.abs(res.values["z"]))),
                          d4_passed=bool(res.passed), d4_acceptance=rate)
    return dict(d2_exact_moment=demo2["exact_moment"], d4_reference=ref, d4_reference_se=ref_se, rows=rows,
                samplers=(correct, buggy), n_draws=n_draws, d2=demo2, stored=STORED_LIBRARY_NUMBERS, notes=[])


def diffprivlib_bingham_check(n_draws=5000, seed=0):
    r"""Run recipe E live against IBM diffprivlib's ``mechanisms.Bingham``, if installed (optional).

    diffprivlib is **not** a dependency (0.6.6 needs scikit-learn < 1.9).  Its ``Bingham`` with
    ``epsilon=1, sensitivity=1`` samples, by its documentation, :math:`\propto \exp(\tfrac14 u^\top Vu)`
    for the symmetric input V; with V = diag(20, 0) that is the case study's Ψ = diag(0, 5).
    Returns ``None`` and the reason when diffprivlib cannot be imported; else a dict with the
    draws' E[y₁²], its z-score against the exact 0.8825 and recipe E's χ² result.  About 0.5 ms per
    draw (one Python-level rejection loop per call).

    Parameters
    ----------
    n_draws : int, default=5000
        Draws from diffprivlib's sampler.
    seed : int, default=0
        Seed.

    Returns
    -------
    result : dict or None
        ``version``, ``n_draws``, ``moment`` (E[y₁²]), ``exact_moment``, ``z`` (its z-score) and
        ``chi2`` (recipe E's result); ``None`` when diffprivlib cannot be imported.
    reason : str or None
        Why diffprivlib could not be imported (``None`` when it was).
    """
    n_draws = check_int(n_draws, "n_draws", low=100)
    try:  # optional peer library: never a requirement of the book
        from diffprivlib.mechanisms import Bingham
    except Exception as exc:  # ImportError, or diffprivlib failing against a newer scikit-learn
        return None, f"{type(exc).__name__}: {exc}"
    import diffprivlib

    mech = Bingham(epsilon=1.0, sensitivity=1.0, random_state=seed)
    value = np.diag([20.0, 0.0])  # ε/(4·sensitivity)·(λ_max I − V) = diag(0, 5)
    draws = np.array([mech.randomise(value) for _ in range(n_draws)])
    A = -np.diag([0.0, 5.0])
    grid = np.linspace(0.0, np.pi, 721)
    exact = float(trapezoid(audit.bingham_density_2d(grid, A) * np.cos(grid) ** 2, grid))
    y1 = draws[:, 0] ** 2
    se = float(y1.std(ddof=1) / math.sqrt(n_draws))
    return dict(version=diffprivlib.__version__, n_draws=n_draws, moment=float(y1.mean()), exact_moment=exact,
                z=(float(y1.mean()) - exact) / se, chi2=audit.audit_bingham_2d(draws, A)), None


# ---------------------------------------------------------------------------------------------
# Catch the cheater
# ---------------------------------------------------------------------------------------------
#: What every mechanism of the line-up claims.
CHEATER_CLAIM = dict(epsilon=1.0, delta=1e-5, neighbouring="replace-one", data_norm=1.0,
                     release="XᵀX/n + symmetric Gaussian noise (upper triangle i.i.d.), then top-k eigenvectors")
_LINEUP_SEED = 20261124
_LABELS = ("A", "B", "C")
# sha256 of "privpca_edu/cheater/" + the cheater's label: checking an answer does not reveal it.
_CHEATER_HASH = "5b4a82b32664f736870c3579dfa9c23491cc540c0264775c91f943162073d70f"


class AnonymousMechanism:
    """A mechanism behind a label: it releases, but does not say how much noise it adds.

    Exposes what an auditor of a black box gets — the claim (``epsilon``, ``delta``,
    ``data_norm``), ``fit`` (``released_matrix_``, ``components_``), ``sample_releases`` and
    ``release_parts`` with the noise scale hidden (NaN) — so that
    :func:`privpca_edu.audit.audit_release_gdp` runs on it unchanged.  (The wrapped estimator
    is reachable by anyone who digs; this is an exercise, not a vault.)

    Parameters
    ----------
    label : str
        The name the mechanism goes by ("A", "B", …).
    estimator : NoisyMatrixMechanism
        The hidden estimator.
    """

    def __init__(self, label, estimator):
        self.label = label
        self._hidden = estimator
        self.epsilon = estimator.epsilon
        self.delta = estimator.delta
        self.data_norm = estimator.data_norm
        self.n_components = estimator.n_components

    def fit(self, X, y=None):
        """Fit the hidden estimator and expose its release.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        AnonymousMechanism
            This mechanism, with ``released_matrix_`` and ``components_``.
        """
        self._hidden.fit(X)
        self.released_matrix_ = self._hidden.released_matrix_
        self.components_ = self._hidden.components_
        return self

    def release_parts(self, X):
        """Compute f(X) and Δ as documented; the noise scale is hidden (NaN).

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data.

        Returns
        -------
        ReleaseParts
            The statistic and Δ; ``noise_scale`` is NaN.
        """
        parts = self._hidden.release_parts(X)
        return ReleaseParts(parts.statistic, parts.sensitivity, float("nan"), parts.convention)

    def sample_releases(self, X, n_draws, random_state=None):
        """Draw ``n_draws`` releases for the same X, as the hidden estimator does.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data.
        n_draws : int
            Number of releases, >= 1.
        random_state : None, int or numpy.random.Generator, default=None
            Seed or generator of the noise.

        Returns
        -------
        ndarray, shape (n_draws, n_features, n_features)
            The releases.
        """
        return self._hidden.sample_releases(X, n_draws, random_state=random_state)

    def __repr__(self):
        return (f"Mechanism {self.label}: claims ({self.epsilon:g}, {self.delta:g})-DP, "
                f"{CHEATER_CLAIM['neighbouring']} neighbours, rows of norm ≤ {self.data_norm:g}")


def cheater_lineup(n_components=1):
    """Line up three anonymous mechanisms, all claiming :data:`CHEATER_CLAIM`; exactly one cheats.

    Honest Analyze Gauss (analytic σ), Analyze Gauss with half the noise
    (:class:`~privpca_edu.audit.mutants.HalfSigmaAnalyzeGauss`) and honest MOD-SuLQ, shuffled with a
    fixed seed behind the labels "A", "B", "C".  Returns a dict label → :class:`AnonymousMechanism`.

    Parameters
    ----------
    n_components : int, default=1
        Number of components k of each mechanism.

    Returns
    -------
    dict of str to AnonymousMechanism
        Label → mechanism.
    """
    k = check_int(n_components, "n_components", low=1)
    eps, delta = CHEATER_CLAIM["epsilon"], CHEATER_CLAIM["delta"]
    mechanisms = [
        AnalyzeGauss(k, epsilon=eps, delta=delta, calibration="analytic"),
        mutants.HalfSigmaAnalyzeGauss(k, epsilon=eps, delta=delta, calibration="analytic"),
        ModSuLQ(k, epsilon=eps, delta=delta),
    ]
    order = np.random.default_rng(_LINEUP_SEED).permutation(len(mechanisms))
    return {label: AnonymousMechanism(label, mechanisms[i]) for label, i in zip(_LABELS, order)}


def _hash(label):
    return hashlib.sha256(f"privpca_edu/cheater/{label}".encode()).hexdigest()


def check_cheater(answer):
    """Check whether ``answer`` ("A", "B" or "C", any case) names the cheater of :func:`cheater_lineup`.

    The answer is compared with a stored hash, so reading this function does not give it away.
    Prints a verdict and returns True / False (``None`` while unanswered), never raises: a
    notebook run top to bottom must not stop at an exercise (as
    :func:`privpca_edu.widgets.check_answer`).

    Parameters
    ----------
    answer : str or None
        "A", "B" or "C" (any case); ``None``: not answered yet.

    Returns
    -------
    bool or None
        Whether the answer is right (``None`` while unanswered).
    """
    if answer is None:
        print("not answered yet: set your answer to 'A', 'B' or 'C' and run the cell again.")
        return None
    if not isinstance(answer, str) or answer.strip().upper() not in _LABELS:
        print(f"the answer must be one of 'A', 'B', 'C', got {answer!r}.")
        return False
    label = answer.strip().upper()
    ok = _hash(label) == _CHEATER_HASH
    verdict = ("correct, that is the cheater." if ok else
               "not the cheater. Which audit flags a mechanism, and which only shows it is cautious?")
    print(f"Mechanism {label}: {verdict}")
    return ok
