//! `tune --resume`: an interrupted tune goes on from its output directory. Its plan (the
//! screen's sizes and the costs they came from) is saved once sized, and every phase whose
//! run finished is read back instead of measured again: the design is seeded, so the same
//! plan lays out the same configurations, and the same samples make the same race decisions.
//! A phase cut short is measured again into a fresh directory beside it (its journal keeps
//! what it had). `--budget` counts from the resume.

use super::budget::{Cost, Sizes};
use super::phase::Measured;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file the plan is saved in.
const PLAN: &str = "tune-plan.json";

/// What sizing decided, saved so a resume lays out the same screen.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedPlan {
    /// Screen configurations per filesystem.
    pub screen: Vec<usize>,
    /// Race rounds.
    pub rounds: usize,
    /// Seconds planned for verification.
    pub verify_secs: f64,
    /// Seconds per configuration repeat, and its trial.
    pub repeat: f64,
    /// See `repeat`.
    pub trial: f64,
    /// Start-up seconds of a phase.
    pub overhead: f64,
}

impl SavedPlan {
    /// From what sizing decided.
    pub fn new(z: &Sizes, cost: Cost, overhead: f64) -> SavedPlan {
        SavedPlan {
            screen: z.screen.clone(),
            rounds: z.rounds,
            verify_secs: z.verify_secs,
            repeat: cost.repeat,
            trial: cost.trial,
            overhead,
        }
    }

    /// Back to sizes, cost and overhead.
    pub fn parts(&self) -> (Sizes, Cost, f64) {
        let z = Sizes {
            screen: self.screen.clone(),
            rounds: self.rounds,
            verify_secs: self.verify_secs,
        };
        (
            z,
            Cost {
                repeat: self.repeat,
                trial: self.trial,
            },
            self.overhead,
        )
    }
}

/// Save the plan in `out`.
pub fn save(out: &Path, plan: &SavedPlan) -> anyhow::Result<()> {
    let bytes = serde_json::to_vec_pretty(plan)?;
    fsbattery_core::atomic::write(&out.join(PLAN), &bytes)?;
    Ok(())
}

/// The saved plan of `out`, if any.
pub fn load(out: &Path) -> Option<SavedPlan> {
    serde_json::from_slice(&std::fs::read(out.join(PLAN)).ok()?).ok()
}

/// A finished run of exactly `specs` in `dir` or a retry beside it (`dir.N`, `dir-rN`).
pub fn finished(dir: &Path, specs: &[String]) -> Option<Measured> {
    let want: BTreeSet<&str> = specs.iter().map(String::as_str).collect();
    siblings(dir).into_iter().find_map(|d| {
        let record = fsbattery_record::load::load(&d).ok()?.record;
        let have: BTreeSet<&str> = record.targets.iter().map(|t| t.spec.as_str()).collect();
        if record.interrupted || record.finished.is_none() || have != want {
            return None;
        }
        let secs = wall_secs(&record.started, record.finished.as_deref()?)?;
        Some(Measured { record, secs })
    })
}

/// `dir` when nothing is there yet, else the first free `dir-rN`.
pub fn fresh(dir: &Path) -> PathBuf {
    if !dir.exists() {
        return dir.to_path_buf();
    }
    (2..)
        .map(|k| PathBuf::from(format!("{}-r{k}", dir.display())))
        .find(|d| !d.exists())
        .expect("some name is free")
}

/// `dir` and the directories beside it that start with its name.
fn siblings(dir: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
    else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(name))
        })
        .filter(|p| p.join("results.json").is_file())
        .collect();
    out.sort();
    out
}

fn wall_secs(started: &str, finished: &str) -> Option<f64> {
    let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    let ms = (t(finished)? - t(started)?).num_milliseconds();
    (ms >= 0).then(|| ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_plan_reads_back_and_a_cut_phase_gets_a_fresh_directory() {
        let d = tempfile::tempdir().unwrap();
        let z = Sizes {
            screen: vec![7, 9],
            rounds: 2,
            verify_secs: 40.0,
        };
        let cost = Cost {
            repeat: 1.5,
            trial: 0.4,
        };
        save(d.path(), &SavedPlan::new(&z, cost, 2.0)).unwrap();
        let (z2, c2, o2) = load(d.path()).unwrap().parts();
        assert_eq!((z2, c2, o2), (z, cost, 2.0));
        let phase = d.path().join("02-screen");
        assert_eq!(fresh(&phase), phase);
        std::fs::create_dir(&phase).unwrap();
        assert_eq!(fresh(&phase), d.path().join("02-screen-r2"));
        assert!(
            finished(&phase, &["loop:ext4".into()]).is_none(),
            "no record there"
        );
    }
}
