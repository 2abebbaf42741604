r"""Samplers for the (matrix) Bingham law :math:`p(V) \propto \exp(\mathrm{tr}(V^\top A V))`.

* :func:`sample_bingham_exact` — k = 1, exact: Kent, Ganeiber & Mardia (2018) rejection
  sampler with an angular central Gaussian envelope, vectorised over a batch.
* :func:`bingham_gibbs` — any k: Hoff's (2009) column-wise Gibbs sampler (as in R
  ``rstiefel::rbing.matrix.gibbs``), with the vector Bingham Gibbs scan inside.  The same
  transition kernel as rstiefel's, computed faster: the compressed eigenbasis by rank-one steps
  from A's eigendecomposition (:mod:`._compression`, O(d²) each, shared between the columns of
  a sweep) instead of a d×d eigendecomposition per column, the scan as a scalar recurrence on
  block-drawn variates, and the angle draws (:func:`draw_theta`) exact with a cost bounded in
  the concentration — rstiefel's rejection step alone needs about √|a| proposals, which made
  large ε hang.

A warning that the auditing chapter turns into an exercise: IBM diffprivlib 0.6.6 and OpenDP
0.16 *divide* the KGM acceptance ratio by :math:`(x^\top\Omega x)^{d/2}` where it must be
multiplied.  They then sample :math:`\exp(-x^\top\Psi x)(1 + 2x^\top\Psi x/b)^{-d}`, not the
Bingham law their privacy proofs assume.  :func:`kgm_log_ratio` is the correct ratio; the
``log_ratio`` hook exists so that :mod:`privpca_edu.audit.mutants` can reproduce the bug.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import linalg, optimize
from scipy.linalg import lapack

from .._validation import caller_stacklevel, check_int, as_generator, check_symmetric, single_threaded_blas
from . import _compression


def kgm_envelope(psi):
    """b, the ACG envelope's Ω eigenvalues and log M for Ψ-eigenvalues ``psi`` (min ψ = 0).

    b solves Σᵢ 1/(b + 2ψᵢ) = 1 on [1, d] (the left side decreases in b); Ω = I + 2Ψ/b;
    log M = −(d − b)/2 + (d/2) log(d/b).  The acceptance probability is 1/M.
    """
    psi = np.asarray(psi, dtype=np.float64)
    d = psi.size
    if np.all(psi <= 0):
        b = float(d)
    else:
        b = optimize.brentq(lambda b: np.sum(1.0 / (b + 2 * psi)) - 1.0, 1.0, float(d), xtol=1e-14)
    omega = 1.0 + 2.0 * psi / b
    log_M = -(d - b) / 2 + (d / 2) * math.log(d / b)
    return b, omega, log_M


def kgm_log_ratio(x, psi, omega, log_M):
    r"""Correct log acceptance ratio: :math:`-x^\top\Psi x + \tfrac d2\log(x^\top\Omega x) - \log M`.

    ``x`` is a batch (N, d) of unit vectors in Ψ's eigenbasis.  Target f*(x) = exp(−xᵀΨx);
    ACG envelope density ∝ (xᵀΩx)^{−d/2}; f*/(M·g) multiplies by (xᵀΩx)^{d/2}.
    """
    d = x.shape[1]
    x2 = x * x
    return -(x2 @ psi) + (d / 2) * np.log(x2 @ omega) - log_M


def sample_bingham_exact(A, size=None, random_state=None, *, log_ratio=kgm_log_ratio, return_rate=False):
    r"""Exact draws of a unit vector x with density ∝ exp(xᵀAx) on the sphere (k = 1).

    Kent, Ganeiber & Mardia (2018): rewrite the target as exp(−xᵀΨx) with
    Ψ = λ_max(A) I − A ⪰ 0 (a constant shift on the sphere), propose from the angular central
    Gaussian with Ω = I + 2Ψ/b, accept with probability f*(x)/(M g(x)).

    Parameters
    ----------
    A : (d, d) symmetric
    size : int or None
        Number of draws; ``None`` returns a single (d,) vector.
    random_state : None, int or Generator
    log_ratio : callable
        The acceptance log-ratio (default: the correct :func:`kgm_log_ratio`).  Audits swap in
        broken ones to show the tests catch them.
    return_rate : bool
        Also return the empirical acceptance rate.

    Returns
    -------
    x : (size, d) or (d,) array; the sign is arbitrary (the law is antipodally symmetric).
    """
    A = check_symmetric(A)
    d = A.shape[0]
    rng = as_generator(random_state)
    n = 1 if size is None else check_int(size, "size", low=1)
    lam, W = linalg.eigh(A)
    psi = lam[-1] - lam  # ≥ 0, min 0
    b, omega, log_M = kgm_envelope(psi)
    out = np.empty((n, d))
    filled = 0
    proposed = 0
    accepted = 0
    # The acceptance rate is |Ω|^{1/2}·E_unif[exp(−xᵀΨx)]/M, not 1/M (1/M is only a lower bound
    # and underflows for concentrated laws): start with a modest batch and adapt to the rate seen.
    rate_guess = 0.5
    while filled < n:
        batch = int(min(max(64, 1.2 * (n - filled) / rate_guess), 2_000_000))
        y = rng.standard_normal((batch, d)) / np.sqrt(omega)
        x = y / np.linalg.norm(y, axis=1, keepdims=True)
        logu = np.log(rng.uniform(size=batch))
        ok = logu < log_ratio(x, psi, omega, log_M)
        acc = x[ok][: n - filled]
        out[filled : filled + len(acc)] = acc
        filled += len(acc)
        proposed += batch
        accepted += int(ok.sum())
        rate_guess = max(ok.mean(), 1e-4)
    x = out @ W.T  # back from Ψ's eigenbasis
    x = x[0] if size is None else x
    if return_rate:
        return x, accepted / proposed
    return x


# ---------------------------------------------------------------------------------------------
# Hoff's Gibbs sampler
# ---------------------------------------------------------------------------------------------
_LN2 = math.log(2.0)


class _Draws:
    """Standard normals, uniforms and Gamma(κ) variates drawn from ``rng`` in blocks, handed out
    one at a time as Python floats.

    The scan below is a scalar recurrence (each coordinate's conditional depends on the ones drawn
    before it), so its random numbers cannot be drawn in one vectorised call per coordinate without
    paying NumPy's per-call overhead m times per scan.  Drawing them in blocks and reading them
    from lists gives the same law (every variate is an independent draw of the stated law) at a
    fraction of the cost.  ``proposals`` counts θ proposals (for tests of the bounded cost).
    """

    __slots__ = ("rng", "kappa", "block", "_z", "_u", "_g", "_iz", "_iu", "_ig", "proposals")

    def __init__(self, rng, kappa, block=1024):
        self.rng, self.kappa, self.block = rng, float(kappa), int(block)
        self._z, self._u, self._g = [], [], []
        self._iz = self._iu = self._ig = 0
        self.proposals = 0

    def normal(self):
        if self._iz == len(self._z):
            self._z, self._iz = self.rng.standard_normal(self.block).tolist(), 0
        self._iz += 1
        return self._z[self._iz - 1]

    def uniform(self):
        """Uniform on (0, 1]: its logarithm is finite."""
        if self._iu == len(self._u):
            self._u, self._iu = (1.0 - self.rng.random(self.block)).tolist(), 0
        self._iu += 1
        return self._u[self._iu - 1]

    def gamma(self):
        """Gamma(κ, 1)."""
        if self._ig == len(self._g):
            self._g, self._ig = self.rng.standard_gamma(self.kappa, self.block).tolist(), 0
        self._ig += 1
        return self._g[self._ig - 1]


def _theta_low(a, kappa, draws):
    """Regime a ≤ κ − 1 − b₀ (κ ≥ 1): θ near 0.

    Since log(1 − θ) ≤ −θ, the target θ^{-1/2}(1−θ)^{ν}e^{aθ} (ν = κ − 1 ≥ 0) is at most
    θ^{-1/2}e^{−bθ} with b = ν − a > 0: propose θ ~ Gamma(1/2, rate b) = Z²/(2b) and accept with
    probability (1 − θ)^{ν}e^{νθ} = exp(ν(θ + log(1 − θ))) ≤ 1 (θ ≥ 1 is rejected).
    """
    nu = kappa - 1.0
    b2 = 2.0 * (nu - a)
    while True:
        draws.proposals += 1
        z = draws.normal()
        theta = z * z / b2
        if theta >= 1.0:
            continue
        if nu == 0.0 or math.log(draws.uniform()) <= nu * (theta + math.log1p(-theta)):
            return theta, 1.0 - theta


def _theta_high(a, kappa, draws):
    """Regime a ≥ a_hi: θ near 1.  Exact rejection from a two-piece envelope, with φ = 1 − θ.

    The target is f(θ) = θ^{-1/2} φ^{ν} e^{aθ} = e^{a}·θ^{-1/2} φ^{ν} e^{−aφ} (ν = κ − 1 ≥ −1/2).

    * For θ ≥ 1/2: θ^{-1/2} = exp(−½ log(1 − φ)) ≤ e^{γφ} with γ = log 2 (the exponent is convex
      in φ and equal at φ = 0 and φ = 1/2), so f ≤ h_A = e^{a} φ^{ν} e^{−(a−γ)φ}: a Gamma(κ, a − γ)
      law for φ, of mass e^{a}Γ(κ)(a − γ)^{−κ}.
    * For θ < 1/2: (1 − θ)^{ν}e^{aθ} increases in θ when a ≥ 2ν, so f ≤ h_B = 2^{−ν}e^{a/2}θ^{-1/2},
      of mass 2^{−ν}e^{a/2}·√2 on (0, 1/2), sampled as θ = U²/2.

    Pick a piece with probability proportional to its mass, propose, accept with probability
    f/(h_A + h_B).  All in logarithms relative to e^{a}, so any a is fine; as a → ∞ the piece B
    vanishes and the acceptance tends to 1.
    """
    nu = kappa - 1.0
    rate = a - _LN2
    log_mass_a = math.lgamma(kappa) - kappa * math.log(rate)
    log_kb = -nu * _LN2 - 0.5 * a  # log h_B(θ) − a + ½ log θ
    log_mass_b = log_kb + 0.5 * _LN2
    p_a = 1.0 / (1.0 + math.exp(min(log_mass_b - log_mass_a, 700.0)))
    while True:
        draws.proposals += 1
        if draws.uniform() <= p_a:
            phi = draws.gamma() / rate
            if phi >= 1.0:
                continue
            theta = 1.0 - phi
            log_theta = math.log1p(-phi)
        else:
            u = draws.uniform()
            theta = 0.5 * u * u
            phi = 1.0 - theta
            log_theta = math.log(theta)
        log_phi = math.log(phi) if nu != 0.0 else 0.0
        log_f = -0.5 * log_theta + nu * log_phi - a * phi
        log_h = nu * log_phi - rate * phi
        if theta < 0.5:
            log_hb = log_kb - 0.5 * log_theta
            log_h = max(log_h, log_hb) + math.log1p(math.exp(-abs(log_h - log_hb)))
        if math.log(draws.uniform()) <= log_f - log_h:
            return theta, phi


def rstiefel_envelope(a, kappa):
    """(g, ℓ_max) of rstiefel's Beta(1/2, g) envelope: accept θ when
    log u ≤ aθ + (κ − g) log(1 − θ) − ℓ_max (the min{κ, ·} guard matters only when m = 2)."""
    if a <= 0:
        return kappa, 0.0
    g = min(kappa, max(1.0 / (1.0 + math.log(2.0 + a)), kappa - a))
    return g, a - kappa + g + ((kappa - g) * math.log((kappa - g) / a) if kappa > g else 0.0)


def _theta_middle(a, kappa, rng, draws):
    """Moderate a: rstiefel's Beta(1/2, g) envelope (Hoff 2009), with the min{κ, ·} guard.

    Used only on a bounded range of a (given κ), where its acceptance rate is bounded below.
    """
    g, lmax = rstiefel_envelope(a, kappa)
    while True:
        theta = rng.beta(0.5, g, size=16)
        log_acc = a * theta - lmax
        if kappa != g:
            with np.errstate(divide="ignore"):
                log_acc += (kappa - g) * np.log1p(-theta)
        ok = (np.log(rng.uniform(size=16)) <= log_acc) & (theta < 1.0)
        if ok.any():
            first = int(np.argmax(ok))
            draws.proposals += first + 1
            theta = float(theta[first])
            return theta, 1.0 - theta
        draws.proposals += 16


def _regime_bounds(kappa):
    """(a_low, a_high): θ is drawn near 0 for a ≤ a_low, near 1 for a ≥ a_high (see :func:`draw_theta`)."""
    nu = kappa - 1.0
    a_low = nu - max(0.5, 0.5 * math.sqrt(nu)) if nu >= 0.0 else -math.inf
    return a_low, 2.0 * max(nu, 0.0) + 3.0 * math.sqrt(kappa) + 2.0


def _theta_regime(a, kappa):
    """Which sampler draws θ at (a, κ): 'low', 'high' or 'middle' (see :func:`draw_theta`)."""
    a_low, a_high = _regime_bounds(kappa)
    return "low" if a <= a_low else ("high" if a >= a_high else "middle")


def draw_theta(a, kappa, draws, rng=None):
    r"""θ ∈ (0, 1) with density ∝ θ^{-1/2}(1 − θ)^{κ−1}e^{aθ} (Hoff 2009), as the pair (θ, 1 − θ).

    Exact for every a, with an expected number of proposals bounded in a (for each κ):

    * a ≤ κ − 1 − max(1/2, √(κ−1)/2) (mass near 0): Gamma(1/2) proposal, :func:`_theta_low`;
    * a ≥ 2(κ − 1)⁺ + 3√κ + 2 (mass near 1): gamma/power two-piece envelope, :func:`_theta_high`;
    * in between, a bounded interval of a: rstiefel's Beta(1/2, g) envelope.

    rstiefel's envelope alone accepts a fraction of order |a|^{-1/2} of its proposals for large
    |a| (for a → −∞ the Beta(1/2, κ) proposal spreads over (0, 1) while the target shrinks to
    width 1/|a|), so its cost grows without bound with the concentration ε/(2B²).
    For κ < 1 (m = 2, κ = 1/2) the law at a is that of 1 − θ at −a, which is used for a < 0.
    1 − θ is returned separately because it is computed accurately when θ is close to 1.
    """
    if kappa < 1.0 and a < 0.0:
        phi, theta = draw_theta(-a, kappa, draws, rng)
        return theta, phi
    regime = _theta_regime(a, kappa)
    if regime == "low":
        return _theta_low(a, kappa, draws)
    if regime == "high":
        return _theta_high(a, kappa, draws)
    return _theta_middle(a, kappa, draws.rng if rng is None else rng, draws)


def _scan(lam, y, draws):
    """One Gibbs scan of the unit vector y (coordinates in the eigenbasis, eigenvalues ``lam``).

    For i = 1..m in order: θ = y_i² is redrawn from its full conditional, the tilted Beta with
    a = l_i − Σ_{j≠i} l_j y_j²/(1 − y_i²), the other coordinates are multiplied by
    √((1 − θ)/(1 − y_i²)), and y_i = ±√θ with a fair sign (Hoff 2009; rstiefel ``ry_bing``).

    Signs do not enter any later conditional, so they are drawn at the end in one call.  The
    sums over the other coordinates are kept as a prefix (coordinates already redrawn) plus a
    common factor times a suffix sum of the old squares, so 1 − y_i² and Σ_{j≠i} l_j y_j² are
    sums of non-negative terms — no cancellation when y is close to an axis (large ε).

    The low regime (most coordinates when the law is concentrated) is :func:`_theta_low` written
    out in the loop, reading the same block-drawn variates in the same order as ``draws.normal``
    and ``draws.uniform`` would: the same draws, without three Python calls per coordinate.
    """
    m = lam.size
    kappa = (m - 1) / 2.0
    nu = kappa - 1.0
    a_low = _regime_bounds(kappa)[0]
    rng, block, log, log1p = draws.rng, draws.block, math.log, math.log1p
    zs, iz, us, iu = draws._z, draws._iz, draws._u, draws._iu
    proposals = 0
    w2 = y * y
    lw2 = lam * w2
    suffix = np.zeros(m + 1)
    suffix[:m] = np.cumsum(w2[::-1])[::-1]
    lsuffix = np.zeros(m + 1)
    lsuffix[:m] = np.cumsum(lw2[::-1])[::-1]
    suffix, lsuffix, lam_l, w2_l = suffix.tolist(), lsuffix.tolist(), lam.tolist(), w2.tolist()
    theta_out = [0.0] * m
    factor_out = [1.0] * m
    kept = []
    prefix = lprefix = 0.0
    s2 = 1.0  # common factor of the squares not yet redrawn
    for i in range(m):
        li = lam_l[i]
        rest = prefix + s2 * suffix[i + 1]
        if not rest > 0.0:  # y = ±e_i: the conditional is undefined; keep y_i (as rstiefel does)
            theta = s2 * w2_l[i]
            prefix += theta
            lprefix += li * theta
            theta_out[i] = theta
            kept.append(i)
            continue
        a = li - (lprefix + s2 * lsuffix[i + 1]) / rest
        if a <= a_low:  # _theta_low: θ = Z²/(2(ν − a)), accepted with probability e^{ν(θ + log(1 − θ))}
            b2 = 2.0 * (nu - a)
            while True:
                proposals += 1
                if iz == len(zs):
                    zs, iz = rng.standard_normal(block).tolist(), 0
                theta = zs[iz] * zs[iz] / b2
                iz += 1
                if theta >= 1.0:
                    continue
                if nu == 0.0:
                    break
                if iu == len(us):
                    us, iu = (1.0 - rng.random(block)).tolist(), 0
                iu += 1
                if log(us[iu - 1]) <= nu * (theta + log1p(-theta)):
                    break
            phi = 1.0 - theta
        else:
            draws._z, draws._iz, draws._u, draws._iu = zs, iz, us, iu
            theta, phi = draw_theta(a, kappa, draws)
            zs, iz, us, iu = draws._z, draws._iz, draws._u, draws._iu
        f2 = phi / rest
        prefix = prefix * f2 + theta
        lprefix = lprefix * f2 + li * theta
        s2 *= f2
        theta_out[i] = theta
        factor_out[i] = f2
    draws._z, draws._iz, draws._u, draws._iu = zs, iz, us, iu
    draws.proposals += proposals
    # y_j² at the end = θ_j × Π_{i>j} f2_i (the later rescalings), in logarithms (f2 = 0 only if
    # 1 − θ underflowed: then the earlier coordinates are 0)
    factors = np.asarray(factor_out)
    if factors.min() > 0.0:
        log_f = np.log(factors)
    else:
        with np.errstate(divide="ignore"):
            log_f = np.log(factors)
    tail = np.zeros(m)
    tail[:-1] = np.cumsum(log_f[::-1])[::-1][1:]
    out = np.sqrt(np.asarray(theta_out)) * np.exp(0.5 * tail)
    signs = np.where(draws.rng.random(m) < 0.5, -1.0, 1.0)
    if kept:
        signs[kept] = np.where(y[kept] < 0, -1.0, 1.0)
    return out * signs


def vector_bingham_scan(x, A, rng, *, eig=None, draws=None):
    """One Gibbs scan for a unit vector x with target ∝ exp(xᵀAx) on the sphere (Hoff 2009).

    Coordinates are updated in the eigenbasis of A (ascending eigenvalues), see :func:`_scan`:
    O(m) arithmetic plus m θ draws of bounded cost (:func:`draw_theta`).
    """
    if eig is None:
        eig = linalg.eigh(A)
    lam, E = eig
    if draws is None:
        draws = _Draws(rng, (lam.size - 1) / 2.0)
    y = E.T @ x
    y /= np.linalg.norm(y)
    z = E @ _scan(lam, y, draws)
    return z / np.linalg.norm(z)


#: Seconds per dense column update ≈ _COST[0]·d³ + _COST[1]·d² + _COST[2]·d (one core, measured
#: on a 2-core x86-64 machine: eigendecomposition, projection, scan); used only to warn.
_COST = (1.5e-10, 2e-8, 3e-6)
#: Seconds per rank-one compression step ≈ _STEP_COST[0] + _STEP_COST[1]·d² (LAPACK dlaed9 and
#: the products with the chain of steps: measured 1.1e-8·d² to 1.3e-8·d² up to d = 1200, 2e-8·d²
#: at d = 2000), and per coordinate of a scan ≈ _STEP_COST[2].
_STEP_COST = (3e-5, 1.5e-8, 1e-6)
#: Estimated run time above which :func:`bingham_gibbs` warns.
GIBBS_WARN_SECONDS = 60.0


def _dense_sweep_seconds(d, k):
    return k * (_COST[0] * d**3 + _COST[1] * d * d + _COST[2] * d)


def _compressed_sweep_seconds(d, k):
    return _compressions_per_sweep(k) * (_STEP_COST[0] + _STEP_COST[1] * d * d) + k * _STEP_COST[2] * d


def gibbs_cost_seconds(n_features, n_components, n_sweeps):
    """Rough single-core run time of :func:`bingham_gibbs` (for the warning; not a benchmark).

    k = 1: one eigendecomposition in all, then O(d²) per sweep.  k ≥ 2: one eigendecomposition
    of A, then per sweep ≈ k log₂ k rank-one compression steps of O(d²) and k scans
    (:func:`_compressed_sweeps`), or, where that is estimated cheaper (or without the LAPACK
    routine), one d×d eigendecomposition per column, O(k d³) per sweep.
    """
    d, k = float(n_features), int(n_components)
    if k == 1:  # then per sweep only the two products with the eigenvectors and the scan
        return _COST[0] * d**3 + n_sweeps * (0.1 * _COST[1] * d * d + _COST[2] * d)
    if _use_compressions(int(n_features), k):
        return _COST[0] * d**3 + n_sweeps * _compressed_sweep_seconds(d, k)
    return n_sweeps * _dense_sweep_seconds(d, k)


def bingham_gibbs(A, n_components, n_sweeps, random_state=None, *, V0=None, callback=None):
    r"""Hoff's (2009) Gibbs sampler for the matrix Bingham law ∝ etr(VᵀAV) on the Stiefel manifold.

    One sweep visits the k columns in random order.  Column r is redrawn by one
    :func:`vector_bingham_scan` of the law ∝ exp(vᵀAv) restricted to the unit sphere of the
    orthogonal complement of the other columns, in the eigenbasis of A compressed to that
    complement (as rstiefel ``rbing.matrix.gibbs``; Hoff 2009, §2.2).

    **The compressed eigenbasis by rank-one steps.**  A is diagonalised once, A = EΛEᵀ.  In
    its eigenbasis, the compression of Λ to the complement of one unit vector has eigenpairs
    given by a secular equation that LAPACK solves in O(d²) (:mod:`._compression`), and the
    complement of the other k − 1 columns is k − 1 such steps; the steps are shared between the
    columns of a sweep, ≈ k log₂ k per sweep (:class:`_CompressedSweep`).  A sweep at d = 200,
    k = 5 then costs ≈ 6 ms instead of ≈ 10 ms for a d×d eigendecomposition per column, and
    the gap grows with d (O(k log k · d²) against O(k d³)).  Where the estimated cost says
    otherwise — small d, where the Python work per step dominates (d < 46 for k = 5), or many
    columns at moderate d (d < 148 for k = 10) — and for a step that meets a repeated
    eigenvalue, a column uses one dense eigendecomposition of B = PAP + γWWᵀ instead
    (:class:`_DenseColumn`).

    Both compute the eigenbasis of the same compression, with eigenvalues ascending, as the
    QR basis N of the complement and the eigenbasis of NᵀAN do: the same kernel as rstiefel's.
    Each eigenvector is used with the sign that makes the current column's coordinate ≥ 0
    (:func:`_signed_scan`), so the draw for a given seed does not depend on the sign
    conventions of the eigensolver: the two paths give the same draws up to rounding.

    Parameters
    ----------
    A : (d, d) symmetric
    n_components : int
    n_sweeps : int
        Number of sweeps (Chaudhuri et al. use 1000; DPS-PCA's timing table 100).  A finite
        chain only approximates the Bingham law, so the exponential mechanism's ε-DP holds
        only in the limit.  When the estimated time (:func:`gibbs_cost_seconds`) exceeds a
        minute a warning says so before the sweeps start.
    V0 : (d, k) orthonormal, optional
        Start; default Haar-random (data-independent).
    callback : callable(sweep, V), optional
    """
    A = check_symmetric(A)
    d = A.shape[0]
    k = check_int(n_components, "n_components", low=1, high=d)
    n_sweeps = check_int(n_sweeps, "n_sweeps", low=0)
    rng = as_generator(random_state)
    estimate = gibbs_cost_seconds(d, k, n_sweeps)
    if estimate > GIBBS_WARN_SECONDS:
        cheaper = "sampler='exact' (n_components=1) or " if k == 1 else ""
        if k == 1:
            work = f"two products with the {d}×{d} eigenvectors per sweep"
        elif _use_compressions(d, k):
            work = f"{_compressions_per_sweep(k)} rank-one eigenvalue updates of size {d} per sweep"
        else:
            work = f"{k} eigendecompositions of a {d}×{d} matrix per sweep"
        warnings.warn(
            f"Hoff's Gibbs sampler with {n_sweeps} sweeps at d={d}, k={k} needs about "
            f"{_fmt_seconds(estimate)} on one core ({work}); {cheaper}fewer sweeps (n_iter) would be "
            "cheaper", UserWarning, stacklevel=caller_stacklevel())
    if V0 is None:
        Z = rng.standard_normal((d, k))
        V, _ = np.linalg.qr(Z)
    else:
        V = np.array(V0, dtype=np.float64, copy=True)
    with single_threaded_blas():
        _gibbs_sweeps(A, V, k, n_sweeps, rng, callback)
    return V


def _fmt_seconds(seconds):
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


_SYTRD_LWORK = {}


def _tridiagonal_eigh(B):
    """Eigenpairs of symmetric B as LAPACK ``syevd`` computes them, minus its back-transformation.

    ``syevd`` reduces B = QTQᵀ (``sytrd``), diagonalises T = ZΛZᵀ by divide and conquer
    (``stedc``) and forms the eigenvectors QZ, an O(d³) product.  The scan needs only two
    products with them, (QZ)ᵀx and QZy, which cost O(d²) with Q kept as Householder reflectors:
    returns (Λ ascending, Z, reflectors, τ) for :func:`_apply_q`.  B is overwritten.
    """
    n = B.shape[0]
    if n not in _SYTRD_LWORK:  # the blocked reduction (the default workspace is the unblocked one's)
        _SYTRD_LWORK[n] = max(1, int(lapack.dsytrd_lwork(n, lower=1)[0]))
    c, diag, off, tau, info = lapack.dsytrd(B, lower=1, overwrite_a=1, lwork=_SYTRD_LWORK[n])
    if info == 0:
        lam, Z, info = lapack.dstevd(diag, off)
    if info != 0:  # pragma: no cover - LAPACK failure to converge
        raise np.linalg.LinAlgError(f"symmetric eigensolver failed (info={info})")
    return lam, Z, c[1:, :-1], tau


def _apply_q(reflectors, tau, x, trans):
    """Q x (``trans="N"``) or Qᵀ x (``"T"``) for the Q of ``sytrd`` (lower): Q = diag(1, Q'), with
    Q' the product of the reflectors stored below the subdiagonal, in ``geqrf`` format."""
    out = np.array(x, dtype=np.float64)
    if out.size > 1:
        cq, _, info = lapack.dormqr("L", trans, reflectors, tau, out[1:, None], lwork=64)
        out[1:] = cq[:, 0]
    return out


def _signed_scan(lam, y, draws):
    """:func:`_scan` of the coordinates y, with each output coordinate's sign multiplied by
    sign(yᵢ) (+ for yᵢ = 0).

    An eigensolver returns each eigenvector zᵢ up to sign, and the scan draws the signs of its
    output fairly, so zᵢ·sign(zᵢᵀx) is the eigenvector to use: the result then depends only on
    the compression, not on which signs a LAPACK routine happened to return — the dense and the
    compressed paths below, and different LAPACK builds, give the same draw for the same seed.
    The law is unchanged: the fair signs times a function of the state are again fair signs.
    """
    y = y / np.linalg.norm(y)
    negative = y < 0
    out = _scan(lam, np.abs(y), draws)
    out[negative] = -out[negative]
    return out


class _DenseColumn:
    """Column update by one dense eigendecomposition of the compression (O(d³) per column).

    With W the other columns and P = I − WWᵀ, the matrix B = PAP + γWWᵀ has the eigenpairs of
    the compression (in the complement) plus γ with multiplicity k − 1 (on span W), since
    PAP·W = 0; γ below the spectrum of A puts those k − 1 first in the ascending order.
    ``scan`` draws the column's coordinates in the compression's eigenbasis (a benchmark of the
    linear algebra alone replaces it).
    """

    scan = staticmethod(_signed_scan)

    def __init__(self, A, k):
        self.A, self.k = A, k
        lam = linalg.eigvalsh(A)
        spread = max(lam[-1] - lam[0], abs(lam[0]), abs(lam[-1]), 1.0)
        self.gamma = lam[0] - spread  # below the spectrum of every compression, by at least `spread`
        self.B = np.empty(A.shape, order="F")  # LAPACK's layout: sytrd works on it in place
        self.others = [[c for c in range(k) if c != r] for r in range(k)]

    def __call__(self, V, r, draws):
        A, B, k = self.A, self.B, self.k
        W = V[:, self.others[r]]
        AW = A @ W
        # B = PAP + γWWᵀ = A − W(AW)ᵀ − (AW)Wᵀ + W(WᵀAW + γI)Wᵀ
        core = W.T @ AW
        core[np.diag_indices_from(core)] += self.gamma
        np.subtract(A, W @ AW.T, out=B)
        B -= AW @ W.T
        B += (W @ core) @ W.T
        lam_b, Z, reflectors, tau = _tridiagonal_eigh(B)
        Z = Z[:, k - 1 :]
        y = Z.T @ _apply_q(reflectors, tau, V[:, r], "T")
        v = _apply_q(reflectors, tau, Z @ self.scan(lam_b[k - 1 :], y, draws), "N")
        v -= W @ (W.T @ v)  # rounding only: v is already orthogonal to W
        V[:, r] = v / np.linalg.norm(v)


def _gibbs_sweeps(A, V, k, n_sweeps, rng, callback):
    d = A.shape[0]
    draws = _Draws(rng, (d - k) / 2.0)  # κ = (m − 1)/2 with m = d − k + 1
    if n_sweeps == 0:
        return
    if k == 1:
        eig = linalg.eigh(A)
        for sweep in range(n_sweeps):
            V[:, 0] = vector_bingham_scan(V[:, 0], A, rng, eig=eig, draws=draws)
            if callback is not None:
                callback(sweep, V)
        return
    if _use_compressions(d, k):
        _compressed_sweeps(A, V, k, n_sweeps, rng, callback, draws)
        return
    column = _DenseColumn(A, k)
    for sweep in range(n_sweeps):
        for r in rng.permutation(k):
            column(V, r, draws)
        if callback is not None:
            callback(sweep, V)


# ---------------------------------------------------------------------------------------------
# The same sweep through rank-one compressions of A's eigendecomposition (O(k log k · d²))
# ---------------------------------------------------------------------------------------------
#: ``None``: each chain takes the path with the smaller estimated cost per sweep
#: (:func:`_use_compressions`); ``"compressed"`` or ``"dense"`` force one (tests, benchmarks).
GIBBS_PATH = None


def _use_compressions(d, k):
    """Whether :func:`bingham_gibbs` runs :func:`_compressed_sweeps` at this (d, k).

    By the cost estimates (one core, measured): c(k)·(3e-5 + 1.5e-8·d²) s for the steps against
    k·(1.5e-10·d³ + 2e-8·d² + 3e-6·d) s for a dense eigendecomposition per column, scans
    included.  The steps win from d = 15 for k = 2, 46 for k = 5, 148 for k = 10 and 270 for
    k = 20; near these the two paths cost about the same (measured: within 20 %).
    """
    if k < 2 or _compression.DLAED9 is None:
        return False
    if GIBBS_PATH is not None:
        return GIBBS_PATH == "compressed"
    return _compressed_sweep_seconds(d, k) < _dense_sweep_seconds(d, k)


def _compressions_per_sweep(k):
    """Rank-one compressions in one sweep of :func:`_compressed_sweeps`: c(1) = 0,
    c(k) = k + c(⌊k/2⌋) + c(k − ⌊k/2⌋) (12 for k = 5; about k log₂ k)."""
    if k <= 1:
        return 0
    half = k // 2
    return k + _compressions_per_sweep(half) + _compressions_per_sweep(k - half)


class _CompressedSweep:
    """One sweep of Hoff's sampler in A's eigenbasis, the compressions shared between columns.

    Column r's conditional needs the eigenpairs of A compressed to the complement of the other
    k − 1 columns.  In A's eigenbasis A is diagonal, and compressing a diagonal matrix to the
    complement of one unit vector is a rank-one step (:func:`._compression.compress`, O(d²));
    the complement of k − 1 orthonormal columns is k − 1 such steps, in any order.  The
    columns are visited in the sweep's random order r₁, …, r_k; column r_j needs the new
    r₁ … r_{j−1} and the old r_{j+1} … r_k.  Splitting the order into halves L, R: every column
    of L needs the old R, every column of R the new L, so A compressed by the old R serves all
    of L (recursively) and, once L is done, A compressed by the new L serves all of R.  A sweep
    then costs c(k) ≈ k log₂ k steps (:func:`_compressions_per_sweep`) instead of k(k − 1).

    The basis of a compression is kept as its chain of steps, applied to vectors in O(d²) each;
    coordinates here are those of A's eigenbasis (``Vt`` = EᵀV).  A step that meets a repeated
    eigenvalue (or a LAPACK failure) hands its columns to the dense update on diag(λ).
    ``scan`` as in :class:`_DenseColumn`.
    """

    scan = staticmethod(_signed_scan)

    def __init__(self, lam, k, draws):
        self.lam, self.k, self.draws = lam, k, draws
        self.others = [[c for c in range(k) if c != r] for r in range(k)]
        self._dense = None

    def __call__(self, Vt, order):
        self._block(self.lam, (), Vt, list(order))

    def _block(self, lam, chain, Vt, cols):
        if len(cols) == 1:
            self._column(lam, chain, Vt, cols[0])
            return
        half = len(cols) // 2
        for part, rest in ((cols[:half], cols[half:]), (cols[half:], cols[:half])):
            sub = self._compress(lam, chain, Vt[:, rest])
            if sub is None:
                for r in part:
                    self.dense(Vt, r, self.draws)
            else:
                self._block(sub[0], sub[1], Vt, part)

    def _compress(self, lam, chain, U):
        """(eigenvalues, chain) of the compression (lam, chain) further compressed by the columns of U."""
        Z = U
        for step in chain:
            Z = step.to_new(Z)
        chain = list(chain)
        while Z.shape[1]:
            out = _compression.compress(lam, Z[:, 0])
            if out is None:
                return None
            lam, step = out
            chain.append(step)
            Z = step.to_new(Z[:, 1:])
        return lam, chain

    def _column(self, lam, chain, Vt, r):
        y = Vt[:, r]
        for step in chain:
            y = step.to_new(y)
        v = self.scan(lam, y, self.draws)
        for step in reversed(chain):
            v = step.to_old(v)
        W = Vt[:, self.others[r]]
        v -= W @ (W.T @ v)  # rounding only: v is already orthogonal to W
        Vt[:, r] = v / np.linalg.norm(v)

    @property
    def dense(self):
        if self._dense is None:
            self._dense = _DenseColumn(np.diag(self.lam), self.k)
            self._dense.scan = self.scan
        return self._dense


def _compressed_sweeps(A, V, k, n_sweeps, rng, callback, draws):
    lam, E = linalg.eigh(A)  # A = E diag(λ) Eᵀ, λ ascending: once per chain
    Vt = E.T @ V
    sweep_once = _CompressedSweep(lam, k, draws)
    for sweep in range(n_sweeps):
        sweep_once(Vt, rng.permutation(k))
        if callback is not None or sweep == n_sweeps - 1:
            np.matmul(E, Vt, out=V)
            if callback is not None:
                callback(sweep, V)
