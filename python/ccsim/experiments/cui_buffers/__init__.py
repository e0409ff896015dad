"""Cui, "Three problems in TCP performance analysis and congestion management" (PhD thesis),
chapter 3: buffer sizing for DWDM core switches (work in progress, issue 21).

- ``network.py``: the chapter's network (N flows on access links into M edge routers, one
  input link each into the switch, an output trunk of K channels with B shared buffer slots)
  as a scenario generator.
- ``extrapolate.py``: the thesis's extrapolation method (§3.3): sweeps at a fixed per-flow
  share, the trunk's utilisation and loss, the least-squares fits and their value at the
  target rate.
- ``links.py``: faster links (E3.4, §3.4.1, scaled down 50x) and regular against paced NewReno
  behind access links (E3.5, §3.4.2); most of their files are built at run time
  (``built_scenarios``).

The digest is ``shared/specs/cui-buffers-fast-adpm.md``; the thesis text is the authority.
"""

from ..kit.thesis import Thesis


def _rows(results):
    from .rows import extra_rows

    return extra_rows(results)


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


def _sweep_rows(flows):
    from .rows import sweep_rows

    return sweep_rows(flows)


def _built_scenarios():
    from .make_scenarios import build_more

    return build_more()


THESIS = Thesis(
    id="cui-buffers",
    title="Cui, Chapter 3 (buffer sizing for DWDM core switches)",
    package=__name__,
    quick_seeds=1,
    quick_factor=0.5,
    default_seeds=1,
    extra_rows=_rows,
    sweep_rows=_sweep_rows,
    figures=_figures,
    built_scenarios=_built_scenarios,
    # The runs are deterministic (every flow starts at 0, RTTs spread evenly, no random
    # element): further seeds repeat the first exactly.
    method_note="Model cells call ccsim.models.cui with the thesis's constants (µ = 40e9/8320 packets/s). "
                "The simulations are deterministic, so one seed is run.",
)
