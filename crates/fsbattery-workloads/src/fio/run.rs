//! Running a reporting group: lay its files out as fio does before a job (untimed), then run
//! every clone of every job of the group at once on the one thread pool, each clone a
//! [`Driver`] over its own engine, and merge what they measured.
//!
//! fio's layout (`filesetup.c: extend_file`, fio 3.33), followed here: a file that is missing
//! or too small is removed and made again; a job that reads (or writes with `overwrite`) gets
//! it written out in full with buffered writes of its largest write size, then fsynced; a
//! write-only job gets it only created and preallocated as `fallocate` says (fio's default
//! `native`: fallocate(2) mode 0). `create_on_open` leaves creation to the clone's open.

use super::jobs::{Group, Job};
use super::options::{Fadvise, Fallocate, JobOpts, SyncMode};
use super::source::{CloneResult, FioSource};
use crate::engine::{
    dio_alignment, run_pool, BufferPool, Driver, Engine, EngineError, EngineSpec, Fill,
    LatencyHistogram, UringOptions,
};
use crate::error::WorkloadError;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// What a group measured, clones merged.
#[derive(Debug, Default)]
pub struct GroupResult {
    /// Latency per kind: read, write, sync.
    pub hist: [LatencyHistogram; 3],
    /// Operations per kind.
    pub ops: [u64; 3],
    /// Bytes per kind.
    pub bytes: [u64; 3],
    /// The slowest clone's time, seconds (fio's group runtime).
    pub elapsed_s: f64,
}

/// The engine fio's `ioengine` maps onto, with the job's depth.
pub fn engine_of(o: &JobOpts) -> EngineSpec {
    let mapped = super::options::ENGINES
        .iter()
        .find(|(n, _)| *n == o.ioengine)
        .map_or("sync", |e| e.1);
    if mapped == "io_uring" {
        EngineSpec::io_uring(UringOptions {
            depth: o.iodepth,
            ..UringOptions::default()
        })
    } else {
        EngineSpec::Sync
    }
}

/// Lay out every file of `group` under `root` that its jobs need before they start.
pub fn lay_out(root: &Path, group: &Group) -> Result<(), WorkloadError> {
    let mut done: Vec<PathBuf> = Vec::new();
    for job in &group.jobs {
        for (rel, size) in job.files.iter().flatten() {
            let path = root.join(rel);
            if done.contains(&path) {
                continue;
            }
            done.push(path.clone());
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
            }
            if !job.opts.create_on_open {
                lay_out_file(&path, *size, &job.opts)?;
            }
        }
    }
    Ok(())
}

/// One file, as fio's `extend_file` makes it.
fn lay_out_file(path: &Path, size: u64, o: &JobOpts) -> Result<(), WorkloadError> {
    let len = std::fs::metadata(path).map(|m| m.len()).ok();
    if len.is_some_and(|l| l >= size) {
        return Ok(());
    }
    let written = o.read || o.overwrite;
    if len.is_some() {
        std::fs::remove_file(path).map_err(|e| io_err("remove", path, e))?;
    }
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(written)
        .open(path)
        .map_err(|e| io_err("create", path, e))?;
    preallocate(&f, size, o.fallocate, path)?;
    if !written {
        return Ok(());
    }
    f.set_len(size).map_err(|e| io_err("truncate", path, e))?;
    let chunk = o.bs[1].bounds().1.clamp(4096, 1 << 20) as usize;
    let mut buf = vec![0u8; chunk];
    Fill::Random.generate(0x1a_b0de, &mut buf);
    let mut w = &f;
    let mut left = size;
    while left > 0 {
        crate::poll(left)?;
        let n = left.min(chunk as u64) as usize;
        w.write_all(&buf[..n])
            .map_err(|e| io_err("lay out", path, e))?;
        left -= n as u64;
    }
    f.sync_all().map_err(|e| io_err("fsync", path, e))
}

/// Preallocate as `fallocate=` says; a filesystem that cannot is left as it is (fio warns
/// and goes on).
fn preallocate(f: &File, size: u64, how: Fallocate, path: &Path) -> Result<(), WorkloadError> {
    let fd = f.as_raw_fd();
    let len = size as libc::off_t;
    // SAFETY: fd is an open file for the duration of the calls.
    unsafe {
        match how {
            Fallocate::None => {}
            Fallocate::Native => {
                libc::fallocate(fd, 0, 0, len);
            }
            Fallocate::Keep => {
                libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, len);
            }
            Fallocate::Posix => {
                libc::posix_fallocate(fd, 0, len);
            }
            Fallocate::Truncate => {
                if libc::ftruncate(fd, len) != 0 {
                    return Err(io_err("truncate", path, std::io::Error::last_os_error()));
                }
            }
        }
    }
    Ok(())
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> WorkloadError {
    WorkloadError::Failed(format!("fio job: {what} {}: {e}", path.display()))
}

/// Open one file of a clone as its job opens it.
fn open(path: &Path, o: &JobOpts) -> Result<File, EngineError> {
    let mut oo = OpenOptions::new();
    oo.read(true)
        .write(o.write)
        .create(o.write && o.create_on_open);
    let mut flags = 0;
    if o.direct {
        flags |= libc::O_DIRECT;
    }
    flags |= match o.sync {
        SyncMode::None => 0,
        SyncMode::Sync => libc::O_SYNC,
        SyncMode::Dsync => libc::O_DSYNC,
    };
    oo.custom_flags(flags);
    let f = oo
        .open(path)
        .map_err(|e| EngineError::io("open", path.to_path_buf(), e))?;
    advise(&f, o);
    Ok(f)
}

/// Advise the kernel of the job's pattern on a file just opened, as fio's `td_io_open_file`
/// does (`fadvise_hint=1` by default): `POSIX_FADV_RANDOM` turns read-ahead off for a random
/// job, so its reads miss the cache as fio's do. Without it, random reads after each pass's
/// eviction were served from read-ahead (read clat mean 23.5 µs against fio's 32.2 µs, IOPS
/// 1.1-1.35 x fio's on the random mixed agreement job, 2026-11-29). Advice is a hint: a
/// filesystem that refuses it runs unadvised, as fio's warning-only failure does.
fn advise(f: &File, o: &JobOpts) {
    let advice = match o.fadvise {
        Fadvise::None => return,
        Fadvise::Type if o.random => libc::POSIX_FADV_RANDOM,
        Fadvise::Type | Fadvise::Sequential => libc::POSIX_FADV_SEQUENTIAL,
        Fadvise::Random => libc::POSIX_FADV_RANDOM,
        Fadvise::Noreuse => libc::POSIX_FADV_NOREUSE,
    };
    // SAFETY: a valid descriptor owned by `f`; offset 0 and length 0 cover the whole file.
    unsafe {
        libc::posix_fadvise(f.as_raw_fd(), 0, 0, advice);
    }
}

/// One clone to run: its job, its files' paths and sizes.
struct Clone<'a> {
    job: &'a Job,
    paths: Vec<PathBuf>,
    sizes: Vec<u64>,
    seed: u64,
}

/// Run every clone of `group`'s jobs at once over files under `root`; `repeat` varies the
/// seed only when a job asks for `randrepeat=0`.
pub fn run_group(root: &Path, group: &Group, seed: u64) -> Result<GroupResult, WorkloadError> {
    let clones: Vec<Clone> = group
        .jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| {
            job.files.iter().enumerate().map(move |(c, files)| Clone {
                job,
                paths: files.iter().map(|(p, _)| root.join(p)).collect(),
                sizes: files.iter().map(|f| f.1).collect(),
                seed: seed ^ ((j as u64) << 40) ^ ((c as u64) << 20),
            })
        })
        .collect();
    let threads = clones.len() as u32;
    let stop = AtomicBool::new(false);
    let setup = |t: usize| -> Result<(Box<dyn Engine>, &Clone), EngineError> {
        let c = &clones[t];
        let o = &c.job.opts;
        let spec = engine_of(o);
        let align = if o.direct {
            dio_alignment(&c.paths[0]).mem
        } else {
            4096
        };
        let slot = o.bs[0].bounds().1.max(o.bs[1].bounds().1) as usize;
        let mut pool = BufferPool::new(spec.depth() as usize, slot, align);
        let mut base = vec![0u8; slot];
        FioSource::new(o, &c.sizes, 0, c.seed)
            .fill()
            .generate(c.seed, &mut base);
        pool.fill_all(&base);
        Ok((spec.build(pool)?, c))
    };
    let body = |_t: usize, (engine, c): (Box<dyn Engine>, &Clone), _| run_clone(engine, c, threads);
    let (results, _) = run_pool(clones.len(), &stop, setup, body).map_err(|e| match e {
        EngineError::Interrupted => WorkloadError::Interrupted,
        e => WorkloadError::Failed(e.to_string()),
    })?;
    Ok(merge(&results))
}

/// One clone from its first operation to its last sync.
fn run_clone(engine: Box<dyn Engine>, c: &Clone, threads: u32) -> Result<CloneResult, EngineError> {
    let o = &c.job.opts;
    let batch = engine_of(o).reap_batch(threads) as usize;
    let mut driver = Driver::new(engine, batch);
    let mut src = FioSource::new(o, &c.sizes, c.job.io_size(), c.seed).invalidating(&c.paths);
    let window = match o.openfiles {
        0 => c.paths.len(),
        n => (n as usize).min(c.paths.len()),
    };
    for i in 0..window {
        open_into(&mut driver, &mut src, c, i)?;
    }
    let mut next_closed = window;
    loop {
        driver.run(&mut src)?;
        if !src.rotate {
            break;
        }
        // The open files are done for this pass and others wait: close, open the next.
        let finished: Vec<usize> = src.open.clone();
        close(
            &mut driver,
            &mut src,
            &finished,
            o.fsync_on_close && o.write,
        )?;
        for _ in 0..window {
            let i = next_closed % c.paths.len();
            next_closed += 1;
            open_into(&mut driver, &mut src, c, i)?;
        }
        src.rotate = false;
    }
    let open: Vec<usize> = src.open.clone();
    close(
        &mut driver,
        &mut src,
        &open,
        o.write && (o.end_fsync || o.fsync_on_close),
    )?;
    Ok(src.res)
}

/// Open file `i` of the clone and give it to the engine.
fn open_into(
    driver: &mut Driver<Box<dyn Engine>>,
    src: &mut FioSource,
    c: &Clone,
    i: usize,
) -> Result<(), EngineError> {
    let f = open(&c.paths[i], &c.job.opts)?;
    let id = driver.engine_mut().add_file(f)?;
    src.files[i].id = Some(id);
    src.open.push(i);
    Ok(())
}

/// Sync (when asked) and close the files `which` (indices into the clone's files).
fn close(
    driver: &mut Driver<Box<dyn Engine>>,
    src: &mut FioSource,
    which: &[usize],
    sync: bool,
) -> Result<(), EngineError> {
    let ids: Vec<u32> = which.iter().filter_map(|&i| src.files[i].id).collect();
    if sync {
        src.sync_files(ids.iter().rev().copied().collect());
        driver.run(src)?;
        src.end_tail();
    }
    for &i in which {
        if let Some(id) = src.files[i].id.take() {
            driver.engine_mut().remove_file(id);
        }
    }
    src.open.retain(|i| !which.contains(i));
    Ok(())
}

/// Clones summed; the group's time is the slowest clone's (fio's group_reporting).
fn merge(results: &[CloneResult]) -> GroupResult {
    let mut g = GroupResult::default();
    let mut slowest = 0;
    for r in results {
        for k in 0..3 {
            g.hist[k].merge(&r.hist[k]);
            g.ops[k] += r.ops[k];
            g.bytes[k] += r.bytes[k];
        }
        slowest = slowest.max(r.elapsed_ns);
    }
    g.elapsed_s = slowest as f64 / 1e9;
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    const PAGE: u64 = 4096;

    /// Pages of `path` in the page cache after writing its first 9 pages through a file of
    /// a random job opened with `advice`, then reading the 10th: a read that follows cached
    /// pages looks sequential to the kernel, which reads ahead unless the file is advised
    /// random (what fio's default `fadvise_hint=1` does for a random job).
    fn resident_after_read(dir: &Path, advice: Fadvise) -> Option<u64> {
        let path = dir.join(format!("advised-{advice:?}"));
        std::fs::write(&path, vec![7u8; (1 << 20) as usize]).unwrap();
        File::open(&path).unwrap().sync_all().unwrap();
        crate::cache::evict_file(&path);
        let o = JobOpts {
            random: true,
            read: true,
            write: true,
            fadvise: advice,
            ..JobOpts::default()
        };
        let f = open(&path, &o).unwrap();
        f.write_all_at(&[1u8; (9 * PAGE) as usize], 0).unwrap();
        let mut page = [0u8; PAGE as usize];
        f.read_exact_at(&mut page, 9 * PAGE).unwrap();
        let (r, _) = fsbattery_base::residency::measure(&[path.as_path()])?;
        Some(r.resident_bytes / PAGE)
    }

    #[test]
    fn a_random_job_reads_without_read_ahead_as_fio_advises() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        if fsbattery_base::residency::in_memory(dir.path()) {
            eprintln!("SKIP: the temp directory is in memory, where nothing is read ahead");
            return;
        }
        let (Some(advised), Some(unadvised)) = (
            resident_after_read(dir.path(), Fadvise::Type),
            resident_after_read(dir.path(), Fadvise::None),
        ) else {
            panic!("no residency measured on {}", dir.path().display());
        };
        assert_eq!(
            advised, 10,
            "advised random: the 9 written pages and the one read"
        );
        assert!(
            unadvised > 10,
            "unadvised: read-ahead past the page read ({unadvised} pages)"
        );
    }
}
