#!/usr/bin/env bash
# bench/vm.sh: what a vm: target costs. Boots the guest ROUNDS times and runs the same small
# metadata workload on ext4 on the host (loop:ext4) and in the guest (vm:ext4), alternating
# the order each round (host first, then guest first, ...). Prints per round the guest's boot
# time (emulator start to the guest's run starting) and the whole run's wall time, then the
# tool's own ceiling (null-engine ops/s) on the host and in the guest, and per metadata row
# the median over rounds of guest / host time: the emulation's overhead on that row.
#
#   FSBATTERY=target/release/fsbattery ROUNDS=3 bash bench/vm.sh
#
# Run as root after `fsbattery setup --target vm:ext4`; TCG is slow and shares the CPUs with
# everything else: say the machine's load with the figures. Runs are kept under $OUT.
set -euo pipefail

FSB=${FSBATTERY:-fsbattery}
ROUNDS=${ROUNDS:-3}
FILES=${FILES:-1000}
OUT=${OUT:-/var/tmp/vm-bench-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
FSB=$(command -v "$FSB" || realpath "$FSB")

run() { # run NAME TARGET
  local name=$1 target=$2 t0 t1
  t0=$(date +%s.%N)
  "$FSB" run --target "$target" --workload metadata --set metadata.files="$FILES" \
    --repeat 3 --no-store --quiet --out "$OUT/$name" --workdir "$OUT/work" \
    >"$OUT/$name.log" 2>&1
  t1=$(date +%s.%N)
  echo "$name $(echo "$t1 - $t0" | bc)" >>"$OUT/walls.txt"
}

echo "vm bench: $ROUNDS round(s), $FILES files, load $(cut -d' ' -f1-3 /proc/loadavg), into $OUT"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then
    run "host-$r" loop:ext4; run "guest-$r" vm:ext4,size=1G
  else
    run "guest-$r" vm:ext4,size=1G; run "host-$r" loop:ext4
  fi
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
walls = dict(l.split() for l in open(f"{out}/walls.txt"))
rec = lambda n: json.load(open(f"{out}/{n}/results.json"))
ratios, ceil = {}, {"host": [], "guest": []}
for r in range(1, rounds + 1):
    h, g = rec(f"host-{r}"), rec(f"guest-{r}")
    boot = g["host"]["guest"].get("boot_secs")
    print(f"round {r}: guest boot {boot:.1f} s; wall host {float(walls[f'host-{r}']):.1f} s, "
          f"guest {float(walls[f'guest-{r}']):.1f} s")
    for k, rr in (("host", h), ("guest", g)):
        c = rr["host"].get("tool_ceiling")
        if c:
            ceil[k].append(c["null_ops_per_s"])
    mean = lambda rr, m: statistics.mean(s["value"] for c in rr["cells"]
        if c["workload"] == "metadata" and c["metric"] == m for s in c["samples"])
    for c in h["cells"]:
        if c["workload"] == "metadata" and c["status"]["state"] == "ok":
            m = c["metric"]
            ratios.setdefault(m, []).append(mean(g, m) / mean(h, m))
for k, v in ceil.items():
    if v:
        print(f"tool ceiling ({k}): median {statistics.median(v):,.0f} null ops/s")
for m, v in ratios.items():
    print(f"metadata {m}: guest/host time, median of {len(v)} round(s): {statistics.median(v):.2f}x")
PY
