#!/usr/bin/env bash
# What each tracer adds to one aten op, in instructions: deterministic where the time per op moves
# by 10-30% from run to run on a shared machine. Runs glueprof_bench's observed-op modes
# (TracerOverheadBench.cpp: at::add of two 1-element tensors, 20,000 calls each) under callgrind,
# one mode at a time, and reads the inclusive instruction count of at::add on the benchmark's
# thread divided by its calls: the op with whatever RecordFunction callbacks run inside it. The
# writer's own thread (SQLite) is not counted: it is not on the program's path.
# Usage: bench/op_instructions.sh BUILD_DIR [WORK_DIR]   (about 1-2 minutes per mode)
set -euo pipefail
build=${1:?usage: op_instructions.sh BUILD_DIR [WORK_DIR]}
work=${2:-$(mktemp -d)}
bench=$build/bench/glueprof_bench
command -v valgrind >/dev/null || { echo "op_instructions: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
[ -x "$bench" ] || { echo "op_instructions: no $bench; build with GLUEPROF_BUILD_BENCH=ON" >&2; exit 2; }
mkdir -p "$work"
modes="NoObserver RecordFunctionOnly CallbackOnly Record RecordAndWrite LibtorchProfiler"
declare -A per_op
for mode in $modes; do
  rm -f "$work/callgrind.$mode".*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/callgrind.$mode.%p" \
    --toggle-collect='*observedOp*' "$bench" --benchmark_filter="BM_ObservedOp$mode/" \
    --benchmark_min_time=0.01 >"$work/$mode.log" 2>&1
  # The thread that ran the benchmark: the one whose profile has at::add's calls.
  line=""
  for file in "$work/callgrind.$mode".*; do
    line=$(callgrind_annotate --inclusive=yes --tree=caller "$file" 2>/dev/null |
           grep -B1 '\*  ???:at::_ops::add_Tensor::call(' | grep 'observedOp' || true)
    [ -n "$line" ] && break
  done
  [ -n "$line" ] || { echo "op_instructions: no at::add calls in $mode's profile (see $work/$mode.log)" >&2; exit 1; }
  instructions=$(sed 's/^ *\([0-9,]*\) .*/\1/' <<<"$line" | tr -d ,)
  calls=$(sed 's/.*(\([0-9,]*\)x).*/\1/' <<<"$line" | tr -d ,)
  per_op[$mode]=$((instructions / calls))
done
printf '%-44s %14s %12s\n' "at::add of two 1-element tensors" "instructions" "added"
for mode in $modes; do
  printf '%-44s %14d %12d\n' "$mode" "${per_op[$mode]}" "$((per_op[$mode] - per_op[NoObserver]))"
done
glueprof_added=$((per_op[RecordAndWrite] - per_op[NoObserver]))
torch_added=$((per_op[LibtorchProfiler] - per_op[NoObserver]))
printf 'glueprof (recording and writing) adds %s of what libtorch'"'"'s profiler adds per op\n' \
  "$(echo "scale=2; $glueprof_added / $torch_added" | bc -l)"
