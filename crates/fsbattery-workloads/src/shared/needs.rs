//! What a workload needs from a target for given parameters, and the one check of those needs
//! against what a target offers (its [`Capabilities`], probed once when the plan is built).
//!
//! Space is an estimate, not a worst case: `bytes` is the workload's expected peak with the
//! margin [`with_margin`] states, `floor` what the run holds for certain. A target below the
//! floor is refused; one between the floor and the estimate is warned about and run (a full
//! target fails its cell cleanly with ENOSPC), so no estimate refuses what the tool can run.
//!
//! Invariants: everything here is pure but the io_uring check, which reads the engine's probe
//! ([`crate::engine::uring_available`], once per process);
//! the plan checks every (workload, target) pair before the first mkfs, and a refusal is one
//! line that names the parameter and the fix. The run-time checks in the workloads stay as a
//! second line of defence (a made filesystem may differ from its prediction), never the first.

use crate::model::Capabilities;
use crate::units::format_bytes;

/// How a job-file workload's name starts (`fio:FILE`); `workload::fio` re-exports it.
pub const FIO_PREFIX: &str = "fio:";

/// What one block of a small file costs on disk in the estimates (the common 4 KiB block).
pub const BLOCK: u64 = 4096;

/// What a workload needs from its target, computed from its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// O_DIRECT, when the parameters ask for it.
    pub direct: Option<Direct>,
    /// io_uring (`engine=io_uring`).
    pub uring: bool,
    /// The workload's expected peak on the target with the stated margin ([`with_margin`];
    /// saturating: huge is refused).
    pub bytes: u64,
    /// Bytes the run holds for certain at some moment (at most `bytes`): a target with less
    /// room is refused, one with less than `bytes` but at least this is warned about.
    pub floor: u64,
    /// Most files and directories it holds at once.
    pub inodes: u64,
    /// The parameters that set `bytes` and `inodes`, named when they do not fit.
    pub set_by: &'static str,
}

/// O_DIRECT as a workload asks for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Direct {
    /// `Some(true)`: where O_DIRECT is refused the workload runs buffered
    /// (`buffered_fallback=true`); `None`: the workload has no such parameter.
    pub fallback: Option<bool>,
    /// How `direct` is turned off: `false` for a switch, `off` for ffsb's choice.
    pub off: &'static str,
    /// Parameters whose values every O_DIRECT transfer is made of: each must be a multiple of
    /// the target's O_DIRECT alignment.
    pub sizes: Vec<(&'static str, u64)>,
}

impl Needs {
    /// Room for a peak of `bytes` of data in `inodes` files and directories, set by the
    /// parameters `set_by`; no O_DIRECT, no io_uring. The data are certain (the floor); the
    /// estimate adds [`with_margin`].
    pub fn space(bytes: u64, inodes: u64, set_by: &'static str) -> Needs {
        Needs {
            bytes: with_margin(bytes, inodes),
            floor: bytes,
            inodes,
            set_by,
            ..Needs::default()
        }
    }

    /// The same where `bytes` is an expected peak, not a certainty: the run holds `floor`
    /// for certain, and the plan runs between the two with a warning.
    pub fn uncertain(self, floor: u64) -> Needs {
        Needs {
            floor: floor.min(self.floor),
            ..self
        }
    }

    /// The same with io_uring when the group's engine is built on it.
    pub(crate) fn engine(self, io: &super::io::IoGroup) -> Needs {
        Needs {
            uring: io.uses_uring(),
            ..self
        }
    }

    /// The same with O_DIRECT when the group's `direct` is on (turned off by the value `off`),
    /// moving transfers of `sizes` (each named by its parameter); `fallback` reads
    /// `buffered_fallback` when the workload has it.
    pub(crate) fn direct(
        self,
        io: &super::io::IoGroup,
        off: &'static str,
        fallback: bool,
        sizes: &[(&'static str, u64)],
    ) -> Needs {
        let direct = io.direct.then(|| Direct {
            fallback: fallback.then_some(io.buffered_fallback),
            off,
            sizes: sizes.to_vec(),
        });
        Needs { direct, ..self }
    }
}

/// The stated margin over a peak of `data` bytes in `inodes` files and directories: 1/64 of
/// the data (extent and indirect blocks, allocation slack), 64 B per entry (a directory entry
/// with a name of up to 40 bytes in blocks ¾ full) and 16 blocks (the scratch directory and
/// the first block of a few more). Measured against real runs on ext4 by
/// `tests/needs_peaks.rs`, where files whose data are exact (dd, stream) come out 1–2 % over.
pub fn with_margin(data: u64, inodes: u64) -> u64 {
    data.saturating_add(data / 64)
        .saturating_add(inodes.saturating_mul(64))
        .saturating_add(16 * BLOCK)
}

/// Bytes of `n` files of `size` bytes each, each rounded up to whole [`BLOCK`]s (saturating).
pub fn files_bytes(n: u64, size: u64) -> u64 {
    n.saturating_mul(size.div_ceil(BLOCK).max(1).saturating_mul(BLOCK))
}

/// Check the needs of `workload` against the target `spec` that offers `caps`: `Err` is the
/// one line that refuses the plan, naming the parameter and the fix; `Ok(Some(line))` a
/// warning: the estimate exceeds the room but what the run holds for certain fits, so it runs.
pub fn check(
    workload: &str,
    needs: &Needs,
    spec: &str,
    caps: &Capabilities,
) -> Result<Option<String>, String> {
    let w = workload;
    // A job file's options are set with `--set fio.OPTION=VALUE`, whatever the file.
    let sw = if w.starts_with(FIO_PREFIX) { "fio" } else { w };
    if let Some(d) = &needs.direct {
        check_direct(w, sw, d, spec, caps)?;
    }
    if needs.uring && caps.io_uring == Some(false) {
        let why = crate::engine::uring_available()
            .as_ref()
            .err()
            .map(String::as_str)
            .unwrap_or("refused");
        return Err(format!(
            "{w}.engine=io_uring: io_uring cannot be set up on this host ({why}): use --set \
             {w}.engine=sync"
        ));
    }
    let room = |need: u64, have: Option<u64>, what: &str, show: fn(u64) -> String| match have {
        Some(have) if need > have => Err(format!(
            "{w} needs {} {what} on {spec}, which has {}: lower {w}'s {} with --set {sw}.…, or \
             give the target more room",
            show(need),
            show(have),
            needs.set_by
        )),
        _ => Ok(()),
    };
    room(needs.floor, caps.space_bytes, "of space", format_bytes)?;
    room(needs.inodes, caps.inodes, "inodes", |n| n.to_string())?;
    Ok(match caps.space_bytes {
        Some(have) if needs.bytes > have => Some(format!(
            "{w} may need up to {} of space on {spec}, which has {} (its expected peak with a \
             margin; {} for certain): running it, and a full target fails the cell",
            format_bytes(needs.bytes),
            format_bytes(have),
            format_bytes(needs.floor)
        )),
        _ => None,
    })
}

fn check_direct(
    w: &str,
    sw: &str,
    d: &Direct,
    spec: &str,
    caps: &Capabilities,
) -> Result<(), String> {
    let off = d.off;
    if !caps.direct_io {
        return match d.fallback {
            Some(true) => Ok(()),
            Some(false) => Err(format!(
                "{w}.direct: {spec} refuses O_DIRECT: use --set {sw}.direct={off}, or \
                 --set {sw}.buffered_fallback=true to run buffered there"
            )),
            None => Err(format!(
                "{w}.direct: {spec} refuses O_DIRECT: use --set {sw}.direct={off}"
            )),
        };
    }
    let Some(align) = caps.direct_io_align.filter(|a| *a > 1) else {
        return Ok(());
    };
    match d.sizes.iter().find(|(_, v)| !v.is_multiple_of(align)) {
        Some((name, v)) => Err(format!(
            "{w}.{name}={v} is not a multiple of {align}, the O_DIRECT alignment of {spec}: use \
             a multiple of {align}, or --set {sw}.direct={off}"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(direct: bool, align: Option<u64>, space: Option<u64>) -> Capabilities {
        Capabilities {
            direct_io: direct,
            direct_io_align: align,
            space_bytes: space,
            io_uring: Some(true),
            ..Capabilities::default()
        }
    }

    fn direct(fallback: Option<bool>, request: u64) -> Needs {
        Needs {
            direct: Some(Direct {
                fallback,
                off: "false",
                sizes: vec![("request", request)],
            }),
            ..Needs::space(1 << 20, 1, "size")
        }
    }

    #[test]
    fn misaligned_direct_sizes_are_refused_naming_the_parameter_and_fix() {
        let e = check(
            "randomio",
            &direct(Some(false), 1000),
            "loop:ext4",
            &caps(true, Some(512), None),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "randomio.request=1000 is not a multiple of 512, the O_DIRECT alignment of \
             loop:ext4: use a multiple of 512, or --set randomio.direct=false"
        );
        assert!(check(
            "randomio",
            &direct(Some(false), 4096),
            "loop:ext4",
            &caps(true, Some(512), None)
        )
        .is_ok());
        // Unknown alignment: nothing to refuse up front (the workload checks after mkfs).
        assert!(check(
            "randomio",
            &direct(Some(false), 1000),
            "t",
            &caps(true, None, None)
        )
        .is_ok());
    }

    #[test]
    fn a_target_without_o_direct_is_refused_unless_the_workload_may_fall_back() {
        let no = caps(false, None, None);
        let e = check("dd", &direct(Some(false), 4096), "tmpfs", &no).unwrap_err();
        assert!(
            e.contains("dd.direct=false") && e.contains("buffered_fallback=true"),
            "{e}"
        );
        assert!(check("dd", &direct(Some(true), 4096), "tmpfs", &no).is_ok());
        // ffsb's direct is the choice off|on, with no fallback.
        let mut n = direct(None, 4096);
        n.direct.as_mut().unwrap().off = "off";
        let e = check("ffsb", &n, "tmpfs", &no).unwrap_err();
        assert!(e.ends_with("use --set ffsb.direct=off"), "{e}");
    }

    #[test]
    fn space_and_inodes_are_compared_when_the_target_knows_them() {
        let n = Needs::space(2 << 30, 10, "size");
        let e = check(
            "stream",
            &n,
            "loop:ext4,size=1G",
            &caps(true, None, Some(1 << 30)),
        );
        assert!(e.unwrap_err().contains("stream needs 2GiB of space"));
        assert!(check("stream", &n, "dir:/x", &caps(true, None, None)).is_ok());
        let few = Capabilities {
            inodes: Some(5),
            ..caps(true, None, None)
        };
        assert!(check("stream", &n, "dir:/x", &few)
            .unwrap_err()
            .contains("10 inodes"));
    }

    #[test]
    fn an_estimate_over_the_room_warns_and_only_the_certain_part_refuses() {
        let n = Needs::space(2 << 30, 10, "files").uncertain(100 << 20);
        let spec = "loop:ext4,size=1G";
        let w = check("postmark", &n, spec, &caps(true, None, Some(1 << 30)));
        let w = w.unwrap().expect("a warning");
        assert!(w.starts_with("postmark may need up to 2.0"), "{w}");
        assert!(
            w.contains("which has 1GiB") && w.contains("100MiB for certain"),
            "{w}"
        );
        assert_eq!(w.lines().count(), 1);
        let e = check("postmark", &n, spec, &caps(true, None, Some(50 << 20))).unwrap_err();
        assert!(e.contains("postmark needs 100MiB of space"), "{e}");
        assert_eq!(
            check("postmark", &n, spec, &caps(true, None, Some(3 << 30))),
            Ok(None)
        );
    }

    #[test]
    fn the_margin_is_a_sixty_fourth_64_bytes_an_entry_and_16_blocks() {
        let n = Needs::space(64 << 20, 100, "size");
        assert_eq!(
            (n.floor, n.bytes),
            (64 << 20, (65 << 20) + 6400 + 16 * BLOCK)
        );
    }

    #[test]
    fn io_uring_is_refused_where_it_cannot_be_set_up() {
        let n = Needs {
            uring: true,
            ..Needs::space(0, 0, "")
        };
        let off = Capabilities {
            io_uring: Some(false),
            ..Capabilities::default()
        };
        let e = check("dd", &n, "loop:xfs", &off).unwrap_err();
        assert!(e.contains("--set dd.engine=sync"), "{e}");
        assert_eq!(e.lines().count(), 1);
    }

    #[test]
    fn file_bytes_round_up_to_blocks_and_saturate() {
        assert_eq!(files_bytes(3, 1), 3 * BLOCK);
        assert_eq!(files_bytes(2, BLOCK + 1), 4 * BLOCK);
        assert_eq!(files_bytes(u64::MAX, u64::MAX), u64::MAX);
    }
}
