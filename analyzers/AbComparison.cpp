#include "analyzers/AbComparison.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "analyzers/Statistics.h"
#include "analyzers/StepBreakdown.h"

namespace glueprof {

namespace {

MetricComparison compareMetric(TimingMetric metric, const StepBreakdownResult& base,
                               const StepBreakdownResult& opt) {
    // Device figures only when every measured step of both arms has one: a statistic never mixes
    // device and host samples.
    const bool device = base.deviceTimed(metric) && opt.deviceTimed(metric);
    std::vector<double> b, o;
    for (const StepTimes& t : base.measured) b.push_back(t.value(metric, device));
    for (const StepTimes& t : opt.measured) o.push_back(t.value(metric, device));
    MetricComparison m;
    m.metric = metric;
    m.deviceTimed = device;
    m.baseline = median(b);
    m.optimized = median(o);
    m.speedup = m.optimized > 0.0 ? m.baseline / m.optimized : 0.0;
    RatioInterval ci = bootstrapMedianRatio(b, o);
    m.speedupLow = ci.low;
    m.speedupHigh = ci.high;
    m.baselineSamples = b.size();
    m.optimizedSamples = o.size();
    return m;
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

bool lossesBitwiseEqual(const TraceModel& a, const TraceModel& b) {
    if (a.steps().size() != b.steps().size() || a.steps().empty()) return false;
    for (std::size_t i = 0; i < a.steps().size(); ++i) {
        double x = a.steps()[i].loss;
        double y = b.steps()[i].loss;
        if (std::memcmp(&x, &y, sizeof x) != 0) return false;
    }
    return true;
}

}  // namespace

const MetricComparison* AbComparison::metric(TimingMetric which) const {
    for (const auto& m : metrics) {
        if (m.metric == which) return &m;
    }
    return nullptr;
}

const MetricComparison* AbComparison::metric(std::string_view name) const {
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
    }
    return "unknown";
}

Verdict AbComparison::verdict() const {
    const MetricComparison* m = metric(primaryMetric);
    if (m == nullptr || m->baselineSamples == 0 || m->optimizedSamples == 0) {
        return Verdict::kNoSignificantChange;
    }
    if (m->speedupLow > 1.0) return Verdict::kFaster;
    if (m->speedupHigh < 1.0) return Verdict::kSlower;
    return Verdict::kNoSignificantChange;
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

    for (TimingMetric metric : kTimingMetrics) {
        MetricComparison m = compareMetric(metric, base, opt);
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
    result.lossRecorded = baseline.run().identity.kind != RunKind::kImported &&
                          optimized.run().identity.kind != RunKind::kImported;
    result.lossEqual = result.lossRecorded && lossesBitwiseEqual(baseline, optimized);
    if (!baseline.steps().empty()) result.baselineFinalLoss = baseline.steps().back().loss;
    if (!optimized.steps().empty()) result.optimizedFinalLoss = optimized.steps().back().loss;
    return result;
}

}  // namespace glueprof
