#!/usr/bin/env bash
# bench/io500.sh: fsbattery's io500 suite against the io500 app itself (IO500_SRC given), or
# against IOR, mdtest and pfind run one phase at a time with the app's options; the same total
# work on the same directory.
#
# Each round runs both tools, in an order alternating per round. Once, before the first
# round, a warm-up writes and removes as many bytes as a run will hold: fresh VM pages are
# slow on first touch (without it whichever tool ran first was 2-3x slower). It runs once
# and not before every run: a warm-up just before each run favoured fsbattery, whose phases
# all follow it within seconds in one process, over the reference's later phases, each a new
# mpirun (mdtest-hard-write 1.38-1.83 with it before every run, 0.995 with it once;
# 2026-11-27). fsbattery runs the 12 phases in one `mpirun fsbattery run --suite io500
# --cache none` (the app's behaviour: nothing done to the cache between phases), with
# mdtest's sleep(1) before each mdtest phase as the app's mdtest does (io500.mdtest_sleep_s=1,
# quick scale's default is 0).
#
# The reference, with IO500_SRC: the io500 app (github.com/IO500/io500, built here against
# IOR_SRC and PFIND_SRC as its prepare.sh would), one mpirun per round running every phase
# back to back in one process, as a real IO500 run does, with its own options (it prints them
# with --dry-run). Its stonewall is 300 s and every write phase ends before it, so the app
# calls these runs INVALID: expected, the sizes are fixed so that both sides do the same work.
# Without IO500_SRC: one mpirun per phase, in the app's order, with the app's flags
# (io500 src/phase_*.c) but without the stonewall (-D 300 -O stoneWallingWearOut=1, -W 300):
#   ior-easy  ior -C -Q 1 -g -G 27 -k -e -o D/ior-easy/ior_file_easy -t 2m -b EASY -F -w|-r -R
#   ior-hard  ior -C -Q 1 -g -G=27 -k -e -o D/ior-hard/file -t 47008 -b 47008 -s HARD -w|-r -R
#   mdtest-easy  mdtest -n MDE -u -L -F -P -G 27 -N 1 -d D/mdtest-easy -C -Y | -T | -r
#   mdtest-hard  mdtest -n MDH -t -w 3901 -e 3901 -P -G=27 -N 1 -F -d D/mdtest-hard -C -Y | -T | -E -X | -r
#   find      pfind D -newer TIMESTAMP -size 3901c -name "*01*" -C -q 10000 (-D rates: its rate)
# every IOR and mdtest call with --dataPacketType=timestamp, and the reads checking the data
# (-R, -X) as fsbattery's do.
# find: both sides steal work as pfind does, so on io500's three large directories the split
# between the ranks (2:1, or 3:0 with the other rank only stat'ing stolen matches) varies from
# run to run on both sides and decides much of the rate; see docs/src/performance.md.
# Per phase the script prints both medians, the median of the per-round ratios fsbattery /
# reference (higher is better for fsbattery in every phase), that median's distribution-free
# 95 % interval (from 6 rounds on) and the ratios' range. On this VM one round's ratio varies
# by about 0.2, so a median settles to a few per cent only after some 30 rounds.
#
#   IO500_SRC=/path/to/io500 IOR_SRC=/path/to/ior PFIND_SRC=/path/to/pfind RUNS=7 bash bench/io500.sh
#
# IO500_SRC: a checkout of github.com/IO500/io500 (its io500 built here unless present);
# IOR_SRC: a checkout of github.com/hpc/ior (built here with ./bootstrap, ./configure and make
# unless src/ior and src/mdtest exist); PFIND_SRC: a checkout of github.com/VI4IO/pfind (built
# with its compile.sh unless pfind exists). Knobs: RANKS (2), RUNS (7), EASY_MB (512 per
# rank), HARD (50000 transfers per rank), MDE (200000 files per rank), MDH (100000 files per
# rank), DIR (default under /dev/shm, removed on exit), FSBATTERY (default target/release;
# build with `cargo build --release --features mpi -p fsbattery`). Needs Open MPI and jq.
# The defaults make each phase last long enough (find ~0.2 s, the mdtest phases 0.3-3 s)
# that start-up costs do not weigh; they hold about 6.5 GiB on the tmpfs at once.
set -euo pipefail

RANKS=${RANKS:-2}
RUNS=${RUNS:-7}
EASY_MB=${EASY_MB:-512}
HARD=${HARD:-50000}
MDE=${MDE:-200000}
MDH=${MDH:-100000}
FSB=${FSBATTERY:-$(cd "$(dirname "$0")/.." && pwd)/target/release/fsbattery}
DIR=${DIR:-/dev/shm/fsbattery-io500-bench.$$}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$RANKS")
: "${IOR_SRC:?IOR_SRC=path to a checkout of github.com/hpc/ior}"
: "${PFIND_SRC:?PFIND_SRC=path to a checkout of github.com/VI4IO/pfind}"

for tool in mpirun mpicc jq "$FSB"; do
    command -v "$tool" >/dev/null || { echo "io500.sh: $tool not found (cargo build --release --features mpi -p fsbattery; apt-get install openmpi-bin libopenmpi-dev jq)" >&2; exit 5; }
done
if [[ ! -x $IOR_SRC/src/ior || ! -x $IOR_SRC/src/mdtest ]]; then
    (cd "$IOR_SRC" && ./bootstrap && ./configure && make) >&2
fi
[[ -x $PFIND_SRC/pfind ]] || (cd "$PFIND_SRC" && bash compile.sh) >&2
IOR=$IOR_SRC/src/ior MDTEST=$IOR_SRC/src/mdtest PFIND=$PFIND_SRC/pfind
# The io500 app links IOR's libaiori.a and pfind.a from its build/ior and build/pfind (its
# Makefile); it is built against the two checkouts above, as its prepare.sh would.
if [[ -n ${IO500_SRC:-} && ! -x $IO500_SRC/io500 ]]; then
    [[ -f $PFIND_SRC/pfind.a && -f $IOR_SRC/src/libaiori.a ]] || { echo "io500.sh: IO500_SRC needs pfind.a in PFIND_SRC and src/libaiori.a in IOR_SRC" >&2; exit 5; }
    mkdir -p "$IO500_SRC/build"
    ln -sfn "$(realpath "$IOR_SRC")" "$IO500_SRC/build/ior"
    ln -sfn "$(realpath "$PFIND_SRC")" "$IO500_SRC/build/pfind"
    make -C "$IO500_SRC" >&2
fi

mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT

PHASES=(ior_easy_write mdtest_easy_write ior_hard_write mdtest_hard_write find ior_easy_read
    mdtest_easy_stat ior_hard_read mdtest_hard_stat mdtest_easy_delete mdtest_hard_read
    mdtest_hard_delete)

# Touch as many fresh pages as a run will hold, then give them back (once, see the header).
warm_up() {
    local mb=$(((EASY_MB * RANKS) + (HARD * 47008 * RANKS >> 20) + (MDH * RANKS * 4096 >> 20) + 64))
    dd if=/dev/zero of="$DIR/warm" bs=1M count="$mb" status=none
    rm -f "$DIR/warm"
}

# fsbattery: prints "phase value" for the 12 phases (GiB/s, kops/s).
fsbattery_round() {
    local d=$DIR/fsb
    rm -rf "$d" && mkdir -p "$d/t"
    "${MPIRUN[@]}" "$FSB" run -q --no-store --no-ceiling --cache none --suite io500 --scale quick \
        --target "dir:$d/t" --out "$d/out" --set "io500.easy_size=${EASY_MB}MiB" \
        --set io500.easy_transfer=2MiB --set "io500.hard_transfers=$HARD" \
        --set "io500.md_easy_files=$MDE" --set "io500.md_hard_files=$MDH" --set io500.mdtest_sleep_s=1 \
        >/dev/null 2>"$d.err" || { cat "$d.err" >&2; exit 1; }
    jq -r '.cells[] | select(.workload == "io500") | "\(.metric) \(.samples[0].value)"' "$d/out/results.json"
}

# IOR's bandwidth of its output on stdin (the summary's Max(MiB), one repetition) in GiB/s.
ior_gib() { awk '/^Summary of all tests/ {s = 1} s && ($1 == "write" || $1 == "read") {printf "%.6f\n", $2 / 1024; exit}'; }
# mdtest's rate of "File <op>" (creation, stat, read, removal) in kops/s.
md_k() { awk -v op="$1" '/SUMMARY rate/ {s = 1} s && $1 == "File" && $2 == op {printf "%.6f\n", $3 / 1000; exit}'; }

# The reference: prints "phase value" for the 12 phases.
reference_round() {
    # The data directory at fsbattery's depth, component for component ($DIR/fsb/t/
    # fsbattery-io500/datafiles): every item's path walk costs the same on both sides (on
    # tmpfs here, each extra component cost 3 % of a stat, 2026-11-26).
    local top=$DIR/ref r
    local d=$top/t/fsbattery-io500
    rm -rf "$top" && mkdir -p "$d/datafiles/ior-easy" "$d/datafiles/ior-hard" "$d/datafiles/mdtest-easy" "$d/datafiles/mdtest-hard" "$d/res"
    local t=--dataPacketType=timestamp
    local easy=("$IOR" "$t" -C -Q 1 -g -G 27 -k -e -o "$d/datafiles/ior-easy/ior_file_easy" -t 2m -b "${EASY_MB}m" -F)
    local hard=("$IOR" "$t" -C -Q 1 -g -G=27 -k -e -o "$d/datafiles/ior-hard/file" -t 47008 -b 47008 -s "$HARD")
    local mde=("$MDTEST" "$t" -n "$MDE" -u -L -F -P -G 27 -N 1 -d "$d/datafiles/mdtest-easy")
    local mdh=("$MDTEST" "$t" -n "$MDH" -t -w 3901 -e 3901 -P -G=27 -N 1 -F -d "$d/datafiles/mdtest-hard")
    run() { "${MPIRUN[@]}" "$@" 2>"$d.err" || { cat "$d.err" >&2; exit 1; }; }
    echo "ior_easy_write $(run "${easy[@]}" -w | ior_gib)"
    echo "mdtest_easy_write $(run "${mde[@]}" -C -Y | md_k creation)"
    touch "$d/res/timestampfile"
    echo "ior_hard_write $(run "${hard[@]}" -w | ior_gib)"
    echo "mdtest_hard_write $(run "${mdh[@]}" -C -Y | md_k creation)"
    r=$(run "$PFIND" "$d/datafiles" -newer "$d/res/timestampfile" -size 3901c -name "*01*" -C -q 10000 -D rates)
    echo "find $(awk '/^\[DONE\]/ {print $3; exit}' <<<"$r")"
    echo "ior_easy_read $(run "${easy[@]}" -r -R | ior_gib)"
    echo "mdtest_easy_stat $(run "${mde[@]}" -T | md_k stat)"
    echo "ior_hard_read $(run "${hard[@]}" -r -R | ior_gib)"
    echo "mdtest_hard_stat $(run "${mdh[@]}" -T | md_k stat)"
    echo "mdtest_easy_delete $(run "${mde[@]}" -r | md_k removal)"
    echo "mdtest_hard_read $(run "${mdh[@]}" -E -X | md_k read)"
    echo "mdtest_hard_delete $(run "${mdh[@]}" -r | md_k removal)"
    rm -rf "$top"
}

# The reference as the io500 app itself: one mpirun of all phases, back to back in one process,
# with the app's own flags (stonewall 300 s, wear-out, -R/-X verification on reads), at the same
# sizes. Its [RESULT] lines give the phases (GiB/s, kIOPS); the extended phase is switched off.
# Every write phase ends before the stonewall, so the app calls the run INVALID: expected here.
app_round() {
    local top=$DIR/ref
    local d=$top/t/fsbattery-io500
    rm -rf "$top" && mkdir -p "$d"
    cat >"$top/config.ini" <<INI
[global]
datadir = $d/datafiles
resultdir = $d/res
timestamp-datadir = FALSE
timestamp-resultdir = FALSE
[debug]
stonewall-time = 300
[ior-easy]
transferSize = 2m
blockSize = ${EASY_MB}m
[mdtest-easy]
n = $MDE
[ior-hard]
segmentCount = $HARD
[mdtest-hard]
n = $MDH
[ior-rnd4K-easy-read]
run = FALSE
INI
    (cd "$top" && "${MPIRUN[@]}" "$IO500_SRC/io500" config.ini >"$d.out" 2>&1) || { cat "$d.out" >&2; exit 1; }
    awk '$1 == "[RESULT]" {gsub("-", "_", $2); print $2, $3}' "$d/res/result_summary.txt"
    rm -rf "$top"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# A distribution-free 95 % interval of the median of the sorted values on stdin: the k-th
# smallest and k-th largest, k the largest rank with P(Binomial(n, 1/2) < k) <= 0.025
# (the sign test's interval; "-" with fewer than 6 values, where none exists).
median_ci() {
    awk '{a[NR]=$1} END {
        n = NR; p = 2 ^ -n; cum = 0; k = 0
        for (i = 0; i < n; i++) { if (cum + p > 0.025) break; cum += p; k = i + 1; p = p * (n - i) / (i + 1) }
        if (k < 1) print "-"; else printf "%s..%s\n", a[k], a[n - k + 1]
    }'
}

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, $(uname -r), $(mpirun --version | head -1), fsbattery $("$FSB" --version | awk '{print $2}'), ior $(git -C "$IOR_SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), pfind $(git -C "$PFIND_SRC" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# RANKS=$RANKS RUNS=$RUNS EASY_MB=$EASY_MB HARD=$HARD MDE=$MDE MDH=$MDH, tmpfs $DIR"
REFERENCE=reference_round
[[ -n ${IO500_SRC:-} ]] && REFERENCE=app_round
echo "# reference: $([[ $REFERENCE == app_round ]] && echo "the io500 app ($(git -C "$IO500_SRC" rev-parse --short HEAD 2>/dev/null || echo "$IO500_SRC")), one mpirun" || echo "IOR, mdtest and pfind, one mpirun per phase")"
declare -A F R Q
warm_up
for ((round = 0; round < RUNS; round++)); do
    if ((round % 2)); then ref=$($REFERENCE); fsb=$(fsbattery_round);
    else fsb=$(fsbattery_round); ref=$($REFERENCE); fi
    for p in "${PHASES[@]}"; do
        f=$(awk -v p="$p" '$1 == p {print $2}' <<<"$fsb")
        r=$(awk -v p="$p" '$1 == p {print $2}' <<<"$ref")
        F[$p]+="$f " R[$p]+="$r " Q[$p]+="$(awk -v f="$f" -v r="$r" 'BEGIN {printf "%.3f", f / r}') "
    done
    echo "# round $((round + 1)) done" >&2
done
printf '%-20s %12s %12s %8s %13s  %s\n' phase fsbattery reference ratio "95% CI" "ratios (min..max; every round)"
for p in "${PHASES[@]}"; do
    q=$(tr ' ' '\n' <<<"${Q[$p]}" | grep . | sort -g)
    printf "%-20s %12.5g %12.5g %8s %13s  %s..%s; %s\n" "$p" \
        "$(tr ' ' '\n' <<<"${F[$p]}" | grep . | median)" "$(tr ' ' '\n' <<<"${R[$p]}" | grep . | median)" \
        "$(median <<<"$q")" "$(median_ci <<<"$q")" "$(head -1 <<<"$q")" "$(tail -1 <<<"$q")" "${Q[$p]}"
done
