#!/usr/bin/env bash
# bench/time-to-answer.sh: the README's default command (`fsbattery run`, no arguments: the
# default comparison of the Quick start) with two binaries, back to back on the same machine:
# wall time from start to exit and ranked rows decided, before and after a change.
#
#   BEFORE=path/to/old/fsbattery AFTER=path/to/new/fsbattery bash bench/time-to-answer.sh
#   ROUNDS=2 ... bash bench/time-to-answer.sh     # alternate the order each round (AB, BA, ...)
#
# Run as root (the default comparison makes loop images) on an otherwise quiet machine: the
# figure is the run's wall time, so anything else running on the machine is in it. Each run
# happens in its own scratch directory (its ./fsbattery-work and ./fsbattery-results), kept
# under $OUT (default /var/tmp/time-to-answer-<timestamp>) with each run's terminal output.
# Prints one line per run and a summary: each binary's median wall time and decided rows,
# and the ratio of the medians (after / before).
set -euo pipefail

BEFORE=${BEFORE:?set BEFORE to the old fsbattery binary}
AFTER=${AFTER:?set AFTER to the new fsbattery binary}
ROUNDS=${ROUNDS:-1}
OUT=${OUT:-/var/tmp/time-to-answer-$(date -u +%Y%m%dT%H%M%SZ)}

for b in "$BEFORE" "$AFTER"; do
  [ -x "$b" ] || { echo "time-to-answer: $b is not an executable fsbattery" >&2; exit 2; }
done
mkdir -p "$OUT"
BEFORE=$(realpath "$BEFORE")
AFTER=$(realpath "$AFTER")

# run NAME BINARY: one default run in a fresh scratch directory; appends "NAME secs decided rows"
# to $OUT/runs.txt.
run() {
  local name=$1 bin=$2 dir
  dir=$(mktemp -d "$OUT/$name-XXXX")
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && "$bin" run) >"$dir/output.txt" 2>&1 || echo "time-to-answer: $name exited $?" >&2
  end=$(date +%s.%N)
  local secs decided rows
  secs=$(echo "$end - $start" | bc)
  # "Decided: 19 of 27 ranked rows (...)": the closing line every version prints.
  read -r decided rows < <(sed -n 's/.*Decided: \([0-9]*\) of \([0-9]*\) ranked rows.*/\1 \2/p' \
    "$dir/output.txt" | tail -1)
  echo "$name $secs ${decided:-?} ${rows:-?}" | tee -a "$OUT/runs.txt"
  # What the new binary says of its own time (absent in older versions).
  grep -h "rows decided in" "$dir/output.txt" || true
  rm -rf "$dir/fsbattery-work"
}

: >"$OUT/runs.txt"
echo "time-to-answer: $ROUNDS round(s), results under $OUT ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then
    run before "$BEFORE"; run after "$AFTER"
  else
    run after "$AFTER"; run before "$BEFORE"
  fi
done

# median NAME COLUMN: the median of one column over NAME's runs.
median() {
  awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$OUT/runs.txt" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "?"; else if (NR % 2) print v[(NR + 1) / 2];
      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
bw=$(median before 2); aw=$(median after 2)
echo "before: median $bw s, decided $(median before 3) of $(median before 4) rows"
echo "after:  median $aw s, decided $(median after 3) of $(median after 4) rows"
echo "after/before wall time: $(echo "scale=3; $aw / $bw" | bc)"
