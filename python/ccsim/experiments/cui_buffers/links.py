"""Cui chapter 3 §3.4.1-3.4.2: faster links (E3.4, Figs 3.12-3.13) and regular against paced
NewReno behind access links of every speed (E3.5, Fig. 3.14), as networks of network.py.

E3.4, the thesis: M = 80 input links (4 input trunks of 20), K = 20 output links, 20 000 flows,
the per-link rate from 1 to 128 Gb/s (spec §5.1 [R]: powers of two), access 100 Mb/s a flow,
paced NewReno ("the above simulations are all based on paced TCP NewReno", §3.4.2), buffer
not stated (spec [R]: B = 0). The largest case, 2.56 Tb/s, the thesis reached by extrapolation.
Here N and the link rates are divided by one factor, SCALE = 50: N = 400 flows on links of
x/50 Gb/s (20 Mb/s to 2.56 Gb/s) for x = 1..128. That keeps what drives the claim: each
flow's share of the trunk, 1 to 128 Mb/s, and with it each flow's window, its access rate (the
flows outgrow their 100 Mb/s access links at the top) and M, K, B; it is the thesis's own
scaling argument (§3.3: U depends on RTT_H C_O / N, not on C_O and N apart). Of the factors
that give every input link the same whole number of flows (25, 50, 125, 250), 50 is the
largest that leaves the runs where the closed loop puts them: at 125 (2 flows an input link,
N = 160) the utilisation at x = 2 was 0.686 against 0.598 at both 50 and 25 (the closed loop:
0.597). The x = 128 run (51 Gb/s through the trunk, 2 M packets/s) takes about a minute.

E3.5, the thesis: core links of 1 Gb/s, 400 flows, several (M, K, B) (the legend's values are
lost; spec [R]: (8,1,10), (16,2,5), (80,20,0)), paced and regular NewReno against the access
rate (spec [R]: 10 Mb/s to 2 Gb/s, a log axis). Run in full: nothing is scaled but the
durations, which are as short as the runs settle in (E35_TIME). The (80, 20, 0) runs carry up to
9 Gb/s each and take most of the sweep's six CPU minutes; without them it would be one.

Where the thesis is silent (both experiments): the RTTs are network.py's (60-180 ms, evenly
spread); each host sends into its access link through a drop-tail queue of
network.HOST_QUEUE packets (1000: the thesis's "large" buffers at the edge; ns-2's default
`limit_` of 50 is the other reading, findings e34-top-access-limited and e35-*). The
chapter's other experiments leave it unlimited, but here the access link becomes a flow's bottleneck (E3.4 at the top,
E3.5 at low access rates) and an unlimited queue would let the window grow without end (a run
at x = 128 stopped after 8.8 s holding 8.4 M packets).
"""

from __future__ import annotations

from dataclasses import replace

from . import network as _network
from .network import Network, scenario

SCALE = 50                                   # E3.4: N and the link rates divided by this
E34_RATES = (1, 2, 4, 8, 16, 32, 64, 128)    # Gb/s a link, the thesis's scale
E34_FULL = Network(flows=20_000, inputs=80, channels=20, buffer=0, channel_bps=1e9)
E35_SWITCHES = ((8, 1, 10), (16, 2, 5), (80, 20, 0))
E35_ACCESS = (10, 30, 100, 300, 1000, 2000)   # Mb/s: a log axis, 1-3-10 steps
E35_CORE = 1e9
# E3.5's (duration, warm-up) in s by switch and pacing, each run measuring its last 5 s
# intervals (from 60 s runs' 5 s intervals): paced runs settle within 5 s. Regular ones behind
# the bufferless (80, 20, 0) settled slowly with ns-2's 50-packet host queues: their slow starts
# ended early there (the trunk loses nothing in the first 20 s), then grew a packet a round trip
# for 30 s (at 100 Mb/s access the utilisation by 5 s interval: 0.04, 0.09, 0.17, 0.24, 0.32,
# 0.39, 0.42, 0.44, 0.42, ...), hence their 40 s. With HOST_QUEUE's 1000 packets they settle by
# 15 s (0.52, 0.48, 0.44, 0.45, 0.44, 0.43, ...), so the 40 s are now more than they need.
E35_TIME = {(8, 1, 10): {True: (20.0, 10.0), False: (20.0, 10.0)},
            (16, 2, 5): {True: (20.0, 10.0), False: (20.0, 10.0)},
            (80, 20, 0): {True: (15.0, 10.0), False: (40.0, 30.0)}}
# The few files shipped in the wheel (the rest are built when a run needs them).
SHIPPED = ("e34-x1", "e34-x128", "e35-m8k1b10-paced-a100", "e35-m8k1b10-regular-a100")


def e34_stem(x: float) -> str:
    return f"e34-x{x:g}"


def e35_stem(m: int, k: int, b: int, paced: bool, access_mbps: float) -> str:
    return f"e35-m{m}k{k}b{b}-{'paced' if paced else 'regular'}-a{access_mbps:g}"


def e35_curve(m: int, k: int, b: int, paced: bool) -> str:
    return f"M = {m}, K = {k}, B = {b}, {'paced' if paced else 'regular'}"


def e34_network(x: float, transport: dict) -> Network:
    """E3.4 at the thesis's per-link rate ``x`` Gb/s, scaled down by SCALE."""
    return replace(E34_FULL, flows=E34_FULL.flows // SCALE, channel_bps=x * 1e9 / SCALE, duration=25.0,
                   warmup=10.0, interval=5.0, transport=transport, access_buffer=_network.HOST_QUEUE)


def e35_network(m: int, k: int, b: int, paced: bool, access_mbps: float, transport: dict) -> Network:
    duration, warmup = E35_TIME[(m, k, b)][paced]
    return Network(flows=400, inputs=m, channels=k, buffer=b, channel_bps=E35_CORE, access_bps=access_mbps * 1e6,
                   paced=paced, duration=duration, warmup=warmup, interval=5.0, transport=transport,
                   access_buffer=_network.HOST_QUEUE)


def notes(net: Network, extra: list[str]) -> list[str]:
    kind = "paced" if net.paced else "regular (ACK-clocked, not paced)"
    return extra + [
        f"{net.flows} {kind} NewReno flows (ns-2's, unlimited window) on {net.access_bps / 1e6:g} Mb/s access links, each",
        f"fed by its host through a {_network.HOST_QUEUE}-packet drop-tail queue (the thesis's \"large\" buffers), into",
        f"M = {net.inputs} edge routers (unlimited buffers), one {net.channel_bps / 1e6:g} Mb/s input link each into the switch;",
        f"the output trunk has K = {net.channels} channel(s) of {net.channel_bps / 1e6:g} Mb/s and B = {net.buffer} shared buffer",
        f"slots. Round-trip propagation delays spread evenly over {net.rtt_min * 1e3:g}-{net.rtt_max * 1e3:g} ms; 1000 B payload",
        f"+ 40 B header. {net.duration:g} s, the first {net.warmup:g} s not measured.",
    ]


def e34(transport: dict) -> list[tuple[str, str, list[str], dict]]:
    """(stem, title, header notes, scenario body) of every E3.4 run."""
    out = []
    for x in E34_RATES:
        net = e34_network(x, transport)
        stem = e34_stem(x)
        body = scenario(net, f"cui-{stem}", f"Cui ch. 3 §3.4.1, Figs 3.12-3.13: {x:g} Gb/s a link, scaled down {SCALE}x")
        share = net.channels * net.channel_bps / net.flows
        out.append((stem, f"§3.4.1, Figs 3.12-3.13: faster links, {x:g} Gb/s a link scaled down {SCALE}x",
                    notes(net, [f"The thesis: M = 80, K = 20, N = 20 000, {x:g} Gb/s a link (buffer not stated: B = 0, spec [R]).",
                     f"Here N and the link rate divided by {SCALE}: {net.flows} flows on {net.channel_bps / 1e6:g} Mb/s links, the",
                     f"same {share / 1e6:g} Mb/s share a flow (the thesis's scaling argument, §3.3); utilisation",
                     f"carries over, throughput is {SCALE}x the simulated one."]), body))
    return out


def e35(transport: dict) -> list[tuple[str, str, list[str], dict]]:
    """(stem, title, header notes, scenario body) of every E3.5 run."""
    out = []
    for m, k, b in E35_SWITCHES:
        for paced in (True, False):
            for a in E35_ACCESS:
                net = e35_network(m, k, b, paced, a, transport)
                stem = e35_stem(m, k, b, paced, a)
                kind = "paced" if paced else "regular"
                body = scenario(net, f"cui-{stem}", f"Cui ch. 3 §3.4.2, Fig. 3.14: (M, K, B) = ({m}, {k}, {b}), "
                                                    f"{kind}, access {a:g} Mb/s")
                out.append((stem, f"§3.4.2, Fig. 3.14: {kind} NewReno, (M, K, B) = ({m}, {k}, {b}), access {a:g} Mb/s",
                            notes(net, ["The thesis: core links of 1 Gb/s, 400 flows, paced and regular NewReno against the",
                             "access rate; the (M, K, B) of its legend are lost (spec §5.1 [R]: (8,1,10), (16,2,5),",
                             "(80,20,0)). Durations as short as the runs settle in (links.E35_TIME)."]), body))
    return out


def e34_throughput(flows) -> list[dict]:
    """Per E3.4 run and seed, row 934000 "trunk throughput": ``tput_gbps`` the trunk's carried
    bit rate (wire bits, U x K x the simulated link rate) and ``tput_full_gbps`` that at the
    thesis's scale (x SCALE)."""
    import re

    from .rows import TRUNK_ROW

    pattern = re.compile(r"^e34-x([\d.]+)$")
    out = []
    for r in flows[flows["source"] == TRUNK_ROW].itertuples():
        match = pattern.match(str(r.file))
        if match:
            x = float(match.group(1))
            full = float(r.util) * E34_FULL.channels * x
            out.append({"file": r.file, "seed": r.seed, "name": f"{THROUGHPUT_ROW} trunk throughput",
                        "tput_gbps": full / SCALE, "tput_full_gbps": full})
    return out


THROUGHPUT_ROW = 934_000
