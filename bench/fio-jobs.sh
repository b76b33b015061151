#!/usr/bin/env bash
# bench/fio-jobs.sh: `fsbattery run --workload fio:FILE` against fio itself on the same job
# files, on one ext4 loop filesystem: fio's own examples/ within the covered options (the
# random and sequential read/write/RW jobs, tiobench-example) with size and runtime lowered
# by `--set fio.…` / fio's command line, plus the shipped database-like (suites/fio/oltp.fio),
# WAL (wal.fio) and VM-image (vm-image.fio) jobs. Rounds alternate the order of the two tools;
# per job and metric it prints fio's and fsbattery's medians and the median of the per-round
# ratios (fsbattery / fio), the figure the CI test (crates/fsbattery-core/tests/
# agreement_fio_jobs.rs) holds to ±10 % for three jobs.
#
#   sudo RUNS=5 SIZE=256m SECS=5 bash bench/fio-jobs.sh      # FSBATTERY=path/to/fsbattery
#   sudo JOBS="fio-rand-RW tiobench-example" FIO_SRC=/path/to/fio bash bench/fio-jobs.sh
#
# Needs root (loop device, mkfs.ext4), fio, python3, and fio's examples/ (FIO_SRC, a fio source
# checkout; default: fetched from GitHub into a temp dir). Everything it makes (mount, loop
# device, image, temp dirs) is removed on exit, interrupted or not.
set -euo pipefail

RUNS=${RUNS:-5}
SIZE=${SIZE:-256m}
SECS=${SECS:-5}
FSBATTERY=${FSBATTERY:-$(dirname "$0")/../target/release/fsbattery}
JOBS=${JOBS:-"fio-rand-read fio-rand-write fio-rand-RW fio-seq-read fio-seq-write fio-seq-RW tiobench-example oltp wal vm-image"}
here=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d /var/tmp/fsb-fio-jobs.XXXXXX)
loopdev=""
cleanup() {
    mountpoint -q "$work/mnt" 2>/dev/null && umount "$work/mnt"
    [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -z "${FIO_SRC:-}" ]; then
    git clone -q --depth 1 https://github.com/axboe/fio "$work/fio-src"
    FIO_SRC=$work/fio-src
fi

truncate -s 4G "$work/disk.img"
mkfs.ext4 -q "$work/disk.img"
loopdev=$(losetup --show -f --direct-io=on "$work/disk.img")
mkdir -p "$work/mnt" "$work/jobs" "$work/out"
mount "$loopdev" "$work/mnt"

# A job file as both tools run it: fio's examples name devices or big sizes; size and runtime
# are lowered the same way on both sides (fsbattery: --set fio.…; fio: appended to [global],
# which later sections still override, as --set does not: so the job sections are patched).
job_file() {
    local name=$1 src
    case $name in
        oltp|wal|vm-image) src=$here/suites/fio/$name.fio ;;
        *) src=$FIO_SRC/examples/$name.fio ;;
    esac
    sed -e "s/^size=.*/size=$SIZE/" -e "s/^filesize=.*/filesize=$SIZE/" \
        -e "s/^runtime=.*/runtime=$SECS/" -e "s/^timeout=.*/runtime=$SECS/" "$src" \
        > "$work/jobs/$name.fio"
}

# metric → value from fsbattery's results.json (the one repeat's sample).
ours() {
    local job=$1 out=$work/out/ours
    rm -rf "$out"
    "$FSBATTERY" run --target "dir:$work/mnt" --workload "fio:$work/jobs/$job.fio" \
        --repeat 1 --set "fio.size=$SIZE" --set "fio.runtime=$SECS" --out "$out" >/dev/null
    python3 - "$out/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    if c["workload"].startswith("fio:") and c.get("samples"):
        print(c["metric"], c["samples"][0]["value"])
EOF
}

# The same from fio's JSON, through fsbattery's importer (so the names are the same).
theirs() {
    local job=$1 out=$work/out/fio
    rm -rf "$out" "$work/mnt/ref"
    mkdir -p "$work/mnt/ref"
    fio --output-format=json --group_reporting --directory="$work/mnt/ref" \
        "$work/jobs/$job.fio" > "$work/out/fio.json"
    rm -rf "$work/mnt/ref"
    "$FSBATTERY" import --from fio --workload "fio:$job" --label fio --out "$out" \
        "$work/out/fio.json" >/dev/null
    python3 - "$out/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    if c.get("samples"):
        print(c["metric"], c["samples"][0]["value"])
EOF
}

for job in $JOBS; do
    job_file "$job"
    : > "$work/out/rounds"
    for round in $(seq 1 "$RUNS"); do
        sync
        if (( round % 2 )); then
            ours "$job" | sed 's/^/ours /' >> "$work/out/rounds"
            theirs "$job" | sed 's/^/fio /' >> "$work/out/rounds"
        else
            theirs "$job" | sed 's/^/fio /' >> "$work/out/rounds"
            ours "$job" | sed 's/^/ours /' >> "$work/out/rounds"
        fi
        echo "round $round" >> "$work/out/rounds"
    done
    echo "== $job ($RUNS rounds, size $SIZE, runtime $SECS s)"
    python3 - "$work/out/rounds" <<'EOF'
import statistics, sys
rounds, cur = [], {"ours": {}, "fio": {}}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "round":
        rounds.append(cur)
        cur = {"ours": {}, "fio": {}}
    else:
        cur[f[0]][f[1]] = float(f[2])
keys = [k for k in rounds[0]["fio"] if k in rounds[0]["ours"]]
wanted = ("iops", "_bw", "clat_p50", "sync_lat_p50")
for k in keys:
    if not any(k.endswith(w) for w in wanted):
        continue
    o = [r["ours"][k] for r in rounds if k in r["ours"]]
    t = [r["fio"][k] for r in rounds if k in r["fio"]]
    ratios = [a / b for a, b in zip(o, t) if b > 0]
    print(f"  {k:28} fio {statistics.median(t):12.4f}  fsbattery {statistics.median(o):12.4f}"
          f"  ratio {statistics.median(ratios):.3f}  ({' '.join(f'{x:.2f}' for x in ratios)})")
EOF
done
