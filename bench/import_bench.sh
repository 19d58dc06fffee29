#!/usr/bin/env bash
# glueprof import vs Python's json.load (the first step of HTA and TraceLens) on one synthetic
# Kineto trace of SIZE_MB (default 1024), gzip'd: wall time, events per second and peak memory of
# each, side by side (glueprof also with --no-read-ahead: its read on one thread).
# Usage: bench/import_bench.sh BUILD_DIR [SIZE_MB] [WORK_DIR]
set -euo pipefail
build=${1:?usage: import_bench.sh BUILD_DIR [SIZE_MB] [WORK_DIR]}
size=${2:-1024}
work=${3:-$(mktemp -d)}
glueprof=$build/app/cli/glueprof
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
json=$work/synthetic.json
if [ ! -f "$json.gz" ]; then
  python3 "$here/make_kineto_trace.py" "$json" "$size"
  gzip -1 -f "$json"
fi
bytes=$(gzip -l "$json.gz" | awk 'NR==2 {print $2}')
rm -f "$work/bench.sqlite"*
measure() {  # label command...: wall seconds and peak RSS (KiB) from GNU time
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "${@:2}" >"$work/$1.out"
  read -r seconds rss <"$work/time.txt"
  echo "$seconds $rss"
}
read -r g_s g_rss < <(measure glueprof "$glueprof" import "$json.gz" --db "$work/bench.sqlite")
stored=$(sed -n 's/.*stored \([0-9]*\) events.*/\1/p' "$work/glueprof.out")
rm -f "$work/bench.sqlite"*
read -r o_s o_rss < <(measure one "$glueprof" import "$json.gz" --db "$work/bench.sqlite" --no-read-ahead)
read -r p_s p_rss < <(measure python python3 -c "import gzip, json, sys; d = json.load(gzip.open(sys.argv[1])); print(len(d['traceEvents']))" "$json.gz")
events=$(cat "$work/python.out")  # traceEvents in the file, as json.load counts them
printf 'import bench: %s bytes uncompressed (%s MiB), %s trace events, %s stored\n' "$bytes" "$((bytes / 1048576))" "$events" "$stored"
printf '%-34s %10s %14s %14s\n' "" "seconds" "events/s" "peak RSS MiB"
printf '%-34s %10s %14.0f %14d\n' "glueprof import (gzip + SQLite)" "$g_s" "$(echo "$events / $g_s" | bc -l)" "$((g_rss / 1024))"
printf '%-34s %10s %14.0f %14d\n' "  the same, --no-read-ahead" "$o_s" "$(echo "$events / $o_s" | bc -l)" "$((o_rss / 1024))"
printf '%-34s %10s %14.0f %14d\n' "python3 json.load (parse only)" "$p_s" "$(echo "$events / $p_s" | bc -l)" "$((p_rss / 1024))"
