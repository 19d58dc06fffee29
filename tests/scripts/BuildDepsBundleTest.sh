#!/usr/bin/env bash
# The build-dependency bundle for GPU machines without a package archive: gathered from Debian's
# archive (scripts/gather-build-deps.sh), unpacked into a private prefix (scripts/unpack-build-deps.sh),
# then a CMake project that needs what glueprof needs (SQLite, nlohmann-json, CLI11) is
# configured with every find re-rooted into that prefix (CMAKE_FIND_ROOT_PATH ... ONLY: the system's
# copies are invisible to CMake), built, and run against the prefix's shared libraries.
# Usage: BuildDepsBundleTest.sh REPO WORKDIR. Exit 77 (skipped) when Debian's archive is unreachable.
set -euo pipefail
repo=${1:?usage: BuildDepsBundleTest.sh REPO WORKDIR}
work=${2:?usage: BuildDepsBundleTest.sh REPO WORKDIR}
rm -rf "$work"
mkdir -p "$work/project"
if ! "$repo/scripts/gather-build-deps.sh" "$work/debs"; then
  echo "BuildDepsBundleTest: Debian's archive is unreachable here: skipped"
  exit 77
fi
usr=$("$repo/scripts/unpack-build-deps.sh" "$work/debs" "$work/prefix")
[ "$usr" = "$work/prefix/usr" ] || { echo "unexpected prefix $usr"; exit 1; }
[ -z "$(find "$work/prefix" -maxdepth 1 -mindepth 1 ! -name usr)" ] || { echo "unpacked outside usr/"; exit 1; }

cat >"$work/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(bundle_probe CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
add_executable(probe main.cpp)
target_link_libraries(probe PRIVATE SQLite::SQLite3 nlohmann_json::nlohmann_json CLI11::CLI11)
CMAKE
cat >"$work/project/main.cpp" <<'CPP'
#include <sqlite3.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
int main(int argc, char** argv) {
    CLI::App app("probe");
    CLI11_PARSE(app, argc, argv);
    sqlite3* db = nullptr;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
    sqlite3_close(db);
    std::puts(nlohmann::json{{"sqlite", sqlite3_libversion()}}.dump().c_str());
    return 0;
}
CPP
# Re-rooted finds: packages, headers and libraries only under the prefix.
cmake -S "$work/project" -B "$work/build" -DCMAKE_FIND_ROOT_PATH="$work/prefix" \
  -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY -DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY \
  -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
for entry in SQLite3_INCLUDE_DIR SQLite3_LIBRARY nlohmann_json_DIR CLI11_DIR; do
  value=$(grep "^$entry:" "$work/build/CMakeCache.txt" | cut -d= -f2-)
  case "$value" in
    "$work/prefix/"*) ;;
    *) echo "BuildDepsBundleTest: $entry=$value is not in the bundle's prefix"; exit 1 ;;
  esac
done
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
libs=$(dirname "$(grep '^SQLite3_LIBRARY:' "$work/build/CMakeCache.txt" | cut -d= -f2-)")
# Each output is read whole before grep looks at it: `cmd | grep -q` under pipefail fails whenever
# grep exits on its match before cmd has written the rest (cmd dies of SIGPIPE), which made this
# test fail now and then.
loaded=$(LD_LIBRARY_PATH="$libs" ldd "$work/build/probe")
grep -q "libsqlite3.so.0 => $libs/" <<<"$loaded" ||
  { echo "BuildDepsBundleTest: the probe does not load the bundle's libsqlite3:"; echo "$loaded"; exit 1; }
printed=$(LD_LIBRARY_PATH="$libs" "$work/build/probe")
grep -q '"sqlite":"3\.' <<<"$printed" ||
  { echo "BuildDepsBundleTest: the probe did not run: $printed"; exit 1; }
echo "BuildDepsBundleTest: ok ($(ls "$work"/debs/*.deb | wc -l) packages; CMake found each in the prefix)"
