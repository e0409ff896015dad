"""Cui chapter 4's figures redrawn from the runs: Figs 4.2-4.4 (the 2nd and 6th sources' rates
against the number of flows, beside the model), Fig 4.8 (the queue), Fig 4.10 (existing/new
rate against N) and EB1's rates over time (Fig B.2)."""

from __future__ import annotations

import math

import numpy as np

from ...models.cui import fast_persistent_congestion, vegas_persistent_congestion
from ..kit.report import pyplot
from .make_scenarios import E42_CASES, E42_N

C = 12_500.0
E41 = (("E4.1-FAST", "FAST alpha 200", lambda: fast_persistent_congestion(10, 200, C)),
       ("E4.1-V250", "prose Vegas alpha+ 250", lambda: vegas_persistent_congestion(10, 250, C, 0.04)),
       ("E4.1-V2475", "prose Vegas alpha+ 2475", lambda: vegas_persistent_congestion(10, 2475, C, 0.04)))


def draw(board, ctx) -> None:
    ran = set(ctx.outcome.scenarios)
    if any(sid in ran for sid, _, _ in E41):
        _e41(board, ctx, ran)
    if "E4.2" in ran:
        _e42(board, ctx)
    if "EB1" in ran:
        _eb1(board, ctx)


def _cells(ctx, scenario: str):
    c = ctx.outcome.cells
    return c[c["scenario"] == scenario] if len(c) else c


def _e41(board, ctx, ran) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    for ax, (sid, word, model) in zip(axes, E41):
        if sid not in ran:
            ax.set_visible(False)
            continue
        m = model()
        n = np.arange(1, 11)
        for src, mark, colour in ((2, "o", "C0"), (6, "s", "C1")):  # one colour per source, line and markers
            ax.plot(n[src - 1:], m.rates[src - 1:, src - 1], "-", color=colour, label=f"model, source {src}")
            cells = _cells(ctx, sid)
            cells = cells[(cells["metric"] == "rate") & (cells["source"] == src)]
            x = [int(p[1:]) for p in cells["phase"]]
            ax.plot(x, cells["sim"], mark, mfc="none", color=colour, label=f"simulated, source {src}")
        ax.set_title(f"{word} (Fig 4.{2 + [s for s, _, _ in E41].index(sid)})", fontsize=9)
        ax.set_xlabel("flows present")
        ax.set_ylabel("rate (packets/s)")
        ax.legend(fontsize=8)
    ax = axes[3]
    for sid, word, model in E41:
        if sid not in ran:
            continue
        cells = _cells(ctx, sid)
        q = cells[cells["metric"].str.startswith("queue_n")]
        x = [int(s[len("queue_n"):]) for s in q["metric"]]
        line, = ax.semilogy(np.arange(1, 11), model().queue, "-", label=f"{word}, model")
        ax.semilogy(x, q["sim"], "o", mfc="none", color=line.get_color(), label=f"{word}, simulated")
    ax.set_title("the queue (Fig 4.8)", fontsize=9)
    ax.set_xlabel("flows present")
    ax.set_ylabel("packets")
    ax.set_ylim(bottom=0.1)  # room below the curves for the legend
    ax.legend(fontsize=8, loc="lower right")
    board.save(fig, "E4.1-FAST" if "E4.1-FAST" in ran else sorted(ran)[0], "e4.1-persistent-congestion.png",
               "Figs 4.2-4.4 and 4.8: the 2nd and 6th sources' rates, and the queue, as flows join one by one "
               "(lines: (4.19)-(4.20) for FAST, (4.10)-(4.12) for prose Vegas; markers: the runs, last 5 s before "
               "each arrival).")


def _e42(board, ctx) -> None:
    flows = ctx.tables.flows
    if flows is None or not len(flows) or "old_new" not in flows.columns:
        return
    rows = flows[(flows["scenario"] == "E4.2") & flows["old_new"].notna()]
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharey=True)
    n = np.array(E42_N, dtype=float)
    for ax, (case, (old, new)) in zip(axes, E42_CASES.items()):
        ran_n = set()
        for alg, mark in (("pure", "s-"), ("drain", "o-")):
            pts = []
            for x in E42_N:
                v = rows[rows["pair"] == f"{case} {alg} @ {x}"]["old_new"]
                if len(v):
                    pts.append((x, float(v.median())))
            if pts:
                ax.plot(*zip(*pts), mark, label="four-phase FAST" if alg == "drain" else "pure FAST")
                ran_n.update(x for x, _ in pts)
        if len(ran_n) < len(E42_N):  # say so, or a lone point reads as a whole curve
            text = (f"runs only at N = {', '.join(map(str, sorted(ran_n)))}" if ran_n else "no runs in this panel")
            ax.text(0.98, 0.5, text + (" (--quick runs fewer points)" if ctx.outcome.quick else ""),
                    transform=ax.transAxes, ha="right", fontsize=8, color="0.3")
        ax.plot(n, [2 / (1 + math.sqrt(1 + 4 * k)) for k in n], "k--", linewidth=0.8, label="(4.26)")
        ax.axhline(1.0, color="grey", linewidth=0.5)
        ax.set_title(f"({case}) existing RTT {old} ms, new {new} ms", fontsize=9)
        ax.set_xlabel("N (existing flows)")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("existing / new rate")
    fig.suptitle("Fig 4.10: existing/new rate against the number of existing flows", fontsize=10)
    board.save(fig, "E4.2", "e4.2-four-phase.png",
               "Fig 4.10: existing/new rate against the number of existing flows, alpha 50, 100 Mb/s, over the "
               "runs' last 15 s.")


def _eb1(board, ctx) -> None:
    iv = ctx.tables.intervals
    if iv is None or not len(iv):
        return
    iv = iv[iv["scenario"] == "EB1"]
    if not len(iv):
        return
    if "seed" in iv.columns:   # one seed's run: several would interleave into one zig-zag line
        iv = iv[iv["seed"] == iv["seed"].min()]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, g in iv.groupby("flow_name" if "flow_name" in iv.columns else "flow"):
        g = g.sort_values("start_s")
        # repeat the last value at the last interval's end, or its step is not drawn
        x = np.append(g["start_s"].to_numpy(float), g["end_s"].iloc[-1])
        y = np.append(g["goodput_pps"].to_numpy(float), g["goodput_pps"].iloc[-1])
        ax.step(x, y, where="post", label=str(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("rate (packets/s, 5 s intervals)")
    ax.legend(fontsize=7)
    fig.suptitle("Fig B.2: EB1, the three FAST flows' rates", fontsize=10)
    board.save(fig, "EB1", "eb1-rates.png", "Fig B.2: the three flows' rates over time (5 s intervals, the first seed).")
