#!/usr/bin/env bash
# bench/mpi.sh: what MPI coordination costs. The same work — metadata create (touch_files:
# FILES empty files per rank) and 1 MiB sequential writes (stream create: SIZE_MB per rank,
# 1 MiB write(2) calls) — done by N ranks under `mpirun -np N fsbattery run` against N
# independent fsbattery processes started together without MPI (same files in the same
# per-rank directories, same operations), on tmpfs, N = 1 and 2.
#
# The MPI figure is the cell fsbattery reports (the slowest rank's time: IOR's stonewall); the
# independent figure is the slowest process's time of the same phase. Rounds interleave the
# two (order alternating per round); per case it prints both medians, the median of the
# per-round ratios MPI / independent (1.05 = 5 % coordination cost) and every ratio.
#
#   RUNS=7 FILES=20000 SIZE_MB=512 bash bench/mpi.sh     # defaults; FSBATTERY=path/to/fsbattery
#
# Needs the binary built with `cargo build --release --features mpi -p fsbattery`, Open MPI's
# mpirun and jq. Files live in $DIR (default under /dev/shm) and are removed on exit.
set -euo pipefail

RUNS=${RUNS:-7}
FILES=${FILES:-20000}
SIZE_MB=${SIZE_MB:-512}
RANKS=${RANKS:-"1 2"}
FSB=${FSBATTERY:-$(cd "$(dirname "$0")/.." && pwd)/target/release/fsbattery}
DIR=${DIR:-/dev/shm/fsbattery-mpi-bench.$$}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

for tool in mpirun jq "$FSB"; do
    command -v "$tool" >/dev/null || { echo "mpi.sh: $tool not found (cargo build --release --features mpi -p fsbattery; apt-get install openmpi-bin jq)" >&2; exit 5; }
done
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT

# The common arguments of one run of CASE (metadata | stream) on target directory $1, out $2.
args() {
    local case=$1 target=$2 out=$3
    local common=(run -q --no-store --no-ceiling --cache warm --repeat 1 --target "dir:$target" --out "$out")
    case $case in
        metadata) echo "${common[@]} --workload metadata --set metadata.files=$FILES" ;;
        stream) echo "${common[@]} --workload stream --set stream.size=${SIZE_MB}MiB --set stream.block=1MiB" ;;
    esac
}

metric() { case $1 in metadata) echo touch_files ;; stream) echo create ;; esac; }

# value of CASE's metric in the record under $1
value() {
    jq -r --arg m "$(metric "$2")" '.cells[] | select(.metric == $m) | .samples[0].value' "$1/results.json"
}

# mpirun -np N: prints the reported cell (slowest rank).
with_mpi() {
    local case=$1 n=$2 d=$DIR/mpi
    rm -rf "$d" && mkdir -p "$d/t"
    # shellcheck disable=SC2046
    "${MPIRUN[@]}" -np "$n" "$FSB" $(args "$case" "$d/t" "$d/out") >/dev/null 2>"$d.err" || { cat "$d.err" >&2; exit 1; }
    value "$d/out" "$case"
}

# N processes without MPI, started together, each in rank-i as the ranks work: the slowest.
independent() {
    local case=$1 n=$2 d=$DIR/ind i pids=()
    rm -rf "$d" && mkdir -p "$d"
    for ((i = 0; i < n; i++)); do
        mkdir -p "$d/t/rank-$i"
        # shellcheck disable=SC2046
        "$FSB" $(args "$case" "$d/t/rank-$i" "$d/out-$i") >/dev/null 2>"$d.err.$i" &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || { cat "$d.err.$i" >&2; exit 1; }; done
    for ((i = 0; i < n; i++)); do value "$d/out-$i" "$case"; done | sort -g | tail -1
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, $(uname -r), $(mpirun --version | head -1), fsbattery $("$FSB" --version | awk '{print $2}')"
echo "# RUNS=$RUNS FILES=$FILES SIZE_MB=$SIZE_MB, tmpfs $DIR"
for case in metadata stream; do
    for n in $RANKS; do
        m=() s=() r=()
        for ((round = 0; round < RUNS; round++)); do
            if ((round % 2)); then a=$(independent "$case" "$n"); b=$(with_mpi "$case" "$n");
            else b=$(with_mpi "$case" "$n"); a=$(independent "$case" "$n"); fi
            m+=("$b") s+=("$a") r+=("$(awk -v b="$b" -v a="$a" 'BEGIN {printf "%.3f", b / a}')")
        done
        printf '%-8s %s rank(s): mpi %ss  independent %ss  ratio median %s  (ratios %s)\n' \
            "$case" "$n" "$(printf '%s\n' "${m[@]}" | median)" "$(printf '%s\n' "${s[@]}" | median)" \
            "$(printf '%s\n' "${r[@]}" | median)" "${r[*]}"
    done
done
