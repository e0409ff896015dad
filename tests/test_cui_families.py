"""Cui chapter 3's extrapolated experiments as families of runs
(python/ccsim/experiments/cui_buffers/families.py): the definitions, the files built for them,
the reference parts generated from them, and the fit across a family's runs."""

import math

import numpy as np
import pandas as pd
import pytest

from ccsim import validate
from ccsim.experiments.cui_buffers import families as F
from ccsim.experiments.cui_buffers.make_scenarios import TRANSPORT, build_all, build_more
from ccsim.experiments.cui_buffers.network import scenario
from ccsim.models.cui import hyperbola


def test_families_keep_the_share_and_name_their_files():
    fams = F.all_families()
    assert len({f.stem for f in fams}) == len(fams)
    for f in fams:
        for n in f.flows:
            assert F.family_of(f.file(n)) == (f, n)
            # the per-channel rate keeps the share: N x share = K x rate
            assert math.isclose(n * f.share_bps, f.k * f.rate_gbps(n) * 1e9)
    assert F.family_of("e32-b2-x10") is None and F.family_of("e37-m2-b0-k1-n7x") is None
    # E3.8's buffers are the rule's, i.e. Table 3.2's printed "our rule" row for M = 8
    assert [F.e38_buffer(8, 4, 16000, 0.1, u) for u in F.E38_TARGETS] == [8, 12, 19, 40]
    # Table 3.4 K = 64 needs no buffer at 60 % and 70 %: one family serves both targets
    assert sum(f.stem.startswith("e38-t34-k64-") for f in F.e38()) == 3


def test_every_family_runs_up_to_a_gigabit_a_channel():
    # The points double until a channel runs at REACH_GBPS: K = 16 to 1600 flows, K = 64 to 6400.
    for f in F.all_families():
        assert f.rate_gbps(f.flows[-1]) >= F.REACH_GBPS - 1e-9
        assert len(f.flows) == 4 or f.rate_gbps(f.flows[-2]) < F.REACH_GBPS
        assert list(f.flows) == sorted(set(f.flows))
    by = {f.stem: f.flows for f in F.all_families()}
    assert by["e37-m2-b10-k1"] == (50, 100, 200, 400)
    assert by["e38-t34-k16-b9"] == (50, 100, 200, 400, 800, 1600)
    assert by["e38-t34-k64-b9"][-1] == 6400 and by["e33-s100-b0-k16"] == (16, 24, 32, 48, 96, 192)
    # Every host queue is the thesis's "large" buffer, never unlimited: an unlimited one let a
    # flow the trunk seldom drops stay in slow start until the run hit the live-packet limit.
    from ccsim.experiments.cui_buffers.network import HOST_QUEUE
    assert {f.network(f.flows[0], TRANSPORT).access_buffer for f in F.all_families()} == {HOST_QUEUE}


def test_the_closed_loop_target_is_appendix_z():
    # Spec Appendix Z.1/Z.2 (RTT_H 109.1 ms there, 109.2 here: the exact harmonic mean of 60-180 ms)
    by = {f.stem: f for f in F.all_families()}
    assert by["e37-m2-b10-k1"].model_utilisation() == pytest.approx(0.742, abs=0.002)
    assert by["e37-m2-b0-k1"].model_utilisation() == pytest.approx(0.054, abs=0.002)
    assert by["e37-m16-b0-k16"].model_utilisation() == pytest.approx(0.401, abs=0.002)
    assert by["e33-s100-b0-k16"].model_utilisation() == pytest.approx(0.301, abs=0.002)
    assert by["e33-s10-bk-k16"].model_utilisation() == pytest.approx(0.760, abs=0.002)


def test_built_files_validate_and_only_three_ship():
    built, shipped = build_more(), build_all()
    fam_files = {f"{f.file(n)}.toml" for f in F.all_families() for n in f.flows}
    ours = ("e33", "e37", "e38")
    assert {n for n in built if n.startswith(ours)} | {n for n in shipped if n.startswith(ours)} == fam_files
    assert not set(built) & set(shipped)
    assert sum(n.startswith(("e33", "e37", "e38")) for n in shipped) == 3
    # K = 1 with no buffer is a bufferless line (count_in_service = false, "0pkt")
    fam = F.e37()[0]
    assert (fam.k, fam.b) == (1, 0)
    got = validate(scenario(fam.network(fam.flows[0], TRANSPORT), "t"))
    assert got["flows"] == fam.flows[0] and got["links"] == fam.flows[0] + fam.m + 1


def test_reference_parts_are_what_the_generator_writes():
    from ccsim.experiments.cui_buffers import family_reference
    assert family_reference.main(["--check"]) == 0


def test_family_fit_reads_a_hyperbola_at_40_gbps():
    fam = F.e37()[4]          # M = 2K, B = 1, K = 4
    a, b, c = 0.6, -0.05, -0.02
    rows = []
    for n in fam.flows:
        x = fam.rate_gbps(n)
        rows.append({"file": fam.file(n), "seed": 1, "source": 900000, "name": "900000 trunk",
                     "util": float(hyperbola(x, a, b, c)), "log10_loss": -3.0 + 0.1 / (x + 0.5)})
    rows.append({"file": "e32-b2-x10", "seed": 1, "source": 900000, "name": "900000 trunk", "util": 0.3,
                 "log10_loss": -3.0})
    fits = F.family_fits(pd.DataFrame(rows))
    assert len(fits) == 1
    row = fits[0]
    assert row["file"] == fam.file(max(fam.flows)) and row["name"].startswith("990000")
    assert row["util_40"] == pytest.approx(float(hyperbola(40.0, a, b, c)), abs=1e-3)
    assert row["util_model"] == pytest.approx(fam.model_utilisation())
    assert np.isfinite(row["log10_loss_40"])


def test_quick_run_of_one_family_per_experiment(tmp_path):
    # --quick runs one cheap family of each extrapolated experiment (family_reference.
    # QUICK_FAMILIES: 12 runs of 10 s); their fit rows and cells come out, the rest is not run.
    from ccsim.experiments.kit.registry import get_thesis
    from ccsim.experiments.kit.reproduce import reproduce

    out = reproduce(get_thesis("cui-buffers"), out=tmp_path, only="E3.3,E3.7,E3.8s", quick=True, progress=False)
    assert len(out.runs) == 12 and (out.runs["error"] == "").all()
    judged = out.cells[out.cells["status"].isin(["PASS", "FAIL"])]
    # E3.7's M = 16K, B = 1, K = 4 (closed loop 0.216) twice, E3.8's Table 3.2 M = 8 at 60 % twice
    assert len(judged) == 4
    s8 = judged[judged["table"] == "S8"]
    assert len(s8) == 2 and (abs(s8["sim"] - 0.216) < 0.07).all(), s8[["label", "sim"]]
    assert (tmp_path / "scenarios" / "e37-m16-b1-k4-n400.toml").exists()
    assert (tmp_path / "figures" / "e3.7-closed-loop.png").exists()
