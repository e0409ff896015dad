"""Cui chapter 3's figures redrawn from the runs, in the thesis's forms. Each file is named
after its scenario ("e3.7-...") so a later report's stale-figure sweep knows it.

- Figs 3.6-3.9 (``e3.2-extrapolation.png``): the trunk's utilisation and log10 P_B against the
  simulated bit rate for B = 2 and B = 10 (every seed's point), with the fits refitted from
  these runs (seed 1's), the thesis's published B = 10 curves, and the values read at 40 Gb/s.
- Figs 3.17-3.41 (``e3.6-openloop.png``): :mod:`.figures_openloop`.
- Figs 3.52-3.55 (``e3.9-min-buffer.png``, figures_single.py): the smallest simulated buffer
  against N for each target utilisation, beside the rules.
"""

from __future__ import annotations

import numpy as np

from ..kit.report import pyplot
from .figures_families import draw_e33, draw_e37, draw_e38
from .figures_links import draw_e34, draw_e35
from .figures_openloop import draw_e36
from .rows import FIT_ROW, TRUNK_ROW, E32


def draw(board, ctx) -> None:
    """Every figure whose scenario ran (each experiment's drawer is one line of DRAWERS)."""
    for drawer in DRAWERS:
        drawer(board, ctx)


def draw_e32(board, ctx) -> None:
    flows = ctx.tables.flows
    if "E3.2" not in ctx.outcome.scenarios or flows is None or not len(flows):
        return
    from ccsim.models.cui import FIG_3_7_FIT, FIG_3_9_FIT, hyperbola

    trunk = flows[flows["source"] == TRUNK_ROW]
    fits = flows[flows["source"] == FIT_ROW]
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    xs = np.linspace(0.3, 40, 400)
    for col, b in enumerate((2, 10)):
        pts = [(float(m.group(2)), r.util, r.log10_loss) for r in trunk.itertuples()
               if (m := E32.match(str(r.file))) and int(m.group(1)) == b]
        if not pts:
            continue
        x, u, lp = (np.array(v, float) for v in zip(*pts))
        fit = fits[fits["name"].str.contains(f"B = {b} fit")].sort_values("seed").head(1)
        for row, (y, key, published) in enumerate(((u, "u", FIG_3_7_FIT), (lp, "p", FIG_3_9_FIT))):
            ax = axes[row, col]
            ax.plot(x, y, "o", markersize=4, label="simulation (every seed)")
            params = [float(fit[f"{key}_{n}"].iloc[0]) for n in "abc" if len(fit) and f"{key}_{n}" in fit.columns]
            params = [v for v in params if np.isfinite(v)]
            if len(params) >= 2:
                ys = hyperbola(xs, *params) if len(params) == 3 else params[0] + params[1] * xs
                ax.plot(xs, ys, "-", linewidth=1, label="fitted to these runs (seed 1)")
            if b == 10:
                ax.plot(xs, hyperbola(xs, *published), "k--", linewidth=0.8, label="the thesis's fit")
            ax.set_title(f"Fig 3.{6 + col + 2 * row}: B = {b}, {'utilisation' if key == 'u' else 'log10 P_B'}",
                         fontsize=9)
            ax.legend(fontsize=7)
        axes[1, col].set_xlabel("bottleneck bit rate (Gb/s), 100 flows a Gb/s")
    axes[0, 0].set_ylabel("utilisation")
    axes[1, 0].set_ylabel("log10 P_B")
    fig.suptitle("Figs 3.6-3.9: extrapolating utilisation and log10 P_B to 40 Gb/s", fontsize=10)
    board.save(fig, "E3.2", "e3.2-extrapolation.png", "Figs 3.6-3.9: utilisation and log10 P_B against the simulated bit rate, the fits "
                            "and their values at 40 Gb/s (M = 2, K = 1, 10 Mb/s a flow).")


def draw_e39(board, ctx) -> None:
    from .figures_single import draw_e39 as draw

    draw(board, ctx)


DRAWERS = [draw_e32, draw_e33, draw_e34, draw_e35, draw_e36, draw_e37, draw_e38, draw_e39]
