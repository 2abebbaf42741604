"""Argument checks, random-state handling and norm clipping.

Every public function and estimator validates through these helpers so that a bad
argument always produces the same kind of message::

    ValueError: epsilon must be > 0, got -1.0

(the argument's name, what it was, what is allowed).  Nothing here looks at private data
to *choose* a parameter: :func:`clip_rows` clips to a bound the caller supplies.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os
import sys
import warnings

import numpy as np

__all__ = [
    "PrivacyWarning",
    "as_generator",
    "check_data",
    "check_data_norm",
    "row_norms",
    "power_of_two_scale",
    "check_epsilon",
    "check_delta",
    "check_positive",
    "check_int",
    "check_n_components",
    "check_option",
    "clip_rows",
    "clip_provider_rows",
    "single_threaded_blas",
    "diagnostics",
    "diagnostics_enabled",
    "caller_stacklevel",
]


class PrivacyWarning(UserWarning):
    """A privacy-relevant condition the user should see (clipping, weak δ, invalid ε range)."""


_DIAGNOSTICS = contextvars.ContextVar("privpca_edu_diagnostics", default=False)


@contextlib.contextmanager
def diagnostics(enabled=True):
    """Let the private fits inside the block report data-dependent diagnostics — **not private**.

    By default a private fit emits nothing that depends on the data beyond its noisy release:
    whether some rows were clipped, an objective value along the iterations, a data holder's
    complaint about its own rows would each tell two neighbouring data sets apart, at any ε
    (replace one row inside the bound by one outside it: the warning appears on one and never on
    the other).  Inside ``with privacy.diagnostics():`` the estimators warn when rows are clipped
    (:class:`PrivacyWarning`) and keep such diagnostics (e.g. ``NSGGD.objective_``), and every
    privacy record made in the block says ``is_private=False``: the extra output was not paid for.

    Parameters
    ----------
    enabled : bool, default True
        Turn the diagnostics on (``False``: off inside the block, even within an outer
        ``diagnostics()``).

    Yields
    ------
    None
        Nothing; the block runs with the setting, and the previous setting is restored on exit.

    Examples
    --------
    >>> import numpy as np, warnings, privpca_edu as pp
    >>> X = np.eye(3) * 2.0                      # every row has norm 2 > data_norm = 1
    >>> with pp.privacy.diagnostics(), warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     est = pp.AnalyzeGauss(1, epsilon=0.5, random_state=0).fit(X)
    >>> any("scaled down" in str(m.message) for m in w), est.privacy_.is_private
    (True, False)
    """
    if not isinstance(enabled, (bool, np.bool_)):
        raise TypeError(f"enabled must be True or False, got {enabled!r}")
    token = _DIAGNOSTICS.set(bool(enabled))
    try:
        yield
    finally:
        _DIAGNOSTICS.reset(token)


def diagnostics_enabled():
    """Tell whether the code runs inside :func:`diagnostics`.

    Returns
    -------
    bool
        True inside ``with diagnostics():`` (the private fits then report data-dependent
        diagnostics), False outside it or inside ``diagnostics(False)``.
    """
    return _DIAGNOSTICS.get()


#: The note every privacy record made inside :func:`diagnostics` carries.
DIAGNOSTICS_NOTE = ("not differentially private: made with diagnostics on (privacy.diagnostics), so the fit may "
                    "report data-dependent information (clipped rows, objective values) that no noise pays for")


def as_generator(random_state):
    """Turn ``None``, an int, a Generator or a legacy ``RandomState`` into a :class:`numpy.random.Generator`.

    Never touches NumPy's global state.  ``None`` gives fresh OS entropy; an int (or a
    :class:`numpy.random.SeedSequence`) seeds :func:`numpy.random.default_rng`; a Generator is
    passed through unchanged (so the caller's stream advances).  A :class:`numpy.random.RandomState`
    (what scikit-learn's tools pass) is accepted as scikit-learn accepts it: a Generator is seeded
    from four 32-bit words drawn from it, so the same RandomState state gives the same draws (and
    the RandomState advances, as it would in scikit-learn).

    (Named ``as_generator``, not ``check_random_state``: scikit-learn's function of that name
    returns a ``RandomState``.)
    """
    if type(random_state) is int and random_state >= 0:  # the common case, without the ABC checks below
        return np.random.default_rng(random_state)
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if isinstance(random_state, bool):
            raise TypeError("random_state must be None, an int, a numpy Generator or RandomState, got bool")
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32, size=4, dtype=np.uint64))
    raise TypeError(
        "random_state must be None, an int, a numpy.random.Generator or a numpy.random.RandomState, "
        f"got {type(random_state).__name__}"
    )


def _is_real_number(x):
    if type(x) is float or type(x) is int:  # the common case, without the ABC checks below
        return True
    return isinstance(x, (numbers.Real, np.floating, np.integer)) and not isinstance(x, bool)


def check_positive(value, name, *, allow_inf=False, allow_zero=False):
    """Return ``float(value)`` if it is a real number > 0 (or ≥ 0), else raise."""
    if not _is_real_number(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got nan")
    if math.isinf(value) and not (allow_inf and value > 0):
        allowed = "> 0 (numpy.inf allowed)" if allow_inf else "a finite number"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    if value < 0 or (value == 0 and not allow_zero):
        op = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {op}, got {value}")
    return value


def check_epsilon(epsilon, name="epsilon"):
    """ε must be > 0; ``numpy.inf`` is allowed and means "no noise"."""
    return check_positive(epsilon, name, allow_inf=True)


def check_delta(delta, name="delta", *, allow_zero=False):
    """δ must lie in the open interval (0, 1) (or [0, 1) where pure DP makes sense)."""
    if not _is_real_number(delta):
        raise TypeError(f"{name} must be a real number, got {type(delta).__name__}")
    delta = float(delta)
    low_ok = delta >= 0 if allow_zero else delta > 0
    if not (low_ok and delta < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be in {interval}, got {delta}")
    return delta


def check_int(value, name, *, low=None, high=None):
    """Return ``int(value)`` if it is an integer in ``[low, high]``, else raise."""
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer))):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value}")
    return value


def check_n_components(n_components, n_features, name="n_components"):
    """k must satisfy 1 ≤ k ≤ d."""
    return check_int(n_components, name, low=1, high=n_features)


def check_option(value, name, options):
    """``value`` must be one of ``options`` (strings)."""
    if not isinstance(value, str) or value not in options:
        allowed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_data(X, name="X", *, min_samples=1, min_features=1, copy=True):
    """Validate a 2-D finite real array and return it as float64 (a copy by default).

    The one data check of the package, built on :func:`sklearn.utils.check_array` so that the
    messages are scikit-learn's (``Found array with 0 sample(s) (shape=(0, 3)) while a minimum
    of 1 is required.``, ``Complex data not supported``, ``Input X contains NaN.``, a clear
    message for sparse input).  The caller's array is never modified: with ``copy=True`` (the
    default) the result is always a new array, so later in-place work (clipping, centring) is
    safe.  A list of 2-D arrays (the providers of a distributed method) is refused here.
    """
    if isinstance(X, (list, tuple)) and len(X) and getattr(X[0], "ndim", None) == 2 and hasattr(X[0], "shape"):
        raise TypeError(f"{name} must be a single 2-D array here, got a list of arrays")
    if is_plain_float_matrix(X):  # the common case, without scikit-learn's ~100 µs of generic checks
        arr = np.array(X, copy=True) if copy else X
        n, d = arr.shape
        if n >= min_samples and d >= min_features:
            check_finite_rows(arr, name)
            return arr
    from sklearn.utils import check_array as _sk_check_array

    arr = _sk_check_array(X, dtype=np.float64, copy=copy, input_name=name, ensure_min_samples=0,
                          ensure_min_features=0, ensure_all_finite=False)
    n, d = arr.shape
    if n < min_samples:  # the argument's own name (a provider's array, say), and the allowed range
        raise ValueError(f"{name} must have at least {min_samples} sample(s), got {n} (shape={arr.shape})")
    if d < min_features:
        raise ValueError(f"{name} must have at least {min_features} feature(s), got {d} (shape={arr.shape})")
    check_finite_rows(arr, name)
    return arr


def is_plain_float_matrix(X):
    """True for a float64 numpy ndarray (not a subclass, not a memmap) with 2 dimensions and ≥ 1 column.

    For such input scikit-learn's ``check_array`` would only copy and check finiteness, so the
    validators here do exactly that themselves (same results, same messages) and save its generic
    overhead, which dominates small fits and every ``transform`` of the dashboards.
    """
    return type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[1] > 0


def check_finite_rows(arr, name="X"):
    """Raise a ValueError naming the first rows of a 2-D float array that hold NaN or infinity.

    Returns max|x_ij| (0 for an empty array), found by the same two passes (max and min, no
    temporary array), for :func:`power_of_two_scale`.
    """
    if arr.size == 0:
        return 0.0
    hi, lo = float(arr.max()), float(arr.min())
    if math.isfinite(hi) and math.isfinite(lo):
        return max(hi, -lo)
    finite = np.isfinite(arr)
    if not finite.all():
        bad = np.flatnonzero(~finite.all(axis=1))
        raise ValueError(
            f"Input {name} contains NaN or infinity: rows {bad[:5].tolist()}{'…' if bad.size > 5 else ''} "
            f"({bad.size} row(s) in all); only finite values are accepted"
        )


#: Largest / smallest accepted ``data_norm``: B² (every sensitivity here is a multiple of B or
#: B²) must stay a normal float64, far from overflow and underflow.
DATA_NORM_RANGE = (1e-100, 1e100)


def check_data_norm(data_norm, name="data_norm"):
    """The public row-norm bound B: a finite real in [1e-100, 1e100] (so B² is a normal float).

    Beyond that range the sensitivities (∝ B²) overflow to inf or underflow to 0 in float64, and
    every calibration downstream would fail with an unrelated error; rescale the data instead
    (every estimator here is equivariant under X → X/c with B → B/c).
    """
    value = check_positive(data_norm, name)
    lo, hi = DATA_NORM_RANGE
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}] (B² must be a finite, nonzero float64), got {value:g}; "
                         "rescale the data and the bound together")
    return value


def check_symmetric(A, name="A"):
    """A square, finite matrix as float64, symmetrised as (A + Aᵀ)/2 (a new array)."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square (d, d) matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must contain only finite values")
    return (A + A.T) / 2


def row_norms(X):
    """ℓ2 norm of every row of a finite 2-D float array, without overflow.

    The squared norm overflows to inf for entries beyond ~1e154; such rows are recomputed after
    dividing by their largest absolute entry (‖x‖ = m‖x/m‖), so the norm is right up to the
    largest float.
    """
    sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    bad = ~np.isfinite(sq)
    if bad.any():
        rows = X[bad]
        m = np.max(np.abs(rows), axis=1)
        with np.errstate(invalid="ignore"):  # a row holding NaN or inf keeps a NaN norm
            scaled = rows / m[:, None]
            norms[bad] = m * np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return norms


def power_of_two_scale(X, max_abs=None):
    """A power of two c near max|X| when X is so large or small that XᵀX would overflow or underflow; else 1.

    Estimators whose result does not depend on the scale of X (eigenvectors, spatial signs) work
    on X/c, which is exact (a power of two) and keeps every product finite and normal.
    ``max_abs`` (from :func:`check_finite_rows`) saves the two passes over X.
    """
    if max_abs is None:
        max_abs = max(float(X.max()), -float(X.min())) if X.size else 0.0  # no temporary array
    m = max_abs
    if m == 0.0 or 1e-100 <= m <= 1e100:
        return 1.0
    return float(2.0 ** np.frexp(m)[1])


def clip_rows(X, data_norm, *, name="X", warn=None, copy=True):
    """Scale every row of norm > ``data_norm`` down to norm ``data_norm``.

    ``data_norm`` is a *public* bound supplied by the user (the privacy proofs assume it);
    it is never estimated from the data.  Works on a copy, so the caller's array is never
    modified; ``copy=False`` is for callers that pass their *own* float64 copy (from
    :func:`check_data`) and saves a second copy of a large X.  NaN or infinity in X is refused
    (as :func:`check_finite_rows` does), found from the row norms at no extra pass over X.
    ``warn=None`` (the default, what the private estimators use) issues a :class:`PrivacyWarning`
    only inside :func:`diagnostics`: *whether* rows were clipped depends on the private data (one
    replaced row decides it), so by default nothing is said.  ``warn=True`` always warns (for the
    data holder's own use), ``False`` never.  The warning never says how many rows: that count
    changes when one record is replaced (the estimators never store it).

    Returns
    -------
    X_clipped : ndarray
        A new array.
    n_clipped : int
        How many rows were scaled down — the data holder's own diagnostic, computed from the
        private data: never part of a release.
    """
    data_norm = check_data_norm(data_norm)
    X = np.array(X, dtype=np.float64, copy=True) if copy else X
    norms = row_norms(X)
    largest = float(norms.max()) if norms.size else 0.0
    if not math.isfinite(largest):  # NaN/inf in X (row_norms itself never overflows; max propagates NaN)
        check_finite_rows(X, name)
    # A tiny relative slack so rows already normalised to the bound are not "clipped".
    bound = data_norm * (1 + 1e-12)
    if largest <= bound:  # the common case: one pass over the norms, nothing to scale
        return X, 0
    over = norms > bound  # at least one row: the largest norm is above the bound
    scale = np.ones_like(norms)
    scale[over] = data_norm / norms[over]
    # B/‖x‖ loses precision (subnormal) for ‖x‖ near the largest float: use B·(x/‖x‖) there
    tiny = scale < 1e-290
    scale[tiny] = 1.0
    X *= scale[:, None]  # in place, rows within the bound times 1.0 (no copy of the clipped rows)
    if tiny.any():
        X[tiny] = X[tiny] / norms[tiny][:, None] * data_norm
    if diagnostics_enabled() if warn is None else warn:
        warnings.warn(_clip_message(name, data_norm), PrivacyWarning, stacklevel=3)
    return X, int(over.sum())


def clip_provider_rows(parts, data_norm, *, copy=True, stacklevel=3, warn=None):
    """:func:`clip_rows` for each provider's array, with one warning for them all (``warn`` as there).

    Returns the list of clipped arrays and the total number of clipped rows (a diagnostic for
    the data holders, never released; the warning does not give it).  ``copy=False``
    only for arrays the caller owns (e.g. from :func:`check_data`).
    """
    clipped = [clip_rows(P, data_norm, warn=False, copy=copy) for P in parts]
    n_clipped = sum(c for _, c in clipped)
    if n_clipped and (diagnostics_enabled() if warn is None else warn):
        warnings.warn(_clip_message("the data", data_norm), PrivacyWarning, stacklevel=stacklevel)
    return [P for P, _ in clipped], n_clipped


def _clip_message(name, data_norm):
    return (f"some rows of {name} had norm > data_norm={data_norm:g} and were scaled down to it (the privacy "
            "guarantee assumes this bound; how many is not reported, since that count depends on the private data)")


_BLAS_CONTROLLER = []


@contextlib.contextmanager
def single_threaded_blas():
    """Limit BLAS/LAPACK to one thread inside the block.

    Iterative algorithms here (Gibbs sweeps, power iterations, ADMM) interleave many small
    BLAS calls with Python work.  Measured on the project's 2-core machines, OpenBLAS's thread
    wake-ups then make a 100×100 Gibbs sweep ~10× slower than one thread, and one thread is
    as fast as two even for an 800×800 ``eigh``.  Uses :mod:`threadpoolctl`; the controller
    (which inspects the loaded libraries — numpy's and scipy's OpenBLAS — and costs ~6 ms to
    build) is built once, after both are loaded, so entering the block costs ~6 µs.
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a declared dependency
        yield
        return
    if not _BLAS_CONTROLLER:
        import scipy.linalg  # noqa: F401  (make sure scipy's own BLAS is loaded and seen)

        _BLAS_CONTROLLER.append(ThreadpoolController())
    with _BLAS_CONTROLLER[0].limit(limits=1, user_api="blas"):
        yield


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_dirs():
    dirs = [_PACKAGE_DIR]
    sk = sys.modules.get("sklearn")
    if sk is not None and getattr(sk, "__file__", None):
        dirs.append(os.path.dirname(os.path.abspath(sk.__file__)) + os.sep)
    return tuple(dirs)


def caller_stacklevel():
    """``stacklevel`` for :func:`warnings.warn` that points at the user's line.

    Called by the function about to warn: counts the frames of this package (and of
    scikit-learn, whose ``fit_transform``, ``Pipeline`` or ``GridSearchCV`` may sit in between)
    up to the first frame outside them, so a warning names the line that called ``fit``, however
    deep in the package it was raised.
    """
    dirs = _library_dirs()
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(dirs):
        frame = frame.f_back
        level += 1
    return level
