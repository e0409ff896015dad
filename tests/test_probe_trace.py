"""Packet-pair estimator state in the traces: Results.cwnd's estimator columns (NaN for window
protocols), Results.probes (every probe), and their Parquet / PNG output."""

import math

import ccsim
from ccsim.results import Results


def two_paths(duration="10s"):
    """A packet-pair flow and a JK flow on two disjoint 1 Mb/s paths (125 pkt/s of 1000 B)."""
    sc = ccsim.Scenario("probes", duration=duration, seed=1)
    sc.hosts("a", "b", "c", "d").switches("s1", "s2")
    sc.link("a", "s1", bandwidth="10Mbps", delay="1ms", buffer="200pkt")
    sc.link("c", "s2", bandwidth="10Mbps", delay="1ms", buffer="200pkt")
    sc.link("s1", "b", bandwidth="1Mbps", delay="20ms", buffer="200pkt")
    sc.link("s2", "d", bandwidth="1Mbps", delay="20ms", buffer="200pkt")
    sc.flow("a", "b", app="ftp", cc="pp", max_window=40, name="pp", packet_size="1000B")
    sc.flow("c", "d", app="ftp", cc="jk", max_window=40, name="jk", packet_size="1000B")
    sc.measure(interval="1s", trace_period="50ms")
    return sc


ESTIMATOR = ["probe_gap_s", "rate_est_pps", "send_rate_pps", "alpha"]


def test_cwnd_trace_has_the_estimator_columns_and_probes_every_probe(tmp_path):
    r = two_paths().run()
    assert set(["srtt_s"] + ESTIMATOR) <= set(r.cwnd.columns)
    pp = r.cwnd[(r.cwnd.flow_name == "pp") & (r.cwnd.time_s >= 2)]
    jk = r.cwnd[r.cwnd.flow_name == "jk"]
    assert len(pp) > 100 and len(jk) > 100
    assert pp[ESTIMATOR].notna().all().all()
    assert ((pp.rate_est_pps - 125).abs() < 2.5).all()
    assert ((pp.probe_gap_s - 0.008).abs() < 1e-4).all()
    assert pp.alpha.between(0, 1).all()
    assert jk[ESTIMATOR].isna().all().all()
    assert jk[jk.time_s >= 1].srtt_s.notna().all()

    p = r.probes
    assert list(p.columns) == ["flow", "flow_name", "time_s", "probe"] + ESTIMATOR
    assert set(p.flow_name) == {"pp"} and len(p) > 500
    assert list(p.probe) == list(range(1, len(p) + 1))
    assert math.isclose(p.rate_est_pps.iloc[-1], 125, rel_tol=0.02)

    files = {f.name for f in r.write(tmp_path)}
    assert {"probes.parquet", "probes.png", "cwnd.parquet"} <= files
    back = Results.read(tmp_path)
    assert back.probes.equals(p)
    assert set(ESTIMATOR) <= set(back.cwnd.columns)


def test_window_only_runs_have_no_probes(tmp_path):
    sc = two_paths("3s")
    sc._data["flows"] = [f for f in sc._data["flows"] if f["name"] == "jk"]
    r = sc.run()
    assert len(r.probes) == 0 and "rate_est_pps" in r.probes.columns
    # The window trace has only the columns of the algorithms it traced.
    assert "rate_est_pps" not in r.cwnd.columns and "srtt_s" in r.cwnd.columns
    names = {f.name for f in r.write(tmp_path)}
    assert "probes.parquet" in names and "probes.png" not in names
    assert len(Results.read(tmp_path).probes) == 0
