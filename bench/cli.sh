#!/usr/bin/env bash
# bench/cli.sh: `fsbattery run` (the CLI users run, with --set overrides) against fio and dd
# on a file on the machine's disk. Rounds interleave the tools (order alternating per round);
# each case prints the median of each tool, the median of the per-round ratios, every ratio,
# and fsbattery's achieved queue depth (the record's randomio queue_depth metric).
#
#   RUNS=3 SECS=3 bash bench/cli.sh          # defaults; FSBATTERY=path/to/fsbattery
#   CASES="seq buffered" DEPTHS=32 THREADS=1 SIZE_MB=512 DIR=/var/tmp/x bash bench/cli.sh
#
# Cases: 4 KiB random reads, io_uring, O_DIRECT, depths $DEPTHS x threads $THREADS (randomio
# vs fio --numjobs --thread); for information, depth 32 with randomio.uring.batch=$BATCH (8)
# against the same fio; sequential 1 MiB O_DIRECT writes and reads at depth 8 (bonnie's
# block output/input vs fio --rw=write/read); buffered 1 MiB writes (dd workload vs dd).
# Files live in $DIR (default under /var/tmp: the root filesystem's device, not tmpfs) and
# are removed on exit, interrupted or not.
set -euo pipefail

RUNS=${RUNS:-3}
SECS=${SECS:-3}
SIZE_MB=${SIZE_MB:-512}
DEPTHS=${DEPTHS:-"1 8 32 128"}
THREADS=${THREADS:-"1 4"}
FSB=${FSBATTERY:-$(cd "$(dirname "$0")/.." && pwd)/target/release/fsbattery}
DIR=${DIR:-/var/tmp/fsbattery-cli-bench.$$}
CASES=${CASES:-"randread batch seq buffered"}
BATCH=${BATCH:-8}

for tool in fio dd jq "$FSB"; do
    command -v "$tool" >/dev/null || { echo "cli.sh: $tool not found (build with cargo build --release -p fsbattery; apt-get install fio jq)" >&2; exit 5; }
done
mkdir -p "$DIR/fsb"
trap 'rm -rf "$DIR"' EXIT
SIZE=$((SIZE_MB << 20))

# fsbattery WORKLOAD METRIC [--set ...]: one repeat on $DIR/fsb; prints the metric's value and,
# when recorded, the queue depth.
fsb() {
    local wl=$1 metric=$2
    shift 2
    "$FSB" run -q --format json --target "dir:$DIR/fsb" --workdir "$DIR/work" --out "$DIR/out" \
        --workload "$wl" --repeat 1 "$@" 2>"$DIR/fsb.err" |
        jq -r --arg m "$metric" '[.cells[] | select(.metric == $m or .metric == "queue_depth")
            | {(.metric): .samples[0].value}] | add | "\(.[$m]) \(.queue_depth // "-")"' ||
        true
    grep -i "fail\|error" "$DIR/fsb.err" >&2 || true
    rm -rf "$DIR/out" "$DIR/fsb"/* "$DIR/fsb.err"
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
randread() {
    local d=$1 t=$2 b=${3:-} f r label
    local set=(--set randomio.threads="$t" --set randomio.write_pct=0 --set randomio.sync_pct=0
        --set randomio.request=4096 --set randomio.size="$SIZE" --set randomio.runtime="$SECS"
        --set randomio.direct=1 --set randomio.engine=io_uring --set randomio.depth="$d")
    [[ -n $b ]] && set+=(--set randomio.uring.batch="$b")
    pair 'f=$(fsb randomio iops "${set[@]}")' \
        'r=$(RATE=iops fio_rate --rw=randread --bs=4k --iodepth="$d" --numjobs="$t" \
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

buffered() {
    local f r
    pair 'f=$(fsb dd write --set dd.size="$SIZE" --set dd.block=1048576 --set dd.direct=0 \
        --set dd.engine=sync)' 'r=$(dd_rate)'
    add "buffered write 1M vs dd, MB/s" "${f% *}" "$r" -
}

for ROUND in $(seq 1 "$RUNS"); do
    echo "round $ROUND/$RUNS" >&2
    for case in $CASES; do
        case $case in
            randread) for d in $DEPTHS; do for t in $THREADS; do randread "$d" "$t"; done; done ;;
            batch) randread 32 1 "$BATCH" ;;
            seq) seqio ;;
            buffered) buffered ;;
            *) echo "cli.sh: unknown case $case (randread, batch, seq, buffered)" >&2; exit 2 ;;
        esac
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-36s %12s %12s %8s  %s  %s\n' case fsbattery reference ratio "per-round ratios" "queue depth"
while IFS= read -r k; do
    read -ra fa <<<"${A[$k]}"
    read -ra ba <<<"${B[$k]}"
    ratios=""
    for i in "${!fa[@]}"; do
        ratios+=$(awk -v a="${fa[$i]}" -v b="${ba[$i]}" 'BEGIN { printf "%.3f ", (b > 0) ? a / b : 0 }')
    done
    depth=$(echo "${Q[$k]}" | tr ' ' '\n' | awk '/^[0-9.]+$/ { printf "%.1f ", $1 }')
    printf '%-36s %12.1f %12.1f %8.3f  %s %s\n' "$k" "$(echo "${A[$k]}" | median)" \
        "$(echo "${B[$k]}" | median)" "$(echo "$ratios" | median)" "[${ratios% }]" "${depth:+[${depth% }]}"
done < <(printf '%s\n' "${!A[@]}" | sort -V)
echo "fio: $(fio --version); kernel: $(uname -r); $(date -u '+%F %H:%M UTC')"
