"""Analytic models from the source theses, as plain functions (no engine involved).

Each function's docstring names its source (thesis, section, equation) and the units of
its arguments; ``docs/models.md`` lists them with the test that compares each one with a
simulation.

- :mod:`ccsim.models.keshav91`: Keshav 1991, chapter 2 (mean Telnet delay at an FQ or
  FCFS switch shared with greedy FTPs) and chapter 4 (packet-pair transients, Table 4.1).
- :mod:`ccsim.models.cui`: Cui (chapter 3, buffer sizing for core DWDM switches): Mathis per
  flow and aggregate, the open-loop switch models (G1DM, EBD, EBI, EB, M/M/K/(K+B)), the
  closed-loop fixed point, the DWDM buffer rule and the five rules it is compared with, the
  full-utilisation condition, §3.3's extrapolation fits, and the detailed switch model by
  Monte Carlo (a package: ``cui.mathis``, ``cui.g1dm``, ``cui.closedloop``, ``cui.rules``,
  ``cui.extrapolation``, ``cui.montecarlo``, all re-exported by ``cui``).
- :mod:`ccsim.models.hua02`: Hua 2002 chapter 5, Kleinrock's mean waits under WTP
  (time-dependent priorities), the theory the ``wtp`` discipline is checked against.
- :mod:`ccsim.models.liang91`: Liang 1991 (SEIF), the derived columns of chapters 4-5
  (fairness variance, feedback overhead, throughput improvement) and spec §6.2's base RTT,
  pipe size and two-way data cap.
"""

from . import cui, hua02, keshav91, liang91

__all__ = ["cui", "hua02", "keshav91", "liang91"]
