"""The kit drives any thesis: a small synthetic one (its own reference, scenario files in a
temporary directory, both hooks) reproduced end to end, with a cell of every kind read from
real runs, a check on a sweep, the report's sections for those kinds, and its figures."""

import pandas as pd
import pytest

import ccsim
from ccsim.experiments.kit.report import pyplot
from ccsim.experiments.kit.reproduce import reproduce
from ccsim.experiments.kit.thesis import Thesis
from ccsim.models import keshav91 as k91

REFERENCE = '''
thesis = "A synthetic thesis: FTPs sharing a 1 Mb/s line"

[metrics]
throughput = { field = "goodput_pps", unit = "pkt/s" }
depth = { family = "depth", unit = "pkt" }

[tolerance]
default_family = "throughput"
seeds = 1
D = { throughput_rel = 0.02, throughput_abs = 0.05, depth_rel = 0.001, depth_abs = 0.0 }

[[scenarios]]
scenario = "B1"
name = "Bottleneck"
title = "N FTPs on one line"
runs = { "NR" = "bn-n2" }
sweeps = [{ curve = "NR", param = "flows", values = [2, 4], file = "bn-n{x}" }]

[[scenarios]]
scenario = "M1"
title = "A closed form, no simulation"

[[tables]]
id = "T1"
scenario = "B1"
title = "The line's total and its sharing"
kind = "aggregate"
metrics = ["throughput"]
[[tables.rows]]
pair = "NR"
agg = "sum"
sources = "all"
throughput = { mean = 125.0, class = "D", accept = [110.0, 126.0] }
[[tables.rows]]
kind = "curve"
curve = "NR"
x = 4
agg = "jain"
sources = "all"
throughput = { mean = 1.0, class = "D", accept = [0.9, 1.0] }
[[tables.rows]]
kind = "flow"
pair = "NR"
source = 1
throughput = { mean = 1000.0, class = "D" }

[[tables]]
id = "T2"
scenario = "M1"
title = "Pipeline depth"
kind = "model"
metrics = ["depth"]
[[tables.rows]]
function = "keshav91.pipeline_depth"
args = { r = 2.0, s_b = 0.5 }
depth = { mean = DEPTH, class = "D" }

[[qchecks]]
id = "B1-a"
scenario = "B1"
statement = "Twice the flows, half the share each"
# One flow's share: the drop-tail phase moves a single flow by a quarter either way.
check = { kind = "ratio_between", lhs = { curve = "NR", x = 2, source = 1, metric = "throughput" }, rhs = { curve = "NR", x = 4, source = 1, metric = "throughput" }, lo = 1.4, hi = 2.6 }
'''


def bottleneck(n: int) -> ccsim.Scenario:
    sc = ccsim.Scenario(f"bn-n{n}", duration="40s", seed=1).measure(interval="10s", discard=1)
    sc.hosts(*[f"h{i}" for i in range(1, n + 1)], "sink").switches("sw")
    for i in range(1, n + 1):
        sc.link(f"h{i}", "sw", bandwidth="10Mbps", delay="1ms")
        sc.flow(f"h{i}", "sink", cc="newreno", name=f"{i} FTP", packet_size="1000B")
    return sc.link("sw", "sink", bandwidth="1Mbps", delay="10ms", buffer="20pkt")


@pytest.fixture
def thesis(tmp_path):
    pkg = tmp_path / "synthetic"
    (pkg / "findings").mkdir(parents=True)
    (pkg / "scenarios").mkdir()
    for n in (2, 4):
        bottleneck(n).save(pkg / "scenarios" / f"bn-n{n}.toml")
    (pkg / "reference.toml").write_text(REFERENCE.replace("DEPTH", repr(k91.pipeline_depth(2.0, 0.5))))
    (pkg / "findings" / "b1.toml").write_text(
        '[[finding]]\nid = "B1-one-flow"\nscenario = "B1"\npairs = ["NR"]\ntables = ["T1"]\nsources = [1]\n'
        'kind = "open"\nexplanation = "The thesis\'s 1000 is a misprint."\nevidence = "none"\n')
    calls = []

    def figures(board, ctx):
        calls.append("figures")
        if "B1" not in ctx.data:
            return
        path = board.path("b1-sum.png")
        plt = pyplot()
        fig, ax = plt.subplots()
        ax.plot([2, 4], [ctx.data["B1"].cell("NR @ 2", 1, "throughput"), ctx.data["B1"].cell("NR @ 4", 1, "throughput")])
        fig.savefig(path)
        plt.close(fig)
        board.add("B1", path, "share against flows")

    def sections(doc, ctx):
        calls.append("sections")
        doc.h(2, "Synthetic notes")
        doc.p(f"{len(ctx.outcome.cells)} cells")

    t = Thesis(id="synthetic", title="A synthetic thesis", package="ccsim", quick_seeds=1, figures=figures,
               sections=sections, scenario_path=pkg / "scenarios")
    return t, pkg, calls


def test_a_thesis_of_every_cell_kind_is_reproduced_end_to_end(thesis, tmp_path, monkeypatch):
    t, pkg, calls = thesis
    # The data files come from the temporary folder, not from a package.
    monkeypatch.setattr(Thesis, "reference", property(lambda self: pkg / "reference.toml"))
    monkeypatch.setattr(Thesis, "findings_dir", property(lambda self: pkg / "findings"))
    (tmp_path / "out" / "figures").mkdir(parents=True)
    (tmp_path / "out" / "figures" / "b1-old.png").write_bytes(b"stale")   # an earlier report's
    out = reproduce(t, seeds=1, out=tmp_path / "out", progress=False)
    cells = out.cells.set_index(["table", "kind"])
    assert set(out.runs["pair"]) == {"NR", "NR @ 2", "NR @ 4"} and (out.runs["error"] == "").all()
    total = cells.loc[("T1", "aggregate")]
    assert 110 < total["sim"] <= 126 and total["status"] == "PASS"
    jain = cells.loc[("T1", "curve")]
    assert jain["x"] == 4 and jain["pair"] == "NR" and 0.9 <= jain["sim"] <= 1.0 and jain["status"] == "PASS"
    flow = cells.loc[("T1", "flow")]
    assert flow["status"] == "FAIL" and flow["finding"] == "B1-one-flow"
    model = cells.loc[("T2", "model")]
    assert model["sim"] == k91.pipeline_depth(2.0, 0.5) and model["status"] == "PASS"
    q = out.qchecks.set_index("id").loc["B1-a"]
    assert q["status"] == "pass", q["detail"]
    assert calls == ["figures", "sections"]
    md = out.report_md.read_text(encoding="utf-8")
    assert "# A synthetic thesis: reproduction report" in md and "## Synthetic notes" in md
    assert "read from simulations, 1 model or formula cells aside" in md   # the headline apart from models
    assert "| pair | flows | reads | label | throughput (pkt/s) |" in md and "| NR | 4 | jain all |" in md
    assert "keshav91.pipeline_depth(r=2.0, s_b=0.5)" in md and "figures/b1-sum.png" in md
    assert "### Bottleneck: N FTPs on one line" in md
    assert not (tmp_path / "out" / "figures" / "b1-old.png").exists()
    assert pd.read_parquet(tmp_path / "out" / "cells.parquet")["kind"].tolist() == ["aggregate", "curve", "flow",
                                                                                    "model"]
    # --only picks scenarios of this thesis; a model-only scenario runs nothing
    only = reproduce(t, seeds=1, out=tmp_path / "m1", only="M1", progress=False)
    assert len(only.runs) == 0 and only.cells["status"].tolist() == ["PASS"]


def test_rows_computed_across_runs_join_the_flows_table(thesis, tmp_path, monkeypatch):
    # Thesis.sweep_rows sees every run's flows at once (a fit over a sweep's points) and its
    # rows are read as if a run had reported them.
    import dataclasses

    t, pkg, _ = thesis
    monkeypatch.setattr(Thesis, "reference", property(lambda self: pkg / "reference.toml"))
    monkeypatch.setattr(Thesis, "findings_dir", property(lambda self: pkg / "findings"))
    seen = []

    def sweep_rows(flows):
        seen.append(sorted(flows["file"].unique()))
        per_file = flows[flows["source"] < 900].groupby(["file", "seed"])["goodput_pps"].sum()
        return [{"file": "bn-n4", "seed": s, "name": "990 both sizes", "goodput_pps": per_file[("bn-n2", s)]
                 + per_file[("bn-n4", s)]} for s in (1,)]

    out = reproduce(dataclasses.replace(t, sweep_rows=sweep_rows), seeds=1, out=tmp_path / "out", progress=False)
    assert seen == [["bn-n2", "bn-n4"]]
    flows = pd.read_parquet(tmp_path / "out" / "flows.parquet")
    row = flows[flows["source"] == 990]
    assert len(row) == 1 and row["file"].iloc[0] == "bn-n4" and row["pair"].iloc[0] == "NR @ 4"
    assert 220 < row["goodput_pps"].iloc[0] < 260
    assert len(out.cells)


def test_scenarios_built_on_demand_are_written_beside_the_report(thesis, tmp_path, monkeypatch):
    # Thesis.built_scenarios: a file the package does not ship is built when a run needs it;
    # the run's files, built and shipped, land in <out>/scenarios and run from there.
    import dataclasses

    t, pkg, _ = thesis
    monkeypatch.setattr(Thesis, "reference", property(lambda self: pkg / "reference.toml"))
    monkeypatch.setattr(Thesis, "findings_dir", property(lambda self: pkg / "findings"))
    monkeypatch.setattr(Thesis, "scenario_dir", property(lambda self: pkg / "scenarios"))
    text = (pkg / "scenarios" / "bn-n4.toml").read_text()
    (pkg / "scenarios" / "bn-n4.toml").unlink()
    calls = []

    def built():
        calls.append(1)
        return {"bn-n4.toml": text}

    t = dataclasses.replace(t, scenario_path=None, built_scenarios=built)
    out = reproduce(t, seeds=1, out=tmp_path / "out", progress=False)
    # Asked twice: by the check that every run file exists, and by the run.
    assert calls == [1, 1] and (out.runs["error"] == "").all() and (out.runs["seeds_ok"] == 1).all()
    assert sorted(p.name for p in (tmp_path / "out" / "scenarios").glob("*.toml")) == ["bn-n2.toml", "bn-n4.toml"]
    assert (tmp_path / "out" / "scenarios" / "bn-n4.toml").read_text() == text
    # --param is checked on the built files too
    from ccsim.experiments.kit.reproduce import prepare

    with pytest.raises(ValueError, match="--param"):
        prepare(t, params=["newreno.no_such_key=1"])
    # without the hook the missing file is refused before anything runs, naming it
    with pytest.raises(ValueError, match=r"runs 'bn-n4', but there is no bn-n4.toml in .*scenarios"):
        reproduce(dataclasses.replace(t, built_scenarios=None, figures=None), seeds=1, out=tmp_path / "o2",
                  progress=False)
    assert not (tmp_path / "o2").exists()


def test_a_scenarios_own_seed_count_holds_in_a_full_run(thesis, tmp_path, monkeypatch):
    # reference.toml's [[scenarios]] seeds: that scenario's files run over seeds 1..N in a full
    # run; --seeds (and --quick) still set every scenario's count; a bad count names the field.
    from ccsim.experiments.kit.reference import load_reference

    t, pkg, _ = thesis
    ref = pkg / "reference.toml"
    # B2 shares B1's file bn-n2 and keeps the default (one seed): the file runs once, over
    # three seeds, and B2 reads its own one.
    ref.write_text(ref.read_text().replace('scenario = "B1"\nname', 'scenario = "B1"\nseeds = 3\nname')
                   + '\n[[scenarios]]\nscenario = "B2"\ntitle = "One of B1\'s files"\nruns = { "NR2" = "bn-n2" }\n'
                   '\n[[tables]]\nid = "T3"\nscenario = "B2"\ntitle = "t"\nkind = "aggregate"\nmetrics = ["throughput"]\n'
                   '[[tables.rows]]\npair = "NR2"\nagg = "sum"\nsources = "all"\n'
                   'throughput = { mean = 125.0, class = "D", accept = [110.0, 126.0] }\n')
    monkeypatch.setattr(Thesis, "reference", property(lambda self: ref))
    monkeypatch.setattr(Thesis, "findings_dir", property(lambda self: pkg / "findings"))
    out = reproduce(t, out=tmp_path / "out", progress=False)
    runs = out.runs.set_index("scenario")["seeds_ok"]
    assert (runs["B1"] == 3).all() and runs["B2"] == 1 and out.seeds == [1] and out.scenario_seeds == {"B1": 3}
    assert sorted(pd.read_parquet(tmp_path / "out" / "flows.parquet")["seed"].unique()) == [1, 2, 3]
    cells = out.cells.set_index("table")["seeds"]
    assert cells["T3"] == 1 and (cells["T1"] == 3).all()
    assert "B1: 3 seeds, 1-3" in out.report_md.read_text(encoding="utf-8")
    forced = reproduce(t, seeds=2, out=tmp_path / "o2", progress=False)
    assert (forced.runs["seeds_ok"] == 2).all() and forced.scenario_seeds == {}
    ref.write_text(ref.read_text().replace("seeds = 3\n", "seeds = 0\n"))
    with pytest.raises(ValueError, match=r"scenarios\[0\]\.seeds: expected an integer from 1 to 1000"):
        load_reference(ref)


def test_lazy_files_answer_in_without_building():
    # The check that a reproduction's run files exist asks `name in built`: for cui-buffers's
    # 665 built files that must not build them all.
    from ccsim.experiments.kit.scenario_files import LazyFiles

    made = []
    files = LazyFiles({"a.toml": lambda: made.append("a") or "x", "b.toml": lambda: made.append("b") or "y"})
    assert "a.toml" in files and "c.toml" not in files and made == []
    assert files["b.toml"] == "y" and made == ["b"]
