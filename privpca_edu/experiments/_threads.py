"""Independent pieces of a dashboard twin on two cores: the same numbers, less waiting.

A control change that recomputes a whole curve (the local-DP chapter's batch of ADMMs from p = 30
on, the attack chapter's eigendecompositions at thirteen ε) or large statistics (the heavy-tails
chapter's Kendall τ matrices) spends its time in LAPACK, BLAS and large array operations, which
release the GIL: two threads finish it in about half the wall time on an idle two-core machine
(on a loaded one, in about the same time as one).  Every piece is computed
exactly as it would be serially (BLAS is held at one thread for the whole parallel section, so no
piece's arithmetic depends on the other), and results come back in order.

Warnings: ``warnings.catch_warnings`` is process-wide, so a twin's notes (caught warnings) cannot
be collected with it inside threads.  :func:`map_with_warnings` instead sends each thread's
warnings (all of them, as ``simplefilter("always")`` would) to that thread's own list, and returns
every piece's warnings with its result.
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

from .._validation import single_threaded_blas

__all__ = ["n_workers", "in_parallel", "map_with_warnings"]

_POOL = []


def n_workers():
    """Cores this process may use, at most 2 (1: everything runs serially, in the caller)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    if os.environ.get("PRIVPCA_THREADS", "").strip() in ("0", "1"):
        return 1
    return max(1, min(2, cores))


def _pool():
    # one pool per process: a forked child (multiprocessing) has none of its parent's threads
    if not _POOL or _POOL[0][0] != os.getpid():
        _POOL[:] = [(os.getpid(), ThreadPoolExecutor(max_workers=2, thread_name_prefix="privpca-twin"))]
    return _POOL[0][1]


def in_parallel(first, second):
    """``(first(), second())``, the first on a worker thread while the second runs here."""
    if n_workers() < 2:
        return first(), second()
    with single_threaded_blas():
        future = _pool().submit(first)
        try:
            b = second()
        finally:
            a = future.result()
    return a, b


@contextlib.contextmanager
def _warnings_per_thread():
    logs = {}

    def show(message, category, filename, lineno, file=None, line=None):
        logs.setdefault(threading.get_ident(), []).append(
            warnings.WarningMessage(message, category, filename, lineno, file, line))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        yield logs


def map_with_warnings(fn, items):
    """``[(fn(item), [warning messages it raised]), …]`` in the order of ``items``, on two threads."""
    items = list(items)
    if n_workers() < 2 or len(items) < 2:
        out = []
        for item in items:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = fn(item)
            out.append((result, [str(w.message) for w in caught]))
        return out
    with single_threaded_blas(), _warnings_per_thread() as logs:

        def run(item):
            log = logs.setdefault(threading.get_ident(), [])
            start = len(log)
            result = fn(item)
            return result, [str(w.message) for w in log[start:]]

        return list(_pool().map(run, items))
