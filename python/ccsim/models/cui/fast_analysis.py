"""Chapter 4's closed forms and Appendix C's asymptotics for FAST and prose Vegas (spec §4.8,
targets A5, A8 and A15), beside the numerical solutions of :mod:`.fast` they summarise.

- (4.22) prose Vegas's first flow after a second arrives, x+_1(2) = 2c / (3 + a + √((1 + a)(5 + a)))
  with a = α+/c, and (4.23) FAST's 2c / (3 + √5);
- B(i)/B(1) − ln i, the queue the i-th arrival adds against the first's, from (4.19) (the thesis:
  "B(i)/B(1) = log(i) + o(1)");
- Appendix C: new flows joining N flows that know the propagation delay, (C.4) solved one
  arrival at a time, and its constants b_1/α = (1 + √(1 + 4N))/2 (C.5) and
  a_2 = 0.801938, the root of 2a + 1 = a (a + 1)^2 (C.6); the old/new rate ratio
  2/(1 + √(1 + 4N)) of Fig 4.10;
- §4.4.2's drain time of the four-phase algorithm, the exact (α/(2c))(1 + 3N + (N + 1)√(1 + 4N))
  and the thesis's approximation (α/c)(N^1.5 + N), and the largest N whose drain fits in a
  round trip.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from ._common import choice, count, num
from .fast import fast_persistent_congestion, vegas_persistent_congestion

__all__ = ["vegas_two_flow_share", "vegas_two_flow_check", "fast_two_flow_share", "fast_share", "fast_increment_log_gap", "informed_arrivals",
           "informed_ratio", "informed_b1", "appendix_c_a2", "old_new_ratio", "drain_time", "drain_threshold"]


def vegas_two_flow_share(alpha_over_c: float) -> float:
    """(4.22): x+_1(2)/c for prose Vegas, a = α+/c."""
    a = num("alpha_over_c", alpha_over_c, above=0)
    return 2.0 / (3.0 + a + math.sqrt((1.0 + a) * (5.0 + a)))


def vegas_two_flow_check(alpha_over_c: float, d: float = 0.04) -> float:
    """(4.22) over the numerical solution of (4.10)-(4.12) for two flows (A8: 1 to 1e-6)."""
    a = num("alpha_over_c", alpha_over_c, above=0)
    numeric = vegas_persistent_congestion(2, a, 1.0, num("d", d, above=0)).rates[1][0]
    return vegas_two_flow_share(a) / numeric


def fast_share(i: int, j: int) -> float:
    """x_j(i)/c from (4.19)-(4.20): flow j's share with i flows present."""
    i = int(count("i", i, at_least=1))
    j = int(count("j", j, at_least=1))
    if j > i:
        raise ValueError(f"j: expected a flow present, 1..{i}, got {j}")
    return float(fast_persistent_congestion(i, 1.0, 1.0).rates[i - 1][j - 1])


def fast_two_flow_share() -> float:
    """(4.23): x_1(2)/c = 2/(3 + √5) for FAST."""
    return 2.0 / (3.0 + math.sqrt(5.0))


def fast_increment_log_gap(i: int) -> float:
    """B(i)/B(1) − ln i from (4.19): B(i) = c (p(i) − p(i − 1)), the queue the i-th flow adds."""
    i = int(count("i", i, at_least=1))
    q = fast_persistent_congestion(i, 1.0, 1.0).queue
    b = np.diff(np.concatenate([[0.0], q]))
    return float(b[-1] / b[0] - math.log(i))


def informed_arrivals(n: int, i: int, alpha: float = 1.0) -> np.ndarray:
    """Appendix C (C.4): b_1..b_i, the queue each of i new flows adds (packets) when they join,
    one by one, ``n`` flows that know the propagation delay and keep b_0 = α each."""
    n = int(count("n", n, at_least=1))
    i = int(count("i", i, at_least=1, at_most=1000))
    alpha = num("alpha", alpha, above=0)
    b = []
    for _ in range(i):
        def excess(x: float, prev=tuple(b)) -> float:
            ks = list(prev) + [x]
            tails = np.cumsum(ks[::-1])[::-1]          # Σ_{k=j}^{i} b_k for j = 1..i
            return n / (n * alpha + sum(ks)) + float(np.sum(1.0 / tails)) - 1.0 / alpha

        lo, hi = 1e-12 * alpha, alpha
        while excess(hi) > 0:
            hi *= 2.0
        b.append(brentq(excess, lo, hi, xtol=1e-14 * alpha, rtol=1e-14))
    return np.array(b)


def informed_ratio(n: int, i: int) -> float:
    """(C.4) solved numerically against its asymptotic form: b_1/α over (C.5) for i = 1, and
    b_i/(α √N) over a_i for i = 2 (a_2 from (C.6))."""
    i = int(count("i", i, at_least=1))
    if i > 2:
        raise ValueError(f"i: (C.5) and (C.6) give b_1 and b_2, got {i}")
    b = informed_arrivals(n, i)
    return float(b[0] / informed_b1(n)) if i == 1 else float(b[1] / math.sqrt(n) / appendix_c_a2())


def informed_b1(n: int) -> float:
    """(C.5): b_1/α = (1 + √(1 + 4N))/2."""
    n = int(count("n", n, at_least=1))
    return (1.0 + math.sqrt(1.0 + 4.0 * n)) / 2.0


def appendix_c_a2() -> float:
    """(C.6): a_2, the positive root of 2a + 1 = a (a + 1)^2."""
    return brentq(lambda a: a * (a + 1.0) ** 2 - 2.0 * a - 1.0, 0.1, 2.0, xtol=1e-15)


def old_new_ratio(n: int) -> float:
    """Fig 4.10's pure-FAST prediction from (4.26): an old flow's rate over the newcomer's,
    b_1/(N α + b_1) with b_1 from (C.5), which is 2/(1 + √(1 + 4N))."""
    n = int(count("n", n, at_least=1))
    return 2.0 / (1.0 + math.sqrt(1.0 + 4.0 * n))


def drain_time(n: int, alpha: float, c: float, form: str = "exact") -> float:
    """§4.4.2: seconds the four-phase algorithm's drain takes with N flows on the link: "exact",
    (α/(2c))(1 + 3N + (N + 1)√(1 + 4N)), or "thesis", (α/c)(N^1.5 + N) (its 4.16 (N^1.5 + N) ms
    for α = 50 and c = 12 019 packets/s of 1040 B)."""
    n = int(count("n", n, at_least=1))
    ac = num("alpha", alpha, above=0) / num("c", c, above=0)
    form = choice("form", form, ("exact", "thesis"))
    if form == "exact":
        return ac / 2.0 * (1.0 + 3.0 * n + (n + 1.0) * math.sqrt(1.0 + 4.0 * n))
    return ac * (n ** 1.5 + n)


def drain_threshold(rtt: float, alpha: float, c: float, form: str = "exact") -> int:
    """The largest N whose drain fits in ``rtt`` seconds (0 if none): the drain grows with N,
    so the answer is bracketed by doubling and found by bisection."""
    rtt = num("rtt", rtt, above=0)
    fits = lambda n: drain_time(n, alpha, c, form) <= rtt  # noqa: E731
    if not fits(1):
        return 0
    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
