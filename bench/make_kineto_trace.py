#!/usr/bin/env python3
"""Writes a synthetic Kineto (torch.profiler) trace of about SIZE_MB uncompressed for
bench/import_bench.sh: ProfilerStep#N ranges holding cpu_ops, their cudaLaunchKernel calls, the
kernels on two streams with ac2g flows, a pageable copy and a stream sync per step. Streams the JSON
out, so it never holds the trace. Usage: make_kineto_trace.py OUT.json SIZE_MB"""
import random
import sys

out_path, size_mb = sys.argv[1], float(sys.argv[2])
limit = int(size_mb * 1024 * 1024)
random.seed(7)
written = 0
pid, tid = 4242, 4242
ops = ["aten::mm", "aten::add", "aten::layer_norm", "aten::softmax", "aten::copy_", "aten::view"]
kernels = ["void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128>(Params)",
           "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >(int)",
           "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)"]

with open(out_path, "w") as out:
    def emit(text):
        global written
        out.write(text)
        written += len(text)

    emit('{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, '
         '"deviceProperties": [{"id": 0, "name": "Synthetic GPU"}], "traceEvents": [\n')
    ts = 1_700_000_000_000_000.0
    correlation = 1
    step = 0
    first = True
    while written < limit:
        step_start = ts
        events = []
        for _ in range(200):
            op = random.choice(ops)
            events.append(f'{{"ph": "X", "cat": "cpu_op", "name": "{op}", "pid": {pid}, "tid": {tid}, '
                          f'"ts": {ts:.3f}, "dur": 12.345, "args": {{"External id": {correlation}}}}}')
            events.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, '
                          f'"tid": {tid}, "ts": {ts + 2:.3f}, "dur": 4.5, "args": {{"External id": {correlation}, '
                          f'"cbid": 211, "correlation": {correlation}}}}}')
            stream = 7 if correlation % 5 else 20
            events.append(f'{{"ph": "X", "cat": "kernel", "name": "{random.choice(kernels)}", "pid": 0, '
                          f'"tid": {stream}, "ts": {ts + 8:.3f}, "dur": 9.75, "args": {{"External id": {correlation}, '
                          f'"device": 0, "context": 1, "stream": {stream}, "correlation": {correlation}, '
                          f'"registers per thread": 32, "grid": [128, 1, 1], "block": [256, 1, 1]}}}}')
            events.append(f'{{"ph": "s", "id": {correlation}, "pid": {pid}, "tid": {tid}, "ts": {ts + 2:.3f}, '
                          f'"cat": "ac2g", "name": "ac2g"}}')
            events.append(f'{{"ph": "f", "id": {correlation}, "pid": 0, "tid": {stream}, "ts": {ts + 8:.3f}, '
                          f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')
            correlation += 1
            ts += 14
        events.append(f'{{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, '
                      f'"tid": 7, "ts": {ts:.3f}, "dur": 3, "args": {{"device": 0, "stream": 7, '
                      f'"correlation": {correlation}, "bytes": 4}}}}')
        events.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": {pid}, '
                      f'"tid": {tid}, "ts": {ts - 1:.3f}, "dur": 5, "args": {{"correlation": {correlation}}}}}')
        correlation += 1
        events.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": {pid}, '
                      f'"tid": {tid}, "ts": {ts + 5:.3f}, "dur": 4, "args": {{"correlation": {correlation}}}}}')
        events.append(f'{{"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, '
                      f'"ts": {ts + 5.5:.3f}, "dur": 3, "args": {{"cuda_sync_kind": "Stream Sync", "stream": 7, '
                      f'"device": 0, "correlation": {correlation}}}}}')
        correlation += 1
        events.append(f'{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": {pid}, '
                      f'"tid": {tid}, "ts": {step_start:.3f}, "dur": {ts + 10 - step_start:.3f}, "args": {{}}}}')
        ts += 20
        step += 1
        emit(("" if first else ",\n") + ",\n".join(events))
        first = False
    emit("\n]}\n")
print(f"{out_path}: {written / 1e6:.1f} MB, {step} steps, {correlation} correlations")
