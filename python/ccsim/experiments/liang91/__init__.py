"""Liang 1991 (MSc thesis, UBC), "A Window-based Synchronous Scheme for Network Congestion
Control/Avoidance": chapters 4 and 5, ``ccsim reproduce liang91``.

- ``reference.toml``: the thesis's Tables 4.1-5.18 as data, with the spec's tolerances, and
  the §6 targets that are orderings or properties as qualitative checks. Scenarios are the
  tables ("T4.1".."T4.10"), the three workload classes of chapter 5 ("C1".."C3"), the
  Tri-S comparison ("TRIS"), §6.1's future work ("F6.1", "F6.2") and the defects §2.1 names in
  the Source Quench scheme ("SQ", with Nagle's small-packet rule).
- ``findings/*.toml``: why the cells that differ from the thesis differ.
- ``make_scenarios.py``: writes ``ccsim/scenarios/liang91/*.toml``, one file per run.
- ``figures.py``: windows over time in the thesis's form (Figs 4.3-4.5, 5.2-5.7).

The mechanisms are the engine's: the SEIF router (``queue = "seif_router"``) and source
(``cc = "seif"``), Random Drop, REAL's JK and DEC sources with selective DECbit routers,
Tri-S (``cc = "tris"``). The digest is ``shared/specs/liang91-seif.md``; the thesis text is the
authority where the digest is unsure.
"""

from ..kit.thesis import Thesis


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


THESIS = Thesis(
    id="liang91",
    title="Liang 1991, Chapters 4 and 5 (SEIF)",
    runtime="full about 45 s, --quick about 6 s on 2 cores",
    package=__name__,
    quick_seeds=1,
    quick_factor=0.5,
    trace_scenarios=frozenset({"T4.2", "T4.5", "C1"}),  # window figures 4.3-4.5 and 5.2-5.7
    figures=_figures,
    method_note="Throughput counts whole data packets delivered in order in the measurement "
                "window (20-80 s; 10-70 s for the Tri-S runs); drops and feedback messages are "
                "counted in the same window.",
)
