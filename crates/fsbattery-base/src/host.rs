//! Probing the host once per run: kernel, CPU, cores, RAM, privileges.
//!
//! Read-only; every field falls back to "unknown"/0 rather than failing a run.

use crate::model::HostInfo;
use std::fs;

/// Gather host facts for the run record.
pub fn probe() -> HostInfo {
    let uts = nix::sys::utsname::uname().ok();
    let kernel = uts
        .as_ref()
        .map(|u| {
            format!(
                "{} {}",
                u.release().to_string_lossy(),
                u.version().to_string_lossy()
            )
        })
        .unwrap_or_else(|| "unknown".into());
    let hostname = nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "unknown".into());
    HostInfo {
        hostname,
        kernel,
        os: os_name(),
        cpu_model: cpu_model(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1),
        ram_bytes: ram_bytes(),
        root: nix::unistd::geteuid().is_root(),
        tool_ceiling: None,
        guest: None,
    }
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Physical memory in bytes (MemTotal), used for "2 × RAM" sizes at full scale.
pub fn ram_bytes() -> u64 {
    fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|kb| kb.parse::<u64>().ok())
                })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

fn os_name() -> String {
    fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The kernel's boot id, which changes at every boot: parts of a resumed run made across a
/// reboot are told apart by it.
pub fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}
