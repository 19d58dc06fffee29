#pragma once
// Pipeline bubbles over worker lanes (pipeline workers, or simulated workers), as the RoundPipe
// artifact's pp-simulate defines them (ITcarrot/RoundPipe-artifact, pp-simulate/simulator.py,
// compute_bubble_stats and compute_bubble_breakdown):
//   t = 0 at the step's first worker event; a simulated run's first step starts at its recorded
//     start instead, the simulation's t = 0, where its first stage starts even when that stage
//     is empty and records no range;
//   makespan = the last end; busy_w = |∪ forward, recompute, backward ranges of worker w|;
//   bubble = P × makespan − Σ busy_w; ratio = bubble / (P × makespan);
//   fill   = Σ_w idle from t = 0 to w's first operation;
//   switch = Σ_w idle between the end of w's warm-up forwards (its (P − w)-th forward operation,
//            counting only forwards that end before its first backward) and its first backward,
//            less the busy time inside that window; schedules without a warm-up phase (RoundPipe)
//            anchor the window at the last forward before the first backward instead;
//   drain  = Σ_w idle from w's last backward end to the makespan;
//   intra  = max(bubble − fill − switch − drain, 0).
// Per measured step (by the events' step tags; the whole trace when it has no steps): an executed
// pipeline's steps alternate with other work (the other A/B arm, the optimizer), which is no bubble
// of its pipeline. Totals are summed over steps: makespan = Σ step makespans, ratio = Σ bubble /
// (P × Σ makespan). A simulation of one iteration is one step: its makespan and ratio as published.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct WorkerBusy {
    std::string lane;
    TimestampNs busyNs = 0;
};

struct BubbleResult {
    std::size_t workers = 0;                   // 0: the trace has no worker lanes
    TimestampNs makespanNs = 0;                // summed over the steps analyzed
    std::vector<TimestampNs> stepMakespansNs;  // one per step analyzed
    TimestampNs bubbleNs = 0;
    double ratio = 0.0;
    TimestampNs fillNs = 0, switchNs = 0, drainNs = 0, intraNs = 0;
    std::vector<WorkerBusy> perWorker;
    TimestampNs medianStepMakespanNs() const {
        if (stepMakespansNs.empty()) return 0;
        std::vector<TimestampNs> sorted = stepMakespansNs;
        std::sort(sorted.begin(), sorted.end());
        return sorted[sorted.size() / 2];
    }
    double medianStepMakespanMs() const {
        return static_cast<double>(medianStepMakespanNs()) / 1e6;
    }
    double share(TimestampNs part) const {
        const double capacity = static_cast<double>(makespanNs) * static_cast<double>(workers);
        return capacity > 0 ? static_cast<double>(part) / capacity : 0.0;
    }
    // The breakdown as fractions of workers x makespan, named as every view names them: fill,
    // switch, drain, intra.
    std::array<std::pair<const char*, double>, 4> breakdown() const {
        return {{{"fill", share(fillNs)},
                 {"switch", share(switchNs)},
                 {"drain", share(drainNs)},
                 {"intra", share(intraNs)}}};
    }
    // "fill F%, switch S%, drain D%, intra I%" (percent, two decimals).
    std::string breakdownText() const;
};

// hasWarmupPhase: false for RoundPipe (the run's schedule column, RunIdentity::schedule).
BubbleResult analyzeBubbles(const TraceModel& trace);
BubbleResult analyzeBubbles(const TraceModel& trace, bool hasWarmupPhase);

// What a pipeline Gantt draws: each worker lane's forward, recompute and backward ranges of one
// step, the first measured one (a simulation's iteration; all of them where no step is measured).
struct GanttBar {
    std::size_t worker = 0;  // index into PipelineGantt::workers
    std::string kind;        // forward, recompute, backward
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
};
struct PipelineGantt {
    std::vector<std::string> workers;  // worker lane names; empty for a run that is no pipeline
    std::vector<GanttBar> bars;
    // From the earliest bar's start to the latest bar's end; {0, 0} without bars.
    std::pair<TimestampNs, TimestampNs> extent() const;
};
PipelineGantt pipelineGanttOf(const TraceModel& trace);

}  // namespace glueprof
