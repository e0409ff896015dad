"""Cui, chapter 3 §3.8 and Appendix A: buffer-sizing rules. The thesis's DWDM rule (3.23)-(3.24),
its single-link limit (3.27), the five rules it is compared with in Tables 3.1-3.4 and Figs
3.52-3.55 (BDP, Appenzeller et al. (3.26), Enachescu et al.'s O(log W) (3.25), Gorinsky et al.'s
2M, Beheshti et al.'s 10-20 packets), and the full-utilisation condition (3.28)-(3.29).

Units: buffers in packets; µ in packets/s per link (the thesis says "bit-rate", but only
packets/s of 8320-bit packets reproduces the tables, spec §4.5); RTTs in seconds.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.special import erfinv, gammaln

from ._common import choice, count, log_binomial, logsumexp, num

__all__ = [
    "dwdm_buffer_log", "dwdm_buffer", "switch_buffer", "single_link_buffer",
    "bdp_buffer", "appenzeller_x", "appenzeller_buffer", "olog_w_buffer", "gorinsky_buffer",
    "BEHESHTI_BUFFER", "min_queue_after_overflow", "full_utilisation_buffer",
    "guarantees_full_utilisation",
]

#: Beheshti et al.'s "10-20 packets" (the "rule in [27]" rows of Tables 3.1-3.4), a band.
BEHESHTI_BUFFER = (10, 20)

_APPENZELLER_C = 3.0 * math.sqrt(3.0) / (2.0 * math.sqrt(2.0))


def dwdm_buffer_log(m: float, k: int, mu: float, u: float, n: float, rtt_h: float) -> float:
    """The unrounded rule, log_{F1} F2 (negative when no buffer is needed), with

        F1(M, K, U) = (M − UK)/(UM − UK),
        F2(M, K, µ, U, N, RTT_H) = U²K²µ²RTT_H² C(M, K)(UK/(M − UK))^K
                                   / (1.5 N² Σ_{i=0}^{K} C(M, i)(UK/(M − UK))^i).

    Source: eq. (3.23) = (A.10), derived in Appendix A from the closed loop (A.1), the bound
    λ̂(i) ≤ λ* (A.2)-(A.4), p_K ≤ the bufferless Engset p_K (A.5)-(A.6), λ*/µ ≈ ρK/(M − ρK) (A.7)
    and ρ ≈ U (A.9). Table 3.1 at 50 ms gives 18.43, 27.20, 44.53, 96.15 (spec §4.5).

    ``m``: input links (``math.inf`` for the non-DWDM limit, where C(M, i)(UK/(M−UK))^i →
    (UK)^i/i! and F1 → 1/U; with K = 1 that is (3.27)); ``k``: output links; ``mu``: one link's
    rate, packets/s; ``u``: target utilisation, 0 < U < 1; ``n``: TCP flows; ``rtt_h``: harmonic
    mean round-trip propagation delay, s. Needs M > K.
    """
    m_ = count("m", m, at_least=1, inf_ok=True)
    k_ = count("k", k, at_least=1)
    if not m_ > k_:
        raise ValueError(f"m: expected more input links than output links (K = {k_}), got {m!r}")
    mu_ = num("mu", mu, above=0)
    u_ = num("u", u, above=0, below=1)
    n_ = num("n", n, above=0)
    rtt = num("rtt_h", rtt_h, above=0)
    i = np.arange(k_ + 1)
    if math.isinf(m_):
        log_f1 = -math.log(u_)
        terms = i * math.log(u_ * k_) - gammaln(i + 1.0)
    else:
        log_f1 = math.log((m_ - u_ * k_) / (u_ * m_ - u_ * k_))
        terms = log_binomial(m_, i) + i * math.log(u_ * k_ / (m_ - u_ * k_))
    log_f2 = (2 * math.log(u_ * k_ * mu_ * rtt) + terms[-1]
              - math.log(1.5) - 2 * math.log(n_) - logsumexp(terms))
    return float(log_f2 / log_f1)


def dwdm_buffer(m: float, k: int, mu: float, u: float, n: float, rtt_h: float) -> int:
    """The buffer one output trunk needs for utilisation U: B = max(0, ⌈log_{F1} F2⌉), packets.

    Source: eq. (3.23) = (A.10) (see :func:`dwdm_buffer_log` for F1, F2 and the arguments). It
    reproduces all 32 "our rule" cells of Tables 3.1-3.4 (tests/test_models_cui.py, A1). The
    rule assumes greedy flows and Poisson-like arrivals; it is conservative, and grows without
    bound as U → 1 (at U ≥ 99 % it over-estimates badly, §3.8.2).

    Erratum (spec §6 item 13): the conclusion (§6.1) says 400 input and 100 output links of
    40 Gb/s with 500,000 flows and RTT 0.1 s need no buffer for 80 %; (3.23) gives 8 (0 only up
    to 70 %; 0 at 80 % needs about 2,000,000 flows). The equation, not the sentence, is used.
    """
    return max(0, math.ceil(dwdm_buffer_log(m, k, mu, u, n, rtt_h)))


def switch_buffer(m: int, k: int, mu: float, u: float, n: float, rtt_h: float) -> float:
    """The whole switch's output buffer, M/K trunks of :func:`dwdm_buffer` each: B_S = (M/K)·B.

    Source: eq. (3.24) = (A.11) (printed max(0, M⌈log_{F1}F2⌉/K); not rounded further, so a
    fractional M/K gives a fractional B_S).
    """
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    return m_ / k_ * dwdm_buffer(m_, k_, mu, u, n, rtt_h)


def single_link_buffer(mu: float, u: float, n: float, rtt_h: float) -> int:
    """The rule for one non-DWDM bottleneck link (M = ∞, K = 1):

        B = max(0, ⌈log_U (1.5 N²(1 + U)/(U³µ²RTT_H²))⌉).

    Source: eq. (3.27), §3.8.2. The thesis adds "≈ the same with the arithmetic-mean RTT";
    RTT_H is used (spec §6 item 19). µ = 4000 packets/s, RTT 0.1 s, N = 10: 20 packets at 75 %,
    120 at 95 %, 623 at 99 %, 6274 at 99.9 % (spec §5.1 E3.9).
    """
    mu_ = num("mu", mu, above=0)
    u_ = num("u", u, above=0, below=1)
    n_ = num("n", n, above=0)
    rtt = num("rtt_h", rtt_h, above=0)
    arg = 1.5 * n_ ** 2 * (1.0 + u_) / (u_ ** 3 * mu_ ** 2 * rtt ** 2)
    return max(0, math.ceil(math.log(arg) / math.log(u_)))


def bdp_buffer(k: int, mu: float, rtt: float, rounding: str = "ceil") -> float:
    """The bit-rate-delay-product rule of thumb: B = RTT × C_O = K·µ·RTT, packets.

    Source: §2.2 / Tables 3.1-3.4 ("BDP rule"). The tables take RTT = RTT_H and round up
    (4,807,692.3 × 0.05 = 240,384.6 → 240,385; × 0.1 = 480,769.2 → 480,770), the default
    ``rounding="ceil"``; ``"none"`` returns the product. §3.8.3 argues the delay should be the
    *maximum* RTT (:func:`full_utilisation_buffer`).

    Erratum (spec §6 item 14): Table 3.4, K = 64, prints 30,769,229; K·µ·RTT_H = 30,769,230.8,
    so 30,769,231.
    """
    rounding = choice("rounding", rounding, ("ceil", "none"))
    v = count("k", k, at_least=1) * num("mu", mu, above=0) * num("rtt", rtt, above=0)
    return float(math.ceil(v - 1e-9)) if rounding == "ceil" else v


def appenzeller_x(u: float, n: float) -> float:
    """The coefficient x of Appenzeller et al.'s rule B = x·µ·RTT/√N for utilisation U: the
    solution of U = erf((3√3/(2√2))·x/(1 + x/√N)), i.e. x = y/(1 − y/√N) with
    y = erf⁻¹(U)/(3√3/(2√2)).

    Source: eq. (3.26) (Ch. 2's (2.3), lost in the extraction). N = 10⁴ and x = 1 give
    U = 0.9899, the thesis's "98.99 %". Raises ValueError when y ≥ √N (no x reaches U).
    """
    u_ = num("u", u, above=0, below=1)
    n_ = num("n", n, above=0)
    y = float(erfinv(u_)) / _APPENZELLER_C
    if not y < math.sqrt(n_):
        raise ValueError(f"u: no buffer reaches {u_:g} with N = {n_:g} flows under (3.26)")
    return y / (1.0 - y / math.sqrt(n_))


def appenzeller_buffer(u: float, n: float, k: int, mu: float, rtt: float) -> float:
    """Appenzeller et al.'s rule as (3.26) gives it: B = x·K·µ·RTT/√N packets (not rounded),
    x = :func:`appenzeller_x`, RTT the *arithmetic* mean round trip.

    Source: eq. (3.26), §3.8.1-3.8.2. With µ = 4000 packets/s, RTT = 0.1 s and N = 10 it gives
    65.1 packets at 75 % (Fig 3.52's setting).

    Erratum (spec §6 item 12): the Appenzeller column of Tables 3.1-3.4 is *not* what (3.26)
    gives: for Table 3.2 (K = 4, N = 16,000, RTT 100 ms), (3.26) gives 4,938 / 6,084 / 7,529 /
    9,674 packets for 60-90 %; the table prints 794 / 986 / 1,226 / 1,587, which imply
    x = 0.052-0.104 instead of 0.32-0.63. The printed cells are kept as reported data in
    tests/test_models_cui.py; the qualitative conclusion (the thesis's rule ≪ Appenzeller's)
    holds either way.
    """
    x = appenzeller_x(u, n)
    return x * count("k", k, at_least=1) * num("mu", mu, above=0) * num("rtt", rtt, above=0) \
        / math.sqrt(num("n", n, above=0))


def olog_w_buffer(u: float, n: float, k: int, mu: float, rtt_h: float,
                  overprovision: float = 0.95, log_decimals: int | None = 2) -> float:
    """Enachescu et al.'s O(log W) rule, B ≥ log_{1/ϱ}(W²/(2(1 − θ))), rounded up, packets.

    Source: eq. (3.25) = (2.4), with the thesis's ϱ = 0.95 ("we assume ϱ = 0.95"). θ (throughput
    over ϱC_O) and W (the congestion window's upper limit) are not spelt out; spec §4.6 [D]
    reads θ = U/ϱ and W = ϱKµRTT_H/N, the per-flow window that would fill ϱ of the trunk.
    Rounding: Table 3.1 at 50 ms and 70 % has log = 260.0014 and prints 260, while at 100 ms
    and 70 % log = 287.028 prints 288: the thesis rounded the logarithm to a few decimals before
    taking the ceiling. ``log_decimals=2`` (the default) does that and reproduces all 32 printed
    cells; ``None`` takes the plain ceiling and misses the first (261). Rounding W down to whole
    packets instead fixes the first cell but breaks the second (287). Undefined for U ≥ ϱ:
    returns ``math.nan`` there (as Figs 3.53-3.55 omit it).
    """
    u_ = num("u", u, above=0, below=1)
    rho = num("overprovision", overprovision, above=0, below=1)
    if u_ >= rho:
        return math.nan
    w = rho * count("k", k, at_least=1) * num("mu", mu, above=0) * num("rtt_h", rtt_h, above=0) \
        / num("n", n, above=0)
    theta = u_ / rho
    raw = math.log(w * w / (2.0 * (1.0 - theta))) / math.log(1.0 / rho)
    if log_decimals is not None:
        raw = round(raw, count("log_decimals", log_decimals))
    return float(math.ceil(raw))


def gorinsky_buffer(m: float) -> float:
    """Gorinsky et al.'s rule: B = 2M packets, M the number of input links.

    Source: Tables 3.1-3.4 ("B = 2M"); for a non-DWDM link (M = ∞) the thesis takes M = N,
    the number of flows (§3.8.2), so pass N there.

    Erratum (found here, not in the spec): Table 3.4 (two input trunks of K links, M = 2K)
    prints 32 and 128 for K = 16 and 64, which is M, not 2M = 64 and 256; its "our rule" cells
    need M = 2K. Tables 3.1-3.3 print 2M.
    """
    return 2.0 * num("m", m, above=0)


def _rtts(base_rtts) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(base_rtts, dtype=float))
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"base_rtts: expected non-negative finite round-trip times, got {base_rtts!r}")
    return arr


def min_queue_after_overflow(b: float, mu: float, base_rtts: float | Sequence[float]) -> float:
    """The tight lower bound on the bottleneck queue just after an overflow,
    Q_min = ((B − µ·max_i RTT_i^b)/2)⁺, packets.

    Source: eq. (3.28), §3.8.3: NewReno in congestion avoidance, at most one loss per flow per
    overflow, no timeouts, the only queueing at this bottleneck; RTT_i^b is flow i's round trip
    without queueing. Worst case: the longest-RTT flow holds w_1 ≈ µRTT_1^b + B, the others ≈ 0,
    and halving leaves w_1/2 − µRTT_1^b. Reading: the extraction prints
    "(B − µ max_i(RTT_i^b) / 2)⁺" over two lines; the derivation's w_1/2 − µRTT_1^b fixes the
    halving to the whole difference (spec §4.7 [D]).
    """
    b_ = num("b", b, at_least=0)
    return max(0.0, (b_ - num("mu", mu, above=0) * float(np.max(_rtts(base_rtts)))) / 2.0)


def full_utilisation_buffer(mu: float, base_rtts: float | Sequence[float]) -> float:
    """The buffer beyond which the bottleneck never starves: µ·max_i RTT_i^b packets (the
    *maximum* bit-rate-delay product, not the mean); :func:`guarantees_full_utilisation` is
    the strict inequality (3.29).

    Source: eq. (3.29), §3.8.3.
    """
    return num("mu", mu, above=0) * float(np.max(_rtts(base_rtts)))


def guarantees_full_utilisation(b: float, mu: float, base_rtts: float | Sequence[float]) -> bool:
    """Whether B > µ·max_i RTT_i^b (3.29), i.e. Q_min > 0 in (3.28): then the link is never
    starved after an overflow and is fully used; the thesis calls it necessary and sufficient.
    """
    return num("b", b, at_least=0) > full_utilisation_buffer(mu, base_rtts)
