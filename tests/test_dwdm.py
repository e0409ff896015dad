"""Links of several channels (Cui 2009 ch. 3's DWDM output trunk) from TOML, the Python builder
and the CLI: the example file end to end, the port tables, and bad values."""

import pandas as pd
import pytest

import ccsim
from ccsim.builder import dumps_toml


def poisson_trunk(**trunk):
    """Eight Poisson sources (1040 B packets, 500 pkt/s each) into a switch whose output to
    the sink is a 10 Mb/s link with the given trunk settings."""
    sc = ccsim.Scenario("trunk", duration="12s", seed=4)
    hosts = [f"s{i}" for i in range(8)]
    sc.hosts(*hosts, "sink").switches("sw")
    for h in hosts:
        sc.link(h, "sw", bandwidth="1Gbps", delay="1ms")
    sc.link("sw", "sink", bandwidth="10Mbps", delay="5ms", **trunk)
    for h in hosts:
        sc.flow(h, "sink", app="poisson", rate="500pps", packet_size="1040B")
    sc.measure(interval="2s", trace_cwnd=False, trace_queues=["sw->sink"], port_stats=["sw->sink"],
               trace_departures=["sw->sink"])
    return sc


def test_the_example_trunk_runs_from_the_cli(cli, examples, tmp_path):
    out = tmp_path / "out"
    r = cli("run", examples / "dwdm-trunk.toml", "--out", out, "--duration", "20s")
    assert r.returncode == 0, r.stderr
    ports = pd.read_parquet(out / "ports.parquet").set_index("name")
    trunk = ports.loc["core->sink"]
    assert trunk["channels"] == 4 and trunk["bandwidth_bps"] == 20e6
    assert 0 < trunk["utilisation"] <= 1 and trunk["drops"] > 0
    assert (ports.drop(index=["core->sink", "sink->core"])["channels"] == 1).all()
    pi = pd.read_parquet(out / "port_intervals.parquet")
    assert ((pi["utilisation"] > 0) & (pi["utilisation"] <= 1)).all()
    q = pd.read_parquet(out / "queues.parquet")
    assert q["packets"].max() <= 4  # B = 4 waiting places


def test_builder_and_toml_agree_and_the_tables_count_the_whole_trunk():
    sc = poisson_trunk(channels=4, buffer="3pkt")
    link = sc.to_dict()["links"][-1]
    assert link["channels"] == 4 and "channel_buffers" not in link
    a = sc.run()
    b = ccsim.run(dumps_toml(sc.to_dict()))
    assert a.ports.equals(b.ports) and a.departures.equals(b.departures)
    p = a.ports.set_index("name").loc["sw->sink"]
    assert p["channels"] == 4
    # Utilisation: busy channel-time over 4 x 12 s (load 4000 / 4808 pkt/s, less the losses).
    carried = p["bytes_departed"] * 8 / (4 * 10e6 * 12)
    assert abs(p["utilisation"] - carried) < 0.003 and 0.75 < p["utilisation"] < 0.85
    dep = a.departures
    assert len(dep) == p["departures"] and (dep["wait_s"] <= 3 * 8320 / 10e6 + 1e-9).all()
    # The same trunk counting the packets on its channels too: K + B = 7 held.
    held = poisson_trunk(channels=4, buffer="7pkt", count_in_service=True).run()
    assert held.ports.equals(a.ports)
    # A one-packet buffer per channel: with one packet size the same as 4 shared places.
    private = poisson_trunk(channels=4, buffer="1pkt", channel_buffers="private").run()
    shared = poisson_trunk(channels=4, buffer="4pkt").run()
    assert private.ports.equals(shared.ports)


@pytest.mark.parametrize("fields,path,words", [
    ({"channels": 0}, "links[8].channels", "an integer in [1, 4096]"),
    ({"channels": 5000}, "links[8].channels", "an integer in [1, 4096]"),
    ({"channels": 2, "queue": "red"}, "links[8].queue", '"droptail"'),
    ({"buffer": "0pkt"}, "links[8].buffer", "at least 1pkt"),
    ({"channels": 4, "buffer": "2pkt", "count_in_service": True}, "links[8].buffer", "at least 4pkt"),
    ({"channels": 2, "buffer": "5000B", "channel_buffers": "private"}, "links[8].buffer", "in packets"),
    ({"channels": 2, "channel_buffers": "pooled"}, "links[8].channel_buffers", "shared, private"),
])
def test_bad_trunk_values_name_their_field(cli, tmp_path, fields, path, words):
    d = poisson_trunk(**fields).to_dict()
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert e.value.path == path and words in str(e.value), str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text(dumps_toml(d))
    r = cli("validate", f)
    assert r.returncode == 2 and path in r.stderr and "Traceback" not in r.stderr, r.stderr
