//! Rust-only run of the standard benchmark: `cargo run --release --example bench_dumbbell -- N SECONDS`.

#[global_allocator]
static ALLOC: ccsim::mem::HugePageAlloc = ccsim::mem::HugePageAlloc;
fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let d: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(30.0);
    let r = ccsim::bench::run_dumbbell(n, d, 1).expect("bench scenario is valid");
    println!(
        "flows {} wall {:.3}s parse {:.3}s build {:.3}s events {} ({:.2} M/s) bottleneck {:.3} Mpkt/s util {:.4} jain {:.4} drops {} timeouts {} rss {} -> {} kB ({:.0} B/flow rss growth, {:.0} B/flow state)",
        r.flows, r.wall_seconds, r.parse_seconds, r.build_seconds, r.events, r.events_per_second() / 1e6, r.departures_per_second() / 1e6,
        r.utilisation, r.jain, r.drops, r.timeouts, r.rss_before_kb, r.peak_rss_kb, r.rss_growth_per_flow(), r.state_bytes_per_flow()
    );
}
