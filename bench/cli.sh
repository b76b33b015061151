#!/usr/bin/env bash
# bench/cli.sh: `fsbattery run` (the CLI users run, with --set overrides) against fio, dd and a
# bare C metadata loop. Rounds interleave the tools (order alternating per round); each case
# prints the median of each tool, the median of the per-round ratios, every ratio, and
# fsbattery's achieved queue depth (the record's randomio queue_depth metric).
#
#   RUNS=3 SECS=3 bash bench/cli.sh          # defaults (~13 min); FSBATTERY=path/to/fsbattery
#   CASES="seq buffered" DEPTHS=32 THREADS=1 SIZE_MB=512 DIR=/var/tmp/x bash bench/cli.sh
#
# Cases (CASES):
# - randread: 4 KiB random reads, io_uring, O_DIRECT, depths $DEPTHS x threads $THREADS
#   (randomio vs fio --numjobs --thread), on $DIR (the machine's disk);
# - batch: for information, depth 32 x $BATCH_THREADS threads with randomio.uring.batch=$BATCH
#   (1: the old default);
# - seq: sequential 1 MiB O_DIRECT writes and reads at depth 8 (bonnie vs fio);
# - buffered: buffered 1 MiB writes (dd workload vs dd);
# - threads (root): $MT threads of 4 KiB random reads, sync engine, buffered: randomio vs fio
#   psync --numjobs --thread, and ffsb's read profile vs fio over the same files per thread,
#   on a private tmpfs and on an ext4 loop image;
# - meta (root): metadata with $FILES files vs bench/meta_floor.c (create, find, remove; both
#   warm), on the same tmpfs and ext4 image;
# - personality (root, needs filebench: FILEBENCH=path, see docs/src/performance.md): fileserver,
#   varmail and webserver ($PERSONALITIES) vs filebench running its own shipped .f files with
#   $PFILES entries and $PSECS s, every other parameter (threads, sizes, widths) read from
#   those files and passed to fsbattery; ops/s (every flowop), on the same tmpfs and ext4 image.
# Files live in $DIR (default under /var/tmp: the root filesystem's device, not tmpfs); the
# tmpfs, the loop device, its image and $DIR are removed on exit, interrupted or not.
set -euo pipefail

RUNS=${RUNS:-3}
SECS=${SECS:-3}
SIZE_MB=${SIZE_MB:-512}
DEPTHS=${DEPTHS:-"1 8 32 128"}
THREADS=${THREADS:-"1 4"}
FSB=${FSBATTERY:-$(cd "$(dirname "$0")/.." && pwd)/target/release/fsbattery}
DIR=${DIR:-/var/tmp/fsbattery-cli-bench.$$}
CASES=${CASES:-"randread batch seq buffered threads meta personality"}
BATCH=${BATCH:-1}
BATCH_THREADS=${BATCH_THREADS:-"1 4"}
MT=${MT:-10}
FILES=${FILES:-100000}
PERSONALITIES=${PERSONALITIES:-"fileserver varmail webserver"}
PFILES=${PFILES:-10000}
PSECS=${PSECS:-5}
FILEBENCH=${FILEBENCH:-$(command -v filebench || true)}
# filebench's shipped workload files: installed beside its binary (PREFIX/share/filebench).
FB_WORKLOADS=${FB_WORKLOADS:-$(dirname "$(dirname "${FILEBENCH:-/x/x}")")/share/filebench/workloads}

for tool in fio dd jq "$FSB"; do
    command -v "$tool" >/dev/null || { echo "cli.sh: $tool not found (build with cargo build --release -p fsbattery; apt-get install fio jq)" >&2; exit 5; }
done
mkdir -p "$DIR/fsb"
LOOPDEV=
cleanup() {
    # A tool still running (the script was signalled, its child not) keeps a mount busy:
    # retry for up to a minute while it finishes.
    local m i
    for m in "$DIR/ext4" "$DIR/tmpfs"; do
        for i in $(seq 60); do
            mountpoint -q "$m" || break
            umount "$m" 2>/dev/null || sleep 1
        done
    done
    [[ -n $LOOPDEV ]] && losetup -d "$LOOPDEV"
    rm -rf "$DIR"
}
trap cleanup EXIT
SIZE=$((SIZE_MB << 20))

# The filesystems of the threads and meta cases: a private tmpfs and an ext4 loop image
# (sparse, 4 GiB, inodes for $FILES files), both under $DIR. Root only.
if [[ " $CASES " == *" personality "* && ! -x $FILEBENCH ]]; then
    echo "cli.sh: filebench not found (set FILEBENCH=path; building it: docs/src/performance.md); skipping the personality case" >&2
    CASES=$(echo " $CASES " | sed 's/ personality / /')
fi
if [[ " $CASES " == *" threads "* || " $CASES " == *" meta "* || " $CASES " == *" personality "* ]]; then
    if ((EUID != 0)); then
        echo "cli.sh: the threads, meta and personality cases need root (mount, losetup); skipping them" >&2
        CASES=$(echo " $CASES " | sed 's/ threads / /; s/ meta / /; s/ personality / /')
    else
        mkdir -p "$DIR/tmpfs" "$DIR/ext4"
        mount -t tmpfs -o size=4g fsbattery-bench "$DIR/tmpfs"
        truncate -s 4G "$DIR/ext4.img"
        mkfs.ext4 -q -F -N $((FILES + 50000)) "$DIR/ext4.img"
        LOOPDEV=$(losetup --find --show "$DIR/ext4.img")
        mount "$LOOPDEV" "$DIR/ext4"
        gcc -O2 -o "$DIR/meta_floor" "$(dirname "$0")/meta_floor.c"
    fi
fi

# fsbattery WORKLOAD METRIC [--set ...]: one repeat on $TGT (default $DIR/fsb); prints the
# metric's value and, when recorded, the queue depth. METRIC may be several, comma-separated:
# then their values are printed in that order. No --suite: the workloads run native (S1's
# one touch/mkdir process per file would measure process spawning against the C floor).
# Before no-suite runs had neutral settings they inherited S1's `cache none` (sync only);
# cases that give no --cache of their own keep it explicitly, so their numbers
# stay comparable with docs/src/performance.md's.
fsb() {
    local wl=$1 metric=$2 tgt=${TGT:-$DIR/fsb} cache=()
    shift 2
    [[ " $* " == *" --cache "* ]] || cache=(--cache none)
    "$FSB" run -q --no-store --format json --target "dir:$tgt" --workdir "$DIR/work" --out "$DIR/out" \
        --workload "$wl" --repeat 1 --method native "${cache[@]}" "$@" 2>"$DIR/fsb.err" |
        jq -r --arg m "$metric" '.host.tool_ceiling.read_4k_ops_per_s as $c
            | ([.cells[] | {(.metric): .samples[0].value}] | add + {ceiling: $c}) as $v
            | [($m | split(",")[] | $v[.]), ($v.queue_depth // "-")] | map(tostring) | join(" ")' ||
        true
    grep -i "fail\|error" "$DIR/fsb.err" >&2 || true
    rm -rf "$DIR/out" "${tgt:?}"/* "$DIR/fsb.err"
}

# fio ARGS...: the first job group's read or write rate (IOPS for randread, else MB/s).
fio_rate() {
    fio --name=b --filename="$DIR/fio.dat" --size="$SIZE" --ioengine=io_uring --direct=1 \
        --thread --group_reporting --output-format=json "$@" |
        jq -r '.jobs[0] | if .read.io_bytes > 0 then .read else .write end
            | if $ENV.RATE == "iops" then .iops else .bw_bytes / 1e6 end'
}

# dd of SIZE zeros in 1 MiB blocks, buffered: MB/s from dd's own byte count and seconds.
dd_rate() {
    LC_ALL=C dd if=/dev/zero of="$DIR/dd.dat" bs=1M count="$SIZE_MB" 2>&1 |
        awk '/copied/ { printf "%.1f\n", $1 / $(NF-3) / 1e6 }'
    # Out of the clock: the next tool must not pay for this one's writeback.
    sync
    rm -f "$DIR/dd.dat"
}

declare -A A B Q   # case -> space-separated per-round fsbattery, reference, queue depth
add() { A[$1]+="$2 "; B[$1]+="$3 "; Q[$1]+="$4 "; }

# Run "$1" and "$2" (commands setting f and r) in an order that alternates with the round, so
# neither tool always runs on the other's leftovers (writeback, device cache).
pair() {
    if ((ROUND % 2)); then eval "$1"; eval "$2"; else eval "$2"; eval "$1"; fi
}

# randread DEPTH THREADS [BATCH]: randomio (with randomio.uring.batch=BATCH if given) vs fio.
# Each lays out a new file before it reads: randomio does in every run, so fio does too (the
# same conditions; measured at depth 32, fio on its kept file / on a new one: 0.93-1.04,
# median 0.98 in five rounds, so neither way favoured fio).
randread() {
    local d=$1 t=$2 b=${3:-} f r label
    local set=(--set randomio.threads="$t" --set randomio.write_pct=0 --set randomio.sync_pct=0
        --set randomio.request=4096 --set randomio.size="$SIZE" --set randomio.runtime="$SECS"
        --set randomio.direct=1 --set randomio.engine=io_uring --set randomio.depth="$d")
    [[ -n $b ]] && set+=(--set randomio.uring.batch="$b")
    pair 'f=$(fsb randomio iops "${set[@]}")' \
        'rm -f "$DIR/fio.dat"; r=$(RATE=iops fio_rate --rw=randread --bs=4k --iodepth="$d" --numjobs="$t" \
            --norandommap --randrepeat=0 --time_based --runtime="$SECS")'
    label="randread 4k qd$d x$t thr${b:+ batch $b (info)}, IOPS"
    add "$label" "${f% *}" "$r" "${f#* }"
}

seqio() {
    local f w r
    local set=(--set bonnie.size="$SIZE" --set bonnie.chunk=1048576 --set bonnie.direct=1
        --set bonnie.engine=io_uring --set bonnie.depth=8 --set bonnie.fsync=0
        --set bonnie.files=0 --set bonnie.seeks=1 --set bonnie.seekers=1)
    # fio writes a new file from offset 0, as bonnie does (allocating writes, no preallocation).
    pair 'f=$(fsb bonnie seq_write "${set[@]}")' \
        'rm -f "$DIR/fio.dat"; w=$(RATE=mb fio_rate --rw=write --bs=1M --iodepth=8 --fallocate=none)'
    add "seq write 1M O_DIRECT qd8, MB/s" "${f% *}" "$w" -
    pair 'f=$(fsb bonnie seq_read "${set[@]}")' 'r=$(RATE=mb fio_rate --rw=read --bs=1M --iodepth=8)'
    add "seq read 1M O_DIRECT qd8, MB/s" "${f% *}" "$r" -
}

# buffered: dd's buffered write vs dd. Each tool starts 3 s after the last file was freed:
# this guest reports free memory to its host 2 s after it is freed (virtio-balloon free page
# reporting), and the first touch of reported pages faults on the host. Measured with dd
# alone, 512 MiB right after the previous 512 MiB were freed: 4.7-5.7 GB/s; 5 s later:
# 2.0-2.4 GB/s. Without the wait, whichever tool ran second (right after the other's delete)
# won by 3-7 x (docs/src/performance.md).
buffered() {
    local f r
    pair 'sleep 3; f=$(fsb dd write --set dd.size="$SIZE" --set dd.block=1048576 --set dd.direct=0 \
        --set dd.engine=sync)' 'sleep 3; r=$(dd_rate)'
    add "buffered write 1M vs dd, MB/s" "${f% *}" "$r" -
}

# threads FS: $MT threads of 4 KiB random buffered, cached reads on $DIR/FS (tmpfs or ext4): randomio
# vs fio psync jobs on one file; ffsb's read profile (files of 2 MiB, 6 per thread) vs fio
# jobs with 6 files of their own each, a random file per request.
threads() {
    local fs=$1 f r g h t=$DIR/$1
    local set=(--set randomio.threads="$MT" --set randomio.write_pct=0 --set randomio.sync_pct=0
        --set randomio.request=4096 --set randomio.size=256MiB --set randomio.runtime="$SECS"
        --set randomio.direct=0 --set randomio.engine=sync --cache warm)
    # Both warm: the files are read in (fsbattery --cache warm) or left cached by their layout
    # (fio --invalidate=0). Cold would compare drop_caches (which also empties the loop
    # image's own cache) with fio's fadvise (which does not).
    local fio_common=(--ioengine=psync --rw=randread --bs=4k --numjobs="$MT" --thread --invalidate=0
        --group_reporting --norandommap --randrepeat=0 --time_based --runtime="$SECS"
        --output-format=json)
    pair 'f=$(TGT=$t/fsb fsb randomio iops,ceiling "${set[@]}")' \
        'r=$(fio --name=b --filename="$t/fio.dat" --size=256M "${fio_common[@]}" |
            jq -r ".jobs[0].read.iops"); rm -f "$t/fio.dat"'
    read -r f c _ <<<"$f"
    add "randread 4k sync x$MT thr $fs, IOPS" "$f" "$r" -
    # The data behind the report's thread-scaled ceiling: the same run's rate over the run's
    # own one-thread ceiling (the record's host.tool_ceiling.read_4k_ops_per_s).
    [[ $fs == tmpfs ]] && add "info: randread x$MT tmpfs / 1-thread ceiling" "$f" "$c" -
    local ff=(--set ffsb.threads="$MT" --set ffsb.files=$((6 * MT)) --set ffsb.file_size=2MiB
        --set ffsb.runtime="$SECS" --set ffsb.block=4096 --set ffsb.direct=off --set ffsb.engine=sync
        --cache warm)
    pair 'g=$(TGT=$t/fsb fsb ffsb read_iops "${ff[@]}")' \
        'mkdir -p "$t/ffio"; h=$(fio --name=b --directory="$t/ffio" --nrfiles=6 --filesize=2M \
            --size=12M --file_service_type=random "${fio_common[@]}" | jq -r ".jobs[0].read.iops");
            rm -rf "$t/ffio"'
    add "ffsb read 4k x$MT thr $fs, IOPS" "${g% *}" "$h" -
}

# meta FS: metadata with $FILES files vs meta_floor; files per second per phase. Both warm
# (fsbattery --cache warm, meta_floor syncs before each phase): the C floor is a floor for the
# tool's own cost, and cold phases on the loop image (drop_caches, then 100,000 inodes read
# back from the shared disk, for the directory half of the workload too) took minutes per
# round here while measuring the disk, not the tool.
meta() {
    local fs=$1 f r t=$DIR/$1
    pair 'f=$(TGT=$t/fsb fsb metadata touch_files,find_files,remove_files \
            --set metadata.files="$FILES" --cache warm)' \
        'r=$("$DIR/meta_floor" "$t/floor" "$FILES" | tr "=" " " | awk "{print \$2, \$4, \$6}")'
    read -r ft ff fr _ <<<"$f"
    read -r rt rf rr <<<"$r"
    local i=0 ph
    for ph in create find remove; do
        local a=(${ft:-0} ${ff:-0} ${fr:-0}) b=(${rt:-0} ${rf:-0} ${rr:-0})
        add "meta $ph $FILES files $fs, files/s" "$(awk -v n="$FILES" -v s="${a[$i]}" \
            'BEGIN { printf "%.1f", (s > 0) ? n / s : 0 }')" "$(awk -v n="$FILES" -v s="${b[$i]}" \
            'BEGIN { printf "%.1f", (s > 0) ? n / s : 0 }')" -
        i=$((i + 1))
    done
}

# personality FS: each of $PERSONALITIES, fsbattery vs filebench on $DIR/FS, ops/s (both count
# every flowop: opens, closes, stats, fsyncs too). filebench runs its own shipped workload file
# with $dir, $nfiles and the run time replaced; fsbattery gets that file's thread count, mean
# size, directory width and append size. Both start warm (filebench times its flow right
# after creating the set, with no flush; fsbattery --cache warm). filebench runs under
# `setarch -R`: it maps its shared memory at a fixed address, and its own attempt to turn off
# address space randomisation (aslr.c: personality(0xffffffff | ADDR_NO_RANDOMIZE)) only
# queries the persona, so with randomisation on it hangs at start (measured here: 34 min at
# 179 % CPU; filebench issue #60).
personality() {
    local fs=$1 p f r t=$DIR/$1 fdef th mean width app io
    for p in $PERSONALITIES; do
        fdef=$FB_WORKLOADS/$p.f
        # The .f file's own values: "set $name=value" (the size: the cvar's "mean:N").
        th=$(sed -n 's/^set \$nthreads=//p' "$fdef")
        mean=$(sed -n 's/^set \$filesize=.*mean:\([0-9]*\).*/\1/p' "$fdef")
        width=$(sed -n 's/^set \$meandirwidth=//p' "$fdef")
        app=$(sed -n 's/^set \$meanappendsize=//p' "$fdef")
        io=$(sed -n 's/^set \$iosize=//p' "$fdef")
        sed -e "s|^set \$dir=.*|set \$dir=$t/fb|" -e "s|^set \$nfiles=.*|set \$nfiles=$PFILES|" \
            -e "s|^run .*|run $PSECS|" "$fdef" >"$DIR/$p.f"
        pair 'f=$(TGT=$t/fsb fsb "$p" ops --set "$p.files=$PFILES" --set "$p.threads=$th" \
                --set "$p.mean_size=$mean" --set "$p.dirwidth=$width" --set "$p.append_size=$app" \
                --set "$p.io_size=$io" --set "$p.runtime=$PSECS" --cache warm)' \
            'mkdir -p "$t/fb"; setarch "$(uname -m)" -R "$FILEBENCH" -f "$DIR/$p.f" >"$DIR/fb.out" 2>&1 || true
            r=$(awk "/IO Summary:/ { print \$6 }" "$DIR/fb.out"); rm -rf "$t/fb"'
        # filebench ends a run early when a flowop finds no free entry (too few files for the
        # threads): its rate would be of a shorter, different run, so the round counts as 0.
        if grep -q "stopped early" "$DIR/fb.out"; then
            echo "cli.sh: filebench $p on $fs stopped early (raise PFILES): $(grep -A1 'stopped early' "$DIR/fb.out" | tail -1 | xargs)" >&2
            r=0
        fi
        add "$p $PFILES files x$th thr $fs, ops/s" "${f% *}" "${r:-0}" -
    done
}

trap 'exit 130' INT TERM
for ROUND in $(seq 1 "$RUNS"); do
    for case in $CASES; do
        echo "round $ROUND/$RUNS: $case ($(date -u +%T))" >&2
        case $case in
            randread) for d in $DEPTHS; do for t in $THREADS; do randread "$d" "$t"; done; done ;;
            batch) for t in $BATCH_THREADS; do randread 32 "$t" "$BATCH"; done ;;
            seq) seqio ;;
            buffered) buffered ;;
            threads) mkdir -p "$DIR"/{tmpfs,ext4}/fsb; threads tmpfs; threads ext4 ;;
            meta) mkdir -p "$DIR"/{tmpfs,ext4}/fsb; meta tmpfs; meta ext4 ;;
            personality) mkdir -p "$DIR"/{tmpfs,ext4}/fsb; personality tmpfs; personality ext4 ;;
            *) echo "cli.sh: unknown case $case (randread, batch, seq, buffered, threads, meta, personality)" >&2; exit 2 ;;
        esac
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-44s %12s %12s %8s  %s  %s\n' case fsbattery reference ratio "per-round ratios" "queue depth"
while IFS= read -r k; do
    read -ra fa <<<"${A[$k]}"
    read -ra ba <<<"${B[$k]}"
    ratios=""
    for i in "${!fa[@]}"; do
        ratios+=$(awk -v a="${fa[$i]}" -v b="${ba[$i]}" 'BEGIN { printf "%.3f ", (b > 0) ? a / b : 0 }')
    done
    depth=$(echo "${Q[$k]}" | tr ' ' '\n' | awk '/^[0-9.]+$/ { printf "%.1f ", $1 }')
    printf '%-44s %12.1f %12.1f %8.3f  %s %s\n' "$k" "$(echo "${A[$k]}" | median)" \
        "$(echo "${B[$k]}" | median)" "$(echo "$ratios" | median)" "[${ratios% }]" "${depth:+[${depth% }]}"
done < <(printf '%s\n' "${!A[@]}" | sort -V)
[[ -x $FILEBENCH ]] && echo "filebench: $("$FILEBENCH" -h 2>&1 | sed -n 's/^ *Filebench version //p' | head -1) ($FILEBENCH)"
echo "fio: $(fio --version); kernel: $(uname -r); $(date -u '+%F %H:%M UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
