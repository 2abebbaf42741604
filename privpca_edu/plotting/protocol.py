"""Figures of the encrypted-distributed chapter (drawn from :mod:`privpca_edu.experiments.protocol`)."""

from __future__ import annotations

import numpy as np

from . import _style as S
from ._live import LiveFigure, StaticFigure, band_verts, new_figure, nice_ceil, wrap

__all__ = [
    "HospitalsFigure",
    "plot_hospitals",
    "plot_timing_vs_owners",
    "plot_captured_variance_vs_epsilon",
    "plot_f1_vs_samples_per_owner",
    "PARTY_COLORS",
]

#: One colour per role, used in every figure of the chapter (from :data:`._style.STYLES`).
PARTY_COLORS = {"hospital": S.style("hospital")["color"], "proxy": S.style("proxy")["color"],
                "data user": S.style("data user")["color"], "central": S.style("central party")["color"],
                "chain": S.style("chain")["color"]}


#: What the ε slider shows, said on the figure (third line of its title).
CRN_NOTE = "One simulated noise draw, rescaled for each ε: not a sequence of releases"


class HospitalsFigure(LiveFigure):
    """Figure of the hospitals dashboard: messages, accuracy and time.

    The dashboard: (a) what each party received, (b) accuracy against central Analyze Gauss,
    (c) where the time went.  Redrawn completely on every update (the number of parties changes).

    The title's last line says what the ε slider shows: one simulated noise draw, rescaled
    by σ(ε) (common random numbers), not a sequence of releases.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.protocol.hospitals_demo` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 9.6
    blit = False
    alt = ("Three panels. (a) Horizontal bars: the ciphertext each party (a hospital, the proxy, the data user) "
           "received, with what else it saw. (b) Captured variance against the privacy budget ε (log axis) for "
           "the encrypted protocol DPDPCA and central Analyze Gauss, with this run as markers. (c) Horizontal "
           "bars: the time each step of the protocol took.")

    def _build(self):
        # A transparent overlay created first: LiveFigure attaches its error and note texts to the
        # first axes, and the three panels below are cleared on every redraw.
        overlay = self.fig.add_axes([0, 0, 1, 1], zorder=10, in_layout=False)
        overlay.set_axis_off()
        gs = self.fig.add_gridspec(2, 2, height_ratios=[0.8, 1.0])
        self.ax_view = self.fig.add_subplot(gs[0, :])
        self.ax_cv, self.ax_time = self.fig.add_subplot(gs[1, 0]), self.fig.add_subplot(gs[1, 1])
        self.title = self.fig.suptitle("")

    def _draw(self, r):
        for ax in (self.ax_view, self.ax_cv, self.ax_time):
            ax.clear()
        self._draw_view(r)
        self._draw_cv(r)
        self._draw_time(r)
        res = r["result"]
        self.title.set_text(
            f"{r['n_owners']} hospitals, N = {res.n_samples_} patients, M = {res.n_features_in_} features;\n"
            f"ε = {r['epsilon']:.3g}, δ = {r['delta']:g}, σ = {r['noise_scale']:.1f}; "
            f"{r['key_length']}-bit Paillier key{' (INSECURE demo size)' if r['key_length'] < 2048 else ''}\n"
            f"{CRN_NOTE}")

    def _draw_view(self, r):
        ax = self.ax_view
        by = r["by_party"]
        owners = [p for p in by if p.startswith("owner")]
        rows = [("a hospital", by[owners[0]], PARTY_COLORS["hospital"]),
                ("proxy", by["proxy"], PARTY_COLORS["proxy"]),
                ("data user", by["data user"], PARTY_COLORS["data user"])]
        y = np.arange(len(rows))[::-1]
        kib = [row[1]["ciphertext_bytes"] / 1024 for row in rows]
        ax.barh(y, kib, color=[row[2] for row in rows], height=0.55, edgecolor="k", linewidth=0.6)
        top = max(kib) if max(kib) > 0 else 1.0
        for yi, (label, info, _), k in zip(y, rows, kib):
            what = [f"{info['n_ciphertexts']} ciphertexts" if info["n_ciphertexts"] else "no ciphertexts"]
            if info["public_key"]:
                what.append("the public key")
            if info["plaintexts"]:
                what.append("N = " + ", ".join(str(p) for p in info["plaintexts"]) + " in clear")
            ax.text(k + 0.02 * top, yi, "\n".join(what), va="center", fontsize=S.SMALL)
        ax.set_yticks(y, [row[0] for row in rows])
        ax.set_xlim(0, 1.9 * top)
        ax.set_xlabel("ciphertexts received (KiB)")
        ax.set_title("(a) what each party received", loc="left")

    def _draw_cv(self, r):
        ax = self.ax_cv
        c = r["curves"]
        ax.plot(c["epsilon"], c["dpdpca"], "-", color=PARTY_COLORS["data user"], lw=2,
                label="DPDPCA (Δ = 4)")
        ax.plot(c["epsilon"], c["analyze_gauss"], "--", color=PARTY_COLORS["central"], lw=2,
                label="central AG (Δ = √2)")
        names = list(r["cv"])
        ax.plot([r["epsilon"]], [r["cv"][names[0]]], "*", ms=14, color=PARTY_COLORS["data user"], mec="k",
                label="this encrypted run")
        ax.plot([r["epsilon"]], [r["cv"][names[1]]], "D", ms=7, color=PARTY_COLORS["central"],
                label="AG, same ε, seed")
        ax.axhline(1.0, color="0.6", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(f"captured variance, top {r['result'].n_components_} PCs")
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.22), borderaxespad=0)
        ax.set_title("(b) accuracy: mean over seeds\n(lines), this run (markers)", loc="left")

    def _draw_time(self, r):
        ax = self.ax_time
        names = list(r["timings"])
        secs = [r["timings"][n] for n in names]
        colors = [PARTY_COLORS["data user"], PARTY_COLORS["hospital"], PARTY_COLORS["proxy"], PARTY_COLORS["proxy"],
                  PARTY_COLORS["data user"]]
        y = np.arange(len(names))[::-1]
        ax.barh(y, secs, color=colors[: len(names)], height=0.55, edgecolor="k", linewidth=0.6)
        for yi, s in zip(y, secs):
            ax.text(s, yi, f" {s:.3f} s", va="center", fontsize=S.SMALL)
        ax.set_yticks(y, [n.replace(": ", ":\n") for n in names])
        ax.set_xlim(0, 1.6 * max(max(secs), 1e-3))
        ax.set_xlabel("seconds on this machine")
        state = "phase 1 from the cache" if r["cached"] else "all steps computed now"
        ax.set_title(f"(c) time per step\n({state})", loc="left")


def plot_hospitals(result):
    """The dashboard's figure for one :func:`~privpca_edu.experiments.protocol.hospitals_demo` result.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.protocol.hospitals_demo`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return HospitalsFigure(result).fig


@S.in_house
def plot_timing_vs_owners(result, *, latencies=(0.0, 0.02)):
    """Fig. 3 shape: wall time against the number of owners, DPDPCA (parallel owners) vs the chain.

    Solid: measured compute time.  Dashed: plus ``latency`` seconds per message on the critical
    path (DPDPCA: 5 messages whatever L; the chain: L), a simple network model.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.protocol.timing_vs_owners`.
    latencies : sequence of float, default=(0.0, 0.02)
        Seconds per message; one pair of curves per value.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(5.0)
    ax = fig.subplots()
    L = result["n_owners"]
    for latency in latencies:
        ls = "-" if latency == 0 else "--"
        extra = "" if latency == 0 else f"\n+ {latency * 1000:g} ms per message"
        ax.plot(L, result["dpdpca_parallel"] + latency * result["dpdpca_hops"], "o" + ls,
                color=PARTY_COLORS["data user"], ms=4, label="DPDPCA, owners in parallel" + extra)
        ax.plot(L, result["chain"] + latency * result["chain_hops"], "s" + ls, color=PARTY_COLORS["chain"], ms=4,
                label="PrivateLocalPCA chain" + extra)
    ax.plot(L, result["dpdpca_total"], "o:", color=PARTY_COLORS["data user"], ms=3, alpha=0.6,
            label="DPDPCA, all owners on one machine")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(L, [str(int(v)) for v in L])
    ax.set_xlabel("number of data owners L (log scale)")
    ax.set_ylabel("wall time (s, log scale)")
    ax.set_title(f"M = {result['n_features']}, {result['key_length']}-bit keys"
                 f"{' (INSECURE demo size)' if result['key_length'] < 2048 else ''}, "
                 f"gmpy2 {'on' if result['gmpy2'] else 'off'}", loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    return fig


@S.in_house
def plot_captured_variance_vs_epsilon(result):
    """Fig. 5 shape: captured variance against ε (δ = 1/N), mean ± sd over seeds, both metrics.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.protocol.captured_variance_vs_epsilon`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(5.6)
    axes = fig.subplots(1, 2)
    eps = result["epsilons"]
    styles = {"classic": dict(color=PARTY_COLORS["data user"], marker="o", label="corrected Δ = 4\n(private)"),
              "analytic": dict(color=S.OKABE_ITO["sky"], marker="D", ls="-.",
                               label="corrected Δ = 4,\nanalytic σ (private)"),
              "paper": dict(color=PARTY_COLORS["chain"], marker="s", ls="--", label="paper's Δ = 1\n(NOT private)")}
    titles = {"true_variance": "true variance captured:\n" + r"$\mathrm{tr}(\hat U^\top S \hat U) / \mathrm{tr}(U^\top S U)$",
              "noisy_eigen_ratio": "noisy eigenvalue ratio of S′\n(the authors' plot)"}
    for ax, metric in zip(axes, ("true_variance", "noisy_eigen_ratio")):
        for name, curve in result["curves"].items():
            mean, sd = curve[metric]
            style = dict(ls="-", label=name, marker="o")
            style.update(styles.get(name, {}))
            (line,) = ax.plot(eps, mean, ms=5, **style)
            ax.fill_between(eps, mean - sd, mean + sd, color=line.get_color(), alpha=0.15, lw=0)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(S.LABELS["epsilon"])
        ax.set_ylabel("ratio (1 = the non-private top-K PCs)")
        ax.set_title(titles[metric], loc="left")
    axes[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0, ncol=3)
    fig.suptitle(f"{result['dataset']}: N = {result['N']}, M = {result['M']}, K = {result['K']} (90 % rule),\n"
                 f"δ = 1/N = {result['delta']:.2g}; mean ± sd over seeds")
    return fig


@S.in_house
def plot_f1_vs_samples_per_owner(result):
    """Fig. 4 shape: macro F1 of an RBF SVM on private components against samples per owner.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.protocol.f1_vs_samples_per_owner`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(5.0)
    ax = fig.subplots()
    x = result["samples_per_owner"]
    styles = {"PCA (non-private)": dict(color="k", marker="", ls=":"),
              "DPDPCA": dict(color=PARTY_COLORS["data user"], marker="o"),
              "PrivateLocalPCA (Gaussian)": dict(color=PARTY_COLORS["chain"], marker="s", ls="-."),
              "PrivateLocalPCA (Wishart, retracted)": dict(color=S.OKABE_ITO["purple"], marker="^", ls="--")}
    for name, (mean, sd) in result["methods"].items():
        style = styles.get(name, {})
        (line,) = ax.plot(x, mean, ms=6, label=wrap(name, 24), **style)
        if np.any(sd > 0):
            ax.fill_between(x, mean - sd, mean + sd, color=line.get_color(), alpha=0.12, lw=0)
    ax.set_xscale("log")
    ax.set_xticks(x, [str(int(v)) for v in x])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("samples per owner (log scale)")
    ax.set_ylabel(f"F1 on the test set ({result['average']} average)")
    ax.set_title(f"{result['dataset']}: K = {result['K']} components, ε = {result['epsilon']:g}, "
                 f"δ = {result['delta']:g};\ntrain {result['n_train']}, test {result['n_test']}", loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    return fig
