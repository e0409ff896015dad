"""Cui, chapter 3 §3.6.5 (experiment E3.6, spec target S7): the five open-loop models of
:mod:`.g1dm` (G1DM, EBD, EBI, EB, M/M/K/(K+B)) against the Monte Carlo of the detailed switch
model (:func:`.montecarlo.monte_carlo_switch`), point by point, as Figs 3.17-3.41 compare them.

The thesis prints no numbers for these figures, only curves and its claims (§3.6.5): G1DM is
the most accurate of the five everywhere; with B = 0 G1DM and EBD are the Engset model and
accurate; M/M/K/(K+B) is the worst at light load and improves as M grows; in Fig 3.32 every
model improves with M; in overload P_B ≈ (ρ − 1)/ρ (3.16), EB over-estimates that by
M/(M − K) (3.17). These functions compute the quantities those claims are about, so the
reproduction's cells can state them.

Choices made here (the thesis does not give them):

- The MC: the reading of the detailed model that :mod:`.montecarlo` documents (cut-through to
  an idle output link, a buffer space freed when its packet starts being output), µ = 1, seed
  :data:`SEED`. The number of arrivals is set from the G1DM estimate so that about
  :data:`TARGET_LOSSES` packets are lost (the thesis's runs kept the 95 % Student-t interval
  within 3 % of P_B; with batch means that takes some 10⁴ losses), between
  :data:`MIN_ARRIVALS` (at least :data:`PER_SPACE` per output link and buffer space, so that
  the 5 % warm-up outlasts the filling of a 1000-packet buffer in overload) and
  :data:`MAX_ARRIVALS`. The cap keeps a whole E3.6 under ~20 s of
  CPU; below P_B ≈ 5·10⁻³ the interval is therefore wider than 3 %, and :class:`Point` says
  how wide (``mc_ci``). :data:`ARRIVALS_SCALE` scales all three counts (the tests use a small
  one); results are cached per point, so cells sharing a point run its MC once.
- "Closest": the rank of a model among the five by |P_model − P_MC|, where another model
  outranks it only when it is closer by more than the MC's 95 % half-width; so 1 means no
  model is measurably closer (ties, e.g. G1DM = EBD at B = 0, share rank 1).
- Relative error: (P_model − P_MC)/P_MC, signed (positive: the model over-estimates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ._common import count, num
from .g1dm import MODELS, engset_loss, open_loop, overload_loss
from .montecarlo import bufferless_detailed_loss, monte_carlo_switch

__all__ = ["FIGURES", "SEED", "Point", "openloop_point", "mc_loss", "model_error", "model_rank",
           "error_growth_over_m", "inserting_effect", "inserting_growth", "clear_cache"]

# Figs 3.17-3.41: (M, K, B) (spec §5.1 E3.6); Fig 3.32 sweeps M at K = 1, B = 3, ρ = 0.7.
FIGURES = {
    "3.17": (16, 2, 0), "3.18": (80, 20, 0), "3.19": (16, 2, 1), "3.20": (80, 20, 5),
    "3.21": (16, 2, 10), "3.22": (16, 1, 10), "3.23": (2, 1, 0), "3.24": (2, 1, 5),
    "3.25": (2, 1, 10), "3.26": (4, 1, 5), "3.27": (4, 1, 10), "3.28": (8, 1, 5),
    "3.29": (8, 1, 10), "3.30": (12, 1, 5), "3.31": (12, 1, 10), "3.32": (None, 1, 3),
    "3.33": (16, 2, 0), "3.34": (80, 20, 0), "3.35": (16, 2, 1), "3.36": (80, 20, 5),
    "3.37": (16, 2, 10), "3.38": (10, 1, 1000), "3.39": (16, 2, 1000), "3.40": (500, 2, 1000),
    "3.41": (1000, 1, 1000),
}
SEED = 36
TARGET_LOSSES = 12_000
MIN_ARRIVALS = 60_000
MAX_ARRIVALS = 2_000_000
PER_SPACE = 400
ARRIVALS_SCALE = 1.0


@dataclass(frozen=True)
class Point:
    """One point (M, K, B, ρ) of a figure: the MC's P_B (``mc`` ± ``mc_ci``, 95 %; ``mc_arrivals``
    simulated), each model's P_B (``g1dm`` … ``mmkb``), its signed relative error against the MC
    (``err_<model>``) and its rank (``rank_<model>``, 1 = none measurably closer); ``closest``:
    the index in :data:`.g1dm.MODELS` of the model nearest the MC (first on ties); (3.16)'s
    (ρ − 1)/ρ (``p316``, 0 below saturation) and ``mc_over_316`` = MC/(3.16); ``eb_excess`` =
    (EB/MC)/(M/(M − K)), (3.17)'s claim that EB over-estimates by M/(M − K) in overload;
    ``engset_gap``: max |G1DM − Engset(λ*)|, |EBD − Engset(λ*)| relative to Engset, with λ* of
    G1DM's solution (0 when B = 0, as §3.6.5 says; NaN when B > 0); ``exact``: the exact P_B of
    the detailed model with B = 0 (:func:`.bufferless_detailed_loss`; NaN when B > 0) and
    ``z_exact`` = (MC − exact)/``mc_ci``, a check of the MC itself."""

    m: int
    k: int
    b: int
    rho: float
    mc: float
    mc_ci: float
    mc_arrivals: int
    g1dm: float
    ebd: float
    ebi: float
    eb: float
    mmkb: float
    err_g1dm: float
    err_ebd: float
    err_ebi: float
    err_eb: float
    err_mmkb: float
    rank_g1dm: int
    rank_ebd: int
    rank_ebi: int
    rank_eb: int
    rank_mmkb: int
    closest: int
    p316: float
    mc_over_316: float
    eb_excess: float
    engset_gap: float
    exact: float
    z_exact: float

    @property
    def mc_ci_rel(self) -> float:
        return self.mc_ci / self.mc if self.mc > 0 else math.inf

    def model(self, name: str) -> float:
        return getattr(self, name)


def _arrivals(p_guess: float, spaces: int) -> int:
    lo = max(MIN_ARRIVALS, PER_SPACE * spaces) * ARRIVALS_SCALE
    hi = max(MAX_ARRIVALS * ARRIVALS_SCALE, lo)
    want = TARGET_LOSSES * ARRIVALS_SCALE / max(p_guess, 1e-12)
    return max(1000, int(min(max(want, lo), hi)))


@lru_cache(maxsize=None)
def _mc(m, k, b, rho, arrivals, seed, slot_freed):
    if arrivals is None:
        arrivals = _arrivals(open_loop(m, k, b, rho=rho).p_loss, k + b)
    return monte_carlo_switch(m, k, b, rho=rho, arrivals=arrivals, seed=seed, slot_freed=slot_freed)


def _ranks(p: dict, mc: float, ci: float) -> dict:
    dist = {name: abs(v - mc) for name, v in p.items()}
    return {name: 1 + sum(1 for o in p if o != name and dist[o] < dist[name] - ci) for name in p}


@lru_cache(maxsize=None)
def _point(m, k, b, rho, arrivals, seed, slot_freed) -> Point:
    r = _mc(m, k, b, rho, arrivals, seed, slot_freed)
    sols = {name: open_loop(m, k, b, rho=rho, model=name) for name in MODELS}
    p = {name: s.p_loss for name, s in sols.items()}
    err = {name: (v - r.p_loss) / r.p_loss if r.p_loss > 0 else math.inf for name, v in p.items()}
    rank = _ranks(p, r.p_loss, r.p_loss_ci)
    closest = min(range(len(MODELS)), key=lambda j: abs(p[MODELS[j]] - r.p_loss))
    p316 = overload_loss(m, k, rho=rho) if rho > 1 else 0.0
    mc_over = r.p_loss / p316 if p316 > 0 else math.nan
    eb_excess = (p["eb"] / r.p_loss) / (m / (m - k)) if r.p_loss > 0 else math.nan
    if b == 0:
        eng = engset_loss(m, k, sols["g1dm"].lam_star / sols["g1dm"].mu)
        gap = max(abs(p["g1dm"] - eng), abs(p["ebd"] - eng)) / eng
        exact = bufferless_detailed_loss(m, k, rho=rho)
        z = (r.p_loss - exact) / r.p_loss_ci if r.p_loss_ci > 0 else math.nan
    else:
        gap = exact = z = math.nan
    return Point(m=m, k=k, b=b, rho=rho, mc=r.p_loss, mc_ci=r.p_loss_ci, mc_arrivals=r.arrivals,
                 **p, **{f"err_{n}": v for n, v in err.items()},
                 **{f"rank_{n}": v for n, v in rank.items()}, closest=closest, p316=p316,
                 mc_over_316=mc_over, eb_excess=eb_excess, engset_gap=gap, exact=exact,
                 z_exact=z)


def _key(m, k, b, rho, arrivals, seed, slot_freed):
    m_ = count("m", m, at_least=2)
    k_ = count("k", k, at_least=1)
    if not m_ > k_:
        raise ValueError(f"m: the finite-source models need M > K = {k_}, got {m!r}")
    rho_ = num("rho", rho, above=0, below=m_ / k_)
    n = None if arrivals is None else count("arrivals", arrivals, at_least=100)
    return m_, k_, count("b", b, at_least=0), rho_, n, count("seed", seed), slot_freed


def openloop_point(m: int, k: int, b: int, rho: float, *, arrivals: int | None = None,
                   seed: int = SEED, slot_freed: str = "start") -> Point:
    """Every model and the MC at one point of a figure (cached; see the module docstring for
    the choices). ``arrivals``: the MC's count (None: set from the G1DM estimate);
    ``slot_freed``: the MC's reading of when a buffer space falls free ("start" or "end")."""
    return _point(*_key(m, k, b, rho, arrivals, seed, slot_freed))


def mc_loss(m: int, k: int, b: int, rho: float, **kw) -> float:
    """The MC's P_B at (M, K, B, ρ)."""
    return openloop_point(m, k, b, rho, **kw).mc


def model_error(m: int, k: int, b: int, rho: float, model: str = "g1dm", **kw) -> float:
    """(P_model − P_MC)/P_MC at (M, K, B, ρ)."""
    return getattr(openloop_point(m, k, b, rho, **kw), f"err_{model}")


def model_rank(m: int, k: int, b: int, rho: float, model: str = "g1dm", **kw) -> int:
    """The model's rank among the five by closeness to the MC (1: none measurably closer)."""
    return getattr(openloop_point(m, k, b, rho, **kw), f"rank_{model}")


def error_growth_over_m(ms, k: int, b: int, rho: float, model: str = "g1dm", **kw) -> float:
    """Fig 3.32's claim that every model improves with M: the largest growth of a model's
    |relative error| from one M of ``ms`` to the next, in units of the noise of that
    difference (the two MC half-widths relative to P_B, combined in quadrature). Negative: the
    error shrinks at every step; at most 1: it never grows by more than the MC can resolve."""
    ms = sorted(count("ms[]", x, at_least=2) for x in ms)
    if len(ms) < 2:
        raise ValueError(f"ms: expected at least two numbers of input ports, got {ms!r}")
    pts = [openloop_point(m, k, b, rho, **kw) for m in ms]
    errs = [abs(getattr(pt, f"err_{model}")) for pt in pts]
    return max((e1 - e0) / math.hypot(p0.mc_ci_rel, p1.mc_ci_rel)
               for e0, e1, p0, p1 in zip(errs, errs[1:], pts, pts[1:]))


def inserting_effect(m: int, k: int, b: int, rho: float) -> float:
    """How much modelling the inserting ports changes P_B: (P_EBD − P_G1DM)/P_G1DM (EBD is
    G1DM without them, §3.6.4). Model only, no MC."""
    g = open_loop(m, k, b, rho=rho, model="g1dm").p_loss
    return (open_loop(m, k, b, rho=rho, model="ebd").p_loss - g) / g


def inserting_growth(m: int, k: int, b_small: int, b_large: int, rho: float) -> float:
    """§3.6.5's "with the increase of buffer size, the inserting effect becomes stronger" (Fig
    3.26 against 3.27): :func:`inserting_effect` at ``b_large`` over that at ``b_small``."""
    return inserting_effect(m, k, b_large, rho) / inserting_effect(m, k, b_small, rho)


def clear_cache() -> None:
    """Forget the cached points (after changing :data:`ARRIVALS_SCALE`)."""
    _point.cache_clear()
    _mc.cache_clear()
