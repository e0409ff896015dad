"""Cui, chapter 3 §3.6.1 and §3.6.5 (experiment E3.6): the detailed open-loop model of one
output trunk, by Monte Carlo, and, for B = 0, exactly.

The detailed model (spec §4.2, with the §6 item 11 reading): each of M input ports alternates
an idle gap (exponential, mean 1/λ) and a packet (exponential length, mean 1/µ), whatever
becomes of the packet: a port stays busy for the whole packet even when it is discarded, so
the ports' arrival processes do not depend on the switch. A packet arriving while fewer than
K + B packets are held (in the buffer or being output) is accepted: cut-through to an idle
output link if there is one, else into the shared FIFO; a buffer space is freed when its packet
*starts* being output; an output link is busy for the packet's length (the same length that
kept its input port busy). P_B is the fraction of arrivals discarded.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve
from scipy.stats import t as student_t

from ._common import choice, count, num
from .mathis import lam_from_rho, normalised_load

__all__ = ["MonteCarlo", "monte_carlo_switch", "bufferless_detailed_loss"]


@dataclass(frozen=True)
class MonteCarlo:
    """One Monte Carlo estimate. ``p_loss`` ± ``p_loss_ci`` and ``utilisation`` ±
    ``utilisation_ci``: batch means with two-sided Student-t intervals at ``confidence``
    (half-widths). ``utilisation`` is the output links' measured busy time over K × time, which
    should match ρ(1 − P_B). ``arrivals``/``lost``: counts after the warm-up."""

    m: int
    k: int
    b: int
    rho: float
    p_loss: float
    p_loss_ci: float
    utilisation: float
    utilisation_ci: float
    arrivals: int
    lost: int
    batches: int
    confidence: float


def _arrivals(m, lam, mu, per_port, rng):
    """All ports' packet start times and lengths, merged in time order. Each port starts in its
    stationary state: busy with a packet (probability λ/(λ+µ), residual length exp(µ)) or idle
    (residual gap exp(λ))."""
    gaps = rng.exponential(1.0 / lam, size=(m, per_port))
    lengths = rng.exponential(1.0 / mu, size=(m, per_port))
    busy_at_0 = rng.random(m) < lam / (lam + mu)
    first = np.where(busy_at_0, rng.exponential(1.0 / mu, size=m), 0.0) + gaps[:, 0]
    # start_j = first + Σ_{l<j} (length_l + gap_{l+1})
    steps = lengths[:, :-1] + gaps[:, 1:]
    starts = np.concatenate((first[:, None], first[:, None] + np.cumsum(steps, axis=1)), axis=1)
    horizon = float(np.min(starts[:, -1]))  # beyond it some port has run out of packets
    keep = starts <= horizon
    order = np.argsort(starts[keep], kind="stable")
    return starts[keep][order], lengths[keep][order]


def _run_queue(times, lengths, k, b, slot_freed):
    """The K output links with a shared FIFO of B spaces, arrivals in time order. An arrival
    that finds an idle link goes straight out (cut-through, no buffer space); else it takes a
    free buffer space, if any, and starts on the first link to fall idle (FIFO); else it is
    discarded. A space is held until its packet starts (``slot_freed="start"``) or finishes
    (``"end"``) being output. Returns a boolean array: accepted or not."""
    servers = [0.0] * k          # heap: the times the output links next fall idle
    slots = []                   # heap: the times the occupied buffer spaces fall free
    accepted = np.zeros(times.size, dtype=bool)
    heappush, heappop, heapreplace = heapq.heappush, heapq.heappop, heapq.heapreplace
    at_end = slot_freed == "end"
    for j, (a, length) in enumerate(zip(times.tolist(), lengths.tolist())):
        free = servers[0]
        if free <= a:            # an idle link: no packet is waiting either (FIFO)
            heapreplace(servers, a + length)
        else:
            while slots and slots[0] <= a:
                heappop(slots)
            if len(slots) >= b:
                continue
            heapreplace(servers, free + length)
            heappush(slots, free + length if at_end else free)
        accepted[j] = True
    return accepted


def monte_carlo_switch(m: int, k: int, b: int, *, rho: float | None = None,
                       lam: float | None = None, mu: float = 1.0, arrivals: int = 200_000,
                       warmup: float = 0.05, batches: int = 20, confidence: float = 0.95,
                       seed: int = 1, slot_freed: str = "start") -> MonteCarlo:
    """Simulate the detailed switch model and estimate P_B and the utilisation.

    Source: §3.6.1 (the detailed model), §3.6.5 (its Monte Carlo: "both the packet size and the
    packet interval are exponentially distributed"; Figs 3.17-3.41; runs long enough for the
    95 % Student-t interval to be within 3 % of P_B); spec §4.2 and §6 item 11 for the switch
    semantics (module docstring).

    ``m``, ``k``, ``b``: input ports, output links, buffer spaces; the load as exactly one of
    ``rho`` (3.14) or ``lam`` (1/mean gap); ``mu``: packets/s per link; ``arrivals``: about how
    many packets to simulate in all (M ports × arrivals/M each, cut at the first port to run
    out); ``warmup``: the leading fraction of arrivals left out of the estimates (ports start
    in their stationary state, the switch empty); ``batches``: consecutive batches for the
    batch-means intervals; ``seed``: numpy Generator seed (same seed, same result);
    ``slot_freed``: when a buffer space falls free, ``"start"`` (when its packet starts being
    output: the thesis's travelling-wave buffer, "available ... if the packet it is storing is
    currently being output", §3.6.1; then admission is exactly "fewer than K + B held") or
    ``"end"`` (when it has been output: a store that must hold the whole packet). The other
    §6 item 11 choice, cut-through rather than store-and-forward to an idle link, is fixed:
    the thesis's "busy" port state sends the packet on while it arrives.

    A plain Python loop over the arrivals (two heaps: the output links' next idle times and
    the held packets' departures), about 1 µs per arrival: 2·10⁵ arrivals take about 0.2 s. A
    compiled version would be worth it only for P_B far below 1e-5 (Fig 3.24's lower decades).
    """
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    b_ = count("b", b, at_least=0)
    mu_ = num("mu", mu, above=0)
    if (rho is None) == (lam is None):
        raise ValueError("give exactly one of rho (the normalised load (3.14)) and lam (1/mean gap)")
    lam_ = lam_from_rho(rho, m_, k_, mu_) if rho is not None else num("lam", lam, above=0)
    rho_ = normalised_load(m_, k_, lam_, mu_)
    n = count("arrivals", arrivals, at_least=100)
    w = num("warmup", warmup, at_least=0, below=1)
    nb = count("batches", batches, at_least=2)
    conf = num("confidence", confidence, above=0, below=1)
    rng = np.random.default_rng(count("seed", seed))
    times, lengths = _arrivals(m_, lam_, mu_, max(2, math.ceil(n / m_)), rng)
    accepted = _run_queue(times, lengths, k_, b_, choice("slot_freed", slot_freed, ("start", "end")))
    start = int(w * times.size)
    times, lengths, accepted = times[start:], lengths[start:], accepted[start:]
    if times.size < 10 * nb:
        raise ValueError(f"arrivals: too few after the warm-up for {nb} batches")
    edges = np.linspace(0, times.size, nb + 1).astype(int)
    p_b, u_b = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        acc = accepted[lo:hi]
        p_b.append(1.0 - acc.mean())
        span = (times[hi] if hi < times.size else times[-1]) - times[lo]
        u_b.append(float(lengths[lo:hi][acc].sum()) / (k_ * span))
    tq = float(student_t.ppf(0.5 + conf / 2.0, nb - 1))

    def mean_ci(xs):
        xs = np.asarray(xs)
        return float(xs.mean()), tq * float(xs.std(ddof=1)) / math.sqrt(nb)

    p, p_ci = mean_ci(p_b)
    u, u_ci = mean_ci(u_b)
    return MonteCarlo(m=m_, k=k_, b=b_, rho=rho_, p_loss=p, p_loss_ci=p_ci, utilisation=u,
                      utilisation_ci=u_ci, arrivals=int(times.size),
                      lost=int(times.size - accepted.sum()), batches=nb, confidence=conf)


def bufferless_detailed_loss(m: int, k: int, *, rho: float | None = None, lam: float | None = None,
                             mu: float = 1.0) -> float:
    """P_B of the detailed model with B = 0, exactly: the Markov chain of (i, d), i busy output
    links (each with its busy input port) and d discarding ports; idle ports, M − i − d of them,
    start packets at rate λ each (to an idle output if i < K, else discarded), busy and
    discarding ports finish at rate µ each. P_B = Σ_d (M − K − d)p(K, d)/Σ_{i,d}(M − i − d)p(i, d).

    Source: derived here from §3.6.1's state description (not in the thesis): with no buffer
    an output link is busy exactly while its input port is, so the two-dimensional chain is
    the detailed model itself. G1DM's Approximation 2 (λ*) replaces d by its mean effect; this
    function measures that approximation, and checks :func:`monte_carlo_switch`.
    """
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    mu_ = num("mu", mu, above=0)
    if (rho is None) == (lam is None):
        raise ValueError("give exactly one of rho (the normalised load (3.14)) and lam (1/mean gap)")
    lam_ = lam_from_rho(rho, m_, k_, mu_) if rho is not None else num("lam", lam, above=0)
    if m_ <= k_:
        return 0.0
    states = [(i, d) for i in range(k_ + 1) for d in range(m_ - i + 1)]
    index = {s: j for j, s in enumerate(states)}
    rows, cols, vals = [], [], []
    for (i, d), j in index.items():
        idle = m_ - i - d
        for to, rate in (((i + 1, d) if i < k_ else (i, d + 1), idle * lam_), ((i - 1, d), i * mu_),
                         ((i, d - 1), d * mu_)):
            if rate:
                rows += [index[to], j]
                cols += [j, j]
                vals += [rate, -rate]
    # πQ = 0 as Qᵀπ = 0 (a sparse generator: a few thousand states for (80, 20)), with the last
    # equation replaced by Σπ = 1
    qt = sparse.coo_matrix((vals, (rows, cols)), shape=(len(states), len(states))).tolil()
    qt[len(states) - 1, :] = np.ones(len(states))
    rhs = np.zeros(len(states))
    rhs[-1] = 1.0
    p = spsolve(qt.tocsc(), rhs)
    offered = sum((m_ - i - d) * p[j] for (i, d), j in index.items())
    lost = sum((m_ - k_ - d) * p[index[(k_, d)]] for d in range(m_ - k_ + 1))
    return float(lost / offered)
