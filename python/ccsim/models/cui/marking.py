"""The marking schemes Cui's chapter 5 compares ADPM with (§5.2.3, §5.4; spec §2.7-2.10, §5.3),
simulated packet by packet, and the E5.3/E5.4 comparisons.

- **REM** (2.5)-(2.8): a link of price p marks with probability 1 − φ^-p, so a path marks with
  1 − φ^-Σp; the receiver's estimate is the marked fraction q̂ of k packets. Its error in q
  has variance q(1 − q)/k, MSE 1/(6k) for q uniform (the thesis's closed form).
- **RAM** (Adler et al.): at hop i the bit is overwritten with probability 1/i, to 1 with
  probability s_i/i, so E[X] is the mean price; the receiver's estimate is the mean of X.
- **TPM** (Thommes and Coates), the single-bit version of Fig 5.3: 30 n probe types for paths
  of up to 30 routers with n-bit prices; probe type t asks router t // n for bit t mod n (most
  significant first) of its quantised price; the receiver keeps the latest bit of each type,
  an unseen bit read as 0 (spec §6 item 26), and adds the routers' quantised prices. Fig 5.3's
  path has 10 routers, prices i.i.d. uniform, the sum scaled to [0, 1]; quantisation is
  floor(p 2^n) (``reconstruct = "mid"`` adds half a step per router instead).
- **RPM** (Ryu et al.): prices quantised to ``levels`` (100) values; a probe names one level
  and is marked only when the router's level equals it; the estimate is the highest marked
  level's centre, 0 until a marked probe arrives (``unknown``).

Probe types arrive in random order (i.i.d.) in every scheme, as §5.4 says of TPM. The ADPM
side is :mod:`.adpm`; :func:`ramp_error` is Fig 5.4 (a price rising δ per packet, the only
non-zero price of the path), and :func:`marking_mse` the curves of Fig 5.3.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ._common import choice, count, num
from .adpm import THRESHOLDS, _ratio, sample_ks

__all__ = ["SCHEMES", "rem_mark_probability", "rem_marks", "ram_marks", "tpm_marks", "tpm_decode",
           "rpm_marks", "rpm_decode", "mse_curve", "marking_mse", "marking_mse_ratio", "quantiser_floor", "ramp_error", "ramp_error_ratio"]

SCHEMES = ("adpm", "rem", "ram", "tpm4", "tpm8", "rpm")
SEED = 20050502
PATH_ROUTERS = 10     # Fig 5.3's path
TPM_HOPS = 30         # TPM's probe types cover paths of up to 30 routers


def rem_mark_probability(prices, phi: float = 1.001) -> np.ndarray:
    """(2.6)/(2.7): the chance a packet is marked by links of these prices (last axis: the
    path's links): 1 − φ^-Σp."""
    phi = num("phi", phi, above=1)
    return 1.0 - phi ** -np.sum(np.asarray(prices, dtype=float), axis=-1)


def rem_marks(prices, k: int, rng: np.random.Generator, phi: float = 1.001) -> np.ndarray:
    """k packets through REM links, each link marking on its own with 1 − φ^-p_l: marks (n, k)
    for ``prices`` (n, links)."""
    prices = np.atleast_2d(np.asarray(prices, dtype=float))
    m = 1.0 - num("phi", phi, above=1) ** -prices
    marked = np.zeros((prices.shape[0], count("k", k)), dtype=bool)
    for link in range(prices.shape[1]):
        marked |= rng.random(marked.shape) < m[:, link:link + 1]
    return marked


def ram_marks(prices, k: int, rng: np.random.Generator) -> np.ndarray:
    """RAM's bit after the path for k packets: ``prices`` (n, hops) in [0, 1]; hop i (from 1)
    overwrites the bit with probability 1/i, setting it to 1 with probability s_i given that."""
    prices = np.atleast_2d(np.asarray(prices, dtype=float))
    if np.any((prices < 0) | (prices > 1)):
        raise ValueError("prices: RAM needs prices in [0, 1]")
    bit = np.zeros((prices.shape[0], count("k", k)), dtype=bool)
    for hop in range(prices.shape[1]):
        overwrite = rng.random(bit.shape) < 1.0 / (hop + 1)
        bit = np.where(overwrite, rng.random(bit.shape) < prices[:, hop:hop + 1], bit)
    return bit


def _quantise(prices, bits: int) -> np.ndarray:
    return np.minimum(np.floor(np.asarray(prices) * (1 << bits)), (1 << bits) - 1).astype(np.int64)


def tpm_marks(types, prices, bits: int) -> np.ndarray:
    """TPM's marks: probe ``types`` (n, k) in [0, 30·bits); ``prices`` (n, routers) or (n, k,
    routers) (prices that change per packet). Router t // bits marks when bit t mod bits of its
    quantised price (most significant first) is 1."""
    types = np.asarray(types, dtype=np.int64)
    q = _quantise(prices, bits)
    if q.ndim == types.ndim:
        q = np.broadcast_to(q[:, None, :], (*types.shape, q.shape[-1]))
    hop, bit = types // bits, types % bits
    on_path = hop < q.shape[-1]
    level = np.take_along_axis(q, np.minimum(hop, q.shape[-1] - 1)[..., None], axis=-1)[..., 0]
    return on_path & (((level >> (bits - 1 - bit)) & 1) == 1)


def tpm_decode(types, marks, bits: int, routers: int = TPM_HOPS, reconstruct: str = "floor") -> np.ndarray:
    """The receiver's estimate of the sum of the routers' prices after each packet, (n, k)."""
    types = np.asarray(types, dtype=np.int64)
    marks = np.asarray(marks, dtype=bool)
    reconstruct = choice("reconstruct", reconstruct, ("floor", "mid"))
    n, k = types.shape
    weight = 2.0 ** -(1 + np.arange(bits))                      # MSB first
    table = np.zeros((n, TPM_HOPS * bits), dtype=bool)
    rows = np.arange(n)
    out = np.empty((n, k))
    est = np.zeros(n)
    for j in range(k):
        t = types[:, j]
        w = weight[t % bits]
        old = table[rows, t]
        est += (marks[:, j].astype(float) - old) * w
        table[rows, t] = marks[:, j]
        out[:, j] = est
    if reconstruct == "mid":
        out += routers * 0.5 / (1 << bits)
    return out


def rpm_marks(types, prices, levels: int) -> np.ndarray:
    """RPM's marks: a probe naming level t is marked when some router's quantised price (of
    ``levels`` levels) equals t. ``types`` (n, k), ``prices`` (n, routers)."""
    q = np.minimum(np.floor(np.asarray(prices, dtype=float) * levels), levels - 1).astype(np.int64)
    types = np.asarray(types, dtype=np.int64)
    marked = np.zeros(types.shape, dtype=bool)
    for r in range(q.shape[1]):
        marked |= types == q[:, r:r + 1]
    return marked


def rpm_decode(types, marks, levels: int, unknown: float = 0.0) -> np.ndarray:
    """RPM's estimate after each packet: the centre of the highest marked level, ``unknown``
    until one arrives."""
    types = np.asarray(types, dtype=np.int64)
    best = np.maximum.accumulate(np.where(np.asarray(marks, dtype=bool), types, -1), axis=1)
    return np.where(best >= 0, (best + 0.5) / levels, unknown)


@lru_cache(maxsize=None)
def mse_curve(scheme: str, k_max: int = 4096, members: int = 4096, seed: int = SEED,
              phi: float = 1.001, levels: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Fig 5.3: (ks, mean square error) of a scheme's estimate of a fixed price after k packets,
    over ``members`` draws (prices and probe orders). REM, RAM and RPM estimate one price
    uniform on [0, 1] (REM's q, RAM's mean price, the path maximum); TPM the sum of 10 uniform
    prices over 10. ``k_max`` = 4096: TPM and RPM have long seen every probe type there (their
    floor) and REM and RAM follow 1/(6k). ADPM's members each draw their own probe sequence
    (four times ``members`` of them): Fig 5.1's ensemble shares one sequence among 100 prices,
    and with 256 sequences its MSE at small k is off the exact 2/((k+2)(k+3)) by up to 7%,
    enough to move the k = 6 crossing with REM. Cached."""
    scheme = choice("scheme", scheme, SCHEMES)
    k_max, n = count("k_max", k_max, at_least=1, at_most=1 << 16), count("members", members, at_least=1)
    if n * k_max > 1 << 26:
        raise ValueError(f"members: {n} x k_max {k_max} packets is too many (at most 2^26)")
    rng = np.random.default_rng(seed)
    ks = sample_ks(k_max)
    if scheme == "adpm":   # each member its own sequence: 4 x the members, the MSE is noisier
        sq = np.zeros(len(ks))
        for _ in range(4):
            p = rng.random(n)
            probes = rng.integers(0, THRESHOLDS, size=(n, k_max)) / THRESHOLDS
            est = np.maximum.accumulate(np.where(probes < p[:, None], probes, 0.0), axis=1)[:, ks - 1]
            sq += ((est - p[:, None]) ** 2).sum(axis=0)
        return ks, sq / (4 * n)
    if scheme in ("rem", "ram"):
        q = rng.random(n)
        if scheme == "rem":   # ten equal links whose path probability is q
            link = np.repeat((-np.log1p(-q) / math.log(phi) / PATH_ROUTERS)[:, None], PATH_ROUTERS, axis=1)
            marks = rem_marks(link, k_max, rng, phi)
        else:                 # ten hops of equal price q: the bit is 1 with probability q
            marks = ram_marks(np.repeat(q[:, None], PATH_ROUTERS, axis=1), k_max, rng)
        frac = np.cumsum(marks, axis=1)[:, ks - 1] / ks
        return ks, ((frac - q[:, None]) ** 2).mean(axis=0)
    if scheme == "rpm":
        p = rng.random(n)
        types = rng.integers(0, levels, size=(n, k_max))
        est = rpm_decode(types, rpm_marks(types, p[:, None], levels), levels)[:, ks - 1]
        return ks, ((est - p[:, None]) ** 2).mean(axis=0)
    bits = int(scheme[3:])
    prices = rng.random((n, PATH_ROUTERS))
    types = rng.integers(0, TPM_HOPS * bits, size=(n, k_max))
    est = tpm_decode(types, tpm_marks(types, prices, bits), bits, PATH_ROUTERS)[:, ks - 1] / PATH_ROUTERS
    return ks, ((est - prices.mean(axis=1)[:, None]) ** 2).mean(axis=0)


def marking_mse(scheme: str, k: int, **kw) -> float:
    """One point of :func:`mse_curve`."""
    ks, mse = mse_curve(scheme, **kw)
    hit = np.nonzero(ks == count("k", k, at_least=1))[0]
    if not len(hit):
        raise ValueError(f"k: {k} is not one of {scheme}'s points (see adpm.sample_ks; the curves stop at 4096)")
    return float(mse[hit[0]])


def quantiser_floor(scheme: str, levels: int = 100) -> float:
    """The MSE a scheme's fixed quantiser leaves once every probe type is seen: TPM n-bit on
    Fig 5.3's ten routers (floor quantisation: each router's error uniform on (−2^-n, 0], the sum
    over ten) (1/4 + 1/120)/4^n; RPM's level centres 1/(12 levels²)."""
    scheme = choice("scheme", scheme, ("tpm4", "tpm8", "rpm"))
    if scheme == "rpm":
        return 1.0 / (12 * count("levels", levels, at_least=1) ** 2)
    return (0.25 + 1.0 / (12 * PATH_ROUTERS)) / 4 ** int(scheme[3:])


def marking_mse_ratio(scheme: str, k: int, reference: str = "1/(6k)", **kw) -> float:
    """:func:`marking_mse` over 1/(6k), over 2/((k+2)(k+3)), over the quantiser's floor
    (:func:`quantiser_floor`), or over another scheme's MSE."""
    if reference == "floor":
        return marking_mse(scheme, k, **kw) / quantiser_floor(scheme, kw.get("levels", 100))
    if reference == "1/(6k)":
        return marking_mse(scheme, k, **kw) * 6 * k
    if reference == "2/((k+2)(k+3))":
        return marking_mse(scheme, k, **kw) * (k + 2) * (k + 3) / 2
    ref = choice("reference", reference, SCHEMES)
    return _ratio(marking_mse(scheme, k, **kw), marking_mse(ref, k, **kw), ref)


@lru_cache(maxsize=None)
def ramp_error(scheme: str, delta: float, sequences: int = 256, start: float = 0.2, seed: int = SEED) -> float:
    """Fig 5.4: the mean |estimate − price| while the path's largest price rises ``delta`` per
    packet from ``start`` (every other price 0), random probe order. Measured over 10/√δ packets
    after a warm-up of 5/√δ (the estimator's memory is about 1/√δ packets), averaged over
    ``sequences`` sequences. ``scheme``: "adpm", "tpm4" or "tpm8". Cached."""
    scheme = choice("scheme", scheme, ("adpm", "tpm4", "tpm8"))
    delta = num("delta", delta, at_least=1e-10, at_most=1e-3)   # 10/√δ packets, one step each
    n = count("sequences", sequences, at_least=1, at_most=1 << 16)
    warm = max(2000, math.ceil(5 / math.sqrt(delta)))
    total = warm + max(10000, math.ceil(10 / math.sqrt(delta)))
    if start + delta * total >= 1:
        raise ValueError(f"start: the ramp from {start} would pass 1 within {total} packets")
    rng = np.random.default_rng(seed)
    err_sum = 0.0
    block = 4096
    est = np.zeros(n)
    if scheme != "adpm":
        bits = int(scheme[3:])
        table = np.zeros((n, TPM_HOPS * bits), dtype=bool)
        rows = np.arange(n)
        weight = 2.0 ** -(1 + np.arange(bits))
    for lo in range(0, total, block):
        m = min(block, total - lo)
        price = start + delta * np.arange(lo, lo + m)
        if scheme == "adpm":
            probes = rng.integers(0, THRESHOLDS, size=(n, m)) / THRESHOLDS
            marked = probes < price[None, :]
            for j in range(m):
                i = probes[:, j]
                est = np.where(np.where(marked[:, j], i > est, i < est), i, est)
                if lo + j >= warm:
                    err_sum += np.abs(est - price[j]).sum()
        else:
            types = rng.integers(0, TPM_HOPS * bits, size=(n, m))
            level = _quantise(price, bits)
            marks = (types // bits == 0) & (((level[None, :] >> (bits - 1 - types % bits)) & 1) == 1)
            for j in range(m):
                t = types[:, j]
                est += (marks[:, j].astype(float) - table[rows, t]) * weight[t % bits]
                table[rows, t] = marks[:, j]
                if lo + j >= warm:
                    err_sum += np.abs(est - price[j]).sum()
    return float(err_sum / (n * (total - warm)))


def ramp_error_ratio(scheme: str, delta: float, reference: str = "sqrt(2 delta)", **kw) -> float:
    """:func:`ramp_error` over √(2δ), or over another scheme's ramp error."""
    if reference == "sqrt(2 delta)":
        return ramp_error(scheme, delta, **kw) / math.sqrt(2 * delta)
    ref = choice("reference", reference, ("adpm", "tpm4", "tpm8"))
    return _ratio(ramp_error(scheme, delta, **kw), ramp_error(ref, delta, **kw), ref)
