//! "Then and now": each row's label as this run measured it beside the seed's own wording.
//!
//! Role: a row label names the sizes this run used ("Datei 64MiB schreiben [MB/s]" at quick
//! scale), the seed's table named its own ("Datei 16 GB schreiben [MB/s]"); a reader putting
//! the two tables side by side needs both. Only rows whose suite gives a seed wording that
//! differs from the label are listed, in suite order. Pure: pairs of text from the record;
//! each renderer escapes and lays them out its own way.

use fsbattery_record::RunRecord;

/// A row as this run labelled it and as the seed worded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The label with this run's sizes and counts.
    pub now: String,
    /// The seed's wording, sizes as the seed measured them.
    pub then: String,
}

/// The rows of `rec` whose label differs from the seed's wording, among those shown (pending,
/// or with a cell: the mkfs rows of a run on a directory are not, and their size is unknown).
pub fn pairs(rec: &RunRecord) -> Vec<Pair> {
    let shown = |w: &str, m: &str| rec.cells.iter().any(|c| c.workload == w && c.metric == m);
    rec.plan
        .rows
        .iter()
        .filter(|r| r.pending.is_some() || shown(&r.workload, &r.metric))
        .filter_map(|r| {
            let then = r.seed.as_ref()?;
            (then != &r.label).then(|| Pair {
                now: r.label.clone(),
                then: then.clone(),
            })
        })
        .collect()
}

/// The heading every renderer uses.
pub const TITLE: &str = "Then and now";

/// One sentence under the heading: what the two columns are.
pub fn legend(rec: &RunRecord) -> String {
    format!(
        "Labels name what this run measured ({} scale); the seed's own row, with its sizes, \
         is beside each",
        rec.plan.scale
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::RowInfo;

    /// Rows of the fixture's one measured metric (`metadata touch_files`) unless pending.
    fn row(label: &str, seed: Option<&str>) -> RowInfo {
        RowInfo {
            label: label.into(),
            workload: "metadata".into(),
            metric: "touch_files".into(),
            pending: None,
            aggregate: None,
            seed: seed.map(String::from),
        }
    }

    #[test]
    fn only_shown_rows_whose_wording_differs_are_listed() {
        let mut rec: RunRecord =
            serde_json::from_str(include_str!("../tests/fixtures/run.json")).unwrap();
        rec.plan.rows = vec![
            row(
                "Datei 64MiB schreiben [MB/s]",
                Some("Datei 16 GB schreiben [MB/s]"),
            ),
            row("Seq. schreiben [MB/s]", Some("Seq. schreiben [MB/s]")),
            row("Seeks [1/s]", None),
            RowInfo {
                metric: "not_measured".into(),
                ..row(
                    "Dateisystem {target.size} anlegen [s]",
                    Some("Dateisystem 100 GB"),
                )
            },
        ];
        assert_eq!(
            pairs(&rec),
            [Pair {
                now: "Datei 64MiB schreiben [MB/s]".into(),
                then: "Datei 16 GB schreiben [MB/s]".into()
            }]
        );
    }
}
