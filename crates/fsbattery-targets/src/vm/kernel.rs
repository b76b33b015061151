//! The guest's kernel: a distribution kernel package, fetched through the package manager
//! (`apt-get download`, never installed into the host's /boot) and unpacked with `dpkg-deb
//! -x` into fsbattery's own cache, one directory per package and version:
//! `/var/cache/fsbattery/vm/PACKAGE_VERSION/` holding `kernel.json` (what it is), the
//! package's `boot/vmlinuz-*` and `lib/modules/RELEASE/` with a `modules.dep` made by
//! `depmod -b` (the package ships none; its postinst would make it).
//!
//! Invariant: a directory without `kernel.json` is incomplete (a fetch cut short) and is never
//! used; `kernel.json` is written last, after depmod.

use crate::process as exec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where fetched kernels live.
pub const CACHE_DIR: &str = "/var/cache/fsbattery/vm";
/// The distribution's package that names its current kernel.
pub const META_PACKAGE: &str = "linux-image-amd64";

/// A fetched, unpacked kernel.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Kernel {
    /// Package name, e.g. "linux-image-6.1.0-56-amd64".
    pub package: String,
    /// Package version, e.g. "6.1.192-2".
    pub version: String,
    /// The kernel release (`uname -r` in the guest), e.g. "6.1.0-56-amd64".
    pub release: String,
    /// Its directory in the cache (not serialized: the directory it is read from).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Kernel {
    /// The compressed kernel image QEMU boots.
    pub fn vmlinuz(&self) -> PathBuf {
        self.dir
            .join("boot")
            .join(format!("vmlinuz-{}", self.release))
    }

    /// The package's module tree.
    pub fn modules(&self) -> PathBuf {
        self.dir.join("lib/modules").join(&self.release)
    }

    /// Whether `want` (kernel=...) names this kernel: its package, version or release, or a
    /// prefix of its version or release ("6.1").
    pub fn matches(&self, want: &str) -> bool {
        self.package == want || self.version.starts_with(want) || self.release.starts_with(want)
    }
}

/// Every complete kernel in `cache`, newest version first.
pub fn cached(cache: &Path) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = std::fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path().join("kernel.json")).ok()?;
            let mut k: Kernel = serde_json::from_str(&text).ok()?;
            k.dir = e.path();
            k.vmlinuz().is_file().then_some(k)
        })
        .collect();
    out.sort_by_key(|k| std::cmp::Reverse(version_key(&k.version)));
    out
}

/// "6.1.192-2" → [6, 1, 192, 2]: enough order for Debian kernel versions.
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// The kernel a run asks for, from the cache; the error says how to fetch one.
pub fn find(cache: &Path, want: Option<&str>) -> Result<Kernel, String> {
    let all = cached(cache);
    let found = match want {
        Some(w) => all.into_iter().find(|k| k.matches(w)),
        None => all.into_iter().next(),
    };
    found.ok_or_else(|| {
        let which = want.map_or(String::new(), |w| format!(" matching kernel={w}"));
        format!(
            "no guest kernel{which} in {}: run `fsbattery setup --target vm:FSTYPE` (it fetches {} with apt-get download)",
            cache.display(),
            want.map_or(META_PACKAGE, |_| "the kernel package")
        )
    })
}

/// The versioned package the distribution's current kernel is (`linux-image-amd64`'s
/// dependency), or the package `want` names.
fn package_for(want: Option<&str>) -> Result<String, String> {
    if let Some(w) = want.filter(|w| w.starts_with("linux-image-")) {
        return Ok(w.to_string());
    }
    let out = output(&["apt-cache", "depends", META_PACKAGE])?;
    out.lines()
        .filter_map(|l| l.trim().strip_prefix("Depends: "))
        .find(|p| p.starts_with("linux-image-"))
        .map(str::to_string)
        .ok_or_else(|| format!("`apt-cache depends {META_PACKAGE}` names no kernel package"))
}

/// The kernel image packages the distribution serves (`apt-cache search`), with their
/// descriptions.
pub fn served() -> Result<Vec<(String, String)>, String> {
    let out = output(&[
        "apt-cache",
        "search",
        "--names-only",
        "^linux-image-[0-9].*-amd64$",
    ])?;
    Ok(out
        .lines()
        .filter_map(|l| l.split_once(" - "))
        .map(|(p, d)| (p.trim().to_string(), d.trim().to_string()))
        .collect())
}

/// The generic kernel package the distribution serves just before its current one (e.g.
/// "linux-image-6.1.0-55-amd64" when the current is -56): a second kernel to compare with.
pub fn previous_package() -> Result<String, String> {
    let current = package_for(None)?;
    let abi = |p: &str| -> Option<Vec<u64>> {
        let v = p.strip_prefix("linux-image-")?.strip_suffix("-amd64")?;
        // Flavours (-cloud, -rt) are other kernels, not older ones.
        v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            .then(|| version_key(v))
    };
    let now = abi(&current).ok_or_else(|| format!("{current}: not a generic kernel package"))?;
    served()?
        .into_iter()
        .filter_map(|(p, _)| abi(&p).filter(|v| *v < now).map(|v| (v, p)))
        .max()
        .map(|(_, p)| p)
        .ok_or_else(|| format!("the distribution serves no kernel package older than {current}"))
}

/// Fetch and unpack a kernel into `cache` unless a matching one is there; returns it and
/// whether it was fetched now.
pub fn fetch(cache: &Path, want: Option<&str>) -> Result<(Kernel, bool), String> {
    if let Ok(k) = find(cache, want) {
        return Ok((k, false));
    }
    let package = package_for(want)?;
    std::fs::create_dir_all(cache).map_err(|e| format!("mkdir {}: {e}", cache.display()))?;
    let tmp = cache.join(format!(".fetch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("mkdir {}: {e}", tmp.display()))?;
    let result = unpack(cache, &tmp, &package);
    let _ = std::fs::remove_dir_all(&tmp);
    result.map(|k| (k, true))
}

fn unpack(cache: &Path, tmp: &Path, package: &str) -> Result<Kernel, String> {
    // apt-get download writes into the current directory.
    let dl = std::process::Command::new("apt-get")
        .args(["download", "-q", package])
        .current_dir(tmp)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run apt-get download {package}: {e}"))?;
    if !dl.status.success() {
        let err = String::from_utf8_lossy(&dl.stderr);
        return Err(format!("apt-get download {package} failed: {}", err.trim()));
    }
    let deb = std::fs::read_dir(tmp)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| format!("apt-get download {package} left no .deb"))?;
    let field = |f: &str| -> Result<String, String> {
        Ok(output(&["dpkg-deb", "-f", &deb.to_string_lossy(), f])?
            .trim()
            .to_string())
    };
    let version = field("Version")?;
    let release = package
        .strip_prefix("linux-image-")
        .ok_or_else(|| format!("{package}: not a linux-image package"))?
        .to_string();
    let dir = cache.join(format!("{package}_{version}"));
    let _ = std::fs::remove_dir_all(&dir);
    output(&[
        "dpkg-deb",
        "-x",
        &deb.to_string_lossy(),
        &dir.to_string_lossy(),
    ])?;
    output(&["depmod", "-b", &dir.to_string_lossy(), &release])
        .map_err(|e| format!("{e} (depmod is in the kmod package)"))?;
    let k = Kernel {
        package: package.to_string(),
        version,
        release,
        dir: dir.clone(),
    };
    let json = serde_json::to_string_pretty(&k).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("kernel.json"), json).map_err(|e| e.to_string())?;
    Ok(k)
}

/// What `argv` printed, or its failure in one message.
fn output(argv: &[&str]) -> Result<String, String> {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    exec::run(&argv)
        .map(|r| r.output)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: &str) -> Kernel {
        Kernel {
            package: "linux-image-6.1.0-56-amd64".into(),
            version: v.into(),
            release: "6.1.0-56-amd64".into(),
            dir: PathBuf::new(),
        }
    }

    #[test]
    fn kernel_is_named_by_package_version_or_release() {
        let k = k("6.1.192-2");
        assert!(k.matches("6.1") && k.matches("linux-image-6.1.0-56-amd64"));
        assert!(k.matches("6.1.0-56") && !k.matches("6.12"));
    }

    #[test]
    fn versions_order_numerically() {
        assert!(version_key("6.1.192-2") > version_key("6.1.99-1"));
    }
}
