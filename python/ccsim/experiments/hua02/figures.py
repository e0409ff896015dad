"""Hua 2002's figures redrawn from the runs, in the thesis's forms (its own figures did not
survive the text extraction; the axes are those its captions and text describe). Values are
medians over the seeds.

- Figs 3.2 / 3.3: per-flow throughput of connections 0 and 1 against n (E3.1) and m (E3.2),
  with the fluid model's curves (``e31-throughput.png``, ``e32-throughput.png``); Fig. 4.12:
  the same for JCC (``e46-throughput.png``, and ``e46m-throughput.png`` for m flows a connection).
- Figs 4.6 / 4.7: the window of one flow under JCC and under Reno, 0-200 s (``e41-cwnd.png``).
- Fig. 4.10: the loss ratio against the number of flows (``e44-loss.png``).
- Fig. 5.4: percentiles (5, 25, 50, 75, 95) of the class-1/class-2 and class-2/class-3 delay
  ratios over windows of K departures, WTP beside S-WTP (``e52-ratio-boxes.png``).
- Fig. 5.5: the class-1/class-2 and class-2/class-3 delay ratios against the load, one panel
  per class-load mix (``e53-ratio-load.png``).
"""

from __future__ import annotations

import numpy as np

from ..kit.reference import point_label
from ..._files import atomic_savefig
from ..kit.report import pyplot

MIXES = ("60-20-20", "33-33-33", "20-20-60", "30-40-30", "20-30-50")
LOADS = (65, 70, 75, 80, 85, 90, 95)
KS = (500, 1000, 5000, 10000)


def draw(board, ctx) -> None:
    """The figure hook."""
    flows = ctx.tables.flows
    if flows is None or not len(flows):
        return
    ran = ctx.outcome.scenarios
    for sid, curve, param, xs, name, title in (
            ("E3.1", "Vegas", "n", range(1, 11), "e31-throughput.png", "Fig. 3.2: Vegas, n active cross connections"),
            ("E3.2", "Vegas", "m", range(1, 11), "e32-throughput.png", "Fig. 3.3: Vegas, m flows per connection"),
            ("E4.6", "JCC n", "n", range(1, 11), "e46-throughput.png", "Fig. 4.12: JCC, n active cross connections"),
            ("E4.6", "JCC m", "m", range(1, 11), "e46m-throughput.png", "Fig. 4.12 (text): JCC, m flows per connection")):
        if sid in ran:
            _parking_lot(board, ctx, flows, sid, curve, param, list(xs), name, title)
    if "E4.1" in ran:
        _windows(board, ctx)
    if "E4.4" in ran:
        _loss(board, ctx, flows)
    if "E5.2" in ran:
        _boxes(board, ctx, flows)
    if "E5.3" in ran:
        _ratio_load(board, ctx, flows)


def _value(flows, file: str | None, source: int, field: str, sources=None) -> float:
    """The seed median of ``field`` at ``source`` (or of the mean over ``sources``) in ``file``."""
    if file is None or field not in flows.columns:
        return np.nan
    rows = flows[(flows["file"] == file) & flows["source"].isin(sources or [source])]
    if not len(rows):
        return np.nan
    per_seed = rows.groupby("seed")[field].mean()
    return float(per_seed.median())


def _save(board, sid: str, fig, name: str, caption: str) -> None:
    path = board.path(name)
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    board.add(sid, path, caption)


def _parking_lot(board, ctx, flows, sid, curve, param, xs, name, title) -> None:
    runs = ctx.data[sid].runs
    files = [runs.get(point_label(curve, x)) for x in xs]
    c0 = [_value(flows, f, 0, "goodput_bps", sources=list(range(1, 11))) / 1e3 for f in files]
    c1 = [_value(flows, f, 0, "goodput_bps", sources=list(range(101, 111))) / 1e3 for f in files]
    if param == "m":  # m flows a connection
        c0 = [_value(flows, f, 0, "goodput_bps", sources=list(range(1, x + 1))) / 1e3 for f, x in zip(files, xs)]
        c1 = [_value(flows, f, 0, "goodput_bps", sources=list(range(101, 101 + x))) / 1e3 for f, x in zip(files, xs)]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.plot(xs, c0, "o-", label="connection 0 (simulated)")
    ax.plot(xs, c1, "s-", label="connection 1 (simulated)")
    f0 = [_value(flows, f, 990, "goodput_bps") / 1e3 for f in files]
    f1 = [_value(flows, f, 991, "goodput_bps") / 1e3 for f in files]
    if not all(np.isnan(f0)):
        ax.plot(xs, f0, "k--", linewidth=1, label="connection 0 (fluid model)")
        ax.plot(xs, f1, "k:", linewidth=1, label="connection 1 (fluid model)")
    ax.set_xlabel(param)
    ax.set_ylabel("throughput per flow (kb/s)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    _save(board, sid, fig, name, f"{title}: per-flow throughput of connections 0 and 1 (seed medians).")
    plt.close(fig)


def _windows(board, ctx) -> None:
    traces = ctx.tables.traces
    runs = ctx.data["E4.1"].runs
    if traces is None or not len(traces):
        board.note("E4.1", "e41-cwnd.png: no window traces were kept")
        return
    plt = pyplot()
    # Fig. 4.6 the whole run, Fig. 4.7 its last 50 s (150-200 s in the thesis's run) close up.
    fig, axes = plt.subplots(2, 2, figsize=(11, 4.8), sharey=True, gridspec_kw={"width_ratios": [2, 1]})
    for row, pair in zip(axes, ("JCC", "Reno")):
        rows = traces[(traces["file"] == runs.get(pair)) & (traces["seed"] == traces["seed"].min())]
        g = rows[rows["source"] == 1].sort_values("time_s")
        end = float(g["time_s"].max()) if len(g) else 200.0
        for ax in row:
            ax.step(g["time_s"], g["cwnd"], where="post", linewidth=0.8)
            ax.set_ylim(0, 22)
            ax.grid(alpha=0.3)
        row[0].set_ylabel("cwnd (packets)")
        row[0].set_title(f"Fig. 4.6: {pair}, flow 1 of four (200 ms RTT, 1 Mb/s RED bottleneck)", fontsize=9)
        row[1].set_xlim(max(0.0, end - 50), end)
        row[1].set_title(f"Fig. 4.7: {pair}, {max(0.0, end - 50):.0f}-{end:.0f} s", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    _save(board, "E4.1", fig, "e41-cwnd.png",
          "Figs 4.6-4.7: the window of one of four flows, seed 1, and its last 50 s close up: JCC in a narrow "
          "band, Reno's sawtooth.")
    plt.close(fig)


def _loss(board, ctx, flows) -> None:
    runs = ctx.data["E4.4"].runs
    ns = list(range(5, 45, 5))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for curve, style in (("JCC", "o-"), ("Reno", "s-")):
        ax.plot(ns, [_value(flows, runs.get(point_label(curve, n)), 950, "loss_pct") for n in ns], style, label=curve)
    ax.set_xlabel("number of flows")
    ax.set_ylabel("packet loss ratio (%)")
    ax.set_title("Fig. 4.10: loss against the number of flows, 1 Mb/s RED bottleneck (seed medians)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(board, "E4.4", fig, "e44-loss.png", "Fig. 4.10: the loss ratio against the number of flows (seed medians).")
    plt.close(fig)


def _boxes(board, ctx, flows) -> None:
    """Fig. 5.4's two panels, (a) classes 1/2 and (b) classes 2/3, WTP and S-WTP side by side at
    each timescale K."""
    runs = ctx.data["E5.2"].runs
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    schedulers = (("WTP", "0.75", -0.18), ("S-WTP", "#6fa8dc", 0.18))
    for ax, (panel, src, classes) in zip(axes, (("a", 812, "1 / 2"), ("b", 823, "2 / 3"))):
        for pair, colour, shift in schedulers:
            stats = []
            for k in KS:
                q = [_value(flows, runs.get(pair), src, f"ratio_p{p:02d}_k{k}") for p in (5, 25, 50, 75, 95)]
                stats.append({"whislo": q[0], "q1": q[1], "med": q[2], "q3": q[3], "whishi": q[4]})
            ax.bxp(stats, positions=[i + shift for i in range(len(KS))], widths=0.3, showfliers=False,
                   patch_artist=True, boxprops={"facecolor": colour}, medianprops={"color": "black"})
        ax.set_xticks(range(len(KS)), [str(k) for k in KS])
        ax.axhline(2.0, color="0.5", linewidth=0.8, linestyle="--")
        ax.set_title(f"({panel}) classes {classes}", fontsize=9)
        ax.set_xlabel("timescale K (departures)")
    axes[0].set_ylabel("delay ratio (5, 25, 50, 75, 95th percentiles)")
    from matplotlib.patches import Patch
    axes[1].legend([Patch(facecolor=c, edgecolor="black") for _, c, _ in schedulers], [n for n, _, _ in schedulers],
                   fontsize=8, loc="lower right")
    fig.suptitle("Fig. 5.4: delay ratios over windows of K departures (target 2, load 0.95)", fontsize=10)
    _save(board, "E5.2", fig, "e52-ratio-boxes.png",
          "Fig. 5.4: the delay ratios of classes 1/2 (a) and 2/3 (b) over windows of K departures, WTP (grey) "
          "beside S-WTP (blue) (target 2, load 0.95).")
    plt.close(fig)


def _ratio_load(board, ctx, flows) -> None:
    runs = ctx.data["E5.3"].runs
    plt = pyplot()
    fig, axes = plt.subplots(1, len(MIXES), figsize=(13, 3.2), sharey=True)
    for ax, mix in zip(axes, MIXES):
        for sched, marker in (("WTP", "o"), ("S-WTP", "s")):
            for src, style in ((812, "-"), (823, "--")):
                ys = [_value(flows, runs.get(point_label(f"{sched} {mix}", u)), src, "ratio") for u in LOADS]
                ax.plot(LOADS, ys, marker + style, markersize=3, linewidth=1,
                        label=f"{sched} d{str(src)[1]}/d{str(src)[2]}")
        ax.axhline(2.0, color="0.5", linewidth=0.8, linestyle=":")
        ax.set_title(f"mix {mix}", fontsize=9)
        ax.set_xlabel("load (%)")
    axes[0].set_ylabel("average delay ratio")
    axes[-1].legend(fontsize=7)
    fig.suptitle("Fig. 5.5: average delay ratios d1/d2 and d2/d3 against the load; mix = the load shares (%) of "
                 "classes 1-2-3 (target 2)", fontsize=10)
    _save(board, "E5.3", fig, "e53-ratio-load.png",
          "Fig. 5.5: the delay ratios against the load for the five class-load mixes (target 2).")
    plt.close(fig)
