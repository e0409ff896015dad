"""Hua 2002, "Congestion Control and QoS Provisioning in IP Networks": the analysis of
chapter 3 as functions (the chapter 4-5 models are further down this module).

Chapter 3 (thesis §3.3, eqs 3.1-3.13; spec ``hua02-vegas-jcc-swtp.md`` §2):

- :func:`vegas_delta` and :func:`vegas_backlog_delay`: Vegas's estimate of its own queued
  packets (3.3) and the identity (3.9) that ties it to the path's queues,
  sum n_i tau_i = Delta/(W - Delta) x d~;
- :func:`parking_lot_fluid`: the fluid equilibrium of Vegas flows on the parking lot (spec
  §2.3; the thesis gives no formula): every flow holding the same number of packets queued
  makes the allocation weighted proportionally fair, and a flow can send no faster than its
  window over the base RTT (ns-2's 20-packet window), which gives the thesis's parity at
  light load.

Units: rates in bit/s, times in seconds, windows and backlogs in packets.
"""

from __future__ import annotations

import math


def vegas_delta(window: float, base_rtt: float, rtt: float) -> float:
    """Eq. (3.3): Delta = (W/baseRTT - W/RTT) x baseRTT, the packets the flow has queued."""
    return (window / base_rtt - window / rtt) * base_rtt


def vegas_backlog_delay(window: float, delta: float, base_rtt: float) -> float:
    """Eq. (3.9): the path's total queueing delay sum n_i tau_i (seconds) that a Vegas flow
    with window W and estimate Delta sees, when its base RTT is d~ (3.7)."""
    if window <= delta:
        return math.inf
    return delta / (window - delta) * base_rtt


def parking_lot_fluid(capacity_bps: float, congested: int, flows0: int, flows_cross: int,
                      cap_bps: float = math.inf) -> tuple[float, float]:
    """Per-flow rates (x0, xc) in bit/s of connection 0 and of a cross connection on the
    parking lot: connection 0's `flows0` flows cross `congested` equally loaded links, each
    also carrying one cross connection of `flows_cross` flows; no flow sends faster than
    `cap_bps` (its window over the base RTT).

    Every flow holding the same number of packets queued (spec §2.3) makes the allocation
    weighted proportionally fair: a cross flow's rate is r and connection 0's r/congested,
    each capped, with r such that flows0 x0 + flows_cross xc fills the link (found by
    bisection); if the caps cannot fill it there is no queue and every flow runs at its cap.
    Connection 0's uncongested hops add nothing. Example (E3.1): 10 + 10 flows, n congested
    links at 2 Mb/s: x0 = 200/(n + 1) kb/s, xc = 200 n/(n + 1) kb/s."""
    if congested < 1 or flows_cross < 0 or flows0 < 0:
        raise ValueError("need at least one congested link and non-negative flow counts")

    def rates(r):
        return min(cap_bps, r / congested), min(cap_bps, r)

    def load(r):
        x0, xc = rates(r)
        return flows0 * x0 + flows_cross * xc

    top = capacity_bps * congested + 1.0
    if load(math.inf) <= capacity_bps:      # the windows cannot fill the link: no queue
        return rates(math.inf)
    lo, hi = 0.0, top
    while load(hi) < capacity_bps:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if load(mid) > capacity_bps:
            hi = mid
        else:
            lo = mid
    return rates(lo)
