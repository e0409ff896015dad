"""Rows that Cui chapter 3's cells read beside the flows' (the kit's ``extra_rows`` and
``sweep_rows`` hooks); each has a ``name`` starting with its source number.

Per run (``extra_rows``):
- 900000 "trunk": ``util`` the output trunk's utilisation (busy channel-time over K x time) and
  ``loss`` its loss probability (drops over arrivals), ``log10_loss``, over the measured
  intervals;
- 910000 "arrivals" (runs that trace their sources' access links, E3.1): the gaps
  between successive packet generations of all the sources together, over the run's last 220 000
  gaps (the thesis: "intervals taken from the end of the run"): ``gap_mean`` (s),
  ``gap_var`` (s^2), ``gap_cv`` (sd/mean, 1 for an exponential) and ``gap_spike``, the
  fraction of gaps within 2% of one packet time at the trunk's rate (Fig. 3.3's spike).

The trunk row also gives ``util_min``, the least utilisation of a measured interval (1 when the
link never idled), and, for runs that trace the trunk's queue (S11), ``queue_min``, the
least sampled queue after the warm-up, and ``idle_s``, the time the link idled after it.

Across runs (``sweep_rows``): 990000 "fit at 40 Gb/s", attached to each E3.2 sweep's 10 Gb/s
run, per seed: the thesis's fits of U and log10 P_B against the rate (a line for B = 2, a
hyperbola for B = 10) evaluated at 40 Gb/s: ``util_40``, ``log10_loss_40``, and the fits'
constants and statistics (``u_a``, ``u_b``, ``u_c``, ``u_se``, ``u_r``, and ``p_*`` for log10
P_B).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .extrapolate import trunk_measure
from .families import family_fits
from .network import TRUNK, WIRE_BITS

LAST_GAPS = 220_000
TARGET_GBPS = 40.0
E32 = re.compile(r"^e32-b(\d+)-x([\d.]+)$")


# Row numbers past any flow's (the chapter's networks have at most 400 000 flows).
TRUNK_ROW, ARRIVALS_ROW, FIT_ROW = 900_000, 910_000, 990_000


def extra_rows(res) -> list[dict]:
    rows = [_trunk(res)]
    if res.departures is not None and len(res.departures):
        rows.append(_arrivals(res))
    return [r for r in rows if r]


def sweep_rows(flows) -> list[dict]:
    """Rows across runs: each experiment's function is one line of SWEEP_ROWS."""
    return [row for make in SWEEP_ROWS for row in make(flows)]


def _trunk(res) -> dict:
    if res.port_intervals is None or not len(res.port_intervals):
        return {}
    m = trunk_measure(res)
    pi = res.port_intervals
    used = pi[(pi["port_name"] == TRUNK) & (pi["interval"] >= int(res.run["discard"]))]
    row = {"name": f"{TRUNK_ROW} trunk", "util": m["U"], "loss": m["P_B"],
           "log10_loss": math.log10(m["P_B"]) if m["P_B"] > 0 else math.nan,
           "util_min": float(used["utilisation"].min()) if len(used) else math.nan}
    q = res.queues
    if len(used) and q is not None and len(q) and (q["port_name"] == TRUNK).any():
        # After the warm-up: from the first measured interval's start.
        q = q[(q["port_name"] == TRUNK) & (q["time_s"] >= float(used["start_s"].min()))]
        row["queue_min"] = float(q["packets"].min()) if len(q) else math.nan
        row["idle_s"] = float(((1.0 - used["utilisation"]) * (used["end_s"] - used["start_s"])).sum())
    return row


def _arrivals(res) -> dict:
    d = res.departures
    d = d[d["kind"] == "data"]
    t = np.sort(d["time_s"].to_numpy(float))
    gaps = np.diff(t)[-LAST_GAPS:]
    if len(gaps) < 2:
        return {}
    ports = res.ports.set_index("name")
    packet_time = WIRE_BITS / float(ports.loc[TRUNK, "bandwidth_bps"])
    mean, var = float(gaps.mean()), float(gaps.var())
    return {"name": f"{ARRIVALS_ROW} arrivals", "gap_mean": mean, "gap_var": var, "gap_cv": math.sqrt(var) / mean,
            "gap_spike": float(np.mean(np.abs(gaps - packet_time) <= 0.02 * packet_time))}


def e32_fits(flows) -> list[dict]:
    """The E3.2 fits, one row per sweep and seed (see the module header)."""
    from ccsim.models.cui import fit_extrapolation

    trunk = flows[flows["source"] == TRUNK_ROW]
    points: dict[tuple[int, int], list[tuple[float, float, float, str]]] = {}
    for r in trunk.itertuples():
        m = E32.match(str(r.file))
        if m:
            points.setdefault((int(m.group(1)), int(r.seed)), []).append(
                (float(m.group(2)), float(r.util), float(r.log10_loss), str(r.file)))
    out = []
    for (b, seed), pts in sorted(points.items()):
        pts.sort()
        x = np.array([p[0] for p in pts])
        ok_u = np.isfinite([p[1] for p in pts])
        ok_p = np.isfinite([p[2] for p in pts])
        shape = "line" if b <= 2 else "hyperbola"
        row = {"file": pts[-1][3], "seed": seed, "name": f"{FIT_ROW} B = {b} fit at 40 Gb/s"}
        for key, vals, ok in (("u", [p[1] for p in pts], ok_u), ("p", [p[2] for p in pts], ok_p)):
            need = 3 if shape == "line" else 4
            if ok.sum() < need:
                continue
            fit = fit_extrapolation(x[ok], np.asarray(vals)[ok], shape=shape, target=TARGET_GBPS)
            row[{"u": "util_40", "p": "log10_loss_40"}[key]] = fit.value
            for name, v in zip("abc", fit.params):
                row[f"{key}_{name}"] = v
            row[f"{key}_se"], row[f"{key}_r"] = fit.std_error, fit.corr
        out.append(row)
    return out


def e39_min_buffers(flows) -> list[dict]:
    """E3.9's smallest buffers (single_rows.py), one row per N and seed."""
    from .single_rows import e39_rows

    return e39_rows(flows)


def e34_rows(flows) -> list[dict]:
    """E3.4's trunk throughput (links.py), one row per run."""
    from .links import e34_throughput

    return e34_throughput(flows)


SWEEP_ROWS = [e32_fits, family_fits, e39_min_buffers, e34_rows]
