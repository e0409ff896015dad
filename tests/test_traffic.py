"""Pareto on/off sources and packet-size mixes from the Python builder, TOML and the CLI."""

import pytest

import ccsim
from ccsim.builder import dumps_toml

# Hua 2002 ch. 5: 40% 100 B, 40% 500 B, 20% 1000 B (mean 440 B).
HUA_SIZES = [{"size": "100B", "share": 0.4}, {"size": "500B", "share": 0.4}, {"size": "1000B", "share": 0.2}]


def pareto_scenario(seed=1, duration="200s", **flow_fields):
    """Two Pareto sources of Hua's sizes into a 10 Mb/s line, departures traced there."""
    sc = ccsim.Scenario("pareto", duration=duration, seed=seed)
    sc.hosts("a", "b", "d").switches("r")
    sc.link("a", "r", bandwidth="100Mbps", delay="1ms").link("b", "r", bandwidth="100Mbps", delay="1ms")
    sc.link("r", "d", bandwidth="10Mbps", delay="5ms", buffer="unlimited")
    fields = dict(app="pareto", bitrate="3.5Mbps", shape=1.9, burst=20, mean_off="20.114286ms", stop="190s",
                  packet_sizes=HUA_SIZES)
    fields.update(flow_fields)
    sc.flow("a", "d", name="pa", **fields)
    sc.flow("b", "d", name="pb", **fields)
    sc.measure(interval="20s", trace_cwnd=False, trace_departures=["r->d"])
    return sc


def test_builder_passes_pareto_fields_and_size_mixes_through():
    sc = pareto_scenario()
    flow = sc.to_dict()["flows"][0]
    assert flow["app"] == "pareto" and flow["packet_sizes"] == HUA_SIZES and flow["burst"] == 20
    r = sc.run()
    assert r.run["conserved"]
    f = r.flows.set_index("name")
    assert list(f["app"]) == ["pareto", "pareto"] and list(f["packet_size"]) == [440, 440]
    # Everything sent was delivered (an unlimited buffer, stopped 10 s before the end), and the
    # bytes that left the last queue are the bytes delivered, flow by flow.
    assert (f["delivered"] == f["sent"]).all()
    dep = r.departures[r.departures["kind"] == "data"]
    by_flow = dep.groupby("flow")["size"].sum()
    assert list(by_flow) == list(f["delivered_bytes"])
    shares = dep["size"].value_counts(normalize=True)
    n = len(dep)
    for size, share in ((100, 0.4), (500, 0.4), (1000, 0.2)):
        assert abs(shares[size] - share) < 5 * (share * (1 - share) / n) ** 0.5, shares
    # Offered rate: peak x on-fraction (0.5), 190 s, to 10% per flow.
    expected = 3.5e6 / (8 * 440) * 0.5 * 190
    for sent in f["sent"]:
        assert abs(sent / expected - 1) < 0.10, (sent, expected)


def test_toml_and_builder_give_the_same_results_and_seeds_differ():
    sc = pareto_scenario(duration="60s", stop="50s")
    a = sc.run()
    b = ccsim.run(dumps_toml(sc.to_dict()))
    assert a.intervals.equals(b.intervals) and a.departures.equals(b.departures)
    c = pareto_scenario(seed=2, duration="60s", stop="50s").run()
    assert not a.intervals.equals(c.intervals)


@pytest.mark.parametrize("fields,path,words", [
    ({"shape": 1.0}, "flows[0].shape", "above 1"),
    ({"burst": 0.2}, "flows[0].burst", "1 to 1e12 packets"),
    ({"mean_on": "1s"}, "flows[0].burst", "not both"),
    ({"mean_off": "soon"}, "flows[0].mean_off", "expected a non-negative duration"),
    ({"bitrate": None, "rate": None}, "flows[0].rate", 'is required for app "pareto"'),
    ({"packet_sizes": HUA_SIZES[:2]}, "flows[0].packet_sizes", "summing to 1"),
    ({"packet_size": "500B"}, "flows[0].packet_sizes", "not both"),
    ({"packet_sizes": [{"size": "100B", "share": 0.0}, {"size": "500B", "share": 1.0}]},
     "flows[0].packet_sizes[0].share", "(0, 1]"),
    ({"packet_sizes": [{"size": "big", "share": 1.0}]}, "flows[0].packet_sizes[0].size", "expected a positive size"),
])
def test_bad_values_name_their_field_from_python_and_the_cli(cli, tmp_path, fields, path, words):
    sc = pareto_scenario()
    d = sc.to_dict()
    for k, v in fields.items():
        if v is None:
            d["flows"][0].pop(k, None)
        else:
            d["flows"][0][k] = v
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert e.value.path == path and words in str(e.value), str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text(dumps_toml(d))
    r = cli("validate", f)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert path in r.stderr and words in r.stderr and "Traceback" not in r.stderr


def test_the_registry_lists_pareto():
    from ccsim import registry
    assert "pareto" in registry.applications()


def test_departures_from_keeps_the_trace_to_the_end_of_the_run():
    # [measure] departures_from: only departures from that instant on are recorded, the same
    # ones as in the full trace, and an instant past the run is refused, naming the field.
    full = pareto_scenario()
    late = pareto_scenario()
    late.measure(interval="20s", trace_cwnd=False, trace_departures=["r->d"], departures_from="150s")
    a, b = full.run().departures, late.run().departures
    tail = a[a["time_s"] >= 150].reset_index(drop=True)
    assert 0 < len(b) == len(tail) < len(a)
    assert (b["time_s"].to_numpy() == tail["time_s"].to_numpy()).all()
    bad = pareto_scenario()
    bad.measure(interval="20s", trace_departures=["r->d"], departures_from="300s")
    with pytest.raises(ccsim.ScenarioError, match="measure.departures_from"):
        bad.run()


def test_source_buffer_discards_reach_the_flows_table():
    """A Poisson source under a window of 2 offering four times its line: with
    ``source_buffer = 0`` what the window cannot take is discarded and counted, without a
    limit nothing is."""
    def run(**extra):
        sc = ccsim.Scenario("source-buffer", duration="20s", seed=3)
        sc.hosts("a", "d").switches("r")
        sc.link("a", "r", bandwidth="1Mbps").link("r", "d", bandwidth="80kbps", delay="10ms", buffer="40pkt")
        sc.flow("a", "d", name="t", app="poisson", cc="jk", max_window=2, rate="40pps", packet_size="1000B", **extra)
        return sc.run().flows.set_index("name").loc["t"]

    held, dropped = run(), run(source_buffer=0)
    assert held["source_discards"] == 0
    assert dropped["source_discards"] > 400      # about 800 made in 20 s, the line carries 10/s
    assert abs(dropped["goodput_pps"] - held["goodput_pps"]) < 2


def test_nagle_example_coalesces_keystrokes_and_every_byte_is_accounted(examples):
    """The example of Nagle's scheme (small-packet rule and Source Quench): the typist under the
    rule sends several keystrokes a packet, the plain one a packet each, and the rule's user
    data delivered plus held is what was written (41-byte writes: 40 of header, 1 of data)."""
    f = ccsim.run(examples / "nagle-source-quench.toml").flows.set_index("name")
    nagle, plain = f.loc["nagle"], f.loc["plain"]
    assert plain["nagle_writes"] == 0 and nagle["nagle_writes"] > 1000   # ten a second for 120 s
    assert nagle["sent"] * 3 < nagle["nagle_writes"]                     # measured: 217 for 1164
    assert plain["sent"] > 0.9 * nagle["nagle_writes"]                   # measured: 1181
    in_flight = nagle["nagle_writes"] - (nagle["delivered_bytes"] - 40 * nagle["delivered"]) - nagle["nagle_held_bytes"]
    assert 0 <= in_flight <= 8 * 536, in_flight                          # at most a window of data unacknowledged
    assert f["conserved"].all()
