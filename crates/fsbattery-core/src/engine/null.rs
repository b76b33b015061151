//! The `null` engine: no I/O. Every operation completes at once, in full, at submission.
//!
//! It exists for two reasons: deterministic tests of everything above the engine (the driver,
//! the workloads' op sources, the thread pool) without a filesystem's timing or errors, and the
//! "tool ceiling", the per-operation cost of fsbattery itself (driver loop, offset generation,
//! accounting) measured with the same driver that moves real bytes.
//!
//! Invariants: `submit` answers [`Submit::Completed`] with `result = len` (0 for fsync), never
//! queues and never fails an operation; buffers are left as they are (a read "returns" what the
//! slot held). Files are kept open, as the other engines keep them, so file ids behave alike.

use super::files::FileTable;
use super::{BufferPool, Completion, Engine, EngineError, Op, OpKind, Submit};
use std::fs::File;

/// The engine that does nothing, instantly.
#[derive(Debug)]
pub struct NullEngine {
    files: FileTable,
    pool: BufferPool,
}

impl NullEngine {
    /// An engine over `pool` (its slots are what reads leave behind) and no file yet.
    pub fn new(pool: BufferPool) -> Self {
        NullEngine {
            files: FileTable::default(),
            pool,
        }
    }
}

impl Engine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn depth(&self) -> usize {
        1
    }

    fn in_flight(&self) -> usize {
        0
    }

    fn buffers(&self) -> &BufferPool {
        &self.pool
    }

    fn buffers_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    fn add_file(&mut self, file: File) -> Result<u32, EngineError> {
        Ok(self.files.insert(file))
    }

    fn remove_file(&mut self, id: u32) -> Option<File> {
        self.files.remove(id)
    }

    #[inline]
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError> {
        let result = match op.kind {
            OpKind::Fsync => 0,
            _ => op.len.min(self.pool.slot_len() as u32) as i32,
        };
        Ok(Submit::Completed(Completion { op, result }))
    }

    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{run_job, EngineSpec, JobSpec, Stop};

    #[test]
    fn null_engine_completes_every_op_of_a_job_without_io() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        let mut spec = JobSpec::new(&path, 1 << 20, 4096);
        spec.engine = EngineSpec::Null;
        spec.write_fraction = 0.5;
        spec.fsync_fraction = 0.25;
        spec.jobs = 2;
        spec.stop = Stop::Ops(1001);
        let r = run_job(&spec).unwrap();
        assert_eq!(r.engine, "null");
        assert_eq!(r.ops, 1001);
        assert_eq!(r.read.ops + r.write.ops, 1001);
        assert_eq!(r.bytes, 1001 * 4096);
        assert!(
            r.write.ops > 0 && r.read.ops > 0 && r.fsync.ops > 0,
            "{r:?}"
        );
        // Nothing reached the file: it is still a hole of zeros.
        assert!(std::fs::read(&path).unwrap().iter().all(|&b| b == 0));
    }
}
