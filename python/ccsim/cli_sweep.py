"""``ccsim sweep``: a scenario over a grid of parameter values and seeds, on a local pool or a
Dask cluster, with a table of the means over seeds."""

from __future__ import annotations

import sys
from pathlib import Path

from ._cli_common import _check_out, _err, _path, _text


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
    try:
        sweep.check_grid(base, sets)
    except ValueError as e:
        return _err(str(e))
    made = not Path(a.out).exists()
    _check_out(a.out)
    try:
        table, failures = sweep.sweep(base, sets, seeds, a.out, workers=a.jobs, scheduler=a.scheduler)
    except ConnectionError as e:
        if made:  # nothing ran: leave no empty directories behind
            for d in (Path(a.out) / "runs", Path(a.out)):
                try:
                    d.rmdir()
                except OSError:
                    pass
        return _err(str(e))
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
        # In the order the values were given (sort=False), not as text ("40pkt" before "5pkt").
        g = table.groupby(pcols + ["name"], dropna=False, sort=False)
        agg = g.agg(goodput=("goodput_pps", "mean"), goodput_sd=("goodput_pps", "std"),
                    delay=("delay_s", "mean"), drops=("drop_rate", "mean"), seeds=("seed", "nunique")).reset_index()
        seeds = table["seed"].nunique()
        t = Table(title=f"sweep of {_text(a.file)}: {seeds} seed{'s' if seeds != 1 else ''}, mean over seeds")
        heads = {"goodput": "goodput (pkt/s)", "goodput_sd": "sd over seeds", "delay": "delay (s)",
                 "drops": "drops (/s)", "name": "flow"}
        for c in agg.columns:
            t.add_column(_text(heads.get(c, c.removeprefix("param:"))), justify="left" if c in pcols + ["name"] else "right")
        for _, r in agg.iterrows():
            t.add_row(*[("-" if v != v else f"{v:.4g}") if isinstance(v, float) else _text(v) for v in r.values])
        (Console() if sys.stdout.isatty() else Console(width=160)).print(t)
    drawn = write_sweep_figure(table, Path(a.out), title=str(base.get("name") or Path(a.file).stem),
                               draw=not a.no_plots)
    pcols = [c for c in table.columns if c.startswith("param:")]
    runs = len(table[pcols + ["seed"]].drop_duplicates()) if len(table) else 0
    print(f"{runs} run{'s' if runs != 1 else ''}, {len(table)} flow row{'s' if len(table) != 1 else ''}: "
          f"{a.out}/sweep.parquet{' and sweep.png' if drawn else ''} (runs/ keeps one JSON per run; running the "
          f"same sweep again skips them)")
    return 1 if failures else 0


def write_sweep_figure(table, out: Path, *, title: str, draw: bool = True) -> bool:
    """sweep.png in ``out`` from the sweep's rows, if a parameter varies (and ``draw``); a
    figure left there by an earlier sweep that this one does not draw is removed, so the
    figure always shows the table beside it."""
    from .plots_sweep import plot_sweep, varying

    png = out / "sweep.png"
    if draw and len(table) and varying(table):
        return plot_sweep(table, png, title=title)
    png.unlink(missing_ok=True)
    return False


def add_command(sub) -> None:
    sw = sub.add_parser("sweep", help="run a scenario over a grid of parameter values and seeds",
                        description="Each --set PATH=V1,V2 adds an axis (PATH as in error messages, e.g. "
                                    "links[0].buffer or flows[1].params.beta). Finished runs are kept in "
                                    "OUT/runs/ and skipped when the sweep is run again.")
    sw.add_argument("file")
    sw.add_argument("--set", action="append", default=[], metavar="PATH=V1,V2,...")
    sw.add_argument("--seeds", default="1", help="A..B or a comma list (default 1)")
    sw.add_argument("--out", type=_path, required=True, metavar="DIR")
    sw.add_argument("--jobs", type=int, help="parallel runs (default: one per core)")
    sw.add_argument("--scheduler", metavar="ADDR", help="run on a Dask cluster, e.g. tcp://host:8786")
    sw.add_argument("--no-plots", action="store_true", help="skip sweep.png (each flow's goodput, delay and "
                                                            "drops against the first swept value)")
    sw.set_defaults(func=cmd_sweep)
