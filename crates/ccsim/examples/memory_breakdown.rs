//! Where the benchmark's simulation state goes, per flow, and the sizes of the structures
//! behind it: `cargo run --release -p ccsim --example memory_breakdown -- [N]` (default 1000).
//! The total is the `state_bytes_per_flow` of `ccsim bench dumbbell --flows N --duration 30`.

#[global_allocator]
static ALLOC: ccsim::mem::HugePageAlloc = ccsim::mem::HugePageAlloc;
use ccsim::net::port::Port;
use ccsim::transport::{cc::Cc, rtt::RttEstimator, sender::Sender, seqspace::SlotRing, sink::Sink};
use ccsim::{
    bench,
    measure::{FlowCounters, IntervalCounters},
    queue::Qdisc,
    scenario::build::build_world,
    traffic::App,
    world::Flow,
    Scenario,
};
use std::mem::size_of;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let sc = Scenario::from_toml_str(&bench::dumbbell_toml(n, 30.0, 1)).expect("bench scenario");
    let mut w = build_world(&sc).expect("bench world");
    w.run();
    let per = |bytes: usize| bytes as f64 / n as f64;
    let (state, _) = w.memory_bytes();
    let sender_heap: usize = w.flows.iter().filter_map(|f| f.sender.as_ref()).map(|s| s.memory_bytes()).sum();
    let other_flow_heap: usize = w.flows.iter().map(|f| f.name.capacity() + f.sink.memory_bytes() + f.app.memory_bytes()).sum();
    let port_heap: usize = w.ports.iter().map(|p| p.memory_bytes()).sum();
    println!("N = {n}: simulation state {:.0} B per flow", per(state));
    println!("  flow records      {:>5.0}  ({} B each)", per(w.flows.capacity() * size_of::<Flow>()), size_of::<Flow>());
    println!("  sender heap       {:>5.0}  (sequence ring, resend queue, boxed controllers)", per(sender_heap));
    println!("  other flow heap   {:>5.0}  (names, sink bitmaps, source state)", per(other_flow_heap));
    println!(
        "  ports             {:>5.0}  ({} ports of {} B)",
        per(w.ports.capacity() * size_of::<Port>()),
        w.ports.len(),
        size_of::<Port>()
    );
    println!("  port heap         {:>5.0}  (queues, pipes)", per(port_heap));
    println!("  routes            {:>5.0}", per(w.routes.capacity() * 4));
    println!("  packet arena      {:>5.0}", per(w.packets.memory_bytes()));
    println!("  event heap        {:>5.0}", per(w.events.memory_bytes()));
    println!(
        "sizes: Sender {} (Cc {}, RttEstimator {}, SlotRing {}), Sink {}, App {}, FlowCounters {} + IntervalCounters {}, Qdisc {}",
        size_of::<Sender>(),
        size_of::<Cc>(),
        size_of::<RttEstimator>(),
        size_of::<SlotRing>(),
        size_of::<Sink>(),
        size_of::<App>(),
        size_of::<FlowCounters>(),
        size_of::<IntervalCounters>(),
        size_of::<Qdisc>()
    );
}
