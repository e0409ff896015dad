"""Cui, chapter 3 §3.3: the extrapolation method. Simulate the target topology at lower bit
rates with the per-flow share held fixed, fit the measured utilisation (or log10 P_B) against
the bit rate, and read the fit at the target rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import minimize_scalar

from ._common import choice, num

__all__ = [
    "EXTRAPOLATION_RATES_GBPS", "FIG_3_7_FIT", "FIG_3_9_FIT", "hyperbola", "ExtrapolationFit",
    "fit_extrapolation",
]

#: §3.3.2's simulated bottleneck rates, Gb/s (with 100 flows per Gb/s: 40 ... 1000 flows).
EXTRAPOLATION_RATES_GBPS = (0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 4.0, 6.0, 8.0, 10.0)
#: Fig 3.7 (B = 10): U(x) = 0.7022 + 0.048088/(x − 0.125893), as (a, b, c) of :func:`hyperbola`.
FIG_3_7_FIT = (0.7022, 0.048088, 0.125893)
#: Fig 3.9 (B = 10): log10 P_B(x) = −3.7116276 − 0.11737622/(x + 0.32710271), as (a, b, c).
FIG_3_9_FIT = (-3.7116276, -0.11737622, -0.32710271)


def hyperbola(x, a: float, b: float, c: float):
    """a + b/(x − c), the thesis's fitted shape (x the bottleneck rate in Gb/s).

    Source: §3.3.2, Figs 3.7 and 3.9 (the thesis writes the log10 P_B fit as a + b/(x + c);
    here c carries the sign). At 40 Gb/s, :data:`FIG_3_7_FIT` gives U = 0.70341 (printed
    "70.3 %") and :data:`FIG_3_9_FIT` gives log10 P_B = −3.7145382 (printed exactly).
    """
    return a + b / (np.asarray(x, dtype=float) - c) if np.ndim(x) else a + b / (float(x) - c)


@dataclass(frozen=True)
class ExtrapolationFit:
    """``params``: (a, b, c) for the hyperbola, (intercept, slope) for the line; ``value``: the
    fit at ``target``; ``std_error``: √(Σ residual²/(n − p)); ``corr``: the correlation of the
    data with the fitted values (the thesis quotes both for Figs 3.7 and 3.9)."""

    shape: str
    params: tuple[float, ...]
    target: float
    value: float
    std_error: float
    corr: float


def fit_extrapolation(x: Sequence[float], y: Sequence[float], *, shape: str = "hyperbola",
                      target: float = 40.0) -> ExtrapolationFit:
    """Least-squares fit of measurements ``y`` (utilisation, or log10 P_B: fit the logarithm,
    not P_B) at bit rates ``x`` (Gb/s), evaluated at ``target`` (Gb/s).

    Source: §3.3 steps 4-5; ``shape="hyperbola"``: a + b/(x − c) (Figs 3.7, 3.9: B = 10),
    ``"line"``: a + b·x (Figs 3.6, 3.8: B = 2, "the points form a straight line"). The thesis
    names no fitting method; spec §6 item 9 [R]: least squares over all points. For a fixed pole
    c the hyperbola is linear in a and b, so the fit is a bounded one-dimensional minimisation
    of the squared error over c, with the pole kept below the data (c < min x), where both of
    the thesis's fits have it.
    """
    shape = choice("shape", shape, ("hyperbola", "line"))
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if xs.ndim != 1 or xs.shape != ys.shape or not np.all(np.isfinite(xs)) \
            or not np.all(np.isfinite(ys)):
        raise ValueError("x, y: expected two finite sequences of the same length")
    t = num("target", target)
    n_params = 3 if shape == "hyperbola" else 2
    if xs.size <= n_params:
        raise ValueError(f"x: a {shape} needs more than {n_params} points, got {xs.size}")
    if shape == "line":
        slope, intercept = np.polyfit(xs, ys, 1)
        params = (float(intercept), float(slope))
        fitted = intercept + slope * xs
        value = float(intercept + slope * t)
    else:
        params = _fit_hyperbola(xs, ys)
        fitted = hyperbola(xs, *params)
        value = float(hyperbola(t, *params))
    resid = ys - fitted
    std_error = math.sqrt(float(np.sum(resid ** 2)) / (xs.size - n_params))
    corr = float(np.corrcoef(ys, fitted)[0, 1]) if np.std(fitted) > 0 and np.std(ys) > 0 else math.nan
    return ExtrapolationFit(shape=shape, params=params, target=t, value=value,
                            std_error=std_error, corr=corr)


def _fit_hyperbola(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float]:
    """(a, b, c) minimising the squared error of a + b/(x − c) with c < min x."""
    def linear(c: float):
        g = 1.0 / (xs - c)
        design = np.column_stack([np.ones_like(g), g])
        (a, b), *_ = np.linalg.lstsq(design, ys, rcond=None)
        return float(a), float(b), float(np.sum((ys - design @ np.array([a, b])) ** 2))

    span = float(xs.max() - xs.min()) or 1.0
    lo = float(xs.min())
    res = minimize_scalar(lambda c: linear(c)[2], bounds=(lo - 100 * span, lo - 1e-9 * span),
                          method="bounded", options={"xatol": 1e-12 * span})
    a, b, _ = linear(float(res.x))
    return a, b, float(res.x)
