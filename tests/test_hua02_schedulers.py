"""Hua 2002 chapter 5's proportional-delay schedulers (queues ``wtp``, ``swtp``, ``bpr``) against
Kleinrock's formula (``ccsim.models.hua02``; spec hua02-vegas-jcc-swtp.md §1.5, Appendix A,
V5.6).

One link R1 -> R2 of 10 Mb/s with an unlimited buffer; 4 sources per class, each on its own
10 Gb/s access link; Hua's packet mix (40% 100 B, 40% 500 B, 20% 1000 B, mean 440 B); three
classes of equal load at U = 0.95; b = 1 : 2 : 4 (``spacing = 2``, the default). The delay is
the queueing delay at R1 (the departure trace's ``wait_s``), averaged per class over about
10^6 departures after the first 2 x 10^4.
"""

import pytest

import ccsim
from ccsim.models import hua02

HUA_SIZES = [{"size": "100B", "share": 0.4}, {"size": "500B", "share": 0.4}, {"size": "1000B", "share": 0.2}]
LINE = 10e6           # bit/s
MEAN_SIZE = 440       # bytes
WARM_UP = 20_000      # departures discarded


def scenario(queue, *, app="poisson", U=0.95, classes=3, per_class=4, departures=1_000_000, seed=1,
             queue_params=None):
    """Hua's Fig 5.2 network as one scheduled link; ``departures`` sets the duration."""
    pps = U * LINE / (8 * MEAN_SIZE)
    duration = departures / pps
    sc = ccsim.Scenario("hua02-schedulers", duration=f"{duration:.3f}s", seed=seed)
    hosts = [f"s{c}_{k}" for c in range(classes) for k in range(per_class)]
    sc.hosts(*hosts, "d").switches("r1", "r2")
    for h in hosts:
        sc.link(h, "r1", bandwidth="10Gbps")
    sc.link("r1", "r2", bandwidth="10Mbps", buffer="unlimited", queue=queue, queue_params=queue_params)
    sc.link("r2", "d", bandwidth="10Gbps")
    for c in range(classes):
        for k in range(per_class):
            bps = U * LINE / classes / per_class
            fields = dict(app=app, packet_sizes=HUA_SIZES, **{"class": c})
            if app == "pareto":
                # Spec Appendix B / docs/scenario-format.md: shape 1.9, 20 packets per burst,
                # peak twice the mean rate, so the mean OFF equals the mean ON.
                peak_pps = 2 * bps / (8 * MEAN_SIZE)
                fields.update(bitrate=f"{2 * bps:.3f}bps", shape=1.9, burst=20,
                              mean_off=f"{20 / peak_pps * 1e3:.9f}ms")
            else:
                fields.update(bitrate=f"{bps:.3f}bps")
            sc.flow(f"s{c}_{k}", "d", name=f"c{c}f{k}", **fields)
    sc.measure(interval=f"{duration / 4:.3f}s", discard=0, trace_cwnd=False, trace_queues=[],
               trace_departures=["r1->r2"])
    return sc


def mean_waits(res):
    dep = res.departures
    dep = dep[(dep["kind"] == "data") & (dep["port_name"] == "r1->r2")].iloc[WARM_UP:]
    assert len(dep) > 900_000
    return list(dep.groupby("class")["wait_s"].mean())


def ratios(waits):
    return [waits[c] / waits[c + 1] for c in range(len(waits) - 1)]


# -----------------------------------------------------------------------------------------
# The formula
# -----------------------------------------------------------------------------------------

def test_kleinrock_formula_reproduces_appendix_a():
    for mix, row in hua02.APPENDIX_A.items():
        for U, expected in row.items():
            got = hua02.wtp_ratios([m * U for m in mix], [1, 2, 4])
            assert got == pytest.approx(expected, abs=6e-4), (mix, U)
    for (n, spacing), expected in hua02.APPENDIX_A_MORE.items():
        got = hua02.wtp_ratios([0.95 / n] * n, [spacing ** c for c in range(n)])
        assert got == pytest.approx(expected, abs=6e-4), (n, spacing)


def test_kleinrock_formula_properties():
    # Two classes: W_0 / W_1 = 1 / (1 - ρ (1 - b_0/b_1)): 1.905 at ρ = 0.95, ratio 2.
    assert hua02.wtp_ratios([0.475, 0.475], [1, 2]) == pytest.approx([1 / (1 - 0.95 / 2)])
    # The conservation law Σ ρ_p W_p = ρ W_0 / (1 - ρ), for any mix and weights.
    for loads, b in (([0.2, 0.3, 0.25], [1, 2, 4]), ([0.1, 0.5, 0.1, 0.2], [1, 1.5, 4, 9])):
        w = hua02.wtp_waits(loads, b, w0=2.0)
        rho = sum(loads)
        assert sum(r * x for r, x in zip(loads, w)) == pytest.approx(rho * 2.0 / (1 - rho))
    # Equal weights: FIFO, every class waits W_0 / (1 - ρ); the ratios approach b as ρ -> 1.
    assert hua02.wtp_waits([0.3, 0.3], [2, 2]) == pytest.approx([1 / 0.4, 1 / 0.4])
    assert hua02.wtp_ratios([0.3333, 0.3333, 0.3333], [1, 2, 4]) == pytest.approx([2, 2], abs=0.01)
    # Residual work of Hua's packet mix: E[S^2] = 304000 x 64 / C^2 s^2.
    lam = 0.95 * LINE / (8 * MEAN_SIZE)
    assert hua02.residual_work([lam], [304_000 * 64 / LINE ** 2]) == pytest.approx(lam * 1.9456e-7 / 2)
    for bad in (([0.5, 0.6], [1, 2]), ([0.3, 0.3], [2, 1]), ([0.3], [1, 2]), ([0.3, 0.3], [1, 0])):
        with pytest.raises(ValueError):
            hua02.wtp_ratios(*bad)


# -----------------------------------------------------------------------------------------
# V5.6: the schedulers with Poisson arrivals
# -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def poisson_runs():
    return {q: scenario(q).run() for q in ("wtp", "swtp", "bpr")}


def test_wtp_matches_kleinrock_with_poisson_arrivals(poisson_runs):
    res = poisson_runs["wtp"]
    assert res.run["conserved"] and res.ports.set_index("name").loc["r1->r2", "drops"] == 0
    waits = mean_waits(res)
    expected = hua02.wtp_ratios([0.95 / 3] * 3, [1, 2, 4])     # 1.888, 1.873
    assert ratios(waits) == pytest.approx(expected, abs=0.03)
    # The waits themselves: W_0 = λ E[S^2] / 2 for the whole stream (heavy load: 12%).
    lam = 0.95 * LINE / (8 * MEAN_SIZE)
    w0 = hua02.residual_work([lam], [304_000 * 64 / LINE ** 2])
    assert waits == pytest.approx(hua02.wtp_waits([0.95 / 3] * 3, [1, 2, 4], w0=w0), rel=0.12)


def test_swtp_tracks_wtp_on_the_same_traffic(poisson_runs):
    w = ratios(mean_waits(poisson_runs["wtp"]))
    s = ratios(mean_waits(poisson_runs["swtp"]))
    assert all(abs(a - b) <= 0.06 for a, b in zip(w, s)), (w, s)
    # The same arrivals reach both (the sources' streams do not depend on the queue).
    assert len(poisson_runs["wtp"].departures) == pytest.approx(len(poisson_runs["swtp"].departures), abs=5)


def test_bpr_differentiates_in_proportion(poisson_runs):
    # Qualitative: the classes are ordered and spaced by roughly the weights' ratio 2
    # (measured 1.84 / 1.80 at U = 0.95).
    waits = mean_waits(poisson_runs["bpr"])
    assert waits[0] > waits[1] > waits[2]
    assert all(1.5 < r < 2.2 for r in ratios(waits)), ratios(waits)


# -----------------------------------------------------------------------------------------
# Hua's traffic: Pareto on/off sources
# -----------------------------------------------------------------------------------------

def test_swtp_tracks_wtp_with_pareto_on_off_sources():
    # V5.1's second check (|S-WTP - WTP| <= 0.06 per class pair on the same traffic), one seed.
    w = ratios(mean_waits(scenario("wtp", app="pareto").run()))
    s = ratios(mean_waits(scenario("swtp", app="pareto").run()))
    assert all(abs(a - b) <= 0.06 for a, b in zip(w, s)), (w, s)
    assert all(1.7 < r < 2.3 for r in w + s), (w, s)


# -----------------------------------------------------------------------------------------
# Parameters from the builder and TOML
# -----------------------------------------------------------------------------------------

def test_parameters_pass_through_and_bad_ones_are_refused(tmp_path):
    # Explicit weights equal to the spacing's give the same run; "zero" differs from "carry".
    base = scenario("swtp", departures=50_000).run()
    same = scenario("swtp", departures=50_000, queue_params={"weights": [1, 2, 4], "empty": "carry"}).run()
    assert same.departures.equals(base.departures)
    zero = scenario("swtp", departures=50_000, queue_params={"empty": "zero"}).run()
    assert not zero.departures["wait_s"].equals(base.departures["wait_s"])
    spaced = scenario("wtp", departures=50_000, queue_params={"spacing": 1.5}).run()
    assert all(1.2 < r < 1.6 for r in ratios(list(spaced.departures.groupby("class")["wait_s"].mean())))
    sc = scenario("wtp", departures=1000, queue_params={"weights": [1, -2]})
    path = tmp_path / "bad.toml"
    sc.save(path)
    with pytest.raises(ccsim.ScenarioError, match=r"queue_params\.weights"):
        ccsim.validate(str(path))
