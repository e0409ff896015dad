"""``ccsim reproduce THESIS``: run a thesis's experiments and compare every table cell and
qualitative check with the thesis.

    from ccsim.experiments.kit.registry import get_thesis
    from ccsim.experiments.kit.reproduce import reproduce
    outcome = reproduce(get_thesis("keshav91"), quick=True, out="results/keshav91")
    print(outcome.report_md)

Steps: every scenario file the reference names is run over seeds 1..N (in parallel, through
:func:`.runner.run_scenarios`); each table cell gets its value (:mod:`.cells`) and is judged
by its tolerance class (:mod:`.judge`); every qualitative check is evaluated (:mod:`.checks`);
findings annotate the failures (:mod:`.findings`); the report (Markdown, HTML, the thesis's
figures, Parquet tables) is written by :mod:`.report`.

A scenario file that does not validate or a run that fails (an engine mechanism not
available yet) is reported as "not run" with its error, cell by cell and check by check.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..._files import atomic_write_text
from . import findings as _findings
from .cells import evaluate_cells
from .checks import evaluate_qcheck
from .frames import FrameData
from .judge import cell_counts, qcheck_counts
from .params import check_params
from .reference import load_reference, metric_fields, parse_only, scenario, scenario_ids, scenario_runs
from .runner import run_scenarios, source_number
from .thesis import Thesis


@dataclass
class Outcome:
    """What a reproduction produced (also what the CLI prints)."""
    thesis: Thesis
    out_dir: Path
    report_md: Path
    report_html: Path
    cells: pd.DataFrame
    qchecks: pd.DataFrame
    runs: pd.DataFrame                 # one row per (scenario, pair): scenario, pair, file, seeds_ok, error
    seeds: list[int]
    quick: bool
    scenarios: list[str]
    sim_seconds: float
    total_seconds: float
    version: str
    files: list[Path] = field(default_factory=list)
    jitter: str | None = None          # processing jitter added to every link (phase-sensitivity run)
    params: list = field(default_factory=list)  # --param overrides (ParamOverride), none for the plain run
    findings: list = field(default_factory=list)  # the findings of the scenarios run
    scenario_seeds: dict = field(default_factory=dict)  # scenario -> its own seed count, where not seeds
    command: str = ""                  # the ccsim command that makes this reproduction again

    def cell_counts(self) -> pd.DataFrame:
        return cell_counts(self.cells)

    def qcheck_counts(self) -> pd.DataFrame:
        return qcheck_counts(self.qchecks)

    def file_runs(self) -> pd.Series:
        """Seeds that produced results, per scenario file: a file two scenarios share (one
        run, read by both) counts once."""
        if not len(self.runs):
            return pd.Series(dtype="int64")
        return self.runs.groupby("file")["seeds_ok"].max()


def _with_sweep_rows(flows: pd.DataFrame, more) -> pd.DataFrame:
    """The flows table with a thesis's cross-run rows (:attr:`Thesis.sweep_rows`) appended."""
    if more is None or not len(more):
        return flows
    more = pd.DataFrame(more)
    missing = {"file", "seed", "name"} - set(more.columns)
    if missing:
        raise ValueError(f"sweep_rows: every row needs file, seed and name; missing {sorted(missing)}")
    more.insert(2, "source", [source_number(n) for n in more["name"]])
    return pd.concat([flows, more], ignore_index=True)


def trace_scenarios(ref: dict, thesis: Thesis) -> set[str]:
    """Scenarios whose runs keep traces: those with a trace or probe check, and the thesis's
    figure scenarios."""
    def has_trace(obj) -> bool:
        if isinstance(obj, dict):
            return "trace" in obj or "probe" in obj or any(has_trace(v) for v in obj.values())
        if isinstance(obj, list):
            return any(has_trace(v) for v in obj)
        return False

    return {q["scenario"] for q in ref.get("qchecks", []) if has_trace(q["check"])} | set(thesis.trace_scenarios)


def port_traces(ref: dict) -> dict[tuple[str, str | None], set[str]]:
    """The ports whose queue traces the checks read, per (scenario, pair); pair None for an
    operand of a sweep point (every run of the scenario). A run traces every switch port by
    default; only these are kept."""
    out: dict[tuple[str, str | None], set[str]] = {}

    def walk(obj, sid):
        if isinstance(obj, dict):
            if "trace" in obj and "port" in obj:
                out.setdefault((sid, obj.get("pair")), set()).add(obj["port"])
            for v in obj.values():
                walk(v, sid)
        elif isinstance(obj, list):
            for v in obj:
                walk(v, sid)

    for q in ref.get("qchecks", []):
        walk(q["check"], q["scenario"])
    return out


def _command(thesis: Thesis, quick: bool, seeds, only, jitter, params) -> str:
    """The command line that runs this reproduction again (output directory aside)."""
    import shlex

    words = ["ccsim", "reproduce", thesis.id] + (["--quick"] if quick else [])
    words += (["--seeds", str(seeds)] if seeds is not None else []) + (["--only", only] if only else [])
    words += (["--jitter", jitter] if jitter else []) + [w for p in params for w in ("--param", p)]
    return " ".join(shlex.quote(w) for w in words)


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
            mod = ""
            if dirty.stdout.strip():
                # Which modification: a hash of the diff, so two runs of one edited tree match.
                import hashlib

                diff = subprocess.run(["git", "-C", str(root), "diff", "HEAD"], capture_output=True, timeout=10)
                mod = f", modified tree, diff {hashlib.sha1(diff.stdout).hexdigest()[:10]}"
            v += f" (git {rev.stdout.strip()}{mod})"
    except Exception:
        pass
    return v


def scenario_data(ref: dict, sid: str, tables, thesis: Thesis | None = None,
                  seeds: list[int] | None = None) -> FrameData:
    """The :class:`FrameData` of one scenario: its runs (pairs and sweep points) and their rows,
    of ``seeds`` only when given (a file it shares with a scenario of more seeds ran over
    those; this one reads its own)."""
    sc = scenario(ref, sid)
    runs = scenario_runs(sc)
    stems = set(runs.values())

    def sub(df):
        if not len(df):
            return df
        keep = df["file"].isin(stems)
        if seeds is not None and "seed" in df.columns:
            keep &= df["seed"].isin(seeds)
        return df[keep]

    failures = {r.file: r.error for r in tables.runs.itertuples() if r.scenario == sid and r.error}
    return FrameData(runs, sub(tables.flows), sub(tables.intervals), sub(tables.traces), failures,
                     phases=sc.get("phases"), fields=metric_fields(ref), metrics=ref.get("metrics"),
                     probes=sub(tables.probes), queues=sub(tables.queues),
                     derived=thesis.derived_traces if thesis else None)


def evaluate_qchecks(ref: dict, data: dict[str, FrameData]) -> pd.DataFrame:
    rows = []
    for q in ref.get("qchecks", []):
        if q["scenario"] not in data:
            continue
        r = vars(evaluate_qcheck(q, data[q["scenario"]]))
        r["known_issue"] = r["known_issue"] or ""
        rows.append(r)
    return pd.DataFrame(rows)


def check_options(*, seeds: int | None = None, jobs: int | None = None, jitter: str | None = None) -> None:
    """ValueError naming the option when one is out of range."""
    if seeds is not None and not 1 <= seeds <= 1000:
        raise ValueError(f"--seeds: expected an integer from 1 to 1000, got {seeds}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs: expected a positive integer, got {jobs}")
    if jitter is not None:
        from ...scenario_units import parse_seconds

        try:
            ok = 0 < parse_seconds(jitter) <= 1e6  # the scenario format's longest duration
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"--jitter: expected a positive duration up to 1e6 s such as \"1ms\", got {jitter!r}")


def prepare(thesis: Thesis, *, only: str | None = None, params: Iterable[str] = (),
            reference: Path | None = None) -> tuple[dict, list[str], list]:
    """The reference, the selected scenarios and the checked ``--param`` overrides: every
    mistake in them is a ValueError before anything runs."""
    ref = load_reference(reference or thesis.reference)
    scenarios = parse_only(only, scenario_ids(ref))
    stems = [stem for sid in scenarios for stem in scenario_runs(scenario(ref, sid)).values()]
    _check_files_exist(thesis, ref, scenarios)
    params = [params] if isinstance(params, str) else list(params)
    if params and _needs_built(thesis, stems):
        with tempfile.TemporaryDirectory() as tmp:
            overrides = check_params(params, stems, scenario_files(thesis, stems, Path(tmp)), scenarios)
    else:
        overrides = check_params(params, stems, thesis.scenario_dir, scenarios)
    return ref, scenarios, overrides


def _check_files_exist(thesis: Thesis, ref: dict, scenarios: list[str]) -> None:
    """A run file the reference names that is neither shipped nor built is a ValueError naming
    the scenario and the file, before anything runs (a typo would otherwise surface as a file
    that "did not run", its name only in the report)."""
    missing = [(sid, stem) for sid in scenarios for stem in scenario_runs(scenario(ref, sid)).values()
               if not (thesis.scenario_dir / f"{stem}.toml").exists()]
    if missing and thesis.built_scenarios is not None and thesis.scenario_path is None:
        built = thesis.built_scenarios()   # cui-buffers's is lazy: asking for a name builds nothing
        missing = [(sid, stem) for sid, stem in missing if f"{stem}.toml" not in built]
    if missing:
        sid, stem = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise ValueError(f"{thesis.id}: scenario {sid} runs {stem!r}, but there is no {stem}.toml in "
                         f"{thesis.scenario_dir}{more}; expected the stem of a scenario file there")


def _needs_built(thesis: Thesis, stems: Iterable[str]) -> bool:
    if thesis.built_scenarios is None or thesis.scenario_path is not None:
        return False
    return any(not (thesis.scenario_dir / f"{s}.toml").exists() for s in stems)


def scenario_files(thesis: Thesis, stems: Iterable[str], out: Path) -> Path:
    """Where the run finds its files: the thesis's scenario directory, or, when some are built
    on demand (``Thesis.built_scenarios``), ``out/scenarios`` with every file the run needs
    written there."""
    if not _needs_built(thesis, stems):
        return thesis.scenario_dir
    built = thesis.built_scenarios()
    target = Path(out) / "scenarios"
    target.mkdir(parents=True, exist_ok=True)
    for stem in dict.fromkeys(stems):
        shipped = thesis.scenario_dir / f"{stem}.toml"
        text = shipped.read_text(encoding="utf-8") if shipped.exists() else built.get(f"{stem}.toml")
        if text is not None:  # a stem nobody makes is reported by the runner as a missing file
            atomic_write_text(target / f"{stem}.toml", text)
    return target


def reproduce(thesis: Thesis, *, quick: bool = False, seeds: int | None = None, jobs: int | None = None,
              out: str | Path | None = None, only: str | None = None, scheduler: str | None = None,
              progress: bool = True, reference: Path | None = None, jitter: str | None = None,
              params: Iterable[str] = ()) -> Outcome:
    """Run, judge and write the report; returns the :class:`Outcome`. ``out`` defaults to
    results/<thesis id>. ``jitter`` (a duration such as "1ms") gives every link that much
    processing jitter: a phase-sensitivity run. ``params`` are ``TARGET.KEY=VALUE`` overrides
    (:mod:`.params`): one of the readings the thesis leaves open, tried over the whole
    reproduction."""
    check_options(seeds=seeds, jobs=jobs, jitter=jitter)
    t0 = time.perf_counter()
    out = Path(out) if out is not None else Path("results") / thesis.id
    ref, scenarios, overrides = prepare(thesis, only=only, params=params, reference=reference)
    known_findings = _findings.load(thesis.findings_dir, scenario_ids(ref)) if thesis.findings_dir.is_dir() else []
    full_seeds = thesis.default_seeds or int(ref["tolerance"].get("seeds", 5))
    n = seeds if seeds is not None else (thesis.quick_seeds if quick else full_seeds)
    seed_list = list(range(1, n + 1))
    # a scenario's own seed count (reference.toml) holds in a full run without --seeds
    own_seeds = {} if seeds is not None or quick else {
        sid: list(range(1, scenario(ref, sid)["seeds"] + 1)) for sid in scenarios if "seeds" in scenario(ref, sid)}
    stems = [stem for sid in scenarios for stem in scenario_runs(scenario(ref, sid), quick).values()]
    tables = run_scenarios(ref, scenarios, seed_list, scenario_files(thesis, stems, out),
                           quick_factor=thesis.quick_factor if quick else None,
                           trace_scenarios=trace_scenarios(ref, thesis), port_traces=port_traces(ref),
                           jobs=jobs, scheduler=scheduler,
                           progress=progress, jitter=jitter, params=overrides,
                           extra_rows=thesis.extra_rows, quick_runs=quick, scenario_seeds=own_seeds)
    if thesis.sweep_rows is not None and len(tables.flows):
        tables.flows = _with_sweep_rows(tables.flows, thesis.sweep_rows(tables.flows))
    sim_seconds = time.perf_counter() - t0
    runs = tables.runs
    scen_col = {r.file: r.scenario for r in runs.itertuples()}
    pair_col = {r.file: r.pair for r in runs.itertuples()}
    for df in (tables.flows, tables.intervals, tables.traces, tables.probes, tables.queues):
        if "file" in df.columns:
            df.insert(0, "scenario", [scen_col.get(f) for f in df["file"]])
            df.insert(1, "pair", [pair_col.get(f) for f in df["file"]])
    data = {sid: scenario_data(ref, sid, tables, thesis, own_seeds.get(sid, seed_list)) for sid in scenarios}
    cells = _findings.annotate_cells(evaluate_cells(ref, data), known_findings)
    qchecks = _findings.annotate_checks(evaluate_qchecks(ref, data), known_findings)
    outcome = Outcome(thesis=thesis, out_dir=out, report_md=out / "report.md", report_html=out / "report.html",
                      cells=cells, qchecks=qchecks, runs=runs, seeds=seed_list, quick=quick, scenarios=scenarios,
                      scenario_seeds={sid: len(v) for sid, v in own_seeds.items()},
                      sim_seconds=sim_seconds, total_seconds=math.nan, version=_version(), jitter=jitter,
                      params=list(overrides), command=_command(thesis, quick, seeds, only, jitter, params),
                      findings=[f for f in known_findings if f.scenario in scenarios])
    from . import report

    outcome.files = report.write(outcome, ref, data, tables, t0=t0)
    return outcome
