"""g-DPPCA speed and memory: the generalized Kendall's τ matrix K̂ (issue 5).

Prints medians and ratios (no assertions: this is a measurement, not a test).

    python benchmarks/bench_robust.py            # n = 4000, d = 50 timings; peak memory at n = 20 000
    python benchmarks/bench_robust.py --quick    # smaller sizes, a smoke run

Targets (issue 5):
  (a) K̂ at n = 4000, d = 50 within 2× the Laplacian-form matrix products alone — the three
      GEMMs the blocked form needs, with the same block size: squared distances of a block to all
      rows (one product of augmented (d + 2)-column factors), W_B [X | 1], and X_Bᵀ M;
  (b) at least 50× faster than a vectorised-per-pair loop (one Python iteration per pair, numpy
      over the d coordinates) — timed on a slice of the pairs and extrapolated to all n(n−1)/2,
      since the full loop takes minutes; the loop over rows (numpy over all j > i at once) is timed
      in full for reference;
  (c) peak memory of K̂ at n = 20 000, d = 50 (tracemalloc: every NumPy allocation; and the
      process's maximum resident set size), against the 2 GB budget;
  (d) peak memory and time of K̂ on duplicate-heavy data, where the previous implementation
      allocated (near-duplicate candidate pairs) × d: all rows equal, half the rows one repeated
      row, near-duplicates of one row.  The "before" column was measured on that implementation
      (same machine, tracemalloc peak), the "after" column is this run.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see privpca_edu._validation.single_threaded_blas

import numpy as np  # noqa: E402

from _timing import median_time  # noqa: E402

from privpca_edu._validation import single_threaded_blas  # noqa: E402
from privpca_edu.estimators import kendall  # noqa: E402


def products_only(X, block):
    """The matrix products of the blocked Laplacian form alone, on the same shapes."""
    n, d = X.shape
    rng = np.random.default_rng(1)
    left, right = rng.random((n, d + 2)), rng.random((n, d + 2))
    X1 = np.column_stack([X, np.ones(n)])
    buffer = np.empty((block, n))
    acc = np.zeros((d, d))

    def run():
        for start in range(0, n, block):
            W = buffer[: min(n, start + block) - start]
            np.matmul(left[start : start + block], right.T, out=W)
            M = W @ X1
            acc[:] += X[start : start + block].T @ M[:, :d]

    return run


def pair_loop_seconds_per_pair(X, n_rows):
    """Time the per-pair loop over the pairs (i, j), i < n_rows, j > i; return seconds per pair."""
    n = X.shape[0]
    sub_pairs = sum(n - 1 - i for i in range(n_rows))
    t0 = time.perf_counter()
    d = X.shape[1]
    acc = np.zeros((d, d))
    for i in range(n_rows):
        xi = X[i]
        for j in range(i + 1, n):
            t = xi - X[j]
            c = 1.0 / np.sqrt(t @ t)
            acc += np.outer(c * t, c * t)
    return (time.perf_counter() - t0) / sub_pairs


#: Peak memory (tracemalloc) and time of the implementation before the duplicate-row fix, on the
#: cases of (d), same machine; ones(3000, 100) was not rerun (8.5 GB is the reported peak).
BEFORE_DUPLICATES = {
    "ones(3000, 100)": ("8.5 GB", "—"),
    "ones(1500, 100)": ("3.6 GB", "19.4 s"),
    "n=20000, d=50, half one repeated row": ("—", "> 600 s"),  # stopped after 600 s (load ≈ 10)
    "n=2000, d=60, 800 near-duplicates": ("652 MB", "6.3 s"),
}


def duplicate_cases(quick):
    rng = np.random.default_rng(2)
    cases = {"ones(1500, 100)": lambda: np.ones((1500, 100))}
    if not quick:
        cases["ones(3000, 100)"] = lambda: np.ones((3000, 100))

        def half_repeated():
            X = rng.standard_normal((20_000, 50))
            X[10_000:] = X[0]
            return X

        cases["n=20000, d=50, half one repeated row"] = half_repeated

    def near():
        X = rng.standard_normal((2000, 60))
        X[1200:] = 3.0 + X[0] + 1e-9 * rng.standard_normal((800, 60))
        return X

    cases["n=2000, d=60, 800 near-duplicates"] = near
    return cases


def kendall_peak(X):
    """(seconds, tracemalloc peak bytes above the start) of one spherical K̂."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    kendall.kendall_tau_matrix(X, "spherical")
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return elapsed, peak


def bench_duplicates(quick):
    block_mb = kendall._BLOCK_ENTRIES * 8 / 2**20
    print(f"(d) K̂ on duplicate-heavy data (spherical; block {block_mb:.0f} MB): peak memory (tracemalloc) and time")
    print(f"    {'case':<40} {'before peak':>11} {'before s':>9} {'after peak':>11} {'after s':>8}")
    for name, make in duplicate_cases(quick).items():
        elapsed, peak = kendall_peak(make())
        before_peak, before_s = BEFORE_DUPLICATES.get(name, ("—", "—"))
        print(f"    {name:<40} {before_peak:>11} {before_s:>9} {peak / 2**20:>8.1f} MB {elapsed:>7.2f}s")
    print("    (one run each; the previous implementation's peak grew with the number of duplicate pairs)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    args = parser.parse_args()
    n, d, n_big = (1000, 20, 4000) if args.quick else (4000, 50, 20_000)
    repeats = 3 if args.quick else 7
    X = np.random.default_rng(0).standard_normal((n, d))
    block = max(16, min(n, kendall._BLOCK_ENTRIES // n))

    with single_threaded_blas():
        for kind in ("spherical", "winsorized"):
            kendall.kendall_tau_matrix(X, kind)  # warm up
        prods = products_only(X, block)
        prods()
        t_prod = median_time(prods, repeats)
        t_sph = median_time(lambda: kendall.kendall_tau_matrix(X, "spherical"), repeats)
        t_wins = median_time(lambda: kendall.kendall_tau_matrix(X, "winsorized"), repeats)
        print(f"(a) K̂ at n = {n}, d = {d} (block {block} rows, one BLAS thread), median of {repeats}:")
        print(f"    matrix products alone           {t_prod * 1e3:8.1f} ms")
        print(f"    K̂ spherical                     {t_sph * 1e3:8.1f} ms   ratio {t_sph / t_prod:.2f} (target ≤ 2)")
        print(f"    K̂ winsorized (r = √d)           {t_wins * 1e3:8.1f} ms   ratio {t_wins / t_prod:.2f} (target ≤ 2)")

        n_rows = 3 if args.quick else 10
        per_pair = pair_loop_seconds_per_pair(X, n_rows)
        n_pairs = n * (n - 1) // 2
        t_pairs = per_pair * n_pairs
        print(f"(b) vectorised-per-pair loop: {per_pair * 1e6:.2f} µs per pair (timed on the pairs of {n_rows} rows), "
              f"extrapolated to all {n_pairs:,} pairs: {t_pairs:.1f} s")
        print(f"    speed-up of the Laplacian form: median {t_pairs / t_sph:,.0f}× (target ≥ 50)")
        t_rows = median_time(lambda: kendall.kendall_tau_naive(X, "spherical"), 1)
        print(f"    loop over rows (numpy over j > i): median {t_rows:.2f} s, {t_rows / t_sph:.0f}× the Laplacian form")

        Xb = np.random.default_rng(1).standard_normal((n_big, d))
        elapsed, peak = kendall_peak(Xb)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(f"(c) K̂ at n = {n_big}, d = {d}: {elapsed:.2f} s; peak memory of the call (tracemalloc) "
          f"{peak / 2**20:.1f} MB (the input itself is {Xb.nbytes / 2**20:.1f} MB; an n×n matrix would be "
          f"{n_big**2 * 8 / 2**30:.2f} GB); process max RSS {rss:.0f} MB (budget 2048 MB)")
    with single_threaded_blas():
        bench_duplicates(args.quick)


if __name__ == "__main__":
    main()
