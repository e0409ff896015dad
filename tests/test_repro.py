"""Inputs that once crashed, exhausted memory or never finished (tests/repro/, from the
project's shared/repro/): each gets an answer now, a clean error naming the field (exit 2) or
a run that ends, with no traceback, within a memory limit the scenario's own size justifies."""

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPRO = Path(__file__).resolve().parent / "repro"
MEMORY = 3 << 30  # address space allowed each run: the interpreter, numpy and pandas included


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _as_from_a_terminal(limit_memory: bool):
    """The child's set-up: SIGINT back to its default (a shell running the tests in the
    background, `nohup make test &`, starts them with SIGINT ignored, which the command would
    inherit, and then no Ctrl-C could reach it), and the memory limit when asked."""
    def setup():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if limit_memory:
            _limit_memory()
    return setup


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ccsim(*args, cwd, timeout=120, interrupt_after=None, sig=signal.SIGINT, limit_memory=True, ready=None):
    """Run the ccsim command. With ``interrupt_after``, signal its process group once that many
    seconds have passed and ``ready(pid)`` (if given) holds: on a loaded machine a fixed delay
    can fall before the command has even finished importing."""
    exe = Path(sys.executable).parent / "ccsim"
    proc = subprocess.Popen([str(exe), *map(str, args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_as_from_a_terminal(limit_memory),
                            env={**os.environ, "COLUMNS": "160"}, start_new_session=True)
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        deadline = time.monotonic() + timeout / 2
        while ready is not None and proc.poll() is None and not ready(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        os.killpg(proc.pid, sig)  # the whole group, as a terminal's Ctrl-C does
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # never leave a runaway behind (it would load the machine)
        proc.communicate()
        raise
    return proc.returncode, out, err


@pytest.mark.parametrize("name, field", [
    ("deep-array-run.toml", "not valid TOML"),
    ("mem-intervals-x-flows.toml", "measure.interval: the run's tables would need"),
    ("mem-trace-period.toml", "measure.trace_period: the run's tables would need"),
    ("mem-live-packets.toml", "flows[0]: the run stopped at"),
    ("mem-live-packets-fq.toml", "flows[0]: the run stopped at"),
])
def test_refused_cleanly_naming_the_field(name, field, tmp_path):
    code, out, err = ccsim("run", REPRO / name, "--out", tmp_path / "out", cwd=tmp_path)
    assert code == 2, err
    assert field in err and "Traceback" not in err
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize("name", ["rich-markup-name.toml", "rich-markup-flow-name.toml", "mathtext-name.toml",
                                  "hang-offered-rate.toml"])
def test_runs_to_the_end(name, tmp_path):
    code, out, err = ccsim("run", REPRO / name, "--out", tmp_path / "out", cwd=tmp_path, timeout=60)
    assert code == 0, err
    assert "Traceback" not in err
    assert (tmp_path / "out" / "summary.json").exists() and (tmp_path / "out" / "cwnd.png").exists()


def test_a_python_dict_nested_too_deep_is_an_error_not_a_crash(tmp_path):
    code = ("import runpy, sys\nimport ccsim\ntry:\n    runpy.run_path(sys.argv[1])\n"
            "except ccsim.ScenarioError as e:\n    print(e); sys.exit(2)\n")
    r = subprocess.run([sys.executable, "-c", code, str(REPRO / "deep-dict-segfault.py")], capture_output=True,
                       text=True, preexec_fn=_limit_memory, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "nested more than 64" in r.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_run_that_would_take_hours_stops_cleanly_and_keeps_what_it_measured(sig, tmp_path):
    # 1e15 bit/s and no delay: ACK-clocked packets at ~1e11 a simulated second. Ctrl-C (or
    # SIGTERM) stops it: exit 130, what was measured written in full, nothing half-written.
    # Signalled once the command has spent 3 CPU seconds (its imports take about 1.5): it is
    # simulating by then.
    code, out, err = ccsim("run", REPRO / "hang-fast-link.toml", "--out", tmp_path / "out", cwd=tmp_path,
                           interrupt_after=4, sig=sig, ready=lambda pid: cpu_seconds(pid) >= 3.0)
    assert code == 130, err
    assert "Traceback" not in err
    assert "interrupted after" in err and "kept" in out
    from ccsim import Results

    kept = Results.read(tmp_path / "out")
    assert kept.run["interrupted"] and 0 < kept.run["duration_s"] < 1
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")], "no temporary files left"


def test_an_interrupted_run_does_not_replace_a_complete_one_in_its_out(tmp_path):
    # Run again into the same --out and stopped: the earlier complete results stay, and what the
    # stopped run measured goes beside them.
    out = tmp_path / "out"
    code, _, err = ccsim("run", "scenarios/examples/dumbbell.toml", "--out", out, "--duration", "30s",
                         "--no-plots", cwd=tmp_path)
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, stdout, err = ccsim("run", REPRO / "hang-fast-link.toml", "--out", out, "--no-plots", cwd=tmp_path,
                              interrupt_after=4, ready=lambda pid: cpu_seconds(pid) >= 3.0)
    assert code == 130, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert f"files in {out}-interrupted (" in stdout and "keeps the complete run" in stdout, stdout
    from ccsim import Results

    assert Results.read(f"{out}-interrupted").run["interrupted"]


def test_the_side_directory_of_an_interrupted_run(tmp_path, monkeypatch):
    import json

    from ccsim.cli import _beside, _holds_complete_run

    monkeypatch.chdir(tmp_path)
    assert _beside("run1/") == str(tmp_path / "run1-interrupted")
    assert _beside(".") == str(tmp_path.parent / f"{tmp_path.name}-interrupted")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "summary.json").write_text(json.dumps({"run": {"name": "x"}}))   # before the flag
    assert _holds_complete_run("old") and not _holds_complete_run("missing")
    (tmp_path / "old" / "summary.json").write_text(json.dumps({"run": {"interrupted": True}}))
    assert not _holds_complete_run("old")


def test_the_api_stops_at_a_time_limit_and_says_how_far_it_got():
    import ccsim

    t0 = time.monotonic()
    res = ccsim.run(REPRO / "hang-fast-link.toml", time_limit=1.0, progress=False)
    assert time.monotonic() - t0 < 10
    assert res.run["interrupted"] and 0 < res.run["duration_s"] < 1
    assert res.flows.loc[0, "sent"] > 0


def test_an_interrupted_sweep_says_what_it_kept(tmp_path):
    scenario = Path(__file__).resolve().parent.parent / "python" / "ccsim" / "scenarios" / "keshav91" / "s7-jk-fcfs.toml"
    # (No address-space limit here: a process pool's threads reserve address space freely.)
    runs = tmp_path / "sw" / "runs"
    code, out, err = ccsim("sweep", scenario, "--seeds", "1..400", "--out", tmp_path / "sw", "--jobs", "1",
                           cwd=tmp_path, interrupt_after=5, limit_memory=False,
                           ready=lambda pid: runs.is_dir() and any(runs.glob("*.json")))
    assert code == 130, err
    assert "Traceback" not in err
    kept = len(list((tmp_path / "sw" / "runs").glob("*.json")))
    assert f"kept {kept} finished runs" in err and kept > 0
    assert not [p for p in (tmp_path / "sw" / "runs").iterdir() if not p.name.endswith(".json")]
