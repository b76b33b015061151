//! What a target's block devices did: their kernel counters (`stat` in sysfs, fields as in
//! the kernel's Documentation/block/stat.rst) read before and after a timed phase.
//!
//! A device node is resolved once to `/sys/dev/block/MAJ:MIN/stat`, which exists alike for a
//! whole disk, a partition and a loop device. Sectors there are always 512 bytes, whatever
//! the device's logical block size. Reading costs a few microseconds and no I/O, so it is done
//! outside the stopwatch. Counters that cannot be read make the phase's [`DeviceIo`] absent,
//! never zero.

use crate::model::{BlockDevice, DeviceIo};
use std::path::{Path, PathBuf};

/// The role of an external journal or log device in [`BlockDevice::role`].
pub const JOURNAL: &str = "journal";
/// The role of a device that holds the filesystem's data.
pub const DATA: &str = "data";

/// The devices a filesystem is made on, each with its role.
pub fn roles(devs: &super::mkfs::Devices) -> Vec<BlockDevice> {
    let tagged = |p: &PathBuf, role: &str| BlockDevice {
        path: p.display().to_string(),
        role: role.into(),
    };
    let data = devs.data.iter().map(|p| tagged(p, DATA));
    data.chain(devs.journal.iter().map(|p| tagged(p, JOURNAL)))
        .collect()
}

/// One reading of a device's counters (the fields fsbattery records).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Reads completed (field 1).
    pub read_ios: u64,
    /// Sectors read (field 3).
    pub read_sectors: u64,
    /// Writes completed (field 5).
    pub write_ios: u64,
    /// Sectors written (field 7).
    pub write_sectors: u64,
    /// Flush requests completed (field 16, Linux 5.5+).
    pub flushes: Option<u64>,
}

/// Parse one `stat` line; `None` when it has fewer than the 11 fields every kernel since 2.6
/// writes, or a field is not a number.
pub fn parse_stat(line: &str) -> Option<Counters> {
    let f: Vec<u64> = line
        .split_whitespace()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    if f.len() < 11 {
        return None;
    }
    Some(Counters {
        read_ios: f[0],
        read_sectors: f[2],
        write_ios: f[4],
        write_sectors: f[6],
        flushes: f.get(15).copied(),
    })
}

/// A block device's directory in sysfs, by its device number: (major, minor) as sysfs
/// writes it.
pub fn sys_dir(rdev: u64) -> PathBuf {
    PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ))
}

/// The `stat` file of a block device node (whole disk, partition or loop device).
fn stat_path(dev: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let m = std::fs::metadata(dev).ok()?;
    m.file_type()
        .is_block_device()
        .then(|| sys_dir(m.rdev()).join("stat"))
}

/// The devices of one mounted filesystem, resolved to their counters.
#[derive(Debug, Clone)]
pub struct DeviceSet {
    /// (stat file, is the external journal) per device.
    stats: Vec<(PathBuf, bool)>,
}

impl DeviceSet {
    /// Resolve `devices`; `None` when there are none or one is not a block device.
    pub fn open(devices: &[BlockDevice]) -> Option<DeviceSet> {
        let stats = devices
            .iter()
            .map(|d| Some((stat_path(Path::new(&d.path))?, d.role == JOURNAL)))
            .collect::<Option<Vec<_>>>()?;
        (!stats.is_empty()).then_some(DeviceSet { stats })
    }

    /// Every device's counters now, in order; `None` if one cannot be read.
    pub fn read(&self) -> Option<Vec<Counters>> {
        self.stats
            .iter()
            .map(|(p, _)| parse_stat(&std::fs::read_to_string(p).ok()?))
            .collect()
    }

    /// What happened between two readings, with the bytes the workload wrote meanwhile.
    pub fn delta(&self, before: &[Counters], after: &[Counters], given_bytes: u64) -> DeviceIo {
        let mut io = DeviceIo {
            devices: self.stats.len() as u32,
            given_bytes,
            flushes: Some(0),
            ..DeviceIo::default()
        };
        for (((_, journal), b), a) in self.stats.iter().zip(before).zip(after) {
            // Counters only grow while a device exists; saturate so a device replaced under
            // us (it cannot be, the target holds it) reads as no traffic, not as 2^64.
            let written = a.write_sectors.saturating_sub(b.write_sectors) * 512;
            io.read_bytes += a.read_sectors.saturating_sub(b.read_sectors) * 512;
            io.write_bytes += written;
            io.read_ios += a.read_ios.saturating_sub(b.read_ios);
            io.write_ios += a.write_ios.saturating_sub(b.write_ios);
            io.flushes = match (io.flushes, a.flushes, b.flushes) {
                (Some(sum), Some(a), Some(b)) => Some(sum + a.saturating_sub(b)),
                _ => None,
            };
            if *journal {
                io.journal_write_bytes = Some(io.journal_write_bytes.unwrap_or(0) + written);
            }
        }
        io
    }
}

/// Bytes this process and its reaped children have passed to write-family system calls
/// (`wchar` of /proc/self/io); 0 where the kernel has no task I/O accounting.
pub fn written_by_us() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("wchar:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A phase in progress: the counters when it started.
#[derive(Debug)]
pub struct Probe<'a> {
    set: &'a DeviceSet,
    before: Option<Vec<Counters>>,
    /// `wchar` at the start; None when this process's writes are not the data the phase gave
    /// the target (command mode), so no write amplification is derived.
    wchar: Option<u64>,
}

impl<'a> Probe<'a> {
    /// Read the counters at the start of a phase (after quiescing, before the stopwatch);
    /// `counts_writes`: this process's `wchar` is the data the phase gives the target.
    pub fn start(set: &'a DeviceSet, counts_writes: bool) -> Probe<'a> {
        Probe {
            set,
            before: set.read(),
            wchar: counts_writes.then(written_by_us),
        }
    }

    /// Read them at its end, after the stopwatch stopped: `sync(2)` first so the phase's dirty
    /// data has reached the devices (through a loop device: its backing file).
    pub fn finish(self) -> Option<DeviceIo> {
        let given = self.wchar.map_or(0, |w| written_by_us().saturating_sub(w));
        nix::unistd::sync();
        let after = self.set.read()?;
        Some(self.set.delta(&self.before?, &after, given))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real lines read on Linux 6.18: a loop device and a virtio disk (17 fields each).
    const LOOP_618: &str = "  8637122    24597 976014271  2873559  3660628  1234073 919255368  4056538        0  2292992  6990706      583        0 577865196      407    24145    60200\n";
    const VDA_618: &str = "18542695 11175052 3650819712 21879997  9396530  6148634 2169708178 14702739       33  3718636 39426072  4953375      121 722074056  2768650   267549    74685";

    /// The same virtio line as a kernel before 5.5 (15 fields: no flushes) or before 4.18
    /// (11 fields: no discards) writes it.
    fn older(fields: usize) -> String {
        VDA_618
            .split_whitespace()
            .take(fields)
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn parses_the_fields_of_every_kernel_generation() {
        let c = parse_stat(LOOP_618).unwrap();
        assert_eq!(
            c,
            Counters {
                read_ios: 8637122,
                read_sectors: 976014271,
                write_ios: 3660628,
                write_sectors: 919255368,
                flushes: Some(24145),
            }
        );
        let new = parse_stat(VDA_618).unwrap();
        assert_eq!((new.write_sectors, new.flushes), (2169708178, Some(267549)));
        for fields in [15, 11] {
            let c = parse_stat(&older(fields)).unwrap();
            assert_eq!(
                c,
                Counters {
                    flushes: None,
                    ..new
                },
                "{fields} fields"
            );
        }
    }

    #[test]
    fn refuses_truncated_or_non_numeric_lines() {
        assert_eq!(parse_stat(""), None);
        assert_eq!(parse_stat("1 2 3 4 5 6 7 8 9 10"), None);
        assert_eq!(parse_stat("1 2 3 4 5 x 7 8 9 10 11"), None);
    }

    fn counters(write_sectors: u64, flushes: Option<u64>) -> Counters {
        Counters {
            read_ios: 1,
            read_sectors: 8,
            write_ios: 2,
            write_sectors,
            flushes,
        }
    }

    #[test]
    fn sums_devices_and_keeps_the_journal_apart() {
        let set = DeviceSet {
            stats: vec![("a".into(), false), ("j".into(), true)],
        };
        let before = [counters(100, Some(1)), counters(0, Some(0))];
        let after = [counters(2148, Some(3)), counters(2048, Some(4))];
        let io = set.delta(&before, &after, 1 << 20);
        assert_eq!(io.write_bytes, (2048 + 2048) * 512);
        assert_eq!(io.journal_write_bytes, Some(2048 * 512));
        assert_eq!(io.flushes, Some(6));
        assert_eq!(io.devices, 2);
        assert_eq!(io.write_amplification(), Some(2.0));
    }

    #[test]
    fn a_device_without_flush_counters_makes_the_sum_unknown() {
        let set = DeviceSet {
            stats: vec![("a".into(), false), ("b".into(), false)],
        };
        let io = set.delta(
            &[counters(0, Some(1)), counters(0, None)],
            &[counters(8, Some(2)), counters(8, None)],
            0,
        );
        assert_eq!((io.flushes, io.journal_write_bytes), (None, None));
        assert_eq!(io.write_amplification(), None, "nothing given: no ratio");
    }

    #[test]
    fn a_phase_that_writes_counts_its_bytes() {
        let before = written_by_us();
        std::fs::write(std::env::temp_dir().join("fsb-wchar-probe"), [0u8; 5000]).unwrap();
        let _ = std::fs::remove_file(std::env::temp_dir().join("fsb-wchar-probe"));
        assert!(written_by_us() - before >= 5000);
    }
}
