"""Argument checks shared by the Keshav 1991 models: a clear ValueError naming the argument."""

from __future__ import annotations

import math

import numpy as np


def _num(name: str, v, *, above: float | None = None, at_least: float | None = None) -> float:
    """``v`` as a finite float, else a ValueError naming ``name`` (NaN, infinities, strings
    and booleans included); ``above`` / ``at_least`` bound it from below."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {v!r}")
    if above is not None and not v > above:
        raise ValueError(f"{name}: expected a number above {above:g}, got {v!r}")
    if at_least is not None and not v >= at_least:
        raise ValueError(f"{name}: expected a number of at least {at_least:g}, got {v!r}")
    return float(v)


def _count(name: str, v, *, most: int | None = None) -> int:
    """``v`` as a positive integer (an integral float is accepted), else a ValueError."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(v) or int(v) != v or v < 1 or (most is not None and v > most):
        bound = f" up to {most}" if most is not None else ""
        raise ValueError(f"{name}: expected a positive integer{bound}, got {v!r}")
    return int(v)


def _flag(name: str, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, got {v!r}")
    return bool(v)
