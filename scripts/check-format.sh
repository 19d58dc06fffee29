#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it (the root .clang-format).
# `make format` rewrites them; .ci/run calls this before `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format is not installed; run ./scripts/bootstrap.sh" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep -E '^[^ ]+:[0-9]+:[0-9]+: error' /tmp/check-format.$$ | cut -d: -f1 | sort -u |
    sed 's/^/check-format: not formatted: /' >&2
  rm -f /tmp/check-format.$$
  echo "check-format: run 'make format' (clang-format -i with the root .clang-format) and commit" >&2
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files formatted"
