"""Latency of every dashboard: time from a control change to a finished redraw.

For each dashboard of :mod:`privpca_edu.widgets`, make ~50 random control changes (a random
control, a random new value on its grid, as a student dragging sliders would) and time each one
from setting ``control.value`` to the new PNG being in the Image widget: the twin's compute,
the in-place artist update, the Agg render and the PNG encode.  Setting the value from Python
fires the same observer a slider release fires in JupyterLab; only the websocket round trip to
the browser is missing.

    python benchmarks/bench_widgets.py [--changes 50] [--seed 0] [--json out.json]

Prints p50 / p95 / max per dashboard and whether p95 ≤ 100 ms (the target for a figure that
feels live).  BLAS is limited to one thread (see ``privpca_edu._validation.single_threaded_blas``:
on the project's 2-core machines OpenBLAS threading makes small-matrix loops ~10x slower).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ipywidgets as W  # noqa: E402

from privpca_edu import experiments, widgets  # noqa: E402
from privpca_edu._validation import single_threaded_blas  # noqa: E402
from privpca_edu.widgets.controls import random_value  # noqa: E402

TARGET_MS = 100.0

DASHBOARDS = {
    "attack_dashboard (ch. 1)": widgets.attack_dashboard,
    "sigma_dashboard (ch. 2)": widgets.sigma_dashboard,
    "planes_dashboard (ch. 3)": widgets.planes_dashboard,
    "angles_dashboard (ch. 3)": widgets.angles_dashboard,
    "noisy_covariance_dashboard (ch. 4)": widgets.noisy_covariance_dashboard,
    "gdp_audit_dashboard (ch. 5)": widgets.gdp_audit_dashboard,
    "ldp_dashboard (ch. 6)": widgets.ldp_dashboard,
    "dps_pca_dashboard (ch. 8)": widgets.dps_pca_dashboard,
    "heavy_tails_dashboard (ch. 9)": widgets.heavy_tails_dashboard,
    "breakdown_dashboard (ch. 9)": widgets.breakdown_dashboard,
    "europe_dashboard (ch. 10)": widgets.europe_dashboard,
}
# Not here: hospitals_dashboard (ch. 7).  Changing the number of owners or the key length there
# re-runs real Paillier encryption (seconds, by design and said in the chapter); its ε slider
# only redraws the noise and is covered by benchmarks/bench_protocol.py.


def bench(make, n_changes, rng):
    dashboard = make()
    dashboard.png()  # warm-up (font cache, first background) is not what a student waits for
    names = list(dashboard.controls)
    latencies, cpu, parts, moved = [], [], [], []
    for _ in range(n_changes):
        name = names[rng.integers(len(names))]
        control = dashboard.controls[name]
        moved.append(name)
        value = random_value(control, rng)  # on the control's own grid, as a student drags it
        start, start_cpu = time.perf_counter(), time.process_time()
        control.value = value  # fires Dashboard.refresh synchronously
        latencies.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.process_time() - start_cpu) * 1e3)
        parts.append(dashboard.timings[-1])
    lat, cpu = np.array(latencies), np.array(cpu)
    per_control = {}
    for name in names:
        sel = np.array([m == name for m in moved])
        if sel.any():
            per_control[name] = {"changes": int(sel.sum()), "p50_ms": float(np.percentile(lat[sel], 50)),
                                 "p95_ms": float(np.percentile(lat[sel], 95)),
                                 "cpu_p50_ms": float(np.percentile(cpu[sel], 50)),
                                 "cpu_p95_ms": float(np.percentile(cpu[sel], 95))}
    return {
        "per_control": per_control,
        "changes": n_changes,
        "p50_ms": float(np.percentile(lat, 50)),
        "p95_ms": float(np.percentile(lat, 95)),
        "max_ms": float(lat.max()),
        "cpu_p50_ms": float(np.percentile(cpu, 50)),
        "cpu_p95_ms": float(np.percentile(cpu, 95)),
        "median_compute_ms": float(np.median([p["compute"] for p in parts]) * 1e3),
        "median_render_ms": float(np.median([p["draw"] + p["encode"] for p in parts]) * 1e3),
        "p95_compute_ms": float(np.percentile([p["compute"] for p in parts], 95) * 1e3),
        "p95_render_ms": float(np.percentile([p["draw"] + p["encode"] for p in parts], 95) * 1e3),
        "p95_within_target": bool(np.percentile(lat, 95) <= TARGET_MS),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50, help="random control changes per dashboard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="benchmark only dashboards whose name contains this text")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    for clear in (experiments.attack.clear_caches, experiments.accounting.clear_caches):
        clear()  # measure cold caches too: the first visit of every setting is in the numbers
    results = {}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine load average (1 min): {load:.2f} on {os.cpu_count()} CPUs — wall times grow with it; "
          "CPU times do not")
    print(f"{'dashboard':<26} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'cpu p50':>8} {'cpu p95':>8} "
          f"{'compute':>8} {'render':>8}  p95<=100ms  {'comp p95':>8} {'rend p95':>8}")
    with single_threaded_blas():
        for name, make in DASHBOARDS.items():
            if args.only and args.only not in name:
                continue
            r = bench(make, args.changes, rng)
            results[name] = r
            print(f"{name:<26} {r['p50_ms']:8.1f} {r['p95_ms']:8.1f} {r['max_ms']:8.1f} {r['cpu_p50_ms']:8.1f} "
                  f"{r['cpu_p95_ms']:8.1f} {r['median_compute_ms']:8.1f} {r['median_render_ms']:8.1f}  "
                  f"{'yes' if r['p95_within_target'] else 'NO ':<10} {r['p95_compute_ms']:8.1f} {r['p95_render_ms']:8.1f}")
            for control, c in r["per_control"].items():
                print(f"    {control:<22} {c['p50_ms']:8.1f} {c['p95_ms']:8.1f} {'':>8} {c['cpu_p50_ms']:8.1f} "
                      f"{c['cpu_p95_ms']:8.1f}   ({c['changes']} changes)")
    print("(p50/p95/max: wall time from control change to new PNG; cpu: process CPU time of the same;\n"
          " compute/render: wall-time medians of the twin and of artist update + Agg render + PNG encode;\n"
          " comp p95/rend p95: their 95th percentiles)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()
