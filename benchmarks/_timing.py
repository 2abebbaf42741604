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
