//! fsbattery's own ceiling on the running machine, measured once per run (well under 1 s:
//! 0.5 s on a loaded 2-core machine).
//!
//! Both loops go through the real [`run_job`] path (the driver every engine-based workload
//! uses) on a file in tmpfs, laid out first so it is in the page cache:
//! - the null loop: 4 KiB random reads on the null engine, which completes every operation at
//!   once without a system call — fsbattery's own cost per operation and nothing else;
//! - 4 KiB random reads of the cached file through the sync engine (one `pread` each).
//!
//! A filesystem's rate near these is the tool's, not the filesystem's; the reports mark it.

use crate::engine::{run_job, EngineSpec, FileMode, JobSpec, Pattern, Stop};
use crate::model::ToolCeiling;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// File size: big enough that random 4 KiB reads do not sit in one cache line, small enough
/// to lay out in a few milliseconds.
const FILE_BYTES: u64 = 8 << 20;
/// How long each read loop runs.
const LOOP_TIME: Duration = Duration::from_millis(150);

/// Where the cached file goes: /dev/shm when it is a writable tmpfs, else the temp dir.
fn scratch_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let tmpfs = nix::sys::statfs::statfs(shm)
        .is_ok_and(|s| s.filesystem_type() == nix::sys::statfs::TMPFS_MAGIC);
    if tmpfs && nix::unistd::access(shm, nix::unistd::AccessFlags::W_OK).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Removes the scratch file on every exit path.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// 4 KiB random reads per second of the laid-out file on `engine` for [`LOOP_TIME`].
fn reads_per_s(path: &Path, engine: EngineSpec) -> Result<f64, String> {
    let mut spec = JobSpec::new(path, FILE_BYTES, 4096);
    spec.pattern = Pattern::Random;
    spec.engine = engine;
    spec.file_mode = FileMode::Existing;
    spec.stop = Stop::Runtime(LOOP_TIME);
    let r = run_job(&spec).map_err(|e| e.to_string())?;
    Ok(r.iops)
}

/// Measure the ceiling; the error says which step failed (the run goes on without one).
pub fn measure() -> Result<ToolCeiling, String> {
    let start = Instant::now();
    let path = scratch_dir().join(format!(".fsbattery-ceiling-{}", std::process::id()));
    let _guard = Remove(path.clone());
    let mut layout = JobSpec::new(&path, FILE_BYTES, 1 << 20);
    layout.write_fraction = 1.0;
    layout.file_mode = FileMode::Truncate;
    run_job(&layout).map_err(|e| format!("laying out {}: {e}", path.display()))?;
    let null = reads_per_s(&path, EngineSpec::Null)?;
    let read_4k = reads_per_s(&path, EngineSpec::Sync)?;
    Ok(ToolCeiling {
        null_ops_per_s: null,
        null_method: "null engine (no system call), 4 KiB random reads through the driver".into(),
        read_4k_ops_per_s: read_4k,
        file: path.display().to_string(),
        secs: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn measures_both_loops_briefly_and_leaves_no_file() {
        let c = super::measure().unwrap();
        assert!(c.read_4k_ops_per_s > 0.0 && c.null_ops_per_s > 0.0, "{c:?}");
        assert!(c.secs < 2.0, "{c:?}");
        assert!(!std::path::Path::new(&c.file).exists());
    }
}
