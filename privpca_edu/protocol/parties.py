r"""The three roles of DPDPCA as objects: :class:`DataOwner`, :class:`Proxy`, :class:`DataUser`.

Each class holds exactly what its party may know:

=============  =============================================  ==========================================
party          holds in plaintext                             receives
=============  =============================================  ==========================================
DataOwner l    its rows :math:`X^l` and share (R^l, v^l, N^l)  the public key
Proxy          N (the public count), its mask b, its noise G′  the public key; E[R^l], E[v^l], E[N^l]
               (when it adds it)                               from every owner; N from the data user
DataUser       the key pair; then R′, v′, N and S′ = S + G′   E[N]; E[R′], E[v′]
=============  =============================================  ==========================================

The proxy's arithmetic (Algorithm 1 of the paper, spec §4) uses only Paillier's two
homomorphisms — ciphertext × ciphertext (adds plaintexts) and ciphertext ^ integer
(multiplies a plaintext by a public constant) — through ``phe``'s ``+`` and ``*``.

Exactness.  All owner values sit on the grid 16⁻¹³ (:data:`._crypto.FIXED_EXPONENT`).  The
proxy draws its mask as :math:`b = N\tilde b` with :math:`\tilde b` on the same grid, so
:math:`b_j/N = \tilde b_j` and :math:`b_ib_j/N = N\tilde b_i\tilde b_j` are exact grid numbers
and

.. math:: G_{ij} = v_i\tilde b_j + \tilde b_i v_j + N\tilde b_i\tilde b_j
          \quad\Longrightarrow\quad
          R' - \tfrac1N v'v'^\top = R + G + G' - \tfrac1N (v+b)(v+b)^\top = S + G'

holds *exactly* in the plaintext integers (the data user computes it with
:class:`fractions.Fraction`).  The decrypted :math:`S'` therefore never depends on b, however
large b is, and equals S + G′ up to the 2⁻⁵³ rounding of the owners' entries.
"""

from __future__ import annotations

import random
import time

import numpy as np

from .._validation import check_array, check_positive, clip_rows
from . import _crypto
from .mechanism import owner_shares, upper_indices

__all__ = ["DataOwner", "Proxy", "DataUser", "OWNER_LAYOUT"]

#: Order of the values in an owner's message: upper triangle of R (row-major), then v, then N.
OWNER_LAYOUT = ("R upper triangle", "v", "N")


def _superscript(i):
    return str(i).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _owner_values(R, v, N, noise=None):
    """The plaintext numbers an owner encrypts, in :data:`OWNER_LAYOUT` order (Python numbers)."""
    iu = upper_indices(R.shape[0])
    R = R if noise is None else R + noise
    # float()/int(): numpy scalars must not reach phe (numpy.int64 overflows in its arithmetic).
    return [float(x) for x in R[iu]] + [float(x) for x in v] + [int(N)]


def _encrypt_values(public_key, values, exponent=_crypto.FIXED_EXPONENT):
    return [_crypto.encrypt_fixed(public_key, x, exponent) for x in values]


def _encrypt_worker(args):
    """Process-pool entry point: encrypt one owner's values, return (ciphertext ints, exponent, seconds)."""
    n, values, exponent = args
    phe = _crypto.require_phe()
    public_key = phe.PaillierPublicKey(n)
    t0 = time.perf_counter()
    cts = _encrypt_values(public_key, values, exponent)
    return [c.ciphertext(be_secure=False) for c in cts], exponent, time.perf_counter() - t0


class DataOwner:
    """A data owner holding rows :math:`X^l` (same M features as every other owner).

    Parameters
    ----------
    X : array (N^l, M)
        This owner's records; validated (finite, at least one row) and clipped to ``data_norm``
        on a copy when the owner is created — before anything is encrypted.
    data_norm : float
        The public row-norm bound B of the privacy proof.
    name : str
    """

    def __init__(self, X, *, data_norm=1.0, name="owner 1"):
        self.name = str(name)
        X = check_array(X, name=self.name)
        self.data_norm = check_positive(data_norm, "data_norm")
        self._X, self.n_clipped = clip_rows(X, self.data_norm, name=self.name, warn=False)
        self.n_samples, self.n_features = self._X.shape
        self.public_key = None
        self.encrypt_seconds = None

    def receive_public_key(self, public_key):
        self.public_key = public_key

    def shares(self):
        """The plaintext share (R^l, v^l, N^l).  It never leaves the owner; tests and teaching read it."""
        return owner_shares(self._X)

    def plaintext_values(self, noise=None):
        """The numbers this owner encrypts (R^l upper triangle [+ its noise share], v^l, N^l)."""
        R, v, N = self.shares()
        return _owner_values(R, v, N, noise)

    def encrypt_shares(self, noise=None, exponent=_crypto.FIXED_EXPONENT):
        """Encrypt the share under the data user's public key: M(M+1)/2 + M + 1 ciphertexts.

        ``noise`` (optional, (M, M) symmetric): this owner's share of the DP noise, added to R^l
        before encryption (``noise_by="owners"``).  Returns the list of ``EncryptedNumber``.
        """
        if self.public_key is None:
            raise RuntimeError(f"{self.name} has no public key yet")
        t0 = time.perf_counter()
        cts = _encrypt_values(self.public_key, self.plaintext_values(noise), exponent)
        self.encrypt_seconds = time.perf_counter() - t0
        return cts


class Proxy:
    """The honest-but-curious intermediary: aggregates, masks, corrects and adds noise — blind.

    It has the public key only.  Its plaintext knowledge is N (told by the data user), and the
    mask b and the noise G′ it draws itself; everything it receives from the owners is a
    ciphertext.  ``operations`` counts its homomorphic operations (spec §11, target 14).
    """

    name = "proxy"

    def __init__(self):
        self.public_key = None
        self.n_features = None
        self.n_samples = None  # N, once the data user has told it
        self._received = []
        self._enc_R = self._enc_v = self._enc_N = None
        self.operations = dict(ciphertext_additions=0, scalar_multiplications=0, constant_additions=0,
                               rerandomisations=0)

    # -- step 1 and 2 -------------------------------------------------------------------------
    def receive_public_key(self, public_key):
        self.public_key = public_key

    def receive_shares(self, ciphertexts, n_features):
        """Store one owner's ciphertexts (checked: EncryptedNumbers under our key, right count)."""
        m = n_features * (n_features + 1) // 2 + n_features + 1
        if len(ciphertexts) != m:
            raise ValueError(f"expected {m} ciphertexts for M = {n_features}, got {len(ciphertexts)}")
        for c in ciphertexts:
            if not _crypto.is_ciphertext(c) or c.public_key != self.public_key:
                raise TypeError("the proxy accepts only ciphertexts under the data user's public key")
        if self.n_features is None:
            self.n_features = int(n_features)
        elif self.n_features != n_features:
            raise ValueError(f"owner shares disagree on M: {self.n_features} vs {n_features}")
        self._received.append(list(ciphertexts))

    # -- step 3.1: aggregate ------------------------------------------------------------------
    def aggregate(self, method="sequential"):
        """E[R], E[v], E[N] = entrywise products of all owners' ciphertexts (sums of plaintexts).

        ``"sequential"``: ((c₁·c₂)·c₃)…; ``"tree"``: pairwise rounds (log₂ L deep, what a parallel
        proxy would do).  Both do L − 1 additions per entry and decrypt to the same sums.
        """
        if not self._received:
            raise RuntimeError("the proxy has received no shares")
        lists = [list(x) for x in self._received]
        if method == "sequential":
            total = lists[0]
            for other in lists[1:]:
                total = [a + b for a, b in zip(total, other)]
                self.operations["ciphertext_additions"] += len(total)
        elif method == "tree":
            while len(lists) > 1:
                nxt = []
                for i in range(0, len(lists) - 1, 2):
                    nxt.append([a + b for a, b in zip(lists[i], lists[i + 1])])
                    self.operations["ciphertext_additions"] += len(lists[i])
                if len(lists) % 2:
                    nxt.append(lists[-1])
                lists = nxt
            total = lists[0]
        else:
            raise ValueError(f"aggregation must be 'sequential' or 'tree', got {method!r}")
        M = self.n_features
        m = M * (M + 1) // 2
        self._enc_R, self._enc_v, self._enc_N = total[:m], total[m:m + M], total[m + M]
        return self

    @property
    def aggregated(self):
        """(E[R] upper triangle, E[v], E[N]) — ciphertexts."""
        return self._enc_R, self._enc_v, self._enc_N

    # -- step 3.2: learn N ----------------------------------------------------------------------
    def encrypted_count(self):
        """E[N], re-randomised, for the data user to decrypt."""
        c = self._enc_N + 0  # a copy (phe adds an encoded 0)
        c.obfuscate()
        return c

    def learn_count(self, n_samples):
        self.n_samples = int(n_samples)

    # -- steps 3.3–3.6: mask, correction term, noise ------------------------------------------
    def draw_mask(self, mask_scale=None, data_norm=1.0):
        r"""The secret mask as grid integers :math:`\tilde b_i 16^{13}` (b = N·b̃).

        :math:`b_i \sim N(0, \beta^2)` with β = ``mask_scale`` (default 1000·N·B: a thousand times
        the largest possible :math:`|v_i| \le NB`), drawn from the operating system's secure
        generator (:class:`random.SystemRandom`), not from ``random_state``: the released S′ does
        not depend on b at all, so reproducibility costs nothing by keeping it secret and fresh.
        """
        N = self.n_samples
        beta = 1000.0 * N * data_norm if mask_scale is None else check_positive(mask_scale, "mask_scale")
        sysrand = random.SystemRandom()
        scale = _crypto.BASE ** (-_crypto.FIXED_EXPONENT)
        return [int(round(sysrand.gauss(0.0, beta / N) * scale)) for _ in range(self.n_features)]

    def release(self, noise=None, *, mask_scale=None, data_norm=1.0, rerandomize=True):
        r"""Algorithm 1, lines 6–11: E[R′] = E[R]·E[G]·E[G′] and E[v′] = E[v]·E[b].

        ``noise``: the proxy's noise G′ (M×M symmetric, plaintext it drew itself) or None when
        the owners added the noise.  The mask b is fresh for every release.  Returns
        (E[R′] upper triangle, E[v′]), re-randomised (``rerandomize``) before they leave.
        """
        if self.n_samples is None:
            raise RuntimeError("the proxy must learn N (step 3.2) before the release")
        pk = self.public_key
        M = self.n_features
        N = self.n_samples
        e = _crypto.FIXED_EXPONENT
        b = self.draw_mask(mask_scale, data_norm)  # b̃ mantissas (value b̃_i = b[i]·16^e)
        b_scaled = [_crypto.encode_grid_integer(pk, bi, e) for bi in b]  # b̃_j = b_j/N, public to no one
        enc_R, enc_v, _ = self.aggregated
        iu = upper_indices(M)
        out_R = []
        for idx, (i, j) in enumerate(zip(*iu)):
            # E[G_ij] = E[v_i]^(b_j/N) · E[v_j]^(b_i/N) · E[b_i b_j / N]
            g = enc_v[i] * b_scaled[j] + enc_v[j] * b_scaled[i]
            g = g + _crypto.encode_grid_integer(pk, N * b[i] * b[j], 2 * e)
            self.operations["scalar_multiplications"] += 2
            self.operations["ciphertext_additions"] += 1
            self.operations["constant_additions"] += 1
            r = enc_R[idx] + g
            self.operations["ciphertext_additions"] += 1
            if noise is not None:
                r = r + _crypto.encode_fixed(pk, float(noise[i, j]), e)
                self.operations["constant_additions"] += 1
            out_R.append(r)
        # E[v'] = E[v] · E[b], b_i = N b̃_i, added as a plaintext constant on the same grid.
        out_v = [enc_v[i] + _crypto.encode_grid_integer(pk, N * b[i], e) for i in range(M)]
        self.operations["constant_additions"] += M
        if rerandomize:
            for c in out_R + out_v:
                c.obfuscate()
            self.operations["rerandomisations"] += len(out_R) + len(out_v)
        return out_R, out_v


class DataUser:
    """The analyst: generates the key pair, decrypts, forms S′ and its eigenvectors.

    Parameters
    ----------
    key_length : int, default 2048
        Bits of the Paillier modulus (≥ 1024; below 2048 an :class:`InsecureKeyWarning`).
    keypair : (public_key, private_key), optional
        Reuse an existing ``phe`` key pair (to save key generation in tests and demos).
    """

    name = "data user"

    def __init__(self, key_length=_crypto.SECURE_KEY_LENGTH, *, keypair=None):
        if keypair is None:
            self.key_length = _crypto.check_key_length(key_length)
            t0 = time.perf_counter()
            self.public_key, self._private_key = _crypto.generate_keypair(self.key_length)
            self.keygen_seconds = time.perf_counter() - t0
        else:
            self.public_key, self._private_key = keypair
            self.key_length = _crypto.check_key_length(_crypto.key_length_of(self.public_key))
            self.keygen_seconds = 0.0
        self.n_samples = None
        self.decryptions = 0

    def decrypt_count(self, encrypted_count):
        """Step 3.2: decrypt E[N] and return N in the clear (it goes back to the proxy)."""
        value = _crypto.decrypt_exact(self._private_key, encrypted_count)
        self.decryptions += 1
        if value.denominator != 1 or value < 1:
            raise ValueError(f"decrypted count is not a positive integer: {value}")
        self.n_samples = int(value)
        return self.n_samples

    def decrypt_release(self, enc_R_upper, enc_v, n_features):
        r"""Eq. (22): decrypt R′, v′ and form :math:`S' = R' - v'v'^\top/N` exactly, then round once.

        Returns (S′ (M, M) float symmetric, R′ (M, M) float, v′ (M,) float).
        """
        if self.n_samples is None:
            raise RuntimeError("the data user must know N before forming S'")
        M = int(n_features)
        N = self.n_samples
        R_exact = [_crypto.decrypt_exact(self._private_key, c) for c in enc_R_upper]
        v_exact = [_crypto.decrypt_exact(self._private_key, c) for c in enc_v]
        self.decryptions += len(R_exact) + len(v_exact)
        iu = upper_indices(M)
        S = np.empty((M, M))
        R = np.empty((M, M))
        for value, i, j in zip(R_exact, *iu):
            s = float(value - v_exact[i] * v_exact[j] / N)
            S[i, j] = S[j, i] = s
            R[i, j] = R[j, i] = float(value)
        v = np.array([float(x) for x in v_exact])
        return S, R, v

    @property
    def holds_private_key(self):
        return self._private_key is not None


def _fmt_owner_content(l):
    s = _superscript(l)
    return f"E[R{s}] upper triangle, E[v{s}], E[N{s}]"
