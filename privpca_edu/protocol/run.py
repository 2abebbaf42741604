r"""End-to-end DPDPCA: :func:`run_dpdpca` and its two phases.

Phase 1, :func:`encrypt_and_aggregate` — the expensive, ε-independent part: the data user makes
the key pair, every owner encrypts its share, the proxy aggregates the ciphertexts and learns N.
Phase 2, :meth:`EncryptedAggregate.release` — the cheap part: the proxy masks, corrects and adds
the noise under encryption, the data user decrypts and takes eigenvectors.

:func:`run_dpdpca` runs both.  The split exists for teaching: a dashboard can keep phase 1 (which
holds only ciphertexts and the public count N — nothing a real proxy would not hold) and redo
phase 2 when ε moves.  In a real deployment every call of ``release`` is a new differentially
private release, and the privacy losses of all of them add up (composition) — *provided every
release draws fresh noise*.  Releases that reuse one noise draw Z (the same ``random_state`` at
different ε, S′ = S + σ(ε)·Z) do not compose at all: two of them give the statistic back exactly,
:math:`S = (\sigma_2 S'_1 - \sigma_1 S'_2)/(\sigma_2 - \sigma_1)`.  The chapter's dashboard does
this on purpose (one simulated draw, rescaled, to show how accuracy moves with ε); it is not a
sequence of releases.

What the data user receives is two Gaussian releases: :math:`S' = S + G'` (Δ = 4B², σ) and the
masked column sum :math:`v' = v + b` (Δ = 2B, β = ``mask_scale``).  The privacy record composes
both exactly (:func:`~privpca_edu.privacy.make_record`, Gaussian DP).

Randomness and parallel runs.  One 32-byte secret per run, drawn from ``random_state`` after the
noise G′ (or from :mod:`secrets` when ``random_state`` is None), is split by hashing into one
secret per party and purpose (each owner's encryption randomness, the proxy's mask, digits and
re-randomisation).  Every job derives its randomness from the secret it is handed, so the owners'
encryptions and the proxy's chunks give the same ciphertexts in one process (``n_jobs=1``) or in
many (joblib, :mod:`._parallel`).  The proxy's obfuscators rⁿ mod n² do not depend on any data;
:func:`run_dpdpca` computes them during phase 1, next to the owners' encryptions, as a real proxy
would while it waits.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_data,
    check_delta,
    check_epsilon,
    check_n_components,
    check_option,
    check_positive,
    diagnostics_enabled,
    as_generator,
)
from ..privacy import PrivacyRecord, dpdpca_noise_scale, dpdpca_sensitivity, make_record, mask_sensitivity
from ..subspace import fix_signs
from . import _crypto
from ._parallel import check_n_jobs, run_tasks
from .mechanism import (
    CALIBRATIONS,
    NOISE_BY,
    _warn_paper,
    default_mask_scale,
    paper_calibration_note,
    protocol_noise,
)
from .parties import (
    DataOwner,
    DataUser,
    Proxy,
    _exponent_at,
    _fmt_owner_content,
    _obfuscator_job,
    _owner_encrypt_job,
)
from .transcript import Transcript

__all__ = ["run_dpdpca", "encrypt_and_aggregate", "EncryptedAggregate", "DPDPCAResult", "validate_owner_datasets"]

MECHANISM = ("DPDPCA: Gaussian noise on the centred scatter R - vv^T/N, added under Paillier encryption; "
             "plus the masked column sum v + b (a Gaussian release of v)")

#: The protocol's outputs are formed in units of data_norm (B) and data_norm²; this keeps them finite.
DATA_NORM_RANGE = (1e-100, 1e100)
#: A Gaussian draw beyond this many standard deviations has probability below 1e-340: the range bound.
_TAIL = 40


def validate_owner_datasets(owner_datasets, name="owner_datasets"):
    """Check every owner's data before anything is encrypted; return float copies.

    Refuses: not a non-empty list, an owner that is not a 2-D numeric array, an owner with zero
    rows, non-finite values, owners with different numbers of features.

    Parameters
    ----------
    owner_datasets : list of array_like
        One 2-D array per owner.
    name : str, default="owner_datasets"
        The argument's name in error messages.

    Returns
    -------
    list of ndarray
        Float64 copies, one per owner.

    Raises
    ------
    TypeError
        If ``owner_datasets`` is not a list of 2-D numeric arrays.
    ValueError
        If it is empty, an owner has no rows or non-finite values, or the numbers of features differ.
    """
    if isinstance(owner_datasets, np.ndarray) or not isinstance(owner_datasets, (list, tuple)):
        raise TypeError(f"{name} must be a list of 2-D arrays, one per data owner, got {type(owner_datasets).__name__}")
    if len(owner_datasets) == 0:
        raise ValueError(f"{name} must contain at least one data owner, got an empty list")
    parts = [check_data(X, name=f"{name}[{i}]") for i, X in enumerate(owner_datasets)]
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
    masked_mean_sum_ : (M,)         v′ = v + b as decrypted: a Gaussian release of v (Δ = 2B,
                                    σ = β), composed into ``privacy_``
    noise_scale_ : float            σ of each entry of G′ (total over all parties)
    mask_scale_ : float             β, the standard deviation of the mask b
    sensitivity_ : float            Δ used (4B², or B² with calibration="paper")
    n_samples_ : int                N (public)
    n_owners_ : int
    privacy_ : PrivacyRecord        model "distributed"; releases (4B², σ) and (2B, β)
    transcript : Transcript         what every party received
    timings_ : dict                 seconds per phase: ``owners`` (one per owner) and
                                    ``proxy_precompute`` are the CPU seconds of their jobs (what
                                    each party's own machine spends); the other phases are
                                    wall-clock (``*_cpu``: this process's CPU seconds)
    operations_ : dict              homomorphic operation counts per party
    key_length : int

    How many rows the owners clipped is not here: each owner knows its own count
    (:attr:`DataOwner.n_clipped`) and sends it to no one.
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
    mask_scale_: float = 0.0

    @property
    def n_components_(self):
        """The number k of components released."""
        return self.components_.shape[0]

    @property
    def n_features_in_(self):
        """The number M of features."""
        return self.components_.shape[1]

    def transform(self, X):
        """Project rows on the private components, ``X @ components_.T``.

        No centring: the protocol keeps the mean hidden from the data user.

        Parameters
        ----------
        X : array_like, shape (n, M)
            Rows to project.

        Returns
        -------
        ndarray, shape (n, k)
            Their coordinates on the private components.
        """
        X = check_data(X, copy=False)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the protocol ran with {self.n_features_in_}")
        return X @ self.components_.T


def _mask_units(mask_scale, n_samples, data_norm):
    """β/B: the mask scale in units of the data bound (default 1000·N)."""
    beta = default_mask_scale(n_samples, data_norm) if mask_scale is None else mask_scale
    return beta, beta / data_norm


def _check_ranges(key_length, *, n_samples, n_owners, data_norm, noise_scale, mask_scale):
    """Refuse, before any key exists, inputs whose plaintexts could overflow the key or float64.

    The largest plaintext is an entry of N·R′ on the grid h² (mantissa scale 2^208), in units
    of B²: |N R| ≤ N², |v_i b_j| ≤ N·b_max, |b_i b_j| ≤ b_max², |N G′| ≤ N·g_max, plus the dither
    (< N·2^104), with b_max = 40β/B and g_max = 40σ√L/B² (a Gaussian beyond 40 sd has
    probability < 1e-340; the proxy checks the values it actually drew as well).
    """
    if not math.isfinite(_TAIL * mask_scale * 1e10):
        raise ValueError(f"mask_scale={mask_scale:g} is too large for float64 results (v' = v + b must stay finite)")
    shift = -4 * _crypto.FIXED_EXPONENT
    N, L = int(n_samples), int(n_owners)
    b_max = int(math.ceil(_TAIL * mask_scale / data_norm)) + 1
    g_max = int(math.ceil(_TAIL * noise_scale / data_norm**2 * math.sqrt(L))) + 1
    parts = {"owner_datasets": N * N, "mask_scale": 2 * N * b_max + b_max * b_max, "epsilon": N * g_max}
    bound = (sum(parts.values()) << (2 * shift)) + (N << shift)
    name = max(parts, key=parts.get)
    what = {"owner_datasets": f"N = {N} records", "mask_scale": f"mask_scale={mask_scale:g}",
            "epsilon": f"noise of scale {noise_scale:g}"}[name]
    _crypto.check_capacity(key_length, bound, name=name, what=what)


class EncryptedAggregate:
    """State after phase 1: the proxy's aggregated ciphertexts and N, the data user's key pair.

    Create it with :func:`encrypt_and_aggregate`; call :meth:`release` (repeatedly, for teaching)
    to run phase 2.  Owners' plaintext data are not kept.

    Parameters
    ----------
    user : DataUser
        The data user, holding the key pair.
    proxy : Proxy
        The proxy, holding the aggregated ciphertexts and N.
    transcript : Transcript
        The deliveries of phase 1.
    timings : dict
        Seconds per phase so far.
    owner_operations : list of int
        Each owner's number of encryptions.
    n_owners : int
        Number of owners L.
    data_norm : float
        The public row-norm bound B.
    owner_noise_scale : float or None
        The σ of each owner's noise share (``noise_by="owners"``), else ``None``.
    noise_by : {"proxy", "owners"}
        Who adds the noise.
    n_jobs : int, default=1
        Processes of phase 2 (by default).
    obfuscators : list or None, default=None
        Obfuscators precomputed for the first release.
    """

    def __init__(self, *, user, proxy, transcript, timings, owner_operations, n_owners, data_norm, owner_noise_scale,
                 noise_by, n_jobs=1, obfuscators=None):
        self.aggregate_operations = dict(proxy.operations)
        self.user = user
        self.proxy = proxy
        self.transcript = transcript
        self.timings = timings
        self.owner_operations = owner_operations
        self.n_owners = n_owners
        self.data_norm = data_norm
        self.owner_noise_scale = owner_noise_scale
        self.noise_by = noise_by
        self.n_jobs = n_jobs
        self._obfuscators = obfuscators  # precomputed for the first release of run_dpdpca

    @property
    def n_samples(self):
        """The total number of rows N (public after phase 1)."""
        return self.proxy.n_samples

    @property
    def n_features(self):
        """The number M of features."""
        return self.proxy.n_features

    @property
    def key_length(self):
        """Bits of the data user's Paillier modulus."""
        return self.user.key_length

    def release(self, n_components, epsilon, delta, *, calibration="classic", random_state=None, mask_scale=None,
                rerandomize=True, n_jobs=None, _noise_scale=None, _warn=True, _proxy_noise=None, _secret=None):
        """Phase 2: mask, correct and add noise at the proxy; decrypt and eigendecompose at the user.

        Only for aggregates prepared with ``noise_by="proxy"`` (owner-added noise is fixed at
        encryption time: use :func:`run_dpdpca`).  ``random_state`` draws G′ first, then the
        secret of the proxy's mask, digits and re-randomisation; ``n_jobs`` defaults to the
        aggregate's.  See :func:`run_dpdpca` for the other parameters.

        Every call is a new release of S′ *and* of v′.  Calls with the same ``random_state`` and
        different ε reuse one noise draw (σ(ε)·Z): a teaching device, not a sequence of releases —
        two of them give S back exactly.

        Parameters
        ----------
        n_components : int
            Number of components k, 1 ≤ k ≤ M.
        epsilon, delta : float
            The (ε, δ) of the release.
        calibration : {"classic", "analytic", "paper"}, default="classic"
            As :func:`run_dpdpca`.
        random_state : None, int or numpy.random.Generator, default=None
            Draws G′ first, then the secret of the proxy's mask, digits and re-randomisation.
        mask_scale : float, optional
            As :func:`run_dpdpca`.
        rerandomize : bool, default=True
            As :func:`run_dpdpca`.
        n_jobs : int or None, default=None
            Processes (``None``: the aggregate's).

        Returns
        -------
        DPDPCAResult
            The data user's result and the run's bookkeeping.
        """
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        check_option(calibration, "calibration", tuple(CALIBRATIONS))
        n_jobs = self.n_jobs if n_jobs is None else check_n_jobs(n_jobs)
        if mask_scale is not None:
            mask_scale = check_positive(mask_scale, "mask_scale")
        M = self.n_features
        N = self.n_samples
        B = self.data_norm
        k = check_n_components(n_components, M)
        beta, beta_units = _mask_units(mask_scale, N, B)
        private_calibration = calibration != "paper" and not math.isinf(epsilon)
        mask_mu = mask_sensitivity(1.0) / beta_units if private_calibration else 0.0
        sigma = (dpdpca_noise_scale(epsilon, delta, B, calibration, mask_mu=mask_mu) if _noise_scale is None
                 else _noise_scale)
        _check_ranges(self.key_length, n_samples=N, n_owners=self.n_owners, data_norm=B, noise_scale=sigma,
                      mask_scale=beta)
        rng = as_generator(random_state)
        if self.noise_by == "owners":
            if self.owner_noise_scale is None or not math.isclose(sigma, self.owner_noise_scale, rel_tol=1e-12):
                raise ValueError("this aggregate already carries the owners' noise for another σ; "
                                 "run run_dpdpca(..., noise_by='owners') for a new ε, δ")
            proxy_noise = None
        elif _proxy_noise is not None:
            proxy_noise = _proxy_noise
        else:
            proxy_noise = protocol_noise(M, sigma, self.n_owners, "proxy", random_state=rng)[0]
        secret = _secret if _secret is not None else _crypto.new_secret(rng if random_state is not None else None)
        if calibration == "paper" and _warn:
            _warn_paper(stacklevel=3)

        transcript = self.transcript.copy()
        proxy, user = self.proxy, self.user
        ops_before = dict(proxy.operations)
        obfuscators = self._obfuscators if _secret is not None else None
        self._obfuscators = None  # a precomputed set serves one release only
        if not rerandomize:
            obfuscators = [1] * proxy.n_release_obfuscators()
        t0, c0 = time.perf_counter(), time.process_time()
        noise_units = None if proxy_noise is None else np.asarray(proxy_noise) / (B * B)
        r_slack = math.ceil(_TAIL * sigma / (B * B) * math.sqrt(self.n_owners)) + 1 if self.noise_by == "owners" else 0
        enc_R, enc_v = proxy.release(noise_units, mask_scale=beta_units, secret=_crypto.derive_secret(secret, "proxy"),
                                     obfuscators=obfuscators, n_jobs=n_jobs, r_slack=r_slack)
        t_proxy, c_proxy = time.perf_counter() - t0, time.process_time() - c0
        if not rerandomize:
            proxy.operations["rerandomisations"] -= len(enc_R) + len(enc_v)
        transcript.send("3.7 release", "proxy", "data user",
                        "E[N·R′] = E[R]^N·E[N·G]·E[N·G′] (upper triangle, grid h²)", enc_R)
        transcript.send("3.7 release", "proxy", "data user", "E[v′] = E[v]·E[b]", enc_v)

        t0, c0 = time.perf_counter(), time.process_time()
        dec_before = user.decryptions
        S_prime, _, v_prime = user.decrypt_release(enc_R, enc_v, M, data_norm=B, n_jobs=n_jobs)
        eigenvalues, vectors = np.linalg.eigh(S_prime)
        eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]
        basis = fix_signs(vectors[:, :k])
        t_user, c_user = time.perf_counter() - t0, time.process_time() - c0

        top = np.maximum(eigenvalues[:k], 0.0)
        positive = eigenvalues[eigenvalues > 0].sum()
        ratio = top / positive if positive > 0 else np.zeros(k)
        sens = dpdpca_sensitivity(B, calibration)
        record = self._record(epsilon, delta, calibration, sens, sigma, beta)
        proxy_ops = {key: self.aggregate_operations.get(key, 0) + proxy.operations[key] - ops_before.get(key, 0)
                     for key in proxy.operations}
        operations = dict(
            owner_encryptions=list(self.owner_operations),
            proxy=proxy_ops,
            user_decryptions=1 + (user.decryptions - dec_before),
        )
        timings = dict(self.timings)
        timings.update(proxy_release=t_proxy, user=t_user, proxy_release_cpu=c_proxy, user_cpu=c_user)
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
            mask_scale_=beta,
        )

    def _record(self, epsilon, delta, calibration, sens, sigma, beta):
        """The privacy record of one release, through :func:`make_record`: S′ and v′ composed exactly."""
        N, B = self.n_samples, self.data_norm
        notes = []
        if calibration == "paper":
            notes.append(paper_calibration_note())
        if not math.isinf(epsilon) and calibration != "paper" and delta > 1.0 / N:
            notes.append(f"delta={delta:g} > 1/N={1 / N:.2g}: a weak guarantee")
        if self.key_length < _crypto.SECURE_KEY_LENGTH:
            notes.append(f"{self.key_length}-bit Paillier key: insecure, demo only")
        record = make_record(
            model="distributed", epsilon=epsilon, delta=delta,
            neighbouring="replace-one (N is public)", data_norm=B, mechanism=MECHANISM,
            calibration=f"{calibration} (noise_by={self.noise_by}; mask beta={beta:.3g})", sensitivity=sens,
            noise_scale=sigma, is_private=calibration != "paper", note="; ".join(notes),
            releases=[(sens, sigma, 1), (mask_sensitivity(B), beta, 1)],
        )
        if calibration != "paper" and not math.isinf(epsilon) and not record.is_private:
            warnings.warn(f"the release is recorded as NOT ({epsilon:g}, {delta:g})-DP: {record.note}",
                          PrivacyWarning, stacklevel=caller_stacklevel())
        return record


def _check_common(owner_datasets, key_length, keypair, data_norm, aggregation, n_jobs):
    owners_data = validate_owner_datasets(owner_datasets)
    data_norm = check_positive(data_norm, "data_norm")
    lo, hi = DATA_NORM_RANGE
    if not lo <= data_norm <= hi:
        raise ValueError(f"data_norm={data_norm:g} is outside [{lo:g}, {hi:g}]: the protocol releases S' in units "
                         "of data_norm² as float64; rescale the data and data_norm together")
    check_option(aggregation, "aggregation", ("sequential", "tree"))
    n_jobs = check_n_jobs(n_jobs)
    if keypair is None:
        key_length = _crypto.check_key_length(key_length)
    else:
        if not (isinstance(keypair, (tuple, list)) and len(keypair) == 2 and _crypto.is_public_key(keypair[0])):
            raise TypeError("keypair must be a (public_key, private_key) pair from phe.generate_paillier_keypair")
        key_length = _crypto.check_key_length(_crypto.key_length_of(keypair[0]), "keypair's key length")
    return owners_data, key_length, data_norm, n_jobs


def _proxy_chunks(count, owner_job_size):
    """Chunks of the proxy's obfuscator precomputation, each about half an owner's job (load balance)."""
    size = max(1, owner_job_size // 2)
    return [(a, min(a + size, count)) for a in range(0, count, size)]


def encrypt_and_aggregate(owner_datasets, key_length=_crypto.SECURE_KEY_LENGTH, *, data_norm=1.0, keypair=None,
                          aggregation="sequential", n_jobs=1, random_state=None, _owner_noise=None,
                          _owner_noise_scale=None, _validated=False, _owners=None, _secret=None,
                          _precompute_release=False):
    """Phase 1 of DPDPCA (steps 1, 2, 3.1, 3.2): keys, owners' encryption, aggregation, N.

    Every argument is validated before a key is made or a value encrypted.

    Parameters
    ----------
    owner_datasets : list of array_like, each of shape (N^l, M)
        One array per data owner, as :func:`run_dpdpca`.
    key_length : int, default=2048
        Bits of the Paillier modulus, as :func:`run_dpdpca`.
    data_norm : float, default=1.0
        The public row-norm bound B, as :func:`run_dpdpca`.
    keypair : tuple or None, default=None
        A ``phe`` key pair ``(public_key, private_key)`` to reuse.
    aggregation : {"sequential", "tree"}, default="sequential"
        Order of the proxy's homomorphic sums.
    n_jobs : int or None, default=1
        Processes, as :func:`run_dpdpca`.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the encryption randomness of every party (``None``: :mod:`secrets`).

    Returns
    -------
    EncryptedAggregate
        The state after phase 1; its ``transcript`` holds the deliveries so far.
    """
    if not _validated:
        owner_datasets, key_length, data_norm, n_jobs = _check_common(owner_datasets, key_length, keypair, data_norm,
                                                                       aggregation, n_jobs)
    _crypto.require_phe()
    L = len(owner_datasets)
    names = [f"owner {l}" for l in range(1, L + 1)]
    owners = _owners or [DataOwner(X, data_norm=data_norm, name=name) for X, name in zip(owner_datasets, names)]
    M = owners[0].n_features
    N = sum(o.n_samples for o in owners)
    if not _validated:
        _check_ranges(key_length, n_samples=N, n_owners=L, data_norm=data_norm, noise_scale=0.0,
                      mask_scale=default_mask_scale(N, data_norm))
    _crypto.warn_if_insecure(key_length, stacklevel=3 if _validated else 2)
    if diagnostics_enabled() and any(o.n_clipped for o in owners):  # data-dependent: only with diagnostics on
        warnings.warn(
            f"rows with norm > data_norm={data_norm:g} were scaled down to it by their owners (the privacy "
            "guarantee assumes this bound; each owner knows how many of its own rows, and tells no one)",
            PrivacyWarning, stacklevel=3 if _validated else 2,
        )
    if _secret is None:
        _secret = _crypto.new_secret(as_generator(random_state) if random_state is not None else None)
    transcript = Transcript()

    # Step 1: the data user makes the key pair and hands out the public key.
    user = DataUser(key_length, keypair=tuple(keypair) if keypair is not None else None)
    pk = user.public_key
    proxy = Proxy()
    proxy.receive_public_key(*transcript.send("1 setup", "data user", "proxy", "public key pk", [pk]))
    for owner in owners:
        owner.receive_public_key(*transcript.send("1 setup", "data user", owner.name, "public key pk", [pk]))

    # Step 2: every owner encrypts its share in its own job (a process with n_jobs > 1); the
    # proxy's data-free obfuscators for the coming release are computed in the same batch.
    noise = [None] * L if _owner_noise is None else list(_owner_noise)
    jobs = [(_owner_encrypt_job, owner.encryption_job(_crypto.derive_secret(_secret, owner.name), z, max_summands=L))
            for owner, z in zip(owners, noise)]
    m_owner = len(jobs[0][1][1])
    release_secret = _crypto.derive_secret(_crypto.derive_secret(_secret, "release"), "proxy")
    n_pre = M * (M + 1) // 2 + M if _precompute_release else 0
    pre_chunks = _proxy_chunks(n_pre, m_owner) if n_pre else []
    r_secret = _crypto.derive_secret(release_secret, "r")
    jobs += [(_obfuscator_job, (pk.n, r_secret, a, z - a)) for a, z in pre_chunks]
    t0 = time.perf_counter()
    results = run_tasks(jobs, n_jobs)
    t_phase = time.perf_counter() - t0
    phe = _crypto.require_phe()
    ciphertext_lists = [[phe.EncryptedNumber(pk, c, _exponent_at(k, M)) for k, c in enumerate(cts)]
                        for cts, _ in results[:L]]
    owner_seconds = [sec for _, sec in results[:L]]
    obfuscators = [r for chunk, _ in results[L:] for r in chunk] if n_pre else None
    for l, (owner, cts) in enumerate(zip(owners, ciphertext_lists), start=1):
        content = _fmt_owner_content(l) + (" (noise share inside E[R])" if _owner_noise is not None else "")
        proxy.receive_shares(transcript.send("2 owners", owner.name, "proxy", content, cts), M)
    owner_operations = [len(c) for c in ciphertext_lists]

    # Step 3.1: aggregate.  Step 3.2: learn N through the data user.
    t0 = time.perf_counter()
    proxy.aggregate(aggregation)
    t_aggregate = time.perf_counter() - t0
    t0 = time.perf_counter()
    count_obf = _crypto.obfuscators(pk.n, _crypto.derive_secret(_secret, "proxy count"), 0, 1)[0]
    enc_N = transcript.send("3.2 count", "proxy", "data user", "E[N] = Π E[N^l]", [proxy.encrypted_count(count_obf)])[0]
    proxy.operations["rerandomisations"] += 1
    N = user.decrypt_count(enc_N)
    proxy.learn_count(*transcript.send("3.2 count", "data user", "proxy", "N (the public count)", [N]))
    t_count = time.perf_counter() - t0
    timings = dict(keygen=user.keygen_seconds, owners=owner_seconds,
                   proxy_precompute=sum(sec for _, sec in results[L:]),
                   proxy_precompute_jobs=[sec for _, sec in results[L:]],
                   phase1_wall=t_phase, proxy_aggregate=t_aggregate, count=t_count)
    return EncryptedAggregate(user=user, proxy=proxy, transcript=transcript, timings=timings,
                              owner_operations=owner_operations, n_owners=L, data_norm=data_norm,
                              owner_noise_scale=_owner_noise_scale,
                              noise_by="owners" if _owner_noise is not None else "proxy", n_jobs=n_jobs,
                              obfuscators=obfuscators)


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
        Number of components k, 1 ≤ k ≤ M.
    epsilon, delta : float
        The (ε, δ) of the release (``epsilon=numpy.inf``: no noise, the same code path).
    key_length : int, default 2048
        Bits of the Paillier modulus.  ≥ 1024 (else ``ValueError``); below 2048 an
        :class:`InsecureKeyWarning` (demos and tests only).
    random_state : None, int or Generator
        Drives all the run's randomness except the key pair: first the DP noise G′ (the same
        seed gives the same G′ as :func:`protocol_noise`), then one 32-byte secret from which
        every party's encryption randomness r, the proxy's mask b and its last-digit dither are
        derived (SHA-256/SHAKE-256, one stream per party and purpose).  With a seed the whole run —
        ciphertexts included — is reproducible bit for bit, whatever ``n_jobs``; anyone who knows
        the seed can also strip the encryption and the mask, so a seed is for teaching only.
        ``None``: G′ from fresh OS entropy and the secret from :mod:`secrets`.  The key pair always
        comes from phe's secure generator (pass ``keypair`` to fix it).
    data_norm : float, default 1.0
        Public row-norm bound B, in [1e-100, 1e100]; each owner scales larger rows down to it
        before encrypting, and encodes its share in units of B (R/B², v/B) on the grid 2⁻¹⁰⁴,
        so data far smaller than 1 keep their digits.  An owner whose rows are all more than
        10¹¹ times shorter than B refuses (the grid cannot represent them): pass a tighter B.
    calibration : {"classic", "analytic", "paper"}, default "classic"
        ``"classic"``/``"analytic"``: Δ = 4B² (the corrected sensitivity of the centred scatter)
        with the classic or the analytic Gaussian σ.  ``"paper"``: the paper's Δ = 1 (B²) —
        **not differentially private**; warns (:class:`~privpca_edu.PrivacyWarning`) and records
        ``is_private=False``.
    noise_by : {"proxy", "owners"}, default "proxy"
        Who adds G′: the proxy (the paper), or every owner a share of variance σ²/L before
        encrypting (then DP no longer rests on the proxy's honesty, but on all owners').
    mask_scale : float, optional
        Standard deviation β of the proxy's mask b (default 1000·N·B).  The data user receives
        v′ = v + b, a Gaussian release of v with sensitivity 2B: the privacy record composes it
        with S′ (μ = √(μ_S² + (2B/β)²), Gaussian DP).  With ``"analytic"`` σ is calibrated for the
        pair; a β so small that v′ alone exceeds (ε, δ) is refused (``ValueError``); with
        ``"classic"`` the exact check decides, and a failing pair is recorded not private (with a
        :class:`~privpca_edu.PrivacyWarning`).  Too large for the key: refused before key generation.
    aggregation : {"sequential", "tree"}
        Order of the proxy's homomorphic sums (the results decrypt identically).
    n_jobs : int or None, default 1
        Processes (joblib; ``None`` → 1, ``-1`` → all cores): every owner encrypts in its own
        job, the proxy precomputes its obfuscators rⁿ mod n² in the same batch and does its
        per-entry work in chunks, the data user decrypts in chunks.  The results, ciphertexts
        included, are identical to ``n_jobs=1`` for a fixed ``random_state``.  A joblib backend
        such as Dask's (``joblib.parallel_config(backend="dask")``) sends the jobs to a cluster.
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
    **Privacy** (replace-one neighbours, N public).  The data user receives two Gaussian
    releases: S′ = S + G′ (Δ = 4B², σ; :mod:`privpca_edu.protocol.mechanism`) and v′ = v + b
    (Δ = 2B, β).  They compose to :math:`\sqrt{(4B^2/\sigma)^2 + (2B/\beta)^2}`-GDP, and the record
    (built by :func:`~privpca_edu.privacy.make_record`, which checks it exactly) says
    (ε, δ) only if that implies (ε, δ).  Everything the data user can compute from its exact
    decryptions is a function of these two releases (up to the double precision of the Gaussian
    sampler): the mask b and the noise are drawn on the same fixed-point grid as the data, with
    every digit random (:mod:`.parties`).  The components
    are post-processing.  The proxy sees only ciphertexts, the public key and N (IND-CPA
    security of Paillier; no collusion with the data user, who could otherwise decrypt
    everything the proxy holds).  Caveats: N is revealed to both; DP holds only if whoever adds
    G′ and b does so honestly; numpy's generator is not a cryptographic one, and a seeded run
    derives its secrets from the seed: reproducible for teaching, not for deployment.  The
    fixed-point rounding of the owners' shares (≤ 2⁻¹⁰⁵ B² per entry) changes the sensitivities
    by less than one part in 10²⁸, far below double precision.

    **Deviations from the paper**: eigenvectors are taken by *algebraic* eigenvalue order (the
    paper's preliminaries order by absolute value, wrong for an indefinite noisy matrix).  The
    data user receives E[N·R′] instead of E[R′], so that the mask can live on the data's grid
    (with :math:`b = N\tilde b`, as an integer encoding suggests, :math:`v' \bmod N` would be
    :math:`v \bmod N`); S′ is the same.

    References
    ----------
    S. Wang and J. M. Chang, "Differentially private principal component analysis over
    horizontally partitioned data", IEEE DSC 2018 (attribution probable, from the authors' code),
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
    k = check_n_components(n_components, M)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_option(calibration, "calibration", tuple(CALIBRATIONS))
    check_option(noise_by, "noise_by", tuple(NOISE_BY))
    if mask_scale is not None:
        mask_scale = check_positive(mask_scale, "mask_scale")
    if not isinstance(rerandomize, (bool, np.bool_)):
        raise TypeError(f"rerandomize must be a bool, got {type(rerandomize).__name__}")
    # Everything below is still before any key: the owners check their data (clipping, grid),
    # then σ (with the mask composed) and the plaintext ranges are checked against the key length.
    L = len(owners_data)
    owners = [DataOwner(X, data_norm=data_norm, name=f"owner {l}") for l, X in enumerate(owners_data, start=1)]
    N = sum(o.n_samples for o in owners)
    beta, beta_units = _mask_units(mask_scale, N, data_norm)
    private_calibration = calibration != "paper" and not math.isinf(epsilon)
    mask_mu = mask_sensitivity(1.0) / beta_units if private_calibration else 0.0
    sigma = dpdpca_noise_scale(epsilon, delta, data_norm, calibration, mask_mu=mask_mu)
    _check_ranges(key_length, n_samples=N, n_owners=L, data_norm=data_norm, noise_scale=sigma, mask_scale=beta)
    _crypto.require_phe()
    rng = as_generator(random_state)
    owner_noise = proxy_noise = None
    if noise_by == "owners":
        owner_noise = protocol_noise(M, sigma, L, "owners", random_state=rng)
    else:
        proxy_noise = protocol_noise(M, sigma, L, "proxy", random_state=rng)[0]
    secret = _crypto.new_secret(rng if random_state is not None else None)
    aggregate = encrypt_and_aggregate(owners_data, key_length, data_norm=data_norm, keypair=keypair,
                                      aggregation=aggregation, n_jobs=n_jobs, _owner_noise=owner_noise,
                                      _owner_noise_scale=sigma if owner_noise is not None else None, _validated=True,
                                      _owners=owners, _secret=secret, _precompute_release=rerandomize)
    result = aggregate.release(k, epsilon, delta, calibration=calibration, mask_scale=mask_scale,
                               rerandomize=rerandomize, _noise_scale=sigma, _warn=False, _proxy_noise=proxy_noise,
                               _secret=_crypto.derive_secret(secret, "release"))
    if calibration == "paper":
        _warn_paper(stacklevel=2)
    return result
