//! What went wrong underneath a filesystem fsbattery made, for a failed cell's reason.
//!
//! A workload sees only the errno (EROFS, EIO, ECONNABORTED); the cause is elsewhere: in the
//! kernel's log ("Buffer I/O error on dev loop0", "EXT4-fs (loop0): Remounting filesystem
//! read-only" when the image's backing file ran out of space) or with the FUSE watchdog (a
//! daemon that stopped answering). A session keeps the kernel log from its start and the
//! watchdog's notes; a failed cell asks for them.
//!
//! Only kernel records at warning level or above that name one of the session's devices are
//! kept (a word match: `loop1` is not `loop10`), so another user's devices never show up in
//! our reasons. Without /dev/kmsg (not root, `dmesg_restrict`) there is only the watchdog.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The kernel log from now on. `None` unless this process may read it.
pub fn kernel_log_from_now() -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let kmsg = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/kmsg")
        .ok()?;
    // SEEK_END on /dev/kmsg skips to the next new record.
    let _ = nix::unistd::lseek(&kmsg, 0, nix::unistd::Whence::SeekEnd);
    Some(kmsg)
}

/// The records logged since `kmsg` was opened (or last read), as (level, first line).
pub fn records(kmsg: &mut std::fs::File) -> Vec<(u8, String)> {
    // Each read returns one record "prio,seq,usec,flags;text"; EAGAIN ends the buffer, EPIPE
    // says records were overwritten before we read them (the next read goes on).
    let mut out = Vec::new();
    let mut buf = vec![0u8; 8192];
    for _ in 0..10_000 {
        match kmsg.read(&mut buf) {
            Ok(n) if n > 0 => {
                let rec = String::from_utf8_lossy(&buf[..n]);
                let (head, text) = rec.split_once(';').unwrap_or(("", ""));
                let prio: u32 = head
                    .split(',')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(6);
                let line = text.lines().next().unwrap_or("").trim().to_string();
                out.push(((prio & 7) as u8, line));
            }
            Err(err) if err.raw_os_error() == Some(libc::EPIPE) => continue,
            _ => break,
        }
    }
    out
}

/// One session's faults: its kernel log, its devices, the watchdog's notes.
#[derive(Default)]
pub struct FaultLog {
    kmsg: Option<std::fs::File>,
    devices: Vec<String>,
    notes: Arc<Mutex<Vec<String>>>,
}

impl FaultLog {
    /// Start listening now.
    pub fn from_now() -> FaultLog {
        FaultLog {
            kmsg: kernel_log_from_now(),
            ..FaultLog::default()
        }
    }

    /// Keep the kernel's records that name `device` (`/dev/loop3` → `loop3`).
    pub fn watch_device(&mut self, device: &Path) {
        if let Some(name) = device.file_name() {
            self.devices.push(name.to_string_lossy().into_owned());
        }
    }

    /// Where the FUSE watchdog leaves what it did.
    pub fn notes(&self) -> Arc<Mutex<Vec<String>>> {
        Arc::clone(&self.notes)
    }

    /// What happened since the last call, on one line: the watchdog's notes, then the first
    /// and the last kernel error naming our devices (the cause, and where it ended).
    pub fn take(&mut self) -> Option<String> {
        let mut said: Vec<String> =
            std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some(kmsg) = &mut self.kmsg {
            let ours: Vec<String> = records(kmsg)
                .into_iter()
                .filter(|(level, line)| *level <= 4 && !optional(line))
                .filter(|(_, line)| self.devices.iter().any(|d| names(line, d)))
                .map(|(_, line)| line)
                .collect();
            if let Some(first) = ours.first() {
                said.push(format!("kernel: {first}"));
            }
            if let Some(last) = ours.last().filter(|_| ours.len() > 1) {
                said.push(format!("kernel: {last}"));
            }
        }
        (!said.is_empty()).then(|| said.join("; "))
    }
}

/// A loop device refusing an optional command (WRITE_ZEROES, DISCARD, from mkfs or ext4's
/// lazy inode-table init) is logged as an error, but the caller falls back and nothing fails.
fn optional(line: &str) -> bool {
    line.starts_with("operation not supported error")
}

/// Whether `line` names `device` as a word (`loop1` in "dev loop1," and "loop1-8", never in
/// "loop10").
fn names(line: &str, device: &str) -> bool {
    line.match_indices(device).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + device.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_named_as_a_word() {
        assert!(names(
            "Buffer I/O error on dev loop1, logical block 4",
            "loop1"
        ));
        assert!(names("Aborting journal on device loop1-8.", "loop1"));
        assert!(names(
            "EXT4-fs (loop1): Remounting filesystem read-only",
            "loop1"
        ));
        assert!(!names(
            "EXT4-fs (loop10): Remounting filesystem read-only",
            "loop1"
        ));
        assert!(!names("xloop1 something", "loop1"));
    }

    #[test]
    fn the_watchdog_notes_are_taken_once() {
        let mut log = FaultLog::default();
        log.notes().lock().unwrap().push("aborted".into());
        assert_eq!(log.take().as_deref(), Some("aborted"));
        assert_eq!(log.take(), None);
    }
}
