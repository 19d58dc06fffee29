#pragma once
// The names of the capture's loss diagnostics, as their writers (TraceWriter, CUPTI's
// RecordHandler, TraceReader) spell them: aliases of entries of the one table of diagnostics
// (Diagnostics.h), which says what is a loss. Any loss in a run makes `glueprof check` fail unless
// --allow-loss; `run` and `ab` print them after the table.
#include "profiler/core/Diagnostics.h"

namespace glueprof::loss {

inline constexpr const char* kWriterDroppedEvents =
    diagnosticName(DiagnosticId::kWriterDroppedEvents);
inline constexpr const char* kCuptiDroppedRecords =
    diagnosticName(DiagnosticId::kCuptiDroppedRecords);
inline constexpr const char* kCuptiBufferLimit = diagnosticName(DiagnosticId::kCuptiBufferLimit);
inline constexpr const char* kCuptiUnknownKinds = diagnosticName(DiagnosticId::kCuptiUnknownKinds);
inline constexpr const char* kCuptiZeroTimestamps =
    diagnosticName(DiagnosticId::kCuptiZeroTimestamps);
inline constexpr const char* kCuptiUnmatched = diagnosticName(DiagnosticId::kCuptiUnmatched);
inline constexpr const char* kCuptiUnpairedMarkers =
    diagnosticName(DiagnosticId::kCuptiUnpairedMarkers);
inline constexpr const char* kCuptiUnreadableRecords =
    diagnosticName(DiagnosticId::kCuptiUnreadableRecords);
inline constexpr const char* kCuptiCallFailures = diagnosticName(DiagnosticId::kCuptiCallFailures);
inline constexpr const char* kInvalidEvents = diagnosticName(DiagnosticId::kInvalidEvents);
inline constexpr const char* kCuptiClockFallbacks =
    diagnosticName(DiagnosticId::kCuptiClockFallbacks);

}  // namespace glueprof::loss
