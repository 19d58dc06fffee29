#!/usr/bin/env bash
# Makes (or reuses) the Python environment glueprof builds against: a virtual environment holding
# scripts/torch-requirements.txt (PyPI's torch 2.11.0, a CUDA 13 build, and HolisticTraceAnalysis).
# It lives outside the clone, so a fresh clone on the same machine reuses it without a download:
#   ${GLUEPROF_TORCH_ENV_ROOT:-${XDG_CACHE_HOME:-~/.cache}/glueprof}/torch-VERSION-pyX.Y
# A stamp holding the requirements' checksum marks a finished install: an interrupted or failed
# install is redone, changed requirements are installed on top, and two clones bootstrapping at once
# take turns (flock). Progress goes to stderr.
#
# Usage: scripts/torch-env.sh [--python]
#   --python   print the environment's python (for cmake -DGLUEPROF_PYTHON=...) on stdout
# Environment: GLUEPROF_TORCH_ENV_ROOT (where environments live), GLUEPROF_BASE_PYTHON (the python the
# environment is made from; default python3, which must be 3.10 to 3.13).
# Exit codes: 0 ready, 2 it could not be made (the message says why and what to do).
set -euo pipefail

print_python=0
case "${1:-}" in
  --python) print_python=1 ;;
  "") ;;
  *) echo "torch-env: unknown option $1 (usage: scripts/torch-env.sh [--python])" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
requirements="$here/torch-requirements.txt"
base_python=${GLUEPROF_BASE_PYTHON:-python3}
fail() { echo "torch-env: $*" >&2; exit 2; }

command -v "$base_python" >/dev/null 2>&1 || fail "no $base_python: install python3 (Debian: apt-get install python3 python3-venv) or set GLUEPROF_BASE_PYTHON"
py_version=$("$base_python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case "$py_version" in
  3.10|3.11|3.12|3.13) ;;
  *) fail "$base_python is Python $py_version; torch 2.11 wheels are for 3.10 to 3.13: set GLUEPROF_BASE_PYTHON to one" ;;
esac
torch_pin=$(sed -n 's/^torch==\([^ ]*\).*/\1/p' "$requirements")
[ -n "$torch_pin" ] || fail "$requirements pins no torch==VERSION"
root=${GLUEPROF_TORCH_ENV_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/glueprof}
env_dir="$root/torch-$torch_pin-py$py_version"
stamp="$env_dir/.glueprof-requirements.sha256"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)

ready() { [ -x "$env_dir/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && "$env_dir/bin/python" -c '' 2>/dev/null; }

if ! ready; then
  mkdir -p "$root" || fail "cannot create $root: set GLUEPROF_TORCH_ENV_ROOT to a writable folder"
  exec 9>"$root/.lock"
  flock 9
  if ! ready; then  # another clone may have finished it while this one waited
    start=$(date +%s)
    if ! "$env_dir/bin/python" -c '' 2>/dev/null; then
      rm -rf "$env_dir"
      echo "torch-env: creating $env_dir (Python $py_version)" >&2
      "$base_python" -m venv "$env_dir" >&2 || fail "python -m venv failed: install python3-venv (scripts/bootstrap.sh does) or set GLUEPROF_BASE_PYTHON"
    fi
    echo "torch-env: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $env_dir (about 5 GB the first time)" >&2
    rm -f "$stamp"
    "$env_dir/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements" >&2 \
      || fail "pip could not install $requirements into $env_dir (PyPI unreachable, or disk full?); run scripts/torch-env.sh again once fixed"
    echo "$wanted" >"$stamp"
    echo "torch-env: ready in $(( $(date +%s) - start )) s" >&2
  fi
  flock -u 9
fi
if [ "$print_python" -eq 1 ]; then
  echo "$env_dir/bin/python"
else
  echo "torch-env: $env_dir (torch $("$env_dir/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))'))" >&2
fi
