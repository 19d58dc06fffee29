#pragma once
// The names of the Chrome trace JSON that glueprof writes (`glueprof export --format chrome`,
// app/report/ChromeTrace) and reads back (profiler/import: the Kineto dialect and glueprof's own
// export), in one place: the writer and the reader share no literal. The file follows Kineto's
// conventions (what ui.perfetto.dev and HTA read), plus glueprof's own args and producer marker
// (docs/import.md §3). Part of a format others read: never rename.
#include <cstdint>
#include <string_view>

namespace glueprof::chrome {

// The file's top-level keys.
inline constexpr std::string_view kTraceEvents = "traceEvents";
inline constexpr std::string_view kBaseTimeNanoseconds = "baseTimeNanoseconds";
inline constexpr std::string_view kSchemaVersion = "schemaVersion";
inline constexpr std::string_view kOtherData = "otherData";
// otherData.producer: the program that wrote the file. glueprof's own says so, and is read back
// as it was recorded.
inline constexpr std::string_view kProducer = "producer";
inline constexpr std::string_view kGlueprofProducer = "glueprof";
// Written, not read: the unit Perfetto's UI shows, and the exported run's id and label.
inline constexpr std::string_view kDisplayTimeUnit = "displayTimeUnit";
inline constexpr std::string_view kMilliseconds = "ms";
inline constexpr std::string_view kRun = "run";
inline constexpr std::string_view kLabel = "label";

// The keys of an event.
inline constexpr std::string_view kPh = "ph";
inline constexpr std::string_view kCat = "cat";
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kPid = "pid";
inline constexpr std::string_view kTid = "tid";
inline constexpr std::string_view kTs = "ts";
inline constexpr std::string_view kDur = "dur";
inline constexpr std::string_view kId = "id";  // a flow's
inline constexpr std::string_view kArgs = "args";

// Phases (`ph`). glueprof writes complete events, instants, metadata and flow starts and ends.
inline constexpr std::string_view kPhaseComplete = "X";
inline constexpr std::string_view kPhaseBegin = "B";  // a span in two events, B then E
inline constexpr std::string_view kPhaseEnd = "E";
inline constexpr std::string_view kPhaseInstant = "i";
inline constexpr std::string_view kPhaseInstantLegacy = "I";  // "i" as older Chrome wrote it
inline constexpr std::string_view kPhaseMark = "R";
inline constexpr std::string_view kPhaseMetadata = "M";
inline constexpr std::string_view kPhaseFlowStart = "s";
inline constexpr std::string_view kPhaseFlowStep = "t";
inline constexpr std::string_view kPhaseFlowEnd = "f";
// An instant's scope ("s": "t", its thread) and a flow end's binding ("bp": "e", the enclosing
// slice): written, never read.
inline constexpr std::string_view kInstantScope = "s";
inline constexpr std::string_view kScopeThread = "t";
inline constexpr std::string_view kFlowBinding = "bp";
inline constexpr std::string_view kBindEnclosing = "e";

// Metadata events (ph M) and their one arg.
inline constexpr std::string_view kProcessName = "process_name";
inline constexpr std::string_view kThreadName = "thread_name";
inline constexpr std::string_view kArgName = "name";
inline constexpr std::string_view kThreadSortIndex = "thread_sort_index";  // written, not read
inline constexpr std::string_view kArgSortIndex = "sort_index";

// Categories (`cat`), Kineto's.
inline constexpr std::string_view kCatOp = "cpu_op";
inline constexpr std::string_view kCatUserAnnotation = "user_annotation";
inline constexpr std::string_view kCatKernel = "kernel";
inline constexpr std::string_view kCatMemcpy = "gpu_memcpy";
inline constexpr std::string_view kCatMemset = "gpu_memset";
inline constexpr std::string_view kCatRuntime = "cuda_runtime";
inline constexpr std::string_view kCatSync = "cuda_sync";
// The flows that pair a launch (its runtime call) with its device work, by correlation id.
inline constexpr std::string_view kCatLaunchFlow = "ac2g";
// glueprof's own: a waiting host thread, and an instant (read back by its phase).
inline constexpr std::string_view kCatWait = "wait";
inline constexpr std::string_view kCatMarker = "marker";

// Args of an event. Kineto's:
inline constexpr std::string_view kArgCorrelation = "correlation";
inline constexpr std::string_view kArgBytes = "bytes";
// glueprof's own (the store's columns, docs/schema.md), read back only from its own export:
inline constexpr std::string_view kArgCategory = "category";  // toString(Category)
inline constexpr std::string_view kArgStep = "step";
inline constexpr std::string_view kArgLayer = "layer";
inline constexpr std::string_view kArgMicrobatch = "microbatch";
inline constexpr std::string_view kArgFlags = "flags";           // every EventFlags bit
inline constexpr std::string_view kArgSyncPoint = "sync_point";  // kFlagWouldSync, for people
inline constexpr std::string_view kArgSrc = "src";               // toString(MemoryKind)
inline constexpr std::string_view kArgDst = "dst";

// Processes: the host is one pid; device N is kGpuPidBase + N, its streams the tids.
inline constexpr std::int64_t kHostPid = 1;
inline constexpr std::int64_t kGpuPidBase = 100;

}  // namespace glueprof::chrome
