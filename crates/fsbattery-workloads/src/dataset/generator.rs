//! The deterministic kernel-tree generator.
//!
//! `TreePlan::new(profile, scale_div, seed)` decides the whole tree in memory: directories
//! (top-level areas with their real names, subdirectories attached by a random walk that
//! gives the wide-and-shallow shape of a source tree), files (placed mostly in leaf
//! directories, each directory's first file a Makefile as in Kbuild), sizes (log-normal with
//! the profile's median and mean, rescaled so the total matches the profile), modes (0755 for
//! scripts, else 0644; directories 0755) and text-like content (C-ish lines from a word list,
//! each file opening with its own path, so no two files are identical).
//!
//! Invariants: the same (profile, scale_div, seed) gives the same plan, byte for byte, on
//! every platform ([`super::rng`]); entries are visited in sorted pre-order (a directory
//! before its contents, siblings by name), the order `git archive` writes kernel tarballs.

use super::hash::{TreeHasher, TreeSummary};
use super::profile::Profile;
use super::rng::{self, SplitMix64};
use super::DatasetError;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Words that file, directory and identifier names are made of.
const WORDS: &[&str] = &[
    "acpi", "alloc", "atomic", "audit", "block", "bus", "cache", "clock", "core", "cpu", "crypto",
    "dev", "dma", "driver", "entry", "event", "fault", "fb", "filter", "flash", "gpio", "hash",
    "head", "hid", "host", "hw", "i2c", "idle", "init", "inode", "input", "io", "ioctl", "ipc",
    "irq", "journal", "kobject", "lock", "map", "mem", "mmu", "mod", "mount", "mutex", "net",
    "node", "page", "pci", "phy", "pm", "port", "power", "probe", "proc", "queue", "reg", "ring",
    "rtc", "sched", "scsi", "serial", "setup", "signal", "slab", "smp", "sock", "spi", "stat",
    "super", "swap", "sync", "sys", "table", "task", "tcp", "time", "timer", "trace", "tty", "udp",
    "usb", "util", "vfs", "video", "wait", "work", "xattr", "zone", "buf", "ctl", "ops", "state",
    "msg", "link", "frame", "tx", "rx", "skb", "hdr", "addr", "route", "neigh", "fib", "bridge",
    "vlan", "gfp", "kmem", "pte", "pmd", "pgd", "vma", "file", "dentry", "ext", "nfs", "audio",
    "codec", "pcm", "mixer", "snd", "board", "mach", "plat", "fixup", "quirk", "led", "spin",
    "rcu", "percpu", "kthread", "notify", "cred", "key", "shm", "sem", "cgroup", "perf", "debug",
    "dump", "boot", "firmware", "eeprom", "wdt", "uart", "sata", "ide", "raid", "md", "dm",
];

/// Per mille: a new directory attaches where the walk stands (else it goes one level down).
const DIR_ATTACH: u64 = 450;
/// Per mille: a file stays in a directory that has subdirectories (else it goes down).
const FILE_STAY: u64 = 300;
/// Lines of text in a dataset's line pool.
const POOL_LINES: u64 = 4096;
/// Mode of directories and of scripts.
const MODE_EXEC: u32 = 0o755;
/// Mode of ordinary files.
const MODE_FILE: u32 = 0o644;

#[derive(Debug)]
struct DirNode {
    parent: usize,
    name: String,
    depth: u32,
    area: usize,
    subdirs: Vec<usize>,
    files: Vec<usize>,
    names: HashSet<String>,
}

#[derive(Debug)]
struct FileNode {
    name: String,
    size: u64,
    mode: u32,
}

/// One entry of a plan, as visited.
pub(crate) enum Entry<'a> {
    /// A directory (relative path from the hash root, including the top directory).
    Dir {
        /// Relative path.
        path: &'a str,
        /// Permission bits.
        mode: u32,
    },
    /// A regular file with its complete contents.
    File {
        /// Relative path.
        path: &'a str,
        /// Permission bits.
        mode: u32,
        /// The bytes.
        data: &'a [u8],
    },
}

/// A whole tree decided in memory; see the module doc.
#[derive(Debug)]
pub(crate) struct TreePlan {
    dirs: Vec<DirNode>,
    files: Vec<FileNode>,
    pool: Vec<u8>,
    pool_ends: Vec<usize>,
    content_seed: u64,
    /// Tarball mtime of every entry.
    pub(crate) mtime: u64,
}

/// What [`generate`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Name of the top directory made inside the destination, e.g. "linux-2.6.14.4".
    pub top: String,
    /// Content hash of the destination directory (equal to the dataset tarball's hash).
    pub hash: String,
    /// Regular files.
    pub files: u64,
    /// Directories, the top directory included.
    pub dirs: u64,
    /// Sum of file sizes.
    pub bytes: u64,
}

/// Generate the tree of `profile` scaled down by `scale_div` (1 = real size) from `seed` as
/// `dest_dir/<top>/…`; `dest_dir` is created if missing and `<top>` must not exist.
pub fn generate(
    profile: &Profile,
    scale_div: u64,
    seed: u64,
    dest_dir: &Path,
) -> Result<Manifest, DatasetError> {
    let plan = TreePlan::new(profile, scale_div, seed);
    std::fs::create_dir_all(dest_dir)
        .map_err(|e| DatasetError::io(format!("create {}", dest_dir.display()), e))?;
    let mut hasher = TreeHasher::default();
    plan.visit(&mut |entry| {
        match entry {
            Entry::Dir { path, mode } => {
                let p = dest_dir.join(path);
                std::fs::create_dir(&p)
                    .map_err(|e| DatasetError::io(format!("mkdir {}", p.display()), e))?;
                set_mode(&p, mode)?;
                hasher.dir(path.as_bytes(), mode);
            }
            Entry::File { path, mode, data } => {
                let p = dest_dir.join(path);
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .open(&p)
                    .map_err(|e| DatasetError::io(format!("create {}", p.display()), e))?;
                f.write_all(data)
                    .map_err(|e| DatasetError::io(format!("write {}", p.display()), e))?;
                set_mode(&p, mode)?;
                hasher.file(
                    path.as_bytes(),
                    mode,
                    data.len() as u64,
                    Sha256::digest(data).into(),
                );
            }
        }
        Ok(())
    })?;
    let TreeSummary {
        hash,
        files,
        dirs,
        bytes,
        ..
    } = hasher.finish();
    Ok(Manifest {
        top: profile.top_dir(),
        hash,
        files,
        dirs,
        bytes,
    })
}

/// chmod, so the umask never changes what the hash sees.
fn set_mode(p: &Path, mode: u32) -> Result<(), DatasetError> {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
        .map_err(|e| DatasetError::io(format!("chmod {}", p.display()), e))
}

impl TreePlan {
    /// Decide the tree of `profile` / `scale_div` from `seed`.
    pub(crate) fn new(profile: &Profile, scale_div: u64, seed: u64) -> TreePlan {
        let div = scale_div.max(1);
        let parts = [profile.id, div, seed];
        let mut plan = TreePlan {
            dirs: Vec::new(),
            files: Vec::new(),
            pool: Vec::new(),
            pool_ends: Vec::new(),
            content_seed: rng::derive(&parts, 4),
            mtime: profile.mtime,
        };
        plan.build_dirs(profile, div, &mut SplitMix64::new(rng::derive(&parts, 1)));
        plan.place_files(profile, div, &mut SplitMix64::new(rng::derive(&parts, 2)));
        plan.size_files(profile, div, &mut SplitMix64::new(rng::derive(&parts, 3)));
        plan.build_pool(&mut SplitMix64::new(rng::derive(&parts, 5)));
        plan
    }

    /// Regular files planned.
    #[cfg(test)]
    pub(crate) fn file_count(&self) -> u64 {
        self.files.len() as u64
    }

    /// Directories planned, the top directory included.
    #[cfg(test)]
    pub(crate) fn dir_count(&self) -> u64 {
        self.dirs.len() as u64
    }

    /// File sizes, in plan order.
    #[cfg(test)]
    pub(crate) fn sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.files.iter().map(|f| f.size)
    }

    /// Depth of every directory (top = 0).
    #[cfg(test)]
    pub(crate) fn depths(&self) -> impl Iterator<Item = u32> + '_ {
        self.dirs.iter().map(|d| d.depth)
    }

    fn add_dir(&mut self, parent: usize, name: String, area: usize) -> usize {
        let idx = self.dirs.len();
        let depth = if idx == 0 {
            0
        } else {
            self.dirs[parent].depth + 1
        };
        if idx > 0 {
            self.dirs[parent].names.insert(name.clone());
            self.dirs[parent].subdirs.push(idx);
        }
        let node = DirNode {
            parent,
            name,
            depth,
            area,
            subdirs: Vec::new(),
            files: Vec::new(),
            names: HashSet::new(),
        };
        self.dirs.push(node);
        idx
    }

    fn build_dirs(&mut self, profile: &Profile, div: u64, r: &mut SplitMix64) {
        let n_dirs = (profile.dirs / div).max(1);
        let areas = &profile.areas[..profile.areas.len().min(n_dirs as usize)];
        self.add_dir(0, profile.top_dir(), usize::MAX);
        let area_nodes: Vec<usize> = areas
            .iter()
            .enumerate()
            .map(|(i, (name, _))| self.add_dir(0, name.to_string(), i))
            .collect();
        let weights: Vec<u64> = areas.iter().map(|a| u64::from(a.1)).collect();
        let quotas = apportion(n_dirs - areas.len() as u64, &weights);
        for (a, &quota) in quotas.iter().enumerate() {
            for _ in 0..quota {
                let parent = self.walk(area_nodes[a], r, DIR_ATTACH, profile.max_depth - 1);
                let name = self.unique_name(parent, dir_name(r), "");
                self.add_dir(parent, name, a);
            }
        }
    }

    /// From `start`, go down to a random subdirectory until a coin with `stop` per mille says
    /// stop, a leaf is reached, or `max_depth` is.
    fn walk(&self, start: usize, r: &mut SplitMix64, stop: u64, max_depth: u32) -> usize {
        let mut node = start;
        loop {
            let d = &self.dirs[node];
            if d.subdirs.is_empty() || d.depth >= max_depth || r.chance(stop) {
                return node;
            }
            node = d.subdirs[r.below(d.subdirs.len() as u64) as usize];
        }
    }

    fn place_files(&mut self, profile: &Profile, div: u64, r: &mut SplitMix64) {
        for name in profile.root_files {
            self.add_file(0, name.to_string(), MODE_FILE);
        }
        let n_files = (profile.files / div).max(profile.root_files.len() as u64 + 1);
        let areas = self.dirs[0].subdirs.clone();
        let weights: Vec<u64> = areas
            .iter()
            .map(|&d| u64::from(profile.areas[self.dirs[d].area].1))
            .collect();
        let total: u64 = weights.iter().sum();
        for _ in profile.root_files.len() as u64..n_files {
            let mut pick = r.below(total);
            let area = weights
                .iter()
                .position(|&w| {
                    pick < w || {
                        pick -= w;
                        false
                    }
                })
                .unwrap_or(0);
            let dir = self.walk(areas[area], r, FILE_STAY, u32::MAX);
            let area_name = profile.areas[self.dirs[dir].area].0;
            let (name, mode) = self.file_name(dir, area_name, r);
            self.add_file(dir, name, mode);
        }
    }

    fn add_file(&mut self, dir: usize, name: String, mode: u32) {
        self.dirs[dir].names.insert(name.clone());
        self.dirs[dir].files.push(self.files.len());
        self.files.push(FileNode {
            name,
            size: 0,
            mode,
        });
    }

    /// A name for the next file in `dir`: Makefile first and often Kconfig second, as in a
    /// Kbuild tree, then names whose extension follows the area.
    fn file_name(&self, dir: usize, area: &str, r: &mut SplitMix64) -> (String, u32) {
        let existing = self.dirs[dir].files.len();
        let kbuild = !matches!(area, "Documentation" | "include");
        if kbuild && existing == 0 {
            return ("Makefile".into(), MODE_FILE);
        }
        if kbuild && existing == 1 && r.chance(600) {
            return ("Kconfig".into(), MODE_FILE);
        }
        let roll = r.below(100);
        let ext = match area {
            "Documentation" => {
                if roll < 70 {
                    ".txt"
                } else {
                    ""
                }
            }
            "include" => ".h",
            "arch" => match roll {
                0..=44 => ".c",
                45..=74 => ".h",
                75..=89 => ".S",
                _ => "_defconfig",
            },
            "scripts" | "tools" => match roll {
                0..=29 => ".c",
                30..=54 => ".sh",
                55..=79 => ".pl",
                80..=89 => ".h",
                _ => "",
            },
            _ => {
                if roll < 60 {
                    ".c"
                } else {
                    ".h"
                }
            }
        };
        let script = matches!(ext, ".sh" | ".pl") || (ext.is_empty() && area != "Documentation");
        let name = self.unique_name(dir, file_stem(r), ext);
        (name, if script { MODE_EXEC } else { MODE_FILE })
    }

    /// `stem + ext`, or `stem<n> + ext` with the smallest n that is free in `dir`.
    fn unique_name(&self, dir: usize, stem: String, ext: &str) -> String {
        let taken = &self.dirs[dir].names;
        let first = format!("{stem}{ext}");
        if !taken.contains(&first) {
            return first;
        }
        (2..)
            .map(|n| format!("{stem}{n}{ext}"))
            .find(|c| !taken.contains(c))
            .expect("unbounded")
    }

    /// Log-normal sizes with the profile's median and mean, rescaled to the scaled total.
    fn size_files(&mut self, profile: &Profile, div: u64, r: &mut SplitMix64) {
        let mean = profile.bytes as f64 / profile.files as f64;
        let median = profile.median_file as f64;
        // Log-normal: mean = median * e^(sigma^2 / 2). sqrt is correctly rounded by IEEE-754,
        // so it is as reproducible as + - * /.
        let sigma = if mean > median {
            (2.0 * rng::ln(mean / median)).sqrt()
        } else {
            0.5
        };
        let max = profile.max_file as f64;
        for f in &mut self.files {
            let s = median * rng::exp(sigma * r.normal());
            f.size = if s > max { profile.max_file } else { s as u64 };
        }
        let target = u128::from(profile.bytes / div);
        let sum: u128 = self.files.iter().map(|f| u128::from(f.size)).sum();
        for f in &mut self.files {
            if let Some(scaled) = (u128::from(f.size) * target).checked_div(sum) {
                f.size = (scaled as u64).min(profile.max_file);
            }
        }
    }

    fn build_pool(&mut self, r: &mut SplitMix64) {
        for _ in 0..POOL_LINES {
            pool_line(r, &mut self.pool);
            self.pool_ends.push(self.pool.len());
        }
    }

    /// Relative path of directory `d` (top directory first).
    fn dir_path(&self, d: usize) -> String {
        let mut parts = Vec::new();
        let mut n = d;
        loop {
            parts.push(self.dirs[n].name.as_str());
            if n == 0 {
                break;
            }
            n = self.dirs[n].parent;
        }
        parts.reverse();
        parts.join("/")
    }

    /// Visit every entry in sorted pre-order; file contents are built on the way.
    pub(crate) fn visit(
        &self,
        f: &mut dyn FnMut(Entry<'_>) -> Result<(), DatasetError>,
    ) -> Result<(), DatasetError> {
        let mut buf = Vec::new();
        self.visit_dir(0, &mut buf, f)
    }

    fn visit_dir(
        &self,
        d: usize,
        buf: &mut Vec<u8>,
        f: &mut dyn FnMut(Entry<'_>) -> Result<(), DatasetError>,
    ) -> Result<(), DatasetError> {
        let path = self.dir_path(d);
        f(Entry::Dir {
            path: &path,
            mode: MODE_EXEC,
        })?;
        let node = &self.dirs[d];
        let mut children: Vec<(&str, bool, usize)> = node
            .files
            .iter()
            .map(|&i| (self.files[i].name.as_str(), false, i))
            .chain(
                node.subdirs
                    .iter()
                    .map(|&i| (self.dirs[i].name.as_str(), true, i)),
            )
            .collect();
        children.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (name, is_dir, i) in children {
            if is_dir {
                self.visit_dir(i, buf, f)?;
            } else {
                let file_path = format!("{path}/{name}");
                self.content(i, &file_path, buf);
                f(Entry::File {
                    path: &file_path,
                    mode: self.files[i].mode,
                    data: buf,
                })?;
            }
        }
        Ok(())
    }

    /// Contents of file `i`: a comment naming its path, then pool lines, cut to its size.
    fn content(&self, i: usize, path: &str, buf: &mut Vec<u8>) {
        let size = self.files[i].size as usize;
        let mut r = SplitMix64::new(rng::mix(self.content_seed ^ rng::mix(i as u64)));
        buf.clear();
        // As in the kernel: the comment names the path below the top directory.
        let shown = path.split_once('/').map_or(path, |(_, rest)| rest);
        let _ = write!(
            buf,
            "/*\n * linux/{shown}\n *\n * Copyright (C) {} {} {}\n */\n\n",
            1991 + r.below(20),
            pick(&mut r),
            pick(&mut r)
        );
        while buf.len() < size {
            let line = r.below(POOL_LINES) as usize;
            let start = if line == 0 {
                0
            } else {
                self.pool_ends[line - 1]
            };
            buf.extend_from_slice(&self.pool[start..self.pool_ends[line]]);
        }
        buf.truncate(size);
        if let Some(last) = buf.last_mut() {
            *last = b'\n';
        }
    }
}

/// Split `n` among `weights` proportionally (largest remainder), deterministically.
fn apportion(n: u64, weights: &[u64]) -> Vec<u64> {
    let total: u64 = weights.iter().sum::<u64>().max(1);
    let mut out: Vec<u64> = weights.iter().map(|w| n * w / total).collect();
    let mut rest: Vec<(u64, usize)> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| (n * w % total, i))
        .collect();
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let short = n - out.iter().sum::<u64>();
    for &(_, i) in rest.iter().take(short as usize) {
        out[i] += 1;
    }
    out
}

fn pick(r: &mut SplitMix64) -> &'static str {
    WORDS[r.below(WORDS.len() as u64) as usize]
}

fn dir_name(r: &mut SplitMix64) -> String {
    match r.below(10) {
        0..=5 => pick(r).to_string(),
        6..=7 => format!("{}{}", pick(r), r.below(100)),
        _ => format!("{}-{}", pick(r), pick(r)),
    }
}

fn file_stem(r: &mut SplitMix64) -> String {
    match r.below(10) {
        0..=3 => pick(r).to_string(),
        4..=7 => format!("{}_{}", pick(r), pick(r)),
        8 => format!("{}-{}", pick(r), pick(r)),
        _ => format!("{}_{}_{}", pick(r), pick(r), pick(r)),
    }
}

/// One C-like line (with its newline) appended to `out`.
fn pool_line(r: &mut SplitMix64, out: &mut Vec<u8>) {
    let tabs = "\t\t\t".get(..r.below(4) as usize).unwrap_or("");
    let up = |s: &str| s.to_ascii_uppercase();
    let _ = match r.below(12) {
        0 => writeln!(out, "#include <linux/{}.h>", pick(r)),
        1 => writeln!(
            out,
            "static int {}_{}(struct {} *{})",
            pick(r),
            pick(r),
            pick(r),
            pick(r)
        ),
        2 => writeln!(
            out,
            "{tabs}{} = {}_{}({}, {});",
            pick(r),
            pick(r),
            pick(r),
            pick(r),
            r.below(4096)
        ),
        3 => writeln!(
            out,
            "{tabs}if ({}->{} & {}_{})",
            pick(r),
            pick(r),
            up(pick(r)),
            up(pick(r))
        ),
        4 => writeln!(out, "{tabs}\treturn -E{};", up(pick(r))),
        5 => writeln!(
            out,
            "/* {} the {} {} before {} */",
            pick(r),
            pick(r),
            pick(r),
            pick(r)
        ),
        6 => writeln!(
            out,
            " * {} {} {} {} {} {}",
            pick(r),
            pick(r),
            pick(r),
            pick(r),
            pick(r),
            pick(r)
        ),
        7 => writeln!(
            out,
            "#define {}_{}\t0x{:08x}",
            up(pick(r)),
            up(pick(r)),
            r.next_u64() as u32
        ),
        8 => writeln!(out, "{tabs}}}"),
        9 => writeln!(out, "{{"),
        10 => writeln!(
            out,
            "{tabs}spin_lock_irqsave(&{}->{}_lock, flags);",
            pick(r),
            pick(r)
        ),
        _ => writeln!(out),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::profile::by_id;

    #[test]
    fn apportion_splits_exactly() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(apportion(0, &[5, 5]), vec![0, 0]);
        assert_eq!(apportion(7, &[700, 200, 100]).iter().sum::<u64>(), 7);
    }

    #[test]
    fn plans_are_deterministic_and_seed_dependent() {
        let p = by_id(2614).unwrap();
        let collect = |seed| {
            let plan = TreePlan::new(p, 64, seed);
            let mut h = TreeHasher::default();
            plan.visit(&mut |e| {
                match e {
                    Entry::Dir { path, mode } => h.dir(path.as_bytes(), mode),
                    Entry::File { path, mode, data } => h.file(
                        path.as_bytes(),
                        mode,
                        data.len() as u64,
                        Sha256::digest(data).into(),
                    ),
                }
                Ok(())
            })
            .unwrap();
            h.finish()
        };
        assert_eq!(collect(1), collect(1));
        assert_ne!(collect(1).hash, collect(2).hash);
    }

    /// Median of `v` (sorted in place).
    fn median(v: &mut [u64]) -> u64 {
        v.sort_unstable();
        v[v.len() / 2]
    }

    #[test]
    fn full_size_shape_matches_each_profile() {
        for p in crate::dataset::PROFILES {
            let plan = TreePlan::new(p, 1, 1);
            assert_eq!(plan.file_count(), p.files, "{}", p.version);
            assert_eq!(
                plan.dir_count(),
                p.dirs + 1,
                "{} (top directory included)",
                p.version
            );
            let mut sizes: Vec<u64> = plan.sizes().collect();
            let total: u64 = sizes.iter().sum();
            let err = (total as f64 - p.bytes as f64).abs() / p.bytes as f64;
            assert!(err < 0.01, "{}: {total} bytes vs {}", p.version, p.bytes);
            let med = median(&mut sizes);
            assert!(
                (4_000..=7_000).contains(&med),
                "{}: median {med}",
                p.version
            );
            let depths: Vec<u32> = plan.depths().collect();
            let max = *depths.iter().max().unwrap();
            let mean = depths.iter().sum::<u32>() as f64 / depths.len() as f64;
            assert!(
                max <= p.max_depth && max >= 5,
                "{}: max depth {max}",
                p.version
            );
            assert!(
                (2.5..=4.5).contains(&mean),
                "{}: mean depth {mean}",
                p.version
            );
            eprintln!(
                "{}: {} files, {} dirs, {total} bytes, median {med}, largest {}, depth mean {mean:.2} max {max}",
                p.version,
                plan.file_count(),
                plan.dir_count(),
                sizes.last().unwrap()
            );
        }
    }

    #[test]
    fn quick_scale_is_a_sixteenth() {
        let p = by_id(2637).unwrap();
        let plan = TreePlan::new(p, 16, 1);
        assert_eq!(plan.file_count(), p.files / 16);
        assert_eq!(plan.dir_count(), p.dirs / 16 + 1);
        let total: u64 = plan.sizes().sum();
        let err = (total as f64 - (p.bytes / 16) as f64).abs() / (p.bytes / 16) as f64;
        assert!(err < 0.10, "{total}");
    }

    /// Generated names are storable on every supported filesystem, so a tree that differs
    /// on a target is the filesystem's doing: siblings stay distinct when case is folded
    /// (exFAT), and names use only characters and forms that NTFS and exFAT accept.
    #[test]
    fn names_are_portable_to_case_folding_filesystems() {
        const RESERVED: &[&str] = &["con", "prn", "aux", "nul", "com1", "lpt1"];
        for p in crate::dataset::PROFILES {
            for (div, seed) in [(1, 1), (16, 1), (16, 2), (256, 3)] {
                let plan = TreePlan::new(p, div, seed);
                for d in &plan.dirs {
                    let names = d.files.iter().map(|&i| &plan.files[i].name);
                    let names = names.chain(d.subdirs.iter().map(|&i| &plan.dirs[i].name));
                    let mut folded = HashSet::new();
                    for n in names {
                        assert!(folded.insert(n.to_lowercase()), "{}: {n}", p.version);
                        let ok = |b: u8| b.is_ascii_alphanumeric() || b"._-".contains(&b);
                        assert!(n.bytes().all(ok) && n.len() <= 255, "{n}");
                        assert!(!n.ends_with('.'), "{n}");
                        let stem = n.split('.').next().unwrap().to_lowercase();
                        assert!(!RESERVED.contains(&stem.as_str()), "{n}");
                    }
                }
            }
        }
    }
}
