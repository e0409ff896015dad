"""Keshav 1991 (PhD thesis, UC Berkeley), Chapter 6 "Simulation Experiments".

- ``reference.toml``: the thesis's result tables 6.2-6.11 as data (one cell per pair, source
  and metric, with a tolerance class), plus the qualitative checks ("Q checks") a
  reproduction must pass, in a small structured vocabulary documented at the top of the file.
- ``make_scenarios.py``: writes ``ccsim/scenarios/keshav91/*.toml``, one scenario file per
  (scenario, protocol pair) run; the generated files are committed.

The digest the data follow is ``shared/specs/keshav91-experiments.md``; the thesis text is
the authority where the digest is unsure.
"""
