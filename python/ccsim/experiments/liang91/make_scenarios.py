"""Write the Liang 1991 scenario files, python/ccsim/scenarios/liang91/*.toml.

    python -m ccsim.experiments.liang91.make_scenarios            # (re)write the files
    python -m ccsim.experiments.liang91.make_scenarios --check    # exit 1 if any file is stale
    python -m ccsim.experiments.liang91.make_scenarios --out DIR  # write elsewhere

One file per run of chapters 4 and 5: the threshold sweep (t41-*), reacting against static
predicting (t42-*, t43-*), static against dynamic (t44-*), filtering (t45-*), byte against
packet buffers (t46-*), the cut-back sweeps (t47-*, t48-*, t410-*), Classes 1-3 (c1-*, c2-*,
c3-*: each experiment with DEC, Slow Start and SEIF), the Tri-S comparison (tris-*) and §6.1's
future work (c2-*-k2: the slower increase; f62-*: several bottlenecks), and §2.1's and §2.2's
reviews of Source Quench (sq-*) and BBN's rations (bbn-*; both review_scenarios.py). Each
file's header says what the thesis states and which readings of spec
shared/specs/liang91-seif.md (§3, §5 item numbers A1-A22) fill its gaps. The output is
deterministic: same script, same bytes.

Flow names start with the thesis's source number ("1 S1", "3 S3") so the report can match a
flow to its cells in reference.toml.
"""

from __future__ import annotations

import sys

from ccsim.builder import dumps_toml
from ccsim.experiments.kit.scenario_files import scenario_files_main

from ccsim.experiments.liang91 import THESIS
from ccsim.experiments.liang91.schemes import SLOW_START, scheme, with_params

DEFAULT_OUT = THESIS.scenario_dir  # inside the package: ccsim/scenarios/liang91
DATA, ACK = 512, 50                # bytes on the wire (§4.2, A-list §1.1)
ROUTERS = [f"r{i}" for i in range(1, 7)]
# Fig. 5.11 (Tri-S Topology Two) is not legible: "merge" (two equal branches into the shared
# link, the reading SEIF's published equal shares need) or "chain" (spec §3.1's: S2 nearer).
FIG511 = "merge"
# The dynamic policy's arrival-rate average (eq. 4.2's λ): its time constant is not in the
# thesis. Measured on Table 4.4 (15 cells): dt itself (35 ms) 7, 0.1 s 10, 0.15 s 11, 0.2 s and
# 0.25 s 12, 0.3 s 11, 0.5 s 10, 1 s 8, 2 s 7 (finding dynamic-policy-estimator).
DYNAMIC_RATE_TAU = "200ms"
# Class 3's Telnet sources: packets a closed window holds back (A12). None: they wait without
# limit (the spec's default); a number: that many wait and the rest are discarded (the flow
# field `source_buffer`; 0 is A12's variant). Measured in finding c3-source-backlog.
SOURCE_BUFFER: int | None = None
# Class 3 Exps 4 and 8's mean gap, s: the text's 0.004 or the captions' 0.001 (A9).
FASTEST_GAP = 0.004
# Fig. 5.9 (Class 2 Exps 9-11 and Class 3) is not legible (A2): "spec" (S4 at R6 sending to
# R1, across four links, its ACKs through the three loaded forward ones) or "s4_at_r5" (S4 at
# R5 sending to R4: it crosses only the bottleneck). Measured in finding c2-fig59-layout.
FIG59 = "spec"
FIG59_S4 = {"spec": [("s4", "r6"), ("d4", "r1")], "s4_at_r5": [("s4", "r5"), ("d4", "r4")]}


def link(a: str, b: str, bw: str, delay: str = "0s") -> dict:
    return {"between": [a, b], "bandwidth": bw, "delay": delay}


def ms(x: float) -> str:
    return f"{x:g}ms"


def scenario(stem: str, title: str, notes: list[str], *, hosts: list[tuple[str, str]], chain: list[tuple[str, str]],
             access: dict[str, tuple[str, str]], flows: list[dict], routers: dict, flow_common: dict,
             duration: float = 80.0, warmup: float = 20.0, max_window: int = 30, data: int = DATA,
             switches: list[str] | None = None, branches: tuple = ()) -> tuple[str, str]:
    """One scenario file. `hosts` = (host, router) attachments; `chain` = (bandwidth, delay) of
    each router-to-router link in order; `access` = host -> (bandwidth, delay) of its link;
    `branches` = (router, router, bandwidth, delay) links off the chain."""
    switches = switches or ROUTERS[:len(chain) + 1]
    links = []
    for host, router in hosts:
        bw, d = access[host]
        links.append({**link(host, router, bw, d), **routers})
    for (a, b), (bw, d) in zip(zip(switches, switches[1:]), chain):
        links.append({**link(a, b, bw, d), **routers})
    for a, b, bw, d in branches:
        links.append({**link(a, b, bw, d), **routers})
    body = {
        "name": f"liang91-{stem}",
        "description": f"Liang 1991 {title}",
        "seed": 1,
        "duration": f"{duration:g}s",
        "measure": {"interval": f"{warmup:g}s" if warmup else "10s", "discard": 1, "trace_period": "50ms"},
        "nodes": {"hosts": [h for h, _ in hosts], "switches": switches},
        "links": links,
        # A flow's "own" settings win over the common ones (the §2.1 runs' per-source windows).
        "flows": [{**{k: v for k, v in f.items() if k != "own"}, **flow_common, "max_window": max_window,
                   "packet_size": f"{data}B", "ack_size": f"{ACK}B", **f.get("own", {})} for f in flows],
    }
    header = [f"Liang 1991, {title}.", ""] + notes + [
        "",
        "Every router output port gets the scheme's discipline and buffer; a host's own port is",
        "its unlimited interface queue. Throughput counts whole data packets delivered in order",
        f"in [{warmup:g}, {duration:g}] s (the first interval is the warm-up the thesis discards).",
        "Generated by python/ccsim/experiments/liang91/make_scenarios.py: edit that, not this file.",
    ]
    text = "".join(f"# {line}".rstrip() + "\n" for line in header) + dumps_toml(body)
    return f"{stem}.toml", text


# -- the chain topologies of §3.1 ------------------------------------------------------------

# Link parameter sets of chapter 4 (§3.2): access links, and the five router-to-router links.
P = {
    1: (("128kbps", "0s"), [("64kbps", "3ms")] * 5),
    2: (("128kbps", "3ms"), [("128kbps", "3ms")] * 2 + [("64kbps", "3ms")] + [("128kbps", "3ms")] * 2),
    3: (("10Mbps", "0s"), [("10Mbps", "0s")] * 2 + [("64kbps", "3ms")] + [("10Mbps", "0s")] * 2),
}
P_WORDS = {1: "P1: access links 128 kb/s with no latency, router links 64 kb/s, 3 ms (queue at R1)",
           2: "P2: every link 3 ms, 128 kb/s but R3-R4 at 64 kb/s (queue at R3)",
           3: "P3: 10 Mb/s links with no latency but R3-R4 at 64 kb/s, 3 ms (queue at R3)"}


def chain_run(stem, title, notes, *, fwd: list[int], rev: list[int], pset: int, scheme_name: str,
              buffer_bytes: int = 10 * DATA, zero_latency: bool = False, **kw):
    """Sources `fwd` at R1 sending to R6, `rev` at R6 sending to R1 (A2's reading of Figs 4.1,
    4.2, 5.1 and 5.8), on parameter set `pset`."""
    (abw, adl), chain = P[pset]
    if zero_latency:
        adl, chain = "0s", [(bw, "0s") for bw, _ in chain]
    hosts, access, flows = [], {}, []
    for n in fwd:
        hosts += [(f"s{n}", "r1"), (f"d{n}", "r6")]
    for n in rev:
        hosts += [(f"s{n}", "r6"), (f"d{n}", "r1")]
    for h, _ in hosts:
        access[h] = (abw, adl)
    for n in sorted(fwd + rev):
        flows.append({"name": f"{n} S{n}", "src": f"s{n}", "dst": f"d{n}"})
    seif_queue = kw.pop("seif_queue", {})
    flow_common, routers = scheme(scheme_name, buffer_bytes, kw.get("data", DATA), **seif_queue)
    extra = kw.pop("flow_extra", {})
    flow_common = with_params({**flow_common, **{k: v for k, v in extra.items() if k != "params"}},
                              extra.get("params", {}))
    return scenario(stem, title, notes, hosts=hosts, chain=chain, access=access, flows=flows, routers=routers,
                    flow_common=flow_common, **kw)


def chapter4() -> list[tuple[str, str]]:
    out = []
    two_pairs = ("Two pairs in opposite directions (Fig. 4.2's variant): S1 at R1 sends to D1 at R6,",
                 "S3 at R6 to D3 at R1 (A2).")
    for th in (50, 70, 80, 90):
        out.append(chain_run(f"t41-th{th}", f"§4.2, Table 4.1: SEIF with a {th}% feedback threshold",
                             [*two_pairs, P_WORDS[1], "Buffer 10 x 512 B per output port."],
                             fwd=[1], rev=[3], pset=1, scheme_name="seif", seif_queue={"threshold": th / 100}))
    for table, fwd, rev, topo in (("4.2", [1], [], "Topology One (Fig. 4.1): S1 - R1 ... R6 - D1."),
                                  ("4.3", [1, 2], [3], "Topology Two (Fig. 4.2): S1, S2 at R1 to R6; S3 at R6 to R1 (A2).")):
        t = table.replace(".", "")
        for e in (1, 2, 3):
            for policy, word in (("reacting", "react"), ("static", "static")):
                words = "Congestion Control (reacting: feedback on drops)" if policy == "reacting" else \
                    "Congestion Avoidance (static predicting, 80%, filter)"
                out.append(chain_run(f"t{t}-e{e}-{word}", f"§4.2, Table {table} Exp {e}: {words}",
                                     [topo, P_WORDS[e], "Buffer 10 x 512 B per output port."],
                                     fwd=fwd, rev=rev, pset=e, scheme_name="seif", seif_queue={"policy": policy}))
    dt = ms(DATA * 8 / 128 + ACK * 8 / 128)  # router-to-source round trip over a 128 kb/s access link
    for b in (10, 8, 6, 4, 2):
        dyn = {"policy": "dynamic", "dt": dt, "rate_tau": DYNAMIC_RATE_TAU}
        for slug, q in (("static", {}), ("dyn1", {**dyn, "alpha": 0.8}), ("dyn2", {**dyn, "alpha": 0.5})):
            out.append(chain_run(f"t44-b{b}-{slug}", f"§4.2b, Table 4.4: buffer {b} x 512 B, {slug} policy",
                                 ["Topology Two, P1 (Set 2 Exp 1).", f"Dynamic policy: dt = {dt}, the round trip from R1 to",
                                  "a source at it (a 50 B feedback out, a 512 B packet back, 128 kb/s): §1.8.3 [R];",
                                  f"the arrival rate averaged over {DYNAMIC_RATE_TAU} (finding dynamic-policy-estimator)."],
                                 fwd=[1, 2], rev=[3], pset=1, scheme_name="seif", buffer_bytes=b * DATA, seif_queue=q))
    for e, (fwd, rev, pset) in {1: ([1], [], 1), 2: ([1, 2], [3], 2)}.items():
        for slug, filt in (("filter", True), ("nofilter", False)):
            out.append(chain_run(f"t45-e{e}-{slug}", f"§4.3, Table 4.5 Exp {e}: {'' if filt else 'no '}feedback filtering",
                                 ["Topology One, P1." if e == 1 else "Topology Two, P2.", "Buffer 10 x 512 B."],
                                 fwd=fwd, rev=rev, pset=pset, scheme_name="seif", seif_queue={"filter": filt}))
    for b in (20, 10):
        for slug in ("bytes", "packets"):
            routers_note = "byte-oriented buffers (BOBM)" if slug == "bytes" else f"packet-oriented buffers (POBM): {b} slots"
            name, text = chain_run(f"t46-b{b}-{slug}", f"§4.4, Table 4.6: buffer {b} x 512 B, {routers_note}",
                                   [*two_pairs, P_WORDS[1]], fwd=[1], rev=[3], pset=1, scheme_name="seif",
                                   buffer_bytes=b * DATA)
            if slug == "packets":
                text = text.replace(f'buffer = "{b * DATA}B"', f'buffer = "{b}pkt"')
            out.append((name, text))
    for t, fwd, rev, words in (("47", [1], [], "Exp 1: Topology One"),
                               ("48", [1, 2], [], "Exp 2: Topology Two with S3 silent (S1, S2 one way)"),
                               ("410", [1, 2], [3], "Exp 3: Topology Two, all three sources (two-way)")):
        for beta in (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9):
            # A6: the thesis states Set 1's 10 x 512 B buffers; its feedback counts fit
            # 20 x 512 B. The judged runs take 20 x 512 B; the stated ones run beside them.
            for tag, b, said in (("", 20, "20 x 512 B: the buffer the thesis's feedback counts imply (A6)"),
                                 ("-stated", 10, "10 x 512 B, as stated (A6: the feedback counts fit 20 x 512 B)")):
                out.append(chain_run(f"t{t}{tag}-beta{beta}", f"§4.5, Tables 4.7-4.11 {words}, cut-back parameter {beta}",
                                     [P_WORDS[1] + ", with no latency anywhere.", f"Buffer {said}."],
                                     fwd=fwd, rev=rev, pset=1, scheme_name="seif", zero_latency=True, buffer_bytes=b * DATA,
                                     flow_extra={"params": {"beta": beta}}))
    return out


def slower_increase(groups, fig59, chain59, flows59, where59) -> list[tuple[str, str]]:
    """§6.1's future work: Class 2's SEIF runs with the source's +1 after two windows of ACKs
    (`increase_windows = 2`) instead of one; the thesis's preliminary result: far fewer
    feedback messages, throughput and fairness about the same."""
    out, k2 = [], {"params": {"increase_windows": 2}}
    note = "§6.1's slower increase: the SEIF source adds 1 after two windows of ACKs (increase_windows = 2)."
    for e in range(1, 9):
        fwd, rev = groups[(e - 1) % 4 + 1]
        b = 20 if e <= 4 else 10
        out.append(chain_run(f"c2-e{e}-seif-k2", f"§6.1 on §5.2.2 Class 2 Exp {e}: SEIF, slower increase",
                             [f"c2-e{e}-seif.toml with one change. {note}"], fwd=fwd, rev=rev, pset=1,
                             scheme_name="seif", buffer_bytes=b * DATA, flow_extra=k2))
    for e, mw in ((9, 15), (10, 30), (11, 60)):
        fc, routers = scheme("seif", 22 * 1000, 1000)
        out.append(scenario(f"c2-e{e}-seif-k2", f"§6.1 on §5.2.2 Class 2 Exp {e} (maximum window {mw}): SEIF, slower increase",
                            [f"c2-e{e}-seif.toml with one change. {note}", *where59], hosts=fig59, chain=chain59,
                            access={h: ("96kbps", "0s") for h, _ in fig59}, flows=flows59, routers=routers,
                            flow_common=with_params(fc, k2["params"]), max_window=mw, data=1000))
    return out


def multi_bottleneck() -> list[tuple[str, str]]:
    """§6.1's two remedies for duplicate feedback on a path of several bottlenecks, and its
    distance rule, which the thesis proposes and never runs: a parking lot of two 64 kb/s
    bottlenecks, S1 across both, S2 and S3 across one each; plain SEIF, the routers' fed-back
    bit, the sources following the busiest router, feedback only to sources near the router
    (R3 is three links from S1, R1 one)."""
    hosts = [("s1", "r1"), ("d1", "r4"), ("s2", "r1"), ("d2", "r2"), ("s3", "r3"), ("d3", "r4")]
    chain = [("64kbps", "3ms"), ("128kbps", "3ms"), ("64kbps", "3ms")]
    flows = [{"name": "1 S1", "src": "s1", "dst": "d1"}, {"name": "2 S2", "src": "s2", "dst": "d2"},
             {"name": "3 S3", "src": "s3", "dst": "d3"}]
    where = ["A parking lot (not in the thesis): R1-R2 and R3-R4 64 kb/s, R2-R3 128 kb/s, 3 ms each; access",
             "links 128 kb/s, no latency. S1 goes R1 -> R4 across both bottlenecks, S2 R1 -> R2, S3 R3 -> R4.",
             "Buffer 20 x 512 B (A6); source tables kept for the run (A4). The max-min fair shares are 32 kb/s each."]
    out = []
    for slug, words, queue, params in (
            ("plain", "SEIF as the thesis ran it", {}, {}),
            ("guard", "routers withhold feedback from a source with a fed-back packet waiting (fed_back_bit)",
             {"fed_back_bit": True}, {}),
            ("follow", "sources follow only the router that sent the most feedback in the last 10 s (follow_router)",
             {}, {"params": {"follow_router": "10s"}}),
            ("near", "routers send explicit feedback only to sources at most 2 links back (feedback_hops)",
             {"feedback_hops": 2}, {})):
        fc, routers = scheme("seif", 20 * DATA, DATA, **queue)
        out.append(scenario(f"f62-{slug}", f"§6.1, several bottlenecks: {words}", where, hosts=hosts, chain=chain,
                            access={h: ("128kbps", "0s") for h, _ in hosts}, flows=flows, routers=routers,
                            flow_common=with_params(fc, params.get("params", {})), switches=ROUTERS[:4]))
    return out


def chapter5() -> list[tuple[str, str]]:
    out = []
    schemes = (("dec", "DEC Bit (REAL's DEC sources, selective DECbit routers)"),
               ("ss", "Slow Start (REAL's JK sources, losses found by timeout; Random Drop routers)"), ("seif", "SEIF"))
    # Class 1 (§5.2.1): one-way FTP along the chain.
    for e in range(1, 7):
        n = e if e <= 4 else e - 4
        for slug, words in schemes:
            if e <= 4:
                notes = ["Inter-router links 64 kb/s, access links 128 kb/s, no latency (queue at R1)."]
                chain, access = [("64kbps", "0s")] * 5, ("128kbps", "0s")
            else:
                notes = ["R3-R4 64 kb/s, every other link 128 kb/s, all latencies 3000 us (A1: 3 ms)."]
                chain, access = [("128kbps", "3ms")] * 2 + [("64kbps", "3ms")] + [("128kbps", "3ms")] * 2, ("128kbps", "3ms")
            fwd = list(range(1, n + 1))
            hosts = [(f"s{k}", "r1") for k in fwd] + [(f"d{k}", "r6") for k in fwd]
            fc, routers = scheme(slug, 20 * DATA, DATA)
            out.append(scenario(f"c1-e{e}-{slug}", f"§5.2.1 Class 1 Exp {e} ({n} source{'s' * (n > 1)}): {words}",
                                [f"{n} FTP source(s) at R1 sending to R6 (Fig. 5.1, A2).", *notes, "Buffer 20 x 512 B."],
                                hosts=hosts, chain=chain, access={h: access for h, _ in hosts},
                                flows=[{"name": f"{k} S{k}", "src": f"s{k}", "dst": f"d{k}"} for k in fwd],
                                routers=routers, flow_common=fc))
    # Class 2 (§5.2.2) Exps 1-8: two-way FTP on the chain.
    groups = {1: ([1], [2]), 2: ([1, 2], [3]), 3: ([1, 2, 3], [4]), 4: ([1, 2, 3], [4, 5])}
    for e in range(1, 9):
        fwd, rev = groups[(e - 1) % 4 + 1]
        b = 20 if e <= 4 else 10
        for slug, words in schemes:
            out.append(chain_run(f"c2-e{e}-{slug}", f"§5.2.2 Class 2 Exp {e}: {words}",
                                 [f"Forward sources {fwd} at R1, reverse {rev} at R6 (Fig. 5.8 read as Topology Two).",
                                  "Inter-router links 64 kb/s, 3 ms; access links 128 kb/s, no latency.",
                                  f"Buffer {b} x 512 B."], fwd=fwd, rev=rev, pset=1, scheme_name=slug, buffer_bytes=b * DATA))
    # Class 2 Exps 9-11 and Class 3 on Fig. 5.9: partly overlapping paths, bottleneck R4-R5.
    fig59 = [("s1", "r1"), ("d1", "r6"), ("s2", "r2"), ("d2", "r5"), ("s3", "r3"), ("d3", "r6"), *FIG59_S4[FIG59]]
    chain59 = [("96kbps", "0s")] * 3 + [("64kbps", "0s")] + [("96kbps", "0s")]
    flows59 = [{"name": f"{k} S{k}", "src": f"s{k}", "dst": f"d{k}"} for k in (1, 2, 3, 4)]
    s4 = {"spec": "S4 at R6 to R1", "s4_at_r5": "S4 at R5 to R4 (the other reading)"}[FIG59]
    where59 = [f"Fig. 5.9 read as (A2): S1 at R1 to R6, S2 at R2 to R5, S3 at R3 to R6, {s4};",
               "R4-R5 64 kb/s, every other link 96 kb/s, no latency."]
    for e, mw in ((9, 15), (10, 30), (11, 60)):
        for slug, words in schemes:
            fc, routers = scheme(slug, 22 * 1000, 1000)
            out.append(scenario(f"c2-e{e}-{slug}", f"§5.2.2 Class 2 Exp {e} (maximum window {mw}): {words}",
                                [*where59, "Data 1000 B; buffer 22 x 1000 B (A8: the body's reading)."],
                                hosts=fig59, chain=chain59, access={h: ("96kbps", "0s") for h, _ in fig59},
                                flows=flows59, routers=routers, flow_common=fc, max_window=mw, data=1000))
    out += slower_increase(groups, fig59, chain59, flows59, where59)
    for e in range(1, 9):
        gap = (0.1, 0.064, 0.01, FASTEST_GAP)[(e - 1) % 4]
        size = 512 if e <= 4 else 50
        for slug, words in schemes:
            fc, routers = scheme(slug, 22 * 1000, 1000)
            fc = {**fc, "app": "telnet", "mean_gap": f"{gap:g}s"}
            held = "wait at the source (A12)."
            if SOURCE_BUFFER is not None:
                fc["source_buffer"] = SOURCE_BUFFER
                held = f"wait at the source up to {SOURCE_BUFFER} and are discarded beyond (A12's variant)."
            out.append(scenario(f"c3-e{e}-{slug}", f"§5.2.3 Class 3 Exp {e} (Telnet, {size} B, mean gap {gap:g} s): {words}",
                                [*where59, f"Poisson sources; packets a closed window holds back {held}",
                                 "Buffer 22 x 1000 B (slots for the baselines: 22); maximum window 30 (not stated).",
                                 "A9: the text's 0.004 s, not the captions' 0.001 s."],
                                hosts=fig59, chain=chain59, access={h: ("96kbps", "0s") for h, _ in fig59},
                                flows=flows59, routers=routers, flow_common=fc, data=size))
    # SEIF against Tri-S (§5.3): Wang and Crowcroft's topologies as read in spec §3.1.
    for e in (1, 2, 3, 4):
        for slug, words in (("tris", "Tri-S (ccsim's, beside Wang and Crowcroft's published numbers)"), ("seif", "SEIF")):
            fc, routers = scheme(slug, 30 * DATA, DATA)
            if e <= 2:
                n = [1] if e == 1 else [1, 2]
                hosts = [(f"s{k}", "r1") for k in n] + [(f"d{k}", "r2") for k in n]
                chain, switches = [("500kbps", "50ms")], ["r1", "r2"]
                where = ["Fig. 5.10: sources at R1, destinations at R2, one 500 kb/s 50 ms link between."]
            elif FIG511 == "chain":
                n = [1, 2]
                hosts = [("s1", "r1"), ("s2", "r2"), ("d1", "r3"), ("d2", "r3")]
                chain, switches = [("500kbps", "50ms")] * 2, ["r1", "r2", "r3"]
                where = ["Fig. 5.11 read as a chain: S1 at R1 and S2 at R2 send to R3 (S2's path is shorter)."]
            else:
                n = [1, 2]
                hosts = [("s1", "r1"), ("s2", "r4"), ("d1", "r3"), ("d2", "r3")]
                chain, switches = [("500kbps", "50ms")] * 2, ["r1", "r2", "r3", "r4"]
                branch = (("r4", "r2", "500kbps", "50ms"),)
                where = ["Fig. 5.11 read as two branches merging: S1 at R1 and S2 at R4 each cross a 500 kb/s",
                         "50 ms link into R2 and share R2 -> R3 (equal paths; finding tris-topology-two)."]
            flows = [{"name": f"{k} S{k}", "src": f"s{k}", "dst": f"d{k}"} for k in n]
            if e == 4:
                flows[1]["start"] = "9s"
            out.append(scenario(f"tris-e{e}-{slug}", f"§5.3, Table 5.17 Exp {e}: {words}",
                                [*where, "Access links 1 Mb/s, no latency; buffer 30 x 512 B; maximum window 85.",
                                 *(["Source 2 starts at 9 s."] if e == 4 else []),
                                 "The thesis excludes the first 10 s; the run is 70 s (spec §3 [R])."],
                                hosts=hosts, chain=chain, access={h: ("1Mbps", "0s") for h, _ in hosts},
                                flows=flows, routers=routers, flow_common=fc, duration=70.0, warmup=10.0,
                                max_window=85, switches=switches, branches=branch if e > 2 and FIG511 != "chain" else ()))
    return out


def build_all() -> dict[str, str]:
    from .review_scenarios import bbn_ration, source_quench

    files = dict(chapter4() + chapter5() + multi_bottleneck() + source_quench(scenario, DATA)
                 + bbn_ration(scenario, DATA, SLOW_START))
    return dict(sorted(files.items()))


def main(argv: list[str] | None = None) -> int:
    return scenario_files_main(argv, build_all, DEFAULT_OUT, __doc__)


if __name__ == "__main__":
    sys.exit(main())
