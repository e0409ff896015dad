"""Random small scenarios over the engine's less common paths: preemptive FQ, per-flow FQ
weights, processing jitter, link delay changes mid-run, every congestion control (SACK recovery
and the high-speed TCPs among them), Nagle's small-packet rule on Telnet flows, the AQMs
behind the second sink (RED, BLUE, RIO with flows' token-bucket profiles, Virtual Clock and HRR
with reservations), FQ's conversation keys. Each must run to the end without an engine error and
conserve packets (every packet sent is delivered, dropped or still in the network)."""

import random

import pytest

import ccsim


def random_scenario(it: int) -> ccsim.Scenario:
    rnd = random.Random(it)
    aqm = random.Random(10_000 + it)  # its own stream: the draws of `rnd` stay as they were
    sc = ccsim.Scenario(f"random-{it}", duration=f"{rnd.choice([20, 60])}s", seed=it)
    hosts = [f"h{i}" for i in range(rnd.randint(1, 5))]
    sc.hosts(*hosts, "sink", "sink2").switches("s1", "s2")
    for h in hosts:
        sc.link(h, "s1", bandwidth=rnd.choice(["800kbps", "10Mbps", "80kbps"]),
                jitter=rnd.choice(["1ms", "50ms", "300ms"]) if rnd.random() < 0.5 else None)
    changes, t = [], 0.0
    for _ in range(rnd.randint(0, 4)):
        t += rnd.uniform(0.5, 15)
        changes.append({"at": f"{t:.3f}s", "delay": f"{rnd.choice([0, 0.001, 0.05, 0.5, 2.0])}s"})
    sc.link("s1", "s2", bandwidth=rnd.choice(["80kbps", "1Mbps"]), delay="0.1s", buffer=f"{rnd.randint(1, 30)}pkt",
            queue="fq", count_in_service=rnd.random() < 0.5, changes=changes,
            queue_params={"preemptive": rnd.random() < 0.7, "delta": rnd.choice([0, 500, "infinite"]),
                          "drop_policy": rnd.choice(["longest", "largest_bid"]),
                          "conversation": aqm.choice(["flow", "flow", "host_pair", "source", "destination"])})
    sc.link("s2", "sink", bandwidth="80kbps", buffer="10pkt", queue="fq", queue_params={"preemptive": True})
    sink2_queue = aqm.choice(["droptail", "red", "blue", "rio", "virtual_clock", "hrr"])
    sc.link("s2", "sink2", bandwidth=aqm.choice(["100kbps", "10Mbps"]), buffer=f"{aqm.randint(2, 40)}pkt",
            queue=sink2_queue)
    for i, h in enumerate(hosts):
        app = rnd.choice(["ftp", "ftp", "telnet", "cbr", "poisson"])
        f = {"app": app, "name": f"f{i}", "packet_size": f"{rnd.choice([40, 200, 1000, 1500])}B"}
        if app in ("ftp", "telnet"):
            f.update(cc=rnd.choice(["generic", "jk", "reno", "newreno", "dec", "pp", "pp2"]), max_window=rnd.randint(1, 40))
            if app == "telnet" and rnd.random() < 0.3:
                f["source_buffer"] = rnd.randint(0, 5)
            if f["cc"] in ("generic", "jk", "reno", "newreno") and aqm.random() < 0.2:
                f["params"] = {"pacing": True}  # per-packet timers (generic) and the pacer together
            recovery = aqm.random()
            if recovery < 0.2:  # SACK recovery, plain or under FAST
                f["cc"] = "sack"
                f["params"] = {"partial_ack": aqm.random() < 0.5, "rescue": aqm.choice([0, 2]),
                               "pacing": aqm.random() < 0.3}
            elif recovery < 0.3:
                f["cc"] = "fast"
                f["params"] = {"alpha": aqm.choice([2, 20]), "recovery": "sack", "pacing": aqm.random() < 0.3,
                               "w_old": aqm.choice(["round", "packet", "current"])}
            elif recovery < 0.4:  # the high-speed TCPs, on the same SACK recovery
                f["cc"] = aqm.choice(["cubic", "bic", "stcp", "hstcp", "htcp", "hybla", "westwood"])
                f["params"] = {"pacing": aqm.random() < 0.3}
            size = int(f["packet_size"][:-1])
            if app == "telnet" and "source_buffer" not in f and size > 40 and aqm.random() < 0.3:
                f.update(nagle=True, nagle_segment=f"{max(576, size) * aqm.choice([1, 3])}B",
                         nagle_full_segments=aqm.random() < 0.5)  # Nagle's small-packet rule
            if aqm.random() < 0.2:
                f["sink"] = "in_order"  # Liang's receiver: what arrives beyond a hole is discarded
        elif app == "cbr":
            f["rate"] = f"{rnd.uniform(0.5, 50):.2f}pps"
        else:
            f["mean_gap"] = f"{rnd.uniform(0.02, 2):.3f}s"
        if rnd.random() < 0.3:
            f["fq_weight"] = rnd.randint(1, 5)
        if aqm.random() < 0.5:
            f["profile_rate"] = f"{aqm.choice([20, 200, 2000])}kbps"
        dst = rnd.choice(["sink", "sink2"])
        if dst == "sink2" and sink2_queue in ("virtual_clock", "hrr") and aqm.random() < 0.5:
            f["reserved_rate"] = f"{aqm.choice([1, 10, 20])}kbps"  # at most 100 kb/s in all
        sc.flow(h, dst, **f)
    sc.measure(interval="10s", discard=0)
    return sc


@pytest.mark.parametrize("it", range(40))
def test_random_scenario_runs_and_conserves_packets(it):
    r = random_scenario(it).run()
    assert r.flows["conserved"].all(), r.flows[["name", "sent", "delivered", "data_dropped"]]
    assert (r.flows["sent"] >= r.flows["delivered"]).all()
