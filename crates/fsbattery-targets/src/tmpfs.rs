//! `tmpfs[:size=SIZE][,mount=OPTS]` — a tmpfs mounted on a private mount point under the
//! work directory.
//!
//! The mount's source is a tag unique to the session (`fsbattery-...`), so /proc/mounts
//! identifies it as ours beyond doubt. Without `size=` the kernel default (half of RAM) applies.

use super::guards::Session;
use super::made::{require_root, Made};
use super::spec::TmpfsSpec;
use super::{TargetError, TargetOptions};
use crate::error::UsageError;

/// Read and check a `tmpfs` spec (no side effects); `fstarget` makes it a target.
pub(super) fn parse(spec: &str, rest: &str, opts: &TargetOptions) -> Result<TmpfsSpec, UsageError> {
    let bad = |m: String| UsageError::Target {
        spec: spec.into(),
        message: m,
    };
    let mut t = TmpfsSpec::parse(rest).map_err(bad)?;
    // tmpfs has no mkfs: only a suite's mount options apply.
    let mut no_mkfs = Vec::new();
    super::fsdefaults::apply(&opts.fs_defaults, "tmpfs", spec, &mut no_mkfs, &mut t.mount)
        .map_err(bad)?;
    require_root().map_err(bad)?;
    super::mkfs::kernel_supports("tmpfs").map_err(|e| bad(e.to_string()))?;
    Ok(t)
}

/// Mount a fresh tmpfs in the session.
pub(super) fn make(s: &mut Session, t: &TmpfsSpec) -> Result<Made, TargetError> {
    let mount_point = s.make_dir("mnt")?;
    let tag = format!(
        "fsbattery-{}",
        s.dir()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let mut opts: Vec<String> = t.size.map(|b| format!("size={b}")).into_iter().collect();
    opts.extend(t.mount.iter().filter(|m| !m.is_empty()).cloned());
    let mut argv: Vec<String> = vec!["mount".into(), "-t".into(), "tmpfs".into()];
    if !opts.is_empty() {
        argv.extend(["-o".into(), opts.join(",")]);
    }
    argv.extend([tag.clone(), mount_point.display().to_string()]);
    let mount = s.mount(&argv, &tag, &mount_point, None)?;
    Ok(Made {
        mount_point,
        mkfs: None,
        mount,
        devices: Vec::new(),
    })
}
