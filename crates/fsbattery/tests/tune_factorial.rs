//! The tune's screen against a full factorial on a real loop ext4 (root with loop devices;
//! skips otherwise, fails under FSBATTERY_REQUIRE_PRIVILEGED=1): for three two-level options
//! on a small durable write, the screen's effects agree in sign and order with the full 2³
//! factorial's wherever an effect exceeds its CI in both.
//!
//! Built not to flake on a loaded shared machine: the options have effects far above the
//! noise — the `sync` mount option makes each of dd's 64 KiB writes wait for the device,
//! `data=journal` writes every block twice, `noatime` does nothing to a write; effects are
//! compared only where their 99 % CI excludes zero in both designs, so a spurious one needs
//! to be spurious twice; the order of two effects is compared only where both designs tell
//! their sizes apart (sync's effect was twice data=journal's in one run and equal to it in
//! another, on the same machine under other load); and no time is asserted.
//! About 40 loop filesystems, about a minute.

mod common;
use common::*;
use fsbattery_core::tune::OptionSpace;
use fsbattery_stats::tune::{estimate, full_factorial, latin_hypercube, Factor, Observation};
use std::path::Path;

/// The three options, as a tune's option file gives them.
const OPTIONS: &str = r#"
fs = "ext4"

[[option]]
name = "sync"
at = "mount"
values = ["async", "sync"]
default = "async"
arg = { async = "", sync = "sync" }

[[option]]
name = "data"
at = "mount"
values = ["ordered", "journal"]
default = "ordered"
arg = { ordered = "", journal = "data=journal" }

[[option]]
name = "atime"
at = "mount"
values = ["relatime", "noatime"]
default = "relatime"
arg = { relatime = "", noatime = "noatime" }
"#;

/// Significance of "exceeds its CI" (99 % intervals).
const ALPHA: f64 = 0.01;

/// Measure `configs` × `repeats` with one `fsbattery run`; the log of dd's durable write
/// rate (higher is better) per sample.
fn measure(
    cwd: &Path,
    space: &OptionSpace,
    configs: &[Vec<usize>],
    repeats: u32,
    out: &str,
) -> Vec<Observation> {
    let specs: Vec<String> = configs.iter().map(|c| space.spec(c, "size=128M")).collect();
    let mut args = vec!["run", "--quiet", "--no-ceiling", "--no-store"];
    for s in &specs {
        args.extend(["--target", s.as_str()]);
    }
    let repeats = repeats.to_string();
    args.extend([
        "--workload",
        "dd",
        "--set",
        "dd.size=8MiB",
        "--set",
        "dd.block=64KiB",
        "--repeat",
        &repeats,
        "--out",
        out,
    ]);
    let o = run_in(cwd, &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = results(&cwd.join(out));
    let spec_of = |label: &str| {
        r["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["label"] == label)
            .map(|t| t["spec"].as_str().unwrap().to_string())
            .unwrap()
    };
    let mut obs = Vec::new();
    for cell in r["cells"].as_array().unwrap() {
        if cell["workload"] != "dd" || cell["metric"] != "write_durable" {
            continue;
        }
        let spec = spec_of(cell["target"].as_str().unwrap());
        let config = &configs[specs.iter().position(|s| *s == spec).unwrap()];
        for s in cell["samples"].as_array().unwrap() {
            obs.push(Observation {
                config: config.clone(),
                value: s["value"].as_f64().unwrap().ln(),
                block: None,
            });
        }
    }
    assert_eq!(obs.len(), configs.len() * repeats.parse::<usize>().unwrap());
    obs
}

/// An effect whose 99 % CI excludes zero: the estimate and that CI.
#[derive(Debug, Clone, Copy)]
struct Clear {
    effect: f64,
    ci: (f64, f64),
}

/// Per option: its effect when its 99 % CI excludes zero, else None.
fn clear_effects(factors: &[Factor], obs: &[Observation]) -> Vec<Option<Clear>> {
    estimate(factors, obs, ALPHA)
        .expect("the design separates the three options")
        .iter()
        .map(|e| {
            let l = e.levels[0];
            (l.ci.0 > 0.0 || l.ci.1 < 0.0).then_some(Clear {
                effect: l.effect,
                ci: l.ci,
            })
        })
        .collect()
}

/// Whether two effects' sizes are told apart: their CIs on the absolute scale do not overlap.
fn sizes_apart(a: Clear, b: Clear) -> bool {
    let abs = |c: Clear| {
        let (lo, hi) = (c.ci.0.abs(), c.ci.1.abs());
        (lo.min(hi), lo.max(hi))
    };
    let (a, b) = (abs(a), abs(b));
    a.1 < b.0 || b.1 < a.0
}

#[test]
fn the_screen_agrees_with_a_full_factorial_on_loop_ext4() {
    if !loop_ext4_available() {
        return;
    }
    let space = fsbattery_core::tune::parse(OPTIONS, Path::new("factorial.toml")).unwrap();
    let factors = vec![
        Factor {
            levels: 2,
            default: 0
        };
        3
    ];
    let cwd = tempfile::tempdir().unwrap();
    // The screen as the tune lays it out: defaults and four hypercube rows (half the
    // factorial), three repeats each; then all eight configurations, three times each (twice
    // left data=journal's effect inside its 99 % CI once, on a machine loaded by builds).
    let screen = latin_hypercube(&factors, 5, 1, &|_| true);
    assert_eq!(screen.len(), 5);
    let screened = clear_effects(&factors, &measure(cwd.path(), &space, &screen, 3, "screen"));
    let all = full_factorial(&factors, &|_| true);
    assert_eq!(all.len(), 8);
    let full = clear_effects(&factors, &measure(cwd.path(), &space, &all, 3, "full"));
    eprintln!("effects on the log of the durable write rate (None: inside the 99 % CI): screen {screened:?}, full factorial {full:?}");
    assert_clean(&cwd.path().join("fsbattery-work"));

    assert!(
        full[0].is_some_and(|e| e.effect < 0.0) && full[1].is_some_and(|e| e.effect < 0.0),
        "the factorial must see sync and data=journal slow the durable write: {full:?}"
    );
    let both: Vec<(usize, Clear, Clear)> = (0..3)
        .filter_map(|j| Some((j, screened[j]?, full[j]?)))
        .collect();
    assert!(
        both.len() >= 2,
        "the screen must see at least the two large effects too: {screened:?}"
    );
    for &(j, s, f) in &both {
        assert_eq!(
            s.effect.signum(),
            f.effect.signum(),
            "option {j}: screen {s:?}, factorial {f:?}"
        );
    }
    // Order is compared where it is measured: where both designs tell the two sizes apart
    // (on this machine sync's effect ranged from about equal to data=journal's to twice it,
    // with the load), so two nearly equal effects cannot fail the test by their noise.
    for a in &both {
        for b in &both {
            if a.0 < b.0 && sizes_apart(a.1, b.1) && sizes_apart(a.2, b.2) {
                assert_eq!(
                    a.1.effect.abs() > b.1.effect.abs(),
                    a.2.effect.abs() > b.2.effect.abs(),
                    "order of options {} and {}: screen {:?}, factorial {:?}",
                    a.0,
                    b.0,
                    screened,
                    full
                );
            }
        }
    }
}
