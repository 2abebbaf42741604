r"""Paillier through ``phe`` (python-paillier 1.5.0): keys, one fixed-point encoding, exact decoding.

Everything that touches a ciphertext goes through this module, so the rest of the protocol
reads like the paper.  Three decisions live here:

* **Real encryption, imported lazily.**  ``phe`` (GPLv3) is an optional dependency, installed
  with ``pip install privpca_edu[crypto]`` (which also brings ``gmpy2``: about 7× faster
  modular exponentiation).  Importing :mod:`privpca_edu` never needs it.
* **One public exponent.**  ``phe`` stores a real number as ``mantissa · 16**exponent``, and the
  exponent travels *in the clear* next to the ciphertext.  Its default encoding picks the
  exponent from the value's binary order of magnitude (``math.frexp``), so a curious proxy
  would learn roughly how large every encrypted entry is.  Every value an owner encrypts is
  therefore encoded at the same fixed exponent :data:`FIXED_EXPONENT` (−13, i.e. a grid of
  :math:`16^{-13} = 2^{-52}`): the exponent says nothing about the data, and ciphertexts with
  equal exponents add without rescaling.
* **Exact arithmetic at the data user.**  Decryption returns the integer mantissa and the
  exponent; :func:`decrypt_exact` turns them into a :class:`fractions.Fraction`, so
  :math:`S' = R' - v'v'^\top/N` is computed without rounding and the huge mask terms cancel
  exactly (rounding to float happens once, at the end).

Key sizes: 2048 bits (about 112-bit security) is the default.  1024 bits is accepted for demos
and tests with an :class:`InsecureKeyWarning`; below 1024 bits keys are refused (the authors'
code used 128-bit keys, which a laptop factors in a fraction of a second).
"""

from __future__ import annotations

import numbers
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
#: The one exponent every owner value is encoded at: a grid of 16**-13 = 2**-52.
FIXED_EXPONENT = -13


class InsecureKeyWarning(UserWarning):
    """A Paillier key shorter than 2048 bits was used: fine for a demo, not for real data."""


def require_phe():
    """Import and return the ``phe`` module, or explain how to install it."""
    try:
        import phe
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the encrypted protocol needs the Paillier library 'phe' (python-paillier 1.5.0); "
            "install it with:  pip install privpca_edu[crypto]   (or: pip install phe==1.5.0 gmpy2)"
        ) from exc
    return phe


def gmpy2_in_use():
    """True when ``phe`` found ``gmpy2`` (GMP big-integer arithmetic, ~7× faster)."""
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
    """A fresh Paillier key pair ``(public_key, private_key)`` from ``phe``.

    The primes come from ``phe``'s own cryptographically secure generator
    (:class:`random.SystemRandom` + ``gmpy2.next_prime``); no ``random_state`` reaches them, so
    keys are never reproducible — by design.
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


def encode_fixed(public_key, value, exponent=FIXED_EXPONENT):
    """``phe.EncodedNumber`` of ``value`` on the grid 16**exponent (always this exponent).

    Raises ``OverflowError`` if the mantissa does not fit in phe's signed range (|m| ≤ n/3).
    """
    phe = require_phe()
    return encode_grid_integer(public_key, _grid_mantissa(value, exponent), exponent, phe=phe)


def encode_grid_integer(public_key, mantissa, exponent, *, phe=None):
    """``phe.EncodedNumber`` with a given integer mantissa and exponent (value = m · 16**e)."""
    phe = phe or require_phe()
    mantissa = int(mantissa)
    if abs(mantissa) > public_key.max_int:
        raise OverflowError(
            f"value {mantissa} · 16^{exponent} does not fit in the key's plaintext range "
            f"(|mantissa| <= n/3 ≈ 2^{public_key.max_int.bit_length()})"
        )
    return phe.EncodedNumber(public_key, mantissa % public_key.n, exponent)


def encrypt_fixed(public_key, value, exponent=FIXED_EXPONENT):
    """Encrypt ``value`` at the fixed exponent with fresh randomness r (phe draws it)."""
    return public_key.encrypt(encode_fixed(public_key, value, exponent))


def decrypt_exact(private_key, ciphertext):
    """Decrypt to an exact :class:`fractions.Fraction` (signed mantissa · 16**exponent).

    Raises ``OverflowError`` if the plaintext lies in phe's overflow band (n/3 … 2n/3): a sum
    that wrapped around is reported, never silently decoded.
    """
    encoded = private_key.decrypt_encoded(ciphertext)
    n = encoded.public_key.n
    max_int = encoded.public_key.max_int
    m = encoded.encoding
    if m <= max_int:
        mantissa = m
    elif m >= n - max_int:
        mantissa = m - n
    else:
        raise OverflowError("decrypted value is in the overflow band: a homomorphic sum wrapped around")
    e = encoded.exponent
    return Fraction(mantissa) * Fraction(BASE) ** e


def ciphertext_bytes(ciphertext):
    """Size of the ciphertext integer c ∈ Z_{n²} in bytes (≈ 2 × key length / 8).

    Reads the stored integer without re-randomising it (``be_secure=False``).
    """
    c = ciphertext.ciphertext(be_secure=False)
    return (int(c).bit_length() + 7) // 8


def is_ciphertext(obj):
    phe = require_phe()
    return isinstance(obj, phe.EncryptedNumber)


def is_public_key(obj):
    phe = require_phe()
    return isinstance(obj, phe.PaillierPublicKey)
