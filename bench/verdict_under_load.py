#!/usr/bin/env python3
"""A/B verdicts on a machine whose load changes (docs/metrics.md, "Load that changes between
blocks"): A/As and A/Bs of a known effect run while a load generator, started and stopped at
random, takes cores of this machine (--hogs: how many busy processes, each on and off at random).

1. False positives: `ab --aa --opt packed_cache` on `tiny` (both arms the baseline); the share of
   significant end-to-end step verdicts should stay at the nominal 5%.
2. Detection: `ab --opt calibration_delay --calibration-delay 25` (the baseline arm spins 25% of
   each step); the share whose step interval lies above 1 (goal >= 80%).

Each is counted twice from the same runs: with the interval glueprof reports now (widened where
the arms of a block saw different loads, or withheld) and with the blocks' plain t interval, the
statistic before the load was measured (JSON `speedup_ci_without_load` where the two differ).

Usage: bench/verdict_under_load.py GLUEPROF WORK_DIR [--aa-runs 20] [--ab-runs 10]
       [--repeats 10] [--steps 4] [--seed S] [--hogs 1] [--reuse]
--reuse reads the databases an earlier invocation left in WORK_DIR again (a changed statistic on
the same runs); without it each run is recorded anew.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time


class LoadGenerator:
    """HOGS busy processes (each takes a core), each started and stopped at random (0.2 to 3 s on, 0.2 to 3 s
    off), for as long as the generator runs."""

    def __init__(self, seed, hogs):
        self.random = random.Random(seed)
        self.hogs = hogs
        self.stop = threading.Event()
        self.threads = []
        self.busy_seconds = 0.0

    def _hog(self):
        while not self.stop.is_set():
            on = self.random.uniform(0.2, 3.0)
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            self.stop.wait(on)
            hog.kill()
            hog.wait()
            self.busy_seconds += on
            self.stop.wait(self.random.uniform(0.2, 3.0))

    def __enter__(self):
        for _ in range(self.hogs):
            t = threading.Thread(target=self._hog, daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def record(glueprof, db, args):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    cmd = [glueprof, "ab", "--preset", "tiny", "--db", db] + args
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")


def comparison(glueprof, db):
    out = db + ".json"
    done = subprocess.run([glueprof, "report", "--db", db, "--format", "json", "--out", out],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"report of {db} failed: {done.stderr.strip()}")
    with open(out) as f:
        return json.load(f)["comparisons"][0]


def step_figures(c):
    step = next(m for m in c["metrics"] if m["name"] == "step_ms")
    now = step["speedup_ci"]
    before = step.get("speedup_ci_without_load") or now
    return now, before, c["end_to_end"]["verdict"], c.get("machine_load", {})


def significant(interval):
    return interval is not None and (interval[0] > 1.0 or interval[1] < 1.0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("glueprof")
    p.add_argument("work")
    p.add_argument("--aa-runs", type=int, default=20)
    p.add_argument("--ab-runs", type=int, default=10)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--seed", type=int, default=int(time.time()))
    p.add_argument("--reuse", action="store_true")
    p.add_argument("--hogs", type=int, default=1)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    blocks = ["--warmup", "1", "--steps", str(a.steps), "--repeats", str(a.repeats)]
    kinds = [("aa", a.aa_runs, ["--aa", "--opt", "packed_cache"]),
             ("ab", a.ab_runs, ["--opt", "calibration_delay", "--calibration-delay", "25"])]
    started = time.time()
    if not a.reuse:
        with LoadGenerator(a.seed, a.hogs) as load:
            for kind, runs, args in kinds:
                for run in range(runs):
                    record(a.glueprof, os.path.join(a.work, f"{kind}-{run}.sqlite"), args + blocks)
        print(f"recorded in {time.time() - started:.0f} s under load (seed {a.seed}, {a.hogs} "
              f"busy process(es); busy {load.busy_seconds:.0f} s in all)")
    rows = {}
    for kind, runs, _ in kinds:
        rows[kind] = [step_figures(comparison(a.glueprof, os.path.join(a.work, f"{kind}-{r}.sqlite")))
                      for r in range(runs)]
    changed = sum(1 for kind in rows for r in rows[kind] if r[3].get("changed"))
    withheld = sum(1 for kind in rows for r in rows[kind] if r[2].startswith("no verdict (the machine"))
    aa, ab = rows["aa"], rows["ab"]
    print(f"| under a changing load ({a.repeats} blocks of {a.steps} steps, tiny) | blocks' t interval "
          f"(before) | with the load allowed for (now) |")
    print("|---|---:|---:|")
    print(f"| A/A false positives (end-to-end step), of {len(aa)} | "
          f"{sum(significant(r[1]) for r in aa)} | {sum(significant(r[0]) and not r[2].startswith('no verdict') for r in aa)} |")
    print(f"| A/B of a 25% calibration_delay detected, of {len(ab)} | "
          f"{sum(r[1] is not None and r[1][0] > 1.0 for r in ab)} | "
          f"{sum(r[0] is not None and r[0][0] > 1.0 and not r[2].startswith('no verdict') for r in ab)} |")
    print(f"runs whose load changed between the arms of a block: {changed} of {len(aa) + len(ab)}; "
          f"verdicts withheld: {withheld}")


if __name__ == "__main__":
    main()
