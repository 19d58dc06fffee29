#include "analyzers/PerLayerWork.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "analyzers/Statistics.h"

namespace glueprof {

namespace {

constexpr std::string_view kModuleRangePrefix = "nn.Module: ";

struct OpInStep {
    std::int64_t count = 0;
    std::set<std::int32_t> layers;
    TimestampNs ns = 0;
};

struct OpGroup {
    bool wouldSync = false;
    std::map<std::int32_t, OpInStep> steps;
};

}  // namespace

bool isLayerMath(const std::string& op) {
    static const std::set<std::string_view> kExact = {
        "aten::mm",     "aten::addmm",  "aten::bmm",       "aten::baddbmm",
        "aten::matmul", "aten::linear", "aten::embedding", "aten::_grouped_mm"};
    static constexpr std::array<std::string_view, 6> kPrefixes = {"aten::conv",
                                                                  "aten::_convolution",
                                                                  "aten::scaled_dot_product",
                                                                  "aten::_scaled_dot_product",
                                                                  "aten::_flash_attention",
                                                                  "aten::_efficient_attention"};
    if (kExact.count(op) != 0) return true;
    return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&op](std::string_view prefix) {
        return std::string_view(op).substr(0, prefix.size()) == prefix;
    });
}

bool isShapeOrCopy(const std::string& op) {
    static const std::set<std::string_view> kShape = {"aten::view",
                                                      "aten::_unsafe_view",
                                                      "aten::reshape",
                                                      "aten::transpose",
                                                      "aten::t",
                                                      "aten::permute",
                                                      "aten::expand",
                                                      "aten::slice",
                                                      "aten::narrow",
                                                      "aten::select",
                                                      "aten::as_strided",
                                                      "aten::unsqueeze",
                                                      "aten::squeeze",
                                                      "aten::flatten",
                                                      "aten::cat",
                                                      "aten::stack",
                                                      "aten::split",
                                                      "aten::chunk",
                                                      "aten::contiguous",
                                                      "aten::clone",
                                                      "aten::to",
                                                      "aten::_to_copy",
                                                      "aten::copy_",
                                                      "aten::empty",
                                                      "aten::empty_like",
                                                      "aten::empty_strided",
                                                      "aten::zeros",
                                                      "aten::zeros_like",
                                                      "aten::ones",
                                                      "aten::ones_like",
                                                      "aten::full",
                                                      "aten::fill_",
                                                      "aten::zero_",
                                                      "aten::detach",
                                                      "aten::detach_",
                                                      "detach_",
                                                      "detach",
                                                      "aten::resolve_conj",
                                                      "aten::resolve_neg",
                                                      "aten::lift_fresh",
                                                      "aten::alias",
                                                      "aten::arange",
                                                      "aten::expand_as",
                                                      "aten::view_as",
                                                      "aten::repeat",
                                                      "aten::repeat_interleave",
                                                      "aten::index_select",
                                                      "aten::gather",
                                                      "aten::unbind",
                                                      "aten::result_type"};
    return kShape.count(op) != 0;
}

PerLayerWorkResult analyzePerLayerWork(const TraceModel& trace) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::string, OpGroup> groups;
    std::map<std::int32_t, std::set<std::int32_t>> layersOfStep;
    std::set<std::string> layerRanges;
    std::map<std::int32_t, TimestampNs> glueNsOfStep;
    std::map<std::int32_t, TimestampNs> layerNsOfStep;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        TimestampNs outermostEnd = 0;  // events are sorted by start on their lane
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.layer == kNoTag || measured.count(e.step) == 0) continue;
            if (e.kind == EventKind::kRange) {
                const std::string& name = trace.name(e.name);
                if (name.rfind(kModuleRangePrefix, 0) == 0) {
                    layerRanges.insert(name);
                    layerNsOfStep[e.step] += e.durationNs();
                }
                continue;
            }
            if (e.kind != EventKind::kOp) continue;
            layersOfStep[e.step].insert(e.layer);
            const std::string& name = trace.name(e.name);
            if (e.startNs >= outermostEnd) {
                outermostEnd = e.endNs;
                if (!isLayerMath(name)) glueNsOfStep[e.step] += e.durationNs();
            }
            OpGroup& g = groups[name];
            g.wouldSync = g.wouldSync || (e.flags & kFlagWouldSync) != 0;
            OpInStep& s = g.steps[e.step];
            ++s.count;
            s.layers.insert(e.layer);
            s.ns += e.durationNs();
        }
    }
    PerLayerWorkResult result;
    result.layerRanges.assign(layerRanges.begin(), layerRanges.end());
    std::vector<double> layersPerStep;
    for (const auto& [step, layers] : layersOfStep)
        layersPerStep.push_back(static_cast<double>(layers.size()));
    result.layersPerStep = layersPerStep.empty() ? 0.0 : median(layersPerStep);
    std::vector<double> glueMs;
    for (const auto& [step, layers] : layersOfStep) {
        const auto glue = glueNsOfStep.find(step);
        glueMs.push_back(glue != glueNsOfStep.end() ? static_cast<double>(glue->second) / 1e6
                                                    : 0.0);
    }
    result.glueMsPerStep = glueMs.empty() ? 0.0 : median(glueMs);
    std::vector<double> layerMs;
    for (const auto& [step, ns] : layerNsOfStep) layerMs.push_back(static_cast<double>(ns) / 1e6);
    result.layersMsPerStep = layerMs.empty() ? 0.0 : median(layerMs);
    for (const auto& [name, g] : groups) {
        std::vector<double> perLayer, layers, perStep, ms;
        for (const auto& [step, s] : g.steps) {
            const double n = static_cast<double>(s.layers.size());
            perLayer.push_back(static_cast<double>(s.count) / n);
            layers.push_back(n);
            perStep.push_back(static_cast<double>(s.count));
            ms.push_back(static_cast<double>(s.ns) / 1e6);
        }
        PerLayerOp op;
        op.op = name;
        op.layers = median(layers);
        if (op.layers < 2) continue;
        op.perLayer = median(perLayer);
        op.perStep = median(perStep);
        op.msPerStep = median(ms);
        op.math = isLayerMath(name);
        op.wouldSync = g.wouldSync;
        op.kind = op.math               ? "matrix"
                  : op.wouldSync        ? "host read"
                  : isShapeOrCopy(name) ? "shape/copy"
                                        : "elementwise";
        result.ops.push_back(op);
    }
    std::sort(result.ops.begin(), result.ops.end(), [](const PerLayerOp& a, const PerLayerOp& b) {
        return a.msPerStep != b.msPerStep ? a.msPerStep > b.msPerStep : a.op < b.op;
    });
    return result;
}

std::vector<const PerLayerOp*> opsGlueFirst(const PerLayerWorkResult& work, std::size_t limit) {
    std::vector<const PerLayerOp*> listed;
    for (const bool math : {false, true}) {
        for (const PerLayerOp& op : work.ops) {
            if (op.math == math && listed.size() < limit) listed.push_back(&op);
        }
    }
    return listed;
}

}  // namespace glueprof
