#include "analyzers/LayerCosts.h"

#include <map>

#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

LayerCostsResult measureLayerCosts(const TraceModel& trace) {
    LayerCostsResult r;
    const auto layerName = trace.findName(names::kLayer);
    const auto recomputeName = trace.findName(names::kRecompute);
    const auto layerBackwardName = trace.findName(names::kLayerBackward);
    const auto forwardName = trace.findName(names::kForward);
    const auto backwardName = trace.findName(names::kBackward);
    if (!layerName || !forwardName || !backwardName) return r;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::int32_t, std::vector<double>> forward, recompute, backward;
    std::vector<double> headForward, headBackward;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kHostThread) continue;
        std::vector<const Event*> open;  // enclosing ranges (events come parents first)
        const Event* phase = nullptr;    // the forward or backward range being measured
        double inside = 0.0;             // ms of layer work inside it
        auto closePhase = [&] {
            if (phase == nullptr) return;
            const double total = static_cast<double>(phase->durationNs()) / 1e6;
            (phase->name == *forwardName ? headForward : headBackward).push_back(total - inside);
            phase = nullptr;
            inside = 0.0;
        };
        for (const Event& e : trace.eventsOnLane(lane)) {
            while (!open.empty() && open.back()->endNs <= e.startNs) open.pop_back();
            if (phase != nullptr && phase->endNs <= e.startNs) closePhase();
            if (e.kind != EventKind::kRange) continue;
            const bool inMeasuredStep = measured.count(e.step) != 0;
            if ((e.name == *forwardName || e.name == *backwardName) && inMeasuredStep) {
                closePhase();
                phase = &e;
            } else if (inMeasuredStep && e.layer >= 0) {
                const double ms = static_cast<double>(e.durationNs()) / 1e6;
                bool inRecompute = false;
                for (const Event* o : open)
                    inRecompute = inRecompute || (recomputeName && o->name == *recomputeName);
                if (e.name == *layerName && !inRecompute) {
                    forward[e.layer].push_back(ms);
                    if (phase != nullptr) inside += ms;
                } else if (recomputeName && e.name == *recomputeName) {
                    recompute[e.layer].push_back(ms);
                    if (phase != nullptr) inside += ms;
                } else if (layerBackwardName && e.name == *layerBackwardName) {
                    backward[e.layer].push_back(ms);
                    if (phase != nullptr) inside += ms;
                }
            }
            open.push_back(&e);
        }
        closePhase();
    }
    if (forward.empty()) return r;
    const std::int32_t layers = forward.rbegin()->first + 1;
    for (std::int32_t l = 0; l < layers; ++l) {
        r.forwardMs.push_back(median(forward[l]));
        r.recomputeMs.push_back(recompute.count(l) != 0 ? median(recompute[l])
                                                        : median(forward[l]));
        r.backwardMs.push_back(median(backward[l]));
    }
    r.headForwardMs = std::max(median(headForward), 0.0);
    r.headBackwardMs = std::max(median(headBackward), 0.0);
    r.microbatchesMeasured = headForward.size();
    return r;
}

}  // namespace glueprof
