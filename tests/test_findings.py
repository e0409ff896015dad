"""Findings: loading, validation, and which cells and checks they cover."""

import pandas as pd
import pytest

from ccsim.experiments.keshav91 import THESIS
from ccsim.experiments.kit import findings


def test_committed_findings_load_and_are_well_formed():
    fs = findings.load(THESIS.findings_dir, [f"S{n}" for n in range(1, 9)])
    assert fs and all(f.kind in findings.KINDS and f.evidence for f in fs)


def test_scope_matching(tmp_path):
    (tmp_path / "a.toml").write_text('''
[[finding]]
id = "x"
scenario = "S2"
pairs = ["G/FQ"]
metrics = ["delay"]
checks = ["S2-a1"]
kind = "model-choice"
explanation = "e"
evidence = "cmd"
''')
    fs = findings.load(tmp_path)
    cells = pd.DataFrame([
        {"scenario": "S2", "table": "6.4", "pair": "G/FQ", "metric": "delay", "source": 1},
        {"scenario": "S2", "table": "6.4", "pair": "G/FQ", "metric": "throughput", "source": 1},
        {"scenario": "S3", "table": "6.6", "pair": "G/FQ", "metric": "delay", "source": 1},
    ])
    assert list(findings.annotate_cells(cells, fs)["finding"]) == ["x", "", ""]
    q = pd.DataFrame([{"id": "S2-a1"}, {"id": "S2-a2"}])
    assert list(findings.annotate_checks(q, fs)["finding"]) == ["x", ""]


def test_malformed_findings_name_the_file_and_field(tmp_path):
    (tmp_path / "bad.toml").write_text('[[finding]]\nid = "y"\nscenario = "S1"\nkind = "excuse"\n'
                                        'explanation = "e"\nevidence = "c"\n')
    with pytest.raises(ValueError, match=r"bad.toml: finding\[0\].kind"):
        findings.load(tmp_path)
    # a scenario that is not the thesis's (or an id that is not a string)
    (tmp_path / "bad.toml").write_text('[[finding]]\nid = "y"\nscenario = "S9"\nkind = "open"\n'
                                        'explanation = "e"\nevidence = "c"\n')
    with pytest.raises(ValueError, match=r"bad.toml: finding\[0\].scenario: expected one of S1, S2, got 'S9'"):
        findings.load(tmp_path, ["S1", "S2"])
