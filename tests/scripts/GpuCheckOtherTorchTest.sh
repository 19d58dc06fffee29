#!/usr/bin/env bash
# scripts/gpu-check.sh on a machine whose torch is another version than the one the carried binary
# was built against: the dry run must say the binary does not fit and plan a build there instead (a
# libtorch of another version would load, since its libraries carry no version in their names, and
# then break on its C++ ABI). The other torch is this machine's, reported one minor version lower
# by a python that wraps the real one.
# Usage: GpuCheckOtherTorchTest.sh REPO PYTHON BINARY WORKDIR
set -euo pipefail
repo=${1:?usage: GpuCheckOtherTorchTest.sh REPO PYTHON BINARY WORKDIR}
python=${2:?} binary=${3:?} work=${4:?}
rm -rf "$work"
mkdir -p "$work"
cat >"$work/python" <<SHIM
#!/usr/bin/env bash
"$python" "\$@" | awk '/^torch_version=/ { split(substr(\$0, 15), v, "."); \$0 = "torch_version=" v[1] "." (v[2] - 1) "." v[3] } { print }'
SHIM
chmod +x "$work/python"
reported=$("$work/python" "$repo/scripts/torch_layout.py" | sed -n 's/^torch_version=//p')
built=$("$python" "$repo/scripts/torch_layout.py" | sed -n 's/^torch_version=//p')
[ -n "$reported" ] && [ "$reported" != "$built" ] ||
  { echo "GpuCheckOtherTorchTest: the wrapper reports torch '$reported' (the real one: '$built')"; exit 1; }
plan=$(PYTHON="$work/python" "$repo/scripts/gpu-check.sh" "$work/out" --dry-run --binary="$binary")
grep -q "does not fit here (built against libtorch ${built%%+*}[^,]*, this torch is $reported): building here instead" <<<"$plan" ||
  { echo "GpuCheckOtherTorchTest: the binary was not refused:"; echo "$plan"; exit 1; }
grep -q "1. configure and build" <<<"$plan" ||
  { echo "GpuCheckOtherTorchTest: no build planned:"; echo "$plan"; exit 1; }
echo "GpuCheckOtherTorchTest: ok (a binary for torch $built is rebuilt where torch is $reported)"
