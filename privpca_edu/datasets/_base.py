"""The container every generator returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class SyntheticData:
    """A generated data set with its ground truth.

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features)
        The data, one record per row.
    components : ndarray, shape (n_components, n_features)
        Orthonormal basis of the true leading subspace, one direction per **row** (the
        orientation of an estimator's ``components_``, as in scikit-learn); the target of every
        estimator.
    covariance : ndarray or None, shape (n_features, n_features)
        Population covariance (second moment) of the generating law, where defined.
    eigenvalues : ndarray or None
        Its eigenvalues, ordered as the columns of the full eigenbasis (leading first).
    support : ndarray or None
        Indices of the nonzero columns of ``components`` (sparse models): the coordinates the
        true directions live on.
    info : dict
        Generator arguments and anything else worth recording (scaling used, …).
    """

    X: np.ndarray
    components: np.ndarray
    covariance: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    support: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def n_samples(self):
        """The number of records n (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self):
        """The dimension d (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def n_components(self):
        """The dimension k of the true subspace (rows of ``components``)."""
        return self.components.shape[0]

    def __repr__(self):  # keep notebook output short: no array dumps
        return (
            f"{type(self).__name__}(X: {self.X.shape}, components: {self.components.shape}, "
            f"info={self.info})"
        )
