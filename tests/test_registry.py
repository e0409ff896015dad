"""The registry: every algorithm and discipline is reachable from TOML, from the Python builder
and from `validate`'s messages, with the defaults its listing states."""

import re
import tomllib
from pathlib import Path

import pytest

import ccsim
from ccsim import registry

ROOT = Path(__file__).resolve().parent.parent


def dumbbell(cc="newreno", queue=None, params=None, queue_params=None, duration="2s"):
    sc = ccsim.Scenario("registry", duration=duration, seed=3)
    sc.hosts("a", "b", "sink").switches("sw")
    sc.link("a", "sw", bandwidth="10Mbps", delay="1ms").link("b", "sw", bandwidth="10Mbps", delay="1ms")
    sc.link("sw", "sink", bandwidth="1Mbps", delay="10ms", buffer="20pkt", queue=queue, queue_params=queue_params)
    sc.flow("a", "sink", cc=cc, name="one", params=params, max_window=30)
    sc.flow("b", "sink", cc=cc, name="two", params=params, max_window=30, start="0.3s")
    sc.measure(interval="0.5s")
    return sc


def explicit_defaults(c: registry.Component) -> dict:
    """Every listed parameter set to its listed default, where the default is a value a
    scenario can write (not "unset" or "unlimited")."""
    out = {}
    for p in c.params:
        if p.default.startswith("unset") or p.default == "unlimited":
            continue
        out[p.name] = tomllib.loads(f"v = {p.default}")["v"] if p.expects != "a duration" else p.default
    return out


def test_the_registry_lists_what_the_engine_has():
    names = [a.name for a in ccsim.algorithms()]
    assert names[:8] == ["generic", "jk", "reno", "newreno", "sack", "dec", "pp", "pp2"]
    assert len(set(names)) == len(names)
    qnames = [d.name for d in ccsim.disciplines()]
    assert qnames[:4] == ["droptail", "fq", "fqbit", "decbit"]
    assert ccsim.algorithm("jk").param("ssthresh_from").default == '"cwnd"'
    assert ccsim.algorithm("pp").trace_columns == ("probe_gap_s", "rate_est_pps", "send_rate_pps", "alpha")
    assert ccsim.algorithm("pp").event_log == "probes"
    with pytest.raises(KeyError, match="expected one of: generic, jk"):
        ccsim.algorithm("bbr")
    # A scenario's unknown cc or queue is answered with every registered name.
    for field, names in (("cc", [a.name for a in ccsim.algorithms()] + ["none"]),
                         ("queue", [d.name for d in ccsim.disciplines()])):
        bad = dumbbell(cc="jk").to_dict()
        (bad["flows"][0] if field == "cc" else bad["links"][0])[field] = "bbr2"
        with pytest.raises(ccsim.ScenarioError, match="expected one of: " + re.escape(", ".join(names)) + "$"):
            ccsim.validate(bad)


@pytest.mark.parametrize("name", [a.name for a in registry.algorithms()])
def test_every_algorithm_runs_from_the_builder_and_toml_with_its_listed_defaults(name, tmp_path):
    plain = dumbbell(cc=name)
    res = plain.run()
    assert set(res.flows["cc"]) == {name} and res.run["conserved"]
    # The same scenario as a file.
    path = tmp_path / "s.toml"
    plain.save(path)
    assert ccsim.validate(str(path))["flows"] == 2
    # Every parameter set explicitly to its listed default changes nothing.
    explicit = dumbbell(cc=name, params=explicit_defaults(ccsim.algorithm(name))).run()
    cols = ["goodput_pps", "delay_s", "sent", "retransmitted", "timeouts"]
    assert explicit.flows[cols].equals(res.flows[cols]), name


@pytest.mark.parametrize("name", [d.name for d in registry.disciplines()])
def test_every_discipline_runs_from_the_builder_and_toml_with_its_listed_defaults(name, tmp_path):
    plain = dumbbell(queue=name)
    res = plain.run()
    assert res.run["conserved"]
    path = tmp_path / "s.toml"
    plain.save(path)
    assert ccsim.validate(str(path))["links"] == 3
    explicit = dumbbell(queue=name, queue_params=explicit_defaults(ccsim.discipline(name)) or None).run()
    cols = ["goodput_pps", "delay_s", "sent", "data_dropped"]
    assert explicit.flows[cols].equals(res.flows[cols]), name


def test_validate_names_every_registered_name(cli, tmp_path):
    bad = dumbbell(cc="cubic-nope")
    path = tmp_path / "bad.toml"
    bad.save(path)
    r = cli("validate", path)
    assert r.returncode == 2
    for a in registry.algorithms():
        assert a.name in r.stderr
    bad = dumbbell(queue="red-nope")
    bad.save(path)
    r = cli("validate", path)
    assert r.returncode == 2
    for d in registry.disciplines():
        assert d.name in r.stderr


def test_list_command(cli):
    r = cli("list")
    assert r.returncode == 0
    for c in registry.algorithms() + registry.disciplines():
        assert c.name in r.stdout
    r = cli("list", "dec")
    assert r.returncode == 0 and "decrease_factor" in r.stdout and "0.875" in r.stdout
    r = cli("list", "bbr")
    assert r.returncode == 2 and "no algorithm or discipline named 'bbr'" in r.stderr


def test_the_parameter_reference_in_docs_is_current():
    text = (ROOT / "docs" / "parameters.md").read_text()
    assert text.strip() == registry.markdown().strip(), "regenerate: ccsim list --markdown > docs/parameters.md"
