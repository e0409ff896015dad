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
