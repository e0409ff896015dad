"""Keshav 1991 chapter 2 §2.2.3: the mean delay of a Telnet packet at a Fair Queueing switch
kept busy by greedy FTPs, and at an FCFS switch (the package docstring has the details)."""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from .._checks import flag as _flag, num as _num, positive_int as _count

__all__ = ["DelayBounds", "telnet_delay_fq", "telnet_delay_fq_phased", "telnet_delay_fcfs"]


# ---------------------------------------------------------------------------------------
# Chapter 2 §2.2.3: Telnet delay at a Fair Queueing switch
# ---------------------------------------------------------------------------------------

class DelayBounds(NamedTuple):
    """Lower and upper bound of a mean delay, seconds (equal where the thesis gives a value)."""
    lower: float
    upper: float

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def _check_sizes(n_ftp: int, p_ftp: float, mu: float) -> None:
    _count("n_ftp", n_ftp)
    _num("p_ftp", p_ftp, above=0)
    _num("mu", mu, above=0)


def telnet_delay_fq(n_ftp: int, p_ftp: float, p_telnet: float, *, mu: float = 1.0,
                    preemptive: bool = False, delta: float = 0.0) -> DelayBounds:
    """Mean queueing delay Δ of a Telnet packet at an FQ switch shared with N greedy FTPs.

    Source: Keshav 1991 chapter 2 §2.2.3 (L647-667), the bounds on A(P) for the
    preemptive and the non-preemptive FQ; spec keshav91-fq-packet-pair.md M1.11, N2-N4, V7.

    Model: one FQ switch; ``n_ftp`` FTP conversations always backlogged, every packet
    ``p_ftp`` (P_F) long; one Telnet packet of ``p_telnet`` (P_T) arrives at a uniformly
    distributed time into an *inactive* conversation, so its bid is B = R(t) + P_T - δ.
    Δ counts waiting only, not the Telnet packet's own transmission. The thesis's result is
    Δ = A(P) with P = P_T - δ, bounded by the two extreme FTP phase sets (synchronised and
    evenly staggered; :func:`telnet_delay_fq_phased` computes any phase set exactly):

    preemptive:
      - P ≥ P_F:                         A = N(P - P_F/2)
      - P_F ≥ P ≥ (P_F/2)(1 + 1/N):       N(P - P_F/2) ≤ A ≤ N P²/(2 P_F)
      - (P_F/2)(1 ± 1/N) brackets P:      (P_F/2 + N(P - P_F/2))²/(2 P_F) ≤ A ≤ N P²/(2 P_F)
      - P ≤ (P_F/2)(1 - 1/N):             0 ≤ A ≤ N P²/(2 P_F)

    non-preemptive (what the thesis implemented, and what ccsim's ``fq`` is):
      - P ≥ P_F:                         A = N(P - P_F/2)
      - P_F ≥ P ≥ (P_F/2)(1 + 1/N):       N(P - P_F/2) ≤ A ≤ (P_F/2){1 + [k² + k(2ε - 1)]/N}
      - P ≤ (P_F/2)(1 + 1/N):             P_F/2 ≤ A ≤ (P_F/2){1 + [k² + k(2ε - 1)]/N}

    with integer k and 0 ≤ ε < 1 from P = P_F(k + ε)/N. The thesis writes P_T there; since A
    is a function of P = P_T - δ, P is meant when δ ≠ 0 (spec M1.11). With P_T < P_F/N
    (k = 0) the non-preemptive bounds meet: a Telnet packet waits on average exactly half an
    FTP packet, P_F/(2μ) (N2: 1000-byte FTPs on an 80 kb/s line, 0.05 s).

    P < 0 (δ > P_T) is outside the thesis's formulas (spec A17); the physical limits are
    used: preemptive 0 (the bid is below every queued finish number), non-preemptive
    P_F/2 (the residual of the packet on the line).

    Arguments: ``p_ftp``, ``p_telnet`` and ``delta`` in one size unit (bits or bytes),
    ``mu`` the line rate in that unit per second (1: the thesis's units). Returns
    :class:`DelayBounds` in seconds.
    """
    _check_sizes(n_ftp, p_ftp, mu)
    _num("p_telnet", p_telnet, above=0)
    _num("delta", delta, at_least=0)
    _flag("preemptive", preemptive)
    n, pf = int(n_ftp), float(p_ftp)
    p = float(p_telnet) - float(delta)
    if p <= 0:
        lo = hi = 0.0 if preemptive else pf / 2
    elif p >= pf:
        lo = hi = n * (p - pf / 2)
    elif preemptive:
        hi = n * p * p / (2 * pf)
        if p >= pf / 2 * (1 + 1 / n):
            lo = n * (p - pf / 2)
        elif p >= pf / 2 * (1 - 1 / n):
            lo = (pf / 2 + n * (p - pf / 2)) ** 2 / (2 * pf)
        else:
            lo = 0.0
    else:
        x = p * n / pf
        k = math.floor(x)
        eps = x - k
        hi = pf / 2 * (1 + (k * k + k * (2 * eps - 1)) / n)
        lo = n * (p - pf / 2) if p >= pf / 2 * (1 + 1 / n) else pf / 2
    return DelayBounds(lo / mu, hi / mu)


def telnet_delay_fq_phased(n_ftp: int, p_ftp: float, p_telnet: float,
                           phases: str | Sequence[float] = "synchronised", *, mu: float = 1.0,
                           preemptive: bool = False, delta: float = 0.0) -> float:
    """The exact mean Telnet queueing delay Δ of :func:`telnet_delay_fq` for given FTP phases.

    Source: Keshav 1991 §2.2.3 (L651): the FTPs' finish numbers are F_i^α = (i + l^α)·P_F
    with 0 ≤ l^α < 1, Δ = (1/(N P_F)) ∫_0^{N P_F} φ(t) dt, and "the delay values for these
    extremal cases are straightforward to calculate; [...] we omit the derivation". This is
    that calculation, for any phases: ``"synchronised"`` (l^α = 0, all FTPs started
    together; the thesis's upper bounds), ``"staggered"`` (l^α = α/N; its lower bounds) or
    a sequence of N numbers in [0, 1).

    How the line schedule is tied to the round number R (the thesis leaves it implicit):
    the FTPs became active one after another at rounds l^α·P_F with the line busy from the
    first arrival on, as they would from a cold start. Then the line sends the FTP packets
    in order of finish number, one every P_F/μ, and R grows at μ/N. A Telnet packet
    arriving at t gets the bid B = R(t) + P_T - δ; non-preemptive, it waits for the rest of
    the packet on the line and for every queued FTP packet with F < B; preemptive, it waits
    for nothing if B is below the finish number of the packet on the line. φ(t) is
    piecewise linear, so the mean is computed exactly (midpoint rule on its pieces).
    Phases are renumbered so that the smallest is 0.

    Units as in :func:`telnet_delay_fq`; returns seconds.
    """
    _check_sizes(n_ftp, p_ftp, mu)
    _count("n_ftp", n_ftp, most=100_000)  # the period is walked packet by packet
    _num("p_telnet", p_telnet, above=0)
    _num("delta", delta, at_least=0)
    _flag("preemptive", preemptive)
    n, pf = int(n_ftp), float(p_ftp)
    if isinstance(phases, str):
        if phases == "synchronised":
            l = np.zeros(n)
        elif phases == "staggered":
            l = np.arange(n) / n
        else:
            raise ValueError(f"phases: expected 'synchronised', 'staggered' or N numbers, got {phases!r}")
    else:
        l = np.asarray(phases, dtype=float)
        if l.shape != (n,) or np.any(l < 0) or np.any(l >= 1):
            raise ValueError(f"phases: expected {n} numbers in [0, 1), got {phases!r}")
    l = np.sort(l - l.min())
    p = float(p_telnet) - float(delta)
    if p >= pf:
        # A Telnet bid a whole FTP packet or more above R waits for every FTP's next packet
        # whatever the phases: A = N(P - P_F/2) (the thesis's exact case). Walking the period
        # would need about P/P_F packets per FTP, which for P >> P_F exhausts memory.
        return n * (p - pf / 2) / mu
    # Start-up: conversation α arrives when R reaches l^α·P_F; R grows at 1/(number active)
    # (μ = 1 inside this function) until all N are active at t_all.
    t_all = sum((b + 1) * (l[b + 1] - l[b]) * pf for b in range(n - 1))
    r_all = l[-1] * pf
    period = n * pf
    t_start = (math.ceil(t_all / period) + 2) * period   # well inside the periodic regime
    r_of = lambda t: r_all + (t - t_all) / n             # noqa: E731
    b_max = r_of(t_start + period) + max(p, 0.0)
    i_max = int(math.ceil(b_max / pf)) + 2
    # Finish numbers in sending order; the m-th (0-based) is on the line in [m, m+1)·P_F.
    fin = np.sort(np.concatenate([(np.arange(1, i_max + 1) + la) * pf for la in l]))
    # Breakpoints of φ over one period: packet boundaries and the instants at which the bid
    # B(t) = R(t) + P crosses a finish number.
    cross = t_all + n * (fin - p - r_all)
    edges = np.concatenate([np.arange(t_start, t_start + period + pf / 2, pf),
                            cross[(cross > t_start) & (cross < t_start + period)]])
    edges = np.unique(edges)
    t = (edges[:-1] + edges[1:]) / 2
    w = np.diff(edges)
    m = np.floor(t / pf).astype(int)
    bid = r_of(t) + p
    behind = np.maximum(np.searchsorted(fin, bid, side="left") - (m + 1), 0)
    phi = (m + 1) * pf - t + behind * pf
    if preemptive:
        phi = np.where(fin[m] < bid, phi, 0.0)
    return float(np.sum(phi * w) / np.sum(w)) / mu


def telnet_delay_fcfs(n_ftp: int, window: int | Sequence[int], p_ftp: float, *, mu: float = 1.0,
                      pipe_time: float = 0.0) -> float:
    """Mean queueing delay of a Telnet packet at an FCFS switch kept busy by window-limited FTPs.

    Source: NOT a thesis formula. Keshav 1991 §2.2.3 (L677) only states that at an FCFS
    switch "the queueing delay of packets is, on average, uniform across all sources and
    directly proportional to the total queue size"; this function makes the statement
    exact for the chapter 2 setting, as the FCFS counterpart of :func:`telnet_delay_fq`.

    Model: ``n_ftp`` FTPs with fixed windows W_α (``window``: one int for all, or one per
    FTP) and packets of ``p_ftp`` keep the line busy; every packet of a window that is not
    at the switch is in the "pipe" for ``pipe_time`` τ seconds (from leaving the line to its
    successor's arrival: propagation, the other links' transmissions, the ACK's trip). The
    switch then holds on average ΣW - τμ/P_F packets, one on the line with, at a random
    instant, half of it left on average, so a Telnet packet arriving at a random time waits

        Δ = (ΣW_α - 1/2)·P_F/μ - τ

    exactly (by linearity of the mean, for any τ that leaves the line busy). Telnet and ACK
    packets sharing the queue are neglected. Chapter 6 Scenario 1 (two FTPs, windows 5,
    1000-byte packets on 80 kb/s, τ = 14.4 ms) gives 0.936 s, the Telnets' 0.95 s RTT of
    Table 6.3 less their own transmissions.

    Units: ``p_ftp`` in a size unit, ``mu`` in that unit per second, ``pipe_time`` seconds;
    returns seconds. Raises ValueError if the windows cannot keep the line busy.
    """
    _check_sizes(n_ftp, p_ftp, mu)
    _num("pipe_time", pipe_time, at_least=0)
    if isinstance(window, (int, np.integer)) and not isinstance(window, bool):
        ws = [window] * n_ftp
    elif isinstance(window, (list, tuple, np.ndarray)):
        ws = list(window)
    else:
        raise ValueError(f"window: expected a positive int or {n_ftp} of them, got {window!r}")
    if len(ws) != n_ftp:
        raise ValueError(f"window: expected a positive int or {n_ftp} of them, got {window!r}")
    ws = [_count("window", w) for w in ws]
    s = p_ftp / mu
    total = sum(ws)
    if total * s < pipe_time + s:
        raise ValueError(f"windows {ws} do not keep the line busy: ΣW·P_F/μ = {total * s:g} s "
                         f"< τ + P_F/μ = {pipe_time + s:g} s")
    return (total - 0.5) * s - pipe_time
