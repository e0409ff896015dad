"""The reproduction kit: what every thesis reproduction shares.

A thesis (``ccsim/experiments/<id>/``, registered in :data:`ccsim.experiments.THESES`)
describes itself with a :class:`~.thesis.Thesis`; ``ccsim reproduce <id>`` then runs:

- :mod:`.reference`: load and check the thesis's ``reference.toml`` (scenarios, tables, checks);
- :mod:`.runner`, :mod:`.params`: run its scenario files over seeds, with ``--quick``,
  ``--jitter`` and ``--param`` edits, into tidy tables;
- :mod:`.frames`: read flows' values from those tables;
- :mod:`.cells`, :mod:`.judge`: each table cell's value (flow, aggregate, curve point or
  model) and its verdict by tolerance class;
- :mod:`.operands`, :mod:`.checks`: the qualitative-check vocabulary;
- :mod:`.findings`: the recorded reasons for failures, matched to cells and checks;
- :mod:`.report`, :mod:`.sections`, :mod:`.document`: the report in Markdown and HTML, with the
  thesis's figures and sections from its hooks;
- :mod:`.reproduce`: the driver; :mod:`.compare`: what changed between two reproductions;
  :mod:`.registry`: the registered theses.

docs/adding-a-thesis.md is the guide.
"""
