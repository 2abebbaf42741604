"""Timing benchmark of the encrypted protocol (DPDPCA) next to the sequential chain baseline.

Three parts:

(a) Paillier throughput with ``phe`` 1.5.0: encryptions per second (values/s) at the protocol's
    fixed-point encoding, and decryption, homomorphic addition, multiplication by a grid constant
    and re-randomisation, at 2048 bits (and 1024 bits for reference).  With ``--no-gmp-check`` off
    (the default in full mode) it also times encryption with gmpy2 switched off, to show what it
    buys (about 10x at 2048 bits).
(b) Protocol wall time against the number of owners L = 2 … 64 at M = 20 (the paper's Fig. 3
    shape): DPDPCA with owners in parallel (slowest owner + proxy + data user), DPDPCA's total
    single-machine work, and the PrivateLocalPCA chain (``experiments.protocol.timing_vs_owners``).
    Each owner encrypts its M(M+1)/2 + M + 1 = 231 values once (real encryption); proxy and data
    user steps are repeated and their medians used.

(c) ``run_dpdpca`` end to end at d = 10, 20, 40 (3 owners, 2048 bits, one key pair passed in):
    sequential (``n_jobs=1``) against parallel (``n_jobs=2``: owners in their own processes, the
    proxy's obfuscators precomputed in the same batch, its per-entry work and the data user's
    decryptions in chunks), with the bare encryption time of one owner's share for reference.
    Medians over ``--repeats``; on a shared CPU they are noisy.  ``--only-run`` runs part (c) only.

Usage::

    python benchmarks/bench_protocol.py            # 2048-bit keys, L up to 64 (several minutes)
    python benchmarks/bench_protocol.py --quick    # 1024-bit keys, tiny sizes (seconds)

Not a test: numbers depend on the machine and on what else runs on it.  The paper's code used
128-bit keys (insecure) and Python 2; only shapes compare.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from _timing import median_time, wall_and_cpu

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from privpca_edu.protocol import _crypto, run_dpdpca
from privpca_edu.experiments.protocol import timing_vs_owners


def _median_rate(func, n_values, repeats):
    """Run func() (which processes n_values values) repeats times; median values per second."""
    med = median_time(func, repeats)
    return n_values / med, med


def throughput(bits, n_values, repeats, gmp=True):
    phe = _crypto.require_phe()
    from phe import util

    saved = util.HAVE_GMP
    util.HAVE_GMP = bool(gmp and saved)
    try:
        pk, sk = phe.generate_paillier_keypair(n_length=bits)
        rng = np.random.default_rng(0)
        values = [float(x) for x in rng.normal(size=n_values)]
        enc_rate, enc_med = _median_rate(lambda: [_crypto.encrypt_fixed(pk, x) for x in values], n_values, repeats)
        cts = [_crypto.encrypt_fixed(pk, x) for x in values]
        out = {"encrypt": (enc_rate, enc_med)}
        if gmp:
            const = _crypto.encode_grid_integer(pk, 123456789012345, _crypto.FIXED_EXPONENT)
            out["decrypt"] = _median_rate(lambda: [_crypto.decrypt_exact(sk, c) for c in cts], n_values, repeats)
            out["add"] = _median_rate(lambda: [a + b for a, b in zip(cts, cts[1:] + cts[:1])], n_values, repeats)
            out["multiply by constant"] = _median_rate(lambda: [c * const for c in cts], n_values, repeats)
            out["re-randomise"] = _median_rate(lambda: [c.obfuscate() for c in cts], n_values, repeats)
        return out
    finally:
        util.HAVE_GMP = saved


def _unit_rows(rng, n, d):
    X = rng.normal(size=(n, d)) * np.linspace(1.0, 0.2, d)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _parallel_model(timings, seq_cpu, n_jobs):
    """Wall time of the parallel run on an otherwise idle ``n_jobs``-core machine, from CPU times.

    The sequential run's jobs (each owner's encryption, the proxy's obfuscator chunks: CPU
    seconds each) are placed longest first on ``n_jobs`` workers (their makespan); the proxy's
    per-entry work and the data user's decryptions split evenly; the rest (aggregation, the
    count, the eigendecomposition, bookkeeping) stays serial.  Unlike wall time on a shared
    machine this does not depend on the other processes; it ignores process start-up and
    pickling (measured apart: the worker start-up line, and the measured parallel wall times).
    """
    jobs = sorted(list(timings["owners"]) + list(timings.get("proxy_precompute_jobs", [])), reverse=True)
    loads = [0.0] * n_jobs
    for job in jobs:
        loads[loads.index(min(loads))] += job
    split = timings.get("proxy_release_cpu", 0.0) + timings.get("user_cpu", 0.0)
    serial = max(seq_cpu - sum(jobs) - split, 0.0)
    return max(loads) + split / n_jobs + serial


def run_dpdpca_speed(dims, bits, repeats, n_owners=3, rows=50, n_jobs=2):
    """Median wall time of ``run_dpdpca`` sequential (n_jobs=1) and parallel (n_jobs) at each d.

    One key pair is generated up front and passed in (key generation is random in length and is
    reported apart); everything else of the run is timed: owners' encryption, the proxy's
    aggregation and release, the data user's decryption and eigendecomposition.  "bare
    encryption" is one owner's d(d+1)/2 + d + 1 values encrypted one by one with
    ``encrypt_fixed`` in this process: L times it is what the owners cost in sequence.  The
    sequential run's CPU time (``time.process_time``) is printed too: unlike wall time it hardly
    depends on what else the machine is doing, so it compares the work of two versions.
    """
    import warnings

    phe = _crypto.require_phe()
    t0 = time.perf_counter()
    keypair = phe.generate_paillier_keypair(n_length=bits)
    print(f"  key generation ({bits} bits, once): {time.perf_counter() - t0:.2f} s")
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # start the worker processes once (joblib keeps them), untimed
        warnings.simplefilter("ignore")
        run_dpdpca([_unit_rows(rng, 5, 2) for _ in range(n_owners)], 1, 0.5, 1e-5, keypair=keypair, n_jobs=n_jobs)
    print(f"  worker start-up (once, not included below): {time.perf_counter() - t0:.2f} s")
    rows_out = []
    for d in dims:
        owners = [_unit_rows(rng, rows, d) for _ in range(n_owners)]
        m = d * (d + 1) // 2 + d + 1
        values = [float(x) for x in rng.normal(size=m)]
        bare = median_time(lambda: [_crypto.encrypt_fixed(keypair[0], x) for x in values], repeats)
        times, cpu, models = {}, [], []

        def run(jobs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, seconds, res = wall_and_cpu(lambda: run_dpdpca(owners, 2, 0.5, 1e-5, keypair=keypair,
                                                                  random_state=0, n_jobs=jobs))
            if jobs == 1:
                cpu.append(seconds)
                models.append(_parallel_model(res.timings_, seconds, n_jobs))

        for jobs in (1, n_jobs):
            times[jobs] = median_time(lambda: run(jobs), repeats)
        seq_cpu, model = float(np.median(cpu)), float(np.median(models))
        rows_out.append((d, m, bare, times[1], times[n_jobs], seq_cpu, model))
        print(f"  d = {d:3d}: {m:4d} values per owner; bare encryption of one owner {bare:7.2f} s "
              f"(x{n_owners} = {n_owners * bare:7.2f} s); run_dpdpca n_jobs=1 {times[1]:7.2f} s, "
              f"n_jobs={n_jobs} {times[n_jobs]:7.2f} s; parallel/sequential {times[n_jobs] / times[1]:.2f}, "
              f"sequential/(owners' bare encryption) {times[1] / (n_owners * bare):.2f}\n"
              f"           CPU-time model of an otherwise idle {n_jobs}-core machine: sequential {seq_cpu:7.2f} s "
              f"(CPU of the n_jobs=1 run), parallel {model:7.2f} s, ratio {model / seq_cpu:.2f}", flush=True)
    return rows_out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1024-bit keys and tiny sizes (a smoke run)")
    parser.add_argument("--owners", type=int, nargs="+", default=None, help="owner counts L (default 2 4 … 64)")
    parser.add_argument("--features", type=int, default=None, help="M (default 20)")
    parser.add_argument("--key-length", type=int, default=None, help="bits (default 2048)")
    parser.add_argument("--repeats", type=int, default=None, help="repeats for medians (default 3)")
    parser.add_argument("--dims", type=int, nargs="+", default=None,
                        help="feature counts d for part (c) (default 10 20 40)")
    parser.add_argument("--only-run", action="store_true", help="only part (c): run_dpdpca sequential vs parallel")
    args = parser.parse_args(argv)

    quick = args.quick
    bits = args.key_length or (1024 if quick else 2048)
    M = args.features or (6 if quick else 20)
    owners = args.owners or ([2, 4, 8] if quick else [2, 4, 8, 16, 32, 64])
    repeats = args.repeats or (2 if quick else 3)
    n_values = 50 if quick else 200

    print(f"python {platform.python_version()}, {platform.machine()}, phe with gmpy2: {_crypto.gmpy2_in_use()}")
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")
    if bits < 2048:
        print(f"NOTE: {bits}-bit keys are INSECURE (benchmark/demo size only)")

    dims = args.dims or ([4, 6] if quick else [10, 20, 40])
    print(f"\n(c) run_dpdpca end to end, 3 owners x 50 rows, {bits}-bit key, sequential (n_jobs=1) vs parallel "
          f"(n_jobs=2); median over {repeats} repeats (the CPU may be shared: medians are noisy)", flush=True)
    run_dpdpca_speed(dims, bits, repeats)
    if args.only_run:
        print("\nmedian timings done")
        return 0

    print(f"\n(a) Paillier throughput, {n_values} values, median over {repeats} repeats (values/s)")
    key_sizes = [1024] if quick else [1024, 2048]
    for kb in key_sizes:
        res = throughput(kb, n_values, repeats)
        for op, (rate, med) in res.items():
            print(f"  {kb}-bit {op:22s} median {rate:10.1f} values/s   ({med * 1000 / n_values:8.3f} ms per value)")
        if kb == 2048:
            print(f"  -> 1000 values at 2048 bits: median {1000 / res['encrypt'][0]:.1f} s")
    if not quick:
        slow = throughput(2048, 20, 1, gmp=False)
        rate = slow["encrypt"][0]
        print(f"  2048-bit encrypt without gmpy2   median {rate:10.1f} values/s (1000 values: {1000 / rate:.0f} s)")

    print(f"\n(b) wall time against the number of owners: M = {M}, {bits}-bit keys, "
          f"{M * (M + 1) // 2 + M + 1} encryptions per owner, 50 rows per owner")
    t0 = time.perf_counter()
    res = timing_vs_owners(owners, n_features=M, rows_per_owner=50, key_length=bits, chain_repeats=max(5, repeats),
                           release_repeats=repeats)
    print(f"  (sweep took {time.perf_counter() - t0:.1f} s; key generation {res['keygen']:.2f} s, not included)")
    header = (f"  {'L':>3} {'DPDPCA parallel':>16} {'owner mean':>13} {'owner max':>10} {'proxy median':>13} "
              f"{'user median':>12} {'DPDPCA total':>13} {'chain median':>13}")
    print(header)
    for i, L in enumerate(res["n_owners"]):
        print(f"  {L:3d} {res['dpdpca_parallel'][i]:15.3f}s {res['owner_mean'][i]:12.3f}s {res['owner_max'][i]:9.3f}s "
              f"{res['proxy'][i]:12.3f}s {res['user'][i]:11.3f}s {res['dpdpca_total'][i]:12.3f}s "
              f"{res['chain'][i] * 1000:11.3f}ms")
    ratio = res["dpdpca_parallel"][-1] / res["dpdpca_parallel"][0]
    print(f"  DPDPCA parallel time grows x{ratio:.2f} from L = {owners[0]} to {owners[-1]}; "
          f"the chain x{res['chain'][-1] / res['chain'][0]:.1f}")
    per_msg = (res["dpdpca_parallel"] - res["chain"]) / np.maximum(res["chain_hops"] - res["dpdpca_hops"], 1)
    print("  network delay per message at which the chain becomes slower than DPDPCA "
          "(chain: L messages in sequence, DPDPCA: 5):")
    for L, d in zip(res["n_owners"], per_msg):
        print(f"    L = {L:3d}: " + (f"{d * 1000:.0f} ms" if L > 5 else "never (L <= 5)"))
    print("\nmedian timings done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
