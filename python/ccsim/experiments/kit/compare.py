"""Compare two reproduction runs (`ccsim compare BASE OTHER`).

A reproduction directory (written by `ccsim reproduce`) holds ``cells.parquet`` (one row per
table cell: simulated value, thesis value, tolerance class, status) and ``qchecks.parquet``
(one row per qualitative check). Trying a reading the thesis leaves open
(`--param`, `--jitter`) writes a second directory; this module says what moved between the
two: the pass counts per class, and every cell and check whose verdict changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

# What names a cell across runs. x and item (a sweep's value; an aggregate's or a model's
# description) are absent from reproductions written before cells had kinds: those are flow
# cells, and get the values a flow cell has.
CELL_KEY = ["table", "pair", "source", "phase", "x", "item", "metric"]
_LATER_KEYS = {"x": math.nan, "item": ""}


@dataclass
class Comparison:
    scores: pd.DataFrame  # rows D, S, hard checks, soft checks: passes in base, other, change
    cells: pd.DataFrame  # cells whose status differs, with both simulated values
    checks: pd.DataFrame  # checks whose status differs
    note: str = ""  # set when the two runs cover different scenarios (compared on the common ones)


def _read(d: Path, name: str) -> pd.DataFrame:
    p = d / name
    if not d.is_dir():
        raise ValueError(f"{d}: not a directory; expected the output directory of `ccsim reproduce`")
    if not p.is_file():
        raise ValueError(f"{d}: no {name} here; expected the output directory of `ccsim reproduce`")
    try:
        df = pd.read_parquet(p)
    except Exception as e:  # a truncated or foreign file: say which
        raise ValueError(f"{p}: cannot read ({e})") from None
    # Scenario ids are strings; reproductions written before that hold Keshav's integers.
    if "scenario" in df.columns and pd.api.types.is_numeric_dtype(df["scenario"]):
        df["scenario"] = [f"S{int(n)}" for n in df["scenario"]]
    if name == "cells.parquet":
        for col, value in _LATER_KEYS.items():
            if col not in df.columns:
                df[col] = value
    return df


def _scores(cells: pd.DataFrame, q: pd.DataFrame) -> dict:
    out = {f"{k} cells": int(((cells["class"] == k) & (cells["status"] == "PASS")).sum()) for k in ("D", "S")}
    for sev in ("hard", "soft"):
        out[f"{sev} checks"] = int(((q["severity"] == sev) & (q["status"] == "pass")).sum())
    return out


def compare(base: str | Path, other: str | Path) -> Comparison:
    """What changed from reproduction directory ``base`` to ``other``. Raises ValueError
    naming the directory when one is not a reproduction's output."""
    a, b = Path(base), Path(other)
    ca, qa = _read(a, "cells.parquet"), _read(a, "qchecks.parquet")
    cb, qb = _read(b, "cells.parquet"), _read(b, "qchecks.parquet")
    for d, c, q in ((a, ca, qa), (b, cb, qb)):
        missing = ({*CELL_KEY, "class", "status", "sim", "thesis"} - set(c.columns)) | \
            ({"id", "severity", "status"} - set(q.columns))
        if missing:
            raise ValueError(f"{d}: the results lack column(s) {', '.join(sorted(missing))}")
    # Runs of different scenario sets (--only) are compared on the scenarios both ran: a
    # scenario one run left out is not a change.
    note = ""
    if "scenario" in ca.columns and "scenario" in cb.columns:
        sca, scb = set(ca["scenario"]), set(cb["scenario"])
        if sca != scb:
            common = sca & scb
            if not common:
                raise ValueError(f"{a} and {b} share no scenario ({_list(sca)} against {_list(scb)})")
            note = f"{a} covers {_list(sca)}, {b} {_list(scb)}: compared on {_list(common)} only"
            ca, cb = ca[ca["scenario"].isin(common)], cb[cb["scenario"].isin(common)]
            if "scenario" in qa.columns and "scenario" in qb.columns:
                qa, qb = qa[qa["scenario"].isin(common)], qb[qb["scenario"].isin(common)]
    sa, sb = _scores(ca, qa), _scores(cb, qb)
    scores = pd.DataFrame({"base": sa, "other": sb})
    scores["change"] = scores["other"] - scores["base"]

    # A key column can hold only NaN in one run (numeric) and labels in the other (a subset
    # of scenarios by --only): compare such columns as objects.
    ca, cb = ca.copy(), cb.copy()
    for col in CELL_KEY:
        if ca[col].dtype != cb[col].dtype:
            ca[col], cb[col] = ca[col].astype(object), cb[col].astype(object)
    m = ca.merge(cb, on=CELL_KEY, how="outer", suffixes=("_base", "_other"))
    for col in ("status_base", "status_other"):  # a cell one run has not judged (--only)
        m[col] = m[col].fillna("absent")
    changed = m[m["status_base"] != m["status_other"]]
    cells = changed[CELL_KEY + ["class_base", "thesis_base", "sim_base", "sim_other", "status_base", "status_other"]]
    # In the thesis's order of tables (4.2 before 4.10), then as the reference lists the cells.
    cells = cells.iloc[sorted(range(len(cells)), key=lambda i: _table_order(cells["table"].iloc[i]))]
    cells = cells.assign(class_base=cells["class_base"].fillna(m["class_other"]),
                         thesis_base=cells["thesis_base"].fillna(m["thesis_other"]))
    cells = cells.rename(columns={"class_base": "class", "thesis_base": "thesis"}).reset_index(drop=True)

    mq = qa.merge(qb, on="id", how="outer", suffixes=("_base", "_other"))
    for col in ("status_base", "status_other"):
        mq[col] = mq[col].fillna("absent")
    mq["severity_base"] = mq["severity_base"].fillna(mq.get("severity_other"))
    checks = mq[mq["status_base"] != mq["status_other"]]
    cols = ["id", "severity_base", "status_base", "status_other"] + \
        (["detail_other"] if "detail_other" in checks.columns else [])
    checks = checks[cols].rename(columns={"severity_base": "severity", "detail_other": "detail"}).reset_index(drop=True)
    seeds = _seed_note(ca, cb, a, b)
    note = "; ".join(x for x in (note, seeds) if x)
    return Comparison(scores=scores, cells=cells, checks=checks, note=note)


def _table_order(table) -> tuple:
    """A table id's sort key: "4.10" after "4.2", "6.2-text" after "6.2"."""
    import re

    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"[.\-]", str(table)))


def _seed_note(ca: pd.DataFrame, cb: pd.DataFrame, a: Path, b: Path) -> str:
    """A warning when the two runs used different numbers of seeds (a quick run against a full
    one): a verdict can then change with the seeds alone."""
    if "seeds" not in ca.columns or "seeds" not in cb.columns:
        return ""
    na, nb = (int(c.loc[c["seeds"] > 0, "seeds"].median()) if (c["seeds"] > 0).any() else 0 for c in (ca, cb))
    if na == nb or not na or not nb:
        return ""
    return (f"{a} used {na} seed{'s' if na != 1 else ''} a cell and {b} {nb}: cells can change with the seeds "
            f"alone (and a quick run's shorter runs), so compare runs made alike")


def _list(scenarios) -> str:
    return ",".join(sorted(str(n) for n in scenarios))
