"""Rows that Cui chapter 4's cells read beside the flows' (the kit's ``extra_rows`` hook): one
row per run, "900000 bottleneck", with

- ``queue_<w>``: the bottleneck's (r1 -> r2) time-averaged queue in packets over each window
  ``w`` that :data:`QUEUE_WINDOWS` lists for the run (from ``port_intervals``: the windows are
  made of whole measurement intervals; from the traced queue for a run without them);
- ``old_new`` (E4.2): the mean goodput of the flows that were there first over the newcomer's
  (the last flow), over the run's last E42_TAIL seconds;
- ``jain_<w>``: Jain's index of the flows' goodput over each window of :data:`JAIN_WINDOWS`, and
  ``jain_<w>_min20`` the least of it over the window's 20 s stretches;
- ``queue_peak_ratio``: the largest traced queue over the mean one, from 5 s on (EB4's spikes);
- ``qdelay_end`` (Table 4.1's runs): the queueing delay p, the time-averaged queue over the
  run's last measurement interval divided by the line's T41_C packets/s.
"""

from __future__ import annotations

import math

import numpy as np

from .make_scenarios import E41_STARTS, E42_TAIL, T41_C

BOTTLENECK = "r1->r2"
BOTTLENECK_ROW = 900_000

# Run name -> window name -> [start, end) s.
_EB1 = {"n1": (12, 20), "n2": (32, 40), "n3": (52, 60), "left2": (72, 80), "left1": (92, 100)}
QUEUE_WINDOWS = {"cui-eb1-fast": _EB1, "cui-fast-eb3": _EB1}
# E4.1: the last measurement interval (5 s) before the next arrival (E41_STARTS: ten starts and
# the end); cells read the rates over the same windows (the reference's phases).
QUEUE_WINDOWS.update({f"cui-fast-e41-{v}": {f"n{k}": (t[k] - 5, t[k]) for k in range(1, 11)}
                      for v, t in E41_STARTS.items()})
JAIN_WINDOWS = {"cui-fast-e44": {"late": (40, 100)}, "cui-fast-eb5": {"three": (40, 160)}}
T41_PREFIX = "cui-fast-t41-"


def extra_rows(res) -> list[dict]:
    name = res.run["name"]
    row: dict = {}
    pi = res.port_intervals
    pi = pi[pi["port_name"] == BOTTLENECK] if pi is not None and len(pi) else None
    q = res.queues
    q = q[q["port_name"] == BOTTLENECK] if q is not None and len(q) else None
    for w, (lo, hi) in QUEUE_WINDOWS.get(name, {}).items():
        if pi is not None:   # time-averaged over whole measurement intervals
            inside = pi[(pi["start_s"] >= lo - 1e-9) & (pi["end_s"] <= hi + 1e-9)]["mean_queue_packets"]
        elif q is not None:  # runs without port statistics (EB1, the shipped example): the trace
            inside = q[(q["time_s"] >= lo) & (q["time_s"] < hi)]["packets"]
        else:
            continue
        row[f"queue_{w}"] = float(inside.mean()) if len(inside) else math.nan
    iv = res.intervals
    for w, (lo, hi) in JAIN_WINDOWS.get(name, {}).items():
        row[f"jain_{w}"] = _jain(_rates(iv, lo, hi))
        # The least over its 20 s stretches: a flow that holds most of the line for a while.
        row[f"jain_{w}_min20"] = min((_jain(_rates(iv, t, t + 20)) for t in np.arange(lo, hi - 19.999, 20)),
                                     default=math.nan)
    if name.startswith("cui-fast-e42"):
        end = float(iv["end_s"].max())
        x = _rates(iv, end - E42_TAIL, end)
        row["old_new"] = float(x[:-1].mean() / x[-1]) if len(x) > 1 and x[-1] > 0 else math.nan
    if name.startswith(T41_PREFIX) and pi is not None and len(pi):
        last = pi[pi["end_s"] == pi["end_s"].max()]["mean_queue_packets"]
        row["qdelay_end"] = float(last.mean()) / T41_C
    if name.startswith("cui-fast-eb4") and res.queues is not None and len(res.queues):
        q = res.queues[(res.queues["port_name"] == BOTTLENECK) & (res.queues["time_s"] >= 5)]["packets"]
        row["queue_peak_ratio"] = float(q.max() / q.mean()) if len(q) and q.mean() > 0 else math.nan
    return [{"name": f"{BOTTLENECK_ROW} bottleneck", **row}] if row else []


def _jain(x: np.ndarray) -> float:
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if len(x) and (x > 0).any() else math.nan


def _rates(iv, lo: float, hi: float) -> np.ndarray:
    """Each flow's mean goodput (packets/s) over the intervals inside [lo, hi), flows in order."""
    inside = iv[(iv["start_s"] >= lo - 1e-9) & (iv["end_s"] <= hi + 1e-9)]
    return inside.groupby("flow", sort=True)["goodput_pps"].mean().to_numpy(float)
