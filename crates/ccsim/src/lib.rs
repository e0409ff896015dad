//! ccsim: a packet-level discrete-event simulator for congestion-control research.
//!
//! The engine is a plain Rust library with no Python in it. A run goes
//! scenario (TOML or a value tree) -> validated [`Scenario`] -> [`world::World`] -> event loop
//! -> [`results::Results`]. See DESIGN.md in the repository for the architecture.

pub mod bench;
pub mod measure;
pub mod mem;
pub mod net;
pub mod parallel;
pub mod queue;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod traffic;
pub mod transport;
pub mod world;

pub use results::Results;
pub use scenario::{Scenario, ScenarioError};

/// Build and run a validated scenario.
pub fn run(sc: &Scenario) -> Result<Results, ScenarioError> {
    if sc.parallel.is_some() {
        let mut world = parallel::ParallelRun::new(sc)?.join();
        return finish(sc, &mut world);
    }
    let mut world = scenario::build::build_world(sc)?;
    world.run();
    finish(sc, &mut world)
}

/// The results of a world that has run, or the error of a run stopped because it held
/// as many packets at once as its `[limits] packet_memory` allows (naming the flow with the
/// most of them).
pub fn finish(sc: &Scenario, world: &mut world::World) -> Result<Results, ScenarioError> {
    if world.overflow.is_some() {
        let held = world.packets.live_per_flow(sc.flows.len());
        let (f, most) = held.iter().enumerate().max_by_key(|&(i, n)| (n, std::cmp::Reverse(i))).map(|(i, &n)| (i, n)).unwrap_or((0, 0));
        return Err(ScenarioError::new(
            format!("flows[{f}]"),
            format!(
                "the run stopped at {:.6} s simulated, holding {} packets queued or in flight (limits.packet_memory \
                 allows {} at {} bytes each), {most} of them flow \"{}\"'s: it offers more than its path carries \
                 into an unlimited queue (a host's own queue is unlimited unless the link's forward or reverse table \
                 sets a buffer), or its path holds that many; lower its rate, give the queue a buffer, or raise \
                 limits.packet_memory",
                sim::time::to_secs(world.now),
                world.packets.live(),
                sc.limits.live_packets(),
                scenario::limits::BYTES_PER_LIVE_PACKET,
                sc.flows[f].name
            ),
        ));
    }
    Ok(Results::take(sc, world))
}

/// A run driven in slices of wall time, so a caller can show progress, stop it, and keep
/// what was measured.
pub struct Simulation {
    pub scenario: Scenario,
    engine: Engine,
    done: bool,
}

enum Engine {
    Serial(Box<world::World>),
    Parallel(Box<parallel::ParallelRun>),
}

/// Events between two looks at the clock.
const SLICE_EVENTS: u64 = 1 << 16;

impl Simulation {
    pub fn new(scenario: Scenario) -> Result<Simulation, ScenarioError> {
        let engine = match scenario.parallel {
            Some(_) => Engine::Parallel(Box::new(parallel::ParallelRun::new(&scenario)?)),
            None => Engine::Serial(Box::new(scenario::build::build_world(&scenario)?)),
        };
        Ok(Simulation { scenario, engine, done: false })
    }

    /// The world whose clock is the run's (a parallel run's first side).
    pub fn world(&self) -> &world::World {
        match &self.engine {
            Engine::Serial(w) => w,
            Engine::Parallel(p) => p.world(),
        }
    }

    /// Run for about `wall` of wall time (or to the end); true when the run is over.
    pub fn advance_for(&mut self, wall: std::time::Duration) -> bool {
        let t0 = std::time::Instant::now();
        match &mut self.engine {
            Engine::Serial(w) => {
                while !self.done {
                    self.done = w.advance(SLICE_EVENTS);
                    if t0.elapsed() >= wall {
                        break;
                    }
                }
            }
            Engine::Parallel(p) => self.done = p.advance_for(wall),
        }
        self.done
    }

    /// Stop the run where it is (it then finishes as an interrupted run; a parallel run at
    /// the end of its current window).
    pub fn stop(&mut self) {
        if !self.done {
            match &mut self.engine {
                Engine::Serial(w) => w.stop_here(),
                Engine::Parallel(p) => p.stop(),
            }
            self.done = true;
        }
    }

    /// The results (of the whole run, or up to where it was stopped).
    pub fn finish(mut self) -> Result<Results, ScenarioError> {
        if !self.done {
            self.stop();
        }
        let mut world = match self.engine {
            Engine::Serial(mut w) => {
                w.close();
                *w
            }
            Engine::Parallel(p) => p.join(),
        };
        finish(&self.scenario, &mut world)
    }
}

/// Parse, validate and run TOML text.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    run(&Scenario::from_toml_str(text)?)
}
