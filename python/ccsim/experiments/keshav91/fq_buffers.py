"""Keshav 1991 chapter 3 §3.5: the trace-driven cost of FQ's four buffering structures.

The engine does the measuring: ``ccsim._core.fq_buffers_evaluate`` runs one workload (an
ordinary scenario: N JK sources through one gateway whose trunk runs FQ with chapter 3's
settings; ``ccsim::queue::fq_buffers::workload``), records the gateway's buffer operations and
replays them against LINK, TREE, HEAP and PERC, returning each structure's costs. This module
chooses the workloads (the calibration point, the trace-length check, a reconstruction of
Fig 3.4's sweep), reads what the thesis prints from ``fq_buffers_reference.toml``, checks the
chapter's qualitative findings and writes the report of ``ccsim experiment
keshav91-fq-buffers``.

Choices where the thesis is silent (Figs 3.2-3.4 are missing from the extraction):
- the sweep's points (``fig34_sweep``): only the axes' shapes are in the text;
- the thresholds of the vaguely worded findings ("most cases", "roughly constant"), stated in
  each check's claim;
- Table 3.1's orders are evaluated with log base 2 and constant 1, as §3.5's sizing example
  evaluates them; HEAP and PERC keep two heaps and an insert may sift up in both, so their
  worst case as the replay counts it is twice Table 3.1's log2 (``counted_worst``), and
  §3.5's "average below half the worst case" is compared against that.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

REFERENCE = Path(__file__).with_name("fq_buffers_reference.toml")

#: The structures, in the engine's order.
STRUCTURES = ("LINK", "TREE", "HEAP", "PERC")

#: Fig 3.4 reconstruction [NOT IN THESIS]: the factors of B0 = W*N0 (axis C) and of N0
#: (axis D), seven points each, from a quarter to four times.
SWEEP_FACTORS = (0.25, 0.4, 0.63, 1.0, 1.6, 2.5, 4.0)
#: ... and the N of axes A and B.
SWEEP_CONVERSATIONS = (2, 6, 10, 14, 18, 22, 26)
#: The long trace of the trace-length check, in multiples of the thesis's trace length.
LONG_TRACE_FACTOR = 4


# ---------------------------------------------------------------------------------------------
# The thesis's numbers
# ---------------------------------------------------------------------------------------------

def _field(data: dict, path: str, kind: type | tuple[type, ...], where: Path):
    value = data
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise ValueError(f"{where.name}: {path}: missing")
        value = value[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"{where.name}: {path}: expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def load_reference(path: Path = REFERENCE) -> dict:
    """The thesis's numbers for chapter 3, checked: every field the report uses is present
    and of its type (the error names the file and the field)."""
    with open(path, "rb") as f:
        ref = tomllib.load(f)
    number = (int, float)
    for key in ("trace.calibration_conversations", "trace.calibration_buffers", "sweep.simulations",
                "sizing.buffers", "sizing.conversations"):
        if _field(ref, key, int, path) < 1:
            raise ValueError(f"{path.name}: {key}: expected a positive integer")
    for key in ("trace.seconds", "trace.convergence_tolerance", "sizing.heap_worst", "sizing.perc_worst",
                "sizing.average_over_worst_below", "sizing.perc_average"):
        _field(ref, key, number, path)
    _field(ref, "findings", list, path)
    for table, cells in (("table_3_1", {"best": str, "worst": str, "average": str}),
                         ("table_3_2", {"static": number, "dynamic": int})):
        rows = _field(ref, table, list, path)
        names = [r.get("structure") for r in rows]
        if names != list(STRUCTURES):
            raise ValueError(f"{path.name}: {table}: expected one row per structure in the order "
                             f"{', '.join(STRUCTURES)}, got {names}")
        for i, row in enumerate(rows):
            for cell, kind in cells.items():
                _field(row, cell, kind, Path(f"{path.name}: {table}[{i}]"))
        ref[table] = {r["structure"]: r for r in rows}
    return ref


def table_3_1_worst(k: str, n: int, b: int) -> float:
    """Table 3.1's worst case at log base 2, constant 1: B for LINK and TREE, log2 B for HEAP,
    log2 N for PERC."""
    return {"LINK": b, "TREE": b, "HEAP": math.log2(b), "PERC": math.log2(max(n, 1))}[k]


def table_3_1_average(k: str, n: int, b: int) -> float:
    """Table 3.1's "average (uniformly random workload)" column, evaluated the same way."""
    return {"LINK": b, "TREE": math.log2(b), "HEAP": math.log2(b), "PERC": math.log2(max(n, 1))}[k]


def counted_worst(k: str, n: int, b: int) -> float:
    """The worst insertion cost as the replay counts it: two sift-ups for HEAP and PERC."""
    w = table_3_1_worst(k, n, b)
    return 2 * w if k in ("HEAP", "PERC") else w


# ---------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------

@dataclass
class Evaluation:
    """One workload run in the engine and replayed: ``workload``, ``stats`` and ``costs`` as
    ``ccsim._core.fq_buffers_evaluate`` returns them (costs by structure name)."""
    workload: dict
    stats: dict
    costs: dict

    @property
    def n(self) -> int:
        return self.workload["conversations"]

    @property
    def b(self) -> int:
        return self.workload["buffers"]

    def avg(self, k: str) -> float:
        return self.costs[k]["avg_insert"]

    def cheapest(self) -> str:
        return min(STRUCTURES, key=self.avg)  # ties: the first, as in the engine's order

    def dearest(self) -> str:
        return max(reversed(STRUCTURES), key=self.avg)  # ties: the last

    def load_ratio(self) -> float:
        return self.workload["max_window"] * self.n / self.b

    def underloaded(self) -> bool:
        """§3.5: "the gateway cannot be congested if W*N <= B"."""
        return self.workload["max_window"] * self.n <= self.b


class Runner:
    """Evaluates workloads in the engine, once each."""

    def __init__(self, seed: int):
        self.seed = seed
        self._done: dict[tuple, Evaluation] = {}

    def __call__(self, conversations: int, buffers: int, duration_s: float) -> Evaluation:
        from ccsim import _core

        key = (conversations, buffers, duration_s)
        if key not in self._done:
            r = _core.fq_buffers_evaluate({"conversations": conversations, "buffers": buffers,
                                           "duration_s": duration_s, "seed": self.seed})
            self._done[key] = Evaluation(r["workload"], r["stats"], {c["name"]: c for c in r["structures"]})
        return self._done[key]


def _round(x: float) -> int:
    """Half away from zero, at least 1."""
    return max(1, math.floor(x + 0.5))


def fig34_sweep(max_window: int, n0: int) -> list[tuple[str, int, int]]:
    """A reconstruction of Fig 3.4's five axes, seven points each: (axis, N, B). Only the
    axes' shapes are from the text; the points are [NOT IN THESIS]. With B0 = W*N0 (a point on
    F, the line W*N = B):
    - A, underloaded everywhere: B = 2*W*N, N from 2 to 26;
    - B, overloaded everywhere: B = W*N/2, same N;
    - C, crossing F at fixed N = N0: B from B0/4 to 4*B0;
    - D, crossing F at fixed B = B0: N from N0/4 to 4*N0 (rounded);
    - E, crossing F along the other diagonal: N from N0/2 to 2*N0 while B goes from 2*B0 to
      B0/2."""
    w, b0 = float(max_window), float(max_window * n0)
    pts = [("A", n, _round(2 * w * n)) for n in SWEEP_CONVERSATIONS]
    pts += [("B", n, _round(w * n / 2)) for n in SWEEP_CONVERSATIONS]
    pts += [("C", n0, _round(b0 * x)) for x in SWEEP_FACTORS]
    pts += [("D", _round(n0 * x), _round(b0)) for x in SWEEP_FACTORS]
    for i in range(len(SWEEP_FACTORS)):
        s = (i - 3.0) / 3.0  # -1 .. 1
        pts.append(("E", _round(n0 * 2.0 ** s), _round(b0 * 2.0 ** -s)))
    return pts


# ---------------------------------------------------------------------------------------------
# The chapter's qualitative findings
# ---------------------------------------------------------------------------------------------

@dataclass
class Check:
    claim: str
    holds: bool
    detail: str


def qualitative_checks(points: list[tuple[str, Evaluation]], ref: dict) -> list[Check]:
    """The chapter's qualitative findings (reference ``findings``) on a sweep. Points are grouped
    by axis ('A' underloaded everywhere, 'B' overloaded everywhere); the other axes enter the
    claims stated for every point. Where the text is vague the threshold is in the claim."""
    evals = [e for _, e in points]
    total = len(evals)
    a = [e for ax, e in points if ax == "A"]
    b = [e for ax, e in points if ax == "B"]

    def count(f) -> int:
        return sum(1 for e in evals if f(e))

    def ns(v, f) -> str:
        hit = [str(e.n) for e in v if f(e)]
        return f"{len(hit)}/{len(v)} points (N = {','.join(hit) if hit else 'none'})"

    out: list[Check] = []

    def push(claim, holds, detail):
        out.append(Check(claim, bool(holds), detail))

    n = count(lambda e: e.avg("PERC") < e.avg("HEAP") and e.avg("PERC") < e.avg("TREE"))
    push("PERC costs less than HEAP and TREE at every point", n == total, f"{n}/{total} points")

    n = count(lambda e: e.avg("HEAP") <= 10.0 * e.avg("PERC"))
    push("HEAP within 10x of PERC in most cases (> half the points)", 2 * n > total, f"{n}/{total} points")

    def link_cheapest(e):
        return e.cheapest() == "LINK"

    n = sum(1 for e in a if link_cheapest(e))
    push("LINK cheapest in the underloaded region (every point of axis A)", a and n == len(a), ns(a, link_cheapest))

    n = count(lambda e: e.cheapest() == "LINK" and not e.underloaded())
    push("LINK never cheapest when overloaded (zone I lies in W*N <= B)", n == 0,
         f"{n} overloaded points with LINK cheapest")

    def link_dearest(e):
        return e.dearest() == "LINK"

    n = sum(1 for e in b if link_dearest(e))
    push("LINK dearest in the overloaded region (most points of axis B)", b and 2 * n > len(b), ns(b, link_dearest))

    n = sum(1 for e in a if e.dearest() == "TREE")
    m = sum(1 for e in b if e.avg("TREE") > max(e.avg("HEAP"), e.avg("PERC")))
    push("TREE dearest underloaded (A); dearer than HEAP and PERC overloaded (B)",
         a and n == len(a) and m == len(b), f"A {n}/{len(a)}, B {m}/{len(b)}")

    pairs = list(zip(a, b))
    n = sum(1 for x, y in pairs if x.avg("TREE") > y.avg("TREE"))
    push("TREE dearer underloaded (A) than overloaded (B) at the same N", pairs and n == len(pairs),
         f"{n}/{len(pairs)} N values")

    def ends(v, k):
        return (v[0].avg(k) if v else 0.0, v[-1].avg(k) if v else 0.0)

    def spread(v, k):
        lo, hi = math.inf, 0.0
        for e in v:
            lo, hi = min(lo, e.avg(k)), max(hi, e.avg(k))
        return hi / max(lo, 1e-9)

    (h0, h1), (p0, p1) = ends(b, "HEAP"), ends(b, "PERC")
    push("HEAP and PERC insertion costs rise with N overloaded (axis B, last > first)", b and h1 > h0 and p1 > p0,
         f"HEAP {h0:.2f}->{h1:.2f}, PERC {p0:.2f}->{p1:.2f}")
    sh, sp = spread(a, "HEAP"), spread(a, "PERC")
    push("HEAP and PERC insertion costs roughly constant in N underloaded (axis A, max/min <= 1.5)",
         a and sh <= 1.5 and sp <= 1.5, f"max/min HEAP {sh:.2f}, PERC {sp:.2f}")

    n = count(lambda e: e.n < 2 or e.avg("PERC") < math.log2(e.n))
    push("PERC average below its theoretical average log2 N", n == total, f"{n}/{total} points")

    half = ref["sizing"]["average_over_worst_below"]
    n = count(lambda e: all(e.avg(k) < half * counted_worst(k, e.n, e.b) for k in ("HEAP", "PERC")))
    push("HEAP and PERC averages below half their worst case as counted here (2 log2 B, 2 log2 N: both heaps), "
         "most points", 2 * n > total, f"{n}/{total} points")

    n = count(lambda e: all(e.costs[k]["max_insert"] <= e.costs[k]["insert_bound"] for k in STRUCTURES))
    push("Maximum insertion work within Table 3.1's orders (explicit bounds)", n == total, f"{n}/{total} points")

    n = sum(1 for e in a if all(e.costs[k]["avg_get_min"] > e.avg(k) for k in ("HEAP", "PERC")))
    push("Underloaded, HEAP and PERC deletion costs exceed their insertion costs", a and n == len(a),
         f"{n}/{len(a)} points")

    n = count(lambda e: all(e.costs[k]["same_outcome"] for k in STRUCTURES))
    push("All four send and drop the same packets (V11)", n == total, f"{n}/{total} points")
    return out


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------

def report(seed: int = 1, reference: Path = REFERENCE) -> tuple[str, int, int]:
    """The whole chapter-3 evaluation as text: the calibration point against Tables 3.1 and
    3.2, the trace-length check, the Fig 3.4 sweep with the §3.5 findings checked, and the
    sizing example. Returns (text, checks held, checks in all)."""
    from .fq_buffers_render import _num, render_convergence, render_sizing, render_sweep, render_table

    ref = load_reference(reference)
    tr = ref["trace"]
    n0, b0, secs = tr["calibration_conversations"], tr["calibration_buffers"], float(tr["seconds"])
    run = Runner(seed)
    out = ["Keshav 1991 ch. 3: average-case cost of FQ buffering (elementary operations per call)",
           "cost unit: one link traversal (LINK, TREE) or one heap exchange (HEAP, PERC); inserts include their drops",
           ""]

    out.append(f"== Calibration point (thesis: N = {n0}, B = {b0}, {_num(secs)} s); thesis cells are Table 3.1 "
               "at log base 2, constant 1")
    cal = run(n0, b0, secs)
    out.append(render_table(cal, ref))

    out.append(f"== Fig 3.3: trace length (thesis: every metric within {100 * tr['convergence_tolerance']:.0f}% of its "
               f"asymptote at {_num(secs)} s)")
    long = run(n0, b0, LONG_TRACE_FACTOR * secs)
    out.append(render_convergence(cal, long, ref))

    sweep = fig34_sweep(cal.workload["max_window"], n0)
    out.append(f"== Fig 3.4 reconstruction: {len(sweep)} points on axes A (W*N < B) .. E; '<' cheapest, '>' dearest "
               "average insertion")
    points = [(axis, run(n, b, secs)) for axis, n, b in sweep]
    out.append(render_sweep(points))
    out.append("== §3.5 findings on the sweep")
    checks = qualitative_checks(points, ref)
    out += [f"{'PASS' if c.holds else 'FAIL'}  {c.claim}  [{c.detail}]" for c in checks]
    out.append("")
    out.append(render_sizing(points, ref))
    out.append("Table 3.2 (thesis, implementation cost): static = insert() code size relative to LINK, dynamic = "
               "instructions per elementary operation")
    for k in STRUCTURES:
        t2 = ref["table_3_2"][k]
        out.append(f"  {k:4}  static {t2['static']:.1f}  dynamic {t2['dynamic']:3}")
    out.append("")
    out.append(f"{len(points) + 1} traces of {_num(secs)} s (plus one of {_num(LONG_TRACE_FACTOR * secs)} s)")
    held = sum(1 for c in checks if c.holds)
    return "\n".join(out) + "\n", held, len(checks)
