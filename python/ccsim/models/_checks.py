"""Argument checks the models share: a clear ValueError that names the argument and what was
expected (NaN, infinities, strings and booleans refused where a number is wanted)."""

from __future__ import annotations

import math

import numpy as np


def num(name: str, v, *, above: float | None = None, at_least: float | None = None,
        below: float | None = None, at_most: float | None = None, inf_ok: bool = False) -> float:
    """``v`` as a float, else a ValueError naming ``name``. Finite unless ``inf_ok`` (then +inf
    passes too); ``above`` / ``at_least`` / ``below`` / ``at_most`` bound it."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or math.isnan(v) or (math.isinf(v) and not (inf_ok and v > 0)):
        raise ValueError(f"{name}: expected a {'' if inf_ok else 'finite '}number, got {v!r}")
    if above is not None and not v > above:
        raise ValueError(f"{name}: expected a number above {above:g}, got {v!r}")
    if at_least is not None and not v >= at_least:
        raise ValueError(f"{name}: expected a number of at least {at_least:g}, got {v!r}")
    if below is not None and not v < below:
        raise ValueError(f"{name}: expected a number below {below:g}, got {v!r}")
    if at_most is not None and not v <= at_most:
        raise ValueError(f"{name}: expected a number of at most {at_most:g}, got {v!r}")
    return float(v)


def count(name: str, v, *, at_least: int = 0, at_most: int | None = None, inf_ok: bool = False) -> int | float:
    """``v`` as a whole number >= ``at_least`` (and <= ``at_most``: a bound on the work or memory
    it asks for) as an int, or +inf when ``inf_ok``."""
    if inf_ok and isinstance(v, (float, np.floating)) and math.isinf(v) and v > 0:
        return math.inf
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(v) or v != int(v) or v < at_least:
        raise ValueError(f"{name}: expected a whole number of at least {at_least}, got {v!r}")
    if at_most is not None and v > at_most:
        raise ValueError(f"{name}: expected a whole number of at most {at_most}, got {v!r}")
    return int(v)


def choice(name: str, v, allowed: tuple[str, ...]) -> str:
    if v not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(allowed)}, got {v!r}")
    return v


def positive_int(name: str, v, *, most: int | None = None) -> int:
    """``v`` as a positive integer (an integral float is accepted), else a ValueError."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(v) or int(v) != v or v < 1 or (most is not None and v > most):
        bound = f" up to {most}" if most is not None else ""
        raise ValueError(f"{name}: expected a positive integer{bound}, got {v!r}")
    return int(v)


def flag(name: str, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, got {v!r}")
    return bool(v)
