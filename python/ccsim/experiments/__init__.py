"""Reproductions of published congestion-control experiments.

``kit/`` holds what every reproduction shares (reference data, judging, checks, findings, the
report, the runner); each thesis is a folder beside it (scenario generator, reference numbers,
findings, figures) whose ``__init__.py`` defines ``THESIS``. A thesis is registered by one
line below; ``ccsim reproduce <id>`` and ``ccsim reproduce --list`` read this tuple.
See docs/adding-a-thesis.md.
"""

# The registered theses: the folder (module) name of each, in the order --list shows them.
THESES = (
    "keshav91",
    "liang91",
    "hua02",
    "cui_buffers",
    "cui_fast",
    "cui_adpm",
)
