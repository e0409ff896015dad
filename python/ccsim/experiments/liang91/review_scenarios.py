"""Liang 1991 §2.1's and §2.2's reviews of the Source Quench scheme (Nagle 1984) and BBN's
rate-based rations (Robinson, Friedman and Steenstrup 1990) as runs: the thesis reviews them
and simulates nothing, but states their defects plainly enough to check (spec §1.2, "known
defects to reproduce if we simulate it"; §1.3). make_scenarios.py adds these files (sq-*,
bbn-*).

On Class 1's chain (Fig. 5.1: sources at R1, router links 64 kb/s, access links 128 kb/s, no
latency), every router an `sq_router` (a quench to the source of each arrival that finds the
queue half full, and of each drop); the sources are the Source Quench source (`cc = "sq"`: the
advertised window, shut by a quench until 10 ACKs return).
"""

from __future__ import annotations

from .schemes import SEIF_ROUTING_INTERVAL, SEIF_SOURCE

SQ_TIMERS = {"initial_rto": "3s", "min_rto": "200ms"}   # as the other window sources (A14)
CHAIN = [("64kbps", "0s")] * 5
ACCESS = ("128kbps", "0s")


def source_quench(scenario, data: int) -> list[tuple[str, str]]:
    """The sq-* files. `scenario` is make_scenarios.scenario; `data` its data packet size."""
    out = []

    def run(stem, title, notes, flows, *, buffer_packets, scheme="sq", max_window=30, flow_params=None):
        hosts = [(f"s{f['n']}", "r1") for f in flows] + [(f"d{f['n']}", "r6") for f in flows]
        if scheme == "sq":
            routers = {"queue": "sq_router", "buffer": f"{buffer_packets}pkt", "count_in_service": False}
            common = {"cc": "sq", "params": {**SQ_TIMERS, **(flow_params or {})}}
        else:  # SEIF, for the feedback comparison
            # At the quench's threshold, half the buffer: the filter is the difference.
            routers = {"queue": "seif_router", "buffer": f"{buffer_packets * data}B", "count_in_service": False,
                       "queue_params": {"routing_interval": SEIF_ROUTING_INTERVAL, "threshold": 0.5}}
            common = {"cc": "seif", "params": dict(SEIF_SOURCE)}
        specs = [{"name": f"{f['n']} S{f['n']}", "src": f"s{f['n']}", "dst": f"d{f['n']}", "own": f.get("own", {})}
                 for f in flows]
        out.append(scenario(stem, title, notes, hosts=hosts, chain=CHAIN, access={h: ACCESS for h, _ in hosts},
                            flows=specs, routers=routers, flow_common=common, max_window=max_window))

    where = "Class 1's chain (Fig. 5.1), every router an sq_router quenching at half its buffer and on drops."
    for slug, resume, words in (("fixed", "fixed", "the scheme's rule: resume after 10 ACKs"),
                                ("outstanding", "outstanding", "Liang's fix: resume after min(10, outstanding) ACKs")):
        run(f"sq-stall-{slug}", f"§2.1.2, Source Quench: one source with an advertised window of 8, {words}",
            [where, "Buffer 6 packets (a quench at 3 waiting); one FTP source, advertised window 8:",
             "fewer than 10 packets can be outstanding when a quench comes."],
            [{"n": 1}], buffer_packets=6, max_window=8, flow_params={"resume": resume})
    windows = {1: 4, 2: 8, 3: 16}
    run("sq-windows", "§2.1.2, Source Quench with advertised windows 4, 8 and 16",
        [where, "Buffer 30 packets, which the three windows together never overflow; three FTP sources at R1",
         "with advertised (maximum) windows 4, 8 and 16 (28 in all, more than the 15 waiting that start",
         "the quenches). They resume after min(10, outstanding) ACKs: the scheme's 10 would stall the",
         "two below 10."],
        [{"n": n, "own": {"max_window": w}} for n, w in windows.items()], buffer_packets=30,
        flow_params={"resume": "outstanding"})
    for slug, scheme, words in (("sq", "sq", "Source Quench (resume after min(10, outstanding) ACKs)"),
                                ("seif", "seif", "SEIF at the same threshold (half the buffer) with its filter, for the feedback count")):
        run(f"sq-feedback-{slug}", f"§2.1.2, three sources with windows of 30: {words}",
            [where if scheme == "sq" else "Class 1's chain (Fig. 5.1) with SEIF's routers (threshold 50%, filter) and sources.",
             "Buffer 100 packets, which the three windows never overflow (no drop: the feedback is the",
             "difference); three FTP sources at R1, maximum window 30 each."],
            [{"n": n} for n in (1, 2, 3)], buffer_packets=100, scheme=scheme, flow_params={"resume": "outstanding"})
    for slug, nagle in (("plain", False), ("nagle", True)):
        extra = {"app": "telnet", "mean_gap": "20ms", "packet_size": "41B", "max_window": 20}
        if nagle:
            extra["nagle"] = True
        run(f"sq-small-{slug}", f"§2.1.1, the small-packet rule {'on' if nagle else 'off'}: a typist beside an FTP",
            [where, "Buffer 20 packets. Source 1: FTP (512 B, window 20); source 2: Telnet, a byte a keystroke",
             "(41 B packets, 40 of them header), keystrokes 20 ms apart on average, "
             + ("under Nagle's rule (nagle = true)." if nagle else "each sent at once."),
             "Both resume after min(10, outstanding) ACKs (the scheme's 10 would stall the typist)."],
            [{"n": 1, "own": {"max_window": 20}}, {"n": 2, "own": extra}], buffer_packets=20,
            flow_params={"resume": "outstanding"})
    return out


# -- §2.2: BBN's rate-based ration scheme ----------------------------------------------------

# Every router port runs `bbn` (queue/bbn.rs): rations measured and flooded every 10 s (the
# discipline's default), admission per pair of boundary switches at the first router.
BBN_ROUTERS = {"queue": "bbn", "buffer": "20pkt", "count_in_service": False}
BBN_LATE_START = "45s"   # mid-interval: the next flood is 5 s away
# "Too short" an interval (§2.2.2): a few packet times of the 64 kb/s links (512 B take 64 ms),
# so one interval's utilisation counts only a handful of packets. The thesis gives no value.
BBN_SHORT_INTERVAL = "250ms"


def bbn_ration(scenario, data: int, timers: dict) -> list[tuple[str, str]]:
    """The bbn-* files: Class 1's chain with two boundary switches (R1 and R2) sending to R6.
    `timers` are the Slow Start sources' parameters (schemes.SLOW_START)."""
    out = []
    jk = {"cc": "jk", "params": dict(timers)}
    rogue = {"cc": "none", "app": "cbr", "bitrate": "128kbps"}

    def run(stem, title, notes, flows, routers=BBN_ROUTERS):
        hosts = [(f"s{n}", at) for n, at, _ in flows] + [(f"d{n}", "r6") for n, _, _ in flows]
        specs = [{"name": f"{n} S{n}", "src": f"s{n}", "dst": f"d{n}", "own": own if own.get("cc") == "none" else {**jk, **own}}
                 for n, _, own in flows]
        out.append(scenario(stem, title, notes, hosts=hosts, chain=CHAIN, access={h: ACCESS for h, _ in hosts},
                            flows=specs, routers=routers, flow_common={}))

    where = ("Class 1's chain (Fig. 5.1: router links 64 kb/s, access links 128 kb/s, no latency), every "
             "router port running bbn (target 0.9, rations every 10 s), 20-packet buffers; Slow Start sources.")
    run("bbn-pairs", "§2.2.2, BBN's rations: two sources at R1 and one at R2, all to R6",
        [where, "S1 and S2 enter at R1, S3 at R2: two pairs of boundary switches, (R1, R6) and (R2, R6),",
         "share R2-R6. Each pair gets one flow ration, whatever the number of its users."],
        [(1, "r1", {}), (2, "r1", {}), (3, "r2", {})])
    run("bbn-pairs-short", f"§2.2.2, BBN's rations flooded every {BBN_SHORT_INTERVAL}: two sources at R1 and one at R2",
        [where.replace("rations every 10 s", f"rations every {BBN_SHORT_INTERVAL}"),
         "The pairs run with too short an interval: each one measures the line over about four packet times."],
        [(1, "r1", {}), (2, "r1", {}), (3, "r2", {})],
        routers={**BBN_ROUTERS, "queue_params": {"interval": BBN_SHORT_INTERVAL}})
    run("bbn-rogue-apart", "§2.2.2, BBN's rations: an unresponsive host at R1, a Slow Start source at R2",
        [where, "S1 sends 128 kb/s without flow control (cc = \"none\"); S3, at R2, is an ordinary source."],
        [(1, "r1", rogue), (3, "r2", {})])
    run("bbn-rogue-together", "§2.2.2, BBN's rations: an unresponsive host beside an ordinary one at R1",
        [where, "S1 sends 128 kb/s without flow control beside S2 at R1; S3 at R2."],
        [(1, "r1", rogue), (2, "r1", {}), (3, "r2", {})])
    for slug, params in (("late", {}), ("late-1s", {"interval": "1s"})):
        every = "10 s (the default)" if not params else "1 s"
        run(f"bbn-{slug}", f"§2.2.2, BBN's rations flooded every {every}: a source at R2 joins at {BBN_LATE_START}",
            [where.replace("rations every 10 s", f"rations every {every}"),
             f"S1 at R1 runs alone, its pair at the target's ration, until S3 starts at R2 at {BBN_LATE_START}."],
            [(1, "r1", {}), (3, "r2", {"start": BBN_LATE_START})],
            routers={**BBN_ROUTERS, **({"queue_params": params} if params else {})})
    return out
