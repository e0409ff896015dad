"""The ``ccsim`` subcommands about the theses: ``experiment``, ``reproduce`` and ``compare``."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

from ._cli_common import _check_out, _err, _text


EXPERIMENTS = {
    "keshav91-fq-buffers": "Keshav 1991 ch. 3: average and maximum insertion costs of the four FQ buffering "
                           "structures (LINK, TREE, HEAP, PERC), trace-driven, beside Tables 3.1/3.2",
    "cui-direct": "Cui ch. 3's target systems simulated directly (E3.2 at 40 Gb/s; --cases t3.4-k16, t3.4-k64, "
                  "k100 for Table 3.4 and 4 Tb/s) beside the extrapolations of `ccsim reproduce cui-buffers`",
}


def cmd_experiment(a) -> int:
    if a.out is not None:
        out = Path(a.out)
        if not a.out or out.is_dir() or (out.exists() and not out.resolve().is_file()):
            return _err(f"--out {a.out!r}: expected the path of a text file to write the report to")
    if a.name != "cui-direct":
        from .experiments.cui_buffers.direct import options_given

        given = options_given(a)
        if given:
            return _err(f"{' '.join(given)}: options of cui-direct only; {a.name} takes --seed and --out")
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


def cmd_reproduce(a) -> int:
    from rich.console import Console
    from rich.table import Table

    from .experiments.kit.registry import all_theses, get_thesis, thesis_ids

    if a.list:
        for t in all_theses():
            print(f"{t.id}  {t.title}" + (f"; {t.runtime}" if t.runtime else ""))
        return 0
    if a.thesis is None:
        return _err(f"reproduce: expected a thesis, one of: {', '.join(thesis_ids())} (ccsim reproduce --list)")
    thesis = get_thesis(a.thesis)

    from .experiments.kit.reproduce import check_options, prepare, reproduce
    from .experiments.kit.sections import failure_explanations
    from .experiments.kit.judge import pass_rates_text, simulated_rate_text

    if a.only is not None:
        a.only = ",".join(a.only)
    params = a.param or []
    # Every mistake in the options is reported before anything runs or any directory is made.
    check_options(seeds=a.seeds, jobs=a.jobs, jitter=a.jitter)
    prepare(thesis, only=a.only, params=params)
    default_out = f"results/{thesis.id}"
    out = a.out or default_out
    if a.out is None:  # an --out the user wrote is kept as written
        # A variant run (quick, a subset, jitter, another reading) keeps the plain full run's
        # report: a ten-second --only run must not replace an eleven-minute report.
        suffix = (["quick"] if a.quick else []) + ([f"only-{a.only}"] if a.only else []) + \
                 ([f"jitter-{a.jitter}"] if a.jitter is not None else []) + [p.strip() for p in params]
        out = "-".join([default_out] + [re.sub(r"[^A-Za-z0-9._=-]", "_", x) for x in suffix])
    made = not Path(out).exists()
    _check_out(out)
    try:
        res = reproduce(thesis, quick=a.quick, seeds=a.seeds, jobs=a.jobs, out=out, only=a.only,
                        scheduler=a.scheduler, jitter=a.jitter, params=params)
    except ConnectionError as e:
        if made:  # nothing ran: leave no empty directory behind
            try:
                Path(out).rmdir()
            except OSError:
                pass
        return _err(str(e))
    except KeyboardInterrupt:
        print(f"ccsim: interrupted before the report was written; {out}/ keeps the last complete report, "
              f"if there was one (every file is written whole or not at all)", file=sys.stderr)
        return 130
    con = Console() if sys.stdout.isatty() else Console(width=130)
    t = Table(title=f"{thesis.title} reproduction ({'quick' if res.quick else 'full'}, "
                    f"seeds {res.seeds[0]}..{res.seeds[-1]}"
                    + "".join(f", {sid} 1..{n}" for sid, n in res.scenario_seeds.items())
                    + f", {res.total_seconds:.0f} s)")
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
    files = res.file_runs()
    bad = int((files == 0).sum())
    if bad:
        names = list(files[files == 0].index)
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        con.print(f"{bad} of {len(files)} scenario files did not run: {', '.join(map(str, names[:5]))}{more} "
                  f"(the report says why)", markup=False)
    rates = pass_rates_text(res.cells)
    if rates:
        sim = simulated_rate_text(res.cells)
        con.print(f"judged cells passing (known issues aside): {rates}" + (f"; {sim}" if sim else ""))
    e = failure_explanations(res)
    bare = (e['failed cells'] - e['explained cells'], e['failed hard checks'] - e['explained checks'])
    con.print(f"covered by findings: {e['explained cells']} of {e['failed cells']} failed cells, "
              f"{e['explained checks']} of {e['failed hard checks']} failed or data-less hard checks "
              f"({e['open cells']} cells and {e['open checks']} checks only by findings whose cause is still open"
              + (f"; not yet explained: {bare[0]} cells and {bare[1]} checks, marked in the report" if any(bare) else "")
              + ")")
    if res.quick:
        from .experiments.kit.reference import load_reference
        from .experiments.kit.report import quick_caveat

        caveat = quick_caveat(thesis, load_reference(thesis.reference))
        if caveat:
            con.print(f"{caveat}.", markup=False)
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
    # The directories on lines of their own: a long one in a title would wrap mid-word.
    con.print(f"base:  {a.base}\nother: {a.other}", markup=False, soft_wrap=True)
    t = Table(title="passes, base -> other")
    for col in ("", "base", "other", "change"):
        t.add_column(col, justify="left" if not col else "right")
    for name, r in c.scores.iterrows():
        t.add_row(_text(name), str(r["base"]), str(r["other"]), f"{r['change']:+d}")
    con.print(t)
    if len(c.cells):
        from .experiments.kit.frames import fmt

        ct = Table(title=f"{len(c.cells)} cell{'s' if len(c.cells) != 1 else ''} changed status")
        # "at": a sweep's value or what an aggregate reads, which tell rows of one pair apart.
        for col in ("table", "pair", "at", "src", "phase", "metric", "class", "thesis", "base", "other", "status"):
            ct.add_column(col, justify="right" if col in ("src", "thesis", "base", "other") else "left")
        for r in c.cells.to_dict("records"):
            phase = r["phase"] if isinstance(r["phase"], str) else ""
            src = r["source"]
            src = int(src) if isinstance(src, float) and src.is_integer() else ("" if src != src else src)
            x = r.get("x", math.nan)
            at = " ".join(v for v in (f"{x:g}" if isinstance(x, float) and x == x else "",
                                      r.get("item") if isinstance(r.get("item"), str) else "") if v)
            ct.add_row(_text(r["table"]), _text(r["pair"]), _text(at), _text(src), _text(phase), _text(r["metric"]),
                       _text(r["class"]), fmt(r["thesis"]), fmt(r["sim_base"]), fmt(r["sim_other"]),
                       f"{r['status_base']} -> {r['status_other']}")
        con.print(ct)
    if len(c.checks):
        qt = Table(title=f"{len(c.checks)} qualitative check{'s' if len(c.checks) != 1 else ''} changed status")
        for col in ("check", "severity", "status", "other's detail"):
            qt.add_column(col)
        for r in c.checks.to_dict("records"):
            detail = r.get("detail") if isinstance(r.get("detail"), str) else ""
            detail = detail if len(detail) <= 200 else detail[:199] + "…"
            qt.add_row(_text(r["id"]), _text(r["severity"]), f"{r['status_base']} -> {r['status_other']}", _text(detail))
        con.print(qt)
    if not len(c.cells) and not len(c.checks):
        con.print("no cell or check changed status")
    return 0
