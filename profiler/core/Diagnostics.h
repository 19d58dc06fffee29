#pragma once
// Every diagnostic glueprof stores (the `diagnostics` table: name, value, detail), in one typed
// table, as Perfetto's stats.h keeps its stats: what a capture lost, what an import passed over or
// derived, and the fallbacks a run took. `check --allow-loss`, the GUI and the reports ask it what
// is a loss; the import readers count by its ids, and their line prints its details; docs/schema.md
// and docs/import.md list every entry (a test checks it). Part of the trace format: never rename a
// name or a detail; append.
#include <cstddef>
#include <string>
#include <string_view>

namespace glueprof {

enum class Severity {
    kDataLoss,  // the capture lost records; `check` fails on it unless --allow-loss
    kSkipped,   // an import passed over part of its source: not a capture loss, never fails check
    kInfo,      // a fallback taken or a fact derived rather than read: nothing is missing
};

// The stored names of an import's rows: one row per reason, the reason in `detail`.
inline constexpr const char kImportSkipped[] = "import_skipped";
inline constexpr const char kImportDerived[] = "import_derived";

// X(id, name, detail, severity, description):
//   name         the stored `diagnostics.name`;
//   detail       an import's reason, stored as the `detail` of its `import_skipped` or
//                `import_derived` row (one row per reason; `{}` stands for the source's own text:
//                a category, a table); "" for the others, whose writer stores its own detail;
//   description  what it means, for the docs and the reader of a report.
// An entry is its (name, detail): unique, and all entries of one name share its severity.
// clang-format off
#define GLUEPROF_DIAGNOSTICS(X)                                                                   \
    /* Capture losses */                                                                          \
    X(kWriterDroppedEvents, "writer_dropped_events", "", kDataLoss,                               \
      "the writer queue overflowed: events were dropped")                                         \
    X(kCuptiDroppedRecords, "cupti_dropped_records", "", kDataLoss,                               \
      "CUPTI dropped records because its buffers were full (its own count per buffer)")           \
    X(kCuptiBufferLimit, "cupti_buffer_limit_stops", "", kDataLoss,                               \
      "a CUPTI buffer request refused at the 256 MiB cap: its records were dropped")              \
    X(kCuptiUnknownKinds, "cupti_unknown_record_kinds", "", kDataLoss,                            \
      "records of kinds glueprof does not handle")                                                \
    X(kCuptiZeroTimestamps, "cupti_zero_timestamps", "", kDataLoss,                               \
      "records with start = end = 0, skipped")                                                    \
    X(kCuptiUnmatched, "cupti_unmatched_correlations", "", kDataLoss,                             \
      "device records whose API call was not captured, after waiting one flush")                  \
    X(kCuptiUnpairedMarkers, "cupti_unpaired_nvtx_ranges", "", kDataLoss,                         \
      "NVTX range ends without a start, or starts without an end")                                \
    X(kCuptiUnreadableRecords, "cupti_unreadable_records", "", kDataLoss,                         \
      "a CUPTI buffer whose records stopped reading before its end")                              \
    X(kCuptiCallFailures, "cupti_call_failures", "", kDataLoss,                                   \
      "a CUPTI call that failed while capturing (a flush, a correlation push or pop)")            \
    X(kCuptiClockFallbacks, "cupti_clock_fallbacks", "", kDataLoss,                               \
      "host timestamps taken off CUPTI's clock (the steady clock)")                               \
    X(kInvalidEvents, "invalid_events_skipped", "", kDataLoss,                                    \
      "stored events read back with an end before their start or a name missing from strings "    \
      "(an edited or damaged file), left out of every statistic; written by the reader, not "     \
      "stored")                                                                                   \
    /* Fallbacks */                                                                               \
    X(kDoubleBufferFallback, "double_buffer_fallback", "", kInfo,                                 \
      "the second reload buffer could not be allocated; reloads went single-buffered")            \
    /* Import (Kineto JSON): what the reader passed over */                                       \
    X(kSkippedNegativeDuration, kImportSkipped, "events with a negative duration", kSkipped,    \
      "an X event with a negative dur, or an E before its B")                                     \
    X(kSkippedPythonFunctions, kImportSkipped, "python_function events (--no-python)",          \
      kSkipped, "python_function events, with --no-python")                                       \
    X(kSkippedProfilerSpans, kImportSkipped, "profiler spans (cat Trace)", kSkipped,            \
      "the profiler's own spans (cat Trace)")                                                     \
    X(kSkippedUnmappedCategory, kImportSkipped,                                                 \
      "complete events of category '{}' (not mapped)", kSkipped,                                  \
      "spans of a category glueprof does not map")                                                \
    X(kSkippedNegativeBytes, kImportSkipped, "negative byte counts (stored as 0)", kSkipped,    \
      "an args.bytes below 0: the event is kept with 0 bytes")                                    \
    X(kSkippedEndWithoutBegin, kImportSkipped, "end events (ph E) without a begin", kSkipped,   \
      "an E with no open B on its pid/tid (or without ts)")                                       \
    X(kSkippedBeginWithoutEnd, kImportSkipped, "begin events (ph B) without an end", kSkipped,   \
      "a B still open at the end of the file")                                                    \
    X(kSkippedInstantOutsideProcess, kImportSkipped,                                            \
      "instant events outside a process (profiler marks)", kSkipped,                              \
      "an instant without a numeric pid or a ts")                                                 \
    X(kSkippedUnknownPhase, kImportSkipped, "events of phase '{}' (not a span)", kSkipped,      \
      "events of a phase glueprof does not map (counters, objects, ...)")                         \
    X(kSkippedUnlinkedLaunches, kImportSkipped,                                                 \
      "launch links: runtime calls and device work without a correlation id or an ac2g flow "     \
      "(kept, unlinked)", kSkipped,                                                               \
      "runtime calls and device work kept without a link to their launch or their work")          \
    /* Import (Nsight Systems SQLite) */                                                          \
    X(kSkippedEventRecordWithoutTime, kImportSkipped, "CUDA event record (no timestamp)",       \
      kSkipped, "a CUDA_EVENT row with no time of its own nor of its API call")                   \
    X(kSkippedNvtxNotRange, kImportSkipped, "NVTX {} record (not a range)", kSkipped,           \
      "NVTX rows of another event type than push/pop, start/end or mark")                         \
    X(kSkippedNvtxRangeWithoutEnd, kImportSkipped, "NVTX range without an end", kSkipped,       \
      "an NVTX range without an end, or ending before its start")                                 \
    X(kSkippedNvtxMarkWithoutTime, kImportSkipped, "NVTX mark without a time", kSkipped,        \
      "an NVTX mark without a start")                                                             \
    X(kSkippedUnreadTable, kImportSkipped, "{} rows (not imported)", kSkipped,                  \
      "the rows of an export table glueprof does not read")                                       \
    X(kSkippedNonIntegerValue, kImportSkipped,                                                  \
      "{} with a value that is not an integer (text, blob or real)", kSkipped,                    \
      "a row whose start, end, id or kind is not an integer (a damaged export)")                  \
    X(kSkippedWithoutStartOrEnd, kImportSkipped, "{} without start or end", kSkipped,           \
      "a row without a start or an end")                                                          \
    X(kSkippedNegativeRowDuration, kImportSkipped, "{} with negative duration", kSkipped,       \
      "a row that ends before it starts")                                                         \
    /* Import (both formats): what the assembly passed over */                                    \
    X(kSkippedSharedCorrelation, kImportSkipped,                                                \
      "runtime calls sharing a correlation id with an earlier call (the first is linked)",        \
      kSkipped, "runtime calls whose correlation id an earlier call has")                         \
    X(kSkippedStreamWaitWithoutStream, kImportSkipped, "stream wait event without a stream",    \
      kSkipped, "a stream wait event that names no stream")                                       \
    X(kSkippedStreamWaitOfOtherCall, kImportSkipped,                                            \
      "stream wait event whose API call is not cudaStreamWaitEvent (a stream sync's echo)",       \
      kSkipped, "a stream wait record correlated with another call (e.g. cudaStreamSynchronize)") \
    X(kSkippedUnknownSync, kImportSkipped, "synchronization of unknown type", kSkipped,         \
      "a sync record of a kind glueprof does not know")                                           \
    X(kSkippedSyncWithoutCall, kImportSkipped,                                                  \
      "host-blocking synchronization whose API call is not in the trace", kSkipped,               \
      "a host-blocking sync whose API call (same correlation) is missing")                        \
    X(kSkippedRepeatedStep, kImportSkipped,                                                     \
      "{}N range repeating an earlier step number (the first is the step)", kSkipped,             \
      "a step range (--steps PREFIX) whose number an earlier one had")                            \
    X(kSkippedUnlaunchedInNoStep, kImportSkipped,                                               \
      "device work whose launch is not in the trace (in no step)", kSkipped,                      \
      "device work without its launch, in a trace with step ranges: in no step")                  \
    X(kSkippedUnlaunchedByTime, kImportSkipped,                                                 \
      "device work whose launch is not in the trace (stepped by time)", kSkipped,                 \
      "device work without its launch, in a trace without step ranges: stepped by its time")      \
    /* Import: what the assembly derived rather than read */                                      \
    X(kDerivedSyncsFromCalls, kImportDerived,                                                   \
      "host syncs taken from their API call (no sync record in the trace)", kInfo,                \
      "sync API calls without a sync record, made syncs over the call")                           \
    X(kDerivedMergedCopySyncs, kImportDerived,                                                  \
      "host syncs right after a blocking copy, merged into its sync (one sync point)", kInfo,     \
      "host syncs right after a blocking copy, made one sync point with it")                      \
    X(kDerivedWholeTraceStep, kImportDerived,                                                   \
      "no {}N ranges: the whole trace is one step (step 0)", kInfo,                               \
      "a trace without step ranges, taken as one step over all its events")                       \
    /* glueprof profile: what the capture inside a user's program found */                       \
    X(kProfileStepSource, "profile_step_source", "", kInfo,                                       \
      "how the program's steps were found (detail: step_range, profiler_step, optimizer_step or " \
      "whole_run; value: the steps found)")                                                       \
    X(kProfileNoTorch, "profile_no_torch", "", kInfo,                                             \
      "the program never imported torch (or was refused before it did): no op was recorded")      \
    X(kProfileExit, "profile_exit", "", kInfo,                                                    \
      "how the program ended (value: its exit code, or 128 + the signal; detail: in words)")      \
    X(kProfileLosses, "profile_losses_reported", "", kInfo,                                       \
      "the steps whose loss the program reported (glueprof.record_loss); the others store 0")     \
    X(kProgramToggles, "program_toggles", "", kInfo,                                              \
      "the --try toggles: each applied (how) or not (why); value: how many applied")
// clang-format on

enum class DiagnosticId {
#define GLUEPROF_DIAGNOSTIC_ID(id, name, detail, severity, description) id,
    GLUEPROF_DIAGNOSTICS(GLUEPROF_DIAGNOSTIC_ID)
#undef GLUEPROF_DIAGNOSTIC_ID
};

struct DiagnosticInfo {
    DiagnosticId id;
    const char* name;
    const char* detail;
    Severity severity;
    const char* description;
};

inline constexpr DiagnosticInfo kDiagnostics[] = {
#define GLUEPROF_DIAGNOSTIC_INFO(id, name, detail, severity, description) \
    {DiagnosticId::id, name, detail, Severity::severity, description},
    GLUEPROF_DIAGNOSTICS(GLUEPROF_DIAGNOSTIC_INFO)
#undef GLUEPROF_DIAGNOSTIC_INFO
};

constexpr const DiagnosticInfo& diagnosticInfo(DiagnosticId id) {
    return kDiagnostics[static_cast<std::size_t>(id)];
}
constexpr const char* diagnosticName(DiagnosticId id) { return diagnosticInfo(id).name; }

// The detail stored for an import reason: its text with `{}` replaced by `quoted` (the source's
// own text, a category or a table name).
inline std::string diagnosticDetail(DiagnosticId id, std::string_view quoted = {}) {
    std::string detail = diagnosticInfo(id).detail;
    const std::size_t at = detail.find("{}");
    if (at != std::string::npos) detail.replace(at, 2, quoted);
    return detail;
}

// Whether a stored diagnostic of that name means the capture lost something: `check` fails on
// it unless --allow-loss; reports show it as a loss. Unknown names (a newer glueprof's) are not.
inline bool isLoss(std::string_view name) {
    for (const DiagnosticInfo& d : kDiagnostics) {
        if (name == d.name) return d.severity == Severity::kDataLoss;
    }
    return false;
}

}  // namespace glueprof
