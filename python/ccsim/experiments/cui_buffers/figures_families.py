"""Figures of the extrapolated experiments (families.py), in the thesis's forms:

- ``e3.3-links-per-trunk.png`` (Figs 3.10-3.11): utilisation against K for 10 Mb/s a flow with
  no buffer and with one packet per output link: the closed loop (G1DM) as a curve, the runs'
  values extrapolated to 40 Gb/s and simulated at the largest point; the thesis's K = 16 and
  K = 100 values.
- ``e3.7-closed-loop.png`` (Figs 3.42-3.47): utilisation against K per (M, B): the closed loop
  built on each of the five open-loop models, and the runs.
- ``e3.8s-rule.png`` (Figs 3.48-3.51): the utilisation reached with B from the rule against the
  target, per setting.
"""

from __future__ import annotations

import math

import numpy as np

from ..kit.report import pyplot
from .families import E38_SETTINGS, FIT_ROW, MU_40G, e33, e37, e38
from .rows import TRUNK_ROW

K_AXIS = (1, 2, 4, 8, 16, 32, 64, 100)
Y_RANGE = (0.3, 1.05)   # E3.8's axis: fits read outside it are drawn at its edge
MODELS = (("g1dm", "G1DM", "-"), ("ebi", "EBI", "--"), ("ebd", "EBD", "-."), ("eb", "EB", ":"),
          ("mmkb", "M/M/K/(K+B)", (0, (1, 3))))


def _points(flows, fams) -> dict[str, tuple[float, float]]:
    """stem -> (extrapolated U, U simulated at the largest point), seed 1."""
    out = {}
    for f in fams:
        last = f.file(max(f.flows))
        here = flows[(flows["file"] == last) & (flows["seed"] == flows["seed"].min())]
        fit = here.loc[here["source"] == FIT_ROW, "util_40"] if "util_40" in here.columns else []
        sim = here.loc[here["source"] == TRUNK_ROW, "util"]
        out[f.stem] = (float(fit.iloc[0]) if len(fit) else math.nan, float(sim.iloc[0]) if len(sim) else math.nan)
    return out


def _closed_loop_curve(m_per_k: int, b_of_k, share: float, model: str) -> list[float]:
    from ccsim.models.cui import closed_loop

    ys = []
    for k in K_AXIS:
        try:
            ys.append(closed_loop(m_per_k * k, k, b_of_k(k), k * 40e9 / share, mu=MU_40G, rtt_h=0.1092,
                                  model=model).utilisation)
        except ValueError:
            ys.append(math.nan)
    return ys


def _label(values, label: str) -> str:
    """``label``, or none (left out of the legend) when there is nothing to draw."""
    return label if np.isfinite(np.asarray(values, float)).any() else "_nolegend_"


def _no_runs(ax, ctx) -> None:
    """Say so in a panel that has no runs (a --quick run runs fewer points)."""
    ax.text(0.97, 0.05, "no runs in this panel" + (" (--quick runs fewer points)" if ctx.outcome.quick else ""),
            transform=ax.transAxes, ha="right", va="bottom", fontsize=8, color="0.3")


def _runs(ax, fams, pts) -> bool:
    """Draw the runs' points; False when none has a value."""
    ks = np.array([f.k for f in fams])
    ext = np.array([pts[f.stem][0] for f in fams])
    sim = [pts[f.stem][1] for f in fams]
    lo, hi = 0.0, Y_RANGE[1]
    out = (ext < lo) | (ext > hi)
    ax.plot(ks, np.clip(ext, lo, hi), "o", color="C3",
            label=_label(ext, "runs, extrapolated to 40 Gb/s (x: fit off the axis)"))
    ax.plot(ks[out], np.clip(ext, lo, hi)[out], "kx", markersize=9)
    ax.plot(ks, sim, "^", color="C2", mfc="none", label=_label(sim, "runs, at the largest point"))
    return bool(np.isfinite(ext).any() or np.isfinite(np.asarray(sim, float)).any())


def draw_e33(board, ctx) -> None:
    flows = ctx.tables.flows
    if "E3.3" not in ctx.outcome.scenarios or flows is None or not len(flows):
        return
    fams = e33()
    pts = _points(flows, fams)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, bname, b_of_k, title in ((axes[0], "0", lambda k: 0, "Fig 3.10: no buffer"),
                                     (axes[1], "k", lambda k: k, "Fig 3.11: one packet per output link")):
        ax.plot(K_AXIS, _closed_loop_curve(4, b_of_k, 10e6, "g1dm"), "-", color="C0", label="closed loop (G1DM), 10 Mb/s")
        ran = _runs(ax, [f for f in fams if f.stem.startswith(f"e33-s10-b{bname}-")], pts)
        s100 = [f for f in fams if f.stem.startswith("e33-s100-") and (f.b == 0) == (bname == "0")][0]
        ax.plot([16], [pts[s100.stem][0]], "s", color="C1",
                label=_label([pts[s100.stem][0]], "runs, 100 Mb/s a flow, K = 16"))
        if not ran and not np.isfinite(pts[s100.stem][0]):
            _no_runs(ax, ctx)
        ax.plot([16], [0.30 if bname == "0" else 0.73], "kx", markersize=9, label="thesis, 100 Mb/s, K = 16")
        if bname == "0":
            ax.plot([100], [0.72], "k+", markersize=10, label="thesis, 10 Mb/s, K = 100")
        ax.set_xscale("log")
        ax.set_xlabel("links per trunk K (M = 4K)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="upper left")  # upper right would cover K = 100
    axes[0].set_ylabel("utilisation")
    board.save(fig, "E3.3", "e3.3-links-per-trunk.png", "Figs 3.10-3.11: utilisation against links per trunk (closed loop, runs extrapolated and "
                            "at their largest point, the thesis's values).")


def draw_e37(board, ctx) -> None:
    flows = ctx.tables.flows
    if "E3.7" not in ctx.outcome.scenarios or flows is None or not len(flows):
        return
    fams = e37()
    pts = _points(flows, fams)
    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(12, 7), sharex=True)
    for row, mk in enumerate((2, 16)):
        for col, b in enumerate((0, 1, 10)):
            ax = axes[row, col]
            for model, name, style in MODELS:
                ax.plot(K_AXIS, _closed_loop_curve(mk, lambda k: b, 10e6, model), linestyle=style, linewidth=1,
                        label=f"closed loop, {name}")
            if not _runs(ax, [f for f in fams if f.m == mk * f.k and f.b == b], pts):
                _no_runs(ax, ctx)
            ax.set_xscale("log")
            ax.set_title(f"Fig {3.42 + 0.01 * (3 * row + col):.2f}: M = {mk}K, B = {b}", fontsize=9)
            if row == 1:
                ax.set_xlabel("links per trunk K")
    axes[0, 0].set_ylabel("utilisation")
    axes[1, 0].set_ylabel("utilisation")
    # every panel's entries once: the runs may be drawn in another panel than the legend's
    seen = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    axes[0, 0].legend(seen.values(), seen.keys(), fontsize=6)
    board.save(fig, "E3.7", "e3.7-closed-loop.png", "Figs 3.42-3.47: the closed loop on each open-loop model against the runs "
                            "(10 Mb/s a flow, 40 Gb/s a channel).")


def draw_e38(board, ctx) -> None:
    flows = ctx.tables.flows
    if "E3.8s" not in ctx.outcome.scenarios or flows is None or not len(flows):
        return
    fams = e38()
    pts = _points(flows, fams)
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.8), sharey=True)
    targets = np.array([0.6, 0.7, 0.8, 0.9])
    from .families import e38_buffer

    ran = set()
    for i, (stem, m, k, n, rtt_h, note) in enumerate(E38_SETTINGS):
        ax = axes[i // 2]
        got = [pts.get(f"{stem}-b{e38_buffer(m, k, n, rtt_h, u)}", (math.nan, math.nan)) for u in targets]
        label = note.split(", ", 2)[-1]
        ext = np.array([g[0] for g in got])
        sim = [g[1] for g in got]
        out = (ext < Y_RANGE[0]) | (ext > Y_RANGE[1])
        ax.plot(targets, np.clip(ext, *Y_RANGE), "o-", color=f"C{i % 2}", label=_label(ext, f"{label}: extrapolated"))
        ax.plot(targets[out], np.clip(ext, *Y_RANGE)[out], "kx", markersize=9)
        ax.plot(targets, sim, "^--", color=f"C{i % 2}", mfc="none", label=_label(sim, f"{label}: at the largest point"))
        ax.set_title(note.split(", ")[0] + " / " + note.split(", ")[1], fontsize=9)
        if np.isfinite(ext).any() or np.isfinite(np.asarray(sim, float)).any():
            ran.add(i // 2)
    for i, ax in enumerate(axes):
        if i not in ran:
            _no_runs(ax, ctx)
        ax.plot(targets, targets, "k:", linewidth=1, label="target")
        ax.set_xlabel("target utilisation")
        ax.legend(fontsize=6)
        ax.set_ylim(Y_RANGE[0] - 0.02, Y_RANGE[1] + 0.02)
    axes[0].set_ylabel("utilisation with B from (3.23)")
    board.save(fig, "E3.8s", "e3.8s-rule.png", "Figs 3.48-3.51: the utilisation reached with the rule's buffer against the "
                                            f"target; x: a fit read outside {Y_RANGE[0]}-{Y_RANGE[1]}, drawn at the edge.")
