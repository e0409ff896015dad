import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

# The example scenarios ship inside the package (ccsim/scenarios/examples).
EXAMPLES = Path(str(resources.files("ccsim").joinpath("scenarios", "examples")))


def ccsim_cli(*args, cwd=None):
    """Run the installed `ccsim` command; returns CompletedProcess (text)."""
    exe = Path(sys.executable).parent / "ccsim"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim"]
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "160"})


@pytest.fixture
def cli():
    return ccsim_cli


@pytest.fixture
def examples():
    return EXAMPLES


@pytest.fixture(scope="session")
def cui_full(tmp_path_factory):
    """The full `ccsim reproduce cui-buffers` (about 25 min on 2 cores), run once for every slow
    test that reads it (tests/test_reproduce_cui_buffers.py, test_cui_links.py, test_cui_single.py)."""
    from ccsim.experiments.kit.registry import get_thesis
    from ccsim.experiments.kit.reproduce import reproduce

    return reproduce(get_thesis("cui-buffers"), out=tmp_path_factory.mktemp("cui-full"), progress=False)


@pytest.fixture
def keeps_scores():
    """The slow tests' check of a full reproduction's outcome against its floor ({"D", "S",
    "hard"}: cells and hard checks passing): no fewer pass, no check errs, every failed cell
    and hard check covered by a finding."""
    from ccsim.experiments.kit.sections import failure_explanations

    def check(res, floor: dict) -> None:
        cells, q = res.cells, res.qchecks
        got = {k: int(((cells["class"] == k) & (cells["status"] == "PASS")).sum()) for k in ("D", "S")}
        got["hard"] = int(((q["severity"] == "hard") & (q["status"] == "pass")).sum()) if len(q) else 0
        assert all(got[k] >= floor[k] for k in got), (got, floor)
        assert not len(q) or "error" not in set(q["status"]), q[q["status"] == "error"][["id", "detail"]]
        e = failure_explanations(res)
        assert e["explained cells"] == e["failed cells"] and e["explained checks"] == e["failed hard checks"], e

    return check
