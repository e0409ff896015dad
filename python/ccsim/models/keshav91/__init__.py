"""Keshav 1991, "Congestion Control in Computer Networks": the analytic results of
chapters 2 and 4 as functions (:mod:`.delay` and :mod:`.transients`; every name is
re-exported here).

Chapter 2 §2.2.3 (thesis text L643-667; spec ``keshav91-fq-packet-pair.md`` M1.11): the mean
queueing delay of a Telnet packet at a Fair Queueing switch kept busy by N greedy FTPs.

- :func:`telnet_delay_fq`: the thesis's bounds A(P_T - δ), preemptive and non-preemptive;
- :func:`telnet_delay_fq_phased`: the exact mean for a given set of FTP phases l^α, the
  calculation the thesis says it omits "for the sake of brevity"; its two extreme phase
  sets reproduce the printed bounds exactly (tests/test_models_keshav91.py);
- :func:`telnet_delay_fcfs`: the same quantity at an FCFS switch. The thesis gives no
  formula, only that FCFS delay is "directly proportional to the total queue size"
  (§2.2.3, L677); this function makes that statement exact for window-limited FTPs.

Chapter 4 §4.5 (L1212-1330; spec M3, M4.5, M4.6): the transient response of packet-pair
(2P) flow control to a step change at time t0, one function per row of Table 4.1, plus
:data:`TABLE_4_1`, the table as printed, for reports:

- :func:`transient_increase_propagation_delay` (§4.5.1),
- :func:`transient_increase_service_rate` (§4.5.2),
- :func:`transient_decrease_propagation_delay` (§4.5.3),
- :func:`transient_decrease_service_rate` (§4.5.4),

with the helpers :func:`pipeline_depth` (V = R/s_b), :func:`n_skip` and :func:`skiptime`.

Units. Chapter 2 sets the line rate μ = 1, so its delays are in "bit-times". Here sizes
(P_F, P_T, δ) may be in bits or bytes, and ``mu`` is the line rate in the same unit per
second; delays come back in seconds. With the default ``mu=1`` the numbers are the thesis's
(size units). Chapter 4 works per packet of one conversation: a service time s_i is
seconds per packet, a rate ρ = 1/s is packets per second, R is seconds, V and δV are
packets.
"""

from .delay import *  # noqa: F401,F403
from .delay import __all__ as _delay_all
from .transients import *  # noqa: F401,F403
from .transients import __all__ as _transients_all

__all__ = [*_delay_all, *_transients_all]
