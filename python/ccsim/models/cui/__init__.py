"""Cui (Yuan "Tony" Cui), "Three problems in TCP performance analysis and congestion
management": chapter 3's buffer sizing for TCP over core DWDM switches (spec
``cui-buffers-fast-adpm.md`` §3-§4.7), chapter 4's FAST equilibria and chapter 5's packet
marking (§2.7-2.11, §4.9), as plain functions (numpy and scipy, no engine).

- :mod:`.mathis`: Mathis per flow and aggregate (3.1)-(3.4) = (3.19)-(3.20), the intended load
  (3.21) and ρ (3.14), TCP's λ(P_B) (3.22); the chapter's units (:data:`MU_40G`,
  :data:`RTT_H_THESIS`).
- :mod:`.g1dm`: the open-loop models of one output trunk, G1DM (3.5)-(3.13) and its special
  cases EBD, EBI, EB and M/M/K/(K+B) (3.15); Engset; the overload approximations (3.16)-(3.18).
- :mod:`.closedloop`: the closed-loop fixed point of §3.7 (utilisation and loss of N flows).
- :mod:`.rules`: the DWDM buffer rule (3.23)-(3.24), its single-link form (3.27), the five
  competing rules (BDP, Appenzeller (3.26), O(log W) (3.25), 2M, 10-20 packets) and the
  full-utilisation condition (3.28)-(3.29).
- :mod:`.extrapolation`: §3.3's fits against the bit rate (Figs 3.6-3.9).
- :mod:`.montecarlo`: the detailed switch model of §3.6.1 by Monte Carlo (E3.6), and exactly
  for B = 0.
- :mod:`.fast`: chapter 4's FAST TCP equilibrium (4.3) and persistent congestion (4.19)-(4.20).
- :mod:`.adpm`: chapter 5's ADPM: probe sequences, the router's marking and the receiver's
  decoder, the error ensembles of Figs 5.1-5.2, the closed forms and §5.3.2's mappings.
- :mod:`.marking`: the schemes ADPM is compared with (REM, RAM, TPM, RPM), Figs 5.3-5.4.
- :mod:`.fast_analysis`: chapter 4's closed forms and Appendix C's asymptotics, the drain time.
- :mod:`.fast_network`: FAST's persistent congestion on a network of links (EB2).
- :mod:`.openloop`: §3.6.5's comparison (E3.6): the five models against the Monte Carlo at one
  point of Figs 3.17-3.41 (errors, ranks, the overload claims), cached.

Every name is re-exported here: ``from ccsim.models import cui; cui.closed_loop(400, 100, 0,
400_000)``.
"""

from .adpm import *  # noqa: F401,F403
from .adpm import __all__ as _adpm_all
from .closedloop import *  # noqa: F401,F403
from .closedloop import __all__ as _closedloop_all
from .extrapolation import *  # noqa: F401,F403
from .extrapolation import __all__ as _extrapolation_all
from .fast import *  # noqa: F401,F403
from .fast import __all__ as _fast_all
from .fast_analysis import *  # noqa: F401,F403
from .fast_analysis import __all__ as _fast_analysis_all
from .fast_network import *  # noqa: F401,F403
from .fast_network import __all__ as _fast_network_all
from .g1dm import *  # noqa: F401,F403
from .g1dm import __all__ as _g1dm_all
from .mathis import *  # noqa: F401,F403
from .marking import *  # noqa: F401,F403
from .marking import __all__ as _marking_all
from .mathis import __all__ as _mathis_all
from .montecarlo import *  # noqa: F401,F403
from .montecarlo import __all__ as _montecarlo_all
from .openloop import *  # noqa: F401,F403
from .openloop import __all__ as _openloop_all
from .rules import *  # noqa: F401,F403
from .rules import __all__ as _rules_all

__all__ = [*_mathis_all, *_g1dm_all, *_closedloop_all, *_rules_all, *_extrapolation_all,
           *_montecarlo_all, *_openloop_all, *_fast_all, *_fast_analysis_all, *_fast_network_all, *_adpm_all,
           *_marking_all]
