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
    let base = Workload { seed, ..Workload::default() };

    println!("Keshav 1991 ch. 3: average-case cost of FQ buffering (elementary operations per call)");
    println!(
        "cost unit: one link traversal (LINK, TREE) or one heap exchange (HEAP, PERC); inserts include their drops"
    );
    println!();
    println!(
        "== Calibration point (thesis: N = 10, B = 200, 2500 s); thesis cells are Table 3.1 at log base 2, constant 1"
    );
    let cal = evaluate(&base);
    print!("{}", render_table(&cal));
    println!();

    println!("== Fig 3.3: trace length (thesis: every metric within 10% of its asymptote at 2500 s)");
    let long = evaluate(&Workload { duration_s: 4.0 * base.duration_s, ..base.clone() });
    print!("{}", render_convergence(&cal, &long));
    println!();

    println!(
        "== Fig 3.4 reconstruction: 35 points on axes A (W*N < B) .. E; '<' cheapest, '>' dearest average insertion"
    );
    let points: Vec<(char, Evaluation)> =
        fig34_sweep(&base).into_iter().map(|p| (p.axis, evaluate(&p.workload))).collect();
    print!("{}", render_sweep(&points));
    println!();
    println!("== §3.5 findings on the sweep");
    for c in qualitative_checks(&points) {
        println!("{}  {}  [{}]", if c.holds { "PASS" } else { "FAIL" }, c.claim, c.detail);
    }
    println!();
    print!("{}", render_sizing(&points));
    println!();
    println!("Table 3.2 (thesis, implementation cost): static = insert() code size relative to LINK, dynamic = instructions per elementary operation");
    for k in ccsim::queue::fq_buffers::Kind::ALL {
        let r = THESIS.table_3_2(k);
        println!("  {:4}  static {:.1}  dynamic {:3}", k.name(), r.static_cost, r.dynamic_cost);
    }
    println!();
    println!("{} traces of 2500 s (plus one of 10000 s) in {:.2} s", points.len() + 1, started.elapsed().as_secs_f64());
}
