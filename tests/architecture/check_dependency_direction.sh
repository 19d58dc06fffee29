#!/usr/bin/env bash
# Fails (exit 1, listing each offending line) when a source file includes what the dependency
# direction of ARCHITECTURE.md forbids. Usage: check_dependency_direction.sh SOURCE_ROOT
set -u
root=${1:?usage: check_dependency_direction.sh SOURCE_ROOT}
cd "$root" || exit 2
status=0

# $1 = folders the rule applies to, $2 = forbidden include regex, $3 = the rule, $4 = folders exempt
rule() {
  local dirs=$1 pattern=$2 text=$3 exempt=${4:-}
  local files
  files=$(find $dirs -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) 2>/dev/null)
  for exempt_dir in $exempt; do files=$(printf '%s\n' "$files" | grep -v "^$exempt_dir/"); done
  [ -z "$files" ] && return
  local hits
  hits=$(printf '%s\n' "$files" | xargs grep -nE "$pattern" 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "forbidden include: $text"
    echo "$hits"
    status=1
  fi
}

rule "profiler analyzers app/report" '#include *[<"](torch/|ATen/|c10/)' \
  "profiler (outside torch_ops), analyzers and app/report must not include torch" "profiler/torch_ops"
rule "profiler analyzers optimizations reference_trainer app/cli app/report" \
  '#include *[<"](imgui|GLFW/|backends/imgui)' "only app/gui may include ImGui/GLFW"
rule "profiler analyzers optimizations reference_trainer app" '#include *[<"]cupti' \
  "only profiler/cupti may include cupti.h" "profiler/cupti"
rule "profiler analyzers optimizations reference_trainer" '#include *[<"](\.\./)*app/' \
  "nothing may depend on app/"
rule "profiler analyzers" '#include *[<"](optimizations|reference_trainer)/' \
  "profiler and analyzers must not depend on the trainer or the optimizations"
rule "optimizations" '#include *[<"]reference_trainer/' \
  "optimizations must not depend on the reference trainer"
rule "profiler/core" '#include *[<"](profiler/(host|torch_ops|cupti)|analyzers)/' \
  "profiler/core depends on nothing else of glueprof"

rule "profiler/cupti" '#include *[<"](profiler/(host|torch_ops)|analyzers)/' \
  "profiler/cupti depends on profiler/core only (the CLI wires it to HostTracer)"

[ $status -eq 0 ] && echo "dependency direction: ok"
exit $status
