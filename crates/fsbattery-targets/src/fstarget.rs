//! The one `Target` implementation behind `tmpfs:`, `loop:` and `dev:`: its parsers let the
//! kind (`tmpfs`, `loopfs`, `device`) read and check the spec, then wrap it; each setup opens
//! a guard session, lets the kind's recipe make and mount a filesystem in it, then measures
//! what every kind records (mount options in effect, space after formatting, O_DIRECT). The
//! dispatcher names the kinds; they share what they need of it through `made`.
//!
//! Invariant: between `setup` and `teardown` exactly one session is open; dropping the target
//! (or a failed setup) releases it through the guards.

use super::guards::Session;
use super::made::{workdir_of, Made};
use super::mkfs::FsKind;
use super::spec::{DevSpec, LoopSpec, TmpfsSpec};
use super::{device, loopfs, tmpfs};
use super::{probe_direct_io, Target, TargetError, TargetOptions};
use crate::error::UsageError;
use crate::model::{BlockDevice, Capabilities, Lifecycle};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A target parsed from its spec, or why not.
type Parsed = Result<Box<dyn Target>, UsageError>;

/// `tmpfs[:...]`: the spec read and checked by `tmpfs`, as a target.
pub(super) fn parse_tmpfs(spec: &str, rest: &str, opts: &TargetOptions) -> Parsed {
    let t = tmpfs::parse(spec, rest, opts)?;
    Ok(boxed(spec, Recipe::Tmpfs(t), opts))
}

/// `loop:FSTYPE,...`: the spec read and checked by `loopfs`, as a target.
pub(super) fn parse_loop(spec: &str, rest: &str, opts: &TargetOptions) -> Parsed {
    let l = loopfs::parse(spec, rest, opts)?;
    Ok(boxed(spec, Recipe::Loop(l), opts))
}

/// `dev:/dev/NAME,...`: the spec read and checked by `device`, as a target.
pub(super) fn parse_dev(spec: &str, rest: &str, opts: &TargetOptions) -> Parsed {
    let d = device::parse(spec, rest, opts)?;
    Ok(boxed(spec, Recipe::Dev(d), opts))
}

/// The one target behind `tmpfs:`, `loop:` and `dev:`, for `recipe`.
fn boxed(spec: &str, recipe: Recipe, opts: &TargetOptions) -> Box<dyn Target> {
    Box::new(FsTarget::new(spec, recipe, opts))
}

/// What a target kind makes.
#[derive(Debug, Clone)]
enum Recipe {
    /// A tmpfs mount.
    Tmpfs(TmpfsSpec),
    /// Filesystems on sparse images (loop devices, or zfs vdev files).
    Loop(LoopSpec),
    /// A filesystem on the user's block device.
    Dev(DevSpec),
}

/// A target that makes and mounts a fresh filesystem on every setup.
struct FsTarget {
    spec: String,
    label: String,
    workdir: PathBuf,
    recipe: Recipe,
    session: Option<Session>,
    root: PathBuf,
    direct_io: Option<bool>,
    versions: Option<BTreeMap<String, String>>,
    /// Predicted on the first call (when the plan is built) and kept.
    planned: std::sync::OnceLock<Capabilities>,
    devices: Vec<BlockDevice>,
    fuse_timeout: std::time::Duration,
}

impl FsTarget {
    /// A target for `recipe`; parsing already validated it.
    fn new(spec: &str, recipe: Recipe, opts: &TargetOptions) -> FsTarget {
        let label = match &recipe {
            Recipe::Tmpfs(t) => t.label.clone(),
            Recipe::Loop(l) => l.label.clone(),
            Recipe::Dev(d) => d.label.clone(),
        };
        FsTarget {
            spec: spec.into(),
            label,
            workdir: workdir_of(opts),
            recipe,
            session: None,
            root: PathBuf::new(),
            direct_io: None,
            versions: None,
            planned: Default::default(),
            devices: Vec::new(),
            fuse_timeout: opts.fuse_timeout.unwrap_or(super::fusewatch::DEFAULT_LIMIT),
        }
    }

    fn fs(&self) -> Option<&FsKind> {
        match &self.recipe {
            Recipe::Tmpfs(_) => None,
            Recipe::Loop(l) => Some(&l.fs),
            Recipe::Dev(d) => Some(&d.fs),
        }
    }

    /// O_DIRECT support before anything is mounted: every kernel filesystem and the FUSE
    /// daemons we drive accept it; tmpfs only since Linux 6.6. Replaced by a probe on setup.
    fn predicted_direct_io(&self) -> bool {
        match self.recipe {
            Recipe::Tmpfs(_) => kernel_at_least(6, 6),
            _ => true,
        }
    }

    /// Capabilities before anything is made: O_DIRECT as [`Self::predicted_direct_io`], its
    /// alignment (a device's logical block from sysfs; else 512 B, a loop device's and what
    /// the workloads assume where statx reports none, as on tmpfs), the space the spec gives
    /// (one image, tmpfs `size=` or half of RAM, the device) and io_uring.
    fn predicted(&self) -> Capabilities {
        let direct = self.predicted_direct_io();
        let (align, space) = match &self.recipe {
            Recipe::Tmpfs(t) => (
                Some(512),
                Some(t.size.unwrap_or(crate::host::ram_bytes() / 2)),
            ),
            Recipe::Loop(l) => (Some(512), (l.devices == 1).then_some(l.size)),
            Recipe::Dev(d) => device::geometry(&d.device),
        };
        Capabilities {
            needs_root: true,
            drop_caches: crate::cache::can_drop_caches(),
            direct_io: direct,
            direct_io_bypasses_cache: direct && !matches!(self.recipe, Recipe::Tmpfs(_)),
            direct_io_align: align.filter(|_| direct),
            io_uring: Some(crate::engine::uring_available().is_ok()),
            space_bytes: space,
            inodes: None,
        }
    }

    fn tool_versions(&mut self) -> BTreeMap<String, String> {
        if self.versions.is_none() {
            let mut v = BTreeMap::new();
            if let Some(fs) = self.fs() {
                for (tool, ver) in fs.tool_versions() {
                    v.insert(tool, ver.unwrap_or_else(|| "unknown".into()));
                }
            }
            if let Ok(u) = nix::sys::utsname::uname() {
                v.insert("kernel".into(), u.release().to_string_lossy().into_owned());
            }
            self.versions = Some(v);
        }
        self.versions.clone().unwrap_or_default()
    }

    fn make(&self, s: &mut Session) -> Result<Made, TargetError> {
        match &self.recipe {
            Recipe::Tmpfs(t) => tmpfs::make(s, t),
            Recipe::Loop(l) => {
                loopfs::check_space(&self.workdir, l.space_bytes()).map_err(TargetError)?;
                loopfs::make(s, l)
            }
            Recipe::Dev(d) => device::make(s, d),
        }
    }
}

fn kernel_at_least(major: u32, minor: u32) -> bool {
    let Ok(u) = nix::sys::utsname::uname() else {
        return false;
    };
    let rel = u.release().to_string_lossy().into_owned();
    let mut it = rel
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse::<u32>().ok());
    (it.next().unwrap_or(0), it.next().unwrap_or(0)) >= (major, minor)
}

/// Bytes in total and available to unprivileged users on the filesystem at `path`.
fn space(path: &Path) -> (u64, u64) {
    match nix::sys::statvfs::statvfs(path) {
        Ok(s) => {
            let f = s.fragment_size();
            (s.blocks() * f, s.blocks_available() * f)
        }
        Err(_) => (0, 0),
    }
}

impl Target for FsTarget {
    fn label(&self) -> &str {
        &self.label
    }
    fn spec(&self) -> &str {
        &self.spec
    }
    fn options(&self) -> BTreeMap<String, String> {
        match &self.recipe {
            Recipe::Tmpfs(t) => t.options(),
            Recipe::Loop(l) => l.options(),
            Recipe::Dev(d) => d.options(),
        }
    }
    fn capabilities(&self) -> Capabilities {
        let planned = *self.planned.get_or_init(|| self.predicted());
        // The probe of the mounted filesystem, once made, is what the workloads met.
        let direct = self.direct_io.unwrap_or(planned.direct_io);
        Capabilities {
            direct_io: direct,
            direct_io_bypasses_cache: direct && !matches!(self.recipe, Recipe::Tmpfs(_)),
            ..planned
        }
    }

    fn setup(&mut self, repeat: u32) -> Result<Option<Lifecycle>, TargetError> {
        if self.session.is_some() {
            return Err(TargetError(format!(
                "{}: setup called twice without teardown",
                self.spec
            )));
        }
        let mut session = Session::begin(&self.workdir, &self.label)?;
        session.set_fuse_timeout(self.fuse_timeout);
        // On any error below, `session` drops and the guards remove what was made.
        let made = self.make(&mut session)?;
        // What mkfs and mount made the kernel say is no fault of the workloads to come.
        let _ = session.faults();
        let entry = super::fsinfo::mounted_at(&made.mount_point).unwrap_or_default();
        let (total_bytes, avail_bytes) = space(&made.mount_point);
        self.direct_io = Some(probe_direct_io(&made.mount_point));
        let mkfs_cpu = made.mkfs.as_ref().map(|m| m.cpu);
        let mkfs = made.mkfs.unwrap_or_default();
        let lifecycle = Lifecycle {
            repeat,
            mkfs_command: mkfs.command,
            mkfs_output: mkfs.output,
            mkfs_secs: mkfs.secs,
            mkfs_cpu,
            mount_command: made.mount.command,
            mount_secs: made.mount.secs,
            mount_cpu: Some(made.mount.cpu),
            mount_options: entry.options,
            umount_secs: None,
            umount_cpu: None,
            total_bytes,
            avail_bytes,
            tool_versions: self.tool_versions(),
            block_devices: made.devices.clone(),
            aging: None,
        };
        self.devices = made.devices;
        self.root = made.mount_point;
        self.session = Some(session);
        Ok(Some(lifecycle))
    }

    fn root(&self) -> &Path {
        &self.root
    }

    fn block_devices(&self) -> Vec<BlockDevice> {
        self.devices.clone()
    }

    fn fault(&mut self) -> Option<String> {
        self.session.as_mut().and_then(Session::faults)
    }

    fn teardown(&mut self) -> Result<Option<crate::measure::Timing>, TargetError> {
        self.devices.clear();
        match self.session.take() {
            Some(s) => s.close(),
            None => Ok(None),
        }
    }
}
