"""Cui, "Three problems in TCP performance analysis and congestion management" (PhD thesis),
chapter 4 and Appendix B: FAST TCP.

- ``make_scenarios.py``: Appendix B's validation runs (EB1, EB2 as the shipped examples, EB4,
  EB5) and chapter 4's experiments E4.1-E4.7 as scenario files, and runs of §2.2.3's review of
  the high-speed TCPs (R2.2a-c: AIMD against CUBIC, Scalable and HighSpeed TCP; claims the
  section cites, as checks).
- ``rows.py``: what the cells read beside the flows: the bottleneck's mean queue over the
  windows each experiment is judged in, E4.2's existing/new rate ratio, Jain's index.
- ``figures.py``: Figs 4.2-4.4 (2nd and 6th sources against the model), Fig 4.10 (existing/new
  against N) and the rates of EB1 and E4.6-E4.7 over time.
- The models are ``ccsim.models.cui.fast`` ((4.19)-(4.20), (4.10)-(4.12), (4.3)); the
  mechanism is the engine's ``cc = "fast"`` (crates/ccsim/src/transport/cc/fast/).

The digest is ``shared/specs/cui-buffers-fast-adpm.md`` (§2.12-2.16, §4.8, §5.2, S12-S19); the
thesis text is the authority.
"""

from ..kit.thesis import Thesis


def _rows(results):
    from .rows import extra_rows

    return extra_rows(results)


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


THESIS = Thesis(
    id="cui-fast",
    title="Cui, Chapter 4 and Appendix B (FAST TCP)",
    runtime="full about 7.5 min, --quick about 50 s on 2 cores",
    package=__name__,
    quick_seeds=1,
    quick_factor=1.0,   # the runs are short; --quick runs fewer of E4.2's points instead
    default_seeds=1,
    extra_rows=_rows,
    figures=_figures,
    trace_scenarios=frozenset({"EB1", "E4.5"}),
    method_note="Rates are goodput in 1000-byte packets a second averaged over the phase a cell names; the "
                "queue is the bottleneck's time-averaged backlog over the window its row names (rows.py). "
                "The runs are deterministic but for the overflow experiments' jitter; one seed is run.",
)
