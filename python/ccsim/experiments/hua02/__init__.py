"""Hua 2002 (MPhil thesis, CUHK), "Congestion Control and QoS Provisioning in IP Networks":
chapters 3-5, ``ccsim reproduce hua02``.

- ``reference.toml``: the thesis's Tables 4.1, 5.1 and 5.2 as data, and the validation targets
  of the spec (V3.x-V5.x) as cells and checks. The figures did not survive the text
  extraction: most targets are trends, ratios and properties.
- ``findings/*.toml``: why the cells and checks that differ differ.
- ``make_scenarios.py``: writes ``ccsim/scenarios/hua02/*.toml``, one file per run.
- ``rows.py``: the quantities the cells read beside the flows' (gateway queues, the fluid
  model's prediction for the run, per-class delays and their ratios).
- ``figures.py``: the thesis's figures redrawn from the runs.

The digest is ``shared/specs/hua02-vegas-jcc-swtp.md``; the thesis text is the authority where
the digest is unsure.
"""

from ..kit.thesis import Thesis


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


def _rows(results):
    from .rows import extra_rows

    return extra_rows(results)


THESIS = Thesis(
    id="hua02",
    title="Hua 2002, Chapters 3-5 (Vegas fairness, JCC, S-WTP)",
    runtime="full about 7.5 min, --quick about 20 s on 2 cores",
    package=__name__,
    quick_seeds=1,
    quick_factor=0.5,
    extra_rows=_rows,
    trace_scenarios=frozenset({"E4.1"}),
    figures=_figures,
    method_note="Rows numbered 900 and up are not flows: gateway queues, the fluid model's "
                "prediction for the run, and per-class queueing delays.",
)
