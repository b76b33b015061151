//! The data the io500 app has IOR and mdtest write, and the check of it they make on read:
//! the app passes `--dataPacketType=timestamp` to every IOR and mdtest call, `-R` to the IOR
//! reads and `-X` to mdtest-hard-read (io500 `src/phase_*.c`). So its read phases verify every
//! byte they read, inside the timing, and fsbattery's do the same work
//! (hpc/ior 5fcf0ba `src/utilities.c`):
//! - the buffer (`generate_memory_pattern`, once per phase): 8-byte word i is
//!   `rank << 32 | (signature + i)`, a trailing byte at i is `i as u8`, where rank is the
//!   writer's; every transfer writes that buffer as it is (the timestamp pattern is not
//!   updated per transfer);
//! - before each read the buffer's first byte is flipped (`invalidate_buffer_pattern`), after
//!   it every word is compared with what the writer wrote (`verify_memory_pattern`, the
//!   reader naming the writer's rank): one `rand_r` per call, then a word-by-word loop.
//!
//! The loop is IOR's shape on purpose: IOR's C (gcc -O2) compares one word per iteration,
//! dispatching on the pattern's kind and testing `i % 512` inside the loop, no vector
//! instructions. A loop a compiler vectorises checks several times as fast, and the read
//! phases would no longer cost what the app's do (a plain comparison took 0.53 of IOR's time
//! for a 47,008-byte transfer, 0.70 for 2 MiB: 11 interleaved runs against IOR's own
//! `verify_memory_pattern` from libaiori.a, 2026-11-27). What counts is the loop as built
//! into the read phase, not alone: with the kind behind `black_box` (a store and a load per
//! word) it matched IOR's alone (350 against 347 µs for 2 MiB), yet in ior-easy-read it took
//! 1.34 times IOR's samples (`perf record` of both, 1 GiB read and checked on 2 ranks,
//! 2026-11-27) and the phase ran at 0.71–0.94 of IOR's. Now the kind is a volatile load (IOR
//! reloads its seed from the stack every word) and `i % 512` is a branch, as gcc lays out
//! IOR's: 658 samples against IOR's 631 (two runs each).
//! Written by hand: the check is defined by IOR's code, not by any crate's.

extern "C" {
    /// POSIX `rand_r` (glibc has it; the `libc` crate does not declare it).
    fn rand_r(seed: *mut libc::c_uint) -> libc::c_int;
}

/// The signature (IOR's `-G`, the app's random per-run value): any value below 2³¹ keeps
/// `signature + i` clear of the rank's half of the word for the sizes io500 reads.
pub(super) const SIGNATURE: u32 = 0x10500;

/// IOR's packet kinds; io500 uses only `Timestamp`. The others stand in the loop as IOR's
/// switch has them, so the check is dispatched per word as there.
#[derive(Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // Only `Timestamp` is made: the rest are there to be dispatched on.
enum Kind {
    Timestamp,
    Offset,
    Random,
}

/// IOR's `RANDALGO_GOLDEN_RATIO_PRIME` (its random kind's generator).
const GOLDEN: u64 = 0x9e37_ffff_fffc_0001;

/// `generate_memory_pattern` for the timestamp kind: `buf` as `rank` writes it.
pub(super) fn fill(buf: &mut [u8], rank: usize) {
    let words = buf.len() / 8;
    for (i, w) in buf.chunks_exact_mut(8).enumerate() {
        w.copy_from_slice(&expected(rank, i).to_ne_bytes());
    }
    for (i, b) in buf.iter_mut().enumerate().skip(words * 8) {
        *b = i as u8;
    }
}

/// Word i of `rank`'s buffer.
#[inline]
fn expected(rank: usize, i: usize) -> u64 {
    ((rank as u64) << 32) | u64::from(SIGNATURE).wrapping_add(i as u64)
}

/// `invalidate_buffer_pattern`: before a read, so that a read that leaves the buffer alone
/// does not pass the check.
pub(super) fn invalidate(buf: &mut [u8]) {
    if let Some(b) = buf.first_mut() {
        *b = !*b;
    }
}

/// `verify_memory_pattern` for the timestamp kind: whether `buf` holds what `rank` wrote
/// (item `item`: IOR's offset, mdtest's file number; it seeds the `rand_r` IOR draws first).
pub(super) fn holds(buf: &[u8], rank: usize, item: u64) -> bool {
    let mut seed = SIGNATURE
        .wrapping_add(rank as u32)
        .wrapping_add(item as u32);
    // SAFETY: `seed` is a valid, exclusively borrowed unsigned int.
    let mut state = unsafe { rand_r(&mut seed) } as u64;
    let mut error = false;
    let mut k: u32 = 1;
    let words = buf.len() / 8;
    let made = Kind::Timestamp;
    for (i, w) in buf.chunks_exact(8).enumerate() {
        // SAFETY: reads a live local. Volatile, so the kind is loaded and dispatched on per
        // word as IOR's loop does (it reloads its seed from the stack every word), without
        // the store `black_box` adds.
        let kind = unsafe { std::ptr::read_volatile(&made) };
        let mut exp = match kind {
            Kind::Random => {
                state = state.wrapping_mul(GOLDEN) >> 3;
                state
            }
            _ => expected(rank, i),
        };
        // A branch on `i % 512` first, as gcc lays out IOR's test (taken 511 times in 512),
        // not a flag computed every word.
        if i % 512 == 0 {
            rare();
            if kind != Kind::Timestamp && kind != Kind::Random {
                exp = u64::from((item as u32).wrapping_mul(k)) | ((rank as u64) << 32);
                k += 1;
            }
        }
        let got = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
        if got != exp {
            error = true;
        }
    }
    for (i, &b) in buf.iter().enumerate().skip(words * 8) {
        if b != i as u8 {
            error = true;
        }
    }
    !error
}

/// Marks the branch it is called in as rarely taken, so the compiler keeps `i % 512` a branch:
/// without it LLVM folds the test into flags computed every word (the release build's
/// disassembly, 2026-11-27). `std::hint::cold_path` does the same but is stable only since
/// Rust 1.95.
#[cold]
#[inline(never)]
fn rare() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_buffer_checks_against_its_writer_only() {
        // 3,901 bytes: mdtest-hard's size, with a trailing 5 bytes past the last word.
        let mut buf = vec![0u8; 3_901];
        fill(&mut buf, 1);
        assert!(holds(&buf, 1, 7));
        assert!(!holds(&buf, 0, 7), "another rank's data");
        // IOR's words: rank in the high half, signature + i in the low.
        assert_eq!(
            &buf[8..16],
            &((1u64 << 32) | u64::from(SIGNATURE + 1)).to_ne_bytes()
        );
        assert_eq!(buf[3_900], 3_900u32 as u8);
        let mut bad = buf.clone();
        invalidate(&mut bad);
        assert!(!holds(&bad, 1, 7), "the invalidated first byte");
        let mut tail = buf.clone();
        tail[3_899] ^= 1;
        assert!(!holds(&tail, 1, 7), "a trailing byte");
    }
}
