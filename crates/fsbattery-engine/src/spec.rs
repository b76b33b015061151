//! [`EngineSpec`]: which registered engine a job uses, with its queue options. Everything it
//! answers (name, depth, reap batch, a built engine, a job's threads) comes from the engine's
//! [`EngineEntry`], so no code here names an engine but the two constants kept for callers.
//!
//! Invariant: the options of an engine without a queue ([`crate::Caps::queued`] false) are the
//! defaults, whatever was asked, so two specs of the same unqueued engine are equal (the sync
//! engine chosen with io_uring options is `EngineSpec::Sync`, as it was when the options lived
//! in an enum arm). Serialized as before the registry: `{"kind": "sync"}`, or
//! `{"kind": "io_uring", "depth": 32, …}` for a queued engine.

use crate::entry::EngineEntry;
use crate::registry::{index_of, ENGINES};
use crate::thread::{ThreadPlan, ThreadResult};
use crate::{auto_reap_batch, BufferPool, Engine, EngineError, UringOptions};
use serde::{Deserialize, Serialize};

/// Which engine a job uses, with its queue options (`uring.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Wire", try_from = "Wire")]
pub struct EngineSpec {
    /// Index in [`ENGINES`].
    index: usize,
    /// Queue options; the defaults for an unqueued engine.
    opts: UringOptions,
}

#[allow(non_upper_case_globals)] // spelled as the enum variants they replace, so callers read the same
impl EngineSpec {
    /// `pread`/`pwrite`/`fsync`, one operation at a time.
    pub const Sync: EngineSpec = EngineSpec::registered(index_of("sync"));
    /// No I/O: every operation completes at once (deterministic tests, fsbattery's own cost).
    pub const Null: EngineSpec = EngineSpec::registered(index_of("null"));
}

impl Default for EngineSpec {
    fn default() -> Self {
        EngineSpec::Sync
    }
}

impl EngineSpec {
    const fn registered(index: usize) -> EngineSpec {
        EngineSpec {
            index,
            opts: UringOptions::DEFAULT,
        }
    }

    /// The engine `entry` (one of [`ENGINES`]) with `opts` as its queue options; None for an
    /// entry that is not registered.
    pub fn of(entry: &EngineEntry, opts: UringOptions) -> Option<EngineSpec> {
        let index = ENGINES.iter().position(|e| e.name == entry.name)?;
        Some(EngineSpec::choose(index as u64, opts).expect("registered index"))
    }

    /// io_uring with `opts`.
    pub fn io_uring(opts: UringOptions) -> Self {
        EngineSpec {
            index: index_of("io_uring"),
            opts,
        }
    }

    /// io_uring at queue depth `depth` with registered buffers and files.
    pub fn uring(depth: u32) -> Self {
        EngineSpec::io_uring(UringOptions {
            depth,
            ..UringOptions::default()
        })
    }

    /// The engine's registry entry.
    pub fn entry(&self) -> &'static EngineEntry {
        &ENGINES[self.index]
    }

    /// Registry name.
    pub fn name(&self) -> &'static str {
        self.entry().name
    }

    /// The queue options (the defaults for an engine without a queue).
    pub fn options(&self) -> UringOptions {
        self.opts
    }

    /// Operations in flight per thread (1 for an engine without a queue).
    pub fn depth(&self) -> u32 {
        if self.entry().caps.queued {
            self.opts.depth
        } else {
            1
        }
    }

    /// Completions the driver waits for per reap with `threads` threads on the file: 1 for
    /// an engine without a queue, `uring.batch` for io_uring (clamped to 1..=depth), and for
    /// `uring.batch` 0 (auto) [`auto_reap_batch`].
    pub fn reap_batch(&self, threads: u32) -> u32 {
        let o = &self.opts;
        match self.entry().caps.queued {
            false => 1,
            true if o.batch == 0 => auto_reap_batch(o.depth, threads),
            true => o.batch.clamp(1, o.depth.max(1)),
        }
    }

    /// The same engine waiting for `batch` completions per reap (engines without a queue
    /// complete each operation as it is submitted: unchanged).
    pub fn with_batch(self, batch: u32) -> EngineSpec {
        let opts = UringOptions { batch, ..self.opts };
        EngineSpec::choose(self.index as u64, opts).expect("registered index")
    }

    /// A fresh engine of this kind over `pool` (at least [`EngineSpec::depth`] slots), for
    /// workloads that run their own submit/reap loop. Create it on the thread that uses it.
    pub fn build(&self, pool: BufferPool) -> Result<Box<dyn Engine>, EngineError> {
        (self.entry().build)(pool, &self.opts)
    }

    /// Run a job's threads on engines of this kind.
    pub(crate) fn run_threads(
        &self,
        plans: &[ThreadPlan<'_>],
        align: usize,
    ) -> Result<Vec<ThreadResult>, EngineError> {
        (self.entry().run)(plans, align, &self.opts)
    }

    /// Every engine name, for help and error messages; also the choices of the workloads'
    /// `engine` parameter, in the order [`EngineSpec::choose`] reads.
    pub fn names() -> &'static [&'static str] {
        &crate::registry::NAMES
    }

    /// The engine at `index` of [`EngineSpec::names`] (a workload's `engine` parameter), with
    /// `uring` as its queue options when it has a queue; None for an index past the end.
    pub fn choose(index: u64, uring: UringOptions) -> Option<EngineSpec> {
        let entry = crate::registry::by_index(index)?;
        Some(EngineSpec {
            index: index as usize,
            opts: if entry.caps.queued {
                uring
            } else {
                UringOptions::DEFAULT
            },
        })
    }
}

/// The serialized form, as the enum before the registry wrote it (`kind` and, for a queued
/// engine, its options beside it).
#[derive(Serialize, Deserialize)]
struct Wire {
    kind: String,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    opts: Option<UringOptions>,
}

impl From<EngineSpec> for Wire {
    fn from(s: EngineSpec) -> Wire {
        Wire {
            kind: s.name().to_string(),
            opts: s.entry().caps.queued.then_some(s.opts),
        }
    }
}

impl TryFrom<Wire> for EngineSpec {
    type Error = String;
    fn try_from(w: Wire) -> Result<EngineSpec, String> {
        let index = ENGINES
            .iter()
            .position(|e| e.name == w.kind)
            .ok_or_else(|| format!("unknown engine {:?}", w.kind))?;
        let opts = w.opts.unwrap_or_default();
        Ok(EngineSpec::choose(index as u64, opts).expect("registered index"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Specs serialize as the enum did: old JSON reads the same.
    #[test]
    fn serialized_form_is_the_old_enums() {
        let sync = serde_json::to_string(&EngineSpec::Sync).unwrap();
        assert_eq!(sync, r#"{"kind":"sync"}"#);
        let uring = EngineSpec::uring(8);
        let json = serde_json::to_string(&uring).unwrap();
        assert!(
            json.starts_with(r#"{"kind":"io_uring","depth":8,"#),
            "{json}"
        );
        for s in [EngineSpec::Sync, EngineSpec::Null, uring] {
            let back: EngineSpec =
                serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
            assert_eq!(back, s);
        }
        let old: EngineSpec = serde_json::from_str(
            r#"{"kind":"io_uring","depth":4,"registered_buffers":false,"registered_files":true,"batch":2}"#,
        )
        .unwrap();
        assert_eq!(
            (old.name(), old.depth(), old.reap_batch(1)),
            ("io_uring", 4, 2)
        );
    }

    /// An unqueued engine ignores queue options: chosen with any, it equals its constant.
    #[test]
    fn unqueued_engines_ignore_queue_options() {
        let deep = UringOptions {
            depth: 64,
            ..UringOptions::default()
        };
        assert_eq!(EngineSpec::choose(0, deep), Some(EngineSpec::Sync));
        assert_eq!(EngineSpec::choose(2, deep), Some(EngineSpec::Null));
        assert_eq!(
            EngineSpec::choose(1, deep),
            Some(EngineSpec::io_uring(deep))
        );
        assert_eq!(EngineSpec::Sync.with_batch(4), EngineSpec::Sync);
        assert_eq!(EngineSpec::uring(8).with_batch(4).reap_batch(1), 4);
        assert_eq!(EngineSpec::choose(ENGINES.len() as u64, deep), None);
    }
}
