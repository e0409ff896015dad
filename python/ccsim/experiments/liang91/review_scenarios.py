"""Liang 1991 §2.1's review of the Source Quench scheme (Nagle 1984) as runs: the thesis
reviews it and simulates nothing, but states its defects plainly enough to check (spec §1.2,
"known defects to reproduce if we simulate it"). make_scenarios.py adds these files (sq-*).

On Class 1's chain (Fig. 5.1: sources at R1, router links 64 kb/s, access links 128 kb/s, no
latency), every router an `sq_router` (a quench to the source of each arrival that finds the
queue half full, and of each drop); the sources are the Source Quench source (`cc = "sq"`: the
advertised window, shut by a quench until 10 ACKs return).
"""

from __future__ import annotations

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
                       "queue_params": {"routing_interval": "10s", "threshold": 0.5}}
            common = {"cc": "seif"}
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
