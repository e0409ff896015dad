"""The reproduction report: Markdown and HTML (styles inline, the thesis's figures beside it
in figures/), and the Parquet tables.

The kit writes the skeleton every thesis shares: a header (what ran, how, how long), the
summary of verdicts, the runs that failed, every table cell by cell, the qualitative checks,
the findings, the figures and the raw tables. The thesis adds its own through hooks
(:class:`ccsim.experiments.kit.thesis.Thesis`): ``figures(board, ctx)`` draws figures into a
:class:`FigureBoard`, ``sections(doc, ctx)`` adds sections after the findings. Every file is
written under a temporary name and renamed (:func:`ccsim._files.atomic_write`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ..._files import atomic_savefig, atomic_write
from .document import Doc
from .judge import pass_rates_text, simulated_rate_text
from .reference import scenario, scenario_ids, scenario_name
from .sections import failure_explanations, findings_section, qcheck_section, table_section


def pyplot():
    """matplotlib's pyplot on the non-interactive Agg backend (imported when a figure is drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@dataclass
class ReportContext:
    """What a thesis's hooks may draw from: the outcome (cells, checks, runs, options), the
    reference, each scenario's FrameData, and the tidy tables (flows, intervals, traces, probes)."""
    outcome: object
    ref: dict
    data: dict
    tables: object


@dataclass
class FigureBoard:
    """Where a figure hook puts its figures: ``path(name)`` is a file in the report's figures/
    directory (name it after the scenario, "s3-windows.png", so a later report can tell its own
    from an earlier one's); ``add`` shows a drawn file under its scenario with a caption;
    ``note`` adds a remark (a figure that could not be drawn, what one shows)."""
    dir: Path
    images: dict = field(default_factory=dict)   # scenario id -> [(relative path, caption)]
    notes: dict = field(default_factory=dict)    # scenario id -> [text]
    written: list = field(default_factory=list)

    def path(self, name: str) -> Path:
        return self.dir / name

    def add(self, scenario_id: str, path: Path, caption: str) -> None:
        self.written.append(path)
        self.images.setdefault(scenario_id, []).append((f"{self.dir.name}/{path.name}", caption))

    def save(self, fig, scenario_id: str, name: str, caption: str, dpi: int = 110) -> Path:
        """Lay out ``fig``, write it as ``name``, close it and show it under the scenario."""
        fig.tight_layout()
        path = self.path(name)
        atomic_savefig(fig, path, dpi=dpi)
        pyplot().close(fig)
        self.add(scenario_id, path, caption)
        return path

    def note(self, scenario_id: str, *texts: str) -> None:
        self.notes.setdefault(scenario_id, []).extend(texts)


def write(outcome, ref: dict, data: dict, tables, *, t0: float) -> list[Path]:
    """Draw the figures and write the report and the tables into ``outcome.out_dir``; returns
    the files written."""
    thesis = outcome.thesis
    out = Path(outcome.out_dir)
    board = FigureBoard(out / "figures")
    board.dir.mkdir(parents=True, exist_ok=True)
    ctx = ReportContext(outcome, ref, data, tables)
    if thesis.figures:
        thesis.figures(board, ctx)
    outcome.total_seconds = time.perf_counter() - t0
    doc = build_document(outcome, ref, board, ctx)
    written = list(board.written) + _write_outputs(doc, out, outcome, tables)
    # The figures directory holds this report's figures only: one an earlier report drew (of
    # another --only selection) would sit there unlinked, looking current. Figures are named
    # after their scenario, so a file of the user's own is left alone.
    prefixes = tuple(f"{sid.lower()}-" for sid in scenario_ids(ref))
    for old in board.dir.glob("*.png"):
        if old.name.lower().startswith(prefixes) and old not in written:
            old.unlink(missing_ok=True)
    return written


def quick_caveat(thesis, ref: dict) -> str:
    """What a reader of a quick run's scores must know: what it runs less of than the full run,
    and that the findings were measured on full runs; empty where quick and full are the same."""
    full_seeds = thesis.default_seeds or ref.get("tolerance", {}).get("seeds", 5)
    less = ((["fewer seeds"] if thesis.quick_seeds < full_seeds else [])
            + (["shorter runs"] if thesis.quick_factor < 1 else [])
            + (["fewer sweep points"] if any("quick" in sw for sc in ref.get("scenarios", [])
                                                 for sw in sc.get("sweeps", [])) else []))
    if not less:
        return ""
    return (f"A quick run is a smoke test: with {' and '.join(less)} than the full run, cells can fail that the "
            f"full run passes, and the findings were measured on full runs; compare scores with a full run's only")


def _own_seeds_text(own: dict) -> str:
    """The runs line's note of the scenarios that reference.toml gives seed counts of their own."""
    by_n: dict[int, list[str]] = {}
    for sid, n in own.items():
        by_n.setdefault(n, []).append(sid)
    parts = [f"{', '.join(sids)}: {n} seeds, 1-{n}" for n, sids in sorted(by_n.items())]
    return f" ({'; '.join(parts)}, as reference.toml sets)" if parts else ""


def _header(doc: Doc, outcome, ref: dict) -> None:
    thesis, runs = outcome.thesis, outcome.runs
    doc.h(1, f"{thesis.title}: reproduction report")
    files = outcome.file_runs()
    ok_runs = int((files > 0).sum())
    fixed = [scenario_name(sc) for sc in ref["scenarios"] if "phases" in sc and sc["scenario"] in outcome.scenarios]
    durations = (f"durations x{thesis.quick_factor:g}" if thesis.quick_factor != 1 else "durations unchanged")
    caveat = quick_caveat(thesis, ref)
    quick = (f" ({thesis.quick_seeds} seed{'s' if thesis.quick_seeds != 1 else ''} by default, {durations}"
             + (f" except {', '.join(fixed)}, whose phases are fixed in time)" if fixed and thesis.quick_factor != 1
                else ")") + (f". {caveat}" if caveat else ""))
    doc.ul([
        f"Thesis: {ref.get('thesis', '')}",
        f"Generated {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by {outcome.version}",
    ] + ([f"Command: `{outcome.command}`"] if outcome.command else []) + [
        "Mode: " + ("quick" + quick if outcome.quick else "full (the scenario files' own durations)"),
        f"Seeds: {', '.join(str(s) for s in outcome.seeds)}; scenarios: {', '.join(outcome.scenarios)}",
        (f"Runs: {ok_runs} of {len(files)} scenario files produced results, {len(outcome.seeds)} seed{'s' if len(outcome.seeds) != 1 else ''} each"
         + _own_seeds_text(outcome.scenario_seeds) if len(runs) else "Runs: none (every cell selected is a model's value)"),
        f"Runtime: {outcome.sim_seconds:.1f} s simulating, {outcome.total_seconds:.1f} s in all",
    ] + ([f"Processing jitter: {outcome.jitter} on every link (links[].jitter), a phase-sensitivity run: "
          f"the scenario files themselves have none"] if outcome.jitter else [])
      + ([f"Parameter overrides (--param): {'; '.join(str(p) for p in outcome.params)}, set in every flow "
          f"or port they name: a variant reading, not the committed scenario files"] if outcome.params else []))
    tol = ref["tolerance"]
    s = tol.get("S", {})
    read = ("A cell's simulated value is the median over seeds of what it reads: a flow's metric (the mean of "
            "its interval means, the first interval discarded), an aggregate over flows taken within each seed, "
            "a point of a sweep, or a model's value. ") if len(runs) else "No scenario file runs here: the cells are models' values. "
    doc.p(read + (thesis.method_note + " " if thesis.method_note else "")
          + f"Rules (reference.toml [tolerance]): an accept range when given; class D: |v - thesis| <= "
          f"max(rel x thesis, abs), or v < {tol.get('zero_pass', 0.01):g} for a thesis 0; class S: |v - thesis| "
          f"<= max({s.get('sd_mult', 3):g} x sd, {100 * s.get('rel', 0.1):g}% x thesis, abs floor); class P cells "
          "are shown but judged by the qualitative checks; known-issue cells are shown with the reason and not "
          "counted.")
    doc.p("How to read it. A cell reads \"simulated / thesis class verdict\". Classes: D, a number the thesis "
          "printed that a deterministic or well-averaged run should meet closely; S, a number from a stochastic "
          "run (its sd or a relative band allowed); P, a pattern judged as a whole by the qualitative checks "
          "(hard: must hold; soft: a figure reading or a weak claim, reported; manual: to judge from the "
          "figures). A known issue is a thesis number its own text contradicts: shown, not counted. A finding "
          "explains failures; its kind says what it found: model-choice (a reading the thesis leaves open, "
          "measured both ways), phase (the run's timing or phase locks decide it), thesis-inconsistent (the "
          "thesis's numbers disagree with each other), engine-limitation (what ccsim does not model), open "
          "(the cause is not yet known; what was measured and ruled out is recorded). Pair names are the "
          "thesis's own (source algorithm / router discipline).")


def _summary(doc: Doc, outcome, ref: dict) -> None:
    cells = outcome.cells
    doc.h(2, "Summary", anchor="summary")
    cc = outcome.cell_counts()
    cc = cc[cc["cells"] > 0]  # a class the reference does not use (cui-adpm has no P cells)
    doc.table(list(cc.columns), [[str(x) for x in r] for r in cc.itertuples(index=False)])
    rates = pass_rates_text(cells)
    if rates:
        sim = simulated_rate_text(cells)
        doc.p(f"Judged cells passing (known issues aside): {rates}" + (f"; {sim}" if sim else "") + ".")
    qc = outcome.qcheck_counts()
    any_checks = int(qc["total"].sum()) > 0
    if any_checks:
        hard = qc[qc["checks"] == "hard"].iloc[0]
        doc.p(f"Hard qualitative checks passed: {hard['pass']} of {hard['total']} "
              f"({hard['fail']} failed, {hard['not run']} not run, {hard['no data']} without data).")
        doc.table(["Q checks"] + list(qc.columns[1:]), [[str(x) for x in r] for r in qc.itertuples(index=False)])
    elif ref.get("qchecks"):
        doc.p("None of the selected scenarios has a qualitative check.")
    e = failure_explanations(outcome)
    checks = (f", {e['explained checks']} of {e['failed hard checks']} failed or data-less hard checks"
              if any_checks else "")
    doc.p(f"Failures covered by a finding (see [Findings](#findings)): {e['explained cells']} of "
          f"{e['failed cells']} failed cells{checks}; of those, {e['open cells']} cell{'' if e['open cells'] == 1 else 's'}"
          + (f" and {e['open checks']} check{'' if e['open checks'] == 1 else 's'}" if any_checks else "")
          + " only by \"open\" findings (cause not yet known).")
    per_table = []
    for t in ref.get("tables", []):
        c = cells[cells["table"] == t["id"]] if len(cells) else cells
        if c.empty:
            continue
        st = c["status"].value_counts().to_dict()
        per_table.append([f"[{t['id']}](#t{t['id']})", str(len(c)), str(st.get("PASS", 0)), str(st.get("FAIL", 0)),
                          str(st.get("KNOWN", 0)), str(st.get("P", 0)), str(st.get("NOT RUN", 0))])
    doc.p("Per table:")
    doc.table(["table", "cells", "PASS", "FAIL", "known issue", "P (qchecks)", "not run"], per_table)


def build_document(outcome, ref: dict, board: FigureBoard, ctx: ReportContext) -> Doc:
    doc = Doc()
    runs = outcome.runs
    _header(doc, outcome, ref)
    _summary(doc, outcome, ref)
    bad = runs[runs["error"] != ""] if len(runs) else runs
    if len(bad):
        doc.h(2, "Runs that did not run", anchor="notrun")
        doc.p("Scenario files that did not validate or whose runs failed (seeds ok = 0: every seed). Their cells "
              "and the checks that need them are reported as not run.")
        doc.table(["scenario", "pair", "file", "seeds ok", "error"],
                  [[r.scenario, r.pair, f"{r.file}.toml", str(r.seeds_ok), r.error] for r in bad.itertuples()])
    for t in ref.get("tables", []):
        if t["scenario"] not in outcome.scenarios:
            continue
        runs_err = {r.pair: r.error for r in runs.itertuples() if r.scenario == t["scenario"] and r.error}
        table_section(doc, ref, t, outcome.cells, runs_err)
    qcheck_section(doc, ref, outcome.qchecks, outcome.scenarios)
    findings_section(doc, outcome, f"ccsim/experiments/{outcome.thesis.id}/findings/*.toml")
    if outcome.thesis.sections:
        outcome.thesis.sections(doc, ctx)
    doc.h(2, "Figures", anchor="figures")
    for sid in outcome.scenarios:
        if sid not in board.images and sid not in board.notes:
            continue
        sc = scenario(ref, sid)
        doc.h(3, f"{scenario_name(sc)}: {sc.get('title', '')}")
        for path, caption in board.images.get(sid, []):
            doc.img(path, caption)
        doc.ul(board.notes.get(sid, []))
    if not len(runs):
        doc.p("Raw tidy tables next to this report: cells.parquet and qchecks.parquet (the verdicts above) and "
              "runs.parquet; nothing ran, so the run tables (flows, intervals, traces, probes, queues) are empty.")
        return doc
    doc.p("Raw tidy tables next to this report: flows.parquet (per scenario file, seed and flow: batch means and "
          "sds), intervals.parquet (per interval), traces.parquet (samples once per trace period of the traced "
          "scenarios: window, outstanding packets, smoothed RTT, and for rate-based sources the estimator state "
          "probe_gap_s, rate_est_pps, send_rate_pps, alpha; NaN for window protocols), probes.parquet (every "
          "probe of the packet-pair sources as it happened, with the state right after it), queues.parquet (the "
          "samples of the ports the checks read: packets, bytes, and the discipline's state), cells.parquet and "
          "qchecks.parquet (the verdicts above), runs.parquet (one row per scenario file).")
    return doc


def _all_bool(col: pd.Series) -> bool:
    vals = col.dropna()
    return len(vals) > 0 and all(isinstance(v, (bool, np.bool_)) for v in vals)


def _parquet_safe(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object and _all_bool(df[c]):
            df[c] = df[c].astype("boolean")   # True/False/None (a cell's ok): a nullable bool column
        elif df[c].dtype == object:
            df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str) else
                              (json.dumps(v) if isinstance(v, (list, dict)) else str(v)))
    return df


def _write_outputs(doc: Doc, out: Path, outcome, tables) -> list[Path]:
    written = []

    def put(name, fn):
        p = out / name
        atomic_write(p, fn)
        written.append(p)

    frames = [("flows", tables.flows), ("intervals", tables.intervals), ("traces", tables.traces),
              ("cells", outcome.cells), ("qchecks", outcome.qchecks), ("runs", outcome.runs),
              ("probes", tables.probes), ("queues", tables.queues)]
    for name, df in frames:
        put(f"{name}.parquet", lambda t, df=df: _parquet_safe(df).to_parquet(t, index=False))
    md = doc.markdown()
    put("report.md", lambda t: Path(t).write_text(md, encoding="utf-8"))
    page = doc.html(f"{outcome.thesis.title}: reproduction report")
    put("report.html", lambda t: Path(t).write_text(page, encoding="utf-8"))
    return written
