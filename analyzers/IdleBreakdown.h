#pragma once
// Idle breakdown of device streams, as Holistic Trace Analysis defines it (HTA,
// hta/analyzers/breakdown_analysis.py, _analyze_idle_time_for_stream): on each stream, kernels in
// start order; the gap before kernel i is kernel_i.start − kernel_{i−1}.end and is
//   host wait   when kernel i's launch (its runtime event, by correlation id) started after kernel
//               i−1 ended: the host did not enqueue work fast enough;
//   kernel wait otherwise, when the gap is under the threshold (HTA's consecutive_kernel_delay,
//               30 by default in HTA's time unit, microseconds: 30 us; its docstring says
//               nanoseconds, its traces are in microseconds): the overhead of back-to-back
//               launches;
//   other       otherwise (stream/event synchronization, delayed launches, no launch recorded).
// Copies and memsets count as work on the stream too. The device work is HTA's selection: with two
// or more steps, what a host event starting by the last step's end launched (work whose launch is
// not in the trace, or comes after the last step, is left out); otherwise all of it. Over the
// whole run, not per step. CPU runs have no device streams: no result.
#include <string>
#include <vector>

#include "analyzers/Intervals.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

// HTA's default consecutive_kernel_delay: 30 in its unit, microseconds.
constexpr TimestampNs kKernelWaitThresholdNs = 30'000;

struct StreamIdle {
    std::string lane;
    std::int64_t stream = 0;  // the stream's id (Kineto's tid of the stream, CUPTI's stream id)
    TimestampNs busyNs = 0;
    TimestampNs hostWaitNs = 0;
    TimestampNs kernelWaitNs = 0;
    TimestampNs otherNs = 0;
    std::int64_t gaps = 0;
};

std::vector<StreamIdle> analyzeIdleBreakdown(
    const TraceModel& trace, TimestampNs kernelWaitThresholdNs = kKernelWaitThresholdNs);

// The same gaps of every stream as intervals, by category: the advisor asks where the whole GPU
// waited (a side stream idle while another computes is no idle GPU).
struct IdleGaps {
    std::vector<Interval> hostWait;
    std::vector<Interval> kernelWait;
    std::vector<Interval> other;
};
IdleGaps idleGaps(const TraceModel& trace,
                  TimestampNs kernelWaitThresholdNs = kKernelWaitThresholdNs);

}  // namespace glueprof
