//! Generated malformed inputs — every workload parameter × bad text and out-of-range values,
//! numeric flags, target specs, suite files — each run through the real binary, unprivileged.
//!
//! Every case must exit 2 with exactly one line on stderr ("fsbattery: error: ..." naming what
//! was wrong), print nothing on stdout, never panic, and create nothing: no output directory,
//! no work directory, nothing in the writable `dir:` target each case is given. A case that
//! validation lets through would start a run there and fail these checks, so the test also
//! guards against validation that is too lenient. Clap's errors count the same way: `main`
//! renders them as one line.

mod common;
use common::*;
use fsbattery_core::params::{ParamKind, MAX_REPEAT};
use fsbattery_core::workload::registry;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// One malformed invocation of `fsbattery run` and a fragment its error must contain.
struct Case {
    args: Vec<String>,
    needle: String,
}

fn case(args: &[&str], needle: &str) -> Case {
    Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        needle: needle.to_string(),
    }
}

/// Text that is no count and no size (or overflows one), whatever the parameter.
const BAD_TEXT: [&str; 14] = [
    "",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e300",
    "18446744073709551616",
    "99999999999999999999999999",
    "12XB",
    "1.5",
    "0x10",
    "16EiB",
    "1 000",
    "½",
];

/// Every parameter of every workload, each with a bad value: the malformed texts in turn, then
/// one below the minimum and one above the maximum where those exist.
fn parameter_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut turn = 0usize;
    for w in registry() {
        for p in w.params() {
            let mut values: Vec<String> = Vec::new();
            match p.kind {
                ParamKind::Choice(_) => values.push("nosuch".into()),
                _ => {
                    values.push(BAD_TEXT[turn % BAD_TEXT.len()].into());
                    turn += 1;
                    if p.min > 0 {
                        values.push((p.min - 1).to_string());
                    }
                    if p.max < u64::MAX {
                        values.push((u128::from(p.max) + 1).to_string());
                    }
                }
            }
            for v in values {
                let set = format!("{}.{}={v}", w.name(), p.name);
                out.push(case(&["--workload", w.name(), "--set", &set], &set));
            }
        }
    }
    out
}

/// Numeric and enumerated flags with values out of range or of the wrong kind, and malformed
/// `--set`, `--workload` and `--suite` values.
fn flag_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let too_many = (MAX_REPEAT + 1).to_string();
    for v in [
        "0",
        "-1",
        "1.5",
        "nan",
        "",
        "x",
        &too_many,
        "99999999999999999999",
    ] {
        out.push(case(&["--repeat", v], "--repeat"));
    }
    for v in ["0", "-1", "4097", "1e3", "", "-0"] {
        out.push(case(&["--jobs", v], "--jobs"));
    }
    for v in [
        "nan", "inf", "-inf", "-1", "1e300", "3601", "", "ten", "NaN",
    ] {
        out.push(case(&["--pause", v], "--pause"));
    }
    for (flag, v) in [
        ("--scale", "huge"),
        ("--scale", ""),
        ("--aggregate", "x"),
        ("--aggregate", "min"),
        ("--method", "x"),
        ("--fresh", "never"),
    ] {
        out.push(case(&[flag, v], flag));
    }
    out.push(case(&["--repeat"], "--repeat"));
    out.push(case(&["--bogus"], "--bogus"));
    for (v, needle) in [
        ("noequals", "WORKLOAD.PARAM=VALUE"),
        ("=", "WORKLOAD.PARAM=VALUE"),
        (".=", "unknown workload ''"),
        ("metadata.=1", "metadata."),
        ("nosuch.files=1", "unknown workload 'nosuch'"),
        ("metadata.files", "WORKLOAD.PARAM=VALUE"),
        ("metadata.nosuch=1", "metadata.nosuch"),
        ("stream.size=10", "stream.size=10"),
        (
            "stream.size=9223372036855824384",
            "stream.size=9223372036855824384",
        ),
        (
            "stream.size=0",
            "stream.size=0: must be between 4KiB and 1EiB",
        ),
        (
            "metadata.files=0",
            "metadata.files=0: must be between 1 and",
        ),
    ] {
        out.push(case(&["--set", v], needle));
    }
    out.push(case(&["--set", "dd.size=1G"], "not in this run"));
    // Each value in range, their product beyond u64: refused as too large, never wrapped.
    out.push(case(
        &[
            "--workload",
            "ffsb",
            "--set",
            "ffsb.files=100000000",
            "--set",
            "ffsb.file_size=1EiB",
        ],
        "too large",
    ));
    out.push(case(&["--workload", ","], "--workload"));
    for v in ["nosuch", "metadata,nosuch", " "] {
        out.push(case(&["--workload", v], "workload"));
    }
    out.push(case(&["--suite", "nosuch"], "nosuch"));
    out.push(case(&["--tree-tarball", "/no/such.tar"], "--tree-tarball"));
    out
}

/// Values each in range whose combination no run can honour: refused by the workload's
/// `check` when the plan is built, not as a failed cell after mkfs.
fn relation_cases() -> Vec<Case> {
    [
        ("postmark", "postmark.size_low=20000", "size_low"),
        ("dd", "dd.size=4K", "smaller than one block"),
        ("iozone", "iozone.min_record=2M", "min_record"),
        ("ffsb", "ffsb.threads=100", "threads need"),
        ("ffsb", "ffsb.file_size=5000", "file_size"),
        ("bonnie", "bonnie.size=4K", "chunk"),
        ("bonnie", "bonnie.min_size=5000", "min_size"),
        ("randomio", "randomio.request=1G", "request"),
    ]
    .into_iter()
    .map(|(w, set, needle)| case(&["--workload", w, "--set", set], needle))
    .collect()
}

/// Target specs that must be refused before anything is made (and before the root check).
fn target_cases() -> Vec<Case> {
    [
        ("loop:", "no filesystem"),
        ("loop:ext4,size=0", "must be a size"),
        ("loop:ext4,size=-1", "must be a size"),
        ("loop:ext4,size=1e300", "must be a size"),
        ("loop:ext4,size=2E", "must be a size"),
        ("loop:ext4,size=18446744073709551616", "must be a size"),
        ("loop:ext4,size=", "must be a size"),
        ("loop:xfs,size=1M", "too small"),
        ("loop:ext4,devices=0", "1 to 16"),
        ("loop:btrfs,devices=17", "1 to 16"),
        ("loop:btrfs,devices=-1", "not a count"),
        ("loop:btrfs,devices=nan", "not a count"),
        (
            "loop:ext4,journal=external,journal_size=0",
            "must be a size",
        ),
        ("loop:ext4,journal=external,journal_size=1M", "at least"),
        ("loop:ext4,colour=red", "unknown option"),
        ("loop:ext4,size=1G,size=2G", "twice"),
        ("loop:ext4,mkfs='-q", "unbalanced"),
        ("loop:No/Such", "not a filesystem name"),
        ("loop:zfs,devices=3,layout=mirror", "odd"),
        ("tmpfs:size=1e300", "must be a size"),
        ("tmpfs:size=0", "must be a size"),
        ("tmpfs:size=nan", "must be a size"),
        ("tmpfs:,,", "unknown option"),
        ("tmpfs:label=", "label="),
        ("dir:", "no path"),
        ("dir:/no/such/dir", "/no/such/dir"),
        ("dev:", "dev:/dev/NAME"),
        ("dev:sdb", "dev:/dev/NAME"),
        ("dev:/dev/../etc", "dev:/dev/NAME"),
        ("warp:/x", "unknown target kind"),
        ("", "unknown target kind"),
    ]
    .into_iter()
    .map(|(spec, needle)| case(&["--target", spec], needle))
    .collect()
}

/// Suite files (written to `dir`) with bad numbers, no workloads, broken syntax or garbage.
fn suite_cases(dir: &Path) -> Vec<Case> {
    let wl = "[[workload]]\nname = \"metadata\"\n";
    let files: Vec<(&str, Vec<u8>, &str)> = vec![
        ("repeat0", format!("name = \"x\"\nrepeat = 0\n{wl}").into(), "repeat"),
        ("repeatneg", format!("name = \"x\"\nrepeat = -1\n{wl}").into(), "repeat"),
        ("repeatbig", format!("name = \"x\"\nrepeat = 4294967296\n{wl}").into(), "repeat"),
        ("repeatfloat", format!("name = \"x\"\nrepeat = 1.5\n{wl}").into(), "repeat"),
        ("pausenan", format!("name = \"x\"\npause_full = nan\n{wl}").into(), "pause_full"),
        ("pauseinf", format!("name = \"x\"\npause_full = inf\n{wl}").into(), "pause_full"),
        ("pauseneg", format!("name = \"x\"\npause_full = -1.0\n{wl}").into(), "pause_full"),
        ("pausehuge", format!("name = \"x\"\npause_full = 1e300\n{wl}").into(), "pause_full"),
        ("noworkload", b"name = \"x\"\n".to_vec(), "no [[workload]]"),
        ("empty", Vec::new(), "name"),
        ("unknownkey", format!("name = \"x\"\ncolour = 1\n{wl}").into(), "colour"),
        ("syntax", b"name = \"x\"\n[[workload]\n".to_vec(), "line 2"),
        ("garbage", vec![0xff, 0xfe, 0x00, 0x9f, 0x92, 0x96, 0x0a, 0xc3], "suite file"),
        ("nul", b"name = \"x\0\"\n".to_vec(), "suite file"),
        ("files0", format!("name = \"x\"\n{wl}params = {{ files = 0 }}\n").into(), "metadata.files=0"),
        ("filesneg", format!("name = \"x\"\n{wl}params = {{ files = -1 }}\n").into(), "files"),
        ("filesfloat", format!("name = \"x\"\n{wl}params = {{ files = 1.5 }}\n").into(), "files"),
        ("filesnan", format!("name = \"x\"\n{wl}params = {{ files = nan }}\n").into(), "files"),
        ("filestext", format!("name = \"x\"\n{wl}params = {{ files = \"many\" }}\n").into(), "metadata.files=many"),
        ("filesbig", format!("name = \"x\"\n{wl}params = {{ files = 9223372036854775807 }}\n").into(), "metadata.files"),
        ("nosuchparam", format!("name = \"x\"\n{wl}params = {{ nosuch = 1 }}\n").into(), "nosuch"),
        ("nosuchworkload", b"name = \"x\"\n[[workload]]\nname = \"warp\"\n".to_vec(), "warp"),
        ("badaggregate", format!("name = \"x\"\naggregate = \"worst\"\n{wl}").into(), "aggregate"),
        ("rowmissing", format!("name = \"x\"\n{wl}[[row]]\nlabel = \"a\"\nworkload = \"stream\"\nmetric = \"create\"\n").into(), "stream"),
        ("streamzero", b"name = \"x\"\n[[workload]]\nname = \"stream\"\nparams = { size = \"0\" }\n".to_vec(), "stream.size=0"),
    ];
    files
        .into_iter()
        .map(|(name, text, needle)| {
            let path = dir.join(format!("{name}.toml"));
            std::fs::write(&path, text).unwrap();
            case(&["--suite", path.to_str().unwrap()], needle)
        })
        .collect()
}

/// Run one case in `root` and return what is wrong with its outcome, if anything.
fn check(root: &Path, target: &Path, c: &Case) -> Option<String> {
    let out = root.join("out");
    let work = root.join("work");
    let mut args: Vec<String> = vec!["run".into(), "--out".into(), out.display().to_string()];
    args.extend(["--workdir".into(), work.display().to_string()]);
    if !c.args.iter().any(|a| a == "--target") {
        args.extend(["--target".into(), format!("dir:{}", target.display())]);
    }
    args.extend(c.args.iter().cloned());
    let o = unprivileged()
        .current_dir(root)
        .env("RUST_BACKTRACE", "1")
        .args(&args)
        .output()
        .expect("spawn fsbattery");
    let (err, so) = (stderr(&o), stdout(&o));
    let lines: Vec<&str> = err.lines().collect();
    let problem = if o.status.code() != Some(2) {
        Some(format!("exit {:?}", o.status))
    } else if lines.len() != 1 || !lines[0].starts_with("fsbattery: error: ") {
        Some(format!("{} stderr lines", lines.len()))
    } else if err.contains("panicked") || err.contains("backtrace") {
        Some("panicked".into())
    } else if !err.contains(&c.needle) {
        Some(format!("no '{}' in the message", c.needle))
    } else if err.contains("needs root") {
        Some("got as far as the root check".into())
    } else if !so.is_empty() {
        Some("wrote to stdout".into())
    } else if out.exists() || work.exists() || !entries(target).is_empty() {
        Some("created files".into())
    } else {
        None
    };
    // Leave the next case a clean slate, so one lenient check shows as one failure.
    for d in [&out, &work] {
        let _ = std::fs::remove_dir_all(d);
    }
    for e in entries(target).iter().rev() {
        let _ = std::fs::remove_file(e).or_else(|_| std::fs::remove_dir(e));
    }
    problem.map(|p| format!("{:?}: {p}\n  stderr: {err}", c.args))
}

#[test]
fn generated_malformed_inputs_exit_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    // Unprivileged runs (setpriv nobody, as root) must reach the tempdir and write the target:
    // an unwritable target would be refused for the wrong reason and hide a lenient check.
    // Sticky like /tmp: a work directory under a folder others can write without it is refused.
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let suites = tmp.path().join("suites");
    std::fs::create_dir(&suites).unwrap();
    std::fs::set_permissions(&suites, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cases = parameter_cases();
    cases.extend(flag_cases());
    cases.extend(target_cases());
    cases.extend(relation_cases());
    cases.extend(suite_cases(&suites));
    assert!(cases.len() >= 100, "only {} cases", cases.len());

    // Each worker gets its own root and target so the "created nothing" checks are its own.
    let workers = 4;
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|i| {
                let cases = &cases;
                let root = tmp.path().join(format!("w{i}"));
                s.spawn(move || {
                    let target = root.join("target");
                    std::fs::create_dir_all(&target).unwrap();
                    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o1777))
                        .unwrap();
                    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o777))
                        .unwrap();
                    cases
                        .iter()
                        .skip(i)
                        .step_by(workers)
                        .filter_map(|c| check(&root, &target, c))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} malformed inputs mishandled:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
