//! Python data <-> the engine's scenario value tree, with one TOML parser (the engine's).

use crate::{scenario_error, ScenarioError};
use ccsim::scenario::decode::ScenarioError as EngineError;
use ccsim::Scenario;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Deepest nesting of lists and tables a scenario may have (the scenario format needs four):
/// deeper data is refused before the recursion below could exhaust the stack.
const MAX_DEPTH: usize = 64;

pub fn to_value(obj: &Bound<'_, PyAny>, path: &str) -> Result<Option<toml::Value>, EngineError> {
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
    // numpy's bool is not a Python bool, but must stay a boolean rather than become 1.0.
    let ty = obj.get_type();
    let named = |n: &str| ty.name().map(|x| x == n).unwrap_or(false);
    if (named("bool_") || named("bool")) && ty.module().map(|m| m == "numpy").unwrap_or(false) {
        return Ok(Some(toml::Value::Boolean(obj.is_truthy().unwrap_or(false))));
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
pub fn scenario_value(scenario: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<toml::Value> {
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

pub fn parse(scenario: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Scenario> {
    Scenario::from_value(&scenario_value(scenario, overrides)?).map_err(scenario_error)
}

/// A TOML value as Python data (dates as their text).
pub fn from_value<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
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
