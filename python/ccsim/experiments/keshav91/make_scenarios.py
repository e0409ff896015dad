"""Write the Keshav 1991 Chapter 6 scenario files, python/ccsim/scenarios/keshav91/*.toml.

    python -m ccsim.experiments.keshav91.make_scenarios            # (re)write the files
    python -m ccsim.experiments.keshav91.make_scenarios --check    # exit 1 if any file is stale
    python -m ccsim.experiments.keshav91.make_scenarios --out DIR  # write elsewhere

One file per run: Scenarios 1-4 and 6-8 with each of the seven protocol pairs of Table 6.1
(s<N>-<pair>.toml, pair = g-fcfs, g-fq, jk-fcfs, jk-fq, dec-dec, dec-fqbit, pp-fq), Scenario 1's
extra PP run with setpoint 2 (s1-pp-fq-setpoint2.toml) and Scenario 5's four mixed cases
(s5-jkg-fcfs, s5-jkg-fq, s5-ppg-fq, s5-ppjk-fq). The structure is written by the builder's
``dumps_toml``; comments are added beside the lines they explain: what the thesis states, and
every [REC] choice (the digest's recommendation where the thesis is silent), with its gap number
in shared/specs/keshav91-experiments.md §8. The output is deterministic: same script, same bytes.

Flow names start with the thesis's source number ("1 FTP", "3 Telnet", "3 Bkg") so a report
can match a flow to its cells in reference.toml; the header of each file quotes those cells.
"""

from __future__ import annotations

import sys
import textwrap
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ccsim.builder import dumps_toml
from ccsim.experiments.kit.scenario_files import scenario_files_main

from ccsim.experiments.keshav91 import THESIS

REFERENCE = THESIS.reference
DEFAULT_OUT = THESIS.scenario_dir  # inside the package: ccsim/scenarios/keshav91

SLOW, FAST = "80kbps", "800kbps"      # 10 and 100 FTP packets/s [C6 §6.6]
FTP_SIZE, SMALL = "1000B", "40B"      # FTP data; Telnet data and every ACK [C6 §6.6]


# -- protocol pairs (Table 6.1) -------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    slug: str      # file-name part
    label: str     # as the result tables spell it (reference.toml [[pairs]].label)
    cc: str        # flow control of the FTPs and Telnets
    queue: str     # queue discipline of every port
    words: str     # for the description


PAIRS = [
    Pair("g-fcfs", "G/FCFS", "generic", "droptail", "Generic flow control, FCFS switches"),
    Pair("g-fq", "G/FQ", "generic", "fq", "Generic flow control, Fair Queueing switches"),
    Pair("jk-fcfs", "JK/FCFS", "jk", "droptail", "Jacobson-Karels (4.3BSD-Tahoe) flow control, FCFS switches"),
    Pair("jk-fq", "JK/FQ", "jk", "fq", "Jacobson-Karels flow control, Fair Queueing switches"),
    Pair("dec-dec", "DEC/DEC", "dec", "decbit", "DECbit sources, selective DECbit switches"),
    Pair("dec-fqbit", "DEC/FQB", "dec", "fqbit", "DECbit sources, Fair Queueing switches with bit setting (FQbit)"),
    Pair("pp-fq", "PP/FQ", "pp", "fq", "Packet-Pair (PP_CTH) flow control, Fair Queueing switches"),
]
PAIR = {p.slug: p for p in PAIRS}

# FQ's drop tie-break among conversations tied for the longest queue (the thesis is silent; the
# engine's default, largest tail bid, is spec A11's [REC]). Smallest tail bid measured better
# (ccsim reproduce keshav91, 5 seeds): D cells 311 vs 305 PASS, S 102 vs 98, hard checks 121 vs
# 120; S5 PP/JK FQ becomes loss-free at 2.57 pkt/s (thesis 2.50, no loss). Finding
# S5-pp-losses-under-fq.
TIE_BREAK = "smallest_bid"
QUEUE_PARAMS: dict[str, dict | None] = {
    "droptail": None,
    "fq": {"delta": 0, "charge_drops": False, "drop_policy": "longest", "tie_break": TIE_BREAK},
    "fqbit": {"delta": 0, "charge_drops": False, "drop_policy": "longest", "tie_break": TIE_BREAK, "mark_fraction": 0.333},
    "decbit": {"capacity_factor": 0.9, "panic": True},
}
QUEUE_NOTES = {
    "droptail": "FCFS with drop-tail ([REC] §3.1: the thesis never names the drop rule)",
    "fq": ("Fair Queueing. delta = 0 is the thesis's promptness (§6.6); charge_drops = false: a dropped "
           "packet's finish number is rolled back, as §6.6.4 states the runs did ([REC] G8: Ch2 says the "
           "opposite); drop_policy = \"longest\": on overflow drop the last packet of the conversation holding "
           "the most buffers (Ch2's rule, [REC] G8; Ch3 drops the largest bid)"),
    "fqbit": ("FQ with bit setting: FQ as elsewhere (delta = 0 thesis; charge_drops = false, drop_policy = "
              "\"longest\": [REC] G8), plus the congestion bit whenever a conversation's queue exceeds "
              "mark_fraction = 1/3 of its fair buffer share (§6.5); fair share = buffers / active "
              "conversations at the port, tested at arrival ([REC] G21)"),
    "decbit": ("Selective DECbit: FCFS with drop-tail plus bit setting; capacity factor 0.9 and panic "
               "mode on are the thesis's Scenario 6 settings (§6.6.6), used in every scenario ([REC] "
               "G15; averaging, overload and panic thresholds are the engine's defaults)"),
}
PP_NOTE = "PP_CTH only ever runs with FQ (§6.6; Chapter 4: infeasible with FCFS)"


# -- a document: the scenario dict plus comments keyed by path ------------------------------

@dataclass
class Doc:
    name: str
    description: str
    duration: str
    interval: str
    discard: int
    trace_period: str
    header: list[str]
    data: dict = field(init=False)
    notes: dict = field(default_factory=dict)

    def __post_init__(self):
        self.data = {
            "name": self.name,
            "description": self.description,
            "seed": 1,
            "duration": self.duration,
            "measure": {"interval": self.interval, "discard": self.discard, "trace_period": self.trace_period},
            "nodes": {"hosts": [], "switches": []},
            "links": [],
            "flows": [],
        }

    def note(self, path: tuple, text: str) -> None:
        self.notes[path] = text

    def hosts(self, *names: str) -> None:
        self.data["nodes"]["hosts"].extend(names)

    def switches(self, *names: str) -> None:
        self.data["nodes"]["switches"].extend(names)

    def link(self, a: str, b: str, bandwidth: str, delay: str, buffer: int, queue: str,
             block: str | None = None, notes: dict | None = None) -> None:
        d: dict[str, Any] = {"between": [a, b], "bandwidth": bandwidth, "delay": delay,
                             "buffer": f"{buffer}pkt", "count_in_service": COUNT_IN_SERVICE, "queue": queue}
        if QUEUE_PARAMS[queue] is not None:
            d["queue_params"] = dict(QUEUE_PARAMS[queue])
        i = len(self.data["links"])
        self.data["links"].append(d)
        if block:
            self.note(("links", i), block)
        for k, v in (notes or {}).items():
            if v:
                self.note(("links", i, k), v)

    def flow(self, d: dict, block: str | None = None, notes: dict | None = None) -> None:
        i = len(self.data["flows"])
        self.data["flows"].append(d)
        if block:
            self.note(("flows", i), block)
        for k, v in (notes or {}).items():
            self.note(("flows", i, k), v)

    def render(self) -> str:
        lines = [("# " + h).rstrip() for h in self.header]
        section: tuple = ()
        counts: dict[str, int] = {}
        for line in dumps_toml(self.data).splitlines():
            if line.startswith("[["):
                name = line[2:-2]
                counts[name] = counts.get(name, -1) + 1
                section = (name, counts[name])
                lines.extend(_comment(self.notes.get(section), ""))
            elif line.startswith("["):
                section = (line[1:-1],)
            elif " = " in line:
                key = line.split(" = ", 1)[0]
                text = self.notes.get(section + (key,))
                if text:
                    if len(line) + len(text) + 4 <= 100:
                        line = f"{line}  # {text}"
                    else:
                        lines.extend(_comment(text, ""))
            lines.append(line)
        return "\n".join(lines) + "\n"


def _comment(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    return [indent + "# " + ln for ln in textwrap.wrap(text, 94, break_on_hyphens=False)]


# -- flows ----------------------------------------------------------------------------------

# Whether the packet on the line occupies one of the buffers (spec gap G7). The spec recommends
# true; the thesis's full-buffer RTTs say false: S4's FTP RTT 2.10 s is 21 packets x 0.1 s with
# 20 buffers (true gives 1.95 s), S2 JK/FCFS 2.45 s (true 2.27, false 2.37). Measured with
# `ccsim reproduce keshav91` (5 seeds): false passes 286 D cells and 114 hard checks, true 284
# and 110.
COUNT_IN_SERVICE = False
CIS_NOTE = ("false, against G7's [REC] true: the thesis's full-buffer RTTs (S4 FTP 2.10 s = 21 packets x "
            "0.1 s with 20 buffers) say the packet on the line does not take a buffer")


def ftp(name: str, src: str, dst: str, cc: str, max_window: int, setpoint: float | None = None) -> dict:
    d: dict[str, Any] = {"name": name, "src": src, "dst": dst, "app": "ftp", "cc": cc,
                         "max_window": max_window, "packet_size": FTP_SIZE, "ack_size": SMALL}
    if cc == "pp":
        d["params"] = {"setpoint": setpoint}
    return d


def telnet(name: str, src: str, dst: str, cc: str) -> dict:
    return {"name": name, "src": src, "dst": dst, "app": "telnet", "mean_gap": "5s", "cc": cc,
            "max_window": 5, "packet_size": SMALL, "ack_size": SMALL}


def pp_window(n: int, pair_cc: str, default: int) -> tuple[int, str | None]:
    """Max window of a scenario's FTPs, and the note for a PP source's cap (gap G12)."""
    if pair_cc != "pp":
        return default, None
    if n == 1:
        return 10, ("[REC] G12: PP not capped at 5 here; the thesis's S1 PP FTPs hold 6-7 packets "
                    "outstanding (4.99 pkt/s x 1.48 s), so its 'max window 5' did not bind them")
    if n in (2, 5):
        return 5, ("5, the thesis's default, not G12's >= 10 (which S1 motivates): here the thesis's PP "
                   "holds about 4 packets outstanding with no loss (S2: 1.66 pkt/s x 2.40 s); with a cap "
                   "of 10 the start-up overshoot of six (S2) or two (S5) PP sources fills the buffer and "
                   "the losses sustain themselves (ccsim reproduce keshav91: S2 PP drops 0.2-0.35/s)")
    if n == 6:
        return 5, ("5, not G12's >= 10: spec §4.6 gives every S6 source window 5, and Table 6.9's PP "
                   "row (5.00 pkt/s x 1.00 s = 5 outstanding, the same as the window-bound JK/FQ row) "
                   "says the cap bound PP here; with 10 the setpoint would set RTT instead")
    return default, None


def setpoint_note(n: int) -> str:
    return {
        1: "setpoint 5 packets at the bottleneck: thesis §6.6.1",
        2: ("2.5, calibrated against Table 6.4's PP RTT as spec §3.8 [REC] allows: G11's rule "
            "(25 buffers / 8 conversations) / 2 = 1.56 leaves sources 1-2 at 1.54-1.62 s and 3-6 at "
            "2.12-2.20 s; 2.5 gives 2.19-2.24 s for all six (thesis 2.40) with drops <= 0.005/s; 3 "
            "gives drops of 0.03/s (cargo run --release --example runfile on variants of this file)"),
        3: "[REC] G11: (40 buffers / 3 conversations) / 2",
        4: "[REC] G11: (20 buffers / 3 conversations) / 2",
        5: "[REC] G11: (15 buffers / 4 conversations) / 2",
        6: "[REC] G11: (40 buffers / 2 conversations per slow link) / 2",
        7: "[REC] G11: (120 buffers / 6 conversations per slow link) / 2",
        8: "[REC] G11: (120 buffers / 6 conversations per slow link) / 2",
    }[n]


SETPOINT = {1: 5, 2: 2.5, 3: 6.667, 4: 3.333, 5: 1.875, 6: 10, 7: 10, 8: 10}


# -- the thesis's numbers for the header ----------------------------------------------------

def load_reference() -> dict:
    with open(REFERENCE, "rb") as f:
        return tomllib.load(f)


def _fmt(c: dict) -> str:
    m = c["mean"]
    s = "0" if m == 0 else f"{m:.2f}" if round(m, 2) == m else f"{m:g}"
    if "sd" in c:
        s += f"+-{c['sd']:.2f}"
    return s


def thesis_lines(ref: dict, n: int, label: str) -> list[str]:
    """One line per (table, phase): 'source: thr, delay, drop, retx' as the thesis prints them."""
    out = []
    for t in ref["tables"]:
        if t["scenario"] != f"S{n}":
            continue
        for phase in t.get("phases", [None]):
            rows = [r for r in t["rows"] if r["pair"] == label and r.get("phase") == phase]
            if not rows:
                continue
            metrics = [m for m in ("throughput", "delay", "drop", "retx") if m in t["metrics"]]
            head = f"Table {t['id']}" + (f", background {phase}" if phase else "") + " (" + ", ".join(
                {"throughput": "pkt/s", "delay": "RTT s", "drop": "drops/s", "retx": "retx/s"}[m] for m in metrics) + "):"
            cells = [f"{r['source']} {r['label']} " + " ".join(_fmt(r[m]) for m in metrics if m in r) for r in rows]
            out.extend(textwrap.wrap(head + " " + "; ".join(cells), 94, subsequent_indent="  "))
    return out


# -- the scenarios --------------------------------------------------------------------------

COMMON_TAIL = [
    "Every output port of every link gets the scenario's buffer count (the packet in service",
    "occupies a slot) and the pair's queue discipline ([REC] §2.3, G7). Seed 1; other seeds via",
    "`ccsim run --seed`. [REC] = the digest's recommendation where the thesis is silent.",
    "Generated by python/ccsim/experiments/keshav91/make_scenarios.py: edit that, not this file.",
]


def header(n: int, title: str, refs: str, topology: list[str], label: str, words: str, ref: dict) -> list[str]:
    h = textwrap.wrap(f"Keshav 1991, Chapter 6, Scenario {n} ({title}): protocol pair {label}. {words}.", 94)
    h += textwrap.wrap(f"Thesis {refs}; digest shared/specs/keshav91-experiments.md §4.{n}.", 94) + [""]
    h += topology + [""]
    tl = thesis_lines(ref, n, label)
    if tl:
        h += ["The thesis's numbers for this run (mean+-sd of interval means; no sd = below 0.005):"]
        h += tl + [""]
    return h + COMMON_TAIL


def _measure_notes(doc: Doc, n: int) -> None:
    if n in (7, 8):
        doc.note(("duration",), "[REC] §7, G1: 8 intervals of 1000 s (>= 40 RTTs of 12-36 s)")
        doc.note(("measure", "interval"), "[REC] §2.7: intervals of 1000 s")
    elif n == 3:
        doc.note(("duration",), "thesis §6.6.3: background on 0-300 s, off 300-600 s, on 600-900 s")
        doc.note(("measure", "interval"), "[REC] G22: one interval per 300 s phase")
        doc.note(("measure", "discard"), "[REC] G22: keep all three; Table 6.6 = interval 1 (off) and 2 (on)")
    else:
        doc.note(("duration",), "[REC] §7, G1: 8 intervals of 250 s (the thesis: 'typically 7')")
        doc.note(("measure", "interval"), "[REC] §2.7: 250 s, from the Telnet throughput sds")
        doc.note(("measure", "discard"), "the first interval is discarded (thesis §6.3)")


def single_switch(n: int, pair: Pair, ref: dict, *, title: str, refs: str, buffer: int, buffer_note: str,
                  sources: list[tuple], slow_delay: str = "0s", window: int = 5, window_note: str = "",
                  topology: list[str], setpoint: float | None = None, suffix: str = "",
                  label: str | None = None, words: str | None = None, desc_pair: str | None = None) -> Doc:
    """Scenarios 1-5: every source on its own fast line into one switch, one slow line to the sink.

    sources: (number, kind, cc) with kind ftp, telnet, bkg or bad."""
    label = label or pair.label
    duration, interval, discard = ("900s", "300s", 0) if n == 3 else ("2000s", "250s", 1)
    doc = Doc(name=f"keshav91-s{n}-{pair.slug}{suffix}",
              description=f"Keshav 1991 {refs.split('; ')[0]} Scenario {n} ({refs.split('; ')[1]}): "
                          f"{title}; pair {desc_pair or label}",
              duration=duration, interval=interval, discard=discard, trace_period="0.5s",
              header=header(n, title, refs, topology, label, words or pair.words, ref))
    _measure_notes(doc, n)
    hosts = [f"{kind}{num}" for num, kind, _ in sources]
    doc.hosts(*hosts, "sink")
    doc.switches("switch")
    q = pair.queue
    doc.link("switch", "sink", SLOW, slow_delay, buffer, q,
             block="The bottleneck: the switch's 80 kb/s line to the sink (10 FTP packets/s).",
             notes={"buffer": buffer_note, "count_in_service": CIS_NOTE,
                    "queue": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is None else None,
                    "queue_params": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is not None else None,
                    **({"delay": "thesis §6.6.3: 2 s propagation on the slow line (Fig 6.9)"} if slow_delay != "0s" else {})})
    for i, h in enumerate(hosts):
        doc.link(h, "switch", FAST, "0s", buffer, q,
                 block="Feeder lines: 800 kb/s (100 FTP packets/s), no propagation delay (§6.6)." if i == 0 else None)
    first = {"ftp": True, "telnet": True}
    for num, kind, cc in sources:
        host = f"{kind}{num}"
        if kind == "ftp":
            w, wnote = pp_window(n, cc, window)
            d = ftp(f"{num} {'FTP' if n != 5 else s5_label(sources, num)}", host, "sink", cc, w,
                    SETPOINT[n] if setpoint is None else setpoint)
            notes = {}
            if first["ftp"] or (cc == "pp" and n == 5 and num == 1):
                notes["max_window"] = wnote or window_note
                if cc == "pp":
                    notes["params"] = (f"setpoint 2 instead of 5: the thesis's extra S1 point (§6.6.1: RTTs "
                                       f".846 and .788 s)" if setpoint == 2 else setpoint_note(n))
                    notes["cc"] = PP_NOTE
                first["ftp"] = False
            doc.flow(d, notes=notes)
        elif kind == "telnet":
            notes = {}
            if first["telnet"]:
                notes = {"cc": "[REC] G14: Telnets run the pair's flow control (the tables show Telnet "
                               "retransmissions under G and JK)",
                         "mean_gap": "thesis §6.6: exponential gaps, mean 5 s; first keystroke one gap after t = 0 ([REC] G14)",
                         "max_window": "thesis §6.6: 'Both FTPs and Telnets have their maximum window size set to 5'"}
                first["telnet"] = False
            doc.flow(telnet(f"{num} Telnet", host, "sink", cc), notes=notes)
        elif kind == "bkg":
            doc.flow({"name": f"{num} Bkg", "src": host, "dst": "sink", "app": "onoff", "rate": "5pps",
                      "on": [["0s", "300s"], ["600s", "900s"]], "cc": "none", "packet_size": FTP_SIZE},
                     block=("The thesis's 'Bkg' (source 3 here): no flow control, half the bottleneck rate, on "
                            "for 300 s, off for 300 s, on for 300 s (§6.6.3)."),
                     notes={"rate": "thesis: 5 pkt/s; constant bit rate [REC] §2.5 ('almost completely deterministic')",
                            "packet_size": "[REC] §2.5: FTP-sized packets"})
        elif kind == "bad":
            doc.flow({"name": f"{num} Ill-behaved", "src": host, "dst": "sink", "app": "cbr", "rate": "10pps",
                      "cc": "none", "packet_size": FTP_SIZE},
                     block=("The ill-behaved source: no flow control, 'sends packets at the rate of the "
                            "switch's outgoing line' (§6.6.4)."),
                     notes={"rate": "10 pkt/s, constant: [INF] from drops = 10 - throughput in Table 6.7",
                            "packet_size": "[REC] G28: 1000 B (0.1 s of slow-line service each)"})
    return doc


def s5_label(sources: list[tuple], num: int) -> str:
    """JK1, JK2, G1, G2, PP1, PP2: Table 6.8's column names."""
    cc = {s[0]: s[2] for s in sources}[num]
    same = [s[0] for s in sources if s[2] == cc]
    return {"jk": "JK", "generic": "G", "pp": "PP"}[cc] + str(same.index(num) + 1)


def scenario1(pair: Pair, ref: dict, setpoint: float | None = None) -> Doc:
    return single_switch(
        1, pair, ref, title="no stress: 2 FTP + 2 Telnet", refs="§6.6.1; Fig 6.2, Tables 6.2 and 6.3",
        buffer=40, buffer_note="thesis Fig 6.2: 40 buffers",
        window_note="thesis Fig 6.2: max window 5 for all sources",
        sources=[(1, "ftp", pair.cc), (2, "ftp", pair.cc), (3, "telnet", pair.cc), (4, "telnet", pair.cc)],
        topology=["FTPs 1, 2 and Telnets 3, 4 each reach one switch over an 800 kb/s line; the switch's",
                  "80 kb/s line leads to the sink. No propagation delay, 40 buffers, windows of 5: enough",
                  "buffers that nothing is lost."],
        setpoint=setpoint, suffix="-setpoint2" if setpoint == 2 else "",
        words=None if setpoint is None else pair.words + "; PP setpoint 2 instead of 5 (the §6.6.1 text's extra run)",
        desc_pair=None if setpoint is None else "PP/FQ with setpoint 2")


def scenario2(pair: Pair, ref: dict) -> Doc:
    return single_switch(
        2, pair, ref, title="overload: 6 FTP + 2 Telnet", refs="§6.6.2; Fig 6.4, Tables 6.4 and 6.5",
        buffer=25, buffer_note="thesis §6.6.2: 25 buffers (6 windows of 5 do not fit)",
        window_note="thesis §6.6.2: max window 5",
        sources=[(i, "ftp", pair.cc) for i in range(1, 7)] + [(7, "telnet", pair.cc), (8, "telnet", pair.cc)],
        topology=["FTPs 1-6 and Telnets 7, 8 each reach one switch over an 800 kb/s line ([REC]: Fig 6.4 is",
                  "lost; the S1 arrangement); the switch's 80 kb/s line leads to the sink. No propagation",
                  "delay, 25 buffers, windows of 5, so the FTPs overflow the buffer."])


def scenario3(pair: Pair, ref: dict) -> Doc:
    return single_switch(
        3, pair, ref, title="2 s propagation delay, on/off background",
        refs="§6.6.3; Fig 6.9, Table 6.6, Figs 6.10-6.13",
        buffer=40, buffer_note="thesis Fig 6.9: 40 buffers",
        window=40, window_note="thesis Fig 6.9: max window 40 (the FTPs of every pair)",
        slow_delay="2s",
        sources=[(1, "ftp", pair.cc), (2, "ftp", pair.cc), (3, "bkg", "none")],
        topology=["FTPs 1, 2 and the background source reach one switch over 800 kb/s lines; the switch's",
                  "80 kb/s line to the sink has 2 s one-way propagation delay (4 s round trip = 40 packets",
                  "in flight). 40 buffers; FTP windows of 40."])


def scenario4(pair: Pair, ref: dict, charge_drops: bool = False) -> Doc:
    """charge_drops: the text's counterfactual (§6.6.4, check S4-c1): FQ keeps a dropped
    packet's finish number, so the ill-behaved source pays for what it could not send."""
    doc = single_switch(
        4, pair, ref, title="firewall: 1 FTP, 1 Telnet, 1 ill-behaved source",
        refs="§6.6.4; Fig 6.14, Table 6.7", suffix="-charge-drops" if charge_drops else "",
        label=f"{pair.label} (charging drops)" if charge_drops else None,
        words=(pair.words + ", charging dropped packets' finish numbers: the §6.6.4 counterfactual, which "
               "the thesis did not run or tabulate; its text says the ill-behaved source 'would get almost "
               "nothing' (check S4-c1)") if charge_drops else None,
        buffer=20, buffer_note=("[REC] G3: 20 buffers (not stated); JK/FCFS and DEC/DEC FTP RTT 2.10 s with "
                                "the queue always full"),
        window_note="thesis §6.6: max window 5",
        sources=[(1, "ftp", pair.cc), (2, "telnet", pair.cc), (3, "bad", "none")],
        topology=["FTP 1, Telnet 2 and ill-behaved source 3 (mapping inferred from Table 6.7's FQ rows) reach",
                  "one switch over 800 kb/s lines ([REC]: Fig 6.14 is lost; the S1 arrangement); the switch's",
                  "80 kb/s line leads to the sink. No propagation delay."])
    if charge_drops:
        for link in doc.data["links"]:
            link["queue_params"]["charge_drops"] = True
        doc.note(("links", 0, "queue_params"),
                 "charge_drops = true: the counterfactual of §6.6.4 ('we do not punish malicious sources by "
                 "incrementing the finish number even for dropped packets. Had we done so...'); Ch2's rule "
                 "(G8). Otherwise as s4-" + pair.slug + ".toml")
    return doc


S5_CASES = {
    "jkg-fcfs": ("JK/G FCFS", "jk", "generic", "droptail", "JK sources 1-2 and Generic sources 3-4, FCFS switches"),
    "jkg-fq": ("JK/G FQ", "jk", "generic", "fq", "JK sources 1-2 and Generic sources 3-4, Fair Queueing switches"),
    "ppg-fq": ("PP/G FQ", "pp", "generic", "fq", "PP_CTH sources 1-2 and Generic sources 3-4, Fair Queueing switches"),
    "ppjk-fq": ("PP/JK FQ", "pp", "jk", "fq", "PP_CTH sources 1-2 and JK sources 3-4, Fair Queueing switches"),
}


def scenario5(slug: str, ref: dict) -> Doc:
    label, cc1, cc2, queue, words = S5_CASES[slug]
    pair = Pair(slug, label, cc1, queue, words)
    return single_switch(
        5, pair, ref, title="heterogeneous flow control: 2 + 2 FTPs", refs="§6.6.5; Fig 6.15, Table 6.8",
        buffer=15, buffer_note="thesis §6.6.5: 15 buffers (three windows of 5 fill it)",
        window_note="thesis §6.6.5: max window 5",
        sources=[(1, "ftp", cc1), (2, "ftp", cc1), (3, "ftp", cc2), (4, "ftp", cc2)],
        topology=["Four FTPs reach one switch over 800 kb/s lines ([REC]: Fig 6.15 is lost; the S1",
                  "arrangement); the switch's 80 kb/s line leads to the sink. No propagation delay. Sources",
                  "1-2 run the first protocol, 3-4 the second (Table 6.8's columns, e.g. JK1 JK2 G1 G2)."])


def scenario6(pair: Pair, ref: dict) -> Doc:
    n = 6
    topo = ["[REC] G4 (Fig 6.16 is lost; spec §4.6): switches A -> B -> C -> D joined by 80 kb/s lines,",
            "no propagation delay. Short FTP 1 runs A->B (sink1 at B), 2 runs B->C, 3 runs C->D; the long",
            "FTP 4 runs A->D across all three. Every slow line is shared by one short and the long FTP",
            "(ideal: 5 pkt/s each). The sinks hang off 80 kb/s lines, as in Fig 6.2 (finding S6-fcfs-short-loop:",
            "with 800 kb/s sink lines FCFS settles into a 19-slot cycle, 7.37/2.63; with 80 kb/s ones into",
            "the thesis's 7-slot cycle, 7.143/2.857). Windows of 5; 20 buffers per port; nothing is lost."]
    doc = Doc(name=f"keshav91-s6-{pair.slug}",
              description=f"Keshav 1991 §6.6.6 Scenario 6 (Fig 6.16, Table 6.9): long path vs short paths, "
                          f"three slow links in tandem; pair {pair.label}",
              duration="2000s", interval="250s", discard=1, trace_period="0.5s",
              header=header(n, "long path vs short paths", "§6.6.6; Fig 6.16, Table 6.9", topo,
                            pair.label, pair.words, ref))
    _measure_notes(doc, n)
    doc.hosts("ftp1", "ftp2", "ftp3", "ftp4", "sink1", "sink2", "sink3", "sink4")
    doc.switches("A", "B", "C", "D")
    q = pair.queue
    for i, (a, b) in enumerate((("A", "B"), ("B", "C"), ("C", "D"))):
        doc.link(a, b, SLOW, "0s", 20, q,
                 block=f"Slow line {i + 1} of 3 (80 kb/s): FTP {i + 1} and FTP 4 share it.",
                 notes={"buffer": "20 buffers per port (not stated; G4 suggests 40): S4's inferred size; no S6 "
                                  "pair loses a packet with it, and FQbit's threshold 20/2/3 = 3.3 packets then "
                                  "marks the short sources as Table 6.9's DEC/FQB RTTs (0.91 s) need "
                                  "(finding S6-decfqb-buffers)",
                        "count_in_service": CIS_NOTE,
                        "queue": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is None else None,
                        "queue_params": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is not None else None} if i == 0 else None)
    for i, (h, s) in enumerate((("ftp1", "A"), ("ftp4", "A"), ("ftp2", "B"), ("ftp3", "C"))):
        doc.link(h, s, FAST, "0s", 20, q, block="Access lines: 800 kb/s, no delay." if i == 0 else None)
    for i, (h, s) in enumerate((("sink1", "B"), ("sink2", "C"), ("sink3", "D"), ("sink4", "D"))):
        doc.link(h, s, SLOW, "0s", 20, q,
                 block="Sink lines: 80 kb/s, as Fig 6.2 hangs the sink off the slow line (finding "
                       "S6-fcfs-short-loop)." if i == 0 else None)
    w, wnote = pp_window(n, pair.cc, 5)
    for num, dst, kind in ((1, "sink1", "short"), (2, "sink2", "short"), (3, "sink3", "short"), (4, "sink4", "long")):
        notes = {}
        if num == 1:
            notes["max_window"] = wnote or "thesis §6.6.6: max window 5"
            if pair.cc == "pp":
                notes["params"] = setpoint_note(n)
                notes["cc"] = PP_NOTE
        doc.flow(ftp(f"{num} FTP {kind}", f"ftp{num}", dst, pair.cc, w, SETPOINT[n]), notes=notes)
    return doc


def scenario78(n: int, pair: Pair, ref: dict) -> Doc:
    title = ("large delays, Poisson cross traffic, 3 potential bottlenecks" if n == 7
             else "as Scenario 7 with unequal RTTs (12 s and 24 s)")
    refs = "§6.6.7; Fig 6.17, Table 6.10, Figs 6.18-6.22" if n == 7 else "§6.6.8; Fig 6.23, Table 6.11"
    topo = ["Switches sw1 -> sw2 -> sw3 -> sw4 joined by three 80 kb/s lines, each with 2 s one-way",
            "propagation (round trip 12 s, [INF] §4.7); 120 buffers per port (thesis: the bandwidth-delay",
            "product). FTPs 1 and 2 enter at sw1 over 800 kb/s lines and leave at sw4. Cross traffic",
            "([REC] G5, option B): at each slow line four Poisson sources (2 pkt/s each, no flow",
            "control) enter at the upstream switch and leave at the downstream one, 12 in all, so each",
            "slow line carries 6 sources; the FTPs' fair share is 1.66 pkt/s. FTP windows of 60."]
    if n == 8:
        topo += ["Scenario 8: source 2's access line adds 12 s one-way, so its path's RTT is 36 s, not",
                 "the 24 s the text states ([INF] from Table 6.11, against the spec's G6 of +6 s): under",
                 "FCFS both FTPs wait in the same queues, yet the thesis's JK/FCFS RTTs differ by 24.3 s",
                 "(14.75, 39.09), and its PP source 2 is exactly window-bound on a 36 s path (60 / 36.5 =",
                 "1.64 pkt/s). keshav91 finding S8-long-path-is-36s; set the delay to 6 s for G6's reading."]
    doc = Doc(name=f"keshav91-s{n}-{pair.slug}",
              description=f"Keshav 1991 {refs.split('; ')[0]} Scenario {n} ({refs.split('; ')[1]}): {title}; "
                          f"pair {pair.label}",
              duration="8000s", interval="1000s", discard=1, trace_period="1s",
              header=header(n, title, refs, topo, pair.label, pair.words, ref))
    _measure_notes(doc, n)
    pois = [f"p{k}{x}" for k in (1, 2, 3) for x in "abcd"]
    doc.hosts("ftp1", "ftp2", "sink", *pois, "psink1", "psink2", "psink3")
    doc.switches("sw1", "sw2", "sw3", "sw4")
    q = pair.queue
    for k in (1, 2, 3):
        doc.link(f"sw{k}", f"sw{k + 1}", SLOW, "2s", 120, q,
                 block=(f"Slow line {k} of 3: 80 kb/s, 2 s one-way"
                        + (" (thesis §6.6.7: 'a delay of 2 s ... for a single link')." if k == 1 else ".")),
                 notes={"buffer": "thesis §6.6.7: 120 switch buffers (10 pkt/s x 12 s)",
                        "count_in_service": CIS_NOTE,
                        "queue": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is None else None,
                        "queue_params": QUEUE_NOTES[q] if QUEUE_PARAMS[q] is not None else None} if k == 1 else None)
    doc.link("ftp1", "sw1", FAST, "0s", 120, q, block="Access lines: 800 kb/s, no delay unless stated.")
    doc.link("ftp2", "sw1", FAST, "12s" if n == 8 else "0s", 120, q,
             notes={"delay": "[INF] +12 s one-way: a 36 s RTT, which Table 6.11 implies (G6, the text: +6 s, 24 s)"} if n == 8 else None)
    doc.link("sw4", "sink", FAST, "0s", 120, q)
    for k in (1, 2, 3):
        for x in "abcd":
            doc.link(f"p{k}{x}", f"sw{k}", FAST, "0s", 120, q)
        doc.link(f"sw{k + 1}", f"psink{k}", FAST, "0s", 120, q)
    w = 60
    for num in (1, 2):
        notes = {}
        if num == 1:
            notes["max_window"] = ("thesis §6.6.7: 'constrained by a maximum window size of 60' (said of PP; "
                                   "[REC] G12: the same cap for every pair's FTPs)")
            if pair.cc == "pp":
                notes["params"] = setpoint_note(n)
                notes["cc"] = PP_NOTE
        doc.flow(ftp(f"{num} FTP", f"ftp{num}", "sink", pair.cc, w, SETPOINT[n]), notes=notes)
    for k in (1, 2, 3):
        for i, x in enumerate("abcd"):
            doc.flow({"name": f"Poisson link{k} {x}", "src": f"p{k}{x}", "dst": f"psink{k}", "app": "poisson",
                      "mean_gap": "0.5s", "cc": "none", "packet_size": FTP_SIZE},
                     block=(f"Poisson cross traffic on slow line {k} only ([REC] G5 option B; unnumbered in the "
                            f"thesis). No ACKs: the sink discards them ([REC] §2.5).") if i == 0 else None,
                     notes={"mean_gap": "thesis §6.6.7: mean gap 0.5 s (2 pkt/s, 20% of a slow line)",
                            "packet_size": "[INF]/[REC] G28: 1000 B ('each packet takes 0.1 seconds')"}
                     if (k, i) == (1, 0) else None)
    return doc


# -- driver ---------------------------------------------------------------------------------

def build_all(ref: dict | None = None) -> dict[str, str]:
    """File name -> text, in a fixed order."""
    ref = ref if ref is not None else load_reference()
    out: dict[str, str] = {}
    for n in (1, 2, 3, 4, 6, 7, 8):
        for p in PAIRS:
            if n == 1:
                doc = scenario1(p, ref)
            elif n == 2:
                doc = scenario2(p, ref)
            elif n == 3:
                doc = scenario3(p, ref)
            elif n == 4:
                doc = scenario4(p, ref)
            elif n == 6:
                doc = scenario6(p, ref)
            else:
                doc = scenario78(n, p, ref)
            out[f"s{n}-{p.slug}.toml"] = doc.render()
        if n == 1:
            out["s1-pp-fq-setpoint2.toml"] = scenario1(PAIR["pp-fq"], ref, setpoint=2).render()
        if n == 4:
            out["s4-g-fq-charge-drops.toml"] = scenario4(PAIR["g-fq"], ref, charge_drops=True).render()
            for slug in S5_CASES:
                out[f"s5-{slug}.toml"] = scenario5(slug, ref).render()
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    return scenario_files_main(argv, build_all, DEFAULT_OUT, __doc__)


if __name__ == "__main__":
    sys.exit(main())
