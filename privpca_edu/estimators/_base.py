"""Shared machinery of all estimators: the scikit-learn contract (privacy records: privpca_edu.privacy.make_record)."""

from __future__ import annotations

import functools
import math
from numbers import Integral, Real

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions  # noqa: F401  (StrOptions: subclasses)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    DATA_NORM_RANGE,
    check_data,
    check_data_norm,
    check_finite_rows,
    is_plain_float_matrix,
    power_of_two_scale,
    check_delta,
    check_epsilon,
    check_n_components,
    clip_rows,
)
from ..privacy import make_record


def _real(low=0.0, high=None, closed="neither"):
    return Interval(Real, low, high, closed=closed)


#: Parameter constraints shared by the estimators (scikit-learn's declarative pattern, checked
#: once per ``fit`` by :meth:`PCABase._validate_fit_input`; the value checks of
#: :mod:`privpca_edu._validation` then give the numbers their exact meaning).
N_COMPONENTS = [Interval(Integral, 1, None, closed="left")]
EPSILON = [Interval(Real, 0, np.inf, closed="right")]  # inf: no noise
DELTA = [Interval(Real, 0, 1, closed="neither")]
DATA_NORM = [Interval(Real, DATA_NORM_RANGE[0], DATA_NORM_RANGE[1], closed="both")]
RANDOM_STATE = ["random_state", np.random.Generator, np.random.SeedSequence]
POSITIVE = [_real()]
NONNEGATIVE = [_real(closed="left")]
POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
BOOLEAN = ["boolean"]
#: ``accountant=``: None or a :class:`privpca_edu.privacy.BudgetAccountant` (anything with its two methods)
ACCOUNTANT = [None, HasMethods(["check_estimator", "spend_record"])]


_IMMUTABLE = (bool, int, float, str, type(None), np.integer, np.floating, np.bool_)


def _immutable_params_key(params):
    """A hashable key of the parameter values when all are immutable scalars or generator objects, else None."""
    key = []
    for name, value in params.items():
        if isinstance(value, _IMMUTABLE):
            key.append((name, type(value), value))
        elif isinstance(value, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
            key.append((name, type(value)))  # the constraint checks the type only
        else:
            return None
    return tuple(key)


class PCABase(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base scikit-learn estimator of every PCA here: validation, ``transform``, ``inverse_transform``.

    Subclasses store their constructor arguments unchanged, declare ``_parameter_constraints``
    and validate parameters and data once, at the start of ``fit``, through
    :meth:`_validate_fit_input` (``BaseEstimator._validate_params`` plus
    :func:`sklearn.utils.validation.validate_data` on a float64 copy, which also records
    ``n_features_in_``).  A refit first forgets every fitted attribute of the previous fit.
    """

    _parameter_constraints: dict = {"n_components": N_COMPONENTS}

    def _forget_fit(self):
        """Delete the attributes of an earlier fit (``messages_``, ``history_`` …), so none go stale."""
        for key in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, key)

    @classmethod
    def _get_param_names(cls):
        # scikit-learn reads the __init__ signature on every get_params (and so on every fit, in
        # _validate_params); it never changes for a class, so read it once per class.
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = super()._get_param_names()
            cls._param_names_cache = names
        return names

    def _validate_params(self):
        """scikit-learn's constraint check of the parameters, at most once per ``fit``.

        Skipped inside ``sklearn.config_context(skip_parameter_validation=True)``, scikit-learn's
        public switch (its own estimators honour it in ``fit``).  Without the switch, each class
        remembers the sets of immutable parameter values (numbers, strings, None; generators by
        their type, which is all the constraint looks at) it has accepted, and a fresh estimator
        with such a set (a loop of fits, ``clone``, a dashboard) is not checked again; anything
        mutable (an array, a list, an accountant) is checked every time.  Measured with
        ``benchmarks/bench_fit_overhead.py`` (n = 2000, d = 20, paired): the check costs ~57 µs
        with scikit-learn's own ``get_params`` (~15 % of an AnalyzeGauss fit), ~28 µs with the
        parameter names read once per class (~8 %), ~2 µs for a remembered set.  The switch
        saves the same, but only for callers that know to set it; the cache serves every fit.
        Whatever is skipped, the value checks of :mod:`privpca_edu._validation` (ε, δ,
        data_norm, n_components, the options) run in every fit and refuse a bad value by name.
        """
        if get_config()["skip_parameter_validation"]:
            return
        key = _immutable_params_key(self.get_params(deep=False))
        cls = type(self)
        accepted = cls.__dict__.get("_accepted_params")
        if key is not None and accepted is not None and key in accepted:
            return
        super()._validate_params()
        if key is not None:
            if accepted is None or len(accepted) >= 256:  # bounded: a sweep over many values
                accepted = set()
                cls._accepted_params = accepted
            accepted.add(key)

    def _validate_fit_input(self, X, *, min_samples=1, fitting=True, return_scale=False, check_params=True,
                            check_finite=True):
        """Check parameters (constraints) and X; return our own float64 copy of X.

        The one entry point of every ``fit``: parameters first (a wrong parameter is reported
        whatever X is), then X with scikit-learn's messages (complex, sparse, NaN/inf, empty,
        too few samples), recording ``n_features_in_``.  ``fitting=False`` (audit helpers such
        as ``release_parts``) checks the same things but leaves a fitted estimator as it is.
        ``return_scale=True`` also returns :func:`~privpca_edu._validation.power_of_two_scale` of X
        (from the finiteness check's own max/min: no extra pass; never stored).
        ``check_params=False``: the caller has just run :meth:`_validate_params` (not twice per fit);
        ``check_finite=False``: the caller checks finiteness in its own next pass over X
        (:func:`~privpca_edu._validation.clip_rows` does, from the row norms it needs anyway).
        """
        if check_params and not getattr(self, "_accounting_active", False):  # the accountant's wrapper checked
            self._validate_params()
        if not fitting:
            X = check_data(X, min_samples=min_samples)
            return (X, power_of_two_scale(X)) if return_scale else X
        self._forget_fit()
        if is_plain_float_matrix(X) and X.shape[0] >= min_samples:
            # what validate_data does for a float64 ndarray (no feature names), without its overhead
            X = np.array(X, copy=True)
            self.n_features_in_ = X.shape[1]
        else:
            X = validate_data(self, X, dtype=np.float64, copy=True, ensure_min_samples=min_samples,
                              ensure_all_finite=False)
        if not check_finite:
            return X
        max_abs = check_finite_rows(X)
        return (X, power_of_two_scale(X, max_abs)) if return_scale else X

    def _check_transform_input(self, X):
        check_is_fitted(self)
        if is_plain_float_matrix(X) and X.shape[0] > 0 and not hasattr(self, "feature_names_in_"):
            if X.shape[1] != self.n_features_in_:  # scikit-learn's wording
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input.")
            check_finite_rows(X)
            return X
        return validate_data(self, X, dtype=np.float64, reset=False)

    @property
    def _n_features_out(self):  # for get_feature_names_out: pca0, pca1, …
        return self.components_.shape[0]

    def transform(self, X):
        """Project X onto the fitted components: ``(X - mean_) @ components_.T``.

        Private estimators work with the uncentred second moment, so ``mean_`` is 0 for them.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            The rows to project (finite, with the features seen in ``fit``).

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
            The scores: the coordinates of each row on the fitted components.
        """
        X = self._check_transform_input(X)
        return (X - getattr(self, "mean_", 0.0)) @ self.components_.T

    def inverse_transform(self, X):
        """Map scores (n, k) back to the data space: ``X @ components_ + mean_``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_components_)
            Scores, as :meth:`transform` returns them.

        Returns
        -------
        ndarray of shape (n_samples, n_features_in_)
            The points of the fitted subspace (shifted by ``mean_``) with these scores.
        """
        check_is_fitted(self)
        Z = check_data(X, "X")
        k = self.components_.shape[0]
        if Z.shape[1] != k:
            raise ValueError(f"X has {Z.shape[1]} features (scores), but {type(self).__name__}.inverse_transform "
                             f"is expecting {k} (n_components_)")
        return Z @ self.components_ + getattr(self, "mean_", 0.0)

    #: True for estimators whose fit keeps a spectrum (``explained_variance_``, ``noise_variance_``):
    #: they have :meth:`score` as scikit-learn's PCA, so ``GridSearchCV`` needs no scorer.
    _has_spectrum = False

    def _spectrum_from(self, matrix, values):
        """``explained_variance_ratio_`` and ``noise_variance_`` from the decomposed (released) matrix.

        Post-processing only: the trace of the matrix whose top eigenvalues are ``values``.
        """
        trace = float(np.trace(matrix))
        d, k = matrix.shape[0], len(values)
        self.explained_variance_ratio_ = values / trace if trace > 0 else np.zeros_like(values)
        self.noise_variance_ = float((trace - values.sum()) / (d - k)) if d > k else 0.0

    @available_if(lambda self: self._has_spectrum)
    def get_covariance(self):
        r"""The model covariance :math:`C^\top \mathrm{diag}(\lambda - \sigma^2) C + \sigma^2 I` (probabilistic PCA).

        As :meth:`sklearn.decomposition.PCA.get_covariance`, from ``components_`` C,
        ``explained_variance_`` λ and ``noise_variance_`` σ² (each λ − σ² floored at 0, and σ² at
        a tiny positive number: a noisy release can make them negative).
        """
        check_is_fitted(self)
        C = self.components_
        values = np.asarray(self.explained_variance_, dtype=float)
        scale = max(float(np.max(np.abs(values), initial=0.0)), np.finfo(float).tiny)
        s2 = max(float(self.noise_variance_), scale * 1e-12)
        return (C.T * np.maximum(values - s2, 0.0)) @ C + s2 * np.eye(C.shape[1])

    @available_if(lambda self: self._has_spectrum)
    def score_samples(self, X):
        """Log-likelihood of each row under the fitted probabilistic PCA model (as scikit-learn's PCA).

        Reads X: scoring private data this way (cross-validation) is not itself private.
        """
        X = self._check_transform_input(X)
        Xr = X - getattr(self, "mean_", 0.0)
        cov = self.get_covariance()
        chol = np.linalg.cholesky(cov)
        z = np.linalg.solve(chol, Xr.T)
        logdet = 2.0 * np.log(np.diag(chol)).sum()
        d = X.shape[1]
        return -0.5 * (np.sum(z * z, axis=0) + d * np.log(2 * np.pi) + logdet)

    @available_if(lambda self: self._has_spectrum)
    def score(self, X, y=None):
        """Average log-likelihood of the rows of X (scikit-learn's ``PCA.score``): ``GridSearchCV`` uses it."""
        return float(np.mean(self.score_samples(X)))

    def _set_components(self, basis):
        """Store a (d, k) orthonormal basis as sklearn-style ``components_`` (k, d)."""
        self.components_ = np.ascontiguousarray(basis.T)
        self.n_components_ = basis.shape[1]
        self.n_features_in_ = basis.shape[0]


def _accounted(fit):
    """Wrap a releasing method (``fit``) so that ``accountant=`` is asked first and charged after.

    Before ``fit`` runs (so before any noise is drawn), the parameters are validated and the
    accountant refuses, with :class:`~privpca_edu.privacy.BudgetExceededError`, a release that
    would exceed its budget; after it, the accountant is charged the record ``privacy_``.  Nested
    calls (a subclass's ``fit`` calling ``super().fit``) are charged once.
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        accountant = getattr(self, "accountant", None)
        if accountant is None or getattr(self, "_accounting_active", False):
            return fit(self, *args, **kwargs)
        self._validate_params()
        accountant.check_estimator(self)
        self._accounting_active = True
        try:
            out = fit(self, *args, **kwargs)
        finally:
            self._accounting_active = False
        accountant.spend_record(self.privacy_, label=type(self).__name__)
        return out

    wrapper._accounted = True
    return wrapper


class PrivateEstimator(PCABase):
    """Validation shared by every private estimator (ε, δ, data_norm, k, X, clipping), and the accountant.

    ``accountant=`` (every private estimator has it): a
    :class:`~privpca_edu.privacy.BudgetAccountant` that each ``fit`` (and
    ``fit_second_moment``) asks before drawing any noise and charges with ``privacy_`` after;
    subclasses only list the parameter (the wrapping is done here, in ``__init_subclass__``).
    """

    privacy_model = "central"
    neighbouring = "replace-one"
    requires_delta = True
    #: True when all the noise is Gaussian (its releases are listed in the record): an accountant
    #: then prices a planned (ε, δ) fit as a Gaussian-DP release (exact under "gdp" composition).
    gaussian_noise = True
    _parameter_constraints: dict = {
        **PCABase._parameter_constraints, "epsilon": EPSILON, "delta": DELTA, "data_norm": DATA_NORM,
        "random_state": RANDOM_STATE, "accountant": ACCOUNTANT,
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("fit", "fit_second_moment"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_accounted", False):
                setattr(cls, name, _accounted(method))

    def _validate_privacy(self):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta) if self.requires_delta else float(self.delta)
        data_norm = check_data_norm(self.data_norm)
        return epsilon, delta, data_norm

    def _prepare(self, X, *, fitting=False, min_samples=1):
        """Validate parameters and X (once), clip rows to ``data_norm`` (on a private copy of X; warns only inside privacy.diagnostics()).

        ``fitting=True`` from ``fit`` (forgets the previous fit, records ``n_features_in_``).
        The number of clipped rows is not stored: it depends on the private data.
        """
        X = self._validate_fit_input(X, min_samples=min_samples, fitting=fitting, check_finite=False)
        epsilon, delta, data_norm = self._validate_privacy()
        k = check_n_components(self.n_components, X.shape[1])
        # in place on the fit's own copy; refuses NaN/inf from the row norms; warns only inside privacy.diagnostics()
        X, _ = clip_rows(X, data_norm, copy=False)
        self.n_samples_ = X.shape[0]
        if fitting:
            # ε = ∞ (no noise): the fit works on X/c, c a power of two near max|x| (exact), when XᵀX
            # would underflow or overflow (X·1e-200 gave a random subspace); see _unscale.
            self._no_noise_scale = power_of_two_scale(X) if math.isinf(epsilon) else 1.0
            if self._no_noise_scale != 1.0:
                X /= self._no_noise_scale
        return X, k, epsilon, delta, data_norm

    def _unscale(self, *names):
        """Multiply the named second-moment attributes by c² after a no-noise fit on X/c (see _prepare)."""
        c = getattr(self, "_no_noise_scale", 1.0)
        if c != 1.0:
            with np.errstate(over="ignore", under="ignore"):  # c²·λ may be beyond float64: that is its value
                for name in names:
                    if hasattr(self, name):
                        setattr(self, name, getattr(self, name) * (c * c))

    def _validate_fit_providers(self, X, *, check_finite=True):
        """``fit`` input of the distributed estimators: one array, or a list of providers' arrays.

        Providers are recognised only as a non-empty list (or tuple) of 2-D numpy arrays; anything
        else (a list of lists, say) is one data set, validated like any X.  Returns a list of our
        own float64 copies, all with the same number of features (``n_features_in_``).  ``check_finite=False``
        for a caller that clips the single array whole next (:func:`~privpca_edu._validation.clip_provider_rows`
        refuses NaN/inf, naming the rows): X is not scanned twice.
        """
        if isinstance(X, (list, tuple)) and len(X) == 0:
            self._validate_params()
            raise ValueError("X is empty: pass a 2-D array, or a list of 2-D numpy arrays (at least one provider)")
        if not is_provider_list(X):
            return [self._validate_fit_input(X, check_finite=check_finite)]
        self._validate_params()
        self._forget_fit()
        parts = [check_data(P, name=f"X[{i}]") for i, P in enumerate(X)]
        dims = [p.shape[1] for p in parts]
        if len(set(dims)) > 1:
            raise ValueError(f"every provider in X must have the same number of features; got {dims} per provider")
        self.n_features_in_ = dims[0]
        return parts

    def _record(self, **fields):
        fields.setdefault("model", self.privacy_model)
        fields.setdefault("neighbouring", self.neighbouring)
        self.privacy_ = make_record(**fields)
        return self.privacy_


def is_provider_list(X):
    """True for a non-empty list/tuple of 2-D numpy arrays (the providers of a distributed fit).

    Any item with ``ndim == 2`` and a ``shape`` counts as a 2-D array (a pandas DataFrame, say).

    A list mixing 2-D arrays with anything else is refused (ambiguous); a list of lists or of
    1-D arrays is *not* a provider list: it is one data set, row by row.
    """
    if not isinstance(X, (list, tuple)) or len(X) == 0:
        return False
    # 2-D arrays and 2-D array-likes with a shape (a pandas DataFrame per provider)
    two_d = [getattr(P, "ndim", None) == 2 and hasattr(P, "shape") for P in X]
    if any(two_d) and not all(two_d):
        raise TypeError("X mixes 2-D arrays with other items: pass one 2-D array, or a list of 2-D numpy arrays "
                        "(one per provider)")
    return all(two_d)
