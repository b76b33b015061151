//! One guest per kernel: a run's `vm:` targets grouped by the kernel they resolve to, each
//! group run in a guest of its own, one after the other.
//!
//! Invariants: groups keep the order their kernels were first named, and each group its
//! targets' order; `kernel=6.1` and `kernel=linux-image-6.1.0-56-amd64` that resolve to one
//! fetched kernel are one group. With more than one group, a target's label names its
//! kernel (`ext4@6.1.0-56`) unless `label=` gave it; labels are unique across the run.
//! Pure: the caller resolves kernels (the cache is I/O).

use super::kernel::Kernel;
use super::VmSpec;

/// The targets one guest runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The kernel it boots, or why none matches (a dry run shows it; a run refuses it).
    pub kernel: Result<Kernel, String>,
    /// Its targets, labels final.
    pub specs: Vec<VmSpec>,
    /// Each target's position among the run's `vm:` targets.
    pub positions: Vec<usize>,
}

impl Group {
    /// The kernel's short name for labels and messages: its release without the
    /// architecture ("6.1.0-56"), or the `kernel=` text when none was found.
    pub fn tag(&self) -> String {
        match &self.kernel {
            Ok(k) => k
                .release
                .strip_suffix("-amd64")
                .unwrap_or(&k.release)
                .to_string(),
            Err(_) => self.specs[0]
                .kernel
                .clone()
                .unwrap_or_else(|| "newest".into()),
        }
    }
}

/// Group `specs` by kernel (`resolve` finds the kernel a `kernel=` names, `None`: the newest).
pub fn group(
    specs: &[VmSpec],
    resolve: impl Fn(Option<&str>) -> Result<Kernel, String>,
) -> Result<Vec<Group>, String> {
    let mut groups: Vec<(String, Group)> = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let kernel = resolve(s.kernel.as_deref());
        // A found kernel is its directory; one not found, what was asked.
        let key = match &kernel {
            Ok(k) => format!("{} {}", k.package, k.version),
            Err(_) => format!("kernel={}", s.kernel.as_deref().unwrap_or("")),
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => {
                g.specs.push(s.clone());
                g.positions.push(i);
            }
            None => groups.push((
                key,
                Group {
                    kernel,
                    specs: vec![s.clone()],
                    positions: vec![i],
                },
            )),
        }
    }
    let mut groups: Vec<Group> = groups.into_iter().map(|(_, g)| g).collect();
    if groups.len() > 1 {
        for g in &mut groups {
            let tag = g.tag();
            for s in g.specs.iter_mut().filter(|s| !s.label_given) {
                s.label = format!("{}@{tag}", s.label);
            }
        }
    }
    let mut labels: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.specs.iter().map(|s| s.label.as_str()))
        .collect();
    labels.sort_unstable();
    if let Some(w) = labels.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "two vm: targets are labelled {}: give one a label= of its own",
            w[0]
        ));
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(release: &str) -> Kernel {
        Kernel {
            package: format!("linux-image-{release}"),
            version: release.replace("-amd64", ""),
            release: release.into(),
            dir: Default::default(),
        }
    }

    /// Two fetched kernels: 6.1.0-56 (the newest) and 6.1.0-50.
    fn resolve(want: Option<&str>) -> Result<Kernel, String> {
        [kernel("6.1.0-56-amd64"), kernel("6.1.0-50-amd64")]
            .into_iter()
            .find(|k| want.is_none_or(|w| k.matches(w)))
            .ok_or_else(|| format!("no guest kernel matching kernel={}", want.unwrap_or("")))
    }

    fn specs(words: &[&str]) -> Vec<VmSpec> {
        words.iter().map(|w| VmSpec::parse(w).unwrap()).collect()
    }

    #[test]
    fn one_kernel_is_one_guest_and_labels_stay() {
        let g = group(&specs(&["ext4", "jfs,kernel=6.1.0-56"]), resolve).unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].specs[0].label, "ext4");
        assert_eq!(g[0].positions, [0, 1]);
    }

    #[test]
    fn two_kernels_are_two_guests_whose_labels_name_them() {
        let g = group(
            &specs(&[
                "ext4,kernel=6.1.0-56",
                "ext4,kernel=linux-image-6.1.0-50-amd64",
                "xfs,kernel=6.1.0-50,label=old-xfs",
                "jfs",
            ]),
            resolve,
        )
        .unwrap();
        assert_eq!(g.len(), 2);
        let labels = |g: &Group| g.specs.iter().map(|s| s.label.clone()).collect::<Vec<_>>();
        assert_eq!(labels(&g[0]), ["ext4@6.1.0-56", "jfs@6.1.0-56"]);
        assert_eq!(g[0].positions, [0, 3]);
        assert_eq!(labels(&g[1]), ["ext4@6.1.0-50", "old-xfs"]);
        assert_eq!(g[1].positions, [1, 2]);
    }

    #[test]
    fn clashing_labels_and_missing_kernels() {
        let e = group(
            &specs(&[
                "ext4,kernel=6.1.0-56,label=a",
                "ext4,kernel=6.1.0-50,label=a",
            ]),
            resolve,
        );
        assert!(e.unwrap_err().contains("label="));
        let g = group(&specs(&["ext4", "ext4,kernel=6.12"]), resolve).unwrap();
        assert!(g[1].kernel.is_err());
        assert_eq!(g[1].specs[0].label, "ext4@6.12");
    }
}
