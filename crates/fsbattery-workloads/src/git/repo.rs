//! The generated git repository: a history of commits over a tree of text files in
//! directories, written as one `git fast-import` stream (no working tree, no per-commit
//! process), so a repository of thousands of files and hundreds of commits takes seconds.
//!
//! Shape: `files` files ever created over `dirs ≈ files / 12` directories up to three levels
//! deep, sizes log-normal around 3 KiB of source-like lines; the first commit adds 60 % of
//! the files, every later one adds its share of the rest, edits about 2 % of the live files
//! (a line replaced and one inserted, so packs hold deltas as a real project's do) and now
//! and then deletes one. The tag `base` marks the commit a tenth into the history, far from
//! `main`'s tip: `checkout` between them rewrites a large part of the tree.
//!
//! Invariants: a (files, commits, seed) triple names one stream byte for byte (fixed author,
//! dates and the dataset's portable RNG), hence one repository with the same commit ids on
//! every machine; nothing here runs git but [`make`].

use crate::dataset::rng::{derive, exp, SplitMix64};
use crate::dataset::DatasetError;
use std::io::Write;
use std::path::Path;

/// Words the generated lines are made of (source-like, so packs compress as code does).
const WORDS: &[&str] = &[
    "int", "return", "if", "for", "static", "const", "struct", "buffer", "count", "value", "node",
    "list", "size", "err", "data", "index", "len", "next", "free", "alloc", "lock", "unlock",
    "page", "inode", "block", "write", "read", "flags", "state", "(", ")", "{", "}", "=", "+",
    "->", "0", "1", "NULL", "while", "else", "unsigned", "long", "char", "void",
];

/// Commit dates start here (2023-11-14) and advance an hour per commit.
const EPOCH: u64 = 1_700_000_000;

/// What the repository holds, decided from (files, commits, seed) alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoPlan {
    files: u64,
    commits: u64,
    seed: u64,
    dirs: u64,
}

/// One commit: files added, edited (their new version) and deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Files created by this commit.
    pub added: Vec<u64>,
    /// Files changed by this commit, with the version they reach.
    pub edited: Vec<(u64, u32)>,
    /// Files removed by this commit.
    pub deleted: Vec<u64>,
}

impl RepoPlan {
    /// The repository of `files` files over `commits` commits (both at least 2).
    pub fn new(files: u64, commits: u64, seed: u64) -> RepoPlan {
        let files = files.max(2);
        RepoPlan {
            files,
            commits: commits.max(2),
            seed,
            dirs: (files / 12).max(1),
        }
    }

    /// The index of the commit tagged `base` (a tenth into the history).
    pub fn base_commit(&self) -> u64 {
        (self.commits / 10).max(1) - 1
    }

    /// Every commit's change, in order.
    pub fn history(&self) -> Vec<Change> {
        let mut rng = SplitMix64::new(derive(&[self.seed, self.files, self.commits], 1));
        let first = self.files * 6 / 10;
        let rest = self.files - first;
        let mut live: Vec<u64> = (0..first).collect();
        let mut version = vec![0u32; self.files as usize];
        let mut next = first;
        let mut out = Vec::with_capacity(self.commits as usize);
        out.push(Change {
            added: live.clone(),
            ..Change::default()
        });
        for k in 1..self.commits {
            let mut c = Change::default();
            let upto = first + rest * k / (self.commits - 1);
            c.added = (next..upto).collect();
            next = upto;
            let edits = (live.len() as u64 / 50).max(1);
            for _ in 0..edits {
                let f = live[rng.below(live.len() as u64) as usize];
                if !c.edited.iter().any(|&(g, _)| g == f) {
                    version[f as usize] += 1;
                    c.edited.push((f, version[f as usize]));
                }
            }
            if live.len() > 2 && rng.chance(300) {
                let i = rng.below(live.len() as u64) as usize;
                let f = live[i];
                if !c.edited.iter().any(|&(g, _)| g == f) {
                    live.swap_remove(i);
                    c.deleted.push(f);
                }
            }
            live.extend(&c.added);
            out.push(c);
        }
        out
    }

    /// The path of file `f`: `dNN/dNN/dNN/name.ext`, one to three levels deep.
    pub fn path(&self, f: u64) -> String {
        let mut r = SplitMix64::new(derive(&[self.seed, f], 2));
        let dir = r.below(self.dirs);
        let mut parts = Vec::new();
        let mut d = dir;
        // Directory `dir` sits at depth 1..=3 under parents made from its own digits.
        let depth = 1 + dir % 3;
        for _ in 0..depth {
            parts.push(format!("d{:02}", d % 16));
            d /= 16;
        }
        let ext = ["c", "h", "c", "py", "md", "txt", "c", "rs"][r.below(8) as usize];
        format!("{}/x{dir}/f{f}.{ext}", parts.join("/"))
    }

    /// The bytes of file `f` at `version` (0 = as added): a base text, each later version one
    /// line replaced and one inserted.
    pub fn content(&self, f: u64, version: u32) -> Vec<u8> {
        let mut r = SplitMix64::new(derive(&[self.seed, f], 3));
        // Log-normal line count: median 80 lines (about 3 KiB), clamped to 4..4000.
        let n = exp(4.38 + 1.0 * r.normal()).clamp(4.0, 4000.0) as usize;
        let mut lines: Vec<String> = (0..n).map(|_| line(&mut r)).collect();
        for v in 1..=version {
            let mut e = SplitMix64::new(derive(&[self.seed, f, u64::from(v)], 4));
            let at = e.below(lines.len() as u64) as usize;
            lines[at] = line(&mut e);
            let ins = e.below(lines.len() as u64 + 1) as usize;
            lines.insert(ins, line(&mut e));
        }
        let mut out = lines.join("\n");
        out.push('\n');
        out.into_bytes()
    }

    /// Write the whole history as a `git fast-import` stream to `w`.
    pub fn write_stream(&self, w: &mut impl Write) -> std::io::Result<()> {
        for (k, c) in self.history().iter().enumerate() {
            let when = EPOCH + 3600 * k as u64;
            let msg = format!(
                "change {k}: {} added, {} edited, {} deleted\n",
                c.added.len(),
                c.edited.len(),
                c.deleted.len()
            );
            writeln!(w, "commit refs/heads/main\nmark :{}", k + 1)?;
            let who = "fsbattery <fsbattery@example.invalid>";
            writeln!(w, "author {who} {when} +0000\ncommitter {who} {when} +0000")?;
            writeln!(w, "data {}\n{msg}", msg.len())?;
            if k > 0 {
                writeln!(w, "from :{k}")?;
            }
            for &f in &c.deleted {
                writeln!(w, "D {}", self.path(f))?;
            }
            let files = c
                .added
                .iter()
                .map(|&f| (f, 0))
                .chain(c.edited.iter().copied());
            for (f, v) in files {
                let body = self.content(f, v);
                writeln!(w, "M 100644 inline {}\ndata {}", self.path(f), body.len())?;
                w.write_all(&body)?;
                writeln!(w)?;
            }
            writeln!(w)?;
        }
        writeln!(
            w,
            "reset refs/tags/base\nfrom :{}\n",
            self.base_commit() + 1
        )?;
        Ok(())
    }
}

/// One line of source-like text: an indent and two to nine words.
fn line(r: &mut SplitMix64) -> String {
    let indent = "\t".repeat(r.below(4) as usize);
    let n = 2 + r.below(8);
    let words: Vec<&str> = (0..n)
        .map(|_| WORDS[r.below(WORDS.len() as u64) as usize])
        .collect();
    format!("{indent}{};", words.join(" "))
}

/// Make the bare repository of `plan` as `dir/source.git`, fully packed, with `env`'s clean
/// environment (see `app_cmd`).
pub fn make(plan: &RepoPlan, dir: &Path) -> Result<(), DatasetError> {
    let env = super::super::app_cmd::CleanEnv::new().map_err(|e| {
        DatasetError::io(
            "prepare the git repository",
            std::io::Error::other(e.to_string()),
        )
    })?;
    let repo = dir.join("source.git");
    let fail = |what: &str, e: String| DatasetError::io(what.to_string(), std::io::Error::other(e));
    let run = |args: &[&str], cwd: &Path| -> Result<(), DatasetError> {
        let mut c = env.command("git", cwd);
        c.args(args);
        super::super::app_cmd::output(c, &format!("git {}", args.join(" ")))
            .map(|_| ())
            .map_err(|e| fail("generate the git repository", e.to_string()))
    };
    run(
        &[
            "init",
            "-q",
            "--bare",
            "--initial-branch=main",
            "source.git",
        ],
        dir,
    )?;
    let mut c = env.command("git", &repo);
    c.args(["fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    let mut child = c
        .spawn()
        .map_err(|e| DatasetError::io("run git fast-import", e))?;
    let mut stdin = std::io::BufWriter::new(child.stdin.take().expect("piped stdin"));
    let wrote = plan.write_stream(&mut stdin).and_then(|()| stdin.flush());
    drop(stdin);
    let status = child
        .wait()
        .map_err(|e| DatasetError::io("wait for git fast-import", e))?;
    if let Err(e) = wrote {
        return Err(DatasetError::io("feed git fast-import", e));
    }
    if !status.success() {
        return Err(fail("git fast-import", format!("exited with {status}")));
    }
    run(&["repack", "-a", "-d", "-q"], &repo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same triple, same stream; another seed, another stream.
    #[test]
    fn the_stream_is_deterministic() {
        let p = RepoPlan::new(300, 12, 7);
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        p.write_stream(&mut a).unwrap();
        RepoPlan::new(300, 12, 7).write_stream(&mut b).unwrap();
        RepoPlan::new(300, 12, 8).write_stream(&mut c).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// The shape asked: every file created once, 60 % in the first commit, each later commit
    /// editing some, paths spread over nested directories, sizes varied around a few KiB.
    #[test]
    fn the_history_has_the_shape_asked() {
        let p = RepoPlan::new(3000, 50, 1);
        let h = p.history();
        assert_eq!(h.len(), 50);
        assert_eq!(h[0].added.len(), 1800);
        let mut added: Vec<u64> = h.iter().flat_map(|c| c.added.clone()).collect();
        added.sort_unstable();
        assert_eq!(added, (0..3000).collect::<Vec<_>>());
        assert!(h[1..]
            .iter()
            .all(|c| !c.edited.is_empty() && !c.added.is_empty()));
        let deleted: usize = h.iter().map(|c| c.deleted.len()).sum();
        assert!((3..=30).contains(&deleted), "{deleted}");
        let paths: std::collections::BTreeSet<String> = (0..3000).map(|f| p.path(f)).collect();
        assert_eq!(paths.len(), 3000, "paths are unique");
        let dirs: std::collections::BTreeSet<&str> =
            paths.iter().map(|s| &s[..s.rfind('/').unwrap()]).collect();
        assert!(dirs.len() > 150, "{}", dirs.len());
        assert!(paths.iter().any(|s| s.matches('/').count() == 4));
        let sizes: Vec<usize> = (0..3000).map(|f| p.content(f, 0).len()).collect();
        let mean = sizes.iter().sum::<usize>() / sizes.len();
        assert!((2000..8000).contains(&mean), "{mean}");
        assert!(sizes.iter().any(|&s| s < 500) && sizes.iter().any(|&s| s > 20_000));
        // A new version is the old one with one line replaced and one inserted.
        let (v0, v1) = (p.content(5, 0), p.content(5, 1));
        let n = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
        assert_eq!(n(&v1), n(&v0) + 1);
        assert_eq!(p.base_commit(), 4);
    }

    /// With git on PATH (skipped without it unless FSBATTERY_REQUIRE_PRIVILEGED=1): the same
    /// plan made twice gives the same commit ids, the history and tree the plan says, and the
    /// `base` tag far from the tip.
    #[test]
    fn the_repository_is_the_same_everywhere() {
        if crate::process::on_path("git").is_none() {
            let required = std::env::var("FSBATTERY_REQUIRE_PRIVILEGED").as_deref() == Ok("1");
            assert!(
                !required,
                "git is not on PATH (FSBATTERY_REQUIRE_PRIVILEGED=1)"
            );
            eprintln!("skipped: needs git");
            return;
        }
        let p = RepoPlan::new(200, 10, 3);
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        make(&p, a.path()).unwrap();
        make(&p, b.path()).unwrap();
        let git = |dir: &Path, args: &[&str]| -> String {
            let o = std::process::Command::new("git")
                .args(args)
                .current_dir(dir.join("source.git"))
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            assert!(o.status.success(), "{args:?}: {o:?}");
            String::from_utf8(o.stdout).unwrap().trim().to_string()
        };
        let tip = git(a.path(), &["rev-parse", "main"]);
        assert_eq!(tip, git(b.path(), &["rev-parse", "main"]));
        assert_eq!(git(a.path(), &["rev-list", "--count", "main"]), "10");
        let deleted: usize = p.history().iter().map(|c| c.deleted.len()).sum();
        let files = git(a.path(), &["ls-tree", "-r", "--name-only", "main"]);
        assert_eq!(files.lines().count(), 200 - deleted);
        let base = git(a.path(), &["rev-parse", "base^{commit}"]);
        let behind = git(a.path(), &["rev-list", "--count", &format!("{base}..main")]);
        assert_eq!(behind, "9", "base is the first commit of ten");
        let packs = git(a.path(), &["count-objects", "-v"]);
        assert!(packs.contains("packs: 1"), "{packs}");
    }
}
