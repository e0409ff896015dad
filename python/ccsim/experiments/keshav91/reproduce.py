"""``ccsim reproduce keshav91``: run the thesis's Chapter 6 experiments and compare every
table cell and qualitative check with the thesis.

    from ccsim.experiments.keshav91.reproduce import reproduce
    outcome = reproduce(quick=True, out="results/keshav91")
    print(outcome.report_md)

Steps: every scenario file named in ``reference.toml``'s runs is run over seeds 1..N (in
parallel, through :func:`ccsim.experiments.runner.run_files`); each table cell becomes the
seed median of the flow's metric (per Scenario 3 phase from the interval rows) and is
judged by its tolerance class; every qcheck is evaluated (:mod:`.checks`); the report
(Markdown, HTML, PNG figures, Parquet tables) is written by :mod:`.report`.

A scenario file that does not validate or a run that fails (an engine mechanism not
available yet) is reported as "not run" with its error, cell by cell and check by check.
Quick mode (``quick=True``) runs 2 seeds with durations halved; Scenario 3, whose phases are
fixed in simulated time, always runs in full.
"""

from __future__ import annotations

import math
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..runner import load_reference, package_scenarios, run_files
from .checks import FrameData, evaluate_qcheck, judge_cell, DataError, NoData, NotRun

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference.toml"
QUICK_SEEDS = 2
QUICK_FACTOR = 0.5
FIGURE_SCENARIOS = {3, 7}  # window / outstanding-packet / probe figures (spec §4.3, §4.7)


@dataclass
class Outcome:
    """What a reproduction produced (also what the CLI prints)."""
    out_dir: Path
    report_md: Path
    report_html: Path
    cells: pd.DataFrame
    qchecks: pd.DataFrame
    runs: pd.DataFrame                 # one row per scenario file: scenario, pair, file, seeds_ok, error
    seeds: list[int]
    quick: bool
    scenarios: list[int]
    sim_seconds: float
    total_seconds: float
    version: str
    files: list[Path] = field(default_factory=list)
    jitter: str | None = None          # processing jitter added to every link (phase-sensitivity run)
    params: list = field(default_factory=list)  # --param overrides (ParamOverride), none for the plain run
    findings: list = field(default_factory=list)  # the findings of the scenarios run

    def cell_counts(self) -> pd.DataFrame:
        return cell_counts(self.cells)

    def qcheck_counts(self) -> pd.DataFrame:
        return qcheck_counts(self.qchecks)


def parse_only(text: str | None, available: Iterable[int]) -> list[int]:
    """"S1,S3" or "1,3" -> [1, 3]; ValueError on anything else."""
    avail = sorted(available)
    if text is None:
        return avail
    out = []
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"[sS]?(\d+)", part)
        if not m or int(m.group(1)) not in avail:
            raise ValueError(f"--only: expected scenarios among {','.join(f'S{n}' for n in avail)} "
                             f"(e.g. S1,S3), got {part!r}")
        if int(m.group(1)) not in out:
            out.append(int(m.group(1)))
    return sorted(out)


def check_params(texts: Iterable[str], ref: dict, scenarios: list[int]) -> list:
    """Parse ``--param`` overrides and try each on the selected scenario files: ValueError if
    one is malformed, names nothing in them, or makes a file invalid (the message names that
    override, the file and, in the engine's words, the field)."""
    from ... import api
    from ..runner import CC_TARGETS, QUEUE_TARGETS, apply_params, parse_param

    overrides = [parse_param(t) for t in ([texts] if isinstance(texts, str) else texts)]
    if not overrides:
        return []
    sdir = package_scenarios() / "keshav91"
    stems = [stem for sc in ref["scenarios"] if int(sc["scenario"]) in scenarios for stem in sc["runs"].values()]
    hits = [0] * len(overrides)  # by position: a list or table VALUE makes an override unhashable
    for stem in dict.fromkeys(stems):
        path = sdir / f"{stem}.toml"
        if not path.exists() or _validate(path) is not None:
            continue  # a file that is already invalid is reported as a run error by run_all
        with open(path, "rb") as f:
            data = tomllib.load(f)
        # Applied one at a time, so the error names the override that broke the file.
        for i, ov in enumerate(overrides):
            n = apply_params(data, [ov])
            hits[i] += n
            if not n:
                continue
            try:
                api.validate(data)
            except Exception as e:  # the engine's own message, with the field's path
                raise ValueError(f"--param {ov}: {stem}.toml: {e}") from None
    for ov, n in zip(overrides, hits):
        if n == 0:
            what = (f'flow with cc = "{ov.target}"' if ov.target in CC_TARGETS else
                    f'port with queue = "{ov.target}"' if ov.target in QUEUE_TARGETS else "link")
            raise ValueError(f"--param {ov}: no {what} in scenarios {', '.join(f'S{s}' for s in scenarios)}")
    return overrides


def _trace_scenarios(ref: dict) -> set[int]:
    def has_trace(obj) -> bool:
        if isinstance(obj, dict):
            return "trace" in obj or "probe" in obj or any(has_trace(v) for v in obj.values())
        if isinstance(obj, list):
            return any(has_trace(v) for v in obj)
        return False

    return {int(q["scenario"]) for q in ref["qchecks"] if has_trace(q["check"])} | FIGURE_SCENARIOS


def _validate(path: Path) -> str | None:
    from ... import api

    if not path.exists():
        return f"{path.name}: no such scenario file"
    try:
        api.validate(path)
    except Exception as e:  # any engine complaint: reported, never raised
        return str(e)
    return None


def _version() -> str:
    from ... import __version__

    v = f"ccsim {__version__}"
    # Best effort: a checkout (python/ccsim under a tree with pyproject.toml) also names its
    # git revision; an installed package, or a tree without git, gives the version alone.
    root = Path(__file__).resolve().parents[4]
    if not (root / "pyproject.toml").is_file():
        return v
    try:
        import subprocess

        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
        if rev.returncode == 0:
            v += f" (git {rev.stdout.strip()}{', modified tree' if dirty.stdout.strip() else ''})"
    except Exception:
        pass
    return v


def run_all(ref: dict, scenarios: list[int], seeds: list[int], *, quick: bool, jobs: int | None,
            scheduler: str | None, progress: bool, jitter: str | None = None, params=()):
    """Run the scenario files of ``scenarios``; returns (flows, intervals, traces, probes, runs
    table). ``traces`` are the periodic cwnd-trace samples (window, outstanding packets, RTT and
    the packet-pair estimator's state), ``probes`` every probe of the traced packet-pair flows."""
    sdir = package_scenarios() / "keshav91"
    want_traces = _trace_scenarios(ref)
    runs_rows, groups = [], {}
    for sc in ref["scenarios"]:
        n = int(sc["scenario"])
        if n not in scenarios:
            continue
        for pair, stem in sc["runs"].items():
            runs_rows.append({"scenario": n, "pair": pair, "file": stem})
            # Scenarios with fixed phases (S3) are never shortened; traces kept where needed.
            factor = QUICK_FACTOR if quick and "phases" not in sc else None
            groups.setdefault((factor, n in want_traces), []).append(stem)
    runs = pd.DataFrame(runs_rows)
    errors: dict[str, str] = {}
    flows, intervals, traces, probes, failures = [], [], [], [], []
    for (factor, keep), stems in groups.items():
        todo = []
        for stem in dict.fromkeys(stems):
            err = _validate(sdir / f"{stem}.toml")
            if err:
                errors[stem] = err
            else:
                todo.append(sdir / f"{stem}.toml")
        if not todo:
            continue
        got = run_files(todo, seeds, quick_factor=factor, workers=jobs, progress=progress,
                        scheduler=scheduler, keep_results=keep, jitter=jitter, params=params)
        if len(got.flows):
            flows.append(got.flows)
        if len(got.intervals):
            intervals.append(got.intervals)
        failures.extend(got.failures)
        for (stem, seed), res in getattr(got, "results", {}).items():
            cw = res.cwnd
            if len(cw):
                cw = cw.copy()
                cw.insert(0, "file", stem)
                cw.insert(1, "seed", seed)
                cw.insert(2, "source", [_src(n) for n in cw["flow_name"]])
                traces.append(cw)
            pr = getattr(res, "probes", None)
            if pr is not None and len(pr):
                pr = pr.copy()
                pr.insert(0, "file", stem)
                pr.insert(1, "seed", seed)
                pr.insert(2, "source", [_src(n) for n in pr["flow_name"]])
                probes.append(pr)
    flows_df = pd.concat(flows, ignore_index=True) if flows else pd.DataFrame(columns=["file", "seed", "source"])
    iv_df = pd.concat(intervals, ignore_index=True) if intervals else pd.DataFrame(columns=["file", "seed", "source"])
    tr_df = pd.concat(traces, ignore_index=True) if traces else pd.DataFrame(columns=["file", "seed", "source", "time_s"])
    pr_df = pd.concat(probes, ignore_index=True) if probes else pd.DataFrame(columns=["file", "seed", "source", "time_s"])
    seed_errors: dict[str, list[str]] = {}
    for stem, seed, msg in failures:
        seed_errors.setdefault(stem, []).append(f"seed {seed}: {msg}")
    ok_seeds = flows_df.groupby("file")["seed"].nunique().to_dict() if len(flows_df) else {}
    runs["seeds_ok"] = [int(ok_seeds.get(f, 0)) for f in runs["file"]]
    runs["error"] = [errors.get(f) or ("; ".join(dict.fromkeys(m.split(": ", 1)[1] for m in seed_errors[f]))
                                       if f in seed_errors else "") for f in runs["file"]]
    runs["error"] = runs["error"].fillna("")
    return flows_df, iv_df, tr_df, pr_df, runs


def _src(name: str):
    from ..runner import source_number

    return source_number(name)


def scenario_data(ref: dict, n: int, flows, intervals, traces, runs, probes=None) -> FrameData:
    sc = next(s for s in ref["scenarios"] if int(s["scenario"]) == n)
    stems = set(sc["runs"].values())

    def sub(df):
        return df[df["file"].isin(stems)] if len(df) else df

    failures = {r.file: r.error for r in runs.itertuples() if r.scenario == n and r.error}
    fields = {m: v["field"] for m, v in ref.get("metrics", {}).items()}
    return FrameData(sc["runs"], sub(flows), sub(intervals), sub(traces), failures,
                     phases=sc.get("phases"), fields=fields, probes=sub(probes) if probes is not None else None)


def evaluate_cells(ref: dict, data: dict[int, FrameData]) -> pd.DataFrame:
    """One row per table cell: the simulated value and its verdict."""
    tol = ref["tolerance"]
    rows = []
    for t in ref["tables"]:
        n = int(t["scenario"])
        if n not in data:
            continue
        fd = data[n]
        for r in t["rows"]:
            pair, src, phase = r["pair"], int(r["source"]), r.get("phase")
            not_run = fd.run_status(pair)
            for m in t["metrics"]:
                if m not in r:
                    continue
                spec = r[m]
                sim = sim_sd = math.nan
                note = ""
                nseeds = 0
                if not_run is None:
                    try:
                        per = fd.per_seed(pair, src, m, "mean", phase)
                        nseeds = int(per.notna().sum())
                        sim = float(per.median()) if nseeds else math.nan
                        if phase is None:
                            sim_sd = fd.cell(pair, src, m, "sd")
                        if math.isnan(sim):
                            note = "undefined in every seed (no samples)"
                    except (DataError, NoData, NotRun) as e:
                        note = str(e)
                v = judge_cell(spec, m, sim, tol, not_run=not_run)
                rows.append({
                    "table": t["id"], "scenario": n, "pair": pair, "source": src, "label": r.get("label", ""),
                    "phase": phase or "", "metric": m, "sim": sim, "sim_sd": sim_sd, "seeds": nseeds,
                    "thesis": float(spec["mean"]), "thesis_sd": float(spec["sd"]) if "sd" in spec else math.nan,
                    "class": spec["class"], "rule": v.rule, "status": v.status,
                    "ok": v.ok, "known_issue": spec.get("known_issue", ""),
                    "alt": _alt_text(spec), "alt_ok": v.alt_ok,
                    "error": not_run or note,
                })
    return pd.DataFrame(rows)


def _alt_text(spec) -> str:
    if "alt" not in spec:
        return ""
    a = spec["alt"]
    return f"{a['mean']}" + (f" ± {a['sd']}" if "sd" in a else "")


def evaluate_qchecks(ref: dict, data: dict[int, FrameData]) -> pd.DataFrame:
    rows = []
    for q in ref["qchecks"]:
        n = int(q["scenario"])
        if n not in data:
            continue
        r = vars(evaluate_qcheck(q, data[n]))
        r["known_issue"] = r["known_issue"] or ""
        rows.append(r)
    return pd.DataFrame(rows)


def cell_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """Per tolerance class: cells, PASS, FAIL, known issue, not run, pattern (P)."""
    rows = []
    for cls in ("D", "S", "P"):
        c = cells[cells["class"] == cls] if len(cells) else cells
        st = c["status"].value_counts().to_dict() if len(c) else {}
        rows.append({"class": cls, "cells": len(c), "PASS": st.get("PASS", 0), "FAIL": st.get("FAIL", 0),
                     "known issue": st.get("KNOWN", 0), "not run": st.get("NOT RUN", 0),
                     "by qchecks": st.get("P", 0)})
    return pd.DataFrame(rows)


def qcheck_counts(q: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for sev in ("hard", "soft"):
        d = q[(q["severity"] == sev) & (q["kind"] != "manual")] if len(q) else q
        st = d["status"].value_counts().to_dict() if len(d) else {}
        rows.append({"checks": sev, "total": len(d), "pass": st.get("pass", 0), "fail": st.get("fail", 0),
                     "no data": st.get("no_data", 0), "not run": st.get("not_run", 0), "error": st.get("error", 0)})
    m = q[q["kind"] == "manual"] if len(q) else q
    rows.append({"checks": "manual", "total": len(m), "pass": 0, "fail": 0, "no data": 0, "not run": 0, "error": 0})
    return pd.DataFrame(rows)


def reproduce(*, quick: bool = False, seeds: int | None = None, jobs: int | None = None,
              out: str | Path = "results/keshav91", only: str | None = None, scheduler: str | None = None,
              progress: bool = True, reference: Path = REFERENCE, jitter: str | None = None,
              params: Iterable[str] = ()) -> Outcome:
    """Run, judge and write the report; returns the :class:`Outcome`. ``jitter`` (a duration
    such as "1ms") gives every link that much processing jitter: a phase-sensitivity run.
    ``params`` are ``TARGET.KEY=VALUE`` overrides (see :func:`check_params`): one of the
    readings the thesis leaves open, tried over the whole reproduction."""
    if jitter is not None:
        from ...scenario_units import parse_seconds

        if not parse_seconds(jitter) > 0:
            raise ValueError(f"--jitter: expected a positive duration such as \"1ms\", got {jitter!r}")
    t0 = time.perf_counter()
    ref = load_reference(reference)
    scenarios = parse_only(only, [int(s["scenario"]) for s in ref["scenarios"]])
    overrides = check_params(params, ref, scenarios)
    n = seeds if seeds is not None else (QUICK_SEEDS if quick else int(ref["tolerance"].get("seeds", 5)))
    if n < 1:
        raise ValueError(f"--seeds: expected a positive integer, got {n}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs: expected a positive integer, got {jobs}")
    seed_list = list(range(1, n + 1))
    flows, intervals, traces, probes, runs = run_all(ref, scenarios, seed_list, quick=quick, jobs=jobs,
                                             scheduler=scheduler, progress=progress, jitter=jitter,
                                             params=overrides)
    sim_seconds = time.perf_counter() - t0
    scen_col = {r.file: r.scenario for r in runs.itertuples()}
    pair_col = {r.file: r.pair for r in runs.itertuples()}
    for df in (flows, intervals, traces, probes):
        if "file" in df.columns:
            df.insert(0, "scenario", [scen_col.get(f) for f in df["file"]])
            df.insert(1, "pair", [pair_col.get(f) for f in df["file"]])
    data = {s: scenario_data(ref, s, flows, intervals, traces, runs, probes) for s in scenarios}
    from . import findings as _findings

    known_findings = _findings.load()
    cells = _findings.annotate_cells(evaluate_cells(ref, data), known_findings)
    qchecks = _findings.annotate_checks(evaluate_qchecks(ref, data), known_findings)
    outcome = Outcome(out_dir=Path(out), report_md=Path(out) / "report.md", report_html=Path(out) / "report.html",
                      cells=cells, qchecks=qchecks, runs=runs, seeds=seed_list, quick=quick, scenarios=scenarios,
                      sim_seconds=sim_seconds, total_seconds=math.nan, version=_version(), jitter=jitter,
                      params=list(overrides))
    from . import report

    outcome.findings = [f for f in known_findings if f.scenario in scenarios]
    outcome.files = report.write(outcome, ref, data, flows, intervals, traces, t0=t0, probes=probes)
    return outcome
