"""Running the parties' independent work in parallel with joblib (and therefore on Dask).

Every job is a module-level function of plain integers and lists (public key as n, ciphertexts as
ints, secrets as bytes), so it pickles to a worker process as it is.  ``n_jobs=1`` runs the same
jobs in order in this process; the results are identical because every job derives its own
randomness from the secret it is handed (:func:`._crypto.random_units`), never from a shared
generator.  To send the jobs to a Dask cluster instead of local processes::

    from dask.distributed import Client
    import joblib
    client = Client(...)
    with joblib.parallel_config(backend="dask"):
        run_dpdpca(owners, 2, 0.5, 1e-5, n_jobs=-1)
"""

from __future__ import annotations

import numbers

__all__ = ["check_n_jobs", "chunk_ranges", "run_tasks"]


def check_n_jobs(n_jobs, name="n_jobs"):
    """``None`` → 1; a positive int; or −1 (all cores, joblib's convention).  Anything else: an error."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name} must be None, a positive int or -1, got {type(n_jobs).__name__}")
    n_jobs = int(n_jobs)
    if n_jobs == -1:
        import os

        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    if n_jobs < 1:
        raise ValueError(f"{name} must be None, a positive int or -1 (all cores), got {n_jobs}")
    return n_jobs


def chunk_ranges(count, n_jobs):
    """Split range(count) into at most ``n_jobs`` contiguous (start, stop) chunks of near-equal size."""
    count = int(count)
    k = max(1, min(int(n_jobs), count))
    bounds = [count * i // k for i in range(k + 1)]
    return [(a, z) for a, z in zip(bounds[:-1], bounds[1:]) if z > a] or [(0, 0)]


def run_tasks(tasks, n_jobs):
    """Run ``[(func, args), …]``: in order here when ``n_jobs`` is 1 (or there is one task), else with joblib.

    Results come back in the order of ``tasks`` either way.
    """
    tasks = list(tasks)
    if n_jobs == 1 or len(tasks) <= 1:
        return [func(*args) for func, args in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=min(int(n_jobs), len(tasks)))(delayed(func)(*args) for func, args in tasks)
