"""The `ccsim` command: run, validate, bench, plot, and bad input from the command line."""

import json
import tomllib

import pandas as pd
import pytest


def test_run_writes_summary_tables_and_plots(cli, examples, tmp_path):
    out = tmp_path / "out"
    r = cli("run", examples / "keshav-s1-jk-fcfs.toml", "--out", out, "--duration", "1000s")
    assert r.returncode == 0, r.stderr
    assert "1 FTP" in r.stdout and "goodput" in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["conserved"] is True
    assert [f["name"] for f in summary["flows"]] == ["1 FTP", "2 FTP", "3 Telnet", "4 Telnet"]
    iv = pd.read_parquet(out / "intervals.parquet")
    assert set(iv["flow_name"]) == {"1 FTP", "2 FTP", "3 Telnet", "4 Telnet"}
    assert len(iv) == 4 * 4  # 1000 s in the example's 250 s intervals
    cw = pd.read_parquet(out / "cwnd.parquet")
    assert {"time_s", "cwnd", "flow_name"} <= set(cw.columns) and len(cw) > 100
    q = pd.read_parquet(out / "queues.parquet")
    assert "switch->sink" in set(q["port_name"])
    for png in ("cwnd.png", "queues.png"):
        data = (out / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    # nothing half-written left behind
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_validate_ok_and_bad(cli, examples, tmp_path):
    r = cli("validate", *sorted(examples.glob("*.toml")))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(": ok") == len(list(examples.glob("*.toml")))


BAD = [
    # (edit applied to a minimal valid scenario, expected field path, expected words)
    ("links[0].bandwith = '1Mbps'", "links[0].bandwith", "allowed keys"),
    ("links[0].bandwidth = '80kg'", "links[0].bandwidth", "expected a positive bandwidth"),
    ("links[0].bandwidth = '0bps'", "links[0].bandwidth", "expected a positive bandwidth"),
    ("links[0].bandwidth = '-5Mbps'", "links[0].bandwidth", "expected a positive bandwidth"),
    ("flows[0].dst = 'nowhere'", "flows[0].dst", "no node named"),
    ("flows[0].dst = 'island'", "flows[0].dst", "no route"),
    # The first names only: a newly registered algorithm joins the list's end.
    ("flows[0].cc = 'cubic2'", "flows[0].cc", "expected one of: generic, jk, reno, newreno, sack, dec,"),
    ("flows[0].app = 'video'", "flows[0].app", "expected one of: ftp, telnet"),
    ("flows[0].max_window = 0", "flows[0].max_window", "expected an integer in [1"),
    ("flows[0].params = {rto_k = -1}", "flows[0].params.rto_k", "expected a number in [0, 100]"),
    ("flows[0].params = {nonsense = 1}", "flows[0].params.nonsense", "allowed keys"),
    ("measure.discard = 99", "measure.discard", "expected fewer than"),
    ("duration = 'forever'", "duration", "expected a positive duration"),
    ("links[0].delay = '1e-20s'", "links[0].delay", "is below the clock's resolution, 1 ps"),
    ("links[0].buffer = '0pkt'", "links[0].buffer", "expected a buffer"),
    ("links[0].queue = 'red2'", "links[0].queue", "expected one of: droptail, fq, fqbit, decbit, sq_router, red, blue, rio, rem, random_drop, seif_router, wtp, swtp, bpr"),
]

MINIMAL = {
    "name": "minimal",
    "duration": "10s",
    "measure": {"interval": "2s"},
    "nodes": {"hosts": ["a", "b", "island"], "switches": ["s"]},
    "links": [
        {"between": ["a", "s"], "bandwidth": "1Mbps"},
        {"between": ["s", "b"], "bandwidth": "1Mbps", "buffer": "10pkt"},
    ],
    "flows": [{"src": "a", "dst": "b", "app": "ftp", "cc": "jk"}],
}


def _apply(edit: str) -> dict:
    import copy
    import tomllib

    d = copy.deepcopy(MINIMAL)
    lhs, rhs = edit.split(" = ", 1)
    value = tomllib.loads(f"x = {rhs}")["x"]
    target = d
    parts = lhs.replace("]", "").replace("[", ".").split(".")
    for p in parts[:-1]:
        target = target[int(p)] if p.isdigit() else target[p]
    target[parts[-1]] = value
    return d


@pytest.mark.parametrize("edit,path,words", BAD)
def test_bad_input_exits_2_naming_the_field(cli, tmp_path, edit, path, words):
    from ccsim.builder import dumps_toml

    f = tmp_path / "bad.toml"
    f.write_text(dumps_toml(_apply(edit)))
    for cmd in ("run", "validate"):
        r = cli(cmd, f)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert path in r.stderr and words in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "panicked" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_bad_files_exit_2(cli, examples, tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text("name = 'x'\nduration = \n")
    r = cli("run", f)
    assert r.returncode == 2 and "not valid TOML" in r.stderr and "Traceback" not in r.stderr
    f.write_text("name = 'x'\nduration = '1s'\n\nname = 'y'\n")
    r = cli("run", f)
    assert r.returncode == 2 and "not valid TOML (line 4): duplicate key `name`" in r.stderr, r.stderr
    r = cli("run", tmp_path / "missing.toml")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = cli("run", tmp_path)
    assert r.returncode == 2 and "directory" in r.stderr
    r = cli("plot", tmp_path)
    assert r.returncode == 2 and "summary.json" in r.stderr
    # a bad scenario leaves no empty --out directory behind
    r = cli("run", f, "--out", tmp_path / "never")
    assert r.returncode == 2 and not (tmp_path / "never").exists()
    # ... while one that needs the command line's --duration still runs and writes
    nodur = tmp_path / "nodur.toml"
    text = (examples / "keshav-s1-jk-fcfs.toml").read_text()
    nodur.write_text("\n".join(l for l in text.splitlines() if not l.startswith("duration")))
    r = cli("run", nodur, "--duration", "1000s", "--out", tmp_path / "nd", "--no-plots")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "nd" / "summary.json").exists()
    # the missing file is named once, not twice
    missing = str(tmp_path / "missing.toml")
    assert cli("run", missing).stderr.count(missing) == 1


def test_unwritable_out_fails_before_running(cli, examples, tmp_path):
    """An --out that cannot be written is refused at once (exit 2, naming --out), before the
    runs whose results would then be lost."""
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    bad = blocker / "results"  # a directory under a regular file cannot exist
    for args in (("run", examples / "keshav-s1-jk-fcfs.toml", "--out", bad),
                 ("reproduce", "keshav91", "--quick", "--only", "S1", "--out", bad),
                 ("sweep", examples / "keshav-s1-jk-fcfs.toml", "--out", bad),
                 ("experiment", "keshav91-fq-buffers", "--out", bad / "costs.txt")):
        r = cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "--out" in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert "goodput" not in r.stdout and "Keshav 1991" not in r.stdout  # nothing ran
    assert blocker.read_text() == "keep me"


def test_bench_prints_one_json_line(cli):
    r = cli("bench", "dumbbell", "--flows", "4", "--duration", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1
    d = json.loads(lines[0])
    for key in ("wall_seconds", "events", "events_per_second", "bottleneck_pkts_per_wall_second",
                "sim_seconds_per_wall_second", "peak_rss_kb", "utilisation", "jain", "state_bytes_per_flow", "rss_growth_per_flow"):
        assert key in d
    assert d["flows"] == 4 and d["events"] > 1000 and 0.2 < d["utilisation"] <= 1.0
    r = cli("bench", "dumbbell", "--flows", "0")
    assert r.returncode == 2 and "--flows" in r.stderr


def test_bench_runs_cuis_dwdm_network(cli):
    # Cui ch. 3's network (issue 22's yardstick), small: K = 2 channels of 40 Gb/s, 1 Gb/s a
    # flow (80 flows), 1 s of start-up; the trunk is the port read.
    r = cli("bench", "cui", "--channels", "2", "--share", "1e9", "--duration", "1")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["scenario"] == "cui-k2" and d["flows"] == 80 and d["sim_seconds"] == pytest.approx(1.0)
    assert d["bottleneck_departures"] > 1000 and d["peak_packets"] > 100 and d["packet_bytes"] >= 32
    assert 2 < d["events_per_bottleneck_packet"] < 50 and 0 < d["utilisation"] <= 1
    text = cli("bench", "cui", "--channels", "2", "--share", "1e9", "--print-scenario").stdout
    assert 'channels = 2' in text and text.count("[[flows]]") == 80
    for args, field in ((("--channels", "0"), "--channels"), (("--buffer", "-1"), "--buffer"),
                        (("--share", "0"), "--share"), (("--duration", "-1"), "--duration"),
                        (("--threads", "3"), "--threads"),
                        # 16 million flows: refused before any text is generated, naming the need.
                        (("--channels", "4096"), "--channels")):
        r = cli("bench", "cui", *args)
        assert r.returncode == 2 and field in r.stderr, (args, r.stderr)
    assert "GB available" in r.stderr


def test_bench_runs_cuis_network_on_two_threads_with_the_same_results(cli):
    # The engine's [parallel]: hosts on one thread, routers, switch and sink on the other.
    args = ("bench", "cui", "--channels", "2", "--share", "1e9", "--duration", "1")
    one, two = (json.loads(cli(*args, "--threads", t).stdout) for t in ("1", "2"))
    assert two["scenario"] == "cui-k2-2threads"
    for key in ("bottleneck_departures", "bottleneck_drops", "timeouts", "events", "utilisation", "jain"):
        assert one[key] == two[key], key
    text = cli(*args, "--threads", "2", "--print-scenario").stdout
    assert "[parallel]" in text and '"sw"' in text.split("[parallel]")[1]


def test_plot_redraws(cli, examples, tmp_path):
    out = tmp_path / "o"
    assert cli("run", examples / "dumbbell.toml", "--out", out, "--duration", "20s", "-q", "--no-plots").returncode == 0
    assert not (out / "cwnd.png").exists()
    r = cli("plot", out)
    assert r.returncode == 0, r.stderr
    assert (out / "cwnd.png").exists() and (out / "queues.png").exists()


def test_fq_buffers_experiment_prints_tables_beside_the_thesis(cli, tmp_path):
    out = tmp_path / "fqbuf.txt"
    r = cli("experiment", "keshav91-fq-buffers", "--out", out)
    assert r.returncode == 0, r.stderr
    for word in ("LINK", "TREE", "HEAP", "PERC", "T3.1", "qualitative findings hold"):
        assert word in r.stdout
    assert out.read_text().startswith("Keshav 1991 ch. 3")


def test_sweep_runs_the_grid_and_resumes(cli, examples, tmp_path):
    out = tmp_path / "sw"
    args = ("sweep", examples / "keshav-s1-jk-fcfs.toml", "--set", "flows[0].max_window=2,5",
            "--seeds", "1..2", "--out", out)
    r = cli(*args, "--set", "duration=300s", "--set", "measure.interval=50s")
    assert r.returncode == 0, r.stderr
    t = pd.read_parquet(out / "sweep.parquet")
    assert len(list((out / "runs").glob("*.json"))) == 4
    assert t.attrs["scenario"] == tomllib.loads((examples / "keshav-s1-jk-fcfs.toml").read_text())["name"]
    ftp1 = t[t["name"] == "1 FTP"].groupby("param:flows[0].max_window")["goodput_pps"].mean()
    assert ftp1[2] < ftp1[5]  # a smaller window gets a smaller share of the FCFS line
    assert (out / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "and sweep.png" in r.stdout
    (out / "sweep.png").unlink()
    r = cli("plot", out)                   # a sweep's directory: its figure is redrawn
    assert r.returncode == 0 and (out / "sweep.png").exists() and "wrote sweep.png" in r.stdout, r.stderr
    before = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")}
    r = cli(*args, "--set", "duration=300s", "--set", "measure.interval=50s", "--no-plots")
    assert r.returncode == 0 and {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")} == before
    assert not (out / "sweep.png").exists()   # --no-plots leaves no figure of another sweep behind
    r = cli("sweep", examples / "keshav-s1-jk-fcfs.toml", "--set", "flows[0].cc=bbr", "--out", out)
    assert r.returncode == 2 and "flows[0].cc" in r.stderr and "Traceback" not in r.stderr


def test_sweep_table_keeps_the_order_the_values_were_given_in(cli, examples, tmp_path):
    # Grouped and sorted, 2 would come before 10 (and, as text, "40pkt" before "5pkt").
    r = cli("sweep", examples / "keshav-s1-jk-fcfs.toml", "--set", "flows[0].max_window=10,2", "--set",
            "duration=300s", "--set", "measure.interval=50s", "--out", tmp_path / "sw")
    assert r.returncode == 0, r.stderr
    rows = [line.split("│")[1].strip() for line in r.stdout.splitlines() if "1 FTP" in line]
    assert rows == ["10", "2"], r.stdout
    assert "goodput (pkt/s)" in r.stdout and "1 seed," in r.stdout and "2 runs, 8 flow rows" in r.stdout


def test_sweep_reruns_a_damaged_stored_run(cli, examples, tmp_path):
    out = tmp_path / "sw"
    args = ("sweep", examples / "keshav-s1-jk-fcfs.toml", "--set", "flows[0].max_window=3,5", "--set",
            "duration=200s", "--set", "measure.interval=50s", "--out", out)
    assert cli(*args).returncode == 0
    runs = sorted((out / "runs").glob("*.json"))
    runs[0].write_text(runs[0].read_text()[:100])  # truncated, as by a full disk
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert len(pd.read_parquet(out / "sweep.parquet")) == 8 and runs[0].read_text().endswith("}")


def test_sweep_reruns_a_changed_scenario(cli, examples, tmp_path):
    # Stored runs are known by the whole scenario: after the base file's bottleneck doubles,
    # the same command must simulate again, not return the old line's shares.
    base = tmp_path / "s.toml"
    text = (examples / "keshav-s1-jk-fcfs.toml").read_text()
    base.write_text(text)
    out = tmp_path / "sw"
    args = ("sweep", base, "--set", "flows[0].max_window=3", "--set", "duration=200s",
            "--set", "measure.interval=50s", "--out", out)
    assert cli(*args).returncode == 0
    slow = pd.read_parquet(out / "sweep.parquet")
    assert "80kbps" in text
    base.write_text(text.replace("80kbps", "160kbps"))
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    fast = pd.read_parquet(out / "sweep.parquet")
    assert len(fast) == len(slow)
    assert fast["goodput_pps"].sum() > 1.5 * slow["goodput_pps"].sum()
    assert "1 run," in r.stdout  # this sweep's run, not the earlier one also stored in runs/


def test_sweep_rows_carry_this_sweeps_parameters(cli, examples, tmp_path):
    # The second sweep's max_window=5 is the base file unchanged, as was the first sweep's
    # buffer=40pkt: the stored run is shared, but its rows must say max_window=5.
    out = tmp_path / "sw"
    short = ("--set", "duration=200s", "--set", "measure.interval=50s", "--out", out)
    f = examples / "keshav-s1-jk-fcfs.toml"
    assert "max_window = 5" in f.read_text() and '"40pkt"' in f.read_text()
    assert cli("sweep", f, "--set", "links[0].buffer=5pkt,40pkt", *short).returncode == 0
    r = cli("sweep", f, "--set", "flows[0].max_window=5,10", *short)
    assert r.returncode == 0, r.stderr
    t = pd.read_parquet(out / "sweep.parquet")
    assert "param:links[0].buffer" not in t.columns
    assert t["param:flows[0].max_window"].notna().all()
    assert sorted(t["param:flows[0].max_window"].unique()) == [5, 10]


@pytest.mark.parametrize("args, words", [
    (("--set", "seed=1,2"), ["--set seed", "--seeds"]),
    (("--set", "flows.max_window=3"), ["flows is a list", "flows[0].max_window"]),
    (("--set", "name.x=3"), ["name is a value"]),
    (("--set", "flows[0].max_window.x=3"), ["flows[0].max_window is a value"]),
    (("--set", "flows[9].max_window=3"), ["flows has", "no [9]"]),
    (("--seeds", "-1"), ["--seeds"]),
    (("--seeds", "1..99999999999999999999"), ["--seeds", "2^63"]),
    (("--seeds", "1..2000000"), ["--seeds", "at most 1000000"]),
    (("--jobs", "0"), ["--jobs"]),
    (("--set", "flows[0].max_window=3,-5"), ["flows[0].max_window", "-5"]),
])
def test_sweep_rejects_bad_options_naming_them(cli, examples, tmp_path, args, words):
    r = cli("sweep", examples / "keshav-s1-jk-fcfs.toml", *args, "--out", tmp_path / "sw")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "sw").exists()  # nothing made for a sweep that never started
    for w in words:
        assert w in r.stderr


def test_plot_failure_keeps_the_previous_figure(cli, examples, tmp_path, monkeypatch):
    import argparse

    from ccsim import cli as cli_mod, plots

    out = tmp_path / "o"
    assert cli("run", examples / "dumbbell.toml", "--out", out, "--duration", "20s", "-q").returncode == 0
    before = (out / "cwnd.png").read_bytes()

    def broken(frame, path, *, title=""):
        with open(path, "wb") as fh:
            fh.write(b"half a figure")
        raise RuntimeError("renderer failed")

    monkeypatch.setattr(plots, "plot_cwnd", broken)
    with pytest.raises(RuntimeError):
        cli_mod.cmd_plot(argparse.Namespace(dir=str(out)))
    assert (out / "cwnd.png").read_bytes() == before
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_report_paths_are_written_through_links_and_never_over_devices(cli, tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old")
    (tmp_path / "link.txt").symlink_to(target)
    r = cli("experiment", "keshav91-fq-buffers", "--out", tmp_path / "link.txt")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "link.txt").is_symlink() and target.read_text().startswith("Keshav 1991 ch. 3")
    for bad in ("/dev/null", tmp_path):
        r = cli("experiment", "keshav91-fq-buffers", "--out", bad)
        assert r.returncode == 2 and "--out" in r.stderr and "Traceback" not in r.stderr


def test_figures_in_an_output_directory_are_this_runs(cli, examples, tmp_path):
    # A figure the new run does not draw (here: every one, with --no-plots) is removed rather
    # than left beside another run's data; written files get the umask's mode, not 0600.
    import os

    out = tmp_path / "o"
    old = os.umask(0o022)
    try:
        assert cli("run", examples / "dumbbell.toml", "--out", out, "--duration", "20s", "-q").returncode == 0
    finally:
        os.umask(old)
    assert (out / "cwnd.png").exists() and (out / "queues.png").exists()
    assert (out / "summary.json").stat().st_mode & 0o777 == 0o644
    (out / "probes.png").write_bytes(b"another run's figure")
    assert cli("plot", out).returncode == 0
    assert not (out / "probes.png").exists()  # this run has no probes
    assert cli("run", examples / "dumbbell.toml", "--out", out, "--duration", "20s", "-q", "--no-plots").returncode == 0
    assert not list(out.glob("*.png"))


def test_optional_tables_in_an_output_directory_are_this_runs(cli, examples, tmp_path):
    # The DWDM example keeps per-port intervals; the dumbbell run after it into the same
    # directory must not leave them to be read back as its own.
    import ccsim

    out = tmp_path / "o"
    assert cli("run", examples / "dwdm-trunk.toml", "--out", out, "--duration", "20s", "-q", "--no-plots").returncode == 0
    assert (out / "port_intervals.parquet").exists()
    assert cli("run", examples / "dumbbell.toml", "--out", out, "--duration", "20s", "-q", "--no-plots").returncode == 0
    assert not (out / "port_intervals.parquet").exists()
    back = ccsim.Results.read(out)
    assert back.run["name"] == "dumbbell" and len(back.port_intervals) == 0


def test_a_scenario_without_links_or_flows_runs_and_writes_empty_tables(cli, tmp_path):
    f = tmp_path / "empty.toml"
    f.write_text('duration = "1s"\n[nodes]\nhosts = ["a"]\n')
    r = cli("run", f, "--out", tmp_path / "o", "-q")
    assert r.returncode == 0, r.stderr
    assert list(pd.read_parquet(tmp_path / "o" / "ports.parquet").columns)[0] == "name"


def test_a_byte_order_mark_is_read_alike_by_validate_and_run(cli, examples, tmp_path):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + (examples / "dumbbell.toml").read_bytes())
    assert cli("validate", f).returncode == 0
    r = cli("run", f, "--duration", "20s", "-q")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args", [("bench", "dumbbell", "--seed", "-5"),
                                  ("experiment", "keshav91-fq-buffers", "--seed", "99999999999999999999")])
def test_out_of_range_seeds_are_usage_errors(cli, args):
    r = cli(*args)
    assert r.returncode == 2 and "--seed" in r.stderr and "Traceback" not in r.stderr


def _reproduction_dir(path, thr, check_status):
    """A minimal `ccsim reproduce` output: two cells and two checks."""
    path.mkdir()
    pd.DataFrame([
        {"table": "6.2", "pair": "JK/FCFS", "source": 1, "phase": None, "metric": "throughput", "class": "D",
         "sim": thr, "thesis": 4.99, "status": "PASS" if abs(thr - 4.99) < 0.05 else "FAIL"},
        {"table": "6.6", "pair": "JK/FQ", "source": 2, "phase": "off", "metric": "delay", "class": "S",
         "sim": 1.0, "thesis": 1.0, "status": "PASS"},
    ]).to_parquet(path / "cells.parquet")
    pd.DataFrame([
        {"id": "S1-a1", "severity": "hard", "status": check_status, "detail": f"detail {check_status}"},
        {"id": "S1-a2", "severity": "soft", "status": "pass", "detail": "same"},
    ]).to_parquet(path / "qchecks.parquet")
    return path


def test_compare_lists_what_changed_between_two_reproductions(cli, tmp_path):
    base = _reproduction_dir(tmp_path / "base", 4.99, "pass")
    other = _reproduction_dir(tmp_path / "other", 4.50, "fail")
    r = cli("compare", base, other)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "1 cell changed status" in out and "PASS -> FAIL" in out and "4.5 " in out
    assert "1 qualitative check changed status" in out and "S1-a1" in out and "pass -> fail" in out
    assert "S1-a2" not in out and "JK/FQ" not in out  # unchanged rows are not listed
    from ccsim.experiments.kit.compare import compare
    c = compare(base, other)
    assert c.scores.loc["D cells"].tolist() == [1, 0, -1] and c.scores.loc["hard checks"].tolist() == [1, 0, -1]
    assert cli("compare", base, base).stdout.count("no cell or check changed status") == 1
    # a run of fewer scenarios (--only): what it did not judge is "absent", not an error
    subset = tmp_path / "subset"
    subset.mkdir()
    pd.read_parquet(base / "cells.parquet").iloc[:1].to_parquet(subset / "cells.parquet")
    pd.read_parquet(base / "qchecks.parquet").iloc[:1].to_parquet(subset / "qchecks.parquet")
    c = compare(subset, base)
    assert c.cells["status_base"].tolist() == ["absent"] and c.cells["class"].tolist() == ["S"]
    assert c.checks["status_base"].tolist() == ["absent"] and c.checks["severity"].tolist() == ["soft"]
    # not a reproduction's output: exit 2, naming the directory and what was expected
    r = cli("compare", base, tmp_path)
    assert r.returncode == 2 and "no cells.parquet" in r.stderr and "Traceback" not in r.stderr
    r = cli("compare", base, tmp_path / "missing")
    assert r.returncode == 2 and "not a directory" in r.stderr


def test_compare_orders_tables_as_the_thesis_does_and_warns_of_unlike_seeds(tmp_path):
    from pathlib import Path

    from ccsim.experiments.kit.compare import _seed_note, _table_order

    assert sorted(["4.10", "4.2", "6.2-text", "6.2", "5.1"], key=_table_order) == ["4.2", "4.10", "5.1", "6.2", "6.2-text"]
    one, twenty = pd.DataFrame({"seeds": [1, 1, 0]}), pd.DataFrame({"seeds": [20, 20]})
    assert "used 1 seed a cell" in _seed_note(one, twenty, Path("q"), Path("f"))
    assert _seed_note(twenty, twenty, Path("a"), Path("b")) == ""


def test_compare_of_runs_over_different_scenarios_uses_the_common_ones(tmp_path):
    from ccsim.experiments.kit.compare import compare

    def run_dir(name, scenarios):
        d = tmp_path / name
        d.mkdir()
        pd.DataFrame([{"table": f"6.{n}", "scenario": n, "pair": "JK/FQ", "source": 1, "phase": None,
                       "metric": "throughput", "class": "D", "sim": 1.0, "thesis": 1.0, "status": "PASS"}
                      for n in scenarios]).to_parquet(d / "cells.parquet")
        pd.DataFrame([{"id": f"S{n}-a1", "scenario": n, "severity": "hard", "status": "pass"}
                      for n in scenarios]).to_parquet(d / "qchecks.parquet")
        return d

    full, only2 = run_dir("full", [1, 2]), run_dir("only2", [2])
    c = compare(full, only2)
    assert "compared on S2 only" in c.note
    assert c.cells.empty and c.checks.empty  # S1, which one run left out, is not a change
    assert c.scores.loc["D cells"].tolist() == [1, 1, 0]
    with pytest.raises(ValueError, match="share no scenario"):
        compare(run_dir("only1", [1]), only2)


def test_compare_reads_reproductions_written_before_scenario_ids_were_strings(tmp_path):
    # An old cells.parquet has integer scenarios and no kind/item/x columns; a new one "S1"
    # and those columns: the same cells, so nothing changed.
    from ccsim.experiments.kit.compare import compare

    cell = {"table": "6.2", "pair": "JK/FQ", "source": 1, "phase": "", "metric": "throughput", "class": "D",
            "sim": 1.0, "thesis": 1.0, "status": "PASS"}
    old, new = tmp_path / "old", tmp_path / "new"
    for d, extra, sid in ((old, {}, 1), (new, {"kind": "flow", "item": "", "x": float("nan")}, "S1")):
        d.mkdir()
        pd.DataFrame([{**cell, **extra, "scenario": sid}]).to_parquet(d / "cells.parquet")
        pd.DataFrame([{"id": "S1-a1", "scenario": sid, "severity": "hard", "status": "pass"}]).to_parquet(
            d / "qchecks.parquet")
    c = compare(old, new)
    assert c.note == "" and c.cells.empty and c.checks.empty
    assert c.scores.loc["D cells"].tolist() == [1, 1, 0]


def test_bench_runs_shorter_than_the_start_spread_and_reports_setup(cli):
    # Flows start over the first second, or the first half of a shorter run.
    r = cli("bench", "dumbbell", "--flows", "20", "--duration", "0.5")
    assert r.returncode == 0, r.stderr
    import json
    out = json.loads(r.stdout)
    assert out["flows"] == 20 and out["parse_seconds"] >= 0 and out["build_seconds"] >= 0
    assert out["bottleneck_departures"] > 0


def test_shipped_scenario_paths_work_from_any_directory(cli, tmp_path):
    # The README's and the files' own commands say scenarios/examples/...: from a directory
    # without that path, the package's copy is run; a file of that name here comes first.
    r = cli("validate", "scenarios/examples/rio-assured.toml", "examples/dumbbell.toml", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.count(": ok") == 2, (r.stdout, r.stderr)
    r = cli("validate", "scenarios/examples/no-such.toml", cwd=tmp_path)
    assert r.returncode == 2 and "no such file" in r.stderr
    local = tmp_path / "scenarios" / "examples"
    local.mkdir(parents=True)
    (local / "dumbbell.toml").write_text("name = \"mine\"\n")
    r = cli("validate", "scenarios/examples/dumbbell.toml", cwd=tmp_path)
    assert r.returncode == 2 and "duration" in r.stderr, r.stderr


def test_run_set_changes_one_field_and_bad_sets_exit_2(cli, examples, tmp_path):
    """`ccsim run --set PATH=VALUE` runs the file with fields changed (here Nagle's rule off for
    the example's first typist, whose packets then match its keystrokes); a path that does not
    exist, several values or a value the scenario refuses exit 2 naming it."""
    ex = examples / "nagle-source-quench.toml"
    out = tmp_path / "off"
    r = cli("run", ex, "--set", "flows[0].nagle=false", "--set", "duration=\"60s\"", "--out", out, "--no-plots", "-q")
    assert r.returncode == 0, r.stderr
    f = pd.read_parquet(out / "flows.parquet").set_index("name")
    assert f.loc["nagle", "nagle_writes"] == 0 and f.loc["nagle", "sent"] > 500   # ten keystrokes a second
    run = json.loads((out / "summary.json").read_text())["run"]
    assert run["duration_s"] == 60 and run["set"] == ["flows[0].nagle=false", 'duration="60s"']
    for bad, words in [("flows[9].nagle=false", "has 3 elements"), ("flows[0].max_window=4,8", "one value"),
                       ("flows[0].nagle=3", "flows[0].nagle"), ("seed=3", "--seed"), ("nagle", "PATH=VALUE")]:
        r = cli("run", ex, "--set", bad, "-q")
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, (bad, r.stderr)
    assert "as changed by --set flows[0].nagle=3" in cli("run", ex, "--set", "flows[0].nagle=3").stderr


@pytest.mark.parametrize("args", [["list", "--markdown"], ["reproduce", "--list"], ["list"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(args):
    # `ccsim list --markdown | head -1`: the pipe closes before ccsim writes (it is still
    # starting), which used to print "error: [Errno 32] Broken pipe" with status 2.
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "ccsim"
    p = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait() == 1
    assert err == ""


@pytest.mark.parametrize("args, words", [
    (["run", "{dumbbell}", "--duration", "-5s", "--out", "{tmp}/o"], "duration: expected a positive duration"),
    (["reproduce", "keshav91", "--jitter", "-1ms", "--only", "S1"], "--jitter: expected a positive duration"),
    (["sweep", "{dumbbell}", "--seeds", "-1", "--out", "{tmp}/s"], "--seeds: expected an integer"),
])
def test_a_negative_option_value_gets_the_values_own_message(cli, examples, tmp_path, args, words):
    # argparse alone takes "-5s" for an option and says "expected one argument".
    args = [a.format(dumbbell=examples / "dumbbell.toml", tmp=tmp_path) for a in args]
    r = cli(*args)
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert "expected one argument" not in r.stderr


@pytest.mark.parametrize("given", ["scenarios/examples", "keshav91", "scenarios"])
def test_a_shipped_folder_given_as_a_scenario_says_it_is_one(cli, tmp_path, given):
    r = cli("run", given, "--out", tmp_path / "o", cwd=tmp_path)
    assert r.returncode == 2 and f"{given}: is a directory" in r.stderr, r.stderr


def test_another_experiment_refuses_every_cui_direct_option(cli):
    # OPTIONS must list every option add_options adds, or one would be ignored silently.
    import argparse

    from ccsim.experiments.cui_buffers.direct import OPTIONS, add_options

    p = argparse.ArgumentParser()
    add_options(p)
    assert {a.dest for a in p._actions if a.dest != "help"} == set(OPTIONS)
    r = cli("experiment", "keshav91-fq-buffers", "--cases", "x", "--threads", "2")
    assert r.returncode == 2 and "--cases --threads: options of cui-direct only" in r.stderr


def test_compare_of_a_subset_whose_key_column_is_all_empty(tmp_path):
    # A run of some scenarios (--only) can leave a key column (here source) all NaN, a float
    # column, where the full run's holds labels: the two are still compared on the cells both
    # have.
    from ccsim.experiments.kit.compare import compare

    def run_dir(name, rows):
        d = tmp_path / name
        d.mkdir()
        pd.DataFrame([{"table": t, "scenario": s, "pair": "", "source": src, "phase": None, "metric": "throughput",
                       "class": "D", "sim": v, "thesis": 1.0, "status": st} for t, s, src, v, st in rows]
                     ).to_parquet(d / "cells.parquet")
        pd.DataFrame([{"id": "a", "scenario": "E1", "severity": "hard", "status": "pass"}]).to_parquet(d / "qchecks.parquet")
        return d

    full = run_dir("full", [("V1", "E1", None, 1.0, "PASS"), ("V2", "E2", "flow 4", 1.0, "PASS")])
    only1 = run_dir("only1", [("V1", "E1", float("nan"), 2.0, "FAIL")])
    assert pd.read_parquet(only1 / "cells.parquet")["source"].dtype != pd.read_parquet(full / "cells.parquet")["source"].dtype
    c = compare(full, only1)
    assert c.cells[["table", "status_base", "status_other"]].values.tolist() == [["V1", "PASS", "FAIL"]]
