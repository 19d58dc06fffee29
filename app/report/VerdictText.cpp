#include "app/report/VerdictText.h"

#include <fmt/format.h>

#include <cmath>

namespace glueprof {

std::string detectableText(const MetricComparison& m) {
    if (!(m.minimumDetectable >= 1.0) || std::isinf(m.minimumDetectable)) return {};
    const double percent = 100.0 * (m.minimumDetectable - 1.0);
    if (percent < 10.0) return fmt::format("{:.1f}%", percent);
    if (percent < 100.0) return fmt::format("{:.0f}%", percent);
    return fmt::format("{:.1f}x", m.minimumDetectable);
}

std::string detectableSuffix(Verdict verdict, const MetricComparison& m) {
    const std::string detectable = detectableText(m);
    if (verdict != Verdict::kNoSignificantChange || detectable.empty()) return {};
    return "; this A/B could have detected >= " + detectable;
}

std::string verdictText(Verdict verdict, const MetricComparison& m) {
    return toString(verdict) + detectableSuffix(verdict, m);
}

std::string loadDriftText(const AbComparison& c) {
    const LoadDrift& load = c.load;
    if (load.blocks == 0) return {};
    if (!load.changed()) {
        return fmt::format("steady (other processes took at most {:.2f} cores)", load.maxLoadCores);
    }
    bool withheld = false;
    for (const MetricComparison& m : c.metrics) withheld = withheld || m.loadWithheld;
    if (c.target) withheld = withheld || c.target->stats.loadWithheld;
    return fmt::format(
        "changed: other processes took up to {:.2f} cores, and the arms of {} of {} blocks saw "
        "loads that differed by up to {:.2f} cores; {}",
        load.maxLoadCores, load.blocksDiffering, load.blocks, load.maxDifference,
        withheld ? "too much to allow for where a verdict is withheld (run the A/B on a quieter "
                   "machine, or with more blocks: --repeats)"
                 : "the speedups and intervals are read at equal load (the blocks' own are in the "
                   "JSON's speedup_ci_without_load)");
}

// Not in any measured step of the baseline, in the optimized arm's.
bool targetIsNew(const TargetComparison& target) {
    return target.stats.baselineAllZero && target.stats.optimized > 0.0;
}

std::string targetVerdictText(const TargetComparison& target) {
    // A target the baseline arm does not have (offload's reload wait): the change adds it, and
    // a ratio against 0 ("0.000x") says nothing.
    const std::string ratio = targetIsNew(target)
                                  ? std::string("added by the change (none in the baseline)")
                                  : speedupText(target.stats);
    std::string text = fmt::format("{} {:.3f} -> {:.3f} ms per step, {}: {}", target.description(),
                                   target.stats.baseline, target.stats.optimized, ratio,
                                   verdictText(target.verdict(), target.stats));
    const bool stepsMeasured =
        target.stats.baselineSamples > 0 && target.stats.optimizedSamples > 0;
    if (target.verdict() == Verdict::kNothingMeasured && stepsMeasured) {
        text += target.range.empty()
                    ? std::string("; it ran in neither arm")
                    : fmt::format("; no range named '{}' ran in either arm: check --target",
                                  target.range);
    }
    return text;
}

std::string endToEndVerdictText(const AbComparison& c) {
    const MetricComparison* step = c.metric(TimingMetric::kStep);
    if (step == nullptr) return "no step time";
    std::string text = fmt::format("step time {}{}: ", speedupText(*step),
                                   step->deviceTimed ? " on the device" : "");
    const Verdict verdict = c.endToEndVerdict();
    if (verdict == Verdict::kBeyondTarget) {
        const auto explained = *c.targetExplains();
        const bool faster = step->speedupLow > explained.second;  // else below explained.first
        text +=
            faster
                ? fmt::format("more than the target explains (at most {:.3f}x)", explained.second)
                : fmt::format("less than the target explains (at least {:.3f}x)", explained.first);
        text += ": noise or a side effect";
    } else {
        text += verdictText(verdict, *step);
        if (verdict == Verdict::kNothingMeasured) {
            return text +
                   ": no measured step (each was warm-up, or none ran); record more steps, "
                   "or fewer warm-up ones";
        }
    }
    if (c.target && targetIsNew(*c.target)) {
        const MetricComparison& s = c.target->stats;
        text += fmt::format("; the target, new in the optimized arm, is {:.1f}% of its step",
                            step->optimized > 0.0 ? 100.0 * s.optimized / step->optimized : 0.0);
    } else if (c.target) {
        text += fmt::format("; the target was {:.1f}% of the baseline step",
                            100.0 * c.target->baselineShare());
    }
    return text;
}

}  // namespace glueprof
