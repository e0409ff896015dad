//! Reading a TOML value tree with errors that name the field path.
//!
//! Every error says where (`links[2].bandwidth`) and what was expected, and lists the allowed
//! names where there is a list. Unknown keys are errors too: `Obj::finish` lists the keys
//! that table accepts (exactly those the decoder asked for), so a typo never passes silently.

use std::fmt;
use toml::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Field path, e.g. `links[2].bandwidth`; empty for whole-file errors.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

pub type Result<T> = std::result::Result<T, ScenarioError>;

pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(x) => format!("the number {x}"),
        Value::Boolean(b) => format!("{b}"),
        Value::Datetime(d) => format!("the date {d}"),
        Value::Array(_) => "a list".into(),
        Value::Table(_) => "a table".into(),
    }
}

pub fn join_path(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// A table being decoded.
pub struct Obj<'a> {
    pub path: String,
    table: &'a toml::Table,
    asked: Vec<&'static str>,
}

impl<'a> Obj<'a> {
    pub fn new(v: &'a Value, path: &str) -> Result<Self> {
        match v {
            Value::Table(t) => Ok(Obj { path: path.to_string(), table: t, asked: Vec::new() }),
            other => Err(ScenarioError::new(path, format!("expected a table, got {}", describe(other)))),
        }
    }

    /// A table with nothing in it (a parameter table the scenario left out).
    pub fn empty(path: impl Into<String>) -> Obj<'static> {
        static EMPTY: std::sync::OnceLock<toml::Table> = std::sync::OnceLock::new();
        Obj { path: path.into(), table: EMPTY.get_or_init(toml::Table::new), asked: Vec::new() }
    }

    pub fn at(&self, key: &str) -> String {
        join_path(&self.path, key)
    }

    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    pub fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        if !self.asked.contains(&key) {
            self.asked.push(key);
        }
        self.table.get(key)
    }

    fn wrong(&self, key: &str, expected: &str, v: &Value) -> ScenarioError {
        ScenarioError::new(self.at(key), format!("expected {expected}, got {}", describe(v)))
    }

    pub fn str(&mut self, key: &'static str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.wrong(key, "a string", v)),
        }
    }

    pub fn req_str(&mut self, key: &'static str) -> Result<&'a str> {
        self.str(key)?.ok_or_else(|| self.missing(key, "a string"))
    }

    /// The error for a missing required key; if the table holds a near-miss spelling that
    /// the decoder does not know, name that instead (what the user actually wrote).
    pub fn missing(&self, key: &str, what: &str) -> ScenarioError {
        self.missing_one_of(&[key], key, format!("is required ({what})"))
    }

    /// The error when none of `keys` is given (`message` at `at`), unless the table holds a
    /// near-miss spelling of one of them: then that key is named ("bitrat" for "bitrate").
    pub fn missing_one_of(&self, keys: &[&str], at: &str, message: impl Into<String>) -> ScenarioError {
        for k in self.table.keys() {
            if self.asked.iter().any(|a| a == k) {
                continue;
            }
            if let Some(key) = keys.iter().find(|key| near_miss(k, key)) {
                return ScenarioError::new(self.at(k), format!("unknown key {k:?}; did you mean {key:?}?"));
            }
        }
        ScenarioError::new(self.at(at), message)
    }

    /// A non-negative integer.
    pub fn uint(&mut self, key: &'static str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if *i >= 0 => Ok(Some(*i as u64)),
            Some(v) => Err(self.wrong(key, "a non-negative integer", v)),
        }
    }

    /// An integer in `[lo, hi]`; anything else (a negative, a float, a boolean, out of range)
    /// gets the same message naming the range.
    pub fn uint_in(&mut self, key: &'static str, lo: u64, hi: u64) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if *i >= 0 && (lo..=hi).contains(&(*i as u64)) => Ok(Some(*i as u64)),
            Some(v) => Err(self.wrong(key, &format!("an integer in [{lo}, {hi}]"), v)),
        }
    }

    pub fn float(&mut self, key: &'static str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
            Some(v) => Err(self.wrong(key, "a number", v)),
        }
    }

    /// A number in [lo, hi].
    pub fn number_in(&mut self, key: &'static str, lo: f64, hi: f64) -> Result<Option<f64>> {
        match self.float(key)? {
            Some(x) if !(x >= lo && x <= hi) => {
                Err(ScenarioError::new(self.at(key), format!("expected a number in [{lo}, {hi}], got {x}")))
            }
            other => Ok(other),
        }
    }

    pub fn boolean(&mut self, key: &'static str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, "true or false", v)),
        }
    }

    /// A quantity with a unit, written as a string ("80kbps") or a bare number in the base
    /// unit (from the Python builder).
    pub fn quantity<T>(&mut self, key: &'static str, parse: fn(&str) -> std::result::Result<T, String>) -> Result<Option<T>> {
        let number;
        let text: &str = match self.get(key) {
            None => return Ok(None),
            Some(Value::String(s)) => s,
            Some(Value::Integer(i)) => {
                number = i.to_string();
                &number
            }
            Some(Value::Float(x)) => {
                number = x.to_string();
                &number
            }
            Some(v) => {
                let expected = parse("?").err().unwrap_or_else(|| "a quantity".into());
                return Err(self.wrong(key, &expected, v));
            }
        };
        parse(text).map(Some).map_err(|expected| ScenarioError::new(self.at(key), format!("expected {expected}, got {text:?}")))
    }

    /// A string that must be one of `allowed`.
    pub fn choice(&mut self, key: &'static str, what: &str, allowed: &[&'static str]) -> Result<Option<&'static str>> {
        match self.str(key)? {
            None => Ok(None),
            Some(s) => match allowed.iter().find(|a| **a == s) {
                Some(a) => Ok(Some(*a)),
                None => Err(ScenarioError::new(self.at(key), format!("unknown {what} {s:?}; expected one of: {}", allowed.join(", ")))),
            },
        }
    }

    pub fn array(&mut self, key: &'static str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(self.wrong(key, "a list", v)),
        }
    }

    pub fn table(&mut self, key: &'static str) -> Result<Option<Obj<'a>>> {
        let path = self.at(key);
        match self.get(key) {
            None => Ok(None),
            Some(v) => Obj::new(v, &path).map(Some),
        }
    }

    /// Fail on any key the decoder did not ask for.
    pub fn finish(self) -> Result<()> {
        for k in self.table.keys() {
            if !self.asked.iter().any(|a| a == k) {
                let mut allowed = self.asked.clone();
                allowed.sort_unstable();
                let expected = if allowed.is_empty() {
                    "this table takes no keys here".to_string()
                } else {
                    format!("allowed keys here: {}", allowed.join(", "))
                };
                return Err(ScenarioError::new(self.at(k), format!("unknown key {k:?}; {expected}")));
            }
        }
        Ok(())
    }
}

/// A likely misspelling: one edit apart, or two for keys of six letters or more.
fn near_miss(written: &str, key: &str) -> bool {
    let d = edit_distance(written, key);
    d <= 1 || (d == 2 && key.len() >= 6 && written.len() >= 6)
}

/// Levenshtein distance, for "did you mean" hints (short keys only; not hot).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The strings of a list field, each checked.
pub fn string_list<'a>(items: &'a [Value], path: &str) -> Result<Vec<&'a str>> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.as_str()),
            other => Err(ScenarioError::new(format!("{path}[{i}]"), format!("expected a string, got {}", describe(other)))),
        })
        .collect()
}
