#include "analyzers/PipelineBubbles.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "analyzers/Intervals.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

std::string BubbleResult::breakdownText() const {
    std::string text;
    for (const auto& [name, part] : breakdown())
        text += fmt::format("{}{} {:.2f}%", text.empty() ? "" : ", ", name, 100 * part);
    return text;
}

namespace {

enum class WorkKind { kForward, kRecompute, kBackward };

struct Work {
    WorkKind kind;
    TimestampNs start;
    TimestampNs end;
    std::int32_t microbatch;
    std::int32_t stage;  // the layer tag of the range: the (virtual) stage it runs
};

bool isWorker(const Lane& lane) {
    return lane.kind == LaneKind::kPipelineWorker || lane.kind == LaneKind::kSimulatedWorker;
}

}  // namespace

BubbleResult analyzeBubbles(const TraceModel& trace) {
    return analyzeBubbles(trace, trace.run().identity.schedule != "roundpipe");
}

namespace {

// The bubble of one step's worker work (the artifact's definitions; t = 0 at the step's first
// worker event, or at `start` when that is earlier). Adds into `r`.
void addStep(std::vector<std::vector<Work>>& work, bool hasWarmupPhase,
             std::optional<TimestampNs> start, BubbleResult& r) {
    TimestampNs origin = std::numeric_limits<TimestampNs>::max();
    TimestampNs last = std::numeric_limits<TimestampNs>::min();
    for (const auto& items : work) {
        for (const Work& x : items) {
            origin = std::min(origin, x.start);
            last = std::max(last, x.end);
        }
    }
    if (start && *start < origin) origin = *start;
    if (last <= origin) return;
    const TimestampNs makespan = last - origin;
    r.stepMakespansNs.push_back(makespan);
    r.makespanNs += makespan;
    const auto p = static_cast<std::int64_t>(work.size());
    TimestampNs busyTotal = 0;
    for (std::size_t w = 0; w < work.size(); ++w) {
        std::vector<Work>& items = work[w];
        std::vector<Interval> intervals;
        for (const Work& x : items) intervals.push_back({x.start, x.end});
        const TimestampNs busy = totalLength(unionOf(intervals));
        busyTotal += busy;
        r.perWorker[w].busyNs += busy;
        if (items.empty()) continue;  // as the artifact: an idle worker's time lands in intra
        std::sort(items.begin(), items.end(), [](const Work& a, const Work& b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
        r.fillNs += items.front().start - origin;

        TimestampNs firstBackward = std::numeric_limits<TimestampNs>::max();
        TimestampNs lastBackwardEnd = std::numeric_limits<TimestampNs>::min();
        for (const Work& x : items) {
            if (x.kind == WorkKind::kBackward) {
                firstBackward = std::min(firstBackward, x.start);
                lastBackwardEnd = std::max(lastBackwardEnd, x.end);
            }
        }
        if (firstBackward != std::numeric_limits<TimestampNs>::max()) {
            // Forward operations (microbatch, stage) that end before the first backward.
            std::map<std::pair<std::int32_t, std::int32_t>, TimestampNs> opEnd;
            for (const Work& x : items) {
                if (x.kind != WorkKind::kForward) continue;
                auto& end = opEnd[{x.microbatch, x.stage}];
                end = std::max(end, x.end);
            }
            std::vector<TimestampNs> ends;
            for (const auto& [key, end] : opEnd) {
                if (end <= firstBackward) ends.push_back(end);
            }
            std::sort(ends.begin(), ends.end());
            if (!ends.empty()) {
                const std::int64_t warmupCount =
                    hasWarmupPhase ? p - static_cast<std::int64_t>(w) : 0;
                const TimestampNs warmupEnd =
                    warmupCount <= 0 ? ends.back()
                                     : ends[static_cast<std::size_t>(
                                           std::min<std::int64_t>(warmupCount, ends.size()) - 1)];
                std::vector<Interval> inside;
                for (const Work& x : items) {
                    if (x.end > warmupEnd && x.start < firstBackward) {
                        inside.push_back(
                            {std::max(x.start, warmupEnd), std::min(x.end, firstBackward)});
                    }
                }
                r.switchNs += std::max<TimestampNs>(
                    firstBackward - warmupEnd - totalLength(unionOf(inside)), 0);
            }
        } else {
            lastBackwardEnd = items.back().end;
            for (const Work& x : items) lastBackwardEnd = std::max(lastBackwardEnd, x.end);
        }
        r.drainNs += last - lastBackwardEnd;
    }
    r.bubbleNs += std::max<TimestampNs>(makespan * p - busyTotal, 0);
}

}  // namespace

BubbleResult analyzeBubbles(const TraceModel& trace, bool hasWarmupPhase) {
    BubbleResult r;
    auto forward = trace.findName(names::kForward);
    auto recompute = trace.findName(names::kRecompute);
    auto backward = trace.findName(names::kBackward);
    // Worker work by step: the measured steps of a trace that has steps, else all of it as one.
    const std::set<std::int32_t> measured = trace.measuredSteps();
    const bool bySteps = !trace.steps().empty();
    std::map<std::int32_t, std::vector<std::vector<Work>>> steps;
    std::vector<std::size_t> workerLanes;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (isWorker(trace.lanes()[i])) workerLanes.push_back(i);
    }
    r.workers = workerLanes.size();
    for (std::size_t w = 0; w < workerLanes.size(); ++w) {
        r.perWorker.push_back(WorkerBusy{trace.lanes()[workerLanes[w]].name, 0});
        for (const Event& e : trace.eventsOnLane(workerLanes[w])) {
            if (e.kind != EventKind::kRange || e.endNs <= e.startNs) continue;
            WorkKind kind;
            if (forward && e.name == *forward)
                kind = WorkKind::kForward;
            else if (recompute && e.name == *recompute)
                kind = WorkKind::kRecompute;
            else if (backward && e.name == *backward)
                kind = WorkKind::kBackward;
            else
                continue;
            if (bySteps && measured.count(e.step) == 0) continue;
            auto& perWorker = steps[bySteps ? e.step : 0];
            perWorker.resize(workerLanes.size());
            perWorker[w].push_back(Work{kind, e.startNs, e.endNs, e.microbatch, e.layer});
        }
    }
    // A simulated run's first step starts at its recorded start, the simulation's t = 0, as the
    // artifact's does: its first stage starts there even when it has no layers and so records no
    // range (the hops out of it then delay every worker's first range). A later iteration's step
    // is recorded from the previous one's end, before a synchronous optimizer, not from when it
    // was released, so its t = 0 stays its first range; an executed step's recorded start comes
    // before its batches load, and its first range is its first job, stage 0's (never empty: it
    // embeds the tokens).
    std::optional<std::pair<std::int32_t, TimestampNs>> simulationStart;
    if (trace.run().identity.kind == RunKind::kSimulated && !trace.steps().empty()) {
        const StepInfo& first = *std::min_element(
            trace.steps().begin(), trace.steps().end(),
            [](const StepInfo& a, const StepInfo& b) { return a.startNs < b.startNs; });
        simulationStart = std::make_pair(first.step, first.startNs);
    }
    for (auto& [step, work] : steps) {
        std::optional<TimestampNs> start;
        if (bySteps && simulationStart && simulationStart->first == step)
            start = simulationStart->second;
        addStep(work, hasWarmupPhase, start, r);
    }
    if (r.makespanNs <= 0) return r;
    const double capacity = static_cast<double>(r.makespanNs) * static_cast<double>(r.workers);
    r.ratio = static_cast<double>(r.bubbleNs) / capacity;
    r.intraNs = std::max<TimestampNs>(r.bubbleNs - r.fillNs - r.switchNs - r.drainNs, 0);
    return r;
}

std::pair<TimestampNs, TimestampNs> PipelineGantt::extent() const {
    if (bars.empty()) return {0, 0};
    TimestampNs start = bars.front().startNs;
    TimestampNs end = bars.front().endNs;
    for (const GanttBar& b : bars) {
        start = std::min(start, b.startNs);
        end = std::max(end, b.endNs);
    }
    return {start, end};
}

PipelineGantt pipelineGanttOf(const TraceModel& trace) {
    PipelineGantt gantt;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    const bool oneStep = !measured.empty();
    const std::int32_t ganttStep = oneStep ? *measured.begin() : kNoTag;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (lane.kind != LaneKind::kPipelineWorker && lane.kind != LaneKind::kSimulatedWorker)
            continue;
        const std::size_t worker = gantt.workers.size();
        gantt.workers.push_back(lane.name);
        for (const Event& e : trace.eventsOnLane(i)) {
            const std::string& name = trace.name(e.name);
            if (e.kind == EventKind::kRange && (!oneStep || e.step == ganttStep) &&
                (name == names::kForward || name == names::kRecompute ||
                 name == names::kBackward)) {
                gantt.bars.push_back(GanttBar{worker, name, e.startNs, e.endNs});
            }
        }
    }
    return gantt;
}

}  // namespace glueprof
