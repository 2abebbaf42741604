"""DPS-PCA (Ge, Wang, Wang & Liu, AISTATS 2018), Section 5: Figs. 3(a), 3(b), 4(a), 4(b) and Table 1.

Data: one draw of the §5.1 spiked sparse model (rows scaled to unit norm; the paper does not say
how it normalised, so absolute levels may differ from its figures — the orderings are what we
check).  Every task is one repetition of one setting: a DPS-PCA trajectory (Fig. 3), or one
method's final error (Fig. 4); the scatter matrix is computed once per worker process
(:func:`privpca_edu.experiments.dps_pca.model_scatter` is cached).
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..experiments import dps_pca as ex
from ..subspace import random_subspace_distance
from ._engine import Task
from ._report import Claim, fmt, fmt_mean_sd, group, md_table, mean_sd, write_csv

NAME = "dps-pca"
TITLE = ("DPS-PCA — Ge, Wang, Wang & Liu, “Minimax-optimal privacy-preserving sparse PCA in distributed systems”, "
         "AISTATS 2018")
METHODS = ("DPS-PCA", "PPCA", "MOD-SuLQ")

_PAPER_EPS_4A = tuple(np.round(np.arange(0.8, 2.0001, 0.1), 2))

#: quick: seconds (tests); book: the chapter's sizes (d = 200); paper: §5.1–5.2 (n = 10⁵, d = 1000).
SCALES = {
    "quick": dict(data=dict(n_samples=2000, n_features=40, n_components=2, support_size=5), sparsity=10, n_iter=5,
                  fig3_reps=2, fig3a_eps=(0.5, 1.0, 2.0), fig3b_eps=(1.0, 2.0), fig3b_deltas=(0.01, 0.5),
                  fig4a_eps=(0.8, 2.0), fig4_reps=1, ppca_sweeps=3, fig4b_dims=(20, 40), fig4b_n=2000,
                  fig4b_k=2, table1_dims=(60,), table1_n=300, table1_sweeps=3, table1_repeats=1),
    "book": dict(data=dict(n_samples=20_000, n_features=200, n_components=5, support_size=10), sparsity=20, n_iter=10,
                 fig3_reps=20, fig3a_eps=(0.5, 1.0, 1.5, 2.0), fig3b_eps=(1.0, 2.0),
                 fig3b_deltas=(0.01, 0.05, 0.1, 0.5),
                 fig4a_eps=(0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), fig4_reps=3, ppca_sweeps=100,
                 fig4b_dims=(40, 60, 80, 100, 120, 140, 160), fig4b_n=20_000, fig4b_k=3,
                 table1_dims=(200,), table1_n=20_000, table1_sweeps=100, table1_repeats=3),
    "paper": dict(data=dict(n_samples=100_000, n_features=1000, n_components=5, support_size=10), sparsity=50,
                  n_iter=10, fig3_reps=20, fig3a_eps=(0.5, 1.0, 1.5, 2.0), fig3b_eps=(1.0, 2.0),
                  fig3b_deltas=(0.01, 0.05, 0.1, 0.5), fig4a_eps=_PAPER_EPS_4A, fig4_reps=3, ppca_sweeps=1000,
                  fig4b_dims=(40, 60, 80, 100, 120, 140, 160), fig4b_n=100_000, fig4b_k=3,
                  table1_dims=(200, 400, 800), table1_n=20_000, table1_sweeps=100, table1_repeats=3),
}


# --------------------------------------------------------------------------------------------
# Task functions (run in the workers)
# --------------------------------------------------------------------------------------------
def trajectory_task(seed, *, data, epsilon, delta, sparsity, n_iter):
    """D(Q(t), Q*) for t = 0..T of one DPS-PCA run (Fig. 3)."""
    scatter, n, truth, _ = ex.model_scatter(**data)
    return ex.trajectories(scatter, n, truth, epsilon=epsilon, delta=delta, sparsity=sparsity, n_iter=n_iter,
                           seeds=[np.random.default_rng(seed)])[0]


def final_error_task(seed, *, data, method, epsilon, delta, sparsity, n_iter, ppca_sweeps):
    """Final D of one method in one repetition (Fig. 4)."""
    scatter, n, truth, _ = ex.model_scatter(**data)
    return ex.final_error(method, scatter, n, truth, epsilon=epsilon, delta=delta, sparsity=min(sparsity, scatter.shape[0]),
                          n_iter=n_iter, ppca_sweeps=ppca_sweeps, random_state=np.random.default_rng(seed))


def table1_task(seed, *, d, n_samples, ppca_sweeps, repeats):
    """Table 1's CPU times at one d (a measurement: not seeded by ``seed``)."""
    return ex.table1((d,), n_samples=n_samples, ppca_sweeps=ppca_sweeps, repeats=repeats)


def _cost(method, d, sweeps):
    """Relative run time: a Gibbs sweep costs about k·d² flops; the other methods next to nothing."""
    return sweeps * d**2 / 1e4 if method == "PPCA" else d / 1e3


def tasks(cfg):
    data = dict(cfg["data"], data_seed=0)
    d_model = cfg["data"]["n_features"]
    common = dict(data=data, sparsity=cfg["sparsity"], n_iter=cfg["n_iter"])
    out = []
    for eps in cfg["fig3a_eps"]:
        for r in range(cfg["fig3_reps"]):
            out.append(Task("fig3a", dict(epsilon=eps, delta=0.3, rep=r), trajectory_task,
                            dict(common, epsilon=eps, delta=0.3)))
    for eps in cfg["fig3b_eps"]:
        for dl in cfg["fig3b_deltas"]:
            for r in range(cfg["fig3_reps"]):
                out.append(Task("fig3b", dict(epsilon=eps, delta=dl, rep=r), trajectory_task,
                                dict(common, epsilon=eps, delta=dl)))
    for eps in cfg["fig4a_eps"]:
        for m in METHODS:
            for r in range(cfg["fig4_reps"]):
                out.append(Task("fig4a", dict(epsilon=float(eps), method=m, rep=r), final_error_task,
                                dict(common, method=m, epsilon=float(eps), delta=0.3, ppca_sweeps=cfg["ppca_sweeps"]),
                                cost=_cost(m, d_model, cfg["ppca_sweeps"])))
    for d in cfg["fig4b_dims"]:
        data_d = dict(data, n_samples=cfg["fig4b_n"], n_features=d, n_components=cfg["fig4b_k"])
        for m in METHODS:
            for r in range(cfg["fig4_reps"]):
                out.append(Task("fig4b", dict(d=d, method=m, rep=r), final_error_task,
                                dict(common, data=data_d, method=m, epsilon=1.0, delta=0.1,
                                     ppca_sweeps=cfg["ppca_sweeps"]), cost=_cost(m, d, cfg["ppca_sweeps"])))
    for d in cfg["table1_dims"]:
        out.append(Task("table1", dict(d=d), table1_task, dict(d=d, n_samples=cfg["table1_n"],
                                                                ppca_sweeps=cfg["table1_sweeps"],
                                                                repeats=cfg["table1_repeats"]),
                        cost=_cost("PPCA", d, cfg["table1_sweeps"])))
    return out


# --------------------------------------------------------------------------------------------
# Tables, figures, report
# --------------------------------------------------------------------------------------------
def _non_increasing(values, slack=0.0):
    return all(b <= a + slack for a, b in zip(values, values[1:]))


def write(cfg, task_list, results, out, draw):
    files, md, claims = [], [], []
    k, d = cfg["data"]["n_components"], cfg["data"]["n_features"]
    guess = random_subspace_distance(d, k)

    # Fig. 3(a)
    runs = group(task_list, results, "fig3a", ("epsilon",))
    rows, series, finals, curves3a = [], {}, {}, {}
    for (eps,), trajs in runs.items():
        a = np.array(trajs)
        mean, sd = a.mean(axis=0), (a.std(axis=0, ddof=1) if len(a) > 1 else np.zeros(a.shape[1]))
        rows += [(eps, t, mean[t], sd[t], len(a)) for t in range(a.shape[1])]
        series[f"ε = {eps:g}"] = (np.arange(a.shape[1]), mean, sd)
        finals[eps] = mean[-1]
        curves3a[eps] = (mean, sd, len(a))
    files.append(write_csv(os.path.join(out, "fig3a.csv"), ("epsilon", "iteration", "mean_D", "sd_D", "n_reps"), rows))
    files.append(draw(os.path.join(out, "fig3a.png"), "Fig. 3(a): DPS-PCA error, δ = 0.3", "iteration t",
                             "D(Q(t), Q*)", series, hline=guess, hline_label="random subspace"))
    start = float(np.mean([np.asarray(v)[:, 0].mean() for v in runs.values()]))
    n_iter = cfg["n_iter"]
    shown = sorted({0, min(4, n_iter), n_iter})
    reps = sorted({r for _, _, r in curves3a.values()})
    md.append("### Fig. 3(a): error against iteration, δ = 0.3\n")
    md.append(f"D(Q(t), Q*), mean ± sd over {' or '.join(map(str, reps))} repetitions, at t = "
              + ", ".join(map(str, shown)) + f" (T = {n_iter}, the final iterate).\n")
    md.append(md_table(("ε",) + tuple(f"t = {t}" + (" = T" if t == n_iter else "") for t in shown),
                       [(f"{e:g}",) + tuple(fmt_mean_sd(m[t], sd[t]) for t in shown)
                        for e, (m, sd, _) in curves3a.items()]))
    md.append("")
    md.append(md_table(("quantity", "paper (Fig. 3(a) axis)", "ours", "difference"), [
        ("D at t = 0", f"≈ √k = {math.sqrt(k):.3f}", start, start - math.sqrt(k)),
        ("lowest final D", "above ≈ 0.6", min(finals.values()), min(finals.values()) - 0.6),
    ]))
    eps_sorted = sorted(finals)
    claims.append(Claim("Fig. 3(a)", "smaller ε gives a higher final error",
                        _non_increasing([finals[e] for e in eps_sorted]),
                        "final D by increasing ε: " + ", ".join(fmt(finals[e]) for e in eps_sorted)))

    # Fig. 3(b)
    runs = group(task_list, results, "fig3b", ("epsilon", "delta"))
    rows, by_eps = [], {}
    for (eps, dl), trajs in runs.items():
        a = np.array(trajs)
        mean, sd = a.mean(axis=0), (a.std(axis=0, ddof=1) if len(a) > 1 else np.zeros(a.shape[1]))
        rows += [(eps, dl, t, mean[t], sd[t], len(a)) for t in range(a.shape[1])]
        by_eps.setdefault(eps, {})[dl] = (mean, sd)
    files.append(write_csv(os.path.join(out, "fig3b.csv"),
                           ("epsilon", "delta", "iteration", "mean_D", "sd_D", "n_reps"), rows))
    md.append("\n### Fig. 3(b): error against iteration for several δ (the text says ε = 1, the caption ε = 2: both)\n")
    reps = sorted({len(trajs) for trajs in runs.values()})
    md.append(f"Final D(Q(T), Q*), T = {n_iter}: mean ± sd over {' or '.join(map(str, reps))} repetitions.\n")
    table = []
    for eps, curves in by_eps.items():
        files.append(draw(os.path.join(out, f"fig3b_eps{eps:g}.png"), f"Fig. 3(b): DPS-PCA, ε = {eps:g}",
                                 "iteration t", "D(Q(t), Q*)",
                                 {f"δ = {dl:g}": (np.arange(len(m)), m, s) for dl, (m, s) in curves.items()},
                                 hline=guess, hline_label="random subspace"))
        deltas = sorted(curves)
        table.append((f"{eps:g}",) + tuple(fmt_mean_sd(curves[dl][0][-1], curves[dl][1][-1]) for dl in deltas))
        claims.append(Claim(f"Fig. 3(b), ε = {eps:g}", "smaller δ gives a higher final error",
                            _non_increasing([curves[dl][0][-1] for dl in deltas]),
                            "final D by increasing δ: " + ", ".join(fmt(curves[dl][0][-1]) for dl in deltas)))
    md.append(md_table(("ε",) + tuple(f"δ = {dl:g}" for dl in sorted(next(iter(by_eps.values())))), table))

    # Fig. 4(a), 4(b)
    for fig, xname, xlabel in (("fig4a", "epsilon", "ε"), ("fig4b", "d", "d")):
        runs = group(task_list, results, fig, (xname, "method"))
        xs = sorted({x for x, _ in runs})
        stats = {(x, m): mean_sd(v) for (x, m), v in runs.items()}
        rows = [(x, m, stats[x, m][0], math.sqrt(2) * stats[x, m][0], stats[x, m][1], len(runs[x, m]))
                for x in xs for m in METHODS]
        files.append(write_csv(os.path.join(out, f"{fig}.csv"),
                               (xname, "method", "mean_D", "mean_projection_distance", "sd_D", "n_reps"), rows))
        if fig == "fig4a":
            title, kk = "Fig. 4(a): final error against ε (δ = 0.3)", k
        else:
            title, kk = "Fig. 4(b): final error against d (ε = 1, δ = 0.1, k = 3)", cfg["fig4b_k"]
        files.append(draw(os.path.join(out, f"{fig}.png"), title, xlabel, "D(Q̂, Q*)",
                                 {m: (xs, [stats[x, m][0] for x in xs], [stats[x, m][1] for x in xs])
                                  for m in METHODS}, hline=guess if fig == "fig4a" else None,
                                 hline_label="random subspace"))
        md.append(f"\n### {title.split(':')[0]}: {title.split(': ')[1]}\n")
        md.append(md_table((xlabel,) + METHODS, [(f"{x:g}",) + tuple(stats[x, m][0] for m in METHODS) for x in xs]))
        best = [x for x in xs if min(METHODS, key=lambda m: stats[x, m][0]) == "DPS-PCA"]
        claims.append(Claim(title.split(":")[0], "DPS-PCA is the most accurate of the three" +
                            (" throughout" if fig == "fig4b" else ""), len(best) == len(xs),
                            f"best at {len(best)} of {len(xs)} {xlabel} values"))
        if fig == "fig4a":
            worst = min(stats[x, "MOD-SuLQ"][0] for x in xs)
            claims.append(Claim("Fig. 4(a)", "MOD-SuLQ gives no useful estimate", worst > 0.9 * guess,
                                f"its lowest mean D is {fmt(worst)}; a random subspace: {fmt(guess)}"))
            md.append(f"\nFig. 4(a)'s y-axis reaches 3.0, above the largest possible D = √k = {math.sqrt(k):.3f}: "
                      "the paper probably plotted the projection distance √2·D; `fig4a.csv` has both.")
        else:
            mod = [stats[x, "MOD-SuLQ"][0] for x in xs]
            claims.append(Claim("Fig. 4(b)", "MOD-SuLQ degrades quickly as d grows", mod[-1] > mod[0],
                                f"{fmt(mod[0])} at d = {xs[0]}, {fmt(mod[-1])} at d = {xs[-1]}"))

    # Table 1 (measured)
    runs = group(task_list, results, "table1", ("d",))
    rows, table = [], []
    for (dd,), (res,) in runs.items():
        for m in ("DPS-PCA", "MOD-SuLQ", "PPCA (100 Gibbs sweeps)"):
            ours = res[m][0]
            paper = (dict(zip(ex.PAPER_TABLE1["d"], ex.PAPER_TABLE1[m])).get(dd)
                     if cfg["table1_sweeps"] == 100 else None)
            label = m if m != "PPCA (100 Gibbs sweeps)" else f"PPCA ({cfg['table1_sweeps']} Gibbs sweeps)"
            rows.append((dd, label, ours, "" if paper is None else paper))
            table.append((str(dd), label, fmt(ours), fmt(paper), "—" if paper is None else f"{ours / paper:.2g}×"))
        claims.append(Claim(f"Table 1, d = {dd}", "DPS-PCA is faster than MOD-SuLQ, which is faster than PPCA",
                            res["DPS-PCA"][0] < res["MOD-SuLQ"][0] < res["PPCA (100 Gibbs sweeps)"][0]))
    files.append(write_csv(os.path.join(out, "table1_timing.csv"), ("d", "method", "seconds", "paper_seconds"), rows))
    md.append(f"\n### Table 1: CPU seconds (n = {cfg['table1_n']}, PPCA with {cfg['table1_sweeps']} Gibbs sweeps; "
              "paper: R on an Intel Xeon 3.4 GHz; ours: NumPy, one BLAS thread, measured while the other "
              "workers ran)\n")
    md.append(md_table(("d", "method", "ours (s)", "paper (s)", "ours / paper"), table))
    md.append("\nDPS-PCA's time excludes forming Σ̂ (the paper's “< 1 ms” implies it does), as does MOD-SuLQ's.")
    return files, "\n".join(md), claims
