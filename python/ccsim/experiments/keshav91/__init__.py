"""Keshav 1991 (PhD thesis, UC Berkeley), Chapter 6 "Simulation Experiments":
``ccsim reproduce keshav91``.

- ``reference.toml``: the thesis's result tables 6.2-6.11 as data (one cell per pair, source
  and metric, with a tolerance class), plus the qualitative checks ("Q checks") a
  reproduction must pass, in the kit's vocabulary (docs/adding-a-thesis.md). Scenarios are
  "S1".."S8".
- ``findings/*.toml``: why the cells that differ from the thesis differ (findings/README.md).
- ``make_scenarios.py`` (its pieces in ``scenario_parts.py``): writes
  ``ccsim/scenarios/keshav91/*.toml``, one scenario file per (scenario, protocol pair) run;
  the generated files are committed and ship in the package.
- ``figures.py``, ``pp_figures.py``: the figures in the thesis's forms (utility diagrams,
  windows over time, the packet-pair estimator), the kit's figure hook.
- ``fq_buffers.py`` with ``fq_buffers_reference.toml`` and ``fq_buffers_findings.md``: chapter
  3's costs of the four FQ buffering structures, replayed from the engine's FQ on ordinary
  runs (``ccsim experiment keshav91-fq-buffers``); ``fq_buffers_render.py`` writes its tables.

Running, judging and the report are the reproduction kit's (:mod:`ccsim.experiments.kit`);
this module only describes the thesis to it (:data:`THESIS`).

The digest the data follow is ``shared/specs/keshav91-experiments.md``; the thesis text is
the authority where the digest is unsure.
"""

from ..kit.thesis import Thesis


def _figures(board, ctx):
    from .figures import draw  # matplotlib and the drawing code load only when a report is written

    draw(board, ctx)


def _probe_gap_off_grid(d):
    # Distance of a probe's inter-ACK gap from the nearest multiple of 0.1 s, the service time
    # of one 1000 B packet on the 80 kb/s lines of Scenarios 3, 7 and 8 (Fig 6.21's quantisation).
    return (d["probe_gap_s"] - 0.1 * (d["probe_gap_s"] / 0.1).round()).abs()


THESIS = Thesis(
    id="keshav91",
    title="Keshav 1991, Chapter 6",
    runtime="full about 30 s, --quick about 10 s on 2 cores",
    package=__name__,
    quick_seeds=2,
    quick_factor=0.5,
    trace_scenarios=frozenset({"S3", "S7"}),  # window, outstanding-packet and probe figures (spec §4.3, §4.7)
    derived_traces={"probe_gap_off_grid_s": (("probe_gap_s",), _probe_gap_off_grid)},
    figures=_figures,
    method_note="Scenario 3's cells are per 300 s phase, from the interval rows.",
)
