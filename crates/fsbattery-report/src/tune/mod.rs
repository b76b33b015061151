//! `fsbattery tune`'s answer rendered: the terminal's short text ([`text`]) and the
//! `tune.html` charts ([`chart`]), both from one [`TuneView`].
//!
//! The view is plain data: names, values, percent effects and intervals already decided by
//! the search and its statistics. The binary builds it from its search books (which hold the
//! option spaces, the samples and the designs) and prints what these renderers return; no
//! renderer here decides a verdict, picks a recommendation or reads the search. Every number
//! shown of an option comes from its one [`OptionRow`], so the text and the charts cannot
//! show two numbers for one option.

pub mod chart;
pub mod text;

use fsbattery_stats::tune::Verdict;
use fsbattery_stats::PairOutcome;

/// The device placeholder in every line to paste.
pub const DEVICE: &str = "/dev/DEVICE";
/// The mount point placeholder of the fstab line.
pub const MOUNTPOINT: &str = "/MOUNTPOINT";

/// Everything the renderers show of a finished tune.
#[derive(Debug, Clone)]
pub struct TuneView {
    /// The objective as given (`stream.write.MiB/s`).
    pub objective: String,
    /// The equivalence margin, ± percent.
    pub margin: f64,
    /// Per filesystem searched, in the order given.
    pub filesystems: Vec<FsView>,
    /// The recommendations across filesystems, best first.
    pub ranking: Vec<Place>,
    /// Wall seconds the tune took.
    pub secs: f64,
    /// Its budget in seconds.
    pub budget: f64,
    /// Why the tune ended when it did.
    pub ended: String,
}

/// One filesystem's search, as shown.
#[derive(Debug, Clone)]
pub struct FsView {
    /// The target as given (`loop:ext4,size=1G`).
    pub target: String,
    /// Configurations measured, every phase together.
    pub configurations: usize,
    /// Whether the screen could separate the options (its effects were estimated).
    pub separated: bool,
    /// Each option searched, most important first.
    pub options: Vec<OptionRow>,
    /// Mean repeats per measured configuration.
    pub repeats_per_config: f64,
    /// The changes from the defaults the effects support (None before the screen, or when
    /// the effects could not be estimated).
    pub changes: Option<Changes>,
    /// The verification of the candidate against the defaults (None when there was no time).
    pub verified: Option<Verified>,
    /// Whether the verification confirmed the candidate (a candidate that is the defaults
    /// needs none).
    pub confirmed: bool,
    /// The recommendation's lines, ready to paste.
    pub paste: Paste,
    /// The risks of the recommendation: option, value, risk.
    pub risks: Vec<(String, String, String)>,
    /// What the race's best measured configuration adds to the recommendation.
    pub race: Race,
}

/// One option's outcome with the interval that decided it (percent of the objective).
#[derive(Debug, Clone)]
pub struct OptionRow {
    /// The option's name.
    pub name: String,
    /// The level shown (the largest significant effect, else the largest), if any measured.
    pub value: Option<String>,
    /// Its verdict.
    pub verdict: Verdict,
    /// The shown level's effect over the default, percent.
    pub effect: Option<f64>,
    /// The decisive interval, percent: the shown level's for an option that matters, else
    /// the hull of its levels'.
    pub ci: Option<(f64, f64)>,
    /// Share of the variance.
    pub importance: f64,
    /// For an unresolved option: repeats per configuration it would need (estimate).
    pub repeats_needed: Option<f64>,
}

/// The changes from the defaults, each with its reason, and the better levels left out.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// Each change, largest effect first.
    pub changes: Vec<Change>,
    /// Significantly better levels that could not be combined with larger changes.
    pub left_out: Vec<LeftOut>,
}

/// One change from the defaults and the effect it is there for.
#[derive(Debug, Clone)]
pub struct Change {
    /// The option.
    pub option: String,
    /// Its value.
    pub value: String,
    /// Its effect over the default, percent.
    pub effect: f64,
    /// Its Holm-consistent interval, percent.
    pub ci: (f64, f64),
    /// Its Holm-adjusted p.
    pub p_holm: f64,
}

/// A significantly better level left out, and why.
#[derive(Debug, Clone)]
pub struct LeftOut {
    /// The option.
    pub option: String,
    /// Its value.
    pub value: String,
    /// Its effect over the default, percent.
    pub effect: f64,
    /// The invalid combination it would have made.
    pub why: String,
}

/// The winner against the defaults.
#[derive(Debug, Clone, Copy)]
pub struct Verified {
    /// Relative gain (0.12 = +12 %).
    pub gain: f64,
    /// Its CI at 1 − α.
    pub ci: (f64, f64),
    /// Welch's p of a difference.
    pub p: Option<f64>,
    /// The pairwise decision.
    pub outcome: PairOutcome,
    /// Samples (winner, defaults).
    pub n: (usize, usize),
}

impl Verified {
    /// The winner is the defaults.
    pub fn same(n: usize) -> Verified {
        Verified {
            gain: 0.0,
            ci: (0.0, 0.0),
            p: None,
            outcome: PairOutcome::Equivalent,
            n: (n, n),
        }
    }
}

/// What to paste for one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Paste {
    /// `mkfs.FS [ARGS] /dev/DEVICE`.
    pub mkfs: String,
    /// Whether the mkfs command has no argument (the filesystem's defaults).
    pub mkfs_defaults: bool,
    /// Comma-joined mount options, `defaults` when there are none.
    pub mount_options: String,
    /// `/dev/DEVICE /MOUNTPOINT FS OPTIONS 0 PASS`.
    pub fstab: String,
}

/// The race's best measured configuration beside the recommendation.
#[derive(Debug, Clone)]
pub enum Race {
    /// The best measured is the recommendation itself (or nothing raced).
    Recommendation,
    /// Another configuration measured best.
    Other {
        /// Its changes from the defaults (`name=value`; empty for the defaults).
        found: Vec<String>,
        /// Whether the recommendation it is set against is the defaults.
        against_defaults: bool,
        /// Why each change it adds is not recommended, grouped by reason: the reason and
        /// the changes (`name=value`) it holds for.
        reasons: Vec<(String, Vec<String>)>,
        /// Whether it was significantly better than the recommendation in the race.
        beat: bool,
    },
}

/// One place of the ranking across filesystems.
#[derive(Debug, Clone)]
pub struct Place {
    /// The recommendation's spec (`loop:xfs,mkfs=-l size=64m`).
    pub spec: String,
    /// This place against the first (None for the first).
    pub versus_first: Option<VersusFirst>,
}

/// A place against the first, on the logs of the objective: the ratio of geometric means
/// and its `1 − α` interval (Welch on the logs, exponentiated), so the ratio is always
/// positive and the interval excludes 1 exactly when the difference is significant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VersusFirst {
    /// This one / the first.
    pub ratio: f64,
    /// Its interval.
    pub ci: (f64, f64),
    /// Welch's p of a difference.
    pub p: f64,
    /// The first is significantly better (the interval lies below 1).
    pub separated: bool,
    /// The interval lies within ±margin: shown equivalent.
    pub equivalent: bool,
}
