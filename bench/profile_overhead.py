#!/usr/bin/env python3
"""What `glueprof profile` adds to a program's step, beside torch.profiler (CPU activities).

For each example program (the plain-PyTorch packed loop and the transformers Llama), three ways,
interleaved round by round so a drift of the machine hits all alike:
  none            the program alone
  glueprof        glueprof profile -- the program
  torch.profiler  the program under torch.profiler.profile(activities=[CPU]) (its --torch-profiler)
Each run writes its own step times (--step-times, measured by the program, the same code in every
mode); the first step of each run (imports, construction, lazy init) is left out. Prints per program
and mode the median step and the overhead against `none`, and writes OUT/profile_overhead.json.

Then the same three ways on one op (bench/op_loop.py: a tight loop of torch.add on 8-element
tensors, best of 7 repeats per run, median over the rounds): what each tracer adds per aten op, in
ns. On a shared 2-core machine the step medians drift by 10-30% from run to run; the per-op figure
is the steady one, and a step's overhead is about ops per step x the added ns.

`--threads N` runs each program with N intra-op threads (OMP_NUM_THREADS, torch's default is one
per core): with 1 on two cores, glueprof's writer thread has a core of its own, as it has on a GPU
machine's many cores, and a step pays only what the program's own thread does.

Usage: bench/profile_overhead.py GLUEPROF OUT [--rounds N] [--python PY] [--threads N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PROGRAMS = {
    "packed_glue_train": [os.path.join(ROOT, "examples/python/packed_glue_train.py"),
                          "--steps", "12", "--layers", "4", "--seq-len", "256"],
    "hf_packed_llama": [os.path.join(ROOT, "examples/python/hf_packed_llama.py"),
                        "--steps", "12", "--layers", "4", "--seq-len", "256"],
}
MODES = ["none", "glueprof", "torch.profiler"]


def program_environment(threads):
    """This environment, with THREADS intra-op threads when given (0: torch's default)."""
    environment = dict(os.environ)
    if threads > 0:
        environment["OMP_NUM_THREADS"] = str(threads)
        environment["MKL_NUM_THREADS"] = str(threads)
    return environment


def run_once(glueprof, python, program, mode, out_dir, index, threads):
    times_file = os.path.join(out_dir, f"{program}-{mode}-{index}.txt")
    command = [python] + PROGRAMS[program] + ["--step-times", times_file]
    if mode == "glueprof":
        command = [glueprof, "profile", "--db", os.path.join(out_dir, "overhead.sqlite"), "--"] + command
    elif mode == "torch.profiler":
        command = command + ["--torch-profiler"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=program_environment(threads))
    with open(times_file) as f:
        times = [float(line) for line in f if line.strip()]
    return times[1:]


def op_loop_once(glueprof, python, mode, out_dir, index, threads):
    figure_file = os.path.join(out_dir, f"op_loop-{mode}-{index}.txt")
    command = [python, os.path.join(HERE, "op_loop.py"), "--out", figure_file]
    if mode == "glueprof":
        command = [glueprof, "profile", "--db", os.path.join(out_dir, "overhead.sqlite"), "--"] + command
    elif mode == "torch.profiler":
        command = command + ["--torch-profiler"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=program_environment(threads))
    with open(figure_file) as f:
        return float(f.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("glueprof")
    parser.add_argument("out")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    steps = {(p, m): [] for p in PROGRAMS for m in MODES}
    for index in range(args.rounds):
        order = MODES if index % 2 == 0 else list(reversed(MODES))
        for program in PROGRAMS:
            for mode in order:
                steps[(program, mode)] += run_once(args.glueprof, args.python, program, mode,
                                                   args.out, index, args.threads)
    per_op = {mode: [] for mode in MODES}
    for index in range(args.rounds):
        for mode in (MODES if index % 2 == 0 else list(reversed(MODES))):
            per_op[mode].append(
                op_loop_once(args.glueprof, args.python, mode, args.out, index, args.threads))
    result = {"threads": args.threads or "torch's default"}
    print(f"intra-op threads: {result['threads']}")
    print(f"{'program':<20} {'mode':<15} {'median step ms':>15} {'overhead':>9}  (steps)")
    for program in PROGRAMS:
        base = statistics.median(steps[(program, "none")])
        for mode in MODES:
            median = statistics.median(steps[(program, mode)])
            overhead = median / base - 1.0
            result.setdefault(program, {})[mode] = {"median_step_ms": median * 1e3,
                                                    "overhead": overhead,
                                                    "steps": len(steps[(program, mode)])}
            print(f"{program:<20} {mode:<15} {median * 1e3:>15.2f} {overhead:>+8.1%}  "
                  f"({len(steps[(program, mode)])})")
        g = result[program]["glueprof"]["overhead"]
        t = result[program]["torch.profiler"]["overhead"]
        result[program]["glueprof_share_of_torch_profiler_overhead"] = g / t if t > 0 else None
    base_ns = statistics.median(per_op["none"])
    result["per_op"] = {}
    print(f"\n{'one aten op (torch.add)':<36} {'ns per op':>10} {'added':>7}")
    for mode in MODES:
        ns = statistics.median(per_op[mode])
        result["per_op"][mode] = {"ns_per_op": ns, "added_ns": ns - base_ns}
        print(f"{'':<20} {mode:<15} {ns:>10.0f} {ns - base_ns:>+7.0f}")
    g = result["per_op"]["glueprof"]["added_ns"]
    t = result["per_op"]["torch.profiler"]["added_ns"]
    result["per_op"]["glueprof_share_of_torch_profiler"] = g / t if t > 0 else None
    with open(os.path.join(args.out, "profile_overhead.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
