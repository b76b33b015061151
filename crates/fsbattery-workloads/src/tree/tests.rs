//! Tests of the tree workloads (tree and tree4), each run once per method on a fresh target
//! directory and dataset store.

use super::*;
use crate::dataset::DatasetStore;
use crate::model::Sample;
use std::time::Duration;

/// Run `w` once on a fresh target directory with a fresh store; returns the samples and
/// the temp dir (target in `target/`, source disk in `source/`).
pub(crate) fn run_once<W: TypedWorkload>(
    w: &W,
    params: &W::Settings,
    method: Method,
) -> (
    Vec<(String, Sample)>,
    tempfile::TempDir,
    &'static DatasetStore,
) {
    let tmp = tempfile::tempdir().unwrap();
    let (target, source) = (tmp.path().join("target"), tmp.path().join("source"));
    std::fs::create_dir(&target).unwrap();
    // What the runner's `dataset_store` does: a recorded scratch directory holds the store.
    let scratch = crate::targets::ScratchDir::new(&source, "source").unwrap();
    let dir = scratch.path().to_path_buf();
    let store: &'static DatasetStore =
        Box::leak(Box::new(DatasetStore::in_dir(dir, scratch, None).unwrap()));
    let mut samples = Vec::new();
    let mut on = |m: &str, s: Sample| samples.push((m.to_string(), s));
    let mut ctx =
        WorkloadCtx::new(&target, 0, method, Duration::ZERO, &mut on).with_datasets(store);
    w.run(&mut ctx, params)
        .unwrap_or_else(|e| panic!("{} ({method}) failed: {e}", w.name()));
    drop(ctx);
    (samples, tmp, store)
}

/// Every declared metric recorded once, in order, with a positive time; nothing left.
pub(crate) fn check_run<W: TypedWorkload>(w: &W, params: &W::Settings, method: Method) {
    let (samples, tmp, store) = run_once(w, params, method);
    let names: Vec<String> = samples.iter().map(|s| s.0.clone()).collect();
    let want: Vec<String> = w.metrics(params).into_iter().map(|m| m.name).collect();
    assert_eq!(names, want, "{method}");
    for (m, s) in &samples {
        assert!(
            s.value > 0.0 && s.elapsed_s > 0.0,
            "{m} = {} ({method})",
            s.value
        );
        eprintln!(
            "{} {method:>8} {m:>15}: {:8.4} s  cpu {:5.1} %",
            w.name(),
            s.value,
            s.cpu_pct
        );
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path().join("target"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "files left on the target: {left:?}");
    let on_source: Vec<_> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        on_source
            .iter()
            .all(|p| p.extension().is_some_and(|e| e == "tar")
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("linux-")),
        "{on_source:?}"
    );
}

fn tiny() -> TreeSettings {
    let phases = OPTIONAL.map(|phase| (phase, 1));
    let mut pairs = vec![("kernel", 2614), ("scale_div", 128), ("seed", 3)];
    pairs.extend(phases);
    crate::settings::with_pairs(&pairs)
}

#[test]
fn native_run_records_every_metric_and_cleans_up() {
    check_run(&Tree, &tiny(), Method::Native);
}

/// S4's phases only: the flags leave their phases out of the run and its metrics, and
/// nothing is left on the target or the source disk.
#[test]
fn phases_switched_off_do_not_run() {
    let mut pairs = vec![("kernel", 2614), ("scale_div", 128), ("seed", 3)];
    pairs.extend(OPTIONAL.map(|phase| (phase, 0)));
    let p: TreeSettings = crate::settings::with_pairs(&pairs);
    let names: Vec<String> = Tree.metrics(&p).into_iter().map(|m| m.name).collect();
    assert_eq!(names, ["tarball_in", "untar", "tar", "copy_tree"]);
    check_run(&Tree, &p, Method::Native);
}

#[test]
fn command_run_records_every_metric_and_cleans_up() {
    if !require_tools() {
        return;
    }
    check_run(&Tree, &tiny(), Method::Commands);
}

/// Whether command-mode tools are present; missing ones fail under
/// FSBATTERY_REQUIRE_PRIVILEGED=1 (CI) and skip otherwise.
pub(crate) fn require_tools() -> bool {
    match cmd::require() {
        Ok(()) => true,
        Err(e) if std::env::var_os("FSBATTERY_REQUIRE_PRIVILEGED").is_some_and(|v| v == "1") => {
            panic!("{e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            false
        }
    }
}

/// A tiny generated dataset in `dir` (1/256 of 2.6.14.4, ~72 files).
pub(crate) fn tiny_dataset(dir: &Path) -> SourceDataset {
    let spec = DatasetSpec {
        kernel: 2614,
        scale_div: 256,
        seed: 11,
        copies: 1,
    };
    SourceDataset::prepare(dir, &spec).unwrap()
}

#[test]
fn verify_names_the_entry_that_differs_and_how() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let ds = tiny_dataset(tmp.path());
    let x = tmp.path().join("x");
    mkdir(&x).unwrap();
    ops::extract(ds.tarball(), &x).unwrap();
    let all = Stores::ALL;
    verify(&x, &ds, all, "untar").unwrap();
    let err = |stores| verify(&x, &ds, stores, "untar").unwrap_err().to_string();
    let makefile = x.join("linux-2.6.14.4/Makefile");
    let mut bytes = std::fs::read(&makefile).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&makefile, &bytes).unwrap();
    let e = err(all);
    assert!(
        e.contains("untar: ")
            && e.contains("in 1 entries: linux-2.6.14.4/Makefile differs from byte 0 on")
            && e.contains("lost or changed data"),
        "{e}"
    );
    std::fs::remove_file(&makefile).unwrap();
    assert!(err(all).contains("linux-2.6.14.4/Makefile missing"));
    // What ntfs-3g (no `permissions`) and exFAT do to every entry: mode 0777.
    let y = tmp.path().join("y");
    mkdir(&y).unwrap();
    ops::extract(ds.tarball(), &y).unwrap();
    let chmod =
        |p: &Path| std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut stack = vec![y.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            chmod(&p);
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    let e = verify(&y, &ds, all, "untar").unwrap_err().to_string();
    assert!(
        e.contains("linux-2.6.14.4 has mode 0777 instead of 0755"),
        "{e}"
    );
    let no_modes = Stores {
        permissions: false,
        ..Stores::ALL
    };
    verify(&y, &ds, no_modes, "untar").unwrap();
}

#[test]
fn a_name_taken_on_a_case_folding_filesystem_is_explained() {
    let taken = || {
        WorkloadError::io(
            "create t/xt_dscp.c",
            std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        )
    };
    let folding = Stores {
        case_sensitive: false,
        ..Stores::ALL
    };
    let e = case_hint(taken(), folding).to_string();
    assert!(
        e.starts_with("create t/xt_dscp.c: ") && e.contains("differ only in case"),
        "{e}"
    );
    assert!(matches!(
        case_hint(taken(), Stores::ALL),
        WorkloadError::Io { .. }
    ));
}

#[test]
fn missing_store_is_a_clear_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let mut on = |_: &str, _: Sample| {};
    let mut ctx = WorkloadCtx::new(tmp.path(), 0, Method::Native, Duration::ZERO, &mut on);
    let e = Tree.run(&mut ctx, &tiny()).unwrap_err().to_string();
    assert!(e.contains("DatasetStore"), "{e}");
}

#[test]
#[ignore = "timing report for the hand-over notes: cargo test -- --ignored --nocapture"]
fn quick_scale_timings() {
    // The quick-scale defaults (tree: 2.6.14.4 / 16; tree4: 4 × 2.6.37 / 32), both methods.
    let p: TreeSettings =
        crate::settings::with_pairs(&[("kernel", 2614), ("scale_div", 16), ("seed", 1)]);
    let p4: four::Tree4Settings = crate::settings::with_pairs(&[
        ("kernel", 2637),
        ("scale_div", 32),
        ("seed", 1),
        ("copies", 4),
    ]);
    for method in [Method::Native, Method::Commands] {
        if method == Method::Native || require_tools() {
            check_run(&Tree, &p, method);
            check_run(&Tree4, &p4, method);
        }
    }
}
