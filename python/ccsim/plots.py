"""Plots in the theses' own forms: window versus time, queue length versus time."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

MAX_LINES = 12


def _pick(df: pd.DataFrame, key: str) -> list:
    names = list(dict.fromkeys(df[key]))
    return names[:MAX_LINES]


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
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    shown = _pick(cwnd, "flow_name")
    for name in shown:
        d = cwnd[cwnd["flow_name"] == name]
        ax.step(d["time_s"], d["cwnd"], where="post", lw=1.0, label=plain(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("window (packets)")
    more = cwnd["flow_name"].nunique() - len(shown)
    ax.set_title(f"{plain(title)}: congestion window" + (f" (first {len(shown)} of {len(shown) + more} flows)" if more else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def plot_queues(queues: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Queue length (packets waiting, not counting the one in service) of each traced port;
    where the port's discipline keeps an average of that queue in packets (RED, RIO: state
    ``avg_queue``), the average too, dashed in the same colour."""
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    shown = _pick(queues, "port_name")
    for name in shown:
        d = queues[queues["port_name"] == name]
        averaged = "state_name" in d.columns and len(d) and (d["state_name"] == "avg_queue").all()
        # With its average on top, the queue is drawn faint so the average stays visible.
        line, = ax.step(d["time_s"], d["packets"], where="post", lw=1.0, label=plain(name),
                        alpha=0.45 if averaged else 1.0)
        if averaged:
            ax.plot(d["time_s"], d["state"], "--", lw=1.8, color=line.get_color(), zorder=3,
                    label=f"{plain(name)} (average)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title(f"{plain(title)}: queue length")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


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
