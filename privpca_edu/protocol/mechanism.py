r"""The differential-privacy half of DPDPCA, in plaintext: shares, sensitivity, σ and the noise.

The encrypted protocol (:mod:`.parties`, :func:`~privpca_edu.protocol.run_dpdpca`) and the
plaintext twin :class:`PlaintextDPDPCA` call the *same* functions here, so the mechanism the
audits test with 20 000 cheap plaintext draws is the mechanism the encrypted run applies (the
test suite checks that the encrypted run decrypts to exactly ``S + protocol_noise(...)``).

What is released
----------------
The data user ends up with :math:`S' = S + G'`, where

.. math:: S = R - \tfrac1N vv^\top = \sum_i (x_i-\mu)(x_i-\mu)^\top,\qquad
          R = \sum_l (X^l)^\top X^l,\quad v = \sum_l (X^l)^\top\mathbf 1,\quad N = \sum_l N^l

is the centred scatter matrix of the pooled rows and :math:`G'` is symmetric Gaussian noise with
i.i.d. :math:`N(0,\sigma^2)` entries on and above the diagonal (``"upper_iid"``, the paper's
Algorithm 2).  The noise may be added by the proxy (the paper) or split into shares of variance
:math:`\sigma^2/L` that the L owners add before encrypting (``noise_by="owners"``); either way the
total is the same :math:`N(0,\sigma^2)` per entry.  The data user also receives the masked
column sum :math:`v' = v + b`, a second Gaussian release (of v, sensitivity 2B, noise β): the
encrypted run's privacy record composes the two, and with ``calibration="analytic"`` σ is
calibrated for the pair (:func:`dpdpca_noise_scale`, ``mask_mu``).

Sensitivity (replace-one; N is public)
--------------------------------------
The protocol reveals N to the proxy and the data user, so the neighbouring relation must keep N
fixed: **replace one record** (under add/remove, revealing the exact N would by itself tell the
two data sets apart).  Let the N − 1 common rows have mean m and replace x by y (all norms ≤ B).
Then with :math:`a = x - m`, :math:`b = y - m`,

.. math:: S_D - S_{D'} = \tfrac{N-1}{N}\,(aa^\top - bb^\top).

Its largest value is reached with the common rows at :math:`-Be_1`, x = :math:`Be_1`, y = the
common row: :math:`\tfrac{N-1}{N}\cdot 4B^2 e_1e_1^\top` (:func:`centred_worst_case_pair`).
We use :math:`\Delta = 4B^2` (:func:`dpdpca_sensitivity`), the corrected value.  For
add/remove neighbours the change is :math:`\tfrac{N}{N+1}(x-\mu)(x-\mu)^\top`, of norm
:math:`\tfrac{N}{N+1}\lVert x-\mu\rVert^2 < 4B^2`;
for replace-one a numerical maximisation of :math:`\lVert aa^\top - bb^\top\rVert_F` over
x, y, m in the ball (random restarts in d = 2, 3, 4, 300 each) found 4B² and nothing above it,
and the trivial bound is only :math:`3\sqrt3\,B^2 \approx 5.2B^2`
(:math:`\lVert aa^\top-bb^\top\rVert_F \le \lVert a-b\rVert\,\lVert a+b\rVert`) — **[our
analysis, numerical]**.  An independent check that optimised over whole data sets (N = 2…50,
d = 2, 3) found the maximum of ‖S_D − S_D′‖_F to be exactly 4B²(N − 1)/N, attained by the pair
above.  The noise coordinates (upper triangle once) have norm at most the
Frobenius norm, so Δ bounds the sensitivity there too.

The paper's Δ = 1 is Analyze Gauss's value for the *uncentred* :math:`A^\top A` under add/remove;
for the centred matrix it is too small by a factor of about 4, so ``calibration="paper"`` is kept
for reproduction only and is not differentially private.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import (
    PrivacyWarning,
    check_data,
    check_delta,
    check_epsilon,
    check_int,
    check_option,
    check_positive,
    as_generator,
    clip_rows,
)
from ..estimators.covariance import ReleaseParts
from ..privacy import (
    DPDPCA_CALIBRATIONS,
    dpdpca_noise_scale,
    dpdpca_sensitivity,
    symmetric_noise,
)

#: σ calibrations of the protocol: name → description (:data:`privpca_edu.privacy.DPDPCA_CALIBRATIONS`).
CALIBRATIONS = DPDPCA_CALIBRATIONS

__all__ = [
    "CALIBRATIONS",
    "NOISE_BY",
    "owner_shares",
    "centred_scatter",
    "upper_indices",
    "default_mask_scale",
    "paper_calibration_note",
    "protocol_noise",
    "centred_worst_case_pair",
    "PlaintextDPDPCA",
]


#: Who adds the Gaussian noise.
NOISE_BY = {
    "proxy": "the proxy adds all of G' under encryption (the paper's Algorithm 1)",
    "owners": "each of the L owners adds an independent share with variance σ²/L before encrypting",
}

_PAPER_NOTE = (
    "not differentially private: calibration='paper' uses the paper's sensitivity 1 (valid for the "
    "uncentred A^T A under add/remove), but the centred scatter matrix the protocol releases has "
    "sensitivity up to 4 B^2"
)


def paper_calibration_note():
    """The text of the warning (and of ``privacy_.note``) for ``calibration="paper"``."""
    return _PAPER_NOTE


def upper_indices(n_features):
    """Row and column indices of the upper triangle (diagonal included), row-major: what travels."""
    return np.triu_indices(check_int(n_features, "n_features", low=1))


def owner_shares(X):
    """Compute an owner's plaintext share ``(R, v, N)`` = (XᵀX, Xᵀ1, number of rows).

    Parameters
    ----------
    X : array_like, shape (N, d)
        The owner's rows.

    Returns
    -------
    R : ndarray, shape (d, d)
        XᵀX.
    v : ndarray, shape (d,)
        Xᵀ1, the column sums.
    N : int
        The number of rows.
    """
    X = np.asarray(X, dtype=np.float64)
    return X.T @ X, X.sum(axis=0), int(X.shape[0])


def centred_scatter(R, v, N):
    """Compute S = R − vvᵀ/N, the centred scatter matrix from aggregated shares.

    Parameters
    ----------
    R : array_like, shape (d, d)
        The summed XᵀX.
    v : array_like, shape (d,)
        The summed column sums.
    N : int
        The total number of rows.

    Returns
    -------
    ndarray, shape (d, d)
        The centred scatter S.
    """
    v = np.asarray(v, dtype=np.float64)
    return np.asarray(R, dtype=np.float64) - np.outer(v, v) / N


def default_mask_scale(n_samples, data_norm=1.0):
    """Compute the proxy's default mask scale β = 1000·N·B (a thousand times the largest possible |vᵢ| ≤ NB).

    Parameters
    ----------
    n_samples : int
        The total number of rows N >= 1.
    data_norm : float, default=1.0
        The public row-norm bound B.

    Returns
    -------
    float
        The mask scale β.
    """
    return 1000.0 * check_int(n_samples, "n_samples", low=1) * check_positive(data_norm, "data_norm")


def _warn_paper(stacklevel=3):
    warnings.warn(_PAPER_NOTE, PrivacyWarning, stacklevel=stacklevel)


def protocol_noise(n_features, noise_scale, n_owners=1, noise_by="proxy", *, size=None, random_state=None):
    """Draw the Gaussian noise shares of one DPDPCA release: THE noise sampler of the protocol.

    Returns shape ``(n_shares, d, d)`` (or ``(size, n_shares, d, d)``): one share for the proxy
    (``noise_by="proxy"``, n_shares = 1, σ) or one per owner (``"owners"``, n_shares = L, each
    σ/√L).  Every share is exactly symmetric with i.i.d. entries on and above the diagonal
    (:func:`privpca_edu.privacy.symmetric_noise`, ``"upper_iid"``), so the sum over shares has
    variance σ² per entry however the noise is split.  :func:`~privpca_edu.protocol.run_dpdpca`
    draws its noise by calling this function with its own ``random_state``: the same seed gives
    the same G′ here and there.

    Parameters
    ----------
    n_features : int
        Dimension d.
    noise_scale : float
        The total σ of each entry of G′.
    n_owners : int, default=1
        Number of owners L.
    noise_by : {"proxy", "owners"}, default="proxy"
        One share of σ, or L shares of σ/√L.
    size : int or tuple of int, optional
        Draw this many independent releases' shares.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator.

    Returns
    -------
    ndarray, shape (n_shares, d, d) or (*size, n_shares, d, d)
        The shares.
    """
    d = check_int(n_features, "n_features", low=1)
    sigma = check_positive(noise_scale, "noise_scale", allow_zero=True)
    L = check_int(n_owners, "n_owners", low=1)
    check_option(noise_by, "noise_by", tuple(NOISE_BY))
    n_shares = L if noise_by == "owners" else 1
    batch = (n_shares,) if size is None else (*np.atleast_1d(size).tolist(), n_shares)
    return symmetric_noise(d, sigma / math.sqrt(n_shares), convention="upper_iid", size=batch,
                           random_state=random_state)


def centred_worst_case_pair(n_samples, n_features, data_norm=1.0):
    """Build replace-one neighbours attaining the centred-scatter sensitivity.

    X: N − 1 rows at −B·e₁ and one row at +B·e₁; X′: all N rows at −B·e₁ (the last record
    replaced by a copy of the others).  :math:`S_X - S_{X'} = \\tfrac{N-1}{N}\\,4B^2 e_1e_1^\\top`,
    Frobenius norm 4B²(N−1)/N.  (The audit module's :func:`~privpca_edu.audit.worst_case_pair`,
    an orthogonal swap, is worst for the *uncentred* XᵀX but reaches only 2B²(N−1)/N here.)

    Parameters
    ----------
    n_samples : int
        Number of rows N >= 2.
    n_features : int
        Dimension d >= 1.
    data_norm : float, default=1.0
        The row norm B.

    Returns
    -------
    X : ndarray, shape (n_samples, n_features)
        The first data set.
    X_prime : ndarray, shape (n_samples, n_features)
        Its neighbour.
    """
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=1)
    B = check_positive(data_norm, "data_norm")
    X_prime = np.zeros((n, d))
    X_prime[:, 0] = -B
    X = X_prime.copy()
    X[-1, 0] = B
    return X, X_prime


class PlaintextDPDPCA:
    r"""DPDPCA's release without the encryption: :math:`S(X) + \sum_{\text{shares}} G'_s`.

    The noise comes from :func:`protocol_noise`, exactly as in the encrypted run, and the
    statistic from :func:`owner_shares` / :func:`centred_scatter`, the owners' and data user's
    arithmetic; only the Paillier layer (which changes nothing but the rounding to the grid
    2⁻¹⁰⁴·B² and to the noise's last double-precision digit) is skipped.  It releases S′ only:
    the encrypted run also gives the data user v′ = v + b, which its record composes in.  It has the ``release_parts`` / ``sample_releases`` interface of
    :class:`~privpca_edu.estimators.covariance.NoisyMatrixMechanism`, so the audit recipes
    (:func:`privpca_edu.audit.audit_release_gdp`) run on it unchanged, and the experiments use
    it for sweeps over many ε and seeds.

    Parameters
    ----------
    n_components : int
        Number of components k.
    epsilon, delta : float, default=0.5 and 1e-5
        The (ε, δ) of the release.
    n_owners : int, default 1
        A single array passed to ``release_parts``/``sample_releases`` is split into this many
        contiguous blocks (``numpy.array_split``); a list of arrays is used as given.
    data_norm : float, default 1.0
        Public bound B on the rows' norms.
    calibration : {"classic", "analytic", "paper"}, default="classic"
        As :func:`~privpca_edu.protocol.run_dpdpca` (``"paper"`` is not private).
    noise_by : {"proxy", "owners"}, default="proxy"
        Who adds the noise, as :func:`~privpca_edu.protocol.run_dpdpca`.
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    """

    privacy_model = "distributed"

    def __init__(self, n_components=1, *, epsilon=0.5, delta=1e-5, n_owners=1, data_norm=1.0, calibration="classic",
                 noise_by="proxy", random_state=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.n_owners = n_owners
        self.data_norm = data_norm
        self.calibration = calibration
        self.noise_by = noise_by
        self.random_state = random_state

    def _owners(self, X):
        if isinstance(X, (list, tuple)):
            return [check_data(P, name=f"owner_datasets[{i}]") for i, P in enumerate(X)]
        X = check_data(X)
        L = check_int(self.n_owners, "n_owners", low=1, high=X.shape[0])
        return list(np.array_split(X, L))

    def _scatter(self, owners):
        data_norm = check_positive(self.data_norm, "data_norm")
        total_R, total_v, total_N = 0.0, 0.0, 0
        for P in owners:
            P, _ = clip_rows(P, data_norm, warn=False)
            R, v, N = owner_shares(P)
            total_R, total_v, total_N = total_R + R, total_v + v, total_N + N
        return centred_scatter(total_R, total_v, total_N)

    def release_parts(self, X):
        """Compute S(X), Δ and σ (no noise): **not private**, for audits and teaching.

        Parameters
        ----------
        X : array_like of shape (N, d), or list of such arrays
            The data: one array (split into ``n_owners`` blocks) or one array per owner.

        Returns
        -------
        ReleaseParts
            The centred scatter S(X), Δ and σ (**not private**).
        """
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        check_option(self.noise_by, "noise_by", tuple(NOISE_BY))
        owners = self._owners(X)
        sens = dpdpca_sensitivity(self.data_norm, self.calibration)
        sigma = dpdpca_noise_scale(epsilon, delta, self.data_norm, self.calibration)
        if self.calibration == "paper":
            _warn_paper()
        return ReleaseParts(self._scatter(owners), sens, sigma, "upper_iid")

    def sample_releases(self, X, n_draws, random_state=None):
        """Draw ``n_draws`` independent releases S + Σ shares for the same data.

        Parameters
        ----------
        X : array_like of shape (N, d), or list of such arrays
            The data: one array (split into ``n_owners`` blocks) or one array per owner.
        n_draws : int
            Number of releases, >= 1.
        random_state : None, int or numpy.random.Generator, default=None
            Seed or generator of the noise.

        Returns
        -------
        ndarray, shape (n_draws, d, d)
            The releases.
        """
        n_draws = check_int(n_draws, "n_draws", low=1)
        parts = self.release_parts(X)
        L = len(self._owners(X))
        shares = protocol_noise(parts.statistic.shape[0], parts.noise_scale, L, self.noise_by, size=n_draws,
                                random_state=random_state)
        return parts.statistic + shares.sum(axis=1)

    def release(self, X, random_state=None):
        """Draw one release S + G′ of shape (d, d).

        The noise is what :func:`~privpca_edu.protocol.run_dpdpca` would draw for the same
        ``random_state``.

        Parameters
        ----------
        X : array_like of shape (N, d), or list of such arrays
            The data: one array (split into ``n_owners`` blocks) or one array per owner.
        random_state : None, int or numpy.random.Generator, default=None
            Seed or generator of the noise.

        Returns
        -------
        ndarray, shape (d, d)
            The release S′.
        """
        parts = self.release_parts(X)
        L = len(self._owners(X))
        rng = as_generator(self.random_state if random_state is None else random_state)
        return parts.statistic + protocol_noise(parts.statistic.shape[0], parts.noise_scale, L, self.noise_by,
                                                random_state=rng).sum(axis=0)
