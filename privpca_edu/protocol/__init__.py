"""The encrypted distributed protocol DPDPCA: data owners, an honest-but-curious proxy, a data user.

Real Paillier encryption through ``phe`` (``pip install privpca_edu[crypto]``; imported only
when a protocol function runs).  Start with :func:`run_dpdpca`; the parties are
:class:`DataOwner`, :class:`Proxy` and :class:`DataUser`; every delivery between them is kept in
a :class:`Transcript`.  The differential-privacy part (shares, sensitivity, σ, the noise
sampler) lives in :mod:`.mechanism` and runs without encryption in :class:`PlaintextDPDPCA`,
which the audits and the experiments use.

================================  ==========================================================
:func:`run_dpdpca`                the whole protocol, end to end
:func:`encrypt_and_aggregate`     phase 1 (keys, owners' encryption, aggregation, N)
:class:`EncryptedAggregate`       its state; ``.release(...)`` runs phase 2
:class:`DPDPCAResult`             components, S′, σ, privacy record, transcript, timings
:class:`PlaintextDPDPCA`          the same release without encryption (audits, sweeps)
:func:`protocol_noise`            the one noise sampler both paths call
:func:`centred_worst_case_pair`   replace-one neighbours attaining the sensitivity
================================  ==========================================================

Its σ and sensitivities are :func:`privpca_edu.privacy.dpdpca_noise_scale`,
:func:`~privpca_edu.privacy.dpdpca_sensitivity` (Δ = 4B²) and
:func:`~privpca_edu.privacy.mask_sensitivity` (2B, the sensitivity of v, released masked as
v′ = v + b).
"""

from ._crypto import (
    FIXED_EXPONENT,
    MIN_KEY_LENGTH,
    SECURE_KEY_LENGTH,
    InsecureKeyWarning,
    ciphertext_bytes,
    decrypt_exact,
    encrypt_fixed,
    generate_keypair,
    gmpy2_in_use,
    new_secret,
    require_phe,
)
from .mechanism import (
    CALIBRATIONS,
    NOISE_BY,
    PlaintextDPDPCA,
    centred_scatter,
    centred_worst_case_pair,
    default_mask_scale,
    owner_shares,
    protocol_noise,
)
from .parties import DataOwner, DataUser, Proxy
from .run import DPDPCAResult, EncryptedAggregate, encrypt_and_aggregate, run_dpdpca, validate_owner_datasets
from .transcript import Message, Transcript

__all__ = [
    "run_dpdpca", "encrypt_and_aggregate", "EncryptedAggregate", "DPDPCAResult", "validate_owner_datasets",
    "DataOwner", "Proxy", "DataUser", "Message", "Transcript",
    "PlaintextDPDPCA", "protocol_noise", "centred_scatter", "default_mask_scale",
    "owner_shares", "centred_worst_case_pair", "CALIBRATIONS", "NOISE_BY",
    "InsecureKeyWarning", "generate_keypair", "gmpy2_in_use", "require_phe", "encrypt_fixed", "decrypt_exact",
    "ciphertext_bytes", "FIXED_EXPONENT", "MIN_KEY_LENGTH", "SECURE_KEY_LENGTH", "new_secret",
]
