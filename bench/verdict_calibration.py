#!/usr/bin/env python3
"""How far glueprof's A/B verdicts can be trusted, measured on this machine (docs/metrics.md,
"Calibration").

1. False positives: A/A comparisons (`ab --aa`: both arms run the baseline, through the same
   blocks, order and verdicts) on `tiny`; the share whose verdict is significant should be <= 5% at
   the nominal 95%. Counted on the end-to-end step-time verdict and on each toggle's target verdict.
2. Power: A/Bs of the calibration aid (`--opt calibration_delay --calibration-delay X`: the
   baseline arm spins X% of each step), for each X; the share detected (the step's interval above
   1, whether the verdict reads "faster" or "more than the target explains"), the share detected
   among the runs whose printed minimum detectable effect was at most X (goal >= 80%), and how
   often the step's interval held the true ratio 1 + X/100 (nominal 95%).

Usage: bench/verdict_calibration.py GLUEPROF WORK_DIR [--aa-runs N] [--power-runs N]
       [--delays 2,5,10] [--repeats R] [--steps S]
"""
import argparse
import json
import os
import subprocess
import sys


def ab(glueprof, work, name, args):
    db = os.path.join(work, name + ".sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    cmd = [glueprof, "ab", "--preset", "tiny", "--json", "--db", db] + args
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)["comparisons"]


def significant(verdict):
    return verdict in ("faster", "slower") or verdict.startswith("beyond what the target explains")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("glueprof")
    p.add_argument("work")
    p.add_argument("--aa-runs", type=int, default=7)  # 6 toggles apply on tiny: 42 comparisons
    p.add_argument("--power-runs", type=int, default=8)
    p.add_argument("--delays", default="10,25,50")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--steps", type=int, default=4)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    blocks = ["--warmup", "1", "--steps", str(a.steps), "--repeats", str(a.repeats)]

    end_to_end = targets = 0
    comparisons = target_count = 0
    detectable = []
    for run in range(a.aa_runs):  # --aa-runs 0: the power part only
        for c in ab(a.glueprof, a.work, f"aa-{run}", ["--all", "--aa"] + blocks):
            comparisons += 1
            end_to_end += significant(c["end_to_end"]["verdict"])
            step = next(m for m in c["metrics"] if m["name"] == "step_ms")
            if step.get("minimum_detectable_speedup"):
                detectable.append(step["minimum_detectable_speedup"])
            if "target" in c and c["target"].get("speedup_ci"):
                target_count += 1
                targets += significant(c["target"]["verdict"])
    detectable.sort()
    if comparisons:
        print(f"A/A on tiny, {a.repeats} blocks of {a.steps} steps per arm: {comparisons} comparisons")
        print(f"  significant end to end: {end_to_end} of {comparisons} "
              f"({100.0 * end_to_end / comparisons:.1f}%; nominal 5%)")
        print(f"  significant on the target: {targets} of {target_count} "
              f"({100.0 * targets / max(1, target_count):.1f}%)")
    if detectable:
        mid = detectable[len(detectable) // 2]
        print(f"  minimum detectable step-time change: median {100 * (mid - 1):.1f}%, "
              f"range {100 * (detectable[0] - 1):.1f}%..{100 * (detectable[-1] - 1):.1f}%")

    print(f"Power: ab --opt calibration_delay, {a.power_runs} A/Bs per delay")
    print(f"  {'delay':>6} {'detected':>10} {'runs with MDE <= delay':>24} {'detected there':>15}"
          f" {'interval held 1 + delay':>24}")
    for delay in [float(x) for x in a.delays.split(",")]:
        detected = eligible = detected_eligible = held = 0
        truth = 1.0 + delay / 100.0  # the delay adds delay% of the step before it
        for run in range(a.power_runs):
            c = ab(a.glueprof, a.work, f"power-{delay}-{run}",
                   ["--opt", "calibration_delay", "--calibration-delay", str(delay)] + blocks)[0]
            step = next(m for m in c["metrics"] if m["name"] == "step_ms")
            low, high = step["speedup_ci"] if step.get("speedup_ci") else (0.0, float("inf"))
            hit = low > 1.0
            detected += hit
            held += low <= truth <= high
            mde = step.get("minimum_detectable_speedup")
            if mde is not None and mde <= truth:
                eligible += 1
                detected_eligible += hit
        share = f"{100.0 * detected_eligible / eligible:.0f}%" if eligible else "-"
        print(f"  {delay:5.1f}% {detected:>5} of {a.power_runs:<3} {eligible:>17} of {a.power_runs:<4} "
              f"{share:>15} {held:>17} of {a.power_runs:<4}")

if __name__ == "__main__":
    main()
