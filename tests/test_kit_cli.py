"""`ccsim reproduce` for any registered thesis: --list, unknown theses, running from an empty
directory against the installed package, and the runner's edits (--jitter, --param)."""

from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from ccsim.experiments import THESES
from ccsim.experiments.kit.params import apply_params, param_targets, parse_param
from ccsim.experiments.kit.registry import get_thesis, thesis_ids
from ccsim.experiments.kit.runner import add_jitter


def test_list_names_every_registered_thesis(cli):
    r = cli("reproduce", "--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == len(THESES) and lines[0].split()[0] == "keshav91"
    assert "Keshav 1991, Chapter 6" in lines[0]
    for line, thesis_id in zip(lines, thesis_ids()):   # each says how long it takes
        assert get_thesis(thesis_id).runtime and line.endswith(f"; {get_thesis(thesis_id).runtime}"), line
    from ccsim.experiments.kit.reference import load_reference, scenario_runs
    for thesis_id in thesis_ids():
        t = get_thesis(thesis_id)
        assert t.reference.is_file(), thesis_id
        # A thesis whose cells all call models (cui-adpm) runs no scenario file and ships none.
        runs = [s for sc in load_reference(t.reference)["scenarios"] for s in scenario_runs(sc).values()]
        assert t.scenario_dir.is_dir() or not runs, thesis_id


@pytest.mark.parametrize("args,message", [
    (("reproduce", "floyd93"), "unknown thesis 'floyd93'; expected one of: keshav91"),
    (("reproduce",), "expected a thesis, one of: keshav91"),
    (("reproduce", "keshav91", "--only", "S1,Z"), "--only: expected scenarios among S1,S2,S3,S4,S5,S6,S7,S8"),
])
def test_bad_thesis_or_selection_is_a_usage_error(cli, tmp_path, args, message):
    r = cli(*args, "--out", tmp_path / "out")
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_reproduce_from_an_empty_directory_uses_the_packaged_scenarios(cli, tmp_path):
    # No checkout around: the scenario files and the reference come from the package, and
    # the report goes under results/ in the working directory; a quick run of some scenarios
    # to a directory of its own, leaving results/<thesis> to the full run's report.
    r = cli("reproduce", "keshav91", "--quick", "--only", "1", "--seeds", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "results" / "keshav91").exists()
    out = tmp_path / "results" / "keshav91-quick-only-1"
    cells = pd.read_parquet(out / "cells.parquet")
    assert set(cells["scenario"]) == {"S1"} and (cells["status"] != "NOT RUN").all()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Summary" in report
    # A quick run's scores are said to be a smoke test, in the report and on the terminal.
    caveat = "A quick run is a smoke test: with fewer seeds and shorter runs than the full run"
    assert caveat in report and caveat in " ".join(r.stdout.split()), r.stdout


def test_the_quick_caveat_says_what_a_quick_run_leaves_out():
    from ccsim.experiments.kit.reference import load_reference
    from ccsim.experiments.kit.report import quick_caveat

    def caveat(thesis_id):
        t = get_thesis(thesis_id)
        return quick_caveat(t, load_reference(t.reference))

    assert "with fewer seeds and shorter runs than" in caveat("keshav91")
    assert "with fewer sweep points than" in caveat("cui-fast")      # its runs are short already
    assert caveat("cui-adpm") == ""                                   # quick and full are the same run


def test_param_targets_are_the_engines_registry():
    from ccsim import registry

    t = param_targets()
    assert t.cc == tuple(a.name for a in registry.algorithms()) and "generic" in t.cc
    assert t.queues == tuple(d.name for d in registry.disciplines()) and "fq" in t.queues
    with pytest.raises(ValueError, match="unknown target 'bbr'"):
        parse_param("bbr.beta=0.7")
    assert parse_param("cubic.beta=0.8").value == 0.8


def test_add_jitter_keeps_a_links_own_value():
    d = {"links": [{"between": ["a", "b"]}, {"between": ["b", "c"], "jitter": "5ms"}]}
    assert [l["jitter"] for l in add_jitter(d, "1ms")["links"]] == ["1ms", "5ms"]


def test_parse_and_apply_param_overrides():
    p = [parse_param("generic.beta=1.5"), parse_param("generic.retransmit=expired"),
         parse_param("fq.charge_drops=true"), parse_param('jk.min_rto="0s"')]
    assert [x.value for x in p] == [1.5, "expired", True, "0s"]
    d = {"flows": [{"cc": "generic"}, {"cc": "jk", "params": {"rto_k": 4}}, {"cc": "generic", "params": {"beta": 2}}],
         "links": [{"queue": "fq", "queue_params": {"delta": 0}},
                   {"queue": "droptail", "reverse": {"queue": "fq"}},
                   {"queue": "fq", "forward": {"buffer": "5pkt"}, "reverse": {"queue_params": {"delta": 8}}}]}
    assert apply_params(d, p) == 2 + 2 + 4 + 1
    assert d["flows"][0]["params"] == {"beta": 1.5, "retransmit": "expired"}
    assert d["flows"][1]["params"] == {"rto_k": 4, "min_rto": "0s"}
    assert d["flows"][2]["params"] == {"beta": 1.5, "retransmit": "expired"}
    assert d["links"][0]["queue_params"] == {"delta": 0, "charge_drops": True}
    # a direction with its own discipline or parameters gets its own copy; one without inherits
    assert d["links"][1]["reverse"]["queue_params"] == {"charge_drops": True}
    assert "queue_params" not in d["links"][1]
    assert d["links"][2]["queue_params"] == {"charge_drops": True}
    assert "queue_params" not in d["links"][2]["forward"]
    assert d["links"][2]["reverse"]["queue_params"] == {"delta": 8, "charge_drops": True}
    assert apply_params(d, [parse_param("links.buffer=60pkt")]) == 3
    assert [l["buffer"] for l in d["links"]] == ["60pkt"] * 3


def test_an_out_the_user_writes_is_kept_for_a_variant_run(cli, tmp_path):
    # `make demo` runs --quick --out results/keshav91: the report must go there, not to the
    # variant's default directory.
    r = cli("reproduce", "keshav91", "--quick", "--only", "S1", "--seeds", "1", "--out", "results/keshav91",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "results" / "keshav91" / "report.md").exists()
    assert not (tmp_path / "results" / "keshav91-quick-only-S1").exists()


def test_param_overrides_are_checked_together(tmp_path):
    """A JCC flow must read its RED ports' codes in their units: red.code_bits alone breaks the
    files (the error names it), with jcc.code_bits beside it they hold."""
    from ccsim.experiments.kit.params import check_params

    src = Path(str(resources.files("ccsim").joinpath("scenarios", "hua02")))
    stems, sd = ["e46-n1"], src
    with pytest.raises(ValueError, match=r"--param red.code_bits=4: e46-n1.toml: .*flows\[0\]\.params\.code_bits"):
        check_params(["red.code_bits=4"], stems, sd, ["E4.6"])
    assert len(check_params(["red.code_bits=4", "jcc.code_bits=4"], stems, sd, ["E4.6"])) == 2
    # With the pair, a third override that breaks the file is the one named, with its field.
    with pytest.raises(ValueError, match=r"--param jcc.alpha=0.099: e46-n1.toml: .*params\.alpha"):
        check_params(["red.code_bits=4", "jcc.code_bits=4", "jcc.alpha=0.099"], stems, sd, ["E4.6"])
