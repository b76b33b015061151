//! The command line as fs_mark reads it, and one loop's files and figures on a temporary
//! directory.

use super::args::{self, parse, Policy};
use super::*;

#[test]
fn getopt_forms_and_fs_mark_defaults() {
    let c = parse("-d a -d b -n1000 -s 4096 -S1 -L 3 -t 4 -kv -w 512 -D 4 -N 10").unwrap();
    assert_eq!(c.dirs, ["a", "b"]);
    assert_eq!(
        (c.files, c.size, c.sync, c.loops, c.threads),
        (1000, 4096, 1, 3, 4)
    );
    assert!(c.keep && c.verbose);
    assert_eq!((c.io_size, c.subdirs, c.per_subdir), (512, 4, 10));
    assert_eq!(c.policy, Policy::RoundRobin);
    // fs_mark's own defaults (fs_mark.h), one directory, one thread per directory.
    let d = parse("").unwrap();
    assert_eq!(
        (d.files, d.size, d.io_size, d.sync),
        (1000, 51_200, 16_384, 1)
    );
    assert_eq!((d.name_len, d.rand_len, d.loops, d.threads), (40, 24, 1, 1));
    assert_eq!(d.dir_list(), [args::DEFAULT_DIR]);
    assert!(!d.keep);
    // -L keeps files and -D alone hashes by time, as fs_mark 3.3 does.
    assert!(parse("-L 1").unwrap().keep);
    assert_eq!(parse("-D 3").unwrap().policy, Policy::TimeHash);
    // More directories than threads: one thread per directory.
    assert_eq!(parse("-d a -d b -d c").unwrap().threads, 3);
    assert_eq!(parse("-d a -d b -t 6").unwrap().dir_of(3), "b");
}

#[test]
fn sync_methods_are_fs_mark_bits() {
    let b = |n: u8| parse(&format!("-S {n}")).unwrap().sync_bits();
    assert_eq!(b(0), 0);
    assert_eq!(b(1), args::bits::BEFORE_CLOSE);
    assert_eq!(b(2), args::bits::SYNC_SYSCALL | args::bits::FIRST_FILE);
    assert_eq!(b(4), args::bits::POST_REVERSE | args::bits::SYNC_SYSCALL);
    assert_eq!(b(6), args::bits::POST_IN_ORDER | args::bits::SYNC_SYSCALL);
    assert!(!parse("-S 3").unwrap().syncs() && parse("-S 6").unwrap().syncs());
}

#[test]
fn refusals_are_one_line_naming_the_option() {
    for (text, names) in [
        ("-x 3", "-x"),
        ("-h", "-h"),
        ("-n", "-n needs"),
        ("-n abc", "-n abc"),
        ("-n -5", "-n -5"),
        ("-S 7", "-S 7"),
        ("-D 1", "-D 1"),
        ("-N 3", "-N"),
        ("-d /mnt/test", "-d /mnt/test"),
        ("-d ../up", "-d ../up"),
        ("-t 3 -d a -d b", "-t 3"),
        ("-t 65", "-t 65"),
        ("-w 0", "-w 0"),
        ("-p 10 -r 20", "-r 20"),
        ("-F -s 0", "-F"),
        ("stray", "'stray'"),
        ("-d aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "-d aaaa"),
    ] {
        let e = parse(text).expect_err(text);
        assert!(e.contains(names), "{text}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn a_prefixed_name_is_a_workload_and_a_bad_one_is_refused() {
    let w = crate::find_or_refuse("fs_mark:-n 10 -s 0 -S 0").unwrap();
    assert_eq!(w.name(), "fs_mark:-n 10 -s 0 -S 0");
    let m: Vec<String> = w
        .metrics(&crate::settings::defaults_for(w.params()))
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(
        m,
        [
            "files_per_sec",
            "app_overhead_us",
            "creat_us",
            "write_us",
            "close_us",
            "unlink_us"
        ]
    );
    let e = crate::find_or_refuse("fs_mark:-n 10 -q")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("-q") && e.lines().count() == 1, "{e}");
    // Per-loop rows with -L; no unlink (files kept); fsync and sync with -S 4.
    let c = parse("-L 3 -S 4").unwrap();
    let names: Vec<String> = metrics::specs(&c).into_iter().map(|m| m.name).collect();
    assert!(names.contains(&"files_per_sec@loop3".to_string()));
    assert!(names.contains(&"sync_us".to_string()) && names.contains(&"fsync_us".to_string()));
    assert!(!names.contains(&"unlink_us".to_string()));
}

#[test]
fn plain_fs_mark_builds_the_same_command_line() {
    let p: Plain = crate::settings::defaults();
    let c = parse(&args_of(&p)).unwrap();
    assert_eq!((c.files, c.size, c.sync, c.loops), (1000, 51_200, 1, 1));
    let bad: Plain = crate::settings::with_pairs(&[
        ("files", 10),
        ("size", 0),
        ("sync", 0),
        ("loops", 1),
        ("threads", 1),
        ("subdirs", 0),
        ("per_subdir", 0),
        ("write_size", 1),
        ("name_len", 4),
        ("rand_len", 8),
        ("keep", 0),
    ]);
    let e = TypedWorkload::check(&FsMark, &bad).unwrap_err().to_string();
    assert!(e.contains("-r 8"), "{e}");
}

#[test]
fn one_loop_makes_names_and_figures_as_fs_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let c = parse("-d t -n 50 -s 10000 -w 4096 -S 5 -k -D 2 -N 25").unwrap();
    let s = run::one_loop(&c, tmp.path()).unwrap();
    assert!(s.files_per_sec > 0.0 && s.files_per_sec.is_finite());
    let mut names = Vec::new();
    for sub in ["00", "01"] {
        for e in std::fs::read_dir(tmp.path().join("t").join(sub)).unwrap() {
            let e = e.unwrap();
            assert_eq!(e.metadata().unwrap().len(), 10_000);
            names.push(e.file_name().into_string().unwrap());
        }
    }
    // Round robin: 25 in each subdirectory; names of 40 bytes: 8 hex digits of the time,
    // 8 '~', 24 capitals and digits.
    assert_eq!(names.len(), 50);
    for n in &names {
        assert_eq!(n.len(), 40, "{n}");
        assert!(n[..8].bytes().all(|b| b.is_ascii_hexdigit()), "{n}");
        assert_eq!(&n[8..16], "~~~~~~~~");
        assert!(n[16..]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
    }
    // Without -k the files go after the loop; two threads in one directory.
    let c = parse("-d u -n 20 -s 0 -S 0 -t 2").unwrap();
    let s = run::one_loop(&c, tmp.path()).unwrap();
    assert_eq!(std::fs::read_dir(tmp.path().join("u")).unwrap().count(), 0);
    assert_eq!(s.sync, 0);
    let v = metrics::values(&c, &[s, s]);
    assert_eq!(v[0], ("files_per_sec".to_string(), s.files_per_sec));
    assert_eq!(v.len(), metrics::specs(&c).len());
}
