"""Cui, "Three problems in TCP performance analysis and congestion management" (PhD thesis),
chapter 3: buffer sizing for DWDM core switches (issue 21).

- ``network.py``: the chapter's network (N flows on access links into M edge routers, one
  input link each into the switch, an output trunk of K channels with B shared buffer slots)
  as a scenario generator.
- ``single.py``: the non-DWDM single bottleneck of §3.8.2-3.8.3 (a dumbbell of N paced flows
  through one drop-tail link) as a scenario generator; E3.9's grid is built at run time.
- ``extrapolate.py``: the thesis's extrapolation method (§3.3): sweeps at a fixed per-flow
  share, the trunk's utilisation and loss, the least-squares fits and their value at the
  target rate.
- ``links.py``: faster links (E3.4, §3.4.1, scaled down 50x) and regular against paced NewReno
  behind access links (E3.5, §3.4.2); most of their files are built at run time
  (``built_scenarios``).
- ``families.py``: the extrapolated experiments (E3.3, E3.7, E3.8's simulations) as families
  of scaled-down runs, built at run time; ``family_reference.py`` writes their reference parts.
- ``make_scenarios.py``: the scenario files (shipped, and built at run time); ``rows.py``,
  ``single_rows.py``: the rows cells read beside the flows (trunk, arrivals, fits, minimum
  buffers); ``figures*.py``: the figures; ``targets.py``: the report's summary by §7.2 target.
- The open-loop Monte Carlo and the models are ``ccsim.models.cui``.

The digest is ``shared/specs/cui-buffers-fast-adpm.md``; the thesis text is the authority.
"""

from ..kit.thesis import Thesis


def _rows(results):
    from .rows import extra_rows

    return extra_rows(results)


def _figures(board, ctx):
    from .figures import draw  # matplotlib loads only when a report is written

    draw(board, ctx)


def _sections(doc, ctx):
    from .targets import sections

    sections(doc, ctx)


def _built():
    from .make_scenarios import build_more

    return build_more()


def _sweep_rows(flows):
    from .rows import sweep_rows

    return sweep_rows(flows)


THESIS = Thesis(
    id="cui-buffers",
    title="Cui, Chapter 3 (buffer sizing for DWDM core switches)",
    runtime="full about 25 min, --quick about 3 min on 2 cores",
    package=__name__,
    quick_seeds=1,
    quick_factor=0.5,
    default_seeds=1,
    extra_rows=_rows,
    sweep_rows=_sweep_rows,
    figures=_figures,
    sections=_sections,
    built_scenarios=_built,
    # The runs are deterministic (every flow starts at 0, RTTs spread evenly, no random
    # element): further seeds repeat the first exactly.
    method_note="Model cells call ccsim.models.cui with the thesis's constants (µ = 40e9/8320 packets/s). "
                "The simulations are deterministic, so one seed is run.",
)
