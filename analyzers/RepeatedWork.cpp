#include "analyzers/RepeatedWork.h"

#include <algorithm>
#include <map>
#include <set>

#include "analyzers/Statistics.h"

namespace glueprof {

namespace {

constexpr std::size_t kSignatureOps = 16;

struct PerStep {
    std::int64_t runs = 0;
    std::set<std::int32_t> layers;
    std::set<std::int32_t> microbatches;
    TimestampNs totalNs = 0;
};

struct Group {
    std::string name;
    std::string sequence;
    std::vector<double> ops;      // ops inside, per run
    std::vector<double> syncOps;  // would-sync ops inside, per run
    std::map<std::int32_t, PerStep> steps;
    std::vector<double> runMs;
};

}  // namespace

RepeatedWorkResult analyzeRepeatedWork(const TraceModel& trace) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::pair<std::string, std::string>, Group> groups;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        const std::vector<Event>& events = trace.eventsOnLane(lane);
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& range = events[i];
            if (range.kind != EventKind::kRange || range.category != Category::kGlue ||
                measured.count(range.step) == 0) {
                continue;
            }
            // The distinct ops inside (events are sorted by start on the lane): a per-document loop
            // has the same signature whatever the document count.
            std::set<std::string> opNames;
            std::size_t ops = 0;
            std::size_t syncOps = 0;
            for (std::size_t j = i + 1; j < events.size() && events[j].startNs < range.endNs; ++j) {
                const Event& e = events[j];
                // Nested ops too: in the checkpoint recompute everything runs inside an autograd
                // node.
                if (e.kind != EventKind::kOp || e.endNs > range.endNs) continue;
                opNames.insert(trace.name(e.name));
                ++ops;
                if ((e.flags & kFlagWouldSync) != 0) ++syncOps;
            }
            std::string sequence;
            std::size_t listed = 0;
            for (const std::string& op : opNames) {
                if (listed++ == kSignatureOps) {
                    sequence += ", ...";
                    break;
                }
                sequence += (sequence.empty() ? "" : ", ") + op;
            }
            Group& g = groups[{trace.name(range.name), sequence}];
            g.name = trace.name(range.name);
            g.sequence = sequence;
            g.ops.push_back(static_cast<double>(ops));
            g.syncOps.push_back(static_cast<double>(syncOps));
            PerStep& s = g.steps[range.step];
            ++s.runs;
            s.layers.insert(range.layer);
            s.microbatches.insert(range.microbatch);
            s.totalNs += range.durationNs();
            g.runMs.push_back(static_cast<double>(range.durationNs()) / 1e6);
        }
    }
    RepeatedWorkResult result;
    for (const auto& [key, g] : groups) {
        std::vector<double> runs, layers, microbatches, ms;
        for (const auto& [step, s] : g.steps) {
            runs.push_back(static_cast<double>(s.runs));
            layers.push_back(static_cast<double>(s.layers.size()));
            microbatches.push_back(static_cast<double>(s.microbatches.size()));
            ms.push_back(static_cast<double>(s.totalNs) / 1e6);
        }
        RepeatedRange r;
        r.name = g.name;
        r.ops = g.sequence;
        r.opsInside = median(g.ops);
        r.runsPerStep = median(runs);
        r.layersPerStep = median(layers);
        r.microbatchesPerStep = median(microbatches);
        r.msPerStep = median(ms);
        r.medianRunMs = median(g.runMs);
        r.syncOpsPerRun = median(g.syncOps);
        if (r.runsPerStep <= r.microbatchesPerStep || r.layersPerStep < 2) continue;
        r.avoidableMsPerStep = r.msPerStep * (1.0 - r.microbatchesPerStep / r.runsPerStep);
        result.repeated.push_back(r);
    }
    std::sort(result.repeated.begin(), result.repeated.end(),
              [](const RepeatedRange& a, const RepeatedRange& b) {
                  return a.avoidableMsPerStep > b.avoidableMsPerStep;
              });
    return result;
}

}  // namespace glueprof
