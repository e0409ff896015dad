"""A sweep's figure: each flow's goodput, delay and drop rate against the swept value, the mean
over seeds with the seeds' standard deviation as error bars.

The x axis is the first parameter that takes more than one value. Values that are numbers with
one unit ("5pkt", "40pkt"; 0.5, 2) are placed by their number, the unit in the axis label;
anything else (algorithm names, tables) is placed in the order the sweep gave it. Every other
parameter that varies splits the lines: "1 FTP (flows[0].cc=reno)".
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ._files import atomic_savefig  # noqa: E402
from .plots import MAX_LINES, plain  # noqa: E402

METRICS = [("goodput_pps", "goodput (packets/s)"), ("delay_s", "RTT delay (s)"), ("drop_rate", "drops (/s)")]
_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/%µ]*)\s*")


def numeric_axis(values: list) -> tuple[list[float], str] | None:
    """(positions, unit) if every value is a number with one and the same unit; else None."""
    nums, units = [], set()
    for v in values:
        if isinstance(v, bool):
            return None
        if isinstance(v, (int, float)):
            nums.append(float(v))
            units.add("")
            continue
        m = _NUMBER.fullmatch(str(v))
        if not m:
            return None
        nums.append(float(m.group(1)))
        units.add(m.group(2))
    return (nums, units.pop()) if len(units) == 1 else None


def varying(table: pd.DataFrame) -> list[str]:
    """The parameter columns that take more than one value, in the sweep's order."""
    return [c for c in table.columns if c.startswith("param:") and table[c].nunique(dropna=False) > 1]


def plot_sweep(table: pd.DataFrame, path, *, title: str = "") -> bool:
    """Draw ``table`` (a sweep's per-flow rows: ``sweep.parquet``) into ``path``, a PNG (or the
    format its suffix names), written whole or not at all.
    Returns False, drawing nothing, when no parameter varies (a sweep over seeds only)."""
    params = varying(table)
    if not params or not len(table):
        return False
    xcol, others = params[0], params[1:]
    xs = list(dict.fromkeys(v for v in table[xcol] if v == v))   # the order the sweep gave
    axis = numeric_axis(xs)
    pos = dict(zip(xs, axis[0])) if axis else {x: i for i, x in enumerate(xs)}
    series = table.groupby(["name"] + others, sort=False, dropna=False)
    lines = [(k if isinstance(k, tuple) else (k,), d) for k, d in series][:MAX_LINES]
    keys = [k for k, _ in lines]
    fig, axes = plt.subplots(len(METRICS), 1, figsize=(8, 2.6 * len(METRICS)), dpi=110, sharex=True)
    seeds = table["seed"].nunique()
    # A flow keeps its colour; the other parameters' values change the line style and marker.
    flows = list(dict.fromkeys(k[0] for k in keys))
    combos = list(dict.fromkeys(k[1:] for k in keys))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D")]
    for key, d in lines:
        colour = colours[flows.index(key[0]) % len(colours)]
        ls, marker = styles[combos.index(key[1:]) % len(styles)]
        label = plain(key[0]) + (" (" + ", ".join(f"{c.removeprefix('param:')}={v}" for c, v in zip(others, key[1:]))
                                 + ")" if others else "")
        g = d.groupby(xcol, sort=False)   # a swept value that is NaN (never a scenario's) is left out
        for ax, (col, _) in zip(axes, METRICS):
            m = g[col].mean()
            sd = g[col].std() if seeds > 1 else None
            x = [pos[v] for v in m.index]
            order = sorted(range(len(x)), key=x.__getitem__)
            ax.errorbar([x[i] for i in order], [m.iloc[i] for i in order],
                        yerr=None if sd is None else [sd.iloc[i] for i in order],
                        color=colour, ls=ls, marker=marker, ms=3.5, lw=1.1, capsize=2.5, label=label)
    for ax, (_, ylabel) in zip(axes, METRICS):
        ax.set_ylabel(ylabel, fontsize=9)
        ax.grid(alpha=0.3)
    name = xcol.removeprefix("param:")
    axes[-1].set_xlabel(plain(f"{name} ({axis[1]})" if axis and axis[1] else name))
    if not axis:
        axes[-1].set_xticks(range(len(xs)), [plain(x) for x in xs], rotation=20 if len(xs) > 4 else 0)
    more = series.ngroups - len(keys)
    # A scenario without randomness (no random sources, no random drops) gives every seed the
    # same result: the error bars are then zero, and the title says why.
    same = seeds > 1 and bool((table.groupby(["name", xcol] + others, dropna=False)[[c for c, _ in METRICS]]
                               .nunique(dropna=False) <= 1).all().all())
    axes[0].set_title((f"{plain(title)}: " if title else "") + f"{seeds} seed{'s' if seeds != 1 else ''}, mean"
                      + ((" (every seed gave the same result: nothing in the scenario is random)" if same
                          else " and sd over seeds") if seeds > 1 else "")
                      + (f" (first {len(keys)} of {len(keys) + more} lines)" if more else ""), fontsize=10)
    axes[0].legend(fontsize=7, loc="best", ncol=2)
    fig.tight_layout()
    try:
        atomic_savefig(fig, path)   # whole or not at all, whoever calls
    finally:
        plt.close(fig)
    return True
