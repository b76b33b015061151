//! The parsed `run` arguments as the clap-free [`Request`] the core's `plan::build` takes:
//! a copy of values, no checks (clap's value parsers did those that parsing can do).

use super::conditions::RepeatArg;
use super::RunArgs;
use fsbattery_core::plan::{Repeat, Request};

impl From<RepeatArg> for Repeat {
    fn from(r: RepeatArg) -> Self {
        match r {
            RepeatArg::Fixed(n) => Repeat::Fixed(n),
            RepeatArg::Auto { min, max } => Repeat::Auto { min, max },
        }
    }
}

impl RunArgs {
    /// What these arguments ask the plan for.
    pub fn request(&self) -> Request {
        Request {
            targets: self.targets.clone(),
            suite: self.suite.clone(),
            workloads: self.workloads.clone(),
            repeat: self.repeat.map(Into::into),
            precision: self.precision,
            margin: self.margin,
            budget: self.budget,
            age: self.age,
            scale: self.scale.into(),
            aggregate: self.aggregate.map(Into::into),
            rank_reference: self.rank_reference,
            weights: self.weights.clone(),
            pause: self.pause,
            cache: self.cache.map(Into::into),
            memory: self.memory.clone(),
            jobs: self.jobs,
            set: self.set.clone(),
            workdir: self.workdir.clone(),
            method: self.method.map(Into::into),
            fresh: self.fresh.into(),
            tree_tarball: self.tree_tarball.clone(),
            fuse_timeout: self.fuse_timeout,
            destroy_data: self.destroy_data,
            label: self.label.clone(),
            dry_run: self.dry_run,
        }
    }
}
