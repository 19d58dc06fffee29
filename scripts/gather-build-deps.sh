#!/usr/bin/env bash
# Gathers the build dependencies a GPU machine without a package archive lacks (SQLite, nlohmann-json,
# CLI11, RapidJSON, zlib, the Gloo headers c10d includes: the -dev packages and the shared library
# SQLite's links; fmt comes with libtorch) from Debian's archive
# into deps/debs/ (ignored by git), so the tree can carry them there; scripts/gpu-check.sh unpacks
# them into a private prefix (scripts/unpack-build-deps.sh), never into /.
# Run on a machine with Debian's archive (this project's development and CI machines).
# Usage: scripts/gather-build-deps.sh [DIR]   (default: deps/debs beside this script's tree)
# Exit codes: 0 gathered, 2 the archive cannot be reached (the message says what to do).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$repo/deps/debs}
# The -dev packages, and the runtime library SQLite's links (named by the archive: libsqlite3-0).
dev=(libsqlite3-dev nlohmann-json3-dev libcli11-dev rapidjson-dev zlib1g-dev libgloo-dev)
runtime=$(apt-cache depends libsqlite3-dev 2>/dev/null | sed -n 's/^ *Depends: \(libsqlite3-0\)$/\1/p' | head -1)
if [ -z "$runtime" ]; then
  echo "gather-build-deps: apt-cache does not know libsqlite3-dev here: run on a machine with Debian's archive, after apt-get update" >&2
  exit 2
fi
packages=("${dev[@]}" "$runtime")
mkdir -p "$dir"
rm -f "$dir"/*.deb
if ! (cd "$dir" && apt-get download "${packages[@]}" >"$dir/download.log" 2>&1); then
  echo "gather-build-deps: apt-get download failed (see $dir/download.log): run on a machine with Debian's archive, after apt-get update" >&2
  exit 2
fi
rm -f "$dir/download.log"
echo "gather-build-deps: $(ls "$dir"/*.deb | wc -l) packages in $dir ($(du -sh "$dir" | cut -f1)); carry deps/ to the GPU machine with the tree"
