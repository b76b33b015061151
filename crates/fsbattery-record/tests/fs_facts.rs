//! A target's filesystem facts: recorded ones are read as written, and a record written
//! before they existed gets them inferred from its names — the same answers the renderers
//! gave when they matched names themselves (tmpfs and ramfs in RAM, ext2 and tmpfs without a
//! journal).

use fsbattery_record::{FsFacts, TargetRecord};

fn target(label: &str, spec: &str, fs_type: &str) -> TargetRecord {
    TargetRecord {
        label: label.into(),
        spec: spec.into(),
        fs_type: fs_type.into(),
        ..Default::default()
    }
}

#[test]
fn an_older_record_infers_the_facts_from_its_names() {
    let cases = [
        (target("ext4", "loop:ext4", "ext4"), false, true),
        (target("ext2", "loop:ext2", "ext2"), false, false),
        (target("EXT2", "dev:/dev/sdb", ""), false, false),
        (target("tmpfs", "tmpfs", "tmpfs"), true, false),
        (target("ram", "tmpfs:size=1GiB", ""), true, true),
        (target("shm", "dir:/dev/shm/x", "tmpfs"), true, false),
        (target("r", "dir:/mnt/r", "ramfs"), true, true),
    ];
    for (t, in_memory, journaling) in cases {
        assert_eq!(
            (t.in_memory(), t.journaling()),
            (in_memory, journaling),
            "{} {} {}",
            t.label,
            t.spec,
            t.fs_type
        );
    }
}

#[test]
fn recorded_facts_win_over_the_names_and_survive_a_round_trip() {
    let mut t = target("tmpfs", "tmpfs", "tmpfs");
    t.fs_facts = Some(FsFacts {
        in_memory: false,
        journaling: true,
    });
    assert!(!t.in_memory() && t.journaling());
    let text = serde_json::to_string(&t).unwrap();
    assert!(text.contains("\"fs_facts\""), "{text}");
    let back: TargetRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, t);
    let old = serde_json::to_string(&target("ext2", "loop:ext2", "ext2")).unwrap();
    assert!(
        !old.contains("fs_facts"),
        "absent facts are not written: {old}"
    );
}
