#include "profiler/import/ChromeExportMapper.h"

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/import/ChromeJsonNumbers.h"

namespace glueprof {

namespace {

std::optional<MemoryKind> parseMemoryKindName(std::string_view text) {
    for (MemoryKind kind :
         {MemoryKind::kUnknown, MemoryKind::kPageable, MemoryKind::kPinned, MemoryKind::kDevice}) {
        if (text == toString(kind)) return kind;
    }
    return std::nullopt;
}

std::optional<Category> parseCategoryName(std::string_view text) {
    for (int i = 0; i <= static_cast<int>(kLastCategory); ++i) {
        if (text == toString(static_cast<Category>(i))) return static_cast<Category>(i);
    }
    return std::nullopt;
}

// The tags every event of the export carries in its args.
void applyTags(Event& event, const RawEvent& e) {
    if (auto c = parseCategoryName(e.category)) event.category = *c;
    if (e.step != kAbsent) event.step = static_cast<std::int32_t>(e.step);
    if (e.layer != kAbsent) event.layer = static_cast<std::int32_t>(e.layer);
    if (e.microbatch != kAbsent) event.microbatch = static_cast<std::int32_t>(e.microbatch);
}

}  // namespace

std::optional<ChromeEventMapper::SpanShape> ChromeExportMapper::shapeOf(const RawEvent& e,
                                                                        std::string_view cat,
                                                                        TimestampNs, TimestampNs) {
    if (cat == chrome::kCatSync) return SpanShape{EventKind::kSync};
    if (cat == chrome::kCatWait) return SpanShape{EventKind::kWait};
    return commonShape(e, cat);
}

std::size_t ChromeExportMapper::laneOf(const RawEvent& e, const SpanShape&) {
    return recordedLane(e);
}

std::size_t ChromeExportMapper::recordedLane(const RawEvent& e) {
    const bool onDevice = e.pidNumeric && parseInteger(e.pid).value_or(0) >= chrome::kGpuPidBase;
    if (!onDevice) return m_state.hostLane(e);
    const std::int64_t device = parseInteger(e.pid).value_or(0) - chrome::kGpuPidBase;
    return assembly().streamLane(device, parseInteger(e.tid).value_or(-1));
}

std::pair<MemoryKind, MemoryKind> ChromeExportMapper::memoryKindsOf(const RawEvent& e,
                                                                    EventKind kind) const {
    const auto [src, dst] = ChromeEventMapper::memoryKindsOf(e, kind);
    return {parseMemoryKindName(e.src).value_or(src), parseMemoryKindName(e.dst).value_or(dst)};
}

void ChromeExportMapper::decorate(Event& added, const RawEvent& e, const SpanShape&) const {
    applyTags(added, e);
    if (e.flags != kAbsent) added.flags = static_cast<std::uint32_t>(e.flags);
    if (e.syncPoint) added.flags |= kFlagWouldSync;
}

// The export's markers (ph i), on a stream or a host thread, with their tags and correlation.
void ChromeExportMapper::instant(const RawEvent& e) {
    if ((e.ph != chrome::kPhaseInstant && e.ph != chrome::kPhaseInstantLegacy) || !e.ts)
        return hostMarker(e);
    Event& marker =
        assembly().add(recordedLane(e), EventKind::kMarker, Category::kNone, e.name, *e.ts, *e.ts);
    applyTags(marker, e);
    if (e.correlation != kAbsent) marker.correlation = e.correlation;
}

}  // namespace glueprof
