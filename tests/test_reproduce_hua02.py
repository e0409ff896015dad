"""`ccsim reproduce hua02`: the chapter 3 analysis against the simulated parking lot (the fluid
model within 15% for n = 1..10, Vegas's identity (3.9), V3.7), JCC's behaviour on the shipped
chapter 4 files, a quick end-to-end run, and, marked slow (`make test-full`), the full run held
to today's scores. The mechanisms' unit targets are elsewhere: V2.1-V2.5 in the Rust tests
(transport/cc/reno.rs, transport/cc/jcc/tests.rs, queue/red/code.rs, tests/jcc.rs), V2.6 and
V5.5 in queue/swtp.rs and queue/wtp.rs, V5.6 in tests/test_hua02_schedulers.py."""

import numpy as np
import pytest

import ccsim
from ccsim.experiments.hua02 import THESIS
from ccsim.experiments.hua02.rows import extra_rows

DIR = THESIS.scenario_dir
T_PACKET = 1000 * 8 / 2e6       # s: a 1000 B packet on a 2 Mb/s gateway link


def run(stem, seed=1, edit=None):
    data = ccsim.load_scenario(DIR / f"{stem}.toml")
    if edit:
        edit(data)
    return ccsim.run(data, seed=seed, progress=False)


def connection_mean(res, conn):
    f = res.flows
    src = np.array([int(n.split()[0]) for n in f["name"]])
    return float(f["goodput_bps"][src // 100 == conn].mean())


# ---------------------------------------------------------------- chapter 3

@pytest.mark.parametrize("n", range(1, 11))
def test_fluid_model_predicts_connection_0_within_15_percent(n):
    # The criterion: the fluid equilibrium of spec §2.3 (ccsim.models.hua02.
    # parking_lot_fluid, row 990) against the simulated E3.1 parking lot, seed 1.
    res = run(f"e31-n{n}")
    fluid = {r["name"]: r.get("goodput_bps") for r in extra_rows(res)}["990 fluid c0"]
    assert abs(connection_mean(res, 0) / fluid - 1) <= 0.15, (connection_mean(res, 0), fluid)


@pytest.mark.parametrize("stem", ["e33m-m2", "e33m-m5", "e31-n3"])
def test_vegas_identity_3_9_matches_the_gateway_queues(stem):
    # V3.7: the sender's Delta d~ / (W - Delta) (eq. 3.9, ccsim.models.hua02.
    # vegas_backlog_delay) against sum_i n_i tau_i from the gateways' queue traces, sampled
    # every 0.5 s after 50 s for connection 0's first flow: median relative error <= 15%.
    # (3.9) assumes baseRTT is the true base delay (§3.3): every flow starts at 0 here, so
    # connection 0's first flow is first at the gateways. The shipped files' random starts let a
    # flow start behind a queue and overestimate it (finding vegas-base-rtt-overestimate).
    from ccsim.models.hua02 import vegas_backlog_delay

    def start_together(data):
        for f in data["flows"]:
            f.pop("start_spread", None)

    res = run(stem, edit=start_together)
    q = res.queues
    forward = [p for p in q["port_name"].unique()
               if p.startswith("g") and int(p.split("->")[0][1:]) < int(p.split("->")[1][1:])]
    routers = q[q["port_name"].isin(forward)].groupby("time_s")["packets"].sum() * T_PACKET
    c = res.cwnd
    f = c[(c["flow_name"] == c["flow_name"].iloc[0]) & (c["time_s"] >= 50)].set_index("time_s")
    # W is the window the sender lets out and its diff uses: floor(cwnd).
    windows = np.floor(f["cwnd"])
    sender = np.array([vegas_backlog_delay(w, d, b) for w, d, b in zip(windows, f["diff"], f["base_rtt_s"])])
    measured = routers.reindex(f.index).to_numpy()
    ok = measured > 0
    assert ok.sum() > 100
    err = float(np.median(np.abs(sender[ok] - measured[ok]) / measured[ok]))
    print(f"{stem}: median relative error of (3.9) against the gateway queues {err:.3f}")
    assert err <= 0.15


# ---------------------------------------------------------------- chapter 4

def test_red_code_and_aied_tables():
    # V2.3 (m = 8, min_th 5, max_th 15) and V2.5 (alpha 0, beta 100 codes, from 10).
    from ccsim.models.hua02 import aied, code_probability, red_code

    assert [red_code(a) for a in (4.9, 5, 10, 15, 15.01)] == [0, 0, 127, 254, 255]
    assert red_code(10, literal=True) == 127 and red_code(15, literal=True) == 255
    assert [aied(10, r, 0, 100) for r in (0, 50, 100, 180)] == pytest.approx([11, 10 * 2 ** -0.5, 5, 5], abs=1e-9)
    assert code_probability(127) == pytest.approx(0.05, abs=1e-3) and code_probability(255) == 1.0


def test_jcc_windows_follow_aied_in_simulation():
    # Eq. 4.3 (ccsim.models.hua02.aied) against the engine: in E4.1's run with AIED's cuts
    # setting ssthresh (cut_ssthresh = "follow", so a window in congestion avoidance changes
    # only at a probing ACK), every change of window between two trace samples 5 ms apart,
    # with beta unchanged and no timeout, is aied(previous window, the new R, alpha, beta).
    # R arrives in probability units, on the 8-bit code lattice.
    from ccsim.models.hua02 import aied

    def edit(d):
        for f in d["flows"]:
            f["params"]["cut_ssthresh"] = "follow"
        d["measure"]["trace_period"] = "5ms"

    res = run("e41-jcc", edit=edit)
    checked = 0
    for _, g in res.cwnd.groupby("flow_name"):
        g = g.sort_values("time_s")
        w, s, r, b = (g[c].to_numpy() for c in ("cwnd", "ssthresh", "r", "beta"))
        codes = r[r < 1] * 254 / 0.1
        assert np.allclose(codes, np.round(codes), atol=1e-6)
        for i in range(len(w) - 1):
            if w[i + 1] == w[i] or s[i] > w[i] or b[i + 1] != b[i] or (w[i + 1] < 1.0001 and w[i] > 2):
                continue
            assert w[i + 1] == pytest.approx(min(max(1.0, aied(w[i], r[i + 1], 0.0, b[i])), 20), abs=1e-9)
            checked += 1
    print(f"E4.1, seed 1: {checked} window changes in congestion avoidance, each aied's")
    assert checked > 1000


# ---------------------------------------------------------------- the command

def test_committed_scenario_files_are_what_make_scenarios_writes():
    from ccsim.experiments.hua02 import make_scenarios
    assert make_scenarios.main(["--check"]) == 0


def test_quick_reproduction_writes_the_report_and_figures(tmp_path):
    from ccsim.cli import main

    # The whole reproduction, shortened (--quick: one seed, half the durations).
    assert main(["reproduce", "hua02", "--quick", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "report.html").exists() and (tmp_path / "cells.parquet").exists()
    assert {p.name for p in (tmp_path / "figures").iterdir()} >= {
        "e31-throughput.png", "e32-throughput.png", "e46-throughput.png", "e41-cwnd.png", "e44-loss.png",
        "e52-ratio-boxes.png", "e53-ratio-load.png"}


def test_a_full_run_takes_the_median_of_twenty_seeds():
    # reference.toml's [tolerance] seeds decides (the Thesis sets none of its own): 5 seeds
    # could not resolve V5.3a's slack, nor the parking lot's start-order draws (its comment).
    from ccsim.experiments.kit.reference import load_reference

    assert THESIS.default_seeds is None
    assert load_reference(THESIS.reference)["tolerance"]["seeds"] == 20


# Today's full run (20 seeds, about 7.5 min on 2 cores): 21 of 22 D and 55 of 68 S cells pass,
# 41 of 46 hard checks.
FULL_RUN_FLOOR = {"D": 21, "S": 55, "hard": 41}


@pytest.mark.slow
def test_full_reproduction_keeps_its_scores(tmp_path, keeps_scores):
    """The whole reproduction: no fewer cells and hard checks pass than FULL_RUN_FLOOR, no
    check errs, every failure is covered by a finding."""
    from ccsim.experiments.kit.reproduce import reproduce

    keeps_scores(reproduce(THESIS, out=tmp_path, progress=False), FULL_RUN_FLOOR)
