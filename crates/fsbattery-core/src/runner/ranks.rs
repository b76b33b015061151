//! The runner's part in running as one of many MPI ranks (see [`crate::collective`]): one
//! answer on every rank to "stop now?", each rank's own directory, the cell's failure named by
//! rank and host, and each sample combined over the ranks as IOR combines a phase.

use super::*;
use crate::collective::RankEnd;
use fsbattery_record::meta::{MetricKind, MetricMeta, Stat};

/// Whether to stop now; under MPI every rank gets the same answer (a signal may have reached
/// only some ranks), so all stop at the same point of the plan.
pub(super) fn stop(team: &Team<'_>) -> bool {
    let stop = team.agree_stop(crate::interrupt::requested());
    if stop {
        crate::interrupt::request();
    }
    stop
}

/// Where this rank works: the target's root for one process, `rank-N` under it for many
/// (file per process, as IOR `-F` and mdtest `-u`).
pub(super) fn rank_root(team: &Team<'_>, root: &Path) -> Result<std::path::PathBuf, WorkloadError> {
    if !team.is_parallel() {
        return Ok(root.to_path_buf());
    }
    let dir = root.join(format!("rank-{}", team.comm().rank()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| WorkloadError::io(format!("create {}", dir.display()), e))?;
    Ok(dir)
}

/// The cell's failure over all ranks: the ranks that failed themselves, named with their
/// hosts (ranks that only gave up because another failed are not repeated).
pub(super) fn ranks_error(ends: &[RankEnd]) -> Option<String> {
    let failed: Vec<&RankEnd> = ends.iter().filter(|e| e.error.is_some()).collect();
    let own: Vec<&&RankEnd> = failed.iter().filter(|e| !e.followed).collect();
    let shown: Vec<String> = if own.is_empty() {
        failed.iter().map(|e| describe_end(e)).collect()
    } else {
        own.iter().map(|e| describe_end(e)).collect()
    };
    (!shown.is_empty()).then(|| shown.join("; "))
}

fn describe_end(e: &RankEnd) -> String {
    format!(
        "rank {} on {}: {}",
        e.rank,
        e.host,
        e.error.as_deref().unwrap_or("")
    )
}

/// Turn a gathered sample into the aggregate over the ranks (IOR's stonewall), by what the
/// metric measures: a time lasts until the last rank is done, and so does a latency maximum;
/// a rate is everyone's work over that span; anything else is the ranks' mean.
///
/// A latency percentile is the worst rank's: samples carry no histograms to pool, and the
/// worst rank's pXX is an upper bound of the pooled pXX (at that latency every rank, hence
/// all operations together, have at least XX % done), where a mean of the ranks' pXX is no
/// statistic of anything. The reports say so under every table with per-rank cells.
pub(super) fn combine_ranks(sample: &mut Sample, meta: &MetricMeta) {
    use fsbattery_stats::{stonewall, Combine, RankPart};
    if sample.ranks.len() < 2 {
        return;
    }
    let combine = match (meta.kind, meta.stat) {
        (MetricKind::Time, _)
        | (MetricKind::Latency, Some(Stat::Max))
        | (MetricKind::Latency, Some(Stat::Percentile(_))) => Combine::Duration,
        (MetricKind::Rate, _) => Combine::Rate,
        _ => Combine::Mean,
    };
    let parts: Vec<RankPart> = sample
        .ranks
        .iter()
        .map(|r| RankPart {
            value: r.value,
            elapsed_s: r.elapsed_s,
        })
        .collect();
    if let Some(all) = stonewall(&parts, combine) {
        sample.value = all.value;
        sample.elapsed_s = all.span_s;
    }
}
