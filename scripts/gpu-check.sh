#!/usr/bin/env bash
# The one script to run on a machine with an NVIDIA GPU and a CUDA libtorch (docs/gpu.md).
# Runs the glueprof that CI built (build/release/app/cli/glueprof, carried with the tree, or
# --binary) against the machine's own torch (a Python torch install, found through
# scripts/torch_layout.py), or, when that binary is absent or does not load there, configures a
# headless build against the machine's own CUDA toolkit and torch; runs `glueprof ab --all` on GPU presets
# sized for a few minutes each, and writes into OUTDIR: doctor.txt, one database, A/B JSON and
# Markdown report per case, and summary.md (one page).
#
# Usage: scripts/gpu-check.sh OUTDIR [--dry-run | --summary-only] [--only=LIST] [--binary=PATH]
#   --dry-run  check the prerequisites and print the plan, build and run nothing (any machine; exit 0);
#              with a binary, this checks that its every dynamic dependency resolves against
#              PYTHON's torch (a torch 2.11 site-packages layout) and the system
#   --binary=PATH  the glueprof to run (default: build/release/app/cli/glueprof when present)
#   --only=LIST  run only these cases (comma-separated: build, qwen3-0.6b, llama-3.2-1b, gpt-oss-moe,
#              offload-heavy, pipeline, ddp); the build is incremental in OUTDIR/build (every call makes sure
#              it is there; --only=build does only that), so a GPU session with a per-command time limit
#              can split the check into calls on one OUTDIR, each case under 540 s
#   --summary-only  rewrite OUTDIR/summary.md from the files an earlier run left there (any machine;
#              exit 0; a case whose files are missing or broken says so in its section)
# Exit codes: 0 done (or dry run), 2 a prerequisite is missing (the message says which and how to fix),
# 1 the build or a run failed (its log is in OUTDIR).
set -uo pipefail

usage() { echo "usage: scripts/gpu-check.sh OUTDIR [--dry-run | --summary-only] [--only=LIST] [--binary=PATH]" >&2; exit 2; }
out="" dry=0 summary_only=0 only="" binary=""
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry=1 ;;
    --summary-only) summary_only=1 ;;
    --only=*) only=${arg#--only=} ;;
    --binary=*) binary=${arg#--binary=} ;;
    -h|--help) sed -n '2,/^# 1 the build/p' "$0"; exit 0 ;;
    -*) echo "gpu-check: unknown option $arg" >&2; usage ;;
    *) [ -z "$out" ] && out=$arg || usage ;;
  esac
done
[ -n "$out" ] || usage
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
missing=()
fixes=()
say() { printf '  %-22s %s\n' "$1" "$2"; }
need() { missing+=("$1"); fixes+=("$2"); say "$1" "MISSING: $2"; }

# The plan: each case is a preset and options sized so `ab --all` ends in about two minutes on one
# H100/H200-class GPU (3 blocks x 3 steps per arm after 2 warm-up steps).
schedule="--steps 3 --warmup 2 --repeats 3"
# Each case must fit one 10-minute command of a GPU session (the build is a case of its own:
# --only=build), so no case may run longer than this.
case_timeout=540
cases=(
  "qwen3-0.6b|--preset qwen3-0.6b --seq-len 2048|packed sequences on Qwen3-0.6B (LoRA r16)"
  "llama-3.2-1b|--preset llama-3.2-1b --seq-len 2048|packed sequences on Llama-3.2-1B (LoRA r16)"
  "gpt-oss-moe|--preset gpt-oss-20b --scale 0.25 --seq-len 1024|MoE routing on gpt-oss-20b shapes at scale 0.25"
  "offload-heavy|--preset llama-3.2-1b --seq-len 4096 --lora-rank 0|activation offload: full fine-tuning, long sequences"
)
# The pipeline executor on the GPU (one stream per worker): an uneven Looped-BFS partition against
# RoundPipe, each run's executed bubble, and its replay with the costs it measured.
pipeline_opts="--preset qwen3-0.6b --seq-len 1024 --opt roundpipe --workers 2 --partition 20,4,4,0"
# Data parallelism over NCCL: ddp_overlap's A/B with one rank per GPU of the machine (full fine-tuning,
# so the gradients are large). NCCL takes one GPU per rank: on a one-GPU machine the case checks that
# two ranks are refused with the reason instead.
ddp_opts="--preset qwen3-0.6b --seq-len 1024 --lora-rank 0 --opt ddp_overlap"
# --only: a case runs when the list is empty or names it; an unknown name is a usage error.
selected() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
known=" build pipeline ddp "
for c in "${cases[@]}"; do known+="${c%%|*} "; done
for name in ${only//,/ }; do
  [[ "$known" == *" $name "* ]] || { echo "gpu-check: --only: unknown case '$name' (cases:$known)" >&2; exit 2; }
done
# summary.md (and stdout) from what the cases left in OUTDIR; a missing or broken file is named there.
summarize() {
"$python" - "$out" "$pipeline_opts" "$ddp_opts" "${cases[@]}" <<'PY'
import json, os, sys
def speedup_text(metric):
    if not metric:
        return "-"
    if metric.get("speedup_ci") is None:
        return "%.3fx (no interval: %s %s)" % (metric["speedup"], metric.get("blocks", "?"), "blocks")
    return "%.3fx [%.3f, %.3f] (%s blocks)" % (metric["speedup"], metric["speedup_ci"][0], metric["speedup_ci"][1], metric.get("blocks", "?"))
out, pipeline_opts, ddp_opts, cases = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
lines = ["# glueprof GPU check", ""]
doctor = open(os.path.join(out, "doctor.txt")).read().strip()
lines += ["```", doctor, "```", ""]
for case in cases:
    name, opts, what = case.split("|")
    lines += ["## %s" % what, "", "`glueprof ab --all --device cuda %s`" % opts, ""]
    if not os.path.exists(os.path.join(out, name + ".json")):
        lines += ["not run (no %s.json here)" % name, ""]
        continue
    try:
        report = json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        lines += ["failed: %s (see %s.log)" % (e, name), ""]
        continue
    lines += ["GPU capture: %s" % report.get("gpu_capture", "?"), ""]
    lines += ["| toggle | target | verdict | primary metric | speedup [95% CI] | host syncs/step | sync blocked ms | copy overlap | pipeline bubble | lost |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for c in report.get("comparisons", []):
        metric = next((m for m in c["metrics"] if m["name"] == c["primary_metric"]), None)
        speed = speedup_text(metric)
        target = c["target"]["text"] if c.get("target") else "-"
        hs = c.get("host_syncs_per_step")
        sb = c.get("sync_blocked_ms")
        ov = c.get("copy_overlap")
        pb = c.get("pipeline_bubbles")
        # What the capture lost (dropped events, ...); machine_load is what else ran, not a loss.
        lost = sum(d["value"] for d in c.get("diagnostics", []) if d["name"] != "machine_load")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["toggle"], target, c["verdict"], c["primary_metric"], speed,
            "%g -> %g" % (hs["baseline"], hs["optimized"]) if hs else "-",
            "%.3f -> %.3f" % (sb["baseline"], sb["optimized"]) if sb else "-",
            "%.2f -> %.2f" % (ov["baseline"]["overlap_ratio"], ov["optimized"]["overlap_ratio"]) if ov else "-",
            "%.1f%% -> %.1f%%" % (100 * pb["baseline"]["ratio"], 100 * pb["optimized"]["ratio"]) if pb else "-",
            lost))
    for s in report.get("skipped", []):
        lines.append("| %s | - | skipped | - | - | - | - | - | - | %s |" % (s["toggle"], s["reason"]))
    lines.append("")
lines += ["## Pipelines: Looped-BFS vs RoundPipe executed on the GPU", "", "`glueprof ab --device cuda %s`" % pipeline_opts, ""]
def pipeline_lines():
    if not os.path.exists(os.path.join(out, "pipeline.json")):
        return ["not run (no pipeline.json here)"]
    try:
        ab = json.load(open(os.path.join(out, "pipeline.json")))["comparisons"][0]
        runs = json.load(open(os.path.join(out, "pipeline-report.json")))["runs"]
        metric = next(m for m in ab["metrics"] if m["name"] == ab["primary_metric"])
        rows = ["%s: %s %s" % (ab["verdict"], ab["primary_metric"], speedup_text(metric)), "",
                "| run | executed bubble | replayed bubble | replayed makespan ms |", "|---|---|---|---|"]
        for i, run in enumerate(runs[:2], start=1):
            replay = json.load(open(os.path.join(out, "pipeline-replay-%d.json" % i)))
            rows.append("| %s | %.1f%% | %.1f%% | %.2f |" % (run.get("label", i), 100 * run["bubbles"]["ratio"],
                                                         100 * replay["bubble_ratio"], replay["makespan_ms"]))
        return rows
    except Exception as e:
        return ["failed: %s (see pipeline.log)" % e]
lines += pipeline_lines()
lines.append("")
lines += ["## Data parallelism: ddp_overlap with NCCL, one rank per GPU", ""]
if os.path.exists(os.path.join(out, "nccl.txt")):
    lines += ["NCCL in this build: %s" % open(os.path.join(out, "nccl.txt")).read().strip(), ""]
def ddp_lines():
    refusal = os.path.join(out, "ddp-refusal.txt")
    if os.path.exists(refusal):
        return ["one GPU here: ddp_overlap needs 2 or more ranks and NCCL takes one GPU per rank, so it did not run.",
                "`glueprof run --nproc 2 --device cuda` was refused as it should be:", "", "```",
                open(refusal).read().strip(), "```"]
    if not os.path.exists(os.path.join(out, "ddp.json")):
        return ["not run (no ddp.json here)"]
    try:
        report = json.load(open(os.path.join(out, "ddp.json")))
        c = report["comparisons"][0]
        metric = next(m for m in c["metrics"] if m["name"] == c["primary_metric"])
        target = c.get("target") or {}
        ranks = c.get("ranks") or {}
        def overlap(arm):
            values = (ranks.get(arm) or {}).get("comm_compute_overlap") or []
            return "/".join("-" if v is None else "%.2f" % v for v in values) or "-"
        def straggler(arm):
            value = (ranks.get(arm) or {}).get("median_straggler_ms")
            return "-" if value is None else "%.3f" % value
        return ["`glueprof ab --nproc %s --device cuda %s`" % ((report.get("rank_sets") or [{}])[0].get("world_size", "N"), ddp_opts), "",
                "%s: %s %s; target: %s" % (c["verdict"], c["primary_metric"], speedup_text(metric), target.get("text", "-")), "",
                "| arm | comm/compute overlap per rank | median straggler ms |", "|---|---|---|",
                "| baseline (per-parameter all-reduce) | %s | %s |" % (overlap("baseline"), straggler("baseline")),
                "| ddp_overlap (buckets during backward) | %s | %s |" % (overlap("optimized"), straggler("optimized"))]
    except Exception as e:
        return ["failed: %s (see ddp.log)" % e]
lines += ddp_lines()
lines.append("")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
}

if [ "$summary_only" -eq 1 ]; then
  [ -d "$out" ] || { echo "gpu-check: $out does not exist: run scripts/gpu-check.sh $out first" >&2; exit 2; }
  [ -f "$out/doctor.txt" ] || echo "(no doctor.txt: the build did not get that far)" >"$out/doctor.txt"
  summarize
  exit 0
fi

echo "gpu-check: prerequisites"
# The driver and a GPU.
if command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null) && [ -n "$gpus" ]; then
  say "NVIDIA GPU" "$(printf '%s' "$gpus" | head -1)$( [ "$(printf '%s\n' "$gpus" | wc -l)" -gt 1 ] && echo " (+ more)")"
else
  need "NVIDIA GPU" "nvidia-smi finds no GPU: install the NVIDIA driver on a machine with a GPU"
fi
# A CUDA libtorch through Python: scripts/torch_layout.py says where things are (torch's lib folder,
# the NVIDIA wheels beside it, the NCCL it was built with): no globbing of install layouts.
# Its lines (key=value) become torch_KEY; those read here: version, cuda, cxx11_abi, lib, nccl_root,
# nccl_version, sys_prefix, gpus.
torch_version="" torch_cuda="" torch_cxx11_abi="" torch_lib="" torch_nccl_root="" torch_nccl_version=""
torch_sys_prefix="" torch_gpus=0
if command -v "$python" >/dev/null 2>&1 && layout=$("$python" "$repo/scripts/torch_layout.py" --gpus 2>/dev/null); then
  while IFS='=' read -r key value; do
    [ "$value" = "-" ] && value=""
    printf -v "torch_$key" '%s' "$value"
  done <<<"$(sed 's/^torch_//' <<<"$layout")"
  if [ -z "$torch_cuda" ]; then
    need "CUDA libtorch" "torch $torch_version is a CPU build: pip install a CUDA wheel of torch"
  elif [ "$torch_cxx11_abi" != "1" ]; then
    # glueprof links the system's C++ libraries (std::string across the boundary).
    need "CUDA libtorch" "torch $torch_version was built with the pre-C++11 ABI: use a cxx11-ABI build (pip wheels from torch 2.6 on)"
  elif [ "${torch_gpus:-0}" -eq 0 ]; then
    say "CUDA libtorch" "torch $torch_version (CUDA $torch_cuda) in $torch_lib, but torch.cuda.is_available() is False"
    need "GPU for torch" "torch sees no GPU: check the driver (nvidia-smi) and CUDA_VISIBLE_DEVICES"
  else
    say "CUDA libtorch" "torch $torch_version (CUDA $torch_cuda) in $torch_lib; $torch_gpus GPU(s) visible to it"
  fi
else
  need "CUDA libtorch" "no Python torch ($python): pip install torch (a CUDA wheel), or set PYTHON=/path/to/python"
fi

# The binary: the one CI built (make, on a machine without a GPU) and carried here with the tree,
# run against this machine's torch through LD_LIBRARY_PATH (it wins over the build's RUNPATH, which
# names the build machine's torch environment). Its every dynamic dependency must resolve against
# torch's lib folder and the system, and it must have been built against this torch's version (the
# C++ ABI of libtorch changes between versions; the loader would not notice). Both are checked on a
# copy without RUNPATH (patchelf) where that tool exists, so the check cannot lean on the build
# machine's folders. Otherwise glueprof is built here.
# glueprof hands every command that needs libtorch to glueprof-torch beside it (docs/cli.md, "Two
# executables"): that is the one checked against torch, and both travel together.
binary_fits() {  # BINARY -> 0 when it loads against this torch and was built for it; else prints why
  local dir loaded built status=0
  if [ ! -x "$(dirname "$1")/glueprof-torch" ]; then
    echo "no glueprof-torch beside it: carry build/release/app/cli/glueprof-torch with it"
    return 1
  fi
  dir=$(mktemp -d)
  cp "$1" "$dir/glueprof"
  cp "$(dirname "$1")/glueprof-torch" "$dir/glueprof-torch"
  if command -v patchelf >/dev/null 2>&1; then
    patchelf --remove-rpath "$dir/glueprof"
    patchelf --remove-rpath "$dir/glueprof-torch"
  fi
  loaded=$(LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$dir/glueprof" "$dir/glueprof-torch" 2>&1)
  if grep -q "not found" <<<"$loaded"; then
    grep "not found" <<<"$loaded" | sed 's/^[[:space:]]*//' | tr '\n' ';'
    status=1
  else
    built=$(LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$dir/glueprof" doctor 2>&1 |
            sed -n 's/^libtorch  *\([^ ]*\).*/\1/p')
    if [ "${built%%+*}" != "${torch_version%%+*}" ]; then
      echo "built against libtorch ${built:-?}, this torch is $torch_version"
      status=1
    fi
  fi
  rm -rf "$dir"
  return $status
}
mode=build
if [ -z "$binary" ] && [ -x "$repo/build/release/app/cli/glueprof" ]; then binary="$repo/build/release/app/cli/glueprof"; fi
# glueprof looks for glueprof-torch beside its own resolved path: so does this check.
if [ -n "$binary" ] && [ -e "$binary" ]; then binary=$(readlink -f "$binary"); fi
if [ -n "$binary" ]; then
  if [ ! -x "$binary" ]; then
    need "glueprof binary" "--binary=$binary is not an executable file: carry build/release/app/cli/glueprof and glueprof-torch, or omit --binary to build here"
  elif [ -z "$torch_lib" ]; then
    say "glueprof binary" "$binary: cannot check it without torch; building here instead"
  elif misfit=$(binary_fits "$binary"); then
    mode=carried
    say "glueprof binary" "$binary and glueprof-torch beside it ($(( ($(stat -c %s "$binary") + $(stat -c %s "$(dirname "$binary")/glueprof-torch")) / 1048576 )) MiB), built against this torch's version: every dynamic dependency resolves against torch $torch_version's $torch_lib and the system$(command -v patchelf >/dev/null 2>&1 && echo ' (checked without its RUNPATH)')"
  else
    say "glueprof binary" "$binary does not fit here ($misfit): building here instead"
  fi
fi

if [ "$mode" = build ]; then
  # nvcc: CMake's FindCUDAToolkit (through torch's config) takes the toolkit of the nvcc it finds; it
  # must be the CUDA major version torch was built with.
  if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    nvcc="$CUDA_HOME/bin/nvcc"  # CUDA_HOME wins over whatever nvcc is on PATH
  else
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  fi
  toolkit_root=""
  if [ -x "$nvcc" ]; then
    nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9]*\).*/\1/p')
    toolkit_root=$(cd "$(dirname "$nvcc")/.." && pwd)
    if [ -n "$torch_cuda" ] && [ "${nvcc_version%%.*}" != "${torch_cuda%%.*}" ]; then
      need "CUDA toolkit" "nvcc $nvcc_version ($nvcc) but torch was built with CUDA $torch_cuda: install CUDA ${torch_cuda%%.*}.x's toolkit or set CUDA_HOME to it"
    else
      say "CUDA toolkit" "nvcc $nvcc_version at $toolkit_root"
    fi
  else
    need "CUDA toolkit" "no nvcc: install the CUDA toolkit matching torch's CUDA ($torch_cuda), or set CUDA_HOME"
  fi
  # CUPTI's and NCCL's headers: the wheels beside torch (cmake/GlueprofTorch.cmake finds them through
  # the same Python), else the toolkit's.
  [ -n "$torch_nccl_root" ] && say "NCCL" "$torch_nccl_root (torch's: ${torch_nccl_version:-unknown})" ||
    say "NCCL" "no nvidia-nccl wheel beside torch: the build looks in the toolkit; without nccl.h the ddp case fails"
  # The build dependencies gathered where Debian's archive is (scripts/gather-build-deps.sh) and
  # carried with the tree, for GPU machines without a package archive: unpacked into a private
  # prefix (OUTDIR/deps; a temporary one for --dry-run), never into /.
  deps_prefix=""
  if compgen -G "$repo/deps/debs/*.deb" >/dev/null; then
    if [ "$dry" -eq 1 ]; then deps_root=$(mktemp -d); trap 'rm -rf "$deps_root"' EXIT; else deps_root="$out/deps"; fi
    # Debian 12's libraries need glibc 2.34 or later (libsqlite3 does).
    glibc=$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9]*\.[0-9]*$' || echo 0)
    if [ "$(printf '%s\n2.34\n' "$glibc" | sort -V | head -1)" != "2.34" ]; then
      need "build deps bundle" "glibc $glibc here; the bundle's Debian 12 libraries need 2.34 or later: install the -dev packages from this machine's own distribution"
    elif deps_prefix=$("$repo/scripts/unpack-build-deps.sh" "$repo/deps/debs" "$deps_root"); then
      say "build deps bundle" "$(ls "$repo"/deps/debs/*.deb | wc -l) packages from deps/debs, unpacked in $deps_prefix"
    else
      need "build deps bundle" "deps/debs could not be unpacked: gather it again with scripts/gather-build-deps.sh"
      deps_prefix=""
    fi
  fi
  # Build tools and the libraries glueprof's headless build needs (fmt comes with libtorch). Looked
  # for in the unpacked bundle, the system and the Python environment's prefix (conda installs
  # headers there).
  command -v cmake >/dev/null 2>&1 && say "cmake" "$(cmake --version | head -1)" || need "cmake" "apt-get install cmake (or pip install cmake)"
  command -v c++ >/dev/null 2>&1 && say "C++ compiler" "$(c++ --version | head -1)" || need "C++ compiler" "apt-get install g++"
  find_header() {  # NAME PATH-UNDER-INCLUDE
    for dir in ${deps_prefix:+"$deps_prefix/include"} /usr/include /usr/local/include "$torch_sys_prefix/include" ${CONDA_PREFIX:+"$CONDA_PREFIX/include"}; do
      [ -n "$dir" ] && [ -e "$dir/$2" ] && { echo "$dir"; return 0; }
    done
    return 1
  }
  sqlite_inc=$(find_header sqlite sqlite3.h) && say "SQLite headers" "$sqlite_inc" ||
    need "SQLite headers" "apt-get install libsqlite3-dev, or carry the bundle of scripts/gather-build-deps.sh (or conda install sqlite)"
  find_header json nlohmann/json.hpp >/dev/null && say "nlohmann json" "$(find_header json nlohmann/json.hpp)" ||
    need "nlohmann json" "apt-get install nlohmann-json3-dev (or conda install -c conda-forge nlohmann_json)"
  find_header cli11 CLI/CLI.hpp >/dev/null && say "CLI11" "$(find_header cli11 CLI/CLI.hpp)" ||
    need "CLI11" "apt-get install libcli11-dev (or conda install -c conda-forge cli11)"
  find_header gloo gloo/context.h >/dev/null && say "Gloo headers" "$(find_header gloo gloo/context.h)" ||
    need "Gloo headers" "apt-get install libgloo-dev, or carry the bundle of scripts/gather-build-deps.sh"
fi

build="$out/build"
echo
echo "gpu-check: plan"
if [ "$mode" = carried ]; then
  echo "  1. run the carried $binary against this machine's torch (LD_LIBRARY_PATH=$torch_lib)"
else
  echo "  1. configure and build (headless: no GUI, tests or benchmarks) in $build"
fi
echo "  2. glueprof doctor > $out/doctor.txt"
n=3
for c in "${cases[@]}"; do
  IFS='|' read -r name opts what <<<"$c"
  selected "$name" || continue
  echo "  $n. $what: glueprof ab --all --device cuda $opts $schedule --db $out/$name.sqlite"
  n=$((n + 1))
done
if selected pipeline; then
  echo "  $n. pipelines: glueprof ab --device cuda $pipeline_opts $schedule --db $out/pipeline.sqlite, its report and replays"
  n=$((n + 1))
fi
if selected ddp; then
  if [ "${torch_gpus:-0}" -ge 2 ]; then
    echo "  $n. data parallelism: glueprof ab --nproc $torch_gpus --device cuda $ddp_opts $schedule --db $out/ddp.sqlite"
  else
    echo "  $n. data parallelism: one GPU, so only the refusal of glueprof run --nproc 2 --device cuda (NCCL: one GPU per rank)"
  fi
  n=$((n + 1))
fi
echo "  $n. $out/summary.md from the A/B JSON (of every case run into $out so far)"

if [ "$dry" -eq 1 ]; then
  echo
  if [ ${#missing[@]} -gt 0 ]; then
    echo "gpu-check: dry run: ${#missing[@]} prerequisite(s) missing here (${missing[*]}); nothing was built or run"
  else
    echo "gpu-check: dry run: every prerequisite is present; nothing was built or run"
  fi
  exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpu-check: missing: ${missing[*]}" >&2
  for f in "${fixes[@]}"; do echo "  - $f" >&2; done
  exit 2
fi

mkdir -p "$out" || { echo "gpu-check: cannot create $out" >&2; exit 2; }
if [ "$mode" = carried ]; then
  glueprof="$binary"
  export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  echo
  echo "gpu-check: building"
  prefixes="${deps_prefix:+$deps_prefix;}$torch_sys_prefix${CONDA_PREFIX:+;$CONDA_PREFIX}"
  sqlite_lib_arg=()
  if [ -n "$deps_prefix" ] && [ "$sqlite_inc" = "$deps_prefix/include" ]; then
    bundle_sqlite=$(ls "$deps_prefix"/lib/*/libsqlite3.so 2>/dev/null | head -1)
    if [ -z "$bundle_sqlite" ]; then
      echo "gpu-check: the bundle has SQLite's headers but not libsqlite3.so: gather it again with scripts/gather-build-deps.sh" >&2
      exit 2
    fi
    sqlite_lib_arg=(-DSQLite3_LIBRARY="$bundle_sqlite")
    # glueprof runs against the bundle's libsqlite3 too; the others are found through the RUNPATH.
    export LD_LIBRARY_PATH="$(dirname "$bundle_sqlite")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  # GLUEPROF_PYTHON: libtorch, the NCCL and CUPTI beside it (cmake/GlueprofTorch.cmake).
  # USE_SYSTEM_NVTX: torch 2.4-2.7's CMake config otherwise looks for CUDA::nvToolsExt, which CUDA 13
  # no longer ships (NVTX3 is header-only).
  if ! cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGLUEPROF_GUI=OFF -DGLUEPROF_BUILD_TESTS=OFF \
        -DGLUEPROF_BUILD_BENCH=OFF -DGLUEPROF_PYTHON="$python" -DCMAKE_PREFIX_PATH="$prefixes" \
        -DSQLite3_INCLUDE_DIR="$sqlite_inc" -DUSE_SYSTEM_NVTX=ON -DCUDAToolkit_ROOT="$toolkit_root" \
        "${sqlite_lib_arg[@]}" >"$out/configure.log" 2>&1; then
    echo "gpu-check: configure failed: see $out/configure.log" >&2; exit 1
  fi
  cp "$build/nccl-probe.log" "$out/" 2>/dev/null || true
  if ! cmake --build "$build" -j "$(nproc)" --target glueprof glueprof-torch >"$out/build.log" 2>&1; then
    echo "gpu-check: build failed: see $out/build.log" >&2; exit 1
  fi
  glueprof="$build/app/cli/glueprof"
fi
# libcupti: glueprof chooses it itself (an already-loaded one, the wheels beside the loaded CUDA
# libtorch, the toolkits; docs/gpu.md "Which libcupti"); doctor.txt says which it took, and whether
# NCCL (several ranks on CUDA) is built in, and why not (nccl.txt, for the summary).
"$glueprof" doctor >"$out/doctor.txt" 2>&1
cat "$out/doctor.txt"
sed -n 's/^NCCL (ranks on CUDA) *//p' "$out/doctor.txt" >"$out/nccl.txt"

status=0
for c in "${cases[@]}"; do
  IFS='|' read -r name opts what <<<"$c"
  selected "$name" || continue
  echo "gpu-check: $what"
  # shellcheck disable=SC2086
  if ! timeout "$case_timeout" "$glueprof" ab --all --device cuda $opts $schedule --json --db "$out/$name.sqlite" \
        --report "$out/$name.md" >"$out/$name.json" 2>"$out/$name.log"; then
    echo "gpu-check: $name failed: see $out/$name.log" >&2
    status=1
  fi
done

if selected pipeline; then
  echo "gpu-check: pipelines (Looped-BFS vs RoundPipe executed on the GPU)"
  # shellcheck disable=SC2086
  if timeout "$case_timeout" "$glueprof" ab --device cuda $pipeline_opts $schedule --json --db "$out/pipeline.sqlite" \
        >"$out/pipeline.json" 2>"$out/pipeline.log" &&
     "$glueprof" report --db "$out/pipeline.sqlite" --format json --out "$out/pipeline-report.json" >>"$out/pipeline.log" 2>&1; then
    for id in 1 2; do
      "$glueprof" simulate --replay "$id" --predict --json --db "$out/pipeline.sqlite" >"$out/pipeline-replay-$id.json" 2>>"$out/pipeline.log" ||
        { echo "gpu-check: replay of pipeline run $id failed: see $out/pipeline.log" >&2; status=1; }
    done
  else
    echo "gpu-check: pipeline failed: see $out/pipeline.log" >&2
    status=1
  fi
fi
if selected ddp; then
  echo "gpu-check: data parallelism (ddp_overlap over NCCL)"
  rm -f "$out/ddp-refusal.txt" "$out/ddp.json" "$out/ddp.sqlite" "$out/ddp.sqlite-wal" "$out/ddp.sqlite-shm"
  if [ "${torch_gpus:-0}" -ge 2 ]; then
    # shellcheck disable=SC2086
    if ! timeout "$case_timeout" "$glueprof" ab --nproc "$torch_gpus" --device cuda $ddp_opts $schedule --json \
          --db "$out/ddp.sqlite" --report "$out/ddp.md" >"$out/ddp.json" 2>"$out/ddp.log"; then
      echo "gpu-check: ddp failed: see $out/ddp.log" >&2
      status=1
    fi
  else
    # One GPU: two ranks must be refused before anything starts, with the reason and no database.
    "$glueprof" run --nproc 2 --device cuda --preset tiny --steps 1 --db "$out/ddp.sqlite" >"$out/ddp.log" 2>&1
    code=$?
    if [ "$code" -ne 0 ] && [ ! -e "$out/ddp.sqlite" ] && grep -q "GPU 1 is wanted" "$out/ddp.log"; then
      { echo "exit $code:"; cat "$out/ddp.log"; } >"$out/ddp-refusal.txt"
    else
      echo "gpu-check: ddp: two ranks on one GPU were not refused as expected (exit $code): see $out/ddp.log" >&2
      status=1
    fi
  fi
fi
summarize
echo "gpu-check: results in $out (summary.md)"
exit $status
