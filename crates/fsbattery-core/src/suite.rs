//! Suites: which workloads to run, with which parameters, and the table rows they produce.
//!
//! A suite is a TOML file (shipped presets live in `suites/` and are compiled in). Every key is
//! checked: an unknown key, workload, metric or parameter fails with the file, line and key.
//! Rows whose workload does not exist yet must say `pending = "..."`; they are listed in
//! reports as pending, never dropped. A row's label names what the run measured: every size or
//! count in it is a `{workload.param}` placeholder (see [`crate::label`]), and the seed's own
//! wording, with the seed's sizes, goes in `seed = "..."` (tests/presets.rs holds the shipped
//! suites to this, and to no two rows showing one workload, metric and aggregate).

use crate::error::UsageError;
use crate::model::CachePolicy;
use crate::params::{Params, Scale};
use crate::suite_settings::{self, Pauses, WorkloadSetting};
use crate::targets::FsDefaults;
use crate::workload;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A preset shipped with fsbattery.
pub struct Preset {
    /// Name used with `--suite`.
    pub name: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
    /// The TOML text.
    pub text: &'static str,
}

/// Every preset, in listing order.
pub fn presets() -> &'static [Preset] {
    &[
        Preset {
            name: "piszcz2006",
            aliases: &["classic"],
            text: include_str!("../../../suites/piszcz2006.toml"),
        },
        Preset {
            name: "prolinux2013",
            aliases: &[],
            text: include_str!("../../../suites/prolinux2013.toml"),
        },
        Preset {
            name: "iozone2016",
            aliases: &[],
            text: include_str!("../../../suites/iozone2016.toml"),
        },
        Preset {
            name: "zfs2007",
            aliases: &[],
            text: include_str!("../../../suites/zfs2007.toml"),
        },
        Preset {
            name: "postmark",
            aliases: &[],
            text: include_str!("../../../suites/postmark.toml"),
        },
        Preset {
            name: "io500",
            aliases: &[],
            text: include_str!("../../../suites/io500.toml"),
        },
        Preset {
            name: "fio-oltp",
            aliases: &[],
            text: include_str!("../../../suites/fio-oltp.toml"),
        },
        Preset {
            name: "fio-wal",
            aliases: &[],
            text: include_str!("../../../suites/fio-wal.toml"),
        },
        Preset {
            name: "fio-vm-image",
            aliases: &[],
            text: include_str!("../../../suites/fio-vm-image.toml"),
        },
        Preset {
            name: "build",
            aliases: &[],
            text: include_str!("../../../suites/build.toml"),
        },
        Preset {
            name: "fileserver",
            aliases: &[],
            text: include_str!("../../../suites/fileserver.toml"),
        },
        Preset {
            name: "database",
            aliases: &[],
            text: include_str!("../../../suites/database.toml"),
        },
        Preset {
            name: "mailserver",
            aliases: &[],
            text: include_str!("../../../suites/mailserver.toml"),
        },
    ]
}

/// The suite whose workload list and row labels a run without `--suite` borrows (its
/// conditions it does not: see [`crate::suite_native`]).
pub const DEFAULT_SUITE: &str = "classic";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    repeat: Option<Spanned<i64>>,
    /// `true`: repeats adapt (see [`Suite::adapt`]).
    #[serde(default)]
    adapt: bool,
    aggregate: Option<Spanned<String>>,
    cache: Option<Spanned<String>>,
    pause: Option<Spanned<f64>>,
    /// The old name of `pause`, from when it applied at full scale only.
    pause_full: Option<Spanned<f64>>,
    pause_quick: Option<Spanned<f64>>,
    seed_memory: Option<Spanned<String>>,
    volume: Option<Spanned<String>>,
    fs: Option<Spanned<BTreeMap<String, suite_settings::FsEntry>>>,
    #[serde(default, rename = "workload")]
    workloads: Vec<WorkloadEntry>,
    #[serde(default, rename = "row")]
    rows: Vec<RowEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadEntry {
    name: Spanned<String>,
    params: Option<Spanned<BTreeMap<String, toml::Value>>>,
    method: Option<Spanned<String>>,
    note: Option<String>,
    cache: Option<Spanned<String>>,
    phase_cache: Option<Spanned<BTreeMap<String, String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowEntry {
    label: String,
    workload: Spanned<String>,
    metric: Spanned<String>,
    pending: Option<String>,
    aggregate: Option<Spanned<String>>,
    seed: Option<String>,
}

/// A parsed, validated suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Suite name.
    pub name: String,
    /// The study's title.
    pub title: String,
    /// What it reproduces.
    pub description: String,
    /// Default repeats.
    pub repeat: u32,
    /// `adapt = true`: a preset that asks a question rather than reproducing a study, so its
    /// repeats adapt as a run without `--suite` does (from `repeat` until each row is decided
    /// or the budget ends) instead of being fixed at the study's count.
    pub adapt: bool,
    /// Default aggregate.
    pub aggregate: fsbattery_stats::Aggregate,
    /// The seed's cache policy (`cache = ...`), unless `--cache` overrides it.
    pub cache: Option<CachePolicy>,
    /// Pause before each timed phase, at every scale (quick may shorten it).
    pub pauses: Pauses,
    /// Default mkfs/mount options per filesystem (`[fs.NAME]`), unless a target gives its own.
    pub fs_defaults: FsDefaults,
    /// Each `[[workload]]`'s method and note, by workload name.
    pub workload_settings: BTreeMap<String, WorkloadSetting>,
    /// The seed machine's RAM, where the seed states it (`run --memory seed` applies it).
    pub seed_memory: Option<u64>,
    /// The size of the seed's volume (`volume`, S2's 100 GB): loop images are made this large
    /// (sparse) unless the workloads need more or a target gives `size=`.
    pub volume: Option<u64>,
    /// Workloads with their parameter overrides (text values).
    pub workloads: Vec<(String, BTreeMap<String, String>)>,
    /// Table rows, in the study's order; labels may hold `{workload.param}` placeholders
    /// ([`render_label`]).
    pub rows: Vec<SuiteRow>,
}

/// A row of the suite's table.
#[derive(Debug, Clone)]
pub struct SuiteRow {
    /// Label template; `{workload.param}` is replaced by the resolved value.
    pub label: String,
    /// Workload name.
    pub workload: String,
    /// Metric name.
    pub metric: String,
    /// Why the row has no numbers yet.
    pub pending: Option<String>,
    /// This row's own aggregate (S2's "min"/"max" rows), else the table's.
    pub aggregate: Option<fsbattery_stats::Aggregate>,
    /// The seed's own wording of the row, sizes as the seed measured them ("Datei 16 GB
    /// schreiben [MB/s]"); shown beside the label, which names this run's sizes.
    pub seed: Option<String>,
}

/// Load a suite by preset name or from a `.toml` file.
pub fn load(name_or_path: &str) -> Result<Suite, UsageError> {
    if let Some(p) = presets()
        .iter()
        .find(|p| p.name == name_or_path || p.aliases.contains(&name_or_path))
    {
        return parse(p.text, Path::new(&format!("<preset {}>", p.name)));
    }
    let path = PathBuf::from(name_or_path);
    if name_or_path.ends_with(".toml") || path.exists() {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            UsageError::Invalid(format!("suite file {}: cannot read: {e}", path.display()))
        })?;
        return parse(&text, &path);
    }
    Err(UsageError::Unknown {
        kind: "suite",
        name: name_or_path.into(),
        choices: presets()
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
            + ", or a FILE.toml",
        list: "suites",
    })
}

/// Parse and validate suite text; `path` is only used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Suite, UsageError> {
    // Counted on bytes: a span need not fall on a char boundary of arbitrary input.
    let line_of = |offset: usize| {
        let end = offset.min(text.len());
        text.as_bytes()[..end]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1
    };
    let err = |offset: usize, key: &str, message: String| UsageError::SuiteFile {
        path: path.to_path_buf(),
        line: line_of(offset),
        key: key.to_string(),
        message,
    };
    let file: SuiteFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map(|s| s.start).unwrap_or(0);
        // toml's messages may run over several lines; a usage error is one.
        let msg = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        let key = msg
            .strip_prefix("unknown field `")
            .and_then(|r| r.split('`').next())
            .unwrap_or("-")
            .to_string();
        err(offset, &key, msg)
    })?;
    let aggregate = match &file.aggregate {
        None => fsbattery_stats::Aggregate::Mean,
        Some(a) => a.get_ref().parse().map_err(|_| {
            err(
                a.span().start,
                "aggregate",
                format!("'{}' is not mean, best or median", a.get_ref()),
            )
        })?,
    };
    let repeat = checked_numbers(&file, &err)?;
    let seed_memory = seed_memory(&file, &err)?;
    let volume = match &file.volume {
        None => None,
        Some(v) => Some(
            crate::units::parse_bytes(v.get_ref())
                .filter(|b| *b > 0)
                .ok_or_else(|| {
                    let msg = format!("volume = {:?}: not a size, e.g. \"100GiB\"", v.get_ref());
                    err(v.span().start, "volume", msg)
                })?,
        ),
    };
    let cache = suite_settings::cache(&file.cache, &err)?;
    let pauses = suite_settings::pauses(&file.pause, &file.pause_full, &file.pause_quick, &err)?;
    let fs_defaults = suite_settings::fs_defaults(&file.fs, &err)?;
    let workloads = file
        .workloads
        .iter()
        .map(|w| checked_workload(w, seed_memory, &err))
        .collect::<Result<Vec<_>, _>>()?;
    let mut workload_settings = BTreeMap::new();
    for w in &file.workloads {
        let mut s = suite_settings::workload(&w.method, &w.note, &err)?;
        let name = w.name.get_ref();
        let wl = workload::find(name).expect("checked by checked_workload");
        let metrics: Vec<String> = wl
            .metrics(&Params::default_for(wl.params()))
            .into_iter()
            .map(|m| m.name)
            .collect();
        (s.cache, s.phase_cache) =
            crate::cache_plan::workload_cache(&w.cache, &w.phase_cache, name, &metrics, &err)?;
        workload_settings.insert(name.clone(), s);
    }
    let rows = file
        .rows
        .into_iter()
        .map(|r| checked_row(r, &workloads, &err))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Suite {
        name: file.name,
        title: file.title,
        description: file.description,
        repeat,
        adapt: file.adapt,
        aggregate,
        cache,
        pauses,
        fs_defaults,
        workload_settings,
        seed_memory,
        volume,
        workloads,
        rows,
    })
}

/// The suite's `seed_memory` (the seed machine's RAM), checked as a size.
fn seed_memory(
    file: &SuiteFile,
    err: &dyn Fn(usize, &str, String) -> UsageError,
) -> Result<Option<u64>, UsageError> {
    Ok(match &file.seed_memory {
        None => None,
        Some(m) => Some(crate::units::parse_bytes(m.get_ref()).ok_or_else(|| {
            let msg = format!(
                "seed_memory = {:?}: not a size, e.g. \"768MiB\"",
                m.get_ref()
            );
            err(m.span().start, "seed_memory", msg)
        })?),
    })
}

/// One `[[workload]]`: a known workload whose parameters are counts or sizes that resolve.
fn checked_workload(
    w: &WorkloadEntry,
    seed_memory: Option<u64>,
    err: &dyn Fn(usize, &str, String) -> UsageError,
) -> Result<(String, BTreeMap<String, String>), UsageError> {
    let name = w.name.get_ref();
    if name.starts_with(workload::fio::PREFIX) || name.starts_with(workload::fs_mark::PREFIX) {
        // A job file's own refusal (its line and option) says more than "unknown".
        workload::find_or_refuse(name)
            .map_err(|e| err(w.name.span().start, "name", e.to_string()))?;
    }
    let Some(wl) = workload::find(name) else {
        return Err(err(
            w.name.span().start,
            "name",
            format!(
                "unknown workload '{name}'{} (known: {})",
                crate::suggest::hint(name, crate::suggest::names_in(&workload::names())),
                workload::names()
            ),
        ));
    };
    let params_at = w
        .params
        .as_ref()
        .map(|p| p.span().start)
        .unwrap_or(w.name.span().start);
    let mut params = BTreeMap::new();
    for (k, v) in w
        .params
        .as_ref()
        .map(|p| p.get_ref().iter())
        .into_iter()
        .flatten()
    {
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) if *i >= 0 => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return Err(err(
                    params_at,
                    k,
                    format!("value {other} is not a count or size"),
                ))
            }
        };
        params.insert(k.clone(), text);
    }
    // A multiple of seed_memory is checked at the size it has at standard scale.
    let mut sized = params.clone();
    crate::seed_sized::apply(
        name,
        &mut sized,
        wl.params(),
        seed_memory,
        Scale::Standard,
        0,
    )
    .and_then(|()| Params::resolve(name, wl.params(), Scale::Quick, 0, &sized))
    .map_err(|e| err(params_at, "params", e.to_string()))?;
    Ok((name.clone(), params))
}

/// One `[[row]]`: a pending row, or one naming a metric its workload produces.
fn checked_row(
    r: RowEntry,
    workloads: &[(String, BTreeMap<String, String>)],
    err: &dyn Fn(usize, &str, String) -> UsageError,
) -> Result<SuiteRow, UsageError> {
    let (wname, metric) = (r.workload.get_ref().clone(), r.metric.get_ref().clone());
    if r.pending.is_none() {
        check_row_metric(&r, workloads, err)?;
    }
    let aggregate = match &r.aggregate {
        None => None,
        Some(a) => Some(a.get_ref().parse().map_err(|_| {
            err(
                a.span().start,
                "aggregate",
                format!("'{}' is not mean, best, median, min or max", a.get_ref()),
            )
        })?),
    };
    Ok(SuiteRow {
        label: r.label,
        workload: wname,
        metric,
        pending: r.pending,
        aggregate,
        seed: r.seed,
    })
}

/// A measured row's workload is in the suite and produces its metric.
fn check_row_metric(
    r: &RowEntry,
    workloads: &[(String, BTreeMap<String, String>)],
    err: &dyn Fn(usize, &str, String) -> UsageError,
) -> Result<(), UsageError> {
    let (wname, metric) = (r.workload.get_ref(), r.metric.get_ref());
    let planned = workloads.iter().map(|(n, _)| n.as_str());
    let Some(p) = workload::participant(wname).filter(|p| p.runs_with(planned)) else {
        return Err(err(r.workload.span().start, "workload", format!("row '{}' names workload '{wname}', which is not in this suite's [[workload]] list (or mark the row pending = \"...\")", r.label)));
    };
    let known = p.metrics(&Params::default_for(p.params()));
    // A row may name a swept quantity: iozone's `write` stands for its points `write@8192`,
    // `write@16384`, ... (one table per test, as iozone's Excel report).
    let sweeps = |m: &crate::model::MetricSpec| {
        m.meta
            .as_ref()
            .is_some_and(|x| !x.dims.is_empty() && x.of.as_deref() == Some(metric.as_str()))
    };
    if !known.iter().any(|m| &m.name == metric || sweeps(m)) {
        let names: Vec<_> = known.iter().map(|m| m.name.as_str()).collect();
        return Err(err(
            r.metric.span().start,
            "metric",
            format!(
                "{} no metric '{metric}'{} (known: {})",
                p.rows_subject(),
                crate::suggest::hint(metric, names.iter().copied()),
                names.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The suite's own numbers, range-checked: `repeat` 1 to [`crate::params::MAX_REPEAT`]
/// (default 3); and at least one workload, since a suite without one would run and measure
/// nothing. Pauses are checked in [`suite_settings::pauses`].
fn checked_numbers(
    file: &SuiteFile,
    err: &dyn Fn(usize, &str, String) -> UsageError,
) -> Result<u32, UsageError> {
    let repeat = match &file.repeat {
        None => 3,
        Some(r) => crate::params::repeat(*r.get_ref()).map_err(|m| {
            err(
                r.span().start,
                "repeat",
                format!("repeat = {}: {m}", r.get_ref()),
            )
        })?,
    };
    if file.workloads.is_empty() {
        return Err(err(
            0,
            "workload",
            "the suite has no [[workload]]: add at least one, e.g. [[workload]] name = \"metadata\""
                .into(),
        ));
    }
    Ok(repeat)
}

pub use crate::label::render_label;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses() {
        for p in presets() {
            let s = load(p.name).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert!(!s.rows.is_empty());
        }
    }

    /// A suite written with iozone's `uring.depth` and randomio's `uring.batch` resolves to
    /// the same parameters as one written with the shared IO group's `depth` and `batch`, under
    /// the keys the workloads declare (so records, which keep those keys, read the same too).
    #[test]
    fn old_and_shared_io_names_resolve_the_same() {
        let suite = |depth: &str, batch: &str| {
            let text = format!(
                "name = \"x\"\n[[workload]]\nname = \"iozone\"\nparams = {{ \"{depth}\" = 4 }}\n\
                 [[workload]]\nname = \"randomio\"\nparams = {{ engine = \"io_uring\", \"{batch}\" = 2 }}\n"
            );
            let s = parse(&text, Path::new("s.toml")).unwrap();
            s.workloads
                .iter()
                .map(|(name, given)| {
                    let w = crate::workload::find(name).unwrap();
                    Params::resolve(name, w.params(), Scale::Quick, 0, given).unwrap()
                })
                .collect::<Vec<_>>()
        };
        let old = suite("uring.depth", "uring.batch");
        assert_eq!(old, suite("depth", "batch"));
        assert_eq!(old[0].get("uring.depth"), 4);
        assert_eq!(old[1].get("uring.batch"), 2);
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let text = "name = \"x\"\n\n[[workload]]\nname = \"metadata\"\nbogus = 1\n";
        let e = parse(text, Path::new("s.toml")).unwrap_err().to_string();
        assert!(e.contains("line 5"), "{e}");
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn repeat_pause_and_workloads_are_checked() {
        let base = "name = \"x\"\n[[workload]]\nname = \"metadata\"\n";
        let e = |extra: &str| {
            parse(&format!("{extra}\n{base}"), Path::new("s.toml"))
                .unwrap_err()
                .to_string()
        };
        assert!(
            e("repeat = 0").contains("key 'repeat': repeat = 0: must be"),
            "{}",
            e("repeat = 0")
        );
        assert!(e("repeat = -1").contains("repeat"));
        assert!(e("repeat = 4294967296").contains("repeat"));
        for key in ["pause", "pause_full", "pause_quick"] {
            for bad in ["nan", "inf", "-inf", "-1.0", "1e300"] {
                let m = e(&format!("{key} = {bad}"));
                assert!(m.contains(&format!("key '{key}'")), "{m}");
                assert_eq!(m.lines().count(), 1, "{m}");
            }
        }
        let m = parse("name = \"x\"\n", Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(m.contains("no [[workload]]"), "{m}");
        let s = parse(
            &format!("repeat = 5\npause = 2.5\n{base}"),
            Path::new("s.toml"),
        )
        .unwrap();
        assert_eq!((s.repeat, s.pauses.pause), (5, 2.5));
        let s = parse(&format!("pause = 3\n{base}"), Path::new("s.toml")).unwrap();
        assert_eq!(s.pauses.pause, 3.0, "an integer is a number of seconds too");
    }

    /// The seed's conditions: cache policy, pause (its old name too), per-workload method and
    /// note, per-filesystem options; every bad value names its line and key.
    #[test]
    fn cache_pause_method_and_fs_options_parse_and_are_checked() {
        let base = "name = \"x\"\ncache = \"none\"\npause = 10\npause_quick = 2\n\
            [fs.\"*\"]\nmount = \"noatime\"\n[fs.ntfs-3g]\nmount = \"\"\n\
            [[workload]]\nname = \"metadata\"\nmethod = \"commands\"\nnote = \"why\"\n";
        let s = parse(base, Path::new("s.toml")).unwrap();
        assert_eq!(s.cache, Some(CachePolicy::None));
        assert_eq!((s.pauses.pause, s.pauses.quick), (10.0, Some(2.0)));
        let w = &s.workload_settings["metadata"];
        assert_eq!(w.method, Some(crate::workload::Method::Commands));
        assert_eq!(w.note.as_deref(), Some("why"));
        assert_eq!(s.fs_defaults.get("xfs", "mount"), Some("noatime"));
        assert_eq!(
            s.fs_defaults.get("ntfs", "mount"),
            Some(""),
            "aliases are canonical"
        );
        let old = parse(
            "name = \"x\"\npause_full = 7\n[[workload]]\nname = \"metadata\"\n",
            Path::new("s.toml"),
        )
        .unwrap();
        assert_eq!(old.pauses.pause, 7.0, "pause_full is read as pause");
        let bad = |text: &str| parse(text, Path::new("s.toml")).unwrap_err().to_string();
        let wl = "[[workload]]\nname = \"metadata\"\n";
        let m = bad(&format!("name = \"x\"\ncache = \"lukewarm\"\n{wl}"));
        assert!(
            m.contains("line 2, key 'cache'") && m.contains("\"none\""),
            "{m}"
        );
        let m = bad(&format!("name = \"x\"\npause = 1\npause_full = 2\n{wl}"));
        assert!(
            m.contains("line 3, key 'pause_full'") && m.contains("only pause"),
            "{m}"
        );
        let m = bad(&format!("name = \"x\"\n{wl}method = \"shell\"\n"));
        assert!(m.contains("line 4, key 'method'"), "{m}");
        let m = bad(&format!(
            "name = \"x\"\n[fs.\"My FS\"]\nmount = \"a\"\n{wl}"
        ));
        assert!(m.contains("key 'fs'") && m.contains("My FS"), "{m}");
        let m = bad(&format!("name = \"x\"\n[fs.tmpfs]\nmkfs = \"-x\"\n{wl}"));
        assert!(m.contains("tmpfs has no mkfs"), "{m}");
        let m = bad(&format!("name = \"x\"\n[fs.xfs]\natime = \"off\"\n{wl}"));
        assert!(m.contains("atime"), "{m}");
    }

    /// The presets carry their seeds' settings (issue 12 §4).
    #[test]
    fn presets_state_their_seeds_conditions() {
        let s1 = load("piszcz2006").unwrap();
        assert_eq!((s1.cache, s1.pauses.pause), (Some(CachePolicy::None), 10.0));
        let commands = Some(crate::workload::Method::Commands);
        assert_eq!(s1.workload_settings["metadata"].method, commands);
        let s2 = load("prolinux2013").unwrap();
        assert_eq!(s2.fs_defaults.get("xfs", "mount"), Some("logbufs=8"));
        assert_eq!(s2.fs_defaults.get("ext4", "mount"), None);
        let bonnie = &s2.workloads.iter().find(|w| w.0 == "bonnie").unwrap().1;
        assert_eq!(
            (&bonnie["seekers"][..], &bonnie["seeks"][..]),
            ("5", "8192")
        );
        let s4 = load("zfs2007").unwrap();
        assert_eq!(s4.fs_defaults.get("btrfs", "mount"), Some("noatime"));
        assert_eq!(s4.fs_defaults.get("zfs", "mkfs"), Some("-O atime=off"));
        let ffsb = &s4.workloads.iter().find(|w| w.0 == "ffsb").unwrap().1;
        assert_eq!(ffsb["threads"], "4");
        assert!(s4.workload_settings["ffsb"].note.is_some());
        // S4 published single runs; its tree copy and tar came after its dd and randomio.
        assert_eq!(s4.repeat, 1);
        let cold = Some(&CachePolicy::Cold);
        let tree = &s4.workload_settings["tree"].phase_cache;
        assert_eq!((tree.get("copy_tree"), tree.get("tar")), (cold, cold));
        assert_eq!(tree.get("untar"), None);
        for p in presets() {
            assert!(
                load(p.name).unwrap().cache.is_some(),
                "{} states its cache",
                p.name
            );
        }
    }

    #[test]
    fn unknown_workload_names_line() {
        let text = "name = \"x\"\n[[workload]]\nname = \"nosuch\"\n";
        let e = parse(text, Path::new("s.toml")).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("nosuch"), "{e}");
    }

    #[test]
    fn row_without_workload_must_be_pending() {
        let text = "name = \"x\"\n[[workload]]\nname = \"metadata\"\n[[row]]\nlabel = \"a\"\nworkload = \"bonnie\"\nmetric = \"m\"\n";
        assert!(parse(text, Path::new("s.toml")).is_err());
        let text = format!("{text}pending = \"later\"\n");
        assert_eq!(parse(&text, Path::new("s.toml")).unwrap().rows.len(), 1);
    }

    /// The lifecycle's rows need no [[workload]] entry and are checked against its declared
    /// metrics, with the message naming the built-in rows and every metric they have.
    #[test]
    fn lifecycle_rows_are_checked_against_their_declaration() {
        let row = |m: &str| {
            format!("name = \"x\"\n[[workload]]\nname = \"metadata\"\n[[row]]\nlabel = \"a\"\nworkload = \"filesystem\"\nmetric = \"{m}\"\n")
        };
        for m in ["mkfs", "mount", "avail_mib", "umount"] {
            assert_eq!(parse(&row(m), Path::new("s.toml")).unwrap().rows.len(), 1);
        }
        let e = parse(&row("fsck"), Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 7, key 'metric': the built-in 'filesystem' rows have no metric 'fsck' (known: mkfs, mount, avail_mib, umount)"), "{e}");
    }

    #[test]
    fn a_row_may_carry_its_own_aggregate() {
        let base = "name = \"x\"\n[[workload]]\nname = \"metadata\"\n[[row]]\nlabel = \"a\"\nworkload = \"metadata\"\nmetric = \"touch_files\"\n";
        let s = parse(&format!("{base}aggregate = \"max\"\n"), Path::new("s.toml")).unwrap();
        assert_eq!(s.rows[0].aggregate, Some(fsbattery_stats::Aggregate::Max));
        let e = parse(
            &format!("{base}aggregate = \"worst\"\n"),
            Path::new("s.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("line 8, key 'aggregate'"), "{e}");
    }
}
