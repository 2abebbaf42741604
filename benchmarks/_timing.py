"""Timing helper shared by the benchmark scripts (run as ``python benchmarks/bench_*.py``).

Benchmarks print medians, never assert on them: wall-clock time depends on the machine and on
whatever else it is doing.  ``time.perf_counter`` is the clock throughout.
"""
import statistics
import time


def time_repeats(func, repeats):
    """Run ``func()`` ``repeats`` times; return ``(median seconds, all timings, last result)``."""
    timings, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), timings, result


def median_time(func, repeats):
    """Median wall time in seconds of ``repeats`` calls of ``func()``."""
    return time_repeats(func, repeats)[0]


def wall_and_cpu(func):
    """Run ``func()`` once; return ``(wall seconds, process CPU seconds, result)``.

    The process CPU time counts every thread of the process, so a twin that works on two threads
    shows its whole work there, and the machine's other load does not enter it."""
    start, start_cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - start, time.process_time() - start_cpu, result


def write_json(path, results):
    """Write ``results`` to ``path`` as indented JSON (nothing when ``path`` is None)."""
    if path:
        import json

        with open(path, "w") as fh:
            json.dump(results, fh, indent=2)
