#!/usr/bin/env bash
# Unpacks the packages scripts/gather-build-deps.sh gathered into a private prefix (dpkg -x, or ar +
# tar where dpkg is missing) — never into / — and prints the prefix's usr folder, to hand to CMake
# (CMAKE_PREFIX_PATH) and to the loader (its lib/<arch> on LD_LIBRARY_PATH).
# Usage: scripts/unpack-build-deps.sh DEBS_DIR PREFIX
# Exit codes: 0 unpacked (prints PREFIX/usr), 1 no packages in DEBS_DIR, 2 a package failed to unpack.
set -euo pipefail
debs=${1:?usage: unpack-build-deps.sh DEBS_DIR PREFIX}
prefix=${2:?usage: unpack-build-deps.sh DEBS_DIR PREFIX}
shopt -s nullglob
packages=("$debs"/*.deb)
[ ${#packages[@]} -gt 0 ] || { echo "unpack-build-deps: no .deb in $debs (run scripts/gather-build-deps.sh where Debian's archive is)" >&2; exit 1; }
mkdir -p "$prefix"
for deb in "${packages[@]}"; do
  if command -v dpkg >/dev/null 2>&1; then
    dpkg -x "$deb" "$prefix" || { echo "unpack-build-deps: dpkg -x $deb failed" >&2; exit 2; }
  else
    work=$(mktemp -d)
    (cd "$work" && ar x "$deb" && tar -xf data.tar.* -C "$prefix") ||
      { rm -rf "$work"; echo "unpack-build-deps: cannot unpack $deb (no dpkg; ar/tar failed)" >&2; exit 2; }
    rm -rf "$work"
  fi
done
echo "$prefix/usr"
