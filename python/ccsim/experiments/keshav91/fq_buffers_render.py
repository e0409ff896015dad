"""The text of ``ccsim experiment keshav91-fq-buffers``'s report: chapter 3's tables beside the
replayed costs (``fq_buffers.py`` chooses the workloads and checks the findings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fq_buffers import STRUCTURES, counted_worst, table_3_1_average, table_3_1_worst

if TYPE_CHECKING:
    from .fq_buffers import Evaluation


def _num(x) -> str:
    """A number as plain text: no trailing '.0' on whole values."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def render_table(e: Evaluation, ref: dict) -> str:
    """One evaluation beside the thesis's values. Thesis cells evaluate Table 3.1's orders at
    this (N, B) with log base 2 and constant 1, as §3.5's sizing example does; HEAP and PERC
    averages use §3.5's "less than half of the worst case"."""
    w, st, n, b = e.workload, e.stats, e.n, e.b
    half = ref["sizing"]["average_over_worst_below"]
    lines = [
        f"workload: N={n} B={b} W={w['max_window']} (W*N/B = {e.load_ratio():.2f}, "
        f"{'underloaded' if e.underloaded() else 'overloaded'}), trunk {w['trunk_bps']} b/s, "
        f"feeders {w['feeder_bps']} b/s, propagation {_num(w['propagation_s'])} s, {_num(w['duration_s'])} s, "
        f"seed {w['seed']}",
        f"trace: {st['arrivals']} arrivals ({st['sent_directly']} straight to an idle trunk), {st['inserts']} inserts, "
        f"{st['get_mins']} get_min, {st['drops']} drops, {st['timeouts']} timeouts, "
        f"{st['retransmissions']} retransmissions; buffer mean {st['mean_buffered']:.1f} max {st['max_buffered']}; "
        f"trunk busy {100 * st['trunk_utilisation']:.1f}%",
    ]
    header = ["structure", "avg ins (sim)", "avg ins (thesis)", "max ins (sim)", "max ins (thesis)", "avg del (sim)",
              "max del (sim)", "static T3.2", "dyn instr/op T3.2", "instr/ins (sim avg x dyn)", "same output"]
    rows = []
    for k in STRUCTURES:
        c, t1, t2 = e.costs[k], ref["table_3_1"][k], ref["table_3_2"][k]
        if k in ("LINK", "TREE"):
            thesis_avg = f"{t1['average']}={table_3_1_average(k, n, b):.1f} T3.1"
        else:
            thesis_avg = f"<{half * counted_worst(k, n, b):.2f} (½ of 2 log2, §3.5)"
        rows.append([k, f"{c['avg_insert']:.3f}", thesis_avg, str(c["max_insert"]),
                     f"{t1['worst']}={table_3_1_worst(k, n, b):.1f} T3.1", f"{c['avg_get_min']:.3f}",
                     str(c["max_get_min"]), f"{t2['static']:.1f}", str(t2["dynamic"]),
                     f"{c['avg_insert'] * t2['dynamic']:.0f}", "yes" if c["same_outcome"] else "NO"])
    width = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        return " | ".join(c.ljust(width[i]) if i == 0 else c.rjust(width[i]) for i, c in enumerate(cells))

    lines += [line(header), "-+-".join("-" * x for x in width)] + [line(r) for r in rows]
    return "\n".join(lines) + "\n"


def render_convergence(short: Evaluation, long: Evaluation, ref: dict) -> str:
    """Fig 3.3's question: is the trace long enough? Each structure's average insertion cost
    after every tenth of the short trace, the long trace's value as the asymptote, and the
    short value's relative distance to it (the thesis: at most the tolerance)."""
    tol = ref["trace"]["convergence_tolerance"]
    marks = short.costs[STRUCTURES[0]]["insert_convergence"]
    head = "structure |" + "".join(" " + f"{t:.0f}s".rjust(7) for t, _ in marks)
    asymptote_at = f"{long.workload['duration_s']:.0f}s"
    lines = [head + f" | {asymptote_at:>9} | {'distance':>8} | within {100 * tol:.0f}%"]
    for k in STRUCTURES:
        c, asymptote = short.costs[k], long.avg(k)
        d = abs(c["avg_insert"] - asymptote) / max(asymptote, 1e-9)
        lines.append(f"{k:9} |" + "".join(f" {v:7.3f}" for _, v in c["insert_convergence"])
                     + f" | {asymptote:9.3f} | {100 * d:7.1f}% | {'PASS' if d <= tol else 'FAIL'}")
    return "\n".join(lines) + "\n"


def render_sweep(points: list[tuple[str, Evaluation]]) -> str:
    """One line per sweep point: axis, N, B, W*N/B, drops, and each structure's average
    insertion cost, the cheapest marked '<' and the dearest '>'."""
    lines = ["axis    N     B  W*N/B   drops |      LINK       TREE       HEAP       PERC"]
    for axis, e in points:
        row = f"   {axis} {e.n:4} {e.b:5} {e.load_ratio():6.2f} {e.stats['drops']:7} |"
        for k in STRUCTURES:
            mark = "<" if e.cheapest() == k else ">" if e.dearest() == k else " "
            row += f" {e.avg(k):9.3f}{mark}"
        lines.append(row)
    return "\n".join(lines) + "\n"


def render_sizing(points: list[tuple[str, Evaluation]], ref: dict) -> str:
    """§3.5's sizing example beside the same formulas, and the simulated ratio of average to
    worst case over the sweep (the thesis: below one half)."""
    sz = ref["sizing"]
    b, n, half = sz["buffers"], sz["conversations"], sz["average_over_worst_below"]
    lines = [
        f"§3.5 sizing example: B = {b} packets (32 MB / 1 KB), N = {n} conversations",
        f"  HEAP worst per insert: thesis {sz['heap_worst']:.0f}, log2 B = {table_3_1_worst('HEAP', n, b):.2f}; "
        f"with this module's counting (two sift-ups) at most {2 * ((b + 1).bit_length() - 1)}",
        f"  PERC worst per insert: thesis {sz['perc_worst']:.0f}, log2 N = {table_3_1_worst('PERC', n, b):.2f}; "
        f"with this module's counting at most {2 * (n.bit_length() - 1)}",
        f"  PERC average: thesis about {sz['perc_average']:.0f} (= half the worst case, \"average ... less than half "
        f"of the worst case\")",
    ]
    for k in ("HEAP", "PERC"):
        ratios = [e.avg(k) / max(counted_worst(k, e.n, e.b), 1.0) for _, e in points]
        if not ratios:
            continue
        below = sum(1 for r in ratios if r < half)
        lines.append(f"  simulated {k} average / worst as counted here (2 log2): mean {sum(ratios) / len(ratios):.2f}, "
                     f"max {max(ratios):.2f}, below {_num(half)} at {below}/{len(ratios)} points "
                     f"(thesis: below {_num(half)})")
    return "\n".join(lines) + "\n"
