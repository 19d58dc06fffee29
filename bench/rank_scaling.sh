#!/usr/bin/env bash
# Data parallelism on this machine: step time and exposed communication at N = 1, 2, 4 ranks on
# PRESET (default tiny), each arm of ddp_overlap for N > 1 (one `run --nproc N` each, Gloo over
# loopback), then the interleaved A/B of `ab --nproc 2 --opt ddp_overlap` on AB_PRESET (default
# small) with its interval, each arm's comm/compute overlap and the ranks' clock-alignment residual.
# N above the core count oversubscribes the CPU: the table says so beside it.
# Usage: bench/rank_scaling.sh BUILD_DIR [WORK_DIR] [PRESET] [AB_PRESET]
set -euo pipefail
build=${1:?usage: rank_scaling.sh BUILD_DIR [WORK_DIR] [PRESET] [AB_PRESET]}
work=${2:-$(mktemp -d)}
preset=${3:-tiny}
ab_preset=${4:-small}
glueprof=$build/app/cli/glueprof
mkdir -p "$work"
cores=$(nproc)
echo "rank scaling: $preset, run --nproc N --steps 8 --warmup 2 ($cores cores here)"
printf '%-4s %-22s %26s %26s %s\n' "N" "arm" "median step ms per rank" "exposed comm ms per rank" ""
for n in 1 2 4; do
  arms=("baseline")
  [ "$n" -gt 1 ] && arms+=("ddp_overlap")
  for arm in "${arms[@]}"; do
    db=$work/scaling-$n-$arm.sqlite
    rm -f "$db"*
    opt=()
    [ "$arm" = "ddp_overlap" ] && opt=(--opt ddp_overlap)
    "$glueprof" run --nproc "$n" --preset "$preset" --steps 8 --warmup 2 "${opt[@]}" --json --db "$db" \
      >"$work/scaling-$n-$arm.json" 2>"$work/scaling-$n-$arm.log"
    note=""
    [ "$n" -gt "$cores" ] && note="(oversubscribed: $n ranks on $cores cores)"
    python3 - "$work/scaling-$n-$arm.json" "$n" "$arm" "$note" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
runs = j["ranks"] if "ranks" in j else [j]
step = "/".join("%.2f" % r["step_ms"] for r in runs)
comm = "/".join("%.2f" % r["glue_breakdown_ms"].get("comm", 0.0) for r in runs)
print("%-4s %-22s %26s %26s %s" % (sys.argv[2], sys.argv[3], step, comm, sys.argv[4]))
PY
  done
done
echo
echo "ddp_overlap A/B: ab --nproc 2 --opt ddp_overlap --preset $ab_preset --warmup 1 --steps 4 --repeats 3"
db=$work/ab-$ab_preset.sqlite
rm -f "$db"*
"$glueprof" ab --nproc 2 --opt ddp_overlap --preset "$ab_preset" --warmup 1 --steps 4 --repeats 3 --json \
  --db "$db" >"$work/ab-$ab_preset.json" 2>"$work/ab-$ab_preset.log"
python3 - "$work/ab-$ab_preset.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["comparisons"][0]
def metric(name):
    m = next(m for m in c["metrics"] if m["name"] == name)
    ci = m.get("speedup_ci")
    return "%.1f -> %.1f ms, %.3fx %s" % (m["baseline"], m["optimized"], m["speedup"],
                                         "[%.3f, %.3f]" % tuple(ci) if ci else "(no interval)")
print("  step time (rank 0):         %s" % metric("step_ms"))
print("  exposed communication:      %s" % c["target"]["text"])
for arm in ("baseline", "optimized"):
    a = c["ranks"][arm]
    print("  %-9s overlap per rank: %s, median spread %.3f ms, median straggler %.3f ms" % (
        arm, "/".join("%.2f" % v for v in a["comm_compute_overlap"]), a["median_spread_ms"], a["median_straggler_ms"]))
residuals = [r["clock_alignment"]["residual_ns"] / 1000 for r in j["runs"] if (r.get("identity") or {}).get("rank")]
estimates = [r["clock_alignment"]["estimate_ns"] / 1000 for r in j["runs"] if (r.get("identity") or {}).get("rank")]
print("  clock alignment (ranks > 0): estimate %s us, residual %s us (one machine: one clock, not shifted)" % (
    "/".join("%.1f" % e for e in estimates), "/".join("%.1f" % r for r in residuals)))
print("  losses equal across arms:   %s" % c["loss_equal"])
PY
