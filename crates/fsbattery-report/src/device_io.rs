//! What the block devices did, per target and workload, and the write amplification it
//! implies: device bytes written ÷ bytes the workload wrote ([`DeviceIo`] of each sample).
//!
//! Several metrics of one timed phase carry the same reading (randomio's iops and MB/s, a
//! stream's returned and durable times); a reading is counted once per (target, workload,
//! repeat, phase), so sums are over phases, never over metrics. Every renderer shows the same
//! [`IoTable`]: the terminal table and Markdown as a table plus one sentence per target, the
//! HTML as its own section.

use crate::format::{bytes, num};
use fsbattery_record::{DeviceIo, RunRecord};
use std::collections::HashSet;

/// Below this many bytes given by the workload, no amplification is shown: a metadata phase
/// that wrote 1.32 KiB of file data made its device write a journal commit and inode blocks,
/// and "251038×" of that says nothing of how the filesystem treats data.
pub const MIN_GIVEN_BYTES: u64 = 1 << 20;

/// Device bytes ÷ bytes given, when enough was given for the ratio to mean something.
fn amplification(io: &DeviceIo) -> Option<f64> {
    io.write_amplification()
        .filter(|_| io.given_bytes >= MIN_GIVEN_BYTES)
}

/// One target × workload: the phases' readings summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IoTotal {
    /// The summed counters (and bytes given).
    pub io: DeviceIo,
    /// Phases summed.
    pub phases: u32,
}

impl IoTotal {
    fn add(&mut self, io: &DeviceIo) {
        self.io = if self.phases == 0 {
            *io
        } else {
            self.io.plus(io)
        };
        self.phases += 1;
    }

    /// "1.02× · 130 MiB" (amplification first), or "130 MiB" when the workload wrote less
    /// than [`MIN_GIVEN_BYTES`].
    pub fn short(&self) -> String {
        let written = bytes(self.io.write_bytes);
        match amplification(&self.io) {
            Some(a) => format!("{}× · {written}", num(a)),
            None => written,
        }
    }
}

/// Device I/O of a run: workloads as rows, targets as columns, and each target's total.
#[derive(Debug, Clone, PartialEq)]
pub struct IoTable {
    /// Targets with at least one reading, in record order.
    pub columns: Vec<String>,
    /// (workload, one entry per column) in record order.
    pub rows: Vec<(String, Vec<Option<IoTotal>>)>,
    /// All workloads of each column together.
    pub totals: Vec<IoTotal>,
    /// Each column's external journal/log device, if it had one.
    pub journals: Vec<Option<String>>,
}

/// The table, or `None` when no sample carries a reading (no block-backed target).
pub fn build(rec: &RunRecord) -> Option<IoTable> {
    let mut columns: Vec<String> = Vec::new();
    let mut workloads: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut readings = Vec::new();
    for c in &rec.cells {
        for s in &c.samples {
            let Some(io) = s.device_io else { continue };
            let phase = (&c.target, &c.workload, s.repeat, s.elapsed_s.to_bits(), io);
            if !seen.insert(phase) {
                continue;
            }
            if !columns.contains(&c.target) {
                columns.push(c.target.clone());
            }
            if !workloads.contains(&c.workload) {
                workloads.push(c.workload.clone());
            }
            readings.push((&c.target, &c.workload, io));
        }
    }
    if columns.is_empty() {
        return None;
    }
    let col = |t: &String| columns.iter().position(|c| c == t).unwrap_or(0);
    let mut rows: Vec<(String, Vec<Option<IoTotal>>)> = workloads
        .iter()
        .map(|w| (w.clone(), vec![None; columns.len()]))
        .collect();
    let mut totals = vec![IoTotal::default(); columns.len()];
    for (t, w, io) in readings {
        let r = workloads.iter().position(|x| x == w).unwrap_or(0);
        rows[r].1[col(t)]
            .get_or_insert_with(IoTotal::default)
            .add(&io);
        totals[col(t)].add(&io);
    }
    let journals = columns.iter().map(|c| journal_of(rec, c)).collect();
    Some(IoTable {
        columns,
        rows,
        totals,
        journals,
    })
}

/// The external journal device a target's first setup used.
fn journal_of(rec: &RunRecord, target: &str) -> Option<String> {
    let t = rec.targets.iter().find(|t| t.label == target)?;
    let lc = t.lifecycles.first()?;
    let j = lc.block_devices.iter().find(|d| d.role == "journal")?;
    Some(j.path.clone())
}

impl IoTable {
    /// One sentence per target: "ext3 wrote 2.1× the data it was given: 1.2 GiB at its
    /// device for 580 MiB written by the workloads; 4,120 write IOs, 96 flushes."
    pub fn sentences(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, c) in self.columns.iter().enumerate() {
            let io = &self.totals[i].io;
            let devs = if io.devices == 1 {
                "its device".to_string()
            } else {
                format!("its {} devices", io.devices)
            };
            let mut s = match amplification(io) {
                Some(a) => format!(
                    "{c} wrote {}× the data it was given: {} at {devs} for {} written by the \
                     workloads",
                    num(a),
                    bytes(io.write_bytes),
                    bytes(io.given_bytes)
                ),
                None => format!("{c} wrote {} at {devs}", bytes(io.write_bytes)),
            };
            if let (Some(j), Some(jb)) = (&self.journals[i], io.journal_write_bytes) {
                s.push_str(&format!(", of which {} to the journal on {j}", bytes(jb)));
            }
            s.push_str(&format!(
                "; read {}; {} write IOs",
                bytes(io.read_bytes),
                io.write_ios
            ));
            if let Some(f) = io.flushes {
                s.push_str(&format!(", {f} flushes"));
            }
            s.push('.');
            out.push(s);
        }
        out
    }

    /// The legend every renderer prints above the table.
    pub fn legend() -> &'static str {
        "Device I/O: bytes the block devices wrote in the timed phases (summed over every \
         device, read after the sync that ends each phase), and write amplification = those \
         bytes ÷ the bytes the workload wrote (\"×\"; none where the workload wrote under \
         1 MiB, whose ratio is the filesystem's own bookkeeping)."
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbattery_record::{BlockDevice, Lifecycle, Sample, TargetRecord};

    fn record() -> RunRecord {
        let text = include_str!("../tests/fixtures/run.json");
        serde_json::from_str(text).unwrap()
    }

    fn io(written: u64, given: u64) -> DeviceIo {
        DeviceIo {
            write_bytes: written,
            given_bytes: given,
            devices: 1,
            flushes: Some(1),
            ..DeviceIo::default()
        }
    }

    #[test]
    fn no_reading_no_table() {
        assert_eq!(build(&record()), None);
    }

    /// Two metrics of one phase count once; two repeats add; amplification is over the sums.
    #[test]
    fn sums_phases_not_metrics() {
        let mut rec = record();
        let target = rec.cells[0].target.clone();
        let workload = rec.cells[0].workload.clone();
        let mut n = 0;
        for c in rec.cells.iter_mut() {
            if c.target != target || c.workload != workload {
                continue;
            }
            for s in c.samples.iter_mut() {
                s.elapsed_s = s.repeat as f64 + 1.0;
                s.device_io = Some(io(300 << 20, 100 << 20));
                n += 1;
            }
        }
        assert!(n >= 2, "the fixture has several metrics or repeats");
        let repeats: HashSet<u32> = rec
            .cells
            .iter()
            .filter(|c| c.target == target && c.workload == workload)
            .flat_map(|c| c.samples.iter().map(|s: &Sample| s.repeat))
            .collect();
        let t = build(&rec).unwrap();
        assert_eq!(t.columns, std::slice::from_ref(&target));
        let total = t.totals[0];
        assert_eq!(total.phases as usize, repeats.len());
        assert_eq!(total.io.write_bytes, (300 << 20) * repeats.len() as u64);
        assert_eq!(total.io.write_amplification(), Some(3.0));
        assert_eq!(
            total.short(),
            format!("3.00× · {}", bytes(total.io.write_bytes))
        );
        assert!(t.sentences()[0].starts_with(&format!("{target} wrote 3.00× the data")));
    }

    /// A phase that gave the filesystem a few bytes shows what the device wrote, no ratio.
    #[test]
    fn no_amplification_under_the_minimum() {
        let t = IoTotal {
            io: io(331 << 10, 1352),
            phases: 1,
        };
        assert_eq!(t.short(), bytes(331 << 10));
        let t = IoTotal {
            io: io(2 << 20, MIN_GIVEN_BYTES),
            phases: 1,
        };
        assert_eq!(t.short(), format!("2.00× · {}", bytes(2 << 20)));
    }

    #[test]
    fn names_an_external_journal() {
        let mut rec = record();
        let target = rec.cells[0].target.clone();
        rec.cells[0].samples[0].device_io = Some(DeviceIo {
            journal_write_bytes: Some(1 << 20),
            devices: 2,
            ..io(4 << 20, 0)
        });
        rec.targets = vec![TargetRecord {
            label: target.clone(),
            lifecycles: vec![Lifecycle {
                block_devices: vec![BlockDevice {
                    path: "/dev/loop9".into(),
                    role: "journal".into(),
                }],
                ..Lifecycle::default()
            }],
            ..TargetRecord::default()
        }];
        let s = &build(&rec).unwrap().sentences()[0];
        assert!(
            s.contains(
                "wrote 4.00 MiB at its 2 devices, of which 1.00 MiB to the journal on /dev/loop9"
            ),
            "{s}"
        );
    }
}
