"""Liang 1991's schemes as scenario settings: each scheme's sources (algorithm and parameters)
and routers (discipline, buffer), with the readings of what the thesis leaves open. Used by
make_scenarios.py and review_scenarios.py."""

from __future__ import annotations

# Timers of the Tri-S sources (A14: REAL's constants are unknown): Jacobson's estimator with
# k = 4, a fine clock, 3 s before the first sample, a 200 ms floor; the SEIF source's defaults
# are the same. The Slow Start sources take Keshav's k = 2 and a 1 s floor (SLOW_START below);
# measured 2026-11-27 (20 seeds), giving SEIF and Tri-S that timer too costs 9 cells and 2 hard
# checks (369 of 478, 46 of 51), Tri-S alone 1 cell (377).
TIMERS = {"rto_k": 4.0, "initial_rto": "3s", "min_rto": "200ms"}
# The Slow Start sources (REAL's JK): Keshav 1991's account of its timer (srtt + 2 x mean
# deviation) with the JK source's 1 s floor, and losses found by the timeout only, as Liang
# reviews the scheme (§2.3.2: "Timeout is the only signal for packet loss"); measured in the
# header of findings/class1.toml.
SLOW_START = {**TIMERS, "rto_k": 2.0, "min_rto": "1s", "fast_retransmit": False}
# The Slow Start and Tri-S routers' drop policy, which the thesis does not state (§1.1, A13):
# "droptail" (the spec's reading, REAL's stock fcfs_router) or "random_drop" (Random Drop with
# the size rule, as SEIF's routers: §1.1.4 adopts it "in our scheme"). Random Drop fits the
# thesis's Slow Start and Tri-S numbers better (the header of findings/class1.toml). The DEC
# routers never overflow here, so their `victim` (decbit's) is left at drop-tail.
BASELINE_QUEUE = "random_drop"

# Two rules the thesis leaves open, read together (findings routing-interval and
# seif-window-lock): the source tables are not emptied within a run (A4's routing interval,
# not given, taken longer than any run: a table reset just before a threshold crossing left a
# source without the feedback the others got, and the two then stayed a packet apart), and a
# cut keeps the ACKs counted towards the next +1 (so the source that was about to grow still
# does, and two windows cut together meet again).
SEIF_ROUTING_INTERVAL = "1000s"
SEIF_SOURCE = {"cut_count": "keep"}


def scheme(name: str, buffer_bytes: int, data: int, **seif_queue) -> tuple[dict, dict]:
    """(flow settings, router settings) of a scheme. SEIF's routers count bytes (§3.2, BOBM);
    the baselines' routers count packet slots, buffer bytes / data size
    (A13). `seif_queue` adds SEIF router parameters."""
    slots = f"{buffer_bytes // data}pkt"
    # REAL's buffers hold waiting packets: the one on the line takes no room (the reading that
    # fits Tables 4.1, 4.5 and 4.6; measured in the header of findings/ch4.toml). The SEIF
    # router's threshold is then on the waiting bytes too, where A17 counts the packet in
    # transmission.
    held = {"count_in_service": False}
    if name == "seif":
        return {"cc": "seif", "params": dict(SEIF_SOURCE)}, {"queue": "seif_router", "buffer": f"{buffer_bytes}B", **held,
                                                             "queue_params": {"routing_interval": SEIF_ROUTING_INTERVAL,
                                                                              **seif_queue}}
    if name == "ss":
        return {"cc": "jk", "params": dict(SLOW_START)}, {"queue": BASELINE_QUEUE, "buffer": slots, **held}
    if name == "dec":
        # Selective DECbit (Keshav 1991's gateway, in the same simulator; A13 reads plain, the
        # header of findings/class1.toml measures it) without panic mode. ACKs count in the
        # average (Liang §2.4.2: "when the average queue length is calculated, acknowledgements
        # are treated the same as data packets") and are not marked themselves (the spec's §1.5
        # marks them; measured in the same header).
        # The source sends round(W) packets of its real-valued window (A15 not stated; the
        # header of findings/class1.toml measures floor, the spec's reading, against it).
        return ({"cc": "dec", "params": {"initial_rto": "3s", "min_rto": "200ms", "window_rounding": "round"}},
                {"queue": "decbit", "buffer": slots, **held, "queue_params": {"panic": False}})
    if name == "tris":
        # §2.5: the decrease state is entered "when timeout occurs"; no fast retransmission
        # (finding tris-reading measures it).
        return ({"cc": "tris", "params": {**TIMERS, "fast_retransmit": False}},
                {"queue": BASELINE_QUEUE, "buffer": slots, **held})
    raise ValueError(name)


def with_params(flow_common: dict, params: dict) -> dict:
    """`flow_common` with `params` merged into its transport parameters (none added if empty)."""
    if not params:
        return flow_common
    return {**flow_common, "params": {**flow_common.get("params", {}), **params}}
