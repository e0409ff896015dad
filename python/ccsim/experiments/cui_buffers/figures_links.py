"""Figures of E3.4 and E3.5 (thesis §3.4.1-3.4.2), redrawn from the runs in the thesis's forms.

- Figs 3.12-3.13 (``e3.4-links.png``): the trunk's throughput (at the thesis's scale, 50x the
  simulated) and utilisation against the link rate, with the closed loop (G1DM, §3.7).
- Fig. 3.14 (``e3.5-access.png``): the trunk's utilisation against the access rate, paced and
  regular NewReno, one panel per (M, K, B).
"""

from __future__ import annotations

import re

import numpy as np

from ..kit.report import pyplot
from .links import E34_FULL, E34_RATES, E35_SWITCHES, SCALE
from .rows import TRUNK_ROW

E34 = re.compile(r"^e34-x([\d.]+)$")
E35 = re.compile(r"^e35-m(\d+)k(\d+)b(\d+)-(paced|regular)-a([\d.]+)$")


def _trunk(ctx, scenario_id: str):
    flows = ctx.tables.flows
    if scenario_id not in ctx.outcome.scenarios or flows is None or not len(flows):
        return None
    return flows[flows["source"] == TRUNK_ROW]


def draw_e34(board, ctx) -> None:
    trunk = _trunk(ctx, "E3.4")
    if trunk is None:
        return
    from ccsim.models.cui import closed_loop

    pts = sorted((float(m.group(1)), float(r.util)) for r in trunk.itertuples() if (m := E34.match(str(r.file))))
    if not pts:
        return
    x, u = (np.array(v, float) for v in zip(*pts))
    xs = np.array(E34_RATES, float)
    model = np.array([closed_loop(E34_FULL.inputs, E34_FULL.channels, E34_FULL.buffer, E34_FULL.flows,
                                  mu=r * 1e9 / 8320, rtt_h=0.1091).utilisation for r in xs])
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(x, u * E34_FULL.channels * x, "o-", label=f"simulated ({SCALE}x scaled down) x {SCALE}")
    a1.plot(xs, model * E34_FULL.channels * xs, "k--", linewidth=0.8, label="closed loop (G1DM)")
    a1.plot(xs, E34_FULL.flows * 0.1 * np.ones_like(xs), ":", color="grey", linewidth=0.8,
            label="N x 100 Mb/s access")
    a1.set_ylabel("bottleneck throughput (Gb/s, thesis scale)")
    a1.set_yscale("log")  # linear, the access rate's 2000 squeezes the data towards 0
    a2.plot(x, u, "o-", label="simulated")
    a2.plot(xs, model, "k--", linewidth=0.8, label="closed loop (G1DM)")
    a2.fill_between(xs, model - 0.07, model + 0.07, color="grey", alpha=0.15, label="closed loop ± 0.07")
    a2.set_ylabel("bottleneck utilisation")
    a2.set_ylim(0, 1)
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
        ax.set_xlabel("link bit rate (Gb/s, thesis scale)")
        ax.legend(fontsize=7)
    fig.suptitle("Figs 3.12-3.13: bottleneck throughput and utilisation against the link rate", fontsize=10)
    board.save(fig, "E3.4", "e3.4-links.png", f"Figs 3.12-3.13: bottleneck throughput and utilisation against the link rate (M = 80, "
                            f"K = 20, B = 0, 20 000 flows), simulated with N and the rates divided by {SCALE}; "
                            "the closed loop at the thesis's size.")


def draw_e35(board, ctx) -> None:
    trunk = _trunk(ctx, "E3.5")
    if trunk is None:
        return
    runs = {}
    for r in trunk.itertuples():
        if m := E35.match(str(r.file)):
            key = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            runs.setdefault(key, {}).setdefault(m.group(4), []).append((float(m.group(5)), float(r.util)))
    if not runs:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, len(E35_SWITCHES), figsize=(12, 3.8), sharey=True)
    for ax, sw in zip(np.atleast_1d(axes), E35_SWITCHES):
        for kind, style in (("paced", "o-"), ("regular", "s--")):
            pts = sorted(runs.get(sw, {}).get(kind, []))
            if pts:
                ax.plot(*zip(*pts), style, markersize=4, label=f"{kind} NewReno")
        ax.axvline(1000, color="grey", linewidth=0.6, linestyle=":")
        ax.set_xscale("log")
        ax.set_title(f"M = {sw[0]}, K = {sw[1]}, B = {sw[2]}", fontsize=9)
        ax.set_xlabel("access bit rate (Mb/s); core 1 Gb/s a link")
        if ax.get_legend_handles_labels()[1]:
            ax.legend(fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel("bottleneck utilisation")
    board.save(fig, "E3.5", "e3.5-access.png", "Fig. 3.14: bottleneck utilisation against the access rate, paced and regular NewReno "
                            "(400 flows, 1 Gb/s core links); the dotted line is the core rate.")
