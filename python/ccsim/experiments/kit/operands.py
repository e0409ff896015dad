"""Operands: the values that checks compare and that aggregate cells read.

An operand is a small table naming a value of the runs (docs/adding-a-thesis.md):

- ``{pair, source, metric [, stat, phase]}``: one flow's value (:class:`.frames.FrameData`);
  ``metric`` may be a list, the sum of those metrics of that flow;
- ``{agg, pair | pairs, sources, metric [, stat, phase, where]}``: an aggregate
  (:data:`AGGREGATES`) over flows, ``sources`` a list or "all", ``where`` conditions that
  keep only the flows meeting them; ``{agg, of = [operand, ...]}``: over other operands;
- ``{trace | probe, pair, source, stat, from, to [, level, above]}``, or ``{trace, pair,
  port, ...}`` for a traced port's column (``packets``, ``bytes``, ``state``): a statistic of a traced
  quantity over simulated time [from, to).

:func:`operand_per_seed` computes the value in each seed (aggregates and filters within a
seed: winners and losers differ from seed to seed); :func:`operand` is its seed median.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd

from .frames import DataError, NoData, fmt

# Comparison kinds and conditions: name -> (symbol, test).
OPS = {"lt": ("<", lambda a, b: a < b), "le": ("<=", lambda a, b: a <= b),
        "gt": (">", lambda a, b: a > b), "ge": (">=", lambda a, b: a >= b)}
# Aggregates over flows (or operands), taken within each seed: spread = max - min; var = the
# population variance of the values (a fairness variance); jain = Jain's fairness index
# (sum x)^2 / (n sum x^2), 1 when every value is equal.
AGGREGATES = ("sum", "mean", "min", "max", "spread", "var", "jain")


def metric_name(m) -> str:
    return "+".join(m) if isinstance(m, (list, tuple)) else str(m)


def suffix(op: Mapping) -> str:
    s = ""
    if op.get("stat", "mean") != "mean":
        s += f" {op['stat']}"
    if op.get("phase"):
        s += f" [{op['phase']}]"
    return s


def cond_text(c: Mapping) -> str:
    return f"{metric_name(c['metric'])}{suffix(c)} {OPS[c['op']][0]} {fmt(float(c['value']))}"


def describe(op: Mapping) -> str:
    """Operand in words, e.g. ``sum(JK/FQ #1,2 thr [on])``."""
    if "trace" in op or "probe" in op:
        name = op.get("trace") or op["probe"]
        stat = op["stat"]
        if stat == "frac_ge" and "level" in op:
            stat += f">={fmt(float(op['level']))}"
        elif stat == "falls" and "level" in op:
            stat += f"(<={fmt(float(op['level']))} from >={fmt(float(op.get('above', math.nan)))})"
        kind = "probes" if "probe" in op else ""
        whose = f"port {op['port']}" if "port" in op else f"#{op.get('source', '?')}"
        return (f"{stat} {name}{' ' + kind if kind else ''} {op.get('pair', '?')} {whose} "
                f"[{float(op['from']):g}, {float(op['to']):g}) s")
    if "agg" in op:
        if "of" in op:
            return f"{op['agg']}(" + ", ".join(describe(x) for x in op["of"]) + ")"
        pairs = op.get("pairs") or [op.get("pair", "?")]
        srcs = "all" if op["sources"] == "all" else "#" + ",".join(str(s) for s in op["sources"])
        where = ""
        if op.get("where"):
            where = " where " + " and ".join(cond_text(c) for c in op["where"])
        return f"{op['agg']}({'+'.join(pairs)} {srcs} {metric_name(op['metric'])}{suffix(op)}{where})"
    return f"{op.get('pair', '?')} #{op['source']} {metric_name(op['metric'])}{suffix(op)}"


def aggregate(agg: str, vals: list[float]) -> float:
    """One seed's aggregate; NaN when undefined (a NaN value, or no cell for min/max/mean)."""
    if agg not in AGGREGATES:
        raise DataError(f"unknown agg {agg!r} (one of {', '.join(AGGREGATES)})")
    if not vals:
        return 0.0 if agg == "sum" else math.nan
    if any(math.isnan(v) for v in vals):
        return math.nan
    if agg == "sum":
        return float(sum(vals))
    if agg == "mean":
        return float(np.mean(vals))
    if agg == "min":
        return float(min(vals))
    if agg == "max":
        return float(max(vals))
    if agg == "var":
        return float(np.var(vals))
    if agg == "jain":
        squares = float(np.sum(np.square(vals)))
        return math.nan if squares == 0 else float(np.sum(vals)) ** 2 / (len(vals) * squares)
    return float(max(vals) - min(vals))


def source_list(data, pair: str, sources) -> list[int]:
    """An operand's ``sources``: a list of source numbers, or "all" (every numbered source of
    the pair's run)."""
    if sources == "all":
        return data.sources(pair)
    if isinstance(sources, str):
        raise DataError(f'sources: expected a list of source numbers or "all", got {sources!r}')
    return list(sources)


def flow_per_seed(data, pair, source, metric, stat="mean", phase=None) -> pd.Series:
    return data.per_seed(pair, source, metric, stat, phase)


def meets_per_seed(data, pair, source, conds) -> pd.Series:
    """Per seed: does the cell meet every condition (NaN never does)?"""
    m = None
    for c in conds:
        v = flow_per_seed(data, pair, source, c["metric"], c.get("stat", "mean"), c.get("phase"))
        ok = v.notna() & OPS[c["op"]][1](v, float(c["value"]))
        m = ok if m is None else (m & ok).fillna(False)
    return m.astype(bool)


def by_seed(series: list[pd.Series]) -> pd.DataFrame:
    """Align per-seed series on the seed (seeds a run lacks become NaN)."""
    return pd.concat([s.rename(i) for i, s in enumerate(series)], axis=1)


def operand_per_seed(data, op: Mapping) -> pd.Series:
    """An operand's value in each seed: aggregates, `where` filters and metric sums are
    computed within a seed (winners and losers differ between seeds)."""
    if "trace" in op or "probe" in op:
        return data.trace_per_seed(op["pair"], op.get("source"), op["stat"], float(op["from"]), float(op["to"]),
                                   op.get("trace") or op["probe"], table="probe" if "probe" in op else "trace",
                                   level=op.get("level"), above=op.get("above"), port=op.get("port"))
    if "agg" not in op:
        return flow_per_seed(data, op["pair"], op["source"], op["metric"], op.get("stat", "mean"), op.get("phase"))
    if "of" in op:
        cols = [operand_per_seed(data, x) for x in op["of"]]
        masks = None
    else:
        pairs = op.get("pairs") or [op["pair"]]
        cols, masks = [], []
        for p in pairs:
            for s in source_list(data, p, op["sources"]):
                cols.append(flow_per_seed(data, p, s, op["metric"], op.get("stat", "mean"), op.get("phase")))
                masks.append(meets_per_seed(data, p, s, op["where"]) if op.get("where") else None)
    if not cols:
        raise DataError(f"{describe(op)}: no cell")
    v = by_seed(cols)
    m = by_seed([mk if mk is not None else pd.Series(True, index=c.index) for mk, c in zip(masks, cols)]) \
        if masks else None
    out = {}
    for seed in v.index:
        vals = [float(x) for j, x in enumerate(v.loc[seed])
                if m is None or bool(m.loc[seed].iloc[j] if seed in m.index else False)]
        out[seed] = aggregate(op["agg"], vals)
    return pd.Series(out, dtype=float)


def seed_median(series: pd.Series, what: str) -> float:
    if not series.notna().any():
        raise NoData(f"{what} is undefined")
    return float(series.median())


def operand(data, op: Mapping) -> float:
    """An operand's value: the seed median of :func:`operand_per_seed`."""
    return seed_median(operand_per_seed(data, op), describe(op))
