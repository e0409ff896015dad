//! Packet-size mixes: a flow whose data packets' sizes follow a distribution
//! (`packet_sizes = [{size = "100B", share = 0.4}, ...]`).
//!
//! Source: Hua 2002 ch. 5 (hua02-vegas-jcc-swtp.md §3.3): "in every class 40% 100 bytes, 40%
//! 500 bytes, 20% 1000 bytes, independent per packet" (mean 440 B). ns-2, which the thesis used,
//! has no such source; how sizes are drawn is ours:
//!
//! - A packet's size is a pure function of the flow's size seed and the packet's sequence
//!   number. A window-controlled flow retransmits a sequence number with the size it first had,
//!   and the sink counts the bytes of packets delivered in order behind a hole, without any size
//!   stored per sequence number: the sender, its retransmissions and the sink each compute it.
//! - The function: splitmix64's output number `seq` from the state `seed` (Steele, Lea & Flood,
//!   "Fast splittable pseudorandom number generators", OOPSLA 2014; the generator that seeds
//!   ccsim's xoshiro streams), 64 uniform bits, compared with the cumulative shares scaled to
//!   2^64. Sizes are then independent from packet to packet as far as splitmix64's outputs are
//!   (tested below: shares, and pairs of neighbouring sequence numbers).
//! - The seed comes from the flow's own named stream (`flow/<name>/packet_sizes`), so a mix
//!   changes no other component's random numbers, and the sizes change with the scenario seed.
//! - Shares are given as fractions that must sum to 1 (within [`SHARE_SUM_TOLERANCE`]); they are
//!   divided by their sum, so a mix written to four decimals is still exactly a distribution.
//! - Sources that convert a bit rate into a packet spacing (`bitrate`) use the mix's mean size,
//!   so the long-run bit rate is the one asked for; packets stay evenly spaced (Hua's "constant
//!   packet spacing at peak rate", spec §3.3).
//!
//! Flows with one size carry no table: the per-packet cost for them is one predictable branch.

/// How far the shares of a mix may sum from 1.
pub const SHARE_SUM_TOLERANCE: f64 = 1e-6;

/// Most sizes in one mix: the per-packet lookup scans them in order.
pub const MAX_SIZES: usize = 64;

/// A mix as a scenario gives it: sizes in bytes with their shares, in the order written,
/// shares already divided by their sum.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeMix {
    pub entries: Vec<(u32, f64)>,
}

impl SizeMix {
    /// Mean packet size, bytes.
    pub fn mean(&self) -> f64 {
        self.entries.iter().map(|&(s, p)| s as f64 * p).sum()
    }
}

/// One size of a mix at run time: the size, and the upper end of its share of the 2^64 hash
/// values (exclusive; the last entry takes everything above the one before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SizeStep {
    below: u64,
    size: u32,
}

/// A flow's packet sizes at run time: the size of every sequence number, computed on demand.
#[derive(Clone, Debug)]
pub struct PacketSizes {
    seed: u64,
    steps: Box<[SizeStep]>,
}

impl PacketSizes {
    pub fn new(mix: &SizeMix, seed: u64) -> Self {
        assert!(!mix.entries.is_empty() && mix.entries.len() <= MAX_SIZES, "mixes are checked when decoded");
        let total: f64 = mix.entries.iter().map(|e| e.1).sum();
        let mut cumulative = 0.0;
        let steps = mix
            .entries
            .iter()
            .map(|&(size, share)| {
                cumulative += share / total;
                // 2^64 x the cumulative share; `as` saturates at u64::MAX for the last one.
                SizeStep { below: (cumulative * 18_446_744_073_709_551_616.0) as u64, size }
            })
            .collect();
        PacketSizes { seed, steps }
    }

    /// Size in bytes of the data packet with sequence number `seq`. Kept out of line, so the
    /// per-packet code of flows of one size stays as small as it was.
    #[inline(never)]
    pub fn size_of(&self, seq: u64) -> u32 {
        let h = splitmix64_output(self.seed, seq);
        let (last, rest) = self.steps.split_last().expect("a mix has at least one size");
        for s in rest {
            if h < s.below {
                return s.size;
            }
        }
        last.size
    }

    /// Bytes of the `count` data packets from sequence number `first` on (out of line, as
    /// `size_of`).
    #[inline(never)]
    pub fn bytes(&self, first: u64, count: u64) -> u64 {
        (first..first + count).map(|seq| self.size_of(seq) as u64).sum()
    }

    pub fn memory_bytes(&self) -> usize {
        self.steps.len() * std::mem::size_of::<SizeStep>()
    }
}

/// Where the sizes of a flow's packets come from when they are not all one size: a mix, or
/// Nagle's rule coalescing the source's writes (`nagle`).
#[derive(Clone, Debug)]
pub enum VariableSizes {
    Mix(PacketSizes),
    Coalesced(super::nagle::Nagle),
}

impl VariableSizes {
    /// Bytes of data packet `seq`.
    pub fn size_of(&self, seq: u64) -> u32 {
        match self {
            VariableSizes::Mix(m) => m.size_of(seq),
            VariableSizes::Coalesced(n) => n.size_of(seq),
        }
    }

    /// Bytes of the `count` data packets from `first` on.
    pub fn bytes(&self, first: u64, count: u64) -> u64 {
        match self {
            VariableSizes::Mix(m) => m.bytes(first, count),
            VariableSizes::Coalesced(n) => (first..first + count).map(|seq| n.size_of(seq) as u64).sum(),
        }
    }

    /// Whether `seq`'s size can be told (a coalescing flow forgets acknowledged packets').
    pub fn knows(&self, seq: u64) -> bool {
        match self {
            VariableSizes::Mix(_) => true,
            VariableSizes::Coalesced(n) => n.knows(seq),
        }
    }

    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + match self {
                VariableSizes::Mix(m) => m.memory_bytes(),
                VariableSizes::Coalesced(n) => n.memory_bytes(),
            }
    }
}

/// splitmix64's output number `index` (counting from 0) from the state `seed`: the state
/// advanced index + 1 times by the golden-ratio increment, then finalised (Steele et al. 2014).
#[inline]
fn splitmix64_output(seed: u64, index: u64) -> u64 {
    let mut z = seed.wrapping_add(index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hua() -> SizeMix {
        SizeMix { entries: vec![(100, 0.4), (500, 0.4), (1000, 0.2)] }
    }

    /// Binomial standard deviation of the count of an event of probability `p` in `n` trials.
    fn binomial_sd(n: f64, p: f64) -> f64 {
        (n * p * (1.0 - p)).sqrt()
    }

    #[test]
    fn outputs_match_splitmix64_run_from_the_seed() {
        // The closed form equals stepping the generator: state += golden ratio, then finalise.
        let seed = 0x1234_5678_9abc_def0_u64;
        let mut state = seed;
        for index in 0..100 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            assert_eq!(splitmix64_output(seed, index), z ^ (z >> 31));
        }
    }

    /// Over 10^6 sequence numbers each size's share is its parameter within 5 binomial standard
    /// deviations (about 0.25 percentage points here); for three seeds.
    #[test]
    fn empirical_shares_match_the_mix() {
        let n = 1_000_000u64;
        for seed in [1u64, 2, 0xdead_beef] {
            let sizes = PacketSizes::new(&hua(), seed);
            let mut counts = [0u64; 3];
            for seq in 0..n {
                match sizes.size_of(seq) {
                    100 => counts[0] += 1,
                    500 => counts[1] += 1,
                    1000 => counts[2] += 1,
                    other => panic!("size {other} is not in the mix"),
                }
            }
            for (c, p) in counts.iter().zip([0.4, 0.4, 0.2]) {
                let expected = n as f64 * p;
                assert!((*c as f64 - expected).abs() < 5.0 * binomial_sd(n as f64, p), "seed {seed}: counts {counts:?}");
            }
            let mean = sizes.bytes(0, n) as f64 / n as f64;
            // Size standard deviation 332 B: 5 standard errors of the mean are 1.7 B.
            assert!((mean - 440.0).abs() < 1.7, "seed {seed}: mean size {mean}");
        }
    }

    /// Neighbouring sequence numbers are independent: the joint shares of (size(k), size(k+1))
    /// are the products of the marginal ones, within 5 binomial standard deviations.
    #[test]
    fn neighbouring_sizes_are_independent() {
        let n = 1_000_000u64;
        let sizes = PacketSizes::new(&hua(), 7);
        let index = |s: u32| match s {
            100 => 0,
            500 => 1,
            _ => 2,
        };
        let mut joint = [[0u64; 3]; 3];
        for seq in 0..n {
            joint[index(sizes.size_of(seq))][index(sizes.size_of(seq + 1))] += 1;
        }
        let p = [0.4, 0.4, 0.2];
        for a in 0..3 {
            for b in 0..3 {
                let q = p[a] * p[b];
                let dev = (joint[a][b] as f64 - n as f64 * q).abs();
                assert!(dev < 5.0 * binomial_sd(n as f64, q), "pair ({a}, {b}): {joint:?}");
            }
        }
    }

    #[test]
    fn a_size_is_a_function_of_seed_and_sequence_number() {
        let a = PacketSizes::new(&hua(), 42);
        let b = PacketSizes::new(&hua(), 42);
        let other_seed = PacketSizes::new(&hua(), 43);
        let first: Vec<u32> = (0..1000).map(|s| a.size_of(s)).collect();
        // Asked again, in another order (as a retransmission or the sink would ask): the same.
        for seq in (0..1000).rev() {
            assert_eq!(a.size_of(seq), first[seq as usize]);
            assert_eq!(b.size_of(seq), first[seq as usize]);
        }
        let differs = (0..1000).filter(|&s| other_seed.size_of(s) != first[s as usize]).count();
        assert!(differs > 400, "another seed gives other sizes ({differs} of 1000 differ)");
        assert_eq!(a.bytes(10, 5), (10..15).map(|s| first[s] as u64).sum::<u64>());
        assert_eq!(a.bytes(10, 0), 0);
    }

    #[test]
    fn shares_are_normalised_and_the_last_size_takes_the_rest() {
        let quarter = PacketSizes::new(&SizeMix { entries: vec![(40, 0.25), (1500, 0.75)] }, 3);
        assert_eq!(quarter.steps[0].below, 1u64 << 62, "the first quarter of the hash values");
        // Shares summing to 1 - 1e-7 (within tolerance) still make a full distribution.
        let short = PacketSizes::new(&SizeMix { entries: vec![(40, 0.5), (1500, 0.4999999)] }, 3);
        assert!(short.steps[0].below > 1u64 << 63, "0.5 of a total below 1 is more than half");
        assert_eq!(short.steps.last().unwrap().below, u64::MAX);
        let one = PacketSizes::new(&SizeMix { entries: vec![(576, 1.0)] }, 9);
        assert!((0..100).all(|s| one.size_of(s) == 576));
        assert!((hua().mean() - 440.0).abs() < 1e-9);
    }
}
