"""Sweeps and reproductions on a Dask cluster (`--scheduler`, `run_many(scheduler=...)`): a
local cluster of two worker processes stands in for a remote one."""

import json
import shutil

import pytest

distributed = pytest.importorskip("distributed")

from ccsim.sweep import Task, run_many  # noqa: E402

SMALL = "2s"  # with [measure] set to fit it below


@pytest.fixture(scope="module")
def cluster():
    # Worker processes start in this directory; the tests then move elsewhere, as a user's
    # machine and a cluster's workers do not share a working directory.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def small_scenario(examples, tmp_path, name="mine.toml"):
    """A two-second copy of the dumbbell example in tmp_path; returns its file name."""
    from ccsim.api import load_scenario
    from ccsim.builder import dumps_toml

    data = load_scenario(examples / "dumbbell.toml")
    data["duration"] = SMALL
    data["measure"] = {**data["measure"], "interval": "0.5s", "discard": 1}
    (tmp_path / name).write_text(dumps_toml(data))
    return name


def flows_key(res):
    return res.flows[["name", "goodput_pps", "drop_rate"]].to_dict("records")


def test_a_cluster_runs_what_the_local_pool_runs_from_a_file_only_the_caller_sees(cluster, examples,
                                                                               tmp_path, monkeypatch):
    name = small_scenario(examples, tmp_path)
    monkeypatch.chdir(tmp_path)  # the workers' directory has no mine.toml
    tasks = [Task(key=s, scenario=name, seed=s, duration=f"{s + 1}s") for s in (1, 2, 3)]
    local = {t.key: flows_key(r) for t, r in run_many(tasks, workers=2, progress=False)}
    remote = {}
    for t, r in run_many(tasks, scheduler=cluster.scheduler_address, progress=False):
        assert not isinstance(r, Exception), r
        remote[t.key] = flows_key(r)
    assert remote == local
    assert local[1] != local[2]  # the runs differ: the comparison means something


def test_a_failed_run_on_the_cluster_comes_back_as_its_error(cluster, examples, tmp_path):
    from ccsim._core import ScenarioError

    bad = {"duration": "1s", "nodes": []}
    tasks = [Task(key="bad", scenario=bad), Task(key="missing", scenario=str(tmp_path / "absent.toml"))]
    got = dict((t.key, r) for t, r in run_many(tasks, scheduler=cluster.scheduler_address, progress=False))
    assert isinstance(got["bad"], ScenarioError)
    assert isinstance(got["missing"], ScenarioError) and "no such file" in str(got["missing"])


def test_the_cluster_holds_only_a_window_of_results_and_none_after(cluster, examples, tmp_path):
    name = small_scenario(examples, tmp_path)
    tasks = [Task(key=i, scenario=str(tmp_path / name), seed=i) for i in range(1, 13)]
    watcher = distributed.Client(cluster.scheduler_address)
    held = []
    try:
        for _t, r in run_many(tasks, scheduler=cluster.scheduler_address, progress=False):
            assert not isinstance(r, Exception), r
            held.append(sum(len(v) for v in watcher.has_what().values()))
        # two threads: at most four runs submitted ahead, and nothing kept once handed over
        assert max(held) <= 4, held
        import time

        for _ in range(50):
            if not sum(len(v) for v in watcher.has_what().values()):
                break
            time.sleep(0.1)
        assert sum(len(v) for v in watcher.has_what().values()) == 0
    finally:
        watcher.close()


def test_sweep_command_on_a_cluster_matches_the_local_one(cli, cluster, examples, tmp_path):
    name = small_scenario(examples, tmp_path)
    args = [name, "--set", "links[0].buffer=20pkt,40pkt", "--seeds", "1..2"]
    a = cli("sweep", *args, "--out", "local", cwd=tmp_path)
    b = cli("sweep", *args, "--out", "dask", "--scheduler", cluster.scheduler_address, cwd=tmp_path)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    import pandas as pd

    cols = ["param:links[0].buffer", "seed", "name", "goodput_pps", "drop_rate"]
    ta = pd.read_parquet(tmp_path / "local" / "sweep.parquet")[cols].sort_values(cols[:3]).reset_index(drop=True)
    tb = pd.read_parquet(tmp_path / "dask" / "sweep.parquet")[cols].sort_values(cols[:3]).reset_index(drop=True)
    assert len(ta) == 16  # 4 flows, 2 buffers, 2 seeds
    pd.testing.assert_frame_equal(ta, tb)
    shutil.rmtree(tmp_path / "dask")


def test_a_bad_scheduler_address_is_named_with_exit_2_and_nothing_made(cli, examples, tmp_path):
    r = cli("sweep", examples / "dumbbell.toml", "--out", tmp_path / "o", "--scheduler", "nonsense")
    assert r.returncode == 2
    assert "--scheduler nonsense: not a Dask scheduler address" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()
    r = cli("reproduce", "liang91", "--quick", "--only", "T4.1", "--out", tmp_path / "r", "--scheduler", "nonsense")
    assert r.returncode == 2 and "--scheduler nonsense" in r.stderr
    assert not (tmp_path / "r").exists()


def test_a_task_that_cannot_be_sent_comes_back_as_its_own_error(cluster, examples, tmp_path, monkeypatch):
    # Read where the file is (a worker elsewhere would only say "no such file"), and one task
    # that cannot be pickled does not stop the others.
    import threading

    name = small_scenario(examples, tmp_path)
    (tmp_path / "latin1.toml").write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    monkeypatch.chdir(tmp_path)
    lock = threading.Lock()
    tasks = [Task(key="latin1", scenario="latin1.toml"),
             Task(key="unpicklable", scenario=name, edit=lambda d: (lock, d)[1]),
             Task(key="good", scenario=name)]
    got = {t.key: r for t, r in run_many(iter(tasks), scheduler=cluster.scheduler_address, progress=False)}
    assert "not UTF-8" in str(got["latin1"])
    assert isinstance(got["unpicklable"], Exception)
    assert not isinstance(got["good"], Exception) and len(got["good"].flows) == 4


def test_stopping_early_stops_the_runs_under_way_on_the_cluster(cluster, examples, tmp_path):
    # The caller takes one result and stops: the long runs already on the workers end at their
    # next slice instead of simulating on for their whole length. (Cancelling their futures
    # alone makes the scheduler forget them while the workers' threads go on: the threads the
    # workers have running tasks in are what tells, not the CPU, which a loaded machine shares.)
    import time

    name = small_scenario(examples, tmp_path)
    long = [Task(key=f"long{i}", scenario=str(tmp_path / name), duration="1000000s",
                 edit=lambda d: {**d, "measure": {**d["measure"], "interval": "1000s", "trace_period": "1000s"}})
            for i in range(2)]
    tasks = [Task(key="short", scenario=str(tmp_path / name))] + long
    watcher = distributed.Client(cluster.scheduler_address)

    def running_threads() -> int:
        return sum(watcher.run(lambda dask_worker: len(dask_worker.active_threads)).values())

    def wait_until(done, seconds: float) -> int:
        deadline = time.monotonic() + seconds
        while not done(n := running_threads()) and time.monotonic() < deadline:
            time.sleep(0.1)
        return n

    try:
        it = run_many(tasks, scheduler=cluster.scheduler_address, progress=False)
        try:
            first, _ = next(it)
            assert first.key == "short"
            assert wait_until(lambda n: n >= 1, 30) >= 1  # a long run is simulating
        finally:
            it.close()  # also on a failure above: the runs must not hold the shared cluster
        assert wait_until(lambda n: n == 0, 10) == 0  # and ends at its next slice, not minutes later
    finally:
        watcher.close()


def test_a_reproduction_on_a_cluster_judges_as_the_local_one(cli, cluster, tmp_path):
    import pandas as pd

    args = ["reproduce", "liang91", "--quick", "--only", "T4.1,T4.5"]
    a = cli(*args, "--out", tmp_path / "local")
    b = cli(*args, "--out", tmp_path / "dask", "--scheduler", cluster.scheduler_address)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    ca = pd.read_parquet(tmp_path / "local" / "cells.parquet")
    cb = pd.read_parquet(tmp_path / "dask" / "cells.parquet")
    assert len(ca) >= 8
    pd.testing.assert_frame_equal(ca, cb)
