#include "analyzers/RegressionGate.h"

#include <fmt/format.h>

#include <cmath>

#include "profiler/core/CountText.h"
#include "profiler/core/Error.h"

namespace glueprof {

namespace {

// Whether both arms have a measured step (a sample of the verdict's metric): an A/B of warm-up
// steps only compares nothing.
bool measuredSteps(const AbComparison& c) {
    const MetricComparison* primary = c.metric(c.primaryMetric);
    return primary != nullptr && primary->baselineSamples > 0 && primary->optimizedSamples > 0;
}

}  // namespace

std::vector<GateCheck> evaluateGate(const GateBaseline& baseline,
                                    const std::map<std::string, AbComparison>& comparisons) {
    std::vector<GateCheck> checks;
    for (const auto& [toggle, expect] : baseline.toggles) {
        auto found = comparisons.find(toggle);
        if (found == comparisons.end()) {
            checks.push_back(
                GateCheck{toggle, "comparison", "an A/B in the database", "none", false});
            continue;
        }
        const AbComparison& c = found->second;
        checks.push_back(GateCheck{toggle, "comparison", "an A/B in the database",
                                   fmt::format("runs {} vs {}", c.baselineRun, c.optimizedRun),
                                   true});
        if (!measuredSteps(c)) {
            checks.push_back(GateCheck{toggle, "measured steps", "some in each arm",
                                       "none (each step was warm-up, or none ran)", false});
        }
        for (const auto& [name, want] : expect.counters) {
            const CounterComparison* got = c.counter(name);
            GateCheck check{toggle, "counter " + name,
                            countText(want.baseline) + " -> " + countText(want.optimized),
                            "missing", false};
            if (got == nullptr && want.baseline == 0.0 && want.optimized == 0.0) {
                // Not stored by this capture (a profiled program's runs have no trainer to count
                // reloads; baselines written before stored them as 0 -> 0): nothing contradicts.
                check.measured = "not counted";
                check.passed = true;
            } else if (got != nullptr) {
                check.measured = countText(got->baseline) + " -> " + countText(got->optimized);
                check.passed = got->baselineConstant && got->optimizedConstant &&
                               got->baseline == want.baseline && got->optimized == want.optimized;
                if (!got->baselineConstant || !got->optimizedConstant)
                    check.measured += " (varies per step)";
            }
            checks.push_back(check);
        }
        for (const auto& [metric, floor] : expect.minSpeedup) {
            const MetricComparison* got = c.metric(metric);
            GateCheck check{toggle, "speedup " + metric,
                            fmt::format("95% CI low >= {:.2f}x", floor), "missing", false};
            if (got != nullptr) {
                check.measured = speedupText(*got);
                // A withheld verdict (the machine's load changed too much) proves no floor.
                if (got->loadWithheld) check.measured += " (load changed: no verdict)";
                check.passed = got->hasInterval() && !got->loadWithheld && got->speedupLow >= floor;
            }
            checks.push_back(check);
        }
        if (expect.lossEqual) {
            checks.push_back(GateCheck{toggle, "loss", "bit-identical",
                                       c.lossEqual ? "bit-identical" : "differs", c.lossEqual});
        }
    }
    return checks;
}

bool allPassed(const std::vector<GateCheck>& checks) {
    for (const GateCheck& c : checks) {
        if (!c.passed) return false;
    }
    return true;
}

GateBaseline baselineFrom(const std::string& preset, const std::string& device,
                          const std::map<std::string, AbComparison>& comparisons) {
    GateBaseline baseline;
    baseline.preset = preset;
    baseline.device = device;
    for (const auto& [toggle, c] : comparisons) {
        if (!measuredSteps(c)) {
            throw inputError(fmt::format(
                "the A/B '{}' (runs {} vs {}) measured no step, so it cannot set a baseline; "
                "record it again with more steps or a lower --warmup",
                toggle, c.baselineRun, c.optimizedRun));
        }
        ToggleExpectation expect;
        for (const CounterComparison& k : c.counters) {
            if (k.baselineConstant && k.optimizedConstant) {
                expect.counters[k.name] = CounterExpectation{k.baseline, k.optimized};
            }
        }
        if (const MetricComparison* m = c.metric(c.primaryMetric); m && m->hasInterval()) {
            expect.minSpeedup[toString(c.primaryMetric)] =
                std::floor(0.8 * m->speedupLow * 100.0) / 100.0;
        }
        // The target too, when it has an interval (a target removed entirely has no finite ratio
        // to floor).
        if (c.target && c.target->stats.hasInterval() &&
            std::isfinite(c.target->stats.speedupLow)) {
            expect.minSpeedup[toString(c.target->metric)] =
                std::floor(0.8 * c.target->stats.speedupLow * 100.0) / 100.0;
        }
        expect.lossEqual = c.lossEqual;
        baseline.toggles[toggle] = expect;
    }
    return baseline;
}

}  // namespace glueprof
