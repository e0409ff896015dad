"""Figs 3.52-3.55 redrawn (thesis §3.8.2): the buffer each N needs for U = 75, 95, 99 and
99.9 %, the simulation (single_rows.py's smallest B over the grid) beside the rules the
thesis plots: (3.27), Appenzeller (3.26), O(log W) (3.25, below 95 % only), 2N and the BDP.
A target no simulated B reached (the grid ends at 3200) is drawn as a triangle at the top.
"""

from __future__ import annotations

import math

from ..kit.report import pyplot
from .single_rows import MIN_B_ROW, TARGETS


def draw_e39(board, ctx) -> None:
    flows = ctx.tables.flows
    if "E3.9" not in ctx.outcome.scenarios or flows is None or not len(flows):
        return
    rows = flows[flows["source"] == MIN_B_ROW]
    if not len(rows) or "flows_n" not in rows.columns:
        return
    rows = rows.sort_values(["flows_n", "seed"]).drop_duplicates("flows_n")
    n = rows["flows_n"].to_numpy(float)
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    for ax, (key, u) in zip(axes, TARGETS.items()):
        sim = rows[f"b{key}"].to_numpy(float)
        top = 4000.0
        ok = [math.isfinite(v) for v in sim]
        ax.plot(n[ok], sim[ok], "ko-", label="simulation (smallest B)")
        if not all(ok):
            ax.plot([x for x, o in zip(n, ok) if not o], [top] * (len(ok) - sum(ok)), "k^",
                    label="not reached by B = 3200")
        # fixed colours: the colour cycle would give a rule a different one where O(log W) is absent
        ax.plot(n, rows[f"rule{key}"], "s-", color="C0", markersize=3, label="ours (3.27)")
        ax.plot(n, rows[f"app{key}"], "d-", color="C1", markersize=3, label="Appenzeller (3.26)")
        if u < 0.95:
            ax.plot(n, rows["ologw75"], "v-", color="C2", markersize=3, label="O(log W) (3.25)")
        ax.plot(n, rows["two_n"], "x-", color="C3", markersize=3, label="2N")
        ax.axhline(400, color="grey", linestyle="--", linewidth=0.8, label="BDP 400")
        ax.set_yscale("log")
        ax.set_title(f"U = {u * 100:g} % (Fig. 3.{52 + list(TARGETS).index(key)})", fontsize=9)
        ax.set_xlabel("N (flows)")
    # one legend for all panels, beside the last one so it covers no data
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    axes[-1].legend(seen.values(), seen.keys(), fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    axes[0].set_ylabel("buffer (packets)")
    fig.suptitle("Figs 3.52-3.55: the smallest buffer for a target utilisation against N, beside the rules", fontsize=10)
    board.save(fig, "E3.9", "e3.9-min-buffer.png", "Figs 3.52-3.55: the smallest simulated buffer for each target utilisation against N "
                            "(4000 packets/s, mean RTT 100 ms over 50-150 ms, paced NewReno), beside the rules.")
