#include "profiler/host/StepDetector.h"

#include <charconv>

namespace glueprof {

namespace {
constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
constexpr std::string_view kOptimizerStepPrefix = "Optimizer.step#";
}  // namespace

const char* toString(StepSource source) {
    switch (source) {
        case StepSource::kUndecided:
            return "undecided";
        case StepSource::kNamedRange:
            return "step_range";
        case StepSource::kProfilerStep:
            return "profiler_step";
        case StepSource::kOptimizerStep:
            return "optimizer_step";
        case StepSource::kWholeRun:
            return "whole_run";
    }
    return "undecided";
}

StepDetector::StepDetector(std::string stepRange, int warmupSteps, TimestampNs startNs)
    : m_stepRange(std::move(stepRange)),
      m_warmupSteps(warmupSteps),
      m_startNs(startNs),
      m_source(m_stepRange.empty() ? StepSource::kUndecided : StepSource::kNamedRange),
      m_current(m_stepRange.empty() ? 0 : kNoTag),
      m_openStartNs(startNs) {}

std::optional<std::int32_t> StepDetector::profilerStepNumber(std::string_view name) {
    if (name.substr(0, kProfilerStepPrefix.size()) != kProfilerStepPrefix) return std::nullopt;
    const std::string_view digits = name.substr(kProfilerStepPrefix.size());
    std::int32_t number = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (error != std::errc() || end != digits.data() + digits.size() || number < 0)
        return std::nullopt;
    return number;
}

bool StepDetector::isOptimizerStep(std::string_view name) {
    return name.substr(0, kOptimizerStepPrefix.size()) == kOptimizerStepPrefix;
}

void StepDetector::rangeStarted(std::string_view name, TimestampNs ns) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::optional<std::int32_t> number;
    if (m_source == StepSource::kNamedRange) {
        if (name != m_stepRange) return;
        number = m_nextNamed;
    } else if (m_source == StepSource::kUndecided || m_source == StepSource::kProfilerStep) {
        number = profilerStepNumber(name);
        if (!number) return;
        m_source = StepSource::kProfilerStep;
    } else {
        return;
    }
    if (m_open++ > 0) return;  // a nested range of the same name: the outer one is the step
    m_openStartNs = ns;
    m_current.store(*number, std::memory_order_relaxed);
}

std::optional<StepInfo> StepDetector::rangeEnded(std::string_view name, TimestampNs ns) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const bool named = m_source == StepSource::kNamedRange && name == m_stepRange;
    const bool profilerStep =
        m_source == StepSource::kProfilerStep && profilerStepNumber(name).has_value();
    if (named || profilerStep) {
        if (m_open == 0 || --m_open > 0) return std::nullopt;
        const std::int32_t step = m_current.load(std::memory_order_relaxed);
        m_current.store(kNoTag, std::memory_order_relaxed);
        if (named) ++m_nextNamed;
        return closeStep(step, m_openStartNs, ns);
    }
    const bool optimizer =
        (m_source == StepSource::kUndecided || m_source == StepSource::kOptimizerStep) &&
        isOptimizerStep(name);
    if (!optimizer) return std::nullopt;
    m_source = StepSource::kOptimizerStep;
    const std::int32_t step = m_current.load(std::memory_order_relaxed);
    const StepInfo info = closeStep(step, m_openStartNs, ns);
    m_openStartNs = ns;
    m_current.store(step + 1, std::memory_order_relaxed);
    return info;
}

std::optional<StepInfo> StepDetector::finish(TimestampNs ns) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_source != StepSource::kUndecided || m_found > 0) return std::nullopt;
    m_source = StepSource::kWholeRun;
    m_current.store(kNoTag, std::memory_order_relaxed);
    StepInfo info;
    info.step = 0;
    info.startNs = m_startNs;
    info.endNs = ns;
    info.warmup = false;  // the only step there is: nothing to warm up before
    ++m_found;
    return info;
}

StepSource StepDetector::source() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_source;
}

int StepDetector::stepsFound() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_found;
}

StepInfo StepDetector::closeStep(std::int32_t step, TimestampNs startNs, TimestampNs endNs) {
    StepInfo info;
    info.step = step;
    info.startNs = startNs;
    info.endNs = endNs;
    info.warmup = m_found < m_warmupSteps;
    ++m_found;
    return info;
}

}  // namespace glueprof
