//! A study's published numbers: every table row a seed publishes, as data.
//!
//! Role: the shipped files `suites/published/<preset>.toml` are transcriptions of the seed
//! texts (fsbattery-core loads them; its tests/published.rs checks each value against its row
//! of the seed). A run of a preset carries them in its record ([`crate::RunRecord::published`])
//! so a report put beside the original needs nothing but the record.
//!
//! Invariants: values stay the text the seed printed ("89,5", ">99999"); [`PubRow::number`]
//! reads them. A row names the preset row it corresponds to by workload and metric (and by
//! its label, which is the preset row's `seed` wording, where one metric has several rows).

use fsbattery_stats::Better;
use serde::{Deserialize, Serialize};

/// One study's published results and what it says about how they were made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// The preset these numbers belong to (`piszcz2006`).
    pub preset: String,
    /// The study's short name in the project's docs (S1..S4).
    pub study: String,
    /// The seed text transcribed (a file of the project's seeds).
    pub seed: String,
    /// The article's title.
    pub title: String,
    /// Its author, as the text gives it.
    pub author: String,
    /// The year it was published: "then" in every then-and-now line.
    pub year: u32,
    /// The seed's repeat policy in its own terms.
    pub repeat: String,
    /// What the seed states about its machine.
    pub machine: Machine,
    /// Every table the seed publishes, in its order.
    #[serde(rename = "table")]
    pub tables: Vec<PubTable>,
}

/// The seed's machine, as stated ("not stated" where it says nothing).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// Processor.
    pub cpu: String,
    /// Memory.
    pub ram: String,
    /// Disks and controllers.
    pub disk: String,
    /// Kernel.
    pub kernel: String,
    /// Distribution and system software.
    pub os: String,
    /// Tool versions.
    pub tools: Vec<String>,
}

/// One published table: rows of the seed × its filesystem columns.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PubTable {
    /// Short id, unique within the study.
    pub id: String,
    /// The table's title.
    pub title: String,
    /// Where in the seed it is (table, figure, section).
    pub source: String,
    /// Unit of its values (a row may name its own).
    pub unit: String,
    /// Which direction is better (a row may name its own).
    pub better: Better,
    /// What of a run's samples it corresponds to: `value` (the metric) or `cpu_pct`.
    #[serde(default = "value_quantity")]
    pub quantity: String,
    /// False for tables shown with the seed's numbers but not ranked against a run (CPU
    /// utilisation, an earlier round on other hardware); `note` says why.
    #[serde(default = "yes")]
    pub then_and_now: bool,
    /// Anything a reader must know about the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Lines of the seed text, in order, after which the table's rows are found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
    /// Column headings as the seed prints them.
    pub columns: Vec<String>,
    /// fsbattery's filesystem name for each column (a target's `fs_type`).
    pub fs: Vec<String>,
    /// Each column's configuration where several columns share a filesystem (S4's
    /// `internal/sw`: journal placement and RAID kind).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config: Vec<String>,
    /// For tables the seed prints one line per filesystem (iozone's Excel output): where
    /// each column's line is.
    #[serde(default, rename = "line", skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<SourceLine>,
    /// The rows.
    #[serde(rename = "row")]
    pub rows: Vec<PubRow>,
}

/// A seed line holding one column of a table across its rows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SourceLine {
    /// The column (as in [`PubTable::columns`]).
    pub column: String,
    /// Lines of the seed, in order, after which the line is found.
    pub after: Vec<String>,
    /// The text the line starts with.
    pub line: String,
}

/// One published row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PubRow {
    /// The seed's wording of the row (the preset row's `seed`, or its label).
    pub label: String,
    /// The text the row's line starts with in the seed, when not the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Section lines between the table's start and the row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
    /// This row's unit when not the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// This row's direction when not the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub better: Option<Better>,
    /// The preset's workload this row corresponds to.
    pub workload: String,
    /// The preset's metric this row corresponds to.
    pub metric: String,
    /// One value per column, as the seed printed it.
    pub values: Vec<String>,
    /// How the transcription read this row, where the text was not plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The seed ran this row's cells together and its text does not pin down how they split
    /// (S4): shown beside the run, but its ranks are not compared (left out of Kendall's τ and
    /// the rank flips); `note` says why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ambiguous: bool,
}

fn value_quantity() -> String {
    "value".into()
}

fn yes() -> bool {
    true
}

/// A published value read as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PubValue {
    /// The number (decimal comma read as a point).
    pub value: f64,
    /// True for ">99999": bonnie++'s "+++++", too fast to time; the number is a bound.
    pub at_least: bool,
}

impl PubRow {
    /// The value of column `i`, `None` when absent or unreadable.
    pub fn number(&self, i: usize) -> Option<PubValue> {
        let text = self.values.get(i)?.trim();
        let (at_least, digits) = match text.strip_prefix('>') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let value = digits.replace(',', ".").parse::<f64>().ok()?;
        value.is_finite().then_some(PubValue { value, at_least })
    }

    /// This row's unit.
    pub fn unit<'a>(&'a self, table: &'a PubTable) -> &'a str {
        self.unit.as_deref().unwrap_or(&table.unit)
    }

    /// This row's direction.
    pub fn better(&self, table: &PubTable) -> Better {
        self.better.unwrap_or(table.better)
    }
}

impl Published {
    /// The tables ranked against a run.
    pub fn compared(&self) -> impl Iterator<Item = &PubTable> {
        self.tables.iter().filter(|t| t.then_and_now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[&str]) -> PubRow {
        PubRow {
            label: "r".into(),
            line: None,
            after: Vec::new(),
            unit: None,
            better: None,
            workload: "w".into(),
            metric: "m".into(),
            values: values.iter().map(|s| s.to_string()).collect(),
            note: None,
            ambiguous: false,
        }
    }

    #[test]
    fn values_read_as_the_seed_printed_them() {
        let r = row(&["48.25", "89,5", ">99999", "n/a"]);
        assert_eq!(r.number(0).unwrap().value, 48.25);
        assert_eq!(r.number(1).unwrap().value, 89.5);
        let bound = r.number(2).unwrap();
        assert!(bound.at_least && bound.value == 99999.0);
        assert!(r.number(3).is_none());
        assert!(r.number(4).is_none());
    }
}
