"""FAST TCP's persistent congestion on a network of links (Cui App. B exp. 2, spec §5.2 EB2).

:func:`.fast.fast_persistent_congestion` is one link. On several, flow i settles where its rate
is x_i = α_i / (q_i − b_i): q_i the sum of the queueing delays p_l over its route, b_i the part
of it the flow took for propagation delay because it was there when the flow arrived (the
route's queueing delay just before it joined). These are the optimality conditions of
maximising Σ α_i log x_i + b_i x_i over rates that fit the links, so the rates are unique; a
link has a queue (p_l > 0) only if it is full.

The queueing delays need not be unique: a flow alone on a chain of equal links fills all of
them, and the fluid model cannot say which one holds its queue. The packets can: the queue
builds at the first full link of the route, and the links after it see at most its rate. So
among the sets of full links with positive prices that solve the conditions, the one chosen is
the smallest, and of those the most upstream (links numbered upstream first). Each set is solved
by scipy's root finder in log p.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple, Sequence

import numpy as np
from scipy.optimize import root

from ._common import count, num

__all__ = ["FastNetwork", "fast_network_persistent"]

MAX_LINKS = 16   # the sets of full links tried grow as 2^links


class FastNetwork(NamedTuple):
    """After each arrival k (index k − 1): ``delay[k − 1][l]`` the link's queueing delay p_l
    (s) and ``rates[k − 1][i]`` flow i's rate (packets/s; NaN for flows not there yet);
    ``bias[i]``, the queueing delay flow i took for propagation delay."""
    delay: np.ndarray
    rates: np.ndarray
    bias: np.ndarray


def fast_network_persistent(routes: Sequence[Sequence[int]], capacities: Sequence[float],
                            alpha: float | Sequence[float]) -> FastNetwork:
    """Flows with these ``routes`` (lists of link indices, links numbered upstream first) join
    one by one, each after the previous equilibrium, links of ``capacities`` packets/s;
    ``alpha`` one value or one per flow."""
    caps = np.array([num(f"capacities[{j}]", c, above=0) for j, c in enumerate(capacities)])
    n_links = len(caps)
    if not len(routes):
        raise ValueError("routes: expected at least one flow")
    paths = []
    for i, r in enumerate(routes):
        links = [int(count(f"routes[{i}][]", x)) for x in r]
        if not links or max(links) >= n_links:
            raise ValueError(f"routes[{i}]: expected link indices in [0, {n_links}), got {list(r)!r}")
        paths.append(links)
    n = len(paths)
    alphas = np.array([num("alpha", a, above=0) for a in (alpha if isinstance(alpha, Sequence) else [alpha] * n)])
    if len(alphas) != n:
        raise ValueError(f"alpha: expected one value or {n}, got {len(alphas)}")
    incidence = np.zeros((n, n_links))
    for i, links in enumerate(paths):
        incidence[i, links] = 1.0
    p = np.zeros(n_links)
    bias = np.zeros(n)
    delays = np.zeros((n, n_links))
    rates = np.full((n, n), np.nan)
    for k in range(n):
        bias[k] = incidence[k] @ p
        p = _equilibrium(incidence[:k + 1], caps, alphas[:k + 1], bias[:k + 1], p)
        delays[k] = p
        rates[k, :k + 1] = alphas[:k + 1] / (incidence[:k + 1] @ p - bias[:k + 1])
    return FastNetwork(delay=delays, rates=rates, bias=bias)


def _equilibrium(a: np.ndarray, caps: np.ndarray, alphas: np.ndarray, bias: np.ndarray,
                 previous: np.ndarray) -> np.ndarray:
    used = np.nonzero(a.sum(axis=0) > 0)[0]
    if len(used) > MAX_LINKS:
        raise ValueError(f"routes: they use {len(used)} links; the search over sets of full links "
                         f"takes at most {MAX_LINKS}")
    for size in range(1, len(used) + 1):
        for full in combinations(used.tolist(), size):
            p = _solve(a, caps, alphas, bias, list(full), previous)
            if p is not None:
                return p
    raise ValueError("no equilibrium found: check the routes and capacities")


def _solve(a, caps, alphas, bias, full: list[int], previous: np.ndarray) -> np.ndarray | None:
    def prices(y):
        p = np.zeros(len(caps))
        p[full] = np.exp(y)
        return p

    def residual(y):
        gap = a @ prices(y) - bias
        if np.any(gap <= 0):
            return np.full(len(full), 1e6)
        return (a[:, full].T @ (alphas / gap)) / caps[full] - 1.0

    load = a[:, full].T @ alphas / caps[full]
    start = np.maximum(previous[full], 0) + load + (a[:, full].T @ bias) / np.maximum(a[:, full].sum(axis=0), 1)
    sol = root(residual, np.log(start), method="hybr", options={"xtol": 1e-13})
    if not sol.success or np.max(np.abs(residual(sol.x))) > 1e-9:
        return None
    p = prices(sol.x)
    gap = a @ p - bias
    if np.any(gap <= 0):
        return None
    flow = a.T @ (alphas / gap)
    if np.any(flow > caps * (1 + 1e-9)):
        return None
    return p
