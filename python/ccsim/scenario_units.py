"""Reading unit strings on the Python side (for tools that edit scenarios, e.g. --quick)."""

from __future__ import annotations

import re

_DUR = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12, "min": 60.0}


def parse_seconds(v) -> float:
    """ "250s" / "500ms" / 2.5 -> seconds. Raises ValueError on anything else."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-zA-Zµ]*)\s*", str(v))
    if m and m.group(2).startswith("M") and m.group(2).lower() == "ms":
        # As the engine: any case, but a capital M is mega ("5Ms" is not 5 ms).
        raise ValueError(f"expected a duration such as \"2s\", got {v!r} (a capital M is mega; "
                         f"milliseconds are \"ms\")")
    if not m or m.group(2).lower() not in _DUR:
        raise ValueError(f"expected a duration such as \"2s\", got {v!r}")
    return float(m.group(1)) * _DUR[m.group(2).lower()]
