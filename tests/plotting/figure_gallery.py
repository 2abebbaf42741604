"""Every figure of the book, drawn from small (fast) experiment results: what the plotting tests
check (text size, colours, alt text) and what ``python tests/plotting/figure_gallery.py OUT_DIR`` writes
as PNGs to look at.

``LIVE`` maps a name to a dashboard factory (the dashboards at the book's defaults, or smaller
where the default takes seconds); ``STATIC`` maps a name to a function returning a static
figure of a notebook (:class:`matplotlib.figure.Figure`), with the notebook's call at a smaller
scale.
"""

from __future__ import annotations

import math
import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")


def _live():
    from privpca_edu import widgets
    from privpca_edu.widgets.auditing import gdp_audit_dashboard
    from privpca_edu.widgets.dps_pca import dps_pca_dashboard
    from privpca_edu.widgets.europe import europe_dashboard
    from privpca_edu.widgets.ldp import ldp_dashboard
    from privpca_edu.widgets.noisy_covariance import noisy_covariance_dashboard
    from privpca_edu.widgets.protocol import hospitals_dashboard
    from privpca_edu.widgets.robust import breakdown_dashboard, heavy_tails_dashboard

    return {
        "ch01_attack": widgets.attack_dashboard,
        "ch02_sigma": widgets.sigma_dashboard,
        "ch03_planes": widgets.planes_dashboard,
        "ch03_angles": lambda: widgets.angles_dashboard(n_features=10),
        "ch04_noisy_covariance": lambda: noisy_covariance_dashboard(n_features=12, n_samples=500),
        "ch05_gdp_audit": lambda: gdp_audit_dashboard(n_draws=2000),
        "ch06_ldp": ldp_dashboard,
        "ch07_hospitals": lambda: hospitals_dashboard(n_owners=3, key_length=1024),
        "ch08_dps_pca": dps_pca_dashboard,
        "ch09_heavy_tails": lambda: heavy_tails_dashboard(n_samples=400, n_reps=2),
        "ch09_breakdown": breakdown_dashboard,
        "ch10_europe": europe_dashboard,
    }


def _static():
    import numpy as np

    from privpca_edu.experiments import auditing as au
    from privpca_edu.experiments import dps_pca as dps
    from privpca_edu.experiments import europe as eu
    from privpca_edu.experiments import ldp
    from privpca_edu.experiments import noisy_covariance as nc
    from privpca_edu.experiments import protocol as pr
    from privpca_edu.experiments import robust as rb
    from privpca_edu.plotting import auditing, dps_pca, europe
    from privpca_edu.plotting import ldp as ldp_fig
    from privpca_edu.plotting import noisy_covariance, protocol, robust

    def fig4a():
        r = dps.figure4a("book", epsilons=[0.8, 2.0], n_seeds=1, ppca_sweeps=2)
        return dps_pca.plot_final_vs_parameter(r["epsilon"], r["projection"], xlabel="privacy budget ε",
                                               ylabel="final error", reference=np.sqrt(2) * r["random_guess"],
                                               title="Fig. 4(a) at book scale")

    return {
        "ch04_bingham": lambda: noisy_covariance.plot_bingham_2d(nc.bingham_2d(n_draws=2000)),
        "ch04_gibbs": lambda: noisy_covariance.plot_gibbs_mixing(
            nc.gibbs_mixing(n_features=10, n_components=2, n_samples=300, n_sweeps=3, n_chains=2)),
        "ch04_mod_sulq": lambda: noisy_covariance.plot_mod_sulq_at_scale(
            nc.mod_sulq_at_scale(n_features=100, n_samples=10_000)),
        "ch05_output_epsilon": lambda: auditing.plot_output_epsilon(au.output_epsilon_demo("PPCA", n_draws=5000)),
        "ch05_sampler_density": lambda: auditing.plot_sampler_density(au.sampler_density_demo(n_draws=3000)),
        "ch06_user_report": lambda: ldp_fig.plot_user_report(ldp.user_report_example(epsilon=0.5)),
        "ch06_effective_n": lambda: ldp_fig.plot_effective_sample_size(
            ldp.effective_sample_size(epsilons=(1.0, 4.0), n_repeats=1)),
        "ch06_error_panels": lambda: ldp_fig.plot_error_panels(
            [ldp.paper_figure(1, p, scale="book", n_repeats=1) for p in ("n_components", "epsilon")],
            title="Figure 1 of Wang & Xu at the book's scale"),
        "ch07_timing": lambda: protocol.plot_timing_vs_owners(
            pr.timing_vs_owners((2, 4), n_features=5, rows_per_owner=10, key_length=1024)),
        "ch07_captured_variance": lambda: protocol.plot_captured_variance_vs_epsilon(
            pr.captured_variance_vs_epsilon("digits", epsilons=(0.2, 0.5), n_seeds=1, n_owners=4)),
        "ch07_f1": lambda: protocol.plot_f1_vs_samples_per_owner(
            pr.f1_vs_samples_per_owner("digits", samples_per_owner=(2, 10), n_seeds=1)),
        "ch08_theory": lambda: dps_pca.plot_theory_terms(dps.figure2_theory(delta=0.01)),
        "ch08_trajectories": lambda: dps_pca.plot_trajectories(
            dps.figure3a("book", epsilons=(0.5, 2.0), n_seeds=1), title="Fig. 3(a) at book scale"),
        "ch08_final": fig4a,
        "ch09_error_vs_n": lambda: robust.plot_error_vs_n(rb.figures_2_to_4("book", n_reps=1)),
        "ch09_error_vs_epsilon": lambda: robust.plot_error_vs_epsilon(rb.figure5("book", n_reps=1)),
        "ch10_map": lambda: europe.plot_europe_map(eu.europe_map("Analyze Gauss", epsilon=1.0)),
        "ch10_similarity": lambda: europe.plot_similarity_table(
            eu.similarity_table(["Kendall (spherical)", "Analyze Gauss"], epsilons=(0.5, 2.0), n_draws=2)),
    }


LIVE = _live
STATIC = _static
LIVE_NAMES = ("ch01_attack", "ch02_sigma", "ch03_planes", "ch03_angles", "ch04_noisy_covariance", "ch05_gdp_audit",
              "ch06_ldp", "ch07_hospitals", "ch08_dps_pca", "ch09_heavy_tails", "ch09_breakdown", "ch10_europe")
STATIC_NAMES = ("ch04_bingham", "ch04_gibbs", "ch04_mod_sulq", "ch05_output_epsilon", "ch05_sampler_density",
                "ch06_user_report", "ch06_effective_n", "ch06_error_panels", "ch07_timing", "ch07_captured_variance",
                "ch07_f1", "ch08_theory", "ch08_trajectories", "ch08_final", "ch09_error_vs_n", "ch09_error_vs_epsilon",
                "ch10_map", "ch10_similarity")


def main(out, only=""):
    os.makedirs(out, exist_ok=True)
    for name, make in list(_live().items()) + list(_static().items()):
        if only and only not in name:
            continue
        obj = make()
        path = os.path.join(out, name + ".png")
        if hasattr(obj, "png"):
            with open(path, "wb") as fh:
                fh.write(obj.png())
        else:
            obj.savefig(path, bbox_inches="tight")
        print(path)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
