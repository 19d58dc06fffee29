#include "analyzers/GlueOverhead.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <unordered_map>

#include "analyzers/Intervals.h"
#include "analyzers/NameMatch.h"
#include "analyzers/Statistics.h"

namespace glueprof {

const char* partsMeaning(const GlueOverheadResult& result) {
    return result.fromKernels
               ? "parts of the device's time: math is GEMM and attention kernels, glue the other "
                 "kernels, idle no device work at all"
               : "parts of the host's time: math is every torch op outside a glue range, glue the "
                 "ops inside one (build_packed_mask, moe_routing, --glue NAME), idle time in no "
                 "torch op (Python code, the interpreter, waiting for input)";
}

const char* toString(GluePart part) {
    switch (part) {
        case GluePart::kMath:
            return "math";
        case GluePart::kGlue:
            return "glue";
        case GluePart::kOptimizer:
            return "optimizer";
        case GluePart::kData:
            return "data";
        case GluePart::kPipeline:
            return "pipeline";
        case GluePart::kCopy:
            return "copy";
        case GluePart::kComm:
            return "comm";
        case GluePart::kSyncWait:
            return "sync_wait";
        case GluePart::kIdle:
            return "idle";
        case GluePart::kCount:
            break;
    }
    return "unknown";
}

bool isCommKernelName(const std::string& name) {
    return containsAny(name, {"nccl", "rccl", "nvshmem", "multimem", "msccl", "deep_ep",
                              "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter",
                              "reduce_scatter", "alltoall", "all_to_all", "cross_device_reduce"});
}

bool isMathKernelName(const std::string& name) {
    return containsAny(name, {"gemm", "cutlass", "matmul", "flash", "fmha", "attention", "sdpa"});
}

namespace {

std::optional<GluePart> partOfCategory(Category category) {
    switch (category) {
        case Category::kMath:
            return GluePart::kMath;
        case Category::kGlue:
            return GluePart::kGlue;
        case Category::kOptimizer:
            return GluePart::kOptimizer;
        case Category::kData:
            return GluePart::kData;
        case Category::kPipeline:
            return GluePart::kPipeline;
        case Category::kCopy:
            return GluePart::kCopy;
        case Category::kSync:
            return GluePart::kSyncWait;
        case Category::kComm:
            return GluePart::kComm;
        case Category::kNone:
        case Category::kPhase:
            return std::nullopt;
    }
    return std::nullopt;
}

bool isDeviceLane(const Lane& lane) {
    return lane.kind == LaneKind::kCudaStream || lane.kind == LaneKind::kCopyStream;
}

// Kernel names classified once per name id (a trace has few distinct names, many kernels).
class KernelClasses {
  public:
    explicit KernelClasses(const TraceModel& trace) : m_trace(trace) {}
    GluePart of(StringId name) {
        auto it = m_byName.find(name);
        if (it != m_byName.end()) return it->second;
        const std::string& text = m_trace.name(name);
        const GluePart part = isCommKernelName(text)   ? GluePart::kComm
                              : isMathKernelName(text) ? GluePart::kMath
                                                       : GluePart::kGlue;
        m_byName.emplace(name, part);
        return part;
    }

  private:
    const TraceModel& m_trace;
    std::unordered_map<StringId, GluePart> m_byName;
};

// What the breakdown reads of a trace.
struct Reading {
    bool fromKernels = false;  // a GPU trace: the device timeline decides
    // The trace tags device work with the step of its launch: work tagged with none (launched
    // before the first step or after the last, as the importer found) is in no step, wherever it
    // ran.
    bool deviceWorkHasSteps = false;
};

// The part an event is an activity of, or none.
std::optional<GluePart> activityPart(KernelClasses& kernels, const Lane& lane, const Event& e,
                                     const Reading& reading) {
    const bool fromKernels = reading.fromKernels;
    if (reading.deviceWorkHasSteps && e.step == kNoTag && isDeviceLane(lane) &&
        (e.kind == EventKind::kKernel || e.kind == EventKind::kMemcpy ||
         e.kind == EventKind::kMemset))
        return std::nullopt;
    switch (e.kind) {
        case EventKind::kWait:
        case EventKind::kSync:
            // Waiting for an all-reduce to finish is communication the step could not hide.
            return e.category == Category::kComm ? GluePart::kComm : GluePart::kSyncWait;
        case EventKind::kMemcpy:
        case EventKind::kMemset:
            if (fromKernels && !isDeviceLane(lane) && lane.kind != LaneKind::kHostThread)
                return std::nullopt;
            return GluePart::kCopy;
        case EventKind::kKernel: {
            auto part = partOfCategory(e.category);
            if (part) return part;
            return kernels.of(e.name);
        }
        case EventKind::kOp:
        case EventKind::kRange:
            if (fromKernels) return std::nullopt;  // host work: the device timeline decides
            if (lane.kind != LaneKind::kHostThread && lane.kind != LaneKind::kCopyStream)
                return std::nullopt;
            return partOfCategory(e.category);
        case EventKind::kRuntime:
        case EventKind::kMarker:
            return std::nullopt;
    }
    return std::nullopt;
}

struct Segment {
    TimestampNs start;
    TimestampNs end;
    GluePart part;
};

// Disjoint segments of one lane labelled by the innermost activity. Events arrive sorted by start,
// longest first; a child that outlives its parent is clipped to it.
std::vector<Segment> innermostSegments(KernelClasses& kernels, const Lane& lane,
                                       const std::vector<Event>& events, const Reading& reading) {
    std::vector<Segment> segments;
    struct Open {
        TimestampNs end;
        GluePart part;
    };
    std::vector<Open> stack;
    TimestampNs cursor = 0;
    auto emit = [&](TimestampNs end, GluePart part) {
        if (end > cursor) segments.push_back(Segment{cursor, end, part});
        cursor = std::max(cursor, end);
    };
    for (const Event& e : events) {
        auto part = activityPart(kernels, lane, e, reading);
        if (!part || e.endNs <= e.startNs) continue;
        while (!stack.empty() && stack.back().end <= e.startNs) {
            emit(stack.back().end, stack.back().part);
            stack.pop_back();
        }
        if (!stack.empty()) emit(e.startNs, stack.back().part);
        cursor = std::max(cursor, e.startNs);
        TimestampNs end = stack.empty() ? e.endNs : std::min(e.endNs, stack.back().end);
        stack.push_back(Open{end, *part});
    }
    while (!stack.empty()) {
        emit(stack.back().end, stack.back().part);
        stack.pop_back();
    }
    return segments;
}

// Host work inside `idle`: top-level ops (runtime calls where the trace has no ops), by name.
std::vector<GapWork> workInGaps(const TraceModel& trace, const IntervalSet& idle,
                                std::size_t steps) {
    bool hasOps = false;
    for (std::size_t i = 0; i < trace.lanes().size() && !hasOps; ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kOp) {
                hasOps = true;
                break;
            }
        }
    }
    const EventKind wanted = hasOps ? EventKind::kOp : EventKind::kRuntime;
    std::unordered_map<StringId, GapWork> byName;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != wanted || (e.flags & kFlagNested) != 0) continue;
            const TimestampNs inGaps = coveredLength(Interval{e.startNs, e.endNs}, idle);
            if (inGaps <= 0) continue;
            GapWork& w = byName[e.name];
            w.msPerStep += static_cast<double>(inGaps) / 1e6;
            w.countPerStep += 1.0;
        }
    }
    std::vector<GapWork> sorted;
    const double n = static_cast<double>(std::max<std::size_t>(1, steps));
    for (auto& [name, w] : byName) {
        w.name = trace.name(name);
        w.msPerStep /= n;
        w.countPerStep /= n;
        sorted.push_back(w);
    }
    std::sort(sorted.begin(), sorted.end(), [](const GapWork& a, const GapWork& b) {
        return a.msPerStep != b.msPerStep ? a.msPerStep > b.msPerStep : a.name < b.name;
    });
    constexpr std::size_t kShown = 10;
    if (sorted.size() > kShown) sorted.resize(kShown);
    return sorted;
}

}  // namespace

GlueOverheadResult analyzeGlueOverhead(const TraceModel& trace) {
    GlueOverheadResult result;
    Reading reading;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kKernel) reading.fromKernels = true;
            if (e.kind == EventKind::kKernel && e.step != kNoTag && isDeviceLane(trace.lanes()[i]))
                reading.deviceWorkHasSteps = true;
        }
        if (reading.fromKernels && reading.deviceWorkHasSteps) break;
    }
    result.fromKernels = reading.fromKernels;
    // All lanes' segments, by part, sorted by start: each lane's come sorted, so lanes are merged.
    std::array<std::vector<Interval>, kGluePartCount> byPart;
    KernelClasses kernels(trace);
    auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        std::array<std::size_t, kGluePartCount> laneBegin{};
        for (std::size_t p = 0; p < kGluePartCount; ++p) laneBegin[p] = byPart[p].size();
        for (const Segment& s :
             innermostSegments(kernels, trace.lanes()[i], trace.eventsOnLane(i), reading)) {
            byPart[static_cast<std::size_t>(s.part)].push_back(Interval{s.start, s.end});
        }
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            auto middle = byPart[p].begin() + static_cast<std::ptrdiff_t>(laneBegin[p]);
            std::inplace_merge(byPart[p].begin(), middle, byPart[p].end(), byStart);
        }
    }
    std::array<IntervalSet, kGluePartCount> unions;
    for (std::size_t p = 0; p < kGluePartCount; ++p) unions[p] = unionOf(std::move(byPart[p]));

    std::vector<std::vector<double>> msPerPart(kGluePartCount);
    std::vector<double> nonMathShare;
    std::vector<Interval> idleGaps;  // GPU traces: where no device work ran, per measured step
    for (const StepInfo& s : trace.steps()) {
        if (s.warmup || s.endNs <= s.startNs) continue;
        GlueStep step;
        step.step = s.step;
        step.wallNs = s.endNs - s.startNs;
        const Interval window{s.startNs, s.endNs};
        IntervalSet covered;
        TimestampNs assigned = 0;
        for (std::size_t p = 0; p < static_cast<std::size_t>(GluePart::kIdle); ++p) {
            IntervalSet mine = differenceOf(clippedTo(unions[p], window), covered);
            step.partNs[p] = totalLength(mine);
            assigned += step.partNs[p];
            std::vector<Interval> merged(covered.begin(), covered.end());
            merged.insert(merged.end(), mine.begin(), mine.end());
            covered = unionOf(std::move(merged));
        }
        step.partNs[static_cast<std::size_t>(GluePart::kIdle)] = step.wallNs - assigned;
        if (result.fromKernels) {
            for (const Interval& gap : differenceOf(IntervalSet{window}, covered))
                idleGaps.push_back(gap);
        }
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            msPerPart[p].push_back(static_cast<double>(step.partNs[p]) / 1e6);
        }
        nonMathShare.push_back(1.0 - static_cast<double>(step.part(GluePart::kMath)) /
                                         static_cast<double>(step.wallNs));
        result.steps.push_back(step);
    }
    for (std::size_t p = 0; p < kGluePartCount; ++p)
        result.medianMsPerPart.push_back(median(msPerPart[p]));
    result.medianNonMathShare = median(nonMathShare);
    if (result.fromKernels)
        result.gapWork = workInGaps(trace, unionOf(std::move(idleGaps)), result.steps.size());
    return result;
}

}  // namespace glueprof
