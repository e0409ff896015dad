//! Mechanism parameters: the tables a scenario writes as `params = {...}` on a flow and
//! `queue_params = {...}` on a link, read by each mechanism's own `decode` through [`Params`].
//!
//! A decoder asks for every parameter it knows with its default, its range and one line of
//! meaning, and gets the value the scenario wrote or the default:
//!
//! ```ignore
//! c.alpha = p.number("alpha", c.alpha, 0.0, 1e6, "packets queued below which cwnd grows")?;
//! ```
//!
//! The same decoder, run by [`Params::describe`] over an empty table, records each call
//! instead: that is the parameter listing the Python package, `ccsim validate`'s messages and
//! the docs' tables are made from, so a parameter is declared once, where it is read.
//! Errors name the field path and what was expected; unknown keys are errors
//! ([`Params::finish`]).

use super::decode::{describe, Obj, Result, ScenarioError};
use super::units;
use crate::sim::{time::to_secs, SimTime};
use toml::Value;

/// One parameter as a listing shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDoc {
    pub name: &'static str,
    /// What values it takes ("a number in [0, 1]", "one of: a, b").
    pub expects: String,
    /// The default, as a scenario file would write it.
    pub default: String,
    /// One line of meaning.
    pub doc: &'static str,
}

/// A parameter table being decoded (or, from [`Params::describe`], listed).
pub struct Params<'a> {
    obj: Obj<'a>,
    listing: Option<Vec<ParamDoc>>,
}

/// A duration as a scenario file writes it ("2s", "200ms", "0s").
pub fn duration_text(t: SimTime) -> String {
    if t >= u64::MAX / 8 {
        return "unlimited".into();
    }
    let s = to_secs(t);
    if s != 0.0 && s < 1.0 {
        format!("{}ms", s * 1e3)
    } else {
        format!("{s}s")
    }
}

impl<'a> Params<'a> {
    pub fn new(obj: Obj<'a>) -> Self {
        Params { obj, listing: None }
    }

    /// Run `decode` over an empty table and return what it asked for, with the defaults it
    /// gave. Decoders must ask for every parameter they know whatever the values (read with a
    /// default, then act), so the listing is complete.
    pub fn describe<T>(decode: impl FnOnce(&mut Params) -> Result<T>) -> Vec<ParamDoc> {
        let mut p = Params { obj: Obj::empty(""), listing: Some(Vec::new()) };
        decode(&mut p).expect("defaults decode");
        p.listing.take().unwrap_or_default()
    }

    /// Record a parameter when listing (the texts are made only then: decoding a scenario of
    /// many flows asks for every parameter of every flow).
    fn note(&mut self, name: &'static str, texts: impl FnOnce() -> (String, String), doc: &'static str) {
        if let Some(l) = self.listing.as_mut() {
            if !l.iter().any(|d| d.name == name) {
                let (expects, default) = texts();
                l.push(ParamDoc { name, expects, default, doc });
            }
        }
    }

    /// The field path of `key` (for errors).
    pub fn at(&self, key: &str) -> String {
        self.obj.at(key)
    }

    /// The scenario wrote `key`.
    pub fn given(&self, key: &str) -> bool {
        self.obj.has(key)
    }

    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.at(key), message)
    }

    /// A number in [lo, hi].
    pub fn number(&mut self, key: &'static str, default: f64, lo: f64, hi: f64, doc: &'static str) -> Result<f64> {
        self.note(key, || (format!("a number in [{lo}, {hi}]"), format!("{default}")), doc);
        Ok(self.obj.number_in(key, lo, hi)?.unwrap_or(default))
    }

    /// A number in (lo, hi]: above `lo`, which it may not equal.
    pub fn number_above(&mut self, key: &'static str, default: f64, lo: f64, hi: f64, doc: &'static str) -> Result<f64> {
        self.note(key, || (format!("a number in ({lo}, {hi}]"), format!("{default}")), doc);
        match self.obj.float(key)? {
            None => Ok(default),
            Some(x) if x > lo && x <= hi => Ok(x),
            Some(x) => Err(self.error(key, format!("expected a number in ({lo}, {hi}], got {x}"))),
        }
    }

    /// A number in [lo, hi] that is unset by default (`unset` says what that means).
    pub fn optional_number(&mut self, key: &'static str, lo: f64, hi: f64, unset: &str, doc: &'static str) -> Result<Option<f64>> {
        self.note(key, || (format!("a number in [{lo}, {hi}]"), unset.to_string()), doc);
        self.obj.number_in(key, lo, hi)
    }

    /// An integer in [lo, hi].
    pub fn integer(&mut self, key: &'static str, default: u64, lo: u64, hi: u64, doc: &'static str) -> Result<u64> {
        self.note(key, || (format!("an integer in [{lo}, {hi}]"), format!("{default}")), doc);
        Ok(self.obj.uint_in(key, lo, hi)?.unwrap_or(default))
    }

    pub fn flag(&mut self, key: &'static str, default: bool, doc: &'static str) -> Result<bool> {
        self.note(key, || ("true or false".into(), format!("{default}")), doc);
        Ok(self.obj.boolean(key)?.unwrap_or(default))
    }

    /// A duration ("2s", "200ms"; a bare number is seconds).
    pub fn duration(&mut self, key: &'static str, default: SimTime, doc: &'static str) -> Result<SimTime> {
        self.note(key, || ("a duration".into(), duration_text(default)), doc);
        Ok(self.obj.quantity(key, units::duration)?.unwrap_or(default))
    }

    /// One of the named `options`.
    pub fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &'static str,
        default: T,
        options: &[(&'static str, T)],
        doc: &'static str,
    ) -> Result<T> {
        let names = || options.iter().map(|o| o.0).collect::<Vec<_>>().join(", ");
        let default_name = options.iter().find(|o| o.1 == default).map_or("", |o| o.0);
        self.note(key, || (format!("one of: {}", names()), format!("{default_name:?}")), doc);
        match self.obj.str(key)? {
            None => Ok(default),
            Some(s) => match options.iter().find(|o| o.0 == s) {
                Some(o) => Ok(o.1),
                None => Err(self.error(key, format!("unknown value {s:?}; expected one of: {}", names()))),
            },
        }
    }

    /// A value of a form of its own (a size or "infinite", a name or a duration...):
    /// `parse` turns what was written into the value, or says what it expected.
    pub fn custom<T>(
        &mut self,
        key: &'static str,
        default: T,
        default_text: &str,
        expects: &str,
        doc: &'static str,
        parse: impl FnOnce(&Value) -> std::result::Result<T, String>,
    ) -> Result<T> {
        self.note(key, || (expects.to_string(), default_text.to_string()), doc);
        let path = self.at(key);
        match self.obj.get(key) {
            None => Ok(default),
            Some(v) => parse(v).map_err(|e| ScenarioError::new(path, format!("expected {e}, got {}", describe(v)))),
        }
    }

    /// Fail on any key no decoder asked for.
    pub fn finish(self) -> Result<()> {
        self.obj.finish()
    }
}

/// A string value, for [`Params::custom`] parsers.
pub fn text(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Shape {
        Round,
        Square,
    }

    fn decode(p: &mut Params) -> Result<(f64, Shape, bool)> {
        let x = p.number("x", 1.5, 0.0, 10.0, "a number")?;
        let s = p.choice("shape", Shape::Square, &[("round", Shape::Round), ("square", Shape::Square)], "a shape")?;
        let f = p.flag("f", false, "a flag")?;
        Ok((x, s, f))
    }

    #[test]
    fn describe_lists_every_parameter_with_its_default() {
        let docs = Params::describe(decode);
        let names: Vec<_> = docs.iter().map(|d| (d.name, d.default.as_str())).collect();
        assert_eq!(names, [("x", "1.5"), ("shape", "\"square\""), ("f", "false")]);
        assert_eq!(docs[1].expects, "one of: round, square");
    }

    #[test]
    fn values_defaults_and_errors() {
        let v: Value = toml::from_str::<toml::Table>("x = 3\nshape = \"round\"").map(Value::Table).unwrap();
        let mut p = Params::new(Obj::new(&v, "params").unwrap());
        assert_eq!(decode(&mut p).unwrap(), (3.0, Shape::Round, false));
        p.finish().unwrap();
        let v: Value = toml::from_str::<toml::Table>("shape = \"oval\"").map(Value::Table).unwrap();
        let e = decode(&mut Params::new(Obj::new(&v, "params").unwrap())).unwrap_err();
        assert_eq!(e.path, "params.shape");
        assert!(e.message.contains("expected one of: round, square"), "{}", e.message);
        let v: Value = toml::from_str::<toml::Table>("x = 11\n").map(Value::Table).unwrap();
        let e = decode(&mut Params::new(Obj::new(&v, "params").unwrap())).unwrap_err();
        assert!(e.message.contains("[0, 10]"), "{}", e.message);
        let v: Value = toml::from_str::<toml::Table>("y = 1\n").map(Value::Table).unwrap();
        let mut p = Params::new(Obj::new(&v, "params").unwrap());
        decode(&mut p).unwrap();
        assert_eq!(p.finish().unwrap_err().path, "params.y");
    }

    #[test]
    fn durations_read_and_list_in_scenario_units() {
        assert_eq!(duration_text(crate::sim::PS_PER_SEC / 5), "200ms");
        assert_eq!(duration_text(2 * crate::sim::PS_PER_SEC), "2s");
        assert_eq!(duration_text(0), "0s");
    }
}
