r"""End-to-end DPDPCA: :func:`run_dpdpca` and its two phases.

Phase 1, :func:`encrypt_and_aggregate` — the expensive, ε-independent part: the data user makes
the key pair, every owner encrypts its share, the proxy aggregates the ciphertexts and learns N.
Phase 2, :meth:`EncryptedAggregate.release` — the cheap part: the proxy masks, corrects and adds
the noise under encryption, the data user decrypts and takes eigenvectors.

:func:`run_dpdpca` runs both.  The split exists for teaching: a dashboard can keep phase 1 (which
holds only ciphertexts and the public count N — nothing a real proxy would not hold) and redo
phase 2 when ε moves.  In a real deployment every call of ``release`` is a new differentially
private release, and the privacy losses of all of them add up (composition).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    PrivacyWarning,
    check_array,
    check_delta,
    check_epsilon,
    check_int,
    check_n_components,
    check_option,
    check_positive,
    check_random_state,
)
from ..estimators._base import PrivacyRecord
from ..subspace import fix_signs
from . import _crypto
from .mechanism import (
    CALIBRATIONS,
    NOISE_BY,
    _warn_paper,
    dpdpca_noise_scale,
    dpdpca_sensitivity,
    paper_calibration_note,
    protocol_noise,
)
from .parties import DataOwner, DataUser, Proxy, _encrypt_worker, _fmt_owner_content
from .transcript import Transcript

__all__ = ["run_dpdpca", "encrypt_and_aggregate", "EncryptedAggregate", "DPDPCAResult", "validate_owner_datasets"]

MECHANISM = "DPDPCA: Gaussian noise on the centred scatter R - vv^T/N, added under Paillier encryption"


def validate_owner_datasets(owner_datasets, name="owner_datasets"):
    """Check every owner's data before anything is encrypted; return float copies.

    Refuses: not a non-empty list, an owner that is not a 2-D numeric array, an owner with zero
    rows, non-finite values, owners with different numbers of features.
    """
    if isinstance(owner_datasets, np.ndarray) or not isinstance(owner_datasets, (list, tuple)):
        raise TypeError(f"{name} must be a list of 2-D arrays, one per data owner, got {type(owner_datasets).__name__}")
    if len(owner_datasets) == 0:
        raise ValueError(f"{name} must contain at least one data owner, got an empty list")
    parts = [check_array(X, name=f"{name}[{i}]") for i, X in enumerate(owner_datasets)]
    dims = [P.shape[1] for P in parts]
    if len(set(dims)) > 1:
        raise ValueError(f"every data owner must have the same number of features; got {dims}")
    return parts


@dataclass
class DPDPCAResult:
    """What the data user obtains from one DPDPCA release (plus the run's bookkeeping).

    Attributes
    ----------
    components_ : (k, M)            top-k eigenvectors of S′ (algebraic order), rows orthonormal
    explained_variance_ : (k,)      top-k eigenvalues of S′ / (N − 1) (noisy; may be negative)
    explained_variance_ratio_ : (k,)
        top-k eigenvalues of S′ (clipped at 0) over the sum of its positive eigenvalues — the
        noisy-eigenvalue ratio the authors' code plots; in [0, 1]
    eigenvalues_ : (M,)             all eigenvalues of S′, descending
    released_matrix_ : (M, M)       S′ = S + G′, the differentially private release itself
    masked_mean_sum_ : (M,)         v′ = v + b as decrypted (v hidden by the proxy's mask)
    noise_scale_ : float            σ of each entry of G′ (total over all parties)
    sensitivity_ : float            Δ used (4B², or B² with calibration="paper")
    n_samples_ : int                N (public)
    n_owners_ : int
    privacy_ : PrivacyRecord        model "distributed"
    transcript : Transcript         what every party received
    timings_ : dict                 seconds per phase (owners: list, one per owner)
    operations_ : dict              homomorphic operation counts per party
    key_length : int
    n_clipped_ : int                rows the owners scaled down to ``data_norm``
    """

    components_: np.ndarray
    explained_variance_: np.ndarray
    explained_variance_ratio_: np.ndarray
    eigenvalues_: np.ndarray
    released_matrix_: np.ndarray
    masked_mean_sum_: np.ndarray
    noise_scale_: float
    sensitivity_: float
    n_samples_: int
    n_owners_: int
    privacy_: PrivacyRecord
    transcript: Transcript = field(repr=False)
    timings_: dict = field(repr=False)
    operations_: dict = field(repr=False)
    key_length: int = 2048
    n_clipped_: int = 0

    @property
    def n_components_(self):
        return self.components_.shape[0]

    @property
    def n_features_in_(self):
        return self.components_.shape[1]

    def transform(self, X):
        """Project rows on the private components, ``X @ components_.T`` (no centring: the
        protocol keeps the mean hidden from the data user)."""
        X = check_array(X, copy=False)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the protocol ran with {self.n_features_in_}")
        return X @ self.components_.T

    def wall_time(self, parallel=True):
        """Simulated wall-clock seconds: owners in parallel (the slowest counts) or one after another."""
        t = self.timings_
        owners = max(t["owners"]) if parallel else sum(t["owners"])
        return t["keygen"] + owners + t["proxy_aggregate"] + t["count"] + t["proxy_release"] + t["user"]


class EncryptedAggregate:
    """State after phase 1: the proxy's aggregated ciphertexts and N, the data user's key pair.

    Create it with :func:`encrypt_and_aggregate`; call :meth:`release` (repeatedly, for teaching)
    to run phase 2.  Owners' plaintext data are not kept.
    """

    def __init__(self, *, user, proxy, transcript, timings, owner_operations, n_owners, data_norm, owner_noise_scale,
                 noise_by, n_clipped=0):
        self.aggregate_operations = dict(proxy.operations)
        self.n_clipped = n_clipped
        self.user = user
        self.proxy = proxy
        self.transcript = transcript
        self.timings = timings
        self.owner_operations = owner_operations
        self.n_owners = n_owners
        self.data_norm = data_norm
        self.owner_noise_scale = owner_noise_scale
        self.noise_by = noise_by

    @property
    def n_samples(self):
        return self.proxy.n_samples

    @property
    def n_features(self):
        return self.proxy.n_features

    @property
    def key_length(self):
        return self.user.key_length

    def release(self, n_components, epsilon, delta, *, calibration="classic", random_state=None, mask_scale=None,
                rerandomize=True, _noise_scale=None, _warn=True):
        """Phase 2: mask, correct and add noise at the proxy; decrypt and eigendecompose at the user.

        Only for aggregates prepared with ``noise_by="proxy"`` (owner-added noise is fixed at
        encryption time: use :func:`run_dpdpca`).  See :func:`run_dpdpca` for the parameters.
        """
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        check_option(calibration, "calibration", tuple(CALIBRATIONS))
        M = self.n_features
        k = check_n_components(n_components, M)
        sigma = dpdpca_noise_scale(epsilon, delta, self.data_norm, calibration) if _noise_scale is None else _noise_scale
        if self.noise_by == "owners":
            if self.owner_noise_scale is None or not math.isclose(sigma, self.owner_noise_scale, rel_tol=1e-12):
                raise ValueError("this aggregate already carries the owners' noise for another σ; "
                                 "run run_dpdpca(..., noise_by='owners') for a new ε, δ")
            proxy_noise = None
        else:
            rng = check_random_state(random_state)
            proxy_noise = protocol_noise(M, sigma, self.n_owners, "proxy", random_state=rng)[0]
        if calibration == "paper" and _warn:
            _warn_paper(stacklevel=3)

        transcript = self.transcript.copy()
        proxy, user = self.proxy, self.user
        ops_before = dict(proxy.operations)
        t0 = time.perf_counter()
        enc_R, enc_v = proxy.release(proxy_noise, mask_scale=mask_scale, data_norm=self.data_norm,
                                     rerandomize=rerandomize)
        t_proxy = time.perf_counter() - t0
        transcript.send("3.7 release", "proxy", "data user", "E[R′] = E[R]·E[G]·E[G′] (upper triangle)", enc_R)
        transcript.send("3.7 release", "proxy", "data user", "E[v′] = E[v]·E[b]", enc_v)

        t0 = time.perf_counter()
        dec_before = user.decryptions
        S_prime, _, v_prime = user.decrypt_release(enc_R, enc_v, M)
        eigenvalues, vectors = np.linalg.eigh(S_prime)
        eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]
        basis = fix_signs(vectors[:, :k])
        t_user = time.perf_counter() - t0

        N = self.n_samples
        top = np.maximum(eigenvalues[:k], 0.0)
        positive = eigenvalues[eigenvalues > 0].sum()
        ratio = top / positive if positive > 0 else np.zeros(k)
        sens = dpdpca_sensitivity(self.data_norm, calibration)
        is_private = calibration != "paper" and not math.isinf(epsilon)
        notes = []
        if calibration == "paper":
            notes.append(paper_calibration_note())
        if math.isinf(epsilon):
            notes.append("epsilon=inf: no noise, not differentially private")
        if is_private and delta > 1.0 / N:
            notes.append(f"delta={delta:g} > 1/N={1 / N:.2g}: a weak guarantee")
        if self.key_length < _crypto.SECURE_KEY_LENGTH:
            notes.append(f"{self.key_length}-bit Paillier key: insecure, demo only")
        record = PrivacyRecord(
            model="distributed", epsilon=epsilon, delta=delta,
            neighbouring="replace-one (N is public)", data_norm=self.data_norm, mechanism=MECHANISM,
            calibration=f"{calibration} (noise_by={self.noise_by})", sensitivity=sens, noise_scale=sigma,
            is_private=is_private, note="; ".join(notes),
        )
        proxy_ops = {key: self.aggregate_operations.get(key, 0) + proxy.operations[key] - ops_before.get(key, 0)
                     for key in proxy.operations}
        operations = dict(
            owner_encryptions=list(self.owner_operations),
            proxy=proxy_ops,
            user_decryptions=1 + (user.decryptions - dec_before),
        )
        timings = dict(self.timings)
        timings.update(proxy_release=t_proxy, user=t_user)
        return DPDPCAResult(
            components_=np.ascontiguousarray(basis.T),
            explained_variance_=eigenvalues[:k] / max(N - 1, 1),
            explained_variance_ratio_=ratio,
            eigenvalues_=eigenvalues,
            released_matrix_=S_prime,
            masked_mean_sum_=v_prime,
            noise_scale_=sigma,
            sensitivity_=sens,
            n_samples_=N,
            n_owners_=self.n_owners,
            privacy_=record,
            transcript=transcript,
            timings_=timings,
            operations_=operations,
            key_length=self.key_length,
            n_clipped_=self.n_clipped,
        )


def _check_common(owner_datasets, key_length, keypair, data_norm, aggregation, n_jobs):
    owners_data = validate_owner_datasets(owner_datasets)
    data_norm = check_positive(data_norm, "data_norm")
    check_option(aggregation, "aggregation", ("sequential", "tree"))
    n_jobs = check_int(n_jobs, "n_jobs", low=1)
    if keypair is None:
        key_length = _crypto.check_key_length(key_length)
    else:
        if not (isinstance(keypair, (tuple, list)) and len(keypair) == 2 and _crypto.is_public_key(keypair[0])):
            raise TypeError("keypair must be a (public_key, private_key) pair from phe.generate_paillier_keypair")
        key_length = _crypto.check_key_length(_crypto.key_length_of(keypair[0]), "keypair's key length")
    return owners_data, key_length, data_norm, n_jobs


def encrypt_and_aggregate(owner_datasets, key_length=_crypto.SECURE_KEY_LENGTH, *, data_norm=1.0, keypair=None,
                          aggregation="sequential", n_jobs=1, _owner_noise=None, _owner_noise_scale=None,
                          _validated=False):
    """Phase 1 of DPDPCA (steps 1, 2, 3.1, 3.2): keys, owners' encryption, aggregation, N.

    Every argument is validated before a key is made or a value encrypted.  Returns an
    :class:`EncryptedAggregate`; its ``transcript`` holds the deliveries so far.  See
    :func:`run_dpdpca` for the parameters.
    """
    if not _validated:
        owner_datasets, key_length, data_norm, n_jobs = _check_common(owner_datasets, key_length, keypair, data_norm,
                                                                       aggregation, n_jobs)
    _crypto.require_phe()
    _crypto.warn_if_insecure(key_length, stacklevel=3 if _validated else 2)
    L = len(owner_datasets)
    names = [f"owner {l}" for l in range(1, L + 1)]
    owners = [DataOwner(X, data_norm=data_norm, name=name) for X, name in zip(owner_datasets, names)]
    M = owners[0].n_features
    n_clipped = sum(o.n_clipped for o in owners)
    if n_clipped:
        warnings.warn(
            f"{n_clipped} of {sum(o.n_samples for o in owners)} rows had norm > data_norm={data_norm:g} and were "
            "scaled down to it by their owners (the privacy guarantee assumes this bound)",
            PrivacyWarning, stacklevel=3 if _validated else 2,
        )
    transcript = Transcript()

    # Step 1: the data user makes the key pair and hands out the public key.
    user = DataUser(key_length, keypair=tuple(keypair) if keypair is not None else None)
    pk = user.public_key
    proxy = Proxy()
    proxy.receive_public_key(*transcript.send("1 setup", "data user", "proxy", "public key pk", [pk]))
    for owner in owners:
        owner.receive_public_key(*transcript.send("1 setup", "data user", owner.name, "public key pk", [pk]))

    # Step 2: owners (in parallel in reality) compute and encrypt their shares.
    noise = [None] * L if _owner_noise is None else list(_owner_noise)
    owner_seconds = []
    ciphertext_lists = []
    if n_jobs > 1 and L > 1:
        from concurrent.futures import ProcessPoolExecutor

        phe = _crypto.require_phe()
        jobs = [(pk.n, o.plaintext_values(z), _crypto.FIXED_EXPONENT) for o, z in zip(owners, noise)]
        with ProcessPoolExecutor(max_workers=min(n_jobs, L)) as pool:
            for cts, exponent, seconds in pool.map(_encrypt_worker, jobs):
                ciphertext_lists.append([phe.EncryptedNumber(pk, c, exponent) for c in cts])
                owner_seconds.append(seconds)
    else:
        for owner, z in zip(owners, noise):
            ciphertext_lists.append(owner.encrypt_shares(z))
            owner_seconds.append(owner.encrypt_seconds)
    for l, (owner, cts) in enumerate(zip(owners, ciphertext_lists), start=1):
        content = _fmt_owner_content(l) + (" (noise share inside E[R])" if _owner_noise is not None else "")
        proxy.receive_shares(transcript.send("2 owners", owner.name, "proxy", content, cts), M)
    owner_operations = [len(c) for c in ciphertext_lists]

    # Step 3.1: aggregate.  Step 3.2: learn N through the data user.
    t0 = time.perf_counter()
    proxy.aggregate(aggregation)
    t_aggregate = time.perf_counter() - t0
    t0 = time.perf_counter()
    enc_N = transcript.send("3.2 count", "proxy", "data user", "E[N] = Π E[N^l]", [proxy.encrypted_count()])[0]
    N = user.decrypt_count(enc_N)
    proxy.learn_count(*transcript.send("3.2 count", "data user", "proxy", "N (the public count)", [N]))
    t_count = time.perf_counter() - t0
    timings = dict(keygen=user.keygen_seconds, owners=owner_seconds, proxy_aggregate=t_aggregate, count=t_count)
    return EncryptedAggregate(user=user, proxy=proxy, transcript=transcript, timings=timings,
                              owner_operations=owner_operations, n_owners=L, data_norm=data_norm, n_clipped=n_clipped,
                              owner_noise_scale=_owner_noise_scale,
                              noise_by="owners" if _owner_noise is not None else "proxy")


def run_dpdpca(owner_datasets, n_components, epsilon, delta, key_length=_crypto.SECURE_KEY_LENGTH, random_state=None,
               *, data_norm=1.0, calibration="classic", noise_by="proxy", mask_scale=None, aggregation="sequential",
               n_jobs=1, keypair=None, rerandomize=True):
    r"""Differentially private distributed PCA over encrypted shares (DPDPCA, Wang & Chang 2018).

    L data owners hold rows with the same M features.  Each encrypts its share
    :math:`(R^l, v^l, N^l) = ((X^l)^\top X^l, (X^l)^\top\mathbf 1, N^l)` under the data user's
    Paillier key; an honest-but-curious proxy aggregates the ciphertexts, masks the sum v with a
    secret b, computes the correction G under encryption, and adds Gaussian noise G′; the data
    user decrypts :math:`R' = R + G + G'` and :math:`v' = v + b` and forms
    :math:`S' = R' - v'v'^\top/N = S + G'`, whose top eigenvectors are the private components.

    Parameters
    ----------
    owner_datasets : list of arrays (N^l, M)
        One array per data owner.  Validated **before anything is encrypted**: at least one
        owner, every owner at least one row, finite values, the same M everywhere.
    n_components : int
        k, 1 ≤ k ≤ M.
    epsilon, delta : float
        The (ε, δ) of the release (``epsilon=numpy.inf``: no noise, the same code path).
    key_length : int, default 2048
        Bits of the Paillier modulus.  ≥ 1024 (else ``ValueError``); below 2048 an
        :class:`InsecureKeyWarning` (demos and tests only).
    random_state : None, int or Generator
        Drives the DP noise G′ only: with the same seed the released S′ and the components are
        reproducible.  The key pair (phe's secure generator), the encryption randomness and the
        proxy's mask b (the operating system's secure generator) are deliberately *not*
        reproducible; S′ does not depend on them.
    data_norm : float, default 1.0
        Public row-norm bound B; each owner scales larger rows down to it before encrypting.
    calibration : {"classic", "analytic", "paper"}, default "classic"
        ``"classic"``/``"analytic"``: Δ = 4B² (the corrected sensitivity of the centred scatter)
        with the classic or the analytic Gaussian σ.  ``"paper"``: the paper's Δ = 1 (B²) —
        **not differentially private**; warns (:class:`~privpca_edu.PrivacyWarning`) and records
        ``is_private=False``.
    noise_by : {"proxy", "owners"}, default "proxy"
        Who adds G′: the proxy (the paper), or every owner a share of variance σ²/L before
        encrypting (then DP no longer rests on the proxy's honesty, but on all owners').
    mask_scale : float, optional
        Standard deviation β of the proxy's mask b (default 1000·N·B).
    aggregation : {"sequential", "tree"}
        Order of the proxy's homomorphic sums (the results decrypt identically).
    n_jobs : int, default 1
        Processes for the owners' encryption (owners really run in parallel; this simulates it).
    keypair : (public_key, private_key), optional
        Reuse a ``phe`` key pair instead of generating one (tests, demos).
    rerandomize : bool, default True
        The proxy re-randomises every ciphertext it sends to the data user (``obfuscate``).

    Returns
    -------
    DPDPCAResult
        ``components_``, ``explained_variance_ratio_``, ``released_matrix_`` (S′),
        ``noise_scale_``, ``privacy_`` (model "distributed"), ``transcript`` (what each party
        received), ``timings_``, ``operations_``.

    Notes
    -----
    **Privacy** (replace-one neighbours, N public): S′ is the Gaussian mechanism on the centred
    scatter with Δ = 4B² (:mod:`privpca_edu.protocol.mechanism`), so (ε, δ)-DP towards the data
    user; the components are post-processing.  The proxy sees only ciphertexts, the public key
    and N (IND-CPA security of Paillier; no collusion with the data user, who could otherwise
    decrypt everything the proxy holds).  Caveats: N is revealed to both; v is hidden from the
    data user only statistically (by the Gaussian mask b, not by DP); DP holds only if whoever
    adds G′ does so honestly; numpy's generator is not a cryptographic one, so G′ is
    reproducible for teaching, not for deployment.

    **Deviation from the paper**: eigenvectors are taken by *algebraic* eigenvalue order (the
    paper's preliminaries order by absolute value, wrong for an indefinite noisy matrix).

    References
    ----------
    S. Wang and J. M. Chang, "Differentially private principal component analysis over
    horizontally partitioned data", IEEE DSC 2018 (attribution probable; spec dpdpca.md §0),
    Algorithms 1–2 and eqs. (11)–(22).  P. Paillier, "Public-key cryptosystems based on composite
    degree residuosity classes", EUROCRYPT 1999.

    Examples
    --------
    >>> import numpy as np, warnings
    >>> from privpca_edu.protocol import run_dpdpca, InsecureKeyWarning
    >>> rng = np.random.default_rng(0)
    >>> owners = [rng.normal(size=(30, 3)) * [0.5, 0.1, 0.05] for _ in range(3)]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", InsecureKeyWarning)     # 1024 bits: demo only
    ...     res = run_dpdpca(owners, 1, np.inf, 1e-5, key_length=1024, random_state=0)
    >>> res.components_.round(1).tolist(), res.n_samples_
    ([[1.0, 0.0, 0.0]], 90)
    >>> res.transcript.by_party()["proxy"]["plaintexts"]     # the proxy's only plaintext: N
    (90,)
    """
    owners_data, key_length, data_norm, n_jobs = _check_common(owner_datasets, key_length, keypair, data_norm,
                                                               aggregation, n_jobs)
    M = owners_data[0].shape[1]
    check_n_components(n_components, M)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_option(calibration, "calibration", tuple(CALIBRATIONS))
    check_option(noise_by, "noise_by", tuple(NOISE_BY))
    if mask_scale is not None:
        check_positive(mask_scale, "mask_scale")
    if not isinstance(rerandomize, (bool, np.bool_)):
        raise TypeError(f"rerandomize must be a bool, got {type(rerandomize).__name__}")
    _crypto.require_phe()
    sigma = dpdpca_noise_scale(epsilon, delta, data_norm, calibration)
    rng = check_random_state(random_state)
    owner_noise = None
    if noise_by == "owners":
        owner_noise = protocol_noise(M, sigma, len(owners_data), "owners", random_state=rng)
    aggregate = encrypt_and_aggregate(owners_data, key_length, data_norm=data_norm, keypair=keypair,
                                      aggregation=aggregation, n_jobs=n_jobs, _owner_noise=owner_noise,
                                      _owner_noise_scale=sigma if owner_noise is not None else None, _validated=True)
    result = aggregate.release(n_components, epsilon, delta, calibration=calibration, random_state=rng,
                               mask_scale=mask_scale, rerandomize=rerandomize, _noise_scale=sigma, _warn=False)
    if calibration == "paper":
        _warn_paper(stacklevel=2)
    return result
