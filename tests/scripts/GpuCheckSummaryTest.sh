#!/usr/bin/env bash
# scripts/gpu-check.sh --summary-only on files made here by CPU runs of the same commands (tiny preset
# in place of the GPU presets; Gloo ranks in place of NCCL's): summary.md gets each toggle's row (the
# pipeline bubble included), the pipeline table with executed and replayed bubbles, the data-parallel
# verdict with each arm's overlap per rank, and names the cases not run and the broken one.
# Usage: GpuCheckSummaryTest.sh GLUEPROF OUTDIR
set -euo pipefail
glueprof=$1 out=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; echo "--- summary.md:" >&2; cat "$out/summary.md" >&2 || true; exit 1; }
schedule="--steps 1 --warmup 1 --repeats 2"
# shellcheck disable=SC2086
"$glueprof" ab --all --preset tiny $schedule --json --db "$out/qwen3-0.6b.sqlite" >"$out/qwen3-0.6b.json" 2>/dev/null
# shellcheck disable=SC2086
"$glueprof" ab --preset tiny --opt roundpipe --partition 3,1,0,0 $schedule --json --db "$out/pipeline.sqlite" \
  >"$out/pipeline.json" 2>/dev/null
"$glueprof" report --db "$out/pipeline.sqlite" --format json --out "$out/pipeline-report.json" >/dev/null
for id in 1 2; do
  "$glueprof" simulate --replay "$id" --predict --json --db "$out/pipeline.sqlite" >"$out/pipeline-replay-$id.json"
done
# shellcheck disable=SC2086
"$glueprof" ab --nproc 2 --preset tiny --opt ddp_overlap $schedule --json --db "$out/ddp.sqlite" \
  >"$out/ddp.json" 2>/dev/null
echo '{"comparisons": [' >"$out/llama-3.2-1b.json"  # a case cut off mid-write
"$repo/scripts/gpu-check.sh" "$out" --summary-only >/dev/null || fail "--summary-only exited $?"
summary=$out/summary.md
[ -f "$summary" ] || fail "no summary.md"
grep -Eq '^\| packed_cache \| mask-build time .* \| [a-z ()0-9]+ \| forward_ms \| [0-9.]+x ' "$summary" || fail "no packed_cache row with its target"
grep -Eq '^\| roundpipe \| .* \| [0-9.]+% -> [0-9.]+% \| 0 \|$' "$summary" || fail "no roundpipe row with its bubbles"
grep -Eq '^\| moe_group_once \| - \| skipped \|' "$summary" || fail "no skipped MoE row"
grep -Eq '^\| roundpipe:baseline \| [0-9.]+% \| [0-9.]+% \| [0-9.]+ \|$' "$summary" || fail "no executed/replayed Looped-BFS row"
grep -Eq '^\| roundpipe:optimized \| [0-9.]+% \| [0-9.]+% \| [0-9.]+ \|$' "$summary" || fail "no executed/replayed RoundPipe row"
grep -Eq '^`glueprof ab --nproc 2 --device cuda .*--opt ddp_overlap`$' "$summary" || fail "no ddp command line"
grep -Eq '^[a-z0-9 ()]+: step_ms [0-9.]+x .*; target: exposed communication ' "$summary" || fail "no ddp verdict with its target"
grep -Eq '^\| baseline \(per-parameter all-reduce\) \| [0-9.]+/[0-9.]+ \| [0-9.]+ \|$' "$summary" || fail "no ddp baseline row"
grep -Eq '^\| ddp_overlap \(buckets during backward\) \| [0-9.]+/[0-9.]+ \| [0-9.]+ \|$' "$summary" || fail "no ddp optimized row"
[ "$(grep -c '^not run (no ' "$summary")" -eq 2 ] || fail "the two cases without files are not named as not run"
grep -Eq '^failed: .*\(see llama-3.2-1b.log\)$' "$summary" || fail "the broken case is not named as failed"
"$repo/scripts/gpu-check.sh" "$out/absent" --summary-only 2>/dev/null && fail "a missing OUTDIR was accepted"
echo "gpu-check summary: ok"
