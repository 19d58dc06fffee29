#!/usr/bin/env python3
"""glueprof's own peak memory while it stores a profiled run, by the run's size (issue 52, item 10).

A Python program runs STEPS steps of OPS tiny torch ops each (one aten op an `add` of 1-element
tensors) under `glueprof profile`; while it runs, glueprof's own high-water mark of resident memory
(VmHWM of /proc/PID/status, the launcher alone, not the program) is read every 20 ms until it exits,
so the figure is the merge of the program's trace into the database. The memory should not grow
with the events stored.

Usage: bench/profile_store_memory.py GLUEPROF PYTHON WORK_DIR [--ops 100000,1000000] [--steps 10]
"""
import argparse
import os
import sqlite3
import subprocess
import time

PROGRAM = """
import sys, torch
ops, steps = int(sys.argv[1]), int(sys.argv[2])
m = torch.nn.Linear(2, 2); o = torch.optim.SGD(m.parameters(), lr=0.1)
a = torch.ones(1); b = torch.ones(1)
for _ in range(steps):
    for _ in range(ops):
        torch.add(a, b)
    m(torch.ones(1, 2)).sum().backward(); o.step(); o.zero_grad()
"""


def peak_while_running(cmd):
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_kib = 0
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    err = process.stderr.read()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({process.returncode}): {err.strip()}")
    return peak_kib


def main():
    p = argparse.ArgumentParser()
    p.add_argument("glueprof")
    p.add_argument("python")
    p.add_argument("work")
    p.add_argument("--ops", default="100000,1000000")
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    program = os.path.join(a.work, "tiny_ops.py")
    with open(program, "w") as f:
        f.write(PROGRAM)
    print("| ops per step x steps | events stored | database MB | glueprof peak RSS MiB | wall s |")
    print("|---|---:|---:|---:|---:|")
    for ops in (int(x) for x in a.ops.split(",")):
        db = os.path.join(a.work, f"memory-{ops}.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        started = time.time()
        peak = peak_while_running([a.glueprof, "profile", "--db", db, "--", a.python, program,
                                   str(ops), str(a.steps)])
        wall = time.time() - started
        events = sqlite3.connect(db).execute("SELECT count(*) FROM events").fetchone()[0]
        print(f"| {ops} x {a.steps} | {events} | {os.path.getsize(db) / 1e6:.0f} | "
              f"{peak / 1024:.0f} | {wall:.0f} |")


if __name__ == "__main__":
    main()
