#pragma once
// A/B comparison of a baseline and an optimized run recorded in interleaved blocks on the same
// batches: per timing metric the medians, the speedup (baseline / optimized), its 95% interval and
// the smallest effect the comparison could detect; per counter the per-step values, compared
// exactly; and whether the losses match bit for bit.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzers/StepBreakdown.h"
#include "profiler/core/TargetMetric.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct MetricComparison {
    TimingMetric metric = TimingMetric::kStep;
    double baseline = 0.0;  // median over measured steps
    double optimized = 0.0;
    // baseline / optimized: over paired blocks the geometric mean of the blocks' ratios of
    // medians, else the ratio of the medians.
    double speedup = 0.0;
    double speedupLow = 0.0;  // 95% interval of the speedup (docs/metrics.md, "A/B statistics")
    double speedupHigh = 0.0;
    // The smallest speedup (or slowdown, as its inverse) this comparison's noise lets it detect in
    // 4 runs of 5: what a "no significant change" could not have seen. 0 without an interval.
    double minimumDetectable = 0.0;
    std::size_t baselineSamples = 0;  // measured steps behind each median
    std::size_t optimizedSamples = 0;
    bool anyNonZero = false;       // some measured step of either arm is not 0 (a target range ran)
    bool baselineAllZero = false;  // every measured step of the baseline is 0 (it has none)
    // The independent units behind the interval: the A/B's blocks with a positive median in both
    // arms (a t interval on their log ratios), or, for runs not recorded in blocks (imported
    // traces), the fewer arm's steps (bootstrap of steps). Below kMinBlocksForVerdict there is no
    // interval and no verdict.
    std::size_t blocks = 0;
    bool pairedBlocks = false;
    bool hasInterval() const;
    bool deviceTimed = false;  // device figures of both arms (CUDA), else host figures
    // The machine's load differed between the arms of some block (LoadDrift): the speedup and
    // its interval are the ones with the load difference taken out (loadAdjustedBlockRatio), the
    // blocks' own t interval kept in unadjusted*; withheld when the load cannot be taken out
    // (fewer than 4 blocks, loads that differ alike in every block) or the interval it gives
    // spans more than a factor of kMeaninglessIntervalRatio.
    bool loadAdjusted = false;
    bool loadWithheld = false;
    double unadjustedLow = 0.0;
    double unadjustedHigh = 0.0;

    const char* label = nullptr;  // a target metric's name; else the timing metric's
    const char* name() const { return label != nullptr ? label : toString(metric); }
};

// "1.003x [0.960, 1.090] (4 blocks)", or "1.003x (no interval: 2 blocks)": the speedup with what
// stands behind it, as every face prints it.
std::string speedupText(const MetricComparison& m);

struct CounterComparison {
    std::string name;       // e.g. mask_builds_per_step
    double baseline = 0.0;  // median per measured step
    double optimized = 0.0;
    bool baselineConstant = true;  // the same value in every measured step
    bool optimizedConstant = true;
};

// What else the machine ran during an A/B recorded in blocks (the machine_load diagnostic each
// arm stores: MachineLoad.h), block by block (docs/metrics.md, "Load that changes between
// blocks").
struct LoadDrift {
    std::size_t blocks = 0;           // blocks with a load measured in both arms' halves
    double maxLoadCores = 0.0;        // the most other processes and steal took in any half
    double maxDifference = 0.0;       // the largest |baseline half's - optimized half's| of a block
    std::size_t blocksDiffering = 0;  // blocks whose halves differ beyond kLoadDriftCores
    std::map<std::int32_t, double> difference;  // block -> baseline half's - optimized half's
    bool changed() const { return blocksDiffering > 0; }
};
// A block's halves saw different loads when they differ by this many cores, plus what /proc/stat's
// 100 Hz ticks cannot resolve over the half's length.
inline constexpr double kLoadDriftCores = 0.15;
inline constexpr double kMeaninglessIntervalRatio = 2.0;
LoadDrift loadDriftOf(const TraceModel& baseline, const TraceModel& optimized);

// kBeyondTarget: end to end only — significant, but by more than the toggle's target could
// account for (AbComparison::targetExplains): noise or a side effect, not the toggle's saving.
// kNothingMeasured: no measured step in an arm (every step warm-up, or none ran), or, for a
// target, a range that never ran in either arm: nothing to compare.
// kLoadChanged: the machine's load differed between the arms so much that no interval can allow
// for it (MetricComparison::loadWithheld).
enum class Verdict {
    kFaster,
    kSlower,
    kNoSignificantChange,
    kTooFewBlocks,
    kBeyondTarget,
    kNothingMeasured,
    kLoadChanged
};
const char* toString(Verdict verdict);

// The toggle's target metric (profiler/core/TargetMetric.h), compared as a timing metric is, with
// the share of the baseline step it took: why the step moves, or does not.
struct TargetComparison {
    TargetMetric metric = TargetMetric::kNone;
    std::string range;             // kUserRange: the range it times (ab --exec --target RANGE)
    MetricComparison stats;        // medians in ms per step; speedup = baseline / optimized
    double baselineStepMs = 0.0;   // the baseline's median step time (the share's denominator)
    double baselineShare() const;  // stats.baseline / baselineStepMs
    Verdict verdict() const;
    // For people: "mask-build time", or "time in RANGE" for kUserRange.
    std::string description() const;
};

struct AbComparison {
    std::string toggle;
    TimingMetric primaryMetric = TimingMetric::kStep;  // the metric the verdict is about
    RunId baselineRun = 0;
    RunId optimizedRun = 0;
    std::vector<MetricComparison> metrics;
    std::vector<CounterComparison> counters;
    LoadDrift load;
    bool lossEqual = false;             // every step both arms ran has the same loss, bit for bit
    std::size_t lossStepsCompared = 0;  // the steps both arms ran
    std::size_t baselineSteps = 0;      // steps each arm ran (they differ in an aborted A/B)
    std::size_t optimizedSteps = 0;
    // False when either run has no losses to compare (an imported trace): lossEqual is false then.
    bool lossRecorded = true;
    double baselineFinalLoss = 0.0;
    double optimizedFinalLoss = 0.0;

    const MetricComparison* metric(TimingMetric which) const;
    // By its name: a timing metric's toString, or the target metric's.
    const MetricComparison* metric(std::string_view name) const;
    // kNothingMeasured when an arm has no measured step (or the metric is 0 in every step of
    // both), kFaster when the whole 95% interval of the primary metric's speedup is above 1,
    // kSlower when it is below 1, kTooFewBlocks without an interval, otherwise no significant
    // change.
    Verdict verdict() const;
    // The two verdicts an A/B reports (docs/metrics.md): on the toggle's target, and end to end
    // on step time (kBeyondTarget when the step's whole interval lies outside targetExplains()).
    std::optional<TargetComparison> target;
    Verdict endToEndVerdict() const;
    // The step-time speedups the target's measured change accounts for: the target took a share s
    // of the baseline step and sped up by k (within its interval [kLow, kHigh]), so the step can
    // have sped up by 1 / (1 - s (1 - 1/k)) for k in that interval, and by no more. nullopt
    // without a target or without a target interval.
    std::optional<std::pair<double, double>> targetExplains() const;
    const CounterComparison* counter(const std::string& name) const;
};

AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const TraceModel& optimized);
// The same with the runs' step breakdowns already computed (the results model has them).
AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const StepBreakdownResult& baselineSteps,
                         const TraceModel& optimized, const StepBreakdownResult& optimizedSteps);

// The target comparison of two runs; nullopt for kNone. `range`: kUserRange's range name.
std::optional<TargetComparison> compareTarget(TargetMetric metric, const TraceModel& baseline,
                                              const TraceModel& optimized, double baselineStepMs,
                                              const std::string& range = "");

// How the A/B blocks ran, read back from the steps of a comparison's baseline.
struct AbSetup {
    int warmup = 0;   // warm-up steps per arm
    int steps = 0;    // measured steps per block
    int repeats = 0;  // blocks per arm
};
AbSetup abSetupOf(const TraceModel& baseline);

}  // namespace glueprof
