"""Cui chapter 3, E3.6: a selection of Figs 3.17-3.41 redrawn in the thesis's form.

``e3.6-openloop.png``: P_B against ρ (Fig 3.32: against M) for Figs 3.17, 3.21, 3.24, 3.26,
3.27, 3.32, 3.36 and 3.39: the five models as curves (EB, EBD, EBI, G1DM, M/M/K/(K+B)) and the
Monte Carlo points the E3.6 cells computed, with their 95 % intervals. Fig 3.24's axis is
logarithmic as in the thesis; Figs 3.26 and 3.27 are drawn on one too (their P_B spans
decades; the thesis's axes for them are not known); the others are linear.
"""

from __future__ import annotations

import re

import numpy as np

from ..._files import atomic_savefig
from ..kit.report import pyplot

SCENARIO = "E3.6"
PANELS = ("3.17", "3.21", "3.24", "3.26", "3.27", "3.32", "3.36", "3.39")
LOG_Y = ("3.24", "3.26", "3.27")
STYLE = {"eb": ("EB", "tab:orange", "--"), "ebd": ("EBD", "tab:green", "-."),
         "ebi": ("EBI", "tab:purple", ":"), "g1dm": ("G1DM", "tab:blue", "-"),
         "mmkb": ("M/M/K/(K+B)", "tab:red", (0, (5, 1)))}
_FIG = re.compile(r"Fig (3\.\d\d)")


def mc_points(ref) -> dict[str, list[dict]]:
    """Figure number -> the (M, K, B, ρ) args of the E3.6 cells that ran the MC there."""
    out: dict[str, list[dict]] = {}
    for t in ref.get("tables", []):
        if t["scenario"] != SCENARIO:
            continue
        for r in t["rows"]:
            hit = _FIG.match(r.get("label", ""))
            if r.get("function") == "cui.openloop_point" and hit:
                pts = out.setdefault(hit.group(1), [])
                if r["args"] not in pts:
                    pts.append(dict(r["args"]))
    return out


def _curves(ax, m, k, b, xs, log_y):
    from ccsim.models.cui import loss_probability

    for model, (name, colour, ls) in STYLE.items():
        ys = [loss_probability(m, k, b, rho=x, model=model) for x in xs]
        ax.plot(xs, ys, color=colour, linestyle=ls, linewidth=1.1, label=name)
    if log_y:
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 1)  # Fig 3.24's range


def _mc(ax, pts, x_of):
    from ccsim.models.cui import openloop_point

    got = [openloop_point(**p) for p in pts]  # cached: the cells ran these
    xs = [x_of(p) for p in got]
    ax.errorbar(xs, [p.mc for p in got], yerr=[p.mc_ci for p in got], fmt="ko", markersize=4,
                capsize=2, label="Simulation (MC)")


def _panel(ax, fig, pts):
    from ccsim.models.cui import FIGURES

    m, k, b = FIGURES[fig]
    if fig == "3.32":
        ms = np.unique(np.round(np.geomspace(2, 64, 24)).astype(int))
        from ccsim.models.cui import loss_probability

        for model, (name, colour, ls) in STYLE.items():
            ax.plot(ms, [loss_probability(int(x), k, b, rho=0.7, model=model) for x in ms],
                    color=colour, linestyle=ls, linewidth=1.1, label=name)
        _mc(ax, pts, lambda p: p.m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("input ports M")
        ax.set_title(f"Fig 3.32: K = {k}, B = {b}, ρ = 0.7", fontsize=9)
        return
    over = min(p["rho"] for p in pts) > 1
    lo, hi = (1.02, 2.5) if over else (0.05, 1.2 if fig == "3.24" else 1.0)
    xs = np.linspace(lo, min(hi, 0.999 * m / k), 30)
    _curves(ax, m, k, b, xs, fig in LOG_Y)
    if over:
        ax.plot(xs, (xs - 1) / xs, color="0.5", linewidth=0.8, label="(ρ − 1)/ρ (3.16)")
    _mc(ax, pts, lambda p: p.rho)
    ax.set_xlabel("normalised intended load ρ")
    ax.set_title(f"Fig {fig}: M = {m}, K = {k}, B = {b}", fontsize=9)


def draw_e36(board, ctx) -> None:
    """The figure grid, when E3.6 ran."""
    if SCENARIO not in ctx.outcome.scenarios:
        return
    pts = mc_points(ctx.ref)
    panels = [f for f in PANELS if f in pts]
    if not panels:
        return
    plt = pyplot()
    cols = 4
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(15, 3.6 * rows), squeeze=False)
    for ax, f in zip(axes.flat, panels):
        _panel(ax, f, pts[f])
        ax.set_ylabel("packet loss probability P_B")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # every panel's entries (the (ρ − 1)/ρ line is drawn only in the overload panels), each once
    seen = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    axes.flat[0].legend(seen.values(), seen.keys(), fontsize=7)
    fig.tight_layout()
    path = board.path("e3.6-openloop.png")
    atomic_savefig(fig, path, dpi=100)
    plt.close(fig)
    board.add(SCENARIO, path, "Figs 3.17, 3.21, 3.24, 3.26, 3.27, 3.32, 3.36, 3.39: P_B of the five open-loop "
                              "models (curves) and of the Monte Carlo of the detailed switch model (points, 95% "
                              "intervals; the points the E3.6 cells ran), against ρ (Fig 3.32: against M at "
                              "ρ = 0.7). Log axes for 3.24 (as the thesis), 3.26 and 3.27.")
