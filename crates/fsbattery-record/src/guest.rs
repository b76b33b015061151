//! The virtual machine a run's cells were measured in (`vm:` targets): which kernel, which
//! accelerator, how many CPUs and how much memory. Results ranked only against targets of the
//! same guest configuration: a guest's numbers include the emulation's own cost.

use serde::{Deserialize, Serialize};

/// A guest configuration: two runs whose `GuestInfo` differ in anything but `boot_secs`
/// measured different machines.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GuestInfo {
    /// The distribution's kernel package, e.g. "linux-image-6.1.0-56-amd64".
    pub kernel_package: String,
    /// Its package version, e.g. "6.1.192-2".
    pub kernel_version: String,
    /// The emulator and its version, e.g. "QEMU 7.2.x".
    pub emulator: String,
    /// "TCG" (software emulation) or "KVM".
    pub accelerator: String,
    /// Virtual CPUs.
    pub cpus: u32,
    /// Guest memory in bytes.
    pub memory_bytes: u64,
    /// Seconds from starting the emulator to the guest's first run line (boot, modules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_secs: Option<f64>,
}

impl GuestInfo {
    /// The configuration in one phrase, for the conditions line: "guest: Debian
    /// linux-image-6.1.0-56-amd64 6.1.192-2 under QEMU 7.2.x TCG (software emulation), 2
    /// CPUs, 1.5 GiB".
    pub fn describe(&self) -> String {
        let accel = match self.accelerator.as_str() {
            "TCG" => "TCG (software emulation)".to_string(),
            a => a.to_string(),
        };
        format!(
            "guest kernel {} {} under {} {accel}, {} CPUs, {}",
            self.kernel_package,
            self.kernel_version,
            self.emulator,
            self.cpus,
            crate::format_bytes(self.memory_bytes)
        )
    }

    /// Whether two guests are one machine but for their kernel (accelerator, emulator, CPUs,
    /// memory agree): their targets may be ranked together, the kernel being what differs.
    pub fn same_but_kernel(&self, other: &GuestInfo) -> bool {
        GuestInfo {
            kernel_package: String::new(),
            kernel_version: String::new(),
            ..other.clone()
        }
        .same_configuration(&GuestInfo {
            kernel_package: String::new(),
            kernel_version: String::new(),
            ..self.clone()
        })
    }

    /// The conditions of a run whose targets ran in several guests that differ only in their
    /// kernel, each kernel with the targets it ran: "guest kernels linux-image-A 1 (ext4@A),
    /// linux-image-B 2 (ext4@B) under QEMU 7.2.19 TCG (software emulation), 2 CPUs, 2 GiB
    /// each; ...". `kernels` is in the order the guests ran.
    pub fn describe_kernels(kernels: &[(&GuestInfo, Vec<&str>)]) -> String {
        let Some((first, _)) = kernels.first() else {
            return String::new();
        };
        let names: Vec<String> = kernels
            .iter()
            .map(|(g, targets)| {
                format!(
                    "{} {} ({})",
                    g.kernel_package,
                    g.kernel_version,
                    targets.join(", ")
                )
            })
            .collect();
        let one = first.describe();
        let machine = one.split_once(" under ").map_or(one.as_str(), |(_, m)| m);
        format!(
            "guest kernels {} under {machine} each; ranked together: the guests differ only in \
             their kernel, the dimension compared; the guests ran one after the other, so \
             rounds interleave among one kernel's targets, not across kernels",
            names.join(", ")
        )
    }

    /// Whether two guests are one configuration (everything but the boot time).
    pub fn same_configuration(&self, other: &GuestInfo) -> bool {
        GuestInfo {
            boot_secs: None,
            ..self.clone()
        } == GuestInfo {
            boot_secs: None,
            ..other.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcg() -> GuestInfo {
        GuestInfo {
            kernel_package: "linux-image-6.1.0-56-amd64".into(),
            kernel_version: "6.1.192-2".into(),
            emulator: "QEMU 7.2.19".into(),
            accelerator: "TCG".into(),
            cpus: 2,
            memory_bytes: 1536 << 20,
            boot_secs: Some(4.0),
        }
    }

    #[test]
    fn names_kernel_and_accelerator() {
        let d = tcg().describe();
        assert!(d.contains("linux-image-6.1.0-56-amd64 6.1.192-2"), "{d}");
        assert!(d.contains("TCG (software emulation)"), "{d}");
        assert!(d.contains("2 CPUs"), "{d}");
    }

    #[test]
    fn kernels_compared_are_named_with_their_targets() {
        let mut b = tcg();
        b.kernel_package = "linux-image-6.1.0-50-amd64".into();
        b.kernel_version = "6.1.176-1".into();
        assert!(tcg().same_but_kernel(&b) && !tcg().same_configuration(&b));
        let d = GuestInfo::describe_kernels(&[
            (&tcg(), vec!["ext4@6.1.0-56"]),
            (&b, vec!["ext4@6.1.0-50"]),
        ]);
        assert!(
            d.contains("linux-image-6.1.0-56-amd64 6.1.192-2 (ext4@6.1.0-56)"),
            "{d}"
        );
        assert!(
            d.contains("linux-image-6.1.0-50-amd64 6.1.176-1 (ext4@6.1.0-50)"),
            "{d}"
        );
        assert!(
            d.contains("under QEMU 7.2.19 TCG (software emulation), 2 CPUs"),
            "{d}"
        );
        assert!(d.contains("not across kernels"), "{d}");
        b.cpus = 4;
        assert!(!tcg().same_but_kernel(&b));
    }

    #[test]
    fn boot_time_is_no_configuration() {
        let mut b = tcg();
        b.boot_secs = Some(9.0);
        assert!(tcg().same_configuration(&b));
        b.accelerator = "KVM".into();
        assert!(!tcg().same_configuration(&b));
    }
}
