#!/usr/bin/env bash
# Every report glueprof writes for the real traces of tests/fixtures/import, and for a simulated
# pipeline, into one directory: each fixture imported into its own database, then report (html, md,
# json), export (chrome, csv), compare, advise, list and check (JUnit) — the outputs that
# tests/fixtures/reports keeps as they were, so a change that alters any report says so.
#
# Usage: report-goldens.sh GLUEPROF OUTDIR            write the outputs into OUTDIR (made empty)
#        report-goldens.sh GLUEPROF --check GOLDENDIR  write them into a scratch directory and
#                                                      fail (exit 1, naming each file) where one
#                                                      differs from GOLDENDIR's
# Regenerate on purpose, when a change means to alter a report, and say so in the commit:
#   scripts/report-goldens.sh build/release/app/cli/glueprof tests/fixtures/reports
set -euo pipefail
glueprof=$(realpath "${1:?usage: report-goldens.sh GLUEPROF OUTDIR | --check GOLDENDIR}")
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$root/tests/fixtures/import
check=""
if [ "${2:-}" = "--check" ]; then
  check=$(realpath "${3:?--check needs the golden directory}")
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  out=${2:?usage: report-goldens.sh GLUEPROF OUTDIR}
  mkdir -p "$out"
  find "$out" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +  # its README stays
  out=$(realpath "$out")
fi
work=$(mktemp -d)
trap 'rm -rf "$work" ${check:+"$out"}' EXIT
cd "$work"
# Fixed names in a fixed place: nothing of the scratch directory reaches a report.
cp "$fixtures"/kineto/*.json.gz .
gunzip -c "$fixtures/nsys/test-cuda-report1.sqlite.gz" > nsys-report.sqlite

# One fixture: imported into NAME.sqlite, every report of its run.
reports_of_run() {
  local name=$1
  shift
  "$glueprof" import --db "$name.sqlite" "$@" > "$out/$name.import.txt" 2>&1
  "$glueprof" list --db "$name.sqlite" > "$out/$name.list.txt"
  "$glueprof" list --db "$name.sqlite" --json > "$out/$name.list.json"
  for format in html md json; do
    "$glueprof" report --db "$name.sqlite" --format "$format" --out "$out/$name.report.$format" \
      > /dev/null
  done
  "$glueprof" export --db "$name.sqlite" --format chrome --out "$out/$name.chrome.json" > /dev/null
  "$glueprof" export --db "$name.sqlite" --format csv --out "$out/$name.events.csv" > /dev/null
  "$glueprof" advise --db "$name.sqlite" > "$out/$name.advise.txt"
  "$glueprof" advise --db "$name.sqlite" --json > "$out/$name.advise.json"
}
reports_of_run alexnet hta-alexnet-trace.json.gz
reports_of_run event-sync hta-event_sync_trace.json.gz
reports_of_run nsys nsys-report.sqlite

# The A/B pair: compare, the pair's reports, and the gate (its baseline written from the pair,
# then checked against it, and against a stricter copy that fails).
reports_of_run pair --ab --name compare hta-trace_compare-base.json.gz hta-trace_compare-test.json.gz
"$glueprof" compare --db pair.sqlite --runs 1,2 > "$out/pair.compare.txt"
"$glueprof" compare --db pair.sqlite --runs 1,2 --json > "$out/pair.compare.json"
"$glueprof" check --db pair.sqlite --baseline baseline.json --update-baseline > "$out/pair.baseline.txt"
cp baseline.json "$out/pair.baseline.json"
"$glueprof" check --db pair.sqlite --baseline baseline.json --junit "$out/pair.check.xml" \
  > "$out/pair.check.txt" 2>&1 || echo "exit $?" >> "$out/pair.check.txt"

# A simulated pipeline: the text and JSON of a deterministic schedule comparison. The preset is
# copied here and named by a relative path, as the reports print the path they were given.
preset=$(ls "$root/assets/pipeline" | head -n 1)
cp "$root/assets/pipeline/$preset" .
"$glueprof" simulate --db sim.sqlite --schedule looped-bfs --schedule roundpipe \
  --costs "$preset" > "$out/simulate.txt" 2>&1
"$glueprof" simulate --db sim.sqlite --schedule looped-bfs --schedule roundpipe --json \
  --costs "$preset" > "$out/simulate.json" 2> /dev/null
for format in html md json; do
  "$glueprof" report --db sim.sqlite --format "$format" --out "$out/simulate.report.$format" \
    > /dev/null
done

# The one thing that changes from one run to the next: when a run was stored (list's column).
sed -i -E 's/20[0-9]{2}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]/YYYY-MM-DD hh:mm:ss/g' \
  "$out"/*.list.*

if [ -n "$check" ]; then
  status=0
  for name in $( (ls "$check"; ls "$out") | grep -vx README.md | sort -u); do
    if ! cmp -s "$check/$name" "$out/$name"; then
      echo "report differs from the golden one in $check: $name"
      diff <(head -c 200000 "$check/$name" 2>/dev/null) <(head -c 200000 "$out/$name" 2>/dev/null) \
        | head -n 12 || true
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "every report is as it was ($(ls "$out" | wc -l) files)"
  exit $status
fi
