#!/usr/bin/env python3
"""glueprof's step attribution beside Holistic Trace Analysis's critical-path analysis, on the Kineto
fixtures that have ProfilerStep ranges (tests/fixtures/import/kineto).

HTA's critical path follows the dependencies of one iteration (launch -> kernel, stream order,
syncs) and says what bounds the path: the CPU, GPU compute, or kernel launch overhead. glueprof cuts
each step by what the device ran and what the host did while it idled, without a dependency graph.
The two agree where they can be compared: GPU compute on HTA's path is glueprof's compute (and
communication) when the path runs through every kernel; HTA's cpu_bound is the host-side idle
(glueprof's sync wait, blocking copy, setup, compile, launching, waiting for input, host's own code),
HTA's launch and kernel-kernel overheads the queued idle. Where the host and the GPU are busy at
once, HTA gives the time to whichever is on the path (often the CPU), glueprof to the device's
busy kind first: on a trace whose GPU works beside a busy host, HTA's GPU share is below glueprof's.

  bench/hta_critical_path.py build/release/app/cli/glueprof build/hta-critical-path
"""
import argparse
import glob
import json
import logging
import os
import shutil
import subprocess
import sys
import warnings

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                        "import", "kineto")
HOST_IDLE = ("sync_wait", "blocking_copy", "comm_wait", "compile", "setup_call", "launch", "data",
             "host_outside_torch", "host_unrecorded", "outside_window", "unattributed")


def find(j, key):
    if isinstance(j, dict):
        if key in j:
            return j[key]
        for value in j.values():
            found = find(value, key)
            if found is not None:
                return found
    if isinstance(j, list):
        for value in j:
            found = find(value, key)
            if found is not None:
                return found
    return None


def glueprof_shares(cli, trace, work):
    db = os.path.join(work, os.path.basename(trace) + ".db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([cli, "import", trace, "--db", db], check=True, capture_output=True)
    out = os.path.join(work, os.path.basename(trace) + ".json")
    subprocess.run([cli, "report", "--db", db, "--format", "json", "--out", out], check=True,
                   capture_output=True)
    with open(out) as f:
        attribution = find(json.load(f), "step_attribution")
    step = attribution["steps"][0]
    parts, wall = step["parts_ms"], step["wall_ms"]
    return {
        "gpu busy": (parts["compute"] + parts["communication"] + parts["copy"] + parts["memset"]) / wall,
        "queued (launch, kernel-kernel)": parts["queued"] / wall,
        "host-side idle": sum(parts[k] for k in HOST_IDLE) / wall,
    }


def hta_shares(trace_analysis, trace, work):
    folder = os.path.join(work, "hta-" + os.path.basename(trace))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(trace, folder)
    analysis = trace_analysis(trace_dir=folder)
    # HTA prints its summary's heading on stdout: keep the table clean.
    sys.stdout.flush()
    names = [s for s in analysis.t.symbol_table.get_sym_table() if s.startswith("ProfilerStep#")]
    if not names:
        return None
    graph, ok = analysis.critical_path_analysis(rank=0, annotation=sorted(names)[0], instance_id=0)
    if not ok:
        return None
    summary = graph.summary() / 100.0
    return {
        "gpu busy": summary.get("gpu_compute_bound", 0.0),
        "queued (launch, kernel-kernel)": summary.get("gpu_kernel_launch_overhead", 0.0) +
        summary.get("gpu_kernel_kernel_overhead", 0.0),
        "host-side idle": summary.get("cpu_bound", 0.0),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("glueprof")
    parser.add_argument("work")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    from hta.trace_analysis import TraceAnalysis
    os.makedirs(args.work, exist_ok=True)
    print("%-46s %-31s %8s %9s" % ("trace (first ProfilerStep)", "share of the step", "HTA CP",
                                   "glueprof"))
    for trace in sorted(glob.glob(os.path.join(FIXTURES, "*.json.gz"))):
        try:
            hta = hta_shares(TraceAnalysis, trace, args.work)
        except Exception as error:  # HTA's graph cannot be built for every trace
            print("%-46s HTA's critical path failed: %s" % (os.path.basename(trace), error))
            continue
        if hta is None:
            continue
        ours = glueprof_shares(os.path.abspath(args.glueprof), trace, args.work)
        for key in ("gpu busy", "queued (launch, kernel-kernel)", "host-side idle"):
            print("%-46s %-31s %7.1f%% %8.1f%%" % (os.path.basename(trace), key, 100 * hta[key],
                                                   100 * ours[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
