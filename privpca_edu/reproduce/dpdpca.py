"""DPDPCA (Wang & Chang, 2018), Section V: Fig. 3 (running time), Fig. 4 (SVM F1), Fig. 5 (captured variance).

The paper's data sets need downloads; the stand-ins are scikit-learn's bundled tables
(:data:`privpca_edu.experiments.protocol.STAND_INS`).  Fig. 3 runs the real Paillier protocol
(one task: the owners' encryptions are shared across the owner counts); its numbers are
measured times (``fig3_timing.csv``).  Figs. 4 and 5 use the protocol's noise-only simulation
(:class:`~privpca_edu.protocol.PlaintextDPDPCA`, the same release without the encryption layer);
every task is one repetition: a fresh train/test split and noise draw (Fig. 4, as the authors'
ShuffleSplit), or one noise draw at every ε (Fig. 5).
"""

from __future__ import annotations

import os

import numpy as np

from ..experiments import protocol as ex
from ..protocol import SECURE_KEY_LENGTH
from ._engine import Task
from ._report import Claim, fmt, md_table, write_csv

NAME = "dpdpca"
TITLE = ("DPDPCA — Wang & Chang, “Differentially private principal component analysis over horizontally "
         "partitioned data” (IEEE DSC 2018)")

_EPS5 = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

#: quick: seconds (1024-bit keys, INSECURE); book: the chapter's sizes; paper: 2048-bit keys, up
#: to 64 owners, 10 repetitions (the paper's count).
SCALES = {
    "quick": dict(fig3=dict(n_owners=(2, 3), n_features=4, rows_per_owner=5, key_length=1024),
                  fig4=dict(datasets=("breast_cancer",), samples_per_owner=(10, 50), n_reps=2),
                  fig5=dict(datasets=("breast_cancer",), epsilons=(0.2, 0.8), n_reps=2)),
    "book": dict(fig3=dict(n_owners=ex.SCALES["book"]["n_owners"], n_features=20, rows_per_owner=50,
                           key_length=ex.SCALES["book"]["key_length"]),
                 fig4=dict(datasets=("digits",), samples_per_owner=ex.SCALES["book"]["samples_per_owner"],
                           n_reps=ex.SCALES["book"]["n_seeds"]),
                 fig5=dict(datasets=("digits", "breast_cancer"), epsilons=_EPS5, n_reps=10)),
    "paper": dict(fig3=dict(n_owners=ex.SCALES["paper"]["n_owners"], n_features=20, rows_per_owner=50,
                            key_length=ex.SCALES["paper"]["key_length"]),
                  fig4=dict(datasets=("digits", "breast_cancer"),
                            samples_per_owner=ex.SCALES["paper"]["samples_per_owner"],
                            n_reps=ex.SCALES["paper"]["n_seeds"]),
                  fig5=dict(datasets=("digits", "breast_cancer"), epsilons=_EPS5, n_reps=10)),
}


def timing_task(seed, **kwargs):
    out = ex.timing_vs_owners(random_state=np.random.default_rng(seed), **kwargs)
    return {key: (value.tolist() if isinstance(value, np.ndarray) else value) for key, value in out.items()}


def f1_task(seed, *, dataset, samples_per_owner):
    res = ex.f1_vs_samples_per_owner(dataset, samples_per_owner=samples_per_owner, n_seeds=1,
                                     random_state=np.random.default_rng(seed))
    return dict(K=res["K"], f1={m: mean.tolist() for m, (mean, _) in res["methods"].items()},
                rank=res["chain_effective_rank"].tolist())


def variance_task(seed, *, dataset, epsilons):
    res = ex.captured_variance_vs_epsilon(dataset, epsilons=epsilons, n_seeds=1,
                                          random_state=np.random.default_rng(seed))
    return dict(K=res["K"], delta=res["delta"], N=res["N"],
                curves={cal: {metric: c[metric][0].tolist() for metric in ("true_variance", "noisy_eigen_ratio")}
                        for cal, c in res["curves"].items()})


def tasks(cfg):
    out = [Task("fig3", dict(), timing_task, dict(cfg["fig3"], n_owners=tuple(cfg["fig3"]["n_owners"])),
                cost=100.0)]  # the encryptions: by far the longest task
    for name in cfg["fig4"]["datasets"]:
        for r in range(cfg["fig4"]["n_reps"]):
            out.append(Task("fig4", dict(dataset=name, rep=r), f1_task,
                            dict(dataset=name, samples_per_owner=tuple(cfg["fig4"]["samples_per_owner"])), cost=10.0))
    for name in cfg["fig5"]["datasets"]:
        for r in range(cfg["fig5"]["n_reps"]):
            out.append(Task("fig5", dict(dataset=name, rep=r), variance_task,
                            dict(dataset=name, epsilons=tuple(cfg["fig5"]["epsilons"]))))
    return out


def write(cfg, task_list, results, out, draw):
    files, md, claims = [], [], []
    by = {}
    for task, res in zip(task_list, results):
        by.setdefault(task.experiment, []).append((task, res.value))

    # Fig. 3 (measured)
    (_, t3), = by["fig3"]
    L = t3["n_owners"]
    keys = ("dpdpca_parallel", "dpdpca_total", "owner_max", "proxy", "user", "chain")
    files.append(write_csv(os.path.join(out, "fig3_timing.csv"), ("n_owners",) + keys,
                           [(L[i],) + tuple(t3[k][i] for k in keys) for i in range(len(L))]))
    files.append(draw(os.path.join(out, "fig3.png"), f"Fig. 3: running time, {t3['key_length']}-bit keys, M = "
                      f"{t3['n_features']}", "owners L", "seconds",
                      {"DPDPCA (owners in parallel)": (L, t3["dpdpca_parallel"]),
                       "PrivateLocalPCA chain": (L, t3["chain"])}, logy=True))
    insecure = t3["key_length"] < SECURE_KEY_LENGTH
    md.append(f"### Fig. 3: running time against the number of owners (ε = 0.3; real Paillier, "
              f"{t3['key_length']}-bit keys{' — INSECURE, demo size' if insecure else ''}; synthetic unit-norm rows, "
              f"M = {t3['n_features']}; key generation {t3['keygen']:.2f} s, apart)\n")
    md.append(md_table(("L", "DPDPCA, parallel (s)", "DPDPCA, one machine (s)", "chain (s)"),
                       [(str(L[i]), t3["dpdpca_parallel"][i], t3["dpdpca_total"][i], t3["chain"][i])
                        for i in range(len(L))]))
    growth = (t3["chain"][-1] / t3["chain"][0]) / (L[-1] / L[0])
    claims.append(Claim("Fig. 3", "the PrivateLocalPCA chain's time grows about linearly with L", growth > 0.5,
                        f"time ratio / owner ratio = {growth:.2f}"))
    lower = [a < b for a, b in zip(t3["dpdpca_parallel"], t3["chain"])]
    claims.append(Claim("Fig. 3", "DPDPCA takes much less time than the chain", all(lower),
                        f"lower at {sum(lower)} of {len(L)} L; encryption of M(M+1)/2 + M + 1 = "
                        f"{t3['encryptions_per_owner']} numbers per owner costs more than the chain's plaintext "
                        "steps at these sizes" if not all(lower) else f"lower at all {len(L)} L"))

    # Fig. 4
    spo = list(cfg["fig4"]["samples_per_owner"])
    rows = []
    for name in cfg["fig4"]["datasets"]:
        reps = [v for task, v in by["fig4"] if task.point["dataset"] == name]
        methods = list(reps[0]["f1"])
        mean = {m: np.mean([r["f1"][m] for r in reps], axis=0) for m in methods}
        sd = {m: (np.std([r["f1"][m] for r in reps], axis=0, ddof=1) if len(reps) > 1 else np.zeros(len(spo)))
              for m in methods}
        rows += [(name, s, m, mean[m][i], sd[m][i], len(reps)) for m in methods for i, s in enumerate(spo)]
        files.append(draw(os.path.join(out, f"fig4_{name}.png"), f"Fig. 4: SVM F1, {name} (ε = 0.5)",
                          "samples per owner", "macro F1", {m: (spo, mean[m], sd[m]) for m in methods}, logx=True))
        md.append(f"\n### Fig. 4: RBF-SVM F1 against samples per owner ({name}, ε = 0.5, {len(reps)} splits)\n")
        md.append(md_table(("method",) + tuple(str(s) for s in spo),
                           [(m,) + tuple(mean[m]) for m in methods]))
        dp, pca, chain = mean["DPDPCA"], mean["PCA (non-private)"], mean["PrivateLocalPCA (Gaussian)"]
        claims.append(Claim(f"Fig. 4 ({name})", "DPDPCA's F1 does not change with samples per owner",
                            float(np.ptp(dp)) < 1e-12, f"range {fmt(float(np.ptp(dp)))}"))
        claims.append(Claim(f"Fig. 4 ({name})", "DPDPCA's F1 is comparable to non-private PCA (within 0.1)",
                            float(np.max(np.abs(dp - pca))) <= 0.1, f"DPDPCA {fmt(dp[0])}, PCA {fmt(pca[0])}"))
        claims.append(Claim(f"Fig. 4 ({name})", "the chain collapses when owners hold few samples",
                            chain[0] < chain[-1] - 0.1,
                            f"F1 {fmt(chain[0])} at {spo[0]}, {fmt(chain[-1])} at {spo[-1]}"))
        better = [a > b for a, b in zip(dp, chain)]
        claims.append(Claim(f"Fig. 4 ({name})", "DPDPCA beats the chain everywhere", all(better),
                            f"at {sum(better)} of {len(spo)} sizes"))
    files.append(write_csv(os.path.join(out, "fig4.csv"),
                           ("dataset", "samples_per_owner", "method", "mean_f1", "sd_f1", "n_reps"), rows))

    # Fig. 5
    eps = list(cfg["fig5"]["epsilons"])
    rows = []
    for name in cfg["fig5"]["datasets"]:
        reps = [v for task, v in by["fig5"] if task.point["dataset"] == name]
        K, delta = reps[0]["K"], reps[0]["delta"]
        curves = {}
        for cal in reps[0]["curves"]:
            for metric in ("true_variance", "noisy_eigen_ratio"):
                a = np.array([r["curves"][cal][metric] for r in reps])
                curves[cal, metric] = (a.mean(axis=0), a.std(axis=0, ddof=1) if len(a) > 1 else np.zeros(len(eps)))
                rows += [(name, cal, metric, e, curves[cal, metric][0][i], curves[cal, metric][1][i], len(reps))
                         for i, e in enumerate(eps)]
        files.append(draw(os.path.join(out, f"fig5_{name}.png"), f"Fig. 5: captured variance, {name} (δ = 1/N)",
                          "ε", "captured variance", {f"{cal}, {metric}": (eps,) + tuple(v)
                                                     for (cal, metric), v in curves.items()}))
        md.append(f"\n### Fig. 5: captured variance against ε ({name}, K = {K}, δ = 1/N = {delta:.2e}, "
                  f"{len(reps)} repetitions)\n")
        md.append(md_table(("calibration, metric",) + tuple(f"ε = {e:g}" for e in eps),
                           [(f"{cal}, {metric}",) + tuple(v[0]) for (cal, metric), v in curves.items()]))
        for metric, label in (("noisy_eigen_ratio", "the authors' noisy-eigenvalue ratio"),
                              ("true_variance", "the variance of the data captured by the released components")):
            cv = curves["classic", metric][0]
            claims.append(Claim(f"Fig. 5 ({name}; {label})", "the captured variance stays roughly flat across ε "
                                "(range < 0.1)", float(np.ptp(cv)) < 0.1,
                                f"{fmt(cv[0])} at ε = {eps[0]:g}, {fmt(cv[-1])} at ε = {eps[-1]:g}"))
            claims.append(Claim(f"Fig. 5 ({name}; {label})", "a large share of the variance is captured "
                                "(≥ 0.8 at every ε)", float(cv.min()) >= 0.8, f"lowest {fmt(float(cv.min()))}"))
    files.append(write_csv(os.path.join(out, "fig5.csv"),
                           ("dataset", "calibration", "metric", "epsilon", "mean", "sd", "n_reps"), rows))
    md.append("\nThe paper prints no numbers for Figs. 3–5 (only curves), so its claims are checked as orderings; "
              "`calibration = paper` (Δ = 1) is shown for comparison only and is not differentially private.")
    return files, "\n".join(md), claims
