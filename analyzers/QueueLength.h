#pragma once
// The launch queue of each device stream, as Holistic Trace Analysis counts it
// (hta/analyzers/trace_counters.py: _get_queue_length_time_series_for_rank,
// get_queue_length_summary, get_time_spent_blocked_on_full_queue): the number of operations the
// host has enqueued on a stream that have not started yet. It rises by one at the start of each
// launch call (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cudaMemcpyAsync,
// cudaMemsetAsync and their HIP and MTIA counterparts) that launched device work HTA reads
// (analyzers/HtaWindow.h), on the stream of that work, and falls by one when the work starts. Each
// change is one sample of the series.
//   summary          HTA's describe() of the samples' values: count, mean, sample standard
//                    deviation, min, quartiles (linear), max;
//   at a full queue  the time the series stays at or above the queue's capacity (HTA's
//                    max_queue_length; CUDA's launch queue holds 1024 entries), while the host
//                    blocks in the launch call, and that time's share of the trace's duration
//                    (latest start minus earliest start of the events HTA reads, HTA's
//                    get_trace_duration).
// Also the time-weighted mean depth (the series held over time, not per sample), which says how
// far ahead of the GPU the host runs. CPU runs have no device streams: no result.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

constexpr std::int64_t kCudaLaunchQueueCapacity = 1024;

struct StreamQueueLength {
    std::string lane;
    std::int64_t stream = 0;
    std::int64_t samples = 0;  // HTA's count: two per launched operation
    double mean = 0.0;
    double stddev = 0.0;  // sample standard deviation (pandas' std), 0 with one sample
    std::int64_t min = 0;
    double p25 = 0.0;
    double p50 = 0.0;
    double p75 = 0.0;
    std::int64_t max = 0;
    double timeWeightedMean = 0.0;  // over the series' span
    TimestampNs atFullQueueNs = 0;  // time at or above the capacity
    double atFullQueueShare = 0.0;  // of the trace's duration
};

struct QueueLengthResult {
    std::int64_t capacity = kCudaLaunchQueueCapacity;
    TimestampNs traceDurationNs = 0;
    std::vector<StreamQueueLength> streams;  // in lane order
};

QueueLengthResult analyzeQueueLength(const TraceModel& trace,
                                     std::int64_t capacity = kCudaLaunchQueueCapacity);

}  // namespace glueprof
