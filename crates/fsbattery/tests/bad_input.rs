//! Every bad input gets one clear line, exit status 2, and no output directory.

mod common;
use common::*;
use std::path::Path;

fn assert_refused(cwd: &Path, args: &[&str], needle: &str) {
    let mut full = vec!["run", "--out", "out"];
    full.extend_from_slice(args);
    let o = run_in(cwd, &full);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{args:?}: stderr {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        !cwd.join("out").exists(),
        "{args:?} wrote an output directory"
    );
    assert!(
        !cwd.join("fsbattery-work").exists(),
        "{args:?} made a work directory"
    );
}

#[test]
fn unknown_names_are_refused() {
    let cwd = tempfile::tempdir().unwrap();
    assert_refused(
        cwd.path(),
        &["--workload", "nosuch"],
        "unknown workload 'nosuch'",
    );
    assert_refused(cwd.path(), &["--suite", "nosuch"], "unknown suite 'nosuch'");
    assert_refused(
        cwd.path(),
        &["--target", "warp:/x"],
        "unknown target kind 'warp'",
    );
    assert_refused(cwd.path(), &["--set", "metadata.nope=1"], "metadata.nope");
    assert_refused(
        cwd.path(),
        &["--tree-tarball", "/no/such.tar"],
        "--tree-tarball",
    );
    assert_refused(cwd.path(), &["--set", "tree.kernel=2699"], "2699");
}

/// A mistyped workload, suite, target kind, filesystem, parameter or suite-file metric is
/// answered with the closest known name, in the same one line.
#[test]
fn mistyped_names_get_a_did_you_mean() {
    let cwd = tempfile::tempdir().unwrap();
    let c = cwd.path();
    assert_refused(
        c,
        &["--workload", "metdata"],
        "'metdata' (did you mean 'metadata'?)",
    );
    assert_refused(
        c,
        &["--suite", "piszcz206"],
        "'piszcz206' (did you mean 'piszcz2006'?)",
    );
    assert_refused(c, &["--target", "lop:ext4"], "'lop' (did you mean 'loop'?)");
    assert_refused(
        c,
        &["--target", "loop:ext5"],
        "'ext5' (did you mean 'ext4'?)",
    );
    assert_refused(
        c,
        &["--workload", "metadata", "--set", "metadata.filez=3"],
        "'metadata.filez' (did you mean 'files'?)",
    );
    assert_refused(
        c,
        &["--workload", "metadata", "--set", "metdata.files=3"],
        "unknown workload 'metdata' (did you mean 'metadata'?)",
    );
    let suite = c.join("typo.toml");
    std::fs::write(
        &suite,
        "name = \"typo\"\n[[workload]]\nname = \"metadata\"\n[[row]]\nlabel = \"t\"\n\
         workload = \"metadata\"\nmetric = \"touch_file\"\n",
    )
    .unwrap();
    let s = suite.display().to_string();
    assert_refused(
        c,
        &["--suite", &s],
        "'touch_file' (did you mean 'touch_files'?)",
    );
    assert_refused(
        c,
        &["--workload", "qqqqqq"],
        "unknown workload 'qqqqqq': choose",
    );
}

#[test]
fn bad_target_paths_are_refused() {
    let cwd = tempfile::tempdir().unwrap();
    assert_refused(
        cwd.path(),
        &["--target", "dir:/no/such/dir"],
        "/no/such/dir",
    );
    let file = cwd.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    assert_refused(
        cwd.path(),
        &["--target", &format!("dir:{}", file.display())],
        "not a directory",
    );
}

#[test]
fn unwritable_target_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let cwd = tempfile::tempdir().unwrap();
    // Sticky like /tmp: writable by the unprivileged user, yet an acceptable work directory.
    std::fs::set_permissions(cwd.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let ro = cwd.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let spec = format!("dir:{}", ro.display());
    let mut cmd = unprivileged();
    let o = cmd
        .current_dir(cwd.path())
        .args(["run", "--out", "out", "--target", &spec])
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("not writable"), "{}", stderr(&o));
    assert!(!cwd.path().join("out").exists());
}

#[test]
fn zero_repeats_are_refused() {
    let cwd = tempfile::tempdir().unwrap();
    let o = run_in(cwd.path(), &["run", "--out", "out", "--repeat", "0"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--repeat"), "{}", stderr(&o));
    assert!(!cwd.path().join("out").exists());
}

#[test]
fn malformed_suite_file_names_line_and_key() {
    let cwd = tempfile::tempdir().unwrap();
    let suite = cwd.path().join("bad.toml");
    std::fs::write(
        &suite,
        "name = \"bad\"\n\n[[workload]]\nname = \"metadata\"\nfilez = 3\n",
    )
    .unwrap();
    assert_refused(
        cwd.path(),
        &["--suite", suite.to_str().unwrap()],
        "line 5, key 'filez'",
    );
    std::fs::write(&suite, "name = \"bad\"\n[[workload]]\nname = \"warp\"\n").unwrap();
    assert_refused(
        cwd.path(),
        &["--suite", suite.to_str().unwrap()],
        "line 3, key 'name'",
    );
    std::fs::write(&suite, "name = \"bad\"\n[[workload]\n").unwrap();
    assert_refused(cwd.path(), &["--suite", suite.to_str().unwrap()], "line 2");
}

/// Issue 15 §3: inputs that panicked, ran measuring nothing, or wrapped an overflow.
#[test]
fn numbers_are_range_checked_with_the_range_in_the_message() {
    let cwd = tempfile::tempdir().unwrap();
    let suite = |name: &str, text: &str| {
        let p = cwd.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let wl = "[[workload]]\nname = \"metadata\"\n";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--pause".into(), "1e300".into()], "--pause"),
        (
            vec!["--set".into(), "metadata.files=0".into()],
            "metadata.files=0: must be between 1 and 100000000",
        ),
        (
            vec!["--set".into(), "stream.size=0".into()],
            "stream.size=0: must be between 4KiB and 1EiB",
        ),
        (
            vec!["--set".into(), "stream.size=9223372036855824384".into()],
            "must be between 4KiB and 1EiB",
        ),
        (
            vec![
                "--suite".into(),
                suite("r.toml", &format!("name = \"x\"\nrepeat = 0\n{wl}")),
            ],
            "repeat = 0: must be a whole number from 1 to",
        ),
        (
            vec!["--suite".into(), suite("n.toml", "name = \"x\"\n")],
            "no [[workload]]",
        ),
        (
            vec![
                "--scale".into(),
                "full".into(),
                "--suite".into(),
                suite("p.toml", &format!("name = \"x\"\npause_full = -1.0\n{wl}")),
            ],
            "pause_full = -1: must be a number of seconds from 0 to 3600",
        ),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(cwd.path(), &args, needle);
    }
}

/// Issue 10: a negative number is a value out of range, not an unknown flag.
#[test]
fn negative_numbers_get_the_range_not_unexpected_argument() {
    let cwd = tempfile::tempdir().unwrap();
    for (flag, value, range) in [
        ("--repeat", "-1", "from 1 to 10000"),
        ("--jobs", "-1", "from 1 to 4096"),
        ("--jobs", "0", "from 1 to 4096"),
        ("--pause", "-1", "from 0 to 3600"),
        ("--pause", "nan", "from 0 to 3600"),
    ] {
        let o = run_in(cwd.path(), &["run", "--out", "out", flag, value]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{flag} {value}: {err}");
        assert!(
            err.contains(flag) && err.contains(range),
            "{flag} {value}: {err}"
        );
        assert!(!err.contains("unexpected argument"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn repeat_auto_and_age_mistakes_are_refused() {
    let cwd = tempfile::tempdir().unwrap();
    let dir = cwd.path().display().to_string();
    let target = format!("dir:{dir}");
    assert_refused(
        cwd.path(),
        &["--target", &target, "--precision", "2"],
        "--precision applies to --repeat auto",
    );
    assert_refused(
        cwd.path(),
        &["--target", &target, "--repeat", "auto:5..3"],
        "auto:MIN..MAX",
    );
    assert_refused(
        cwd.path(),
        &["--target", &target, "--age", "70"],
        "--age fills a filesystem fsbattery makes",
    );
    assert_refused(
        cwd.path(),
        &["--target", &target, "--age", "99"],
        "PCT from 1 to 95",
    );
}

/// A refusal comes before every notice: `--out` at a directory that holds a run, under a
/// suite whose shortened pause would otherwise be said first, is one line.
#[test]
fn a_refusal_is_the_first_and_only_line() {
    let work = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("r")).unwrap();
    std::fs::write(work.path().join("r/journal.jsonl"), "").unwrap();
    let spec = format!("dir:{}", target.path().display());
    let o = run_in(
        work.path(),
        &[
            "run",
            "--suite",
            "piszcz2006",
            "--target",
            &spec,
            "--workload",
            "metadata",
            "--out",
            "r",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("already holds a run"), "{}", stderr(&o));
}
