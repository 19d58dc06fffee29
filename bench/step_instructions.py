#!/usr/bin/env python3
"""What `glueprof profile` adds to a step of the example programs, beside torch.profiler, counted in
instructions (callgrind) instead of time: the same figure on every run, where a step's time moves
by 10-30% from one process to the next on a shared machine (bench/profile_overhead.py).

For each example program and each mode (none, glueprof profile, torch.profiler with CPU
activities) the program runs twice under callgrind, for N1 and N2 steps, with one intra-op thread
(OMP_NUM_THREADS=1: spinning OpenMP workers would count at random) and PYTHONHASHSEED=0; the
difference of the two runs' instructions over N2 - N1 is one steady step: start-up, imports, the
model's construction and the first steps cancel out. Two counts per mode:
  main thread  the program's thread, where every op, the autograd engine (on CPU) and the
               tracers' callbacks run: what a step waits for. torch.profiler's count stops where
               `disableProfiler` is entered (callgrind dumps there), before it processes its
               records.
  all threads  every thread's every instruction: glueprof's writer thread storing into SQLite
               beside the program, and torch.profiler's processing of its records at its stop,
               included: each tracer's whole cost, wherever it runs.

Usage: bench/step_instructions.py GLUEPROF OUT [--python PY] [--steps N1 N2] [--program NAME]...
       (about 2-4 minutes a run under callgrind, 12 runs: about 35 minutes on two cores)
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PROGRAMS = {
    "packed_glue_train": [os.path.join(ROOT, "examples/python/packed_glue_train.py"),
                          "--layers", "4", "--seq-len", "256"],
    "hf_packed_llama": [os.path.join(ROOT, "examples/python/hf_packed_llama.py"),
                        "--layers", "4", "--seq-len", "256"],
}
MODES = ["none", "glueprof", "torch.profiler"]


def totals(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"step_instructions: no totals in {path}")


def instructions(out_dir, stem, mode):
    """(main thread, all threads) instructions callgrind counted in one run.

    The main thread (thread 1) runs the program, every op and the tracers' callbacks; for
    torch.profiler its count is the dump taken on entering disableProfiler (part 1), before the
    profiler processes its records. All threads: every thread's every part, the writer thread's
    SQLite work and torch.profiler's processing at its stop included."""
    every = [f for f in glob.glob(os.path.join(out_dir, f"{stem}.*-[0-9][0-9]"))]
    return totals(main_thread_profile(out_dir, stem, mode)), sum(totals(f) for f in every)


def run_stem(program, mode, steps):
    """The file name every file of one run_once starts with."""
    return f"callgrind.{program}.{mode.replace('.', '_')}.{steps}"


def main_thread_profile(out_dir, stem, mode):
    """The main thread's callgrind file of one run: for torch.profiler the dump taken on entering
    disableProfiler (part 1 of thread 1), else thread 1's only part."""
    part = ".1-01" if mode == "torch.profiler" else "-01"
    main = [f for f in glob.glob(os.path.join(out_dir, f"{stem}.*{part}"))
            if mode == "torch.profiler" or not f.endswith(".1-01")]
    if len(main) != 1:
        raise SystemExit(f"step_instructions: expected one main-thread profile for {stem}, found "
                         f"{sorted(main)} (see {out_dir}/{stem}.log)")
    return main[0]


def require_valgrind(script):
    """Exits with a one-line message where valgrind (and its callgrind_annotate) is missing."""
    if shutil.which("valgrind") is None:
        raise SystemExit(f"{script}: valgrind is not installed (apt-get install valgrind)")


def run_once(glueprof, python, program, mode, steps, out_dir):
    stem = run_stem(program, mode, steps)
    for old in glob.glob(os.path.join(out_dir, stem + ".*")):
        os.remove(old)
    valgrind = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
                f"--callgrind-out-file={os.path.join(out_dir, stem)}.%p"]
    if mode == "torch.profiler":
        valgrind.append("--dump-before=*disableProfiler*")
    command = valgrind + [python] + PROGRAMS[program] + ["--steps", str(steps)]
    if mode == "glueprof":
        # valgrind is not Python: glueprof runs it as it is and captures the Python it starts.
        command = [glueprof, "profile", "--db", os.path.join(out_dir, "steps.sqlite"),
                   "--"] + command
    elif mode == "torch.profiler":
        command.append("--torch-profiler")
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    with open(os.path.join(out_dir, stem + ".log"), "w") as log:
        subprocess.run(command, check=True, stdout=log, stderr=log, env=env)
    return instructions(out_dir, stem, mode)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("glueprof")
    parser.add_argument("out")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--steps", type=int, nargs=2, default=[2, 4], metavar=("N1", "N2"))
    parser.add_argument("--program", action="append", choices=sorted(PROGRAMS),
                        help="only this example (repeatable; default: both)")
    args = parser.parse_args()
    require_valgrind("step_instructions")
    n1, n2 = args.steps
    if not 1 <= n1 < n2:
        raise SystemExit("step_instructions: --steps N1 N2 needs 1 <= N1 < N2")
    os.makedirs(args.out, exist_ok=True)
    result = {}
    print(f"{'program':<18} {'mode':<15} {'main thread/step':>17} {'added':>12} {'share':>7}"
          f" {'all threads/step':>17} {'added':>12} {'share':>7}")
    for program in args.program or list(PROGRAMS):
        per_step = {}
        for mode in MODES:
            low = run_once(args.glueprof, args.python, program, mode, n1, args.out)
            high = run_once(args.glueprof, args.python, program, mode, n2, args.out)
            per_step[mode] = [(h - l) // (n2 - n1) for l, h in zip(low, high)]
        result[program] = {}
        for mode in MODES:
            row = {}
            line = f"{program:<18} {mode:<15}"
            for i, where in enumerate(("main_thread", "all_threads")):
                base = per_step["none"][i]
                added = per_step[mode][i] - base
                row[where] = {"instructions_per_step": per_step[mode][i], "added": added,
                              "added_share": added / base}
                line += f" {per_step[mode][i]:>17,} {added:>+12,} {added / base:>+7.1%}"
            result[program][mode] = row
            print(line)
        for where in ("main_thread", "all_threads"):
            torch_added = result[program]["torch.profiler"][where]["added"]
            ours = result[program]["glueprof"][where]["added"]
            ratio = ours / torch_added if torch_added > 0 else None
            result[program][f"glueprof_share_of_torch_profiler_{where}"] = ratio
            if ratio is not None:
                print(f"{program:<18} {where.replace('_', ' ')}: glueprof adds {ratio:.2f}x what "
                      f"torch.profiler adds per step")
    with open(os.path.join(args.out, "step_instructions.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
