"""The reproduction kit's table cells on small synthetic data: every kind of cell (a flow's
metric, an aggregate over flows, a point of a sweep, a model function's value) evaluated and
judged, the reference schema's errors, and the counts the report and the CLI print."""

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from ccsim.experiments.kit.cells import evaluate_cells, model_value
from ccsim.experiments.kit.findings import Finding, annotate_cells
from ccsim.experiments.kit.judge import pass_rates, pass_rates_text
from ccsim.experiments.kit.sections import failure_explanations
from ccsim.experiments.kit.reference import check_reference, scenario_runs
from ccsim.experiments.kit.reproduce import scenario_data
from ccsim.experiments.kit.runner import RunTables
from ccsim.models import keshav91 as k91

TOL = {"zero_pass": 0.01, "default_family": "rate",
       "D": {"rate_rel": 0.02, "rate_abs": 0.05, "delay_rel": 0.05, "delay_abs": 0.03},
       "S": {"sd_mult": 3.0, "rel": 0.10, "rate_abs": 0.03, "delay_abs": 0.05}}
METRICS = {"thr": {"field": "goodput_pps"}, "delay": {"field": "delay_s", "family": "delay"},
           "wait": {"family": "delay"}}


def reference(tables, sweeps=(), runs=None):
    """A one-scenario reference ("X1") holding ``tables``."""
    sc = {"scenario": "X1", "title": "synthetic", "runs": {"A": "a", "B": "b"} if runs is None else runs,
          "sweeps": list(sweeps)}
    ref = {"tolerance": TOL, "metrics": METRICS, "scenarios": [sc], "tables": tables}
    check_reference(ref)
    return ref


def flow_rows(file, values, seeds=(1, 2, 3)):
    """Flow rows of one file: values = {source: [throughput per seed]}; delays 1 s."""
    return [{"file": file, "seed": seed, "source": src, "goodput_pps": v[i], "goodput_pps_sd": 0.1,
             "delay_s": 1.0, "delay_s_sd": 0.0} for src, v in values.items() for i, seed in enumerate(seeds)]


def evaluate(ref, rows, failures=()):
    """cells.parquet's rows for ``ref`` over the synthetic flow ``rows``."""
    flows = pd.DataFrame(rows)
    runs = pd.DataFrame([{"scenario": "X1", "pair": p, "file": f, "seeds_ok": 3,
                          "error": "boom" if f in failures else ""}
                         for p, f in scenario_runs(ref["scenarios"][0]).items()])
    empty = pd.DataFrame(columns=["file", "seed", "source", "time_s"])
    tables = RunTables(flows[~flows["file"].isin(failures)], empty, empty, empty, runs)
    return evaluate_cells(ref, {"X1": scenario_data(ref, "X1", tables)})


def test_flow_cells_are_seed_medians_judged_by_their_metrics_family():
    t = {"id": "T1", "scenario": "X1", "title": "", "metrics": ["thr", "delay"], "rows": [
        {"pair": "A", "source": 1, "thr": {"mean": 2.0, "class": "D"}, "delay": {"mean": 1.04, "class": "D"}},
        {"pair": "A", "source": 2, "thr": {"mean": 2.0, "class": "D"}},
        {"pair": "B", "source": 1, "thr": {"mean": 2.0, "class": "S", "sd": 0.1}}]}
    c = evaluate(reference([t]), flow_rows("a", {1: [1.0, 2.0, 9.0], 2: [3.0, 3.0, 3.0]}), failures={"b"})
    assert list(c["kind"]) == ["flow"] * 4 and list(c["source"]) == [1, 1, 2, 1]
    assert c["sim"].tolist()[:3] == [2.0, 1.0, 3.0] and c["seeds"].tolist()[:3] == [3, 3, 3]
    # delay's family allows 5% (1.0 is within 0.052 of 1.04); the rates' 2% would not
    assert c["status"].tolist() == ["PASS", "PASS", "FAIL", "NOT RUN"]
    assert c["error"].iloc[3] == "boom"


def test_aggregate_cells_are_taken_within_each_seed():
    # A different source starves in each seed: per-source medians would say every source
    # gets 4 (sum 12, Jain 1); within each seed the sum is 8 and Jain's index 2/3.
    rows = flow_rows("a", {1: [4.0, 4.0, 0.0], 2: [4.0, 0.0, 4.0], 3: [0.0, 4.0, 4.0]})
    t = {"id": "T2", "scenario": "X1", "title": "", "kind": "aggregate", "metrics": ["thr"], "rows": [
        {"pair": "A", "agg": "sum", "sources": "all", "thr": {"mean": 8.0, "class": "D"}},
        {"pair": "A", "agg": "jain", "sources": [1, 2, 3], "thr": {"mean": 0.667, "class": "D"}},
        {"pair": "A", "agg": "var", "sources": [1, 2], "thr": {"mean": 4.0, "class": "D"}},
        {"pair": "A", "agg": "mean", "sources": [1, 2, 3], "label": "winners",
         "where": [{"metric": "thr", "op": "gt", "value": 1}], "thr": {"mean": 4.0, "class": "D"}}]}
    c = evaluate(reference([t]), rows)
    assert c["sim"].tolist() == pytest.approx([8.0, 2 / 3, 4.0, 4.0])
    assert c["status"].tolist() == ["PASS"] * 4
    assert c["source"].isna().all() and c["item"].tolist()[:2] == ["sum all", "jain #1,2,3"]
    assert "where thr > 1" in c["item"].iloc[3]


def test_curve_cells_read_the_run_of_their_sweep_value():
    sweep = {"curve": "RED", "param": "flows", "values": [2, 4], "file": "red-n{x}"}
    rows = flow_rows("red-n2", {1: [5.0] * 3, 2: [5.0] * 3}) + flow_rows("red-n4", {s: [2.5] * 3 for s in (1, 2, 3, 4)})
    t = {"id": "T3", "scenario": "X1", "title": "", "kind": "curve", "metrics": ["thr"], "rows": [
        {"curve": "RED", "x": 2, "source": 1, "thr": {"mean": 5.0, "class": "D"}},
        {"curve": "RED", "x": 4, "source": 1, "thr": {"mean": 2.5, "class": "D"}},
        {"curve": "RED", "x": 4, "agg": "sum", "sources": "all", "thr": {"mean": 10.0, "class": "D"}},
        {"curve": "RED", "x": 2, "agg": "sum", "sources": "all", "thr": {"mean": 20.0, "class": "D"}}]}
    ref = reference([t], sweeps=[sweep], runs={})
    assert scenario_runs(ref["scenarios"][0]) == {"RED @ 2": "red-n2", "RED @ 4": "red-n4"}
    c = evaluate(ref, rows)
    assert c["pair"].tolist() == ["RED"] * 4 and c["x"].tolist() == [2.0, 4.0, 4.0, 2.0]
    assert c["sim"].tolist() == [5.0, 2.5, 10.0, 10.0]
    assert c["status"].tolist() == ["PASS", "PASS", "PASS", "FAIL"]
    # a point without results is not run, with its run's error
    c = evaluate(ref, rows, failures={"red-n4"})
    assert c["status"].tolist() == ["PASS", "NOT RUN", "NOT RUN", "FAIL"]


def test_model_cells_call_a_function_of_ccsim_models():
    args = {"n_ftp": 2, "p_ftp": 1.0, "p_telnet": 0.04}
    lower = k91.telnet_delay_fq(**args).lower
    upper = k91.telnet_delay_fq(**{**args, "p_telnet": 0.9}).upper
    t = {"id": "T4", "scenario": "X1", "title": "", "kind": "model", "metrics": ["wait"], "rows": [
        {"function": "keshav91.telnet_delay_fq", "args": args, "result": "lower",
         "wait": {"mean": lower, "class": "D"}},
        # a cell's own args and result replace the row's
        {"function": "keshav91.telnet_delay_fq", "args": args, "result": "lower",
         "wait": {"mean": upper, "class": "D", "args": {"p_telnet": 0.9}, "result": "upper"}},
        {"function": "keshav91.telnet_delay_fq", "args": args, "result": 0, "wait": {"mean": lower + 1, "class": "D"}},
        {"function": "keshav91.telnet_delay_fq", "args": {**args, "n_ftp": 0}, "result": "lower",
         "wait": {"mean": 0.5, "class": "D"}}]}
    c = evaluate(reference([t]), flow_rows("a", {1: [1.0] * 3}))
    assert c["sim"].tolist()[:3] == pytest.approx([lower, upper, lower])
    assert c["status"].tolist() == ["PASS", "PASS", "FAIL", "FAIL"]
    assert c["seeds"].tolist() == [0, 0, 0, 0] and (c["pair"] == "").all()
    assert c["item"].iloc[0] == "keshav91.telnet_delay_fq(n_ftp=2, p_ftp=1.0, p_telnet=0.04)[lower]"
    assert math.isnan(c["sim"].iloc[3]) and "n_ftp" in c["error"].iloc[3]  # the model refused its argument
    assert model_value("keshav91.pipeline_depth", {"r": 2.0, "s_b": 0.5}) == k91.pipeline_depth(2.0, 0.5)
    with pytest.raises(Exception, match="result"):
        model_value("keshav91.telnet_delay_fq", args)  # two values and no `result`


@pytest.mark.parametrize("row,message", [
    ({"kind": "shape", "pair": "A", "source": 1}, "kind: expected one of flow, aggregate, curve, model"),
    ({"pair": "A"}, "a flow row needs 'source'"),
    ({"kind": "aggregate", "pair": "A", "sources": [1]}, "needs 'agg'"),
    ({"kind": "curve", "curve": "RED", "x": "ten", "source": 1}, "x: expected the swept parameter's value"),
    ({"kind": "curve", "curve": "RED", "x": 2}, "needs 'source'"),
    ({"kind": "model", "function": "keshav91.no_such"}, "has no function 'no_such'"),
    ({"kind": "model", "function": "nomodule.f"}, "no module ccsim.models.nomodule"),
    ({"pair": "A", "source": 1, "thr": {"mean": 1.0, "class": "Q"}}, "thr.class: expected one of D, S, P"),
    ({"pair": "A", "source": 1, "thr": {"class": "D"}}, "expected an inline table with mean and class"),
])
def test_reference_schema_errors_name_the_field(row, message):
    t = {"id": "T9", "scenario": "X1", "title": "", "metrics": ["thr"], "rows": [row]}
    with pytest.raises(ValueError, match=r"reference.toml: tables\[0\] \(T9\)\.rows\[0\]") as e:
        reference([t])
    assert message in str(e.value)


def test_reference_scenario_ids_are_strings_and_known():
    with pytest.raises(ValueError, match=r'scenarios\[0\].scenario: expected a string id such as "S1", got 1'):
        check_reference({"tolerance": TOL, "scenarios": [{"scenario": 1}]})
    with pytest.raises(ValueError, match="unknown scenario 'X2'; expected one of X1"):
        reference([{"id": "T", "scenario": "X2", "title": "", "metrics": [], "rows": []}])
    with pytest.raises(ValueError, match="no tolerance family"):
        check_reference({"tolerance": {"D": {}}, "metrics": {}, "scenarios": [{"scenario": "X1"}],
                         "tables": [{"id": "T", "scenario": "X1", "metrics": ["m"],
                                     "rows": [{"pair": "A", "source": 1, "m": {"mean": 1, "class": "D"}}]}]})


def test_findings_cover_curve_and_aggregate_cells_by_their_curve_or_pair():
    cells = pd.DataFrame([{"scenario": "X1", "table": "T", "pair": "RED", "metric": "thr", "source": 1.0},
                          {"scenario": "X1", "table": "T", "pair": "RED", "metric": "thr", "source": math.nan}])
    by_curve = Finding(id="f", scenario="X1", kind="open", explanation="", evidence="", pairs=["RED"])
    by_source = Finding(id="g", scenario="X1", kind="open", explanation="", evidence="", sources=[1])
    assert annotate_cells(cells, [by_curve, by_source])["finding"].tolist() == ["f, g", "f"]


def test_failure_explanations_count_open_findings_apart():
    # A failed cell covered only by "open" findings counts as covered but still open; one
    # covered by a finding with a cause does not; a data-less hard check counts as failed.
    cells = pd.DataFrame({"status": ["FAIL", "FAIL", "FAIL", "PASS"],
                          "finding": ["A", "A, B", "", "B"]})
    q = pd.DataFrame({"status": ["fail", "no_data", "fail", "pass"], "severity": ["hard"] * 4,
                      "finding": ["A", "", "B", ""]})
    fs = [Finding(id="A", scenario="S1", kind="open", explanation="", evidence=""),
          Finding(id="B", scenario="S1", kind="phase", explanation="", evidence="")]
    e = failure_explanations(SimpleNamespace(cells=cells, qchecks=q, findings=fs))
    assert e == {"failed cells": 3, "explained cells": 2, "open cells": 1,
                 "failed hard checks": 3, "explained checks": 2, "open checks": 1}


def test_pass_rates_count_judged_d_and_s_cells_only():
    cells = pd.DataFrame({"class": ["D", "D", "D", "S", "S", "P"],
                          "status": ["PASS", "FAIL", "KNOWN", "PASS", "PASS", "P"]})
    assert pass_rates(cells) == {"D": (1, 2), "S": (2, 2), "D and S together": (3, 4)}
    assert pass_rates(cells.iloc[:0]) == {}
    assert pass_rates_text(cells) == "D 1 of 2 (50.0%); S 2 of 2 (100.0%); D and S together 3 of 4 (75.0%)"


def test_reference_parts_extend_the_main_file(tmp_path):
    """reference.d/*.toml: lists extend reference.toml's, metrics join it, in name order;
    a metric defined twice or a [tolerance] in a part is refused naming the part."""
    from ccsim.experiments.kit.reference import load_reference

    (tmp_path / "reference.toml").write_text(
        '[metrics]\nx = { field = "x" }\n[tolerance]\nD = { rel = 0.1 }\n'
        '[[scenarios]]\nscenario = "A"\ntitle = "a"\nruns = { one = "a1" }\n')
    parts = tmp_path / "reference.d"
    parts.mkdir()
    (parts / "2-b.toml").write_text('[metrics]\ny = { field = "y" }\n[[scenarios]]\nscenario = "C"\ntitle = "c"\n')
    (parts / "1-a.toml").write_text('[[scenarios]]\nscenario = "B"\ntitle = "b"\n')
    ref = load_reference(tmp_path / "reference.toml")
    assert [s["scenario"] for s in ref["scenarios"]] == ["A", "B", "C"]
    assert set(ref["metrics"]) == {"x", "y"}
    (parts / "3-c.toml").write_text('[metrics]\nx = { field = "z" }\n')
    with pytest.raises(ValueError, match=r"reference.d/3-c.toml: metrics.x: already defined"):
        load_reference(tmp_path / "reference.toml")
    (parts / "3-c.toml").write_text('[tolerance]\nS = { rel = 0.1 }\n')
    with pytest.raises(ValueError, match=r"reference.d/3-c.toml: tolerance"):
        load_reference(tmp_path / "reference.toml")


def test_seed_interval_is_the_student_t_half_width_of_the_mean():
    import math

    from ccsim.experiments.kit.cells import seed_interval

    # Three seeds 1, 2, 3: sd 1, t(0.975, 2) = 4.3027 -> 4.3027 / sqrt(3).
    assert seed_interval([1.0, 2.0, 3.0]) == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert math.isnan(seed_interval([5.0]))
    assert math.isnan(seed_interval([float("nan"), 4.0]))
    assert seed_interval([2.0, 2.0, 2.0]) == 0.0
