#pragma once
// Diagnostics that mean the capture lost something (records, events, correlations). Any of them in
// a run makes `glueprof check` fail unless --allow-loss; `run` and `ab` print them after the table.
// Part of the trace format (docs/schema.md): never rename.
#include <string>

namespace glueprof::loss {

constexpr const char* kWriterDroppedEvents =
    "writer_dropped_events";  // the writer queue overflowed
constexpr const char* kCuptiDroppedRecords =
    "cupti_dropped_records";  // CUPTI's own count per buffer
constexpr const char* kCuptiBufferLimit =
    "cupti_buffer_limit_stops";  // a buffer request refused at the cap
constexpr const char* kCuptiUnknownKinds =
    "cupti_unknown_record_kinds";  // records of kinds not handled
constexpr const char* kCuptiZeroTimestamps = "cupti_zero_timestamps";  // start = end = 0
constexpr const char* kCuptiUnmatched =
    "cupti_unmatched_correlations";  // device records with no API call
constexpr const char* kCuptiUnpairedMarkers =
    "cupti_unpaired_nvtx_ranges";  // NVTX start without end (or end without start)
constexpr const char* kCuptiUnreadableRecords =
    "cupti_unreadable_records";  // a buffer whose records stopped reading before its end
constexpr const char* kCuptiCallFailures =
    "cupti_call_failures";  // a CUPTI call failed while capturing (flush, correlation push/pop)
constexpr const char* kInvalidEvents =
    "invalid_events_skipped";  // stored events read back with end < start or an unknown name
constexpr const char* kCuptiClockFallbacks =
    "cupti_clock_fallbacks";  // host timestamps taken off CUPTI's clock (the steady clock)

inline bool isLoss(const std::string& name) {
    for (const char* lost :
         {kWriterDroppedEvents, kCuptiDroppedRecords, kCuptiBufferLimit, kCuptiUnknownKinds,
          kCuptiZeroTimestamps, kCuptiUnmatched, kCuptiUnpairedMarkers, kCuptiUnreadableRecords,
          kCuptiCallFailures, kCuptiClockFallbacks, kInvalidEvents}) {
        if (name == lost) return true;
    }
    return false;
}

}  // namespace glueprof::loss
