r"""The three roles of DPDPCA as objects: :class:`DataOwner`, :class:`Proxy`, :class:`DataUser`.

Each class holds exactly what its party may know:

=============  =============================================  ==========================================
party          holds in plaintext                             receives
=============  =============================================  ==========================================
DataOwner l    its rows :math:`X^l` and share (R^l, v^l, N^l)  the public key
Proxy          N (the public count), its mask b, its noise G′  the public key; E[R^l], E[v^l], E[N^l]
               (when it adds it)                               from every owner; N from the data user
DataUser       the key pair; then N·R′, v′, N and S′ = S + G′  E[N]; E[N·R′], E[v′]
=============  =============================================  ==========================================

The proxy's arithmetic (Algorithm 1 of the paper) uses only Paillier's two homomorphisms —
ciphertext × ciphertext (adds plaintexts) and ciphertext ^ integer (multiplies a plaintext by a
public constant) — on the raw ciphertext integers (phe's own formulas), so that the work can be
cut into chunks and run in other processes.

Units and grid.  Owners encode :math:`R^l/B^2` and :math:`v^l/B` (B the public row-norm bound)
on the grid :math:`h = 16^{-26} = 2^{-104}` (:data:`._crypto.FIXED_EXPONENT`): products of two
grid numbers live on :math:`h^2`.

What the data user receives, exactly.  The data user decrypts exact integers, so every digit it
sees must be accounted for.  The proxy draws its mask b on the *same* grid h as v (a double-precision
Gaussian with its last unit filled by uniform digits), so :math:`v' = v + b` is the rounding to h
of :math:`v + \text{Gaussian}` — a post-processing of a Gaussian release of v, nothing more.  It
sends :math:`N R'` (not :math:`R'`, which would need a division by N):

.. math:: NR' = NR + vb^\top + bv^\top + bb^\top + N G' + D,

all on the grid :math:`h^2`; G′ is added at that finest grid with full support (Gaussian plus
uniform last digits; with ``noise_by="owners"`` the owners' noise is on h and the proxy's dither D,
uniform in :math:`[0, Nh)` per entry, fills the digits below).  The data user forms

.. math:: S' = \frac{NR' - v'v'^\top}{N} = R - \frac{vv^\top}{N} + G' + \frac{D}{N} = S + G' + D/N

exactly (the mask cancels whatever its size), where :math:`|D/N| < h = 2^{-104}` in units of B².
Without the fine noise and dither, the low digits of :math:`NR' - v'v'^\top` would be those of
:math:`-vv^\top` and give v away (number theory on exact integers); with them, they are uniform.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from .._validation import check_data, check_positive
from . import _crypto
from ._parallel import chunk_ranges, run_tasks
from .mechanism import owner_shares, upper_indices

__all__ = ["DataOwner", "Proxy", "DataUser", "OWNER_LAYOUT", "MIN_RELATIVE_SIZE"]

#: Order of the values in an owner's message: upper triangle of R (row-major), then v, then N.
OWNER_LAYOUT = ("R upper triangle", "v", "N")

#: Rows whose squared norm is below MIN_RELATIVE_SIZE · B² keep fewer than 26 bits of their share on
#: the grid 2⁻¹⁰⁴·B².  They are encoded all the same (the absolute error stays below the grid, far
#: below any DP noise): an owner refusing them would abort the protocol for some data sets and not
#: for their neighbours (a zero row was accepted, 1e-12 refused) — a data-dependent side channel.
MIN_RELATIVE_SIZE = 2.0**-78


def _superscript(i):
    return str(i).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _grid_shift():
    """log₂ of 1/h: mantissa = value · 2**shift on the grid h = 16**FIXED_EXPONENT."""
    return -4 * _crypto.FIXED_EXPONENT


def _mantissa(x, shift):
    """round(x · 2**shift), exact (x a float or int)."""
    return round(Fraction(float(x)) * (1 << shift)) if not isinstance(x, int) else int(x) << shift


def _fine_gaussian_mantissa(x, shift, factor, secret, label, index):
    r"""round(factor · x · 2**shift) plus uniform digits below the last unit of the double ``x``.

    A double-precision Gaussian draw lives on a lattice of spacing ulp(x); scaled to the grid
    2^-shift that spacing is ``factor·ulp(x)·2**shift`` units, with holes between.  Adding a
    uniform integer in [−w/2, w/2) fills them, so the result has every integer in its support
    (a Gaussian rounded to the grid, up to the sampler's double precision).
    """
    m = round(Fraction(float(x)) * factor * (1 << shift))
    w = int(Fraction(math.ulp(float(x))) * factor * (1 << shift))
    if w >= 2:
        m += _crypto.prf_int(secret, label, index, w.bit_length() + 64) % w - w // 2
    return m


def _robust_clip(X, data_norm):
    """Rows scaled down to norm ``data_norm`` (on a copy) without overflow for huge entries.

    Returns (clipped copy, number of rows scaled down).  Norms are computed on rows divided by
    their largest entry, so 1e200-sized rows are clipped, not turned into zeros or NaN.
    """
    X = np.array(X, dtype=np.float64, copy=True)
    peak = np.max(np.abs(X), axis=1)
    safe = np.where(peak > 0, peak, 1.0)
    unit = X / safe[:, None]
    unit_norm = np.sqrt(np.einsum("ij,ij->i", unit, unit))
    with np.errstate(over="ignore"):
        over = peak * unit_norm > data_norm * (1 + 1e-12)
    if over.any():
        X[over] = unit[over] * (data_norm / unit_norm[over])[:, None]
    return X, int(over.sum())


def _owner_encrypt_job(n, mantissas, exponent, secret, max_summands):
    """One owner's encryption as a self-contained job (joblib/Dask): (ciphertext ints, CPU seconds).

    Rebuilds the public key from n, derives its obfuscators from its own secret and encrypts.
    The time is the job's CPU time: what the owner's own machine would spend, whatever else
    shares this one.
    """
    phe = _crypto.require_phe()
    pk = phe.PaillierPublicKey(int(n))
    t0 = time.process_time()
    for m in mantissas:  # the owner's own check: the L-fold sum cannot wrap
        if abs(m) * max_summands > pk.max_int:
            raise OverflowError("an owner value does not fit the key's range for the number of owners")
    obfs = _crypto.obfuscators(n, secret, 0, len(mantissas))
    cts = [_crypto.encrypt_mantissa(pk, m, exponent, r).ciphertext(be_secure=False) for m, r in zip(mantissas, obfs)]
    return cts, time.process_time() - t0


def _obfuscator_job(n, secret, start, count):
    """A chunk of a party's obfuscators as a job: (rⁿ mod n² ints, CPU seconds)."""
    t0 = time.process_time()
    return _crypto.obfuscators(n, secret, start, count), time.process_time() - t0


def _proxy_entry_job(n, entries, enc_R, enc_v, b, lift, constants, obfs):
    r"""E[N R'_ij] for a chunk of upper-triangle entries, on raw ciphertext integers.

    ``entries``: (i, j) pairs; ``enc_R``: their E[R_ij] ints; ``enc_v``: all E[v] ints; ``b``: the
    mask mantissas; ``lift`` = N·16^26 (raises E[R_ij] from grid h to N·R on h²); ``constants``:
    the plaintext mantissas b_i b_j + N G'_ij + D_ij on h²; ``obfs``: precomputed rⁿ.
    Per entry: E[R]^lift · E[v_i]^{b_j} · E[v_j]^{b_i} · (1 + n·const) · rⁿ  (mod n²).
    """
    from phe.util import invert, mulmod, powmod

    n = int(n)
    n2 = n * n

    def power(c, e):  # c^e mod n², negative e through the inverse (as phe does)
        return powmod(invert(c, n2), -e, n2) if e < 0 else powmod(c, e, n2)

    out = []
    for (i, j), cR, k, r in zip(entries, enc_R, constants, obfs):
        c = mulmod(power(cR, lift), power(enc_v[i], b[j]), n2)
        c = mulmod(c, power(enc_v[j], b[i]), n2)
        c = mulmod(c, (n * (k % n) + 1) % n2, n2)
        out.append(int(mulmod(c, r, n2)))
    return out


def _decrypt_job(n, p, q, cts):
    """Raw Paillier decryptions (ints mod n) of a chunk, with the data user's own key (p, q)."""
    phe = _crypto.require_phe()
    pk = phe.PaillierPublicKey(int(n))
    sk = phe.PaillierPrivateKey(pk, int(p), int(q))
    return [int(sk.raw_decrypt(int(c))) for c in cts]


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
        The party's name in the transcript.

    Attributes
    ----------
    n_clipped : int
        How many of *this owner's* rows it scaled down to ``data_norm``.  The owner's local,
        non-private diagnostic: it is never sent to anyone and appears in no result.
    """

    def __init__(self, X, *, data_norm=1.0, name="owner 1"):
        self.name = str(name)
        X = check_data(X, name=self.name)
        self.data_norm = check_positive(data_norm, "data_norm")
        self._X, self.n_clipped = _robust_clip(X, self.data_norm)
        self.n_samples, self.n_features = self._X.shape
        # rows of norm <= 1: what is encoded.  However short they are, they are encoded (to the grid
        # data_norm² · 2^-104): refusing short rows would abort the protocol depending on the data.
        self._units = self._X / self.data_norm
        self.public_key = None
        self.encrypt_seconds = None

    def receive_public_key(self, public_key):
        """Store the data user's public key (step 1).

        Parameters
        ----------
        public_key : phe.paillier.PaillierPublicKey
            The key.
        """
        self.public_key = public_key

    def shares(self):
        """Return the plaintext share (R^l, v^l, N^l).  It never leaves the owner; tests and teaching read it.

        Returns
        -------
        R : ndarray, shape (M, M)
            The matrix R^l = XᵀX.
        v : ndarray, shape (M,)
            The column sums v^l = Xᵀ1.
        N : int
            The number of rows N^l.
        """
        return owner_shares(self._X)

    def plaintext_values(self, noise=None):
        """List the numbers this owner encodes, in units: R^l/B² upper triangle [+ its noise share/B²], v^l/B, N^l.

        Parameters
        ----------
        noise : array_like of shape (M, M) or None, default=None
            This owner's symmetric share of the DP noise (``noise_by="owners"``), added to R^l.

        Returns
        -------
        list
            The upper triangle of R^l/B² (+ noise/B²) and v^l/B as floats, then N^l as an int.
        """
        R, v, N = owner_shares(self._units)
        iu = upper_indices(self.n_features)
        R = R if noise is None else R + np.asarray(noise) / self.data_norm**2
        return [float(x) for x in R[iu]] + [float(x) for x in v] + [int(N)]

    def mantissas(self, noise=None, secret=b""):
        """Compute the integer mantissas on the grid h = 16⁻²⁶ of :meth:`plaintext_values`.

        A noise share (``noise_by="owners"``) is rounded with uniform last digits
        (:func:`_fine_gaussian_mantissa`) so that it has every grid point in its support.

        Parameters
        ----------
        noise : array_like of shape (M, M) or None, default=None
            This owner's symmetric share of the DP noise (``noise_by="owners"``), added to R^l.
        secret : bytes, default=b""
            Seed of the noise's uniform last digits.

        Returns
        -------
        list of int
            The mantissas, in the order of :meth:`plaintext_values`.
        """
        shift = _grid_shift()
        R, v, N = owner_shares(self._units)
        iu = upper_indices(self.n_features)
        out = [_mantissa(float(x), shift) for x in R[iu]]
        if noise is not None:
            z = np.asarray(noise)[iu] / self.data_norm**2
            out = [m + _fine_gaussian_mantissa(float(g), shift, 1, secret, "owner noise", k)
                   for k, (m, g) in enumerate(zip(out, z))]
        return out + [_mantissa(float(x), shift) for x in v] + [int(N)]

    def encryption_job(self, secret, noise=None, max_summands=1):
        """Build the arguments of the encryption job for this owner (what a worker needs).

        Parameters
        ----------
        secret : bytes
            32 bytes from which the noise digits and the encryption randomness are derived.
        noise : array_like of shape (M, M) or None, default=None
            This owner's symmetric share of the DP noise (``noise_by="owners"``), added to R^l.
        max_summands : int, default=1
            How many owners' values will be added homomorphically.

        Returns
        -------
        tuple
            ``(n, mantissas, exponent, randomness secret, max_summands)``.

        Raises
        ------
        RuntimeError
            If the owner has no public key yet.
        """
        if self.public_key is None:
            raise RuntimeError(f"{self.name} has no public key yet")
        noise_secret = _crypto.derive_secret(secret, "noise")
        values = self.mantissas(noise, noise_secret)
        return (self.public_key.n, values, _crypto.FIXED_EXPONENT, _crypto.derive_secret(secret, "r"), max_summands)

    def encrypt_shares(self, noise=None, secret=None, max_summands=1):
        """Encrypt the share under the data user's public key: M(M+1)/2 + M + 1 ciphertexts.

        Parameters
        ----------
        noise : array_like of shape (M, M) or None, default=None
            This owner's symmetric share of the DP noise (``noise_by="owners"``), added to R^l.
        secret : bytes or None, default=None
            32 bytes from which the owner's encryption randomness is derived (``None``: fresh from
            :mod:`secrets`).
        max_summands : int, default=1
            How many owners' values will be added homomorphically.

        Returns
        -------
        list of phe.paillier.EncryptedNumber
            The ciphertexts.
        """
        phe = _crypto.require_phe()
        secret = _crypto.new_secret() if secret is None else secret
        cts, self.encrypt_seconds = _owner_encrypt_job(*self.encryption_job(secret, noise, max_summands))
        return [phe.EncryptedNumber(self.public_key, c, _exponent_at(k, self.n_features)) for k, c in enumerate(cts)]


def _exponent_at(k, M):
    """Exponent of the k-th value of an owner's message: the grid for R and v, 0 for the count N."""
    return 0 if k == M * (M + 1) // 2 + M else _crypto.FIXED_EXPONENT


class Proxy:
    """The honest-but-curious intermediary: aggregates, masks, corrects and adds noise — blind.

    It has the public key only.  Its plaintext knowledge is N (told by the data user), and the
    mask b, the dither D and the noise G′ it draws itself; everything it receives from the owners
    is a ciphertext.  ``operations`` counts its homomorphic operations.
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
        """Store the data user's public key (step 1).

        Parameters
        ----------
        public_key : phe.paillier.PaillierPublicKey
            The key.
        """
        self.public_key = public_key

    def receive_shares(self, ciphertexts, n_features):
        """Store one owner's ciphertexts (checked: EncryptedNumbers under our key, right count).

        Parameters
        ----------
        ciphertexts : sequence of phe.paillier.EncryptedNumber
            The owner's M(M+1)/2 + M + 1 ciphertexts.
        n_features : int
            Its number of features M.

        Raises
        ------
        ValueError
            If the count is wrong or the owners disagree on M.
        TypeError
            If an item is not a ciphertext under the data user's key.
        """
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
        """Form E[R], E[v], E[N]: entrywise products of all owners' ciphertexts (sums of plaintexts).

        ``"sequential"``: ((c₁·c₂)·c₃)…; ``"tree"``: pairwise rounds (log₂ L deep, what a parallel
        proxy would do).  Both do L − 1 additions per entry and decrypt to the same sums.

        Parameters
        ----------
        method : {"sequential", "tree"}, default="sequential"
            The order of the sums.

        Returns
        -------
        Proxy
            The proxy itself.
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
    def encrypted_count(self, obfuscator=None):
        """Re-randomise E[N] for the data user.

        Parameters
        ----------
        obfuscator : int or None, default=None
            A precomputed rⁿ (``None``: phe's fresh one).

        Returns
        -------
        phe.paillier.EncryptedNumber
            E[N], re-randomised.
        """
        if obfuscator is not None:
            return _crypto.rerandomise(self._enc_N, obfuscator)
        c = self._enc_N + 0  # a copy (phe adds an encoded 0)
        c.obfuscate()
        return c

    def learn_count(self, n_samples):
        """Store N, told by the data user (step 3.2).

        Parameters
        ----------
        n_samples : int
            The total number of rows N.
        """
        self.n_samples = int(n_samples)

    # -- steps 3.3–3.6: mask, correction term, noise ------------------------------------------
    def n_release_obfuscators(self):
        """Count the rⁿ one release needs: one per upper-triangle entry of N·R′ and per entry of v′.

        Returns
        -------
        int
            M(M+1)/2 + M.
        """
        M = self.n_features
        return M * (M + 1) // 2 + M

    def draw_mask(self, mask_scale, secret):
        r"""Draw the secret mask b/B as mantissas on the grid h (a Gaussian of sd β/B, all digits random).

        :math:`b_i \sim N(0, \beta^2)` with β = ``mask_scale`` (in the data's units; callers pass the
        default 1000·N·B when the user gave none), drawn from ``secret`` (a double-precision Gaussian
        from a generator seeded with it, then uniform last digits, so that b, like v, fills the grid).

        Parameters
        ----------
        mask_scale : float
            The mask's scale β/B, in the data's units.
        secret : bytes
            The seed of the mask and its digits.

        Returns
        -------
        list of int
            The M mantissas of b/B.
        """
        beta_units = check_positive(mask_scale, "mask_scale")
        seed = np.random.SeedSequence(int.from_bytes(_crypto.derive_secret(secret, "mask gaussian"), "big"))
        gauss = np.random.default_rng(seed).normal(0.0, beta_units, size=self.n_features)
        return [_fine_gaussian_mantissa(float(g), _grid_shift(), 1, secret, "mask digits", i)
                for i, g in enumerate(gauss)]

    def release(self, noise=None, *, mask_scale, secret, obfuscators=None, n_jobs=1, r_slack=0):
        r"""Run Algorithm 1, lines 6–11, on the grid: E[N·R′] and E[v′] = E[v]·E[b], re-randomised.

        Before anything is computed, the largest plaintext of the output is bounded with the
        values actually drawn and checked against the key.

        Parameters
        ----------
        noise : ndarray of shape (M, M) or None, default=None
            The proxy's noise G′ in units of B² (symmetric plaintext it drew itself); ``None`` when the
            owners added the noise.
        mask_scale : float
            The mask's scale β/B.
        secret : bytes
            32 bytes for the mask, the digits and (if ``obfuscators`` is None) the re-randomisation.
        obfuscators : list of int or None, default=None
            Precomputed rⁿ (:meth:`n_release_obfuscators` of them).
        n_jobs : int, default=1
            Processes for the per-entry work.
        r_slack : float, default=0
            A bound on the owners' noise inside E[R] (units of B²; ``noise_by="owners"``).

        Returns
        -------
        enc_NR_upper : list of phe.paillier.EncryptedNumber
            E[N·R′], upper triangle.
        enc_v : list of phe.paillier.EncryptedNumber
            E[v′].

        Raises
        ------
        OverflowError
            If the largest plaintext of the output, bounded with the values actually drawn, would wrap.
        """
        if self.n_samples is None:
            raise RuntimeError("the proxy must learn N (step 3.2) before the release")
        phe = _crypto.require_phe()
        pk = self.public_key
        n = pk.n
        M = self.n_features
        N = self.n_samples
        e = _crypto.FIXED_EXPONENT
        shift = _grid_shift()
        b = self.draw_mask(mask_scale, _crypto.derive_secret(secret, "mask"))
        iu = upper_indices(M)
        entries = list(zip(iu[0].tolist(), iu[1].tolist()))
        # dither D_ij uniform in [0, N·2^104) on h², and the noise N·G'_ij on h² with full support
        digits = _crypto.derive_secret(secret, "digits")
        width = N << shift
        constants = []
        for k, (i, j) in enumerate(entries):
            c = b[i] * b[j] + _crypto.prf_int(digits, "dither", k, width.bit_length() + 64) % width
            if noise is not None:
                c += _fine_gaussian_mantissa(float(noise[i, j]), 2 * shift, N, digits, "noise", k)
            constants.append(c)
        lift = N << shift
        bound = (N * (N + int(r_slack)) * (1 << 2 * shift) + 2 * N * (1 << shift) * max(abs(x) for x in b)
                 + max(abs(c) for c in constants))
        if bound > pk.max_int:
            raise OverflowError("mask_scale or the noise is too large for this key: the sums would wrap")
        count = self.n_release_obfuscators()
        if obfuscators is None:
            obfuscators = precompute_obfuscators(n, _crypto.derive_secret(secret, "r"), count, n_jobs)
        if len(obfuscators) != count:
            raise ValueError(f"expected {count} obfuscators, got {len(obfuscators)}")
        enc_R, enc_v, _ = self.aggregated
        R_ints = [c.ciphertext(be_secure=False) for c in enc_R]
        v_ints = [c.ciphertext(be_secure=False) for c in enc_v]
        tasks = [(_proxy_entry_job, (n, entries[a:z], R_ints[a:z], v_ints, b, lift, constants[a:z], obfuscators[a:z]))
                 for a, z in chunk_ranges(len(entries), n_jobs)]
        out_R = [phe.EncryptedNumber(pk, c, 2 * e) for chunk in run_tasks(tasks, n_jobs) for c in chunk]
        m = len(entries)
        self.operations["scalar_multiplications"] += 3 * m
        self.operations["ciphertext_additions"] += 2 * m
        self.operations["constant_additions"] += m
        # E[v'] = E[v] · E[b]: b on the same grid as v, added as a plaintext constant
        out_v = [_crypto.rerandomise(enc_v[i] + _crypto.encode_grid_integer(pk, b[i], e), obfuscators[m + i])
                 for i in range(M)]
        self.operations["constant_additions"] += M
        self.operations["rerandomisations"] += m + M
        return out_R, out_v


def precompute_obfuscators(n, secret, count, n_jobs=1):
    """``count`` obfuscators rⁿ mod n² from ``secret``, in ``n_jobs`` parallel chunks (same values either way)."""
    tasks = [(_obfuscator_job, (n, secret, a, z - a)) for a, z in chunk_ranges(count, n_jobs)]
    return [r for chunk, _ in run_tasks(tasks, n_jobs) for r in chunk]


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
        """Step 3.2: decrypt E[N] and return N in the clear (it goes back to the proxy).

        Parameters
        ----------
        encrypted_count : phe.paillier.EncryptedNumber
            E[N].

        Returns
        -------
        int
            The number of rows N.

        Raises
        ------
        ValueError
            If the plaintext is not a positive integer.
        """
        value = _crypto.decrypt_exact(self._private_key, encrypted_count)
        self.decryptions += 1
        if value.denominator != 1 or value < 1:
            raise ValueError(f"decrypted count is not a positive integer: {value}")
        self.n_samples = int(value)
        return self.n_samples

    def decrypt_exact_all(self, ciphertexts, n_jobs=1):
        """Decrypt many ciphertexts to exact Fractions, in ``n_jobs`` parallel chunks.

        The chunks run in processes of the data user's own machine (or cluster): its secret primes
        travel to them, as they would to any of its own workers.

        Parameters
        ----------
        ciphertexts : sequence of phe.paillier.EncryptedNumber
            The ciphertexts.
        n_jobs : int, default=1
            Processes.

        Returns
        -------
        list of fractions.Fraction
            The exact plaintexts, in order.
        """
        pk, sk = self.public_key, self._private_key
        ints = [c.ciphertext(be_secure=False) for c in ciphertexts]
        tasks = [(_decrypt_job, (pk.n, sk.p, sk.q, ints[a:z])) for a, z in chunk_ranges(len(ints), n_jobs)]
        plain = [m for chunk in run_tasks(tasks, n_jobs) for m in chunk]
        self.decryptions += len(plain)
        return [Fraction(_crypto.decode_mantissa(pk.n, pk.max_int, m)) * Fraction(_crypto.BASE) ** c.exponent
                for m, c in zip(plain, ciphertexts)]

    def decrypt_release(self, enc_NR_upper, enc_v, n_features, data_norm=1.0, n_jobs=1):
        r"""Decrypt N·R′ and v′ and form :math:`S' = (NR' - v'v'^\top)/N` exactly, then scale by B² and round once.

        Parameters
        ----------
        enc_NR_upper : sequence of phe.paillier.EncryptedNumber
            E[N·R′], upper triangle.
        enc_v : sequence of phe.paillier.EncryptedNumber
            E[v′].
        n_features : int
            The number of features M.
        data_norm : float, default=1.0
            The public row-norm bound B.
        n_jobs : int, default=1
            Processes.

        Returns
        -------
        S : ndarray, shape (M, M)
            The release S′, symmetric, in the data's units.
        R : ndarray, shape (M, M)
            The corrected R′.
        v : ndarray, shape (M,)
            The masked v′.
        """
        if self.n_samples is None:
            raise RuntimeError("the data user must know N before forming S'")
        M = int(n_features)
        N = self.n_samples
        exact = self.decrypt_exact_all(list(enc_NR_upper) + list(enc_v), n_jobs)
        NR_exact, v_exact = exact[:len(enc_NR_upper)], exact[len(enc_NR_upper):]
        B = Fraction(float(data_norm))
        iu = upper_indices(M)
        S = np.empty((M, M))
        R = np.empty((M, M))
        for value, i, j in zip(NR_exact, *iu):
            S[i, j] = S[j, i] = float((value - v_exact[i] * v_exact[j]) / N * B * B)
            R[i, j] = R[j, i] = float(value / N * B * B)
        v = np.array([float(x * B) for x in v_exact])
        return S, R, v

    @property
    def holds_private_key(self):
        """Whether the data user holds its private key."""
        return self._private_key is not None


def _fmt_owner_content(l):
    s = _superscript(l)
    return f"E[R{s}/B²] upper triangle, E[v{s}/B], E[N{s}]"
