#pragma once
// ScopedRange: RAII host range. Records one range event on the thread's lane when it closes and,
// when built with NVTX3, pushes/pops an NVTX range so Nsight Systems sees the same phases.
// Tags left at kNoTag are inherited from the enclosing range on the same thread.
#include <string_view>

#include "profiler/host/HostTracer.h"

namespace glueprof {

class ScopedRange {
  public:
    // tracer may be null: the range then costs nothing and records nothing (tracing off).
    ScopedRange(HostTracer* tracer, std::string_view name, Category category, Tags tags = {});
    ~ScopedRange();
    ScopedRange(const ScopedRange&) = delete;
    ScopedRange& operator=(const ScopedRange&) = delete;

  private:
    HostTracer* m_tracer;
    StringId m_name = 0;
    Category m_category;
    Tags m_tags;
    Tags m_outerTags;
    TimestampNs m_startNs = 0;
};

}  // namespace glueprof

namespace glueprof {
// Whether this build pushes NVTX ranges (NVTX3 headers were found at configure time).
bool nvtxEnabled();
}  // namespace glueprof
