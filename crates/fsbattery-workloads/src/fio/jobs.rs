//! From parsed sections to the jobs fsbattery runs: `[global]` options apply to the jobs
//! that follow them (as in fio, a later `[global]` changes what later jobs start from), then
//! the job's own, then the `--set fio.OPTION=VALUE` overrides, which apply to every job. Jobs
//! are split into reporting groups at `stonewall`/`new_group`; each clone's files are named
//! as fio names them (`JOB.CLONE.N` in `directory`, or the shared `filename`s).
//!
//! Invariants: every refusal is one line naming the file and line (or the `--set`) and the
//! option; a resolved [`JobFile`] can run (sizes nonzero, block sizes within the files, a
//! time-based job has a runtime); paths stay relative to the target's folder.

use super::ini::{Place, RawOption, Section};
use super::options::{self, Bs, JobOpts};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Most threads one job file may start at once (clones of one group).
const MAX_THREADS: u64 = 1024;

/// Most files one job may make (its clones' together): the plan lists every one.
const MAX_FILES: u64 = 1 << 20;

/// One job as it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Its options.
    pub opts: JobOpts,
    /// Where its section starts.
    pub at: Place,
    /// Every clone's files (path relative to the target's folder, size), clone by clone.
    pub files: Vec<Vec<(PathBuf, u64)>>,
}

impl Job {
    /// Bytes one clone moves per loop (`size`, else its files' total).
    pub fn io_size(&self) -> u64 {
        self.opts
            .size
            .unwrap_or_else(|| self.files[0].iter().map(|f| f.1).sum())
    }
}

/// A reporting group: jobs that run together, reported as one.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The first job's name (fio's group_reporting names the group by it).
    pub name: String,
    /// Its jobs.
    pub jobs: Vec<Job>,
}

impl Group {
    /// Whether any job in it syncs every N writes (so the group has sync latency: fio's
    /// `sync:` lines count fsync=/fdatasync= syncs, not end_fsync's or fsync_on_close's).
    pub fn syncs(&self) -> bool {
        self.jobs.iter().any(|j| {
            let o = &j.opts;
            o.write && (o.fsync > 0 || o.fdatasync > 0)
        })
    }

    /// Whether any job reads / writes: `[reads, writes]`.
    pub fn directions(&self) -> [bool; 2] {
        [
            self.jobs.iter().any(|j| j.opts.read),
            self.jobs.iter().any(|j| j.opts.write),
        ]
    }
}

/// A resolved job file.
#[derive(Debug, Clone, PartialEq)]
pub struct JobFile {
    /// Its groups, in order.
    pub groups: Vec<Group>,
}

impl JobFile {
    /// Every distinct file with its largest size (what the target must hold at the peak: fio
    /// keeps files unless `unlink` is set).
    pub fn files(&self) -> BTreeMap<PathBuf, u64> {
        let mut out = BTreeMap::new();
        for j in self.groups.iter().flat_map(|g| &g.jobs) {
            for (p, s) in j.files.iter().flatten() {
                let e = out.entry(p.clone()).or_insert(0);
                *e = (*e).max(*s);
            }
        }
        out
    }

    /// Every job.
    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        self.groups.iter().flat_map(|g| &g.jobs)
    }
}

/// Resolve `sections` with `overrides` (`(option, value)` from `--set fio.OPTION=VALUE`).
pub fn resolve(sections: &[Section], overrides: &[(String, String)]) -> Result<JobFile, String> {
    let mut global: Vec<&RawOption> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for s in sections {
        if s.is_global() {
            global.extend(&s.options);
            continue;
        }
        let job = job(s, &global, overrides)?;
        match groups.last_mut() {
            Some(g) if !job.opts.stonewall => g.jobs.push(job),
            _ => groups.push(Group {
                name: job.opts.name.clone(),
                jobs: vec![job],
            }),
        }
    }
    if groups.is_empty() {
        return Err("no job: add a [JOBNAME] section after [global]".into());
    }
    for g in &groups {
        let threads: u64 = g.jobs.iter().map(|j| u64::from(j.opts.numjobs)).sum();
        if threads > MAX_THREADS {
            return Err(format!(
                "{}: group '{}' runs {threads} clones at once: at most {MAX_THREADS}",
                g.jobs[0].at, g.name
            ));
        }
    }
    unique_group_names(&mut groups);
    Ok(JobFile { groups })
}

/// Group names become metric prefixes: two groups of one name get `_2`, `_3` suffixes.
fn unique_group_names(groups: &mut [Group]) {
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    for g in groups.iter_mut() {
        let n = seen.entry(g.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            g.name = format!("{}_{n}", g.name);
        }
    }
}

/// One job section: defaults, the globals before it, its options, the overrides; checked.
fn job(s: &Section, global: &[&RawOption], overrides: &[(String, String)]) -> Result<Job, String> {
    let mut o = JobOpts {
        name: s.name.clone(),
        ..JobOpts::default()
    };
    for raw in global.iter().copied().chain(&s.options) {
        options::apply(&mut o, &raw.key, raw.value.as_deref()).map_err(|e| {
            let shown = match &raw.value {
                Some(v) => format!("{}={v}", raw.key),
                None => raw.key.clone(),
            };
            format!("{}: {shown}: {e}", raw.at)
        })?;
    }
    for (k, v) in overrides {
        options::apply(&mut o, &k.to_ascii_lowercase(), Some(v))
            .map_err(|e| format!("--set fio.{k}={v}: {e}"))?;
    }
    if !o
        .name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
    {
        return Err(format!(
            "{}: job name '{}': use letters, digits and - _ . + (it names files and metrics)",
            s.at, o.name
        ));
    }
    check(&o, &s.at)?;
    let count = u64::from(o.numjobs) * names(&o).len() as u64;
    if count > MAX_FILES {
        return Err(format!(
            "{}: job '{}' makes {count} files (numjobs × nrfiles): at most {MAX_FILES}",
            s.at, o.name
        ));
    }
    let files = (0..o.numjobs).map(|c| clone_files(&o, c)).collect();
    Ok(Job {
        opts: o,
        at: s.at.clone(),
        files,
    })
}

/// What fio would refuse or never end, and what fsbattery cannot run.
fn check(o: &JobOpts, at: &Place) -> Result<(), String> {
    let job = format!("{at}: job '{}'", o.name);
    if o.size.is_none() && o.filesize.is_none() {
        return Err(format!(
            "{job} has neither size= nor filesize=: say how large its files are"
        ));
    }
    if o.time_based && o.runtime_ns.is_none() {
        return Err(format!(
            "{job} is time_based without runtime=: it would never end"
        ));
    }
    let per_file = file_size(o, 0, names(o).len() as u64);
    for (d, on) in [(0, o.read), (1, o.write)] {
        let (lo, hi) = o.bs[d].bounds();
        if on && hi > per_file.0 {
            return Err(format!(
                "{job}: block size {hi} B is larger than its files ({} B): raise size= or \
                 lower bs=",
                per_file.0
            ));
        }
        if on && o.direct && (lo % 512 != 0 || hi % 512 != 0) {
            return Err(format!(
                "{job}: direct=1 moves whole sectors: use block sizes that are multiples of \
                 512 B (or direct=0)"
            ));
        }
        if let (true, Bs::Range(a, b)) = (on, &o.bs[d]) {
            if b % a != 0 {
                return Err(format!(
                    "{job}: bsrange {a}-{b}: the largest size must be a multiple of the smallest"
                ));
            }
        }
    }
    if o.rate.iter().chain(&o.rate_iops).any(|r| *r > 0) && o.iodepth > 1 {
        return Err(format!(
            "{job}: rate limits with iodepth > 1 are not supported: use iodepth=1"
        ));
    }
    Ok(())
}

/// The names a clone's files get before the directory: the `filename`s, or `JOB.CLONE.N`
/// (the clone is filled in by [`clone_files`]).
fn names(o: &JobOpts) -> Vec<String> {
    match &o.filename {
        Some(f) => f.split(':').map(str::to_string).collect(),
        None => (0..o.nrfiles).map(|n| n.to_string()).collect(),
    }
}

/// The size of file `n` of `count`: `filesize` (a range drawn per file from the seed), else
/// `size` shared equally. Returns (smallest possible, this file's).
fn file_size(o: &JobOpts, n: u64, count: u64) -> (u64, u64) {
    match (o.filesize, o.size) {
        (Some((a, b)), _) => {
            let span = b - a;
            let pick = a + (super::rand::mix(o.randseed ^ n) % (span + 1));
            // Whole smallest blocks, as fio rounds file sizes to the minimum block size.
            let bs = o.bs[0].bounds().0.min(o.bs[1].bounds().0).max(1);
            (a, (pick / bs * bs).max(a.min(bs)))
        }
        (None, Some(s)) => {
            let each = s / count.max(1);
            (each, each)
        }
        (None, None) => (0, 0),
    }
}

/// Clone `c`'s files with their sizes, relative to the target's folder.
fn clone_files(o: &JobOpts, c: u32) -> Vec<(PathBuf, u64)> {
    let dir = PathBuf::from(o.directory.as_deref().unwrap_or(""));
    let names = names(o);
    let count = names.len() as u64;
    names
        .iter()
        .enumerate()
        .map(|(n, name)| {
            let file = match &o.filename {
                Some(_) => name.clone(),
                None => format!("{}.{c}.{name}", o.name),
            };
            (dir.join(file), file_size(o, n as u64, count).1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::ini::{self, tests::FakeHost};
    use super::*;

    fn resolve_text(text: &str, over: &[(&str, &str)]) -> Result<JobFile, String> {
        let s = ini::parse(text, "x.fio", &FakeHost(Default::default()))?;
        let over: Vec<(String, String)> = over
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(&s, &over)
    }

    #[test]
    fn globals_groups_files_and_overrides() {
        let text = "[global]\nsize=8m\nnrfiles=2\n[w]\nrw=write\nnumjobs=2\n[r]\nstonewall\nrw=randread\ndirectory=d\n[global]\nbs=8k\n[r2]\nfilename=a:b\n";
        let f = resolve_text(text, &[("size", "4m")]).unwrap();
        assert_eq!(f.groups.len(), 2);
        assert_eq!(f.groups[0].name, "w");
        let w = &f.groups[0].jobs[0];
        assert_eq!(w.files.len(), 2);
        assert_eq!(
            w.files[1],
            vec![("w.1.0".into(), 2 << 20), ("w.1.1".into(), 2 << 20)]
        );
        let r = &f.groups[1].jobs[0];
        assert_eq!(r.files[0][0].0, PathBuf::from("d/r.0.0"));
        let r2 = &f.groups[1].jobs[1];
        assert_eq!(r2.opts.bs[0], Bs::Fixed(8192));
        assert_eq!(r2.files[0][1], ("b".into(), 2 << 20));
        assert_eq!(f.files().len(), 2 + 2 + 2 + 2);
    }

    #[test]
    fn refusals_name_the_line_and_option() {
        for (text, over, want) in [
            (
                "[j]\nsize=1m\nioengine=rbd\n",
                None,
                "x.fio line 3: ioengine=rbd: ioengine rbd",
            ),
            (
                "[j]\nsize=1m\nverify=md5\n",
                None,
                "line 3: verify=md5: is not supported",
            ),
            ("[j]\nrw=write\n", None, "neither size= nor filesize="),
            ("[j]\nsize=1m\ntime_based\n", None, "never end"),
            ("[j]\nsize=1m\nbs=2m\n", None, "larger than its files"),
            (
                "[j]\nsize=1m\n",
                Some(("iodepth", "0")),
                "--set fio.iodepth=0",
            ),
            ("[global]\nsize=1m\n", None, "no job"),
            (
                "[j]\nsize=1m\ndirect=1\nbs=1000\n",
                None,
                "multiples of 512",
            ),
        ] {
            let over: Vec<(&str, &str)> = over.into_iter().collect();
            let e = resolve_text(text, &over).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
            assert_eq!(e.lines().count(), 1);
        }
    }
}
