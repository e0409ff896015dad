"""The Python API: builder, run, validate, errors, determinism, conservation."""

import math
import random
import re

import pandas as pd
import pytest

import ccsim
from ccsim.builder import dumps_toml
from conftest import EXAMPLES
from pathlib import Path


def small(seed=1, duration="60s"):
    sc = ccsim.Scenario("small", duration=duration, seed=seed)
    sc.hosts("a", "b", "c", "sink").switches("sw")
    sc.link("a", "sw", bandwidth="800kbps").link("b", "sw", bandwidth="800kbps").link("c", "sw", bandwidth="800kbps")
    sc.link("sw", "sink", bandwidth="80kbps", buffer="15pkt")
    sc.flow("a", "sink", app="ftp", cc="jk", max_window=8, name="ftp-a")
    sc.flow("b", "sink", app="ftp", cc="generic", max_window=5, name="ftp-b")
    sc.flow("c", "sink", app="telnet", cc="jk", max_window=5, name="telnet-c")
    sc.measure(interval="10s", trace_period="100ms")
    return sc


def test_builder_and_toml_file_give_identical_results(tmp_path):
    sc = small()
    path = tmp_path / "s.toml"
    sc.save(path)
    a = sc.run()
    b = ccsim.run(path)
    c = ccsim.run(path.read_text())
    for r in (b, c):
        assert a.intervals.equals(r.intervals)
        assert a.flows.drop(columns=[]).equals(r.flows)


def test_same_seed_same_results_different_seed_different_telnet():
    r1 = small(seed=7).run()
    r2 = small(seed=7).run()
    r3 = small(seed=8).run()
    assert r1.intervals.equals(r2.intervals) and r1.cwnd.equals(r2.cwnd)
    t1 = r1.intervals[r1.intervals.flow_name == "telnet-c"]["delivered"].tolist()
    t3 = r3.intervals[r3.intervals.flow_name == "telnet-c"]["delivered"].tolist()
    assert t1 != t3


def test_scenario_error_names_field_and_is_a_value_error():
    sc = small()
    sc._data["links"][3]["bandwidth"] = "fast"
    with pytest.raises(ccsim.ScenarioError) as e:
        sc.run()
    assert isinstance(e.value, ValueError)
    assert e.value.path == "links[3].bandwidth"
    assert "expected a positive bandwidth" in str(e.value)
    with pytest.raises(ccsim.ScenarioError, match="flows\\[0\\].src: no node named"):
        ccsim.run({**small().to_dict(), "flows": [{"src": "zz", "dst": "sink"}]})
    with pytest.raises(ccsim.ScenarioError, match="expected a string, number"):
        ccsim.run({**small().to_dict(), "name": object()})
    with pytest.raises(ccsim.ScenarioError):
        ccsim.run(42)


def test_validate_reports_counts():
    d = ccsim.validate(small())
    assert (d["nodes"], d["links"], d["flows"]) == (5, 4, 3)


def test_results_frames_and_jain():
    r = small().run()
    assert list(r.flows["name"]) == ["ftp-a", "ftp-b", "telnet-c"]
    assert r.run["conserved"] and r.flows["conserved"].all()
    assert 1 / 3 <= r.jain <= 1
    # goodput can never exceed the 80 kb/s bottleneck
    assert r.flows["goodput_bps"].sum() <= 80_000 * 1.01  # interval edges: a packet or so
    assert r.flows["goodput_bps"].sum() >= 0.95 * 80_000
    assert r.flow("ftp-a")["app"] == "ftp"
    with pytest.raises(KeyError):
        r.flow("nope")


def test_keshav_s1_jk_fcfs_matches_tables_6_2_and_6_3(examples):
    """Thesis: each FTP 4.99 pkt/s at 1.00 s RTT; each Telnet about 0.95 s RTT."""
    r = ccsim.run(examples / "keshav-s1-jk-fcfs.toml")
    for name in ("1 FTP", "2 FTP"):
        f = r.flow(name)
        assert abs(f["goodput_pps"] - 4.99) <= 0.05
        assert abs(f["delay_s"] - 1.00) <= 0.02
        assert f["data_dropped"] == 0
    for name in ("3 Telnet", "4 Telnet"):
        f = r.flow(name)
        assert abs(f["delay_s"] - 0.95) <= 0.03
        assert abs(f["goodput_pps"] - 0.2) <= 0.05
        assert f["retx_rate"] < 0.005  # the thesis prints 0


def random_scenario(rng: random.Random) -> dict:
    """A random connected topology with random flows of every kind."""
    n_sw = rng.randint(1, 4)
    n_h = rng.randint(2, 6)
    sws = [f"s{i}" for i in range(n_sw)]
    hosts = [f"h{i}" for i in range(n_h)]
    sc = ccsim.Scenario("random", duration=f"{rng.randint(5, 30)}s", seed=rng.randint(0, 10**6))
    sc.hosts(*hosts).switches(*sws)
    bw = lambda: rng.choice(["64kbps", "1Mbps", "10Mbps", "100Mbps"])
    for i in range(1, n_sw):  # a tree of switches, plus maybe an extra edge
        sc.link(sws[i], sws[rng.randrange(i)], bandwidth=bw(), delay=f"{rng.randint(0, 20)}ms",
                buffer=rng.choice(["5pkt", "20pkt", "30KB"]), count_in_service=rng.random() < 0.5)
    if n_sw > 2 and rng.random() < 0.5:
        sc.link(sws[0], sws[-1], bandwidth=bw(), delay="3ms", buffer="10pkt")
    for h in hosts:
        sc.link(h, rng.choice(sws), bandwidth=bw(), delay=f"{rng.randint(0, 5)}ms")
    for k in range(rng.randint(1, 6)):
        src, dst = rng.sample(hosts, 2)
        app = rng.choice(["ftp", "ftp", "telnet", "poisson", "cbr", "onoff"])
        kw = {}
        if app in ("ftp", "telnet"):
            kw["cc"] = rng.choice(["generic", "jk", "reno", "newreno"])
            kw["max_window"] = rng.randint(1, 40)
            if app == "ftp" and rng.random() < 0.3:
                kw["packets"] = rng.randint(1, 200)
        else:
            kw["cc"] = "none"
            kw["rate"] = f"{rng.uniform(0.5, 50):.2f}pps"
            if app == "poisson":
                kw.pop("rate")
                kw["mean_gap"] = f"{rng.uniform(0.01, 1):.3f}s"
            if app == "onoff":
                kw["on"] = [["0s", "1s"], ["2s", "3.5s"]]
        sc.flow(src, dst, app=app, name=f"f{k}", start=f"{rng.uniform(0, 2):.3f}s", **kw)
    sc.measure(interval="1s", trace_period="50ms")
    return sc.to_dict()


@pytest.mark.parametrize("case", range(40))
def test_random_topologies_conserve_packets(case):
    rng = random.Random(1000 + case)
    d = random_scenario(rng)
    r = ccsim.run(d)
    assert r.run["conserved"], r.flows[["name", "sent", "received", "data_dropped", "data_in_network"]]
    t = r.flows
    assert ((t.sent == t.received + t.data_dropped + t.data_in_network)).all()
    assert ((t.acks_sent == t.acks_received + t.acks_dropped + t.acks_in_network)).all()
    assert (t.delivered <= t.sent).all()
    # the TOML form of the same scenario gives the same results
    assert ccsim.run(dumps_toml(d)).intervals.equals(r.intervals)


def test_scenario_error_pickles_for_worker_processes():
    # Process pools and Dask workers send a worker's exception back pickled; the class must
    # be importable by its module path.
    import pickle
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run({"name": "x"})
    back = pickle.loads(pickle.dumps(e.value))
    assert isinstance(back, ccsim.ScenarioError)
    assert "duration" in str(back) and back.path == "duration"


def test_drop_trace_frame_and_files(tmp_path):
    sc = small(duration="120s").measure(trace_drops="switches")
    r = sc.run()
    d = r.drops
    assert list(d.columns) == ["time_s", "port", "port_name", "flow", "flow_name", "seq", "ack", "retransmission",
                               "queue_packets", "conv_queued", "longest_other"]
    # one row per drop, all at the 15-packet bottleneck, where drop-tail drops arrivals at a full buffer
    assert len(d) == r.ports.set_index("name").loc["sw->sink", "drops"] > 0
    assert set(d["port_name"]) == {"sw->sink"} and (d["queue_packets"] == 14).all()
    per_flow = d.groupby("flow_name").size()
    for name, n in per_flow.items():
        assert n == r.flow(name)["data_dropped"]
    written = r.write(tmp_path, plots=False)
    assert tmp_path / "drops.parquet" in written
    back = ccsim.Results.read(tmp_path).drops
    pd.testing.assert_frame_equal(back, d)
    # without trace_drops the frame is empty but has the columns
    e = small(duration="20s").run().drops
    assert e.empty and list(e.columns) == list(d.columns)
    # ... and the same types (numbers from the engine's arrays, names as text)
    assert e.dtypes.astype(str).to_dict() == d.dtypes.astype(str).to_dict()
    assert d["port"].dtype == "int64" and d["ack"].dtype == bool and d["time_s"].dtype == "float64"


def test_tables_arrive_as_typed_columns():
    r = small(duration="60s").run()
    for frame, ints in ((r.intervals, ["flow", "interval", "sent", "delay_samples"]),
                        (r.cwnd, ["flow", "outstanding"]), (r.queues, ["port", "packets", "bytes"])):
        assert len(frame) > 0
        for c in ints:
            assert frame[c].dtype == "int64", (c, frame[c].dtype)
        assert frame["time_s" if "time_s" in frame else "start_s"].dtype == "float64"


def test_a_missing_file_named_without_toml_is_reported_as_missing(tmp_path):
    # One line without "=" is a path, not TOML text: the error says the file is missing.
    with pytest.raises(ccsim.ScenarioError, match="no such file"):
        ccsim.run(str(tmp_path / "nope"))


def test_a_shortened_run_names_the_override_when_an_interval_no_longer_fits(examples):
    with pytest.raises(ccsim.ScenarioError, match="overridden to 2s"):
        ccsim.run(examples / "dumbbell.toml", duration="2s")


def test_results_read_back_offer_jain_and_flow_like_a_run(examples, tmp_path):
    res = ccsim.run(examples / "dumbbell.toml", duration="20s")
    res.write(tmp_path / "o", plots=False)
    from ccsim.results import FLOW_COLUMNS, PORT_COLUMNS

    # the columns empty runs are given are the ones a run has
    assert list(res.flows.columns) == FLOW_COLUMNS and list(res.ports.columns) == PORT_COLUMNS
    back = ccsim.Results.read(tmp_path / "o")
    assert isinstance(back, ccsim.Results) and repr(back) == repr(res)
    assert back.intervals["discarded"].equals(res.intervals["discarded"])
    old = pd.read_parquet(tmp_path / "o" / "intervals.parquet").drop(columns="discarded")
    old.to_parquet(tmp_path / "o" / "intervals.parquet")   # as written before the column existed
    assert ccsim.Results.read(tmp_path / "o").intervals["discarded"].equals(res.intervals["discarded"])
    assert back.jain == pytest.approx(res.jain)
    name = res.flows["name"].iloc[0]
    assert back.flow(name)["goodput_pps"] == pytest.approx(res.flow(name)["goodput_pps"])
    back.write(tmp_path / "again", plots=False)  # read-back results write like a run's
    assert ccsim.Results.read(tmp_path / "again").flows.equals(back.flows)
    (tmp_path / "o" / "queues.parquet").unlink()
    with pytest.raises(ccsim.ScenarioError, match="queues.parquet: missing"):
        ccsim.Results.read(tmp_path / "o")


def test_the_builder_docstring_example_runs():
    import doctest

    import ccsim.builder

    assert doctest.testmod(ccsim.builder).failed == 0


def test_save_writes_numpy_numbers_as_plain_numbers(tmp_path):
    import numpy as np

    sc = ccsim.Scenario("np", duration="10s", seed=np.int64(2)).hosts("a", "b").switches("s")
    sc.link("a", "s", bandwidth=np.float64(1e7)).link("s", "b", bandwidth="1Mbps", buffer="20pkt")
    sc.flow("a", "b", max_window=np.int64(5))
    sc.save(tmp_path / "np.toml")
    assert ccsim.run(tmp_path / "np.toml").flows["goodput_pps"].iloc[0] > 0
    with pytest.raises(ValueError, match="params: expected a dict"):
        sc.flow("a", "b", params=[1, 2])
    with pytest.raises(ValueError, match=r"links\[0\]\.bandwidth: cannot write"):
        ccsim.Scenario("bad", duration="1s").link("a", "s", bandwidth=object()).save(tmp_path / "x.toml")
    with pytest.raises(OSError, match="no directory"):
        sc.save(tmp_path / "missing" / "x.toml")


def test_empty_traces_keep_their_name_columns():
    sc = ccsim.Scenario("q", duration="10s").hosts("a", "b").switches("s")
    sc.link("a", "s", bandwidth="10Mbps").link("s", "b", bandwidth="1Mbps", buffer="20pkt").flow("a", "b")
    r = sc.measure(trace_cwnd="none", trace_queues="none").run()
    assert "flow_name" in r.cwnd.columns and "port_name" in r.queues.columns and "flow_name" in r.probes.columns
    assert r.cwnd.empty and r.queues.empty


def test_one_parser_for_run_and_validate(tmp_path, cli):
    # TOML nested past the parser's limit: a clean error from both commands, with or without
    # overrides (run used to re-parse the file with Python's tomllib and die in a traceback).
    deep = tmp_path / "deep.toml"
    deep.write_text('duration = "1s"\ndeep = ' + "[" * 3000 + "]" * 3000 + "\n")
    for args in (["validate", deep], ["run", deep], ["run", deep, "--seed", "3"]):
        r = cli(*args)
        assert r.returncode == 2 and "not valid TOML" in r.stderr and "Traceback" not in r.stderr, args
    # A seed past 2^63 is refused the same way by both.
    big = tmp_path / "big.toml"
    big.write_text(Path(EXAMPLES / "keshav-s1-jk-fcfs.toml").read_text().replace("seed = 1", "seed = 99999999999999999999"))
    assert cli("validate", big).returncode == cli("run", big).returncode == 2
    # load_scenario reads with the engine's parser too.
    assert ccsim.load_scenario(EXAMPLES / "keshav-s1-jk-fcfs.toml")["duration"]


def test_a_dict_nested_too_deep_is_a_scenario_error_not_a_crash():
    x = 1
    for _ in range(10_000):
        x = [x]
    with pytest.raises(ccsim.ScenarioError, match="nested more than 64"):
        ccsim.validate({"duration": "1s", "nodes": {"hosts": ["a"]}, "x": x})


def test_run_many_frees_each_result_once_the_caller_drops_it():
    """A sweep holds no finished run's results for the caller: 350 chapter-5 runs with 10^6
    departures each once exhausted the memory this way."""
    import gc
    import weakref

    from ccsim.sweep import Task, run_many

    tasks = [Task(key=i, scenario=small(seed=i, duration="20s"), seed=i) for i in range(6)]
    refs = []
    for _, res in run_many(tasks, workers=2, progress=False):
        assert not isinstance(res, Exception), res
        refs.append(weakref.ref(res))
        del res
        gc.collect()
        # The run just yielded is still the generator's until it resumes; the earlier ones
        # must be gone.
        assert all(r() is None for r in refs[:-1]), "a finished run's results are still referenced"


def test_a_scenario_on_two_threads_is_deterministic_and_conserves_packets():
    # Round rates and delays make packets from both sides of the cut meet at the switch at the
    # same picosecond, and those ties may be broken otherwise than on one thread
    # (docs/scenario-format.md, [parallel]): the runs are deterministic, not identical to one
    # thread's.
    def net():
        sc = ccsim.Scenario("two", duration="20s", seed=3)
        sc.hosts("a", "b", "sink").switches("sw")
        sc.link("a", "sw", bandwidth="10Mbps", delay="5ms").link("b", "sw", bandwidth="10Mbps", delay="7ms")
        sc.link("sw", "sink", bandwidth="4Mbps", delay="10ms", buffer="20pkt")
        sc.flow("a", "sink", cc="newreno", name="fa").flow("b", "sink", cc="reno", name="fb")
        sc.measure(interval="2s")
        return sc
    one = net().run()
    two, again = (net().parallel("sw", "sink").run() for _ in range(2))
    assert two.intervals.equals(again.intervals) and two.flows.equals(again.flows)
    assert two.run["conserved"] and one.run["conserved"]
    assert len(two.intervals) == len(one.intervals) and two.cwnd.empty
    # Both carry the bottleneck: 4 Mb/s of 1000-byte packets is 500 a second.
    assert two.flows["goodput_pps"].sum() == pytest.approx(one.flows["goodput_pps"].sum(), rel=0.05)
    with pytest.raises(ccsim.ScenarioError, match="parallel.second"):
        net().parallel("nowhere").run()


def test_every_figure_is_written_whole_or_not_at_all():
    # A killed reproduction must not leave a half-written PNG: figures go through
    # _files.atomic_savefig, or atomic_write(path, lambda t: fig.savefig(t, ...)), or
    # ccsim.plots (whose callers hand it atomic_write's temporary path). A savefig anywhere
    # else writes in place.
    import ast
    from pathlib import Path

    import ccsim

    def savefigs(tree):
        return {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "savefig"}

    root = Path(ccsim.__file__).parent
    direct = []
    for f in root.rglob("*.py"):
        if f.name in ("_files.py", "plots.py"):
            continue
        tree = ast.parse(f.read_text())
        in_lambdas = set().union(*[savefigs(n.body) for n in ast.walk(tree) if isinstance(n, ast.Lambda)])
        direct += [(str(f.relative_to(root)), line) for line in sorted(savefigs(tree) - in_lambdas)]
    assert direct == []


def test_an_edit_gets_its_own_copy_of_a_shared_scenario(examples):
    # Two tasks share one dict; the first edits the bottleneck buffer. The second must run the
    # dict as given, and the caller's dict must be left alone.
    from ccsim.api import load_scenario
    from ccsim.sweep import Task, run_many

    base = load_scenario(examples / "dumbbell.toml")
    buffer = base["links"][0].get("buffer")

    def edit(d):
        d["links"][0]["buffer"] = "200pkt"
        return d

    got = {t.key: r for t, r in run_many([Task("edited", base, duration="20s", edit=edit),
                                          Task("control", base, duration="20s")], workers=1, progress=False)}
    assert base["links"][0].get("buffer") == buffer
    assert got["edited"].ports["max_queue_packets"].max() > got["control"].ports["max_queue_packets"].max()


def test_an_edit_that_returns_nothing_is_named(examples):
    from ccsim.sweep import Task, run_many

    (_, err), = run_many([Task("k", str(examples / "dumbbell.toml"), edit=lambda d: None)], workers=1, progress=False)
    assert isinstance(err, TypeError) and "its edit returned NoneType" in str(err)


def test_the_builder_copies_what_it_is_given():
    qp, route = {"max_p": 0.02}, ["x", "y"]
    sc = ccsim.Scenario("a", duration="5s").hosts("x", "y").link("x", "y", bandwidth="1Mbps", queue="red",
                                                                 queue_params=qp, loss=0.01)
    sc.flow("x", "y", route=route)
    qp["max_p"], route[0] = 0.5, "z"
    d = sc.to_dict()
    assert d["links"][0]["queue_params"] == {"max_p": 0.02} and d["links"][0]["loss"] == 0.01
    assert d["flows"][0]["route"] == ["x", "y"]


def test_numpy_booleans_are_booleans_to_the_engine_and_in_toml():
    import numpy as np

    sc = ccsim.Scenario("b", duration="2s").hosts("x", "y").link(
        "x", "y", bandwidth="1Mbps", queue="red", queue_params={"gentle": np.bool_(True)}).flow("x", "y")
    sc.measure(interval="1s", discard=0)
    assert sc.run().run["conserved"]
    assert "gentle = true" in sc.to_toml()


def test_results_read_back_keep_nan_and_the_name_columns(examples, tmp_path):
    import math

    res = ccsim.run(examples / "dumbbell.toml", duration="20s", progress=False)
    res.run["jain_goodput"] = float("nan")  # as a run with no goodput has it
    res.write(tmp_path / "o", plots=False)
    back = ccsim.Results.read(tmp_path / "o")
    assert math.isnan(back.jain)
    for name in ("departures", "port_intervals"):
        assert list(getattr(back, name).columns) == list(getattr(res, name).columns), name
    assert back.events == {}


@pytest.mark.parametrize("kw, words", [({"time_limit": "1"}, "time_limit"), ({"time_limit": -1}, "time_limit"),
                                       ({"stop": True}, "stop")])
def test_run_checks_its_own_arguments_first(examples, kw, words):
    with pytest.raises((TypeError, ValueError), match=words):
        ccsim.run(examples / "dumbbell.toml", progress=False, **kw)


def test_the_red_code_models_refuse_what_the_engine_refuses():
    from ccsim.models.hua02 import code_probability, red_code

    for args in ((10, 20, 5), (10, 5, 5), (10, 5, 15, 0), (10, 5, 15, 9)):
        with pytest.raises(ValueError):
            red_code(*args)
    with pytest.raises(ValueError):
        code_probability(-1)
    assert red_code(16, 5, 15, 1) == 1 and code_probability(1, 0.1, 1) == 1.0


def test_queue_trace_carries_the_disciplines_state(tmp_path):
    """RED's average queue rides in the queue trace beside the queue it smooths, named per
    port; a drop-tail port's is NaN with no name; both survive writing and reading back."""
    sc = ccsim.Scenario("red-state", duration="20s", seed=1)
    sc.measure(trace_period="50ms", trace_queues=["r1->r2", "r2->d"])
    sc.hosts("a", "d").switches("r1", "r2")
    sc.link("a", "r1", bandwidth="100Mbps")
    sc.link("r1", "r2", bandwidth="10Mbps", delay="20ms", buffer="100pkt", queue="red")
    sc.link("r2", "d", bandwidth="100Mbps")
    sc.flow("a", "d", cc="newreno")
    r = sc.run()
    red = r.queues[r.queues["port_name"] == "r1->r2"]
    assert set(red["state_name"]) == {"avg_queue"}
    assert red["state"].between(0, 100).all() and red["state"].max() > 1
    plain = r.queues[r.queues["port_name"] == "r2->d"]
    assert plain["state"].isna().all() and plain["state_name"].isna().all()
    ports = r.ports.set_index("name")
    assert ports.loc["r1->r2", "state_name"] == "avg_queue"
    # (a sample and an arrival may share the last instant: either may come first)
    assert ports.loc["r1->r2", "final_state"] == pytest.approx(red["state"].iloc[-1], abs=0.1)
    assert math.isnan(ports.loc["r2->d", "final_state"])
    r.write(tmp_path / "o")
    back = ccsim.Results.read(tmp_path / "o")
    pd.testing.assert_frame_equal(back.queues.reset_index(drop=True), r.queues.reset_index(drop=True),
                                  check_dtype=False)
    # No traced port: the columns are still there.
    empty = sc.measure(trace_queues="none").run().queues
    assert empty.empty and {"state", "state_name"} <= set(empty.columns)


def test_results_written_before_the_state_columns_read_back_with_them(tmp_path):
    sc = ccsim.Scenario("old", duration="5s").hosts("a", "b").switches("s")
    sc.link("a", "s", bandwidth="10Mbps").link("s", "b", bandwidth="1Mbps", buffer="20pkt").flow("a", "b")
    sc.run().write(tmp_path / "o")
    for name, cols in (("queues", ["state", "state_name"]), ("ports", ["state_name", "final_state"])):
        p = tmp_path / "o" / f"{name}.parquet"
        pd.read_parquet(p).drop(columns=cols).to_parquet(p, index=False)
    back = ccsim.Results.read(tmp_path / "o")
    assert back.queues["state"].isna().all() and back.queues["state_name"].isna().all()
    assert back.ports["final_state"].isna().all() and back.ports["state_name"].isna().all()


def test_red_average_example():
    """scenarios/examples/red-average.toml: RED's traced average follows the queue, smoothed
    (the numbers its header and the README quote)."""
    r = ccsim.run(EXAMPLES / "red-average.toml")
    q = r.queues[r.queues["time_s"] >= 5]
    assert set(q["state_name"]) == {"avg_queue"}
    assert q["packets"].mean() == pytest.approx(4.6, abs=0.05) and q["packets"].std() == pytest.approx(5.4, abs=0.05)
    assert q["state"].mean() == pytest.approx(4.1, abs=0.05) and q["state"].std() == pytest.approx(1.55, abs=0.05)
    assert r.ports.set_index("name").loc["r1->r2", "utilisation"] == pytest.approx(0.80, abs=0.005)


def test_in_order_sink_discards_beyond_a_hole_and_sends_no_ack_for_it():
    # Liang 1991 §4.2's receiver (`sink = "in_order"`): with losses at the 6-packet buffer,
    # packets that arrive beyond a hole are discarded unacknowledged; the selective sink
    # acknowledges every packet it receives. Packets stay conserved either way.
    def flows(sink):
        sc = ccsim.Scenario("sinks", duration="60s", seed=1)
        sc.hosts("a", "b", "sink").switches("sw")
        sc.link("a", "sw", bandwidth="800kbps").link("b", "sw", bandwidth="800kbps")
        sc.link("sw", "sink", bandwidth="80kbps", buffer="6pkt")
        for h in ("a", "b"):
            sc.flow(h, "sink", app="ftp", cc="jk", max_window=12, name=f"ftp-{h}", sink=sink)
        return sc.run().flows

    sel, ino = flows("selective"), flows("in_order")
    assert (sel.data_dropped > 0).all() and (ino.data_dropped > 0).all()
    assert (sel.acks_sent == sel.received).all()
    assert (ino.acks_sent < ino.received).all()
    assert sel.conserved.all() and ino.conserved.all()
    with pytest.raises(ccsim.ScenarioError, match="flows\\[0\\].sink: sink is for flows under a window"):
        ccsim.run({**small().to_dict(), "flows": [{"src": "a", "dst": "sink", "app": "cbr", "rate": "10pps", "sink": "in_order"}]})
    with pytest.raises(ccsim.ScenarioError, match="flows\\[0\\].sink: unknown sink"):
        ccsim.run({**small().to_dict(), "flows": [{"src": "a", "dst": "sink", "cc": "jk", "sink": "lazy"}]})


def test_progress_off_a_terminal_is_a_line_every_so_often(monkeypatch, capsys):
    # A reproduction redirected to a log file must show it is alive (no bar without a terminal);
    # the library stays silent unless the command asks for the lines.
    import time

    from ccsim import sweep

    clock = iter([100.0, 110.0, 140.0, 150.0, 175.0, 200.0])   # start, then one reading per run
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    bar = sweep._progress(5, "simulating")
    for _ in range(5):
        bar.advance()
    assert capsys.readouterr().err == ""          # silent by default
    monkeypatch.setattr(sweep._progress, "LINES_OFF_TERMINAL", True)
    clock = iter([0.0, 10.0, 40.0, 50.0, 75.0, 100.0])
    bar = sweep._progress(5, "simulating")
    for _ in range(5):
        bar.advance()
    lines = capsys.readouterr().err.splitlines()
    # Runs end at 10, 40, 50, 75 and 100 s: a line at 40 s (2 done, 30 s since the last) and at
    # 75 s (4 done, 35 s since), none after the last run.
    assert lines == ["ccsim: simulating: 2 of 5 runs done, 40 s elapsed, about 1 min 00 s left",
                     "ccsim: simulating: 4 of 5 runs done, 1 min 15 s elapsed, about 19 s left"], lines
    assert sweep._clock(125) == "2 min 05 s" and sweep._clock(7.4) == "7 s"


def test_intervals_mark_the_discarded_ones_and_the_rest_give_the_flows_means(examples):
    # Averaging `intervals` as it stands would count the warm-up the flows' means leave out.
    import ccsim

    res = ccsim.run(examples / "dumbbell.toml", duration="30s", progress=False)
    iv = res.intervals
    assert res.run["discard"] == 1 and iv["discarded"].tolist() == (iv["interval"] < 1).tolist()
    kept = iv[~iv["discarded"]].groupby("flow_name", sort=False)["goodput_pps"].mean()
    assert kept.round(9).tolist() == res.flows["goodput_pps"].round(9).tolist()
    assert iv[iv["discarded"]]["goodput_pps"].mean() != pytest.approx(kept.mean())


def _two_flows():
    sc = ccsim.Scenario("t", duration="20s", seed=1)
    sc.hosts("a", "b", "c").switches("sw")
    sc.link("a", "sw", bandwidth="10Mbps").link("b", "sw", bandwidth="10Mbps")
    sc.link("sw", "c", bandwidth="1Mbps", delay="10ms", buffer="20pkt")
    return sc.flow("a", "c", cc="newreno").flow("b", "c", cc="jk")


def test_run_sweep_from_python_takes_a_scenario_and_a_dict_and_reuses_finished_runs(tmp_path, monkeypatch):
    out = tmp_path / "sw"
    t = ccsim.run_sweep(_two_flows(), {"links[2].buffer": ["5pkt", "20pkt"], "flows[0].cc": "reno"},
                        seeds=range(1, 3), out=out, workers=1, progress=False)
    assert len(t) == 2 * 2 * 2 and t.attrs["failures"] == []
    assert list(t.columns[:3]) == ["param:links[2].buffer", "param:flows[0].cc", "seed"]
    assert set(t["param:flows[0].cc"]) == {"reno"} and (out / "sweep.parquet").exists()
    small = t[t["param:links[2].buffer"] == "5pkt"]["drop_rate"].mean()
    assert small > t[t["param:links[2].buffer"] == "20pkt"]["drop_rate"].mean()
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")}
    assert len(stamps) == 4
    again = ccsim.run_sweep(_two_flows(), [("links[2].buffer", ["5pkt", "20pkt"]), ("flows[0].cc", ["reno"])],
                            seeds=[1, 2], out=out, workers=1, progress=False)
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")} == stamps   # nothing rerun
    assert again.equals(t)
    # Another engine version runs afresh instead of returning the old results as its own.
    from ccsim import sweep

    monkeypatch.setattr(sweep, "__version__", "0.0.0-other")
    ccsim.run_sweep(_two_flows(), {"links[2].buffer": "5pkt"}, out=out, workers=1, progress=False)
    assert len(list((out / "runs").glob("*.json"))) == 5


def test_run_sweep_takes_numpy_values_and_seeds_and_toml_text(tmp_path):
    import numpy as np

    t = ccsim.run_sweep(_two_flows().to_toml(), {"flows[0].max_window": np.arange(10, 12)}, seeds=np.arange(1, 3),
                        out=tmp_path / "sw", workers=1, progress=False)
    assert len(t) == 2 * 2 * 2 and sorted(t["param:flows[0].max_window"].unique()) == [10, 11]
    assert t.attrs["failures"] == []


def test_a_swept_field_named_like_a_metric_keeps_its_values(tmp_path):
    # The sweep's float coercion is for metrics: a swept reserved_rate stays what was given.
    sc = _two_flows().to_dict()
    sc["links"][2]["queue"] = "virtual_clock"   # where a reservation is honoured
    t = ccsim.run_sweep(sc, {"flows[0].reserved_rate": ["100kbps", "200kbps"]}, out=tmp_path / "sw",
                        workers=1, progress=False)
    assert sorted(t["param:flows[0].reserved_rate"].unique()) == ["100kbps", "200kbps"]


@pytest.mark.parametrize("grid, seeds, words", [
    ({"seed": [1, 2]}, [1], "grid seed: the seeds are run_sweep's seeds="),
    ({"links[2].buffer": ["5pkt"]}, [1.9], "seeds: expected integers"),
    ({"links[9].buffer": ["5pkt"]}, [1], "grid links[9].buffer: links has 3 elements, no [9]"),
    ({"links[2].buffer": ["5pkt", "5kg"]}, [1], "links[2].buffer: expected a buffer"),
    ([("links[2].buffer",)], [1], "expected {path: values} or (path, values) pairs"),
    ({"links[2].buffer": []}, [1], "grid links[2].buffer: no values"),
    ({}, [-1], "seed: expected an integer from 0"),
])
def test_run_sweep_checks_everything_before_running(tmp_path, grid, seeds, words):
    with pytest.raises(ccsim.ScenarioError, match=re.escape(words)):
        ccsim.run_sweep(_two_flows(), grid, seeds=seeds, out=tmp_path / "sw", progress=False)
    assert not (tmp_path / "sw").exists()


def test_run_sweep_refuses_a_file_as_out_and_bad_workers(tmp_path):
    f = tmp_path / "f"
    f.write_text("keep")
    with pytest.raises(ccsim.ScenarioError, match="out: .* is a file"):
        ccsim.run_sweep(_two_flows(), {"links[2].buffer": "5pkt"}, out=f, progress=False)
    with pytest.raises(ccsim.ScenarioError, match="workers: expected a positive integer"):
        ccsim.run_sweep(_two_flows(), {"links[2].buffer": "5pkt"}, out=tmp_path / "sw", workers=0, progress=False)
    assert f.read_text() == "keep" and not (tmp_path / "sw").exists()


def test_a_scenario_loaded_into_the_builder_edits_and_runs_as_the_file(tmp_path):
    sc = ccsim.Scenario.load("scenarios/examples/dumbbell.toml")
    assert repr(sc).startswith("<ccsim.Scenario 'dumbbell': 8 hosts, 2 switches, 9 links, 4 flows")
    same = ccsim.run("scenarios/examples/dumbbell.toml", duration="20s", progress=False)
    assert sc.run(duration="20s").flows.equals(same.flows)
    sc.set(duration="20s").link("left", "right", bandwidth="1Mbps")   # the builder's methods apply
    assert sc.to_dict()["links"][-1] == {"between": ["left", "right"], "bandwidth": "1Mbps"}
    assert ccsim.Scenario.load(sc.to_dict()).to_toml() == sc.to_toml()
    assert ccsim.Scenario.load(sc.to_toml()).to_dict() == sc.to_dict()          # TOML text too
    bare = ccsim.Scenario.load({"name": "bare", "duration": "1s"})               # keys the builder adds to
    bare.hosts("a").switches("s").flow("a", "s")
    assert bare.to_dict()["nodes"] == {"hosts": ["a"], "switches": ["s"]}
    assert repr(same).startswith("<ccsim.Results 'dumbbell': seed 1, 20 s, 4 flows")
    with pytest.raises(ccsim.ScenarioError, match="no such file"):
        ccsim.Scenario.load(tmp_path / "missing.toml")


def test_a_sweep_keeps_a_metric_no_run_measured_as_a_float_column(tmp_path):
    sc = ccsim.Scenario("cbr", duration="20s")
    sc.hosts("a", "c").switches("sw").link("a", "sw", bandwidth="10Mbps").link("sw", "c", bandwidth="1Mbps")
    sc.flow("a", "c", app="cbr", rate="10pps")   # a CBR flow has no RTT
    t = ccsim.run_sweep(sc, {"links[1].delay": ["1ms", "10ms"]}, out=tmp_path / "sw", progress=False)
    assert t["delay_s"].dtype == "float64" and t["delay_s"].isna().all()
    assert t["goodput_pps"].dtype == "float64"
