//! The generated C project: `sources` modules of a few functions each, in groups of 16
//! directories under `src/` with their headers under `include/`, each module including its
//! own header, a shared `common.h` and up to four headers of earlier modules (an include DAG,
//! as a real project's), a `main.c` that calls into every module, and a Makefile with a
//! pattern rule, dependency files (`-MMD`) and a `clean` target.
//!
//! Invariants: a (sources, seed) pair names one project byte for byte (the dataset's portable
//! RNG); every `.c` compiles to one `.o` next to it, so a finished `make` leaves exactly
//! [`ProjectPlan::objects`] objects and `make clean` none.

use crate::dataset::rng::{derive, SplitMix64};
use std::fmt::Write as _;
use std::path::Path;

/// What the project holds, decided from (sources, seed) alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPlan {
    sources: u64,
    seed: u64,
}

/// Modules per directory.
const GROUP: u64 = 16;

impl ProjectPlan {
    /// A project of `sources` modules (at least 1), plus `main.c`.
    pub fn new(sources: u64, seed: u64) -> ProjectPlan {
        ProjectPlan {
            sources: sources.max(1),
            seed,
        }
    }

    /// The objects a full build makes: one per module and `main.o`.
    pub fn objects(&self) -> u64 {
        self.sources + 1
    }

    /// Every file of the project as (relative path, contents), in a fixed order.
    pub fn files(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("include/common.h".to_string(), COMMON_H.to_string()),
            ("Makefile".to_string(), self.makefile()),
            ("src/main.c".to_string(), self.main_c()),
        ];
        for m in 0..self.sources {
            let (h, c) = self.module(m);
            out.push((format!("include/{}.h", self.stem(m)), h));
            out.push((format!("src/{}.c", self.stem(m)), c));
        }
        out
    }

    /// Write every file under `dir` (which exists).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        for (rel, text) in self.files() {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, text)?;
        }
        Ok(())
    }

    /// `gNN/modMMM`: module `m`'s path stem under `src/` and `include/`.
    fn stem(&self, m: u64) -> String {
        format!("g{:02}/mod{m:04}", m / GROUP)
    }

    /// Functions of module `m` (3 to 8).
    fn functions(&self, m: u64) -> u64 {
        3 + SplitMix64::new(derive(&[self.seed, m], 10)).below(6)
    }

    /// Module `m`'s header and source.
    fn module(&self, m: u64) -> (String, String) {
        let mut r = SplitMix64::new(derive(&[self.seed, m], 11));
        let guard = format!("MOD{m:04}_H");
        let mut h = format!("#ifndef {guard}\n#define {guard}\n#include \"common.h\"\n\n");
        let _ = writeln!(
            h,
            "struct mod{m}_state {{ long acc; int seen[{}]; }};",
            4 + m % 7
        );
        let nf = self.functions(m);
        for f in 0..nf {
            let _ = writeln!(h, "long mod{m}_f{f}(long x);");
        }
        h.push_str("\n#endif\n");
        let deps: Vec<u64> = if m == 0 {
            Vec::new()
        } else {
            (0..r.below(5)).map(|_| r.below(m)).collect()
        };
        let mut c = format!("#include \"{}.h\"\n", self.stem(m));
        for d in &deps {
            let _ = writeln!(c, "#include \"{}.h\"", self.stem(*d));
        }
        let _ = writeln!(c, "\nstatic struct mod{m}_state state;\n");
        for f in 0..nf {
            c.push_str(&self.function(&mut r, m, f, &deps));
        }
        (h, c)
    }

    /// One function: a loop of mixed arithmetic the optimiser has work with, and a call into
    /// a dependency.
    fn function(&self, r: &mut SplitMix64, m: u64, f: u64, deps: &[u64]) -> String {
        let mut body = format!(
            "long mod{m}_f{f}(long x)\n{{\n\tlong a = x + {};\n",
            r.below(97)
        );
        let _ = writeln!(body, "\tfor (int i = 0; i < {}; i++) {{", 8 + r.below(56));
        for _ in 0..4 + r.below(12) {
            let op = ["+", "-", "^", "*", "|"][r.below(5) as usize];
            let sh = 1 + r.below(13);
            let _ = writeln!(
                body,
                "\t\ta = MIX(a {op} (x >> {sh})) + state.seen[i % {}];",
                4 + m % 7
            );
            if r.chance(300) {
                let _ = writeln!(body, "\t\tif (a & {}) state.acc += a;", 1 + r.below(255));
            }
        }
        body.push_str("\t}\n");
        if let Some(&d) = deps.get(f as usize % deps.len().max(1)) {
            let g = r.below(self.functions(d));
            let _ = writeln!(body, "\ta += mod{d}_f{g}(x & 0xff);");
        }
        body.push_str("\treturn a;\n}\n\n");
        body
    }

    fn main_c(&self) -> String {
        let mut c = String::from("#include <stdio.h>\n");
        for m in 0..self.sources {
            let _ = writeln!(c, "#include \"{}.h\"", self.stem(m));
        }
        c.push_str("\nint main(void)\n{\n\tlong sum = 0;\n");
        for m in 0..self.sources {
            let _ = writeln!(c, "\tsum += mod{m}_f0({m});");
        }
        c.push_str("\tprintf(\"%ld\\n\", sum);\n\treturn 0;\n}\n");
        c
    }

    fn makefile(&self) -> String {
        let mut srcs = String::from("SRCS = src/main.c");
        for m in 0..self.sources {
            let _ = write!(srcs, " \\\n\tsrc/{}.c", self.stem(m));
        }
        format!("{MAKEFILE_HEAD}{srcs}\n{MAKEFILE_TAIL}")
    }
}

const COMMON_H: &str = "#ifndef COMMON_H\n#define COMMON_H\n\
#define MIX(v) ((v) * 0x9E3779B97F4A7C15L ^ ((v) >> 29))\n#endif\n";

const MAKEFILE_HEAD: &str = "# Generated by fsbattery's build workload.\nCC = gcc\n\
CFLAGS = -O2 -Iinclude\n\n";

const MAKEFILE_TAIL: &str = "OBJS = $(SRCS:.c=.o)\n\n\
app: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\n\
%.o: %.c\n\t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@\n\n\
-include $(OBJS:.o=.d)\n\n\
clean:\n\trm -f $(OBJS) $(OBJS:.o=.d) app\n\n\
.PHONY: clean\n";

#[cfg(test)]
mod tests {
    use super::*;

    /// Same pair, same files; another seed, other sources.
    #[test]
    fn the_project_is_deterministic() {
        let a = ProjectPlan::new(40, 3).files();
        assert_eq!(a, ProjectPlan::new(40, 3).files());
        assert_ne!(a, ProjectPlan::new(40, 4).files());
    }

    /// The shape asked: a header and a source per module over several directories, includes
    /// between modules that only point backwards (no cycle), every source in the Makefile.
    #[test]
    fn the_project_has_the_shape_asked() {
        let p = ProjectPlan::new(100, 1);
        let files = p.files();
        assert_eq!(files.len(), 3 + 2 * 100);
        let dirs: std::collections::BTreeSet<&str> = files
            .iter()
            .filter(|(f, _)| f.starts_with("src/g"))
            .map(|(f, _)| &f[..f.rfind('/').unwrap()])
            .collect();
        assert_eq!(dirs.len(), 7);
        let make = &files[1].1;
        let mut cross = 0;
        for m in 0..100u64 {
            let (_, c) = p.module(m);
            assert!(make.contains(&format!("src/{}.c", p.stem(m))));
            for line in c.lines().filter(|l| l.starts_with("#include \"g")) {
                let n: u64 = line[line.find("mod").unwrap() + 3..][..4].parse().unwrap();
                assert!(n <= m, "module {m} includes {n}");
                cross += u64::from(n < m);
            }
        }
        assert!(cross > 100, "{cross} includes between modules");
        assert!(make.contains("\n\t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@\n"));
        assert_eq!(p.objects(), 101);
    }
}
