"""Rows that Hua 2002's cells read beside the flows' (the kit's ``Thesis.extra_rows`` hook):
each is a dict with a ``name`` starting with a source number, as the flows table's rows.

- 901, 902, ...: the mean queue (packets) of each gateway's output onto its 2 Mb/s link over
  the measured intervals (Fig. 3.5), field ``queue_pkts``;
- 990 and 991: the fluid model's per-flow throughput (:func:`ccsim.models.hua02.
  parking_lot_fluid`) for connection 0 and a cross connection of the run, field
  ``goodput_bps`` (read as the metric ``throughput``, kb/s, like the flows).
"""

from __future__ import annotations

from ccsim.models.hua02 import parking_lot_fluid

from .make_scenarios import A_0, D_G, T_TX, WINDOW

GATEWAY_BPS = 2e6
ACK_TX_MS = 40 * 8 / 2e6 * 1e3     # a 40 B ACK on a 2 Mb/s link
ACCESS_TX_MS = 1000 * 8 / 10e6 * 1e3


def extra_rows(res) -> list[dict]:
    rows = []
    name = res.run["name"]
    if name.startswith("hua02-e3"):
        rows += _gateway_queues(res)
        rows += _fluid(res)
    return rows


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
