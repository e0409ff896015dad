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

Chapter 4 (thesis §4.2): :func:`red_code`, modified RED's quantised drop probability (4.4),
and :func:`aied`, JCC's window rule (4.3); :func:`code_probability` turns a code back into a
probability (the unit of Table 4.1).

Chapter 5 (thesis §5.2): the theory its WTP scheduler is checked against. Hua §5.2 takes WTP from Dovrolis et al. (1999), who took it from Kleinrock's time-dependent
priorities (Kleinrock 1964, "A delay dependent queue discipline", NRLQ 11; 1976, *Queueing
Systems* vol. 2 §3.7). The thesis quotes only the qualitative property (the achieved delay
ratios depend on the load and approach the configured b-ratios only under heavy load); the
formula is the spec's Appendix A (``hua02-vegas-jcc-swtp.md``), a check of the WTP
implementation with Poisson arrivals (V5.6).

- :func:`wtp_waits`: the mean waits W_p of an M/G/1 queue under non-preemptive WTP;
- :func:`wtp_ratios`: the consecutive ratios W_p / W_{p+1} (class p the lower priority);
- :func:`residual_work`: W_0 = Σ λ_i E[S_i²] / 2, the mean residual service a packet finds;
- :data:`APPENDIX_A`: the spec's reference ratios for b = 1 : 2 : 4, for the tests.

Classes are numbered as in ccsim's ``wtp``/``swtp`` disciplines: index 0 is the lowest
priority (the smallest weight, the largest delay; Hua's class 1). Loads ρ_i are fractions of
the line (Σ ρ_i < 1); waits come back in the unit of ``w0`` (seconds if ``w0`` is, or "W_0
units" with the default 1: the ratios do not depend on it).
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["vegas_delta", "vegas_backlog_delay", "parking_lot_fluid", "red_code", "code_probability", "aied",
           "wtp_waits", "wtp_ratios", "residual_work", "APPENDIX_A", "APPENDIX_A_MORE"]


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



def red_code(avg: float, min_th: float = 5.0, max_th: float = 15.0, bits: int = 8, literal: bool = False) -> int:
    """Eq. (4.4), modified RED's m-bit code of the average queue ``avg`` (packets): 0 below
    min_th, 2^m - 1 above max_th, and floor((avg - min_th)/(max_th - min_th) x s) between,
    s = 2^m - 2 as the prose says (0..max_p on codes 0..2^m - 2; spec A-J4) or 2^m - 1 as the
    formula is printed (``literal``)."""
    _check_bits(bits)
    if not 0 <= min_th < max_th:
        raise ValueError(f"min_th, max_th: expected 0 <= min_th < max_th, got {min_th!r} and {max_th!r}")
    top = (1 << bits) - 1
    if avg > max_th:
        return top
    if avg < min_th:
        return 0
    steps = top if literal else top - 1
    return min(int(math.floor((avg - min_th) / (max_th - min_th) * steps)), steps)


def code_probability(code: int, max_p: float = 0.1, bits: int = 8) -> float:
    """A code back in probability units (spec §1.4.5): code x max_p/(2^m - 2), 1 for the top
    code."""
    _check_bits(bits)
    if code < 0:
        raise ValueError(f"code: expected a non-negative code, got {code!r}")
    top = (1 << bits) - 1
    return 1.0 if code >= top else code * max_p / max(top - 1, 1)


def _check_bits(bits: int) -> None:
    # The engine's range (RED's code_bits 1..8); one bit leaves only 0 and the top code.
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 8:
        raise ValueError(f"bits: expected an integer from 1 to 8 (RED's code_bits), got {bits!r}")


def aied(cwnd: float, r: float, alpha: float, beta: float) -> float:
    """Eq. (4.3), JCC's additive-increase exponential-decrease step at a probing ACK that
    reports R = ``r`` (``alpha``, ``beta`` and ``r`` in one unit): cwnd + 1 up to alpha,
    cwnd x 2^-((r - alpha)/(beta - alpha)) between, cwnd / 2 from beta on."""
    if r <= alpha:
        return cwnd + 1.0
    if r < beta:
        return cwnd * 2.0 ** (-(r - alpha) / (beta - alpha))
    return cwnd / 2.0


def _loads_and_weights(loads: Sequence[float], weights: Sequence[float]) -> tuple[list[float], list[float]]:
    rho = [float(x) for x in loads]
    b = [float(x) for x in weights]
    if len(rho) != len(b) or not rho:
        raise ValueError(f"loads and weights: expected two lists of the same positive length, got {len(rho)} and {len(b)}")
    if any(not math.isfinite(x) or x < 0 for x in rho):
        raise ValueError(f"loads: expected non-negative numbers, got {list(loads)!r}")
    if not sum(rho) < 1:
        raise ValueError(f"loads: expected a total below 1 (a stable queue), got {sum(rho):g}")
    if any(not math.isfinite(x) or x <= 0 for x in b):
        raise ValueError(f"weights: expected positive numbers, got {list(weights)!r}")
    if any(b[i] > b[i + 1] for i in range(len(b) - 1)):
        raise ValueError(f"weights: expected them non-decreasing (class 0 the lowest priority), got {list(weights)!r}")
    return rho, b


def wtp_waits(loads: Sequence[float], weights: Sequence[float], w0: float = 1.0) -> list[float]:
    """Mean queueing delay of each class under non-preemptive WTP (time-dependent priorities).

    Source: Kleinrock 1964 / 1976 vol. 2 §3.7, as the spec's Appendix A writes it. An M/G/1
    queue; class p arrives Poisson at load ρ_p; a class-p packet that arrived at τ has
    priority b_p (t − τ); whenever the server frees, the largest goes. With
    0 < b_0 ≤ b_1 ≤ … and ρ = Σ ρ_i:

        W_p = [ W_0/(1−ρ) − Σ_{i<p} ρ_i W_i (1 − b_i/b_p) ] / [ 1 − Σ_{i>p} ρ_i (1 − b_p/b_i) ]

    solved from the lowest class up. W_0 = Σ λ_i E[S_i²]/2 (:func:`residual_work`). The waits
    satisfy the conservation law Σ ρ_p W_p = ρ W_0/(1−ρ).

    Arguments: ``loads`` ρ_p (fractions of the line), ``weights`` b_p (non-decreasing),
    ``w0`` in any time unit. Returns the waits in that unit, class 0 first.
    """
    rho, b = _loads_and_weights(loads, weights)
    if not (math.isfinite(w0) and w0 > 0):
        raise ValueError(f"w0: expected a positive number, got {w0!r}")
    total = sum(rho)
    base = w0 / (1 - total)
    waits: list[float] = []
    for p in range(len(rho)):
        num = base - sum(rho[i] * waits[i] * (1 - b[i] / b[p]) for i in range(p))
        den = 1 - sum(rho[i] * (1 - b[p] / b[i]) for i in range(p + 1, len(rho)))
        waits.append(num / den)
    return waits


def wtp_ratios(loads: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The consecutive mean-delay ratios W_p / W_{p+1} under WTP (:func:`wtp_waits`): what a
    proportional delay differentiation scheduler aims to hold at b_{p+1}/b_p. They depend on
    neither W_0 nor the service-time distribution when all classes share it.

    E.g. ``wtp_ratios([0.95/3]*3, [1, 2, 4])`` ≈ [1.888, 1.873] (spec Appendix A); two
    classes give 1/(1 − ρ(1 − b_0/b_1)) exactly.
    """
    w = wtp_waits(loads, weights)
    return [w[p] / w[p + 1] for p in range(len(w) - 1)]


def residual_work(rates: Sequence[float], second_moments: Sequence[float]) -> float:
    """W_0 = Σ λ_i E[S_i²] / 2: the mean remaining service time an arrival finds.

    ``rates`` λ_i in packets per second, ``second_moments`` E[S_i²] in seconds². E.g. Hua's
    packet mix (40% 100 B, 40% 500 B, 20% 1000 B) on a line of C bit/s has
    E[S²] = (0.4·100² + 0.4·500² + 0.2·1000²)·64/C² = 304000·64/C².
    """
    lam = [float(x) for x in rates]
    s2 = [float(x) for x in second_moments]
    if len(lam) != len(s2) or any(x < 0 or not math.isfinite(x) for x in lam + s2):
        raise ValueError("rates and second_moments: expected two lists of non-negative numbers of the same length")
    return sum(l * m for l, m in zip(lam, s2)) / 2


# Spec Appendix A: d_0/d_1 and d_1/d_2 for b = 1 : 2 : 4, Poisson, by class mix (the thesis's
# class order, lowest priority first) and total load U.
APPENDIX_A: dict[tuple[float, float, float], dict[float, tuple[float, float]]] = {
    (0.6, 0.2, 0.2): {0.65: (1.455, 1.373), 0.75: (1.574, 1.486), 0.85: (1.718, 1.637), 0.95: (1.895, 1.852)},
    (1 / 3, 1 / 3, 1 / 3): {0.65: (1.436, 1.417), 0.75: (1.556, 1.532), 0.85: (1.702, 1.678), 0.95: (1.888, 1.873)},
    (0.2, 0.2, 0.6): {0.65: (1.394, 1.439), 0.75: (1.512, 1.555), 0.85: (1.665, 1.697), 0.95: (1.869, 1.882)},
    (0.3, 0.4, 0.3): {0.65: (1.441, 1.424), 0.75: (1.560, 1.539), 0.85: (1.707, 1.684), 0.95: (1.890, 1.877)},
    (0.2, 0.3, 0.5): {0.65: (1.411, 1.441), 0.75: (1.529, 1.556), 0.85: (1.680, 1.699), 0.95: (1.877, 1.884)},
}

# Spec Appendix A, more classes, uniform, U = 0.95: (classes, spacing) -> ratios.
APPENDIX_A_MORE: dict[tuple[int, float], tuple[float, ...]] = {
    (4, 2.0): (1.867, 1.861, 1.822),
    (4, 1.5): (1.454, 1.455, 1.448),
    (6, 2.0): (1.823, 1.824, 1.797, 1.745, 1.660),
}
