r"""Paillier through ``phe`` (python-paillier 1.5.0): keys, one fixed-point encoding, exact decoding.

Everything that touches a ciphertext goes through this module, so the rest of the protocol
reads like the paper.  Three decisions live here:

* **Real encryption, imported lazily.**  ``phe`` (GPLv3) is an optional dependency, installed
  with ``pip install privpca_edu[crypto]`` (which also brings ``gmpy2``: about 7× faster
  modular exponentiation).  Importing :mod:`privpca_edu` never needs it.
* **One public exponent, relative to the public bound.**  ``phe`` stores a real number as
  ``mantissa · 16**exponent``, and the exponent travels *in the clear* next to the ciphertext.
  Its default encoding picks the exponent from the value's binary order of magnitude
  (``math.frexp``), so a curious proxy would learn roughly how large every encrypted entry is.
  Every value an owner encrypts is therefore encoded at the same fixed exponent
  :data:`FIXED_EXPONENT` (−26, a grid of :math:`16^{-26} = 2^{-104}`), and in units of the
  public row-norm bound B (R in units of B², v in units of B): the exponent says nothing about
  the data, small data (rows far shorter than 1) keep their digits whatever B is, and
  ciphertexts with equal exponents add without rescaling.
* **Sums that cannot wrap.**  Paillier plaintexts live in :math:`\mathbb Z_n`; phe decodes
  :math:`m \le` ``max_int`` :math:`= \lfloor n/3\rfloor - 1` as positive and
  :math:`m \ge n -` ``max_int`` as negative.  A sum of *k* values of size up to ``max_int``
  can wrap into the other half and decode to a wrong number without any error, so
  :func:`encode_grid_integer` takes the number of summands the value will be added into and
  refuses values above ``max_int // max_summands``; the protocol bounds every plaintext it
  forms by public quantities before a key is made (:func:`check_capacity`).
* **Exact arithmetic at the data user.**  Decryption returns the integer mantissa and the
  exponent; :func:`decrypt_exact` turns them into a :class:`fractions.Fraction`, so
  :math:`S' = R' - v'v'^\top/N` is computed without rounding and the huge mask terms cancel
  exactly (rounding to float happens once, at the end).
* **Reproducible randomness on request.**  The encryption randomness r of every party is
  derived from a 32-byte secret with SHAKE-256 (:func:`random_units`); the protocol draws that
  secret from its ``random_state`` when one is given (so a run can be repeated bit for bit, in
  sequence or in parallel) and from :mod:`secrets` otherwise.  Whoever knows the secret can
  strip the randomness off every ciphertext: a seed is a *teaching* device, never a deployment
  setting.  The expensive part of an encryption, :math:`r^n \bmod n^2` (the *obfuscator*), does
  not depend on the plaintext, so it can be computed ahead of time and in parallel
  (:func:`obfuscators`, :func:`encrypt_mantissa`, :func:`rerandomise`).

Key sizes: 2048 bits (about 112-bit security) is the default.  1024 bits is accepted for demos
and tests with an :class:`InsecureKeyWarning`; below 1024 bits keys are refused (the authors'
code used 128-bit keys, which a laptop factors in a fraction of a second).
"""

from __future__ import annotations

import hashlib
import math
import numbers
import secrets
import warnings
from fractions import Fraction

__all__ = [
    "InsecureKeyWarning",
    "require_phe",
    "gmpy2_in_use",
    "MIN_KEY_LENGTH",
    "SECURE_KEY_LENGTH",
    "FIXED_EXPONENT",
    "BASE",
    "check_key_length",
    "generate_keypair",
    "key_length_of",
    "encode_fixed",
    "encrypt_fixed",
    "encode_grid_integer",
    "decrypt_exact",
    "decode_mantissa",
    "max_int_lower_bound",
    "check_capacity",
    "new_secret",
    "derive_secret",
    "random_units",
    "obfuscators",
    "encrypt_mantissa",
    "rerandomise",
    "ciphertext_bytes",
    "is_ciphertext",
    "is_public_key",
]

#: Smallest key length accepted at all (bits of n).
MIN_KEY_LENGTH = 1024
#: Key length below which an :class:`InsecureKeyWarning` is issued (≈112-bit security at 2048).
SECURE_KEY_LENGTH = 2048
#: ``phe``'s encoding base.
BASE = 16
#: The one exponent every owner value is encoded at: a grid of 16**-26 = 2**-104 (in units of B or B²).
FIXED_EXPONENT = -26


class InsecureKeyWarning(UserWarning):
    """A Paillier key shorter than 2048 bits was used: fine for a demo, not for real data."""


def require_phe():
    """Import and return the ``phe`` module, or explain how to install it.

    Returns
    -------
    module
        The ``phe`` module.

    Raises
    ------
    ImportError
        If ``phe`` is not installed; the message says how to install it.
    """
    try:
        import phe
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the encrypted protocol needs the Paillier library 'phe' (python-paillier 1.5.0); "
            "install it with:  pip install privpca_edu[crypto]   (or: pip install phe==1.5.0 gmpy2)"
        ) from exc
    return phe


def gmpy2_in_use():
    """Tell whether ``phe`` found ``gmpy2`` (GMP big-integer arithmetic, ~7× faster).

    Returns
    -------
    bool
        Whether ``phe`` uses ``gmpy2``.
    """
    require_phe()
    from phe import util

    return bool(getattr(util, "HAVE_GMP", False))


def check_key_length(key_length, name="key_length"):
    """Validate a Paillier modulus length: an int ≥ 1024; warn below 2048."""
    if isinstance(key_length, bool) or not isinstance(key_length, numbers.Integral):
        raise TypeError(f"{name} must be an int (bits of the Paillier modulus), got {type(key_length).__name__}")
    key_length = int(key_length)
    if key_length < MIN_KEY_LENGTH:
        raise ValueError(
            f"{name} must be >= {MIN_KEY_LENGTH} bits, got {key_length} (keys this short are factored "
            "quickly; the paper's code used 128-bit keys, which offer no security at all)"
        )
    if key_length % 2:
        raise ValueError(f"{name} must be even (two primes of {name}/2 bits), got {key_length}")
    return key_length


def warn_if_insecure(key_length, stacklevel=3):
    if key_length < SECURE_KEY_LENGTH:
        warnings.warn(
            f"Paillier key of {key_length} bits: INSECURE, for demos and tests only "
            f"(use >= {SECURE_KEY_LENGTH} bits for real data)",
            InsecureKeyWarning,
            stacklevel=stacklevel,
        )


def generate_keypair(key_length=SECURE_KEY_LENGTH):
    """Generate a fresh Paillier key pair ``(public_key, private_key)`` with ``phe``.

    The primes come from ``phe``'s own cryptographically secure generator
    (:class:`random.SystemRandom` + ``gmpy2.next_prime``); no ``random_state`` reaches them, so
    keys are never reproducible — by design.

    Parameters
    ----------
    key_length : int, default=2048
        Bits of the Paillier modulus n.

    Returns
    -------
    public_key : phe.paillier.PaillierPublicKey
        The public key.
    private_key : phe.paillier.PaillierPrivateKey
        The private key.
    """
    key_length = check_key_length(key_length)
    phe = require_phe()
    public_key, private_key = phe.generate_paillier_keypair(n_length=key_length)
    return public_key, private_key


def key_length_of(public_key):
    """Bits of the modulus n of a ``phe`` public key."""
    return int(public_key.n).bit_length()


def _grid_mantissa(value, exponent):
    """round(value / 16**exponent) computed exactly (value: float or int)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real,)):
        raise TypeError(f"expected a real number, got {type(value).__name__}")
    # float(...) turns numpy scalars into Python floats first (numpy.int64 would overflow in phe).
    frac = Fraction(int(value)) if isinstance(value, numbers.Integral) else Fraction(float(value))
    scaled = frac * Fraction(BASE) ** (-exponent)
    return round(scaled)  # round half to even, exact on Fractions


def encode_fixed(public_key, value, exponent=FIXED_EXPONENT, *, max_summands=1):
    """``phe.EncodedNumber`` of ``value`` on the grid 16**exponent (always this exponent).

    Raises ``OverflowError`` if the mantissa, times ``max_summands``, does not fit in phe's
    signed range (see :func:`encode_grid_integer`).
    """
    phe = require_phe()
    return encode_grid_integer(public_key, _grid_mantissa(value, exponent), exponent, phe=phe,
                               max_summands=max_summands)


def encode_grid_integer(public_key, mantissa, exponent, *, phe=None, max_summands=1):
    """``phe.EncodedNumber`` with a given integer mantissa and exponent (value = m · 16**e).

    ``max_summands``: how many values of this size will be added homomorphically before
    decryption.  The mantissa must satisfy ``|m| · max_summands <= max_int`` (≈ n/3), so that
    their sum stays inside phe's signed range and decodes correctly; otherwise ``OverflowError``.
    """
    phe = phe or require_phe()
    mantissa = int(mantissa)
    max_summands = int(max_summands)
    if max_summands < 1:
        raise ValueError(f"max_summands must be >= 1, got {max_summands}")
    if abs(mantissa) * max_summands > public_key.max_int:
        raise OverflowError(
            f"value {mantissa} · 16^{exponent} does not fit in the key's plaintext range when "
            f"{max_summands} such values are added (|mantissa| · {max_summands} must be <= n/3 ≈ "
            f"2^{public_key.max_int.bit_length()})"
        )
    return phe.EncodedNumber(public_key, mantissa % public_key.n, exponent)


def encrypt_fixed(public_key, value, exponent=FIXED_EXPONENT, *, max_summands=1):
    """Encrypt ``value`` at the fixed exponent with fresh randomness r (phe draws it).

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The receiver's key.
    value : float or int
        The plaintext, rounded exactly to the grid 16**exponent.
    exponent : int, default=-26
        The fixed base-16 exponent (public).
    max_summands : int, default=1
        How many such values may later be added homomorphically (``OverflowError`` if their sum
        could leave phe's signed range).

    Returns
    -------
    phe.paillier.EncryptedNumber
        The ciphertext.
    """
    return public_key.encrypt(encode_fixed(public_key, value, exponent, max_summands=max_summands))


def decode_mantissa(n, max_int, m):
    """phe's signed decoding of a plaintext ``m`` ∈ Z_n; ``OverflowError`` in the band n/3 … 2n/3."""
    if m <= max_int:
        return int(m)
    if m >= n - max_int:
        return int(m) - int(n)
    raise OverflowError("decrypted value is in the overflow band: a homomorphic sum wrapped around")


def decrypt_exact(private_key, ciphertext):
    """Decrypt to an exact :class:`fractions.Fraction` (signed mantissa · 16**exponent).

    Raises ``OverflowError`` if the plaintext lies in phe's overflow band (n/3 … 2n/3).  A sum
    that wrapped past the band could decode to a wrong number, and no decryption can tell; sums
    therefore never wrap in the first place: every value is encoded for a declared number of
    summands (:func:`encode_grid_integer` refuses ``|m| · max_summands > n/3``) and the
    protocol bounds every plaintext it forms before a key is made (:func:`check_capacity`).

    Parameters
    ----------
    private_key : phe.paillier.PaillierPrivateKey
        The key.
    ciphertext : phe.paillier.EncryptedNumber
        The ciphertext.

    Returns
    -------
    fractions.Fraction
        The exact plaintext.
    """
    encoded = private_key.decrypt_encoded(ciphertext)
    pk = encoded.public_key
    mantissa = decode_mantissa(pk.n, pk.max_int, encoded.encoding)
    return Fraction(mantissa) * Fraction(BASE) ** encoded.exponent


def max_int_lower_bound(key_length):
    """The smallest phe ``max_int`` (= n // 3 − 1) over all moduli n of ``key_length`` bits."""
    return (1 << (int(key_length) - 1)) // 3 - 1


def check_capacity(key_length, mantissa_bound, *, name, what):
    """Refuse, before a key exists, a plaintext that could exceed every ``key_length``-bit key's range.

    ``mantissa_bound``: a proven bound on |mantissa| of the largest plaintext a sum will reach.
    Raises ``ValueError`` naming ``name`` (the argument to change) and saying ``what`` overflows.
    """
    limit = max_int_lower_bound(key_length)
    if mantissa_bound > limit:
        raise ValueError(
            f"{name}: {what} would need about {int(mantissa_bound).bit_length()} bits of plaintext, but a "
            f"{key_length}-bit Paillier key holds {limit.bit_length()} (the homomorphic sums would wrap); "
            f"use a smaller {name} or a longer key"
        )


# -- reproducible randomness and precomputed obfuscators -----------------------------------------
def new_secret(rng=None):
    """Draw 32 random bytes: from the numpy Generator ``rng`` when given (reproducible), else from :mod:`secrets`.

    Parameters
    ----------
    rng : numpy.random.Generator or None, default=None
        Draw the bytes from it (reproducible: for teaching only); ``None``: :mod:`secrets`.

    Returns
    -------
    bytes
        32 random bytes.
    """
    return bytes(rng.bytes(32)) if rng is not None else secrets.token_bytes(32)


def derive_secret(secret, label):
    """An independent 32-byte secret for one party or purpose (SHA-256 of secret and label)."""
    return hashlib.sha256(bytes(secret) + b"\x00" + str(label).encode()).digest()


def prf_int(secret, label, index, bits):
    """A uniform integer in [0, 2**bits) from SHAKE-256(secret, label, index): deterministic, unpredictable."""
    data = hashlib.shake_256(bytes(secret) + str(label).encode() + b"\x00" + int(index).to_bytes(8, "big"))
    return int.from_bytes(data.digest((bits + 7) // 8), "big") >> ((-bits) % 8)


def random_units(n, secret, start, count):
    """The encryption randomness r_start … r_{start+count−1} ∈ Z_n^* of one party, from its secret.

    r_i = SHAKE-256(secret, i, j) mod n for the first attempt j with gcd(r, n) = 1 (64 extra bits
    make the bias below 2^-64); the same secret always gives the same r's, in any process.
    """
    n = int(n)
    bits = n.bit_length() + 64
    out = []
    for i in range(int(start), int(start) + int(count)):
        j = 0
        while True:
            r = prf_int(secret, f"r/{j}", i, bits) % n
            if r > 0 and math.gcd(r, n) == 1:
                break
            j += 1  # pragma: no cover - probability about 2^-1000
        out.append(r)
    return out


def obfuscators(n, secret, start, count):
    """r_iⁿ mod n² for r_i = :func:`random_units` — the expensive half of an encryption, data-free."""
    require_phe()
    from phe.util import powmod

    n = int(n)
    nsquare = n * n
    return [int(powmod(r, n, nsquare)) for r in random_units(n, secret, start, count)]


def encrypt_mantissa(public_key, mantissa, exponent, obfuscator):
    """E[m · 16**e] = (1 + n·m) · rⁿ mod n² with a precomputed obfuscator rⁿ (phe's own formula)."""
    phe = require_phe()
    from phe.util import mulmod

    n, nsquare = public_key.n, public_key.nsquare
    nude = (n * (int(mantissa) % n) + 1) % nsquare
    return phe.EncryptedNumber(public_key, int(mulmod(nude, obfuscator, nsquare)), exponent)


def rerandomise(ciphertext, obfuscator):
    """A fresh-looking ciphertext of the same plaintext: c · rⁿ mod n² (what phe's ``obfuscate`` does)."""
    phe = require_phe()
    from phe.util import mulmod

    pk = ciphertext.public_key
    c = int(mulmod(ciphertext.ciphertext(be_secure=False), obfuscator, pk.nsquare))
    return phe.EncryptedNumber(pk, c, ciphertext.exponent)


def ciphertext_bytes(ciphertext):
    """Measure the ciphertext integer c ∈ Z_{n²} in bytes (≈ 2 × key length / 8).

    Reads the stored integer without re-randomising it (``be_secure=False``).

    Parameters
    ----------
    ciphertext : phe.paillier.EncryptedNumber
        The ciphertext.

    Returns
    -------
    int
        Its size in bytes.
    """
    c = ciphertext.ciphertext(be_secure=False)
    return (int(c).bit_length() + 7) // 8


def is_ciphertext(obj):
    phe = require_phe()
    return isinstance(obj, phe.EncryptedNumber)


def is_public_key(obj):
    phe = require_phe()
    return isinstance(obj, phe.PaillierPublicKey)
