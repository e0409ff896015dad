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


def plot_cwnd(cwnd: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Congestion window (packets, capped at the maximum window) of each flow over time."""
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    shown = _pick(cwnd, "flow_name")
    for name in shown:
        d = cwnd[cwnd["flow_name"] == name]
        ax.step(d["time_s"], d["cwnd"], where="post", lw=1.0, label=str(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("window (packets)")
    more = cwnd["flow_name"].nunique() - len(shown)
    ax.set_title(f"{title}: congestion window" + (f" (first {len(shown)} of {len(shown) + more} flows)" if more else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def plot_queues(queues: pd.DataFrame, path: str, *, title: str = "") -> None:
    """Queue length (packets waiting, not counting the one in service) of each traced port."""
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    shown = _pick(queues, "port_name")
    for name in shown:
        d = queues[queues["port_name"] == name]
        ax.step(d["time_s"], d["packets"], where="post", lw=1.0, label=str(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title(f"{title}: queue length")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
