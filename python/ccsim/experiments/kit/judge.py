"""Judging table cells by their tolerance class, and counting the verdicts.

A reference's ``[tolerance]`` table gives the classes as numbers (the schema is in
docs/adding-a-thesis.md):

- ``D`` deterministic: ``|v - mean| <= max(<family>_rel x |mean|, <family>_abs)``, and for a
  printed 0, ``v < zero_pass``;
- ``S`` stochastic: ``|v - mean| <= max(sd_mult x sd, rel x |mean|, <family>_abs)``;
- ``P`` pattern: shown, not judged one by one (the qualitative checks judge the pattern);

where ``<family>`` is the cell's tolerance family (a metric's ``family`` in ``[metrics]``,
else ``[tolerance].default_family``): Keshav's delays have numbers of their own and every
rate uses the throughput numbers. A cell's ``accept = [lo, hi]`` replaces its class's rule;
``known_issue`` keeps the verdict out of the counts; ``alt`` is a second reading of the
printed value, judged beside the first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pandas as pd

from .frames import DataError, fmt

CLASSES = ("D", "S", "P")


@dataclass
class CellVerdict:
    status: str        # "PASS" | "FAIL" | "KNOWN" | "P" | "NOT RUN"
    ok: bool | None    # the rule's result (None: not compared)
    rule: str          # the rule applied, in words
    alt_ok: bool | None = None


def _number(tol: Mapping[str, Any], cls: str, key: str) -> float:
    try:
        return float(tol[cls][key])
    except KeyError:
        raise DataError(f"[tolerance.{cls}] has no {key}") from None


def cell_rule(spec: Mapping[str, Any], family: str, tol: Mapping[str, Any]) -> tuple[str, Callable | None]:
    """(description, predicate) of a cell's rule; the predicate is None for class P."""
    mean = float(spec["mean"])
    cls = spec["class"]
    if "accept" in spec:
        lo, hi = (float(x) for x in spec["accept"])
        return f"accept [{fmt(lo)}, {fmt(hi)}]", lambda v: lo <= v <= hi
    if cls == "P":
        return "P: judged by the qchecks", None
    if cls == "D":
        if mean == 0:
            z = float(tol.get("zero_pass", 0.01))
            return f"0: v < {fmt(z)}", lambda v: v < z
        w = max(_number(tol, "D", f"{family}_rel") * abs(mean), _number(tol, "D", f"{family}_abs"))
        return f"D: |v - {fmt(mean)}| <= {fmt(w)}", lambda v: abs(v - mean) <= w + 1e-12
    if cls == "S":
        sd = float(spec.get("sd", 0.0))
        w = max(_number(tol, "S", "sd_mult") * sd, _number(tol, "S", "rel") * abs(mean),
                _number(tol, "S", f"{family}_abs"))
        return f"S: |v - {fmt(mean)}| <= {fmt(w)}", lambda v: abs(v - mean) <= w + 1e-12
    raise DataError(f"unknown tolerance class {cls!r} (one of {', '.join(CLASSES)})")


def judge_cell(spec: Mapping[str, Any], family: str, value: float | None, tol: Mapping[str, Any],
               not_run: str | None = None) -> CellVerdict:
    """Apply the tolerance rule of one cell to the reproduction's value."""
    rule, pred = cell_rule(spec, family, tol)
    if not_run is not None:
        return CellVerdict("NOT RUN", None, rule)
    if pred is None:
        return CellVerdict("P", None, rule)
    ok = bool(value is not None and not math.isnan(value) and pred(value))
    alt_ok = None
    if "alt" in spec:
        alt = {**spec, **spec["alt"]}
        if "sd" not in spec["alt"]:
            alt.pop("sd", None)
        _, apred = cell_rule(alt, family, tol)
        alt_ok = None if apred is None else bool(value is not None and not math.isnan(value) and apred(value))
    if "known_issue" in spec:
        return CellVerdict("KNOWN", ok, rule, alt_ok)
    return CellVerdict("PASS" if ok else "FAIL", ok, rule, alt_ok)


def alt_text(spec: Mapping[str, Any]) -> str:
    """A cell's other reading as the report shows it ("" without one)."""
    if "alt" not in spec:
        return ""
    a = spec["alt"]
    return f"{a['mean']}" + (f" ± {a['sd']}" if "sd" in a else "")


# ------------------------------------------------------------------------------------------
# Counts
# ------------------------------------------------------------------------------------------

def cell_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """Per tolerance class: cells, PASS, FAIL, known issue, not run, pattern (P)."""
    rows = []
    for cls in CLASSES:
        c = cells[cells["class"] == cls] if len(cells) else cells
        st = c["status"].value_counts().to_dict() if len(c) else {}
        rows.append({"class": cls, "cells": len(c), "PASS": st.get("PASS", 0), "FAIL": st.get("FAIL", 0),
                     "known issue": st.get("KNOWN", 0), "not run": st.get("NOT RUN", 0),
                     "by qchecks": st.get("P", 0)})
    return pd.DataFrame(rows)


def qcheck_counts(q: pd.DataFrame) -> pd.DataFrame:
    """Per severity (hard, soft, manual): checks and their outcomes."""
    rows = []
    for sev in ("hard", "soft"):
        d = q[(q["severity"] == sev) & (q["kind"] != "manual")] if len(q) else q
        st = d["status"].value_counts().to_dict() if len(d) else {}
        rows.append({"checks": sev, "total": len(d), "pass": st.get("pass", 0), "fail": st.get("fail", 0),
                     "no data": st.get("no_data", 0), "not run": st.get("not_run", 0), "error": st.get("error", 0)})
    m = q[q["kind"] == "manual"] if len(q) else q
    rows.append({"checks": "manual", "total": len(m), "pass": 0, "fail": 0, "no data": 0, "not run": 0, "error": 0})
    return pd.DataFrame(rows)


def pass_rates(cells: pd.DataFrame) -> dict:
    """Passed and judged (PASS or FAIL) cells of classes D and S, each and together."""
    out = {}
    if not len(cells):
        return out
    for name, classes in (("D", ["D"]), ("S", ["S"]), ("D and S together", ["D", "S"])):
        c = cells[cells["class"].isin(classes) & cells["status"].isin(["PASS", "FAIL"])]
        if len(c):
            out[name] = (int((c["status"] == "PASS").sum()), len(c))
    return out


def pass_rates_text(cells: pd.DataFrame) -> str:
    """:func:`pass_rates` in words, e.g. "D 319 of 340 (93.8%); ..." ("" without cells)."""
    return "; ".join(f"{k} {p} of {n} ({100 * p / n:.1f}%)" for k, (p, n) in pass_rates(cells).items())


def simulated_rate_text(cells: pd.DataFrame) -> str:
    """The D and S cells that read a simulation (not a model's or the thesis's own arithmetic,
    `kind = "model"`), in words: "361 of 452 (79.9%) read from simulations; 26 model cells
    aside" ("" when every judged cell reads a simulation or there are none)."""
    if not len(cells) or "kind" not in cells.columns:
        return ""
    judged = cells[cells["class"].isin(["D", "S"]) & cells["status"].isin(["PASS", "FAIL"])]
    model = judged["kind"] == "model"
    if not model.any():
        return ""
    sim = judged[~model]
    if not len(sim):
        return f"every judged cell is a model's value ({int(model.sum())})"
    p = int((sim["status"] == "PASS").sum())
    return (f"{p} of {len(sim)} ({100 * p / len(sim):.1f}%) of them read from simulations, "
            f"{int(model.sum())} model or formula cells aside")

