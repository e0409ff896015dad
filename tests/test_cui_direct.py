"""Issue 22: Cui chapter 3's target systems simulated directly (``ccsim experiment cui-direct``).
The full runs take minutes to hours (docs/performance.md); here each case is checked for its
network and the command runs E3.2's two cases for 1 simulated second."""

import math
import subprocess
import sys

import pandas as pd
import pytest

import ccsim
from ccsim.experiments.cui_buffers import direct
from ccsim.experiments.cui_buffers.network import scenario
from ccsim.models.cui import harmonic_mean_rtt_uniform


def test_cases_are_the_thesis_target_systems():
    c = direct.cases()
    e32 = c["e3.2-b10"].net
    assert (e32.flows, e32.inputs, e32.channels, e32.buffer, e32.channel_bps) == (4000, 2, 1, 10, 40e9)
    assert e32.duration == 100 and c["e3.2-b2"].thesis_util == 0.317
    # Table 3.4: N = 4000K, M = 2K, B from the rule for 80 % (the table prints 16 and 9), RTT_H 100 ms.
    for k, m, b in ((16, 32, 16), (64, 128, 9)):
        net = c[f"t3.4-k{k}"].net
        assert (net.flows, net.inputs, net.channels, net.buffer) == (4000 * k, m, k, b)
        assert harmonic_mean_rtt_uniform(net.rtt_min, net.rtt_max) == pytest.approx(0.1)
        assert net.duration >= 10
    assert c["k100"].net.flows == 400_000 and c["k100"].net.channels == 100
    # The packet budget covers three bandwidth-delay products (K = 64: 31 M packets a BDP).
    assert direct.packet_budget_mb(c["t3.4-k64"].net) * 1e6 / 128 > 3 * 64 * 40e9 / 8320 * 0.1 * 0.99
    body = scenario(c["t3.4-k16"].net, "t")
    ccsim.validate(body)


def test_command_runs_e32_and_compares(tmp_path):
    out = tmp_path / "direct.txt"
    proc = subprocess.run([sys.executable, "-m", "ccsim", "experiment", "cui-direct", "--duration", "1",
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "e3.2-b2" in text and "e3.2-b10" in text and "thesis's extrapolation: U = 31.7 %" in text
    rows = pd.read_csv(tmp_path / "direct.csv")
    assert list(rows["case"]) == ["e3.2-b2", "e3.2-b10"]
    # The start-up at 40 Gb/s already loads the trunk and drops packets; B = 10 carries more.
    assert (rows["util"] > 0.2).all() and (rows["drops"] > 0).all() and rows["departures"].min() > 1e5
    assert rows.loc[1, "util"] > rows.loc[0, "util"]
    assert all(math.isclose(s, 1.0) for s in rows["sim_seconds"])


@pytest.mark.parametrize("args, field", [
    (["--cases", "e3.2-b2,nope"], "--cases"),
    (["--duration", "-1"], "--duration"),
    (["--jobs", "0"], "--jobs"),
    (["--threads", "4"], "--threads"),
    (["--extrapolation", "/nonexistent"], "--extrapolation"),
    (["--pacing-rtt", "fast"], "--pacing-rtt"),
])
def test_bad_options_name_the_field(args, field):
    proc = subprocess.run([sys.executable, "-m", "ccsim", "experiment", "cui-direct", *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and field in proc.stderr and "Traceback" not in proc.stderr


def test_report_reads_ccsims_extrapolation_from_a_reproduction(tmp_path):
    # A reproduction's flows.parquet carries the fits as rows 990000 (rows.e32_fits); the
    # report puts them beside the direct run (synthetic rows: no simulation needed).
    pd.DataFrame([{"file": "e32-b2-x10", "name": "990000 B = 2 fit at 40 Gb/s", "seed": 1,
                   "util_40": 0.252, "log10_loss_40": -2.9},
                  {"file": "e32-b2-x10", "name": "990000 B = 2 fit at 40 Gb/s", "seed": 2,
                   "util_40": 0.9, "log10_loss_40": -1.0}]).to_parquet(tmp_path / "flows.parquet")
    rows = pd.DataFrame([{"case": "e3.2-b2", "seed": 1, "warmup_s": 10.0, "util": 0.313, "loss": 10 ** -3.04,
                          "log10_loss": -3.04, "departures": 1e8, "drops": 1e5, "sim_seconds": 100.0,
                          "wall_seconds": 386.0, "events": 1e9, "peak_packets": 302017, "interrupted": False,
                          "goodput_p5_bps": 5e6, "goodput_p50_bps": 8e6, "goodput_p95_bps": 2e7, "jain": 0.8}])
    text = direct.report(rows, tmp_path)
    assert "ccsim's extrapolation" in text and "U = 25.2 %, P_B = 10^-2.90" in text
    assert "direct - thesis: -0.4 points of U, +0.00 decades of P_B" in text
    assert "not at hand" in direct.report(rows, None)
    assert "paced by Wei's ns-2 rule" in direct.report(rows.assign(pacing_rtt="ns2_wei"), None)


def test_a_case_on_two_threads_gives_the_one_thread_results():
    # E3.2's B = 2 network for 0.3 simulated seconds, through the experiment's own runner.
    one = direct.run_cases(["e3.2-b2"], duration=0.3, progress=False)
    two = direct.run_cases(["e3.2-b2"], duration=0.3, progress=False, threads=2)
    assert list(two["threads"]) == [2] and list(two["pacing_rtt"]) == ["ns2_wei"]
    for key in ("util", "loss", "departures", "drops", "events", "goodput_p50_bps"):
        assert one.loc[0, key] == two.loc[0, key], key
