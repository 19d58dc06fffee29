#!/usr/bin/env python3
"""Where the instructions a tracer adds to a step go, function by function: the per-step figure of
bench/step_instructions.py taken apart, so an optimization starts from what the program's thread
really pays and not from a micro-benchmark.

Runs one example program under callgrind for N1 and N2 steps with no tracing and with MODE
(`glueprof profile` or torch.profiler), exactly as step_instructions.py does (its run_once), then
reads each run's main-thread profile with `callgrind_annotate` (exclusive instructions per
function) and prints, per steady step, the instructions each function adds under MODE over no
tracing: (MODE at N2 - MODE at N1 - (none at N2 - none at N1)) / (N2 - N1). Start-up, imports,
glueprof's calibration and the first steps cancel out. Code callgrind cannot name (addresses
without a symbol) moves between runs and is summed into one row. Then the same total split into
GROUPS (glueprof's own code, torch.profiler's own code, torch's RecordFunction machinery, the
backward nodes' names, thread-local lookups, the rest),
the table of docs/profile.md.

Usage: bench/step_cost_by_function.py GLUEPROF OUT [--python PY] [--program NAME] [--mode MODE]
       [--steps N1 N2] [--top N] [--reuse]    (four callgrind runs: about 16 minutes on two cores
       with the default 3 and 6 steps, 11 with --steps 1 2; --reuse reads the profiles a
       previous run left in OUT and runs only those missing, e.g. to compare another MODE)
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import step_instructions  # noqa: E402  (the runs themselves, shared)

ROW = re.compile(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)")
UNNAMED = "(code without a symbol)"
# The split of docs/profile.md, first match wins: the name check's strcmp is called by glueprof.
GROUPS = [
    ("glueprof's own code", re.compile(r"glueprof::|strcmp")),
    # torch.profiler's own recording (ThreadLocalSubqueue::begin_op, its exit callback) before
    # the machinery: their argument lists name RecordFunction too.
    ("torch.profiler's own code", re.compile(r"^[^(]*torch::(autograd::)?profiler::")),
    ("torch's RecordFunction machinery", re.compile(
        r"RecordFunction|StepCallbacks|CallbackManager|CacheEntry|getStepCallbacks|"
        r"runRecordFunction|ObserverContext")),
    # With any FUNCTION-scope callback on, the autograd engine names each backward node it runs
    # ("autograd::engine::evaluate_function: MulBackward0") through c10::str, an ostringstream
    # whose locale set-up dynamic_casts its facets: torch.profiler pays it as well.
    ("torch's names for backward nodes (c10::str)", re.compile(
        r"c10::detail::_str_wrapper|basic_stringbuf|basic_streambuf|basic_ios|basic_ostream|"
        r"basic_stringstream|basic_ostringstream|dynamic_cast|do_dyncast|use_facet|has_facet|"
        r"locale")),
    ("__tls_get_addr (thread-local lookups)", re.compile(r"tls_get_addr")),
]
REST = "the rest"


def exclusive_by_function(path):
    """{function: exclusive instructions} of one profile; unnamed code in one row."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path], check=True,
                          capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            continue
        match = ROW.match(line)
        if not match:
            continue
        name = re.sub(r" \[/.*\]$", "", match.group(2))
        if name.startswith("???:0x"):
            name = UNNAMED
        costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def has_profile(out_dir, stem, mode):
    """Whether OUT holds the main-thread profile of that run (from an earlier invocation)."""
    try:
        step_instructions.main_thread_profile(out_dir, stem, mode)
        return True
    except SystemExit:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("glueprof")
    parser.add_argument("out")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--program", default="packed_glue_train",
                        choices=sorted(step_instructions.PROGRAMS))
    parser.add_argument("--mode", default="glueprof", choices=["glueprof", "torch.profiler"])
    parser.add_argument("--steps", type=int, nargs=2, default=[3, 6], metavar=("N1", "N2"))
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--reuse", action="store_true",
                        help="read the profiles already in OUT; run only the missing ones")
    args = parser.parse_args()
    step_instructions.require_valgrind("step_cost_by_function")
    n1, n2 = args.steps
    if not 1 <= n1 < n2:
        raise SystemExit("step_cost_by_function: --steps N1 N2 needs 1 <= N1 < N2")
    os.makedirs(args.out, exist_ok=True)
    costs = {}
    for mode in ("none", args.mode):
        for steps in (n1, n2):
            stem = step_instructions.run_stem(args.program, mode, steps)
            if not (args.reuse and has_profile(args.out, stem, mode)):
                step_instructions.run_once(args.glueprof, args.python, args.program, mode, steps,
                                           args.out)
            costs[(mode, steps)] = exclusive_by_function(
                step_instructions.main_thread_profile(args.out, stem, mode))
    names = set().union(*costs.values())

    def per_step(mode, name):
        return (costs[(mode, n2)].get(name, 0) - costs[(mode, n1)].get(name, 0)) / (n2 - n1)

    added = sorted(((per_step(args.mode, name) - per_step("none", name), name) for name in names),
                   reverse=True)
    total = sum(cost for cost, _ in added)
    print(f"{args.program}, {args.mode}: {total:,.0f} instructions added per step on the main "
          f"thread; the {args.top} functions adding most:")
    for cost, name in added[:args.top]:
        print(f"{cost:>14,.0f} {cost / total:>7.1%}  {name[:150]}")
    groups = {label: 0.0 for label, _ in GROUPS}
    groups[REST] = 0.0
    for cost, name in added:
        label = next((label for label, pattern in GROUPS if pattern.search(name)), REST)
        groups[label] += cost
    print("by group:")
    for label, cost in groups.items():
        print(f"{cost:>14,.0f} {cost / total:>7.1%}  {label}")


if __name__ == "__main__":
    main()
