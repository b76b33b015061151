//! Typed workload settings: each workload declares its settings once, as a struct with typed
//! fields ([`settings!`](crate::settings!)), and everything else is derived from that one declaration — the
//! parameter specs (`--set` parsing, suite TOML validation, `list workloads NAME`), the
//! defaults per scale, and the values the record keeps.
//!
//! The plan, the runner and the suites hold a workload's resolved values in their erased form
//! ([`crate::params::Params`], checked against the specs by `Params::resolve`); workload code
//! never sees that form. The registry's workload objects receive it as [`Resolved`], which
//! has no reader outside this crate: at the boundary (`workload::TypedWorkload`, see
//! `workload/typed.rs`) the values are decoded into the workload's own struct, so a workload
//! reads `s.fill == Fill::Random`, not a number under a string key.
//!
//! Invariants:
//! - A choice is an enum ([`choice!`](crate::choice!)); its names are the only thing outside the process that
//!   stands for it (`--set`, suite files and records all spell names), so removing or
//!   reordering a variant cannot change what an old record means. The position of a name in
//!   the list is an in-memory encoding only.
//! - Decoding cannot fail for values that came through `Params::resolve`; a value built some
//!   other way and out of range is refused with `workload.name=value` (never clamped).

mod declare;
mod value;

pub use value::{Bytes, Choice, Setting};

pub use crate::params::Resolved;
use crate::params::{ParamSpec, Params};

/// A workload's settings struct, as [`settings!`](crate::settings!) declares it: its specs and its decoding.
pub trait Settings: Sized {
    /// Every parameter, in listing order (flattened groups at their place).
    fn specs() -> &'static [ParamSpec];
    /// The typed values of resolved parameters; `Err` is `name=value: why` for a value that
    /// did not come through `Params::resolve` and lies outside its spec.
    fn decode(r: &Raw<'_>) -> Result<Self, String>;
    /// Every parameter's raw value, the inverse of [`Self::decode`].
    fn to_pairs(&self) -> Vec<(&'static str, u64)>;
}

/// A group of settings several workloads share (the IO group, the MPI layout), flattened into
/// a workload's struct with `field: Group => defaults` in [`settings!`](crate::settings!). `Defaults` says which
/// members the workload declares and their defaults there, so one struct serves them all.
pub trait Group: Sized {
    /// What a workload states about the group: its defaults and the members it declares.
    type Defaults;
    /// The group's specs with the workload's defaults, in listing order.
    fn specs(d: &Self::Defaults) -> Vec<ParamSpec>;
    /// The typed values of the members `d` declares; the others hold their "does not apply"
    /// value.
    fn decode(d: &Self::Defaults, r: &Raw<'_>) -> Result<Self, String>;
    /// The raw values of the members `d` declares, under their keys, onto `out`.
    fn encode(&self, d: &Self::Defaults, out: &mut Vec<(&'static str, u64)>);
}

/// No settings at all (a job file whose options live in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoSettings;

impl Settings for NoSettings {
    fn specs() -> &'static [ParamSpec] {
        &[]
    }
    fn decode(_: &Raw<'_>) -> Result<Self, String> {
        Ok(NoSettings)
    }
    fn to_pairs(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Resolved values as decoding reads them: by name, into a typed field. The erased map stays
/// behind this type, so settings code never holds it.
#[derive(Clone, Copy)]
pub struct Raw<'a>(&'a Resolved);

// Made only in this module ([`decode`]), so no code outside the decoding holds one to read
// values by name.
impl<'a> Raw<'a> {
    /// The typed value of the parameter `name` (used by [`settings!`](crate::settings!)).
    pub fn field<T: Setting>(&self, name: &str) -> Result<T, String> {
        let raw = self
            .0
            .value(name)
            .ok_or_else(|| format!("{name}: no value (the parameter is not declared)"))?;
        T::from_raw(raw).ok_or_else(|| format!("{name}={raw}: {}", T::expected()))
    }

    /// The typed value of the first of `names` present, or `none` (a group member the
    /// workload does not declare, or declares under an older name).
    pub fn member<T: Setting>(&self, names: &[&str], none: T) -> Result<T, String> {
        match names.iter().find(|n| self.0.value(n).is_some()) {
            Some(n) => self.field(n),
            None => Ok(none),
        }
    }
}

/// The settings of `workload` from resolved `p`, or the error naming `workload.name=value`.
pub fn decode<S: Settings>(workload: &str, p: &Resolved) -> Result<S, crate::error::WorkloadError> {
    S::decode(&Raw(p)).map_err(|e| crate::error::WorkloadError::Failed(format!("{workload}.{e}")))
}

/// Every value of `s` in its spec's range: the check `Params::resolve` makes of text, for
/// settings built some other way (a workload's own tests); the error names `workload.name`.
pub fn within<S: Settings>(workload: &str, s: &S) -> Result<(), crate::error::WorkloadError> {
    Params::from_pairs(&s.to_pairs())
        .within(workload, S::specs())
        .map_err(|e| crate::error::WorkloadError::Failed(e.to_string()))
}

/// Resolve text overrides into values a workload object takes (`Params::resolve`; a
/// [`Params`] is a [`Resolved`]).
pub fn resolve(
    workload: &str,
    specs: &[ParamSpec],
    scale: crate::params::Scale,
    ram: u64,
    overrides: &std::collections::BTreeMap<String, String>,
) -> Result<Params, crate::error::UsageError> {
    Params::resolve(workload, specs, scale, ram, overrides)
}

/// The defaults of `specs` at quick scale in their erased form.
pub fn defaults_for(specs: &[ParamSpec]) -> Params {
    Params::default_for(specs)
}

/// Settings that exist for some entries of a workload only (plain `dbench` has them, a
/// `dbench:ARGS` command line has none): `None` when no parameter is given at all.
impl<S: Settings> Settings for Option<S> {
    fn specs() -> &'static [ParamSpec] {
        S::specs()
    }
    fn decode(r: &Raw<'_>) -> Result<Self, String> {
        match S::specs().iter().any(|s| r.0.value(s.name).is_some()) {
            true => S::decode(r).map(Some),
            false => Ok(None),
        }
    }
    fn to_pairs(&self) -> Vec<(&'static str, u64)> {
        self.as_ref().map_or_else(Vec::new, S::to_pairs)
    }
}

/// The quick defaults of `S` with `pairs` laid over them unchecked (a workload's own tests,
/// which also try values no spec admits); `Err` as [`decode`] says.
pub fn try_pairs<S: Settings>(
    workload: &str,
    pairs: &[(&str, u64)],
) -> Result<S, crate::error::WorkloadError> {
    let p = Params::resolve(
        "-",
        S::specs(),
        crate::params::Scale::Quick,
        0,
        &Default::default(),
    )
    .expect("no overrides");
    let mut all: Vec<(&str, u64)> = S::specs().iter().map(|s| (s.name, p.get(s.name))).collect();
    all.extend_from_slice(pairs);
    decode(workload, &Params::from_pairs(&all))
}

/// [`try_pairs`] for values known to decode.
pub fn with_pairs<S: Settings>(pairs: &[(&str, u64)]) -> S {
    try_pairs("-", pairs).unwrap_or_else(|e| panic!("{e}"))
}

/// The settings `S` with their defaults at quick scale: the values a workload's own tests
/// start from.
pub fn defaults<S: Settings>() -> S {
    at_scale(crate::params::Scale::Quick)
}

/// The settings `S` with their defaults at `scale` (full scale as on a host without RAM).
pub fn at_scale<S: Settings>(scale: crate::params::Scale) -> S {
    let p = Params::resolve("-", S::specs(), scale, 0, &Default::default()).expect("no overrides");
    decode("-", &p).expect("defaults lie in their ranges")
}

#[cfg(test)]
mod tests;
