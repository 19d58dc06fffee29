#!/usr/bin/env bash
# The dependency checker must fail on a tree where analyzers include torch, and pass on a clean one.
set -u
checker=${1:?usage: checker_self_test.sh CHECKER}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/analyzers" "$tree/profiler/core"
printf '#include "profiler/core/Event.h"\n' > "$tree/analyzers/Clean.cpp"
"$checker" "$tree" >/dev/null || { echo "checker rejected a clean tree"; exit 1; }
printf '#include <torch/torch.h>\n' > "$tree/analyzers/Bad.cpp"
if "$checker" "$tree" >/dev/null; then
  echo "checker accepted analyzers including torch"
  exit 1
fi
rm "$tree/analyzers/Bad.cpp"
# A GUI file that reaches torch through a project header must fail too.
mkdir -p "$tree/app/gui" "$tree/reference_trainer"
printf '#include <torch/torch.h>\n' > "$tree/reference_trainer/Heavy.h"
printf '#include "reference_trainer/Heavy.h"\n' > "$tree/app/gui/Panel.cpp"
if "$checker" "$tree" >/dev/null; then
  echo "checker accepted the GUI reaching torch through a header"
  exit 1
fi
echo "checker self-test: ok"
