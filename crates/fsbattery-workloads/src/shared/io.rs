//! The IO settings several workloads share — engine, queue depth, reap batch, O_DIRECT and its
//! fallback, the content of written blocks — as one struct, [`IoGroup`], flattened into the
//! settings of every workload that moves bytes through the engine (`io: IoGroup => defaults`
//! in `settings!`). What differs between workloads is data in their [`IoDefaults`]: which
//! members they declare, their defaults, their help. The decision whether O_DIRECT is in effect
//! is made once, in [`decide_direct`].
//!
//! Names: `depth` and `batch` are the group's names. iozone (`uring.depth`) and randomio
//! (`uring.batch`) declared theirs before the group was shared and keep those keys, so suites
//! and records written with them read the same; [`crate::params::ALIASES`] lets a user write
//! either name for either workload. ffsb spells `direct` as `off`/`on` (its records always
//! did); the value is the same switch.
//!
//! `depth` means operations in flight for the block workloads (dd, randomio, bonnie, bigfile,
//! iozone) and chunks of one transfer in flight for the file-set workloads (ffsb, postmark,
//! the personalities): the engine's queue either way, which is why it is one member with two
//! helps (and two defaults: 8, and 1 where one transfer rarely has more chunks).

use super::specs::{choice, count, flag, percent};
use crate::engine::{check_direct, DirectIo, EngineEntry, EngineSpec, Fill, UringOptions};
use crate::error::WorkloadError;
use crate::params::{ParamSpec, MAX_DEPTH};
use crate::settings::{Choice, Group, Raw, Setting};
use std::path::Path;

crate::choice! {
    /// The content of written blocks (`fill`).
    pub enum FillKind {
        /// All zeros.
        Zeros = "zeros",
        /// Incompressible, each block stamped with its offset.
        Random = "random",
        /// `compress_pct` percent random, the rest zeros.
        Compressible = "compressible",
    }
}

crate::choice! {
    /// A switch spelled as words (ffsb's `direct`).
    pub enum OnOff { Off = "off", On = "on" }
}

/// An engine of the registry, selected by its name ([`crate::engine::NAMES`]).
#[derive(Clone, Copy)]
pub struct EngineName(&'static EngineEntry);

impl EngineName {
    /// The engine called `name` (its registry name or an alias); `None` if none is.
    pub fn named(name: &str) -> Option<EngineName> {
        crate::engine::lookup(name).map(EngineName)
    }
    /// The engine's registry entry.
    pub fn entry(self) -> &'static EngineEntry {
        self.0
    }
    /// The engine's registry name.
    pub fn name(self) -> &'static str {
        self.0.name
    }
}

impl PartialEq for EngineName {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl std::fmt::Debug for EngineName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl Setting for EngineName {
    fn from_raw(raw: u64) -> Option<Self> {
        let name = usize::try_from(raw).ok().and_then(|i| ENGINES.get(i))?;
        EngineName::named(name)
    }
    fn to_raw(&self) -> u64 {
        ENGINES.iter().position(|n| *n == self.name()).unwrap_or(0) as u64
    }
    fn expected() -> String {
        format!("use one of {}", ENGINES.join(", "))
    }
}

/// Names of the `engine` parameter's choices: the engine registry's.
pub(crate) const ENGINES: &[&str] = &crate::engine::NAMES;

/// How a workload declares `direct`.
#[derive(Debug, Clone, Copy)]
pub struct DirectDecl {
    /// Its help.
    pub help: &'static str,
    /// Default at quick scale.
    pub quick: bool,
    /// Default at standard scale.
    pub standard: bool,
    /// Spelled `off`/`on` ([`OnOff`], ffsb) rather than `true`/`false`.
    pub words: bool,
}

/// What one workload declares of the IO group: each member it has (`Some`), with its
/// defaults and help. A member left `None` is not a parameter of that workload and holds its
/// "does not apply" value (the sync engine, depth 1, buffered, zeros).
#[derive(Debug, Clone, Copy)]
pub struct IoDefaults {
    /// `direct`.
    pub direct: Option<DirectDecl>,
    /// `buffered_fallback`, with its help.
    pub buffered_fallback: Option<&'static str>,
    /// `engine`, with its help (sync at every scale).
    pub engine: Option<&'static str>,
    /// The queue depth: its key (`depth`, iozone's `uring.depth`), help and default.
    pub depth: Option<(&'static str, &'static str, u64)>,
    /// The io_uring reap batch (0 = auto): its key (randomio's `uring.batch`) and help.
    pub batch: Option<(&'static str, &'static str)>,
    /// `fill` (and `compress_pct` with it), with its default.
    pub fill: Option<FillKind>,
}

/// The help of `direct` in most workloads.
pub(crate) const DIRECT_HELP: &str =
    "true: open the data file with O_DIRECT (bypass the page cache); false: buffered";
/// The help of `buffered_fallback` in most workloads.
pub(crate) const FALLBACK_HELP: &str =
    "true: where O_DIRECT is refused, run buffered and record direct_used=0; false: fail the \
     cell";

impl IoDefaults {
    /// No member declared: every member "does not apply".
    #[cfg(test)]
    pub const NONE: IoDefaults = IoDefaults {
        direct: None,
        buffered_fallback: None,
        engine: None,
        depth: None,
        batch: None,
        fill: None,
    };

    /// The block workloads' group (dd, bigfile, bonnie, randomio): buffered, zeros, depth 8.
    pub const BLOCK: IoDefaults = IoDefaults {
        direct: Some(DirectDecl {
            help: DIRECT_HELP,
            quick: false,
            standard: false,
            words: false,
        }),
        buffered_fallback: Some(FALLBACK_HELP),
        engine: Some(
            "IO engine: sync (pread/pwrite, one operation at a time), io_uring, or null (no \
             I/O: fsbattery's own cost)",
        ),
        depth: Some((
            "depth",
            "io_uring operations in flight per thread (the sync engine always has 1)",
            8,
        )),
        batch: None,
        fill: Some(FillKind::Zeros),
    };

    /// The file-set workloads' group (postmark, the personalities): engine and depth 1.
    pub const FILE_SET: IoDefaults = IoDefaults {
        direct: None,
        buffered_fallback: None,
        engine: Some(
            "IO engine: sync (pread/pwrite), io_uring, or null (no I/O: fsbattery's own cost)",
        ),
        depth: Some((
            "depth",
            "io_uring: chunks of one transfer in flight (the sync engine always has one)",
            1,
        )),
        batch: None,
        fill: None,
    };

    /// The same with O_DIRECT on by default.
    pub const fn direct_on(self) -> IoDefaults {
        let Some(d) = self.direct else { return self };
        IoDefaults {
            direct: Some(DirectDecl {
                quick: true,
                standard: true,
                ..d
            }),
            ..self
        }
    }

    /// The same writing `fill` by default.
    pub const fn filled(self, fill: FillKind) -> IoDefaults {
        IoDefaults {
            fill: Some(fill),
            ..self
        }
    }
}

impl DirectDecl {
    fn spec(&self) -> ParamSpec {
        let (q, s) = (self.quick as u64, self.standard as u64);
        match self.words {
            true => choice("direct", self.help, OnOff::NAMES, q, s),
            false => ParamSpec {
                quick: q,
                standard: s,
                ..flag("direct", self.help, 0)
            },
        }
    }
}

/// The shared IO group of one workload's settings. A member the workload does not declare
/// holds the value that means "does not apply": the sync engine, depth 1, buffered, zeros.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IoGroup {
    /// The engine, by name.
    pub engine: EngineName,
    /// Queue depth (`depth`, or `uring.depth`).
    pub depth: u64,
    /// io_uring reap batch (`batch`, or `uring.batch`); 0 = auto.
    pub batch: u64,
    /// O_DIRECT asked for.
    pub direct: bool,
    /// Run buffered where O_DIRECT is refused.
    pub buffered_fallback: bool,
    /// Content of written blocks.
    pub fill: FillKind,
    /// Random share of compressible blocks, percent.
    pub compress_pct: u64,
    /// How `direct` is turned off as the workload spells it (`0`, or ffsb's `off`), and
    /// whether it declares `buffered_fallback`: for the O_DIRECT refusal's fix.
    spelling: (&'static str, bool),
}

impl Group for IoGroup {
    type Defaults = IoDefaults;

    fn specs(d: &IoDefaults) -> Vec<ParamSpec> {
        let mut v = Vec::new();
        v.extend(d.direct.map(|d| d.spec()));
        v.extend(d.buffered_fallback.map(|h| flag("buffered_fallback", h, 0)));
        v.extend(d.engine.map(|h| choice("engine", h, ENGINES, 0, 0)));
        v.extend(
            d.depth
                .map(|(name, help, n)| count(name, help, n, n).range(1, MAX_DEPTH)),
        );
        v.extend(
            d.batch
                .map(|(name, help)| count(name, help, 0, 0).range(0, MAX_DEPTH)),
        );
        if let Some(f) = d.fill {
            let i = FillKind::NAMES
                .iter()
                .position(|n| *n == f.name())
                .unwrap_or(0) as u64;
            v.push(choice(
                "fill",
                "content of written blocks: zeros, random (incompressible, each block \
                 stamped with its offset) or compressible (see compress_pct)",
                FillKind::NAMES,
                i,
                i,
            ));
            v.push(percent(
                "compress_pct",
                "fill=compressible: percent of every 4 KiB that is random, the rest zeros \
                 (about the compressed size in percent)",
                50,
            ));
        }
        v
    }

    fn decode(d: &IoDefaults, r: &Raw<'_>) -> Result<IoGroup, String> {
        let sync = EngineName::named("sync").expect("sync is registered");
        Ok(IoGroup {
            engine: r.member(&["engine"], sync)?,
            depth: r.member(&["depth", "uring.depth"], 1)?,
            batch: r.member(&["batch", "uring.batch"], 0)?,
            direct: r.member(&["direct"], false)?,
            buffered_fallback: r.member(&["buffered_fallback"], false)?,
            fill: r.member(&["fill"], FillKind::Zeros)?,
            compress_pct: r.member(&["compress_pct"], 0)?,
            spelling: (
                if d.direct.is_some_and(|d| d.words) {
                    "off"
                } else {
                    "0"
                },
                d.buffered_fallback.is_some(),
            ),
        })
    }

    fn encode(&self, d: &IoDefaults, out: &mut Vec<(&'static str, u64)>) {
        self.members(d, out)
    }
}

impl IoGroup {
    fn members(&self, d: &IoDefaults, out: &mut Vec<(&'static str, u64)>) {
        let mut put = |on: bool, k: &'static str, v: u64| {
            if on {
                out.push((k, v))
            }
        };
        put(d.direct.is_some(), "direct", self.direct.to_raw());
        put(
            d.buffered_fallback.is_some(),
            "buffered_fallback",
            self.buffered_fallback.to_raw(),
        );
        put(d.engine.is_some(), "engine", self.engine.to_raw());
        if let Some((k, _, _)) = d.depth {
            put(true, k, self.depth);
        }
        if let Some((k, _)) = d.batch {
            put(true, k, self.batch);
        }
        put(d.fill.is_some(), "fill", self.fill.to_raw());
        put(d.fill.is_some(), "compress_pct", self.compress_pct);
    }

    /// True when the engine is built on io_uring (its registry entry says so): today the one
    /// engine with a queue, a reap batch and a kernel feature to probe (the null engine is
    /// synchronous).
    pub fn uses_uring(&self) -> bool {
        self.engine.entry().caps.io_uring
    }

    /// The engine, with `uring`'s other options at this depth. A depth outside
    /// 1..=[`MAX_DEPTH`] is refused with the parameter's name, for every workload alike (never
    /// clamped).
    pub fn engine(&self, workload: &str, uring: UringOptions) -> Result<EngineSpec, WorkloadError> {
        let depth = self.depth;
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(WorkloadError::Failed(format!(
                "{workload}.depth={depth}: use 1..={MAX_DEPTH}"
            )));
        }
        let uring = UringOptions {
            depth: depth as u32,
            ..uring
        };
        EngineSpec::of(self.engine.entry(), uring).ok_or_else(|| {
            WorkloadError::Failed(format!(
                "{workload}.engine={}: use one of {}",
                self.engine.name(),
                ENGINES.join(", ")
            ))
        })
    }

    /// The content of written blocks; a `compress_pct` past 100 is refused.
    pub fn fill(&self, workload: &str) -> Result<Fill, WorkloadError> {
        let pct = self.compress_pct;
        if pct > 100 {
            return Err(WorkloadError::Failed(format!(
                "{workload}.compress_pct={pct}: use 0..=100"
            )));
        }
        Ok(match self.fill {
            FillKind::Zeros => Fill::Zeros,
            FillKind::Random => Fill::Random,
            FillKind::Compressible => Fill::Compressible(pct as f64 / 100.0),
        })
    }

    /// Whether the `direct_used` metric is declared: O_DIRECT asked for with a fallback to
    /// buffered IO allowed (the only case in which it can be 0).
    pub fn may_fall_back(&self) -> bool {
        self.direct && self.buffered_fallback
    }

    /// Whether O_DIRECT is in effect in `dir`: see [`decide_direct`].
    pub fn decide_direct(&self, workload: &str, dir: &Path) -> Result<Direct, WorkloadError> {
        let probe = match self.direct {
            true => check_direct(dir),
            false => DirectIo::Supported,
        };
        decide(
            workload,
            self.direct,
            self.buffered_fallback,
            dir,
            probe,
            self.spelling,
        )
    }
}

/// What the one O_DIRECT decision found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// Buffered, as asked.
    Off,
    /// O_DIRECT in effect (on tmpfs accepted but served from memory: the target record says
    /// so).
    On,
    /// O_DIRECT was asked for, refused, and the workload runs buffered (`buffered_fallback`).
    FellBack,
}

impl Direct {
    /// Whether O_DIRECT is in effect.
    pub fn on(self) -> bool {
        self == Direct::On
    }
}

/// The one decision whether a workload runs with O_DIRECT, given what the probe of `dir`
/// found: refused without a fallback is an error naming the ways out.
#[cfg(test)]
pub(crate) fn decide_direct(
    workload: &str,
    want: bool,
    fallback: bool,
    dir: &Path,
    probe: DirectIo,
) -> Result<Direct, WorkloadError> {
    decide(workload, want, fallback, dir, probe, ("0", true))
}

/// [`decide_direct`] for a workload that turns `direct` off with `off` and may have no
/// `buffered_fallback` (`spelling`).
fn decide(
    workload: &str,
    want: bool,
    fallback: bool,
    dir: &Path,
    probe: DirectIo,
    (off, has_fallback): (&str, bool),
) -> Result<Direct, WorkloadError> {
    match probe {
        _ if !want => Ok(Direct::Off),
        // tmpfs: accepted but served from memory; the target record says so.
        DirectIo::Supported | DirectIo::SupportedButCached => Ok(Direct::On),
        DirectIo::Unsupported(_) if fallback => Ok(Direct::FellBack),
        DirectIo::Unsupported(reason) => {
            let or = match has_fallback {
                true => format!(
                    ", or {workload}.buffered_fallback=1 to run buffered where it is refused"
                ),
                false => String::new(),
            };
            Err(WorkloadError::Failed(format!(
                "{workload}: O_DIRECT is not supported in {}: {reason}; set \
                 {workload}.direct={off}{or}",
                dir.display()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    crate::settings! {
        /// The block group alone.
        struct Block {
            io: IoGroup => IoDefaults::BLOCK,
        }
    }

    crate::settings! {
        /// A workload that declares no member of the group.
        struct Bare {
            io: IoGroup => IoDefaults::NONE,
        }
    }

    /// The null engine has no queue: only io_uring counts as asynchronous (randomio once
    /// tested `engine > 0`, counting null in).
    #[test]
    fn only_io_uring_uses_uring() {
        for (name, uring) in [("sync", false), ("io_uring", true), ("null", false)] {
            let io = IoGroup {
                engine: EngineName::named(name).unwrap(),
                ..crate::settings::defaults::<Block>().io
            };
            assert_eq!(io.uses_uring(), uring, "{name}");
        }
    }

    /// Members a workload does not declare mean "does not apply"; older names read the same
    /// as the group's; an engine index that stands for no engine is refused by name.
    #[test]
    fn undeclared_members_do_not_apply_and_old_names_read_the_same() {
        let io = crate::settings::with_pairs::<Block>(&[]).io;
        assert_eq!((io.engine.name(), io.depth, io.direct), ("sync", 8, false));
        let pairs = |p: &[(&str, u64)]| crate::settings::with_pairs::<Bare>(p).io;
        let none = pairs(&[]);
        assert_eq!(
            (none.engine.name(), none.depth, none.direct),
            ("sync", 1, false)
        );
        assert_eq!(
            pairs(&[("uring.depth", 4), ("uring.batch", 2)]),
            pairs(&[("depth", 4), ("batch", 2)])
        );
        let e = crate::settings::try_pairs::<Block>("dd", &[("engine", 7)]).unwrap_err();
        assert!(e.to_string().contains("dd.engine=7"), "{e}");
        assert_eq!(Block::specs().len(), 6);
    }

    /// O_DIRECT refused: an error without a fallback, buffered with one; never silent.
    #[test]
    fn one_direct_decision() {
        let no = || DirectIo::Unsupported("EINVAL".into());
        let d = Path::new("/x");
        assert_eq!(
            decide_direct("dd", false, false, d, no()).unwrap(),
            Direct::Off
        );
        assert_eq!(
            decide_direct("dd", true, true, d, no()).unwrap(),
            Direct::FellBack
        );
        let e = decide_direct("dd", true, false, d, no())
            .unwrap_err()
            .to_string();
        assert!(e.contains("dd.direct=0") && e.contains("EINVAL"), "{e}");
        let ok = DirectIo::SupportedButCached;
        assert_eq!(decide_direct("dd", true, false, d, ok).unwrap(), Direct::On);
    }
}
