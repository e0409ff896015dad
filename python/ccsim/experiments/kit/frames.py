"""What a reproduction gave: cell values read from the tidy tables of the runs.

:class:`FrameData` answers "what did the runs give for this flow's metric" from the tables
:func:`ccsim.experiments.kit.runner.run_scenarios` collects (per-(file, seed, flow) batch
means, per-interval rows, periodic traces, per-probe records): a flow's value in each seed,
per phase from the interval rows, or a statistic of a traced quantity over a span of
simulated time (:func:`series_stat`).

Runs are addressed by their label in the reference (a protocol pair such as "JK/FQ", or a
point of a sweep, :func:`ccsim.experiments.kit.reference.point_label`) and flows by their
source number, the number a flow's name starts with ("3 Telnet" is source 3).

A value that needs a run which is missing or failed raises :class:`NotRun`; an undefined
one (NaN: a flow without RTT samples, a trace without samples in the span) :class:`NoData`;
a reference that names something the runs cannot have, :class:`DataError`. The judging code
turns these into statuses, never into a crash.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping

import numpy as np
import pandas as pd


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


class FrameData:
    """Cell values of a reproduction, from tidy DataFrames.

    ``runs``: pair label -> scenario file stem (the ``file`` column of the frames).
    ``flows``: one row per (file, seed, flow) with columns ``file, seed, source`` and, per
    metric field, the batch mean ``<field>`` and the sd of interval means ``<field>_sd``.
    ``intervals``: one row per (file, seed, flow, interval) with ``start_s, end_s`` and the
    per-interval ``<field>`` columns (needed for phases). ``traces``: rows ``file, seed,
    source, time_s`` and one column per traced quantity (``cwnd``, ``outstanding``...).
    ``failures``: file stem -> error message of a run that did not produce results.
    ``phases``: phase name -> (start_s, end_s). ``fields``: metric name (the reference's)
    -> column. ``probes``: like ``traces``, one row per packet-pair probe (``probe_gap_s``,
    ``alpha``...). ``derived``: quantities computed from traced columns, beside
    :data:`DERIVED_TRACES`: name -> (columns needed, function of the rows). ``queues``: rows
    ``file, seed, port_name, time_s`` of the traced ports (``packets``, ``bytes``, ``state``).
    """

    def __init__(self, runs: Mapping[str, str], flows: pd.DataFrame, intervals: pd.DataFrame | None = None,
                 traces: pd.DataFrame | None = None, failures: Mapping[str, str] | None = None,
                 phases: Mapping[str, Iterable[float]] | None = None, fields: Mapping[str, str] | None = None,
                 probes: pd.DataFrame | None = None, derived: Mapping[str, tuple] | None = None,
                 metrics: Mapping[str, Mapping] | None = None, queues: pd.DataFrame | None = None):
        self.runs = dict(runs)
        # Per metric: a factor on the column's values (units) and a window rule ("sum": the
        # sum over the measured intervals, "rate": that sum per second of them).
        self.scales = {m: float(v.get("scale", 1.0)) for m, v in (metrics or {}).items()}
        self.windows = {m: v["window"] for m, v in (metrics or {}).items() if v.get("window")}
        self.failures = dict(failures or {})
        self.phases = {k: (float(v[0]), float(v[1])) for k, v in (phases or {}).items()}
        self.fields = dict(fields or {})
        self.derived = {**DERIVED_TRACES, **(derived or {})}
        self._flows = _index(flows)
        self._intervals = _index(intervals)
        self._traces = _index(traces)
        self._probes = _index(probes)
        self._queues = ({k: g for k, g in queues.groupby(["file", "port_name"], sort=False)}
                        if queues is not None and len(queues) else {})
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
            raise NotRun(pair, self.failures.get(stem, f"{stem} was not among this reproduction's runs (a --quick "
                                                        f"run sweeps fewer values)"))
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
        scale = self.scales.get(metric, 1.0)
        if metric in self.windows:
            return self._window_values(stem, pair, source, col, self.windows[metric], stat, phase) * scale
        if phase is None:
            rows = self._flows.get((stem, int(source)))
            if rows is None:
                raise DataError(f"run {stem} ({pair}) has no source {source}")
            name = col + ("_sd" if stat == "sd" else "")
            if stat not in ("mean", "sd"):
                raise DataError(f"unknown stat {stat!r}")
            if name not in rows.columns:
                raise NoData(f"{pair} #{source}: the runs report no {name}")
            return rows.set_index("seed")[name].astype(float) * scale
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
        return (g.std(ddof=1) if stat == "sd" else g.mean()).astype(float) * scale

    def _window_values(self, stem: str, pair: str, source: int, col: str, window: str, stat: str,
                       phase: str | None) -> pd.Series:
        """A count over the measured intervals (those the batch means use; within the phase if
        one is given) in each seed: its sum, or ("rate") the sum per second of them."""
        if stat != "mean":
            raise DataError(f"a {window} over the measurement window has no {stat!r}")
        rows = self._intervals.get((stem, int(source)))
        if rows is None:
            raise DataError(f"run {stem} ({pair}) has no interval rows for source {source}")
        if col not in rows.columns:
            raise NoData(f"{pair} #{source}: the interval rows have no {col}")
        sel = rows[rows["used"]] if "used" in rows.columns else rows
        if phase is not None:
            if phase not in self.phases:
                raise DataError(f"unknown phase {phase!r}")
            lo, hi = self.phases[phase]
            sel = sel[(sel["start_s"] >= lo - 1e-6) & (sel["end_s"] <= hi + 1e-6)]
        if sel.empty:
            raise NoData(f"{pair} #{source}: no measured interval")
        g = sel.groupby("seed")
        total = g[col].sum().astype(float)
        if window == "rate":
            total = total / (g["end_s"].sum() - g["start_s"].sum())
        return total

    def cell(self, pair: str, source: int, metric: str | list, stat: str = "mean", phase: str | None = None) -> float:
        """Seed median of the cell (NaN when every seed's value is undefined)."""
        s = self.per_seed(pair, source, metric, stat, phase)
        return float(s.median()) if s.notna().any() else math.nan

    def flow_seeds(self, pair: str, source: int) -> list[int]:
        """The seeds in which the pair's run has a row for the source."""
        stem = self._stem(pair)
        rows = self._flows.get((stem, int(source)))
        if rows is None:
            raise DataError(f"run {stem} ({pair}) has no source {source}")
        return sorted(set(rows["seed"]))

    def sources(self, pair: str) -> list[int]:
        """The numbered sources of the pair's run, in order."""
        stem = self._stem(pair)
        return sorted(s for (f, s) in self._flows if f == stem)

    def trace_per_seed(self, pair: str, source: int | None, stat: str, t0: float, t1: float,
                       name: str = "cwnd", *, table: str = "trace", level: float | None = None,
                       above: float | None = None, port: str | None = None) -> pd.Series:
        """A statistic (:data:`TRACE_STATS`) of a traced quantity over simulated time [t0, t1),
        in each seed. ``table`` "trace" = the periodic samples, "probe" = every packet-pair
        probe; ``name`` may also be a derived quantity (``derived``, :data:`DERIVED_TRACES`).
        With ``port`` (a port name, ``"r2->r3"``) the quantity is a column of that port's
        queue trace instead (``packets``, ``bytes``, ``state``) and ``source`` is not used."""
        if (port is None) == (source is None):
            raise DataError("a trace operand names a source or a port, not both or neither")
        if port is not None and table == "probe":
            raise DataError("probe records belong to sources: a port's trace is read with `trace`")
        stem = self._stem(pair)
        if port is not None:
            if self._queues and port not in {p for _, p in self._queues}:
                raise DataError(f"port {port!r} is traced in none of this scenario's runs (misspelt? "
                                f"ports are named \"a->b\")")
            rows, whose = self._queues.get((stem, port)), f"port {port}"
        else:
            rows, whose = (self._probes if table == "probe" else self._traces).get((stem, int(source))), f"#{source}"
        what = f"{name} {'probe record' if table == 'probe' else 'trace'}"
        if rows is None:
            raise NoData(f"no {what} for {pair} {whose}")
        if name in self.derived and name not in rows.columns:
            need, fn = self.derived[name]
            if not set(need) <= set(rows.columns):
                raise NoData(f"no {what} for {pair} {whose}")
            rows = rows.assign(**{name: fn(rows)})
        if name not in rows.columns:
            raise NoData(f"no {what} for {pair} {whose}")
        sel = rows[(rows["time_s"] >= t0) & (rows["time_s"] < t1)]
        if sel.empty:
            raise NoData(f"the {what} of {pair} {whose} has no samples in [{t0:g}, {t1:g}) s")
        out = {}
        for seed, g in sel.groupby("seed"):
            g = g.sort_values("time_s")
            out[seed] = series_stat(g[name].to_numpy(float), g["time_s"].to_numpy(float), stat, level, above)
        return pd.Series(out, dtype=float)


# Quantities computed from the traced columns of any rate-based source: its effective window
# (sending rate x smoothed RTT) and its sending spacing (1 / rate). A thesis adds its own
# through Thesis.derived_traces.
DERIVED_TRACES: dict[str, tuple[tuple[str, ...], Callable]] = {
    "rate_x_rtt": (("send_rate_pps", "srtt_s"), lambda d: d["send_rate_pps"] * d["srtt_s"]),
    "send_gap_s": (("send_rate_pps",), lambda d: 1.0 / d["send_rate_pps"]),
}
TRACE_STATS = ("max", "min", "mean", "median", "cv", "slope", "frac_ge", "falls", "peaks", "p01", "p05", "p10",
               "p25", "p75", "p90", "p95", "p99")


def series_stat(v: np.ndarray, t: np.ndarray, stat: str, level: float | None = None,
                above: float | None = None) -> float:
    """One seed's statistic of a time series (samples ``v`` at times ``t``, sorted), NaN
    samples ignored:

    max, min, mean, median; pNN = the NN-th percentile; cv = sd / mean (how steady);
    slope = least-squares growth per second; frac_ge = the fraction of samples >= ``level``;
    falls = how often the series comes down to <= ``level`` after having reached ``above``
    (a window's collapses: level 1, above e.g. 8); peaks = how often it turns from rising to
    falling (steps of no change skipped: a sawtooth's peaks, two cuts in a row one peak)."""
    keep = ~np.isnan(v)
    v, t = v[keep], t[keep]
    if not len(v):
        return math.nan
    if stat in ("max", "min", "mean", "median"):
        return float(getattr(np, stat)(v))
    if stat.startswith("p") and stat[1:].isdigit() and stat in TRACE_STATS:
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
    if stat == "peaks":
        d = np.diff(v)
        d = d[d != 0]
        return float(np.sum((d[:-1] > 0) & (d[1:] < 0)))
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

