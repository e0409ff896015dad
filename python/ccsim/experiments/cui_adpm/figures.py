"""Cui chapter 5: Figs 5.1-5.4 redrawn from the ensembles the cells judged (log-log, as the
thesis draws them), with the reference curves the text names."""

from __future__ import annotations

import math

import numpy as np

from ...models.cui import adpm, marking
from ..kit.report import pyplot

DELTAS = (1e-5, 1e-6, 1e-7, 1e-8)


def draw(board, ctx) -> None:
    ran = set(ctx.outcome.scenarios)
    plt = pyplot()
    if "E5.1" in ran:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        for seq, name, style in (("brc", "pure BRC", "-"), ("random_brc", "random-start BRC", "--"),
                                 ("random", "random", ":")):
            c = adpm.fixed_price_errors(seq)
            ax.loglog(c.ks, c.mean, style, label=name)
        ks = adpm.fixed_price_errors("brc").ks
        ax.loglog(ks, 1 / (2 * (ks + 1.0)), "k-", linewidth=0.6, alpha=0.6, label="1/(2(k+1))")
        ax.loglog(ks, 1 / (ks + 2.0), "k--", linewidth=0.6, alpha=0.6, label="1/(k+2)")
        _finish(ax, "mean |p̂ − p|")
        fig.suptitle("Fig 5.1: ADPM's mean estimation error", fontsize=10)
        board.save(fig, "E5.1", "fig5.1-mean-error.png",
                   "Fig 5.1: ADPM's mean estimation error after k packets (2^16 thresholds; pure BRC over "
                   "1000 prices, the others over 256 sequences x 100 prices).")
    if "E5.2" in ran:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        b, r, x = (adpm.fixed_price_errors(s) for s in ("brc", "random_brc", "random"))
        ax.loglog(b.ks, b.max, "-", label="pure BRC, max")
        ax.loglog(r.ks, r.max, "--", label="random-start BRC, max")
        ax.loglog(x.ks, x.p99, ":", label="random, 99th percentile")
        bound = np.array([adpm.brc_max_bound(int(k)) for k in b.ks])
        ax.loglog(b.ks, bound, "k-", linewidth=0.6, alpha=0.6, label="1/K")
        ax.loglog(b.ks, 2 * bound, "k--", linewidth=0.6, alpha=0.6, label="2/K")
        _finish(ax, "max |p̂ − p|")
        fig.suptitle("Fig 5.2: ADPM's largest estimation error", fontsize=10)
        board.save(fig, "E5.2", "fig5.2-max-error.png",
                   "Fig 5.2: the largest error over the same ensembles (the 99th percentile for random probes), "
                   "with the bounds 1/K and 2/K, K = 2^floor(log2(k+1)).")
    if "E5.3" in ran:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        # REM and RAM differ by under 5 %: a wide pale line under a dashed one with markers keeps both visible
        kmax = 0
        for scheme, name, style in (("adpm", "ADPM (random probes)", {}),
                                    ("rem", "REM (simulated)", dict(linewidth=4, alpha=0.45)),
                                    ("ram", "RAM (simulated)", dict(linestyle="--", marker="x", markevery=0.08)),
                                    ("tpm4", "TPM, 4-bit", {}), ("tpm8", "TPM, 8-bit", {}),
                                    ("rpm", "RPM, 100 levels", {})):
            ks, mse = marking.mse_curve(scheme)
            ax.loglog(ks, mse, label=name, **style)
            kmax = max(kmax, ks[-1])
        ks = adpm.fixed_price_errors("random").ks
        ks = ks[ks <= kmax]  # the reference spans the simulated curves' range only
        ax.loglog(ks, 1 / (6.0 * ks), "k--", linewidth=0.6, alpha=0.6, label="1/(6k)")
        _finish(ax, "mean square error")
        fig.suptitle("Fig 5.3: mean square error of ADPM, REM, RAM, TPM and RPM", fontsize=10)
        board.save(fig, "E5.3", "fig5.3-mse.png",
                   "Fig 5.3: mean square error after k packets; TPM's ten routers' sum scaled to [0, 1]; "
                   "REM, RAM, TPM and RPM simulated to 4096 packets.")
    if "E5.4" in ran:
        fig, ax = plt.subplots(figsize=(6.4, 4.6))
        d = np.array(DELTAS)
        for scheme, name, mark in (("adpm", "ADPM", "o-"), ("tpm4", "TPM, 4-bit", "s-"), ("tpm8", "TPM, 8-bit", "d-")):
            ax.loglog(d, [marking.ramp_error(scheme, x) for x in DELTAS], mark, label=name)
        ax.loglog(d, np.sqrt(2 * d), "k--", linewidth=0.6, label="√(2δ)")
        ax.set_xlabel("δ (price change per packet)")
        ax.set_ylabel("mean |estimate − price|")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.2)
        fig.suptitle("Fig 5.4: tracking a rising price", fontsize=10)
        board.save(fig, "E5.4", "fig5.4-ramp.png",
                   "Fig 5.4: tracking a price rising δ per packet (the path's only non-zero price; random probe "
                   "order): mean error after the warm-up.")
    if "5.2.2" in ran:
        fig, ax = plt.subplots(figsize=(9.4, 4.6))
        ks = [1 << j for j in range(0, 8)]
        for gap, color in ((0.01, "C0"), (0.05, "C1"), (0.2, "C2")):
            ax.semilogx(ks, [adpm.step_detection("random", gap, k) for k in ks], "o", color=color,
                        label=f"random, gap {gap} (sim)")
            ax.semilogx(ks, [adpm.undetected_random(gap, k) for k in ks], "-", color=color, linewidth=0.8)
            ax.semilogx(ks, [adpm.step_detection("random_brc", gap, k) for k in ks], "s", color=color,
                        mfc="none", label=f"random-start BRC, gap {gap} (sim)")
            ax.semilogx(ks, [adpm.undetected_brc(gap, int(math.log2(k))) for k in ks], "--", color=color,
                        linewidth=0.8)
        # the model curves share one colour per gap: two black entries name their line styles
        ax.plot([], [], "k-", linewidth=0.8, label="model (5.4), random")
        ax.plot([], [], "k--", linewidth=0.8, label="model (5.5), random-start BRC")
        ax.set_xlabel("k (packets since the step)")
        ax.set_ylabel("P(undetected)")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the axes: inside it covers points
        fig.suptitle("§5.2.2 (no thesis figure): detecting a price step, against (5.4) and (5.5)", fontsize=10)
        board.save(fig, "5.2.2", "step-detection.png",
                   "§5.2.2: the chance a step of the price to i+ + gap is still undetected after k packets: "
                   "simulated (markers) against (5.4) (solid) and (5.5) (dashed).")


def _finish(ax, ylabel: str) -> None:
    ax.set_xlabel("k (packets received)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.2)
