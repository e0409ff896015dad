"""Cui, chapter 3 §3.7: the closed-loop model. TCP's Mathis demand (3.22) against the switch's
loss (the open-loop models of :mod:`.g1dm`) gives the operating point (P_B, λ) and the
utilisation U = ρ(1 − P_B).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.optimize import brentq

from ._common import choice, count, num
from .g1dm import MODELS, OpenLoop, _chain, open_loop
from .mathis import MU_40G, RTT_H_THESIS, normalised_load, tcp_lambda, tcp_min_loss

__all__ = ["ClosedLoop", "closed_loop"]


@dataclass(frozen=True)
class ClosedLoop:
    """The closed loop's operating point: ``utilisation`` U = ρ(1 − P_B); ``p_loss`` P_B;
    ``lam`` λ from (3.22); ``rho`` from (3.14); ``throughput_pps`` = UKµ, the trunk's carried
    packets/s; ``switch``: the open-loop solution at that λ (its ``p_loss`` equals ``p_loss``)."""

    model: str
    utilisation: float
    p_loss: float
    lam: float
    rho: float
    throughput_pps: float
    switch: OpenLoop


def closed_loop(m: int, k: int, b: int, n: float, *, mu: float = MU_40G,
                rtt_h: float = RTT_H_THESIS, model: str = "g1dm") -> ClosedLoop:
    """Bottleneck utilisation and loss of N greedy TCP flows through one output trunk.

    Source: §3.7.1: the TCP side λ = λ(P_B) of (3.22) (Mathis (3.19)-(3.20) against the intended
    load (3.21)); the switch side P_B = open-loop model(M, K, B, λ, µ) (§3.6; G1DM by default,
    which the thesis recommends: "never more than 7 %" from extrapolated ns2, Figs 3.42-3.47);
    output U = ρ(1 − P_B) (3.3), ρ from (3.14).

    ``m``: input links; ``k``: output links; ``b``: buffer spaces; ``n``: TCP flows; ``mu``: one
    link's rate in packets/s (default 40 Gb/s of 8320-bit packets); ``rtt_h``: harmonic mean
    round-trip propagation delay, s (default the thesis's 109.1 ms for 60-180 ms); ``model``:
    one of :data:`.g1dm.MODELS`.

    Solution: the thesis bisects on P_B over (P_B,min, 1), P_B,min = (N√1.5/(MµRTT_H))² (below
    it the demand exceeds the input links). Here brentq finds the root of
    log F(λ(P), P) − log P in log P, F being the one-pass map (3.13) with λ* taken at the same
    P: it decreases in P (λ(P) falls and λ* with it), so the crossing is unique, and at it the
    switch's own fixed point holds too. A point takes about a millisecond ("in a matter of
    seconds" in the thesis). Raises ValueError when MµRTT_H ≤ N√1.5 (no operating point with
    P_B < 1), or when the switch loses less than P_B,min even with every input link always
    busy (the input links, not the trunk, would limit the flows; (3.22) does not cover it).

    Reproduces every closed-loop number of spec Appendix Z.1-Z.4 to its printed 3 decimals
    (tests/test_models_cui.py), e.g. K = 100, M = 400, N = 400,000, B = 0: U = 0.731 (the
    thesis's extrapolated ns2: 72 %). Spec slip: Z.3 prints P_B = 2.0e-4 for M = 2, K = 1,
    B = 10, N = 4000 beside U = 0.742; Mathis (3.4) at U = 0.742 forces 1.6e-4, which this gives.
    """
    model = choice("model", model, MODELS)
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    b_ = count("b", b, at_least=0)
    n_ = num("n", n, above=0)
    mu_ = num("mu", mu, above=0)
    rtt = num("rtt_h", rtt_h, above=0)
    if model != "mmkb" and not m_ > k_:
        raise ValueError(f"m: expected more input links than output links (K = {k_}), got {m!r}")
    p_min = tcp_min_loss(n_, m_, mu_, rtt)
    if not p_min < 1:
        raise ValueError(f"n: {n_:g} flows demand more than M = {m_} links can carry at any loss "
                         f"(P_B,min = {p_min:.4g} >= 1)")

    def h(x: float) -> float:
        p = math.exp(x)
        return _chain(m_, k_, b_, tcp_lambda(p, n_, m_, mu_, rtt), mu_, p, model)[0] - x

    lo = math.log(p_min) + 1e-12 * max(1.0, abs(math.log(p_min)))
    if h(lo) <= 0:
        raise ValueError(f"n: the {n_:g} flows' demand saturates the M = {m_} input links before "
                         f"the trunk (switch loss at full input load < P_B,min = {p_min:.4g})")
    x = 0.0 if h(0.0) >= 0 else brentq(h, lo, 0.0, xtol=1e-13, rtol=1e-15, maxiter=300)
    p = math.exp(x)
    lam = tcp_lambda(p, n_, m_, mu_, rtt)
    switch = open_loop(m_, k_, b_, lam=lam, mu=mu_, model=model)
    rho = normalised_load(m_, k_, lam, mu_)
    u = rho * (1.0 - p)
    return ClosedLoop(model=model, utilisation=u, p_loss=p, lam=lam, rho=rho,
                      throughput_pps=u * k_ * mu_, switch=switch)
