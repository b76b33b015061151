//! Reading the store back: its runs, and the points of the cells a filter selects.

use crate::facts::{PointFacts, RunFacts};
use crate::store::Store;
use crate::StoreError;
use fsbattery_stats::Better;
use rusqlite::Row;

/// A run as the store holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// The store's id of the run.
    pub id: i64,
    /// Its run directory (canonical path when it was added).
    pub dir: String,
    /// Its facts.
    pub facts: RunFacts,
}

/// One cell of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The run it belongs to ([`RunRow::id`]).
    pub run_id: i64,
    /// Its facts.
    pub facts: PointFacts,
}

/// Which points to read; `None` selects everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Suite name.
    pub suite: Option<String>,
    /// Workload name.
    pub workload: Option<String>,
    /// Metric name.
    pub metric: Option<String>,
    /// Filesystem type, target label or target kind.
    pub target: Option<String>,
    /// Also runs that did not finish (interrupted, killed, resumed and cut short again);
    /// by default history holds finished work only.
    pub include_partial: bool,
}

impl Store {
    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRow>, StoreError> {
        self.runs_where(true)
    }

    /// Every finished run (and, with `include_partial`, every unfinished one too), oldest
    /// first.
    pub fn runs_where(&self, include_partial: bool) -> Result<Vec<RunRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, dir, started, finished, interrupted, label, suite, scale, method,
                    cache_policy, tool_version, source_tool, kernel, os, machine_id, cpu_model,
                    cores, ram_bytes, parts FROM runs
                 WHERE ?1 OR (interrupted = 0 AND finished IS NOT NULL)
                 ORDER BY started, id",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([include_partial], run_row)
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }

    /// Run `read` inside one read transaction, so that what it reads in several queries is one
    /// snapshot of the store (under WAL, writers go on meanwhile): a run added or replaced
    /// while it reads is seen whole or not at all. Nested calls share the outer snapshot.
    pub fn snapshot<T>(
        &self,
        read: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if !self.conn.is_autocommit() {
            return read(self);
        }
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let out = read(self);
        drop(tx); // a read: nothing to commit
        out
    }

    /// The points `filter` selects, in run order.
    pub fn points(&self, filter: &Filter) -> Result<Vec<Point>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT p.run_id, p.target, p.target_kind, p.fs_type, p.fs_version, p.options,
                    p.device_model, p.workload, p.params, p.metric, p.unit, p.better,
                    p.comparable, p.mean, p.ci_low, p.ci_high, p.samples, p.kernel
                 FROM points p JOIN runs r ON r.id = p.run_id
                 WHERE (?1 IS NULL OR r.suite = ?1) AND (?2 IS NULL OR p.workload = ?2)
                   AND (?3 IS NULL OR p.metric = ?3)
                   AND (?4 IS NULL OR p.fs_type = ?4 OR p.target = ?4 OR p.target_kind = ?4)
                   AND (?5 OR (r.interrupted = 0 AND r.finished IS NOT NULL))
                 ORDER BY r.started, r.id, p.rowid",
            )
            .map_err(|e| self.err(e))?;
        let args = rusqlite::params![
            filter.suite,
            filter.workload,
            filter.metric,
            filter.target,
            filter.include_partial
        ];
        stmt.query_map(args, point_row)
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }
}

fn run_row(r: &Row) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        id: r.get(0)?,
        dir: r.get(1)?,
        facts: RunFacts {
            started: r.get(2)?,
            finished: r.get(3)?,
            interrupted: r.get(4)?,
            label: r.get(5)?,
            suite: r.get(6)?,
            scale: r.get(7)?,
            method: r.get(8)?,
            cache_policy: r.get(9)?,
            tool_version: r.get(10)?,
            source_tool: r.get(11)?,
            kernel: r.get(12)?,
            os: r.get(13)?,
            machine_id: r.get(14)?,
            cpu_model: r.get(15)?,
            cores: r.get(16)?,
            ram_bytes: r.get::<_, i64>(17)? as u64,
            parts: r.get(18)?,
        },
    })
}

fn point_row(r: &Row) -> rusqlite::Result<Point> {
    let samples: String = r.get(16)?;
    Ok(Point {
        run_id: r.get(0)?,
        facts: PointFacts {
            target: r.get(1)?,
            target_kind: r.get(2)?,
            fs_type: r.get(3)?,
            fs_version: r.get(4)?,
            options: r.get(5)?,
            device_model: r.get(6)?,
            kernel: r.get(17)?,
            workload: r.get(7)?,
            params: r.get(8)?,
            metric: r.get(9)?,
            unit: r.get(10)?,
            better: if r.get::<_, String>(11)? == "lower" {
                Better::Lower
            } else {
                Better::Higher
            },
            comparable: r.get(12)?,
            mean: r.get(13)?,
            ci_low: r.get(14)?,
            ci_high: r.get(15)?,
            samples: serde_json::from_str(&samples).unwrap_or_default(),
        },
    })
}
