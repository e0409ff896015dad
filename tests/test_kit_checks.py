"""The reproduction kit's qualitative-check vocabulary on small synthetic data: operands,
aggregates, traces and probes, every check kind passing and failing, and the statuses of
what cannot be computed (not run, no data, error)."""

import math

import numpy as np
import pandas as pd
import pytest

from ccsim.experiments.kit import frames as F
from ccsim.experiments.kit import operands as O
from ccsim.experiments.kit.checks import evaluate
from ccsim.experiments.kit.frames import FrameData

# Metric names -> columns of the synthetic flow tables.
FIELDS = {"throughput": "goodput_pps", "delay": "delay_s", "drop": "drop_rate", "retx": "retx_rate"}


def make_data(cells, *, seeds=(1,), failures=None, phases=None, intervals=None, traces=None, extra_runs=()):
    """FrameData from {(pair, source): {metric: mean or (mean, sd) or [per-seed means]}}."""
    pairs = sorted({p for p, _ in cells} | set(failures or {}) | set(extra_runs))
    runs = {p: f"file-{p}" for p in pairs}
    rows = []
    for (pair, src), metrics in cells.items():
        for i, seed in enumerate(seeds):
            row = {"file": runs[pair], "seed": seed, "source": src}
            for m, v in metrics.items():
                if isinstance(v, list):
                    mean, sd = v[i], 0.0
                elif isinstance(v, tuple):
                    mean, sd = v
                else:
                    mean, sd = v, 0.0
                row[FIELDS[m]] = mean
                row[FIELDS[m] + "_sd"] = sd
            rows.append(row)
    iv = None
    if intervals:
        iv = pd.DataFrame([{"file": runs[p], "seed": 1, "source": s, "start_s": a, "end_s": b, FIELDS[m]: v}
                           for (p, s, m, a, b, v) in intervals])
    tr = None
    if traces:
        tr = pd.DataFrame([{"file": runs[p], "seed": 1, "source": s, "time_s": t, "cwnd": w}
                           for (p, s, t, w) in traces])
    fails = {runs[p]: msg for p, msg in (failures or {}).items()}
    return FrameData(runs, pd.DataFrame(rows), iv, tr, fails, phases=phases, fields=FIELDS)


@pytest.fixture
def data():
    return make_data({
        ("A", 1): {"throughput": (4.0, 0.2), "delay": 1.0, "drop": 0.0, "retx": 0.1},
        ("A", 2): {"throughput": (2.0, 0.05), "delay": 3.0, "drop": 0.05, "retx": 0.3},
        ("B", 1): {"throughput": 5.0, "delay": 0.5, "drop": 0.0, "retx": 0.0},
        ("B", 2): {"throughput": 5.0, "delay": 0.6, "drop": 0.0, "retx": 0.0},
        ("C", 1): {"throughput": 3.0, "delay": math.nan, "drop": 0.0, "retx": 0.0},
    }, failures={"X": 'links[0].queue: unknown queue discipline "pp"'})


def cell(pair, source, metric="throughput", **kw):
    return {"pair": pair, "source": source, "metric": metric, **kw}


def status(check, data):
    return evaluate(check, data).status


# ---------------------------------------------------------------- operands


def test_cell_values_are_seed_medians():
    d = make_data({("A", 1): {"throughput": [1.0, 5.0, 2.0], "delay": [1, 1, 1]}}, seeds=(1, 2, 3))
    assert d.cell("A", 1, "throughput") == 2.0
    assert O.operand(d, cell("A", 1)) == 2.0


def test_operands(data):
    assert O.operand(data, cell("A", 1, stat="sd")) == 0.2
    assert O.operand(data, cell("A", 2, ["throughput", "retx"])) == pytest.approx(2.3)
    base = {"pair": "A", "sources": [1, 2], "metric": "throughput"}
    assert O.operand(data, {"agg": "sum", **base}) == 6.0
    assert O.operand(data, {"agg": "mean", **base}) == 3.0
    assert O.operand(data, {"agg": "min", **base}) == 2.0
    assert O.operand(data, {"agg": "max", **base}) == 4.0
    assert O.operand(data, {"agg": "spread", **base}) == 2.0
    assert O.operand(data, {"agg": "max", "pairs": ["A", "B"], "sources": [1, 2], "metric": "delay"}) == 3.0
    where = [{"metric": "drop", "op": "lt", "value": 0.01}]
    assert O.operand(data, {"agg": "sum", **base, "where": where}) == 4.0
    assert O.operand(data, {"agg": "min", "of": [{"agg": "sum", **base}, cell("B", 1)]}) == 5.0


def test_phase_and_trace_operands():
    d = make_data({("A", 1): {"throughput": 1.0}}, phases={"off": [300, 600], "on": [600, 900]},
                  intervals=[("A", 1, "throughput", 0, 300, 3.0), ("A", 1, "throughput", 300, 600, 5.0),
                             ("A", 1, "throughput", 600, 900, 3.3)],
                  traces=[("A", 1, t, w) for t, w in ((0, 1), (100, 20), (350, 40), (599, 38), (700, 1))])
    assert O.operand(d, cell("A", 1, phase="off")) == 5.0
    assert O.operand(d, cell("A", 1, phase="on")) == 3.3
    tr = {"trace": "cwnd", "pair": "A", "source": 1, "from": 300, "to": 600}
    assert O.operand(d, {**tr, "stat": "max"}) == 40
    assert O.operand(d, {**tr, "stat": "min"}) == 38
    assert O.operand(d, {**tr, "stat": "mean"}) == 39
    assert status({"kind": "ge", "lhs": {**tr, "stat": "max"}, "value": 39}, d) == "pass"
    assert status({"kind": "le", "lhs": {**tr, "stat": "min"}, "value": 1}, d) == "fail"
    # no samples in the span, or no trace at all: no data, not a failure
    assert status({"kind": "le", "lhs": {**tr, "stat": "min", "from": 2000, "to": 3000}, "value": 1}, d) == "no_data"
    assert status({"kind": "le", "lhs": {**tr, "stat": "min", "source": 2}, "value": 1}, d) == "no_data"
    # the runs end at 900 s (the last interval): a window reaching past it is judged, and
    # described, over [from, 900) s, as a --quick run's checks are
    out = evaluate({"kind": "ge", "lhs": {**tr, "stat": "max", "from": 300, "to": 8000}, "value": 39}, d)
    assert out.status == "pass" and "[300, 900) s" in out.detail and "8000" not in out.detail
    assert d.run_end("A") == 900 and d.run_end("nobody") is None


def test_series_stats_describe_a_window_sawtooth():
    # A JK-like window: slow start to 16, collapse, regrow to 40 and sit there, collapse again.
    w = [1, 2, 4, 8, 16, 1, 2, 4, 8, 20, 30, 40, 40, 40, 40, 1, 1, 2]
    t = list(range(len(w)))
    v, tt = np.array(w, float), np.array(t, float)
    assert F.series_stat(v, tt, "falls", level=1, above=8) == 2
    # a dip that never reached `above` first is not a collapse
    assert F.series_stat(np.array([4, 1, 4, 1.0]), np.arange(4.0), "falls", level=1, above=8) == 0
    assert F.series_stat(v, tt, "frac_ge", level=39.5) == pytest.approx(4 / 18)
    assert F.series_stat(v, tt, "median") == pytest.approx(np.median(w))
    assert F.series_stat(v, tt, "p95") == pytest.approx(np.percentile(w, 95))
    assert F.series_stat(np.array([2.0, 4, 6, 8]), np.array([0.0, 2, 4, 6]), "slope") == pytest.approx(1.0)
    assert F.series_stat(np.array([5.0, 5, 5]), np.arange(3.0), "cv") == 0
    assert F.series_stat(np.array([4.0, 6]), np.arange(2.0), "cv") == pytest.approx(0.2)
    # peaks: turns from rising to falling; two cuts in a row are one peak, flat tops one too
    saw = np.array([7, 8, 9, 9, 4, 5, 6, 3, 1, 2, 2, 3.0])
    assert F.series_stat(saw, np.arange(12.0), "peaks") == 2
    assert F.series_stat(v, tt, "peaks") == 2
    # NaN samples are ignored; none left is undefined
    assert F.series_stat(np.array([np.nan, 3.0]), np.arange(2.0), "max") == 3
    assert math.isnan(F.series_stat(np.array([np.nan]), np.arange(1.0), "max"))
    with pytest.raises(F.DataError, match="level"):
        F.series_stat(v, tt, "frac_ge")
    with pytest.raises(F.DataError, match="unknown trace stat"):
        F.series_stat(v, tt, "p42")


def test_scaled_metrics_and_counts_over_the_measured_intervals():
    # Two seeds; interval 0 is the warm-up the batch means discard (used = False).
    iv = pd.DataFrame([
        {"file": "f", "seed": seed, "source": 1, "interval": k, "start_s": 20.0 * k, "end_s": 20.0 * (k + 1),
         "used": k >= 1, "drops": drops, "feedback_bytes": 50 * fb}
        for seed, per in ((1, [(9, 9), (1, 2), (2, 3), (0, 5)]), (2, [(9, 9), (3, 0), (3, 0), (3, 0)]))
        for k, (drops, fb) in enumerate(per)
    ])
    flows = pd.DataFrame([{"file": "f", "seed": s, "source": 1, "goodput_bps": 64000.0, "goodput_bps_sd": 10.0}
                          for s in (1, 2)])
    metrics = {"kbps": {"field": "goodput_bps", "scale": 0.001}, "drops": {"field": "drops", "window": "sum"},
               "overhead": {"field": "feedback_bytes", "window": "rate", "scale": 8.0}}
    d = FrameData({"P": "f"}, flows, iv, fields={m: v["field"] for m, v in metrics.items()}, metrics=metrics)
    assert d.cell("P", 1, "kbps") == 64.0 and d.cell("P", 1, "kbps", stat="sd") == pytest.approx(0.01)
    assert list(d.per_seed("P", 1, "drops")) == [3.0, 9.0], "the warm-up's 9 drops are not counted"
    assert d.per_seed("P", 1, "overhead").iloc[0] == pytest.approx(10 * 50 * 8 / 60), "10 messages of 50 B in 60 s"
    with pytest.raises(F.DataError, match="no 'sd'"):
        d.per_seed("P", 1, "drops", stat="sd")


def test_probe_and_derived_trace_operands():
    runs = {"PP": "file-PP"}
    flows = pd.DataFrame([{"file": "file-PP", "seed": 1, "source": 1, "goodput_pps": 1.7}])
    traces = pd.DataFrame([{"file": "file-PP", "seed": 1, "source": 1, "time_s": t, "send_rate_pps": r,
                            "srtt_s": 10.0} for t, r in ((0, 1.0), (1, 2.0), (2, 3.0))])
    probes = pd.DataFrame([{"file": "file-PP", "seed": 1, "source": 1, "time_s": t, "probe_gap_s": g,
                            "alpha": a} for t, g, a in ((0, 0.6, 0.83), (1, 0.3, 0.55), (2, 0.4003, 0.6))])
    # a thesis's own derived quantity, beside the kit's rate_x_rtt and send_gap_s
    gap_ms = {"gap_ms": (("probe_gap_s",), lambda rows: 1000 * rows["probe_gap_s"])}
    d = FrameData(runs, flows, None, traces, {}, probes=probes, fields=FIELDS, derived=gap_ms)
    win = {"pair": "PP", "source": 1, "from": 0, "to": 10}
    assert O.operand(d, {"trace": "rate_x_rtt", "stat": "max", **win}) == pytest.approx(30.0)
    assert O.operand(d, {"trace": "send_gap_s", "stat": "min", **win}) == pytest.approx(1 / 3)
    assert O.operand(d, {"probe": "alpha", "stat": "min", **win}) == pytest.approx(0.55)
    assert O.operand(d, {"probe": "gap_ms", "stat": "max", **win}) == pytest.approx(600)
    assert status({"kind": "le", "lhs": {"trace": "gap_ms", "stat": "max", **win}, "value": 1}, d) == "no_data"
    # a probe operand reads the probe records, not the periodic samples
    assert status({"kind": "le", "lhs": {"probe": "srtt_s", "stat": "max", **win}, "value": 1}, d) == "no_data"
    assert "probes" in O.describe({"probe": "alpha", "stat": "min", **win})
    # a mistyped stat or a missing level is the reference's error, reported, never raised
    assert status({"kind": "le", "lhs": {"trace": "srtt_s", "stat": "p42", **win}, "value": 1}, d) == "error"
    assert status({"kind": "le", "lhs": {"trace": "srtt_s", "stat": "frac_ge", **win}, "value": 1}, d) == "error"


def test_port_trace_operands():
    """A traced port's queue and its discipline's state, per seed, by port name."""
    runs = {"Q": "file-Q"}
    flows = pd.DataFrame([{"file": "file-Q", "seed": s, "source": 1, "goodput_pps": 1.0} for s in (1, 2)])
    queues = pd.DataFrame([{"file": "file-Q", "seed": s, "port_name": port, "time_s": t, "packets": q, "state": x}
                           for s in (1, 2) for port in ("r1->r2", "r2->d")
                           for t, q, x in ((0, 0, 10.0), (1, 4, 20.0 * s), (2, 2, 30.0))])
    d = FrameData(runs, flows, None, None, {}, fields=FIELDS, queues=queues)
    win = {"pair": "Q", "port": "r1->r2", "from": 0, "to": 10}
    # seed 1's state 10, 20, 30 and seed 2's 10, 40, 30: medians of the per-seed values
    assert O.operand(d, {"trace": "state", "stat": "max", **win}) == pytest.approx(35.0)
    assert O.operand(d, {"trace": "packets", "stat": "mean", **win}) == pytest.approx(2.0)
    assert "port r1->r2" in O.describe({"trace": "state", "stat": "cv", **win})
    # a column the trace lacks: no data, not a failure; a port traced nowhere (misspelt), a
    # source beside the port, neither, or a port's probes: the reference's error
    assert status({"kind": "le", "lhs": {"trace": "cwnd", "stat": "max", **win}, "value": 1}, d) == "no_data"
    assert status({"kind": "le", "lhs": {"trace": "state", "stat": "max", **win, "port": "x->y"}, "value": 1}, d) == "error"
    assert status({"kind": "le", "lhs": {"trace": "state", "stat": "max", "source": 1, **win}, "value": 1}, d) == "error"
    no_port = {k: v for k, v in win.items() if k != "port"}
    assert status({"kind": "le", "lhs": {"trace": "state", "stat": "max", **no_port}, "value": 1}, d) == "error"
    assert status({"kind": "le", "lhs": {"probe": "state", "stat": "max", **win}, "value": 1}, d) == "error"
    assert status({"kind": "ge", "lhs": {"trace": "state", "stat": "cv", **win},
                   "rhs": {"trace": "state", "stat": "cv", **win, "port": "r2->d"}}, d) == "pass"


# ---------------------------------------------------------------- kinds, pass and fail


@pytest.mark.parametrize("check,expected", [
    ({"kind": "lt", "lhs": cell("A", 2), "rhs": cell("A", 1)}, "pass"),
    ({"kind": "lt", "lhs": cell("A", 1), "rhs": cell("A", 2)}, "fail"),
    ({"kind": "le", "lhs": cell("B", 1), "value": 5.0}, "pass"),
    ({"kind": "le", "lhs": cell("B", 1), "value": 4.9}, "fail"),
    ({"kind": "le", "lhs": cell("B", 1), "value": 4.9, "slack": 0.1}, "pass"),
    ({"kind": "gt", "lhs": cell("B", 1), "rhs": cell("A", 1)}, "pass"),
    ({"kind": "gt", "lhs": cell("B", 1), "rhs": cell("B", 2)}, "fail"),
    ({"kind": "ge", "lhs": cell("A", 1), "rhs": cell("B", 1)}, "fail"),
    ({"kind": "ge", "lhs": cell("A", 1), "rhs": cell("B", 1), "slack": 1.0}, "pass"),
    ({"kind": "between", "lhs": cell("A", 1), "lo": 3.9, "hi": 4.1}, "pass"),
    ({"kind": "between", "lhs": cell("A", 1), "lo": 4.1, "hi": 5}, "fail"),
    ({"kind": "ratio_ge", "lhs": cell("A", 1), "rhs": cell("A", 2), "value": 2}, "pass"),
    ({"kind": "ratio_ge", "lhs": cell("A", 2), "rhs": cell("A", 1), "value": 2}, "fail"),
    ({"kind": "ratio_le", "lhs": cell("A", 2), "rhs": cell("A", 1), "value": 0.5}, "pass"),
    ({"kind": "ratio_le", "lhs": cell("A", 1), "rhs": cell("A", 2), "value": 0.5}, "fail"),
    ({"kind": "ratio_between", "lhs": cell("A", 1), "rhs": cell("B", 1), "lo": 0.7, "hi": 0.9}, "pass"),
    ({"kind": "ratio_between", "lhs": cell("A", 1), "rhs": cell("B", 1), "lo": 0.9, "hi": 1.1}, "fail"),
    ({"kind": "ratio_ge", "lhs": cell("A", 1), "rhs": cell("B", 1, "drop"), "value": 100}, "pass"),  # x/0 = inf
    ({"kind": "absdiff_le", "lhs": cell("B", 1), "rhs": cell("B", 2), "value": 0.05}, "pass"),
    ({"kind": "absdiff_le", "lhs": cell("A", 1), "rhs": cell("A", 2), "value": 0.05}, "fail"),
    ({"kind": "absdiff_ge", "lhs": cell("A", 1, "delay"), "rhs": cell("A", 2, "delay"), "value": 2}, "pass"),
    ({"kind": "absdiff_ge", "lhs": cell("B", 1, "delay"), "rhs": cell("B", 2, "delay"), "value": 0.5}, "fail"),
    ({"kind": "absdiff_between", "lhs": cell("B", 1, "delay"), "rhs": cell("B", 2, "delay"), "lo": 0.05, "hi": 0.2},
     "pass"),
    ({"kind": "absdiff_between", "lhs": cell("A", 1), "rhs": cell("A", 2), "lo": 0.05, "hi": 0.2}, "fail"),
    ({"kind": "sum_between", "pair": "B", "sources": [1, 2], "metric": "throughput", "lo": 9.9, "hi": 10.1}, "pass"),
    ({"kind": "sum_between", "pair": "A", "sources": [1, 2], "metric": "throughput", "lo": 9.9, "hi": 10.1}, "fail"),
    ({"kind": "all_le", "pairs": ["A", "B"], "sources": [1, 2], "metric": "drop", "value": 0.05}, "pass"),
    ({"kind": "all_le", "pairs": ["A", "B"], "sources": [1, 2], "metric": "drop", "value": 0.01}, "fail"),
    ({"kind": "all_ge", "pairs": ["B"], "sources": [1, 2], "metric": "throughput", "value": 5}, "pass"),
    ({"kind": "all_ge", "pairs": ["A", "B"], "sources": [1, 2], "metric": "throughput", "value": 3}, "fail"),
    ({"kind": "all_between", "pairs": ["A"], "sources": [1, 2], "metric": "throughput", "stat": "sd",
      "lo": 0.0, "hi": 0.2}, "pass"),
    ({"kind": "all_between", "pairs": ["A"], "sources": [1, 2], "metric": "throughput", "lo": 1, "hi": 3}, "fail"),
    ({"kind": "count_ge", "pair": "A", "sources": [1, 2], "n": 1,
      "where": [{"metric": "throughput", "op": "ge", "value": 3}, {"metric": "drop", "op": "lt", "value": 0.01}]},
     "pass"),
    ({"kind": "count_ge", "pair": "A", "sources": [1, 2], "n": 2,
      "where": [{"metric": "throughput", "op": "ge", "value": 3}]}, "fail"),
    ({"kind": "count_le", "pair": "A", "sources": [1, 2], "n": 0,
      "where": [{"metric": "throughput", "op": "ge", "value": 10}]}, "pass"),
    ({"kind": "count_le", "pair": "A", "sources": [1, 2], "n": 1,
      "where": [{"metric": "throughput", "op": "gt", "value": 1}]}, "fail"),
    ({"kind": "order", "terms": [cell("B", 1), cell("A", 1), cell("A", 2)]}, "pass"),
    ({"kind": "order", "terms": [cell("A", 1), cell("B", 1)]}, "fail"),
    ({"kind": "order", "terms": [cell("A", 1), cell("B", 1)], "slack": 1.0}, "pass"),
    ({"kind": "any_of", "checks": [{"kind": "le", "lhs": cell("A", 1), "value": 1},
                                   {"kind": "ge", "lhs": cell("A", 1, stat="sd"), "value": 0.1}]}, "pass"),
    ({"kind": "any_of", "checks": [{"kind": "le", "lhs": cell("A", 1), "value": 1},
                                   {"kind": "ge", "lhs": cell("A", 1, stat="sd"), "value": 0.5}]}, "fail"),
    ({"kind": "all_of", "checks": [{"kind": "le", "lhs": cell("A", 1), "value": 5},
                                   {"kind": "ge", "lhs": cell("A", 1), "value": 3}]}, "pass"),
    ({"kind": "all_of", "checks": [{"kind": "le", "lhs": cell("A", 1), "value": 5},
                                   {"kind": "ge", "lhs": cell("A", 1), "value": 4.5}]}, "fail"),
    ({"kind": "only", "pairs": ["A", "B"], "expect": ["B"],
      "test": {"kind": "le", "lhs": {"agg": "spread", "sources": [1, 2], "metric": "throughput"}, "value": 0.5}},
     "pass"),
    ({"kind": "only", "pairs": ["A", "B"], "expect": ["A"],
      "test": {"kind": "le", "lhs": {"agg": "spread", "sources": [1, 2], "metric": "throughput"}, "value": 0.5}},
     "fail"),
    ({"kind": "only", "pairs": ["A", "B"], "expect": ["B"],
      "test": {"kind": "ratio_ge", "lhs": {"source": 2, "metric": "throughput"},
               "rhs": {"source": 1, "metric": "throughput"}, "value": 0.85}}, "pass"),
    ({"kind": "manual"}, "manual"),
])
def test_kinds(data, check, expected):
    out = evaluate(check, data)
    assert out.status == expected, out.detail
    assert out.detail


def test_missing_runs_are_not_run_never_raised(data):
    out = evaluate({"kind": "gt", "lhs": cell("X", 1), "rhs": cell("A", 1)}, data)
    assert out.status == "not_run" and 'unknown queue discipline "pp"' in out.detail
    out = evaluate({"kind": "all_le", "pairs": ["A", "X"], "sources": [1], "metric": "drop", "value": 1}, data)
    assert out.status == "not_run" and "X" in out.detail
    # ...but a failure among the available cells is still a failure
    assert status({"kind": "all_le", "pairs": ["A", "X"], "sources": [1], "metric": "drop", "value": -1}, data) == "fail"
    # any_of: one passing branch decides; all_of: one failing branch decides
    ok = {"kind": "ge", "lhs": cell("A", 1), "value": 1}
    bad = {"kind": "ge", "lhs": cell("A", 1), "value": 100}
    nr = {"kind": "ge", "lhs": cell("X", 1), "value": 1}
    assert status({"kind": "any_of", "checks": [nr, ok]}, data) == "pass"
    assert status({"kind": "any_of", "checks": [nr, bad]}, data) == "not_run"
    assert status({"kind": "all_of", "checks": [nr, bad]}, data) == "fail"
    assert status({"kind": "all_of", "checks": [nr, ok]}, data) == "not_run"
    only = {"kind": "only", "pairs": ["A", "B", "X"], "expect": ["B", "X"],
            "test": {"kind": "le", "lhs": {"agg": "spread", "sources": [1, 2], "metric": "throughput"}, "value": 0.5}}
    assert status(only, data) == "not_run"
    assert status({**only, "expect": ["A", "X"]}, data) == "fail"


def test_undefined_values_are_no_data(data):
    assert status({"kind": "lt", "lhs": cell("C", 1, "delay"), "value": 1}, data) == "no_data"
    where = [{"metric": "throughput", "op": "gt", "value": 100}]
    op = {"agg": "max", "pair": "A", "sources": [1, 2], "metric": "delay", "where": where}
    assert status({"kind": "lt", "lhs": op, "value": 1}, data) == "no_data"
    # an unknown source is a data error, reported as such
    assert status({"kind": "lt", "lhs": cell("A", 9), "value": 1}, data) == "error"


def test_detail_shows_the_numbers(data):
    out = evaluate({"kind": "ratio_ge", "lhs": cell("A", 1), "rhs": cell("A", 2), "value": 2}, data)
    assert "A #1 throughput / A #2 throughput = 2" in out.detail and "medians 4 and 2" in out.detail


def test_aggregates_counts_and_ratios_are_taken_within_each_seed():
    """Segregation: a different source loses in each seed. Per-source medians would say
    every source gets 5 (sum 15 on a line of 10, no loser); within each seed the sum is 10
    and there is one loser."""
    thr = {1: [5.0, 5.0, 0.0], 2: [5.0, 0.0, 5.0], 3: [0.0, 5.0, 5.0]}
    d = make_data({("A", s): {"throughput": v, "drop": [0.0 if x else 0.1 for x in v]} for s, v in thr.items()},
                  seeds=(1, 2, 3))
    assert [d.cell("A", s, "throughput") for s in (1, 2, 3)] == [5.0, 5.0, 5.0]
    assert O.operand(d, {"agg": "sum", "pair": "A", "sources": [1, 2, 3], "metric": "throughput"}) == 10.0
    assert O.operand(d, {"agg": "spread", "pair": "A", "sources": [1, 2, 3], "metric": "throughput"}) == 5.0
    losers = [{"metric": "throughput", "op": "le", "value": 1}, {"metric": "drop", "op": "ge", "value": 0.05}]
    assert status({"kind": "count_ge", "pair": "A", "sources": [1, 2, 3], "n": 1, "where": losers}, d) == "pass"
    assert status({"kind": "count_ge", "pair": "A", "sources": [1, 2, 3], "n": 2, "where": losers}, d) == "fail"
    # The detail says the count is taken seed by seed, apart from the per-source medians
    # (which here name no loser at all).
    detail = evaluate({"kind": "count_ge", "pair": "A", "sources": [1, 2, 3], "n": 1, "where": losers}, d).detail
    assert "seed 1: 1, seed 2: 1, seed 3: 1" in detail and "by these medians none would meet it" in detail
    op = {"agg": "sum", "pair": "A", "sources": [1, 2, 3], "metric": "throughput",
          "where": [{"metric": "drop", "op": "lt", "value": 0.01}]}
    assert O.operand(d, op) == 10.0
    assert status({"kind": "sum_between", "pair": "A", "sources": [1, 2, 3], "metric": "throughput",
                   "lo": 9.9, "hi": 10.1}, d) == "pass"
    # ratios within a seed: source 1 / source 2 is 1, inf, 0 -> median 1
    assert status({"kind": "ratio_between", "lhs": cell("A", 1), "rhs": cell("A", 2), "lo": 0.9, "hi": 1.1}, d) == "pass"



def test_variance_and_jain_aggregates():
    d = make_data({("A", 1): {"throughput": 1.0}, ("A", 2): {"throughput": 3.0}, ("A", 3): {"throughput": 2.0}})
    base = {"pair": "A", "sources": [1, 2, 3], "metric": "throughput"}
    assert O.operand(d, {"agg": "var", **base}) == pytest.approx(2 / 3)      # population variance
    assert O.operand(d, {"agg": "jain", **base}) == pytest.approx(36 / (3 * 14))
    assert O.operand(d, {"agg": "jain", **base, "sources": [1]}) == 1.0     # one flow is fair to itself
    zero = make_data({("Z", 1): {"throughput": 0.0}, ("Z", 2): {"throughput": 0.0}})
    assert status({"kind": "ge", "lhs": {"agg": "jain", "pair": "Z", "sources": [1, 2], "metric": "throughput"},
                   "value": 0.5}, zero) == "no_data"                          # 0/0 is undefined
    assert status({"kind": "ge", "lhs": {"agg": "median", **base}, "value": 0}, d) == "error"


def test_sources_all_reads_every_numbered_source():
    d = make_data({("A", 1): {"throughput": 1.0}, ("A", 2): {"throughput": 3.0}, ("A", 4): {"throughput": 2.0}})
    assert d.sources("A") == [1, 2, 4]
    assert O.operand(d, {"agg": "sum", "pair": "A", "sources": "all", "metric": "throughput"}) == 6.0
    assert "all" in O.describe({"agg": "sum", "pair": "A", "sources": "all", "metric": "throughput"})
    assert status({"kind": "all_le", "pair": "A", "sources": "all", "metric": "throughput", "value": 2.5}, d) == "fail"
    assert status({"kind": "count_ge", "pair": "A", "sources": "all", "n": 3}, d) == "pass"
    assert status({"kind": "le", "lhs": {"agg": "sum", "pair": "A", "sources": "some", "metric": "throughput"},
                   "value": 1}, d) == "error"


def test_curve_operands_read_the_run_of_that_point():
    d = make_data({("RED @ 10", 1): {"throughput": 5.0}, ("RED @ 20", 1): {"throughput": 2.5}})
    at = lambda x: {"curve": "RED", "x": x, "source": 1, "metric": "throughput"}  # noqa: E731
    assert status({"kind": "ratio_between", "lhs": at(10), "rhs": at(20), "lo": 1.9, "hi": 2.1}, d) == "pass"
    out = evaluate({"kind": "gt", "lhs": at(20), "rhs": at(10)}, d)
    assert out.status == "fail" and "RED @ 20 #1" in out.detail
    assert status({"kind": "gt", "lhs": at(40), "value": 0}, d) == "error"  # no run at that point
