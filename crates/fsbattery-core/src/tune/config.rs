//! One configuration of an option space — a level per option — as mkfs arguments, mount
//! options and the `loop:` target spec that makes it; and the narrowing of a space by
//! `--option`, `--fix`, `--safe-only` and what the machine refused.
//!
//! Invariants: the defaults configuration renders to no mkfs argument and no mount option,
//! so its spec is the plain `loop:FS` every other run measures; a configuration renders the
//! same text every time (options in the file's order).

use super::space::{At, OptionSpace};
use crate::error::UsageError;

impl OptionSpace {
    /// Default level of every option.
    pub fn defaults(&self) -> Vec<usize> {
        self.options.iter().map(|o| o.default_level()).collect()
    }

    /// The `[[invalid]]` rule `config` breaks, if any.
    pub fn broken_rule(&self, config: &[usize]) -> Option<&str> {
        self.invalid
            .iter()
            .find(|r| {
                r.when.iter().all(|(name, value)| {
                    self.options
                        .iter()
                        .zip(config)
                        .any(|(o, &l)| &o.name == name && &o.values[l] == value)
                })
            })
            .map(|r| r.why.as_str())
    }

    /// `name=value` of every option not at its default.
    pub fn describe(&self, config: &[usize]) -> Vec<String> {
        self.options
            .iter()
            .zip(config)
            .filter(|(o, &l)| o.values[l] != o.default)
            .map(|(o, &l)| format!("{}={}", o.name, o.values[l]))
            .collect()
    }

    /// `(option, value, risk)` of every risky level in `config`.
    pub fn risks(&self, config: &[usize]) -> Vec<(String, String, String)> {
        self.options
            .iter()
            .zip(config)
            .filter_map(|(o, &l)| {
                let v = &o.values[l];
                o.risk
                    .get(v)
                    .map(|r| (o.name.clone(), v.clone(), r.clone()))
            })
            .collect()
    }

    /// The mkfs arguments of `config`, flags in `merge` given once with their values joined.
    pub fn mkfs_args(&self, config: &[usize]) -> String {
        let mut parts: Vec<(String, String)> = Vec::new(); // (flag or "", rest)
        for (o, &l) in self.options.iter().zip(config) {
            let text = o.given(&o.values[l]);
            if o.at != At::Mkfs || text.is_empty() {
                continue;
            }
            match text.split_once(' ') {
                Some((flag, rest)) if self.merge.iter().any(|m| m == flag) => {
                    match parts.iter_mut().find(|(f, _)| f == flag) {
                        Some((_, r)) => {
                            r.push(',');
                            r.push_str(rest);
                        }
                        None => parts.push((flag.to_string(), rest.to_string())),
                    }
                }
                _ => parts.push((String::new(), text)),
            }
        }
        parts
            .into_iter()
            .map(|(f, r)| if f.is_empty() { r } else { format!("{f} {r}") })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The mount options of `config`, comma-joined.
    pub fn mount_opts(&self, config: &[usize]) -> String {
        self.options
            .iter()
            .zip(config)
            .filter(|(o, _)| o.at == At::Mount)
            .map(|(o, &l)| o.given(&o.values[l]))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The `loop:` spec that makes `config`; `extra` (e.g. `size=512M`) is appended as is.
    pub fn spec(&self, config: &[usize], extra: &str) -> String {
        let mut s = format!("loop:{}", self.fs);
        if !extra.is_empty() {
            s.push(',');
            s.push_str(extra);
        }
        let mkfs = self.mkfs_args(config);
        if !mkfs.is_empty() {
            s.push_str(&format!(",mkfs='{mkfs}'"));
        }
        let mount = self.mount_opts(config);
        if !mount.is_empty() {
            s.push_str(&format!(",mount={mount}"));
        }
        s
    }

    /// Keep only options named by `--option` (all when none) and risk-free values with
    /// `safe_only`; hold each `--fix NAME=VALUE` at its value (it then has one level, which
    /// becomes its default so effects are measured against what the user holds).
    pub fn narrow(
        &mut self,
        only: &[String],
        fix: &[String],
        safe_only: bool,
    ) -> Result<(), UsageError> {
        let fixed_names = fix.iter().map(|f| f.split('=').next().unwrap_or(""));
        for n in only.iter().map(String::as_str).chain(fixed_names) {
            if !self.options.iter().any(|o| o.name == n) {
                return Err(UsageError::Unknown {
                    kind: "option",
                    name: n.to_string(),
                    choices: self.names().join(", "),
                    list: "options",
                });
            }
        }
        for f in fix {
            let (name, value) = f.split_once('=').ok_or_else(|| {
                UsageError::Invalid(format!(
                    "--fix {f}: give NAME=VALUE, e.g. --fix data=journal"
                ))
            })?;
            let o = self
                .options
                .iter_mut()
                .find(|o| o.name == name)
                .expect("checked");
            if !o.values.iter().any(|v| v == value) {
                return Err(UsageError::Invalid(format!(
                    "--fix {f}: {name} takes {}",
                    o.values.join(", ")
                )));
            }
            o.values = vec![value.to_string()];
            o.held = o.default != value;
            o.default = value.to_string();
        }
        let fixed: Vec<&str> = fix.iter().filter_map(|f| f.split('=').next()).collect();
        if !only.is_empty() {
            self.options
                .retain(|o| only.contains(&o.name) || fixed.contains(&o.name.as_str()));
        }
        if safe_only {
            for o in &mut self.options {
                let risk = o.risk.clone();
                o.values
                    .retain(|v| !risk.contains_key(v) || *v == o.default);
            }
        }
        Ok(())
    }

    /// Leave out `value` of option `name` (refused by the machine).
    pub fn drop_value(&mut self, name: &str, value: &str) {
        if let Some(o) = self.options.iter_mut().find(|o| o.name == name) {
            if o.default != value {
                o.values.retain(|v| v != value);
            }
        }
    }

    /// Option names in file order.
    pub fn names(&self) -> Vec<String> {
        self.options.iter().map(|o| o.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::space::space;

    fn level(s: &super::OptionSpace, name: &str, value: &str) -> Vec<usize> {
        let mut c = s.defaults();
        let i = s.options.iter().position(|o| o.name == name).unwrap();
        c[i] = s.options[i].values.iter().position(|v| v == value).unwrap();
        c
    }

    #[test]
    fn defaults_are_the_plain_target() {
        for fs in ["ext4", "xfs", "btrfs"] {
            let s = space(fs).unwrap();
            assert_eq!(s.spec(&s.defaults(), ""), format!("loop:{fs}"));
            assert!(s.describe(&s.defaults()).is_empty());
        }
    }

    #[test]
    fn levels_render_into_mkfs_and_mount_and_merge_flags() {
        let s = space("ext4").unwrap();
        let mut c = level(&s, "has_journal", "off");
        let li = s
            .options
            .iter()
            .position(|o| o.name == "lazy_itable_init")
            .unwrap();
        c[li] = 1;
        assert_eq!(
            s.mkfs_args(&c),
            "-O ^has_journal -E lazy_itable_init=0,lazy_journal_init=0"
        );
        let c = level(&s, "data", "journal");
        assert_eq!(
            s.spec(&c, "size=512M"),
            "loop:ext4,size=512M,mount=data=journal"
        );
        let x = space("xfs").unwrap();
        let mut c = level(&x, "agcount", "2");
        c[1] = 1; // log_size 64m
        assert_eq!(x.mkfs_args(&c), "-d agcount=2 -l size=64m");
    }

    #[test]
    fn invalid_combinations_and_risks_are_found() {
        let s = space("ext4").unwrap();
        let mut c = level(&s, "has_journal", "off");
        assert!(s.broken_rule(&c).is_none());
        let d = s.options.iter().position(|o| o.name == "data").unwrap();
        c[d] = 2; // journal
        assert_eq!(s.broken_rule(&c), Some("data=journal needs a journal"));
        assert_eq!(
            s.risks(&c).len(),
            1,
            "no journal risks, data=journal does not"
        );
    }

    #[test]
    fn narrowing_by_option_fix_and_safety() {
        let mut s = space("ext4").unwrap();
        s.narrow(
            &["data".into(), "commit".into()],
            &["blocksize=1024".into()],
            true,
        )
        .unwrap();
        assert_eq!(s.names(), vec!["blocksize", "data", "commit"]);
        assert_eq!(s.options[0].values, vec!["1024"]);
        assert_eq!(
            s.options[1].values,
            vec!["ordered", "journal"],
            "writeback is risky"
        );
        assert_eq!(s.options[2].values, vec!["5"]);
        let mut s = space("ext4").unwrap();
        let e = s
            .narrow(&["dat".into()], &[], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown option 'dat'"), "{e}");
        assert!(s.narrow(&[], &["data=fast".into()], false).is_err());
    }
}
