#!/usr/bin/env python3
"""The cost a tracer adds to one aten op: a tight loop of `torch.add` on two 8-element tensors.

One intra-op thread; the best of 7 repeats of N calls (the least disturbed by the machine), in ns
per call. Under --torch-profiler the loop runs inside torch.profiler.profile(activities=[CPU]).
Writes the figure to --out (one number) and prints it.

Usage: bench/op_loop.py [--calls N] [--torch-profiler] --out FILE
"""
import argparse
import time

import torch


def best_ns_per_call(calls):
    a = torch.ones(8)
    b = torch.ones(8)
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(calls):
            torch.add(a, b)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50000)
    parser.add_argument("--torch-profiler", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.torch_profiler:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            ns = best_ns_per_call(args.calls)
    else:
        ns = best_ns_per_call(args.calls)
    with open(args.out, "w") as f:
        f.write(f"{ns}\n")
    print(f"{ns:.0f} ns per torch.add")


if __name__ == "__main__":
    main()
