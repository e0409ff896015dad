"""Cui's chapter-3 network as a scenario generator (thesis §3.2, Figs 3.1-3.2; spec
cui-buffers-fast-adpm.md §2.18 and its [R] ns-2 mapping).

N greedy TCP flows, each on its own access link (100 Mb/s by default) into one of M edge
routers (ERs) with unlimited buffers; each ER owns one input link of the per-channel rate mu
into the core switch; the switch's output trunk has K wavelength channels of rate mu, full
wavelength conversion (a packet takes any idle channel) and B shared buffer slots (a slot frees
when its packet starts output; a packet is admitted while fewer than K + B are held). The
trunk is the only bottleneck; the ACKs come back on the same links, uncongested.

Host queues: unlimited by default (the trunk is the bottleneck and they mostly stay short); where
the flows' share equals their access rate the access link can be the bottleneck and an unlimited
queue there lets a window grow without bound, and a flow the trunk seldom drops can stay in slow
start until its host holds hundreds of thousands of packets, so ``access_buffer`` gives the
host's queue a limit (the families of E3.3, E3.7 and E3.8, and E3.4-E3.5, use HOST_QUEUE, 1000 packets: the
thesis's "large" buffers; ns-2's default DropTail limit_ of 50 is NS2_HOST_QUEUE).

RTTs: the round-trip propagation delays are spread evenly over [rtt_min, rtt_max] (flow i gets
rtt_min + (rtt_max - rtt_min) (i + 1/2)/N), set on the access links. Their harmonic mean is
(rtt_max - rtt_min)/ln(rtt_max/rtt_min) in the limit: 109.2 ms for 60-180 ms (the thesis
writes 109.1).

Packets: 1000 B of payload plus 40 B of TCP/IP header, 1040 B on the wire, 40 B ACKs (ns-2's
`packetSize_ 1000` with headers: spec §1).

Flows are numbered 1..N in their names; rows numbered 900 and up are the trunk's (rows.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DATA, ACK = "1040B", "40B"
WIRE_BITS = 1040 * 8


@dataclass(frozen=True)
class Network:
    """One configuration of the chapter's network. Rates in bit/s, times in seconds."""
    flows: int                       # N
    inputs: int                      # M: edge routers, one input link each
    channels: int                    # K: wavelength channels of the output trunk
    buffer: int                      # B: shared buffer slots of the trunk
    channel_bps: float               # mu in bit/s (per channel, and per input link)
    access_bps: float = 100e6
    rtt_min: float = 0.060
    rtt_max: float = 0.180
    paced: bool = True
    private_buffers: bool = False    # K private one-packet buffers instead of B shared
    access_buffer: int | None = None  # packets of the host's queue onto its access link; None: unlimited
    duration: float = 30.0
    warmup: float = 10.0             # s not measured (the start-up)
    interval: float = 5.0            # measurement interval, s
    transport: dict = field(default_factory=dict)   # extra transport parameters for every flow

    @property
    def rtt_harmonic(self) -> float:
        rtts = [self.rtt(i) for i in range(self.flows)]
        return len(rtts) / sum(1 / r for r in rtts)

    def rtt(self, i: int) -> float:
        return self.rtt_min + (self.rtt_max - self.rtt_min) * (i + 0.5) / self.flows

    @property
    def packets_per_s(self) -> float:
        """mu in packets/s of 1040 B (4 807 692.3 at 40 Gb/s)."""
        return self.channel_bps / WIRE_BITS


# The hosts' queues where an access link can be a flow's bottleneck. The thesis does not give
# their size; it gives the edge routers "large electronic buffers", which in an all-optical
# Internet "are in the users' PCs" (§3.2), and takes the senders' buffers "large enough that
# TCP's congestion window determines the transmission rate". So the reading is a large queue,
# LARGE_HOST_QUEUE packets (not unlimited: where the share is the access rate nothing is lost,
# and an unlimited queue lets a window grow without bound). ns-2's own default limit_ of 50
# (NS2_HOST_QUEUE) is the other reading; findings e33-access-limited, e34-top-access-limited,
# e35-k1-burst-share, e35-k20-bufferless-no-pacing-gain and e38-access-limited give what each
# measures.
NS2_HOST_QUEUE = 50
LARGE_HOST_QUEUE = 1000
HOST_QUEUE = LARGE_HOST_QUEUE
# The trunk's port, whose statistics the rows read.
TRUNK = "sw->d"
# Fixed one-way delays (s) of the links every flow shares: ER -> switch and switch -> sink.
D_INPUT, D_TRUNK = 0.001, 0.001


def rate(bps: float) -> str:
    return f"{bps:.12g}bps"


def delay(s: float) -> str:
    return f"{s * 1e3:.9g}ms"


def greedy_flows(hosts: list[str], transport: dict, paced: bool, packet_size: str, ack_size: str) -> list[dict]:
    """One NewReno flow from each host to "d", named "<i> f<i>" (source i), an unlimited
    window, the ``transport`` parameters and pacing if ``paced``."""
    params = dict(transport) | ({"pacing": True} if paced else {})
    flows = []
    for i, h in enumerate(hosts):
        f = {"name": f"{i + 1} f{i + 1}", "src": h, "dst": "d", "cc": "newreno",
             "packet_size": packet_size, "ack_size": ack_size, "max_window": 1_000_000}
        if params:
            f["params"] = dict(params)
        flows.append(f)
    return flows


def scenario(net: Network, name: str, description: str = "", seed: int = 1) -> dict:
    """The scenario dict of ``net`` (write it with ccsim.builder.dumps_toml)."""
    if net.flows < 1 or net.inputs < 1 or net.channels < 1 or net.buffer < 0:
        raise ValueError(f"network: expected flows, inputs, channels >= 1 and buffer >= 0, got {net}")
    hosts = [f"h{i + 1}" for i in range(net.flows)] + ["d"]
    ers = [f"e{m + 1}" for m in range(net.inputs)]
    links = []
    for i in range(net.flows):
        # Access link: half the flow's round trip less the shared links' delays.
        one_way = net.rtt(i) / 2 - D_INPUT - D_TRUNK
        access = {"between": [hosts[i], ers[i % net.inputs]], "bandwidth": rate(net.access_bps),
                  "delay": delay(max(one_way, 0.0)), "buffer": "unlimited"}
        if net.access_buffer is not None:
            access["forward"] = {"buffer": f"{net.access_buffer}pkt"}
        links.append(access)
    for er in ers:  # the ER's unlimited queue feeds its input link into the switch
        links.append({"between": [er, "sw"], "bandwidth": rate(net.channel_bps), "delay": delay(D_INPUT),
                      "buffer": "unlimited"})
    trunk = {"between": ["sw", "d"], "bandwidth": rate(net.channel_bps), "delay": delay(D_TRUNK),
             "channels": net.channels, "buffer": f"{net.buffer}pkt", "count_in_service": False}
    if net.private_buffers:
        trunk["channel_buffers"] = "private"
        trunk["buffer"] = f"{net.channels}pkt"
    links.append(trunk)
    flows = greedy_flows(hosts[:-1], net.transport, net.paced, DATA, ACK)
    discard = max(1, math.ceil(net.warmup / net.interval))
    return {
        "name": name,
        "description": description or name,
        "seed": seed,
        "duration": f"{net.duration:g}s",
        "measure": {"interval": f"{net.interval:g}s", "discard": discard, "trace_cwnd": False,
                    "trace_queues": "none", "port_stats": [TRUNK]},
        "nodes": {"hosts": hosts, "switches": ers + ["sw"]},
        "links": links,
        "flows": flows,
    }


def on_two_threads(body: dict) -> dict:
    """``body`` (a scenario of ``scenario``) run on two threads (the engine's ``[parallel]``):
    the hosts on the first, the edge routers, the switch and the sink on the second. The cut is
    at the access links, whose delays (28 ms and more at the chapter's RTTs) let each thread
    run that far ahead of the other; it splits the work about evenly (the senders and their
    access lines on one side, the routers, the trunk and the receivers on the other:
    docs/performance.md)."""
    switches = body["nodes"]["switches"]
    return {**body, "parallel": {"second": [*switches, "d"]}}
