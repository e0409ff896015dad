"""`ccsim reproduce cui-buffers` (Cui chapter 3, issue 21): the model cells of Tables 3.1-3.4
and the Poisson check through the kit, the committed scenario files, and, marked slow, the
whole reproduction. Each experiment's own tests are tests/test_cui_*.py; the models are
tests/test_models_cui.py."""

import pytest

from ccsim.experiments.kit.registry import get_thesis
from ccsim.experiments.kit.reproduce import reproduce

THESIS = get_thesis("cui-buffers")


def test_committed_scenario_files_are_what_make_scenarios_writes():
    from ccsim.experiments.cui_buffers import make_scenarios
    assert make_scenarios.main(["--check"]) == 0


def test_tables_3_1_to_3_4_and_the_poisson_check(tmp_path):
    # Quick (one seed, half the durations): about 15 s.
    out = reproduce(THESIS, out=tmp_path, only="E3.1,E3.8", quick=True, progress=False)
    cells = out.cells
    ours = cells[cells["label"].str.contains("our rule")]
    ologw = cells[cells["label"].str.contains("O\\(log W\\)")]
    assert len(ours) == 32 and (ours["status"] == "PASS").all()
    assert len(ologw) == 32 and (ologw["status"] == "PASS").all()
    tables = cells[cells["table"].str.startswith("3.")]
    failed = tables[tables["status"] != "PASS"]
    # The printed Appenzeller column, Table 3.4's 2M row and one BDP typo: thesis errata,
    # compared and reported as known issues (each with its finding), not counted as failures.
    assert len(failed) == 35 and (failed["status"] == "KNOWN").all()
    assert (failed["finding"] != "").all() and (failed["known_issue"] != "").all()
    # S1: with 20 and 500 flows the gaps are near-exponential (sd/mean within 0.05 of the
    # thesis's 0.953 and 0.995).
    s1 = cells[(cells["table"] == "S1") & (cells["metric"] == "gap_cv")].set_index("pair")["sim"]
    assert abs(s1["N = 20"] - 0.953) < 0.05 and abs(s1["N = 500"] - 0.995) < 0.05
    assert (tmp_path / "report.html").exists()


# Today's full run (every experiment, E3.1-E3.9 and S11: 701 runs, deterministic, one seed;
# 24 min on 2 cores): 140 of 140 D cells (the 35 thesis errata aside, as known issues), 272 of
# 311 S cells, 23 of 31 hard checks; every failure covered by a finding. (Before 2026-11-27's
# readings, four points a family and equal RTTs in E3.9: 140, 257, 21; with ns-2's 50-packet
# host queues besides: 140, 241, 23.)
FULL_RUN_FLOOR = {"D": 140, "S": 272, "hard": 23}


@pytest.mark.slow
def test_full_reproduction_keeps_its_scores(cui_full, keeps_scores):
    keeps_scores(cui_full, FULL_RUN_FLOOR)
