#!/usr/bin/env bash
# bench/engine.sh: fsbattery's IO engine against fio, dd and a bare C pread loop, on tmpfs.
#
#   (a) 4 KiB random reads of a cached 1 GiB file, 1 thread, sync engine, latency on:
#       fsbattery vs fio --ioengine=psync vs bench/pread_loop.c
#   (b) the same with io_uring at queue depth 32: fsbattery (defaults: uring.batch 1,
#       registered buffers and file) vs fio --ioengine=io_uring --iodepth=32 (defaults)
#   (b'') informational: both sides reaping 8 completions per wait
#   (d) informational: (b) on a cached file in /tmp's filesystem (ext4 on the reference
#       machine), where buffered reads complete inline instead of in an io-wq thread
#   (c) sequential 1 MiB writes of zeros to a new file: fsbattery vs dd if=/dev/zero bs=1M
#
# Every measurement runs RUNS times (tools interleaved within a round, so drift hits all
# alike); the median counts. Needs root to mount its private tmpfs (falls back to /dev/shm),
# gcc, and fio (installed with apt-get when missing and root).
#
# usage: bench/engine.sh            env: RUNS=5 SECS=3 WRITE_MIB=2048 CARGO_TARGET_DIR=...
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
SECS=${SECS:-3}
WRITE_MIB=${WRITE_MIB:-2048}
FILE_BYTES=$((1 << 30))
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BENCH=$TARGET/release/examples/engine_bench

WORK=$(mktemp -d /tmp/fsbattery-bench.XXXXXX)
MNT=$WORK/mnt
MOUNTED=0
cleanup() {
    rm -f "$MNT"/* 2>/dev/null || true
    if [ "$MOUNTED" = 1 ]; then umount "$MNT" || echo "warning: could not unmount $MNT" >&2; fi
    if [ -n "${SHM_DIR:-}" ]; then rm -rf "$SHM_DIR"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

need_fio() {
    command -v fio >/dev/null && return
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "fio missing: installing it with apt-get" >&2
        apt-get update -qq && apt-get install -y -qq fio >/dev/null
    else
        echo "fio not found: install it (apt-get install fio)" >&2
        exit 1
    fi
}

setup() {
    need_fio
    echo "building engine_bench (release) into $TARGET" >&2
    (cd "$ROOT" && CARGO_TARGET_DIR=$TARGET cargo build --release -q -p fsbattery-engine \
        --example engine_bench)
    gcc -O2 -o "$WORK/pread_loop" "$ROOT/bench/pread_loop.c"
    mkdir -p "$MNT"
    if mount -t tmpfs -o size=4g fsbattery-bench "$MNT" 2>/dev/null; then
        MOUNTED=1
    else
        SHM_DIR=/dev/shm/fsbattery-bench.$$
        mkdir -p "$SHM_DIR"
        rmdir "$MNT"
        MNT=$SHM_DIR
        echo "could not mount tmpfs (not root?): using $MNT" >&2
    fi
}

# Wait (at most 60 s) until the CPUs were >= 90 % idle for a second: on a shared machine a
# compile next door would otherwise land in one tool's run and not another's.
quiet() {
    local a b tot idle i
    for _ in $(seq 60); do
        read -ra a < /proc/stat; sleep 1; read -ra b < /proc/stat
        tot=0; for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
        idle=$((b[4] - a[4]))
        [ $((idle * 100 / (tot > 0 ? tot : 1))) -ge 90 ] && return 0
    done
    echo "warning: machine still busy, measuring anyway" >&2
}

# First "iops" / "elapsed" number of a JSON document (engine_bench or fio) on stdin.
json_num() { grep -o "\"$1\" *: *[0-9.e+-]*" | head -1 | sed 's/.*: *//'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }

fsb() { "$BENCH" --file "$MNT/read.dat" --size 1G --bs 4k --pattern rand --mode existing \
    --runtime "$SECS" "$@"; }
fio_rand() {
    fio --name=randread --filename="$MNT/read.dat" --rw=randread --bs=4k --size=1G \
        --runtime="$SECS" --time_based --norandommap --randrepeat=0 --invalidate=0 \
        --output-format=json "$@" 2>/dev/null | json_num iops
}

declare -A R
add() { R[$1]="${R[$1]:-} $2"; }
med() { echo "${R[$1]}" | tr ' ' '\n' | grep . | median; }

measure_reads() {
    "$BENCH" --file "$MNT/read.dat" --size 1G --bs 1M --write 1 --mode truncate \
        --fill random >/dev/null
    local c_ops=$((600000 * SECS))
    for run in $(seq "$RUNS"); do
        echo "round $run/$RUNS: random reads" >&2
        local j
        quiet; j=$(fsb --engine sync)
        add a_fsb "$(echo "$j" | json_num iops)"
        add a_p50 "$(echo "$j" | json_num p50_ns)"
        add a_p99 "$(echo "$j" | json_num p99_ns)"
        quiet; add a_fio "$(fio_rand --ioengine=psync)"
        quiet; add a_c "$("$WORK/pread_loop" "$MNT/read.dat" "$FILE_BYTES" 4096 "$c_ops" \
            | sed 's/iops=\([0-9]*\).*/\1/')"
        quiet; j=$(fsb --engine io_uring --depth 32)
        add b_fsb "$(echo "$j" | json_num iops)"
        add b_p50 "$(echo "$j" | json_num p50_ns)"
        add b_p99 "$(echo "$j" | json_num p99_ns)"
        quiet; add b_fio "$(fio_rand --ioengine=io_uring --iodepth=32)"
        # Informational: both sides batching completions by 8.
        quiet; add b_fsb8 "$(fsb --engine io_uring --depth 32 --batch 8 | json_num iops)"
        quiet; add b_fio8 "$(fio_rand --ioengine=io_uring --iodepth=32 \
            --iodepth_batch_complete_min=8)"
    done
    rm -f "$MNT/read.dat"
}

measure_writes() {
    local out="$MNT/write.dat"
    for run in $(seq "$RUNS"); do
        echo "round $run/$RUNS: sequential writes" >&2
        rm -f "$out"
        local j
        quiet
        j=$("$BENCH" --file "$out" --size "${WRITE_MIB}M" --bs 1M --write 1 --mode truncate \
            --fill zeros)
        add c_fsb "$(echo "$j" | json_num mib_per_s)"
        rm -f "$out"
        quiet
        # dd's last line: "N bytes (...) copied, T s, R unit/s"
        local secs
        secs=$(dd if=/dev/zero of="$out" bs=1M count="$WRITE_MIB" 2>&1 | tail -1 \
            | sed 's/.*copied, \([0-9.e+-]*\) s.*/\1/')
        add c_dd "$(awk -v m="$WRITE_MIB" -v s="$secs" 'BEGIN {printf "%.1f", m / s}')"
    done
    rm -f "$out"
}

# Median over rounds of the per-round ratio $1/$2 (both measured minutes apart at most, so
# drift on a shared machine cancels better than in a ratio of medians).
paired() {
    paste -d' ' <(echo "${R[$1]}" | tr ' ' '\n' | grep .) <(echo "${R[$2]}" | tr ' ' '\n' | grep .) \
        | awk '$2 > 0 {print $1 / $2}' | median | xargs printf '%.2f'
}

row() { # label fsb-key baseline-label baseline-key target
    local f b
    f=$(med "$2") b=$(med "$4")
    printf '| %s | %.0f | %s | %.0f | %s | %s | %s |\n' "$1" "$f" "$3" "$b" \
        "$(ratio "$f" "$b")" "$(paired "$2" "$4")" "$5"
}

report() {
    echo
    echo "fsbattery IO engine bench: $(date -u +%F), kernel $(uname -r), $(nproc) cores," \
        "median of $RUNS runs of ${SECS}s"
    echo
    echo "| test | fsbattery | baseline | baseline value | ratio of medians | median of per-round ratios | target |"
    echo "|---|---|---|---|---|---|---|"
    row "(a) 4k randread sync, IOPS" a_fsb "fio psync" a_fio ">= 1.30"
    row "(a) 4k randread sync, IOPS" a_fsb "C pread loop" a_c ">= 0.85"
    row "(b) 4k randread io_uring qd32, IOPS" b_fsb "fio io_uring qd32" b_fio ">= 1.10"
    row "(c) 1M seq write zeros, MiB/s" c_fsb "dd bs=1M" c_dd ">= 0.95"
    row "(b'') io_uring qd32 batch 8, IOPS" b_fsb8 "fio --iodepth_batch_complete_min=8" b_fio8 "info"
    row "(d) io_uring qd32, cached $DISK_FS file, IOPS" d_fsb "fio io_uring qd32" d_fio "info"
    echo
    echo "fsbattery latency (medians over runs): sync p50 $(med a_p50) ns, p99 $(med a_p99) ns;" \
        "io_uring qd32 p50 $(med b_p50) ns, p99 $(med b_p99) ns"
    echo "raw runs:"
    for k in a_fsb a_fio a_c b_fsb b_fio b_fsb8 b_fio8 c_fsb c_dd d_fsb d_fio; do
        echo "  $k:${R[$k]}"
    done
}

# (d): the same io_uring comparison where the kernel completes cached reads inline.
measure_disk() {
    local f="$WORK/disk.dat"
    DISK_FS=$(findmnt -n -o FSTYPE -T "$WORK" 2>/dev/null || stat -f -c %T "$WORK")
    "$BENCH" --file "$f" --size 1G --bs 1M --write 1 --mode truncate --fill random >/dev/null
    cat "$f" >/dev/null
    for run in $(seq "$RUNS"); do
        echo "round $run/$RUNS: io_uring on $DISK_FS" >&2
        quiet; add d_fsb "$("$BENCH" --file "$f" --size 1G --bs 4k --pattern rand \
            --mode existing --runtime "$SECS" --engine io_uring --depth 32 | json_num iops)"
        quiet; add d_fio "$(fio --name=randread --filename="$f" --rw=randread --bs=4k \
            --size=1G --runtime="$SECS" --time_based --norandommap --randrepeat=0 \
            --invalidate=0 --output-format=json --ioengine=io_uring --iodepth=32 \
            2>/dev/null | json_num iops)"
    done
    rm -f "$f"
}

setup
measure_reads
measure_writes
measure_disk
report
