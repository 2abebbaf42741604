"""Timing benchmark of the local-DP estimators (Wang & Xu 2019; issue 6).

(a) ``LocalSparsePCA`` (Algorithm 2: local Gaussian mechanism, then Fantope ADMM) at the
    paper's high-dimensional setting p = 400, n = 2000, k = 10 (s = 20, Δ = 1, ε = 2,
    δ = 1e-4): wall time of ``fit`` and ADMM iterations to convergence (stopping rule
    max(r², s²) ≤ k·tol², tol = 1e-4), with the package default (fixed ρ = max|S̃|) and with
    residual balancing (``adaptive_rho=True``).  Also the time of one Fantope projection.
(b) ``LocalGaussianPCA`` (Algorithm 1) on the same data: the faithful per-user path (every
    user's report x xᵀ + Z formed, O(np²)) against the fast aggregated path (one symmetric
    noise matrix with σ₁²/n entries).
(c) The chapter dashboard's ADMM call: Algorithm 2 on the 14 released matrices of one curve
    (7 values of n × 2 repeats, p = 20, k = 2, s = 4, ε = 4, residual balancing) as one
    ``fantope_admm_stack`` against 14 calls of the reference ``fantope_admm`` (interleaved
    rounds, medians); also one Figure-2 fit (fixed ρ) by the reference and as a stack of one.

Usage::

    python benchmarks/bench_ldp.py            # 3 repeats (about two minutes on 2 cores)
    python benchmarks/bench_ldp.py --repeats 5
    python benchmarks/bench_ldp.py --quick    # p = 60, n = 300: a smoke run (seconds)

BLAS runs on one thread unless ``--threads N`` says otherwise (``--threads 0``: as configured).
Medians over repeats (``time.perf_counter``); numbers depend on the machine and on whatever
else runs on it.  At this setting the LDP noise swamps the signal, so the error printed is at
the random-guess level √(2k) ≈ 4.47 — the signal-to-noise regime the paper's setting is in, not a bug.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import warnings

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from _timing import time_repeats

from privpca_edu.datasets import ldp_spiked
from privpca_edu.estimators.local import (LocalGaussianPCA, LocalSparsePCA, default_sparse_penalty, fantope_admm,
                                         fantope_admm_stack)
from privpca_edu.privacy import local_noise_scale
from privpca_edu.experiments import ldp as ldp_experiments
from privpca_edu.subspace import fantope_projection, subspace_distance


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke run)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (0: leave as configured)")
    args = parser.parse_args(argv)
    if args.threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.threads, user_api="blas")
    warnings.simplefilter("ignore")  # ε = 2 > 1: the classic-constant PrivacyWarning, known and intended
    p, n, k, s = (60, 300, 3, 6) if args.quick else (400, 2000, 10, 20)
    repeats = 1 if args.quick else args.repeats
    eps, delta = 2.0, 1e-4
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} cores; "
          f"BLAS threads {args.threads or 'default'}")
    data = ldp_spiked(n, p, k, gap=1.0, support_size=s, random_state=0)
    print(f"data: ldp_spiked n = {n}, p = {p}, k = {k}, s = {s}, Δ = 1; ε = {eps}, δ = {delta}; {repeats} repeat(s)\n")

    print("(a) LocalSparsePCA (Algorithm 2)")
    for label, kwargs in (("fixed ρ (default)", {}), ("adaptive ρ", {"adaptive_rho": True})):
        seeds, iters = iter(range(1000)), []

        def run(kwargs=kwargs):
            fitted = LocalSparsePCA(k, epsilon=eps, delta=delta, random_state=next(seeds), **kwargs).fit(data.X)
            iters.append(fitted.n_iter_)
            return fitted

        med, times, est = time_repeats(run, repeats)
        err = subspace_distance(est.components_, data.components, kind="projection")
        print(f"  {label:<18} median {med:7.2f} s  (runs {', '.join(f'{t:.2f}' for t in times)}); "
              f"ADMM iterations median {statistics.median(iters):.0f} (runs {iters}); converged {est.converged_}; "
              f"λ = {est.lam_:.4f}; |support| = {len(est.support_)}; error {err:.3f} (max {np.sqrt(2 * k):.3f})")
    S = est.released_matrix_
    med, _, _ = time_repeats(lambda: fantope_projection(S, k), max(3, repeats))
    print(f"  one Fantope projection (p = {p}): median {med * 1e3:.1f} ms")

    print("\n(b) LocalGaussianPCA (Algorithm 1): per-user vs aggregated path")
    for label, per_user in (("per-user (faithful)", True), ("aggregated (fast)", False)):
        med, times, est = time_repeats(
            lambda per_user=per_user: LocalGaussianPCA(k, epsilon=eps, delta=delta, per_user=per_user,
                                                       random_state=0).fit(data.X), repeats)
        print(f"  {label:<20} median {med:8.3f} s  (runs {', '.join(f'{t:.3f}' for t in times)}); "
              f"{n} users × p(p+1)/2 = {p * (p + 1) // 2} noise draws each" if per_user else
              f"  {label:<20} median {med:8.3f} s  (runs {', '.join(f'{t:.3f}' for t in times)}); one p × p draw")

    print("\n(c) the dashboard's ADMM call: one stack against a loop of the reference")
    rounds = 3 if args.quick else 15
    stack, lams = _dashboard_releases()
    loop = lambda A=stack, lam=lams: [fantope_admm(a, 2, l, adaptive_rho=True) for a, l in zip(A, lam)]  # noqa: E731
    times = _interleaved({"14 × fantope_admm": loop,
                          "fantope_admm_stack": lambda: fantope_admm_stack(stack, 2, lams, adaptive_rho=True)}, rounds)
    for label, t in times.items():
        print(f"  {label:<22} median {t * 1e3:7.1f} ms")
    one = _interleaved({"fantope_admm": lambda: fantope_admm(stack[0], 2, lams[0]),
                        "stack of one": lambda: fantope_admm_stack(stack[:1], 2, lams[:1])}, rounds)
    print("  one Figure-2 fit (fixed ρ): " + ", ".join(f"{label} {t * 1e3:.2f} ms" for label, t in one.items()))


def _dashboard_releases(p=20, k=2, s=4, epsilon=4.0, delta=1e-4):
    """The 14 released matrices S + σ₁/√n·Z of one dashboard curve (7 n × 2 noise draws) and their λ."""
    sigma1 = local_noise_scale(epsilon, delta, 1.0, "replacement")["noise_scale"]
    rng = np.random.default_rng(0)
    released, lams = [], []
    for n in ldp_experiments.DASHBOARD_N:
        S = np.asarray(ldp_experiments.second_moment(n, p, k, gap=10.0, support_size=s)["second_moment"])
        for _ in range(2):
            Z = np.triu(rng.standard_normal((p, p)))
            released.append(S + sigma1 / np.sqrt(n) * (Z + np.triu(Z, 1).T))
            lams.append(default_sparse_penalty(sigma1, n, p))
    return np.array(released), np.array(lams)


def _interleaved(funcs, rounds):
    """Median seconds of each function, timed in alternating rounds (fair under a drifting load)."""
    times = {label: [] for label in funcs}
    for _ in range(rounds):
        for label, func in funcs.items():
            times[label].append(time_repeats(func, 1)[0])
    return {label: statistics.median(t) for label, t in times.items()}


if __name__ == "__main__":
    main()
