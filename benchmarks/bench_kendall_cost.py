"""Calibrate the cost model of Kendall's τ matrix: t ≈ a·n²·(d + c) seconds on one core.

:func:`privpca_edu.estimators.kendall.kendall_cost_seconds` (the warning before a long fit and
``KendallDPPCA``'s refusal) uses this model.  The script times ``kendall_tau_matrix`` (process
CPU time, one BLAS thread, the minimum of ``--repeats`` runs: the machine's other load does not
enter CPU time, and the minimum drops the odd interruption) on a small grid of (n, d), fits a
and c on the points with n above the smallest (the large-n regime the model serves) by least
squares on the relative error (t/(a n²) = d + c is linear in c), and prints the
fit, each point's measured/modelled ratio, and the package's current constants for comparison.

Usage::

    python benchmarks/bench_kendall_cost.py            # n ∈ {1000, …, 8000}, d ∈ {10, 50, 200} (~30 s)
    python benchmarks/bench_kendall_cost.py --quick    # n ∈ {300, 600}, d ∈ {5, 20}
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from threadpoolctl import threadpool_limits

from privpca_edu.estimators import kendall


def measure(ns, ds, repeats):
    rows = []
    rng = np.random.default_rng(0)
    for n in ns:
        for d in ds:
            X = rng.standard_normal((n, d))
            best = np.inf
            for _ in range(repeats):
                t0 = time.process_time()
                kendall.kendall_tau_matrix(X)
                best = min(best, time.process_time() - t0)
            rows.append((n, d, best))
    return rows


def fit(rows):
    """a, c minimising Σ (t_i − a n_i²(d_i + c))² / t_i² (relative errors), by a 2-parameter linear fit in (a, a·c)."""
    n = np.array([r[0] for r in rows], float)
    d = np.array([r[1] for r in rows], float)
    t = np.array([r[2] for r in rows], float)
    A = np.column_stack([n * n * d, n * n]) / t[:, None]
    coef, *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    a, ac = coef
    return a, ac / a


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    ns, ds = ((300, 600), (5, 20)) if args.quick else ((1000, 2000, 4000, 8000), (10, 50, 200))
    with threadpool_limits(1, user_api="blas"):
        kendall.kendall_tau_matrix(np.random.default_rng(1).standard_normal((50, 3)))  # warm
        rows = measure(ns, ds, args.repeats)
    n_fit = sorted({r[0] for r in rows})[1]  # the model is for large n (where the warning and the refusal act)
    a, c = fit([r for r in rows if r[0] >= n_fit])
    old_a, old_c = kendall._KENDALL_SECONDS_PER_PAIR_COORD, kendall._KENDALL_EXTRA_COORDS
    print(f"fit (n ≥ {n_fit}): t ≈ {a:.3g} · n² · (d + {c:.1f}) s   (package: {old_a:.3g} · n² · (d + {old_c:g}))")
    print(f"{'n':>6s} {'d':>5s} {'CPU s':>9s} {'fit':>9s} {'ratio':>7s} {'package':>9s} {'ratio':>7s}")
    for n, d, t in rows:
        model = a * n * n * (d + c)
        pkg = kendall.kendall_cost_seconds(n, d)
        print(f"{n:6d} {d:5d} {t:9.4f} {model:9.4f} {t / model:7.2f} {pkg:9.4f} {t / pkg:7.2f}")


if __name__ == "__main__":
    main()
