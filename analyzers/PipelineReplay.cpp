#include "analyzers/PipelineReplay.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

struct JobTimes {
    std::map<int, std::vector<double>> forward, recompute, backward;  // by stage
};

// Backward-pass ops of one job: a "forward" range on a RoundPipe head stage comes with its
// backward.
JobTimes jobTimes(const TraceModel& trace) {
    JobTimes t;
    const auto forward = trace.findName(names::kForward);
    const auto recompute = trace.findName(names::kRecompute);
    const auto backward = trace.findName(names::kBackward);
    const std::set<std::int32_t> measured = trace.measuredSteps();
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kPipelineWorker) continue;
        const std::vector<Event>& events = trace.eventsOnLane(lane);
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (e.kind != EventKind::kRange || measured.count(e.step) == 0) continue;
            const double ms = static_cast<double>(e.durationNs()) / 1e6;
            if (forward && e.name == *forward) {
                // A RoundPipe head job: its "forward" is directly followed by its "backward" of
                // stage 0 for the same micro-batch; it is a pre-backward, kept apart under
                // recompute.
                const bool headPre =
                    i + 1 < events.size() && backward && events[i + 1].name == *backward &&
                    events[i + 1].layer == e.layer && events[i + 1].microbatch == e.microbatch &&
                    events[i + 1].startNs == e.endNs;
                (headPre ? t.recompute : t.forward)[e.layer].push_back(ms);
            } else if (recompute && e.name == *recompute) {
                t.recompute[e.layer].push_back(ms);
            } else if (backward && e.name == *backward) {
                t.backward[e.layer].push_back(ms);
            }
        }
    }
    return t;
}

double stageMedian(const std::map<int, std::vector<double>>& times, int stage, const char* what) {
    auto it = times.find(stage);
    if (it == times.end() || it->second.empty()) {
        throw std::invalid_argument(fmt::format(
            "the run has no {} jobs of stage {}: is it an executed pipeline?", what, stage));
    }
    return median(it->second);
}

// The plan comes from a database (a run's config JSON): its partitions must cover the layers
// exactly, or the per-layer costs would be written outside them.
void checkPlan(const ReplayPlan& plan) {
    auto total = [](const std::vector<int>& counts) {
        long long sum = 0;
        for (int n : counts) {
            if (n < 0) return -1LL;
            sum += n;
        }
        return sum;
    };
    const auto layers = static_cast<long long>(plan.layers);
    if (total(plan.forwardPartition) != layers ||
        (plan.roundPipe && total(plan.backwardPartition) != layers)) {
        throw std::invalid_argument(fmt::format(
            "the pipeline plan's partitions do not cover its {} layers: not a plan glueprof "
            "recorded",
            plan.layers));
    }
}

}  // namespace

PerLayerCosts measureReplayCosts(const TraceModel& executed, const ReplayPlan& plan) {
    checkPlan(plan);
    const JobTimes t = jobTimes(executed);
    PerLayerCosts c;
    const std::size_t layers = plan.layers;
    c.forwardMs.assign(layers, 0.0);
    c.recomputeMs.assign(layers, 0.0);
    c.backwardMs.assign(layers, 0.0);
    auto spread = [](std::vector<double>& perLayer, std::size_t first, int count, double total) {
        for (int l = 0; l < count; ++l)
            perLayer[first + static_cast<std::size_t>(l)] = total / count;
    };
    std::size_t first = 0;
    const int stages = static_cast<int>(plan.forwardPartition.size());
    for (int s = 0; s < stages; ++s) {
        const int n = plan.forwardPartition[static_cast<std::size_t>(s)];
        if (n == 0 && (plan.roundPipe || s != stages - 1)) continue;  // a pass-through stage
        const double f = stageMedian(t.forward, s, "forward");
        if (plan.roundPipe) {
            spread(c.forwardMs, first, n, f);
        } else {
            const bool head = s == stages - 1;
            const double r =
                n > 0 || head ? (t.recompute.count(s) ? median(t.recompute.at(s)) : 0.0) : 0.0;
            const double b = stageMedian(t.backward, s, "backward");
            if (!head) {
                spread(c.forwardMs, first, n, f);
                spread(c.recomputeMs, first, n, r);
                spread(c.backwardMs, first, n, b);
            } else if (n == 0) {
                c.headForwardMs = f;
                c.headBackwardMs = r + b;  // the executor recomputes the head in its backward
            } else {
                // Layers and head together: the layers at the other stages' mean, the rest is the
                // head.
                double perLayerF = 0.0, perLayerR = 0.0, perLayerB = 0.0;
                if (first > 0) {
                    for (std::size_t l = 0; l < first; ++l) {
                        perLayerF += c.forwardMs[l];
                        perLayerR += c.recomputeMs[l];
                        perLayerB += c.backwardMs[l];
                    }
                    perLayerF /= static_cast<double>(first);
                    perLayerR /= static_cast<double>(first);
                    perLayerB /= static_cast<double>(first);
                }
                spread(c.forwardMs, first, n, perLayerF * n);
                spread(c.recomputeMs, first, n, perLayerR * n);
                spread(c.backwardMs, first, n, perLayerB * n);
                c.headForwardMs = std::max(f - perLayerF * n, 0.0);
                c.headBackwardMs = std::max(r + b - (perLayerR + perLayerB) * n, 0.0);
            }
        }
        first += static_cast<std::size_t>(n);
    }
    if (plan.roundPipe) {
        c.headForwardMs = stageMedian(t.recompute, 0, "head forward");
        c.headBackwardMs = stageMedian(t.backward, 0, "head backward");
        std::size_t top = layers;
        for (std::size_t s = 1; s < plan.backwardPartition.size(); ++s) {
            const int n = plan.backwardPartition[s];
            top -= static_cast<std::size_t>(n);
            spread(c.recomputeMs, top, n,
                   stageMedian(t.recompute, static_cast<int>(s), "recompute"));
            spread(c.backwardMs, top, n, stageMedian(t.backward, static_cast<int>(s), "backward"));
        }
    }
    return c;
}

}  // namespace glueprof
