"""Cui chapter 3 §3.8.2-3.8.3 (E3.9 and S11): the single-bottleneck generator, the minimum-B
extraction, and quick end-to-end runs of the reproduction (the full E3.9 is marked slow)."""

import math

import pytest

import ccsim
from ccsim.experiments.cui_buffers import THESIS, make_scenarios
from ccsim.experiments.cui_buffers.single import Dumbbell, scenario
from ccsim.experiments.cui_buffers.single_rows import MIN_B_ROW, e39_rows, rule_values, smallest_buffer
from ccsim.experiments.kit.reference import scenario_runs
from ccsim.experiments.kit.reproduce import reproduce


def test_generator_validates_with_bdp_400_and_n_flows():
    net = Dumbbell(flows=30, buffer=50)
    assert net.bdp == pytest.approx(400) and net.bottleneck_bps == 16e6
    body = scenario(net, "t")
    ccsim.validate(body)
    assert len(body["flows"]) == 30 and body["flows"][0]["params"] == {"pacing": True}
    bottleneck = body["links"][-1]
    assert bottleneck["buffer"] == "50pkt" and bottleneck["bandwidth"] == "16000000bps"
    assert body["links"][0]["bandwidth"] == "8000000bps"
    spread = Dumbbell(flows=4, buffer=1, rtt_mean=0.12, rtt_spread=0.06)
    assert spread.rtts == pytest.approx([0.075, 0.105, 0.135, 0.165])
    assert sum(spread.rtts) / 4 == pytest.approx(0.12)


def test_built_files_are_the_grid_less_the_shipped():
    shipped, built = make_scenarios.build_all(), make_scenarios.build_more()
    grid = {f"e39-n{n}-b{b}.toml" for n in make_scenarios.E39_FLOWS for b in make_scenarios.e39_buffers(n)}
    assert not set(built) & set(shipped)
    assert {k for k in built if k.startswith("e39")} | {k for k in shipped if k.startswith("e39")} == grid
    assert THESIS.built_scenarios is not None and set(THESIS.built_scenarios()) == set(built)
    assert make_scenarios.main(["--check"]) == 0


def test_each_n_sweeps_the_grid_and_the_rule_at_its_own_rtt_h():
    from ccsim.experiments.kit.reference import load_reference, scenario as sc

    e39 = sc(load_reference(THESIS.reference), "E3.9")
    for sweep in e39["sweeps"]:
        n = int(sweep["curve"].split("=")[1])
        assert tuple(sweep["values"]) == make_scenarios.e39_buffers(n)
    # RTTs over 50-150 ms: RTT_H 91.1 ms, where (3.27) asks 74 packets at 95 % for N = 30 (78 at 100 ms)
    assert make_scenarios.e39_rtt_harmonic(30) == pytest.approx(0.0911, abs=2e-4)
    assert 74 in make_scenarios.e39_buffers(30) and rule_values(30)["rule95"] == 74
    assert rule_values(30, rtt_h=0.1)["rule95"] == 78


def test_smallest_buffer_on_synthetic_data():
    bs = [1, 2, 4, 8, 16, 32]
    us = [0.80, 0.70, 0.90, 0.96, 0.995, 0.9995]
    assert smallest_buffer(bs, us, 0.75) == 4              # 1 reaches it, 2 does not: stable from 4
    assert smallest_buffer(bs, us, 0.75, stable=False) == 1
    assert smallest_buffer(bs, us, 0.95) == 8
    assert smallest_buffer(bs, us, 0.999) == 32
    assert smallest_buffer(bs, us, 0.9999) == math.inf
    assert smallest_buffer(list(reversed(bs)), list(reversed(us)), 0.95) == 8   # order does not matter
    assert smallest_buffer([1, 2], [float("nan"), 0.99], 0.9) == 2


def test_rows_per_n_and_rule_values():
    import pandas as pd

    flows = pd.DataFrame([{"file": f"e39-n10-b{b}", "seed": 1, "source": 900000, "util": u}
                          for b, u in ((4, 0.8), (100, 0.96), (400, 0.995), (800, 0.9995))])
    (row,) = e39_rows(flows)
    assert row["file"] == "e39-n10-b800" and row["name"].startswith(str(MIN_B_ROW))
    assert (row["b75"], row["b95"], row["b99"], row["b999"]) == (4, 100, 400, 800)
    # (3.27) at N = 10 at the files' RTT_H (91.1 ms); at 100 ms the spec's §5.1 [D] table;
    # Appenzeller 65.1 at 75 % (arithmetic mean 100 ms either way), 2N = 20
    assert [row[f"rule{k}"] for k in ("75", "95", "99", "999")] == [19, 117, 604, 6089]
    assert [rule_values(10, rtt_h=0.1)[f"rule{k}"] for k in ("75", "95", "99", "999")] == [20, 120, 623, 6274]
    assert rule_values(10)["app75"] == pytest.approx(65.1, abs=0.05) and row["two_n"] == 20
    assert row["rule_over_sim_999"] == pytest.approx(6089 / 800)


def test_quick_runs_only_the_quick_points():
    from ccsim.experiments.kit.reference import load_reference, scenario as sc

    e39 = sc(load_reference(THESIS.reference), "E3.9")
    quick = scenario_runs(e39, quick=True)
    assert len(scenario_runs(e39)) == 354 and len(quick) == 26  # 33 grid points and (3.27)'s 2-3 per N
    assert {s.split("-b")[0] for s in quick.values()} == {"e39-n10", "e39-n40", "e39-n100"}


def test_quick_s11_end_to_end(tmp_path):
    out = reproduce(THESIS, quick=True, only="S11", out=tmp_path, progress=False)
    q = out.qchecks.set_index("id")
    assert (q["status"] == "pass").sum() >= 5
    for cid in ("S11-regular-above-full", "S11-regular-above-never-empties", "S11-regular-below-starves"):
        assert q.loc[cid, "status"] == "pass"


def test_quick_e39_end_to_end(tmp_path):
    # 24 runs of 50 s (N = 10, 40, 100 on 8 of the 27 buffers): a few seconds
    out = reproduce(THESIS, quick=True, only="E3.9", out=tmp_path, progress=False)
    cells = out.cells
    assert (cells["status"] == "PASS").sum() >= 40 + 3     # the 40 (3.27) cells and N = 10/40/100 at 75 %
    assert (tmp_path / "figures" / "e3.9-min-buffer.png").exists()


@pytest.mark.slow
def test_full_e39(cui_full):
    # Read from the one full reproduction the slow tests share (conftest.cui_full).
    cells = cui_full.cells[cui_full.cells["scenario"] == "E3.9"]
    assert (cells["status"] == "PASS").sum() >= 78
    q = cui_full.qchecks.set_index("id")
    for cid in ("S10-conservative-75", "S10-conservative-95", "S10-appenzeller-75", "S10-ologw-75", "S10-2n-75",
                "S10-2n-95", "S10-overestimate-999"):
        assert q.loc[cid, "status"] == "pass"
