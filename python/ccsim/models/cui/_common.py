"""What the ``ccsim.models.cui`` modules share: the models' argument checks (``models._checks``)
and log-space helpers."""

from __future__ import annotations

import math

import numpy as np

from .._checks import choice, count, num  # noqa: F401 (the cui modules import them from here)


def logsumexp(x: np.ndarray) -> float:
    m = float(np.max(x))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


def log_binomial(n: float, k: np.ndarray | int) -> np.ndarray:
    """log C(n, k) for whole n >= k >= 0 (vectorised over k)."""
    from scipy.special import gammaln
    k = np.asarray(k, dtype=float)
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
