"""Dashboards of chapters 4 and 5: time from a control change to the redrawn figure.

For each dashboard, ~50 random control changes (seeded) are applied the way a user applies them
(setting ``control.value``, which triggers the dashboard's update), and the dashboard's own
timings are summarised: ``compute`` (the twin function, the part the target is about), ``draw``
(moving the artists) and ``total`` (compute + draw + PNG encoding).  No assertions: this is a
measurement.

    python benchmarks/bench_chapters_4_5.py            # 50 changes per dashboard
    python benchmarks/bench_chapters_4_5.py --changes 200 --seed 3
    python benchmarks/bench_chapters_4_5.py --quick    # 5 changes each, a smoke run

Target (issue brief): p95 of compute ≤ 100 ms at the default sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see privpca_edu._validation.single_threaded_blas
os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import ipywidgets as W  # noqa: E402

from privpca_edu.experiments import noisy_covariance  # noqa: E402
from privpca_edu.widgets.auditing import gdp_audit_dashboard  # noqa: E402
from privpca_edu.widgets.noisy_covariance import noisy_covariance_dashboard  # noqa: E402


def random_value(control, rng):
    """A random admissible value of a control, different from the current one when possible."""
    for _ in range(20):
        if isinstance(control, W.FloatLogSlider):
            v = float(control.base ** rng.uniform(control.min, control.max))
        elif isinstance(control, (W.IntSlider, W.BoundedIntText)):
            hi = min(control.max, 20) if isinstance(control, W.BoundedIntText) else control.max
            v = int(rng.integers(control.min, hi + 1))
        elif isinstance(control, W.FloatSlider):
            v = float(np.round(rng.uniform(control.min, control.max) / control.step) * control.step)
        elif isinstance(control, (W.SelectionSlider, W.Dropdown, W.ToggleButtons)):
            options = [o[1] if isinstance(o, tuple) else o for o in control.options]
            v = options[int(rng.integers(len(options)))]
        else:  # pragma: no cover
            raise TypeError(type(control))
        if v != control.value:
            return v
    return v


def percentile(values, q):
    return float(np.percentile(np.asarray(values) * 1e3, q))


def bench(name, make, n_changes, rng, clear=None):
    if clear is not None:
        clear()
    dash = make()
    # Also record the twin's CPU time: wall-clock numbers inflate on a shared, loaded machine
    # (the load average is printed), CPU time much less so.
    cpu = []
    twin = dash.compute

    def timed_twin(**params):
        c0 = time.process_time()
        try:
            return twin(**params)
        finally:
            cpu.append(time.process_time() - c0)

    dash.compute = timed_twin
    start = len(dash.timings)
    errors = 0
    names = list(dash.controls)
    for _ in range(n_changes):
        control = dash.controls[names[int(rng.integers(len(names)))]]
        control.value = random_value(control, rng)
        errors += dash.last_error is not None
    t = dash.timings[start:]
    compute = [x["compute"] for x in t]
    total = [x["total"] for x in t]
    draw = [x["draw"] for x in t]
    print(f"{name}: {len(t)} changes ({errors} showed an error message, {dash.n_computes} twin calls)")
    print(f"   compute  p50 {percentile(compute, 50):6.1f} ms   p95 {percentile(compute, 95):6.1f} ms   "
          f"max {percentile(compute, 100):6.1f} ms   (target p95 ≤ 100 ms)")
    print(f"   compute CPU time p50 {percentile(cpu, 50):6.1f} ms   p95 {percentile(cpu, 95):6.1f} ms")
    print(f"   draw     p50 {percentile(draw, 50):6.1f} ms   p95 {percentile(draw, 95):6.1f} ms")
    print(f"   total    p50 {percentile(total, 50):6.1f} ms   p95 {percentile(total, 95):6.1f} ms   "
          f"(compute + draw + PNG encoding)")
    return dict(compute_p50=statistics.median(compute), compute_p95=np.percentile(compute, 95))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50, help="random control changes per dashboard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="5 changes per dashboard (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.changes = 5
    rng = np.random.default_rng(args.seed)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}")
    bench("chapter 4: noisy_covariance_dashboard (cold caches)", noisy_covariance_dashboard, args.changes, rng,
          clear=noisy_covariance.clear_caches)
    bench("chapter 5: gdp_audit_dashboard", gdp_audit_dashboard, args.changes, rng)


if __name__ == "__main__":
    main()
