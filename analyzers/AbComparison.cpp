#include "analyzers/AbComparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "analyzers/Statistics.h"
#include "analyzers/StepBreakdown.h"
#include "analyzers/TargetMetrics.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/MachineLoad.h"

namespace glueprof {

namespace {

// The minimum detectable ratio of a bootstrap interval of many steps (imported traces): its log
// half-width is about 1.96 standard errors, and 80% power lies 0.84 standard errors further.
double minimumDetectableFrom(const RatioInterval& ci) {
    if (!(ci.low > 0.0) || !(ci.high > ci.low) || std::isinf(ci.high)) return 0.0;
    const double standardError = std::log(ci.high / ci.low) / (2.0 * 1.959964);
    return std::exp((1.959964 + 0.841621) * standardError);
}

// The machine's load differed between the two halves of some block: the speedup and its interval
// become the ones with the load taken out, the blocks' own kept beside them. Each block's ratio
// compares the two halves' fastest steps (another process only ever adds time to a step: the
// fastest is the least disturbed), and a line through those log ratios against the blocks' load
// differences is read at equal load (loadAdjustedBlockRatio, the slope's degree of freedom and
// uncertainty in the interval). The verdict is withheld where that cannot be done or the
// interval it gives is too wide to mean anything.
void allowForLoad(MetricComparison& m, const std::vector<std::int32_t>& blockIds,
                  const std::vector<std::vector<double>>& baseBlocks,
                  const std::vector<std::vector<double>>& optBlocks, const LoadDrift& drift) {
    std::vector<double> logRatios, differences;
    for (std::size_t k = 0; k < baseBlocks.size(); ++k) {
        const auto difference = drift.difference.find(blockIds[k]);
        const double base = *std::min_element(baseBlocks[k].begin(), baseBlocks[k].end());
        const double opt = *std::min_element(optBlocks[k].begin(), optBlocks[k].end());
        if (difference == drift.difference.end() || !(base > 0.0) || !(opt > 0.0)) continue;
        logRatios.push_back(std::log(base / opt));
        differences.push_back(difference->second);
    }
    m.unadjustedLow = m.speedupLow;
    m.unadjustedHigh = m.speedupHigh;
    const LoadAdjustedRatio adjusted = loadAdjustedBlockRatio(logRatios, differences);
    if (!adjusted.computed ||
        adjusted.interval.high > kMeaninglessIntervalRatio * adjusted.interval.low) {
        m.loadWithheld = true;
        return;
    }
    m.loadAdjusted = true;
    m.speedup = adjusted.ratio;
    m.speedupLow = adjusted.interval.low;
    m.speedupHigh = adjusted.interval.high;
    m.minimumDetectable = adjusted.minimumDetectable;
}

// The paired blocks' interval (docs/metrics.md, "A/B statistics"). A block whose median is 0 in one
// arm has an infinite (or zero) ratio, which no mean of logs can hold: the interval is taken over
// the blocks with two positive medians and left open on that side (high = inf when the optimized
// arm's median was 0 somewhere, low = 0 for the baseline's). When every informative block is such,
// the target was removed (or added) in the median step of every block. Blocks where both medians
// are 0 say nothing and are not counted.
MetricComparison withBlockInterval(MetricComparison m, const std::vector<std::int32_t>& blockIds,
                                   const std::vector<std::vector<double>>& baseBlocks,
                                   const std::vector<std::vector<double>>& optBlocks,
                                   const LoadDrift* drift) {
    std::size_t informative = 0, removedIn = 0, addedIn = 0;
    for (std::size_t k = 0; k < baseBlocks.size(); ++k) {
        const double base = median(baseBlocks[k]);
        const double opt = median(optBlocks[k]);
        if (base > 0.0 || opt > 0.0) ++informative;
        if (base > 0.0 && opt <= 0.0) ++removedIn;
        if (base <= 0.0 && opt > 0.0) ++addedIn;
    }
    m.blocks = informative;
    if (!m.hasInterval()) return m;
    if (removedIn == informative) {
        m.speedup = m.speedupLow = m.speedupHigh = std::numeric_limits<double>::infinity();
        return m;
    }
    if (addedIn == informative) {
        m.speedup = m.speedupLow = m.speedupHigh = 0.0;
        return m;
    }
    const BlockRatioEstimate e = pairedBlockRatio(baseBlocks, optBlocks);
    if (e.blocks >= 2) {
        m.speedup = e.ratio;
        m.speedupLow = e.interval.low;
        m.speedupHigh = e.interval.high;
        m.minimumDetectable = e.minimumDetectable;
    } else {  // too few finite ratios for a spread: the interval is open on both sides
        m.speedupLow = 0.0;
        m.speedupHigh = std::numeric_limits<double>::infinity();
    }
    if (removedIn > 0) m.speedupHigh = std::numeric_limits<double>::infinity();
    if (addedIn > 0) m.speedupLow = 0.0;
    // A block whose median is 0 in one arm keeps the interval open on that side: no line through
    // finite ratios can close it.
    if (drift != nullptr && drift->changed() && removedIn == 0 && addedIn == 0)
        allowForLoad(m, blockIds, baseBlocks, optBlocks, *drift);
    return m;
}

// One measured step's value and the A/B block it ran in.
struct Sample {
    std::int32_t block;
    double value;
};

// Medians, their ratio and its interval (docs/metrics.md, "A/B statistics").
// `byBlocks`: the runs are an interleaved A/B (the trainer's blocks are the units); otherwise
// (imported traces, whose steps carry no blocks) the steps are.
MetricComparison compareSamples(const std::vector<Sample>& base, const std::vector<Sample>& opt,
                                bool byBlocks, const LoadDrift* drift) {
    std::vector<double> b, o;
    for (const Sample& s : base) b.push_back(s.value);
    for (const Sample& s : opt) o.push_back(s.value);
    MetricComparison m;
    m.baseline = median(b);
    m.optimized = median(o);
    m.speedup = m.optimized > 0.0 ? m.baseline / m.optimized : 0.0;
    m.baselineSamples = b.size();
    m.optimizedSamples = o.size();
    m.anyNonZero = std::any_of(b.begin(), b.end(), [](double v) { return v != 0.0; }) ||
                   std::any_of(o.begin(), o.end(), [](double v) { return v != 0.0; });
    m.baselineAllZero =
        !b.empty() && std::all_of(b.begin(), b.end(), [](double v) { return v == 0.0; });
    // Interleaved A/B arms: the blocks both ran, paired. Runs without blocks (imported traces):
    // their steps, resampled independently.
    std::map<std::int32_t, std::pair<std::vector<double>, std::vector<double>>> byBlock;
    for (const Sample& s : base) byBlock[s.block].first.push_back(s.value);
    for (const Sample& s : opt) byBlock[s.block].second.push_back(s.value);
    std::vector<std::vector<double>> baseBlocks, optBlocks;
    std::vector<std::int32_t> blockIds;
    for (auto& [block, values] : byBlock) {
        if (values.first.empty() || values.second.empty()) continue;
        blockIds.push_back(block);
        baseBlocks.push_back(std::move(values.first));
        optBlocks.push_back(std::move(values.second));
    }
    m.pairedBlocks = byBlocks;
    m.blocks = byBlocks ? baseBlocks.size() : std::min(b.size(), o.size());
    if (m.blocks < kMinBlocksForVerdict) return m;  // no interval: speedupLow = speedupHigh = 0
    if (m.optimized == 0.0 && m.baseline > 0.0 && *std::max_element(o.begin(), o.end()) == 0.0) {
        // The optimized arm removed it entirely, in every step: no ratio to resample.
        m.speedup = m.speedupLow = m.speedupHigh = std::numeric_limits<double>::infinity();
        return m;
    }
    if (m.baseline == 0.0 && m.optimized > 0.0 && *std::max_element(b.begin(), b.end()) == 0.0) {
        // The optimized arm added it where the baseline had none, in every step: a ratio of 0.
        m.speedup = m.speedupLow = m.speedupHigh = 0.0;
        return m;
    }
    if (m.pairedBlocks) return withBlockInterval(m, blockIds, baseBlocks, optBlocks, drift);
    const RatioInterval ci = bootstrapMedianRatio(b, o);
    m.speedupLow = ci.low;
    m.speedupHigh = ci.high;
    m.minimumDetectable = minimumDetectableFrom(ci);
    return m;
}

MetricComparison compareMetric(TimingMetric metric, const StepBreakdownResult& base,
                               const StepBreakdownResult& opt, bool byBlocks,
                               const LoadDrift& drift) {
    // Device figures only when every measured step of both arms has one: a statistic never mixes
    // device and host samples.
    const bool device = base.deviceTimed(metric) && opt.deviceTimed(metric);
    std::vector<Sample> b, o;
    for (const StepTimes& t : base.measured) b.push_back({t.block, t.value(metric, device)});
    for (const StepTimes& t : opt.measured) o.push_back({t.block, t.value(metric, device)});
    MetricComparison m = compareSamples(b, o, byBlocks, &drift);
    m.metric = metric;
    m.deviceTimed = device;
    return m;
}

// Both runs were recorded in the trainer's interleaved blocks; an imported trace's steps are not.
bool recordedInBlocks(const TraceModel& a, const TraceModel& b) {
    return a.run().identity.kind != RunKind::kImported &&
           b.run().identity.kind != RunKind::kImported;
}

Verdict verdictOf(const MetricComparison* m) {
    if (m == nullptr || m->baselineSamples == 0 || m->optimizedSamples == 0)
        return Verdict::kNothingMeasured;
    // Zero in every step of both arms (a target range that never ran): nothing to compare.
    if (!m->anyNonZero) return Verdict::kNothingMeasured;
    if (!m->hasInterval()) return Verdict::kTooFewBlocks;
    if (m->loadWithheld) return Verdict::kLoadChanged;
    if (m->speedupLow > 1.0) return Verdict::kFaster;
    if (m->speedupHigh < 1.0) return Verdict::kSlower;
    return Verdict::kNoSignificantChange;
}

// counter name -> per measured step values
std::map<std::string, std::vector<double>> measuredCounters(const TraceModel& trace) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::string, std::vector<double>> values;
    for (const CounterValue& c : trace.counters()) {
        if (measured.count(c.step) != 0) values[c.name].push_back(static_cast<double>(c.value));
    }
    return values;
}

bool allEqual(const std::vector<double>& values) {
    for (double v : values) {
        if (v != values.front()) return false;
    }
    return true;
}

// The steps both arms ran, their losses compared bit for bit (an aborted A/B's arms may have run
// different numbers of steps: the shared ones still say whether the arms agree). Returns the
// number of shared steps and whether every one was equal.
std::pair<std::size_t, bool> lossesBitwiseEqual(const TraceModel& a, const TraceModel& b) {
    std::map<std::int32_t, double> other;
    for (const StepInfo& s : b.steps()) other.emplace(s.step, s.loss);
    std::size_t shared = 0;
    bool equal = true;
    for (const StepInfo& s : a.steps()) {
        auto it = other.find(s.step);
        if (it == other.end()) continue;
        ++shared;
        const double x = s.loss;
        const double y = it->second;
        if (std::memcmp(&x, &y, sizeof x) != 0) equal = false;
    }
    return {shared, shared > 0 && equal};
}

}  // namespace

bool MetricComparison::hasInterval() const { return blocks >= kMinBlocksForVerdict; }

std::string speedupText(const MetricComparison& m) {
    const char* unit =
        m.pairedBlocks ? (m.blocks == 1 ? "block" : "blocks") : (m.blocks == 1 ? "step" : "steps");
    if (std::isinf(m.speedup))
        return fmt::format("removed entirely ({:.3f} -> 0, {} {})", m.baseline, m.blocks, unit);
    if (!m.hasInterval())
        return fmt::format("{:.3f}x (no interval: {} {})", m.speedup, m.blocks, unit);
    return fmt::format("{:.3f}x [{:.3f}, {:.3f}] ({} {})", m.speedup, m.speedupLow, m.speedupHigh,
                       m.blocks, unit);
}

const MetricComparison* AbComparison::metric(TimingMetric which) const {
    for (const auto& m : metrics) {
        if (m.metric == which) return &m;
    }
    return nullptr;
}

const MetricComparison* AbComparison::metric(std::string_view name) const {
    if (target && name == toString(target->metric)) return &target->stats;
    const std::optional<TimingMetric> which = parseTimingMetric(name);
    return which ? metric(*which) : nullptr;
}

const CounterComparison* AbComparison::counter(const std::string& name) const {
    for (const auto& c : counters) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

const char* toString(Verdict verdict) {
    switch (verdict) {
        case Verdict::kFaster:
            return "faster";
        case Verdict::kSlower:
            return "slower";
        case Verdict::kNoSignificantChange:
            return "no significant change";
        case Verdict::kTooFewBlocks:
            return "no verdict (fewer than 3 blocks)";
        case Verdict::kBeyondTarget:
            return "beyond what the target explains: noise or a side effect";
        case Verdict::kNothingMeasured:
            return "no verdict (nothing measured)";
        case Verdict::kLoadChanged:
            return "no verdict (the machine's load changed too much between the arms)";
    }
    return "unknown";
}

Verdict AbComparison::verdict() const { return verdictOf(metric(primaryMetric)); }

Verdict AbComparison::endToEndVerdict() const {
    const MetricComparison* step = metric(TimingMetric::kStep);
    const Verdict verdict = verdictOf(step);
    if (verdict != Verdict::kFaster && verdict != Verdict::kSlower) return verdict;
    const std::optional<std::pair<double, double>> explained = targetExplains();
    if (explained && (step->speedupLow > explained->second || step->speedupHigh < explained->first))
        return Verdict::kBeyondTarget;
    return verdict;
}

std::optional<std::pair<double, double>> AbComparison::targetExplains() const {
    if (!target || !target->stats.hasInterval()) return std::nullopt;
    const double share = std::clamp(target->baselineShare(), 0.0, 1.0);
    // The step's ratio when the target's time is divided by k: 1 / (1 - s (1 - 1/k)); k = inf
    // (the target removed entirely) gives 1 / (1 - s).
    auto stepRatio = [share](double k) {
        const double remaining = 1.0 - share * (1.0 - (std::isinf(k) ? 0.0 : 1.0 / k));
        return remaining > 0.0 ? 1.0 / remaining : std::numeric_limits<double>::infinity();
    };
    if (!(target->stats.speedupLow > 0.0)) return std::nullopt;
    return std::make_pair(stepRatio(target->stats.speedupLow),
                          stepRatio(target->stats.speedupHigh));
}

Verdict TargetComparison::verdict() const { return verdictOf(&stats); }

std::string TargetComparison::description() const {
    return range.empty() ? describe(metric) : "time in " + range;
}

double TargetComparison::baselineShare() const {
    return baselineStepMs > 0.0 ? stats.baseline / baselineStepMs : 0.0;
}

LoadDrift loadDriftOf(const TraceModel& baseline, const TraceModel& optimized) {
    const auto loadsOf = [](const TraceModel& trace) {
        std::map<std::int32_t, MachineLoad> loads;
        for (const Diagnostic& d : trace.diagnostics()) {
            if (d.name != kMachineLoadDiagnostic) continue;
            for (const BlockLoad& b : parseBlockLoads(d.detail)) loads[b.block] = b.load;
        }
        return loads;
    };
    const std::map<std::int32_t, MachineLoad> base = loadsOf(baseline);
    const std::map<std::int32_t, MachineLoad> opt = loadsOf(optimized);
    LoadDrift drift;
    for (const auto& [block, b] : base) {
        const auto o = opt.find(block);
        if (o == opt.end()) continue;
        const double baseCores = b.otherCores + b.stealCores;
        const double optCores = o->second.otherCores + o->second.stealCores;
        ++drift.blocks;
        drift.maxLoadCores = std::max({drift.maxLoadCores, baseCores, optCores});
        drift.difference[block] = baseCores - optCores;
        const double difference = std::abs(baseCores - optCores);
        drift.maxDifference = std::max(drift.maxDifference, difference);
        // A tick of 10 ms at each end of a half's count of busy time: what a span cannot resolve
        // (its own CPU time, from getrusage, is exact).
        const double shortest = std::min(b.seconds, o->second.seconds);
        const double resolution = shortest > 0.0 ? 0.02 / shortest : 1.0;
        if (difference >= kLoadDriftCores + resolution) ++drift.blocksDiffering;
    }
    return drift;
}

std::optional<TargetComparison> compareTarget(TargetMetric metric, const TraceModel& baseline,
                                              const TraceModel& optimized, double baselineStepMs,
                                              const std::string& range) {
    if (metric == TargetMetric::kNone) return std::nullopt;
    std::vector<Sample> b, o;
    for (const TargetSample& t : targetPerStep(baseline, metric, range))
        b.push_back({t.block, t.ms});
    for (const TargetSample& t : targetPerStep(optimized, metric, range))
        o.push_back({t.block, t.ms});
    TargetComparison c;
    c.metric = metric;
    c.range = range;
    const LoadDrift drift = loadDriftOf(baseline, optimized);
    c.stats = compareSamples(b, o, recordedInBlocks(baseline, optimized), &drift);
    c.stats.label = toString(metric);
    c.baselineStepMs = baselineStepMs;
    return c;
}

AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const TraceModel& optimized) {
    return compareRuns(toggle, primaryMetric, baseline, analyzeStepBreakdown(baseline), optimized,
                       analyzeStepBreakdown(optimized));
}

AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const StepBreakdownResult& base,
                         const TraceModel& optimized, const StepBreakdownResult& opt) {
    AbComparison result;
    result.toggle = toggle;
    result.primaryMetric = primaryMetric;
    result.baselineRun = baseline.run().id;
    result.optimizedRun = optimized.run().id;
    result.load = loadDriftOf(baseline, optimized);

    for (TimingMetric metric : kTimingMetrics) {
        MetricComparison m =
            compareMetric(metric, base, opt, recordedInBlocks(baseline, optimized), result.load);
        // A phase neither run has (an imported trace has no forward/backward ranges) is no row.
        if (metric != primaryMetric && m.baseline == 0.0 && m.optimized == 0.0) continue;
        result.metrics.push_back(m);
    }

    auto baseCounters = measuredCounters(baseline);
    auto optCounters = measuredCounters(optimized);
    for (const auto& [name, values] : baseCounters) {
        auto other = optCounters.find(name);
        if (other == optCounters.end()) continue;
        CounterComparison c;
        c.name = name + "_per_step";
        c.baseline = median(values);
        c.optimized = median(other->second);
        c.baselineConstant = allEqual(values);
        c.optimizedConstant = allEqual(other->second);
        result.counters.push_back(c);
    }
    // An imported trace has no loss; a profiled program has one where it reported it
    // (glueprof.record_loss): a run whose profile_losses_reported is 0 has none.
    const auto lossReported = [](const TraceModel& trace) {
        if (trace.run().identity.kind == RunKind::kImported) return false;
        for (const Diagnostic& d : trace.diagnostics()) {
            if (d.name == diagnosticName(DiagnosticId::kProfileLosses)) return d.value > 0;
        }
        return true;
    };
    result.lossRecorded = lossReported(baseline) && lossReported(optimized);
    const auto [shared, equal] = lossesBitwiseEqual(baseline, optimized);
    result.lossEqual = result.lossRecorded && equal;
    result.lossStepsCompared = shared;
    result.baselineSteps = baseline.steps().size();
    result.optimizedSteps = optimized.steps().size();
    if (!baseline.steps().empty()) result.baselineFinalLoss = baseline.steps().back().loss;
    if (!optimized.steps().empty()) result.optimizedFinalLoss = optimized.steps().back().loss;
    return result;
}

// Warm-up steps, measured steps per block and blocks, as the baseline arm recorded them.
AbSetup abSetupOf(const TraceModel& baseline) {
    AbSetup setup;
    std::map<std::int32_t, int> perBlock;
    for (const StepInfo& s : baseline.steps()) {
        if (s.warmup) {
            ++setup.warmup;
        } else {
            ++perBlock[s.block];
        }
    }
    setup.repeats = static_cast<int>(perBlock.size());
    for (const auto& [block, count] : perBlock) setup.steps = std::max(setup.steps, count);
    return setup;
}

}  // namespace glueprof
