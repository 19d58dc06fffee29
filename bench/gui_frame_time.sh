#!/usr/bin/env bash
# The desktop app's own frame time on a ten-million-event run (issue 5: the timeline stays interactive).
# Writes the 10M-event database of the report benchmark, opens it in the real glueprof-gui under Xvfb
# with the timeline shown, draws FRAMES frames and prints the app's frame-time summary (CPU time from
# ImGui::NewFrame to the OpenGL draw call; --dump-state's frame_ms).
# Usage: bench/gui_frame_time.sh [BUILD_DIR] [FRAMES]
set -euo pipefail
build=${1:-build/release}
frames=${2:-120}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! command -v xvfb-run >/dev/null; then
  echo "gui_frame_time: xvfb-run is missing: run scripts/bootstrap.sh" >&2
  exit 2
fi
GLUEPROF_BENCH_KEEP_DB="$work/10m.sqlite" "$build/bench/glueprof_bench" \
  --benchmark_filter=HtmlReportOf10MEventRun >/dev/null
printf 'show Timeline\nwait\n' >"$work/script"  # frames count once the analysis is shown
/usr/bin/time -f '%e s wall, %M KiB peak RSS' xvfb-run -a -s '-screen 0 1600x1000x24' \
  "$build/app/gui/glueprof-gui" --db "$work/10m.sqlite" --frames "$frames" --script "$work/script" \
  --dump-state "$work/state.json"
python3 - "$work/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s["frame_ms"]
events = s["events_loaded"]
print(f"glueprof-gui, {events} events, {f['frames']} frames at 1600x1000: "
      f"median {f['median']:.2f} ms, p95 {f['p95']:.2f} ms, max {f['max']:.2f} ms per frame")
if s["errors"]:
    print("errors:", s["errors"])
    sys.exit(1)
PY
