"""Liang 1991, "A Window-based Synchronous Scheme for Network Congestion Control/Avoidance"
(UBC MSc; the SEIF scheme): the formulas behind the thesis's tables, as functions.

The thesis's result tables (chapters 4 and 5) carry four derived quantities besides the
throughputs and counts a simulation measures; spec ``liang91-seif.md`` §4 defines them and
§6.1 (U1-U3) checks them against every printed entry:

- :func:`fairness_variance` (§5.1, "fairness variance"; Tables 4.9, 4.11, 5.2-5.18);
- :func:`feedback_overhead_bps` (§4.5, the "bandwidth overhead of feedback" column of
  Tables 4.7, 4.8 and 4.10);
- :func:`improvement` (§4.2, the "throughput improvement" column of Tables 4.2 and 4.3, and
  the BOBM-vs-POBM differences of §4.4).

and the back-of-envelope quantities spec §6.2 uses to reason about the dynamics (they are not
printed in the thesis):

- :func:`base_rtt` and :func:`pipe_size`: the empty-network round trip of a store-and-forward
  chain and the window that fills its bottleneck;
- :func:`two_way_data_cap`: the data throughput one direction of a link can carry when the
  same direction also carries the acknowledgements of the reverse flows.

Units: throughputs in any unit (the result of :func:`fairness_variance` is in that unit
squared: kbps² in chapters 4-5, (kB/s)² in Table 5.18); sizes in bytes; bandwidths in bit/s;
times in seconds.
"""

from __future__ import annotations

from typing import Sequence

from ._checks import num as _num

__all__ = [
    "fairness_variance", "feedback_overhead_bps", "improvement", "two_way_data_cap",
    "base_rtt", "pipe_size",
]


def _seq(name: str, v) -> list:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or not len(v):
        raise ValueError(f"{name}: expected a non-empty sequence, got {v!r}")
    return list(v)


def fairness_variance(throughputs: Sequence[float]) -> float:
    """The thesis's fairness variance: the population variance of the throughputs of the n
    sources competing for one resource,

        fv = (1/n) Σ_i (x_i - x̄)²,   x̄ = (1/n) Σ_i x_i.

    Source: Liang 1991 §5.1 (Class 1, after Table 5.1; the formula image is lost in the text
    extraction, the words around it name x_i, n and x̄); spec §4. The divisor n (not n - 1)
    is the one that reproduces the printed values (tests/test_models_liang91.py, U1). "Only
    the sources competing for the same resources should be considered": in two-way traffic
    one fv per direction (fv1 forward, fv2 reverse), and a group of one source has none.

    ``throughputs``: the group's throughputs, any unit; returns that unit squared.
    """
    xs = [_num(f"throughputs[{i}]", x) for i, x in enumerate(_seq("throughputs", throughputs))]
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / len(xs)


def feedback_overhead_bps(n_feedback: float, size_bytes: float = 50, window_s: float = 60.0) -> float:
    """Bandwidth used by explicit feedback messages, bit/s: N_fb × size × 8 / window.

    Source: Liang 1991 §4.5, Tables 4.7, 4.8 and 4.10 ("bandwidth overhead of feedback"
    beside "no. of feedback messages in 60 s"); spec §4. Feedback messages are 50 bytes
    (§4.2) and the statistics cover the 60 s from 20 s to 80 s, so each message is worth
    400/60 bit/s: 5 → 33.33, 19 → 126.67, 76 → 506.67 bps.

    ``n_feedback``: messages generated in the window (one per recipient); ``size_bytes``:
    one message's size; ``window_s``: the measurement window, s.
    """
    n = _num("n_feedback", n_feedback, at_least=0)
    return n * _num("size_bytes", size_bytes, above=0) * 8.0 / _num("window_s", window_s, above=0)


def improvement(t_new: float, t_old: float) -> float:
    """Relative throughput gain, percent: (t_new - t_old) / t_old × 100.

    Source: Liang 1991 §4.2, Tables 4.2 and 4.3 ("throughput improvement" of congestion
    avoidance, t_new, over congestion control, t_old: 7.30 % ... 11.88 %), and §4.4 (byte-
    over packet-oriented buffers: 2.44 % and 25.21 %, where the denominator is the packet-
    oriented throughput, t_old = POBM); spec §4.
    """
    old = _num("t_old", t_old)
    if old == 0:
        raise ValueError("t_old: expected a non-zero throughput, got 0")
    return (_num("t_new", t_new) - old) / old * 100.0


def two_way_data_cap(link_bps: float, data_bytes: float, ack_bytes: float) -> float:
    """Data throughput one direction of a link carries at most when every data packet it sends
    is matched by one acknowledgement of the reverse traffic on the same direction, bit/s:

        C × S_data / (S_data + S_ack).

    Source: spec §6.2 [D] (not a thesis formula): with two-way FTP traffic each direction of
    the bottleneck carries the forward data and the reverse flows' acks, one ack per data
    packet. 64 kbps with 512-byte data and 50-byte acks gives 58.30 kbps (SEIF reaches
    57.41 per direction in Table 5.7 Exp 1); with 1000-byte data 60.95 kbps.

    ``link_bps``: the link's bandwidth; ``data_bytes``, ``ack_bytes``: packet sizes.
    """
    c = _num("link_bps", link_bps, above=0)
    d = _num("data_bytes", data_bytes, above=0)
    a = _num("ack_bytes", ack_bytes, at_least=0)
    return c * d / (d + a)


def _links(links) -> list[tuple[float, float]]:
    out = []
    for i, link in enumerate(_seq("links", links)):
        if isinstance(link, (str, bytes)) or not hasattr(link, "__len__") or len(link) != 2:
            raise ValueError(f"links[{i}]: expected (bandwidth_bps, latency_s), got {link!r}")
        out.append((_num(f"links[{i}] bandwidth", link[0], above=0),
                    _num(f"links[{i}] latency", link[1], at_least=0)))
    return out


def base_rtt(links: Sequence[Sequence[float]], data_bytes: float = 512, ack_bytes: float = 50) -> float:
    """Round-trip time of one packet through an empty store-and-forward chain, s:

        Σ_links S_data·8/b  +  Σ_links S_ack·8/b  +  2 Σ_links latency

    (the data packet is transmitted in full on every link of the path, its ack on every link
    back; full-duplex links, the same bandwidth and latency both ways; no queueing, no
    processing time: REAL's model, thesis §4.1).

    Source: spec §6.2 [D], derived, not printed in the thesis. Topology One with the §4.2
    Experiment 1 links (access links 128 kbps / 0, the five inter-router links 64 kbps /
    3 ms) gives 32 + 5×64 + 32 ms of data transmission, 3.125 + 5×6.25 + 3.125 ms of ack
    transmission and 2 × 15 ms of propagation: 451.5 ms.

    ``links``: the path source → destination as (bandwidth_bps, latency_s) pairs;
    ``data_bytes``, ``ack_bytes``: packet sizes.
    """
    path = _links(links)
    d = _num("data_bytes", data_bytes, above=0) * 8.0
    a = _num("ack_bytes", ack_bytes, at_least=0) * 8.0
    return sum(d / b + a / b + 2.0 * lat for b, lat in path)


def pipe_size(links: Sequence[Sequence[float]], data_bytes: float = 512, ack_bytes: float = 50) -> float:
    """The window, in data packets, that keeps the chain's bottleneck busy with no queue:
    :func:`base_rtt` divided by one data packet's transmission time on the slowest link.

    Source: spec §6.2 [D]. Topology One, Experiment 1 links: 451.5 ms / 64 ms ≈ 7.05
    packets; Experiment 2 links ≈ 5.05; Experiment 3 links ≈ 1.23; the Tri-S Topology One
    (1 Mbps access links, one 500 kbps / 50 ms inter-router link) ≈ 14.4. A SEIF source
    whose window never falls below this keeps the bottleneck fully used.

    Arguments as for :func:`base_rtt`; returns packets (not rounded).
    """
    path = _links(links)
    bottleneck = min(b for b, _ in path)
    return base_rtt(path, data_bytes, ack_bytes) / (_num("data_bytes", data_bytes, above=0) * 8.0 / bottleneck)
