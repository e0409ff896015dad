"""FAST TCP's equilibrium and persistent congestion (Cui ch. 4 §4.3, spec §4.8).

A FAST flow keeps α packets of its own in the queues of its path once it knows its true
propagation delay d: its window settles at w* = D α / (D − d) (4.3), its rate at α / (D − d).
Under *persistent congestion* flows join one link one at a time, each after the system has
settled, and a newcomer takes the RTT it first sees, d + p(i − 1), for its propagation delay.
With p(i) the link's total queueing delay once i flows are present (p(0) = 0), (4.19) reads

    Σ_{j=1..i} 1 / (p(i) − p(j − 1)) = c / α,

flow j's rate is x_j(i) = α / (p(i) − p(j − 1)) (4.20), and the queue holds c p(i) packets. None
of it depends on d, and x_1(i) / c does not depend on α. :func:`fast_persistent_congestion`
solves (4.19) one arrival at a time (each step has one root above p(i − 1): the left side falls
from +inf to below c/α); :func:`fast_equilibrium_window` is (4.3).

:func:`vegas_persistent_congestion` is the same for Cui's "prose" Vegas (α+ in packets/s,
(4.10)-(4.12)): Σ_{j=1..i} (d + p(j − 1)) / (p(i) − p(j − 1)) = c / α+, p(1) = α+ d / c, and
x_j(i) = α+ (d + p(j − 1)) / (p(i) − p(j − 1)); here d matters.

Checked against the thesis's closed form x_1(2) = 2c / (3 + √5) = 0.38197 c (4.23) and the spec's
EB1 numbers (α = 200, c = 12 500 packets/s: queues 200, 523.6, 919.9 packets) in
tests/test_models_cui.py, and against ccsim's ``cc = "fast"`` in tests/test_fast.py.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from ._common import count, num

__all__ = ["FastPersistent", "fast_persistent_congestion", "fast_equilibrium_window",
           "vegas_persistent_congestion", "vegas_queueing_delay", "vegas_delay_bound"]


class FastPersistent(NamedTuple):
    """Persistent congestion after each arrival i = 1..n (index i − 1).

    - ``delay``: p(i), the link's queueing delay, seconds;
    - ``queue``: c p(i), packets queued;
    - ``rates``: ``rates[i − 1][j − 1]`` = x_j(i), packets/s (flows j > i are not there: NaN).
    """
    delay: np.ndarray
    queue: np.ndarray
    rates: np.ndarray


def fast_persistent_congestion(n: int, alpha: float, c: float) -> FastPersistent:
    """(4.19)-(4.20) for ``n`` flows of parameter ``alpha`` (packets) arriving one by one at a
    link of ``c`` packets/s."""
    n = int(count("n", n, at_least=1))
    alpha = num("alpha", alpha, above=0)
    c = num("c", c, above=0)
    p = np.zeros(n + 1)
    for i in range(1, n + 1):
        prev = p[:i]                      # p(0) .. p(i - 1)

        def excess(x: float, prev=prev) -> float:
            return float(np.sum(1.0 / (x - prev))) - c / alpha

        lo = p[i - 1]
        # At x = p(i-1) + alpha/c the last term alone is c/alpha: the root lies beyond it, and
        # the sum falls below c/alpha by x = p(i-1) + i alpha / c.
        p[i] = brentq(excess, lo + alpha / c, lo + i * alpha / c + 1e-12, xtol=1e-15, rtol=1e-13)
    rates = np.full((n, n), np.nan)
    for i in range(1, n + 1):
        rates[i - 1, :i] = alpha / (p[i] - p[:i])
    return FastPersistent(delay=p[1:], queue=c * p[1:], rates=rates)


def fast_equilibrium_window(alpha: float, rtt: float, base_rtt: float) -> float:
    """(4.3): the window w* = D α / (D − d) at which a FAST flow with parameter ``alpha``
    (packets), round trip ``rtt`` = D and propagation delay ``base_rtt`` = d (seconds, d < D)
    keeps exactly α packets queued."""
    alpha = num("alpha", alpha, above=0)
    rtt = num("rtt", rtt, above=0)
    base_rtt = num("base_rtt", base_rtt, at_least=0, below=rtt)
    return rtt * alpha / (rtt - base_rtt)


def vegas_persistent_congestion(n: int, alpha_rate: float, c: float, d: float) -> FastPersistent:
    """(4.10)-(4.12): ``n`` prose-Vegas flows (parameter ``alpha_rate`` = α+, packets/s) arriving
    one by one at a link of ``c`` packets/s with propagation delay ``d`` seconds."""
    n = int(count("n", n, at_least=1))
    a = num("alpha_rate", alpha_rate, above=0)
    c = num("c", c, above=0)
    d = num("d", d, above=0)
    p = np.zeros(n + 1)
    for i in range(1, n + 1):
        prev = p[:i]
        weight = d + prev

        def excess(x: float, prev=prev, weight=weight) -> float:
            return float(np.sum(weight / (x - prev))) - c / a

        lo = p[i - 1] + a * (d + p[i - 1]) / c       # the last term alone is c / alpha_rate
        hi = p[i - 1] + i * a * (d + p[i - 1]) / c   # every term at most the last's numerator
        p[i] = lo if hi <= lo else brentq(excess, lo, hi, xtol=1e-300, rtol=1e-13)
    rates = np.full((n, n), np.nan)
    for i in range(1, n + 1):
        rates[i - 1, :i] = a * (d + p[:i]) / (p[i] - p[:i])
    return FastPersistent(delay=p[1:], queue=c * p[1:], rates=rates)


def vegas_queueing_delay(i: int, alpha_rate: float, c: float, d: float) -> float:
    """p(i) of :func:`vegas_persistent_congestion`, seconds: Table 4.1's row "Eq. (4.10)"."""
    i = int(count("i", i, at_least=1))
    return float(vegas_persistent_congestion(i, alpha_rate, c, d).delay[i - 1])


def vegas_delay_bound(i: int, alpha_rate: float, c: float, d: float) -> float:
    """d (α+/c)^i, seconds: Table 4.1's first row, the growth (4.10) approaches when α+ ≫ c."""
    return num("d", d, above=0) * (num("alpha_rate", alpha_rate, above=0) / num("c", c, above=0)) ** int(count("i", i, at_least=1))
