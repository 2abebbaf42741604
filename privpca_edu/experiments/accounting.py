r"""Chapter 2 twin: how much noise each privacy accounting asks for.

All numbers come from :mod:`privpca_edu.privacy` (the one place where σ is computed):
:func:`~privpca_edu.privacy.gaussian_sigma` for a single Gaussian mechanism and
:func:`~privpca_edu.privacy.iterative_gaussian_sigma` for T adaptive steps, with the methods of
:data:`~privpca_edu.privacy.ITERATIVE_CALIBRATIONS`.  This module only evaluates them on a grid
and records where the package *warns* that a calibration's proof does not hold (the classic
Gaussian mechanism needs a per-step ε/T < 1).
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np

from .._validation import PrivacyWarning, check_delta, check_epsilon, check_int, check_positive
from ..estimators import AnalyzeGauss
from ..privacy import ITERATIVE_CALIBRATIONS, iterative_gaussian_sigma

__all__ = ["sigma_curves", "sensitivity_example", "DPS_PCA_SIGMA_TABLE", "SIGMA_EPSILON_GRID",
           "cache_info", "clear_caches"]

#: ε values of the σ(ε) curves: 41 points, 10 per decade, from 0.01 to 100.
SIGMA_EPSILON_GRID = np.logspace(-2, 2, 41)

#: Reference values (T = 10, Δ = 2): per-step σ that makes the
#: whole run (ε, δ)-DP, for five calibrations.  Rows: (ε, δ, paper, classic, analytic_basic,
#: zcdp, analytic_exact); ``"advanced"`` has no reference column.
DPS_PCA_SIGMA_TABLE = {
    "n_steps": 10,
    "sensitivity": 2.0,
    "methods": ("paper", "classic", "analytic_basic", "zcdp", "analytic_exact"),
    "rows": (
        (0.5, 0.3, 115.93, 109.25, 15.83, 21.49, 5.48),
        (1.0, 0.3, 57.96, 54.62, 11.90, 11.55, 4.37),
        (1.5, 0.3, 38.64, 36.42, 9.73, 8.17, 3.72),
        (2.0, 0.3, 28.98, 27.31, 8.32, 6.46, 3.29),
        (1.0, 0.01, 77.98, 75.53, 34.81, 20.18, 11.88),
        (1.0, 0.05, 69.23, 66.46, 23.88, 16.68, 8.43),
        (1.0, 0.1, 65.10, 62.15, 19.08, 14.91, 6.87),
        (1.0, 0.5, 54.32, 50.75, 8.97, 9.54, 3.21),
        (2.0, 0.01, 38.99, 37.76, 19.80, 10.55, 7.06),
        (2.0, 0.5, 27.16, 25.37, 6.65, 5.53, 2.60),
    ),
}

#: Relative tolerance under which a slider value counts as "the table's" ε or δ.
TABLE_MATCH_RTOL = 0.015


def _sigma_and_warning(sensitivity, epsilon, delta, n_steps, method):
    """σ from privpca_edu.privacy, plus the PrivacyWarning message it raised (or None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyWarning)
        sigma = iterative_gaussian_sigma(sensitivity, epsilon, delta, n_steps, method=method)
    messages = [str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)]
    return sigma, (messages[0] if messages else None)


@lru_cache(maxsize=256)
def _curves(delta, n_steps, sensitivity, methods, grid):
    """σ over the ε grid for every method (independent of the ε slider; cached)."""
    sigma = {}
    valid = {}
    for method in methods:
        s = np.empty(len(grid))
        ok = np.empty(len(grid), dtype=bool)
        for i, eps in enumerate(grid):
            s[i], message = _sigma_and_warning(sensitivity, eps, delta, n_steps, method)
            ok[i] = message is None
        s.setflags(write=False)
        ok.setflags(write=False)
        sigma[method], valid[method] = s, ok
    return sigma, valid


def _close(a, b):
    return abs(a - b) <= TABLE_MATCH_RTOL * abs(b)


def sigma_curves(epsilon=1.0, delta=1e-5, n_steps=10, sensitivity=2.0, *, methods=None,
                 epsilon_grid=None):
    r"""Per-step noise σ against ε for every accounting method, and the values at one ε.

    Parameters
    ----------
    epsilon : float
        The ε to highlight (the slider).
    delta : float
        Total δ of the run, in (0, 1); default 10⁻⁵ (the DPS-PCA reference table uses 0.3).
    n_steps : int
        T, number of adaptive Gaussian releases (T = 1: a single Gaussian mechanism, where
        ``"classic"`` is the textbook σ = Δ√(2 ln(1.25/δ))/ε and ``"analytic_exact"`` the
        Balle–Wang σ).
    sensitivity : float
        Δ, the ℓ2 sensitivity of each step (for XᵀX: √2·B² under replace-one, B² under
        add/remove; for DPS-PCA's Σ̂Q: 2B²).
    methods : sequence of str, optional
        Keys of :data:`privpca_edu.privacy.ITERATIVE_CALIBRATIONS` (default: all).
    epsilon_grid : array_like, optional
        The ε values of the curves (default :data:`SIGMA_EPSILON_GRID`).

    Returns
    -------
    dict
        ``epsilons`` (grid), ``sigma`` and ``valid`` (dicts method → array; ``valid`` is False
        where privpca_edu.privacy warns that the method's proof does not hold), ``sigma_at`` and
        ``valid_at`` (dicts method → value at ``epsilon``), ``warnings_at`` (the package's
        messages at ``epsilon``), ``proof_limit`` (the ε from which the classic proofs fail, T),
        ``reference`` (rows of :data:`DPS_PCA_SIGMA_TABLE` that apply to these δ, T, Δ: list
        of dicts ε, method, σ), ``reference_at`` (dict method → table σ at this ε, when it is
        a table ε), the parameters and ``notes``.

    Examples
    --------
    >>> r = sigma_curves(1.0, 0.3, 10, 2.0)
    >>> round(r["sigma_at"]["paper"], 2), r["reference_at"]["paper"]
    (57.96, 57.96)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n_steps = check_int(n_steps, "n_steps", low=1)
    sensitivity = check_positive(sensitivity, "sensitivity")
    if methods is None:
        methods = tuple(ITERATIVE_CALIBRATIONS)
    else:
        methods = tuple(methods)
        for m in methods:
            if m not in ITERATIVE_CALIBRATIONS:
                allowed = ", ".join(repr(o) for o in ITERATIVE_CALIBRATIONS)
                raise ValueError(f"methods must be among {allowed}, got {m!r}")
    grid = SIGMA_EPSILON_GRID if epsilon_grid is None else np.asarray(epsilon_grid, dtype=float)
    grid = tuple(float(check_epsilon(e, "epsilon_grid")) for e in np.ravel(grid))

    sigma, valid = _curves(delta, n_steps, sensitivity, methods, grid)
    sigma_at, valid_at, warnings_at = {}, {}, {}
    for m in methods:
        s, message = _sigma_and_warning(sensitivity, epsilon, delta, n_steps, m)
        sigma_at[m], valid_at[m] = s, message is None
        if message:
            warnings_at[m] = message

    table = DPS_PCA_SIGMA_TABLE
    reference, reference_at = [], {}
    if n_steps == table["n_steps"] and _close(sensitivity, table["sensitivity"]):
        for row in table["rows"]:
            eps_row, delta_row, values = row[0], row[1], row[2:]
            if not _close(delta, delta_row):
                continue
            for m, value in zip(table["methods"], values):
                if m in methods:
                    reference.append({"epsilon": eps_row, "method": m, "sigma": value})
                    if _close(epsilon, eps_row):
                        reference_at[m] = value

    notes = []
    if delta >= 0.01:
        notes.append(f"δ = {delta:g} is large: (ε, δ)-DP allows a total failure with probability δ; use δ ≪ 1/n in practice")
    if warnings_at:
        notes.append(f"per-step ε/T = {epsilon / n_steps:.3g} ≥ 1: the classic proof behind "
                     + ", ".join(sorted(warnings_at)) + " does not hold (dotted)")
    return {
        "epsilon": epsilon, "delta": delta, "n_steps": n_steps, "sensitivity": sensitivity,
        "methods": methods,
        "epsilons": np.array(grid),
        "sigma": {m: np.array(sigma[m]) for m in methods},
        "valid": {m: np.array(valid[m]) for m in methods},
        "sigma_at": sigma_at, "valid_at": valid_at, "warnings_at": warnings_at,
        "proof_limit": float(n_steps),
        "reference": reference, "reference_at": reference_at,
        "descriptions": {m: ITERATIVE_CALIBRATIONS[m] for m in methods},
        "notes": notes,
    }


def sensitivity_example(data_norm=1.0, n_features=3, n_samples=5):
    r"""The worked example of chapter 2: the sensitivity of XᵀX, measured on a worst-case pair.

    Builds two replace-one neighbours: ``n - 1`` identical rows plus ``x = B e₁`` in one data
    set and ``x′ = B e₂`` in the other (both at the norm bound B, orthogonal), and measures

    * ``replace_one``: :math:`\lVert X^\top X - X'^\top X'\rVert_F = \lVert xx^\top - x'x'^\top\rVert_F = \sqrt2 B^2`;
    * ``add_remove``: :math:`\lVert xx^\top\rVert_F = B^2` (drop x instead of replacing it);
    * ``analyze_gauss``: the sensitivity :class:`~privpca_edu.AnalyzeGauss` reports, rescaled
      from :math:`X^\top X/n` to :math:`X^\top X` (times n) — the bound the mechanism uses;
    * ``upper_triangle``: the ℓ2 distance in the coordinates the noise is added in (each
      entry on and above the diagonal once), which is what σ is calibrated to.

    Parameters
    ----------
    data_norm : float, default=1.0
        The row-norm bound B.
    n_features : int, default=3
        Dimension d >= 2.
    n_samples : int, default=5
        Number of rows n.

    Returns
    -------
    dict
        The floats ``replace_one``, ``add_remove``, ``analyze_gauss``, ``upper_triangle`` and
        ``data_norm``, and the arrays ``X`` and ``X_neighbour``.
    """
    from ..privacy import symmetric_to_vector

    B = check_positive(data_norm, "data_norm")
    d = check_int(n_features, "n_features", low=2)
    n = check_int(n_samples, "n_samples", low=2)
    base = np.zeros((n - 1, d))
    base[:, -1] = 0.5 * B
    x = np.zeros(d)
    x[0] = B
    x_prime = np.zeros(d)
    x_prime[1] = B
    X = np.vstack([base, x])
    X_neighbour = np.vstack([base, x_prime])
    diff = X.T @ X - X_neighbour.T @ X_neighbour
    mech = AnalyzeGauss(n_components=1, epsilon=np.inf, delta=1e-5, data_norm=B)
    parts, parts_neighbour = mech.release_parts(X), mech.release_parts(X_neighbour)
    return {
        "replace_one": float(np.linalg.norm(diff)),
        "add_remove": float(np.linalg.norm(np.outer(x, x))),
        "analyze_gauss": float(parts.sensitivity * n),
        "upper_triangle": float(np.linalg.norm(
            symmetric_to_vector(parts.statistic - parts_neighbour.statistic, parts.convention)) * n),
        "data_norm": B,
        "X": X, "X_neighbour": X_neighbour,
    }


def cache_info():
    return {"curves": _curves.cache_info()}


def clear_caches():
    _curves.cache_clear()
