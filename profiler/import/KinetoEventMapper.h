#pragma once
// Kineto's dialect of the Chrome trace (torch.profiler's export_chrome_trace), mapped as HTA and
// TraceLens read it (docs/import.md §3): collectives as torch.distributed annotates them, sync
// records for the assembly to place, device work on the stream its args or tid name.
#include "profiler/import/ChromeEventMapper.h"

namespace glueprof {

class KinetoEventMapper final : public ChromeEventMapper {
  public:
    using ChromeEventMapper::ChromeEventMapper;

    const char* formatName() const override { return "Kineto JSON"; }
    bool readsRecordedArgs() const override { return false; }
    bool keepsEventsAsRecorded() const override { return false; }

  private:
    std::optional<SpanShape> shapeOf(const RawEvent& e, std::string_view cat, TimestampNs start,
                                     TimestampNs end) override;
    std::size_t laneOf(const RawEvent& e, const SpanShape& shape) override;
    void decorate(Event& added, const RawEvent& e, const SpanShape& shape) const override;
    void addSync(const RawEvent& e, TimestampNs start, TimestampNs end);
    std::size_t streamLane(const RawEvent& e);
};

}  // namespace glueprof
