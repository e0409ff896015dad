"""Keshav 1991 chapter 4 §4.5: the transient response of packet-pair (2P) flow control to a
step change, one function per row of Table 4.1 (the package docstring has the details)."""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from .._checks import num as _num

__all__ = [
    "Transient", "pipeline_depth", "n_skip", "skiptime",
    "transient_increase_propagation_delay", "transient_increase_service_rate",
    "transient_decrease_propagation_delay", "transient_decrease_service_rate",
    "TABLE_4_1",
]


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
