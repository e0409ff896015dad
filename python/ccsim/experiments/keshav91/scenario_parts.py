"""The pieces Keshav 1991's scenario files are made of (make_scenarios.py puts them together):
the protocol pairs of Table 6.1 and their queue settings, a document that carries comments
beside the lines they explain, the FTP and Telnet flows with their [REC] readings, and the
thesis's numbers for each file's header."""

from __future__ import annotations

import textwrap
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ccsim.builder import dumps_toml

from ccsim.experiments.keshav91 import THESIS

REFERENCE = THESIS.reference
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
