//! A suite's measuring conditions — cache policy, pause, per-workload method, per-filesystem
//! mkfs/mount options, the seed's memory — reach the plan (`--dry-run`), the run and its
//! record with their sources, and the command line overrides each of them.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// A suite file in `dir`: S1's conditions on a small metadata workload.
fn suite(dir: &Path) -> String {
    let text = "name = \"seedlike\"\nrepeat = 1\ncache = \"none\"\npause = 10\n\
                pause_quick = 0.05\n[fs.tmpfs]\nmount = \"noatime\"\n\
                [[workload]]\nname = \"metadata\"\nmethod = \"commands\"\n\
                note = \"one process per file, as the seed\"\nparams = { files = 20 }\n\
                [[workload]]\nname = \"stream\"\nparams = { size = \"1MiB\" }\n";
    let path = dir.join("seedlike.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn dry_run(cwd: &Path, args: &[&str]) -> String {
    let mut all = vec!["run", "--dry-run"];
    all.extend_from_slice(args);
    let o = run_in(cwd, &all);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

/// The plan shows the suite's policy, pause (shortened at quick, saying so), method and note;
/// each flag replaces the suite's value and the plan names the flag instead.
#[test]
fn the_plan_shows_the_suites_conditions_and_the_flags_that_override_them() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let s = suite(cwd.path());
    let out = dry_run(cwd.path(), &["--suite", &s, "--target", &spec]);
    for want in [
        "pause: 0.05 s (suite seedlike; shortened from 10 s at quick scale)",
        "cache: none (suite seedlike)",
        "method commands (suite seedlike)",
        "note: one process per file, as the seed",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    let out = dry_run(
        cwd.path(),
        &["--suite", &s, "--scale", "standard", "--target", &spec],
    );
    assert!(out.contains("pause: 10 s (suite seedlike) before"), "{out}");
    let flags = [
        "--suite", &s, "--target", &spec, "--cache", "cold", "--method", "native", "--pause", "0",
    ];
    let out = dry_run(cwd.path(), &flags);
    for want in [
        "pause: 0 s (--pause)",
        "cache: cold (--cache)",
        "method native (--method)",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
}

/// A real run: the samples are taken as commands after a sync with nothing dropped, and the
/// record says which cache policy, pause and method ran and who chose them.
#[test]
fn the_record_keeps_the_conditions_and_their_sources() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let s = suite(cwd.path());
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--suite",
            &s,
            "--target",
            &spec,
            "--out",
            "r",
            "--no-ceiling",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("pause: 0.05 s before each timed phase (shortened from 10 s"),
        "the run says the pause was shortened: {}",
        stderr(&o)
    );
    let rec = results(&cwd.path().join("r"));
    let set = &rec["plan"]["settings"];
    assert_eq!(set["cache"]["value"], "none");
    assert_eq!(set["cache"]["source"], "suite seedlike");
    assert_eq!(set["pause"]["value"], "0.05 s");
    assert_eq!(rec["plan"]["pause_secs"], 0.05);
    assert_eq!(rec["plan"]["cache"]["policy"], "none");
    assert_eq!(rec["plan"]["method"], "mixed");
    assert_eq!(set["workloads"][0]["method"], "commands");
    assert_eq!(set["workloads"][0]["source"], "suite seedlike");
    assert_eq!(set["workloads"][1]["method"], "native");
    assert_eq!(set["workloads"][1]["source"], "default");
    let cells = rec["cells"].as_array().unwrap();
    for c in cells {
        let want = if c["workload"] == "metadata" {
            "commands"
        } else {
            "native"
        };
        assert_eq!(c["method"], want, "{c}");
    }
    let preps: Vec<&Value> = cells
        .iter()
        .flat_map(|c| c["samples"].as_array().unwrap())
        .map(|s| &s["cache"]["prep"])
        .filter(|p| !p.is_null())
        .collect();
    assert!(!preps.is_empty(), "some phase measured its cache");
    assert!(preps.iter().all(|p| *p == "synced"), "{preps:?}");
}

/// Command mode asked for by the suite is checked when the plan is built, like `--method`.
#[test]
fn a_suite_workloads_commands_are_checked_at_plan_time() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let s = suite(cwd.path());
    let o = bin()
        .current_dir(cwd.path())
        .env("PATH", empty.path())
        .args(["run", "--suite", &s, "--target", &spec])
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("metadata runs as commands (suite seedlike) and needs `"),
        "{e}"
    );
    assert!(entries(target.path()).is_empty());
}

/// At standard scale the seed's memory is applied where the machine allows it, or the plan
/// says in one line why not; `--memory none` turns it off.
#[test]
fn the_seeds_memory_applies_at_standard_scale_or_says_why_not() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let base = [
        "--suite",
        "piszcz2006",
        "--workload",
        "split",
        "--scale",
        "standard",
        "--target",
        &spec,
    ];
    let out = dry_run(cwd.path(), &base);
    let applied = out.contains(
        "memory: every workload runs in a 768MiB memory cgroup, the seed's RAM (seed_memory of \
         piszcz2006 at standard scale; --memory none turns it off)",
    );
    let why = out
        .lines()
        .filter(|l| l.starts_with("memory: the seed's 768MiB (seed_memory) not applied: "))
        .count();
    assert!(
        applied != (why == 1),
        "applied, or one line why not:\n{out}"
    );
    let mut off = base.to_vec();
    off.extend(["--memory", "none"]);
    let out = dry_run(cwd.path(), &off);
    assert!(
        out.contains("no memory limit") && !out.contains("memory: "),
        "{out}"
    );
    // Quick scale keeps the machine's memory unless asked.
    let quick = [
        "--suite",
        "piszcz2006",
        "--workload",
        "split",
        "--target",
        &spec,
    ];
    let quick = dry_run(cwd.path(), &quick);
    assert!(!quick.contains("memory: "), "{quick}");
}

/// A suite's `[fs.NAME]` options reach the target, the plan and the record, and a target's
/// own `mount=` replaces them (root: tmpfs is mounted).
#[test]
fn a_suites_mount_options_reach_the_target_and_a_targets_own_win() {
    if !gate(
        "mounting tmpfs",
        if nix::unistd::geteuid().is_root() {
            &[]
        } else {
            &["root"]
        },
    ) {
        return;
    }
    let cwd = tempfile::tempdir().unwrap();
    let s = suite(cwd.path());
    let work = cwd.path().join("work");
    let work = work.to_str().unwrap();
    let common = ["--suite", &s, "--workdir", work, "--method", "native"];
    let mut dry = vec!["--target", "tmpfs:size=64M"];
    dry.extend(common);
    let out = dry_run(cwd.path(), &dry);
    assert!(
        out.contains("mount=noatime (suite seedlike; the suite's: \"noatime\")"),
        "{out}"
    );
    let mut own = vec!["--target", "tmpfs:size=64M,mount=nodev", "--dry-run"];
    own.extend(common);
    let mut args = vec!["run"];
    args.extend(own);
    let o = run_in(cwd.path(), &args);
    assert!(
        stdout(&o).contains("mount=nodev (--target; the suite's: \"noatime\")"),
        "{}",
        stdout(&o)
    );
    let mut args = vec!["run", "--target", "tmpfs:size=64M", "--out", "r", "--quiet"];
    args.extend(common);
    let o = run_in(cwd.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = results(&cwd.path().join("r"));
    let t = &rec["targets"][0];
    assert_eq!(t["options"]["mount"], "noatime");
    let opts = t["mount_options"].as_str().unwrap();
    assert!(opts.split(',').any(|o| o == "noatime"), "{opts}");
    let fs = &rec["plan"]["settings"]["fs_options"][0];
    assert_eq!(
        (&fs["key"], &fs["source"]),
        (&"mount".into(), &"suite seedlike".into())
    );
}

/// Without `--suite` a workload runs native under neutral settings (cache tool, no pause), and
/// the run is named by its workloads; no suite line precedes the run.
#[test]
fn without_a_suite_workloads_run_native_and_name_the_run() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let out = dry_run(cwd.path(), &["--workload", "metadata", "--target", &spec]);
    for want in [
        "plan: no suite (metadata at their defaults), scale quick, method native",
        "pause: 0 s (default)",
        "cache: tool (default)",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    assert!(
        !out.contains("piszcz2006") && !out.contains("commands"),
        "{out}"
    );
    let args = [
        "run",
        "--workload",
        "metadata",
        "--set",
        "metadata.files=20",
        "--target",
        &spec,
        "--repeat",
        "1",
        "--out",
        "r",
        "--no-ceiling",
    ];
    let o = run_in(cwd.path(), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("suite "), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("metadata — "), "{}", stdout(&o));
    let rec = results(&cwd.path().join("r"));
    assert_eq!(rec["plan"]["suite"], "metadata");
    assert_eq!(rec["plan"]["method"], "native");
    assert_eq!(rec["plan"]["cache"]["policy"], "tool");
    assert_eq!(rec["plan"]["settings"]["cache"]["source"], "default");
    assert_eq!(rec["plan"]["settings"]["pause"]["source"], "default");
    let rows = rec["plan"]["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["label"] == "Touch 20 Files"),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| r["seed"].is_null()), "no seed wording");
}

/// A preset's method and conditions are the first line of the run, as applied (a flag that
/// replaced one is named), before the first cell.
#[test]
fn a_presets_conditions_open_the_run_in_one_line() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let s = suite(cwd.path());
    let o = run_in(
        cwd.path(),
        &[
            "run",
            "--suite",
            &s,
            "--target",
            &spec,
            "--out",
            "r",
            "--no-ceiling",
            "--cache",
            "cold",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let first = err.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "fsbattery: suite seedlike: metadata as commands; stream native; cache cold (--cache); \
         pause 0.05 s; no memory limit",
        "{err}"
    );
}

/// A suite file's `[[workload]] cache` and `phase_cache` reach the plan (one line naming the
/// workload and phase), a phase that is no metric of the workload is refused in one line with
/// the key, and `--cache` replaces them (no such line).
#[test]
fn a_suites_cache_per_workload_and_phase_is_planned_and_checked() {
    let cwd = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let spec = format!("dir:{}", target.path().display());
    let write = |body: &str| {
        let path = cwd.path().join("phases.toml");
        let text = format!("name = \"phases\"\nrepeat = 1\ncache = \"tool\"\n{body}");
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let s = write(
        "[[workload]]\nname = \"metadata\"\nparams = { files = 20 }\n\
         phase_cache = { find_files = \"cold\" }\n\
         [[workload]]\nname = \"stream\"\nparams = { size = \"1MiB\" }\ncache = \"warm\"\n",
    );
    let out = dry_run(cwd.path(), &["--suite", &s, "--target", &spec]);
    assert!(
        out.contains("cache: metadata's find_files cold (suite phases)"),
        "{out}"
    );
    assert!(out.contains("cache: stream warm (suite phases)"), "{out}");
    let out = dry_run(
        cwd.path(),
        &["--suite", &s, "--target", &spec, "--cache", "cold"],
    );
    assert!(!out.contains("cache: metadata's"), "{out}");
    let bad = write("[[workload]]\nname = \"metadata\"\nphase_cache = { find_file = \"cold\" }\n");
    let o = run_in(
        cwd.path(),
        &["run", "--dry-run", "--suite", &bad, "--target", &spec],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let first = stderr(&o).lines().next().unwrap_or_default().to_string();
    assert!(first.contains("phase_cache"), "{first}");
    assert!(
        first.contains("'find_file' is not a phase of workload 'metadata'"),
        "{first}"
    );
    let bad = write("[[workload]]\nname = \"metadata\"\ncache = \"tepid\"\n");
    let o = run_in(
        cwd.path(),
        &["run", "--dry-run", "--suite", &bad, "--target", &spec],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

/// A suite's `volume` sizes loop images without `size=` (sparse: the space check counts what
/// the workloads write, so a 100 GiB volume plans on a disk with less free), a target's own
/// `size=` wins, and a volume that is not a size is refused in one line naming the key.
#[test]
fn a_suites_volume_sizes_the_loop_images() {
    let cwd = tempfile::tempdir().unwrap();
    let write = |volume: &str| {
        let path = cwd.path().join("volume.toml");
        let text = format!(
            "name = \"volume\"\nrepeat = 1\nvolume = \"{volume}\"\n\
             [[workload]]\nname = \"stream\"\nparams = {{ size = \"1MiB\" }}\n"
        );
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let bad = write("big");
    let o = run_in(cwd.path(), &["run", "--dry-run", "--suite", &bad]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let first = stderr(&o).lines().next().unwrap_or_default().to_string();
    assert!(first.contains("volume = \"big\": not a size"), "{first}");
    if !loop_ext4_available() {
        return;
    }
    // Larger than this machine's free space (sparse images only use what is written).
    let s = write("64TiB");
    let out = dry_run(
        cwd.path(),
        &[
            "--suite",
            &s,
            "--target",
            "loop:ext4",
            "--target",
            "loop:ext4,size=1G",
        ],
    );
    assert!(out.contains("1 sparse image(s) of 64TiB"), "{out}");
    assert!(out.contains("1 sparse image(s) of 1GiB"), "{out}");
}
