"""ccsim.models.keshav91: hand-worked numbers from the thesis/spec, and agreement with ccsim.

Keshav 1991 chapter 2 §2.2.3 (Telnet delay at an FQ switch; spec keshav91-fq-packet-pair.md
M1.11, N2-N4, V7) and chapter 4 §4.5 / Table 4.1 (packet-pair transients; spec M4.5, M4.6,
V17). docs/models.md summarises the agreement measured here.
"""

import math

import numpy as np
import pytest

import ccsim
from ccsim.models import keshav91 as k91

# Chapter 6 line speeds and packet sizes (thesis §6.5): 80 kb/s bottleneck, 800 kb/s feeders,
# 1000-byte FTP packets, 40-byte ACKs.
LINE = 80_000.0          # bit/s
ACCESS = 800_000.0       # bit/s
P_F = 1000               # bytes
ACK = 40                 # bytes


# =========================================================================================
# Unit checks against numbers worked by hand from the thesis and the spec
# =========================================================================================

def test_telnet_fq_thesis_numbers():
    # N2: non-preemptive, P_T < P_F/N: exactly P_F/2; 1000 B on 80 kb/s -> 0.05 s.
    assert k91.telnet_delay_fq(2, 8 * P_F, 8 * 40, mu=LINE) == (0.05, 0.05)
    # N3: P_T - δ >= P_F, both variants: N(P - P_F/2); N=2, P_T=2000, P_F=1000 -> 3000.
    for pre in (False, True):
        assert k91.telnet_delay_fq(2, 1000, 2000, preemptive=pre) == (3000.0, 3000.0)
    # δ enters only through P = P_T - δ: P_T=2000, δ=500 -> N(1500 - 500) = 2000.
    assert k91.telnet_delay_fq(2, 1000, 2000, delta=500) == (2000.0, 2000.0)
    assert k91.telnet_delay_fq(2, 1000, 2000, delta=500) == k91.telnet_delay_fq(2, 1000, 1500)
    # N4: preemptive, P <= (P_F/2)(1 - 1/N): 0 <= A <= N P^2/(2 P_F) = 1.6 for N=2, P=40.
    lo, hi = k91.telnet_delay_fq(2, 1000, 40, preemptive=True)
    assert lo == 0 and hi == pytest.approx(1.6)
    # Non-preemptive middle region, N=4, P=400: k=1, ε=0.6: P_F/2 <= A <= 500(1 + 1.2/4) = 650.
    lo, hi = k91.telnet_delay_fq(4, 1000, 400)
    assert (lo, hi) == (500.0, pytest.approx(650.0))
    # Preemptive third region, N=2, P=400: (500 + 2(400 - 500))^2/2000 = 45 <= A <= 160.
    assert k91.telnet_delay_fq(2, 1000, 400, preemptive=True) == (pytest.approx(45.0), pytest.approx(160.0))
    # Spec A17 (δ > P_T, outside the formulas): the physical limits.
    assert k91.telnet_delay_fq(3, 1000, 40, delta=100) == (500.0, 500.0)
    assert k91.telnet_delay_fq(3, 1000, 40, delta=100, preemptive=True) == (0.0, 0.0)
    with pytest.raises(ValueError):
        k91.telnet_delay_fq(0, 1000, 40)


@pytest.mark.parametrize("preemptive", [False, True])
def test_telnet_fq_bounds_continuous_and_ordered(preemptive):
    """The printed regions join without jumps, and lower <= upper everywhere."""
    for n in (1, 2, 3, 5, 8):
        edges = [1000.0, 500 * (1 + 1 / n), 500 * (1 - 1 / n)]
        for e in edges:
            if e <= 1e-6:
                continue  # N = 1: the last region is empty
            a = k91.telnet_delay_fq(n, 1000, e - 1e-7, preemptive=preemptive)
            b = k91.telnet_delay_fq(n, 1000, e + 1e-7, preemptive=preemptive)
            assert a.lower == pytest.approx(b.lower, abs=1e-3) and a.upper == pytest.approx(b.upper, abs=1e-3)
        for p in np.linspace(1, 2500, 200):
            lo, hi = k91.telnet_delay_fq(n, 1000, p, preemptive=preemptive)
            assert 0 <= lo <= hi + 1e-9


@pytest.mark.parametrize("preemptive", [False, True])
def test_telnet_fq_bounds_are_the_extreme_phases(preemptive):
    """§2.2.3: 'the delay is bounded by the extremal cases l^α = 0 and l^α = α/N'. The exact
    calculation for those phases gives the printed upper and lower bound to rounding error,
    in every region, and random phases fall between them."""
    rng = np.random.default_rng(91)
    for n in (1, 2, 3, 5, 8):
        for p in (40, 150, 300, 400, 499, 550, 650, 800, 950, 1000, 1500, 2000, 3333):
            lo, hi = k91.telnet_delay_fq(n, 1000, p, preemptive=preemptive)
            assert k91.telnet_delay_fq_phased(n, 1000, p, "synchronised", preemptive=preemptive) == pytest.approx(hi, abs=1e-6)
            assert k91.telnet_delay_fq_phased(n, 1000, p, "staggered", preemptive=preemptive) == pytest.approx(lo, abs=1e-6)
            x = k91.telnet_delay_fq_phased(n, 1000, p, rng.random(n), preemptive=preemptive)
            assert lo - 1e-6 <= x <= hi + 1e-6
    # spec M1.11 "my check": synchronised, preemptive, N=2, P=40 -> 1.6 byte-times
    assert k91.telnet_delay_fq_phased(2, 1000, 40, preemptive=True) == pytest.approx(1.6)
    with pytest.raises(ValueError):
        k91.telnet_delay_fq_phased(2, 1000, 40, [0.0, 1.0])


def test_telnet_fcfs_hand_worked():
    # Chapter 6 Scenario 1: 2 FTPs, windows 5, 1000 B at 80 kb/s (0.1 s); the pipe holds a
    # packet for 10 ms (feeder line) + 4 ms + 0.4 ms (its ACK): (10 - 1/2)·0.1 - 0.0144.
    assert k91.telnet_delay_fcfs(2, 5, 8 * P_F, mu=LINE, pipe_time=0.0144) == pytest.approx(0.9356)
    assert k91.telnet_delay_fcfs(2, [3, 7], 1000) == pytest.approx(9500.0)
    with pytest.raises(ValueError, match="do not keep the line busy"):
        k91.telnet_delay_fcfs(1, 1, 1000, pipe_time=1.0)


def test_table_4_1_rows_hand_worked():
    # Helpers: V = R/s_b; spec V18: V_old = 10, V_new = 5 -> skip 3 pair slots.
    assert k91.pipeline_depth(1.0, 0.1) == pytest.approx(10.0)
    assert k91.n_skip(10, 5) == 3 and k91.n_skip(5, 10) == 0 and k91.n_skip(10, 8) == 1
    # Row 4, decrease in service rate: R = 1 s, s_b 0.1 -> 0.2 s: V 10 -> 5, skiptime =
    # 2·0.2·⌈5/2⌉ = 1.2 s, steady by t0 + 1 + 1.2. The printed (garbled) skiptime is
    # 0.2·max(⌈10/2 - 5⌉, 0) = 0, which cannot be meant (the source must skip something).
    row = k91.transient_decrease_service_rate(10.0, 1.0, 0.1, 0.2)
    assert row == (0.0, 0.0, pytest.approx(12.2), pytest.approx(-5.0))
    assert k91.skiptime(1.0, 0.1, 0.2, printed=True) == 0.0
    assert k91.transient_decrease_service_rate(10.0, 1.0, 0.1, 0.2, printed=True).recovery_by == pytest.approx(11.0)
    # Row 3, decrease in propagation delay: steady by t0 + R(t0-ε); δV = -(1.0 - 0.6)/0.1.
    assert k91.transient_decrease_propagation_delay(10.0, 1.0, 0.6, 0.1) == (0.0, 0.0, 11.0, pytest.approx(-4.0))
    # Row 1, increase in propagation delay: R 1 -> 1.5 s, s_b = 0.1: δV = 5; source line
    # s_0 = 0.01 s, one switch before the bottleneck s_1 = 0.05 s (the slowest upstream
    # server paces the burst): t0 + 1.5 + (0.01 + 0.05) + 5·0.05 = t0 + 1.81.
    row = k91.transient_increase_propagation_delay(10.0, 1.0, 1.5, 0.1, [0.01, 0.05])
    assert row == (0.0, 0.0, pytest.approx(11.81), pytest.approx(5.0))
    assert k91.transient_increase_propagation_delay(10.0, 1.0, 1.5, 0.1, [0.01, 0.05], rho_throttle=100).recovery_by == pytest.approx(11.61)
    # Row 2, increase in service rate: s_b 0.2 -> 0.1, R = 1: δV = 5, recovery "as above".
    row = k91.transient_increase_service_rate(10.0, 1.0, 0.2, 0.1, [0.01])
    assert row == (0.0, 0.0, pytest.approx(11.06), pytest.approx(5.0))
    assert k91.transient_increase_service_rate(10.0, 1.0, 0.2, 0.1, [0.01], migrates=True).bandwidth_loss == pytest.approx(5.0)
    assert k91.transient_increase_service_rate(10.0, 1.0, 0.2, 0.1, [0.01], queued=2).bandwidth_loss == pytest.approx(3.0)
    # Each function refuses the other direction of change.
    with pytest.raises(ValueError):
        k91.transient_decrease_service_rate(0, 1.0, 0.2, 0.1)
    with pytest.raises(ValueError):
        k91.transient_increase_propagation_delay(0, 1.0, 0.5, 0.1, [0.01])
    # TABLE_4_1 is the printed table, one row per function, labels as printed.
    assert [r["section"] for r in k91.TABLE_4_1] == ["4.5.1", "4.5.2", "4.5.3", "4.5.4"]
    assert all(callable(getattr(k91, r["function"])) for r in k91.TABLE_4_1)
    assert [r["printed_change"].endswith("service time") for r in k91.TABLE_4_1] == [False, True, False, True]
    assert all(r["packet_loss"] == "None" for r in k91.TABLE_4_1)


# =========================================================================================
# Chapter 2 against simulation: a probe packet at an FQ (or FCFS) switch with N greedy FTPs
# =========================================================================================
#
# The model's Telnet is a single packet arriving at a uniformly distributed time into an
# inactive conversation. The probe here is a CBR source (no flow control) at 0.73 packets/s:
# its period, 1.37 s, is incommensurate with the FTPs' round period N·P_F/μ (0.1 s per FTP),
# so successive probes sweep the phase of the round evenly, and it is much longer than the
# time a probe's conversation stays active in the fluid system ((N+1)·P_T/μ <= 0.6 s here),
# so every probe finds its conversation inactive, as the model assumes. Each run simulates
# 10,000 s (about 7,300 probes). The FTPs are generic (a fixed window, Keshav's "generic"
# source) and never lose a packet, so they stay backlogged at the switch.
#
# Measured wait = the probe's mean one-way delay minus its two transmissions (feeder and
# bottleneck; no propagation delay), i.e. exactly the model's queueing delay.


def probe_wait(n_ftp, p_probe, *, queue="fq", delta=None, window=5, starts=None, app="cbr", preemptive=False):
    sc = ccsim.Scenario("keshav91-telnet-delay", duration="10000s", seed=1)
    ftps = [f"ftp{i}" for i in range(n_ftp)]
    sc.hosts(*ftps, "telnet", "sink").switches("switch")
    port = {"queue": queue}
    params = {}
    if delta is not None:
        params["delta"] = delta
    if preemptive:
        params["preemptive"] = True
    if params:
        port["queue_params"] = params
    sc.link("switch", "sink", bandwidth="80kbps", buffer="100pkt", count_in_service=False, forward=port)
    for h in ftps + ["telnet"]:
        sc.link(h, "switch", bandwidth="800kbps")
    for i, h in enumerate(ftps):
        start = starts[i] if starts else None  # seconds
        sc.flow(h, "sink", app="ftp", cc="generic", max_window=window, packet_size=f"{P_F}B",
                ack_size=f"{ACK}B", name=h, start=start)
    if app == "cbr":
        sc.flow("telnet", "sink", app="cbr", rate="0.73pps", packet_size=f"{p_probe}B", name="telnet", start="10s")
    else:  # the thesis's Telnet: exponential gaps, mean 5 s; a long RTO so it never retransmits
        sc.flow("telnet", "sink", app="telnet", cc="generic", mean_gap="5s", packet_size=f"{p_probe}B",
                ack_size=f"{ACK}B", name="telnet", params={"min_rto": "2s", "initial_rto": "2s"})
    sc.measure(interval="1000s", trace_period="100s", trace_cwnd=False, trace_queues=False)
    r = sc.run()
    f = r.flow("telnet")
    assert f["data_dropped"] == 0 and f["retransmitted"] == 0
    assert r.flows["data_dropped"].sum() == 0
    fixed = 8 * p_probe / ACCESS + 8 * p_probe / LINE
    return f["owd_s"] - fixed, f


def staggered_starts(n):
    """Start times that give the FTPs the phases l^α = α/N: conversation α must become
    active when the round number reaches α·P_F/N, and R grows at μ/(number active)."""
    s = 8 * P_F / LINE
    return [sum((b + 1) * s / n for b in range(a)) for a in range(n)]


# Relative tolerance of the FQ and FCFS probe comparisons: 2 %. The probes are deterministic
# and sweep the phase evenly, so sampling error is O(1/7300); the effects the model leaves
# out are each a fraction of a percent here (a probe's own fluid-system activity slows the
# round number briefly; FTP ACKs share the reverse line). The largest deviation measured was
# 0.5 % (N=2, P_T=2000, δ=500 B), so 2 % is four times that and still far below the gaps
# between the cases (e.g. 0.05 vs 0.065 s, 0.06 vs 0.08 s).
REL_TOL = 0.02

FQ_CASES = [
    # id, N, P_T (bytes), δ (bytes), window, phases
    ("N2-PT40-k0", 2, 40, None, 5, "synchronised"),           # N2: P_F/2 = 0.05 s
    ("N2-PT40-window2", 2, 40, None, 2, "synchronised"),      # V7: independent of the window
    ("N2-PT40-window8", 2, 40, None, 8, "synchronised"),
    ("N2-PT2000", 2, 2000, None, 5, "synchronised"),          # N3: N(P - P_F/2) = 0.3 s
    ("N2-PT2000-delta500", 2, 2000, 500, 5, "synchronised"),  # δ: A(P_T - δ) = 0.2 s
    ("N3-PT800-sync", 3, 800, None, 5, "synchronised"),       # 2nd region: upper bound 0.11 s
    ("N3-PT800-stag", 3, 800, None, 5, "staggered"),          #   lower bound 0.09 s
    ("N4-PT400-sync", 4, 400, None, 5, "synchronised"),       # 3rd region (k=1, ε=0.6): 0.065 s
    ("N4-PT400-stag", 4, 400, None, 5, "staggered"),          #   lower bound 0.05 s
    ("N2-PT800-stag", 2, 800, None, 5, "staggered"),          # 2nd region, N=2: 0.06 s
]


@pytest.mark.parametrize("case", FQ_CASES, ids=[c[0] for c in FQ_CASES])
def test_telnet_delay_fq_matches_simulation(case):
    """A probe's mean wait under ccsim's (non-preemptive) FQ, δ as given, equals the exact
    value for the FTPs' phases (synchronised FTPs start together; staggered ones start at
    the times that give l^α = α/N), which is the thesis's upper or lower bound."""
    _, n, pt, delta, window, phases = case
    starts = staggered_starts(n) if phases == "staggered" else None
    measured, _ = probe_wait(n, pt, delta=f"{delta}B" if delta else None, window=window, starts=starts)
    d = 8 * (delta or 0)
    lo, hi = k91.telnet_delay_fq(n, 8 * P_F, 8 * pt, mu=LINE, delta=d)
    exact = k91.telnet_delay_fq_phased(n, 8 * P_F, 8 * pt, phases, mu=LINE, delta=d)
    assert lo * (1 - REL_TOL) <= measured <= hi * (1 + REL_TOL), (measured, lo, hi)
    assert measured == pytest.approx(exact, rel=REL_TOL), (measured, exact)


def test_telnet_delay_fq_thesis_telnet_source():
    """The same with the thesis's Telnet source (exponential gaps, mean 5 s, 40-byte packets,
    its own window and ACKs), as in chapter 6: N2's P_F/(2μ) = 0.05 s. The gaps are random,
    so the tolerance is three standard errors of the batch means (9 intervals of 1000 s,
    about 220 packets each); measured 0.0499 s."""
    measured, f = probe_wait(2, 40, app="telnet")
    se = f["owd_s_sd"] / math.sqrt(f["intervals_used"])
    assert f["delivered"] > 1500
    assert abs(measured - 0.05) <= 3 * se, (measured, se)


@pytest.mark.parametrize("n,window", [(2, 5), (3, 4), (2, 10)])
def test_telnet_delay_fcfs_matches_simulation(n, window):
    """FCFS (drop-tail, no losses): the probe waits for the whole queue of FTP windows,
    (ΣW - 1/2)·P_F/μ - τ, with τ the time a window's packet spends outside the switch: its
    feeder line (10 ms) and its ACK's two lines (4 ms + 0.4 ms). Measured within 0.2 %."""
    measured, _ = probe_wait(n, 40, queue="droptail", window=window)
    tau = 8 * P_F / ACCESS + 8 * ACK / LINE + 8 * ACK / ACCESS
    model = k91.telnet_delay_fcfs(n, window, 8 * P_F, mu=LINE, pipe_time=tau)
    assert measured == pytest.approx(model, rel=REL_TOL / 2), (measured, model)
    # ... and FQ would have given the same probe 0.05 s: the chapter 2 point.
    assert model > 10 * k91.telnet_delay_fq(n, 8 * P_F, 320, mu=LINE).upper


PREEMPTIVE_CASES = [
    # id, N, P_T (bytes), phases; the model's preemptive regions (telnet_delay_fq)
    ("N2-PT40", 2, 40, "synchronised"),        # P <= (P_F/2)(1 - 1/N): 0 <= A <= N P^2/(2 P_F)
    ("N2-PT2000", 2, 2000, "synchronised"),    # P >= P_F: N(P - P_F/2) = 0.3 s, as non-preemptive
    ("N3-PT800-sync", 3, 800, "synchronised"),  # 2nd region: upper bound 0.096 s
    ("N3-PT800-stag", 3, 800, "staggered"),     #   lower bound 0.09 s
    ("N4-PT400-sync", 4, 400, "synchronised"),  # 3rd region: 0.032 s
    ("N4-PT400-stag", 4, 400, "staggered"),     #   0.0005 s
    ("N2-PT800-stag", 2, 800, "staggered"),     # 0.06 s (non-preemptive: the same phases)
]


@pytest.mark.parametrize("case", PREEMPTIVE_CASES, ids=[c[0] for c in PREEMPTIVE_CASES])
def test_telnet_delay_fq_preemptive_simulation(case):
    """Preemptive FQ (queue_params.preemptive): a probe that outbids the FTP packet on the
    line stops it (the FTP packet resumes later). Its mean wait equals the exact preemptive
    value for the FTPs' phases, inside the thesis's preemptive bounds; measured within 0.3 %
    (the N2-PT40 case, 0.16 ms, to a microsecond)."""
    _, n, pt, phases = case
    starts = staggered_starts(n) if phases == "staggered" else None
    measured, _ = probe_wait(n, pt, starts=starts, preemptive=True)
    lo, hi = k91.telnet_delay_fq(n, 8 * P_F, 8 * pt, mu=LINE, preemptive=True)
    exact = k91.telnet_delay_fq_phased(n, 8 * P_F, 8 * pt, phases, mu=LINE, preemptive=True)
    assert lo * (1 - REL_TOL) - 1e-6 <= measured <= hi * (1 + REL_TOL) + 1e-6, (measured, lo, hi)
    assert measured == pytest.approx(exact, rel=REL_TOL, abs=2e-6), (measured, exact)
    if n == 2 and pt == 40:  # the preemptive point: the non-preemptive FQ makes it wait P_F/2
        assert measured < k91.telnet_delay_fq(n, 8 * P_F, 8 * pt, mu=LINE).lower / 100


# =========================================================================================
# Chapter 4, Table 4.1 against simulation: a packet-pair flow at an FQ bottleneck whose
# service rate steps when a CBR cross flow starts or stops
# =========================================================================================
#
# Path: source -800 kb/s-> FQ switch -80 kb/s, 200 ms-> sink. Alone, the flow gets the whole
# line, s_b = 0.1 s per packet; a CBR source at exactly its fair share (5 pkt/s) halves that
# (s_b = 0.2 s) without queueing itself, so the step is sharp. R, the round-trip propagation
# delay (an empty-queue RTT), is 10 + 100 + 200 + 4 + 200 + 0.4 ms = 0.5144 s; V = R/s_b
# changes by |δV| = 2.57 packets. Two algorithms run it (the flow is named "pp" in both):
# - "pp2", chapter 4's 2P, the algorithm Table 4.1 analyses, with n_b = ΔV = 5 >= |δV| (the
#   §4.5 assumptions) and r_estimate = "first": R_e is the RTT of the first packet of the first
#   pair, which is R exactly here (routes never change), as §4.5's analysis assumes the source
#   knows R. With §4.4's own update R_e = r_t - n_b·s_e from every pair, 2P has no hold on its
#   queue (test_2p_literal_r_update_loses_its_queue_after_a_step);
# - "pp", PP_CTH (chapter 5's rate law on chapter 4's pairs and timers), with chapter 4's raw
#   estimator and setpoint n* = 5.
# The buffer is 2ΔV = 10 packets for the flow plus one for the CBR's single waiting packet
# (the packet on the line takes no buffer). The step comes at 50.05 s, after the flow's
# start-up has ended.

D_PROP = 0.2
R_PROP = 8 * P_F / ACCESS + 8 * P_F / LINE + D_PROP + 8 * ACK / LINE + D_PROP + 8 * ACK / ACCESS
S_ALONE, S_SHARED = 8 * P_F / LINE, 2 * 8 * P_F / LINE
UPSTREAM = [8 * P_F / ACCESS]        # s_0: the source's line; the switch is the bottleneck
SETPOINT = 5                         # n* = n_b = ΔV
T_STEP = 50.05                       # the CBR starts / stops
T0 = T_STEP + 8 * P_F / ACCESS       # its first packet reaches the switch (a stop takes
                                     # effect within one CBR period, 0.2 s, of this)
DURATION = 100.0
CC_PARAMS = {
    "pp": {"estimator": "raw", "setpoint": SETPOINT},
    "pp2": {"n_b": SETPOINT, "r_estimate": "first"},
}
_runs = {}


def pp_step(kind, buffer, cc="pp", params=None):
    """kind "decrease": the CBR starts at T_STEP; "increase": it runs from 0 to T_STEP."""
    params = CC_PARAMS[cc] if params is None else params
    key = (kind, buffer, cc, tuple(sorted(params.items())))
    if key not in _runs:
        sc = ccsim.Scenario(f"keshav91-table-4.1-{kind}", duration=f"{DURATION}s", seed=1)
        sc.hosts("src", "cross", "sink").switches("switch")
        sc.link("src", "switch", bandwidth="800kbps")
        sc.link("cross", "switch", bandwidth="800kbps")
        sc.link("switch", "sink", bandwidth="80kbps", delay=f"{D_PROP}s", buffer=f"{buffer}pkt",
                count_in_service=False, queue="fq")
        sc.flow("src", "sink", app="ftp", cc=cc, max_window=30, packet_size=f"{P_F}B", ack_size=f"{ACK}B",
                name="pp", params=params)
        when = {"start": f"{T_STEP}s"} if kind == "decrease" else {"stop": f"{T_STEP}s"}
        sc.flow("cross", "sink", app="cbr", rate="5pps", packet_size=f"{P_F}B", name="cbr", **when)
        sc.measure(interval="1s", trace_period="10ms", trace_cwnd=["pp"], trace_queues=["switch->sink"])
        r = sc.run()
        assert r.flow("cbr")["data_dropped"] == 0          # the CBR never queues more than one packet
        q = r.queues
        pre = [q[(q.time_s >= a) & (q.time_s < a + 1)].packets.mean() for a in range(40, 50)]
        assert max(pre) - min(pre) < 1.0, pre               # steady before the step
        _runs[key] = r
    return _runs[key]


def pp_losses(r, share_pps):
    """The flow's packets dropped after the step, and its first-time deliveries in the 49
    whole intervals after the step's interval, against its full new share (5 or 10 pkt/s)."""
    iv = r.intervals[r.intervals.flow_name == "pp"].set_index("start_s")
    dropped = int(iv.loc[50.0:, "drops"].sum())
    delivered = int(iv.loc[51.0:99.0, "delivered"].sum())
    return dropped, delivered, share_pps * 49


def settle_time(r, window=1.0, step=0.5, tol=1.0):
    """Seconds from T0 until the bottleneck queue (1-s means) stays within one packet (the
    width of the pair lattice) of its level over the last 10 s."""
    q = r.queues
    target = q[q.time_s >= DURATION - 10].packets.mean()
    starts = np.arange(T_STEP - 0.05, DURATION - window, step)
    means = [q[(q.time_s >= a) & (q.time_s < a + window)].packets.mean() for a in starts]
    for i, a in enumerate(starts):
        if all(abs(m - target) <= tol for m in means[i:]):
            return max(a - T0, 0.0)
    return math.inf


BOTH = pytest.mark.parametrize("cc", ["pp", "pp2"])


@BOTH
def test_table_4_1_preconditions_of_the_scenario(cc):
    """|δV| <= ΔV = n_b, and the FQ share halves and doubles as the model's s_b says."""
    dec = k91.transient_decrease_service_rate(T0, R_PROP, S_ALONE, S_SHARED)
    inc = k91.transient_increase_service_rate(T0, R_PROP, S_SHARED, S_ALONE, UPSTREAM)
    assert abs(dec.delta_v) == pytest.approx(2.572) == inc.delta_v
    assert abs(dec.delta_v) <= SETPOINT
    r = pp_step("decrease", 40, cc)
    g = r.intervals[r.intervals.flow_name == "pp"].set_index("start_s").delivered
    assert g.loc[40.0:49.0].mean() == pytest.approx(1 / S_ALONE, abs=0.1)
    assert g.loc[60.0:99.0].mean() == pytest.approx(1 / S_SHARED, abs=0.1)


def test_2p_steady_state_proposition_1():
    """§4.5 Proposition 1 (spec V16): with V constant, 2P sends at exactly μ, keeps n_b
    packets at the bottleneck (plus the pair lattice: a pair lands every 2·s_b and drains
    in it, so the time-averaged queue is n_b + 1/2) and the bottleneck never idles."""
    r = pp_step("decrease", 40, "pp2")
    q = r.queues
    before = q[(q.time_s >= 5) & (q.time_s < 50)]
    assert before.packets.mean() == pytest.approx(SETPOINT + 0.5, abs=0.1)
    assert before.packets.min() >= SETPOINT - 1
    g = r.intervals[r.intervals.flow_name == "pp"].set_index("start_s").delivered
    assert (g.loc[2.0:49.0] == 1 / S_ALONE).all()
    assert r.flow("pp")["data_dropped"] == 0


@BOTH
def test_table_4_1_decrease_in_service_rate_no_loss_with_ample_buffer(cc):
    """Row 4, "Bandwidth loss: None, Packet loss: None", when the buffer does not bind: the
    flow keeps its new share, 5 pkt/s in every interval, and loses nothing."""
    model = k91.transient_decrease_service_rate(T0, R_PROP, S_ALONE, S_SHARED)
    dropped, delivered, share = pp_losses(pp_step("decrease", 40, cc), 1 / S_SHARED)
    assert dropped == model.packet_loss == 0
    assert abs(delivered - share) <= 1 + model.bandwidth_loss   # ±1: interval edges


@pytest.mark.parametrize("cc", [
    pytest.param("pp", marks=pytest.mark.xfail(strict=True, reason=(
        "pp is PP_CTH, not chapter 4's 2P: with the §4.5 buffers (2ΔV = 10 for the pp "
        "conversation) a rate halving at 50.06 s drops 1 pp packet (and 2 deliveries in "
        "51-100 s). 2P's queue peaks at n_b + δV = 7.6; PP_CTH sits 1.35 packets above its "
        "setpoint (6.35, the pair lattice), learns the new rate a pair slot and a probe later "
        "than R, and then only slows to λ = μ̂ + (n* - n̂_b)/J instead of skipping slots, so its "
        "queue peaks about 5 packets above its steady level (12 with an ample buffer)"))),
    "pp2",
])
def test_table_4_1_decrease_in_service_rate_no_packet_loss_with_2dV_buffers(cc):
    dropped, delivered, share = pp_losses(pp_step("decrease", 2 * SETPOINT + 1, cc), 1 / S_SHARED)
    assert dropped == 0
    assert abs(delivered - share) <= 1


@pytest.mark.parametrize("cc", [
    pytest.param("pp", marks=pytest.mark.xfail(strict=True, reason=(
        "pp is PP_CTH (law 5.14, horizon J = R + S/μ̂ ≈ 2 s, then a creep of about 0.1 "
        "packet/s through its two-packet pair lattice), not chapter 4's 2P whose n_skip is "
        "deadbeat: after the rate halves its queue settles 8.4 s after t0, against Table 4.1's "
        "bound R + skiptime = 0.51 + 0.8 = 1.31 s"))),
    "pp2",
])
def test_table_4_1_decrease_in_service_rate_recovery_time(cc):
    model = k91.transient_decrease_service_rate(T0, R_PROP, S_ALONE, S_SHARED)
    assert model.recovery_by - T0 == pytest.approx(R_PROP + 0.8)
    slack = 2 * S_SHARED + 0.2 + 0.5     # a pair slot, the CBR's phase, the window step
    assert settle_time(pp_step("decrease", 40, cc)) <= model.recovery_by - T0 + slack


@BOTH
def test_table_4_1_increase_in_service_rate_no_loss(cc):
    """Row 2, no bottleneck migration (the source's 800 kb/s line stays faster): "0" bandwidth
    loss and no packet loss, given at least δV packets queued when the rate doubles. The
    flow's queue never empties during the transient, it gets 10 pkt/s in every interval
    after it, and loses nothing, with the §4.5 buffers."""
    model = k91.transient_increase_service_rate(T0, R_PROP, S_SHARED, S_ALONE, UPSTREAM)
    r = pp_step("increase", 2 * SETPOINT + 1, cc)
    q = r.queues
    assert q[(q.time_s >= 40) & (q.time_s < 50)].packets.mean() >= model.delta_v   # queued >= δV
    assert q[(q.time_s >= T0 + 0.3) & (q.time_s < T0 + 10)].packets.min() >= 1     # never ran dry
    dropped, delivered, share = pp_losses(r, 1 / S_ALONE)
    assert dropped == model.packet_loss == 0
    assert abs(delivered - share) <= 1 + model.bandwidth_loss


@pytest.mark.parametrize("cc", [
    pytest.param("pp", marks=pytest.mark.xfail(strict=True, reason=(
        "pp is PP_CTH, not chapter 4's 2P, which sends a burst of δV as soon as a probe shows "
        "the higher rate: PP_CTH raises its rate by (n* - n̂_b)/J with J ≈ 1.5 s and then "
        "creeps through its pair lattice, so its queue (down to 3.7) is back within a packet "
        "of its level 10.4 s after t0, against Table 4.1's bound R + s_0 + δV·s_0 = 0.55 s"))),
    "pp2",
])
def test_table_4_1_increase_in_service_rate_recovery_time(cc):
    model = k91.transient_increase_service_rate(T0, R_PROP, S_SHARED, S_ALONE, UPSTREAM)
    assert model.recovery_by - T0 == pytest.approx(0.5501, abs=1e-3)
    slack = 2 * S_ALONE + 0.2 + 0.5
    assert settle_time(pp_step("increase", 2 * SETPOINT + 1, cc)) <= model.recovery_by - T0 + slack


def test_2p_literal_r_update_loses_its_queue_after_a_step():
    """With §4.4's own R_e = r_t - n_b·s_e from the first ACK of every pair (pp2's default
    r_estimate = "pair"), a first packet that waited q·s_b gives V_e = V + q - n_b: any queue
    is self-consistent, so 2P has no hold on it. Steady before the step (n_b + 1/2), the
    rate halving then moves R_e with the queue (and with n_b·s_e, which doubles a probe
    after s_e does); each rise of R_e is answered by a burst and each fall by skips rounded
    up to whole pairs, and the queue walks down to empty and stays there (R_e clamped at 0,
    V_e = 0). No packet is lost and the flow keeps its share; only the n_b reserve is gone."""
    r = pp_step("decrease", 40, "pp2", {"n_b": SETPOINT})
    q = r.queues
    assert q[(q.time_s >= 40) & (q.time_s < 50)].packets.mean() == pytest.approx(SETPOINT + 0.5, abs=0.1)
    assert q[q.time_s >= DURATION - 20].packets.mean() < 1.0
    dropped, delivered, share = pp_losses(r, 1 / S_SHARED)
    assert dropped == 0 and abs(delivered - share) <= 3


# Rows 1 and 3 change the propagation delay instead: the flow alone on the line (s_b = 0.1 s),
# and the switch -> sink link's delay steps from 200 ms to 450 ms (R 0.51 -> 1.01 s, δV = +5)
# or to 50 ms (R -> 0.21 s, δV = -3) at T_STEP (links[].changes). Packets already on the line
# keep their delay, and none overtakes another.
PROP_STEPS = {"increase": 0.45, "decrease": 0.05}


def pp_prop_step(kind, cc, params=None):
    params = CC_PARAMS[cc] if params is None else params
    key = ("prop", kind, cc, tuple(sorted(params.items())))
    if key not in _runs:
        sc = ccsim.Scenario(f"keshav91-table-4.1-propagation-{kind}", duration=f"{DURATION}s", seed=1)
        sc.hosts("src", "sink").switches("switch")
        sc.link("src", "switch", bandwidth="800kbps")
        sc.link("switch", "sink", bandwidth="80kbps", delay=f"{D_PROP}s", buffer="40pkt", count_in_service=False,
                queue="fq", changes=[{"at": f"{T_STEP}s", "delay": f"{PROP_STEPS[kind]}s"}])
        sc.flow("src", "sink", app="ftp", cc=cc, max_window=30, packet_size=f"{P_F}B", ack_size=f"{ACK}B",
                name="pp", params=params)
        sc.measure(interval="1s", trace_period="10ms", trace_cwnd=["pp"], trace_queues=["switch->sink"])
        _runs[key] = sc.run()
    return _runs[key]


def prop_model(kind):
    r_new = R_PROP + 2 * (PROP_STEPS[kind] - D_PROP)
    if kind == "increase":
        return k91.transient_increase_propagation_delay(T_STEP, R_PROP, r_new, S_ALONE, UPSTREAM)
    return k91.transient_decrease_propagation_delay(T_STEP, R_PROP, r_new, S_ALONE)


@BOTH
@pytest.mark.parametrize("kind", ["increase", "decrease"])
def test_table_4_1_propagation_delay_rows_no_loss(kind, cc):
    """Rows 1 and 3, "Bandwidth loss: 0" and "Packet loss: None": with an ample buffer the
    flow loses nothing and keeps the whole line (10 pkt/s) after the route change."""
    model = prop_model(kind)
    assert abs(model.delta_v) == pytest.approx({"increase": 5.0, "decrease": 3.0}[kind])
    dropped, delivered, share = pp_losses(pp_prop_step(kind, cc), 1 / S_ALONE)
    assert dropped == model.packet_loss == 0
    assert abs(delivered - share) <= 2 + model.bandwidth_loss   # ±2: interval edges, the step


@pytest.mark.parametrize("kind", [
    "increase",
    pytest.param("decrease", marks=pytest.mark.xfail(strict=True, reason=(
        "2P's R_e is the first packet's RTT (r_estimate = 'first'), so the route change itself "
        "leaves V_e alone, and pacing at μ the shorter pipe just empties sooner (outstanding 10.6 "
        "-> 6.6). But the pair in flight at the change comes back bunched (an outlier probe, "
        "test_2p_an_outlying_probe_does_not_silence_the_source): its burst of 19 and the skip of "
        "10 pairs (20 packets) that follows round the queue down by one packet, 4.6 instead of "
        "n_b + 1/2 = 5.5. §4.5's analysis has no such probe"))),
])
def test_table_4_1_propagation_delay_rows_queue_level(kind):
    """2P's queue after the change returns to n_b + 1/2 (Proposition 1) by the row's recovery
    time, with δV more (row 1) or fewer (row 3) packets in the pipe. For the increase 2P's
    pacing at μ fills the longer pipe by itself: no burst is needed and none is lost."""
    r = pp_prop_step(kind, "pp2")
    q = r.queues
    after = q[(q.time_s >= prop_model(kind).recovery_by + 1) & (q.time_s < DURATION)].packets
    before = q[(q.time_s >= 40) & (q.time_s < 50)].packets.mean()
    assert before == pytest.approx(SETPOINT + 0.5, abs=0.1)
    # The pipe's content changed by δV, the queue did not: the in-flight count moved.
    c = r.cwnd
    out_before = c[(c.time_s >= 40) & (c.time_s < 50)].outstanding.mean()
    out_after = c[c.time_s >= DURATION - 20].outstanding.mean()
    assert out_after - out_before == pytest.approx(prop_model(kind).delta_v, abs=1.0)
    assert after.mean() == pytest.approx(SETPOINT + 0.5, abs=0.5)


def test_2p_an_outlying_probe_does_not_silence_the_source():
    """When the path shortens, a pair's first ACK is still on the old, longer line as the second
    takes the new one, so they arrive bunched (0.4 ms apart): one probe reads 2500 pkt/s and
    V_e jumps to about 1300. The window lets 19 of that burst out; V_e counts only those, so
    when the next probe reads 10 pkt/s again 2P skips about 10 pair slots, not 640 (128 s of
    silence before V_e stopped counting packets the window had cut)."""
    r = pp_prop_step("decrease", "pp2")
    p = r.probes
    assert p[(p.time_s > T_STEP) & (p.time_s < T_STEP + 1)].rate_est_pps.max() > 1000   # the outlier
    dropped, delivered, share = pp_losses(r, 1 / S_ALONE)
    assert dropped == 0 and delivered >= share - 2


@pytest.mark.parametrize("call, name", [
    (lambda: k91.telnet_delay_fq(2, 1000, float("nan")), "p_telnet"),
    (lambda: k91.telnet_delay_fq(float("nan"), 1000, 40), "n_ftp"),
    (lambda: k91.telnet_delay_fq(2, 1000, 40, delta=-1), "delta"),
    (lambda: k91.telnet_delay_fq(2, 1000, 40, preemptive="no"), "preemptive"),
    (lambda: k91.telnet_delay_fq_phased(2, 1000, -40), "p_telnet"),
    (lambda: k91.telnet_delay_fq_phased(2, 1000, 40, delta=-100), "delta"),
    (lambda: k91.telnet_delay_fcfs(2, 5, 1000, pipe_time=-1), "pipe_time"),
    (lambda: k91.telnet_delay_fcfs(2, [2.5, 2.5], 1000), "window"),
    (lambda: k91.telnet_delay_fcfs(2, 5.0, 1000), "window"),
    (lambda: k91.transient_increase_propagation_delay(50, .5, 1, .1, [0.2]), "upstream_s"),
    (lambda: k91.transient_increase_propagation_delay(50, .5, 1, .1, [0.01], rho_throttle=0), "rho_throttle"),
    (lambda: k91.transient_increase_service_rate(50, 1, .2, .1, [0.01], queued=-5), "queued"),
    (lambda: k91.transient_increase_service_rate(float("nan"), 1, .2, .1, [0.01]), "t0"),
    (lambda: k91.transient_decrease_service_rate(50, 1, float("nan"), .2), "s_b_old"),
])
def test_models_refuse_bad_arguments_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_phased_delay_uses_the_closed_form_for_long_telnet_packets():
    # P >= P_F: A = N(P - P_F/2) whatever the phases, without walking ~P/P_F packets per FTP.
    assert k91.telnet_delay_fq_phased(2, 1000, 1e12) == pytest.approx(2 * (1e12 - 500))
    for phases in ("synchronised", "staggered"):
        assert k91.telnet_delay_fq_phased(3, 1000, 1500, phases) == pytest.approx(3 * (1500 - 500))
