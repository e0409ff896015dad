"""Cui, chapter 3 §3.6: the open-loop models of one output trunk of a DWDM switch: loss
probability P_B and utilisation U for a given load, eqs (3.5)-(3.18).

The system (spec ``cui-buffers-fast-adpm.md`` §2.18, §4.3): M input links (ports) feed one
output trunk of K links (wavelengths, full conversion) and B shared buffer spaces. Each input
port alternates an idle gap of mean 1/λ and a packet of mean length 1/µ. State i is the number
of packets in the buffer or being output, 0 ≤ i ≤ K + B; an arrival is accepted iff i < K + B.

Models, in decreasing fidelity (§3.6.2, §3.6.4); ``model=`` takes these names:

- ``"g1dm"``: the General One-Dimensional Model, (3.5)-(3.13), a fixed point in P_B;
- ``"ebd"``: Engset with buffer and discarding ports, λ̂(i) = λ* for i > K (a fixed point);
- ``"ebi"``: Engset with buffer and inserting ports, λ* = λ and P_B = 0 in (3.9) (one pass);
- ``"eb"``: Engset with buffer, λ* = λ̂(i) = λ (one pass);
- ``"mmkb"``: M/M/K/(K+B), Poisson arrivals of total rate Mλµ/(λ+µ) = Kρµ, (3.15).

The thesis solves its fixed point by repeated averaging (3.13); here a bracketing root finder
(scipy's brentq) on log P_B finds the same point: the one-pass map P ↦ P' decreases in P
(a larger P_B means a smaller λ* and fewer arrivals), so the fixed point is unique (spec §4.3
[R]). The chain is built in log space, so P_B down to 1e-300 and buffers of thousands are fine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln

from ._common import choice, count, log_binomial, logsumexp, num
from .mathis import lam_from_rho, normalised_load

__all__ = [
    "MODELS", "OpenLoop", "alpha_inserting", "open_loop", "loss_probability",
    "mmkb_loss", "engset_loss", "overload_loss",
]

MODELS = ("g1dm", "ebd", "ebi", "eb", "mmkb")
_FIXED_POINT = ("g1dm", "ebd")


@dataclass(frozen=True)
class OpenLoop:
    """One open-loop solution. ``p_loss``: P_B, the fraction of arriving packets discarded;
    ``utilisation``: ρ(1 − P_B), the carried load over the trunk's capacity (the thesis's U,
    (3.3)); ``busy_fraction``: Σ min(i, K)p_i/K, the mean fraction of busy output links in the
    model's own chain (equal to ``utilisation`` for M/M/K/(K+B); the finite-source models
    differ by their approximations); ``lam_star``: λ* of (3.5) at the solution (λ for EB, EBI);
    ``probs``: p_0 … p_{K+B}."""

    model: str
    m: float
    k: int
    b: int
    lam: float
    mu: float
    rho: float
    p_loss: float
    utilisation: float
    busy_fraction: float
    lam_star: float
    probs: np.ndarray


def alpha_inserting(i, k: int, b: int):
    """The fraction of the "potentially inserting" ports that really insert in state i:
    α(i) = 1 − (i − K)/max(K, B), K + 1 ≤ i ≤ K + B (so 2 − i/K for B ≤ K, 1 − (i − K)/B for
    B > K, and 0 at i = K + B when B ≥ K).

    Source: eq. (3.10), Approximation 4 (the most empirical one, §3.6.3). Vectorised over i.
    """
    k_ = count("k", k, at_least=1)
    b_ = count("b", b, at_least=0)
    i_arr = np.asarray(i, dtype=float)
    if np.any(i_arr < k_ + 1) or np.any(i_arr > k_ + b_):
        raise ValueError(f"i: (3.10) holds for K + 1 <= i <= K + B = {k_ + b_}, got {i!r}")
    out = 1.0 - (i_arr - k_) / max(k_, b_)
    return float(out) if out.ndim == 0 else out


def _log_rates(m, k, b, lam, mu, p, model) -> np.ndarray:
    """log of the total arrival rate in each state i = 0 … K+B: (M − i)λ* for i ≤ K, (M − K)λ̂(i)
    above (3.6), or Kρµ for M/M/K/(K+B)."""
    n_states = k + b + 1
    if model == "mmkb":
        rate = m * lam * mu / (lam + mu) if math.isfinite(m) else lam  # lam holds Kρµ when M = ∞
        return np.full(n_states, math.log(rate))
    lam_star = lam if model in ("ebi", "eb") else 1.0 / (1.0 / lam + p / mu)
    i = np.arange(n_states, dtype=float)
    rates = np.empty(n_states)
    rates[:k + 1] = (m - i[:k + 1]) * lam_star
    if b:
        ii = i[k + 1:]
        if model in ("ebd", "eb"):
            lam_hat = np.full(b, lam_star)
        else:  # g1dm, ebi: (3.8)-(3.9), with P_B = 0 inside (3.9) for EBI
            pp = 0.0 if model == "ebi" else p
            mi = np.minimum(ii, m)
            alpha = 1.0 - (ii - k) / max(k, b)
            lam_hat = ((m - mi) / (1.0 / lam + pp / mu)
                       + (mi - k) / (1.0 / lam + (pp + alpha) / mu)) / (m - k)
        rates[k + 1:] = (m - k) * lam_hat
    return np.log(rates)


def _chain(m, k, b, lam, mu, p, model):
    """One pass of (3.6), (3.11)-(3.13): (log P_B', log p̃, log rates), p̃_0 = 1."""
    log_rate = _log_rates(m, k, b, lam, mu, p, model)
    servers = np.minimum(np.arange(1, k + b + 1), k) * mu
    lp = np.concatenate(([0.0], np.cumsum(log_rate[:-1] - np.log(servers))))
    log_p_new = log_rate[-1] + lp[-1] - logsumexp(log_rate + lp)
    return min(log_p_new, 0.0), lp, log_rate


def _solve(m, k, b, lam, mu, model) -> tuple[float, np.ndarray]:
    """P_B and log p̃ at the model's solution (the fixed point of (3.13) for G1DM and EBD)."""
    x0, lp, _ = _chain(m, k, b, lam, mu, 0.0, model)
    if model not in _FIXED_POINT:
        return math.exp(x0), lp
    # P* ∈ [F(F(0)), F(0)] because the map F decreases; bisect h(x) = log F(e^x) − x there.
    x1, lp1, _ = _chain(m, k, b, lam, mu, math.exp(x0), model)
    if x0 - x1 < 1e-13:
        return math.exp(x1), lp1
    x = brentq(lambda x: _chain(m, k, b, lam, mu, math.exp(x), model)[0] - x, x1, x0,
               xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=200)
    return math.exp(x), _chain(m, k, b, lam, mu, math.exp(x), model)[1]


def _load_args(m, k, rho, lam, mu, model):
    if (rho is None) == (lam is None):
        raise ValueError("give exactly one of rho (the normalised load (3.14)) and lam (1/mean gap)")
    mu_ = num("mu", mu, above=0)
    if math.isinf(m):
        if model != "mmkb" or rho is None:
            raise ValueError("m: an infinite number of input ports needs model='mmkb' and rho")
        r = num("rho", rho, above=0)
        return r * k * mu_, r, mu_  # the Poisson rate Kρµ stands in for λ
    if model != "mmkb" and not m > k:
        raise ValueError(f"m: the finite-source models need more input ports than output links "
                         f"(M > K = {k}), got {m!r}")
    if rho is not None:
        lam_ = lam_from_rho(rho, m, k, mu_)
        return lam_, float(rho), mu_
    lam_ = num("lam", lam, above=0)
    return lam_, normalised_load(m, k, lam_, mu_), mu_


def open_loop(m: float, k: int, b: int, *, rho: float | None = None, lam: float | None = None,
              mu: float = 1.0, model: str = "g1dm") -> OpenLoop:
    """Loss probability and utilisation of one output trunk (K links, B shared buffer spaces)
    fed by M input ports at a given load, under one of the five models.

    Sources: G1DM eqs (3.5)-(3.13): λ* (3.5), the birth-death chain (3.6)-(3.7), λ_m (3.8),
    λ̂ (3.9), α (3.10), Λ (3.11), P_B = (M − K)λ̂(K+B)p_{K+B}/Λ (3.12); the special cases of
    §3.6.4 (EBD, EBI, EB and M/M/K/(K+B), whose P_B (3.15) is p_{K+B}); ρ (3.14).

    ``m``: input ports (> K for the finite-source models; ``math.inf`` with ``model="mmkb"``);
    ``k``: output links; ``b``: buffer spaces; the load as exactly one of ``rho`` (normalised
    intended load, 0 < ρ < M/K) or ``lam`` (1/mean gap, packets/s); ``mu``: one link's rate,
    packets/s (the results depend only on λ/µ); ``model``: one of :data:`MODELS`.

    Readings: λ̂(K) = λ* (the i ≤ K and i ≥ K branches of (3.6) agree there); in (3.9) the ports
    number min(i, M), so for i > M every non-busy port is "potentially inserting"; EBI takes
    λ* = λ in every state and P_B = 0 inside (3.9), and keeps (3.12) for its loss.
    With B = 0, G1DM and EBD are the Engset model at λ* (:func:`engset_loss`), EB and EBI the
    Engset model at λ.

    Caveats found in testing (tests/test_models_cui.py):

    - In overload (ρ > 1) any switch loses at least 1 − 1/ρ. EBD, EB and M/M/K/(K+B) respect
      that, but G1DM's (and EBI's) P_B dips below it at moderate B before returning to it as
      B grows, so G1DM's U = ρ(1 − P_B) exceeds 1 there: (M, K, B) = (8, 1, 20) at ρ = 1.3
      gives P_B = 0.2103 < 0.2308 and U = 1.027 (``busy_fraction`` stays 0.998). The thesis's
      overload figures (3.33-3.41) use B = 0, 1, 5, 10, 1000, where the dip is smaller.
    - The thesis expects P_B to rise from each model to the next (§3.6.4). G1DM ≤ EBD,
      EBI ≤ EB hold, but EB ≤ M/M/K/(K+B) does not always: EB's arrival rate in the low states,
      (M − i)λ, exceeds the Poisson Mλµ/(λ + µ), and at (16, 2, 0), ρ = 0.9 EB gives 0.3677
      against 0.3665.
    """
    model = choice("model", model, MODELS)
    m_ = count("m", m, at_least=1, inf_ok=True)
    k_ = count("k", k, at_least=1)
    b_ = count("b", b, at_least=0)
    lam_, rho_, mu_ = _load_args(m_, k_, rho, lam, mu, model)
    p, lp = _solve(m_, k_, b_, lam_, mu_, model)
    probs = np.exp(lp - logsumexp(lp))
    busy = float(np.sum(np.minimum(np.arange(k_ + b_ + 1), k_) * probs)) / k_
    lam_star = lam_ if model in ("ebi", "eb", "mmkb") else 1.0 / (1.0 / lam_ + p / mu_)
    return OpenLoop(model=model, m=m_, k=k_, b=b_, lam=lam_ if math.isfinite(m_) else math.nan,
                    mu=mu_, rho=rho_, p_loss=p, utilisation=rho_ * (1.0 - p), busy_fraction=busy,
                    lam_star=lam_star if math.isfinite(m_) else math.nan, probs=probs)


def loss_probability(m: float, k: int, b: int, *, rho: float | None = None, lam: float | None = None,
                     mu: float = 1.0, model: str = "g1dm") -> float:
    """P_B alone: ``open_loop(...).p_loss`` (same arguments)."""
    return open_loop(m, k, b, rho=rho, lam=lam, mu=mu, model=model).p_loss


def mmkb_loss(k: int, b: int, rho: float) -> float:
    """The M/M/K/(K+B) loss probability in the thesis's closed form,

        P_B = (K^K ρ^{K+B}/K!) [Σ_{i<K} (Kρ)^i/i! + Σ_{i=K}^{K+B} (Kρ)^i/(K! K^{i−K})]^{−1},

    evaluated term by term in log space. ρ is the normalised load (3.14) (Kρ Erlangs offered).

    Source: eq. (3.15). B = 0 gives Erlang's B formula E_K(Kρ); K = 1 gives M/M/1/(1+B).
    """
    k_ = count("k", k, at_least=1)
    b_ = count("b", b, at_least=0)
    r = num("rho", rho, above=0)
    a = math.log(k_ * r)
    i_low = np.arange(k_)
    i_high = np.arange(k_, k_ + b_ + 1)
    terms = np.concatenate((i_low * a - gammaln(i_low + 1.0),
                            i_high * a - gammaln(k_ + 1.0) - (i_high - k_) * math.log(k_)))
    head = k_ * math.log(k_) + (k_ + b_) * math.log(r) - gammaln(k_ + 1.0)
    return math.exp(head - logsumexp(terms))


def engset_loss(m: int, k: int, a: float) -> float:
    """Engset's call congestion: M sources, K servers, no waiting room, each idle source
    offering a = (arrival rate per idle source)/µ:

        P = C(M−1, K) a^K / Σ_{i=0}^{K} C(M−1, i) a^i.

    Source: the textbook Engset formula the thesis cites for B = 0 (§3.6.1, §3.6.5: "if buffer
    size is 0, G1DM and EBD reduce to an Engset model"); written from the formula, not from
    (3.6), so it checks the chain independently. M ≤ K gives 0.
    """
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    a_ = num("a", a, above=0)
    if m_ <= k_:
        return 0.0
    i = np.arange(k_ + 1)
    terms = log_binomial(m_ - 1, i) + i * math.log(a_)
    return math.exp(terms[-1] - logsumexp(terms))


def overload_loss(m: float, k: int, *, rho: float | None = None, lam: float | None = None,
                  mu: float = 1.0, model: str = "true") -> float:
    """The heavy-load approximations of P_B (ρ > 1; 0 where the formula goes negative):

    - ``"true"``: P_B ≈ (ρ − 1)/ρ = (Mλ − K(µ + λ))/(Mλ), eq. (3.16): every link busy, the
      excess discarded; the thesis says M/M/K/(K+B) and EBD obey it (and G1DM as well as EBD);
    - ``"eb"``: P_B ≈ (Mλ − K(µ + λ))/((M − K)λ), eq. (3.17), EB for xB ≪ 1 with
      x = Kµ/((M − K)λ): (3.16) times M/(M − K);
    - ``"ebd"``: P_B ≈ (Mλ* − K(µ + λ*))/((M − K)λ*), eq. (3.18), with λ* = 1/(1/λ + P_B/µ) of
      (3.5) at the same P_B. Solved for P_B (it is linear): P_B = ((M − K)λ − Kµ)/(Mλ), which is
      (3.16) again, as the thesis says.

    Arguments as :func:`open_loop` (one of ``rho``, ``lam``).
    """
    model = choice("model", model, ("true", "eb", "ebd"))
    m_ = count("m", m, at_least=1)
    k_ = count("k", k, at_least=1)
    if not m_ > k_:
        raise ValueError(f"m: expected more input ports than output links (K = {k_}), got {m!r}")
    lam_, _, mu_ = _load_args(m_, k_, rho, lam, mu, "g1dm")
    if model == "true":
        p = (m_ * lam_ - k_ * (mu_ + lam_)) / (m_ * lam_)
    elif model == "eb":
        p = (m_ * lam_ - k_ * (mu_ + lam_)) / ((m_ - k_) * lam_)
    else:
        # P = 1 − Kµ/((M−K)λ*) − K/(M−K) with µ/λ* = µ/λ + P:  P·M/(M−K) = 1 − K/(M−K) − Kµ/((M−K)λ)
        p = ((m_ - k_) * lam_ - k_ * mu_) / (m_ * lam_)
    return max(p, 0.0)
