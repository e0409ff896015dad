"""Cui chapter 3's non-DWDM single bottleneck (§3.8.2, Figs 3.52-3.55; §3.8.3) as a scenario
generator: a dumbbell of N greedy paced NewReno flows through one drop-tail link.

What the thesis states (§3.8.2): the bottleneck carries 4000 packets/s ("about 16 Mb/s for a
packet size of 500 bytes"); the access bit-rate is half the bottleneck's; the mean
propagation RTT is 100 ms, so the bit-rate-delay product is 400 packets; N = 10..100; for each
N many runs, one per buffer size B, give the smallest B reaching U = 75, 95, 99, 99.9 %.

Where it is silent, the choices made here (spec §5.1 E3.9 [R] unless said):
- Packets are 500 B *on the wire* (so 4000 packets/s is exactly 16 Mb/s) and ACKs 40 B. Had
  the 500 B been ns-2's payload with 40 B of header (as the chapter's 1000 B are, spec §1),
  the link would carry 3704 packets/s; "4000 packets/s" and "about 16 Mb/s" both fit 500 B
  whole packets.
- Every flow has its own access link (8 Mb/s, half the bottleneck) from its host into the
  switch ``sw``; the bottleneck ``sw->d`` (named as the chapter network's trunk, so the
  trunk rows of rows.py read it) is drop-tail with B waiting slots, the packet on the line not
  counted (ns-2's DropTail limit). Host interface queues are unlimited.
- RTTs: all equal to 100 ms by default; ``rtt_spread`` > 0 spreads them evenly over
  100 ms ± spread (flow i at the mid-point of its share, as network.py does; the arithmetic
  mean stays 100 ms, so BDP 400). The propagation delay sits on the access links, the
  bottleneck has D_BOTTLENECK each way.
- Paced ns-2 NewReno with an unlimited window (make_scenarios.TRANSPORT and ``pacing``, as
  network.py does). All flows start at 0 (deterministic runs, as the chapter's).
- The start-up (slow start and its losses) is discarded: ``warmup`` seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .network import TRUNK, delay, greedy_flows, rate

PACKET_BYTES, ACK_BYTES = 500, 40
D_BOTTLENECK = 0.001     # one-way propagation delay of the bottleneck link, s


@dataclass(frozen=True)
class Dumbbell:
    """One configuration of the single-bottleneck network. Times in seconds."""
    flows: int                        # N
    buffer: int                       # B, packets waiting at the bottleneck
    mu: float = 4000.0                # bottleneck rate, packets/s of PACKET_BYTES
    access_ratio: float = 0.5         # access rate over the bottleneck's
    rtt_mean: float = 0.100           # arithmetic mean round-trip propagation delay
    rtt_spread: float = 0.0           # RTTs evenly over rtt_mean ± rtt_spread
    paced: bool = True
    duration: float = 60.0
    warmup: float = 10.0
    interval: float = 5.0
    trace_period: float | None = None  # sample the bottleneck queue (S11), or not
    transport: dict = field(default_factory=dict)

    def rtt(self, i: int) -> float:
        if self.rtt_spread <= 0 or self.flows == 1:
            return self.rtt_mean
        lo = self.rtt_mean - self.rtt_spread
        return lo + 2 * self.rtt_spread * (i + 0.5) / self.flows

    @property
    def rtts(self) -> list[float]:
        return [self.rtt(i) for i in range(self.flows)]

    @property
    def rtt_harmonic(self) -> float:
        return self.flows / sum(1 / r for r in self.rtts)

    @property
    def bdp(self) -> float:
        """µ × the arithmetic mean RTT, packets (400 in §3.8.2)."""
        return self.mu * self.rtt_mean

    @property
    def bottleneck_bps(self) -> float:
        return self.mu * PACKET_BYTES * 8


def scenario(net: Dumbbell, name: str, description: str = "", seed: int = 1) -> dict:
    """The scenario dict of ``net`` (write it with ccsim.builder.dumps_toml)."""
    if net.flows < 1 or net.buffer < 0 or net.mu <= 0:
        raise ValueError(f"dumbbell: expected flows >= 1, buffer >= 0 and mu > 0, got {net}")
    if net.rtt_spread >= net.rtt_mean or net.rtt_mean - net.rtt_spread <= 2 * D_BOTTLENECK:
        raise ValueError(f"dumbbell: the shortest RTT must exceed {2 * D_BOTTLENECK * 1e3:g} ms, got {net}")
    hosts = [f"h{i + 1}" for i in range(net.flows)] + ["d"]
    links = [{"between": [hosts[i], "sw"], "bandwidth": rate(net.bottleneck_bps * net.access_ratio),
              "delay": delay(net.rtt(i) / 2 - D_BOTTLENECK), "buffer": "unlimited"}
             for i in range(net.flows)]
    links.append({"between": ["sw", "d"], "bandwidth": rate(net.bottleneck_bps), "delay": delay(D_BOTTLENECK),
                  "buffer": f"{net.buffer}pkt", "count_in_service": False})
    flows = greedy_flows(hosts[:-1], net.transport, net.paced, f"{PACKET_BYTES}B", f"{ACK_BYTES}B")
    measure = {"interval": f"{net.interval:g}s", "discard": max(1, math.ceil(net.warmup / net.interval)),
               "trace_cwnd": False, "trace_queues": "none", "port_stats": [TRUNK]}
    if net.trace_period:
        measure["trace_queues"] = [TRUNK]
        measure["trace_period"] = f"{net.trace_period:g}s"
    return {
        "name": name,
        "description": description or name,
        "seed": seed,
        "duration": f"{net.duration:g}s",
        "measure": measure,
        "nodes": {"hosts": hosts, "switches": ["sw"]},
        "links": links,
        "flows": flows,
    }


def notes(net: Dumbbell) -> list[str]:
    """The header lines of a scenario file: what it simulates."""
    spread = (f"spread evenly over {(net.rtt_mean - net.rtt_spread) * 1e3:g}-{(net.rtt_mean + net.rtt_spread) * 1e3:g} ms"
              if net.rtt_spread > 0 else f"all {net.rtt_mean * 1e3:g} ms")
    return [
        f"{net.flows} {'paced ' if net.paced else ''}NewReno flows (ns-2's, unlimited window), each on its own "
        f"{net.bottleneck_bps * net.access_ratio / 1e6:g} Mb/s",
        f"access link into one drop-tail bottleneck of {net.mu:g} packets/s ({net.bottleneck_bps / 1e6:g} Mb/s, "
        f"{PACKET_BYTES} B packets on the wire,",
        f"{ACK_BYTES} B ACKs) with B = {net.buffer} waiting slots. Round-trip propagation delays {spread}",
        f"(BDP {net.bdp:g} packets). {net.duration:g} s, the first {net.warmup:g} s not measured.",
    ]
