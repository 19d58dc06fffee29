#!/usr/bin/env python3
"""glueprof beside Holistic Trace Analysis on one synthetic Kineto trace (bench/make_kineto_trace.py,
gzip'd): the wall time and peak memory of
  glueprof   `glueprof import` and then `glueprof report --format json` of the imported run (every
             analysis: steps, syncs, overlap, the device timeline, HTA's idle, kernel, launch, queue
             and annotation breakdowns, the advisor), two processes, times summed, the larger peak;
  HTA        TraceAnalysis(trace_dir) (its parse) + get_temporal_breakdown + get_idle_time_breakdown,
             in one process of the environment's Python.
Prints both and their ratio, and writes OUT/hta_speed.json. Usage:
  bench/hta_speed.py GLUEPROF OUT [--size-mb 128]   (run with the Python that has HTA installed)
The goal (issue 32): glueprof at least 10 times faster than HTA on the same file.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

HTA_SCRIPT = """
import logging, sys, warnings
warnings.filterwarnings("ignore")
from hta.configs.config import logger
logger.setLevel(logging.ERROR)
from hta.trace_analysis import TraceAnalysis
analysis = TraceAnalysis(trace_dir=sys.argv[1])
analysis.get_temporal_breakdown(visualize=False)
analysis.get_idle_time_breakdown(visualize=False)
"""


def timed(command, out_file):
    """(seconds, peak RSS MiB) of COMMAND, by GNU time; its stdout to OUT_FILE."""
    time_file = out_file + ".time"
    with open(out_file, "w") as out:
        subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", time_file] + command, check=True,
                       stdout=out)
    with open(time_file) as f:
        seconds, kib = f.read().split()[-2:]
    return float(seconds), int(kib) / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("glueprof")
    parser.add_argument("out")
    parser.add_argument("--size-mb", type=float, default=128)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    trace_dir = os.path.join(args.out, "trace")
    trace = os.path.join(trace_dir, "synthetic-%g.json" % args.size_mb)
    if not os.path.exists(trace + ".gz"):
        shutil.rmtree(trace_dir, ignore_errors=True)
        os.makedirs(trace_dir)
        subprocess.run([sys.executable, os.path.join(HERE, "make_kineto_trace.py"), trace,
                        str(args.size_mb)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["gzip", "-1", "-f", trace], check=True)
    trace += ".gz"
    db = os.path.join(args.out, "hta_speed.sqlite")
    for leftover in (db, db + "-wal", db + "-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)

    import_s, import_mib = timed([args.glueprof, "import", trace, "--db", db],
                                 os.path.join(args.out, "import.out"))
    with open(os.path.join(args.out, "import.out")) as f:
        run = re.search(r"imported run (\d+)", f.read()).group(1)
    report_s, report_mib = timed([args.glueprof, "report", "--db", db, "--runs", run, "--format",
                                  "json", "--out", os.path.join(args.out, "report.json")],
                                 os.path.join(args.out, "report.out"))
    hta_s, hta_mib = timed([sys.executable, "-c", HTA_SCRIPT, trace_dir],
                           os.path.join(args.out, "hta.out"))
    glueprof_s = import_s + report_s
    result = {"trace_mb": args.size_mb, "trace": trace,
              "glueprof": {"import_s": import_s, "report_s": report_s, "seconds": glueprof_s,
                           "peak_mib": max(import_mib, report_mib)},
              "hta": {"seconds": hta_s, "peak_mib": hta_mib},
              "speedup": hta_s / glueprof_s if glueprof_s > 0 else None}
    with open(os.path.join(args.out, "hta_speed.json"), "w") as f:
        json.dump(result, f, indent=2)
    print("glueprof vs HTA on a %g MB synthetic Kineto trace (gzip'd):" % args.size_mb)
    print("%-58s %9s %10s" % ("", "seconds", "peak MiB"))
    print("%-58s %9.2f %10.0f" % ("glueprof import + report --format json (every analysis)",
                                  glueprof_s, max(import_mib, report_mib)))
    print("%-58s %9.2f %10.0f" % ("  of which import", import_s, import_mib))
    print("%-58s %9.2f %10.0f" % ("HTA parse + temporal + idle breakdown", hta_s, hta_mib))
    print("glueprof is %.1fx faster (goal: 10x)" % result["speedup"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
