"""Keshav 1991, "Congestion Control in Computer Networks": the analytic results of
chapters 2 and 4 as functions.

Chapter 2 §2.2.3 (thesis text L643-667; spec ``keshav91-fq-packet-pair.md`` M1.11): the mean
queueing delay of a Telnet packet at a Fair Queueing switch kept busy by N greedy FTPs.

- :func:`telnet_delay_fq`: the thesis's bounds A(P_T - δ), preemptive and non-preemptive;
- :func:`telnet_delay_fq_phased`: the exact mean for a given set of FTP phases l^α, the
  calculation the thesis says it omits "for the sake of brevity"; its two extreme phase
  sets reproduce the printed bounds exactly (tests/test_models_keshav91.py);
- :func:`telnet_delay_fcfs`: the same quantity at an FCFS switch. The thesis gives no
  formula, only that FCFS delay is "directly proportional to the total queue size"
  (§2.2.3, L677); this function makes that statement exact for window-limited FTPs.

Chapter 4 §4.5 (L1212-1330; spec M3, M4.5, M4.6): the transient response of packet-pair
(2P) flow control to a step change at time t0, one function per row of Table 4.1, plus
:data:`TABLE_4_1`, the table as printed, for reports:

- :func:`transient_increase_propagation_delay` (§4.5.1),
- :func:`transient_increase_service_rate` (§4.5.2),
- :func:`transient_decrease_propagation_delay` (§4.5.3),
- :func:`transient_decrease_service_rate` (§4.5.4),

with the helpers :func:`pipeline_depth` (V = R/s_b), :func:`n_skip` and :func:`skiptime`.

Units. Chapter 2 sets the line rate μ = 1, so its delays are in "bit-times". Here sizes
(P_F, P_T, δ) may be in bits or bytes, and ``mu`` is the line rate in the same unit per
second; delays come back in seconds. With the default ``mu=1`` the numbers are the thesis's
(size units). Chapter 4 works per packet of one conversation: a service time s_i is
seconds per packet, a rate ρ = 1/s is packets per second, R is seconds, V and δV are
packets.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

__all__ = [
    "DelayBounds", "telnet_delay_fq", "telnet_delay_fq_phased", "telnet_delay_fcfs",
    "Transient", "pipeline_depth", "n_skip", "skiptime",
    "transient_increase_propagation_delay", "transient_increase_service_rate",
    "transient_decrease_propagation_delay", "transient_decrease_service_rate",
    "TABLE_4_1",
]


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


def _num(name: str, v, *, above: float | None = None, at_least: float | None = None) -> float:
    """``v`` as a finite float, else a ValueError naming ``name`` (NaN, infinities, strings
    and booleans included); ``above`` / ``at_least`` bound it from below."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {v!r}")
    if above is not None and not v > above:
        raise ValueError(f"{name}: expected a number above {above:g}, got {v!r}")
    if at_least is not None and not v >= at_least:
        raise ValueError(f"{name}: expected a number of at least {at_least:g}, got {v!r}")
    return float(v)


def _count(name: str, v, *, most: int | None = None) -> int:
    """``v`` as a positive integer (an integral float is accepted), else a ValueError."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(v) or int(v) != v or v < 1 or (most is not None and v > most):
        bound = f" up to {most}" if most is not None else ""
        raise ValueError(f"{name}: expected a positive integer{bound}, got {v!r}")
    return int(v)


def _flag(name: str, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, got {v!r}")
    return bool(v)


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


# ---------------------------------------------------------------------------------------
# Chapter 4 §4.5: packet-pair transients, Table 4.1
# ---------------------------------------------------------------------------------------

class Transient(NamedTuple):
    """One row of Table 4.1 evaluated: a step change at t0 and 2P's response.

    - ``bandwidth_loss``: bottleneck service the conversation loses, packets (an upper bound);
    - ``packet_loss``: packets dropped (0 in every row, given B ≥ 2ΔV buffers per
      conversation and n_b = ΔV ≥ δV queued, the §4.5 assumptions);
    - ``recovery_by``: the time, seconds, by which steady state is regained (an upper bound);
    - ``delta_v``: δV, the change in pipeline depth V = R/s_b, packets (positive for an
      increase): the deficit the source refills, or the excess the bottleneck queue absorbs.
    """
    bandwidth_loss: float
    packet_loss: float
    recovery_by: float
    delta_v: float


def pipeline_depth(r: float, s_b: float) -> float:
    """V = R/s_b (§4.4 principle 2): the packets a conversation needs outstanding to fill
    its share of the bottleneck with no queue. ``r`` round-trip propagation delay, s;
    ``s_b`` bottleneck service time, s per packet; returns packets."""
    return _num("r", r, at_least=0) / _num("s_b", s_b, above=0)


def n_skip(v_old: float, v_new: float) -> int:
    """Pair slots 2P skips when V falls (§4.4): max(⌈(V_old - V_new)/2⌉, 0).
    Spec V18: V_old = 10, V_new = 5 gives 3 (6 packets withheld)."""
    return max(math.ceil((_num("v_old", v_old) - _num("v_new", v_new)) / 2 - 1e-12), 0)


def skiptime(r: float, s_b_old: float, s_b_new: float, *, printed: bool = False) -> float:
    """How long 2P stops sending after the bottleneck slows from s_b_old to s_b_new, s.

    Repaired (default; spec M4.6 and §6 A3): skiptime = 2·s_b(t0+ε)·⌈(V_old - V_new)/2⌉ with
    V = R/s_b: n_skip pair slots, each 2·s_e long with the new s_e (§4.4, §4.5.3.2).
    ``printed=True`` evaluates the garbled form of Table 4.1 and §4.5.4.2,
    s_b(t0+ε)·max(⌈R/(2·s_b(t0-ε)) - R/s_b(t0+ε)⌉, 0), in which ½ applies to the first term
    only and the slot is s_b instead of 2·s_b; it is usually 0 for a slowdown, which is
    why it cannot be what was meant.
    """
    _num("r", r, at_least=0)
    _num("s_b_old", s_b_old, above=0)
    _num("s_b_new", s_b_new, above=0)
    if printed:
        return s_b_new * max(math.ceil(r / (2 * s_b_old) - r / s_b_new - 1e-12), 0)
    return 2 * s_b_new * n_skip(pipeline_depth(r, s_b_old), pipeline_depth(r, s_b_new))


def _upstream(upstream_s: Sequence[float], rho_throttle: float | None) -> tuple[float, float]:
    if isinstance(upstream_s, (str, bytes)) or not hasattr(upstream_s, "__len__") or not len(upstream_s):
        raise ValueError(f"upstream_s: expected the service times s_0 .. s_{{b-1}} (>= 0), source first, got {upstream_s!r}")
    s = [_num(f"upstream_s[{i}]", x, at_least=0) for i, x in enumerate(upstream_s)]
    throttle_s = 1.0 / _num("rho_throttle", rho_throttle, above=0) if rho_throttle is not None else max(s)
    return sum(s), throttle_s


def transient_increase_propagation_delay(t0: float, r_old: float, r_new: float, s_b: float,
                                         upstream_s: Sequence[float], *,
                                         rho_throttle: float | None = None) -> Transient:
    """Table 4.1 row 1, "Increase in propagation delay" (§4.5.1; spec M4.5).

    R grows from ``r_old`` to ``r_new`` at ``t0`` (a reroute), the bottleneck (service time
    ``s_b`` s/packet) unchanged. Bandwidth loss: none (the n_b = ΔV queued packets cover
    the gap; a pair split by the change is §4.5.1.1's Proposition 2, not a table entry).
    Packet loss: none. Recovery: the source learns by t0 + R(t0+ε), sends a burst of δV
    unpaired packets, whose last packet reaches the bottleneck by (Lemma 6, spec A4)

        t0 + R(t0+ε) + Σ_{i=0}^{b-1} s_i + δV/ρ_{sl_{b-1}}.

    ``upstream_s`` = [s_0, ..., s_{b-1}]: the per-packet service times of the source's line
    (server 0) and of every server before the bottleneck, s. ρ_{sl_{b-1}} is the rate of
    the last rate-throttle before the bottleneck, i.e. of the slowest of those servers,
    which paces the burst; ``rho_throttle`` (packets/s) overrides it. (§4.5.1.2's text
    omits the R(t0+ε) term that the table has; the table's form is used.)
    """
    _num("t0", t0)
    dv = pipeline_depth(r_new, s_b) - pipeline_depth(r_old, s_b)
    if dv < 0:
        raise ValueError("r_new < r_old: that is transient_decrease_propagation_delay")
    total, throttle_s = _upstream(upstream_s, rho_throttle)
    if max(float(x) for x in upstream_s) > s_b:
        raise ValueError(f"upstream_s: a server slower than s_b = {s_b:g} s/packet would be the bottleneck")
    return Transient(0.0, 0.0, t0 + r_new + total + dv * throttle_s, dv)


def transient_increase_service_rate(t0: float, r: float, s_b_old: float, s_b_new: float,
                                    upstream_s: Sequence[float], *, migrates: bool = False,
                                    queued: float | None = None,
                                    rho_throttle: float | None = None) -> Transient:
    """Table 4.1 row 2, "Increase in bottleneck service rate" (§4.5.2; the table's label
    says "service time", its content is §4.5.2's rate increase: spec M4.6, A3).

    The conversation's bottleneck service time falls from ``s_b_old`` to ``s_b_new``
    (s/packet) at ``t0`` (e.g. a competing conversation leaves an FQ switch); ``r`` is the
    round-trip propagation delay, s. δV = R/s_b_new - R/s_b_old.

    Bandwidth loss: 0 if the bottleneck does not migrate and at least δV packets are
    queued there (§4.5.2.1; the table's condition (s_b(t0+ε) - s_b(t0-ε))·R(t0) ≤ ΔV is
    read with rates, (μ_new - μ_old)·R ≤ ΔV, spec A3); at most δV if it migrates
    (``migrates=True``; upstream: no feasible scheme avoids it). ``queued`` (packets at the
    bottleneck when the change happens) defaults to the §4.5 assumption n_b = ΔV ≥ δV; if
    it is given and smaller than δV, the loss is δV - queued [INF: the bottleneck idles
    until the burst arrives; not in the thesis]. Packet loss: none. Recovery: "as above"
    (row 1) with R unchanged: t0 + R + Σ_{i=0}^{b-1} s_i + δV/ρ_{sl_{b-1}}.
    ``upstream_s`` and ``rho_throttle`` as in :func:`transient_increase_propagation_delay`.
    """
    _num("t0", t0)
    _num("s_b_old", s_b_old, above=0)
    _num("s_b_new", s_b_new, above=0)
    if queued is not None:
        _num("queued", queued, at_least=0)
    if not s_b_new <= s_b_old:
        raise ValueError("s_b_new > s_b_old: that is transient_decrease_service_rate")
    dv = pipeline_depth(r, s_b_new) - pipeline_depth(r, s_b_old)
    if migrates:
        loss = dv
    elif queued is not None:
        loss = max(dv - queued, 0.0)
    else:
        loss = 0.0
    total, throttle_s = _upstream(upstream_s, rho_throttle)
    return Transient(loss, 0.0, t0 + r + total + dv * throttle_s, dv)


def transient_decrease_propagation_delay(t0: float, r_old: float, r_new: float,
                                         s_b: float) -> Transient:
    """Table 4.1 row 3, "Decrease in propagation delay" (§4.5.3; spec M4.5).

    R falls from ``r_old`` to ``r_new`` at ``t0`` (a shorter route through the same
    bottleneck, service time ``s_b`` s/packet). The packets in transit land in the
    bottleneck queue, δV = (R_old - R_new)/s_b extra, which the 2ΔV buffers absorb: no
    bandwidth or packet loss. The source learns by t0 + R(t0+ε), skips (V_old - V_new)/2
    pair slots, R_old - R_new seconds, and the queue is back at n_b by t0 + R(t0-ε).
    ``delta_v`` is returned negative (V fell).
    """
    _num("t0", t0)
    dv = pipeline_depth(r_new, s_b) - pipeline_depth(r_old, s_b)
    if dv > 0:
        raise ValueError("r_new > r_old: that is transient_increase_propagation_delay")
    return Transient(0.0, 0.0, t0 + r_old, dv)


def transient_decrease_service_rate(t0: float, r: float, s_b_old: float, s_b_new: float, *,
                                    printed: bool = False) -> Transient:
    """Table 4.1 row 4, "Decrease in bottleneck service rate" (§4.5.4; the table's label
    says "service time", spec M4.6, A3).

    The conversation's bottleneck service time grows from ``s_b_old`` to ``s_b_new``
    (s/packet) at ``t0`` (e.g. a competing conversation arrives at an FQ switch); ``r`` is
    the round-trip propagation delay, s. Up to |δV| = R/s_b_old - R/s_b_new extra packets
    queue before the source reacts; the 2ΔV buffers absorb them: no bandwidth or packet
    loss. The source learns by t0 + R(t0), then skips n_skip pair slots; steady state is
    regained by

        t0 + R(t0) + skiptime,  skiptime = 2·s_b(t0+ε)·⌈(V_old - V_new)/2⌉

    (repaired: the printed skiptime is garbled, see :func:`skiptime`; ``printed=True``
    uses the printed form). ``delta_v`` is returned negative (V fell).
    """
    _num("t0", t0)
    _num("s_b_old", s_b_old, above=0)
    _num("s_b_new", s_b_new, above=0)
    if not s_b_new >= s_b_old:
        raise ValueError("s_b_new < s_b_old: that is transient_increase_service_rate")
    dv = pipeline_depth(r, s_b_new) - pipeline_depth(r, s_b_old)
    return Transient(0.0, 0.0, t0 + r + skiptime(r, s_b_old, s_b_new, printed=printed), dv)


#: Table 4.1 ("Summary of analytic results", thesis L1320-1333) as printed, for reports.
#: ``printed_change`` is the table's own label; ``change`` the reading the sections support
#: (rows 2 and 4 say "service time" but carry §4.5.2/§4.5.4's service-*rate* results, spec
#: A3). ``recovery_time`` is the printed entry (the text extraction of row 1 has a stray
#: "δV" before the sum, left out here, spec M4.6); ``recovery_time_used`` is what the
#: function computes. Symbols: t0 the time of the change, R round-trip propagation delay,
#: s_i service time of server i (the source is server 0, the bottleneck b), ρ = 1/s,
#: sl_j the j-th rate-throttle, δV the change in V = R/s_b.
TABLE_4_1: tuple[dict, ...] = (
    {
        "change": "Increase in propagation delay",
        "printed_change": "Increase in propagation delay",
        "section": "4.5.1",
        "bandwidth_loss": "None",
        "packet_loss": "None",
        "recovery_time": "≤ t0 + R(t0+ε) + Σ_{i=0}^{b-1} s_i + δV/ρ_{sl_{b-1}}",
        "recovery_time_used": "t0 + R(t0+ε) + Σ_{i=0}^{b-1} s_i + δV/ρ_{sl_{b-1}}",
        "function": "transient_increase_propagation_delay",
    },
    {
        "change": "Increase in bottleneck service rate",
        "printed_change": "Increase in bottleneck service time",
        "section": "4.5.2",
        "bandwidth_loss": "0, if no bottleneck migration; ≤ δV if bottleneck migrates",
        "packet_loss": "None",
        "recovery_time": "As above",
        "recovery_time_used": "t0 + R + Σ_{i=0}^{b-1} s_i + δV/ρ_{sl_{b-1}}",
        "function": "transient_increase_service_rate",
    },
    {
        "change": "Decrease in propagation delay",
        "printed_change": "Decrease in propagation delay",
        "section": "4.5.3",
        "bandwidth_loss": "None",
        "packet_loss": "None",
        "recovery_time": "≤ t0 + R(t0)",
        "recovery_time_used": "t0 + R(t0-ε)",
        "function": "transient_decrease_propagation_delay",
    },
    {
        "change": "Decrease in bottleneck service rate",
        "printed_change": "Decrease in bottleneck service time",
        "section": "4.5.4",
        "bandwidth_loss": "None",
        "packet_loss": "None",
        "recovery_time": "≤ t0 + R(t0) + s_b(t0+ε)·max(⌈R(t0)/(2 s_b(t0-ε)) - R(t0)/s_b(t0+ε)⌉, 0)",
        "recovery_time_used": "t0 + R(t0) + 2·s_b(t0+ε)·⌈(V_old - V_new)/2⌉ (repaired, spec A3)",
        "function": "transient_decrease_service_rate",
    },
)
