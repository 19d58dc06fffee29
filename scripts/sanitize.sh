#!/usr/bin/env bash
# make sanitize: builds the whole project with AddressSanitizer and UndefinedBehaviorSanitizer in
# its own build directory (default build/sanitize), runs the whole ctest suite under them, and
# reports every sanitizer finding in the suite's log (scripts/sanitize.supp: leaks inside
# libraries glueprof does not build, such as libtorch and Mesa, are not glueprof's).
# Exit 0 when the suite passed and no sanitizer reported anything; 1 otherwise.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build/sanitize}"
jobs="${JOBS:-2}"
cd "$here"
python=$(./scripts/torch-env.sh --python) || exit 1
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLUEPROF_SANITIZE=ON -DGLUEPROF_PYTHON="$python" \
  -DGLUEPROF_BUILD_BENCH=OFF || exit 1
cmake --build "$build" -j "$jobs" || exit 1
# Leak checking is LeakSanitizer's default; glueprof-gui alone turns it off in its
# __asan_default_options (app/gui/main.cpp says why).
export ASAN_OPTIONS="strict_string_checks=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$here/scripts/sanitize.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0"
started=$(date +%s)
ctest --test-dir "$build" -j "$jobs" --output-on-failure --timeout 1800
suite=$?
log="$build/Testing/Temporary/LastTest.log"
asan=$(grep -c "ERROR: AddressSanitizer" "$log" 2>/dev/null)
lsan=$(grep -c "ERROR: LeakSanitizer" "$log" 2>/dev/null)
ubsan=$(grep -c "runtime error:" "$log" 2>/dev/null)
echo "sanitize: suite exit $suite in $(( $(date +%s) - started )) s; AddressSanitizer errors: ${asan:-0}, LeakSanitizer reports: ${lsan:-0}, UndefinedBehaviorSanitizer runtime errors: ${ubsan:-0} (log: $log)"
grep -h "runtime error:\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|SUMMARY: " "$log" 2>/dev/null | sort | uniq -c | sort -rn | head -40
if [ "$suite" -ne 0 ] || [ "${asan:-0}" -ne 0 ] || [ "${lsan:-0}" -ne 0 ] || [ "${ubsan:-0}" -ne 0 ]; then
  exit 1
fi
