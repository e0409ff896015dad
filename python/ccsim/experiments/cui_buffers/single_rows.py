"""E3.9's cross-run rows (thesis §3.8.2, Figs 3.52-3.55): per N, the smallest simulated buffer
reaching each target utilisation, beside the rules the figures compare it with.

The thesis: "for each N value, we run many simulations, each for a different value of buffer
size (B), and we find the minimal values of B such that the bottleneck utilizations are no
less than 75%, 95%, 99% and 99.9%". Two readings of "minimal", both computed over the grid of
simulated B (make_scenarios.e39_buffers: the grid and (3.27)'s values):

- ``b75``, ``b95``, ``b99``, ``b999`` (the one the cells judge): the smallest simulated B from
  which *every* larger simulated B reaches the target. The utilisation is not monotone in B at
  a few packets (paced flows at N = 10: 85.5 % at B = 5, 81.9 % at B = 8), and a sizing rule
  claims the target for the buffers above it;
- ``first75`` ... ``first999``: the smallest simulated B that reaches it (the literal reading).

Either is ``inf`` when no simulated B reaches the target (the grid ends at 8 BDP = 3200).

Beside them, the rules at the run's N (µ = 4000 packets/s, K = 1): ``rule75`` ... (3.27)
:func:`ccsim.models.cui.single_link_buffer` and ``ologw75`` O(log W) (undefined from 95 %) at
the simulated flows' harmonic-mean RTT (``rtt_h``; make_scenarios.e39_rtt_harmonic: 91.1 ms for
RTTs over 50-150 ms, 100 ms when they are equal), ``app75`` ... (3.26) Appenzeller at the
arithmetic mean RTT (100 ms); ``two_n`` Gorinsky's 2M with M = N;
and the ratios the checks read: ``sim_over_rule_*`` (simulated over (3.27)),
``app_over_rule_*``, ``ologw_over_rule_75``, ``two_n_over_rule_*``, ``rule_over_sim_*``.

One row per (N, seed), ``"991000 E3.9 minimum buffers"``, attached to that N's run with
B = ROW_AT_B (2 BDP), where the reference's cells read it (every --quick list has it too). If
that run did not run the row goes to the largest B that did, which no cell reads, so that N's
cells come out NOT RUN, as they do when none of its runs ran.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np

from .rows import TRUNK_ROW

MIN_B_ROW = 991_000
E39 = re.compile(r"^e39-n(\d+)-b(\d+)$")
TARGETS = {"75": 0.75, "95": 0.95, "99": 0.99, "999": 0.999}
MU, RTT = 4000.0, 0.100          # packets/s; the arithmetic mean RTT, s
ROW_AT_B = 800


def smallest_buffer(buffers: Sequence[float], utils: Sequence[float], target: float,
                    stable: bool = True) -> float:
    """The smallest of ``buffers`` whose utilisation reaches ``target``; with ``stable``, the
    smallest from which every larger one does too. ``inf`` if none; NaN utilisations count
    as not reaching it."""
    order = np.argsort(np.asarray(buffers, float))
    b = np.asarray(buffers, float)[order]
    ok = np.nan_to_num(np.asarray(utils, float)[order], nan=-1.0) >= target
    if not ok.any():
        return math.inf
    if not stable:
        return float(b[np.argmax(ok)])
    if not ok[-1]:
        return math.inf
    last_miss = np.flatnonzero(~ok)
    return float(b[last_miss[-1] + 1]) if len(last_miss) else float(b[0])


def rule_values(n: int, rtt_h: float | None = None) -> dict[str, float]:
    """The rules of Figs 3.52-3.55 at N flows, and their ratios to (3.27); ``rtt_h`` defaults to
    that of E3.9's files."""
    from ccsim.models import cui

    if rtt_h is None:
        from .make_scenarios import e39_rtt_harmonic
        rtt_h = e39_rtt_harmonic(n)
    out: dict[str, float] = {"two_n": cui.gorinsky_buffer(n), "rtt_h": rtt_h}
    for key, u in TARGETS.items():
        rule = float(cui.single_link_buffer(MU, u, n, rtt_h))
        app = cui.appenzeller_buffer(u, n, 1, MU, RTT)
        out[f"rule{key}"], out[f"app{key}"] = rule, app
        out[f"app_over_rule_{key}"] = app / rule if rule else math.inf
        out[f"two_n_over_rule_{key}"] = out["two_n"] / rule if rule else math.inf
    out["ologw75"] = cui.olog_w_buffer(0.75, n, 1, MU, rtt_h)
    out["ologw_over_rule_75"] = out["ologw75"] / out["rule75"]
    return out


def e39_rows(flows) -> list[dict]:
    trunk = flows[flows["source"] == TRUNK_ROW]
    points: dict[tuple[int, int], list[tuple[int, float, str]]] = {}
    for r in trunk.itertuples():
        m = E39.match(str(r.file))
        if m:
            points.setdefault((int(m.group(1)), int(r.seed)), []).append((int(m.group(2)), float(r.util), str(r.file)))
    out = []
    for (n, seed), pts in sorted(points.items()):
        pts.sort()
        bs, us = [p[0] for p in pts], [p[1] for p in pts]
        anchor = next((p for p in pts if p[0] == ROW_AT_B), pts[-1])
        row = {"file": anchor[2], "seed": seed, "name": f"{MIN_B_ROW} E3.9 minimum buffers", "flows_n": n,
               "points": len(pts), **rule_values(n)}
        for key, u in TARGETS.items():
            sim = smallest_buffer(bs, us, u)
            row[f"b{key}"], row[f"first{key}"] = sim, smallest_buffer(bs, us, u, stable=False)
            rule = row[f"rule{key}"]
            row[f"sim_over_rule_{key}"] = sim / rule if rule else math.inf
            row[f"rule_over_sim_{key}"] = rule / sim if sim else math.inf
        out.append(row)
    return out
