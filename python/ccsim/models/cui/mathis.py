"""Cui, chapter 3: TCP's demand (Mathis et al.) and the switch's load, eqs (3.1)-(3.4),
(3.14) and (3.19)-(3.22).

Units (spec ``cui-buffers-fast-adpm.md`` §1): rates in packets/s, a packet being 1000 B of
payload plus 40 B of TCP/IP header (8320 bit) on the wire, so one 40 Gb/s wavelength carries
:data:`MU_40G` = 4,807,692.3 packets/s; times in seconds; λ is the reciprocal of the mean
*gap* between the end of one packet and the start of the next on an input link (not an
arrival rate); µ is one link's rate. RTT_H is the harmonic mean of the round-trip
*propagation* delays.
"""

from __future__ import annotations

import math

from ._common import num

__all__ = [
    "PACKET_BITS", "MU_40G", "RTT_H_THESIS",
    "harmonic_mean_rtt_uniform", "uniform_rtts_for_harmonic_mean",
    "mathis_rate", "mathis_aggregate", "mathis_utilisation",
    "intended_load", "normalised_load", "lam_from_rho", "tcp_lambda", "tcp_min_loss",
]

#: Bits of one chapter-3 packet on the wire: 1000 B payload + 40 B header (spec §1; the only
#: size that reproduces the BDP and "our rule" cells of Tables 3.1-3.4).
PACKET_BITS = 8320
#: One 40 Gb/s link in packets/s: 40e9 / 8320 = 4,807,692.3.
MU_40G = 40e9 / PACKET_BITS
#: The thesis's harmonic mean of RTTs uniform on [60, 180] ms: "(180 − 60)/ln 3 = 109.1 ms".
#: The expression is 109.23 ms (spec §6 item 18); use 0.1091 to compare with the thesis.
RTT_H_THESIS = 0.1091


def harmonic_mean_rtt_uniform(lo: float, hi: float) -> float:
    """Harmonic mean of RTTs spread uniformly on [lo, hi], s: (hi − lo)/ln(hi/lo).

    Source: thesis §3.3.2 ("RTT_H = (180 − 60)/log_e(180/60) = 109.1 ms"). The exact value for
    60-180 ms is 0.10923 s; the thesis prints 109.1 ms (:data:`RTT_H_THESIS`, spec §6 item 18).
    ``lo == hi`` gives lo.
    """
    a = num("lo", lo, above=0)
    b = num("hi", hi, at_least=a)
    return a if b == a else (b - a) / math.log(b / a)


def uniform_rtts_for_harmonic_mean(rtt_h: float, ratio: float = 3.0) -> tuple[float, float]:
    """The range [a, ratio·a] whose uniform spread of RTTs has harmonic mean ``rtt_h``:
    a = rtt_h·ln(ratio)/(ratio − 1).

    Source: spec §6 item 6 [R]: where the thesis gives only RTT_H (Tables 3.1-3.4, Figs
    3.48-3.51) take the shape of 60-180 ms, uniform on [a, 3a]; RTT_H = 100 ms gives
    54.93-164.8 ms, 50 ms gives 27.47-82.4 ms.
    """
    h = num("rtt_h", rtt_h, above=0)
    r = num("ratio", ratio, at_least=1)
    if r == 1:
        return h, h
    a = h * math.log(r) / (r - 1)
    return a, r * a


def mathis_rate(p_loss: float, rtt: float) -> float:
    """One TCP flow's mean rate, packets/s: r = √(1.5/P_B)/RTT ≈ 1.22/(√P_B·RTT).

    Source: eq. (3.1) = (3.19) (Mathis et al.); RTT is the flow's round-trip propagation delay.
    """
    p = num("p_loss", p_loss, above=0, at_most=1)
    return math.sqrt(1.5 / p) / num("rtt", rtt, above=0)


def mathis_aggregate(n: float, p_loss: float, rtt_h: float) -> float:
    """The N flows' aggregate rate at a common loss probability, packets/s:
    R_agg = N√1.5/(√P_B·RTT_H), RTT_H the harmonic mean RTT.

    Source: eq. (3.2) = (3.20).
    """
    return num("n", n, above=0) * mathis_rate(p_loss, rtt_h)


def mathis_utilisation(p_loss: float, n: float, rtt_h: float, capacity_pps: float) -> float:
    """Utilisation of an output trunk of ``capacity_pps`` (C_O = Kµ) fed by N Mathis flows:
    U = √(1.5/P_B)(1 − P_B)/(RTT_H·C_O/N).

    Source: eq. (3.4), from (3.3) ρC_O(1 − P_B) = R_agg(1 − P_B). It depends on C_O and N only
    through the per-flow bit-rate-delay product RTT_H·C_O/N, the basis of §3.3's
    extrapolation. The value can exceed 1 when P_B is too small for the load: (3.4) holds
    only at the closed loop's operating point.
    """
    p = num("p_loss", p_loss, above=0, at_most=1)
    per_flow_bdp = num("rtt_h", rtt_h, above=0) * num("capacity_pps", capacity_pps, above=0) \
        / num("n", n, above=0)
    return math.sqrt(1.5 / p) * (1.0 - p) / per_flow_bdp


def intended_load(m: float, lam: float, mu: float) -> float:
    """The intended offered load of the output trunk, packets/s: T = µMλ/(λ + µ) (each of the
    M input links alternates gaps of mean 1/λ and packets of mean 1/µ).

    Source: eq. (3.21).
    """
    lam_ = num("lam", lam, above=0)
    mu_ = num("mu", mu, above=0)
    return mu_ * num("m", m, above=0) * lam_ / (lam_ + mu_)


def normalised_load(m: float, k: float, lam: float, mu: float) -> float:
    """The normalised intended load ρ = (M/(1/λ + 1/µ))/(Kµ) = Mλ/(K(λ + µ)).

    Source: eq. (3.14). ρ < M/K always (an input link is never busier than 100 %).
    """
    return intended_load(m, lam, mu) / (num("k", k, above=0) * num("mu", mu, above=0))


def lam_from_rho(rho: float, m: float, k: float, mu: float = 1.0) -> float:
    """λ for a given normalised load: the inverse of (3.14), λ = ρKµ/(M − ρK).

    ρ must lie in (0, M/K).
    """
    m_ = num("m", m, above=0)
    k_ = num("k", k, above=0)
    r = num("rho", rho, above=0, below=m_ / k_)
    return r * k_ * num("mu", mu, above=0) / (m_ - r * k_)


def tcp_min_loss(n: float, m: float, mu: float, rtt_h: float) -> float:
    """P_B,min = (N√1.5/(MµRTT_H))²: below it the N flows' Mathis demand exceeds what M input
    links of µ packets/s can carry, and (3.22) has no positive λ.

    Source: spec §4.1 / §4.4 (the domain of (3.22)).
    """
    n_ = num("n", n, above=0)
    return (n_ * math.sqrt(1.5) / (num("m", m, above=0) * num("mu", mu, above=0)
                                   * num("rtt_h", rtt_h, above=0))) ** 2


def tcp_lambda(p_loss: float, n: float, m: float, mu: float, rtt_h: float) -> float:
    """The per-input-link λ at which the M input links carry the N flows' Mathis demand:
    λ(P_B) = Nµ√1.5/(MµRTT_H√P_B − N√1.5).

    Source: eq. (3.22), from T (3.21) = R_agg (3.20) ("if the packet loss probability is small
    [T] is approximately equal to the carried load, T ≈ Nr"). Valid for
    P_B > :func:`tcp_min_loss`; λ decreases as P_B rises.
    """
    p = num("p_loss", p_loss, above=0, at_most=1)
    n_ = num("n", n, above=0)
    m_ = num("m", m, above=0)
    mu_ = num("mu", mu, above=0)
    rtt = num("rtt_h", rtt_h, above=0)
    den = m_ * mu_ * rtt * math.sqrt(p) - n_ * math.sqrt(1.5)
    if not den > 0:
        raise ValueError(f"p_loss: (3.22) needs P_B > (N√1.5/(MµRTT_H))² = "
                         f"{tcp_min_loss(n_, m_, mu_, rtt):.6g}, got {p!r}")
    return n_ * mu_ * math.sqrt(1.5) / den

