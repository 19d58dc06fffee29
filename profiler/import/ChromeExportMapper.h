#pragma once
// glueprof's own Chrome export (`glueprof export --format chrome`, app/report/ChromeTrace),
// read back as it was recorded (docs/import.md §3, "glueprof's own export"): each event's
// category, step, layer, micro-batch and flags from its args, memory kinds from src/dst, sync and
// wait events as such, pid kGpuPidBase + N as GPU N with the tid as the stream
// (ChromeExportFormat.h).
#include "profiler/import/ChromeEventMapper.h"

namespace glueprof {

class ChromeExportMapper final : public ChromeEventMapper {
  public:
    using ChromeEventMapper::ChromeEventMapper;

    const char* formatName() const override { return "glueprof Chrome export"; }
    bool readsRecordedArgs() const override { return true; }
    bool keepsEventsAsRecorded() const override { return true; }

  private:
    std::optional<SpanShape> shapeOf(const RawEvent& e, std::string_view cat, TimestampNs start,
                                     TimestampNs end) override;
    std::size_t laneOf(const RawEvent& e, const SpanShape& shape) override;
    std::pair<MemoryKind, MemoryKind> memoryKindsOf(const RawEvent& e,
                                                    EventKind kind) const override;
    void decorate(Event& added, const RawEvent& e, const SpanShape& shape) const override;
    void instant(const RawEvent& e) override;
    // The lane the export wrote the event on: a GPU's stream, or a host thread.
    std::size_t recordedLane(const RawEvent& e);
};

}  // namespace glueprof
