//! fs_mark 3.3's command line (`getopt(argc, argv, "vhkFr:S:N:D:d:l:L:n:p:s:t:w:")`) parsed
//! into a [`Config`], with fs_mark's own checks and defaults (its `fs_mark.h`).
//!
//! Invariants: pure and total — any text gives a `Config` or a one-line refusal naming the
//! option, never a panic (the fuzz target `fs_mark_args` holds it to that). Numbers are
//! decimal and whole (fs_mark's `atoi` would read `12x` as 12 and `x` as 0; a pasted command
//! that fs_mark runs as meant parses the same here). Directories (`-d`) are relative to the
//! target's scratch directory: an absolute path or one with `..` is refused, since it would
//! leave the filesystem under test. Options fs_mark has that change nothing measured (`-v`
//! selects its verbose table, `-l` names its log file) are accepted and recorded; fsbattery
//! records every figure either way.

/// fs_mark's limits (`fs_mark.h`).
pub const MAX_FILES: u32 = 1_000_000;
/// Most threads (and directories).
pub const MAX_THREADS: u32 = 64;
/// Longest write buffer (`-w`).
pub const MAX_IO_BUFFER: u32 = 1024 * 1024;
/// Longest file name (`-p`).
pub const FILENAME_SIZE: u32 = 128;
/// fs_mark keeps each directory path in 40 bytes (`MAX_NAME_PATH`).
pub const MAX_NAME_PATH: usize = 40;
/// Seconds a time-hashed subdirectory takes files before the next (`DEFAULT_SECS_PER_DIR`).
pub const SECS_PER_DIR: u64 = 180;
/// The directory files go to when no `-d` is given (fs_mark requires one; a workload has
/// its scratch directory).
pub const DEFAULT_DIR: &str = "test";

/// How files are spread over subdirectories (fs_mark's `dir_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// All files in the thread's directory (no `-D`).
    None,
    /// `-N` files in each subdirectory in turn (`-D` with `-N`).
    RoundRobin,
    /// A new subdirectory every 180 s, starting at one picked by the time (`-D` alone).
    TimeHash,
}

/// One fs_mark run, as its command line sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `-d`, in order (relative to the scratch directory).
    pub dirs: Vec<String>,
    /// `-n`: files per thread per loop.
    pub files: u32,
    /// `-s`: bytes per file.
    pub size: u32,
    /// `-w`: bytes per write() call.
    pub io_size: u32,
    /// `-D`: subdirectories (0: none).
    pub subdirs: u32,
    /// `-N`: files per subdirectory in round-robin mode.
    pub per_subdir: u32,
    /// How subdirectories are picked.
    pub policy: Policy,
    /// `-L`: loops (fs_mark runs at least one).
    pub loops: u32,
    /// `-t`, raised to the number of directories as fs_mark does.
    pub threads: u32,
    /// `-S`: sync method 0..=6.
    pub sync: u8,
    /// `-p`: name length.
    pub name_len: u32,
    /// `-r`: random characters at the end of each name.
    pub rand_len: u32,
    /// `-k` (also set by `-L` and `-F`, as in fs_mark): files stay after each loop.
    pub keep: bool,
    /// `-F`: loop until the filesystem has no room for another loop.
    pub fill: bool,
    /// `-v`: fs_mark's verbose table (fsbattery records every figure anyway).
    pub verbose: bool,
    /// `-l`: fs_mark's log file name (fsbattery keeps its own record).
    pub log: Option<String>,
}

impl Default for Config {
    /// fs_mark's defaults (`fs_mark.h`), with the one directory a workload needs.
    fn default() -> Self {
        Config {
            dirs: Vec::new(),
            files: 1000,
            size: 50 * 1024,
            io_size: 16 * 1024,
            subdirs: 0,
            per_subdir: 0,
            policy: Policy::None,
            loops: 1,
            threads: 1,
            sync: 1,
            name_len: 40,
            rand_len: 24,
            keep: false,
            fill: false,
            verbose: false,
            log: None,
        }
    }
}

/// fs_mark's sync methods (`-S N`) as the bits of its `fs_mark.h`.
pub mod bits {
    /// fsync() each file before its close, in the write loop.
    pub const BEFORE_CLOSE: u8 = 0x1;
    /// One sync() after the write loop.
    pub const SYNC_SYSCALL: u8 = 0x2;
    /// Reopen and fsync() the first file after the write loop.
    pub const FIRST_FILE: u8 = 0x4;
    /// Reopen and fsync() every file, last first.
    pub const POST_REVERSE: u8 = 0x8;
    /// Reopen and fsync() every file, first first.
    pub const POST_IN_ORDER: u8 = 0x10;
    /// `-S 0..=6` → bits.
    pub const METHODS: [u8; 7] = [
        0,
        BEFORE_CLOSE,
        SYNC_SYSCALL | FIRST_FILE,
        POST_REVERSE,
        POST_REVERSE | SYNC_SYSCALL,
        POST_IN_ORDER,
        POST_IN_ORDER | SYNC_SYSCALL,
    ];
}

/// fs_mark's description of each sync method (`sync_policy_string`).
pub const SYNC_NAMES: [&str; 7] = [
    "NO SYNC: Test does not issue sync() or fsync() calls.",
    "INBAND FSYNC: fsync() per file in write loop.",
    "SYSTEM SYNC/SINGLE FSYNC: Issue sync() after main write loop and 1 file fsync() per subdirectory.",
    "POST REVERSE: Reopen and fsync() each file in reverse order after main write loop.",
    "SYNC POST REVERSE: Issue sync() and then reopen and fsync() each file in reverse order after main write loop.",
    "POST: Reopen and fsync() each file in order after main write loop.",
    "SYNC POST: Issue sync() and then reopen and fsync() each file in order after main write loop.",
];

impl Config {
    /// The sync method's bits.
    pub fn sync_bits(&self) -> u8 {
        bits::METHODS[usize::from(self.sync.min(6))]
    }
    /// Whether any fsync() is timed (methods 1..=6).
    pub fn fsyncs(&self) -> bool {
        self.sync != 0
    }
    /// Whether a sync() is timed (methods 2, 4, 6).
    pub fn syncs(&self) -> bool {
        self.sync_bits() & bits::SYNC_SYSCALL != 0
    }
    /// The directories, `DEFAULT_DIR` when none was given.
    pub fn dir_list(&self) -> Vec<&str> {
        if self.dirs.is_empty() {
            vec![DEFAULT_DIR]
        } else {
            self.dirs.iter().map(String::as_str).collect()
        }
    }
    /// Thread `i`'s directory (fs_mark gives thread i + j × dirs the directory i).
    pub fn dir_of(&self, thread: u32) -> &str {
        let d = self.dir_list();
        d[thread as usize % d.len()]
    }
}

/// Parse fs_mark's command line `text` (split at white space; no shell quoting).
pub fn parse(text: &str) -> Result<Config, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut c = Config::default();
    let mut threads = 1u32;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        i += 1;
        let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) else {
            return Err(format!(
                "'{w}': fs_mark takes options only (-n, -s, -d, ...), not operands"
            ));
        };
        if flags == "-" {
            // getopt stops at "--": whatever follows is operands, which fs_mark ignores.
            if let Some(rest) = words.get(i) {
                return Err(format!("'{rest}' after --: fs_mark takes no operands"));
            }
            break;
        }
        for (at, opt) in flags.char_indices() {
            if !takes_value(opt)? {
                flag(&mut c, opt)?;
                continue;
            }
            // The rest of this word is the value (`-n1000`), else the next word.
            let attached = &flags[at + opt.len_utf8()..];
            let value = if attached.is_empty() {
                let v = words
                    .get(i)
                    .ok_or_else(|| format!("-{opt} needs a value"))?;
                i += 1;
                *v
            } else {
                attached
            };
            option(&mut c, &mut threads, opt, value)?;
            break;
        }
    }
    finish(c, threads)
}

/// Whether fs_mark's option `opt` takes a value; unknown options are refused.
fn takes_value(opt: char) -> Result<bool, String> {
    match opt {
        'v' | 'k' | 'F' => Ok(false),
        'r' | 'S' | 'N' | 'D' | 'd' | 'l' | 'L' | 'n' | 'p' | 's' | 't' | 'w' => Ok(true),
        'h' => Err("-h only prints fs_mark's usage: drop it".into()),
        _ => Err(format!(
            "-{opt}: not an fs_mark 3.3 option (it has -d -D -F -k -l -L -n -N -p -r -s -S -t \
             -v -w)"
        )),
    }
}

/// A flag without value.
fn flag(c: &mut Config, opt: char) -> Result<(), String> {
    match opt {
        'v' => c.verbose = true,
        'k' => c.keep = true,
        // fs_mark: "Set keep files as well (hard to fill fs without this!)".
        'F' => (c.keep, c.fill) = (true, true),
        _ => return Err(format!("-{opt}: not a flag")),
    }
    Ok(())
}

/// A whole decimal number in `lo..=hi`, or the refusal naming `-opt`.
fn number(opt: char, v: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let n = v
        .parse::<u64>()
        .ok()
        .filter(|_| v.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("-{opt} {v}: not a whole number"))?;
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(format!("-{opt} {v}: outside {lo}..={hi}"))
    }
}

/// An option with its value, checked as fs_mark checks it (and where fs_mark would misbehave:
/// a negative count, a zero write size).
fn option(c: &mut Config, threads: &mut u32, opt: char, v: &str) -> Result<(), String> {
    let n = |lo: u64, hi: u64| number(opt, v, lo, hi).map(|n| n as u32);
    match opt {
        'D' => {
            c.subdirs = n(2, 4096).map_err(|e| format!("{e} (fs_mark: more than 1)"))?;
            if c.policy == Policy::None {
                c.policy = Policy::TimeHash;
            }
        }
        'd' => dir(c, v)?,
        'l' => c.log = Some(v.to_string()),
        'L' => {
            c.loops = n(0, 100_000)?.max(1);
            // fs_mark 3.3: "Set keep files as well" for -L.
            c.keep = true;
        }
        'n' => c.files = n(1, u64::from(MAX_FILES))?,
        'N' => {
            c.policy = Policy::RoundRobin;
            c.per_subdir = n(0, u64::from(MAX_FILES))?;
        }
        'p' => c.name_len = n(1, u64::from(FILENAME_SIZE))?,
        'r' => c.rand_len = n(0, u64::from(FILENAME_SIZE))?,
        's' => c.size = n(0, u64::from(i32::MAX as u32))?,
        'S' => c.sync = n(0, 6)? as u8,
        't' => *threads = n(1, u64::from(MAX_THREADS))?,
        'w' => c.io_size = n(1, u64::from(MAX_IO_BUFFER))?,
        _ => return Err(format!("-{opt}: not an fs_mark option")),
    }
    Ok(())
}

/// `-d DIR`: relative, inside the scratch directory, within fs_mark's 40-byte path.
fn dir(c: &mut Config, v: &str) -> Result<(), String> {
    let p = std::path::Path::new(v);
    if p.is_absolute() {
        return Err(format!(
            "-d {v}: give a directory relative to the target (e.g. -d test), fsbattery makes \
             it on each target's fresh filesystem"
        ));
    }
    if p.components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(format!(
            "-d {v}: use plain names (no '..' or '.'), it must stay on the target"
        ));
    }
    if v.len() >= MAX_NAME_PATH {
        return Err(format!(
            "-d {v}: fs_mark takes directory names under {MAX_NAME_PATH} bytes"
        ));
    }
    if c.dirs.len() >= MAX_THREADS as usize {
        return Err(format!("-d {v}: at most {MAX_THREADS} directories"));
    }
    c.dirs.push(v.to_string());
    Ok(())
}

/// fs_mark's checks after getopt, and ours for what it would run wrongly.
fn finish(mut c: Config, threads: u32) -> Result<Config, String> {
    if c.subdirs == 0 && c.policy == Policy::RoundRobin {
        return Err("-N needs -D (more than 1 subdirectory), as fs_mark says: add -D COUNT".into());
    }
    if c.rand_len > c.name_len {
        return Err(format!(
            "-r {} is longer than the names (-p {}): make -r at most -p",
            c.rand_len, c.name_len
        ));
    }
    let dirs = c.dir_list().len() as u32;
    c.threads = if dirs > threads {
        dirs
    } else if !threads.is_multiple_of(dirs) {
        return Err(format!(
            "-t {threads} must be a whole multiple of the {dirs} directories (-d), as in fs_mark"
        ));
    } else {
        threads
    };
    if c.fill && c.size == 0 {
        return Err(
            "-F with -s 0 never runs out of room for another loop: give -s a size, or use -L"
                .into(),
        );
    }
    Ok(c)
}

/// The command line as a canonical text: what a run records and what an import of fs_mark's
/// output of the same options is named by.
pub fn canonical(c: &Config) -> String {
    let mut out = Vec::new();
    for d in &c.dirs {
        out.push(format!("-d {d}"));
    }
    out.push(format!("-n {}", c.files));
    out.push(format!("-s {}", c.size));
    out.push(format!("-S {}", c.sync));
    if c.loops > 1 {
        out.push(format!("-L {}", c.loops));
    }
    if c.threads > 1 {
        out.push(format!("-t {}", c.threads));
    }
    if c.subdirs > 0 {
        out.push(format!("-D {}", c.subdirs));
    }
    if c.policy == Policy::RoundRobin {
        out.push(format!("-N {}", c.per_subdir));
    }
    let d = Config::default();
    if c.io_size != d.io_size {
        out.push(format!("-w {}", c.io_size));
    }
    if c.name_len != d.name_len {
        out.push(format!("-p {}", c.name_len));
    }
    if c.rand_len != d.rand_len {
        out.push(format!("-r {}", c.rand_len));
    }
    if c.fill {
        out.push("-F".into());
    } else if c.keep && c.loops <= 1 {
        out.push("-k".into());
    }
    out.join(" ")
}
