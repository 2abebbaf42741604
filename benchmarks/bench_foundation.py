"""Timing benchmark of the foundation estimators, next to the DPS-PCA paper's Table 1.

Ge, Wang, Wang & Liu (2018), Table 1: CPU time on the §5.1 spiked
sparse model (k = 5, s* = 10) at d = 200 / 400 / 800, Intel Xeon 3.4 GHz, R:

* PPCA, 100 Gibbs scans (R ``rstiefel``): 9.82 / 37.46 / 173.78 s
* MOD-SuLQ, top-k via R ``rARPACK``:        8 / 21 / 97 ms

This script prints medians over repeats (``time.perf_counter``) and our/paper ratios for

(a) PPCA's Gibbs sampler: ``bingham_gibbs`` with 100 sweeps, k = 5, on A = ε/(2B²)·XᵀX
    (the matrix PPCA samples from; forming it is not timed: it is O(nd²) and done once);
(b) MOD-SuLQ: the whole ``ModSuLQ(n_components=5).fit(X)`` (validation, row clipping, XᵀX/n,
    noise, top-k eigenvectors; data generation excluded), and the part after XᵀX/n: noise +
    dense top-k ``eigh`` (what the paper's rARPACK number most likely measures), and the same
    with ARPACK (``scipy.sparse.linalg.eigsh``) for a like-for-like eigensolver;
(c) the exact k = 1 sampler ``sample_bingham_exact`` (Kent–Ganeiber–Mardia rejection):
    acceptance rate and draws per second for d = 4, 10, 50 on a few Ψ spectra;
(d) the Gibbs sweep against its linear algebra alone at d = 20, 200, 400: where the sampler
    uses them (d ≥ 46 for k = 5), A's eigendecomposition once and per sweep the rank-one
    compression steps (LAPACK dlaed9) with the products through their chains; below, per column
    the projected matrix PAP + γWWᵀ, its tridiagonal eigendecomposition and two products with
    the eigenvectors.  The ratio is the overhead of everything else (the scan, the θ draws, Python);
(e) the execution time of chapter 8's notebook (``jupyter nbconvert --execute``), whose
    Fig. 4(a) cell runs the Gibbs sampler (goal ≤ 15 s).

Measured before the sampler was rewritten (same machine, shared with other jobs, medians):
100 sweeps 3.48 s at d = 200 and 20.0 s at d = 400 (2.8× and 1.9× faster than the paper);
a sweep at d = 20 cost 3.6 ms against 0.5 ms of linear algebra; chapter 8 took 43 s.  With a
d×d eigendecomposition per column (idle machine, one BLAS thread): 1.05 s and 4.93 s (9.4× and
7.6×), of which linear algebra 9.6 of 10.7 ms per sweep at d = 200.  With the rank-one
compression steps (k log₂ k per sweep, O(d²) each; CPU time, load ≈ 4, the old code measured
alongside at 1.04–1.06 s and 5.08–5.19 s): 0.63–0.64 s and 2.34–2.42 s (15× and 16×), linear
algebra 5.7–6.0 of 6.5 ms per sweep at d = 200.  Chapter 8's notebook: 8–10 s under
``pytest --nbmake`` at load ≈ 4, before and after alike (its Gibbs runs are short now; kernel
start-up and imports dominate).

Usage::

    python benchmarks/bench_foundation.py            # d = 200, 400 for Gibbs (a few minutes)
    python benchmarks/bench_foundation.py --full     # adds Gibbs at d = 800 (~1 min per run)
    python benchmarks/bench_foundation.py --quick    # tiny sizes, a smoke run (seconds)

BLAS runs on one thread unless ``--threads N`` says otherwise (``--threads 0``: as configured).
Not a test: numbers depend on the machine (and on whatever else runs on it); ``tests/test_benchmarks_smoke.py`` only checks that
``--quick`` runs.  The paper's hardware and language differ, so ratios are indicative only.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from _timing import time_repeats, wall_and_cpu

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from scipy.sparse.linalg import eigsh

from privpca_edu import PPCA, ModSuLQ
from privpca_edu.datasets import spiked_sparse
from privpca_edu.estimators import _bingham
from privpca_edu.estimators._bingham import bingham_gibbs, sample_bingham_exact
from privpca_edu.privacy import mod_sulq_noise_scale, symmetric_noise
from privpca_edu.subspace import subspace_distance, top_eigenvectors

PAPER_GIBBS_SECONDS = {200: 9.82, 400: 37.46, 800: 173.78}
PAPER_MODSULQ_MS = {200: 8.0, 400: 21.0, 800: 97.0}


def fmt_ratio(ours, paper):
    return "-" if paper is None else f"{ours / paper:6.2f}x"


def blas_info():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover
        return "threadpoolctl not installed"
    parts = [f"{p.get('internal_api')} {p.get('version')} threads={p.get('num_threads')}"
             for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(parts) or "no BLAS found by threadpoolctl"


def make_data(n, d, k, support, seed):
    start = time.perf_counter()
    data = spiked_sparse(n_samples=n, n_features=d, n_components=k, support_size=support,
                         scaling="unit", random_state=seed)
    return data, time.perf_counter() - start


def wall_cpu_repeats(func, repeats):
    """(median wall s, all wall s, median process-CPU s, last result) of ``repeats`` calls."""
    runs = [wall_and_cpu(func) for _ in range(repeats)]
    walls = [wall for wall, _, _ in runs]
    return statistics.median(walls), walls, statistics.median(cpu for _, cpu, _ in runs), runs[-1][2]


def bench_gibbs(datasets, cfg):
    print(f"\n(a) PPCA Gibbs sampler: bingham_gibbs, {cfg.sweeps} sweeps, k={cfg.k}, "
          f"epsilon={cfg.epsilon:g}, data_norm=1 (A = epsilon/2 * X^T X)")
    print(f"    {'d':>5} {'n':>8} {'repeats':>7} {'median s':>10} {'min s':>8} {'max s':>8} {'CPU s':>7} "
          f"{'paper s':>8} {'paper/ours':>10} {'(CPU)':>7} {'sin-theta':>9}  path")
    for d in cfg.gibbs_dims:
        data = datasets[d]
        A = PPCA(n_components=cfg.k, epsilon=cfg.epsilon).bingham_parameter(data.X)
        seeds = iter(range(10_000))
        repeats = cfg.gibbs_repeats.get(d, cfg.repeats_default)
        med, ts, med_cpu, V = wall_cpu_repeats(lambda: bingham_gibbs(A, cfg.k, cfg.sweeps, random_state=next(seeds)),
                                               repeats)
        paper = PAPER_GIBBS_SECONDS.get(d) if not cfg.quick else None
        dist = subspace_distance(V, data.components)
        print(f"    {d:>5} {data.X.shape[0]:>8} {repeats:>7} {med:>10.3f} {min(ts):>8.3f} {max(ts):>8.3f} "
              f"{med_cpu:>7.3f} {('-' if paper is None else f'{paper:.2f}'):>8} "
              f"{fmt_ratio(paper, med) if paper else '-':>10} {fmt_ratio(paper, med_cpu) if paper else '-':>7} "
              f"{dist:>9.3f}  {gibbs_path(d, cfg.k)}", flush=True)
    print("    (medians of the repeats; paper/ours is the speed-up over the paper's R code, goal ≥ 10x;\n"
          "     CPU s is the process's CPU time: on a machine shared with other jobs it is the steadier\n"
          "     measure, since the sampler runs on one thread and wall time includes waiting for a core)")


def bench_modsulq(datasets, cfg):
    print(f"\n(b) MOD-SuLQ, k={cfg.k}, epsilon={cfg.epsilon:g}, delta={cfg.delta:g}; "
          f"{cfg.modsulq_repeats} repeats; times in ms")
    print(f"    {'d':>5} {'n':>8} {'fit median':>10} {'XtX/n':>8} {'noise+eigh':>10} {'noise+ARPACK':>12} "
          f"{'paper':>6} {'fit/paper':>9} {'(noise+eigh)/paper':>18}")
    for d in cfg.modsulq_dims:
        X = datasets[d].X
        n = X.shape[0]
        seeds = iter(range(10_000))

        def fit():
            return ModSuLQ(n_components=cfg.k, epsilon=cfg.epsilon, delta=cfg.delta,
                           random_state=next(seeds)).fit(X)

        med_fit, _, _ = time_repeats(fit, cfg.modsulq_repeats)
        med_cov, _, C = time_repeats(lambda: X.T @ X / n, cfg.modsulq_repeats)
        sigma = mod_sulq_noise_scale(d, n, cfg.epsilon, cfg.delta)

        def after_cov():
            released = C + symmetric_noise(d, sigma, random_state=next(seeds))
            return top_eigenvectors(released, cfg.k)

        def after_cov_arpack():
            released = C + symmetric_noise(d, sigma, random_state=next(seeds))
            return eigsh(released, k=cfg.k, which="LA")

        med_rest, _, _ = time_repeats(after_cov, cfg.modsulq_repeats)
        med_arpack, _, _ = time_repeats(after_cov_arpack, cfg.modsulq_repeats)
        paper = PAPER_MODSULQ_MS.get(d) if not cfg.quick else None
        ms = 1000.0
        print(f"    {d:>5} {n:>8} {med_fit * ms:>10.1f} {med_cov * ms:>8.1f} {med_rest * ms:>10.1f} "
              f"{med_arpack * ms:>12.1f} {('-' if paper is None else f'{paper:.0f}'):>6} "
              f"{fmt_ratio(med_fit * ms, paper):>9} {fmt_ratio(med_rest * ms, paper):>18}", flush=True)
    print("    (every column is a median of the repeats; 'fit' excludes only data generation)")


def gibbs_path(d, k):
    """Which linear algebra :func:`bingham_gibbs` uses at (d, k)."""
    if k == 1:
        return "eigh once"
    return "rank-one steps" if _bingham._use_compressions(d, k) else "eigh per column"


def _no_scan(lam, y, draws):
    """In place of the scan: the column's coordinates, normalised, go straight back."""
    return y / np.linalg.norm(y)


class _CompressedSweepWithoutScan(_bingham._CompressedSweep):
    """:class:`_bingham._CompressedSweep` with the scan left out."""

    scan = staticmethod(_no_scan)


class _DenseColumnWithoutScan(_bingham._DenseColumn):
    """:class:`_bingham._DenseColumn` with the scan left out."""

    scan = staticmethod(_no_scan)


def gibbs_linear_algebra(A, k, rng):
    """``run(sweeps)``: the linear algebra of :func:`bingham_gibbs` alone (no scan, no θ draws),
    set-up included (A's eigendecomposition on the compressed path, its spectrum on the dense one)."""
    d = A.shape[0]
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    if _bingham._use_compressions(d, k):
        def run(sweeps):
            lam, E = np.linalg.eigh(A)
            Vt = E.T @ V
            sweep = _CompressedSweepWithoutScan(lam, k, None)
            for _ in range(sweeps):
                sweep(Vt, rng.permutation(k))
            return E @ Vt

        return run

    def run(sweeps):
        column = _DenseColumnWithoutScan(A, k)
        for _ in range(sweeps):
            for r in rng.permutation(k):
                column(V, r, None)
        return V

    return run


def bench_overhead(cfg):
    print(f"\n(d) Gibbs sweep against its linear algebra alone (k={cfg.k}, epsilon={cfg.epsilon:g}; ms per sweep, "
          f"{cfg.overhead_sweeps} sweeps and their set-up)")
    print(f"    {'d':>5} {'sweep':>9} {'lin. alg.':>9} {'overhead':>9} {'CPU: sweep':>11} {'lin. alg.':>9} {'overhead':>9}"
          "  path")
    from threadpoolctl import threadpool_limits

    def timed(func):
        wall, _, cpu, _ = wall_cpu_repeats(func, cfg.overhead_repeats)
        return wall, cpu

    for d in cfg.overhead_dims:
        A = PPCA(n_components=cfg.k, epsilon=cfg.epsilon).bingham_parameter(make_data(cfg.n, d, cfg.k, cfg.support, 0)[0].X)
        sweeps = cfg.overhead_sweeps
        seeds = iter(range(10_000))
        t_sweep, c_sweep = timed(lambda: bingham_gibbs(A, cfg.k, sweeps, random_state=next(seeds)))
        lin = gibbs_linear_algebra(A, cfg.k, np.random.default_rng(0))
        with threadpool_limits(limits=1, user_api="blas"):
            t_lin, c_lin = timed(lambda: lin(sweeps))
        ms = 1e3 / sweeps
        print(f"    {d:>5} {t_sweep * ms:>9.2f} {t_lin * ms:>9.2f} {t_sweep / t_lin:>8.2f}x "
              f"{c_sweep * ms:>11.2f} {c_lin * ms:>9.2f} {c_sweep / c_lin:>8.2f}x  {gibbs_path(d, cfg.k)}", flush=True)
    print("    (medians, wall and CPU time; overhead = sweep / its linear algebra: the scan, the θ draws, Python)")


def bench_notebook(cfg):
    import shutil
    import subprocess
    import tempfile

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    notebook = os.path.join(root, "notebooks", "08_dps_pca.ipynb")
    print("\n(e) chapter 8 notebook (jupyter nbconvert --execute):")
    import resource

    times, cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(cfg.notebook_repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                                   "--output-dir", tmp, "--output", "ch08", notebook],
                                  capture_output=True, text=True, cwd=os.path.join(root, "notebooks"))
            if proc.returncode != 0:
                print("    skipped: nbconvert failed or is not installed (pip install -e '.[book]')")
                print("    " + (proc.stderr.strip().splitlines() or ["?"])[-1])
                return
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"    median {statistics.median(times):.1f} s wall, {statistics.median(cpu):.1f} s CPU (nbconvert and its "
          f"kernel) over {len(times)} run(s); goal ≤ 15 s, kernel start included")


def psi_spectra(d, rng):
    """A few Ψ spectra (Ψ = λ_max I − A ⪰ 0, min ψ = 0): name -> A with that Ψ."""
    ramp = np.linspace(0.0, 100.0, d)
    spike = np.full(d, 100.0)
    spike[0] = 0.0
    weak = np.full(d, 2.0)
    weak[0] = 0.0
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))  # a random eigenbasis: the sampler rotates
    return {
        "gap 2 (weak signal)": (Q * -weak) @ Q.T,
        "gap 100 (one spike)": (Q * -spike) @ Q.T,
        "ramp 0..100": (Q * -ramp) @ Q.T,
    }


def bench_exact(cfg):
    print(f"\n(c) exact k=1 sampler (sample_bingham_exact, KGM rejection): {cfg.exact_draws} draws "
          f"per call, {cfg.exact_repeats} repeats")
    print(f"    {'d':>4} {'spectrum':<22} {'acceptance':>10} {'median s':>9} {'draws/s':>10}")
    rng = np.random.default_rng(0)
    for d in cfg.exact_dims:
        for name, A in psi_spectra(d, rng).items():
            rates = []
            seeds = iter(range(10_000))

            def draw():
                _, rate = sample_bingham_exact(A, size=cfg.exact_draws, random_state=next(seeds),
                                               return_rate=True)
                rates.append(rate)

            med, _, _ = time_repeats(draw, cfg.exact_repeats)
            print(f"    {d:>4} {name:<22} {statistics.median(rates):>10.3f} {med:>9.4f} "
                  f"{cfg.exact_draws / med:>10.0f}", flush=True)
    print("    (acceptance and time: median of the repeats)")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run in seconds")
    size.add_argument("--full", action="store_true", help="also Gibbs at d=800 (about a minute per run)")
    parser.add_argument("--n-samples", type=int, default=None,
                        help="rows of the data (default 100000, as in the paper; --quick: 2000)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads for the whole run (default 1: steadier on a shared 2-core "
                             "machine, and like R's single-threaded reference BLAS; 0 = leave as configured)")
    parser.add_argument("--only", choices=("gibbs", "modsulq", "exact", "overhead", "notebook"), action="append",
                        help="run only these parts (repeatable)")
    return parser.parse_args(argv)


def config(args):
    cfg = argparse.Namespace(quick=args.quick, k=5, support=10, epsilon=1.0, delta=0.3, sweeps=100)
    if args.quick:
        cfg.n = args.n_samples or 2000
        cfg.gibbs_dims, cfg.modsulq_dims = [20, 40], [20, 40]
        cfg.repeats_default, cfg.gibbs_repeats = 2, {}
        cfg.modsulq_repeats = 3
        cfg.exact_dims, cfg.exact_draws, cfg.exact_repeats = [4, 10], 500, 3
        cfg.overhead_dims, cfg.overhead_sweeps, cfg.overhead_repeats, cfg.notebook_repeats = [20, 64], 5, 2, 0
    else:
        cfg.n = args.n_samples or 100_000
        cfg.gibbs_dims = [200, 400, 800] if args.full else [200, 400]
        cfg.modsulq_dims = [200, 400, 800]
        cfg.repeats_default, cfg.gibbs_repeats = 3, {800: 3}
        cfg.modsulq_repeats = 7
        cfg.exact_dims, cfg.exact_draws, cfg.exact_repeats = [4, 10, 50], 20_000, 5
        cfg.overhead_dims, cfg.overhead_sweeps, cfg.overhead_repeats, cfg.notebook_repeats = [20, 200, 400], 20, 7, 3
    cfg.parts = set(args.only or ("gibbs", "modsulq", "exact", "overhead", "notebook"))
    if not cfg.notebook_repeats:
        cfg.parts.discard("notebook")
    return cfg


def main(argv=None):
    args = parse_args(argv)
    cfg = config(args)
    limiter = None
    if args.threads:
        from threadpoolctl import threadpool_limits
        limiter = threadpool_limits(limits=args.threads, user_api="blas")

    mode = "quick" if args.quick else ("full" if args.full else "default")
    print(f"bench_foundation ({mode}): Python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs, {platform.machine()}")
    print(f"BLAS: {blas_info()}  (bingham_gibbs always runs single-threaded)")
    if hasattr(os, "getloadavg"):
        print("load average before the run: " + " ".join(f"{x:.2f}" for x in os.getloadavg())
              + "  (other processes on the machine distort timings)")
    print(f"data: spiked_sparse(n={cfg.n}, d, k={cfg.k}, s*={cfg.support}, scaling='unit', random_state=0)")

    dims = sorted(set((cfg.gibbs_dims if "gibbs" in cfg.parts else [])
                      + (cfg.modsulq_dims if "modsulq" in cfg.parts else [])))
    datasets = {}
    for d in dims:
        datasets[d], seconds = make_data(cfg.n, d, cfg.k, cfg.support, seed=0)
        print(f"  generated d={d}: {seconds:.2f} s (not timed below)", flush=True)

    start = time.perf_counter()
    if "gibbs" in cfg.parts:
        bench_gibbs(datasets, cfg)
    if "modsulq" in cfg.parts:
        bench_modsulq(datasets, cfg)
    if "exact" in cfg.parts:
        bench_exact(cfg)
    if "overhead" in cfg.parts:
        bench_overhead(cfg)
    if "notebook" in cfg.parts:
        bench_notebook(cfg)
    print(f"\ntotal benchmark time {time.perf_counter() - start:.1f} s")
    if limiter is not None:
        limiter.restore_original_limits()
    return 0


if __name__ == "__main__":
    sys.exit(main())
