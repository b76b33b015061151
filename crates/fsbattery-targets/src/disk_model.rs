//! The model of the disk a target's data ends on, as sysfs names it: the results store indexes
//! runs by it, so a history never joins runs made on different disks of one machine.
//!
//! A loop target's disk is the one holding its image: the chain mount source → loop device →
//! backing file → the backing file's filesystem device is followed (a few levels at most, as
//! images can sit on loop-mounted filesystems). A partition answers for its whole disk. Disks
//! without a model file (virtio, some NVMe namespaces in VMs) are named by their driver and PCI
//! ids instead, e.g. "virtio_blk 0x1af4:0x0002"; RAM and FUSE filesystems have no disk ("").

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// How many loop-image levels are followed before giving up.
const MAX_LEVELS: usize = 4;

/// The model of the disk under the filesystem mounted from `source` at `root`, or "".
pub fn of(source: &str, root: &Path) -> String {
    let first = block_rdev(Path::new(source)).or_else(|| {
        let dev = std::fs::metadata(root).ok()?.dev();
        (nix::sys::stat::major(dev) != 0).then_some(dev)
    });
    first
        .map(|d| model_of(Path::new("/sys/dev/block"), d))
        .unwrap_or_default()
}

/// The device number of `path` when it is a block device.
fn block_rdev(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    meta.file_type().is_block_device().then(|| meta.rdev())
}

/// Follow loop devices down to a disk under `sys` (`/sys/dev/block`, a parameter so tests
/// can fabricate one) and name it.
fn model_of(sys: &Path, mut dev: u64) -> String {
    for _ in 0..MAX_LEVELS {
        let dir = sys.join(format!(
            "{}:{}",
            nix::sys::stat::major(dev),
            nix::sys::stat::minor(dev)
        ));
        let backing = read(&dir.join("loop/backing_file"));
        match backing.and_then(|f| std::fs::metadata(f).ok()) {
            Some(meta) => dev = meta.dev(),
            None => return name_disk(&dir),
        }
    }
    String::new()
}

/// The model of the disk at sysfs directory `dir` (its parent when `dir` is a partition).
fn name_disk(dir: &Path) -> String {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let disk: PathBuf = match dir.join("partition").exists() {
        true => dir.parent().map(Path::to_path_buf).unwrap_or(dir),
        false => dir,
    };
    let device = disk.join("device");
    if let Some(model) = read(&device.join("model")) {
        let vendor = read(&device.join("vendor")).filter(|v| !v.starts_with("0x"));
        return match vendor {
            Some(v) => format!("{v} {model}"),
            None => model,
        };
    }
    let driver = std::fs::read_link(device.join("driver"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let ids = read(&device.join("vendor")).zip(read(&device.join("device")));
    match (driver, ids) {
        (Some(d), Some((v, p))) => format!("{d} {v}:{p}"),
        (Some(d), None) => d,
        (None, _) => String::new(),
    }
}

/// A sysfs attribute, trimmed; None when missing or empty.
fn read(path: &Path) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, s: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    }

    #[test]
    fn a_disk_with_a_model_file_is_named_by_vendor_and_model() {
        let t = tempfile::tempdir().unwrap();
        write(&t.path().join("8:0/device/model"), "Samsung SSD 870\n");
        write(&t.path().join("8:0/device/vendor"), "ATA     \n");
        assert_eq!(
            model_of(t.path(), nix::sys::stat::makedev(8, 0)),
            "ATA Samsung SSD 870"
        );
    }

    #[test]
    fn a_partition_answers_for_its_disk_and_a_virtio_disk_by_driver_and_ids() {
        let t = tempfile::tempdir().unwrap();
        let disk = t.path().join("devices/vda");
        write(&disk.join("device/vendor"), "0x1af4\n");
        write(&disk.join("device/device"), "0x0002\n");
        std::fs::create_dir_all(disk.join("drivers/virtio_blk")).unwrap();
        std::os::unix::fs::symlink(disk.join("drivers/virtio_blk"), disk.join("device/driver"))
            .unwrap();
        write(&disk.join("vda1/partition"), "1\n");
        std::os::unix::fs::symlink(disk.join("vda1"), t.path().join("253:1")).unwrap();
        let got = model_of(t.path(), nix::sys::stat::makedev(253, 1));
        assert_eq!(got, "virtio_blk 0x1af4:0x0002");
    }

    #[test]
    fn no_disk_is_an_empty_name() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(model_of(t.path(), nix::sys::stat::makedev(0, 42)), "");
        assert_eq!(of("tmpfs", Path::new("/nonexistent/x")), "");
    }
}
