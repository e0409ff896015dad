"""Cui's extrapolation method (thesis §3.3; spec cui-buffers-fast-adpm.md §3): simulate the
target system's topology at lower bit rates with the number of flows scaled to keep the
per-flow share, measure the trunk's utilisation U and loss P_B, fit them against the bit rate
x (Gb/s) and evaluate the fit at the target rate.

The fits are the thesis's (:func:`ccsim.models.cui.fit_extrapolation`): a straight line, or
a hyperbola a + b/(x - c) (the thesis writes the log10 P_B one as a + b/(x + c)); the thesis
fits log10 P_B, not P_B.

    nets = share_sweep(Network(flows=40, inputs=2, channels=1, buffer=10, channel_bps=0.4e9),
                       [0.4, 0.8, 1.2, 2.0, 4.0], share_bps=10e6)
    points = run_sweep(nets, seeds=[1, 2])           # a local pool, or scheduler="tcp://..."
    fit_extrapolation(points["x"], points["U"], shape="hyperbola", target=40.0).value
"""

from __future__ import annotations

import math
from dataclasses import replace

from .network import TRUNK, Network, scenario


def share_sweep(base: Network, rates_gbps, share_bps: float) -> list[Network]:
    """The base topology at each bit rate (Gb/s per channel) with N = K x rate / share flows."""
    out = []
    for x in rates_gbps:
        n = max(1, round(base.channels * x * 1e9 / share_bps))
        out.append(replace(base, channel_bps=x * 1e9, flows=n))
    return out


def trunk_measure(res) -> dict:
    """Utilisation and loss probability at the trunk over the measured intervals."""
    pi = res.port_intervals
    used = pi[(pi["port_name"] == TRUNK) & (pi["interval"] >= int(res.run["discard"]))]
    dep, drops = float(used["departures"].sum()), float(used["drops"].sum())
    return {"U": float(used["utilisation"].mean()) if len(used) else math.nan,
            "P_B": drops / (dep + drops) if dep + drops else math.nan,
            "departures": dep, "drops": drops}


def run_sweep(nets: list[Network], seeds=(1,), *, workers: int | None = None, scheduler: str | None = None,
              progress: bool = False):
    """Run every network over ``seeds`` (a local pool, or a Dask cluster); one row per run:
    x (Gb/s), flows, seed, U, P_B, log10 P_B."""
    import pandas as pd

    from ccsim.sweep import Task, run_many

    tasks = [Task(key=(k, s), scenario=scenario(n, f"cui-x{n.channel_bps / 1e9:g}"), seed=s)
             for k, n in enumerate(nets) for s in seeds]
    rows = []
    for task, res in run_many(tasks, workers=workers, progress=progress, scheduler=scheduler):
        k, seed = task.key
        if isinstance(res, Exception):
            raise res
        m = trunk_measure(res)
        rows.append({"x": nets[k].channel_bps / 1e9, "flows": nets[k].flows, "seed": seed, **m,
                     "log10_P_B": math.log10(m["P_B"]) if m["P_B"] > 0 else math.nan})
    return pd.DataFrame(rows).sort_values(["x", "seed"]).reset_index(drop=True)
