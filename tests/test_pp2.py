"""cc = "pp2": chapter 4's packet-pair 2P (Keshav 1991 §4.4; crates/ccsim/src/transport/cc/pp2.rs)
from a scenario: its parameters, its traces, and its phases seen from outside the engine.
Table 4.1's transients are checked in test_models_keshav91.py."""

import pytest

import ccsim


def path(params=None, duration="30s", max_window=40, buffer="40pkt"):
    """One 2P flow alone on 800 kb/s -> FQ switch -> 80 kb/s, 200 ms (s_b = 0.1 s, R = 0.5144 s)."""
    sc = ccsim.Scenario("pp2", duration=duration, seed=1)
    sc.hosts("src", "sink").switches("sw")
    sc.link("src", "sw", bandwidth="800kbps")
    sc.link("sw", "sink", bandwidth="80kbps", delay="0.2s", buffer=buffer, count_in_service=False, queue="fq")
    sc.flow("src", "sink", app="ftp", cc="pp2", max_window=max_window, packet_size="1000B", name="f",
            params=params or {})
    sc.measure(interval="1s", trace_period="10ms", trace_cwnd=["f"], trace_queues=["sw->sink"])
    return sc


@pytest.mark.parametrize("params, path_, words", [
    ({"n_b": -1}, "flows[0].params.n_b", ["[0, 1000000]"]),
    ({"n_b": 2.5}, "flows[0].params.n_b", ["[0, 1000000]"]),
    ({"n_b_fraction": -0.5}, "flows[0].params.n_b_fraction", ["[0, 100]"]),
    ({"carry": "none"}, "flows[0].params.carry", ["burst, all"]),
    ({"r_estimate": "min"}, "flows[0].params.r_estimate", ["pair, first"]),
    ({"estimator": "median"}, "flows[0].params.estimator", ["fuzzy, kalman, raw"]),
    ({"timeout_x": 0}, "flows[0].params.timeout_x", ["[0.1, 100]"]),
    ({"setpoint": 5}, "flows[0].params.setpoint", ["unknown key"]),   # PP_CTH's, not 2P's
])
def test_bad_parameters_name_their_field(params, path_, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        path(params).run()
    assert e.value.path == path_
    for w in words:
        assert w in str(e.value)


def test_every_parameter_is_accepted():
    r = path({"n_b": 3, "n_b_fraction": 0.5, "estimator": "kalman", "smooth": "gap", "r_estimate": "first",
              "carry": "all", "fill_window": True, "timeout_x": 4, "kalman_system_var": 1.0,
              "kalman_obs_var": 4.0, "initial_rto": "3s"}, duration="5s").run()
    assert r.flow("f")["cc"] == "pp2" and r.flow("f")["delivered"] > 0


def test_phases_from_outside():
    """Start-up (one pair), queue priming (n_b back to back at the end of the first RTT),
    then a pair every 2·s_b: the flow delivers exactly μ = 10 pkt/s with n_b + 1/2 packets
    queued on average (a pair lands every 0.2 s and drains in it), and loses nothing."""
    r = path({"n_b": 4}).run()
    f = r.flow("f")
    assert f["data_dropped"] == 0 and f["timeouts"] == 0 and f["conserved"]
    g = r.intervals[r.intervals.flow_name == "f"].set_index("start_s").delivered
    assert (g.loc[2.0:] == 10).all()
    q = r.queues
    assert q[q.time_s >= 5].packets.mean() == pytest.approx(4.5, abs=0.1)
    # Every probe measures s_b; μ̂ = λ = 10 pkt/s once running.
    p = r.probes
    assert len(p) > 60
    assert ((p.probe_gap_s - 0.1).abs() < 1e-9).all()
    assert ((p.rate_est_pps - 10).abs() < 1e-6).all() and ((p.send_rate_pps - 10).abs() < 1e-6).all()
    assert p.alpha.isna().all()                      # the raw estimator has no fuzzy α
    # The start-up pair's ACKs return at R and R + s_b: the first probe at 0.6144 s.
    assert p.time_s.iloc[0] == pytest.approx(0.5144 + 0.1, abs=1e-6)


def test_n_b_zero_keeps_no_queue():
    """n_b = 0 (Proposition 1's case ΔV = 0): no priming, only the pair lattice queues."""
    r = path({"n_b": 0}).run()
    q = r.queues
    assert q[q.time_s >= 5].packets.max() <= 1
    g = r.intervals[r.intervals.flow_name == "f"].set_index("start_s").delivered
    assert (g.loc[2.0:] == 10).all()


def test_deterministic():
    a, b = path().run(), path().run()
    assert a.intervals.equals(b.intervals) and a.probes.equals(b.probes)
