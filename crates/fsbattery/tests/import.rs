//! `fsbattery import` on real output captured here: fio's JSON (three runs → n = 3) and a
//! bonnie++ CSV line, shown by `report` beside a native run, and `compare` between imported fio
//! and native randomio of the same parameters (exit 0), or of a different block size (exit 2,
//! naming `randomio.request` and the `--set` that would match it). Each test skips when its
//! tool is missing, unless FSBATTERY_REQUIRE_PRIVILEGED=1, where a missing tool fails it.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// Whether `tool` runs (`tool ARG` exits at all); else skip, or fail under CI.
fn have(tool: &str, arg: &str) -> bool {
    if Command::new(tool).arg(arg).output().is_ok() {
        return true;
    }
    let msg = format!("{tool} not found: install the {tool} package");
    if std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{msg} (FSBATTERY_REQUIRE_PRIVILEGED=1)");
    }
    eprintln!("skipped: {msg}");
    false
}

/// One second of 4 KiB random buffered reads of a 16 MiB file with fio; its JSON in `out`.
fn fio(dir: &Path, bs: &str, out: &Path) {
    let file = dir.join("fio.data");
    let o = Command::new("fio")
        .args([
            "--name=t",
            "--size=16M",
            "--rw=randread",
            "--ioengine=psync",
        ])
        .args(["--runtime=1", "--time_based", "--output-format=json"])
        .arg(format!("--bs={bs}"))
        .arg(format!("--filename={}", file.display()))
        .output()
        .expect("spawn fio");
    assert!(o.status.success(), "fio: {}", stderr(&o));
    std::fs::write(out, &o.stdout).unwrap();
}

/// A native run of `workload` on a fresh directory target labelled "dir", into `out`.
fn native(cwd: &Path, workload: &str, sets: &[&str], out: &str) {
    let target = cwd.join(format!("{out}-target"));
    std::fs::create_dir(&target).unwrap();
    let spec = format!("dir:{}", target.display());
    let mut args = vec!["run", "--target", &spec, "--workload", workload];
    args.extend(["--repeat", "1", "--out", out]);
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = run_in(cwd, &args);
    assert_eq!(code(&o), 0, "native run: {}", stderr(&o));
}

/// randomio parameters fio's `--rw=randread --bs=4k --size=16M --runtime=1` job maps onto.
const RANDREAD_4K: &[&str] = &[
    "randomio.threads=1",
    "randomio.write_pct=0",
    "randomio.request=4096",
    "randomio.size=16777216",
    "randomio.runtime=1",
    "randomio.direct=0",
];

#[test]
fn fio_runs_import_beside_native_randomio_and_compare_with_it() {
    if !have("fio", "--version") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let files: Vec<String> = (1..=3).map(|i| format!("run{i}.json")).collect();
    for f in &files {
        fio(w, "4k", &w.join(f));
    }
    let mut args = vec!["import"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--label", "fio", "--target", "dir", "--out", "fio-imported"]);
    let o = run_in(w, &args);
    assert_eq!(code(&o), 0, "import: {}", stderr(&o));
    let rec = results(&w.join("fio-imported"));
    assert_eq!(rec["source"]["tool"], "fio");
    assert!(rec["source"]["version"]
        .as_str()
        .unwrap()
        .starts_with("fio-3"));
    let iops = rec["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "read_iops");
    let iops = iops.expect("a read_iops cell");
    assert_eq!(iops["samples"].as_array().unwrap().len(), 3);
    assert!(iops["samples"][0]["value"].as_f64().unwrap() > 0.0);

    native(w, "randomio", RANDREAD_4K, "native");
    let o = run_in(w, &["report", "native", "fio-imported"]);
    assert_eq!(code(&o), 0, "report: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("randomio create"),
        "native table missing:\n{out}"
    );
    assert!(
        out.contains("fio — mean of 3 run(s)"),
        "imported table missing:\n{out}"
    );
    let html = w.join("both.html");
    let html_arg = html.to_str().unwrap();
    let o = run_in(w, &["report", "native", "fio-imported", "--html", html_arg]);
    assert_eq!(code(&o), 0, "report --html: {}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("native") && page.contains("fio-imported"));

    let o = run_in(w, &["compare", "native", "fio-imported"]);
    assert_eq!(code(&o), 0, "compare: {}", stderr(&o));
    assert!(
        stdout(&o).contains("randomio read_lat_p99"),
        "{}",
        stdout(&o)
    );

    fio(w, "8k", &w.join("bs8k.json"));
    let o = run_in(
        w,
        &[
            "import",
            "bs8k.json",
            "--label",
            "fio",
            "--target",
            "dir",
            "--out",
            "fio-8k",
        ],
    );
    assert_eq!(code(&o), 0, "import: {}", stderr(&o));
    let o = run_in(w, &["compare", "native", "fio-8k"]);
    assert_eq!(code(&o), 2, "compare: {}", stdout(&o));
    assert!(
        stderr(&o).contains("randomio.request: 4096 vs 8192"),
        "{}",
        stderr(&o)
    );
    // ... and says which --set would make the native run measure what fio did.
    assert!(
        stderr(&o).contains(
            "fsbattery: to measure what fio-8k measured, run native again with --set \
             randomio.request=8192"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bonnie_csv_imports_beside_native_bonnie_with_plus_signs_missing() {
    if !have("bonnie++", "-h") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let scratch = w.join("bonnie-dir");
    std::fs::create_dir(&scratch).unwrap();
    // -r 32: claim 32 MiB of RAM so a 64 MiB file is allowed (bonnie++ wants 2 × RAM).
    let mut cmd = Command::new("bonnie++");
    cmd.arg("-d")
        .arg(&scratch)
        .args(["-s", "64m", "-n", "1", "-r", "32", "-f", "-q"]);
    if nix::unistd::geteuid().is_root() {
        cmd.args(["-u", "root"]);
    }
    let o = cmd.output().expect("spawn bonnie++");
    assert!(o.status.success(), "bonnie++: {}", stderr(&o));
    std::fs::write(w.join("bonnie.csv"), &o.stdout).unwrap();

    let o = run_in(
        w,
        &[
            "import",
            "bonnie.csv",
            "--label",
            "bonnie++",
            "--target",
            "dir",
            "--out",
            "bonnie-imported",
        ],
    );
    assert_eq!(code(&o), 0, "import: {}", stderr(&o));
    let rec = results(&w.join("bonnie-imported"));
    assert_eq!(rec["source"]["tool"], "bonnie++");
    assert_eq!(rec["plan"]["workloads"][0]["name"], "bonnie");
    for c in rec["cells"].as_array().unwrap() {
        // Every value is either measured (> 0) or missing with bonnie++'s reason: never zero.
        match c["status"]["state"].as_str().unwrap() {
            "ok" => assert!(c["samples"][0]["value"].as_f64().unwrap() > 0.0, "{c}"),
            "missing" => assert!(c["status"]["reason"].as_str().unwrap().contains("+++++")),
            other => panic!("unexpected status {other}: {c}"),
        }
    }

    let sets = ["bonnie.files=1024", "bonnie.seeks=200"];
    native(w, "bonnie", &sets, "native");
    let o = run_in(
        w,
        &[
            "report",
            "native",
            "bonnie-imported",
            "--format",
            "markdown",
        ],
    );
    assert_eq!(code(&o), 0, "report: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("imported:bonnie++"),
        "imported run missing:\n{out}"
    );
    assert!(
        out.matches("bonnie seq_create").count() >= 2,
        "rows do not line up:\n{out}"
    );
}

#[test]
fn unusable_input_is_one_line_and_exit_2() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    std::fs::write(w.join("notes.txt"), "hello\n").unwrap();
    std::fs::write(w.join("bonnie.csv"), BONNIE_PLUS).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["import", "notes.txt", "--label", "x"],
            "--from fio|bonnie|iozone",
        ),
        (&["import", "absent.json", "--label", "x"], "absent.json"),
        (
            &["import", "bonnie.csv", "--label", "x", "--from", "dd"],
            "choose one of fio, bonnie, iozone",
        ),
        (
            &["import", "bonnie.csv", "--label", "x", "--from", "fio"],
            "bonnie.csv: ",
        ),
    ];
    for (args, want) in cases {
        let o = run_in(w, args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(
            err.contains(want) && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // A second import into the same directory is refused rather than overwriting it.
    let args = ["import", "bonnie.csv", "--label", "x", "--out", "imp"];
    assert_eq!(code(&run_in(w, &args)), 0);
    let o = run_in(w, &args);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("already holds a run"), "{}", stderr(&o));
}

/// bonnie++ 2.00a's CSV line from a run too fast to measure (every rate "+++++").
const BONNIE_PLUS: &str = "1.98,2.00a,vm,1,1795437725,64M,,8192,5,,,+++++,+++,+++++,+++,,,\
+++++,+++,+++++,+++,1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,,248us,\
130us,,76us,28074us,3025us,58us,1519us,1099us,4us,76us\n";

/// S3's own published output (seed 003: iozone -Ra -I -+u, whose CPU blocks once failed the
/// import with "'Writer' is not a size in KiB") imports as two runs, XFS's and EXT4's, and
/// they report together.
#[test]
fn s3s_published_iozone_output_imports_as_runs() {
    let seed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../suites/published/seeds/003_52d440a95a896730.txt"),
    )
    .unwrap();
    let ext4 = seed.find("\nEXT4\nIozone:").unwrap();
    let xfs = seed.find("\nXFS\nIozone:").unwrap();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    std::fs::write(w.join("xfs.txt"), &seed[xfs..ext4]).unwrap();
    std::fs::write(w.join("ext4.txt"), &seed[ext4..]).unwrap();
    for fs in ["xfs", "ext4"] {
        let file = format!("{fs}.txt");
        let args = [
            "import", &file, "--from", "iozone", "--label", fs, "--out", fs,
        ];
        let o = run_in(w, &args);
        assert_eq!(code(&o), 0, "import {fs}: {}", stderr(&o));
        let rec = results(&w.join(fs));
        assert_eq!(rec["cells"].as_array().unwrap().len(), 13 * 12, "{fs}");
    }
    let rec = results(&w.join("xfs"));
    let write8 = rec["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "write@8192")
        .unwrap();
    assert_eq!(write8["samples"][0]["value"], 302780.0);
    assert_eq!(write8["samples"][0]["cpu_pct"], 54.6);
    let o = run_in(w, &["report", "xfs", "ext4", "--format", "markdown"]);
    assert_eq!(code(&o), 0, "report: {}", stderr(&o));
    assert!(stdout(&o).contains("Writer report"), "{}", stdout(&o));
}
