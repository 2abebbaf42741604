"""Shared machinery of all estimators: the scikit-learn contract and the privacy record."""

from __future__ import annotations

import inspect
import math
from dataclasses import asdict, dataclass

import numpy as np

from .._validation import check_array, check_delta, check_epsilon, check_n_components, check_positive, clip_rows


@dataclass(frozen=True)
class PrivacyRecord:
    """What a fitted private estimator promises, and on what assumptions.

    Attributes
    ----------
    model : {"central", "local", "distributed"}
        Who is trusted: a curator (central), nobody (local: each user randomises their own
        record), or no single server (distributed: each provider adds its own noise).
    epsilon, delta : float
        The guarantee for the whole release (``inf`` means no privacy).
    neighbouring : str
        The neighbouring relation the guarantee is proved for ("replace-one").
    data_norm : float
        The public row-norm bound the proof assumes (rows above it were scaled down).
    mechanism : str
        Short name of the mechanism (e.g. "Gaussian mechanism on X^T X / n").
    calibration : str
        How σ was computed ("classic", "analytic", "paper", …).
    sensitivity : float or None
        ℓ2 sensitivity in the coordinates the noise is added in (None for samplers).
    noise_scale : float or None
        The noise standard deviation used (None for samplers).
    is_private : bool
        True only when the noise actually used provably gives (ε, δ): every record with
        Gaussian noise is checked exactly by :func:`privpca_edu.privacy.check_gaussian_guarantee`
        (one shared place).  False when that check fails, when the calibration or the pipeline
        is known not to be private (a paper's constant kept for reproduction, data-dependent
        scaling), or when ε = inf.
    note : str
        Anything the user must know (e.g. "not differentially private: …").
    n_releases : int
        How many times a Gaussian release of this sensitivity and noise scale was made (the T
        adaptive steps of an iterative method; 1 for a one-shot mechanism).
    releases : tuple of (sensitivity, noise_scale, count)
        Every Gaussian release computed from the private data, as checked; empty for
        mechanisms that add no Gaussian noise (samplers).
    exact_delta : float or None
        The exact δ at ε of all Gaussian releases together (Gaussian DP; None without any).
    """

    model: str
    epsilon: float
    delta: float
    neighbouring: str
    data_norm: float | None
    mechanism: str
    calibration: str
    sensitivity: float | None = None
    noise_scale: float | None = None
    is_private: bool = True
    note: str = ""
    n_releases: int = 1
    releases: tuple = ()
    exact_delta: float | None = None

    def __getitem__(self, key):  # dict-style access for convenience in notebooks
        return asdict(self)[key]

    def as_dict(self):
        return asdict(self)


class BaseEstimator:
    """Minimal scikit-learn style base: ``get_params``/``set_params`` and a readable repr.

    Subclasses store their constructor arguments unchanged and validate them in ``fit``.
    """

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self" and not p.startswith("_")]

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, key, value)
        return self

    def __repr__(self):
        defaults = {
            name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        shown = []
        for name, value in self.get_params().items():
            default = defaults.get(name, inspect.Parameter.empty)
            same = value is default or (
                isinstance(value, (int, float, str, bool, type(None))) and value == default
            )
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


class PCABase(BaseEstimator):
    """transform / fit_transform / inverse_transform for any estimator with ``components_``."""

    def _check_fitted(self):
        if not hasattr(self, "components_"):
            raise AttributeError(f"this {type(self).__name__} is not fitted yet; call fit(X) first")

    def _check_transform_input(self, X):
        self._check_fitted()
        X = check_array(X, copy=False)
        if X.shape[1] != self.components_.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                f"{self.components_.shape[1]}"
            )
        return X

    def transform(self, X):
        """Project X onto the fitted components: ``(X - mean_) @ components_.T``.

        Private estimators work with the uncentred second moment, so ``mean_`` is 0 for them.
        """
        X = self._check_transform_input(X)
        return (X - getattr(self, "mean_", 0.0)) @ self.components_.T

    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)

    def inverse_transform(self, Z):
        self._check_fitted()
        Z = np.asarray(Z, dtype=np.float64)
        return Z @ self.components_ + getattr(self, "mean_", 0.0)

    def _set_components(self, basis):
        """Store a (d, k) orthonormal basis as sklearn-style ``components_`` (k, d)."""
        self.components_ = np.ascontiguousarray(basis.T)
        self.n_components_ = basis.shape[1]
        self.n_features_in_ = basis.shape[0]


class PrivateEstimator(PCABase):
    """Validation shared by every private estimator (ε, δ, data_norm, k, X, clipping)."""

    privacy_model = "central"
    neighbouring = "replace-one"
    requires_delta = True

    def _validate_privacy(self):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta) if self.requires_delta else float(self.delta)
        data_norm = check_positive(self.data_norm, "data_norm")
        return epsilon, delta, data_norm

    def _prepare(self, X):
        """Validate X and k, clip rows to ``data_norm`` (on a copy; warns that clipping happened).

        The number of clipped rows is not stored: it depends on the private data.
        """
        epsilon, delta, data_norm = self._validate_privacy()
        X = check_array(X)  # our own copy: clipping may work in place
        k = check_n_components(self.n_components, X.shape[1])
        X, _ = clip_rows(X, data_norm, warn=True, copy=False)
        self.n_samples_ = X.shape[0]
        return X, k, epsilon, delta, data_norm

    def _record(self, **fields):
        fields.setdefault("model", self.privacy_model)
        fields.setdefault("neighbouring", self.neighbouring)
        self.privacy_ = make_record(**fields)
        return self.privacy_


def make_record(**fields):
    """Build a :class:`PrivacyRecord`, checking every Gaussian release exactly.

    ``releases`` (a sequence of (Δ, σ, count)) defaults to one entry
    ``(sensitivity, noise_scale, n_releases)`` when both are given; pass ``releases=()`` for a
    mechanism that adds no Gaussian noise (a sampler).  Whatever the caller
    claims, ``is_private`` ends up True only if
    :func:`privpca_edu.privacy.check_gaussian_guarantee` confirms (ε, δ) for the noise
    actually used; otherwise the record says not private and the note says why.
    """
    from ..privacy import check_gaussian_guarantee

    n_rel = int(fields.setdefault("n_releases", 1))
    releases = fields.get("releases")
    if releases is None:
        sens, sigma = fields.get("sensitivity"), fields.get("noise_scale")
        releases = ((float(sens), float(sigma), n_rel),) if sens is not None and sigma is not None else ()
    fields["releases"] = tuple(tuple(r) if len(r) == 3 else (*r, 1) for r in releases)
    notes = [fields["note"]] if fields.get("note") else []
    if math.isinf(fields["epsilon"]):
        fields["is_private"] = False
        fields["releases"] = ()
        if not notes:
            notes.append("epsilon=inf: no noise, not differentially private")
        fields["exact_delta"] = None
    elif fields["releases"]:
        g = check_gaussian_guarantee(fields["epsilon"], fields["delta"], fields["releases"])
        fields["exact_delta"] = g.exact_delta
        if not g.holds and fields.get("is_private", True):
            fields["is_private"] = False
            notes.insert(0, g.note)
    fields["note"] = "; ".join(notes)
    return PrivacyRecord(**fields)

