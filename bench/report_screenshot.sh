#!/usr/bin/env bash
# Renders an HTML report in a real browser (Debian's chromium, headless) and checks the picture:
# a PNG of the page's top, not blank. Usage: bench/report_screenshot.sh REPORT.html [OUT.png]
# (make run writes glueprof-report.html; `make bench` runs this on it when chromium is installed).
set -euo pipefail
html=${1:?usage: report_screenshot.sh REPORT.html [OUT.png]}
png=${2:-${html%.html}.png}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report_screenshot: no chromium here (apt-get install chromium); skipped" >&2
  exit 0
fi
rm -f "$png"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size=1400,2400 --screenshot="$png" "file://$(realpath "$html")" >/dev/null 2>&1 || true
[ -s "$png" ] || { echo "report_screenshot: chromium wrote no picture of $html" >&2; exit 1; }
# A blank page compresses to a few kilobytes; a rendered report with charts and tables does not.
bytes=$(stat -c %s "$png")
if [ "$bytes" -lt 30000 ]; then
  echo "report_screenshot: $png is $bytes bytes: the page rendered blank" >&2
  exit 1
fi
echo "report_screenshot: $html rendered: $png ($bytes bytes)"
