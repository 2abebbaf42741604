"""Latency of every dashboard: time from a control change to a finished redraw.

For each dashboard of :mod:`privpca_edu.widgets`, make ~50 random control changes (a random
control, a random new value on its grid, as a student dragging sliders would) and time each one
from setting ``control.value`` to the new PNG being in the Image widget: the twin's compute,
the in-place artist update, the Agg render and the PNG encode.  Setting the value from Python
fires the same observer a slider release fires in JupyterLab; only the websocket round trip to
the browser is missing.

    python benchmarks/bench_widgets.py [--changes 50] [--seed 0] [--json out.json]
    python benchmarks/bench_widgets.py --compare-plain   # blitting vs a full canvas.draw(), paired

Prints p50 / p95 / max per dashboard and whether p95 ≤ 100 ms (the target for a figure that
feels live).  ``--compare-plain`` builds every dashboard twice, once as shipped (blitting: the
figure's static artists drawn once into a cached background) and once with ``blit = False`` (a
full ``canvas.draw()`` per move), applies each control change to both, alternating which goes
first (they share the experiments' caches), and prints both latencies and the median of the
paired ratios plain / blit: on a loaded machine the ratio stays fair where absolute times do not.  BLAS is limited to one thread (see ``privpca_edu._validation.single_threaded_blas``:
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

from privpca_edu import experiments, plotting, widgets  # noqa: E402
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
# --compare-plain adds chapter 7's ε slider (its figure is always drawn in full: blit = False).
PAIRED_EXTRA = {"hospitals_dashboard ε (ch. 7)": (widgets.hospitals_dashboard, ["epsilon"])}
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


def _figure_classes():
    classes, stack = [], [plotting.LiveFigure]
    while stack:
        cls = stack.pop()
        classes.append(cls)
        stack += cls.__subclasses__()
    return classes


def build_plain(make):
    """``make()`` with every live figure class set to ``blit = False`` while it is built."""
    saved = [(cls, cls.__dict__.get("blit")) for cls in _figure_classes()]
    for cls, _ in saved:
        cls.blit = False
    try:
        dashboard = make()
        dashboard.figure.blit = False  # (the instance keeps it after the classes are put back)
        return dashboard
    finally:
        for cls, value in saved:
            if value is None:
                del cls.blit
            else:
                cls.blit = value


def _move(dashboard, name, value):
    start, start_cpu = time.perf_counter(), time.process_time()
    dashboard.controls[name].value = value
    return (time.perf_counter() - start) * 1e3, (time.process_time() - start_cpu) * 1e3


def bench_paired(make, n_changes, rng, only=None):
    """Blitting vs a full draw per move, the same moves on both, interleaved."""
    pair = [make(), build_plain(make)]
    assert pair[0].figure.blit or not type(pair[0].figure).blit
    for dashboard in pair:
        dashboard.png()
    names = only or list(pair[0].controls)
    wall, cpu = [[], []], [[], []]
    for i in range(n_changes):
        name = names[rng.integers(len(names))]
        value = random_value(pair[0].controls[name], rng)
        for k in ((0, 1) if i % 2 == 0 else (1, 0)):  # who goes first alternates (shared caches)
            w, c = _move(pair[k], name, value)
            wall[k].append(w)
            cpu[k].append(c)
    wall, cpu = np.array(wall), np.array(cpu)
    out = {}
    for k, label in enumerate(("blit", "plain")):
        out[label] = {"p50_ms": float(np.percentile(wall[k], 50)), "p95_ms": float(np.percentile(wall[k], 95)),
                      "cpu_p50_ms": float(np.percentile(cpu[k], 50)), "cpu_p95_ms": float(np.percentile(cpu[k], 95))}
    out["paired_ratio_plain_over_blit"] = float(np.median(wall[1] / wall[0]))
    return out


def main_paired(args):
    rng = np.random.default_rng(args.seed)
    print(f"load average: {os.getloadavg()} on {os.cpu_count()} CPUs (wall times grow with it; the ratio less)")
    print(f"{'dashboard':<34} {'blit p50':>8} {'p95':>7} {'cpu50':>6} {'cpu95':>6} | {'plain p50':>9} {'p95':>7} "
          f"{'cpu50':>6} {'cpu95':>6} | plain/blit (median of pairs)")
    results = {}
    boards = {name: (make, None) for name, make in DASHBOARDS.items()}
    boards.update(PAIRED_EXTRA)
    with single_threaded_blas():
        for name, (make, only) in boards.items():
            if args.only and args.only not in name:
                continue
            r = results[name] = bench_paired(make, args.changes, rng, only)
            b, p = r["blit"], r["plain"]
            print(f"{name:<34} {b['p50_ms']:8.1f} {b['p95_ms']:7.1f} {b['cpu_p50_ms']:6.1f} {b['cpu_p95_ms']:6.1f} | "
                  f"{p['p50_ms']:9.1f} {p['p95_ms']:7.1f} {p['cpu_p50_ms']:6.1f} {p['cpu_p95_ms']:6.1f} | "
                  f"{r['paired_ratio_plain_over_blit']:.2f}", flush=True)
    print(f"load average at the end: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50, help="random control changes per dashboard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="benchmark only dashboards whose name contains this text")
    parser.add_argument("--compare-plain", action="store_true",
                        help="paired: every move on the shipped (blitting) figure and on a full canvas.draw()")
    args = parser.parse_args(argv)
    if args.compare_plain:
        return main_paired(args)
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
