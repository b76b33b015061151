//! What the filesystem kinds (`tmpfs`, `loopfs`, `device`, `zfs`) share to make and mount a
//! filesystem for the one target behind them (`fstarget`): what a kind made, the root check
//! their parsers make, the work directory and the mkfs runner. A leaf, so the kinds need not
//! name the target that dispatches to them.

use super::{TargetError, TargetOptions};
use crate::model::BlockDevice;
use crate::process::Ran;
use std::path::PathBuf;

/// What a recipe made: the mount point and the commands that made and mounted it.
pub struct Made {
    /// Where the filesystem is mounted.
    pub mount_point: PathBuf,
    /// mkfs (none for tmpfs); several commands are joined with " && ".
    pub mkfs: Option<Ran>,
    /// The mount command.
    pub mount: Ran,
    /// The block devices it was made on, with their roles (empty: none).
    pub devices: Vec<BlockDevice>,
}

/// `opts.workdir` as an absolute path (the CLI's default when empty).
pub fn workdir_of(opts: &TargetOptions) -> PathBuf {
    let w = if opts.workdir.as_os_str().is_empty() {
        PathBuf::from("fsbattery-work")
    } else {
        opts.workdir.clone()
    };
    if w.is_absolute() {
        w
    } else {
        std::env::current_dir().map(|c| c.join(&w)).unwrap_or(w)
    }
}

/// Refuse early when this process cannot mount anything.
pub fn require_root() -> Result<(), String> {
    if nix::unistd::geteuid().is_root() {
        Ok(())
    } else {
        Err("making and mounting filesystems needs root: run as root, or use dir:PATH".into())
    }
}

/// Run mkfs command lines in order; one record joins them with " && ".
pub fn run_all(cmds: &[Vec<String>]) -> Result<Ran, TargetError> {
    let mut all = Ran::default();
    for argv in cmds {
        let ran = crate::process::run(argv)?;
        if !all.command.is_empty() {
            all.command.push_str(" && ");
        }
        all.command.push_str(&ran.command);
        all.output.push_str(&ran.output);
        all.secs += ran.secs;
        all.cpu.user_s += ran.cpu.user_s;
        all.cpu.sys_s += ran.cpu.sys_s;
    }
    Ok(all)
}
