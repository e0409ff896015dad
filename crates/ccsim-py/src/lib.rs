//! Python bindings for the ccsim engine: conversion only, no simulation logic.
//!
//! `ccsim._core.run(scenario)` takes TOML text or a dict (the Python builder's structure),
//! validates it in the engine, runs it with the GIL released, and returns plain Python
//! data (dicts and lists, columns for the tables); the `ccsim` package turns that into
//! DataFrames, files and plots. Every scenario problem raises `ScenarioError` carrying the
//! field path.

use ccsim::results::{BatchMean, Results};
use ccsim::scenario::decode::ScenarioError as EngineError;
use ccsim::Scenario;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyModule, PyString, PyTuple};

create_exception!(
    ccsim._core,
    ScenarioError,
    PyValueError,
    "A scenario is invalid: the message names the field path and what was expected."
);

fn scenario_error(e: EngineError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    Python::with_gil(|py| {
        let v = err.value(py);
        let _ = v.setattr("path", e.path.clone());
        let _ = v.setattr("detail", e.message.clone());
    });
    err
}

/// Deepest nesting of lists and tables a scenario may have (the scenario format needs four):
/// deeper data is refused before the recursion below could exhaust the stack.
const MAX_DEPTH: usize = 64;

fn to_value(obj: &Bound<'_, PyAny>, path: &str) -> Result<Option<toml::Value>, EngineError> {
    to_value_at(obj, path, 0)
}

fn to_value_at(obj: &Bound<'_, PyAny>, path: &str, depth: usize) -> Result<Option<toml::Value>, EngineError> {
    if depth > MAX_DEPTH {
        let outer: String = path.chars().take_while(|&c| c != '[' && c != '.').collect();
        return Err(EngineError::new(outer, format!("nested more than {MAX_DEPTH} lists or tables deep; a scenario needs a few")));
    }
    if obj.is_none() {
        return Ok(None);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(toml::Value::Boolean(obj.extract::<bool>().unwrap_or(false))));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(|i| Some(toml::Value::Integer(i)))
            .map_err(|_| EngineError::new(path, "expected an integer that fits in 64 bits"));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Some(toml::Value::Float(obj.extract::<f64>().unwrap_or(f64::NAN))));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Some(toml::Value::String(obj.extract::<String>().unwrap_or_default())));
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| {
                EngineError::new(path, format!("expected string keys, got {}", k.repr().map(|r| r.to_string()).unwrap_or_default()))
            })?;
            let sub = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            if let Some(val) = to_value_at(&v, &sub, depth + 1)? {
                t.insert(key, val);
            }
        }
        return Ok(Some(toml::Value::Table(t)));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in obj.try_iter().map_err(|_| EngineError::new(path, "expected a list"))?.enumerate() {
            let item = item.map_err(|_| EngineError::new(path, "expected a list"))?;
            if let Some(v) = to_value_at(&item, &format!("{path}[{i}]"), depth + 1)? {
                out.push(v);
            }
        }
        return Ok(Some(toml::Value::Array(out)));
    }
    // numpy scalars and other number-likes
    if let Ok(i) = obj.call_method0("__index__").and_then(|x| x.extract::<i64>()) {
        return Ok(Some(toml::Value::Integer(i)));
    }
    if let Ok(x) = obj.call_method0("__float__").and_then(|x| x.extract::<f64>()) {
        return Ok(Some(toml::Value::Float(x)));
    }
    let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(EngineError::new(path, format!("expected a string, number, boolean, list or table, got a Python {ty}")))
}

/// A scenario given as TOML text or a dict, as a value tree: one parser (the engine's) for
/// every command. `overrides` (a dict of top-level keys: seed, duration) replace the
/// scenario's own; None values are ignored.
fn scenario_value(scenario: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<toml::Value> {
    let mut v = if let Ok(text) = scenario.extract::<String>() {
        ccsim::scenario::schema::parse_toml(&text).map_err(scenario_error)?
    } else if scenario.downcast::<PyDict>().is_ok() {
        to_value(scenario, "").map_err(scenario_error)?.expect("dict is not None")
    } else {
        return Err(ScenarioError::new_err("expected the scenario as TOML text (str) or a dict"));
    };
    if let (Some(o), toml::Value::Table(t)) = (overrides, &mut v) {
        for (k, val) in o.iter() {
            let key: String = k.extract()?;
            if let Some(val) = to_value(&val, &key).map_err(scenario_error)? {
                t.insert(key, val);
            }
        }
    }
    Ok(v)
}

fn parse(scenario: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Scenario> {
    Scenario::from_value(&scenario_value(scenario, overrides)?).map_err(scenario_error)
}

/// A TOML value as Python data (dates as their text).
fn from_value<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => PyString::new(py, s).into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(x) => PyFloat::new(py, *x).into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        toml::Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(from_value(py, x)?)?;
            }
            l.into_any()
        }
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, from_value(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// TOML text as a dict, read by the engine's parser (the one `run` and `validate` use).
#[pyfunction]
fn load_toml<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let v = ccsim::scenario::schema::parse_toml(text).map_err(scenario_error)?;
    from_value(py, &v)
}

fn bm<'py>(py: Python<'py>, b: &BatchMean) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("mean", b.mean)?;
    d.set_item("sd", b.sd)?;
    d.set_item("intervals", b.intervals)?;
    Ok(d)
}

/// A column of the run's tables, as a numpy array: one copy of the values into a bytes
/// object, which `numpy.frombuffer` then views. Python lists of floats cost 32 bytes a value
/// and pandas' conversion of them was most of the time `ccsim.Results` took for a traced run.
/// Integers go out as int64 and flags as bool, the dtypes pandas gave the lists before.
trait Column: Copy {
    const DTYPE: &'static str;
    const WIDTH: usize;
    fn write(self, out: &mut [u8]);
}

impl Column for f64 {
    const DTYPE: &'static str = "<f8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

impl Column for u32 {
    const DTYPE: &'static str = "<i8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&(self as i64).to_le_bytes());
    }
}

impl Column for u64 {
    const DTYPE: &'static str = "<i8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        // Counts and sequence numbers: far below 2^63.
        out.copy_from_slice(&(self as i64).to_le_bytes());
    }
}

impl Column for bool {
    const DTYPE: &'static str = "?";
    const WIDTH: usize = 1;
    fn write(self, out: &mut [u8]) {
        out[0] = self as u8;
    }
}

fn set_column<T: Column>(np: &Bound<'_, PyModule>, table: &Bound<'_, PyDict>, name: &str, values: &[T]) -> PyResult<()> {
    let py = table.py();
    let bytes = PyBytes::new_with(py, values.len() * T::WIDTH, |buf| {
        for (v, out) in values.iter().zip(buf.chunks_exact_mut(T::WIDTH)) {
            v.write(out);
        }
        Ok(())
    })?;
    table.set_item(name, np.call_method1("frombuffer", (bytes, T::DTYPE))?)
}

fn results_to_py<'py>(py: Python<'py>, r: &Results, wall: f64) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let run = PyDict::new(py);
    run.set_item("name", &r.name)?;
    run.set_item("seed", r.seed)?;
    run.set_item("duration_s", r.duration_s)?;
    run.set_item("interval_s", r.interval_s)?;
    run.set_item("discard", r.discard)?;
    run.set_item("events", r.events)?;
    run.set_item("wall_seconds", wall)?;
    run.set_item("peak_packets", r.peak_packets)?;
    run.set_item("jain_goodput", r.jain_goodput)?;
    run.set_item("conserved", r.conserved)?;
    out.set_item("run", run)?;

    let flows = PyList::empty(py);
    for f in &r.flows {
        let d = PyDict::new(py);
        d.set_item("name", &f.name)?;
        d.set_item("src", &f.src)?;
        d.set_item("dst", &f.dst)?;
        d.set_item("app", f.app)?;
        d.set_item("cc", f.cc)?;
        d.set_item("packet_size", f.packet_size)?;
        let t = &f.totals;
        let totals = PyDict::new(py);
        totals.set_item("sent", t.sent)?;
        totals.set_item("retransmitted", t.retransmitted)?;
        totals.set_item("delivered", t.delivered)?;
        totals.set_item("delivered_bytes", t.delivered_bytes)?;
        totals.set_item("received", t.received)?;
        totals.set_item("originals", t.originals)?;
        totals.set_item("data_dropped", t.data_dropped)?;
        totals.set_item("acks_sent", t.acks_sent)?;
        totals.set_item("acks_received", t.acks_received)?;
        totals.set_item("acks_dropped", t.acks_dropped)?;
        totals.set_item("data_in_network", f.data_in_network)?;
        totals.set_item("acks_in_network", f.acks_in_network)?;
        totals.set_item("timeouts", f.timeouts)?;
        totals.set_item("control_sent", f.control.sent)?;
        totals.set_item("control_received", f.control.received)?;
        totals.set_item("control_dropped", f.control.dropped)?;
        totals.set_item("control_unroutable", f.control.unroutable)?;
        totals.set_item("control_in_network", f.control_in_network)?;
        d.set_item("totals", totals)?;
        d.set_item("goodput_pps", bm(py, &f.goodput_pps)?)?;
        d.set_item("original_pps", bm(py, &f.original_pps)?)?;
        d.set_item("goodput_bps", bm(py, &f.goodput_bps)?)?;
        d.set_item("delay_s", bm(py, &f.delay_s)?)?;
        d.set_item("owd_s", bm(py, &f.owd_s)?)?;
        d.set_item("drop_rate", bm(py, &f.drop_rate)?)?;
        d.set_item("retx_rate", bm(py, &f.retx_rate)?)?;
        d.set_item("final_cwnd", f.final_cwnd)?;
        d.set_item("conserved", f.conserved)?;
        flows.append(d)?;
    }
    out.set_item("flows", flows)?;

    let ports = PyList::empty(py);
    for p in &r.ports {
        let d = PyDict::new(py);
        d.set_item("name", &p.name)?;
        d.set_item("bandwidth_bps", p.bandwidth_bps)?;
        d.set_item("delay_s", p.delay_s)?;
        d.set_item("departures", p.departures)?;
        d.set_item("bytes_departed", p.bytes_departed)?;
        d.set_item("drops", p.drops)?;
        d.set_item("utilisation", p.utilisation)?;
        d.set_item("max_queue_packets", p.max_queue_packets)?;
        d.set_item("max_queue_bytes", p.max_queue_bytes)?;
        d.set_item("marks", p.marks)?;
        d.set_item("control_drops", p.control_drops)?;
        d.set_item("lost", p.lost)?;
        ports.append(d)?;
    }
    out.set_item("ports", ports)?;

    let np = py.import("numpy")?;
    let it = &r.intervals;
    let iv = PyDict::new(py);
    set_column(&np, &iv, "flow", &it.flow)?;
    set_column(&np, &iv, "interval", &it.interval)?;
    set_column(&np, &iv, "start_s", &it.start_s)?;
    set_column(&np, &iv, "end_s", &it.end_s)?;
    set_column(&np, &iv, "goodput_pps", &it.goodput_pps)?;
    set_column(&np, &iv, "original_pps", &it.original_pps)?;
    set_column(&np, &iv, "goodput_bps", &it.goodput_bps)?;
    set_column(&np, &iv, "delay_s", &it.delay_s)?;
    set_column(&np, &iv, "delay_samples", &it.delay_samples)?;
    set_column(&np, &iv, "owd_s", &it.owd_s)?;
    set_column(&np, &iv, "drop_rate", &it.drop_rate)?;
    set_column(&np, &iv, "retx_rate", &it.retx_rate)?;
    set_column(&np, &iv, "sent", &it.sent)?;
    set_column(&np, &iv, "delivered", &it.delivered)?;
    set_column(&np, &iv, "drops", &it.drops)?;
    set_column(&np, &iv, "retransmitted", &it.retransmitted)?;
    out.set_item("intervals", iv)?;

    let c = &r.cwnd_trace;
    let cw = PyDict::new(py);
    set_column(&np, &cw, "flow", &c.flow)?;
    set_column(&np, &cw, "time_s", &c.time_s)?;
    set_column(&np, &cw, "cwnd", &c.cwnd)?;
    set_column(&np, &cw, "ssthresh", &c.ssthresh)?;
    set_column(&np, &cw, "outstanding", &c.outstanding)?;
    set_column(&np, &cw, "srtt_s", &c.srtt_s)?;
    for (name, values) in &c.extra {
        set_column(&np, &cw, name, values)?;
    }
    out.set_item("cwnd_trace", cw)?;

    // The algorithms' event logs, one table each (packet-pair's "probes").
    let events = PyDict::new(py);
    for e in &r.event_traces {
        let t = PyDict::new(py);
        set_column(&np, &t, "flow", &e.flow)?;
        set_column(&np, &t, "time_s", &e.time_s)?;
        set_column(&np, &t, e.index_name, &e.index)?;
        for (name, values) in e.columns.iter().zip(&e.values) {
            set_column(&np, &t, name, values)?;
        }
        events.set_item(e.table, t)?;
    }
    out.set_item("event_traces", events)?;

    let q = &r.queue_trace;
    let qt = PyDict::new(py);
    set_column(&np, &qt, "port", &q.port)?;
    set_column(&np, &qt, "time_s", &q.time_s)?;
    set_column(&np, &qt, "packets", &q.packets)?;
    set_column(&np, &qt, "bytes", &q.bytes)?;
    out.set_item("queue_trace", qt)?;

    let d = &r.drop_trace;
    let dt = PyDict::new(py);
    set_column(&np, &dt, "time_s", &d.time_s)?;
    set_column(&np, &dt, "port", &d.port)?;
    set_column(&np, &dt, "flow", &d.flow)?;
    set_column(&np, &dt, "seq", &d.seq)?;
    set_column(&np, &dt, "ack", &d.ack)?;
    set_column(&np, &dt, "retransmission", &d.retransmission)?;
    set_column(&np, &dt, "queue_packets", &d.queue_packets)?;
    set_column(&np, &dt, "conv_queued", &d.conv_queued)?;
    set_column(&np, &dt, "longest_other", &d.longest_other)?;
    out.set_item("drop_trace", dt)?;

    let pi = &r.port_intervals;
    let pt = PyDict::new(py);
    set_column(&np, &pt, "port", &pi.port)?;
    set_column(&np, &pt, "interval", &pi.interval)?;
    set_column(&np, &pt, "start_s", &pi.start_s)?;
    set_column(&np, &pt, "end_s", &pi.end_s)?;
    set_column(&np, &pt, "utilisation", &pi.utilisation)?;
    set_column(&np, &pt, "departures", &pi.departures)?;
    set_column(&np, &pt, "bytes", &pi.bytes)?;
    set_column(&np, &pt, "drops", &pi.drops)?;
    set_column(&np, &pt, "marks", &pi.marks)?;
    set_column(&np, &pt, "control_drops", &pi.control_drops)?;
    set_column(&np, &pt, "lost", &pi.lost)?;
    set_column(&np, &pt, "mean_queue_packets", &pi.mean_queue_packets)?;
    set_column(&np, &pt, "mean_queue_bytes", &pi.mean_queue_bytes)?;
    out.set_item("port_intervals", pt)?;

    // Departures of every traced port, one table (a port column says where).
    let dep = PyDict::new(py);
    let port_col: Vec<u32> = r.departures.iter().flat_map(|(p, d)| std::iter::repeat_n(*p, d.len())).collect();
    let cat = |f: &dyn Fn(&ccsim::measure::DepartureLog) -> Vec<f64>| -> Vec<f64> { r.departures.iter().flat_map(|(_, d)| f(d)).collect() };
    set_column(&np, &dep, "port", &port_col)?;
    set_column(&np, &dep, "time_s", &cat(&|d| d.time_s.clone()))?;
    let flows_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.flow.iter().copied()).collect();
    set_column(&np, &dep, "flow", &flows_col)?;
    let class_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.class.iter().map(|&c| c as u32)).collect();
    set_column(&np, &dep, "class", &class_col)?;
    let kind_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.kind.iter().map(|&k| k as u32)).collect();
    set_column(&np, &dep, "kind", &kind_col)?;
    let size_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.size.iter().copied()).collect();
    set_column(&np, &dep, "size", &size_col)?;
    set_column(&np, &dep, "wait_s", &cat(&|d| d.wait_s.clone()))?;
    out.set_item("departures", dep)?;
    Ok(out)
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
    d.set_item("sim_seconds_per_wall_second", r.sim_seconds / r.wall_seconds)?;
    d.set_item("rss_before_kb", r.rss_before_kb)?;
    d.set_item("peak_rss_kb", r.peak_rss_kb)?;
    d.set_item("state_bytes_per_flow", r.state_bytes_per_flow())?;
    d.set_item("output_bytes_per_flow", r.output_bytes as f64 / r.flows as f64)?;
    d.set_item("rss_growth_per_flow", r.rss_growth_per_flow())?;
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
    m.add_function(wrap_pyfunction!(bench_dumbbell, m)?)?;
    m.add_function(wrap_pyfunction!(fq_buffers_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(fq_buffers_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(load_toml, m)?)?;
    Ok(())
}
