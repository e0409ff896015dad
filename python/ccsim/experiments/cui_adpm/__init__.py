"""Cui, "Three problems in TCP performance analysis and congestion management" (PhD thesis),
chapter 5: Adaptive Deterministic Packet Marking (ADPM).

The chapter's results come from a stand-alone marking simulator, not a network: probe types
drawn from the IPid, marked against the routers' prices, decoded at the receiver. That
simulator is ``ccsim.models.cui.adpm`` (ADPM: probe sequences, marking, the decoder, the error
ensembles, the closed forms) and ``ccsim.models.cui.marking`` (REM, RAM, TPM and RPM, and the
comparisons of Figs 5.3-5.4); every cell of ``reference.toml`` calls one of their functions.

- ``figures.py``: Figs 5.1-5.4 redrawn from the same ensembles.

The digest is ``shared/specs/cui-buffers-fast-adpm.md`` (§2.7-2.11, §4.9, §5.3, A9-A14); the
thesis text is the authority.
"""

from ..kit.thesis import Thesis


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


THESIS = Thesis(
    id="cui-adpm",
    title="Cui, Chapter 5 (Adaptive Deterministic Packet Marking)",
    runtime="about 30 s on 2 cores; --quick is the same run",
    package=__name__,
    quick_seeds=1,
    quick_factor=1.0,   # no runs to shorten: the marking simulator is the same in both
    default_seeds=1,
    figures=_figures,
    method_note="Every cell runs the chapter's marking simulator (ccsim.models.cui.adpm and .marking: "
                "2^16 thresholds, the thesis's ensembles, fixed seeds) and compares it with the curve "
                "or bound the thesis states; quick and full runs are the same.",
)
