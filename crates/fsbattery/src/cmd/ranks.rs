//! `fsbattery run` under `mpirun`: the checks every rank must pass before any I/O.
//!
//! Every rank parses the same arguments and builds the plan; then the ranks compare: a plan
//! that failed on any rank, or differs between ranks, stops every rank with rank 0 printing
//! one line (exit 2). The targets must be directories that every rank sees as the same
//! filesystem: rank 0 writes a probe file that every rank must find, and every rank reports
//! the filesystem type (statfs) it sees there. Only what runs on many clients at once is
//! accepted: dir targets (a shared filesystem is mounted by the site, not made by fsbattery)
//! and the workloads whose phases the ranks run in step.

use anyhow::anyhow;
use fsbattery_core::collective::Collective;
use fsbattery_core::error::UsageError;
use fsbattery_core::plan::Runnable;
use fsbattery_core::runner::Plan;
use std::path::Path;

/// The ranks of this run: `None` for a single process. Launched by mpirun without MPI in this
/// build is refused (each rank would run the whole study alone, on the same files).
pub fn start() -> anyhow::Result<Option<Box<dyn Collective>>> {
    if fsbattery_mpi::launched_by_mpirun() && !fsbattery_mpi::BUILT_WITH_MPI {
        return Err(UsageError::Invalid(
            "started by mpirun, but this fsbattery was built without MPI: \
             build it with `cargo build --release --features mpi` (see the README's Many clients)"
                .into(),
        )
        .into());
    }
    Ok(fsbattery_mpi::init())
}

/// Stop every rank when any failed to build the plan or built another one; rank 0's message
/// (or the first failing rank's) is the error on every rank.
pub fn agree_on_plan(comm: &dyn Collective, built: Result<&Plan, String>) -> anyhow::Result<()> {
    let mine = match built {
        Ok(plan) => {
            let info = serde_json::to_vec(&plan.info()).unwrap_or_default();
            [b"ok ".as_slice(), &info].concat()
        }
        Err(e) => [b"err".as_slice(), e.as_bytes()].concat(),
    };
    let all = comm.all_gather_bytes(&mine);
    if let Some((rank, bytes)) = all.iter().enumerate().find(|(_, b)| b.starts_with(b"err")) {
        let why = String::from_utf8_lossy(&bytes[3..]);
        return Err(UsageError::Invalid(format!("rank {rank}: {why}")).into());
    }
    if let Some(rank) = all.iter().position(|b| *b != all[0]) {
        return Err(UsageError::Invalid(format!(
            "rank {rank} planned another run than rank 0: give every rank the same arguments"
        ))
        .into());
    }
    Ok(())
}

/// Every check before any I/O: the plan built on every rank, is the same everywhere, can run
/// on many ranks, and every target is one shared filesystem.
pub fn check_all(
    comm: &dyn Collective,
    built: &Result<Runnable, UsageError>,
) -> anyhow::Result<()> {
    let checked = match built {
        Ok(r) => check_plan(&r.plan).map(|()| &*r.plan),
        Err(e) => Err(format!("{e:#}")),
    };
    agree_on_plan(comm, checked)?;
    if let Ok(Runnable { plan, .. }) = built {
        for t in &plan.targets {
            check_shared(comm, t.root())?;
        }
    }
    Ok(())
}

/// The status a rank other than 0 exits with (rank 0 prints the run's outcome).
pub fn exit_code(outcome: &fsbattery_core::runner::Outcome) -> std::process::ExitCode {
    use fsbattery_core::error::{EXIT_CELL_FAILED, EXIT_INTERRUPTED};
    if outcome.interrupted {
        std::process::ExitCode::from(EXIT_INTERRUPTED)
    } else if outcome.failed_cells > 0 {
        std::process::ExitCode::from(EXIT_CELL_FAILED)
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// What a plan must be to run on many ranks.
pub fn check_plan(plan: &Plan) -> Result<(), String> {
    if plan.targets.is_empty() {
        return Err("under mpirun, give --target dir:PATH, a directory every rank sees".into());
    }
    if let Some(t) = plan.targets.iter().find(|t| !t.spec().starts_with("dir:")) {
        return Err(format!(
            "under mpirun every target must be a shared directory (dir:PATH); {} is made by \
             fsbattery on one machine",
            t.spec()
        ));
    }
    if let Some(w) = plan.workloads.iter().find(|w| !w.workload.runs_on_ranks()) {
        let ranked: Vec<&str> = fsbattery_core::workload::rank_workloads()
            .map(|w| w.name())
            .collect();
        return Err(format!(
            "workload {} runs on one process only; under mpirun use --workload {}",
            w.workload.name(),
            ranked.join(",")
        ));
    }
    Ok(())
}

/// Every rank sees the same filesystem at `root`: rank 0 writes a probe file there, every
/// rank must find it with rank 0's token, and every rank must see the same statfs type.
pub fn check_shared(comm: &dyn Collective, root: &Path) -> anyhow::Result<()> {
    let name = format!(".fsbattery-probe-{}", std::process::id());
    let token = format!(
        "{name} {}",
        chrono::Local::now().timestamp_nanos_opt().unwrap_or(0)
    );
    let written = if comm.rank() == 0 {
        std::fs::write(root.join(&name), &token).map_err(|e| e.to_string())
    } else {
        Ok(())
    };
    // Rank 0's probe name and token reach everyone only after it has been written.
    let shared = comm.all_gather_bytes(token.as_bytes());
    let token0 = String::from_utf8_lossy(&shared[0]).into_owned();
    let name0 = token0.split(' ').next().unwrap_or("").to_string();
    let seen = match (&written, std::fs::read_to_string(root.join(&name0))) {
        (Err(e), _) => format!("err cannot write a probe file in {}: {e}", root.display()),
        (Ok(()), Ok(t)) if t == token0 => format!("ok {:x}", fs_magic(root)),
        (Ok(()), _) => format!(
            "err does not see rank 0's probe file in {}: not the same filesystem",
            root.display()
        ),
    };
    let all = comm.all_gather_bytes(seen.as_bytes());
    if comm.rank() == 0 {
        let _ = std::fs::remove_file(root.join(&name0));
    }
    shared_verdict(root, &all)
}

fn shared_verdict(root: &Path, all: &[Vec<u8>]) -> anyhow::Result<()> {
    let texts: Vec<String> = all
        .iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    if let Some((rank, t)) = texts.iter().enumerate().find(|(_, t)| t.starts_with("err")) {
        return Err(UsageError::Invalid(format!("rank {rank}: {}", &t[4..])).into());
    }
    if let Some(rank) = texts.iter().position(|t| *t != texts[0]) {
        return Err(UsageError::Invalid(format!(
            "rank {rank} sees another filesystem type at {} than rank 0 ({} vs {}): \
             every rank must reach the same shared filesystem",
            root.display(),
            &texts[rank][3..],
            &texts[0][3..]
        ))
        .into());
    }
    Ok(())
}

fn fs_magic(root: &Path) -> i64 {
    fsbattery_core::targets::fsinfo::fs_magic(root).unwrap_or(0)
}

/// The error a rank other than 0 keeps to itself (rank 0 prints the run's one line).
pub fn silence(comm: &dyn Collective, e: anyhow::Error) -> anyhow::Error {
    if comm.rank() == 0 {
        e
    } else {
        anyhow!(Quiet(e.downcast_ref::<UsageError>().is_some()))
    }
}

/// An error already reported by rank 0: exit with its status, print nothing.
#[derive(Debug)]
pub struct Quiet(pub bool);

impl std::fmt::Display for Quiet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reported by rank 0")
    }
}

impl std::error::Error for Quiet {}
