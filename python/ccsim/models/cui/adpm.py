"""Adaptive Deterministic Packet Marking, ADPM (Cui ch. 5 §5.2-5.3, spec §2.11 and §4.9).

A router whose link price is p (mapped into [0, 1]) marks a packet of probe type i when p > i
and never clears a mark, so a packet arrives marked iff the path's *largest* price exceeds its
probe type. The receiver keeps one estimate p̂: a marked packet with i > p̂, or an unmarked one
with i < p̂, sets p̂ to i (§5.2.1). Probe types come from the 16-bit IPid, 2^16 thresholds:

- *BRC*, bit-reversed counting R(1), R(2), ...: R(Σ a_j 2^j) = Σ a_j 2^-(j+1), so 1/2, 1/4,
  3/4, ... The thesis prints the exponent as 2^-j, which would send bit 0 to 1; its own
  "binary point precedes" wording and the sequence 100..., 010..., 110... fix it as
  2^-(j+1) (spec §2.11);
- *random-start BRC*, R(d), R(d + 1), ... with d uniform on [1, 65535];
- *random*, i.i.d. uniform over the 2^16 thresholds;
- :func:`ipid_probe`, the map a real stack's IPid A + 256 B goes through: f(A + 256 (A xor B))
  as printed, with the byte order that serves byte-swapped counters as an option.

Choices where the text is silent (spec §6 item 25): p̂ starts at 0 (``p0``); the pure-BRC
ensemble uses the 1000 prices (j + 0.5)/1000; the other two draw 100 uniform prices for each of
256 sequences (the thesis's counts). The §5.2.2 "reset i+ <- 1 on detecting p > i+" concerns
the receiver's interval, not p̂, so the decoder here has no such step.

With a fixed price and p̂0 = 0 the decoder's estimate is the largest marked probe seen so far
(an unmarked probe is >= p > p̂, so it never moves p̂ down); :func:`fixed_price_estimates`
computes that running maximum for whole ensembles at once, and a test holds it equal to the
literal decoder :func:`adpm_decode`.

Closed forms: the random-probe mean error 1/(k + 2) and mean square error 2/((k+2)(k+3))
(uniform price); BRC's mean error (1/(2K)) (1 − Δ/(2K)), K = 2^floor(log2(k + 1)), Δ = k + 1 − K
(the thesis prints a sum, 1/(2K) + (1 − Δ/(2K)), which exceeds 1/2; the product is what the
intervals give: K − Δ cells of width 1/K and 2Δ of width 1/(2K), mean error Σ w²/2); the bounds
1/K (pure BRC) and 2/K (random start); (5.4) and (5.5) for a step change; RCP's and MaxNet's
price mappings (§5.3.2). The marking schemes ADPM is compared with are :mod:`.marking`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ._common import choice, count, num

__all__ = ["THRESHOLDS", "SEQUENCES", "bit_reverse16", "brc_probes", "probe_sequence", "IPID_LAYOUTS", "ipid_probe", "ipid_coverage",
           "adpm_marks", "adpm_decode", "fixed_price_estimates", "ErrorCurve", "fixed_price_errors",
           "adpm_error", "adpm_error_ratio", "random_mean_error", "random_mse", "brc_mean_error",
           "brc_mean_error_printed", "brc_max_bound", "undetected_random", "undetected_brc",
           "step_detection", "step_detection_ratio",
           "rcp_levels", "maxnet_mapped_price", "sample_ks"]

THRESHOLDS = 1 << 16
"""The 16-bit IPid's thresholds (§5.4: "we also assume that there are 2^16 thresholds")."""
SEQUENCES = ("brc", "random_brc", "random")
SEED = 20050501


def _reversal_table() -> np.ndarray:
    v = np.arange(1 << 16, dtype=np.int64)
    r = np.zeros_like(v)
    for b in range(16):
        r |= ((v >> b) & 1) << (15 - b)
    return r


_REVERSED = _reversal_table()


def bit_reverse16(v) -> np.ndarray:
    """The 16-bit bit reversal of each value (taken mod 2^16)."""
    return _REVERSED[np.asarray(v, dtype=np.int64) & 0xFFFF]


def brc_probes(k: int, start: int = 1) -> np.ndarray:
    """R(start), R(start + 1), ..., k values: probe types in [0, 1) on the 2^16 grid."""
    k = count("k", k, at_least=0)
    return bit_reverse16(np.arange(start, start + k)) / THRESHOLDS


def probe_sequence(kind: str, k: int, n: int = 1, rng: np.random.Generator | None = None) -> np.ndarray:
    """``n`` sequences of ``k`` probe types, shape (n, k): ``kind`` one of :data:`SEQUENCES`."""
    kind = choice("sequence", kind, SEQUENCES)
    k, n = count("k", k), count("n", n, at_least=1)
    rng = rng if rng is not None else np.random.default_rng(SEED)
    if kind == "brc":
        return np.tile(brc_probes(k), (n, 1))
    if kind == "random_brc":
        starts = rng.integers(1, THRESHOLDS, size=n)
        return bit_reverse16(starts[:, None] + np.arange(k)[None, :]) / THRESHOLDS
    return rng.integers(0, THRESHOLDS, size=(n, k)) / THRESHOLDS


IPID_LAYOUTS = ("printed", "xor_low")


def ipid_probe(ipid, layout: str = "printed") -> np.ndarray:
    """§5.2.2's map for real stacks, IPid A + 256 B (A the low byte) -> f(v), f the 16-bit bit
    reversal into [0, 1). ``layout`` "printed" is the thesis's v = A + 256 (A xor B); "xor_low"
    is v = (A xor B) + 256 A, the xor in the byte that reversal makes most significant. The
    thesis means the map to suit sequential and byte-swapped counters alike (the xor changes
    with whichever byte counts fastest), but as printed the xor lands in the probe's low bits: a
    sequential counter gives BRC, a byte-swapped one puts its first 256 packets in [0, 1/256).
    "xor_low" gives BRC-like probes for both (tests)."""
    v = np.asarray(ipid, dtype=np.int64)
    if np.any((v < 0) | (v > 0xFFFF)):
        raise ValueError("ipid: expected 16-bit values in [0, 65535]")
    layout = choice("layout", layout, IPID_LAYOUTS)
    a, b = v & 0xFF, v >> 8
    value = a + 256 * (a ^ b) if layout == "printed" else (a ^ b) + 256 * a
    return bit_reverse16(value) / THRESHOLDS


def ipid_coverage(counter: str, layout: str = "printed", packets: int = 256) -> float:
    """The share of the ``packets`` cells of width 1/``packets`` that a counter's first
    ``packets`` IPids probe (1: BRC-like): ``counter`` "sequential" or "byte-swapped"."""
    counter = choice("counter", counter, ("sequential", "byte-swapped"))
    n = count("packets", packets, at_least=1)
    c = np.arange(n)
    ipid = c if counter == "sequential" else ((c & 0xFF) << 8) | (c >> 8)
    return len(np.unique(np.floor(ipid_probe(ipid, layout) * n))) / n


def adpm_marks(probes, link_prices) -> np.ndarray:
    """The ECN price marks packets arrive with: each router of the path in turn marks a packet of
    probe type i when its price exceeds i, and no router clears a mark. ``probes`` (..., k);
    ``link_prices`` (..., k, links) or (..., links) for prices that hold for all k packets."""
    probes = np.asarray(probes, dtype=float)
    prices = np.asarray(link_prices, dtype=float)
    if prices.ndim == probes.ndim:
        prices = prices[..., None, :]
    marked = np.zeros(np.broadcast_shapes(probes.shape, prices.shape[:-1]), dtype=bool)
    for link in range(prices.shape[-1]):
        marked |= prices[..., link] > probes
    return marked


def adpm_decode(probes, marked, p0=0.0) -> np.ndarray:
    """The receiver's rule applied packet by packet (§5.2.1), vectorised over sequences:
    ``probes`` and ``marked`` (n, k), ``p0`` the starting estimate (one number, or one per
    sequence); returns p̂ after each packet, (n, k)."""
    probes = np.atleast_2d(np.asarray(probes, dtype=float))
    marked = np.atleast_2d(np.asarray(marked, dtype=bool))
    if probes.shape != marked.shape:
        raise ValueError(f"marked: expected the shape of probes {probes.shape}, got {marked.shape}")
    start = np.asarray(p0, dtype=float)
    if np.any(~np.isfinite(start)) or np.any((start < 0) | (start > 1)):
        raise ValueError(f"p0: expected estimates in [0, 1], got {p0!r}")
    est = np.broadcast_to(start, probes.shape[:1]).astype(float)
    out = np.empty(probes.shape)
    for j in range(probes.shape[1]):
        i = probes[:, j]
        moves = np.where(marked[:, j], i > est, i < est)
        est = np.where(moves, i, est)
        out[:, j] = est
    return out


def fixed_price_estimates(probes, prices) -> np.ndarray:
    """p̂ after each packet for fixed prices, p̂0 = 0: the running maximum of the probes below the
    price (see the module docstring). ``probes`` (k,), ``prices`` (m,): returns (m, k)."""
    probes = np.asarray(probes, dtype=float)
    prices = np.asarray(prices, dtype=float)
    below = np.where(probes[None, :] < prices[:, None], probes[None, :], 0.0)
    return np.maximum.accumulate(below, axis=1)


def sample_ks(k_max: int) -> np.ndarray:
    """The k at which the ensembles keep errors: about 25 per decade, 1, 2 and 5 in each decade,
    and every 2^j − 1, 2^j and 1.5·2^j (where BRC's curves have their corners)."""
    k_max = count("k_max", k_max, at_least=1)
    ks = set(np.unique(np.round(np.logspace(0, math.log10(k_max), 25 * max(1, round(math.log10(k_max))) + 1))
                       .astype(int)).tolist())
    ks.update(m * 10 ** e for e in range(8) for m in (1, 2, 5))
    j = 0
    while (1 << j) <= k_max + 1:
        ks.update({(1 << j) - 1, 1 << j, (3 << j) // 2})
        j += 1
    return np.array(sorted(x for x in ks if 1 <= x <= k_max))


class ErrorCurve(NamedTuple):
    """|p̂ − p| over an ensemble at each k of ``ks``: ``mean``, ``max``, ``p99`` (99th
    percentile), ``mse``; ``bound_violations``: (member, k) pairs, over every k up to k_max, whose
    error exceeds BRC's bound (1/K pure, 2/K random start; 0 for random). A price that equals a
    probe seen meets the bound exactly (marking needs p > i, so that probe stays unmarked): the
    thesis's "<" is "<=" there, and the evenly spaced prices include such points."""
    sequence: str
    ks: np.ndarray
    mean: np.ndarray
    max: np.ndarray
    p99: np.ndarray
    mse: np.ndarray
    bound_violations: int
    members: int


@lru_cache(maxsize=None)
def fixed_price_errors(sequence: str, k_max: int = 1 << 14, sequences: int = 256, prices: int = 100,
                       brc_prices: int = 1000, seed: int = SEED) -> ErrorCurve:
    """E5.1-E5.2's ensembles (Figs 5.1-5.2): errors of ADPM's estimate of a fixed price after k
    packets. Pure BRC: its one sequence over ``brc_prices`` evenly spaced prices; the others:
    ``sequences`` sequences of ``prices`` uniform prices each (the thesis's counts). Cached."""
    sequence = choice("sequence", sequence, SEQUENCES)
    k_max = count("k_max", k_max, at_least=1, at_most=THRESHOLDS)   # BRC repeats after 2^16
    n_seq = count("sequences", sequences, at_least=1, at_most=1 << 16)
    n_p = count("prices", prices, at_least=1, at_most=1 << 16)
    n_brc = count("brc_prices", brc_prices, at_least=1, at_most=1 << 20)
    if n_seq * n_p * len(sample_ks(k_max)) > 1 << 27:
        raise ValueError(f"sequences: {n_seq} x {n_p} prices keep too many errors (at most 2^27 with k_max {k_max})")
    rng = np.random.default_rng(seed)
    ks = sample_ks(k_max)
    every_k = np.arange(1, k_max + 1)
    bound = np.zeros(k_max)
    if sequence != "random":
        big_k = 2.0 ** np.floor(np.log2(every_k + 1))
        bound = (1.0 if sequence == "brc" else 2.0) / big_k
    if sequence == "brc":
        price_sets = [(brc_probes(k_max), (np.arange(n_brc) + 0.5) / n_brc)]
    else:
        seqs = probe_sequence(sequence, k_max, n_seq, rng)
        price_sets = [(seqs[s], rng.random(n_p)) for s in range(n_seq)]
    kept, violations = [], 0
    worst = np.zeros(k_max)
    for probes, p in price_sets:
        for lo in range(0, len(p), 100):
            err = np.abs(p[lo:lo + 100, None] - fixed_price_estimates(probes, p[lo:lo + 100]))
            kept.append(err[:, ks - 1])
            worst = np.maximum(worst, err.max(axis=0))
            if sequence != "random":
                violations += int(np.count_nonzero(err > bound[None, :] * (1 + 1e-12)))
    errs = np.vstack(kept)
    return ErrorCurve(sequence, ks, errs.mean(axis=0), worst[ks - 1], np.percentile(errs, 99, axis=0),
                      (errs ** 2).mean(axis=0), violations, errs.shape[0])


def adpm_error(sequence: str, k: int, stat: str = "mean", **kw) -> float:
    """One point of :func:`fixed_price_errors`: ``stat`` mean, max, p99 or mse at ``k`` (one of
    the kept k: see :func:`sample_ks`); ``stat = "violations"`` gives the bound count."""
    curve = fixed_price_errors(sequence, **kw)
    if stat == "violations":
        return float(curve.bound_violations)
    stat = choice("stat", stat, ("mean", "max", "p99", "mse"))
    hit = np.nonzero(curve.ks == count("k", k, at_least=1))[0]
    if not len(hit):
        raise ValueError(f"k: {k} is not one of the ensemble's points (see sample_ks)")
    return float(getattr(curve, stat)[hit[0]])


_REFERENCES = {
    "1/(k+2)": lambda k: random_mean_error(k),
    "1/(2(k+1))": lambda k: 1.0 / (2 * (k + 1)),
    "brc_mean": lambda k: brc_mean_error(k),
    "brc_printed": lambda k: brc_mean_error_printed(k),
    "1/K": lambda k: brc_max_bound(k),
    "2/K": lambda k: 2 * brc_max_bound(k),
    "ln100/(k+2)": lambda k: math.log(100) / (k + 2),
    "2/((k+2)(k+3))": lambda k: random_mse(k),
}


def adpm_error_ratio(sequence: str, k: int, stat: str = "mean", reference: str = "1/(k+2)", **kw) -> float:
    """:func:`adpm_error` over a reference curve at the same k: ``reference`` one of 1/(k+2),
    1/(2(k+1)), brc_mean (the corrected BRC formula), 1/K, 2/K, ln100/(k+2) (the 99th percentile
    of an exponential error of mean 1/(k+2)), 2/((k+2)(k+3)), brc_printed (the thesis's printed
    BRC formula), or another sequence's name (the same stat of that sequence)."""
    if reference in SEQUENCES:
        return _ratio(adpm_error(sequence, k, stat, **kw), adpm_error(reference, k, stat, **kw), reference)
    ref = choice("reference", reference, (*_REFERENCES, *SEQUENCES))
    return adpm_error(sequence, k, stat, **kw) / _REFERENCES[ref](count("k", k, at_least=1))


def _ratio(value: float, reference: float, name: str) -> float:
    """``value / reference``, or a ValueError naming the reference where it is 0."""
    if reference == 0:
        raise ValueError(f"reference: {name} is 0 here, so no ratio")
    return value / reference


def random_mean_error(k: int) -> float:
    """E|p̂ − p| after k i.i.d. uniform probes, p uniform, p̂0 = 0: 1/(k + 2) (the thesis's
    simulated curve; (5.2)'s 1/k asymptotically)."""
    return 1.0 / (count("k", k) + 2)


def random_mse(k: int) -> float:
    """E(p̂ − p)² for the same: 2/((k + 2)(k + 3))."""
    k = count("k", k)
    return 2.0 / ((k + 2) * (k + 3))


def _big_k(k: int) -> int:
    """K = 2^floor(log2(k + 1)), the largest power of two not above k + 1."""
    return 1 << ((k + 1).bit_length() - 1)


def brc_mean_error(k: int) -> float:
    """Pure BRC's mean error after k packets, p uniform, p̂0 = 0: (1/(2K)) (1 − Δ/(2K))."""
    k = count("k", k)
    big_k = _big_k(k)
    delta = k + 1 - big_k
    return (1.0 / (2 * big_k)) * (1.0 - delta / (2 * big_k))


def brc_mean_error_printed(k: int) -> float:
    """The same as the thesis prints it (§5.4): 1/(2K) + (1 − Δ/(2K)), kept to show it cannot be
    the mean error (it exceeds 1/2)."""
    k = count("k", k)
    big_k = _big_k(k)
    return 1.0 / (2 * big_k) + (1.0 - (k + 1 - big_k) / (2 * big_k))


def brc_max_bound(k: int) -> float:
    """Pure BRC's error bound after k packets, 1/K with K = 2^floor(log2(k + 1))."""
    return 1.0 / _big_k(count("k", k))


def undetected_random(gap: float, k: int) -> float:
    """(5.4): the chance a step of the price to i+ + ``gap`` is still undetected after k random
    probes, (1 − gap)^k."""
    return (1.0 - num("gap", gap, above=0, at_most=1)) ** count("k", k)


def undetected_brc(gap: float, j: int) -> float:
    """(5.5) as printed, after 2^j packets of random-start BRC: Π_{m=1..j} (1 − gap 2^m) while
    gap 2^j < 1, else 0."""
    gap, j = num("gap", gap, above=0, at_most=1), count("j", j)
    if gap * 2 ** j >= 1:
        return 0.0
    return float(np.prod([1.0 - gap * 2 ** m for m in range(1, j + 1)]))


@lru_cache(maxsize=None)
def _detection_times(sequence: str, gap: float, before: int, trials: int, k_max: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    probes = probe_sequence(sequence, before + k_max, trials, rng)
    p_old = rng.random(trials) * (1.0 - 2 * gap)
    est = _last_estimate(probes[:, :before], p_old)
    seen_above = np.where(probes[:, :before] >= p_old[:, None], probes[:, :before], 1.0).min(axis=1)
    # The step: the price moves to gap above the receiver's upper bound i+ (the least unmarked
    # probe seen), staying below 1.
    i_plus = np.minimum(seen_above, 1.0 - gap)
    p_new = i_plus + gap
    marked = probes[:, before:] < p_new[:, None]
    est_after = adpm_decode(probes[:, before:], marked, est)
    detected = est_after > i_plus[:, None]
    first = np.where(detected.any(axis=1), detected.argmax(axis=1) + 1, k_max + 1)
    return first


def _last_estimate(probes: np.ndarray, prices: np.ndarray) -> np.ndarray:
    """p̂ after the last of each row's probes for that row's fixed price (p̂0 = 0)."""
    below = np.where(probes < prices[:, None], probes, 0.0)
    return below.max(axis=1) if below.shape[1] else np.zeros(len(prices))


def step_detection(sequence: str, gap: float, k: int, *, before: int = 64, trials: int = 10000,
                   seed: int = SEED) -> float:
    """Simulated chance that a step change is undetected after k packets (E5's §5.2.2 setting):
    the receiver tracks a fixed uniform price for ``before`` packets; the price then jumps to
    ``gap`` above its upper bound i+ (the least unmarked probe seen); detection is p̂ rising
    above i+. Compare :func:`undetected_random` and :func:`undetected_brc`."""
    sequence = choice("sequence", sequence, SEQUENCES)
    gap = num("gap", gap, above=0, below=0.5)
    k = count("k", k, at_least=1, at_most=1 << 12)
    horizon = max(256, 1 << (k - 1).bit_length())  # one cached run serves every k up to it
    first = _detection_times(sequence, gap, count("before", before, at_most=1 << 12),
                             count("trials", trials, at_least=1, at_most=100_000), horizon, seed)
    return float(np.mean(first > k))


def step_detection_ratio(sequence: str, gap: float, k: int, formula: str = "5.4", **kw) -> float:
    """:func:`step_detection` over the thesis's formula at the same k: "5.4" (random probes) or
    "5.5" (random-start BRC; k a power of two)."""
    formula = choice("formula", formula, ("5.4", "5.5"))
    k = count("k", k, at_least=1)
    if formula == "5.4":
        expected = undetected_random(gap, k)
    else:
        if k & (k - 1):
            raise ValueError(f"k: (5.5) is stated after 2^j packets, got {k}")
        expected = undetected_brc(gap, k.bit_length() - 1)
    if expected <= 0:
        raise ValueError(f"k: ({formula}) gives 0 at gap {gap:g} after {k} packets; compare step_detection itself")
    return step_detection(sequence, gap, k, **kw) / expected


def rcp_levels(r_min: float = 1e3, r_max: float = 100e9, granularity: float = 0.02) -> tuple[int, int, int]:
    """§5.3.2's RCP example: (levels, probe bits, quantiser levels) for rates r_min..r_max at a
    relative granularity: ⌈log_{1+g}(r_max/r_min)⌉ = 931, ⌈log2 931⌉ = 10, 2^10 = 1024."""
    r_min, r_max = num("r_min", r_min, above=0), num("r_max", r_max, above=0)
    g = num("granularity", granularity, above=0)
    levels = math.ceil(math.log(r_max / r_min) / math.log1p(g))
    bits = math.ceil(math.log2(levels))
    return levels, bits, 1 << bits


def maxnet_mapped_price(p: float, q: float) -> int:
    """§5.3.2's MaxNet mapping: the price ADPM conveys for a cost p, ⌈log_q(max(1, p + q))⌉."""
    q = num("q", q, above=1)
    return math.ceil(math.log(max(1.0, num("p", p) + q)) / math.log(q))
