"""Table cells: the reproduction's value of each cell of a reference's tables, judged.

A table row is a set of cells, one per metric the row gives a thesis value for; the row's
``kind`` (or its table's; default "flow") says what the value is:

- ``flow``: the seed median of one flow's metric (``pair``, ``source``; per ``phase`` from
  the interval rows when the row names one);
- ``aggregate``: the seed median of an aggregate (``agg``: sum, mean, min, max, spread, var,
  jain) of the metric over flows (``sources``: a list or "all"; ``where`` keeps the flows
  meeting its conditions), computed within each seed;
- ``curve``: a point of a sweep (``curve``, ``x``): a flow (``source``) or an aggregate
  (``agg``, ``sources``) in the run of that point;
- ``model``: the value of a function of :mod:`ccsim.models` (``function`` "module.name",
  keyword ``args``, and ``result``, the field or index to take when it returns several
  values); a cell may add ``args`` and ``result`` of its own. No simulation is involved.

Each cell becomes one row of ``cells.parquet``: where it reads (kind, pair or curve, source,
item, x, phase), the metric, the simulated value with its seed count, the thesis's value,
the tolerance class, the rule and the verdict (:mod:`.judge`).
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Mapping

import pandas as pd

from .frames import DataError, NoData, NotRun
from .judge import alt_text, judge_cell
from .operands import cond_text, operand_per_seed
from .reference import metric_family, point_label, row_kind


def model_function(name: str):
    """The function ``name`` ("module.function") of :mod:`ccsim.models`; ValueError if none."""
    module, _, func = name.rpartition(".")
    if not module or not func:
        raise ValueError(f'expected "module.function" of ccsim.models (e.g. "keshav91.telnet_delay_fq"), got {name!r}')
    try:
        mod = importlib.import_module(f"ccsim.models.{module}")
    except ImportError:
        raise ValueError(f"no module ccsim.models.{module}") from None
    fn = getattr(mod, func, None)
    if not callable(fn) or func.startswith("_"):
        raise ValueError(f"ccsim.models.{module} has no function {func!r}")
    return fn


def model_value(name: str, args: Mapping[str, Any], result: str | int | None = None) -> float:
    """Call a model function and return the number it gives (``result`` picks one of several:
    a field name of a named tuple or mapping, or an index)."""
    value = model_function(name)(**args)
    if result is not None:
        if isinstance(result, int) and not isinstance(result, bool):
            value = value[result]
        elif isinstance(value, Mapping):
            value = value[result]
        else:
            value = getattr(value, result)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DataError(f"{name} returned {type(value).__name__}, not a number: name the value you want "
                        f"with `result`") from None


def _item(kind: str, row: Mapping) -> str:
    """What a non-flow row reads, in words (the report's source column; part of a cell's key)."""
    if kind == "model":
        args = ", ".join(f"{k}={v}" for k, v in row.get("args", {}).items())
        res = f"[{row['result']}]" if "result" in row else ""
        return f"{row['function']}({args}){res}"
    if "agg" not in row:
        return ""
    srcs = "all" if row["sources"] == "all" else "#" + ",".join(str(s) for s in row["sources"])
    where = " where " + " and ".join(cond_text(c) for c in row["where"]) if row.get("where") else ""
    return f"{row['agg']} {srcs}{where}"


def seed_interval(per_seed) -> float:
    """Half-width of the 95% Student-t interval of the mean over seeds (NaN below 2 seeds; 0
    when they agree exactly): how far another set of seeds could move the value."""
    x = pd.Series(per_seed, dtype=float).dropna()
    if len(x) < 2:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))


def _sim_value(kind: str, row: Mapping, spec: Mapping, metric: str, fd) -> tuple[float, float, int, float]:
    """(seed median, sd of interval means or NaN, seeds with a value, seed_interval) of one
    cell."""
    if kind == "model":
        args = {**row.get("args", {}), **spec.get("args", {})}
        result = spec.get("result", row.get("result"))
        try:
            return model_value(row["function"], args, result), math.nan, 0, math.nan
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
            raise DataError(f"{row['function']}: {type(e).__name__}: {e}") from None
    pair = point_label(row["curve"], row["x"]) if kind == "curve" else row["pair"]
    phase = row.get("phase")
    if "agg" in row:
        op = {"agg": row["agg"], "pair": pair, "sources": row["sources"], "metric": metric}
        for key in ("where", "phase", "stat"):
            if key in row:
                op[key] = row[key]
        per = operand_per_seed(fd, op)
        sd = math.nan
    else:
        per = fd.per_seed(pair, int(row["source"]), metric, "mean", phase)
        sd = math.nan
        if phase is None:
            try:
                sd = fd.cell(pair, int(row["source"]), metric, "sd")
            except NoData:  # rows a thesis adds (extra_rows) may carry no batch-means sd
                pass
    n = int(per.notna().sum())
    return (float(per.median()) if n else math.nan), sd, n, seed_interval(per)


def evaluate_cells(ref: Mapping, data: Mapping) -> pd.DataFrame:
    """One row per table cell of the scenarios in ``data`` (scenario id -> FrameData): the
    simulated value and its verdict."""
    tol = ref["tolerance"]
    rows = []
    for t in ref.get("tables", []):
        sid = t["scenario"]
        if sid not in data:
            continue
        fd = data[sid]
        for r in t["rows"]:
            kind = row_kind(t, r)
            curve = kind == "curve"
            pair = r["curve"] if curve else r.get("pair", "")
            not_run = None
            if kind != "model":
                not_run = fd.run_status(point_label(r["curve"], r["x"]) if curve else r["pair"])
            source = int(r["source"]) if "source" in r and "agg" not in r else None
            for m in t["metrics"]:
                if m not in r:
                    continue
                spec = r[m]
                sim = sim_sd = ci = math.nan
                note = ""
                nseeds = 0
                if not_run is None:
                    try:
                        sim, sim_sd, nseeds, ci = _sim_value(kind, r, spec, m, fd)
                        if math.isnan(sim):
                            note = "undefined in every seed (no samples)"
                    except (DataError, NoData, NotRun) as e:
                        note = str(e)
                v = judge_cell(spec, metric_family(ref, m, r, t), sim, tol, not_run=not_run)
                rows.append({
                    "table": t["id"], "scenario": sid, "kind": kind, "pair": pair, "source": source,
                    "item": _item(kind, r), "x": float(r["x"]) if curve else math.nan,
                    "label": r.get("label", ""),
                    "phase": r.get("phase") or "", "metric": m, "sim": sim, "sim_sd": sim_sd, "seeds": nseeds, "sim_ci95": ci,
                    "thesis": float(spec["mean"]), "thesis_sd": float(spec["sd"]) if "sd" in spec else math.nan,
                    "class": spec["class"], "rule": v.rule, "status": v.status,
                    "ok": v.ok, "known_issue": spec.get("known_issue", ""),
                    "alt": alt_text(spec), "alt_ok": v.alt_ok,
                    "error": not_run or note,
                })
    return pd.DataFrame(rows)
