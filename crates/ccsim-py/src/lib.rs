//! Python bindings for the ccsim engine: conversion only, no simulation logic.
//!
//! `ccsim._core.run(scenario)` takes TOML text or a dict (the Python builder's structure),
//! validates it in the engine, runs it with the GIL released, and returns plain Python
//! data (dicts and lists, columns for the tables); the `ccsim` package turns that into
//! DataFrames, files and plots. Every scenario problem raises `ScenarioError` carrying the
//! field path.

mod convert;
mod tables;

// Large blocks (packet arena, flow tables) on huge pages: see ccsim::mem.
#[global_allocator]
static ALLOC: ccsim::mem::HugePageAlloc = ccsim::mem::HugePageAlloc;

use ccsim::scenario::decode::ScenarioError as EngineError;
use convert::{from_value, parse, to_value};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyModule};
use tables::results_to_py;

create_exception!(
    ccsim._core,
    ScenarioError,
    PyValueError,
    "A scenario is invalid: the message names the field path and what was expected."
);

pub(crate) fn scenario_error(e: EngineError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    Python::with_gil(|py| {
        let v = err.value(py);
        let _ = v.setattr("path", e.path.clone());
        let _ = v.setattr("detail", e.message.clone());
    });
    err
}

/// TOML text as a dict, read by the engine's parser (the one `run` and `validate` use).
#[pyfunction]
fn load_toml<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let v = ccsim::scenario::schema::parse_toml(text).map_err(scenario_error)?;
    from_value(py, &v)
}

/// Validate and run a scenario (TOML text or dict, with optional top-level overrides);
/// returns the results as plain data.
#[pyfunction]
#[pyo3(signature = (scenario, overrides=None))]
fn run<'py>(py: Python<'py>, scenario: &Bound<'py, PyAny>, overrides: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
    let sc = parse(scenario, overrides)?;
    let t0 = std::time::Instant::now();
    let res = py.allow_threads(|| ccsim::run(&sc)).map_err(scenario_error)?;
    let wall = t0.elapsed().as_secs_f64();
    results_to_py(py, &res, wall)
}

/// A run driven in slices of wall time from Python (progress, Ctrl-C): `advance(seconds)`
/// runs about that long with the GIL released and says whether the run is over; `stop()`
/// ends it where it is; `results()` returns what was measured (the whole run, or up to the
/// stop).
#[pyclass(module = "ccsim._core")]
struct Simulation {
    sim: Option<ccsim::Simulation>,
    wall: f64,
}

impl Simulation {
    fn get(&mut self) -> PyResult<&mut ccsim::Simulation> {
        self.sim.as_mut().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the simulation has already given its results"))
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (scenario, overrides=None))]
    fn new(py: Python<'_>, scenario: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let sc = parse(scenario, overrides)?;
        let sim = py.allow_threads(|| ccsim::Simulation::new(sc)).map_err(scenario_error)?;
        Ok(Simulation { sim: Some(sim), wall: 0.0 })
    }

    /// Run for about `seconds` of wall time; True when the run is over.
    fn advance(&mut self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        let sim = self.get()?;
        let budget = std::time::Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
        let t0 = std::time::Instant::now();
        let done = py.allow_threads(|| sim.advance_for(budget));
        self.wall += t0.elapsed().as_secs_f64();
        Ok(done)
    }

    /// End the run where it is.
    fn stop(&mut self) -> PyResult<()> {
        self.get()?.stop();
        Ok(())
    }

    /// Simulated seconds so far, and the run's length.
    #[getter]
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(ccsim::sim::time::to_secs(self.get()?.world().now))
    }

    #[getter]
    fn duration_s(&mut self) -> PyResult<f64> {
        Ok(ccsim::sim::time::to_secs(self.get()?.scenario.duration))
    }

    /// Events run so far.
    #[getter]
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.get()?.world().events.processed())
    }

    /// The results, as `run` returns them (the simulation is spent afterwards).
    fn results<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim =
            self.sim.take().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the simulation has already given its results"))?;
        let res = py.allow_threads(|| sim.finish()).map_err(scenario_error)?;
        results_to_py(py, &res, self.wall)
    }
}

/// Validate a scenario (TOML text or dict) without running it, routing included; returns a
/// short description.
#[pyfunction]
#[pyo3(signature = (scenario, overrides=None))]
fn validate<'py>(py: Python<'py>, scenario: &Bound<'py, PyAny>, overrides: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
    let sc = parse(scenario, overrides)?;
    ccsim::scenario::build::build_world(&sc).map_err(scenario_error)?;
    let d = PyDict::new(py);
    d.set_item("name", &sc.name)?;
    d.set_item("description", &sc.description)?;
    d.set_item("duration_s", ccsim::sim::time::to_secs(sc.duration))?;
    d.set_item("nodes", sc.nodes.len())?;
    d.set_item("links", sc.links.len())?;
    d.set_item("flows", sc.flows.len())?;
    Ok(d)
}

/// The machine's available memory in bytes (Linux's MemAvailable), or None: the figure the
/// engine checks `limits.packet_memory` against.
#[pyfunction]
fn available_memory() -> Option<u64> {
    ccsim::scenario::limits::available_memory()
}

/// The benchmark dumbbell's scenario text.
#[pyfunction]
#[pyo3(signature = (flows, duration, seed=1))]
fn dumbbell_toml(flows: usize, duration: f64, seed: u64) -> String {
    ccsim::bench::dumbbell_toml(flows, duration, seed)
}

/// Run the benchmark dumbbell (GIL released) and return its measurements.
#[pyfunction]
#[pyo3(signature = (flows, duration, seed=1))]
fn bench_dumbbell<'py>(py: Python<'py>, flows: usize, duration: f64, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    if flows == 0 || duration.is_nan() || duration <= 0.0 {
        return Err(ScenarioError::new_err("bench: expected flows >= 1 and duration > 0"));
    }
    let r = py.allow_threads(|| ccsim::bench::run_dumbbell(flows, duration, seed)).map_err(scenario_error)?;
    bench_dict(py, &r)
}

/// Run any scenario text as a benchmark (GIL released), reading `port` as its bottleneck.
#[pyfunction]
fn bench_text<'py>(py: Python<'py>, text: String, port: &str) -> PyResult<Bound<'py, PyDict>> {
    let r = py.allow_threads(|| ccsim::bench::run_text(text, port)).map_err(scenario_error)?;
    bench_dict(py, &r)
}

fn bench_dict<'py>(py: Python<'py>, r: &ccsim::bench::BenchReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", r.flows)?;
    d.set_item("sim_seconds", r.sim_seconds)?;
    d.set_item("wall_seconds", r.wall_seconds)?;
    d.set_item("parse_seconds", r.parse_seconds)?;
    d.set_item("build_seconds", r.build_seconds)?;
    d.set_item("events", r.events)?;
    d.set_item("events_per_second", r.events_per_second())?;
    d.set_item("bottleneck_departures", r.bottleneck_departures)?;
    d.set_item("bottleneck_pkts_per_wall_second", r.departures_per_second())?;
    d.set_item("events_per_bottleneck_packet", r.events_per_bottleneck_packet())?;
    d.set_item("sim_seconds_per_wall_second", r.sim_seconds / r.wall_seconds)?;
    d.set_item("rss_before_kb", r.rss_before_kb)?;
    d.set_item("peak_rss_kb", r.peak_rss_kb)?;
    d.set_item("state_bytes_per_flow", r.state_bytes_per_flow())?;
    d.set_item("output_bytes_per_flow", r.output_bytes as f64 / r.flows as f64)?;
    d.set_item("rss_growth_per_flow", r.rss_growth_per_flow())?;
    d.set_item("peak_packets", r.peak_packets)?;
    d.set_item("packet_bytes", r.packet_bytes())?;
    d.set_item("utilisation", r.utilisation)?;
    d.set_item("jain", r.jain)?;
    d.set_item("bottleneck_drops", r.drops)?;
    d.set_item("timeouts", r.timeouts)?;
    Ok(d)
}

/// Keshav 1991 chapter 3's buffering workload from a dict of its fields
/// (`ccsim::queue::fq_buffers::workload::Workload`; errors name the field as `workload.<key>`).
fn fq_workload(workload: &Bound<'_, PyAny>) -> PyResult<ccsim::queue::fq_buffers::workload::Workload> {
    if workload.downcast::<PyDict>().is_err() {
        return Err(ScenarioError::new_err("workload: expected a dict of the workload's fields"));
    }
    let v = to_value(workload, "workload").map_err(scenario_error)?.expect("dict is not None");
    ccsim::queue::fq_buffers::workload::Workload::from_value(&v, "workload").map_err(scenario_error)
}

/// Keshav 1991 chapter 3: run one buffering workload in the engine (GIL released), replay its
/// FQ gateway's buffer operations against the four structures, and return the run's
/// statistics and each structure's costs (in the order LINK, TREE, HEAP, PERC).
#[pyfunction]
fn fq_buffers_evaluate<'py>(py: Python<'py>, workload: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    use ccsim::queue::fq_buffers::evaluation::{evaluate, insert_cost_bound};
    let w = fq_workload(workload)?;
    let e = py.allow_threads(|| evaluate(&w)).map_err(scenario_error)?;
    let out = PyDict::new(py);
    let wd = PyDict::new(py);
    wd.set_item("conversations", w.conversations)?;
    wd.set_item("buffers", w.buffers)?;
    wd.set_item("duration_s", w.duration_s)?;
    wd.set_item("max_window", w.max_window)?;
    wd.set_item("trunk_bps", w.trunk_bps)?;
    wd.set_item("feeder_bps", w.feeder_bps)?;
    wd.set_item("propagation_s", w.propagation_s)?;
    wd.set_item("data_bytes", w.data_bytes)?;
    wd.set_item("ack_bytes", w.ack_bytes)?;
    wd.set_item("start_spread_s", w.start_spread_s)?;
    wd.set_item("delta_bits", w.delta_bits)?;
    wd.set_item("seed", w.seed)?;
    out.set_item("workload", wd)?;
    let s = &e.stats;
    let sd = PyDict::new(py);
    sd.set_item("arrivals", s.arrivals)?;
    sd.set_item("sent_directly", s.sent_directly)?;
    sd.set_item("inserts", s.inserts)?;
    sd.set_item("get_mins", s.get_mins)?;
    sd.set_item("drops", s.drops)?;
    sd.set_item("timeouts", s.timeouts)?;
    sd.set_item("retransmissions", s.retransmissions)?;
    sd.set_item("delivered", s.delivered)?;
    sd.set_item("mean_buffered", s.mean_buffered)?;
    sd.set_item("max_buffered", s.max_buffered)?;
    sd.set_item("trunk_utilisation", s.trunk_utilisation)?;
    out.set_item("stats", sd)?;
    let structures = PyList::empty(py);
    for c in &e.costs {
        let d = PyDict::new(py);
        d.set_item("name", c.kind.name())?;
        d.set_item("inserts", c.inserts)?;
        d.set_item("insert_ops", c.insert_ops)?;
        d.set_item("avg_insert", c.avg_insert())?;
        d.set_item("max_insert", c.max_insert)?;
        d.set_item("insert_bound", insert_cost_bound(c.kind, w.conversations, w.buffers as usize))?;
        d.set_item("get_mins", c.get_mins)?;
        d.set_item("get_min_ops", c.get_min_ops)?;
        d.set_item("avg_get_min", c.avg_get_min())?;
        d.set_item("max_get_min", c.max_get_min)?;
        d.set_item("drops", c.drops)?;
        d.set_item("insert_convergence", c.insert_convergence.clone())?;
        d.set_item("same_outcome", c.same_outcome)?;
        structures.append(d)?;
    }
    out.set_item("structures", structures)?;
    Ok(out)
}

/// Keshav 1991 chapter 3's buffering workload as scenario text (what `ccsim run` takes).
#[pyfunction]
fn fq_buffers_scenario(workload: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(fq_workload(workload)?.scenario_toml())
}

fn param_docs<'py>(py: Python<'py>, docs: &[ccsim::scenario::params::ParamDoc]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for d in docs {
        let p = PyDict::new(py);
        p.set_item("name", d.name)?;
        p.set_item("expects", &d.expects)?;
        p.set_item("default", &d.default)?;
        p.set_item("doc", d.doc)?;
        out.append(p)?;
    }
    Ok(out)
}

/// What the engine has, from its registries: every congestion-control algorithm and queue
/// discipline with its parameters (name, what it takes, default, meaning), and the
/// application names.
#[pyfunction]
fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    let cc = PyList::empty(py);
    for a in ccsim::transport::cc::ALGORITHMS {
        let d = PyDict::new(py);
        d.set_item("name", a.name)?;
        d.set_item("summary", a.summary)?;
        d.set_item("params", param_docs(py, &a.params())?)?;
        d.set_item("trace_columns", a.trace_columns.to_vec())?;
        d.set_item("event_log", a.event_log.map(|e| e.table))?;
        cc.append(d)?;
    }
    out.set_item("cc", cc)?;
    let queues = PyList::empty(py);
    for q in ccsim::queue::DISCIPLINES {
        let d = PyDict::new(py);
        d.set_item("name", q.name)?;
        d.set_item("summary", q.summary)?;
        d.set_item("params", param_docs(py, &q.params())?)?;
        queues.append(d)?;
    }
    out.set_item("queue", queues)?;
    out.set_item("app", ccsim::traffic::APP_NAMES.to_vec())?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(dumbbell_toml, m)?)?;
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    m.add_function(wrap_pyfunction!(bench_dumbbell, m)?)?;
    m.add_function(wrap_pyfunction!(bench_text, m)?)?;
    m.add_function(wrap_pyfunction!(fq_buffers_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(fq_buffers_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(load_toml, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
