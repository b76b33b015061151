//! Which package manager this machine uses, from /etc/os-release (`ID`, then `ID_LIKE`).

/// A distribution family: the package manager and its naming of packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Debian, Ubuntu and derivatives: apt-get.
    Apt,
    /// Fedora, RHEL, CentOS, Rocky, Alma: dnf.
    Dnf,
    /// openSUSE, SLES: zypper.
    Zypper,
    /// Anything else: no package names known.
    Unknown,
}

impl Family {
    /// The package manager's name.
    pub fn manager(self) -> &'static str {
        match self {
            Family::Apt => "apt-get",
            Family::Dnf => "dnf",
            Family::Zypper => "zypper",
            Family::Unknown => "your package manager",
        }
    }

    /// The non-interactive install command for `packages`.
    pub fn install_argv(self, packages: &[String]) -> Vec<String> {
        let head: &[&str] = match self {
            Family::Apt => &["apt-get", "install", "-y", "--no-install-recommends"],
            Family::Dnf => &["dnf", "install", "-y"],
            Family::Zypper => &["zypper", "--non-interactive", "install"],
            Family::Unknown => &[],
        };
        head.iter()
            .map(|s| s.to_string())
            .chain(packages.iter().cloned())
            .collect()
    }
}

/// The family named by an os-release text: `ID` first, then each word of `ID_LIKE`.
pub fn family_from_os_release(text: &str) -> Family {
    let field = |name: &str| {
        text.lines()
            .filter_map(|l| l.split_once('='))
            .find(|(k, _)| k.trim() == name)
            .map(|(_, v)| {
                v.trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .to_lowercase()
            })
            .unwrap_or_default()
    };
    let id = field("ID");
    let like = field("ID_LIKE");
    std::iter::once(id.as_str())
        .chain(like.split_whitespace())
        .map(of_id)
        .find(|f| *f != Family::Unknown)
        .unwrap_or(Family::Unknown)
}

fn of_id(id: &str) -> Family {
    match id {
        "debian" | "ubuntu" | "raspbian" | "linuxmint" | "pop" => Family::Apt,
        "fedora" | "rhel" | "centos" | "rocky" | "almalinux" | "ol" | "amzn" => Family::Dnf,
        "suse" | "opensuse" | "sles" | "sled" => Family::Zypper,
        id if id.starts_with("opensuse") => Family::Zypper,
        _ => Family::Unknown,
    }
}

/// This machine's family (`Unknown` when /etc/os-release is unreadable).
pub fn detect_family() -> Family {
    ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| family_from_os_release(&t))
        .unwrap_or(Family::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_from_id_and_id_like() {
        let debian =
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n";
        assert_eq!(family_from_os_release(debian), Family::Apt);
        assert_eq!(
            family_from_os_release("ID=ubuntu\nID_LIKE=debian\n"),
            Family::Apt
        );
        assert_eq!(
            family_from_os_release("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n"),
            Family::Dnf
        );
        assert_eq!(
            family_from_os_release("ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n"),
            Family::Zypper
        );
        assert_eq!(
            family_from_os_release("ID=mydistro\nID_LIKE=\"ubuntu debian\"\n"),
            Family::Apt
        );
        assert_eq!(family_from_os_release("ID=alpine\n"), Family::Unknown);
        assert_eq!(family_from_os_release(""), Family::Unknown);
    }
}
