"""Cui's extrapolation method (thesis §3.3; spec cui-buffers-fast-adpm.md §3): simulate the
target system's topology at lower bit rates with the number of flows scaled to keep the
per-flow share, measure the trunk's utilisation U and loss P_B, fit them against the bit rate
x (Gb/s) and evaluate the fit at the target rate.

The fits are the thesis's: a straight line a + b x, or hyperbolas a + b/(x - c) for U and
a + b/(x + c) for log10 P_B (the thesis fits log10 P_B, not P_B). The statistics printed
beside them are those the thesis quotes: the standard error sqrt(SSE/(n - p)) and the
correlation coefficient sqrt(1 - SSE/SST).

    nets = share_sweep(Network(flows=40, inputs=2, channels=1, buffer=10, channel_bps=0.4e9),
                       [0.4, 0.8, 1.2, 2.0, 4.0], share_bps=10e6)
    points = run_sweep(nets, seeds=[1, 2])           # a local pool, or scheduler="tcp://..."
    fit = fit_curve(points["x"], points["U"], "hyperbola-")
    fit.at(40.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .network import TRUNK, Network, scenario

SHAPES = ("line", "hyperbola-", "hyperbola+")


@dataclass(frozen=True)
class Fit:
    shape: str
    params: tuple[float, ...]        # (a, b) or (a, b, c)
    std_err: float
    corr: float
    points: int

    def at(self, x: float) -> float:
        a, b, *c = self.params
        if self.shape == "line":
            return a + b * x
        return a + b / (x - c[0]) if self.shape == "hyperbola-" else a + b / (x + c[0])

    def formula(self) -> str:
        a, b, *c = self.params
        if self.shape == "line":
            return f"{a:.6g} + {b:.6g} x"
        sign = "-" if self.shape == "hyperbola-" else "+"
        return f"{a:.6g} + {b:.6g}/(x {sign} {c[0]:.6g})"


def _stats(y: np.ndarray, pred: np.ndarray, p: int) -> tuple[float, float]:
    sse = float(((y - pred) ** 2).sum())
    sst = float(((y - y.mean()) ** 2).sum())
    n = len(y)
    std_err = math.sqrt(sse / (n - p)) if n > p else math.nan
    corr = math.sqrt(max(0.0, 1 - sse / sst)) if sst > 0 else math.nan
    return std_err, corr


def fit_curve(x, y, shape: str) -> Fit:
    """Least-squares fit of ``y`` against ``x`` in one of SHAPES. For a hyperbola the pole c
    is found by bounded minimisation of the squared error (for each c the fit is linear in a
    and b); it stays outside the data (c < min x for a + b/(x - c), c > -min x for the other)."""
    from scipy.optimize import minimize_scalar

    if shape not in SHAPES:
        raise ValueError(f"shape: expected one of {', '.join(SHAPES)}, got {shape!r}")
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if shape == "line":
        if len(x) < 2:
            raise ValueError("fit_curve: a line needs at least 2 points")
        b, a = np.polyfit(x, y, 1)
        return Fit(shape, (float(a), float(b)), *_stats(y, a + b * x, 2), len(x))
    if len(x) < 3:
        raise ValueError("fit_curve: a hyperbola needs at least 3 points")
    sign = -1.0 if shape == "hyperbola-" else 1.0

    def linear(c: float):
        g = 1.0 / (x + sign * c)
        A = np.column_stack([np.ones_like(g), g])
        (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
        return a, b, float(((y - A @ np.array([a, b])) ** 2).sum())

    span = float(x.max() - x.min()) or 1.0
    lo_x = float(x.min())
    # The pole sits below the data: c in (min x - 100 span, min x) for x - c; mirrored for x + c.
    if sign < 0:
        bounds = (lo_x - 100 * span, lo_x - 1e-9 * span)
    else:
        bounds = (-lo_x + 1e-9 * span, -lo_x + 100 * span)
    res = minimize_scalar(lambda c: linear(c)[2], bounds=bounds, method="bounded",
                          options={"xatol": 1e-12 * span})
    a, b, _ = linear(res.x)
    pred = a + b / (x + sign * res.x)
    return Fit(shape, (float(a), float(b), float(res.x)), *_stats(y, pred, 3), len(x))


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
