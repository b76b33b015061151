//! What each fuzz target does with its input, shared by the cargo-fuzz targets (nightly) and
//! the stable regression tests (`crates/fsbattery-core/tests/fuzz_regressions.rs`), so a
//! saved crash input is replayed through exactly the code that crashed.
//!
//! Each function takes raw bytes and returns Err when the input is rejected anywhere along
//! the way (non-UTF-8 included); a panic is always a bug.

use fsbattery_core::dataset::DatasetSpecExt;
use fsbattery_core::params::{parse_sets, Params, Scale};
use fsbattery_core::units::{format_bytes, parse_bytes};
use fsbattery_core::{journal, suite, targets, workload};

/// Bytes as text, or the error every target gives non-UTF-8 input.
fn text(data: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(data).map_err(|e| e.to_string())
}

/// A suite file: parse and validate it, as `--suite FILE.toml` does.
pub fn suite_toml(data: &[u8]) -> Result<(), String> {
    let text = text(data)?;
    suite::parse(text, std::path::Path::new("fuzz.toml"))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A `--target` spec: its grammar, without looking at the machine.
pub fn target_spec(data: &[u8]) -> Result<(), String> {
    targets::check_syntax(text(data)?).map_err(|e| e.to_string())
}

/// Each line one `--set WORKLOAD.PARAM=VALUE`: split as `run` does, then resolved against the
/// named workload's real parameter specs at every scale, shown back as text, and the
/// workload's dataset (if any) validated, as `run` plans. Every value that reads as a size
/// also goes through `format_bytes`.
pub fn set_value(data: &[u8]) -> Result<(), String> {
    let sets: Vec<String> = text(data)?.lines().map(str::to_string).collect();
    for s in &sets {
        if let Some(n) = s.split_once('=').and_then(|(_, v)| parse_bytes(v)) {
            let _ = format_bytes(n);
        }
    }
    let overrides = parse_sets(&sets).map_err(|e| e.to_string())?;
    for (name, values) in &overrides {
        // As `run` plans: the caller of `parse_sets` refuses an unknown workload.
        let wl = workload::find_or_refuse(name).map_err(|e| e.to_string())?;
        for scale in [Scale::Quick, Scale::Standard, Scale::Full] {
            let p = Params::resolve(name, wl.params(), scale, 8 << 30, values)
                .map_err(|e| e.to_string())?;
            let _ = p.to_text(wl.params());
            // As `run` plans: a workload's dataset is checked against its parameters.
            if let Some(spec) = wl.dataset(&p) {
                spec.validate(name).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// journal.jsonl: read the events (a torn last line tolerated), assemble the run record as
/// `fsbattery report` does after a kill -9, and serialise it back as results.json would be.
pub fn journal(data: &[u8]) -> Result<(), String> {
    let events = journal::parse(text(data)?, "journal.jsonl")?;
    let record = journal::assemble(&events)?;
    serde_json::to_vec(&record)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A host for job files that has no files (`include` is refused) and no environment.
struct NoHost;

impl workload::fio::ini::Host for NoHost {
    fn ncpus(&self) -> u64 {
        2
    }
    fn mb_memory(&self) -> u64 {
        24_576
    }
    fn pagesize(&self) -> u64 {
        4096
    }
    fn env(&self, _name: &str) -> Option<String> {
        None
    }
    fn read(&self, _path: &std::path::Path) -> Result<String, String> {
        Err("no files here".into())
    }
}

/// A fio job file: parsed and resolved as `--workload fio:FILE` reads it, then its files and
/// metrics computed as the plan does. A refusal must be one line.
pub fn fio_job(data: &[u8]) -> Result<(), String> {
    let file = workload::fio::parse(text(data)?, "fuzz.fio", &NoHost, &[]).map_err(|e| {
        assert_eq!(
            e.lines().count(),
            1,
            "a job-file refusal spans lines: {e:?}"
        );
        e
    })?;
    let files = file.files();
    let _total: u64 = files.values().fold(0u64, |a, s| a.saturating_add(*s));
    let n = file.groups.len();
    for g in &file.groups {
        let shape = workload::fio::metrics::Shape::of(g, n);
        let _ = workload::fio::metrics::names_for(&shape);
    }
    Ok(())
}

/// A dbench command line, as `--workload 'dbench:ARGS'` reads it (the loadfile is not read).
/// A refusal must be one line.
pub fn dbench_args(data: &[u8]) -> Result<(), String> {
    let c = workload::dbench::args::parse(text(data)?).map_err(|e| {
        assert_eq!(e.lines().count(), 1, "a dbench refusal spans lines: {e:?}");
        e
    })?;
    let _ = (c.clients(), c.warmup(), c.sync_text());
    Ok(())
}

/// A dbench loadfile, checked as the plan checks it, then every kept line tokenised and read
/// again as a client does at run time. A refusal must be one line naming the line.
pub fn dbench_loadfile(data: &[u8]) -> Result<(), String> {
    use workload::dbench::loadfile::{parse_line, tokenize, Loadfile};
    let l = Loadfile::parse("fuzz.txt", data).map_err(|e| {
        assert_eq!(
            e.lines().count(),
            1,
            "a loadfile refusal spans lines: {e:?}"
        );
        e
    })?;
    let (mut words, mut scratch) = (Vec::new(), String::new());
    for line in &l.lines {
        let n = tokenize(line, &mut words, &mut scratch);
        parse_line(&words[..n]).expect("a checked line reads again");
    }
    let _ = l.kinds().count();
    Ok(())
}

/// fs_mark's command line (`--workload 'fs_mark:ARGS'`): parsed, or refused in one line; a
/// parsed one is written back canonically, which must parse to the same canonical text, and
/// names its metrics. The same bytes as fs_mark output go through `import --from fs_mark`.
pub fn fs_mark_args(data: &[u8]) -> Result<(), String> {
    let text = text(data)?;
    if let Some(i) = fsbattery_core::import::by_name("fs_mark") {
        let _ = fsbattery_core::import::parse("fuzz.txt", data, Some(i));
    }
    let c = workload::fs_mark::args::parse(text).map_err(|e| {
        assert_eq!(
            e.lines().count(),
            1,
            "an fs_mark refusal spans lines: {e:?}"
        );
        e
    })?;
    let canon = workload::fs_mark::args::canonical(&c);
    let again = workload::fs_mark::args::parse(&canon)
        .unwrap_or_else(|e| panic!("canonical {canon:?} of {text:?} refused: {e}"));
    assert_eq!(workload::fs_mark::args::canonical(&again), canon);
    let _ = workload::fs_mark::metrics::specs(&c);
    Ok(())
}
