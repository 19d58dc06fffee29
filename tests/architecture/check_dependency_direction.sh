#!/usr/bin/env bash
# Fails (exit 1, listing each offending line) when a source file includes what the dependency
# direction of docs/architecture.md forbids, or when a file of app/ (the CLI, the GUI, the reports)
# reaches a torch header through the project's own includes.
# Usage: check_dependency_direction.sh SOURCE_ROOT
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
  "profiler (outside torch_ops, session and inject), analyzers and app/report must not include torch" \
  "profiler/torch_ops profiler/session profiler/inject"
rule "profiler analyzers optimizations reference_trainer app/cli app/report app/usecases" \
  '#include *[<"](imgui|GLFW/|backends/imgui)' "only app/gui may include ImGui/GLFW"
rule "profiler analyzers optimizations reference_trainer app" '#include *[<"]cupti' \
  "only profiler/cupti may include cupti.h" "profiler/cupti"
rule "profiler analyzers optimizations reference_trainer" '#include *[<"](\.\./)*app/' \
  "nothing may depend on app/"
rule "profiler analyzers" '#include *[<"](optimizations|reference_trainer)/' \
  "profiler and analyzers must not depend on the trainer or the optimizations"
rule "optimizations" '#include *[<"]reference_trainer/' \
  "optimizations must not depend on the reference trainer"
rule "optimizations" '#include *[<"]analyzers/' \
  "optimizations must not depend on analyzers (an analysis over a trace is an analyzer)"
rule "optimizations" '#include *[<"]profiler/cupti/' \
  "optimizations annotate through profiler/host and profiler/torch_ops, not CUPTI"
rule "analyzers" '#include *[<"]profiler/(host|torch_ops|cupti)/' \
  "analyzers are pure functions over a TraceModel: profiler/core only"
rule "app/report" '#include *[<"](reference_trainer|optimizations|profiler/(host|torch_ops|cupti))/' \
  "app/report renders results: of analyzers, profiler/import and profiler/core only"
rule "app/report" '#include *[<"]app/(usecases|cli|gui)/' \
  "app/report renders results: the use cases and the faces call it, never the other way"
rule "profiler/core" '#include *[<"](profiler/(host|torch_ops|cupti|import)|analyzers)/' \
  "profiler/core depends on nothing else of glueprof"
rule "profiler/import" '#include *[<"](profiler/(host|torch_ops|cupti)|analyzers)/' \
  "profiler/import (trace readers) depends on profiler/core only"

rule "profiler/ranks" '#include *[<"](profiler/(host|torch_ops|cupti|import|session|inject)|analyzers)/' \
  "profiler/ranks (rank environment, rank files, their merge) depends on profiler/core only"
rule "app/usecases/ChildProcess.cpp app/usecases/ChildProcess.h app/usecases/ProfiledProgram.cpp
      app/usecases/ProfiledProgram.h app/usecases/ProfileRequest.cpp app/usecases/ProfileRequest.h
      app/usecases/ExecAbRequest.cpp app/usecases/ExecAbRequest.h" \
  '#include *[<"](reference_trainer|optimizations)/' \
  "profile and ab --exec (a user's own program) do not depend on the reference trainer"

rule "app/usecases/StoredRuns.cpp app/usecases/StoredRuns.h app/usecases/CompareRequest.cpp
      app/usecases/CompareRequest.h app/usecases/GateRequest.cpp app/usecases/GateRequest.h
      app/usecases/ImportRequest.cpp app/usecases/ImportRequest.h" \
  '#include *[<"](reference_trainer|optimizations|profiler/(host|torch_ops|cupti|session|inject))/' \
  "the database's use cases (import, report, advise, export, compare, check) read traces and stored runs only"

rule "profiler/cupti" '#include *[<"](profiler/(host|torch_ops)|analyzers)/' \
  "profiler/cupti depends on profiler/core only (the CLI wires it to HostTracer)"

# The faces (every file of app/: the CLI, the GUI, the reports) build without torch: what needs ATen
# sits behind reference_trainer's torch-free headers. Follow their "project" includes transitively
# and fail on any file reached that includes a torch header.
declare -A visited
torch_free_walk() {
  local file=$1 chain=$2
  [ -n "${visited[$file]:-}" ] && return
  visited[$file]=1
  [ -f "$file" ] || return
  if grep -qE '#include *[<"](torch/|ATen/|c10/)' "$file"; then
    echo "torch reached from a torch-free face: ${chain:+$chain -> }$file"
    status=1
  fi
  local inc
  for inc in $(grep -oE '^#include *"[^"]+"' "$file" | sed -E 's/^#include *"([^"]+)"/\1/'); do
    torch_free_walk "$inc" "${chain:+$chain -> }$file"
  done
}
torch_free_faces=$(find app -type f \( -name '*.cpp' -o -name '*.h' \) 2>/dev/null)
for face in $torch_free_faces; do
  visited=()
  torch_free_walk "$face" ""
done

[ $status -eq 0 ] && echo "dependency direction: ok"
exit $status
