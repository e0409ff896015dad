"""FAST TCP (Cui ch. 4): the shipped EB1 example against the persistent-congestion model.

Three flows with alpha = 200 join a 100 Mb/s link 20 s apart and leave in reverse order:
(4.19)-(4.20) predict queues of 200, 523.6 and 919.9 packets and shares 0.217/0.278/0.505 of
the line with all three; once the newest leaves, the queue drains, the others learn the true
delay and split the line evenly with 2 alpha queued.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ccsim
from ccsim.models.cui import fast_persistent_congestion

EB1 = Path(ccsim.__file__).parent / "scenarios" / "examples" / "cui-eb1-fast.toml"


def test_eb1_example_matches_the_persistent_congestion_model():
    r = ccsim.run(EB1)
    q = r.queues
    q = q[q.port_name == "r1->r2"]

    def queue(a: float, b: float) -> float:
        return float(q[(q.time_s >= a) & (q.time_s < b)].packets.mean())

    model = fast_persistent_congestion(3, 200, 12_500)
    for k, want in enumerate(model.queue):
        got = queue(20 * k + 12, 20 * k + 20)
        assert abs(got - want) <= 0.03 * want, (k + 1, got, want)
    assert abs(queue(72, 80) - 400) <= 12, "flows 1 and 2 alone, with the true delay: 2 alpha"
    assert abs(queue(92, 100) - 200) <= 6
    iv = r.intervals
    shares = iv[iv.start_s == 50.0].set_index("flow_name").goodput_pps.sort_index().to_numpy() / 12_500
    assert np.allclose(shares, model.rates[2] / 12_500, atol=0.01), shares
    even = iv[iv.start_s == 70.0].set_index("flow_name").goodput_pps
    assert abs(even["1 FAST"] - even["2 FAST"]) < 0.02 * 6_250, even
    assert int(r.flows.data_dropped.sum()) == 0 and int(r.flows.timeouts.sum()) == 0
