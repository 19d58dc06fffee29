#!/usr/bin/env bash
# Installs glueprof's build and test dependencies: the system's from Debian's archive, then libtorch
# from PyPI (scripts/torch-env.sh: torch 2.11.0, a CUDA 13 build, in a virtual environment outside the
# clone, reused by every clone of this machine). Idempotent: installs only what is missing and says
# what it installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  clang-format                          # scripts/check-format.sh (CI) and make format
  python3 python3-venv                  # scripts/torch-env.sh: the virtual environment of PyPI's torch
  libgloo-dev                           # Gloo's headers, which torch's ProcessGroupGloo.hpp includes (--nproc on CPU)
  libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev
  libbenchmark-dev
  nlohmann-json3-dev
  rapidjson-dev zlib1g-dev                # glueprof import: RapidJSON's SAX reader over zlib's gzip stream
  libcli11-dev
  libimgui-dev libglfw3-dev libstb-dev  # glueprof-gui: Dear ImGui 1.86 with its GLFW/OpenGL 3 backends
  xvfb xauth libgl1-mesa-dri            # the GUI test draws in a virtual X display with Mesa's OpenGL
  fonts-dejavu-core                     # glueprof-gui's default font (assets/fonts/README.md)
  patchelf                              # the GPU check's test: the CI binary loads without its RUNPATH
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

here=$(cd "$(dirname "$0")" && pwd)
if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} Debian packages already installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "bootstrap: missing packages (${missing[*]}) and not root; run as root or install sudo" >&2
      exit 2
    fi
  fi
  echo "bootstrap: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "bootstrap: installed ${missing[*]}"
fi
exec "$here/torch-env.sh"
