#pragma once
// UserRangeObserver: a global at::RecordFunction callback for the ranges a program opens itself
// (USER_SCOPE: `torch.profiler.record_function`, `Optimizer.step#...`, `ProfilerStep#N`, C++
// `RECORD_USER_SCOPE`). Each becomes a range event on the thread's lane; a range named as glue
// makes the ops inside it glue, as the trainer's glue ranges do; and each range's start and end go
// to the StepDetector, whose closed steps go to the step sink. Used by `glueprof profile`'s capture
// inside the user's process, beside the OpObserver. One may be active at a time.
#include <ATen/record_function.h>

#include <atomic>
#include <functional>
#include <set>
#include <string>

#include "profiler/host/HostTracer.h"
#include "profiler/host/StepDetector.h"

namespace glueprof {

class UserRangeObserver {
  public:
    using StepSink = std::function<void(const StepInfo& step)>;

    // glueRanges: the range names whose ops are glue (besides the trainer's own glue range names).
    UserRangeObserver(HostTracer& tracer, StepDetector& steps, std::set<std::string> glueRanges,
                      StepSink stepSink);
    ~UserRangeObserver();
    UserRangeObserver(const UserRangeObserver&) = delete;
    UserRangeObserver& operator=(const UserRangeObserver&) = delete;

    // The category a range of this name gives: glue for the glue ranges, optimizer for
    // `Optimizer.*#...`, else a phase (a structural range: the ops inside keep the category of
    // what encloses it).
    Category categoryOf(const std::string& name) const;

    // In the child of a fork() (a DataLoader worker): the active observer records nothing more
    // there (its writer's thread did not come with the fork). Touches one atomic: fork-safe.
    static void detachInForkedChild() { s_active.store(nullptr); }

    // A layer of the program's model (each element of an nn.ModuleList, entered and left by the
    // start-up hook's module forward hooks): what the calling thread records until the matching
    // exitLayer is tagged with `layer`, and a range named `name` ("nn.Module: CLASS") is recorded
    // around it. No-ops while no observer is active.
    static void enterLayer(std::int32_t layer, const std::string& name);
    static void exitLayer();

  private:
    static std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn);
    static void onEnd(const at::RecordFunction& fn, at::ObserverContext* context);

    // NOTE(trampoline): at::RecordFunctionCallback takes plain function pointers (see OpObserver).
    static std::atomic<UserRangeObserver*> s_active;

    HostTracer& m_tracer;
    StepDetector& m_steps;
    std::set<std::string> m_glueRanges;
    StepSink m_stepSink;
    std::uint64_t m_instance;
    at::CallbackHandle m_handle = 0;
};

}  // namespace glueprof
