"""Liang 1991's window figures in the thesis's form: the current window (packets) against time
(0-80 s) of one seed's run.

- Figs 4.3 / 4.4: Topology One, P1, one source: congestion avoidance (static, 80%, filter)
  against congestion control (reacting): ``t42-windows.png``.
- Fig. 4.5: the same without the filter, beside Fig. 4.3: ``t45-windows.png``.
- Figs 5.2-5.7: Class 1 Experiment 6, Sources 1 and 2 under DEC, Slow Start and SEIF:
  ``c1-windows.png`` (the thesis's SEIF pair halves together; Slow Start's does not).
"""

from __future__ import annotations

from ..._files import atomic_savefig
from ..kit.report import pyplot

# scenario -> (file name, caption, [(panel title, pair label, sources)])
FIGURES = {
    "T4.2": ("t42-windows.png",
             "Figs 4.3 and 4.4: the window of the single source of Topology One (P1), seed 1. Congestion "
             "avoidance (static predicting, 80%, filter): a regular sawtooth below the buffer, one feedback "
             "per peak; congestion control (feedback on drops): peaks at overflow.",
             [("Fig. 4.3: congestion avoidance", "Exp1 CA", [1]), ("Fig. 4.4: congestion control", "Exp1 CC", [1])]),
    "T4.5": ("t45-windows.png",
             "Figs 4.3 and 4.5: with the filter one feedback per peak (thesis: 10 peaks in 20-80 s); without "
             "it two, so each peak is halved twice and the window regrows from a quarter (thesis: 8 peaks).",
             [("Fig. 4.3: filtering", "Exp1 filtering", [1]), ("Fig. 4.5: no filtering", "Exp1 nonfiltering", [1])]),
    "C1": ("c1-windows.png",
           "Figs 5.2-5.7: Class 1 Experiment 6 (two sources, 3 ms links), Sources 1 and 2, seed 1. SEIF's "
           "windows halve at the same instants; Slow Start's fall to 1 at different times; DEC's stay small.",
           [("Figs 5.2/5.3: DEC Bit", "Exp6 DEC", [1, 2]), ("Figs 5.4/5.5: Slow Start", "Exp6 SS", [1, 2]),
            ("Figs 5.6/5.7: SEIF", "Exp6 SEIF", [1, 2])]),
}


def draw(board, ctx) -> None:
    """The figure hook: the window figures of the scenarios run."""
    traces = ctx.tables.traces
    for sid, (name, caption, panels) in FIGURES.items():
        if sid not in ctx.outcome.scenarios:
            continue
        runs = ctx.data[sid].runs
        if traces is None or not len(traces):
            board.note(sid, f"{name}: no window traces were kept")
            continue
        plt = pyplot()
        fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 2.3 * len(panels)), sharex=True, squeeze=False)
        drawn = False
        end = 0.0
        for ax, (title, pair, sources) in zip(axes[:, 0], panels):
            rows = traces[(traces["file"] == runs.get(pair)) & (traces["seed"] == traces["seed"].min())]
            for src, style in zip(sources, ("-", "--")):
                g = rows[rows["source"] == src].sort_values("time_s")
                if len(g):
                    ax.step(g["time_s"], g["cwnd"], where="post", linestyle=style, linewidth=1.0, label=f"Source {src}")
                    drawn = True
                    end = max(end, float(g["time_s"].max()))
            ax.set_title(title, fontsize=9)
            ax.set_ylabel("window (packets)")
            ax.axvspan(0, 20, color="0.92", zorder=0)
            if len(sources) > 1:
                ax.legend(fontsize=8, loc="upper right")
        # The thesis's runs last 80 s; a quick run stops sooner, and its axis ends with it.
        short = 0 < end < 79.0
        axes[-1, 0].set_xlabel("time (s); the shaded first 20 s are not measured"
                               + (f"; this run stopped at {end:.0f} s (--quick)" if short else ""))
        axes[-1, 0].set_xlim(0, end if short else 80)
        fig.tight_layout()
        if drawn:
            path = board.path(name)
            atomic_savefig(fig, path, dpi=110)
            board.add(sid, path, caption)
        else:
            board.note(sid, f"{name}: the runs kept no window trace")
        plt.close(fig)
