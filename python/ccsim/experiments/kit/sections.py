"""The report's sections on results: the thesis's tables cell by cell, the qualitative checks,
and the findings that explain the failures."""

from __future__ import annotations

import math

import pandas as pd

from .document import Doc
from .frames import fmt
from .reference import scenario, scenario_name

STATUS_CSS = {"PASS": "pass", "FAIL": "fail", "KNOWN": "known", "P": "pat", "NOT RUN": "notrun",
              "pass": "pass", "fail": "fail", "no_data": "nodata", "not_run": "notrun", "manual": "pat",
              "error": "fail"}
Q_LABEL = {"pass": "PASS", "fail": "FAIL", "no_data": "NO DATA", "not_run": "NOT RUN", "manual": "MANUAL",
           "error": "ERROR"}


def _cell_text(r) -> str:
    if r["status"] == "NOT RUN":
        return "not run"
    thesis = fmt(r["thesis"]) + (f" (sd {fmt(r['thesis_sd'])})" if r["thesis_sd"] == r["thesis_sd"] else "")
    rule = str(r.get("rule", ""))
    if rule.startswith("accept ["):
        # The value beside a range a reading accepts is where the range sits, not always a
        # number the thesis printed: the range is shown with it.
        lo, hi = (x.strip() for x in rule[len("accept ["):].rstrip("]").split(","))
        thesis += f" [{lo}, {'inf' if float(hi) >= 1e8 else hi}]"
    st = {"PASS": "PASS", "FAIL": "FAIL", "P": "",
          "KNOWN": "known issue (" + ("no data" if r["sim"] != r["sim"] else "would pass" if r["ok"] else "would fail") + ")"}[r["status"]]
    ci = r.get("sim_ci95", math.nan)
    # Seeds that agree to rounding (deterministic runs) show no interval, nor do fewer than
    # three seeds (a t interval from two is wider than anything it could say).
    shown = ci == ci and ci > 1e-9 * max(1.0, abs(r["sim"])) and r.get("seeds", 0) >= 3
    sim = fmt(r["sim"]) + (f" (95% ±{fmt(ci)})" if shown else "")
    return f"{sim} / {thesis} {r['class']} {st}".rstrip()


def finding_link(ids: str) -> str:
    """Finding ids ("a, b") as links to their rows in the findings table."""
    return ", ".join(f"[{x.strip()}](#finding-{x.strip()})" for x in str(ids).split(",") if x.strip())


def _metric_head(ref: dict, metric: str) -> str:
    """A table's column heading: the metric and its unit ("throughput (kbps)")."""
    unit = ref.get("metrics", {}).get(metric, {}).get("unit", "")
    return f"{metric} ({unit})" if unit else metric


def _reads(r) -> str:
    """What a cell reads, for its row's "src" column: the source, or the aggregate or model."""
    src = r.get("source")
    return str(int(src)) if src is not None and src == src else str(r.get("item", ""))


def _where(r) -> str:
    """A cell in words, for the list of failures: "JK/FQ #2 off", "RED @ 10 jain all"."""
    kind = r.get("kind", "flow")
    if kind == "model":
        return str(r["item"])
    at = r["pair"] + (f" @ {r['x']:g}" if kind == "curve" else "")
    src = r.get("source")
    what = f"#{int(src)}" if src is not None and src == src else str(r["item"])
    return f"{at} {what}{' ' + r['phase'] if r['phase'] else ''}"


def table_section(doc: Doc, ref: dict, t: dict, cells: pd.DataFrame, runs_err: dict) -> None:
    """A reference table: one row per table row, one column per metric, each cell its value,
    the thesis's, the class and the verdict; then the notes on cells not run, known issues and
    failures."""
    c = cells[cells["table"] == t["id"]]
    title = str(t["title"])
    if title.startswith(f"Table {t['id']}"):   # a title that names its table already
        title = title[len(f"Table {t['id']}"):].lstrip(":. ")
    doc.h(2, f"Table {t['id']}: {title}", anchor=f"t{t['id']}")
    if t.get("note"):
        doc.p(t["note"])
    if c.empty:
        doc.p("No cells evaluated.")
        return
    doc.p("Each cell: simulated value (seed median; in brackets, with three seeds or more, the half-width of "
          "the 95% Student-t interval of the mean over seeds) / thesis value (its printed sd; in square brackets, the range the cell "
          "accepts where the reference gives one, which replaces the class's rule), tolerance class, verdict.")
    metrics = [m for m in t["metrics"] if m in set(c["metric"])]
    phased = bool(t.get("phases"))
    kinds = set(c["kind"]) if "kind" in c.columns else {"flow"}
    curves = "curve" in kinds
    sweeps = {sw["curve"]: sw["param"] for sw in scenario(ref, t["scenario"]).get("sweeps", [])}
    x_head = "/".join(dict.fromkeys(sweeps[p] for p in c["pair"] if p in sweeps)) or "x"  # the swept parameter
    c = c.assign(_reads=[_reads(r) for r in c.to_dict("records")],
                 _x=[f"{x:g}" if x == x else "" for x in c.get("x", pd.Series(math.nan, index=c.index))])
    paired = bool((c["pair"].fillna("") != "").any())   # a table of model cells names no pair
    keys = (["pair"] if paired else []) + (["_x"] if curves else []) + ["_reads", "label"] + (["phase"] if phased else [])
    headers = ((["pair"] if paired else []) + ([x_head] if curves else []) + ["src" if kinds == {"flow"} else "reads", "label"]
               + (["phase"] if phased else []) + [_metric_head(ref, m) for m in metrics])
    rows, css, known, fails, notrun = [], [], {}, [], {}
    for key, g in c.groupby(keys, sort=False, dropna=False):
        row = [str(k) for k in key]
        crow = [""] * len(row)
        by = {r["metric"]: r for r in g.to_dict("records")}
        for m in metrics:
            r = by.get(m)
            if r is None:
                row.append("")
                crow.append("")
                continue
            text = _cell_text(r)
            if r["status"] == "NOT RUN":
                e = runs_err.get(r["pair"], r["error"])
                notrun.setdefault(e, f"e{len(notrun) + 1}")
                text += f" [{notrun[e]}]"
            if r["known_issue"]:
                known.setdefault(r["known_issue"], f"k{len(known) + 1}")
                text += f" [{known[r['known_issue']]}]"
            if r["alt"]:
                text += f" (alt reading {r['alt']}: {'pass' if r['alt_ok'] else 'fail'})"
            if r["status"] == "FAIL":
                fails.append(f"{_where(r)} {m}: simulated {fmt(r['sim'])}, rule {r['rule']}"
                             + (f" ({r['error']})" if r["error"] else "")
                             + (f"; explained by finding {finding_link(r['finding'])}" if r.get("finding")
                                else "; NOT YET EXPLAINED"))
            row.append(text)
            crow.append(STATUS_CSS[r["status"]])
        rows.append(row)
        css.append(crow)
    doc.table(headers, rows, css)
    if notrun:
        doc.p("Not run:")
        doc.ul([f"{k}: not run: {e}" for e, k in notrun.items()])
    if known:
        doc.p("Known issues (shown, not counted as failures):")
        doc.ul([f"{k}: {reason}" for reason, k in known.items()])
    if fails:
        doc.p("Failed cells and the rule applied:")
        doc.ul(fails)


def qcheck_section(doc: Doc, ref: dict, q: pd.DataFrame, scenarios: list[str]) -> None:
    doc.h(2, "Qualitative checks", anchor="qchecks")
    if not len(q):
        doc.p("None of the selected scenarios has a qualitative check: every verdict above is a table cell."
              if ref.get("qchecks") else
              "This reproduction has no qualitative checks ([[qchecks]] in reference.toml): every verdict "
              "above is a table cell.")
        return
    doc.p("Every [[qchecks]] entry of reference.toml. Each number a check compares is a seed median of a "
          "quantity computed within each seed: a cell's value, or an aggregate (sum, spread, count of winners, "
          "ratio, difference) of the cells of one seed, since winners and losers differ from seed to seed. "
          "hard = must hold; soft = a figure reading or a weak claim (reported, not a failure); "
          "manual = judge from the figures; a known issue is noted where the thesis's own numbers contradict "
          "the check (it still applies to the reproduction).")
    for sid in scenarios:
        d = q[q["scenario"] == sid] if len(q) else q
        if d.empty:
            continue
        sc = scenario(ref, sid)
        doc.h(3, f"{scenario_name(sc)}: {sc.get('title', '')}")
        rows, css = [], []
        for _, r in d.iterrows():
            sev = r["severity"] + (", known issue" if r["known_issue"] else "")
            stmt = r["statement"] + (f" [Known issue: {r['known_issue']}]" if r["known_issue"] else "")
            result = Q_LABEL[r["status"]]
            if r["status"] in ("fail", "no_data") and r.get("finding"):
                result += f" (finding {finding_link(r['finding'])})"
            elif r["status"] in ("fail", "no_data") and r["severity"] == "hard":
                result += " (NOT YET EXPLAINED)"
            rows.append([r["id"], sev, r["claim"], stmt, result, r["detail"]])
            crow = ["", "", "", "", STATUS_CSS[r["status"]], ""]
            if r["status"] == "fail" and r["severity"] == "soft":
                crow[4] = "known"
            css.append(crow)
        doc.table(["id", "severity", "claim", "statement", "result", "computed"], rows, css)


def failure_explanations(outcome) -> dict:
    """Counts of failed cells and hard checks (a hard check without data counts as failed), how
    many of them a finding covers, and how many only "open" findings cover (cause unknown)."""
    cells, q = outcome.cells, outcome.qchecks
    fc = cells[cells["status"] == "FAIL"] if len(cells) else cells
    fq = q[q["status"].isin(["fail", "no_data"]) & (q["severity"] == "hard")] if len(q) else q
    open_ids = {f.id for f in getattr(outcome, "findings", []) if f.kind == "open"}

    def only_open(col) -> int:
        ids = [[x.strip() for x in str(v).split(",") if x.strip()] for v in col]
        return sum(1 for i in ids if i and all(x in open_ids for x in i))

    return {
        "failed cells": len(fc), "explained cells": int((fc["finding"] != "").sum()) if len(fc) else 0,
        "open cells": only_open(fc["finding"]) if len(fc) else 0,
        "failed hard checks": len(fq), "explained checks": int((fq["finding"] != "").sum()) if len(fq) else 0,
        "open checks": only_open(fq["finding"]) if len(fq) else 0,
    }


def findings_section(doc: Doc, outcome, where: str) -> None:
    """The findings of the scenarios run; ``where`` says where the findings files are."""
    fs = getattr(outcome, "findings", [])
    doc.h(2, "Findings: why cells differ", anchor="findings")
    e = failure_explanations(outcome)
    checks = len(getattr(outcome, "qchecks", [])) > 0
    doc.p(f"{e['explained cells']} of {e['failed cells']} failed cells"
          + (f" and {e['explained checks']} of {e['failed hard checks']} failed (or data-less) hard checks"
             if checks else "")
          + f" are covered by a finding below: the investigation, with the evidence that shows it. "
          f"{e['open cells']} of those cells" + (f" and {e['open checks']} of those checks" if checks else "")
          + " are covered only by findings of kind \"open\", whose cause is "
          f"not yet known (they say what was measured and ruled out). Failures no finding covers are marked "
          f"NOT YET EXPLAINED where they are listed. Findings live in {where}. A finding's own numbers were "
          f"measured when it was written or last revised (it says when, and on how many seeds), often with a "
          f"reading the files do not ship: a whole-reproduction score inside one is a comparison made then, "
          f"not today's headline above.")
    if not fs:
        doc.p("No findings recorded yet.")
        return
    rows = []
    for f in fs:
        scope = ", ".join(x for x in [
            f.scenario, "; ".join(f.pairs) if f.pairs else "all pairs",
            ("tables " + ", ".join(f.tables)) if f.tables else "", ("metrics " + ", ".join(f.metrics)) if f.metrics else "",
            ("sources " + ", ".join(map(str, f.sources))) if f.sources else "",
            ("checks " + ", ".join(f.checks)) if f.checks else ""] if x)
        rows.append([f'<a id="finding-{f.id}"></a>{f.id}', f.kind, scope, f.explanation, f.evidence])
    doc.table(["finding", "kind", "covers", "explanation", "evidence"], rows)
