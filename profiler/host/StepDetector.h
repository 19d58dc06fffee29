#pragma once
// StepDetector: where the steps of a program glueprof did not write are, found from the ranges the
// program itself opens (docs/profile.md, "Steps"). In order of preference:
//   - `--step-range NAME`: each range named NAME is a step;
//   - torch.profiler's `ProfilerStep#N` ranges (a program that steps a profiler schedule): each is
//     step N;
//   - each optimizer step: torch 2.x wraps `Optimizer.step` in a range `Optimizer.step#CLASS.step`,
//     and a step ends where one ends (the next begins there);
//   - else the whole run is one step.
// The first step boundary the program reaches decides between the automatic ones, and the choice
// holds for the run. The first `warmup` steps found are warm-up steps. Thread-safe (ranges close on
// any thread); torch-free, so the rule is tested without a program.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "profiler/core/Event.h"

namespace glueprof {

enum class StepSource { kUndecided, kNamedRange, kProfilerStep, kOptimizerStep, kWholeRun };
const char* toString(StepSource source);  // "step_range", "profiler_step", "optimizer_step", ...

class StepDetector {
  public:
    // stepRange: the user's --step-range ("" = automatic); startNs: when recording began (where
    // the first optimizer step, or the whole run, starts).
    StepDetector(std::string stepRange, int warmupSteps, TimestampNs startNs);

    // The step the program is in now: what an op recorded now is tagged with (kNoTag between a
    // named or profiler step and the next). Lock-free: every op asks.
    std::int32_t currentStep() const { return m_current.load(std::memory_order_relaxed); }

    // A range of the program opened / closed at `ns`. A close that ends a step returns the step.
    void rangeStarted(std::string_view name, TimestampNs ns);
    std::optional<StepInfo> rangeEnded(std::string_view name, TimestampNs ns);

    // The end of recording: the whole run as step 0 when no boundary was ever seen, else nothing
    // (work after the last boundary stays in no step: evaluation, saving).
    std::optional<StepInfo> finish(TimestampNs ns);

    StepSource source() const;
    int stepsFound() const;

    // The N of "ProfilerStep#N", or nullopt for any other name.
    static std::optional<std::int32_t> profilerStepNumber(std::string_view name);
    static bool isOptimizerStep(std::string_view name);

  private:
    StepInfo closeStep(std::int32_t step, TimestampNs startNs, TimestampNs endNs);

    const std::string m_stepRange;
    const int m_warmupSteps;
    const TimestampNs m_startNs;
    mutable std::mutex m_mutex;
    StepSource m_source;
    std::atomic<std::int32_t> m_current;  // the step ops are tagged with now
    std::int32_t m_nextNamed = 0;
    TimestampNs m_openStartNs;  // where the open step began
    int m_open = 0;             // nesting depth of the open named / profiler step range
    int m_found = 0;
};

}  // namespace glueprof
