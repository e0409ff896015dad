"""The qualitative-check vocabulary: operands, aggregates and check kinds.

A reference's ``[[qchecks]]`` each hold a ``check``: a table with a ``kind`` (``lt`` ...
``only``, ``manual``) whose operands name values of the runs (docs/adding-a-thesis.md lists
the vocabulary):

- ``{pair, source, metric [, stat, phase]}``: one flow's value (:class:`.frames.FrameData`);
- ``{agg, pair | pairs, sources, metric [, stat, phase, where]}`` or ``{agg, of = [...]}``:
  an aggregate (:data:`AGGREGATES`) over flows or over other operands, within each seed;
- ``{trace | probe, pair, source, stat, from, to [, level, above]}``: a statistic of a traced
  quantity over a span of simulated time; ``{trace, pair, port, stat, from, to}`` the same of
  a traced port's column (``packets``, ``bytes``, ``state``: its discipline's own variable);
- ``{curve, x, ...}`` in place of ``pair``: the run of one point of a sweep.

Every number a check compares is a seed median of a quantity computed within each seed. A
check whose run is missing or failed comes out ``not_run``, one whose value is undefined
``no_data``, one the reference words wrongly ``error``: never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from .frames import DataError, NoData, NotRun, fmt
from .operands import (OPS, by_seed, cond_text, describe, meets_per_seed, metric_name, operand, operand_per_seed,
                       source_list, suffix)
from .reference import point_label

# Outcome statuses.
PASS, FAIL, NOT_RUN, NO_DATA, MANUAL, ERROR = "pass", "fail", "not_run", "no_data", "manual", "error"


@dataclass
class Outcome:
    status: str
    detail: str = ""
    values: dict = field(default_factory=dict)


def _meets(data, pair, source, conds) -> bool:
    """Does the cell's seed-median value meet every condition?"""
    for c in conds:
        v = data.cell(pair, source, c["metric"], c.get("stat", "mean"), c.get("phase"))
        if math.isnan(v) or not OPS[c["op"]][1](v, float(c["value"])):
            return False
    return True


def _cells(check: Mapping, data) -> list[tuple[str, int]]:
    pairs = check.get("pairs") or [check["pair"]]
    return [(p, s) for p in pairs for s in source_list(data, p, check["sources"])]


def _bind(check: Mapping, pair: str) -> dict:
    """A copy of ``check`` whose operands (and cell-set fields) that omit the pair get ``pair``."""
    def bind_op(op):
        op = dict(op)
        if "of" in op:
            op["of"] = [bind_op(x) for x in op["of"]]
        elif "pair" not in op and "pairs" not in op:
            op["pair"] = pair
        return op

    c = dict(check)
    for k in ("lhs", "rhs"):
        if isinstance(c.get(k), Mapping):
            c[k] = bind_op(c[k])
    if "terms" in c:
        c["terms"] = [bind_op(t) for t in c["terms"]]
    if "checks" in c:
        c["checks"] = [_bind(x, pair) for x in c["checks"]]
    if c["kind"] in ("sum_between", "all_le", "all_ge", "all_between", "count_ge", "count_le") \
            and "pair" not in c and "pairs" not in c:
        c["pair"] = pair
    return c


def _combine_unknown(outs: list[Outcome]) -> Outcome:
    for st in (NOT_RUN, ERROR, NO_DATA):
        bad = [o for o in outs if o.status == st]
        if bad:
            return Outcome(st, "; ".join(dict.fromkeys(o.detail for o in bad)))
    return Outcome(ERROR, "undetermined")


def evaluate(check: Mapping, data) -> Outcome:
    """Evaluate one check table (the ``check`` of a [[qchecks]] entry) against ``data``."""
    try:
        return _evaluate(_clip_windows(_at_points(check), data), data)
    except NotRun as e:
        return Outcome(NOT_RUN, str(e))
    except NoData as e:
        return Outcome(NO_DATA, str(e))
    except (DataError, KeyError, TypeError, ValueError) as e:
        return Outcome(ERROR, f"{type(e).__name__}: {e}")


def _at_points(node):
    """The check with every ``{curve, x}`` (a point of a sweep) replaced by the ``pair`` label
    of that point's run."""
    if isinstance(node, Mapping):
        out = {k: _at_points(v) for k, v in node.items() if k not in ("curve", "x") or "curve" not in node}
        if "curve" in node:
            out["pair"] = point_label(node["curve"], node["x"])
        return out
    if isinstance(node, list):
        return [_at_points(v) for v in node]
    return node


def _clip_windows(node, data):
    """The check with every trace window [from, to) ending no later than its pair's runs, so a
    shortened run is judged, and described, over the span it covers (a window that starts
    after the run ends is left alone and comes out as no data)."""
    if isinstance(node, Mapping):
        out = {k: _clip_windows(v, data) for k, v in node.items()}
        if ("trace" in out or "probe" in out) and "to" in out:
            end = data.run_end(out.get("pair"))
            if end is not None and float(out.get("from", 0.0)) < end < float(out["to"]):
                out["to"] = end
        return out
    if isinstance(node, list):
        return [_clip_windows(v, data) for v in node]
    return node


def _verdict(ok: bool, text: str, **values) -> Outcome:
    return Outcome(PASS if ok else FAIL, text, values)


def _evaluate(c: Mapping, data) -> Outcome:
    kind = c["kind"]
    if kind == "manual":
        return Outcome(MANUAL, "not machine-checkable: judge it as the statement says (figures below)")

    if kind in OPS:
        sym, f = OPS[kind]
        lhs = operand(data, c["lhs"])
        slack = float(c.get("slack", 0.0))
        if "rhs" in c:
            rhs = operand(data, c["rhs"])
            rtext = f"{describe(c['rhs'])} = {fmt(rhs)}"
        else:
            rhs = float(c["value"])
            rtext = fmt(rhs)
        bound = rhs - slack if kind in ("ge", "gt") else rhs + slack
        stext = f" (slack {fmt(slack)})" if slack else ""
        return _verdict(f(lhs, bound), f"{describe(c['lhs'])} = {fmt(lhs)} {sym} {rtext}{stext}", lhs=lhs, rhs=rhs)

    if kind == "between":
        v = operand(data, c["lhs"])
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{describe(c['lhs'])} = {fmt(v)} in [{fmt(lo)}, {fmt(hi)}]", lhs=v)

    if kind in ("ratio_ge", "ratio_le", "ratio_between", "absdiff_le", "absdiff_ge", "absdiff_between"):
        lhs, rhs = operand_per_seed(data, c["lhs"]), operand_per_seed(data, c["rhs"])
        both = by_seed([lhs, rhs]).dropna()
        if both.empty:
            raise NoData(f"{describe(c['lhs'])} or {describe(c['rhs'])} is undefined in every seed")
        a, b = both[0], both[1]
        ld, rd = describe(c["lhs"]), describe(c["rhs"])
        am, bm = float(a.median()), float(b.median())
        if kind.startswith("ratio"):
            with np.errstate(divide="ignore", invalid="ignore"):
                r = (a / b).where(b != 0, np.where(a > 0, math.inf, np.where(a < 0, -math.inf, math.nan)))
            r = r.dropna()
            if r.empty:
                raise NoData(f"0/0: {ld} and {rd} are both 0")
            v = float(r.median())
            head = f"{ld} / {rd} = {fmt(v)} (seed median of the ratio; medians {fmt(am)} and {fmt(bm)})"
        else:
            v = float((a - b).abs().median())
            head = f"|{ld} - {rd}| = {fmt(v)} (seed median of the difference; medians {fmt(am)} and {fmt(bm)})"
        if kind in ("ratio_ge", "absdiff_ge"):
            return _verdict(v >= float(c["value"]) - 1e-12, f"{head} >= {fmt(float(c['value']))}", value=v)
        if kind in ("ratio_le", "absdiff_le"):
            return _verdict(v <= float(c["value"]) + 1e-12, f"{head} <= {fmt(float(c['value']))}", value=v)
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{head} in [{fmt(lo)}, {fmt(hi)}]", value=v)

    if kind == "sum_between":
        op = {"agg": "sum", "pair": c["pair"], "sources": c["sources"], "metric": c["metric"]}
        for k in ("stat", "phase"):
            if k in c:
                op[k] = c[k]
        v = operand(data, op)
        lo, hi = float(c["lo"]), float(c["hi"])
        return _verdict(lo <= v <= hi, f"{describe(op)} = {fmt(v)} in [{fmt(lo)}, {fmt(hi)}]", sum=v)

    if kind in ("all_le", "all_ge", "all_between"):
        if kind == "all_between":
            lo, hi = float(c["lo"]), float(c["hi"])
            test, want = (lambda v: lo <= v <= hi), f"in [{fmt(lo)}, {fmt(hi)}]"
        elif kind == "all_le":
            lim = float(c["value"])
            test, want = (lambda v: v <= lim), f"<= {fmt(lim)}"
        else:
            lim = float(c["value"])
            test, want = (lambda v: v >= lim), f">= {fmt(lim)}"
        what = f"{metric_name(c['metric'])}{suffix(c)}"
        bad, unknown, shown = [], [], []
        for p, s in _cells(c, data):
            try:
                v = data.cell(p, s, c["metric"], c.get("stat", "mean"), c.get("phase"))
            except (NotRun, NoData, DataError) as e:
                unknown.append((p, s, e))
                continue
            shown.append(f"{p} #{s} {fmt(v)}")
            if math.isnan(v):
                unknown.append((p, s, NoData(f"{p} #{s} {what} is undefined")))
            elif not test(v):
                bad.append(f"{p} #{s} = {fmt(v)}")
        if bad:
            extra = f" ({len(unknown)} cells not available)" if unknown else ""
            return Outcome(FAIL, f"every {what} {want}: fails for " + ", ".join(bad) + extra)
        if unknown:
            kinds = [NOT_RUN if isinstance(e, NotRun) else NO_DATA if isinstance(e, NoData) else ERROR
                     for _, _, e in unknown]
            st = NOT_RUN if NOT_RUN in kinds else ERROR if ERROR in kinds else NO_DATA
            missing = list(dict.fromkeys(p for p, _, e in unknown if isinstance(e, NotRun)))
            msgs = ([f"not run: {', '.join(missing)}"] if missing else []) \
                + list(dict.fromkeys(str(e) for _, _, e in unknown if not isinstance(e, NotRun)))
            return Outcome(st, f"every {what} {want}: holds for the {len(shown)} available cells; " + "; ".join(msgs))
        return Outcome(PASS, f"every {what} {want}: " + ", ".join(shown))

    if kind in ("count_ge", "count_le"):
        n = int(c["n"])
        conds = c.get("where", [])
        sources = source_list(data, c["pair"], c["sources"])
        masks = [meets_per_seed(data, c["pair"], s, conds) if conds else
                 pd.Series(True, index=data.flow_seeds(c["pair"], s)) for s in sources]
        per_seed = by_seed(masks).fillna(False).astype(bool).sum(axis=1)
        cnt = float(per_seed.median())
        ok = cnt >= n if kind == "count_ge" else cnt <= n
        ctext = " and ".join(cond_text(x) for x in conds) or "(no condition)"
        hits = [s for s in sources if _meets(data, c["pair"], s, conds)]
        vals = []
        for s in sources:
            parts = [fmt(data.cell(c["pair"], s, x["metric"], x.get("stat", "mean"), x.get("phase"))) for x in conds]
            vals.append(f"#{s} {'/'.join(parts)}")
        want = f"{'>=' if kind == 'count_ge' else '<='} {n} wanted"
        if len(per_seed) == 1:
            return _verdict(ok, f"{c['pair']}: {fmt(cnt)} of sources {sources} meet {ctext} ({want}; values "
                                f"{', '.join(vals)}: met by {hits or 'none'})", count=cnt)
        # The count is taken in each seed (winners and losers differ between seeds); the
        # per-source values are medians over seeds, another statistic, so they are said apart.
        seeds = ", ".join(f"seed {k}: {int(v)}" for k, v in per_seed.items())
        return _verdict(ok, f"{c['pair']}: {fmt(cnt)} of sources {sources} meet {ctext}, the median over seeds "
                            f"of each seed's count ({seeds}; {want}). Each source's median over seeds: "
                            f"{', '.join(vals)} (by these medians {hits or 'none'} would meet it)", count=cnt)

    if kind == "order":
        slack = float(c.get("slack", 0.0))
        vals = [operand(data, t) for t in c["terms"]]
        ok = all(vals[i] >= vals[i + 1] - slack for i in range(len(vals) - 1))
        text = " >= ".join(f"{describe(t)} = {fmt(v)}" for t, v in zip(c["terms"], vals))
        return _verdict(ok, text + (f" (slack {fmt(slack)})" if slack else ""))

    if kind in ("any_of", "all_of"):
        outs = [evaluate(x, data) for x in c["checks"]]
        text = " | ".join(f"[{o.status}] {o.detail}" for o in outs)
        if kind == "any_of":
            if any(o.status == PASS for o in outs):
                return Outcome(PASS, text)
            if all(o.status == FAIL for o in outs):
                return Outcome(FAIL, text)
        else:
            if any(o.status == FAIL for o in outs):
                return Outcome(FAIL, text)
            if all(o.status == PASS for o in outs):
                return Outcome(PASS, text)
        u = _combine_unknown(outs)
        return Outcome(u.status, text)

    if kind == "only":
        expect = set(c["expect"])
        outs = {p: evaluate(_bind(c["test"], p), data) for p in c["pairs"]}
        holds = {p for p, o in outs.items() if o.status == PASS}
        wrong = [p for p, o in outs.items() if o.status in (PASS, FAIL) and (o.status == PASS) != (p in expect)]
        unknown = [o for o in outs.values() if o.status not in (PASS, FAIL)]
        text = (f"holds for {', '.join(sorted(holds)) or 'none'}; expected exactly {', '.join(sorted(expect))} ("
                + "; ".join(f"{p}: {o.status}" for p, o in outs.items()) + ")")
        if wrong:
            return Outcome(FAIL, text + "; wrong for " + ", ".join(wrong))
        if unknown:
            u = _combine_unknown(unknown)
            return Outcome(u.status, text + "; " + u.detail)
        return Outcome(PASS, text)

    raise DataError(f"unknown check kind {kind!r}")


@dataclass
class QResult:
    id: str
    scenario: str
    claim: str
    statement: str
    severity: str
    known_issue: str | None
    kind: str
    status: str
    detail: str


def evaluate_qcheck(q: Mapping, data) -> QResult:
    """One [[qchecks]] entry of a reference, evaluated: its fields and the outcome."""
    out = evaluate(q["check"], data)
    return QResult(id=q["id"], scenario=q["scenario"], claim=q.get("claim", ""), statement=q.get("statement", ""),
                   severity=q.get("severity", "hard"), known_issue=q.get("known_issue"), kind=q["check"]["kind"],
                   status=out.status, detail=out.detail)
