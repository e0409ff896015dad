//! Keshav 1991 chapter 3: the trace-driven cost evaluation of the four FQ buffering structures
//! (LINK, TREE, HEAP, PERC), printed next to the thesis's numbers.
//!
//!     cargo run --release -p ccsim --example fq_buffers [-- SEED]
//!
//! Prints (1) the calibration point N = 10, B = 200 against Tables 3.1 and 3.2, (2) the
//! trace-length check of Fig 3.3, (3) a 35-point (N, B) sweep in the shape of Fig 3.4 with the
//! chapter's qualitative findings checked on it, (4) §3.5's sizing example. The scenario values
//! the thesis does not give (W, line rates, delays, the sweep's points) are placeholders; see
//! `ccsim::queue::fq_buffers::evaluation` for each.
use ccsim::queue::fq_buffers::evaluation::*;
use std::time::Instant;

fn main() {
    let seed: u64 = std::env::args().nth(1).map(|s| s.parse().expect("SEED must be an integer")).unwrap_or(1);
    let started = Instant::now();
    let (text, _, _) = full_report(seed);
    print!("{text}");
    println!("computed in {:.2} s", started.elapsed().as_secs_f64());
}
