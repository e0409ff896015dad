"""Plots in the theses' own forms: window versus time, queue length versus time."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

MAX_LINES = 12


def _pick(df: pd.DataFrame, key: str) -> list:
    names = list(dict.fromkeys(df[key]))
    return names[:MAX_LINES]


def _busiest_ports(queues: pd.DataFrame) -> tuple[list, int, int]:
    """The ports to draw: those that ever queued, fullest first, at most MAX_LINES (a port that
    never held a packet is a flat line at 0 that only crowds the legend). Returns the names,
    how many ports were traced and how many of them never queued."""
    peak = queues.groupby("port_name", sort=False)["packets"].max()
    busy = peak[peak > 0].sort_values(ascending=False, kind="stable")
    names = list(busy.index) if len(busy) else list(peak.index)
    return names[:MAX_LINES], len(peak), int((peak <= 0).sum())


def _colours(ax, n: int) -> None:
    """Distinct colours for up to 20 lines (matplotlib's default cycle repeats after 10)."""
    if n > 10:
        ax.set_prop_cycle(color=plt.cm.tab20.colors)


def _legend(ax, n: int) -> None:
    """Inside the axes for a few lines; beside them for many, where it cannot cover data."""
    if n > 4:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    else:
        ax.legend(fontsize=8, loc="upper right")


def plain(text) -> str:
    """A user's name as matplotlib should show it: `$` escaped, so it is never read as math."""
    return str(text).replace("$", r"\$")


def twin_legend(ax, twin, *, loc: str) -> None:
    """One legend for an axis and its twinx() partner."""
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc=loc)


def plot_cwnd(cwnd: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Congestion window (packets, capped at the maximum window) of each flow over time."""
    shown = _pick(cwnd, "flow_name")
    fig, ax = plt.subplots(figsize=(9.5 if len(shown) > 4 else 8, 4.5), dpi=110)
    _colours(ax, len(shown))
    for name in shown:
        d = cwnd[cwnd["flow_name"] == name]
        ax.step(d["time_s"], d["cwnd"], where="post", lw=1.0, label=plain(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("window (packets)")
    more = cwnd["flow_name"].nunique() - len(shown)
    note = _cut_spike(ax, cwnd[cwnd["flow_name"].isin(shown)]["cwnd"])
    ax.set_title(f"{plain(title)}: congestion window" + (f" (first {len(shown)} of {len(shown) + more} flows)" if more else "")
                 + note, fontsize=10)
    ax.grid(alpha=0.3)
    _legend(ax, len(shown))
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def _cut_spike(ax, values: pd.Series) -> str:
    """A start-up spike far above everything else (a window of 15 000 packets where the run
    holds 1 000) flattens the rest against the axis: cut the axis above the bulk of the
    samples and say so in the title."""
    values = values[np.isfinite(values)]   # an uncontrolled flow's window is NaN or infinite
    if values.empty:
        return ""
    top, bulk = float(values.max()), float(values.quantile(0.99))
    if bulk <= 0 or top <= 4 * bulk:
        return ""
    ax.set_ylim(0, bulk * 1.3)
    return f"; axis cut at {bulk * 1.3:.0f}, peak {top:.0f}"


def plot_queues(queues: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Queue length (packets waiting, not counting the one in service) of each traced port
    that ever queued, fullest first; where the port's discipline keeps an average of that
    queue in packets (RED, RIO: state ``avg_queue``), the average too, dashed in the same
    colour. Up to four ports share one axis; more get a small panel each (on a shared scale),
    since many overlaid sawtooths cannot be told apart."""
    shown, traced, idle = _busiest_ports(queues)
    parts = []
    if len(shown) < traced:
        parts.append(f"{len(shown)} of {traced} ports" + (", fullest first" if traced - idle > len(shown) else ""))
    if idle and len(shown) < traced:
        parts.append(f"{idle} never queued")
    heading = f"{plain(title)}: queue length" + (f" ({'; '.join(parts)})" if parts else "")
    if len(shown) <= 4:
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
        for name in shown:
            _queue_lines(ax, queues[queues["port_name"] == name], plain(name))
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue (packets)")
        ax.set_title(heading, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    else:
        cols = 3
        rows = -(-len(shown) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(10, 1.9 * rows + 0.9), dpi=110, sharex=True, sharey=True,
                                 squeeze=False)
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (ax, name) in enumerate(zip(axes.flat, shown)):
            _queue_lines(ax, queues[queues["port_name"] == name], "", colour=colours[i % len(colours)])
            ax.set_title(plain(name), fontsize=8)
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[len(shown):]:
            ax.set_visible(False)
        for ax in axes[-1, :]:
            ax.set_xlabel("time (s)", fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel("packets", fontsize=8)
        fig.suptitle(heading + ("; dashed: the discipline's average" if any(
            line.get_linestyle() == "--" for ax in axes.flat for line in ax.get_lines()) else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def _queue_lines(ax, d: pd.DataFrame, label: str, colour=None) -> None:
    """One port's queue, and its discipline's average when it keeps one (RED, RIO)."""
    averaged = "state_name" in d.columns and len(d) and (d["state_name"] == "avg_queue").all()
    # With its average on top, the queue is drawn faint so the average stays visible.
    line, = ax.step(d["time_s"], d["packets"], where="post", lw=1.0, label=label or None, color=colour,
                    alpha=0.45 if averaged else 1.0)
    if averaged:
        ax.plot(d["time_s"], d["state"], "--", lw=1.8, color=line.get_color(), zorder=3,
                label=f"{label} (average)" if label else None)


def plot_probes(probes: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Packet-pair estimator of each traced packet-pair flow (one panel per flow, up to four):
    every probe's rate 1/gap (dots: spiky), the predicted bottleneck rate (smooth) and the
    sending rate, in packets/s; the fuzzy averaging constant on the right axis (dotted)."""
    shown = _pick(probes, "flow_name")[:4]
    fig, axes = plt.subplots(len(shown), 1, figsize=(8, 3.2 * len(shown)), dpi=110, squeeze=False)
    for ax, name in zip(axes[:, 0], shown):
        d = probes[probes["flow_name"] == name]
        ax.plot(d["time_s"], 1.0 / d["probe_gap_s"], ".", ms=2.5, color="#999999", label="probe 1/gap")
        ax.step(d["time_s"], d["rate_est_pps"], where="post", lw=1.2, color="#1f5fbf", label="predicted rate")
        ax.step(d["time_s"], d["send_rate_pps"], where="post", lw=0.9, color="#d2691e", label="sending rate")
        ax.set_ylabel("packets/s")
        ax.set_title(f"{plain(title)}: {plain(name)}" if title else plain(name), fontsize=10)
        ax.grid(alpha=0.3)
        top = pd.concat([d["rate_est_pps"], d["send_rate_pps"]]).quantile(0.99)
        if top == top and top > 0:
            ax.set_ylim(0, 1.5 * top)
        if d["alpha"].notna().any():
            a2 = ax.twinx()
            a2.step(d["time_s"], d["alpha"], where="post", ls=":", lw=0.9, color="#2e8b57", label="fuzzy alpha")
            a2.set_ylim(0, 1)
            a2.set_ylabel("alpha")
            twin_legend(ax, a2, loc="upper right")
        else:
            ax.legend(fontsize=7, loc="upper right")
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
