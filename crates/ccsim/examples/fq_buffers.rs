//! Keshav 1991 chapter 3: the trace-driven cost of the four FQ buffering structures (LINK,
//! TREE, HEAP, PERC) on one workload, driven by the engine.
//!
//!     cargo run --release -p ccsim --example fq_buffers -- N B [SECONDS [SEED]]
//!     cargo run --release -p ccsim --example fq_buffers -- N B SECONDS SEED --scenario
//!
//! Runs the workload scenario (N JK sources, one FQ gateway with B buffers; see
//! `ccsim::queue::fq_buffers::workload` for every placeholder), records the gateway's buffer
//! operations and prints each structure's costs on them. `--scenario` prints the scenario
//! instead (`ccsim run` takes it). The full chapter-3 report, beside the thesis's numbers, is
//! `ccsim experiment keshav91-fq-buffers`.

#[global_allocator]
static ALLOC: ccsim::mem::HugePageAlloc = ccsim::mem::HugePageAlloc;
use ccsim::queue::fq_buffers::evaluation::{evaluate, insert_cost_bound, Workload};
use ccsim::queue::fq_buffers::Kind;
use std::process::exit;
use std::time::Instant;

fn arg<T: std::str::FromStr>(args: &[String], i: usize, name: &str, default: Option<T>) -> T {
    match (args.get(i), default) {
        (Some(s), _) => s.parse().unwrap_or_else(|_| {
            eprintln!("{name}: expected a number, got {s:?}");
            exit(2)
        }),
        (None, Some(d)) => d,
        (None, None) => {
            eprintln!("usage: fq_buffers N B [SECONDS [SEED]] [--scenario]");
            exit(2)
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let print_scenario = args.iter().any(|a| a == "--scenario");
    args.retain(|a| a != "--scenario");
    let (n, b) = (arg::<u32>(&args, 0, "N", None), arg::<u32>(&args, 1, "B", None));
    let w = Workload { seed: arg(&args, 3, "SEED", Some(1)), ..Workload::new(n, b, arg(&args, 2, "SECONDS", Some(2500.0))) };
    if print_scenario {
        print!("{}", w.scenario_toml());
        return;
    }
    let started = Instant::now();
    let e = evaluate(&w).unwrap_or_else(|err| {
        eprintln!("{err}");
        exit(2)
    });
    let s = &e.stats;
    println!(
        "N={} B={} W={} (W*N/B = {:.2}), {} s, seed {}: {} arrivals ({} straight to an idle trunk), {} inserts, {} get_min, {} drops",
        n,
        b,
        w.max_window,
        w.load_ratio(),
        w.duration_s,
        w.seed,
        s.arrivals,
        s.sent_directly,
        s.inserts,
        s.get_mins,
        s.drops
    );
    println!("structure | avg insert | max insert (bound) | avg get_min | max get_min | same output");
    for k in Kind::ALL {
        let c = e.cost(k);
        println!(
            "{:9} | {:10.3} | {:>18} | {:11.3} | {:11} | {}",
            k.name(),
            c.avg_insert(),
            format!("{} ({})", c.max_insert, insert_cost_bound(k, n, b as usize)),
            c.avg_get_min(),
            c.max_get_min,
            if c.same_outcome { "yes" } else { "NO" }
        );
    }
    println!("computed in {:.2} s", started.elapsed().as_secs_f64());
}
