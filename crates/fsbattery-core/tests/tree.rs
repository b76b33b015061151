//! The kernel-tree dataset through its public API: determinism, the hash agreeing between a
//! generated directory, its tarball and the system tar's round trip, N-copy tarballs, user
//! tarballs and the per-run store. Trees are tiny (1/256 of 2.6.14: ~72 files) to stay fast.

use fsbattery_core::dataset::{
    content_hash, generate, profile, summarize, DatasetError, DatasetSpec, DatasetSpecExt, Origin,
    SourceDataset,
};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

const DIV: u64 = 256;

fn spec(seed: u64, copies: u32) -> DatasetSpec {
    DatasetSpec {
        kernel: 2614,
        scale_div: DIV,
        seed,
        copies,
    }
}

/// Whether the system tool is usable; without it the test is skipped, unless CI asks for
/// every tool (FSBATTERY_REQUIRE_PRIVILEGED=1), where a missing one fails.
fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var_os("FSBATTERY_REQUIRE_PRIVILEGED").is_some_and(|v| v == "1") {
        panic!("{tool} is required (FSBATTERY_REQUIRE_PRIVILEGED=1): install it");
    }
    if !ok {
        eprintln!("skipped: {tool} not installed");
    }
    ok
}

fn sh(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn same_seed_same_tree_other_seed_other_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let p = profile::by_id(2614).unwrap();
    let a = generate(p, DIV, 7, &tmp.path().join("a")).unwrap();
    let b = generate(p, DIV, 7, &tmp.path().join("b")).unwrap();
    let c = generate(p, DIV, 8, &tmp.path().join("c")).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.hash, c.hash);
    assert_eq!(a.top, "linux-2.6.14.4");
    assert_eq!(content_hash(&tmp.path().join("a")).unwrap(), a.hash);
    assert_eq!(content_hash(&tmp.path().join("b")).unwrap(), a.hash);
    assert_eq!(a.files, p.files / DIV);
    assert_eq!(a.dirs, p.dirs / DIV + 1, "the top directory counts");
}

#[test]
fn tarball_hash_equals_directory_hash_and_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let p = profile::by_id(2614).unwrap();
    let m = generate(p, DIV, 1, &tmp.path().join("dir")).unwrap();
    let ds = SourceDataset::prepare(tmp.path(), &spec(1, 1)).unwrap();
    assert_eq!(ds.hash(), m.hash, "hash computed while writing the tar");
    assert_eq!(ds.top(), ["linux-2.6.14.4".to_string()]);
    assert_eq!(
        (ds.tree().files, ds.tree().dirs, ds.tree().bytes),
        (m.files, m.dirs, m.bytes)
    );
    let rescanned = SourceDataset::from_user_tarball(ds.tarball()).unwrap();
    assert_eq!(rescanned.hash(), m.hash, "hash from reading the tar back");
    assert!(ds.tar_bytes() > m.bytes);
    assert_eq!(ds.origin(), &Origin::Generated(spec(1, 1)));
    let info = ds.info();
    assert_eq!(info.kernel.as_deref(), Some("2.6.14.4"));
    assert_eq!(info.content_hash, m.hash);
}

#[test]
fn system_tar_untar_tar_untar_keeps_the_hash() {
    if !have("tar") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ds = SourceDataset::prepare(tmp.path(), &spec(2, 1)).unwrap();
    let (x1, x2) = (tmp.path().join("x1"), tmp.path().join("x2"));
    std::fs::create_dir(&x1).unwrap();
    std::fs::create_dir(&x2).unwrap();
    sh(Command::new("tar")
        .arg("-xpf")
        .arg(ds.tarball())
        .arg("-C")
        .arg(&x1));
    assert_eq!(content_hash(&x1).unwrap(), ds.hash());
    let again = tmp.path().join("again.tar");
    sh(Command::new("tar")
        .current_dir(&x1)
        .arg("-cf")
        .arg(&again)
        .arg("linux-2.6.14.4"));
    sh(Command::new("tar")
        .arg("-xpf")
        .arg(&again)
        .arg("-C")
        .arg(&x2));
    assert_eq!(content_hash(&x2).unwrap(), ds.hash());
    assert_eq!(
        SourceDataset::from_user_tarball(&again).unwrap().hash(),
        ds.hash()
    );
}

#[test]
fn four_copies_extract_to_data1_to_data4() {
    let tmp = tempfile::tempdir().unwrap();
    let one = SourceDataset::prepare(tmp.path(), &spec(1, 1)).unwrap();
    let four = SourceDataset::prepare(tmp.path(), &spec(1, 4)).unwrap();
    assert_eq!(
        four.top(),
        ["data1", "data2", "data3", "data4"].map(String::from)
    );
    assert_eq!(four.tree().files, 4 * one.tree().files);
    assert_eq!(four.tree().dirs, 4 * one.tree().dirs + 4);
    assert_eq!(four.copies(), 4);
    if have("tar") {
        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        sh(Command::new("tar")
            .arg("-xpf")
            .arg(four.tarball())
            .arg("-C")
            .arg(&x));
        assert_eq!(content_hash(&x).unwrap(), four.hash());
        assert_eq!(content_hash(&x.join("data3")).unwrap(), one.hash());
    }
}

#[test]
fn compressed_and_garbage_tarballs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let gz = tmp.path().join("linux.tar.gz");
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0]).unwrap();
    let e = SourceDataset::from_user_tarball(&gz).unwrap_err();
    assert!(
        matches!(e, DatasetError::Compressed { kind: "gzip", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("gzip -dk"), "{e}");
    let junk = tmp.path().join("junk.tar");
    std::fs::write(&junk, vec![b'x'; 2048]).unwrap();
    assert!(SourceDataset::from_user_tarball(&junk).is_err());
    let missing =
        SourceDataset::from_user_tarball(Path::new("/nonexistent/linux.tar")).unwrap_err();
    assert!(
        missing.to_string().contains("/nonexistent/linux.tar"),
        "{missing}"
    );
}

#[test]
fn store_prepares_once_and_cleans_up() {
    let tmp = tempfile::tempdir().unwrap();
    let store = fsbattery_core::runner::dataset_store(tmp.path(), None).unwrap();
    let a = store.prepare(&spec(1, 1)).unwrap();
    let b = store.prepare(&spec(1, 1)).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let four = store.prepare(&spec(1, 4)).unwrap();
    assert_eq!(
        store.prepared().len(),
        2,
        "the 4-copy tarball reuses the 1-copy one"
    );
    assert!(four.tarball().starts_with(store.dir()));
    let dir = store.dir().to_path_buf();
    drop(store);
    assert!(
        !dir.exists(),
        "generated tarballs are removed with the store"
    );
}

#[test]
fn store_serves_a_user_tarball_without_touching_it() {
    let tmp = tempfile::tempdir().unwrap();
    let made = SourceDataset::prepare(tmp.path(), &spec(5, 1)).unwrap();
    let user = tmp.path().join("linux-user.tar");
    std::fs::rename(made.tarball(), &user).unwrap();
    let before = std::fs::read(&user).unwrap();
    let store =
        fsbattery_core::runner::dataset_store(&tmp.path().join("src"), Some(&user)).unwrap();
    let ds = store
        .prepare(&DatasetSpec {
            kernel: 2637,
            scale_div: 1,
            seed: 9,
            copies: 1,
        })
        .unwrap();
    assert_eq!(ds.hash(), made.hash());
    assert_eq!(ds.origin(), &Origin::User(user.clone()));
    assert!(
        ds.scratch_dir().starts_with(store.dir()),
        "temporary files go to the store"
    );
    let two = store
        .prepare(&DatasetSpec {
            kernel: 2614,
            scale_div: 1,
            seed: 1,
            copies: 2,
        })
        .unwrap();
    assert_eq!(two.tree().files, 2 * made.tree().files);
    drop(store);
    assert_eq!(std::fs::read(&user).unwrap(), before);
}

#[test]
fn unknown_profile_and_zero_scale_are_usage_errors() {
    let bad = DatasetSpec {
        kernel: 2615,
        scale_div: 1,
        seed: 1,
        copies: 1,
    };
    let e = bad.validate("tree").unwrap_err().to_string();
    assert!(e.contains("tree.kernel") && e.contains("2614"), "{e}");
    let zero = DatasetSpec {
        kernel: 2614,
        scale_div: 0,
        seed: 1,
        copies: 1,
    };
    assert!(zero.validate("tree").is_err());
    assert!(spec(1, 1).validate("tree").is_ok());
    let tmp = tempfile::tempdir().unwrap();
    assert!(matches!(
        SourceDataset::prepare(tmp.path(), &bad),
        Err(DatasetError::UnknownKernel { .. })
    ));
}

#[test]
fn summary_counts_symlinks_and_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("f"), b"abc").unwrap();
    std::os::unix::fs::symlink("f", d.join("l")).unwrap();
    let s = summarize(d).unwrap();
    assert_eq!((s.files, s.symlinks, s.bytes), (1, 1, 3));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.join("f"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_ne!(summarize(d).unwrap().hash, s.hash);
}
