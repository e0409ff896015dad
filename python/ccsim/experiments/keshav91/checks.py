"""Judging a reproduction against ``reference.toml``: table cells and qualitative checks.

Two parts, both independent of how the runs were made:

- :class:`FrameData` answers "what did the reproduction give for this cell" from the tidy
  tables of :func:`ccsim.experiments.runner.run_files` (per-(file, seed, flow) batch means,
  per-interval rows, window traces): the seed median of the flow's metric, per Scenario 3
  phase from the interval rows, or a statistic of a traced window over a time span.
- :func:`judge_cell` applies the tolerance classes of the reference header (D, S, P, an
  ``accept`` range, ``known_issue``) to one cell; :func:`evaluate` evaluates one qcheck in
  the reference's small vocabulary (operands ``{pair, source, metric}``, ``{agg, ...}``,
  ``{trace, ...}``; kinds ``lt`` ... ``manual``).

A cell or check that needs a run which is missing or failed comes out as ``not_run`` with
the run's error, never as an exception; a value that is undefined (NaN: a flow with no RTT
samples, a trace with no samples in the span) comes out as ``no_data``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

# The reference's metric names -> the tidy tables' columns (overridden by [metrics] field).
DEFAULT_FIELDS = {"throughput": "goodput_pps", "delay": "delay_s", "drop": "drop_rate", "retx": "retx_rate"}
METRIC_SHORT = {"throughput": "thr", "delay": "delay", "drop": "drop", "retx": "retx"}

# Outcome statuses.
PASS, FAIL, NOT_RUN, NO_DATA, MANUAL, ERROR = "pass", "fail", "not_run", "no_data", "manual", "error"


class NotRun(Exception):
    """An operand needs a run that is missing or failed."""

    def __init__(self, pair: str, reason: str):
        super().__init__(f"{pair}: not run: {reason}")
        self.pair, self.reason = pair, reason


class NoData(Exception):
    """An operand's value is undefined (NaN or no samples)."""


class DataError(Exception):
    """The reference names something the runs do not have (a source, a pair without a run)."""


def fmt(v: float | None) -> str:
    """A number as the report shows it (4 significant digits, no exponent for table ranges)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 0.001:
        return f"{v:.4g}"
    return f"{v:.2g}"


# ------------------------------------------------------------------------------------------
# Data access
# ------------------------------------------------------------------------------------------

class FrameData:
    """Cell values of a reproduction, from tidy DataFrames.

    ``runs``: pair label -> scenario file stem (the ``file`` column of the frames).
    ``flows``: one row per (file, seed, flow) with columns ``file, seed, source`` and, per
    metric field, the batch mean ``<field>`` and the sd of interval means ``<field>_sd``.
    ``intervals``: one row per (file, seed, flow, interval) with ``start_s, end_s`` and the
    per-interval ``<field>`` columns (needed for phases). ``traces``: rows ``file, seed,
    source, time_s`` and one column per traced quantity (``cwnd``, ``outstanding``...).
    ``failures``: file stem -> error message of a run that did not produce results.
    ``phases``: phase name -> (start_s, end_s). ``probes``: like ``traces``, one row per
    packet-pair probe (``probe_gap_s``, ``alpha``...).
    """

    def __init__(self, runs: Mapping[str, str], flows: pd.DataFrame, intervals: pd.DataFrame | None = None,
                 traces: pd.DataFrame | None = None, failures: Mapping[str, str] | None = None,
                 phases: Mapping[str, Iterable[float]] | None = None, fields: Mapping[str, str] | None = None,
                 probes: pd.DataFrame | None = None):
        self.runs = dict(runs)
        self.failures = dict(failures or {})
        self.phases = {k: (float(v[0]), float(v[1])) for k, v in (phases or {}).items()}
        self.fields = dict(DEFAULT_FIELDS)
        self.fields.update(fields or {})
        self._flows = _index(flows)
        self._intervals = _index(intervals)
        self._traces = _index(traces)
        self._probes = _index(probes)
        # Simulated length of each file's runs (the last interval's end), so trace windows
        # can be clipped to what a shortened (--quick) run covers.
        self._ends = {}
        if intervals is not None and len(intervals) and {"file", "end_s"} <= set(intervals.columns):
            self._ends = intervals.groupby("file")["end_s"].max().astype(float).to_dict()
        self._files = set()
        for df in (flows, intervals):
            if df is not None and len(df) and "file" in df.columns:
                self._files |= set(df["file"])

    # -- helpers
    def _stem(self, pair: str) -> str:
        stem = self.runs.get(pair)
        if stem is None:
            raise DataError(f"no run is listed for pair {pair!r}")
        if stem not in self._files:
            raise NotRun(pair, self.failures.get(stem, "no results"))
        return stem

    def _field(self, metric: str) -> str:
        try:
            return self.fields[metric]
        except KeyError:
            raise DataError(f"unknown metric {metric!r}") from None

    def run_end(self, pair: str) -> float | None:
        """Simulated time at which the pair's runs end (None if not known)."""
        return self._ends.get(self.runs.get(pair))

    def run_status(self, pair: str) -> str | None:
        """None if the pair's run produced results, else the reason it did not."""
        try:
            self._stem(pair)
            return None
        except NotRun as e:
            return e.reason
        except DataError as e:
            return str(e)

    def per_seed(self, pair: str, source: int, metric: str | list, stat: str = "mean",
                 phase: str | None = None) -> pd.Series:
        """The cell's value in each seed (index = seed)."""
        if isinstance(metric, (list, tuple)):
            parts = [self.per_seed(pair, source, m, stat, phase) for m in metric]
            return sum(parts[1:], parts[0])
        stem = self._stem(pair)
        col = self._field(metric)
        if phase is None:
            rows = self._flows.get((stem, int(source)))
            if rows is None:
                raise DataError(f"run {stem} ({pair}) has no source {source}")
            name = col + ("_sd" if stat == "sd" else "")
            if stat not in ("mean", "sd"):
                raise DataError(f"unknown stat {stat!r}")
            if name not in rows.columns:
                raise NoData(f"{pair} #{source}: the runs report no {name}")
            return rows.set_index("seed")[name].astype(float)
        if phase not in self.phases:
            raise DataError(f"unknown phase {phase!r}")
        lo, hi = self.phases[phase]
        rows = self._intervals.get((stem, int(source)))
        if rows is None:
            raise DataError(f"run {stem} ({pair}) has no interval rows for source {source}")
        if col not in rows.columns:
            raise NoData(f"{pair} #{source}: the interval rows have no {col}")
        sel = rows[(rows["start_s"] >= lo - 1e-6) & (rows["end_s"] <= hi + 1e-6)]
        if sel.empty:
            raise NoData(f"{pair} #{source}: no measurement interval inside the {phase} phase [{lo:g}, {hi:g}) s")
        g = sel.groupby("seed")[col]
        return (g.std(ddof=1) if stat == "sd" else g.mean()).astype(float)

    def cell(self, pair: str, source: int, metric: str | list, stat: str = "mean", phase: str | None = None) -> float:
        """Seed median of the cell (NaN when every seed's value is undefined)."""
        s = self.per_seed(pair, source, metric, stat, phase)
        return float(s.median()) if s.notna().any() else math.nan

    def seeds(self, pair: str) -> int:
        stem = self._stem(pair)
        n = set()
        for (f, _), rows in self._flows.items():
            if f == stem:
                n |= set(rows["seed"])
        return len(n)

    def trace_per_seed(self, pair: str, source: int, stat: str, t0: float, t1: float,
                       name: str = "cwnd", *, table: str = "trace", level: float | None = None,
                       above: float | None = None) -> pd.Series:
        """A statistic (:data:`TRACE_STATS`) of a traced quantity over simulated time [t0, t1),
        in each seed. ``table`` "trace" = the periodic samples, "probe" = every packet-pair
        probe; ``name`` may also be one of :data:`DERIVED_TRACES`."""
        stem = self._stem(pair)
        rows = (self._probes if table == "probe" else self._traces).get((stem, int(source)))
        what = f"{name} {'probe record' if table == 'probe' else 'trace'}"
        if rows is None:
            raise NoData(f"no {what} for {pair} #{source}")
        if name in DERIVED_TRACES and name not in rows.columns:
            need, fn = DERIVED_TRACES[name]
            if not set(need) <= set(rows.columns):
                raise NoData(f"no {what} for {pair} #{source}")
            rows = rows.assign(**{name: fn(rows)})
        if name not in rows.columns:
            raise NoData(f"no {what} for {pair} #{source}")
        sel = rows[(rows["time_s"] >= t0) & (rows["time_s"] < t1)]
        if sel.empty:
            raise NoData(f"the {what} of {pair} #{source} has no samples in [{t0:g}, {t1:g}) s")
        out = {}
        for seed, g in sel.groupby("seed"):
            g = g.sort_values("time_s")
            out[seed] = series_stat(g[name].to_numpy(float), g["time_s"].to_numpy(float), stat, level, above)
        return pd.Series(out, dtype=float)


# Quantities computed from the traced columns: packet-pair's effective window (sending rate x
# RTT estimate; Fig 6.13 plots the rate's inverse "as a proxy for window", spec §4.3 [REC]) and
# its sending spacing 1 / rate (Fig 6.21's second trace).
DERIVED_TRACES = {
    "rate_x_rtt": (("send_rate_pps", "srtt_s"), lambda d: d["send_rate_pps"] * d["srtt_s"]),
    "send_gap_s": (("send_rate_pps",), lambda d: 1.0 / d["send_rate_pps"]),
    # Distance of a probe's inter-ACK gap from the nearest multiple of 0.1 s, one 1000 B packet
    # on the 80 kb/s lines of Scenarios 3, 7 and 8 (Fig 6.21's quantisation).
    "probe_gap_off_grid_s": (("probe_gap_s",), lambda d: (d["probe_gap_s"] - 0.1 * (d["probe_gap_s"] / 0.1).round()).abs()),
}
TRACE_STATS = ("max", "min", "mean", "median", "cv", "slope", "frac_ge", "falls", "p01", "p05", "p10",
               "p25", "p75", "p90", "p95", "p99")


def series_stat(v: np.ndarray, t: np.ndarray, stat: str, level: float | None = None,
                above: float | None = None) -> float:
    """One seed's statistic of a time series (samples ``v`` at times ``t``, sorted), NaN
    samples ignored:

    max, min, mean, median; pNN = the NN-th percentile; cv = sd / mean (how steady);
    slope = least-squares growth per second; frac_ge = the fraction of samples >= ``level``;
    falls = how often the series comes down to <= ``level`` after having reached ``above``
    (a window's collapses: level 1, above e.g. 8)."""
    keep = ~np.isnan(v)
    v, t = v[keep], t[keep]
    if not len(v):
        return math.nan
    if stat in ("max", "min", "mean", "median"):
        return float(getattr(np, stat)(v))
    if stat.startswith("p") and stat in TRACE_STATS:
        return float(np.percentile(v, int(stat[1:])))
    if stat == "cv":
        m = float(np.mean(v))
        return math.nan if m == 0 else float(np.std(v)) / m
    if stat == "slope":
        return float(np.polyfit(t, v, 1)[0]) if len(v) > 1 and np.ptp(t) > 0 else math.nan
    if stat == "frac_ge":
        if level is None:
            raise DataError("trace stat frac_ge needs `level`")
        return float(np.mean(v >= level))
    if stat == "falls":
        if level is None or above is None:
            raise DataError("trace stat falls needs `level` and `above`")
        n, armed = 0, False
        for x in v:
            if x >= above:
                armed = True
            elif armed and x <= level:
                n, armed = n + 1, False
        return float(n)
    raise DataError(f"unknown trace stat {stat!r} (one of {', '.join(TRACE_STATS)})")


def _index(df: pd.DataFrame | None) -> dict:
    if df is None or not len(df) or "source" not in df.columns:
        return {}
    d = df[df["source"].notna()]
    return {(f, int(s)): g for (f, s), g in d.groupby(["file", "source"], sort=False)}


# ------------------------------------------------------------------------------------------
# Table cells
# ------------------------------------------------------------------------------------------

@dataclass
class CellVerdict:
    status: str        # "PASS" | "FAIL" | "KNOWN" | "P" | "NOT RUN"
    ok: bool | None    # the rule's result (None: not compared)
    rule: str          # the rule applied, in words
    alt_ok: bool | None = None


def cell_rule(spec: Mapping[str, Any], metric: str, tol: Mapping[str, Any]) -> tuple[str, Any]:
    """(description, predicate) for a cell per the header's rules; predicate None for P."""
    mean = float(spec["mean"])
    cls = spec["class"]
    kind = "delay" if metric == "delay" else "throughput"  # rates use the throughput numbers
    if "accept" in spec:
        lo, hi = (float(x) for x in spec["accept"])
        return f"accept [{fmt(lo)}, {fmt(hi)}]", lambda v: lo <= v <= hi
    if cls == "P":
        return "P: judged by the qchecks", None
    if cls == "D":
        if mean == 0:
            z = float(tol.get("zero_pass", 0.01))
            return f"0: v < {fmt(z)}", lambda v: v < z
        d = tol["D"]
        w = max(float(d[f"{kind}_rel"]) * abs(mean), float(d[f"{kind}_abs"]))
        return f"D: |v - {fmt(mean)}| <= {fmt(w)}", lambda v: abs(v - mean) <= w + 1e-12
    if cls == "S":
        s = tol["S"]
        sd = float(spec.get("sd", 0.0))
        w = max(float(s["sd_mult"]) * sd, float(s["rel"]) * abs(mean), float(s[f"{kind}_abs"]))
        return f"S: |v - {fmt(mean)}| <= {fmt(w)}", lambda v: abs(v - mean) <= w + 1e-12
    raise DataError(f"unknown tolerance class {cls!r}")


def judge_cell(spec: Mapping[str, Any], metric: str, value: float | None, tol: Mapping[str, Any],
               not_run: str | None = None) -> CellVerdict:
    """Apply the tolerance rule of one cell to the reproduction's value."""
    rule, pred = cell_rule(spec, metric, tol)
    if not_run is not None:
        return CellVerdict("NOT RUN", None, rule)
    if pred is None:
        return CellVerdict("P", None, rule)
    ok = bool(value is not None and not math.isnan(value) and pred(value))
    alt_ok = None
    if "alt" in spec:
        alt = {**spec, **spec["alt"]}
        if "sd" not in spec["alt"]:
            alt.pop("sd", None)
        _, apred = cell_rule(alt, metric, tol)
        alt_ok = None if apred is None else bool(value is not None and not math.isnan(value) and apred(value))
    if "known_issue" in spec:
        return CellVerdict("KNOWN", ok, rule, alt_ok)
    return CellVerdict("PASS" if ok else "FAIL", ok, rule, alt_ok)


# ------------------------------------------------------------------------------------------
# Qualitative checks
# ------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    status: str
    detail: str = ""
    values: dict = field(default_factory=dict)


_OPS = {"lt": ("<", lambda a, b: a < b), "le": ("<=", lambda a, b: a <= b),
        "gt": (">", lambda a, b: a > b), "ge": (">=", lambda a, b: a >= b)}
_AGGS = ("sum", "mean", "min", "max", "spread")


def _metric_name(m) -> str:
    return "+".join(m) if isinstance(m, (list, tuple)) else str(m)


def _suffix(op: Mapping) -> str:
    s = ""
    if op.get("stat", "mean") != "mean":
        s += f" {op['stat']}"
    if op.get("phase"):
        s += f" [{op['phase']}]"
    return s


def _cond_text(c: Mapping) -> str:
    return f"{_metric_name(c['metric'])}{_suffix(c)} {_OPS[c['op']][0]} {fmt(float(c['value']))}"


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
        return (f"{stat} {name}{' ' + kind if kind else ''} {op.get('pair', '?')} #{op['source']} "
                f"[{float(op['from']):g}, {float(op['to']):g}) s")
    if "agg" in op:
        if "of" in op:
            return f"{op['agg']}(" + ", ".join(describe(x) for x in op["of"]) + ")"
        pairs = op.get("pairs") or [op.get("pair", "?")]
        srcs = ",".join(str(s) for s in op["sources"])
        where = ""
        if op.get("where"):
            where = " where " + " and ".join(_cond_text(c) for c in op["where"])
        return f"{op['agg']}({'+'.join(pairs)} #{srcs} {_metric_name(op['metric'])}{_suffix(op)}{where})"
    return f"{op.get('pair', '?')} #{op['source']} {_metric_name(op['metric'])}{_suffix(op)}"


def _aggregate(agg: str, vals: list[float]) -> float:
    """One seed's aggregate; NaN when undefined (a NaN value, or no cell for min/max/mean)."""
    if agg not in _AGGS:
        raise DataError(f"unknown agg {agg!r}")
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
    return float(max(vals) - min(vals))


def _per_seed(data, pair, source, metric, stat="mean", phase=None) -> pd.Series:
    return data.per_seed(pair, source, metric, stat, phase)


def _mask(data, pair, source, conds) -> pd.Series:
    """Per seed: does the cell meet every condition (NaN never does)?"""
    m = None
    for c in conds:
        v = _per_seed(data, pair, source, c["metric"], c.get("stat", "mean"), c.get("phase"))
        ok = v.notna() & _OPS[c["op"]][1](v, float(c["value"]))
        m = ok if m is None else (m & ok).fillna(False)
    return m.astype(bool)


def _frame(series: list[pd.Series]) -> pd.DataFrame:
    """Align per-seed series on the seed (seeds a run lacks become NaN)."""
    return pd.concat([s.rename(i) for i, s in enumerate(series)], axis=1)


def operand_per_seed(data, op: Mapping) -> pd.Series:
    """An operand's value in each seed: aggregates, `where` filters and metric sums are
    computed within a seed (winners and losers differ between seeds)."""
    if "trace" in op or "probe" in op:
        return data.trace_per_seed(op["pair"], op["source"], op["stat"], float(op["from"]), float(op["to"]),
                                   op.get("trace") or op["probe"], table="probe" if "probe" in op else "trace",
                                   level=op.get("level"), above=op.get("above"))
    if "agg" not in op:
        return _per_seed(data, op["pair"], op["source"], op["metric"], op.get("stat", "mean"), op.get("phase"))
    if "of" in op:
        cols = [operand_per_seed(data, x) for x in op["of"]]
        masks = None
    else:
        pairs = op.get("pairs") or [op["pair"]]
        cols, masks = [], []
        for p in pairs:
            for s in op["sources"]:
                cols.append(_per_seed(data, p, s, op["metric"], op.get("stat", "mean"), op.get("phase")))
                masks.append(_mask(data, p, s, op["where"]) if op.get("where") else None)
    if not cols:
        raise DataError(f"{describe(op)}: no cell")
    v = _frame(cols)
    m = _frame([mk if mk is not None else pd.Series(True, index=c.index) for mk, c in zip(masks, cols)]) \
        if masks else None
    out = {}
    for seed in v.index:
        vals = [float(x) for j, x in enumerate(v.loc[seed])
                if m is None or bool(m.loc[seed].iloc[j] if seed in m.index else False)]
        out[seed] = _aggregate(op["agg"], vals)
    return pd.Series(out, dtype=float)


def _median(series: pd.Series, what: str) -> float:
    if not series.notna().any():
        raise NoData(f"{what} is undefined")
    return float(series.median())


def operand(data, op: Mapping) -> float:
    """An operand's value: the seed median of :func:`operand_per_seed`."""
    return _median(operand_per_seed(data, op), describe(op))


def _meets(data, pair, source, conds) -> bool:
    """Does the cell's seed-median value meet every condition?"""
    for c in conds:
        v = data.cell(pair, source, c["metric"], c.get("stat", "mean"), c.get("phase"))
        if math.isnan(v) or not _OPS[c["op"]][1](v, float(c["value"])):
            return False
    return True


def _cells(check: Mapping) -> list[tuple[str, int]]:
    pairs = check.get("pairs") or [check["pair"]]
    return [(p, s) for p in pairs for s in check["sources"]]


def _bind(check: Mapping, pair: str) -> dict:
    """A copy of ``check`` whose operands (and cell-set fields) that omit the pair get ``pair``."""
    def bind_op(op):
        op = dict(op)
        if "of" in op:
            op["of"] = [bind_op(x) for x in op["of"]]
        elif "pair" not in op and "pairs" not in op:
            op["pair"] = pair
        return op

    c = dict(check)
    for k in ("lhs", "rhs"):
        if isinstance(c.get(k), Mapping):
            c[k] = bind_op(c[k])
    if "terms" in c:
        c["terms"] = [bind_op(t) for t in c["terms"]]
    if "checks" in c:
        c["checks"] = [_bind(x, pair) for x in c["checks"]]
    if c["kind"] in ("sum_between", "all_le", "all_ge", "all_between", "count_ge", "count_le") \
            and "pair" not in c and "pairs" not in c:
        c["pair"] = pair
    return c


def _combine_unknown(outs: list[Outcome]) -> Outcome:
    for st in (NOT_RUN, ERROR, NO_DATA):
        bad = [o for o in outs if o.status == st]
        if bad:
            return Outcome(st, "; ".join(dict.fromkeys(o.detail for o in bad)))
    return Outcome(ERROR, "undetermined")


def evaluate(check: Mapping, data) -> Outcome:
    """Evaluate one check table (the ``check`` of a [[qchecks]] entry) against ``data``."""
    try:
        return _evaluate(_clip_windows(check, data), data)
    except NotRun as e:
        return Outcome(NOT_RUN, str(e))
    except NoData as e:
        return Outcome(NO_DATA, str(e))
    except (DataError, KeyError, TypeError, ValueError) as e:
        return Outcome(ERROR, f"{type(e).__name__}: {e}")


def _clip_windows(node, data):
    """The check with every trace window [from, to) ending no later than its pair's runs, so a
    shortened run is judged, and described, over the span it covers (a window that starts
    after the run ends is left alone and comes out as no data)."""
    if isinstance(node, Mapping):
        out = {k: _clip_windows(v, data) for k, v in node.items()}
        if ("trace" in out or "probe" in out) and "to" in out:
            end = data.run_end(out.get("pair"))
            if end is not None and float(out.get("from", 0.0)) < end < float(out["to"]):
                out["to"] = end
        return out
    if isinstance(node, list):
        return [_clip_windows(v, data) for v in node]
    return node


def _verdict(ok: bool, text: str, **values) -> Outcome:
    return Outcome(PASS if ok else FAIL, text, values)


def _evaluate(c: Mapping, data) -> Outcome:
    kind = c["kind"]
    if kind == "manual":
        return Outcome(MANUAL, "not machine-checkable: judge it as the statement says (figures below)")

    if kind in _OPS:
        sym, f = _OPS[kind]
        lhs = operand(data, c["lhs"])
        slack = float(c.get("slack", 0.0))
        if "rhs" in c:
            rhs = operand(data, c["rhs"])
            rtext = f"{describe(c['rhs'])} = {fmt(rhs)}"
        else:
            rhs = float(c["value"])
            rtext = fmt(rhs)
        bound = rhs - slack if kind in ("ge", "gt") else rhs + slack
        stext = f" (slack {fmt(slack)})" if slack else ""
        return _verdict(f(lhs, bound), f"{describe(c['lhs'])} = {fmt(lhs)} {sym} {rtext}{stext}", lhs=lhs, rhs=rhs)

    if kind == "between":
        v = operand(data, c["lhs"])
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{describe(c['lhs'])} = {fmt(v)} in [{fmt(lo)}, {fmt(hi)}]", lhs=v)

    if kind in ("ratio_ge", "ratio_le", "ratio_between", "absdiff_le", "absdiff_ge", "absdiff_between"):
        lhs, rhs = operand_per_seed(data, c["lhs"]), operand_per_seed(data, c["rhs"])
        both = _frame([lhs, rhs]).dropna()
        if both.empty:
            raise NoData(f"{describe(c['lhs'])} or {describe(c['rhs'])} is undefined in every seed")
        a, b = both[0], both[1]
        ld, rd = describe(c["lhs"]), describe(c["rhs"])
        am, bm = float(a.median()), float(b.median())
        if kind.startswith("ratio"):
            with np.errstate(divide="ignore", invalid="ignore"):
                r = (a / b).where(b != 0, np.where(a > 0, math.inf, np.where(a < 0, -math.inf, math.nan)))
            r = r.dropna()
            if r.empty:
                raise NoData(f"0/0: {ld} and {rd} are both 0")
            v = float(r.median())
            head = f"{ld} / {rd} = {fmt(v)} (seed median of the ratio; medians {fmt(am)} and {fmt(bm)})"
        else:
            v = float((a - b).abs().median())
            head = f"|{ld} - {rd}| = {fmt(v)} (seed median of the difference; medians {fmt(am)} and {fmt(bm)})"
        if kind in ("ratio_ge", "absdiff_ge"):
            return _verdict(v >= float(c["value"]) - 1e-12, f"{head} >= {fmt(float(c['value']))}", value=v)
        if kind in ("ratio_le", "absdiff_le"):
            return _verdict(v <= float(c["value"]) + 1e-12, f"{head} <= {fmt(float(c['value']))}", value=v)
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{head} in [{fmt(lo)}, {fmt(hi)}]", value=v)

    if kind == "sum_between":
        op = {"agg": "sum", "pair": c["pair"], "sources": c["sources"], "metric": c["metric"]}
        for k in ("stat", "phase"):
            if k in c:
                op[k] = c[k]
        v = operand(data, op)
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{describe(op)} = {fmt(v)} in [{fmt(lo)}, {fmt(hi)}]", sum=v)

    if kind in ("all_le", "all_ge", "all_between"):
        if kind == "all_between":
            lo, hi = float(c["lo"]), float(c["hi"])
            test, want = (lambda v: lo <= v <= hi), f"in [{fmt(lo)}, {fmt(hi)}]"
        elif kind == "all_le":
            lim = float(c["value"])
            test, want = (lambda v: v <= lim), f"<= {fmt(lim)}"
        else:
            lim = float(c["value"])
            test, want = (lambda v: v >= lim), f">= {fmt(lim)}"
        what = f"{_metric_name(c['metric'])}{_suffix(c)}"
        bad, unknown, shown = [], [], []
        for p, s in _cells(c):
            try:
                v = data.cell(p, s, c["metric"], c.get("stat", "mean"), c.get("phase"))
            except (NotRun, NoData, DataError) as e:
                unknown.append((p, s, e))
                continue
            shown.append(f"{p} #{s} {fmt(v)}")
            if math.isnan(v):
                unknown.append((p, s, NoData(f"{p} #{s} {what} is undefined")))
            elif not test(v):
                bad.append(f"{p} #{s} = {fmt(v)}")
        if bad:
            extra = f" ({len(unknown)} cells not available)" if unknown else ""
            return Outcome(FAIL, f"every {what} {want}: fails for " + ", ".join(bad) + extra)
        if unknown:
            kinds = [NOT_RUN if isinstance(e, NotRun) else NO_DATA if isinstance(e, NoData) else ERROR
                     for _, _, e in unknown]
            st = NOT_RUN if NOT_RUN in kinds else ERROR if ERROR in kinds else NO_DATA
            missing = list(dict.fromkeys(p for p, _, e in unknown if isinstance(e, NotRun)))
            msgs = ([f"not run: {', '.join(missing)}"] if missing else []) \
                + list(dict.fromkeys(str(e) for _, _, e in unknown if not isinstance(e, NotRun)))
            return Outcome(st, f"every {what} {want}: holds for the {len(shown)} available cells; " + "; ".join(msgs))
        return Outcome(PASS, f"every {what} {want}: " + ", ".join(shown))

    if kind in ("count_ge", "count_le"):
        n = int(c["n"])
        conds = c.get("where", [])
        masks = [_mask(data, c["pair"], s, conds) if conds else
                 _per_seed(data, c["pair"], s, "throughput").notna() | True for s in c["sources"]]
        per_seed = _frame(masks).fillna(False).astype(bool).sum(axis=1)
        cnt = float(per_seed.median())
        ok = cnt >= n if kind == "count_ge" else cnt <= n
        ctext = " and ".join(_cond_text(x) for x in conds) or "(no condition)"
        seeds = ", ".join(f"{int(k)}" for k in per_seed.tolist())
        hits = [s for s in c["sources"] if _meets(data, c["pair"], s, conds)]
        vals = []
        for s in c["sources"]:
            parts = [fmt(data.cell(c["pair"], s, x["metric"], x.get("stat", "mean"), x.get("phase"))) for x in conds]
            vals.append(f"#{s} {'/'.join(parts)}")
        return _verdict(ok, f"{c['pair']}: {fmt(cnt)} of sources {c['sources']} meet {ctext} (seed median of the "
                            f"count; per seed {seeds}; {'>=' if kind == 'count_ge' else '<='} {n} wanted; "
                            f"seed-median values {', '.join(vals)}: met by {hits or 'none'})", count=cnt)

    if kind == "order":
        slack = float(c.get("slack", 0.0))
        vals = [operand(data, t) for t in c["terms"]]
        ok = all(vals[i] >= vals[i + 1] - slack for i in range(len(vals) - 1))
        text = " >= ".join(f"{describe(t)} = {fmt(v)}" for t, v in zip(c["terms"], vals))
        return _verdict(ok, text + (f" (slack {fmt(slack)})" if slack else ""))

    if kind in ("any_of", "all_of"):
        outs = [evaluate(x, data) for x in c["checks"]]
        text = " | ".join(f"[{o.status}] {o.detail}" for o in outs)
        if kind == "any_of":
            if any(o.status == PASS for o in outs):
                return Outcome(PASS, text)
            if all(o.status == FAIL for o in outs):
                return Outcome(FAIL, text)
        else:
            if any(o.status == FAIL for o in outs):
                return Outcome(FAIL, text)
            if all(o.status == PASS for o in outs):
                return Outcome(PASS, text)
        u = _combine_unknown(outs)
        return Outcome(u.status, text)

    if kind == "only":
        expect = set(c["expect"])
        outs = {p: evaluate(_bind(c["test"], p), data) for p in c["pairs"]}
        holds = {p for p, o in outs.items() if o.status == PASS}
        wrong = [p for p, o in outs.items() if o.status in (PASS, FAIL) and (o.status == PASS) != (p in expect)]
        unknown = [o for o in outs.values() if o.status not in (PASS, FAIL)]
        text = (f"holds for {', '.join(sorted(holds)) or 'none'}; expected exactly {', '.join(sorted(expect))} ("
                + "; ".join(f"{p}: {o.status}" for p, o in outs.items()) + ")")
        if wrong:
            return Outcome(FAIL, text + "; wrong for " + ", ".join(wrong))
        if unknown:
            u = _combine_unknown(unknown)
            return Outcome(u.status, text + "; " + u.detail)
        return Outcome(PASS, text)

    raise DataError(f"unknown check kind {kind!r}")


@dataclass
class QResult:
    id: str
    scenario: int
    claim: str
    statement: str
    severity: str
    known_issue: str | None
    kind: str
    status: str
    detail: str


def evaluate_qcheck(q: Mapping, data) -> QResult:
    out = evaluate(q["check"], data)
    return QResult(id=q["id"], scenario=int(q["scenario"]), claim=q.get("claim", ""), statement=q.get("statement", ""),
                   severity=q.get("severity", "hard"), known_issue=q.get("known_issue"), kind=q["check"]["kind"],
                   status=out.status, detail=out.detail)
