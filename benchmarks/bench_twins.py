"""Compute time of the dashboards' twins alone (no figure, no PNG): chapters 6, 8 and 9.

Each dashboard of :mod:`privpca_edu.widgets` is built once for its controls (their ranges, and
the links between them, e.g. k ≤ s ≤ p in chapter 6); its own redraw is then detached and the
twin (``dashboard.compute``) is called and timed directly after every control change.  Two walks
per dashboard:

* ``walk``: random control changes as :mod:`bench_widgets` makes them (a random control, a random
  new value on its grid), each from wherever the previous one left the controls;
* ``defaults``: every change moves one control from the book's defaults (the others are reset to
  their defaults first, untimed) — "a single slider move at the book's defaults".

The twin's own caches are kept (the first visit of every setting is in the numbers: caches are
cleared before each dashboard); the dashboard's memo of whole results is not used.

    python benchmarks/bench_twins.py [--changes 50] [--seed 0] [--only ldp] [--json out.json]

Prints p50 / p95 / max of wall time and of process CPU time per dashboard and per control.  On
a shared machine wall time grows with the load; CPU time much less.  BLAS is held at one thread.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import wall_and_cpu, write_json  # noqa: E402
from privpca_edu.widgets.controls import random_value as _random_value  # noqa: E402  (the same random control changes as bench_widgets)

from privpca_edu import widgets  # noqa: E402
from privpca_edu._validation import single_threaded_blas  # noqa: E402
from privpca_edu.experiments import dps_pca as dps_experiments  # noqa: E402
from privpca_edu.experiments import ldp as ldp_experiments  # noqa: E402
from privpca_edu.experiments import robust as robust_experiments  # noqa: E402

TARGET_MS = 50.0


def _clear(module):
    """The module's ``clear_caches`` (or, where it has none, every ``lru_cache`` in it)."""
    def clear():
        if hasattr(module, "clear_caches"):
            module.clear_caches()
            return
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
    return clear


TWINS = {
    "ldp (ch. 6)": (widgets.ldp_dashboard, _clear(ldp_experiments)),
    "dps (ch. 8)": (widgets.dps_pca_dashboard, _clear(dps_experiments)),
    "heavy_tails (ch. 9)": (widgets.heavy_tails_dashboard, _clear(robust_experiments)),
    "breakdown (ch. 9)": (widgets.breakdown_dashboard, _clear(robust_experiments)),
}


def _stats(values):
    a = np.asarray(values)
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95)),
            "max_ms": float(a.max())}


def bench(make, clear, n_changes, rng, mode):
    dashboard = make()
    for control in dashboard.controls.values():  # detach the redraw: only the twin is timed
        control.unobserve(dashboard._on_change, names="value")
    defaults = {name: c.value for name, c in dashboard.controls.items()}
    clear()
    dashboard.compute(**dashboard.params())  # the dashboard's first draw (also untimed in bench_widgets)
    names = list(dashboard.controls)
    wall, cpu, moved = [], [], []
    for _ in range(n_changes):
        if mode == "defaults":
            for _ in range(2):  # untimed reset; twice, as linked ranges (k ≤ s ≤ p) may clamp in order
                for key, value in defaults.items():
                    dashboard.controls[key].value = value
            assert {key: c.value for key, c in dashboard.controls.items()} == defaults
        name = names[rng.integers(len(names))]
        control = dashboard.controls[name]
        control.value = _random_value(control, rng)
        params = dashboard.params()
        w, c, _ = wall_and_cpu(lambda: dashboard.compute(**params))
        wall.append(w * 1e3)
        cpu.append(c * 1e3)
        moved.append(name)
    per_control = {}
    for name in names:
        sel = [i for i, m in enumerate(moved) if m == name]
        if sel:
            per_control[name] = dict(changes=len(sel), wall=_stats([wall[i] for i in sel]),
                                     cpu=_stats([cpu[i] for i in sel]))
    return dict(wall=_stats(wall), cpu=_stats(cpu), per_control=per_control, changes=n_changes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50, help="control changes per dashboard and walk")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="benchmark only twins whose name contains this text")
    parser.add_argument("--mode", choices=("walk", "defaults", "both"), default="both")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine load average (1 min): {load:.2f} on {os.cpu_count()} CPUs — wall times grow with it")
    print(f"{'twin':<22} {'walk':<9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'cpu p50':>8} {'cpu p95':>8}"
          f"  p95<={TARGET_MS:g}ms")
    modes = ("walk", "defaults") if args.mode == "both" else (args.mode,)
    results = {}
    with single_threaded_blas():
        for name, (make, clear) in TWINS.items():
            if args.only and args.only not in name:
                continue
            for mode in modes:
                rng = np.random.default_rng([args.seed, len(mode)])
                r = bench(make, clear, args.changes, rng, mode)
                results[f"{name} {mode}"] = r
                w, c = r["wall"], r["cpu"]
                print(f"{name:<22} {mode:<9} {w['p50_ms']:8.1f} {w['p95_ms']:8.1f} {w['max_ms']:8.1f} "
                      f"{c['p50_ms']:8.1f} {c['p95_ms']:8.1f}  {'yes' if w['p95_ms'] <= TARGET_MS else 'NO'}")
                for control, pc in r["per_control"].items():
                    print(f"    {control:<28} {pc['wall']['p50_ms']:8.1f} {pc['wall']['p95_ms']:8.1f} "
                          f"{pc['wall']['max_ms']:8.1f} {pc['cpu']['p50_ms']:8.1f} {pc['cpu']['p95_ms']:8.1f}"
                          f"   ({pc['changes']} changes)")
    print("(wall and process-CPU time of the twin call alone; caches cleared before each dashboard)")
    write_json(args.json, results)
    return results


if __name__ == "__main__":
    main()
