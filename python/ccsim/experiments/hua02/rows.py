"""Rows that Hua 2002's cells read beside the flows' (the kit's ``Thesis.extra_rows`` hook):
each is a dict with a ``name`` starting with a source number, as the flows table's rows.

- 901, 902, ...: the mean queue (packets) of each gateway's output onto its 2 Mb/s link over
  the measured intervals (Fig. 3.5), field ``queue_pkts``;
- 990 and 991: the fluid model's per-flow throughput (:func:`ccsim.models.hua02.
  parking_lot_fluid`) for connection 0 and a cross connection of the run, field
  ``goodput_bps`` (read as the metric ``throughput``, kb/s, like the flows);
- 801, 802, ...: chapter 5's class c's mean queueing delay at the scheduler in p-units (mean
  packet transmission times), field ``delay_p``;
- 812, 823, ...: the delay ratio of classes i and i + 1 (the lower over the higher): field
  ``ratio`` the ratio of long-run means (Tables 5.1, 5.2, Fig. 5.5; spec A-S7),
  ``ratio_win_k<K>`` the mean of the ratios in windows of K departures, and
  ``ratio_p<NN>_k<K>`` their percentiles (Fig. 5.4: 5, 25, 50, 75, 95; K = 500, 1000, 5000,
  10000), ``ratio_frac_gt1_k500`` the fraction of 500-departure windows in which the lower
  class waited longer (Fig. 5.3's order);
- 950, 951, 961...: chapter 4's (``jcc_rows.py``).
"""

from __future__ import annotations

import numpy as np

from ccsim.models.hua02 import parking_lot_fluid

from .jcc_rows import jcc_rows
from .make_scenarios import A_0, D_G, E5_WARMUP, LINK_BPS, MEAN_SIZE, T_TX, WINDOW

WINDOWS_K = (500, 1000, 5000, 10000)
PERCENTILES = (5, 25, 50, 75, 95)

GATEWAY_BPS = 2e6
ACK_TX_MS = 40 * 8 / 2e6 * 1e3     # a 40 B ACK on a 2 Mb/s link
ACCESS_TX_MS = 1000 * 8 / 10e6 * 1e3


def extra_rows(res) -> list[dict]:
    rows = []
    name = res.run["name"]
    if name.startswith("hua02-e3"):
        rows += _gateway_queues(res)
        rows += _fluid(res)
    if name.startswith("hua02-e46"):
        rows += _gateway_queues(res)
    elif name.startswith("hua02-e4"):
        rows += jcc_rows(res)
    if name.startswith("hua02-e5"):
        rows += _class_delays(res)
    return rows


def _class_delays(res) -> list[dict]:
    d = res.departures
    if d is None or not len(d):
        return []
    d = d[(d["kind"] == "data") & (d["time_s"] >= E5_WARMUP)]
    p_unit = MEAN_SIZE * 8 / LINK_BPS
    cls = d["class"].to_numpy(np.int64)
    wait = d["wait_s"].to_numpy(float) / p_unit
    n = int(cls.max()) + 1 if len(cls) else 0
    rows = []
    means = []
    for c in range(n):
        w = wait[cls == c]
        means.append(float(w.mean()) if len(w) else np.nan)
        rows.append({"name": f"{801 + c} class{c + 1} delay", "delay_p": means[-1]})
    for c in range(n - 1):
        row = {"name": f"8{c + 1}{c + 2} class{c + 1}/class{c + 2}", "ratio": means[c] / means[c + 1]}
        for k in WINDOWS_K:
            r = window_ratios(cls, wait, c, c + 1, k)
            if k == 500:
                row["ratio_frac_gt1_k500"] = float(np.mean(r > 1.0)) if len(r) else np.nan
            row[f"ratio_win_k{k}"] = float(np.mean(r)) if len(r) else np.nan
            for q in PERCENTILES:
                row[f"ratio_p{q:02d}_k{k}"] = float(np.percentile(r, q)) if len(r) else np.nan
        rows.append(row)
    return rows


def window_ratios(cls: np.ndarray, wait: np.ndarray, lo: int, hi: int, k: int) -> np.ndarray:
    """The ratios mean wait(lo) / mean wait(hi) in consecutive windows of k departures (all
    classes counted), windows without a departure of either class skipped (spec §3.3)."""
    m = len(cls) // k * k
    if m == 0:
        return np.empty(0)
    c, w = cls[:m].reshape(-1, k), wait[:m].reshape(-1, k)

    def means(x):
        sel = c == x
        cnt = sel.sum(axis=1)
        tot = np.where(sel, w, 0.0).sum(axis=1)
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan), cnt

    a, na = means(lo)
    b, nb = means(hi)
    ok = (na > 0) & (nb > 0) & (b > 0)
    return a[ok] / b[ok]


def _gateway_queues(res) -> list[dict]:
    pi = res.port_intervals
    if pi is None or not len(pi):
        return []
    used = pi[pi["interval"] >= res.run["discard"]]
    out = []
    for name, g in used.groupby("port_name", sort=False):
        k = int(name.split("->")[0].lstrip("g"))       # "g3->g4" is gateway 3's output
        out.append({"name": f"{900 + k} {name} queue", "queue_pkts": float(g["mean_queue_packets"].mean())})
    return out


def _fluid(res) -> list[dict]:
    conns: dict[int, int] = {}
    for n in res.flows["name"]:
        src = int(str(n).split()[0])
        conns[src // 100] = conns.get(src // 100, 0) + 1
    if 0 not in conns:
        return []
    links = len(res.port_intervals["port_name"].unique()) if res.port_intervals is not None else 0
    cross = [c for c in conns if c > 0]
    if not cross or not links:
        return []
    # Connection 0's base RTT (every connection's: the access links are padded to it):
    # data out over its access links and the gateway links, the ACK back.
    rtt_ms = 2 * (2 * A_0 + links * D_G) + links * (T_TX + ACK_TX_MS) + 2 * ACCESS_TX_MS
    cap = WINDOW * 1000 * 8 / (rtt_ms / 1e3)
    x0, xc = parking_lot_fluid(GATEWAY_BPS, len(cross), conns[0], conns[cross[0]], cap)
    return [{"name": "990 fluid c0", "goodput_bps": x0}, {"name": "991 fluid cross", "goodput_bps": xc}]
