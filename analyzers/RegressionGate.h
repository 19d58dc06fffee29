#pragma once
// The CI regression gate: what a baseline expects of each toggle's A/B (counters equal exactly,
// speedup intervals above a floor, losses bit-identical) checked against measured comparisons.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/AbComparison.h"

namespace glueprof {

struct CounterExpectation {
    double baseline = 0.0;  // per measured step, exactly
    double optimized = 0.0;
};

struct ToggleExpectation {
    std::map<std::string, CounterExpectation> counters;  // e.g. mask_builds_per_step
    std::map<std::string, double> minSpeedup;  // metric -> floor for the 95% interval's low end
    bool lossEqual = true;                     // losses must match bit for bit
};

struct GateBaseline {
    std::string preset;
    std::string device = "cpu";
    std::map<std::string, ToggleExpectation> toggles;
};

struct GateCheck {
    std::string toggle;
    std::string
        check;  // "counter mask_builds_per_step", "speedup forward_ms", "loss", "comparison"
    std::string expected;
    std::string measured;
    bool passed = false;
};

// `comparisons`: the measured A/B per toggle (a toggle missing from it fails its "comparison"
// check).
std::vector<GateCheck> evaluateGate(const GateBaseline& baseline,
                                    const std::map<std::string, AbComparison>& comparisons);
bool allPassed(const std::vector<GateCheck>& checks);

// A baseline that the given comparisons pass: every counter constant in both arms, the primary
// metric's floor at 0.8 x the measured interval's low end (rounded down to 0.01).
GateBaseline baselineFrom(const std::string& preset, const std::string& device,
                          const std::map<std::string, AbComparison>& comparisons);

}  // namespace glueprof
