//! What the host asks of the guest, written into the initramfs as JSON: the modules to load
//! (in order), the md arrays to assemble, and the `fsbattery run` command line to run on them.
//! Data only, so the host's plan of the guest is tested without booting one.

use serde::{Deserialize, Serialize};

/// The 9p mount tag of the directory the guest writes its run into.
pub const SHARE_TAG: &str = "fsbattery";
/// Where the guest mounts that directory.
pub const SHARE_DIR: &str = "/share";
/// The guest run's output directory (inside the share).
pub const GUEST_OUT: &str = "/share/run";
/// The file the guest writes its run's exit status into (inside the share).
pub const EXIT_FILE: &str = "exit-status";

/// A software RAID array the guest assembles before the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MdArray {
    /// The array device, e.g. "/dev/md0".
    pub device: String,
    /// RAID level (10 for raid10).
    pub level: u32,
    /// Member disks, e.g. "/dev/vda".
    pub members: Vec<String>,
}

impl MdArray {
    /// The mdadm command that creates it. `--assume-clean` skips the initial resync, which
    /// would compete with the measurements on fresh (all-zero) disks that are in sync already.
    pub fn create_argv(&self) -> Vec<String> {
        let mut a: Vec<String> = [
            "mdadm",
            "--create",
            &self.device,
            "--run",
            "--quiet",
            "--assume-clean",
            "--metadata=1.2",
            &format!("--level={}", self.level),
            &format!("--raid-devices={}", self.members.len()),
        ]
        .map(String::from)
        .to_vec();
        a.extend(self.members.iter().cloned());
        a
    }
}

/// The guest's job.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// Module files to load, dependencies first.
    pub modules: Vec<String>,
    /// Arrays to assemble after the modules.
    pub arrays: Vec<MdArray>,
    /// fsbattery's arguments in the guest, starting with "run".
    pub argv: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raid10_is_created_clean_over_its_members() {
        let a = MdArray {
            device: "/dev/md0".into(),
            level: 10,
            members: vec!["/dev/vda".into(), "/dev/vdb".into()],
        };
        let argv = a.create_argv();
        assert_eq!(argv[..3], ["mdadm", "--create", "/dev/md0"]);
        assert!(argv.contains(&"--level=10".to_string()));
        assert!(argv.contains(&"--raid-devices=2".to_string()));
        assert_eq!(argv[argv.len() - 2..], ["/dev/vda", "/dev/vdb"]);
    }
}
