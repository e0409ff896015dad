"""The ``ccsim`` command.

    ccsim run FILE [--out DIR] [--seed N] [--duration D] [--no-plots]
    ccsim validate FILE...
    ccsim list [NAME] [--markdown]
    ccsim bench dumbbell [--flows N] [--duration S] [--seed N]
    ccsim bench cui [--channels K] [--duration S] [--buffer B] [--share BPS]
    ccsim plot DIR
    ccsim compare BASE OTHER
    ccsim reproduce THESIS [--quick] [--seeds N] [--jobs N] [--out DIR] [--only S1,S3] [--scheduler ADDR] [--jitter 1ms]
                           [--param TARGET.KEY=VALUE ...]
    ccsim reproduce --list

Exit status: 0 on success, 2 on bad input (the message names the field and what was
expected), 1 on an internal error, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path


def _seed(text: str) -> int:
    """argparse type of --seed: an integer in the engine's range (argparse exits 2 otherwise)."""
    import argparse

    from .api import check_seed

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    try:
        return check_seed(value, "seed")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("seed: ")) from None


def _with_file(file, err) -> str:
    """The error prefixed with the scenario file, unless it names the file already."""
    msg = str(err)
    names = {str(file), str(Path(file))}
    return msg if any(msg.startswith(n + ":") for n in names) else f"{file}: {msg}"


def _err(msg: str) -> int:
    print(f"ccsim: error: {msg}", file=sys.stderr)
    return 2


def _check_out(path: str | None, *, is_file: bool = False) -> None:
    """Fail before any simulation runs if the results could not be written there: create the
    output directory (or a file's parent) and probe it. Raises ValueError naming --out."""
    if not path:
        return
    d = Path(path).parent if is_file else Path(path)
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / f".ccsim-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ValueError(f"--out {path}: cannot write there ({e.strerror or e}); expected a writable "
                         f"{'file path' if is_file else 'directory'}") from None


def _fmt(mean: float, sd: float | None = None, digits: int = 3) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    s = f"{mean:.{digits}f}"
    if sd is not None and not math.isnan(sd) and sd >= 0.5 * 10 ** (-digits):
        s += f" ± {sd:.{digits}f}"
    return s


def _text(value) -> str:
    """A value as table text: rich never reads a user's names as markup."""
    from rich.markup import escape

    return escape(str(value))


def _print_table(res) -> None:
    from rich.console import Console
    from rich.table import Table

    run = res.run
    t = Table(title=f"{_text(run['name'])}: seed {run['seed']}, {run['duration_s']:g} s, "
                    f"intervals of {run['interval_s']:g} s (first {run['discard']} discarded)")
    for col in ("flow", "app/cc", "goodput (pkt/s)", "delay RTT (s)", "drops (/s)", "retx (/s)", "sent", "timeouts"):
        t.add_column(col, justify="left" if col in ("flow", "app/cc") else "right")
    for _, f in res.flows.iterrows():
        t.add_row(_text(f["name"]), f"{f['app']}/{f['cc']}",
                  _fmt(f["goodput_pps"], f["goodput_pps_sd"]), _fmt(f["delay_s"], f["delay_s_sd"]),
                  _fmt(f["drop_rate"], f["drop_rate_sd"]), _fmt(f["retx_rate"], f["retx_rate_sd"]),
                  str(int(f["sent"])), str(int(f["timeouts"])))
    con = Console() if sys.stdout.isatty() else Console(width=130)
    con.print(t)
    jain = run["jain_goodput"]
    con.print(f"Jain index (goodput): {jain:.4f}" if jain == jain else "Jain index: -",
              f"   events: {run['events']:,}   wall: {run['wall_seconds']:.2f} s",
              f"   packet conservation: {'ok' if run['conserved'] else 'VIOLATED'}")


def cmd_run(a) -> int:
    from . import api

    if a.out:
        api.validate(a.file, seed=a.seed, duration=a.duration)  # a bad scenario fails before --out exists
        _check_out(a.out)
    try:
        res = api.run(a.file, seed=a.seed, duration=a.duration, progress=True if sys.stderr.isatty() else "notice")
    except api.RunInterrupted as stop:
        # Ctrl-C or SIGTERM: keep what was measured, say so, and exit as interrupted.
        res = stop.results
        print(f"ccsim: interrupted after {res.run['duration_s']:.6g} simulated seconds; the results "
              f"below cover that much", file=sys.stderr)
        if not a.quiet:
            _print_table(res)
        if a.out:
            paths = res.write(a.out, plots=not a.no_plots)
            print(f"kept {len(paths)} files in {a.out}/ (the run up to the interruption): "
                  + ", ".join(p.name for p in paths))
        return 130
    if not a.quiet:
        _print_table(res)
    if a.out:
        paths = res.write(a.out, plots=not a.no_plots)
        print(f"wrote {len(paths)} files to {a.out}/: " + ", ".join(p.name for p in paths))
    return 0 if res.run["conserved"] else 1


def cmd_validate(a) -> int:
    from . import api
    from ._core import ScenarioError

    status = 0
    for f in a.files:
        try:
            d = api.validate(f)
            print(f"{f}: ok ({d['nodes']} nodes, {d['links']} links, {d['flows']} flows, {d['duration_s']:g} s)")
        except ScenarioError as e:
            print(_with_file(f, e), file=sys.stderr)
            status = 2
    return status


def cmd_list(a) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from . import registry

    if a.markdown:
        print(registry.markdown())
        return 0
    con = Console() if sys.stdout.isatty() else Console(width=150)
    if a.name:
        try:
            c = registry.component(a.name)
        except KeyError as e:
            return _err(str(e.args[0]))
        t = Table(title=f"{c.name} ({'cc' if c.kind == 'cc' else 'queue'}): {escape(c.summary)}; "
                        f"parameters go in {c.table} = {{...}}")
        for col in ("parameter", "takes", "default", "meaning"):
            t.add_column(col)
        for p in c.params:
            t.add_row(p.name, escape(p.expects), escape(p.default), escape(p.doc))
        con.print(t)
        return 0
    for title, items in (("congestion control (flows' cc)", registry.algorithms()),
                         ("queue disciplines (links' queue)", registry.disciplines())):
        t = Table(title=title)
        for col in ("name", "parameters", "what it is"):
            t.add_column(col)
        for c in items:
            t.add_row(c.name, str(len(c.params)), escape(c.summary))
        con.print(t)
    con.print(f"applications (flows' app): {', '.join(registry.applications())}; "
              "`ccsim list NAME` shows one's parameters")
    return 0


EXPERIMENTS = {
    "keshav91-fq-buffers": "Keshav 1991 ch. 3: average and maximum insertion costs of the four FQ buffering "
                           "structures (LINK, TREE, HEAP, PERC), trace-driven, beside Tables 3.1/3.2",
    "cui-direct": "Cui ch. 3's target systems simulated directly (E3.2 at 40 Gb/s; --cases t3.4-k16, t3.4-k64, "
                  "k100 for Table 3.4 and 4 Tb/s) beside the extrapolations (issue 22)",
}


def cmd_experiment(a) -> int:
    if a.out is not None:
        out = Path(a.out)
        if not a.out or out.is_dir() or (out.exists() and not out.resolve().is_file()):
            return _err(f"--out {a.out!r}: expected the path of a text file to write the report to")
    _check_out(a.out, is_file=True)
    if a.name == "cui-direct":
        from .experiments.cui_buffers.direct import experiment

        text, problem = experiment(a)
        if problem:
            return _err(problem)
    else:
        from .experiments.keshav91.fq_buffers import report

        text, held, total = report(a.seed)
        text += f"\n{held} of {total} of the chapter's qualitative findings hold on this run.\n"
    print(text, end="")
    if a.out:
        from ._files import atomic_write_text
        atomic_write_text(a.out, text)
        print(f"wrote {a.out}")
    return 0


def cmd_sweep(a) -> int:
    from . import api, sweep

    try:
        sets = [sweep.parse_set(s) for s in a.set]
        seeds = sweep.parse_seeds(a.seeds)
    except ValueError as e:
        return _err(str(e))
    if a.jobs is not None and a.jobs < 1:
        return _err(f"--jobs: expected a positive integer, got {a.jobs}")
    if a.scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return _err("--scheduler needs the optional dependency: pip install 'ccsim[dask]'")
    base = api.load_scenario(a.file)
    _check_out(a.out)
    # Validate every combination up front, so a typo fails before hours of runs.
    import copy
    import itertools

    for combo in itertools.product(*[v for _, v in sets]) if sets else [()]:
        data = copy.deepcopy(base)
        try:
            for (p, _), v in zip(sets, combo):
                sweep.set_path(data, p, v)
        except ValueError as e:
            return _err(str(e))
        api.validate(data)
    try:
        table, failures = sweep.sweep(base, sets, seeds, a.out, workers=a.jobs, scheduler=a.scheduler)
    except KeyboardInterrupt:
        runs = Path(a.out) / "runs"
        kept = len(list(runs.glob("*.json"))) if runs.is_dir() else 0
        print(f"ccsim: interrupted; kept {kept} finished runs in {runs}/ (the same command continues from "
              f"them)", file=sys.stderr)
        return 130
    for params, seed, msg in failures:
        print(f"run failed: {params} seed {seed}: {msg}", file=sys.stderr)
    if len(table):
        from rich.console import Console
        from rich.table import Table

        pcols = [c for c in table.columns if c.startswith("param:")]
        g = table.groupby(pcols + ["name"], dropna=False) if pcols else table.groupby(["name"])
        agg = g.agg(goodput=("goodput_pps", "mean"), goodput_sd=("goodput_pps", "std"),
                    delay=("delay_s", "mean"), drops=("drop_rate", "mean"), seeds=("seed", "nunique")).reset_index()
        t = Table(title=f"sweep of {_text(a.file)}: {table['seed'].nunique()} seeds, mean over seeds")
        for c in agg.columns:
            t.add_column(_text(c.removeprefix("param:")), justify="left" if c in pcols + ["name"] else "right")
        for _, r in agg.iterrows():
            t.add_row(*[f"{v:.4g}" if isinstance(v, float) else _text(v) for v in r.values])
        (Console() if sys.stdout.isatty() else Console(width=160)).print(t)
    pcols = [c for c in table.columns if c.startswith("param:")]
    runs = len(table[pcols + ["seed"]].drop_duplicates()) if len(table) else 0
    print(f"{runs} runs, {len(table)} flow rows: {a.out}/sweep.parquet (runs/ keeps one JSON per run; "
          f"running the same sweep again skips them)")
    return 1 if failures else 0


def cmd_plot(a) -> int:
    from .results import Results, write_figures

    loaded = Results.read(a.dir)
    out = Path(a.dir)
    # Each figure goes to a temporary file first, so a failed plot never leaves a broken PNG
    # in place of a good one.
    try:
        made = [p.name for p in write_figures(loaded, out)]
    except OSError as e:
        return _err(f"{out}: cannot write the figures there ({e.strerror or e})")
    print(f"wrote {', '.join(made) or 'nothing (no traces)'} in {out}/")
    return 0


def cmd_reproduce(a) -> int:
    from rich.console import Console
    from rich.table import Table

    from .experiments.kit.registry import all_theses, get_thesis, thesis_ids

    if a.list:
        for t in all_theses():
            print(f"{t.id}  {t.title}")
        return 0
    if a.thesis is None:
        return _err(f"reproduce: expected a thesis, one of: {', '.join(thesis_ids())} (ccsim reproduce --list)")
    thesis = get_thesis(a.thesis)

    from .experiments.kit.reproduce import check_options, prepare, reproduce
    from .experiments.kit.sections import failure_explanations
    from .experiments.kit.judge import pass_rates_text

    if a.only is not None:
        a.only = ",".join(a.only)
    params = a.param or []
    # Every mistake in the options is reported before anything runs or any directory is made.
    check_options(seeds=a.seeds, jobs=a.jobs, jitter=a.jitter)
    prepare(thesis, only=a.only, params=params)
    default_out = f"results/{thesis.id}"
    out = a.out or default_out
    if out == default_out:  # a variant run keeps the plain run's report
        suffix = ([f"jitter-{a.jitter}"] if a.jitter is not None else []) + [re.sub(r"[^A-Za-z0-9._=-]", "_", p.strip())
                                                                           for p in params]
        out = "-".join([default_out] + suffix)
    _check_out(out)
    try:
        res = reproduce(thesis, quick=a.quick, seeds=a.seeds, jobs=a.jobs, out=out, only=a.only,
                        scheduler=a.scheduler, jitter=a.jitter, params=params)
    except KeyboardInterrupt:
        print(f"ccsim: interrupted before the report was written; {out}/ keeps the last complete report, "
              f"if there was one (every file is written whole or not at all)", file=sys.stderr)
        return 130
    con = Console() if sys.stdout.isatty() else Console(width=130)
    t = Table(title=f"{thesis.title} reproduction ({'quick' if res.quick else 'full'}, "
                    f"seeds {res.seeds[0]}..{res.seeds[-1]}, {res.total_seconds:.0f} s)")
    cc = res.cell_counts()
    for col in cc.columns:
        t.add_column(str(col), justify="left" if col == "class" else "right")
    for row in cc.itertuples(index=False):
        t.add_row(*[_text(x) for x in row])
    con.print(t)
    q = Table(title="qualitative checks")
    qc = res.qcheck_counts()
    for col in qc.columns:
        q.add_column(str(col), justify="left" if col == "checks" else "right")
    for row in qc.itertuples(index=False):
        q.add_row(*[_text(x) for x in row])
    con.print(q)
    bad = int((res.runs["seeds_ok"] == 0).sum()) if len(res.runs) else 0
    if bad:
        con.print(f"{bad} of {len(res.runs)} scenario files did not run (see the report)")
    rates = pass_rates_text(res.cells)
    if rates:
        con.print(f"judged cells passing (known issues aside): {rates}")
    e = failure_explanations(res)
    con.print(f"covered by findings: {e['explained cells']} of {e['failed cells']} failed cells, "
              f"{e['explained checks']} of {e['failed hard checks']} failed or data-less hard checks "
              f"(cause still open for {e['open cells']} cells and {e['open checks']} checks)")
    print(f"report: {res.report_md} and {res.report_html}")
    return 1 if bad else 0  # a reproduction with runs that failed is not a success


def cmd_compare(a) -> int:
    from rich.console import Console
    from rich.table import Table

    from .experiments.kit.compare import compare

    c = compare(a.base, a.other)
    con = Console() if sys.stdout.isatty() else Console(width=150)
    if c.note:
        con.print(c.note, markup=False)
    t = Table(title=f"passes: {_text(a.base)} -> {_text(a.other)}")
    for col in ("", "base", "other", "change"):
        t.add_column(col, justify="left" if not col else "right")
    for name, r in c.scores.iterrows():
        t.add_row(_text(name), str(r["base"]), str(r["other"]), f"{r['change']:+d}")
    con.print(t)
    if len(c.cells):
        ct = Table(title=f"{len(c.cells)} cells changed status")
        for col in ("table", "pair", "src", "phase", "metric", "class", "thesis", "base", "other", "status"):
            ct.add_column(col, justify="right" if col in ("src", "thesis", "base", "other") else "left")
        for r in c.cells.to_dict("records"):
            phase = r["phase"] if isinstance(r["phase"], str) else ""
            ct.add_row(_text(r["table"]), _text(r["pair"]), _text(r["source"]), _text(phase), _text(r["metric"]), _text(r["class"]),
                       _fmt(r["thesis"]), _fmt(r["sim_base"]), _fmt(r["sim_other"]),
                       f"{r['status_base']} -> {r['status_other']}")
        con.print(ct)
    if len(c.checks):
        qt = Table(title=f"{len(c.checks)} qualitative checks changed status")
        for col in ("check", "severity", "status", "other's detail"):
            qt.add_column(col)
        for r in c.checks.to_dict("records"):
            detail = r.get("detail") if isinstance(r.get("detail"), str) else ""
            qt.add_row(_text(r["id"]), _text(r["severity"]), f"{r['status_base']} -> {r['status_other']}", _text(detail[:160]))
        con.print(qt)
    if not len(c.cells) and not len(c.checks):
        con.print("no cell or check changed status")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = argparse.ArgumentParser(prog="ccsim", description="Packet-level simulator for congestion-control research.")
    p.add_argument("--version", action="version", version=f"ccsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario file and print per-flow results")
    r.add_argument("file", help="scenario TOML file")
    r.add_argument("--out", metavar="DIR", help="write summary.json, Parquet tables and PNG plots here")
    r.add_argument("--seed", type=_seed, help="override the scenario's seed")
    r.add_argument("--duration", help="override the scenario's duration, e.g. 100s")
    r.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    r.add_argument("-q", "--quiet", action="store_true", help="do not print the results table")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check scenario files without running them")
    v.add_argument("files", nargs="+", metavar="FILE")
    v.set_defaults(func=cmd_validate)

    ls = sub.add_parser("list", help="list the congestion-control algorithms and queue disciplines, or one's parameters")
    ls.add_argument("name", nargs="?", help="an algorithm or discipline: show its parameters")
    ls.add_argument("--markdown", action="store_true", help="print the whole parameter reference as Markdown "
                                                            "(docs/parameters.md)")
    ls.set_defaults(func=cmd_list)

    from .bench import add_command as add_bench

    add_bench(sub, _seed, _err)

    sw = sub.add_parser("sweep", help="run a scenario over a grid of parameter values and seeds",
                        description="Each --set PATH=V1,V2 adds an axis (PATH as in error messages, e.g. "
                                    "links[0].buffer or flows[1].params.beta). Finished runs are kept in "
                                    "OUT/runs/ and skipped when the sweep is run again.")
    sw.add_argument("file")
    sw.add_argument("--set", action="append", default=[], metavar="PATH=V1,V2,...")
    sw.add_argument("--seeds", default="1", help="A..B or a comma list (default 1)")
    sw.add_argument("--out", required=True, metavar="DIR")
    sw.add_argument("--jobs", type=int, help="parallel runs (default: one per core)")
    sw.add_argument("--scheduler", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://host:8786")
    sw.set_defaults(func=cmd_sweep)

    e = sub.add_parser("experiment", help="run a thesis experiment that is not a table reproduction (e.g. chapter 3's "
                                          "buffering structures, measured on an engine run's trace)",
                       description="\n".join(f"{k}: {v}" for k, v in EXPERIMENTS.items()))
    e.add_argument("name", choices=sorted(EXPERIMENTS))
    e.add_argument("--seed", type=_seed, default=1)
    e.add_argument("--out", metavar="FILE", help="also write the text report here (cui-direct: and its table "
                                                 "beside it, as .csv)")
    from .experiments.cui_buffers.direct import add_options

    add_options(e)
    e.set_defaults(func=cmd_experiment)

    cp = sub.add_parser("compare", help="what changed between two reproduction runs",
                        description="BASE and OTHER are output directories of `ccsim reproduce` (e.g. "
                                    "results/keshav91 and results/keshav91-generic.retransmit=expired): the "
                                    "passes per class in each, and every cell and check whose verdict differs.")
    cp.add_argument("base", metavar="BASE")
    cp.add_argument("other", metavar="OTHER")
    cp.set_defaults(func=cmd_compare)

    pl = sub.add_parser("plot", help="redraw the plots of a results directory")
    pl.add_argument("dir")
    pl.set_defaults(func=cmd_plot)

    rp = sub.add_parser("reproduce", help="run a thesis's experiments and write a report comparing every result",
                        description="THESIS is a registered thesis (ccsim reproduce --list names them).")
    rp.add_argument("thesis", nargs="?", metavar="THESIS", help="the thesis to reproduce, e.g. keshav91")
    rp.add_argument("--list", action="store_true", help="list the registered theses (id and title) and exit")
    rp.add_argument("--quick", action="store_true",
                    help="fewer seeds and shortened runs, as the thesis sets them (keshav91: 2 seeds, durations "
                         "halved; about 30 s on 2 cores)")
    rp.add_argument("--seeds", type=int, metavar="N", help="seeds 1..N (default: the thesis's, and its quick "
                                                            "number with --quick)")
    rp.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per core)")
    rp.add_argument("--out", metavar="DIR",
                    help="report directory (default results/THESIS; with --jitter J or --param P, "
                         "results/THESIS-jitter-J-P)")
    rp.add_argument("--only", metavar="S1,S3", action="append",
                    help="only these scenarios (repeatable: --only S1 --only S3 is --only S1,S3)")
    rp.add_argument("--scheduler", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://host:8786")
    rp.add_argument("--jitter", metavar="DURATION",
                    help="add this much processing jitter to every link (e.g. 1ms): which results depend on "
                         "exact packet timing")
    rp.add_argument("--param", action="append", metavar="TARGET.KEY=VALUE",
                    help="set a parameter in every flow whose cc is TARGET (e.g. generic.retransmit=expired) or "
                         "every port whose queue is TARGET (e.g. fq.drop_policy=largest_bid) or, TARGET links, on every "
                         "link (e.g. links.buffer=60pkt); repeatable: try a "
                         "reading the thesis leaves open without editing the scenario files")
    rp.set_defaults(func=cmd_reproduce)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    if not a.command:
        parser.print_help()
        return 2
    from ._core import ScenarioError
    import signal

    def terminate(signum, frame):
        raise KeyboardInterrupt  # SIGTERM stops a run as Ctrl-C does: what was measured is kept

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:
        pass  # not the main thread (an embedding): leave SIGTERM as it is
    try:
        return a.func(a)
    except ScenarioError as e:
        file = getattr(a, "file", None)
        return _err(_with_file(file, e) if file else str(e))
    except (OSError, ValueError) as e:
        return _err(str(e))
    except KeyboardInterrupt:
        print("ccsim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
