"""ccsim: a fast packet-level simulator and research testbed for network congestion control.

The engine is Rust (``ccsim._core``); this package is the front end::

    import ccsim
    res = ccsim.run("scenarios/examples/keshav-s1-jk-fcfs.toml")
    print(res.flows[["name", "goodput_pps", "delay_s"]])

    sc = ccsim.Scenario("two-flows", duration="60s")
    sc.hosts("a", "b", "c"); sc.switches("sw")
    sc.link("a", "sw", bandwidth="10Mbps"); sc.link("b", "sw", bandwidth="10Mbps")
    sc.link("sw", "c", bandwidth="1Mbps", delay="10ms", buffer="20pkt")
    sc.flow("a", "c", cc="newreno"); sc.flow("b", "c", cc="jk")
    res = sc.run()

Every problem with a scenario raises :class:`ScenarioError`, whose message names the field
path (``links[2].bandwidth``) and what was expected.
"""

from ._core import ScenarioError, __version__
from .builder import Scenario
from .api import RunInterrupted, run, run_sweep, validate, load_scenario
from .registry import algorithm, algorithms, discipline, disciplines


def __getattr__(name):
    # pandas is imported only when results are needed, so `import ccsim` stays light.
    if name == "Results":
        from .results import Results
        return Results
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


__all__ = ["ScenarioError", "Scenario", "Results", "RunInterrupted", "run", "run_sweep", "validate", "load_scenario", "algorithm", "algorithms",
           "discipline", "disciplines", "__version__"]
