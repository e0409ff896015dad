"""REM with ADPM marks in the engine (`queue = "rem"`, `signal = "adpm"`) against Cui chapter 5's
marking simulator (ccsim.models.cui.adpm): the same probe types (bit-reversed sequence
numbers), the same router rule and decoder, so over a lossless path the receiver's estimate is
the model's to the last bit."""

import math

import numpy as np

import ccsim
from ccsim.models.cui import brc_probes, fixed_price_estimates


def test_the_engines_adpm_receiver_decodes_what_the_model_decodes():
    m = 0.3
    price = -math.log(1 - m) / math.log(1.001)       # REM: 1 - 1.001^-p = m
    s = ccsim.Scenario("adpm", duration="5s", seed=1)
    s.hosts("a", "d").switches("r1", "r2")
    s.link("a", "r1", bandwidth="100Mbps")
    s.link("r1", "r2", bandwidth="1Mbps", delay="10ms", buffer="1000pkt", queue="rem",
           queue_params={"signal": "adpm", "gamma": 0, "initial_price": price})
    s.link("r2", "d", bandwidth="100Mbps")
    s.flow("a", "d", app="cbr", rate="100pps", cc="none", name="1 cbr", packet_size="1000B")
    r = s.run()
    got = float(r.flows.set_index("name").loc["1 cbr", "price_estimate"])
    received = int(r.flows.set_index("name").loc["1 cbr", "received"])
    # The packets 0 .. received - 1 arrived in order, each probed at bitreverse16(seq) / 2^16.
    want = fixed_price_estimates(brc_probes(received, start=0), np.array([m]))[0, -1]
    assert got == want and 0 < m - got < 1 / 256, (got, want, received)
    assert int(r.ports.set_index("name").loc["r1->r2", "marks"]) > 0
