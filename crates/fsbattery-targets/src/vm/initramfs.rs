//! The guest's root: an initramfs fsbattery builds itself from what the host already has —
//! its own binary as `/init`, the programs the guest's targets and workloads run (mkfs tools,
//! mdadm, coreutils for command-mode workloads) with the shared libraries `ldd` names for
//! them, the kernel modules the guest loads (from the kernel package, dependencies first, in
//! `modules.dep` order), and the job (`/fsbattery-job.json`, see `job`).
//!
//! Invariants: every path is written at its canonical host location (merged /usr: `/sbin`
//! and `/lib` are links in the guest as on Debian), so a program finds its libraries where
//! its loader looks; nothing else of the host's is copied.

use super::cpio::Cpio;
use super::job::Job;
use super::kernel::Kernel;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The job's path inside the guest.
pub const JOB_PATH: &str = "/fsbattery-job.json";

/// Modules every guest loads: the virtio PCI transport and disks, the 9p share the journal
/// goes back through, and the checksum the journaling filesystems ask the crypto API for.
const BASE_MODULES: [&str; 6] = [
    "virtio_pci",
    "virtio_blk",
    "9pnet_virtio",
    "9p",
    "crc32c_generic",
    "crc32c-intel",
];

/// What goes into the image.
pub struct Contents {
    /// Host files by guest path.
    files: BTreeMap<String, PathBuf>,
    /// Module files in load order (guest paths).
    pub modules: Vec<String>,
}

/// The modules a filesystem or md level needs loaded: the kernel module of that name (ext2
/// and ext3 are served by ext4's).
pub fn modules_for(fs: &str, md_level: Option<u32>) -> Vec<String> {
    let fs = match fs {
        "ext2" | "ext3" => "ext4",
        f => f,
    };
    let mut m = vec![fs.to_string()];
    if let Some(l) = md_level {
        m.push("md_mod".into());
        m.push(match l {
            0 => "raid0".into(),
            1 => "raid1".into(),
            10 => "raid10".into(),
            _ => "raid456".into(),
        });
    }
    m
}

/// Gather the image's contents: `programs` by name (those the host lacks are left out; the
/// guest's plan refuses what needs them, as on the host), `modules` by name with their
/// dependencies.
pub fn gather(
    kernel: &Kernel,
    programs: &[String],
    modules: &[String],
) -> Result<Contents, String> {
    let mut files = BTreeMap::new();
    let exe = std::env::current_exe().map_err(|e| format!("finding fsbattery's binary: {e}"))?;
    files.insert("/init".to_string(), exe.clone());
    let mut elves = vec![exe];
    for p in programs {
        if let Some(path) = crate::process::which(p) {
            files.insert(guest_path(&path)?, path.clone());
            elves.push(path);
        }
    }
    for lib in libraries(&elves)? {
        files.insert(guest_path(&lib)?, lib);
    }
    let deps = ModDeps::read(&kernel.modules())?;
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for name in BASE_MODULES
        .iter()
        .map(|s| s.to_string())
        .chain(modules.iter().cloned())
    {
        match deps.find(&name) {
            Some(rel) => deps.visit(&rel, &mut seen, &mut order),
            None if deps.builtin(&name) || BASE_MODULES.contains(&name.as_str()) => {}
            None => {
                return Err(format!(
                    "the guest kernel {} has no module {name}",
                    kernel.package
                ))
            }
        }
    }
    let mut modules = Vec::new();
    for rel in order {
        let g = format!("/modules/{rel}");
        files.insert(g.clone(), kernel.modules().join(&rel));
        modules.push(g);
    }
    Ok(Contents { files, modules })
}

/// Where a host file goes in the guest: its canonical directory, its own name (a library's
/// soname link keeps its name, with the bytes of the file it points to).
fn guest_path(p: &Path) -> Result<String, String> {
    let dir = p.parent().unwrap_or(Path::new("/"));
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = p.file_name().unwrap_or_default();
    Ok(dir.join(name).to_string_lossy().into_owned())
}

/// The shared libraries (and loader) `ldd` lists for every ELF in `elves`.
fn libraries(elves: &[PathBuf]) -> Result<BTreeSet<PathBuf>, String> {
    let mut out = BTreeSet::new();
    for e in elves {
        let o = std::process::Command::new("ldd")
            .arg(e)
            .env("LC_ALL", "C")
            .output()
            .map_err(|err| format!("cannot run ldd (libc-bin) on {}: {err}", e.display()))?;
        // Static programs: ldd says so and exits 1; they need nothing.
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let path = line
                .split_whitespace()
                .find(|w| w.starts_with('/'))
                .map(PathBuf::from);
            if let Some(p) = path.filter(|p| p.is_file()) {
                out.insert(p);
            }
        }
    }
    Ok(out)
}

/// `modules.dep` of the kernel package (made by `depmod -b` when it was fetched).
struct ModDeps {
    deps: BTreeMap<String, Vec<String>>,
    builtin: BTreeSet<String>,
}

/// `kernel/fs/jfs/jfs.ko` → `jfs`; `-` and `_` are one in module names.
fn stem(rel: &str) -> String {
    let base = rel.rsplit('/').next().unwrap_or(rel);
    let base = base.split(".ko").next().unwrap_or(base);
    base.replace('-', "_")
}

impl ModDeps {
    fn read(dir: &Path) -> Result<ModDeps, String> {
        let text = std::fs::read_to_string(dir.join("modules.dep"))
            .map_err(|e| format!("{}/modules.dep: {e}", dir.display()))?;
        let deps = text
            .lines()
            .filter_map(|l| l.split_once(':'))
            .map(|(m, d)| {
                let d = d.split_whitespace().map(str::to_string).collect();
                (m.to_string(), d)
            })
            .collect();
        let builtin = std::fs::read_to_string(dir.join("modules.builtin"))
            .unwrap_or_default()
            .lines()
            .map(stem)
            .collect();
        Ok(ModDeps { deps, builtin })
    }

    fn find(&self, name: &str) -> Option<String> {
        let want = name.replace('-', "_");
        self.deps.keys().find(|k| stem(k) == want).cloned()
    }

    fn builtin(&self, name: &str) -> bool {
        self.builtin.contains(&name.replace('-', "_"))
    }

    /// Dependencies before the module, each once.
    fn visit(&self, rel: &str, seen: &mut BTreeSet<String>, order: &mut Vec<String>) {
        if !seen.insert(rel.to_string()) {
            return;
        }
        for d in self.deps.get(rel).into_iter().flatten() {
            self.visit(d, seen, order);
        }
        order.push(rel.to_string());
    }
}

/// Guest directories made before any file, and merged-/usr links.
const DIRS: [&str; 12] = [
    "/dev",
    "/proc",
    "/sys",
    "/tmp",
    "/run",
    "/share",
    "/root",
    "/etc",
    "/usr",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
];
const LINKS: [(&str, &str); 5] = [
    ("/bin", "usr/bin"),
    ("/sbin", "usr/sbin"),
    ("/lib", "usr/lib"),
    ("/lib64", "usr/lib64"),
    ("/etc/mtab", "/proc/self/mounts"),
];

/// Write the image to `out`; returns its size in bytes.
pub fn write(out: &Path, contents: &Contents, job: &Job) -> Result<u64, String> {
    let err = |e: std::io::Error| format!("writing {}: {e}", out.display());
    let f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(out)
        .map_err(err)?;
    let mut c = Cpio::new(std::io::BufWriter::new(f));
    let mut made: BTreeSet<String> = BTreeSet::new();
    for d in DIRS {
        c.dir(d).map_err(err)?;
        made.insert(d.to_string());
    }
    c.dir("/usr/lib64").map_err(err)?;
    made.insert("/usr/lib64".into());
    for (l, t) in LINKS {
        c.symlink(l, t).map_err(err)?;
    }
    let passwd = b"root:x:0:0:root:/root:/bin/sh\n";
    c.file("/etc/passwd", 0o644, &mut &passwd[..], passwd.len() as u64)
        .map_err(err)?;
    let job = serde_json::to_vec_pretty(job).map_err(|e| e.to_string())?;
    c.file(JOB_PATH, 0o644, &mut &job[..], job.len() as u64)
        .map_err(err)?;
    for (guest, host) in &contents.files {
        for parent in parents(guest) {
            if made.insert(parent.clone()) {
                c.dir(&parent).map_err(err)?;
            }
        }
        let mut f =
            std::fs::File::open(host).map_err(|e| format!("reading {}: {e}", host.display()))?;
        let len = f.metadata().map_err(err)?.len();
        c.file(guest, 0o755, &mut f, len).map_err(err)?;
    }
    Ok(c.finish().map_err(err)?.1)
}

/// "/usr/lib/x/y.so" → ["/usr", "/usr/lib", "/usr/lib/x"].
fn parents(p: &str) -> Vec<String> {
    let parts: Vec<&str> = p.trim_start_matches('/').split('/').collect();
    (1..parts.len())
        .map(|n| format!("/{}", parts[..n].join("/")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_are_stems() {
        assert_eq!(stem("kernel/fs/jfs/jfs.ko"), "jfs");
        assert_eq!(
            stem("kernel/arch/x86/crypto/crc32c-intel.ko.xz"),
            "crc32c_intel"
        );
    }

    #[test]
    fn dependencies_load_first_and_once() {
        let deps = ModDeps {
            deps: [
                ("a.ko", vec!["b.ko", "c.ko"]),
                ("b.ko", vec!["c.ko"]),
                ("c.ko", vec![]),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect(),
            builtin: BTreeSet::new(),
        };
        let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
        deps.visit("a.ko", &mut seen, &mut order);
        deps.visit("b.ko", &mut seen, &mut order);
        assert_eq!(order, ["c.ko", "b.ko", "a.ko"]);
    }

    #[test]
    fn ext3_is_served_by_ext4_and_md_by_its_level() {
        assert_eq!(modules_for("ext3", None), ["ext4"]);
        assert_eq!(modules_for("xfs", Some(10)), ["xfs", "md_mod", "raid10"]);
    }

    #[test]
    fn parents_are_listed_outermost_first() {
        assert_eq!(
            parents("/usr/lib/x/y.so"),
            ["/usr", "/usr/lib", "/usr/lib/x"]
        );
    }
}
