//! Pure resolution: needs → missing → packages → the exact commands that install them.

use super::{package, Family, Need};

/// What a set of needs asks of this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The package family the commands are for.
    pub family: Family,
    /// Every need, deduplicated, in first-asked order.
    pub needs: Vec<Need>,
    /// The needs that are not present.
    pub missing: Vec<Need>,
    /// Packages providing the missing needs, deduplicated, in first-needed order.
    pub packages: Vec<String>,
    /// Missing needs no package is known for on this family (the user installs them).
    pub unprovided: Vec<Need>,
}

/// Resolve `needs` on `family`; `present` says whether a need is already satisfied.
pub fn resolve(needs: &[Need], family: Family, present: impl Fn(&Need) -> bool) -> Resolution {
    let mut all: Vec<Need> = Vec::new();
    for n in needs {
        if !all.contains(n) {
            all.push(n.clone());
        }
    }
    let missing: Vec<Need> = all.iter().filter(|n| !present(n)).cloned().collect();
    let mut packages: Vec<String> = Vec::new();
    let mut unprovided = Vec::new();
    for n in &missing {
        match package(n, family) {
            Some(p) if !packages.iter().any(|x| x == p) => packages.push(p.to_string()),
            Some(_) => {}
            None => unprovided.push(n.clone()),
        }
    }
    Resolution {
        family,
        needs: all,
        missing,
        packages,
        unprovided,
    }
}

impl Resolution {
    /// Everything is present: nothing to install.
    pub fn nothing_to_do(&self) -> bool {
        self.missing.is_empty()
    }

    /// The commands that install [`Resolution::packages`], in order (apt refreshes its
    /// package lists first: a fresh machine or container may have none). Empty when there
    /// is nothing to install or the family is unknown.
    pub fn commands(&self) -> Vec<Vec<String>> {
        if self.packages.is_empty() || self.family == Family::Unknown {
            return Vec::new();
        }
        let install = self.family.install_argv(&self.packages);
        match self.family {
            Family::Apt => vec![vec!["apt-get".into(), "update".into()], install],
            _ => vec![install],
        }
    }

    /// The commands as one line to type, each prefixed with `sudo ` when `sudo`.
    pub fn command_line(&self, sudo: bool) -> String {
        self.commands()
            .iter()
            .map(|c| format!("{}{}", if sudo { "sudo " } else { "" }, show(c)))
            .collect::<Vec<_>>()
            .join(" && ")
    }
}

/// A command line as text, quoted where a shell needs it.
pub fn show(argv: &[String]) -> String {
    crate::process::show(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(names: &[&str]) -> Vec<Need> {
        names.iter().map(|n| Need::program(n)).collect()
    }

    #[test]
    fn missing_programs_become_packages_once_each_in_order() {
        let want = needs(&[
            "mkfs.ext4",
            "mkfs.xfs",
            "mkfs.btrfs",
            "mount",
            "zpool",
            "zfs-fuse",
        ]);
        let have = |n: &Need| matches!(n, Need::Program(p) if p == "mkfs.ext4" || p == "mount");
        let r = resolve(&want, Family::Apt, have);
        assert_eq!(
            r.missing,
            needs(&["mkfs.xfs", "mkfs.btrfs", "zpool", "zfs-fuse"])
        );
        assert_eq!(r.packages, ["xfsprogs", "btrfs-progs", "zfs-fuse"]);
        assert!(r.unprovided.is_empty());
        assert_eq!(
            r.commands(),
            [
                vec!["apt-get", "update"],
                vec![
                    "apt-get",
                    "install",
                    "-y",
                    "--no-install-recommends",
                    "xfsprogs",
                    "btrfs-progs",
                    "zfs-fuse"
                ]
            ]
        );
        assert_eq!(
            r.command_line(true),
            "sudo apt-get update && sudo apt-get install -y --no-install-recommends xfsprogs \
             btrfs-progs zfs-fuse"
        );
    }

    #[test]
    fn dnf_and_zypper_name_their_own_packages_and_what_they_lack() {
        let want = needs(&["mkfs.xfs", "mkfs.btrfs", "zpool", "losetup"]);
        let r = resolve(&want, Family::Dnf, |_| false);
        assert_eq!(r.packages, ["xfsprogs", "btrfs-progs", "util-linux"]);
        assert_eq!(r.unprovided, needs(&["zpool"]));
        assert_eq!(
            r.command_line(false),
            "dnf install -y xfsprogs btrfs-progs util-linux"
        );
        let r = resolve(&want, Family::Zypper, |_| false);
        assert_eq!(r.packages, ["xfsprogs", "btrfsprogs", "util-linux"]);
        assert_eq!(
            r.command_line(true),
            "sudo zypper --non-interactive install xfsprogs btrfsprogs util-linux"
        );
    }

    #[test]
    fn everything_present_is_nothing_to_do() {
        let r = resolve(&needs(&["mkfs.xfs", "mkfs.xfs"]), Family::Apt, |_| true);
        assert!(r.nothing_to_do());
        assert_eq!(r.needs.len(), 1);
        assert!(r.commands().is_empty());
        assert_eq!(r.command_line(true), "");
    }

    #[test]
    fn unknown_family_installs_nothing_and_lists_every_need() {
        let r = resolve(&needs(&["mkfs.xfs"]), Family::Unknown, |_| false);
        assert!(r.packages.is_empty() && r.commands().is_empty());
        assert_eq!(r.unprovided, needs(&["mkfs.xfs"]));
    }
}
