//! Block devices that share storage with another: the same bytes under a second name.
//!
//! A `dev:` target must not be formatted while its bytes are in use under any name. Besides
//! its own partitions, those names are: other loop devices bound to the same backing file,
//! a loop device whose backing file is the device itself (or the device the target loops
//! over), and the devices under a device-mapper/md device (its sysfs `slaves`). `aliases` is
//! a pure function over a snapshot of /sys/block, so it is tested with fabricated data;
//! `snapshot` reads the real one.

use std::collections::HashSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// What sysfs and the loop driver say about one block device.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockInfo {
    /// Kernel name ("loop3", "sdb").
    pub name: String,
    /// "maj:min".
    pub id: String,
    /// For a bound loop device: (st_dev, st_ino) of its backing file.
    pub backing: Option<(u64, u64)>,
    /// For a loop device whose backing file is a block device: that device's "maj:min".
    pub backing_dev: Option<String>,
    /// "maj:min" of the devices this one is built on (sysfs `slaves`).
    pub slaves: Vec<String>,
}

/// "maj:min" of every device in `all` that shares storage with `target` (not `target`
/// itself), following chains (a loop over a loop over the device).
pub fn aliases(target: &BlockInfo, all: &[BlockInfo]) -> HashSet<String> {
    let mut found: HashSet<String> = HashSet::new();
    let mut todo = vec![target.clone()];
    while let Some(t) = todo.pop() {
        let mut same: Vec<&BlockInfo> = Vec::new();
        for b in all
            .iter()
            .filter(|b| b.id != target.id && !found.contains(&b.id))
        {
            let shares = (t.backing.is_some() && b.backing == t.backing)
                || b.backing_dev.as_deref() == Some(t.id.as_str())
                || t.backing_dev.as_deref() == Some(b.id.as_str())
                || t.slaves.contains(&b.id);
            if shares {
                same.push(b);
            }
        }
        for b in same {
            found.insert(b.id.clone());
            todo.push(b.clone());
        }
    }
    found
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

fn dev_of(rdev: u64) -> String {
    format!("{}:{}", libc::major(rdev), libc::minor(rdev))
}

/// Every block device in /sys/block, with loop backing and slaves.
pub fn snapshot() -> Vec<BlockInfo> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let sys = e.path();
            let id = read(&sys.join("dev"))?;
            let mut info = BlockInfo {
                name: name.clone(),
                id,
                ..BlockInfo::default()
            };
            if let Some(file) = read(&sys.join("loop/backing_file")) {
                // Opening a loop device read-only claims nothing; the ioctl gives the inode
                // even when the backing file was unlinked.
                info.backing = super::loopdev::bound_to(&Path::new("/dev").join(&name));
                info.backing_dev = std::fs::metadata(&file)
                    .ok()
                    .filter(|m| m.file_type().is_block_device())
                    .map(|m| dev_of(m.rdev()));
            }
            if let Ok(slaves) = std::fs::read_dir(sys.join("slaves")) {
                info.slaves = slaves
                    .flatten()
                    .filter_map(|s| read(&s.path().join("dev")))
                    .collect();
            }
            Some(info)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, id: &str) -> BlockInfo {
        BlockInfo {
            name: name.into(),
            id: id.into(),
            ..BlockInfo::default()
        }
    }

    fn loop_on(name: &str, id: &str, backing: (u64, u64)) -> BlockInfo {
        BlockInfo {
            backing: Some(backing),
            ..dev(name, id)
        }
    }

    #[test]
    fn loop_devices_on_the_same_file_are_aliases() {
        let a = loop_on("loop0", "7:0", (2049, 12));
        let b = loop_on("loop1", "7:1", (2049, 12));
        let other = loop_on("loop2", "7:2", (2049, 13));
        let all = vec![a.clone(), b, other, dev("sda", "8:0")];
        assert_eq!(aliases(&a, &all), HashSet::from(["7:1".to_string()]));
    }

    #[test]
    fn a_loop_over_the_device_and_the_device_under_a_loop_are_aliases() {
        let sdb = dev("sdb", "8:16");
        let over = BlockInfo {
            backing_dev: Some("8:16".into()),
            ..loop_on("loop4", "7:4", (5, 99))
        };
        // A second loop over the first one: a chain.
        let chained = BlockInfo {
            backing_dev: Some("7:4".into()),
            ..loop_on("loop5", "7:5", (5, 100))
        };
        let all = vec![sdb.clone(), over.clone(), chained];
        assert_eq!(
            aliases(&sdb, &all),
            HashSet::from(["7:4".to_string(), "7:5".to_string()])
        );
        assert_eq!(
            aliases(&over, &all),
            HashSet::from(["8:16".to_string(), "7:5".to_string()])
        );
    }

    #[test]
    fn the_devices_under_a_mapper_device_are_aliases_and_unrelated_ones_are_not() {
        let dm = BlockInfo {
            slaves: vec!["8:32".into()],
            ..dev("dm-0", "253:0")
        };
        let all = vec![dm.clone(), dev("sdc", "8:32"), dev("sdd", "8:48")];
        assert_eq!(aliases(&dm, &all), HashSet::from(["8:32".to_string()]));
        assert!(aliases(&all[2], &all).is_empty());
    }
}
