//! Builders of workload parameter specs ([`ParamSpec`]): each kind of parameter (count, size,
//! switch, percentage, choice, bytes per call, file size) with its usual range, so a workload
//! declares a parameter in one line and no spec literal spells `full_twice_ram` or a range
//! by hand.

use crate::params::{ParamKind, ParamSpec, MAX_COUNT, MAX_REQUEST, MAX_SIZE};

/// A plain count parameter, 1 to [`MAX_COUNT`] unless narrowed with `.range`.
pub(crate) const fn count(
    name: &'static str,
    help: &'static str,
    quick: u64,
    standard: u64,
) -> ParamSpec {
    ParamSpec {
        name,
        help,
        kind: ParamKind::Count,
        quick,
        standard,
        full_twice_ram: false,
        min: 1,
        max: MAX_COUNT,
    }
}

/// A size parameter, 1 B to [`MAX_SIZE`] unless narrowed with `.range`; `twice_ram` makes it
/// at least 2 × RAM at full scale.
pub(crate) const fn bytes(
    name: &'static str,
    help: &'static str,
    quick: u64,
    standard: u64,
    twice_ram: bool,
) -> ParamSpec {
    ParamSpec {
        name,
        help,
        kind: ParamKind::Bytes,
        quick,
        standard,
        full_twice_ram: twice_ram,
        min: 1,
        max: MAX_SIZE,
    }
}

/// Most files a file-set workload makes (and directories it spreads them over).
pub(crate) const MAX_FILES: u64 = 100_000_000;

/// A switch: true/false (1/0, on/off).
pub(crate) const fn flag(name: &'static str, help: &'static str, default: u64) -> ParamSpec {
    ParamSpec {
        kind: ParamKind::Bool,
        ..count(name, help, default, default).range(0, 1)
    }
}

/// A percentage, 0 to 100.
pub(crate) const fn percent(name: &'static str, help: &'static str, default: u64) -> ParamSpec {
    count(name, help, default, default).range(0, 100)
}

/// Bytes per call (block, request, chunk): 512 B to [`MAX_REQUEST`].
pub(crate) const fn request_size(
    name: &'static str,
    help: &'static str,
    default: u64,
) -> ParamSpec {
    bytes(name, help, default, default, false).range(512, MAX_REQUEST)
}

/// The size of a file a workload writes and reads back: 4 KiB to [`MAX_SIZE`].
pub(crate) const fn file_size(
    name: &'static str,
    help: &'static str,
    quick: u64,
    standard: u64,
    twice_ram: bool,
) -> ParamSpec {
    bytes(name, help, quick, standard, twice_ram).range(4 << 10, MAX_SIZE)
}

/// One of `names`, `quick` and `standard` indexes into them.
pub(crate) const fn choice(
    name: &'static str,
    help: &'static str,
    names: &'static [&'static str],
    quick: u64,
    standard: u64,
) -> ParamSpec {
    ParamSpec {
        kind: ParamKind::Choice(names),
        ..count(name, help, quick, standard).range(0, names.len() as u64 - 1)
    }
}
