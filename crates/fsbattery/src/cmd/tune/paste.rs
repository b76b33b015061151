//! The recommendation ready to paste: the full mkfs command with the device as a placeholder,
//! the mount options and an `/etc/fstab` line.
//!
//! Invariants: none of the three is ever empty — the defaults are spelled out
//! (`mkfs.xfs /dev/DEVICE`, mount options `defaults`) — and they are built from the same
//! configuration the tune measured, by the option space's own renderers.

use fsbattery_core::tune::OptionSpace;
// The lines and their placeholders are the report's (the text prints them).
use fsbattery_report::tune::{Paste, DEVICE, MOUNTPOINT};

/// The lines of `config` in `space`.
pub fn paste(space: &OptionSpace, config: &[usize]) -> Paste {
    let args = space.mkfs_args(config);
    let mkfs = if args.is_empty() {
        format!("mkfs.{} {DEVICE}", space.fs)
    } else {
        format!("mkfs.{} {args} {DEVICE}", space.fs)
    };
    let opts = space.mount_opts(config);
    let mount_options = if opts.is_empty() {
        "defaults".to_string()
    } else {
        opts
    };
    // fsck order: ext4 is checked after the root filesystem (2); xfs and btrfs check
    // themselves at mount, and their fsck tools do nothing at boot (0).
    let pass = if space.fs.starts_with("ext") { 2 } else { 0 };
    let fstab = format!(
        "{DEVICE}  {MOUNTPOINT}  {}  {mount_options}  0  {pass}",
        space.fs
    );
    Paste {
        mkfs,
        mkfs_defaults: args.is_empty(),
        mount_options,
        fstab,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_spelled_out_and_changes_are_in_every_line() {
        let s = fsbattery_core::tune::space("xfs").unwrap();
        let p = paste(&s, &s.defaults());
        assert_eq!(p.mkfs, "mkfs.xfs /dev/DEVICE");
        assert!(p.mkfs_defaults);
        assert_eq!(p.mount_options, "defaults");
        assert_eq!(p.fstab, "/dev/DEVICE  /MOUNTPOINT  xfs  defaults  0  0");
        let mut c = s.defaults();
        let at = |n: &str| s.options.iter().position(|o| o.name == n).unwrap();
        let (log, bufs) = (at("log_size"), at("logbufs"));
        c[log] = s.options[log]
            .values
            .iter()
            .position(|v| v == "64m")
            .unwrap();
        c[bufs] = s.options[bufs]
            .values
            .iter()
            .position(|v| v == "4")
            .unwrap();
        let p = paste(&s, &c);
        assert_eq!(p.mkfs, "mkfs.xfs -l size=64m /dev/DEVICE");
        assert!(!p.mkfs_defaults);
        assert_eq!(p.mount_options, "logbufs=4");
        assert_eq!(p.fstab, "/dev/DEVICE  /MOUNTPOINT  xfs  logbufs=4  0  0");
        let e = fsbattery_core::tune::space("ext4").unwrap();
        assert!(paste(&e, &e.defaults())
            .fstab
            .ends_with("ext4  defaults  0  2"));
    }
}
