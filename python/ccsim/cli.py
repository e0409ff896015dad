"""The ``ccsim`` command.

    ccsim run FILE [--out DIR] [--seed N] [--duration D] [--set PATH=VALUE ...] [--no-plots]
    ccsim validate FILE|DIR...
    ccsim scenarios [FOLDER] [--path] [--copy DIR]
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
import os
import re
import sys
import textwrap
from pathlib import Path

from ._cli_common import _check_out, _err, _path, _print_table, _seed, _with_file
from .cli_scenarios import scenario_files
from .cli_theses import EXPERIMENTS, cmd_compare, cmd_experiment, cmd_reproduce


def _with_sets(file, specs: list[str]):
    """The scenario to run: the file, or its fields changed by --set PATH=VALUE (one value each;
    PATH as in error messages). A bad --set is a ValueError naming it."""
    from . import api, sweep

    if not specs:
        return file
    data = api.load_scenario(file)
    for spec in specs:
        if spec.split("=", 1)[0].strip() == "seed":
            raise ValueError("--set seed: give the seed with --seed")
        path, values = sweep.parse_set(spec)
        if len(values) != 1:
            raise ValueError(f"--set {path}: expected one value in a run, got {len(values)} (ccsim sweep runs several)")
        sweep.set_path(data, path, values[0])
    return data


def _holds_complete_run(out: str) -> bool:
    """True if ``out`` holds a run's results that were not interrupted (summaries written
    before the flag existed count as complete)."""
    import json

    try:
        return json.loads((Path(out) / "summary.json").read_text())["run"].get("interrupted") is not True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _beside(out: str) -> str:
    """``out``'s sibling for an interrupted run's results: run1/ -> run1-interrupted, . -> ../<name>-interrupted."""
    p = Path(out).resolve()
    return str(p.with_name(p.name + "-interrupted")) if p.name else str(p / "interrupted")


def cmd_run(a) -> int:
    from . import api

    scenario = _with_sets(a.file, a.set)
    if a.set:
        # An error in the changed scenario says the change made it.
        from ._core import ScenarioError

        try:
            api.validate(scenario, seed=a.seed, duration=a.duration)
        except ScenarioError as e:
            raise ScenarioError(f"{e} (in the scenario as changed by --set {' --set '.join(a.set)})") from None
    if a.out:
        api.validate(scenario, seed=a.seed, duration=a.duration)  # a bad scenario fails before --out exists
        _check_out(a.out)
    try:
        res = api.run(scenario, seed=a.seed, duration=a.duration, progress=True if sys.stderr.isatty() else "notice")
    except api.RunInterrupted as stop:
        # Ctrl-C or SIGTERM: keep what was measured, say so, and exit as interrupted.
        res = stop.results
        print(f"ccsim: interrupted after {res.run['duration_s']:.6g} simulated seconds; the results "
              f"below cover that much", file=sys.stderr)
        # A complete run already in --out is not replaced by a partial one: that goes beside it.
        dest = _beside(a.out) if a.out and _holds_complete_run(a.out) else a.out
        paths = []
        if dest:
            try:
                paths = res.write(dest, plots=not a.no_plots)
            except OSError as e:  # what was measured is not lost for want of the side directory
                print(f"ccsim: cannot write {dest} ({e.strerror or e}); writing to {a.out} instead", file=sys.stderr)
                dest = a.out
                paths = res.write(dest, plots=not a.no_plots)
        if not a.quiet:
            _print_table(res)
        if dest:
            kept = f"; {a.out} keeps the complete run that was there" if dest != a.out else ""
            print(f"kept {len(paths)} files in {dest} (the run up to the interruption{kept}): "
                  + ", ".join(p.name for p in paths))
        return 130
    if a.set:
        res.run["set"] = list(a.set)  # summary.json records the changes
    # The files first: a reader that stops early (`| head`) must not cost the results.
    paths = res.write(a.out, plots=not a.no_plots) if a.out else []
    if not a.quiet:
        _print_table(res)
    if a.out:
        print(f"wrote {len(paths)} files to {a.out}/: " + ", ".join(p.name for p in paths))
    return 0 if res.run["conserved"] else 1


def cmd_validate(a) -> int:
    from . import api
    from ._core import ScenarioError

    status, files = 0, []
    for given in a.files:
        try:
            files += scenario_files(given)
        except ValueError as e:
            print(f"ccsim: error: {e}", file=sys.stderr)
            status = 2
    for f in files:
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
            if a.name in registry.applications():
                return _err(f"{a.name} is an application (a flow's app), not an algorithm or a discipline: its "
                            f"fields are the [[flows]] keys of the scenario format (docs/scenario-format.md)")
            return _err(str(e.args[0]))
        t = Table(title=f"{c.name} ({'cc' if c.kind == 'cc' else 'queue'}): {escape(c.summary)}; "
                        f"parameters go in {c.table} = {{...}}")
        for col in ("parameter", "takes", "default", "meaning"):
            t.add_column(col)
        for p in c.params:
            t.add_row(p.name, escape(p.expects), escape(p.default), escape(p.doc))
        con.print(t if c.params else f"{c.name} ({'cc' if c.kind == 'cc' else 'queue'}): {escape(c.summary)}; "
                                     f"no parameters")
        return 0
    for title, items in (("congestion control (flows' cc)", registry.algorithms()),
                         ("queue disciplines (links' queue)", registry.disciplines())):
        t = Table(title=title)
        for col in ("name", "parameters", "what it is"):
            t.add_column(col)
        for c in items:
            t.add_row(c.name, str(len(c.params)), escape(c.summary))
        con.print(t)
    con.print(escape(f"applications (flows' app): {', '.join(registry.applications())} (their fields: the "
                     "scenario format's [[flows]] section, docs/scenario-format.md)"))
    con.print("`ccsim list NAME` shows an algorithm's or a discipline's parameters")
    return 0


def cmd_plot(a) -> int:
    from .results import Results, write_figures

    out = Path(a.dir)
    if (out / "sweep.parquet").is_file() and not (out / "summary.json").exists():
        import pandas as pd

        from .cli_sweep import write_sweep_figure

        try:
            table = pd.read_parquet(out / "sweep.parquet")
        except Exception as e:   # a damaged file: whatever pyarrow raised
            return _err(f"{out / 'sweep.parquet'}: cannot read ({e}); expected the table `ccsim sweep` writes")
        lacking = {"seed", "name", "goodput_pps", "delay_s", "drop_rate"} - set(table.columns)
        if lacking:
            return _err(f"{out / 'sweep.parquet'}: no {', '.join(sorted(lacking))} column; expected the table "
                        f"`ccsim sweep` writes")
        drawn = write_sweep_figure(table, out, title=str(table.attrs.get("scenario") or out.name))
        print(f"wrote {'sweep.png' if drawn else 'nothing (no parameter varies)'} in {out}/")
        return 0
    loaded = Results.read(a.dir)
    # Each figure goes to a temporary file first, so a failed plot never leaves a broken PNG
    # in place of a good one.
    try:
        made = [p.name for p in write_figures(loaded, out)]
    except OSError as e:
        return _err(f"{out}: cannot write the figures there ({e.strerror or e})")
    print(f"wrote {', '.join(made) or 'nothing (no traces)'} in {out}/")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = argparse.ArgumentParser(prog="ccsim", description="Packet-level simulator for congestion-control research.")
    p.add_argument("--version", action="version", version=f"ccsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario file and print per-flow results")
    r.add_argument("file", help="scenario TOML file")
    r.add_argument("--out", type=_path, metavar="DIR", help="write summary.json, Parquet tables and PNG plots here")
    r.add_argument("--seed", type=_seed, help="override the scenario's seed")
    r.add_argument("--duration", help="override the scenario's duration, e.g. 100s")
    r.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                   help="change one field of the scenario, PATH as in error messages (repeatable), e.g. "
                        "flows[0].max_window=20 or links[1].buffer=\"50pkt\"; --seed and --duration apply after it")
    r.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    r.add_argument("-q", "--quiet", action="store_true", help="do not print the results table")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check scenario files without running them")
    v.add_argument("files", nargs="+", metavar="FILE", help="a scenario file, or a folder: every .toml in it "
                                                            "(scenarios/examples works from any directory)")
    v.set_defaults(func=cmd_validate)

    from .cli_scenarios import add_command as add_scenarios

    add_scenarios(sub)

    ls = sub.add_parser("list", help="list the congestion-control algorithms and queue disciplines, or one's parameters")
    ls.add_argument("name", nargs="?", help="an algorithm or discipline: show its parameters")
    ls.add_argument("--markdown", action="store_true", help="print the whole parameter reference as Markdown "
                                                            "(docs/parameters.md)")
    ls.set_defaults(func=cmd_list)

    from .bench import add_command as add_bench

    add_bench(sub, _seed, _err)

    from .cli_sweep import add_command as add_sweep

    add_sweep(sub)

    e = sub.add_parser("experiment", help="run a thesis experiment that is not a table reproduction (e.g. chapter 3's "
                                          "buffering structures, measured on an engine run's trace)",
                       description="\n\n".join(textwrap.fill(f"{k}: {v}", 88, subsequent_indent="  ")
                                               for k, v in EXPERIMENTS.items()),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("name", choices=sorted(EXPERIMENTS))
    e.add_argument("--seed", type=_seed, default=1)
    e.add_argument("--out", type=_path, metavar="FILE", help="also write the text report here (cui-direct: and its table "
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

    pl = sub.add_parser("plot", help="redraw the plots of a results directory (a run's, or a sweep's sweep.png)")
    pl.add_argument("dir")
    pl.set_defaults(func=cmd_plot)

    rp = sub.add_parser("reproduce", help="run a thesis's experiments and write a report comparing every result",
                        description="THESIS is a registered thesis (ccsim reproduce --list names them).")
    rp.add_argument("thesis", nargs="?", metavar="THESIS", help="the thesis to reproduce, e.g. keshav91")
    rp.add_argument("--list", action="store_true", help="list the registered theses (id, title and how long a run "
                                                        "takes) and exit")
    rp.add_argument("--quick", action="store_true",
                    help="fewer seeds and shortened runs, as the thesis sets them (keshav91: 2 seeds, durations "
                         "halved): a smoke test, whose scores are not the full run's; --list gives each "
                         "thesis's times")
    rp.add_argument("--seeds", type=int, metavar="N", help="seeds 1..N for every scenario, also those "
                                                            "the thesis gives more (default: the thesis's numbers, and "
                                                            "its quick number with --quick)")
    rp.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per core)")
    rp.add_argument("--out", type=_path, metavar="DIR",
                    help="report directory (default results/THESIS for a full run; a variant gets its own, "
                         "e.g. results/THESIS-quick, results/THESIS-only-S1_S3, results/THESIS-jitter-J-P)")
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


def _join_negative_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``--duration -5s`` as ``--duration=-5s``: argparse takes a value starting with "-" that is
    not a plain number for an option and answers "expected one argument"; joined, the value
    reaches the check that says what is wrong with it."""
    takes_value = set()
    for p in [parser] + [sp for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                         for sp in a.choices.values()]:
        for a in p._actions:
            if a.option_strings and a.nargs is None and not isinstance(a, (argparse._StoreConstAction,
                                                                              argparse._HelpAction)):
                takes_value.update(o for o in a.option_strings if o.startswith("--"))
    out, i = [], 0
    while i < len(argv):
        if argv[i] in takes_value and i + 1 < len(argv) and re.match(r"-[0-9.]", argv[i + 1]):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(_join_negative_values(parser, sys.argv[1:] if argv is None else list(argv)))
    if not a.command:
        parser.print_help()
        return 2
    from ._core import ScenarioError
    from .sweep import _progress
    import signal

    _progress.LINES_OFF_TERMINAL = True  # a long command off a terminal says it is alive

    def terminate(signum, frame):
        raise KeyboardInterrupt  # SIGTERM stops a run as Ctrl-C does: what was measured is kept

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:
        pass  # not the main thread (an embedding): leave SIGTERM as it is
    try:
        status = a.func(a)
        sys.stdout.flush()  # here, so a reader that went away is seen below, not at exit
        return status
    except BrokenPipeError:
        # The reader stopped early (`ccsim reproduce --list | head -1`): end quietly with
        # nothing left to flush into the closed pipe, and status 1, as rich's tables do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
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
